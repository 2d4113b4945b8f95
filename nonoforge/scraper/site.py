"""What every site class returns, and the contract the ingest loop relies on.

A site turns one item (a puzzle id) into a :class:`Fetched`: a puzzle (``"done"``), a
definite absence (``"missing"``), or a failure with a one-line reason (``"failed"``).
A site never raises for a bad page; only bugs escape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from nonoforge.puzzle import Puzzle

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
