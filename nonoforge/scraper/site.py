"""What every site class returns, and the contract the ingest loop relies on.

A site turns one item (a puzzle id) into a :class:`Fetched`: a puzzle (``"done"``), a
definite absence (``"missing"``), or a failure with a one-line reason (``"failed"``).
A site never raises for a bad page; only bugs escape.

Sites are found through one registry (:func:`register_site`, :func:`sites`): a
:class:`SiteKind` names the site, says what it holds, where its address comes from and
what its ids look like, and opens it; ``nonoforge ingest NAME IDS`` and
:func:`nonoforge.scraper.ingest.ingest_ids` are built from it, with no code of their own
for any one site. The built-in sites register themselves when their module is imported
(:data:`BUILTIN`), which :func:`sites` does on first use only: a command that ingests
nothing never imports them.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from nonoforge.errors import UsageError
from nonoforge.puzzle import Puzzle
from nonoforge.ranges import Span, parse_span

if TYPE_CHECKING:
    from nonoforge.scraper.http import Http

DONE = "done"
MISSING = "missing"
FAILED = "failed"
#: The statuses a fetch-log row can carry.
STATUSES = (DONE, MISSING, FAILED)

#: Longest reason kept for a failure: one line, readable in a summary.
MAX_REASON = 300


def one_line(text: str, limit: int = MAX_REASON) -> str:
    """``text`` as a single line of at most ``limit`` characters."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


@dataclass(frozen=True)
class Fetched:
    """The outcome of fetching one item from a site."""

    item: str
    status: str
    puzzle: Puzzle | None = None
    reason: str | None = None
    raw: bytes | None = None
    url: str | None = None
    #: What the site says about the item beyond the puzzle (JSON-serialisable): for
    #: nonograms.org/.ru its difficulty, picture rating, date added, author id, links.
    extra: dict[str, Any] = field(default_factory=dict)
    #: a failure of the network or the server (not of the page): counted apart, exit 5
    network: bool = False

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown fetch status {self.status!r}")
        if (self.status == DONE) != (self.puzzle is not None):
            raise ValueError("a puzzle comes with status 'done' and only then")
        if self.reason is not None:
            object.__setattr__(self, "reason", one_line(self.reason))

    @classmethod
    def failed(
        cls, item: str, reason: str, url: str | None = None, *, network: bool = False
    ) -> Fetched:
        return cls(item, FAILED, reason=reason, url=url, network=network)

    @classmethod
    def missing(cls, item: str, reason: str, url: str | None = None) -> Fetched:
        return cls(item, MISSING, reason=reason, url=url)


class Site(Protocol):
    """A remote archive: a name for the fetch log and a way to fetch one item."""

    name: str

    def fetch(self, item: int) -> Fetched: ...


#: The most ids one command may ask for (a guard against typos like ``1-10000000000``).
MAX_IDS = 1_000_000


def parse_ids(text: str, limit: int = MAX_IDS) -> list[int]:
    """Ids from ``"1-500,733"``: numbers and inclusive ranges, in order, each once.

    >>> parse_ids("3,1-2, 2")
    [3, 1, 2]
    """
    out: dict[int, None] = {}
    for token in text.split(","):
        t = token.strip()
        if not t:
            continue
        lo, hi = parse_span(t, "ids", within=Span(1, None))  # the one range grammar
        if lo is None or hi is None:
            raise UsageError(f"bad range {t!r}: a range of ids has both ends, like 1-500")
        if hi - lo + 1 + len(out) > limit:
            raise UsageError(f"{t!r} asks for too many ids (at most {limit} per run)")
        for i in range(lo, hi + 1):
            out[i] = None
    if not out:
        raise UsageError("no ids given (e.g. 1-500,733)")
    return list(out)


@dataclass(frozen=True)
class SiteChoice:
    """A setting of one site beyond the common ones (``--method xml``): its option is
    ``--NAME``, one of ``choices``, ``default`` when not given."""

    name: str
    help: str
    choices: tuple[str, ...]
    default: str

    def __post_init__(self) -> None:
        if self.default not in self.choices:
            raise ValueError(f"{self.name}: default {self.default!r} is not a choice")

    def check(self, value: str) -> str:
        """``value`` when it is a choice, else UsageError in one line."""
        if value not in self.choices:
            raise UsageError(f"--{self.name} must be {' or '.join(self.choices)}")
        return value


#: ``open(http, base_url, choices)``: the site at ``base_url`` (None: its environment
#: variable's, else its own), fetching through ``http``, with the settings of its
#: :class:`SiteChoice` options by name.
Opener = Callable[["Http", "str | None", Mapping[str, str]], Site]


@dataclass(frozen=True)
class SiteKind:
    """A site as the registry knows it: what ``nonoforge ingest NAME`` is built from."""

    #: the command's name (``ingest NAME IDS``), lower case
    name: str
    #: what the site holds, for the command's help (the first line is its summary)
    description: str
    #: the environment variable that may give the site's address (a mirror, a test server)
    env_url: str
    #: the address when neither ``--base-url`` nor ``env_url`` gives one
    default_url: str
    #: opens the site (see :data:`Opener`)
    open: Opener
    #: the licence terms recorded with the site's source row; ``{site}`` is its name
    licence: str
    #: ids for the help's example (``ingest NAME EXAMPLE``)
    example: str = "1-100"
    #: turns the command line's IDS into the items fetched (numbers and ranges by default)
    ids: Callable[[str], list[int]] = parse_ids
    #: the site's own settings, each an option of its command
    choices: tuple[SiteChoice, ...] = ()

    def base_url(self, given: str | None = None) -> str:
        """The site's address: ``given``, else ``env_url``'s value, else ``default_url``."""
        return (given or os.environ.get(self.env_url) or self.default_url).rstrip("/")

    def help(self) -> str:
        """The command's help: the description, where the address may come from, an example."""
        return (f"{self.description}\n\nBase URL also from {self.env_url}. "
                f"Example: nonoforge ingest {self.name} {self.example}")

    def settings(self, given: Mapping[str, str | None]) -> dict[str, str]:
        """Every setting of the site: ``given`` ones checked, the rest their defaults;
        UsageError for a setting the site does not have."""
        known = {c.name: c for c in self.choices}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise UsageError(f"{self.name} has no setting {unknown[0]!r}")
        return {n: c.default if given.get(n) is None else c.check(str(given[n]))
                for n, c in known.items()}


#: The built-in sites and their modules, in the order ``ingest --help`` lists them: each
#: module registers its :class:`SiteKind` when imported.
BUILTIN = (("webpbn", "nonoforge.scraper.webpbn"), ("nonograms", "nonoforge.scraper.nonograms"))
#: Names ``ingest`` keeps for itself (``ingest path PATH``).
RESERVED = frozenset(("path",))
_SITES: dict[str, SiteKind] = {}
_loaded: list[bool] = []


def register_site(kind: SiteKind) -> SiteKind:
    """Add ``kind`` to the registry (again under its name replaces it) and return it."""
    if kind.name in RESERVED or not kind.name or kind.name != kind.name.lower():
        raise ValueError(f"{kind.name!r} cannot name a site")
    _SITES[kind.name] = kind
    return kind


def unregister_site(name: str) -> None:
    """Take the site ``name`` out of the registry (a test's toy site, when it is done)."""
    _SITES.pop(name, None)


def sites() -> dict[str, SiteKind]:
    """Every registered site by name, the built-in ones first (imported on first call),
    then the others in the order they were registered."""
    if not _loaded:
        _loaded.append(True)
        for _name, module in BUILTIN:
            importlib.import_module(module)
    first = [name for name, _module in BUILTIN if name in _SITES]
    return {n: _SITES[n] for n in [*first, *(n for n in _SITES if n not in first)]}


def is_site(name: str) -> bool:
    """Whether ``name`` names a site, without importing the built-in ones (``ingest
    PATH`` asks it of every path, and reading files needs none of them)."""
    return name in _SITES or any(name == n for n, _module in BUILTIN)


def site_kind(name: str) -> SiteKind:
    """The registered site ``name``; UsageError naming the known ones otherwise."""
    for builtin, module in BUILTIN:  # only its own module: ingest webpbn loads no other
        if name == builtin and name not in _SITES:
            importlib.import_module(module)
    if name not in _SITES:
        raise UsageError(f"no site {name!r} (known: {', '.join(sorted(sites()))})")
    return _SITES[name]
