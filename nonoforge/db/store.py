"""The corpus store: puzzles, their provenance, ratings, collections and a fetch log.

:class:`Corpus` wraps one SQLAlchemy engine. SQLite is the default (one file, WAL journal,
foreign keys on, a busy timeout, writers serialised with ``BEGIN IMMEDIATE`` so concurrent
processes wait instead of failing); any SQLAlchemy URL works, PostgreSQL included. The schema
is brought up to date by the bundled alembic migrations every time a corpus is opened.

Every puzzle is stored once, by :attr:`Puzzle.key`, as the canonical ROFL record of its clues
(and its goal picture, when one is known) without metadata. Where it came from lives in
``provenance``: one row per (source, source id), so adding a puzzle again from another source
merges provenance instead of duplicating the puzzle, and adding it again from the same source
changes nothing. Writes go in batches, one transaction each, so an interrupted import keeps
every finished batch and a re-run completes it exactly.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

from sqlalchemy import Connection, func, select, update

from nonoforge.db import insert as ins
from nonoforge.db import models as m
from nonoforge.db.collections import Collections
from nonoforge.db.connect import DEFAULT_PATH
from nonoforge.db.filters import SIZE_BANDS, QueryFilters, conditions, size_band
from nonoforge.db.records import (
    CHUNK,
    UNKNOWN_SOURCE,
    chunks,
    codec,
    decode_record,
    first_meta,
    isoformat,
    utcnow,
    with_meta,
)
from nonoforge.db.results import Results
from nonoforge.db.sites import format_site, site_of
from nonoforge.db.stats import Stats
from nonoforge.errors import CorpusError, FormatError
from nonoforge.puzzle import Puzzle
from nonoforge.util import open_atomic


@dataclass
class AddStats:
    """What an :meth:`Corpus.add` did: puzzles new to the corpus, ones it already had
    (nothing changed), and ones it had that gained provenance or a goal picture."""

    new: int = 0
    duplicate: int = 0
    merged: int = 0

    def __add__(self, other: AddStats) -> AddStats:
        return AddStats(
            self.new + other.new,
            self.duplicate + other.duplicate,
            self.merged + other.merged,
        )

    @property
    def total(self) -> int:
        return self.new + self.duplicate + self.merged


@dataclass
class _Item:
    """One puzzle on its way in, with the provenance it brings."""

    puzzle: Puzzle
    raw: bytes | None = None
    default_source: str | None = None
    default_source_id: str | None = None
    outcome: str = ""
    #: Whether the default source names one file (``file:NAME``), so that an id the
    #: puzzle's metadata carries without a source (a tournament ``$N``, an XML ``<id>``) is
    #: unique under it; under a site's name (a fetched item) the item is the id.
    per_file: bool = False
    #: what the source says beyond the puzzle (provenance.extra, JSON)
    extra: dict[str, Any] | None = None
    #: the channel it came by (a fetched site's name, ``file``, ``tournament``): its site
    #: when its metadata names no known one (:func:`nonoforge.db.sites.site_of`)
    channel: str | None = None


class Corpus(Results, Collections, Stats):
    """A corpus of puzzles in a database. Open one with :meth:`Corpus.open`.

    Its operations live by concern: the connection and transactions in
    :mod:`~nonoforge.db.session`, ratings in :mod:`~nonoforge.db.results`, collections in
    :mod:`~nonoforge.db.collections`, counts in :mod:`~nonoforge.db.stats`; this module adds,
    fetches, reads, imports and exports puzzles.

    >>> with Corpus.open("corpus.db") as c:          # doctest: +SKIP
    ...     c.add(read_file("puzzles.non"))
    ...     c.stats()["puzzles"]
    """

    # -- adding puzzles -----------------------------------------------------------------

    def add(
        self, puzzles: Iterable[Puzzle], *, raw: bytes | None = None, batch: int = 500
    ) -> AddStats:
        """Add puzzles, one transaction per ``batch``; duplicates merge their provenance.

        A puzzle's provenance is its metadata (source, source id, title, author, copyright,
        licence) and ``raw``, the bytes it was parsed from. A puzzle already in the corpus
        under the same (source, source id) is a duplicate and changes nothing; under a new
        one it gains a provenance row (and its goal picture, if the corpus had none).
        """
        return self._add_items((_Item(p, raw) for p in puzzles), batch)

    def _add_items(self, items: Iterable[_Item], batch: int) -> AddStats:
        total = AddStats()
        buf: list[_Item] = []
        try:
            for item in items:
                buf.append(item)
                if len(buf) >= max(1, batch):
                    total += self._commit_batch(buf)
                    buf = []
        except BaseException:
            if buf:  # keep what was read before the failure
                self._commit_batch(buf)
            raise
        if buf:
            total += self._commit_batch(buf)
        return total

    def _commit_batch(self, items: list[_Item]) -> AddStats:
        return self._retrying(lambda conn: self._insert(conn, items))

    def _insert(self, conn: Connection, items: list[_Item]) -> AddStats:
        """Add a batch inside the caller's transaction; sets each item's ``outcome``.

        The phases are in :mod:`nonoforge.db.insert`.
        """
        now = utcnow()
        keys = [it.puzzle.key for it in items]
        known = ins.known_puzzles(conn, keys)
        fresh = ins.insert_fresh(conn, keys, items, known, now)
        upgraded = ins.upgrade_goals(conn, keys, items, known, fresh)
        provs = [_provenance(it, known[k][0]) for k, it in zip(keys, items, strict=True)]
        dups = ins.claim_source_ids(conn, provs)
        anonymous = ins.anonymous_provenance(conn, keys, provs, fresh)
        counts, new_rows = ins.classify(
            keys, items, provs, dups, fresh, upgraded, anonymous, now
        )
        if new_rows:
            self._ensure_sources(conn, {pv["source"] for pv in new_rows})
            ins.insert_rows(conn, m.provenance, new_rows)
        return AddStats(*counts)

    def _ensure_sources(self, conn: Connection, names: set[str]) -> None:
        """Give every source a row in ``sources`` (remembering which exist, once committed)."""
        ask = sorted(names - self._sources_seen)
        if not ask:
            return
        have = set(conn.scalars(select(m.sources.c.name).where(m.sources.c.name.in_(ask))))
        missing = sorted(set(ask) - have)
        if missing:
            conn.execute(m.sources.insert(), [{"name": n} for n in missing])
        self._sources_pending.update(ask)

    def add_source(self, name: str, *, url: str | None = None, licence: str | None = None) -> None:
        """Record (or update) a source: where its puzzles come from and under what terms."""
        with self._write() as conn:
            found = conn.scalar(select(m.sources.c.id).where(m.sources.c.name == name))
            if found is None:
                conn.execute(m.sources.insert().values(name=name, url=url, licence=licence))
            else:
                values = {k: v for k, v in (("url", url), ("licence", licence)) if v is not None}
                if values:
                    conn.execute(update(m.sources).where(m.sources.c.id == found).values(values))

    def sources(self) -> list[dict[str, Any]]:
        """Every source: name, url, licence note and how many provenance rows cite it."""
        with self._read() as conn:
            counts: dict[str, int] = dict(
                conn.execute(
                    select(m.provenance.c.source, func.count()).group_by(m.provenance.c.source)
                ).all()
            )
            rows = conn.execute(select(m.sources).order_by(m.sources.c.name)).mappings().all()
        return [
            {"name": r["name"], "url": r["url"], "licence": r["licence"],
             "puzzles": counts.get(r["name"], 0)}
            for r in rows
        ]

    # -- resumable fetching -------------------------------------------------------------

    def add_fetched(
        self,
        site: str,
        item: str,
        puzzle: Puzzle | None,
        status: str,
        reason: str | None = None,
        raw: bytes | None = None,
        extra: dict[str, Any] | None = None,
        channel: str | None = None,
    ) -> str:
        """Record one fetched item and its puzzle (if any) in ONE transaction.

        ``extra`` (JSON-serialisable: what the site says beyond the puzzle) is kept on the
        puzzle's provenance row. ``channel`` is the site the puzzle counts under when its
        metadata names none (default: ``site``; ``ingest path`` passes ``tournament`` for a
        tournament set).

        Returns ``"new"`` or ``"duplicate"`` when a puzzle was given (a puzzle the corpus
        had, even from another source, is a duplicate), else ``status``. The puzzle's
        provenance defaults to source ``site`` and source id ``item``. Because the puzzle and
        the log row commit together, a killed ingest resumes exactly: an item is either done
        with its puzzle stored, or not logged at all.
        """
        if status not in m.FETCH_STATUSES:
            raise CorpusError(f"fetch status must be one of {', '.join(m.FETCH_STATUSES)}")
        if puzzle is not None and status != "done":
            raise CorpusError(f"a fetched puzzle must have status 'done', not {status!r}")
        site, item = str(site), str(item)

        def work(conn: Connection) -> str:
            outcome = status
            key = None
            if puzzle is not None:
                it = _Item(puzzle, raw, site, item, extra=extra or None,
                           channel=channel or site)
                self._insert(conn, [it])
                outcome = "new" if it.outcome == "new" else "duplicate"
                key = puzzle.key
            self._log(conn, site, item, status, reason, key)
            return outcome

        return self._retrying(work)

    @staticmethod
    def _log(
        conn: Connection, site: str, item: str, status: str, reason: str | None, key: str | None
    ) -> None:
        t = m.fetch_log
        row = conn.execute(
            select(t.c.id, t.c.attempts).where(t.c.site == site, t.c.item == item)
        ).first()
        values = {"status": status, "reason": reason, "puzzle_key": key, "updated": utcnow()}
        if row is None:
            conn.execute(t.insert().values(site=site, item=item, attempts=1, **values))
        else:
            conn.execute(
                update(t).where(t.c.id == row.id).values(attempts=row.attempts + 1, **values)
            )

    def fetch_status(self, site: str, item: str) -> str | None:
        """``"done"``, ``"missing"`` or ``"failed"`` for a logged item, else None."""
        t = m.fetch_log
        with self._read() as conn:
            return conn.scalar(
                select(t.c.status).where(t.c.site == str(site), t.c.item == str(item))
            )

    def fetch_items(self, site: str, status: str | None = None) -> set[str]:
        """The items of a site in the fetch log (with that status, if given)."""
        t = m.fetch_log
        q = select(t.c.item).where(t.c.site == str(site))
        if status is not None:
            q = q.where(t.c.status == status)
        with self._read() as conn:
            return set(conn.scalars(q))

    def fetch_log(self, site: str | None = None) -> list[dict[str, Any]]:
        """The fetch-log rows (of one site, if given), oldest update first."""
        t = m.fetch_log
        q = select(t).order_by(t.c.updated, t.c.id)
        if site is not None:
            q = q.where(t.c.site == site)
        with self._read() as conn:
            rows = conn.execute(q).mappings().all()
        return [
            {
                "site": r["site"], "item": r["item"], "status": r["status"],
                "reason": r["reason"], "attempts": r["attempts"],
                "puzzle_key": r["puzzle_key"], "updated": isoformat(r["updated"]),
            }
            for r in rows
        ]

    # -- reading puzzles ----------------------------------------------------------------

    def get(self, key: str) -> Puzzle:
        """The puzzle with this key, with the metadata of its first provenance."""
        with self._read() as conn:
            row = conn.execute(
                select(m.puzzles.c.id, m.puzzles.c.rofl, m.puzzles.c.givens)
                .where(m.puzzles.c.key == key)
            ).first()
            if row is None:
                raise CorpusError(f"no puzzle with key {key!r} in the corpus")
            metas = first_meta(conn, [row.id])
        return with_meta(decode_record(row.rofl, key, row.givens), metas.get(row.id))

    def get_many(self, keys: Iterable[str]) -> list[Puzzle]:
        """The puzzles with these keys, in the order given, each as :meth:`get` gives it;
        keys not in the corpus are left out (a page of a listing whose puzzle went since).
        One query for the records and one for the metadata per
        :data:`~nonoforge.db.records.CHUNK` keys, instead of two per puzzle (a page of 50
        from deep in a big corpus)."""
        p = m.puzzles
        want = list(dict.fromkeys(keys))
        got: dict[str, Puzzle] = {}
        with self._read() as conn:
            for chunk in chunks(want):
                rows = conn.execute(select(p.c.id, p.c.key, p.c.rofl, p.c.givens)
                                    .where(p.c.key.in_(chunk))).all()
                metas = first_meta(conn, [r.id for r in rows])
                for r in rows:
                    got[r.key] = with_meta(decode_record(r.rofl, r.key, r.givens),
                                           metas.get(r.id))
        return [got[k] for k in want if k in got]

    def __contains__(self, key: object) -> bool:
        with self._read() as conn:
            return conn.scalar(select(m.puzzles.c.id).where(m.puzzles.c.key == key)) is not None

    def __len__(self) -> int:
        with self._read() as conn:
            return int(conn.scalar(select(func.count()).select_from(m.puzzles)) or 0)

    def provenance(self, key: str) -> list[dict[str, Any]]:
        """Every provenance row of a puzzle, oldest first (``raw`` included)."""
        p, t = m.puzzles, m.provenance
        q = select(t).join(p, p.c.id == t.c.puzzle_id).where(p.c.key == key).order_by(t.c.id)
        with self._read() as conn:
            rows = conn.execute(q).mappings().all()
        return [
            {k: (isoformat(v) if k == "added" else v) for k, v in r.items() if k not in ("id",)}
            for r in rows
        ]

    def query(
        self, *, limit: int | None = None, **filters: Unpack[QueryFilters]
    ) -> Iterator[Puzzle]:
        """The puzzles matching every filter given, oldest first, as a stream.

        ``min_size``/``max_size`` bound both dimensions: an int (``10`` = at least 10x10)
        or ``(width, height)``. ``colors`` and ``grade`` are an int or an inclusive
        ``(low, high)`` range, either end None for open. ``status``, ``technique`` and
        ``grade`` match a result of ``solver_version`` (of any version when None);
        ``source`` matches any provenance's site (``webpbn``: see :mod:`nonoforge.db.sites`)
        or whole stored source (a catalogue line). Each puzzle carries the metadata of its first
        provenance and its goal when the corpus knows it.
        """
        yield from self._decoded(conditions(**filters), limit)

    def keys(
        self, *, limit: int | None = None, offset: int = 0, **filters: Unpack[QueryFilters]
    ) -> list[str]:
        """The keys of the puzzles :meth:`query` would give, in the same order; ``offset``
        skips that many first (in the database: a page deep in a big corpus reads only its
        own keys)."""
        where = conditions(**filters)
        q = select(m.puzzles.c.key).where(*where).order_by(m.puzzles.c.id)
        if limit is not None:
            q = q.limit(limit)
        if offset:
            q = q.offset(offset)
        with self._read() as conn:
            return list(conn.scalars(q))

    def info(self, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Per puzzle: key, width, height, colors, has_goal, first provenance's title,
        author, site, source (the catalogue line), source id and extra, without decoding records
        (cheap listings for big corpora)."""
        p = m.puzzles
        q = select(p.c.id, p.c.key)
        with self._read() as conn:
            if keys is None:
                return [r for page in _pages(list(conn.execute(q.order_by(p.c.id))))
                        for r in _info_rows(conn, page)]
            want = list(dict.fromkeys(keys))
            got: dict[str, dict[str, Any]] = {}
            for chunk in chunks(want):
                ids = conn.execute(q.where(p.c.key.in_(chunk))).all()
                got.update((r["key"], r) for r in _info_rows(conn, ids))
        return [got[k] for k in want if k in got]

    def listing(
        self, *, limit: int | None = None, **filters: Unpack[QueryFilters]
    ) -> Iterator[dict[str, Any]]:
        """The :meth:`info` rows of the puzzles :meth:`query` selects, in the same order,
        as a stream: one page of :data:`~nonoforge.db.records.CHUNK` puzzles per query,
        nothing decoded, memory bounded whatever the corpus's size (``db query``).

        A page is a seek from the last id (``id > last ... ORDER BY id LIMIT``), then its
        puzzles and their provenance by id: its cost grows with the page (and with how
        many puzzles the filters pass over to fill it), not with the corpus.
        """
        where = conditions(**filters)
        p = m.puzzles
        last, left = 0, limit
        while left is None or left > 0:
            page = CHUNK if left is None else min(CHUNK, left)
            q = select(p.c.id, p.c.key).where(p.c.id > last, *where).order_by(p.c.id).limit(page)
            with self._read() as conn:
                ids = conn.execute(q).all()
                rows = _info_rows(conn, ids)
            if not ids:
                return
            yield from rows
            last = ids[-1].id
            if left is not None:
                left -= len(ids)
            if len(ids) < page:
                return

    # -- files --------------------------------------------------------------------------

    def export_rofl(
        self,
        path: str | os.PathLike[str],
        *,
        on_refused: Callable[[str, str], None] | None = None,
        **filters: Any,
    ) -> int:
        """Write the puzzles :meth:`query` selects (with metadata) to a ROFL file.

        The file is written beside its destination and moved into place when complete.
        Returns how many puzzles it holds. ROFL cannot hold givens (cells printed solved):
        a puzzle with givens is left out, and ``on_refused(key, reason)`` told why; the
        others go on.
        """
        rofl = codec()
        dest = os.fspath(path)
        count = 0
        why = rofl.FORMAT.refusal

        def counted() -> Iterator[Puzzle]:
            nonlocal count
            for p in self.query(**filters):
                reason = why(p)
                if reason is not None:
                    if on_refused is not None:
                        on_refused(p.key, reason)
                    continue
                count += 1
                yield p

        try:
            with open_atomic(dest) as fp:
                rofl.dump(counted(), fp)
        except OSError as e:
            raise CorpusError(f"{dest}: {e.strerror or e}") from None
        return count

    def import_files(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        on_error: Callable[[str, Exception], None] | None = None,
        on_file: Callable[[str, int], None] | None = None,
        batch: int = 500,
    ) -> AddStats:
        """Add the puzzles of ROFL files and puzzle files in any format nonoforge reads.

        A puzzle whose metadata names no source gets source ``file:NAME`` (the file's name)
        and, for want of a source id, its position in the file, so importing the same files
        again adds nothing. The raw file is kept for re-parsing when it holds one puzzle.
        A file that cannot be read (or a corrupt ROFL record) goes to ``on_error(path,
        error)`` and the rest are imported; without ``on_error`` the first error is raised
        after every puzzle read before it has been committed. ``on_file(path, n)`` is told
        when a file is done.
        """
        return self._add_items(self._read_files(paths, on_error, on_file), batch)

    def _read_files(
        self,
        paths: Iterable[str | os.PathLike[str]],
        on_error: Callable[[str, Exception], None] | None,
        on_file: Callable[[str, int], None] | None,
    ) -> Iterator[_Item]:
        from nonoforge.formats import iter_file
        from nonoforge.formats.base import MAX_FILE_BYTES, read_regular

        for path in paths:
            name = os.fspath(path)
            n = 0
            first: tuple[Puzzle, str] | None = None  # held: is it alone in the file?
            via = "file"
            source = f"file:{os.path.basename(name)}"
            try:
                # every good puzzle is imported, each malformed one reported (it costs only
                # itself); path-aware: companion files (tournament solutions) bring goals; a
                # large bundle is streamed, never held (a FIFO or device: refused)
                reading = iter_file(name, on_error="raise" if on_error is None else "collect")
                # a puzzle's default id is its record's position in the file (bad ones
                # count: fixing one later leaves the others' ids as they were)
                for pos, r in enumerate(reading.records(), start=1):
                    if isinstance(r, FormatError):  # only when collecting: on_error is set
                        if on_error is not None:
                            on_error(name, r)
                        continue
                    n += 1
                    if n == 1:  # the format is known once a record is read
                        via = format_site(reading.format)
                        first = (r, str(pos))
                        continue
                    if first is not None:
                        yield _Item(first[0], None, source, first[1], per_file=True, channel=via)
                        first = None
                    yield _Item(r, None, source, str(pos), per_file=True, channel=via)
                if n == 0:
                    raise FormatError("no puzzle in file", path=name)
                if first is not None:
                    # the raw file is kept for re-parsing when it holds this one puzzle and
                    # nothing else (a ROFL file's record is what the corpus stores: not kept)
                    rofl = reading.format is not None and reading.format.name == "rofl"
                    keep = None if rofl or reading.errors else read_regular(name, MAX_FILE_BYTES)
                    yield _Item(first[0], keep, source, first[1], per_file=True, channel=via)
            except (FormatError, CorpusError, ValueError) as e:
                if first is not None:  # read before the error: imported like the others
                    yield _Item(first[0], None, source, first[1], per_file=True, channel=via)
                if on_error is None:
                    raise
                on_error(name, e)
            if on_file is not None:
                on_file(name, n)


# -- helpers ------------------------------------------------------------------------------

def _pages(rows: list[Any]) -> Iterator[list[Any]]:
    for i in range(0, len(rows), CHUNK):
        yield rows[i:i + CHUNK]


def _info_rows(conn: Connection, ids: Sequence[Any]) -> list[dict[str, Any]]:
    """The :meth:`Corpus.info` rows of ``ids`` (``(id, key)`` pairs, at most a chunk), in
    their order: the puzzles and all their provenance read by id (two index reads; a
    join on each puzzle's first provenance id was planned as a scan of all provenance on
    PostgreSQL), the first provenance of each kept."""
    if not ids:
        return []
    p, t = m.puzzles, m.provenance
    pids = [i for i, _ in ids]
    puz = {r.id: r for r in conn.execute(
        select(p.c.id, p.c.key, p.c.width, p.c.height, p.c.colors, p.c.has_goal)
        .where(p.c.id.in_(pids)))}
    first: dict[int, Any] = {}
    for r in conn.execute(
        select(t.c.puzzle_id, t.c.title, t.c.author, t.c.site, t.c.source, t.c.source_id,
               t.c.extra)
        .where(t.c.puzzle_id.in_(pids)).order_by(t.c.puzzle_id, t.c.id)
    ):
        first.setdefault(r.puzzle_id, r)
    out = []
    for i, _ in ids:
        x, f = puz.get(i), first.get(i)
        if x is None:
            continue
        out.append({"key": x.key, "width": x.width, "height": x.height, "colors": x.colors,
                    "has_goal": x.has_goal,
                    "title": None if f is None else f.title,
                    "author": None if f is None else f.author,
                    "site": None if f is None else f.site,
                    "source": None if f is None else f.source,
                    "source_id": None if f is None else f.source_id,
                    "extra": None if f is None else f.extra})
    return out


def _provenance(it: _Item, puzzle_id: int) -> dict[str, Any]:
    """The provenance row an item brings: its metadata, the defaults filling the gaps.

    The default source id (a fetched item, a position in a file) only applies under the
    default source: an id means nothing under another source's name. Under a file's own
    source the puzzle's id wins (it is the file's number for it); under a site's name the
    item does (ids of different files would collide there).
    """
    meta = it.puzzle.meta
    source = meta.source or it.default_source or UNKNOWN_SOURCE
    source_id = meta.source_id
    if source == it.default_source and (source_id is None or not it.per_file):
        source_id = it.default_source_id
    return {
        "puzzle_id": puzzle_id,
        "source": source[:200],
        "site": site_of(meta.source, it.channel),
        "source_id": None if source_id is None else str(source_id)[:200],
        "title": meta.title,
        "author": meta.author,
        "copyright": meta.copyright,
        "licence": meta.licence,
        "note": meta.note,
        "raw": it.raw,
        "extra": it.extra,
    }


__all__ = ["DEFAULT_PATH", "SIZE_BANDS", "AddStats", "Corpus", "size_band"]
