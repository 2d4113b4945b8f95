"""Ingestion into the corpus: the loops behind ``nonoforge ingest``.

Each item (a site's puzzle id, or a file of a local archive) goes into the corpus with
its fetch-log row in one transaction (:meth:`Corpus.add_fetched`), so a run that is
killed resumes exactly: a re-run skips what is done or missing and retries what failed.
Puzzles are deduplicated by key; every outcome is counted in an :class:`IngestSummary`.
With ``dry_run`` everything is fetched and parsed but nothing is written. When the site
cannot be reached at all (no network, a wrong address, nothing listening), a run stops at
the first item that finds so, instead of failing every other item the same way; the items
it did not try are left out of the fetch log, so the next run takes them up.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nonoforge.errors import FAILED_EXIT, FetchError, FormatError, UsageError
from nonoforge.scraper.http import Http, Unreachable
from nonoforge.scraper.local import Member, item_name, iter_members
from nonoforge.scraper.site import (  # noqa: F401 - parse_ids, MAX_IDS: their old home
    DONE,
    FAILED,
    MAX_IDS,
    Fetched,
    Site,
    one_line,
    parse_ids,
    site_kind,
)

if TYPE_CHECKING:
    from nonoforge.db import Corpus
    from nonoforge.puzzle import Puzzle

#: How many failures a summary lists (all are counted, and all are in the fetch log).
MAX_LISTED = 50
LOCAL = "local"

OUTCOMES = ("new", "duplicate", "missing", "failed")


@dataclass
class IngestSummary:
    """What a run did: counts by outcome, the failures (the first few) and the timing."""

    source: str
    dry_run: bool = False
    requested: int = 0
    skipped: int = 0
    new: int = 0
    duplicate: int = 0
    missing: int = 0
    failed: int = 0
    seconds: float = 0.0
    failures: list[dict[str, str]] = field(default_factory=list)
    http: dict[str, int] | None = None
    #: how many of the failures were the network's or the server's (not the page's)
    network_failed: int = 0
    #: what ``requested`` counts: a site's items, or a local path's files (each may hold
    #: many puzzles, so the line must not call 1 file of 1000 puzzles "1 item")
    unit: str = "item"
    #: why the run stopped before its end: the site could not be reached (one plain line)
    stopped: str | None = None
    #: the item that found the site unreachable (failed, in the fetch log like any other)
    stopped_at: str | None = None
    #: items left untried by the stop: not in the fetch log, so a re-run takes them up
    untried: int = 0
    #: where the fetch log is (the corpus, as a message names it); None in a dry run
    fetch_log: str | None = None
    #: files of a folder or archive that are not puzzle files (a README, a LICENSE): not
    #: read, not failures; said once, in the summary line
    others: int = 0

    def record(
        self, item: str, outcome: str, reason: str | None = None, *, network: bool = False
    ) -> None:
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        setattr(self, outcome, getattr(self, outcome) + 1)
        if outcome == FAILED and network:
            self.network_failed += 1
        if outcome == FAILED and len(self.failures) < MAX_LISTED:
            self.failures.append({"item": item, "reason": one_line(reason or "unknown")})

    def stop(self, item: str, down: Unreachable, untried: int, skipped: int) -> None:
        """The run stops at ``item``: the site is unreachable; ``untried`` items after it
        were not tried and ``skipped`` were done already."""
        self.stopped, self.stopped_at = down.line(), item
        self.untried += untried
        self.skipped += skipped

    @property
    def counts(self) -> str:
        return (
            f"new {self.new} · duplicate {self.duplicate} · missing {self.missing} · "
            f"failed {self.failed}" + (f" · skipped {self.skipped}" if self.skipped else "")
            + (f" · not tried {self.untried}" if self.untried else "")
            + (f" · {self.others} not puzzle file(s), not read" if self.others else "")
        )

    def line(self) -> str:
        """The one-line summary printed at the end of a run."""
        what = "dry run: " if self.dry_run else ""
        return f"{what}{self.source}: {self.requested} {self.unit}(s) in {self.seconds:.1f} s: " + (
            self.counts
        )

    def failure_lines(self, shown: int = 10) -> list[str]:
        """A line for each of the first ``shown`` failures, then how many more there are
        and where all of them are. The item a stop was found at is left out: the stop's
        own line (:meth:`stop_line`) says it once."""
        listed = [f for f in self.failures if f["item"] != self.stopped_at]
        lines = [f"  failed {f['item']}: {f['reason']}" for f in listed[:shown]]
        more = self.failed - (self.stopped_at is not None) - min(shown, len(listed))
        if more > 0:
            where = f" of {self.fetch_log}" if self.fetch_log else ""
            lines.append(f"  ... {more} more (each with its reason in the fetch log{where})")
        return lines

    def stop_line(self) -> str | None:
        """Why the run stopped early, what it left and how to go on: one line (None when
        it ran to the end)."""
        if self.stopped is None:
            return None
        tried = self.requested - self.untried - self.skipped
        line = (f"{self.stopped}; stopped after {tried} of {self.requested} {self.unit}(s)"
                f", {self.untried} not tried")
        if self.dry_run or not self.fetch_log:
            return line + " (a dry run: nothing recorded)"
        return line + (f": run the same command again to go on (fetch log: {self.fetch_log})")

    @property
    def exit_code(self) -> int:
        """5 when the run stopped because the site could not be reached; else 0 when
        something was ingested (or was already there), or nothing failed; when every item
        that was tried failed: 5 if all for network reasons, else 2."""
        if self.stopped is not None:
            return FetchError.exit_code
        if not self.failed or self.new or self.duplicate or self.skipped:
            return 0
        return FetchError.exit_code if self.network_failed == self.failed else FAILED_EXIT

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "dry_run": self.dry_run,
            "requested": self.requested,
            "skipped": self.skipped,
            "new": self.new,
            "duplicate": self.duplicate,
            "missing": self.missing,
            "failed": self.failed,
            "others": self.others,
            "seconds": round(self.seconds, 3),
            "failures": list(self.failures),
            "http": self.http,
            "network_failed": self.network_failed,
            "stopped": self.stopped,
            "untried": self.untried,
            "fetch_log": self.fetch_log,
            "exit_code": self.exit_code,
        }


class _Bar:
    """A rich progress bar on stderr with the running counts (or nothing when off)."""

    def __init__(self, progress: Any, task: Any, summary: IngestSummary) -> None:
        self.progress, self.task, self.summary = progress, task, summary

    def advance(self) -> None:
        if self.progress is not None:
            self.progress.update(self.task, advance=1, counts=self.summary.counts)


@contextmanager
def _progress(
    enabled: bool, total: int | None, label: str, summary: IngestSummary
) -> Iterator[_Bar]:
    if not enabled:
        yield _Bar(None, None, summary)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = [
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[counts]}"),
    ]
    with Progress(*columns, console=Console(stderr=True), transient=False) as p:
        task = p.add_task(label, total=total, counts=summary.counts)
        yield _Bar(p, task, summary)


def _dry_outcome(corpus: Corpus | None, fetched: Fetched, seen: set[str]) -> str:
    """new / duplicate / missing / failed without writing anything."""
    if fetched.puzzle is None:
        return fetched.status
    key = fetched.puzzle.key
    dup = key in seen or (corpus is not None and key in corpus)
    seen.add(key)
    return "duplicate" if dup else "new"


def ingest_site(
    corpus: Corpus | None,
    site: Site,
    items: Iterable[int],
    *,
    dry_run: bool = False,
    progress: bool = False,
    retry_failed: bool = True,
    on_item: Callable[[Fetched, str], None] | None = None,
) -> IngestSummary:
    """Fetch ``items`` from ``site`` into ``corpus``; skip what the fetch log has done.

    ``corpus`` may be None only with ``dry_run``. Items logged as done or missing are
    skipped; failed ones are fetched again unless ``retry_failed`` is False. When an item
    fails because the site cannot be reached at all (its :class:`Http` says so, after its
    retries), the run stops there: the items after it are counted as not tried and left
    out of the fetch log (:meth:`IngestSummary.stop`).
    """
    if corpus is None and not dry_run:
        raise UsageError("a corpus is needed unless this is a dry run")
    ids = list(items)
    summary = IngestSummary(site.name, dry_run=dry_run, requested=len(ids))
    skip: set[str] = set()
    if corpus is not None:
        skip = corpus.fetch_items(site.name)
        if retry_failed:
            skip -= corpus.fetch_items(site.name, FAILED)
    summary.fetch_log = None if dry_run or corpus is None else corpus_name(corpus)
    seen: set[str] = set()
    t0 = time.monotonic()
    try:
        with _progress(progress, len(ids), site.name, summary) as bar:
            for n, i in enumerate(ids, start=1):
                key = str(i)
                if key in skip:
                    summary.skipped += 1
                    bar.advance()
                    continue
                try:
                    fetched = site.fetch(i)
                except Exception as e:  # a bug or an unforeseen page: record it, go on
                    fetched = Fetched.failed(key, f"internal error: {type(e).__name__}: {e}")
                if dry_run or corpus is None:
                    outcome = _dry_outcome(corpus, fetched, seen)
                else:
                    outcome = corpus.add_fetched(
                        site.name, key, fetched.puzzle, fetched.status,
                        reason=fetched.reason, raw=fetched.raw, extra=fetched.extra,
                    )
                summary.record(key, outcome, fetched.reason, network=fetched.network)
                if on_item is not None:
                    on_item(fetched, outcome)
                bar.advance()
                down = _unreachable(site) if fetched.status == FAILED else None
                if down is not None:  # every other item would fail the same way: stop
                    rest = [str(j) for j in ids[n:]]
                    done = sum(j in skip for j in rest)
                    summary.stop(key, down, untried=len(rest) - done, skipped=done)
                    break
    finally:
        summary.seconds = time.monotonic() - t0
        http = getattr(site, "http", None)
        if isinstance(http, Http):
            summary.http = http.stats.as_dict()
    return summary


def _unreachable(site: Site) -> Unreachable | None:
    """Whether ``site``'s latest request found it unreachable (see :class:`Http`)."""
    http = getattr(site, "http", None)
    return http.unreachable if isinstance(http, Http) else None


def corpus_name(corpus: Corpus) -> str:
    """The corpus as a message names it: a SQLite file's path (relative when it is under
    the working directory), else its URL without the password."""
    url = corpus.engine.url
    if url.get_backend_name() == "sqlite" and url.database:
        rel = os.path.relpath(url.database)  # "nonoforge.db" where the user is
        return url.database if rel.startswith("..") else rel
    return str(url.render_as_string(hide_password=True))


def ingest_ids(
    corpus: Corpus | None,
    site: str,
    ids: Iterable[int],
    *,
    http: Http | None = None,
    base_url: str | None = None,
    settings: Mapping[str, str | None] | None = None,
    dry_run: bool = False,
    progress: bool = False,
) -> IngestSummary:
    """The puzzles ``ids`` of the registered site ``site`` (``"webpbn"``, ``"nonograms"``,
    see :func:`nonoforge.scraper.site.sites`) into ``corpus``, through :func:`ingest_site`.

    ``base_url`` is the site's address (None: its environment variable's, else its own);
    ``settings`` its own options by name (``{"method": "export"}`` for webpbn), checked by
    the registry. The site is recorded as a source, with its licence, unless this is a
    dry run.
    """
    kind = site_kind(site)
    chosen = kind.settings(settings or {})
    opened = kind.open(http or Http(), base_url, chosen)
    if corpus is not None and not dry_run:
        url = getattr(opened, "base_url", None) or kind.base_url(base_url)
        corpus.add_source(opened.name, url=url, licence=kind.licence.format(site=opened.name))
    return ingest_site(corpus, opened, ids, dry_run=dry_run, progress=progress)


def _member_records(
    m: Member, channel: list[str] | None = None
) -> Iterator[Puzzle | FormatError | str]:
    """The records of one archive member, as they are read (its puzzles and, in their
    places, the errors of malformed ones: each costs only itself). A string is the reason
    reading stopped (the file could not be read, held no puzzle, or broke off); nothing
    follows it. ``channel[0]`` is set to the site a puzzle of the file counts under when
    its metadata names none (``tournament`` for a tournament set, else ``file``) once the
    first record is read."""
    from nonoforge.db.sites import format_site
    from nonoforge.formats import iter_file, loads

    if m.error is not None or (m.data is None and m.path is None):
        yield m.error or "unreadable"
        return
    n = 0
    try:
        # path-aware: a plain file's companions (tournament solutions) bring its goals; a
        # large plain file is read from its path (streamed: scraper.local.Member)
        reading = (iter_file(m.path, on_error="collect") if m.data is None and m.path
                   else loads(m.data or b"", path=m.name, companions=True, on_error="collect"))
        for r in reading.records():
            n += 1
            if n == 1 and channel is not None:
                channel[:] = [format_site(reading.format)]
            yield r
    except FormatError as e:
        yield e.reason_in(m.name)
    except RecursionError:
        yield "nesting too deep"
    except Exception as e:  # a reader's bug must not stop the other files
        yield f"internal error: {type(e).__name__}: {e}"
    else:
        if n == 0:
            yield "no puzzle in file"


def check_source(path: str) -> None:
    """FormatError when ``path`` (a file, folder or archive to ingest) does not exist."""
    if not os.path.lexists(path):
        raise FormatError("no such file or directory", path=path)


def ingest_path(
    corpus: Corpus | None,
    path: str,
    *,
    dry_run: bool = False,
    progress: bool = False,
    site: str = LOCAL,
) -> IngestSummary:
    """Every puzzle file under ``path`` (a file, a directory, a .zip or a .tar.gz).

    Each file is one fetch-log item of ``site`` (``"local"``), named by its absolute path
    (``archive.zip!member`` inside archives); a file holding several puzzles gives items
    ``NAME#1``, ``NAME#2``, ... by position, each stored with its log row as it is read
    (memory stays bounded whatever the file's size; a kill loses nothing stored before
    it). A file that cannot be read is recorded as failed with its reason and the rest
    are ingested; a malformed record of several, or the place a file broke off, is its
    own failed item. Files are read again on every run (they are cheap and may have
    changed); the key makes repeated puzzles duplicates.
    """
    if corpus is None and not dry_run:
        raise UsageError("a corpus is needed unless this is a dry run")
    check_source(path)
    summary = IngestSummary(f"{site}:{path}", dry_run=dry_run, unit="file")
    summary.fetch_log = None if dry_run or corpus is None else corpus_name(corpus)
    seen: set[str] = set()
    t0 = time.monotonic()
    channel = ["file"]  # the site of the current file's puzzles (see _member_records)

    def failed(item: str, why: str) -> None:
        """An item (a file, or one malformed puzzle of several) that could not be read."""
        if dry_run or corpus is None:
            outcome = FAILED
        else:
            outcome = corpus.add_fetched(site, item, None, FAILED, reason=why)
        summary.record(item, outcome, why)

    def put(item: str, r: Puzzle | FormatError, raw: bytes | None, file: str) -> None:
        """Store one record (a puzzle, with the file's bytes when it is alone in the file)
        with its fetch-log row, at once: a kill loses nothing stored before it."""
        if isinstance(r, FormatError):  # a malformed puzzle of several
            failed(item, r.reason_in(file))
            return
        fetched = Fetched(item, DONE, r, raw=raw)
        if dry_run or corpus is None:
            outcome = _dry_outcome(corpus, fetched, seen)
        else:
            outcome = corpus.add_fetched(site, item, r, DONE, raw=raw, channel=channel[0])
        summary.record(item, outcome)

    try:
        with _progress(progress, None, "files", summary) as bar:
            def others(_where: str, names: list[str]) -> None:
                summary.others += len(names)

            for m in iter_members(path, on_others=others):
                summary.requested += 1
                name = item_name(m.name)
                # records are stored as they are read (memory stays bounded whatever the
                # file's size); only the first is held, until a second shows whether the
                # file holds several (items NAME#1, NAME#2, ... by position) or it alone
                # (item NAME, with the file's bytes kept for re-parsing)
                held: Puzzle | FormatError | None = None
                channel[:] = ["file"]
                for n, r in enumerate(_member_records(m, channel), start=1):  # the nth
                    if held is not None:
                        put(item_name(f"{m.name}#1"), held, None, m.name)
                        held = None
                    if isinstance(r, str):  # reading stopped: the file, or where it broke
                        failed(name if n == 1 else item_name(f"{m.name}#{n}"), r)
                        break
                    if n == 1:
                        held = r
                    else:
                        put(item_name(f"{m.name}#{n}"), r, None, m.name)
                if held is not None:
                    put(name, held, m.raw(), m.name)
                bar.advance()
    finally:
        summary.seconds = time.monotonic() - t0
    return summary
