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

import contextlib
import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError, SQLAlchemyError

from nonoforge.db import models as m
from nonoforge.db.connect import DEFAULT_PATH, one_line, open_engine
from nonoforge.db.filters import SIZE_BANDS, Range, Size, conditions, size_band
from nonoforge.db.records import (
    CHUNK,
    UNKNOWN_SOURCE,
    chunks,
    codec,
    decode_record,
    encode_record,
    first_meta,
    isoformat,
    puzzle_row,
    utcnow,
    with_meta,
)
from nonoforge.errors import CorpusError, FormatError
from nonoforge.puzzle import Puzzle


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


class Corpus:
    """A corpus of puzzles in a database. Open one with :meth:`Corpus.open`.

    >>> with Corpus.open("corpus.db") as c:          # doctest: +SKIP
    ...     c.add(read_file("puzzles.non"))
    ...     c.stats()["puzzles"]
    """

    def __init__(self, engine: Engine) -> None:
        """Wrap an engine whose database is already at the current schema (see :meth:`open`)."""
        self.engine = engine
        # writers: on SQLite their transactions begin IMMEDIATE (see sqlite_setup)
        self._writer = engine.execution_options(nonoforge_write=True)
        self._closed = False
        self._sources_seen: set[str] = set()
        self._sources_pending: set[str] = set()

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def open(cls, url_or_path: str | os.PathLike[str] | None = None) -> Corpus:
        """Open (creating and migrating as needed) the corpus at a path or SQLAlchemy URL.

        ``None`` means ``nonoforge.db`` in the current directory; a path is a SQLite file;
        anything with ``://`` is a SQLAlchemy URL (``postgresql+psycopg://...``).
        """
        return cls(open_engine(url_or_path))

    def close(self) -> None:
        """Release the database connections."""
        if not self._closed:
            self.engine.dispose()
            self._closed = True

    def __enter__(self) -> Corpus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        """The database URL, password included (to reopen the corpus in another process)."""
        return self.engine.url.render_as_string(hide_password=False)

    def __repr__(self) -> str:
        return f"Corpus({self.engine.url.render_as_string(hide_password=True)!r})"

    # -- transactions -------------------------------------------------------------------

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        """One write transaction; database errors become one-line CorpusErrors."""
        self._sources_pending.clear()
        try:
            with self._errors(), self._writer.begin() as conn:
                yield conn
        finally:
            pending, self._sources_pending = self._sources_pending, set()
        self._sources_seen |= pending  # only once the transaction has committed

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._errors(), self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        if self._closed:
            raise CorpusError("the corpus is closed")
        try:
            yield
        except IntegrityError:
            raise
        except (DBAPIError, SQLAlchemyError) as e:
            raise CorpusError(f"corpus database error: {one_line(e)}") from None

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
        for attempt in range(3):
            try:
                with self._write() as conn:
                    return self._insert(conn, items)
            except IntegrityError as e:  # a concurrent writer added the same rows: redo
                if attempt == 2:
                    raise CorpusError(f"corpus database error: {one_line(e)}") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _insert(self, conn: Connection, items: list[_Item]) -> AddStats:
        """Add a batch inside the caller's transaction; sets each item's ``outcome``."""
        now = utcnow()
        keys = [it.puzzle.key for it in items]
        known: dict[str, tuple[int, bool]] = {}
        for chunk in chunks(sorted(set(keys))):
            q = select(m.puzzles.c.key, m.puzzles.c.id, m.puzzles.c.has_goal).where(
                m.puzzles.c.key.in_(chunk)
            )
            known.update({k: (i, g) for k, i, g in conn.execute(q)})

        # new puzzles: one row per key, preferring an occurrence that brings a goal
        fresh: dict[str, _Item] = {}
        for key, it in zip(keys, items, strict=True):
            if key in known:
                continue
            prev = fresh.get(key)
            if prev is None or (prev.puzzle.goal is None and it.puzzle.goal is not None):
                fresh[key] = it
        if fresh:
            rows = [puzzle_row(k, it.puzzle, now) for k, it in fresh.items()]
            if conn.dialect.insert_executemany_returning:
                ins = m.puzzles.insert().returning(m.puzzles.c.key, m.puzzles.c.id)
                known.update({k: (i, True) for k, i in conn.execute(ins, rows)})
            else:  # pragma: no cover - backends without RETURNING
                conn.execute(m.puzzles.insert(), rows)
                for chunk in chunks(list(fresh)):
                    q = select(m.puzzles.c.key, m.puzzles.c.id).where(m.puzzles.c.key.in_(chunk))
                    known.update({k: (i, True) for k, i in conn.execute(q)})

        # goals for puzzles stored without one
        upgraded: set[str] = set()
        for key, it in zip(keys, items, strict=True):
            pid, has_goal = known[key]
            if key in fresh or has_goal or it.puzzle.goal is None or key in upgraded:
                continue
            conn.execute(
                update(m.puzzles)
                .where(m.puzzles.c.id == pid)
                .values(rofl=encode_record(it.puzzle), has_goal=True)
            )
            upgraded.add(key)

        # provenance
        provs = [_provenance(it, known[k][0]) for k, it in zip(keys, items, strict=True)]
        by_source: dict[str, set[str]] = {}
        for pv in provs:
            if pv["source_id"] is not None:
                by_source.setdefault(pv["source"], set()).add(pv["source_id"])
        claimed: dict[tuple[str, str], int] = {}
        for source, ids in by_source.items():
            for chunk in chunks(sorted(ids)):
                q = select(m.provenance.c.source_id, m.provenance.c.puzzle_id).where(
                    m.provenance.c.source == source, m.provenance.c.source_id.in_(chunk)
                )
                claimed.update({(source, sid): pid for sid, pid in conn.execute(q)})
        seen_ids = set(claimed)
        # a (source, id) seen before (in the corpus or this batch) is a duplicate; one that
        # names another puzzle (the source changed it) is kept without the id, not lost
        dups: list[bool] = []
        for pv in provs:
            pid, source, sid = pv["puzzle_id"], pv["source"], pv["source_id"]
            dup = False
            if sid is not None:
                owner = claimed.setdefault((source, sid), pid)
                if owner != pid:
                    pv["source_id"] = None
                else:
                    dup = (source, sid) in seen_ids
                    seen_ids.add((source, sid))
            dups.append(dup)
        # without an id, a provenance is the same when puzzle, source and title are
        anonymous: set[tuple[int, str, str | None]] = set()
        stored = sorted({pv["puzzle_id"] for k, pv in zip(keys, provs, strict=True)
                         if pv["source_id"] is None and k not in fresh})
        for chunk in chunks(stored):
            q = select(
                m.provenance.c.puzzle_id, m.provenance.c.source, m.provenance.c.title
            ).where(m.provenance.c.puzzle_id.in_(chunk), m.provenance.c.source_id.is_(None))
            anonymous.update((p, s, t) for p, s, t in conn.execute(q))

        stats = AddStats()
        new_rows: list[dict[str, Any]] = []
        seen_new: set[str] = set()
        for key, it, pv, dup in zip(keys, items, provs, dups, strict=True):
            if pv["source_id"] is None:
                ident = (pv["puzzle_id"], pv["source"], pv["title"])
                dup = ident in anonymous
                anonymous.add(ident)
            if not dup:
                pv["added"] = now
                new_rows.append(pv)
            if key in fresh and key not in seen_new:
                seen_new.add(key)
                it.outcome = "new"
                stats.new += 1
            elif not dup or key in upgraded:
                upgraded.discard(key)
                it.outcome = "merged"
                stats.merged += 1
            else:
                it.outcome = "duplicate"
                stats.duplicate += 1
        if new_rows:
            self._ensure_sources(conn, {pv["source"] for pv in new_rows})
            conn.execute(m.provenance.insert(), new_rows)
        return stats

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
            counts = dict(
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
    ) -> str:
        """Record one fetched item and its puzzle (if any) in ONE transaction.

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
        for attempt in range(3):
            try:
                with self._write() as conn:
                    outcome = status
                    key = None
                    if puzzle is not None:
                        it = _Item(puzzle, raw, site, item)
                        self._insert(conn, [it])
                        outcome = "new" if it.outcome == "new" else "duplicate"
                        key = puzzle.key
                    self._log(conn, site, item, status, reason, key)
                    return outcome
            except IntegrityError as e:
                if attempt == 2:
                    raise CorpusError(f"corpus database error: {one_line(e)}") from None
        raise AssertionError("unreachable")  # pragma: no cover

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
                select(m.puzzles.c.id, m.puzzles.c.rofl).where(m.puzzles.c.key == key)
            ).first()
            if row is None:
                raise CorpusError(f"no puzzle with key {key!r} in the corpus")
            metas = first_meta(conn, [row.id])
        return with_meta(decode_record(row.rofl, key), metas.get(row.id))

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
        self,
        *,
        width: int | None = None,
        height: int | None = None,
        min_size: Size | None = None,
        max_size: Size | None = None,
        colors: Range | None = None,
        source: str | None = None,
        status: str | None = None,
        technique: str | None = None,
        grade: Range | None = None,
        solver_version: str | None = None,
        limit: int | None = None,
    ) -> Iterator[Puzzle]:
        """The puzzles matching every filter given, oldest first, as a stream.

        ``min_size``/``max_size`` bound both dimensions: an int (``10`` = at least 10x10)
        or ``(width, height)``. ``colors`` and ``grade`` are an int or an inclusive
        ``(low, high)`` range, either end None for open. ``status``, ``technique`` and
        ``grade`` match a result of ``solver_version`` (of any version when None);
        ``source`` matches any provenance. Each puzzle carries the metadata of its first
        provenance and its goal when the corpus knows it.
        """
        where = conditions(
            width=width, height=height, min_size=min_size, max_size=max_size, colors=colors,
            source=source, status=status, technique=technique, grade=grade,
            solver_version=solver_version,
        )
        p = m.puzzles
        last = 0
        left = limit
        while left is None or left > 0:
            page = CHUNK if left is None else min(CHUNK, left)
            q = (
                select(p.c.id, p.c.key, p.c.rofl)
                .where(p.c.id > last, *where)
                .order_by(p.c.id)
                .limit(page)
            )
            with self._read() as conn:
                rows = conn.execute(q).all()
                metas = first_meta(conn, [r.id for r in rows])
            if not rows:
                return
            for r in rows:
                yield with_meta(decode_record(r.rofl, r.key), metas.get(r.id))
            last = rows[-1].id
            if left is not None:
                left -= len(rows)
            if len(rows) < page:
                return

    def keys(
        self,
        *,
        width: int | None = None,
        height: int | None = None,
        min_size: Size | None = None,
        max_size: Size | None = None,
        colors: Range | None = None,
        source: str | None = None,
        status: str | None = None,
        technique: str | None = None,
        grade: Range | None = None,
        solver_version: str | None = None,
        limit: int | None = None,
    ) -> list[str]:
        """The keys of the puzzles :meth:`query` would give, in the same order."""
        where = conditions(
            width=width, height=height, min_size=min_size, max_size=max_size, colors=colors,
            source=source, status=status, technique=technique, grade=grade,
            solver_version=solver_version,
        )
        q = select(m.puzzles.c.key).where(*where).order_by(m.puzzles.c.id)
        if limit is not None:
            q = q.limit(limit)
        with self._read() as conn:
            return list(conn.scalars(q))

    def info(self, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Per puzzle: key, width, height, colors, has_goal, first provenance's title and
        source, without decoding records (cheap listings for big corpora)."""
        p, t = m.puzzles, m.provenance
        first = (
            select(t.c.puzzle_id, func.min(t.c.id).label("pv")).group_by(t.c.puzzle_id).subquery()
        )
        q = (
            select(p.c.key, p.c.width, p.c.height, p.c.colors, p.c.has_goal, t.c.title,
                   t.c.source, t.c.source_id)
            .select_from(p)
            .outerjoin(first, first.c.puzzle_id == p.c.id)
            .outerjoin(t, t.c.id == first.c.pv)
            .order_by(p.c.id)
        )
        out: list[dict[str, Any]] = []
        with self._read() as conn:
            if keys is None:
                out = [dict(r) for r in conn.execute(q).mappings()]
            else:
                want = list(dict.fromkeys(keys))
                got: dict[str, dict[str, Any]] = {}
                for chunk in chunks(want):
                    for r in conn.execute(q.where(p.c.key.in_(chunk))).mappings():
                        got[r["key"]] = dict(r)
                out = [got[k] for k in want if k in got]
        return out

    # -- results ------------------------------------------------------------------------

    _RESULT_FIELDS = ("status", "technique", "effort", "time_s", "times", "score", "grade")

    def save_results(self, rows: Iterable[dict[str, Any]], solver_version: str) -> int:
        """Insert or update ratings of one solver version; returns how many rows were saved.

        Each row names its puzzle by ``key`` and may carry ``status``, ``technique``,
        ``effort`` (a dict), ``time_s`` (the median), ``times`` (a list), ``score``,
        ``grade`` and ``rated_at``. Updating a rated puzzle changes only the fields the row
        carries, so a score can be filled in after the model is fitted. Other fields (the
        ``width``, ``title``... that :meth:`results` rows carry) are ignored, so rows read
        with :meth:`results` can be changed and saved back.
        """
        items = list(rows)
        saved = 0
        for batch in chunks(items):
            with self._write() as conn:
                saved += self._save_batch(conn, batch, solver_version)
        return saved

    def _save_batch(
        self, conn: Connection, rows: Sequence[dict[str, Any]], version: str
    ) -> int:
        r, p = m.results, m.puzzles
        keys = sorted({str(row["key"]) for row in rows})
        ids = dict(conn.execute(select(p.c.key, p.c.id).where(p.c.key.in_(keys))).all())
        missing = [k for k in keys if k not in ids]
        if missing:
            raise CorpusError(f"no puzzle with key {missing[0]!r} in the corpus")
        rated = dict(
            conn.execute(
                select(r.c.puzzle_id, r.c.id).where(
                    r.c.solver_version == version, r.c.puzzle_id.in_(list(ids.values()))
                )
            ).all()
        )
        now = utcnow()
        inserts: dict[int, dict[str, Any]] = {}
        for row in rows:
            pid = ids[str(row["key"])]
            values = {f: row[f] for f in self._RESULT_FIELDS if f in row}
            values["rated_at"] = _as_datetime(row.get("rated_at")) or now
            if pid in rated:
                conn.execute(update(r).where(r.c.id == rated[pid]).values(values))
            elif pid in inserts:
                inserts[pid].update(values)
            else:
                inserts[pid] = {f: None for f in self._RESULT_FIELDS} | values | {
                    "puzzle_id": pid, "solver_version": version
                }
        if inserts:
            conn.execute(r.insert(), list(inserts.values()))
        return len(rows)

    def results(self, solver_version: str | None = None) -> list[dict[str, Any]]:
        """Every rating (of one solver version, if given), with the puzzle's size and colours."""
        r, p = m.results, m.puzzles
        q = (
            select(p.c.key, p.c.width, p.c.height, p.c.colors, r)
            .join(p, p.c.id == r.c.puzzle_id)
            .order_by(r.c.solver_version, p.c.id)
        )
        if solver_version is not None:
            q = q.where(r.c.solver_version == solver_version)
        with self._read() as conn:
            rows = conn.execute(q).mappings().all()
        return [
            {
                "key": row["key"], "solver_version": row["solver_version"],
                "status": row["status"], "technique": row["technique"],
                "effort": row["effort"], "time_s": row["time_s"], "times": row["times"],
                "score": row["score"], "grade": row["grade"],
                "rated_at": isoformat(row["rated_at"]), "width": row["width"],
                "height": row["height"], "colors": row["colors"],
            }
            for row in rows
        ]

    def rated_keys(self, solver_version: str) -> set[str]:
        """Keys of the puzzles that have a result of this solver version."""
        r, p = m.results, m.puzzles
        q = select(p.c.key).join(r, r.c.puzzle_id == p.c.id).where(
            r.c.solver_version == solver_version
        )
        with self._read() as conn:
            return set(conn.scalars(q))

    def solver_versions(self) -> list[str]:
        """Solver versions with results, most recently rated first."""
        r = m.results
        q = (
            select(r.c.solver_version)
            .group_by(r.c.solver_version)
            .order_by(func.max(r.c.rated_at).desc(), r.c.solver_version)
        )
        with self._read() as conn:
            return list(conn.scalars(q))

    # -- difficulty models --------------------------------------------------------------

    def set_model(self, solver_version: str, model: dict[str, Any]) -> None:
        """Store (replacing) the fitted difficulty model of a solver version (JSON data)."""
        t = m.difficulty_models
        with self._write() as conn:
            conn.execute(delete(t).where(t.c.solver_version == solver_version))
            conn.execute(
                t.insert().values(solver_version=solver_version, model=model, updated=utcnow())
            )

    def get_model(self, solver_version: str) -> dict[str, Any] | None:
        """The stored difficulty model of a solver version, or None."""
        t = m.difficulty_models
        with self._read() as conn:
            return conn.scalar(select(t.c.model).where(t.c.solver_version == solver_version))

    # -- collections --------------------------------------------------------------------

    def create_collection(
        self, name: str, keys_in_order: Iterable[str], params: dict[str, Any] | None = None
    ) -> None:
        """Create (or replace) a named, ordered collection of puzzles.

        ``params`` records how it was built (filters, seed) as JSON data. Every key must be
        in the corpus; a key may not appear twice.
        """
        keys = list(keys_in_order)
        if len(set(keys)) != len(keys):
            raise CorpusError(f"collection {name!r} lists a puzzle twice")
        c, cm, p = m.collections, m.collection_members, m.puzzles
        with self._write() as conn:
            ids: dict[str, int] = {}
            for chunk in chunks(keys):
                ids.update(conn.execute(select(p.c.key, p.c.id).where(p.c.key.in_(chunk))).all())
            missing = [k for k in keys if k not in ids]
            if missing:
                raise CorpusError(f"no puzzle with key {missing[0]!r} in the corpus")
            conn.execute(delete(c).where(c.c.name == name))
            cid = conn.execute(
                c.insert().values(name=name, created=utcnow(), params=params or {})
            ).inserted_primary_key[0]
            # members first go away with the collection (ON DELETE CASCADE, or by hand where
            # a backend does not enforce it)
            conn.execute(delete(cm).where(cm.c.collection_id == cid))
            if keys:
                conn.execute(
                    cm.insert(),
                    [{"collection_id": cid, "position": i, "puzzle_id": ids[k]}
                     for i, k in enumerate(keys, start=1)],
                )

    def collection(self, name: str) -> list[Puzzle]:
        """The puzzles of a collection, in its order, with their metadata."""
        c, cm, p = m.collections, m.collection_members, m.puzzles
        with self._read() as conn:
            cid = conn.scalar(select(c.c.id).where(c.c.name == name))
            if cid is None:
                raise CorpusError(f"no collection named {name!r}")
            rows = conn.execute(
                select(p.c.id, p.c.key, p.c.rofl)
                .join(cm, cm.c.puzzle_id == p.c.id)
                .where(cm.c.collection_id == cid)
                .order_by(cm.c.position)
            ).all()
            metas = first_meta(conn, [r.id for r in rows])
        return [with_meta(decode_record(r.rofl, r.key), metas.get(r.id)) for r in rows]

    def collections(self) -> list[dict[str, Any]]:
        """Every collection: name, created, params and size."""
        c, cm = m.collections, m.collection_members
        sizes = (
            select(cm.c.collection_id, func.count().label("size"))
            .group_by(cm.c.collection_id)
            .subquery()
        )
        q = (  # JSON columns cannot be grouped on PostgreSQL: count apart, then join
            select(c.c.name, c.c.created, c.c.params, func.coalesce(sizes.c.size, 0))
            .outerjoin(sizes, sizes.c.collection_id == c.c.id)
            .order_by(c.c.name)
        )
        with self._read() as conn:
            rows = conn.execute(q).all()
        return [
            {"name": n, "created": isoformat(t), "params": pr, "size": s} for n, t, pr, s in rows
        ]

    # -- statistics ---------------------------------------------------------------------

    def stats(self, solver_version: str | None = None) -> dict[str, Any]:
        """Counts: puzzles; by source, size band, colours, grade; fetch log by site/status.

        Grades are those of ``solver_version`` (by default the most recently rated one).
        """
        p, t, r, f = m.puzzles, m.provenance, m.results, m.fetch_log
        with self._read() as conn:
            total = int(conn.scalar(select(func.count()).select_from(p)) or 0)
            by_source = {
                s: n
                for s, n in conn.execute(
                    select(t.c.source, func.count(func.distinct(t.c.puzzle_id)))
                    .group_by(t.c.source)
                    .order_by(t.c.source)
                )
            }
            by_size: dict[str, int] = {band: 0 for band, _ in SIZE_BANDS}
            for w, h, n in conn.execute(
                select(p.c.width, p.c.height, func.count()).group_by(p.c.width, p.c.height)
            ):
                band = size_band(w, h)
                by_size[band] = by_size.get(band, 0) + n
            by_colors = {
                str(c): n
                for c, n in conn.execute(
                    select(p.c.colors, func.count()).group_by(p.c.colors).order_by(p.c.colors)
                )
            }
            if solver_version is None:
                solver_version = conn.scalar(
                    select(r.c.solver_version)
                    .group_by(r.c.solver_version)
                    .order_by(func.max(r.c.rated_at).desc())
                    .limit(1)
                )
            by_grade: dict[str, int] = {}
            if solver_version is not None:
                for g, n in conn.execute(
                    select(r.c.grade, func.count())
                    .where(r.c.solver_version == solver_version)
                    .group_by(r.c.grade)
                    .order_by(r.c.grade)
                ):
                    by_grade["unrated" if g is None else str(g)] = n
                rated = sum(by_grade.values())
                if total > rated:
                    by_grade["unrated"] = by_grade.get("unrated", 0) + total - rated
            fetch: dict[str, dict[str, int]] = {}
            for site, status, n in conn.execute(
                select(f.c.site, f.c.status, func.count())
                .group_by(f.c.site, f.c.status)
                .order_by(f.c.site, f.c.status)
            ):
                fetch.setdefault(site, {})[status] = n
            ncoll = int(conn.scalar(select(func.count()).select_from(m.collections)) or 0)
        return {
            "puzzles": total,
            "by_source": by_source,
            "by_size": {k: v for k, v in by_size.items() if v},
            "by_colors": by_colors,
            "solver_version": solver_version,
            "by_grade": by_grade,
            "fetch_log": fetch,
            "collections": ncoll,
        }

    # -- files --------------------------------------------------------------------------

    def export_rofl(self, path: str | os.PathLike[str], **filters: Any) -> int:
        """Write the puzzles :meth:`query` selects (with metadata) to a ROFL file.

        The file is written beside its destination and moved into place when complete.
        Returns how many puzzles it holds.
        """
        rofl = codec()
        dest = os.fspath(path)
        tmp = dest + ".part"
        count = 0

        def counted() -> Iterator[Puzzle]:
            nonlocal count
            for p in self.query(**filters):
                count += 1
                yield p

        try:
            with open(tmp, "wb") as fp:
                rofl.dump(counted(), fp)
            os.replace(tmp, dest)
        except OSError as e:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise CorpusError(f"{dest}: {e.strerror or e}") from None
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
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
        from nonoforge.formats import loads
        from nonoforge.formats.base import MAX_FILE_BYTES

        for path in paths:
            name = os.fspath(path)
            n = 0
            try:
                data = _read_bytes(name, MAX_FILE_BYTES)
                source = f"file:{os.path.basename(name)}"
                if data[:4] == b"ROFL":
                    # every intact record is imported; what was damaged is reported after
                    reader = codec().iter_load(data, on_error="collect")
                    for p in reader:
                        n += 1
                        yield _Item(p, None, source, str(n), per_file=True)
                    problems = [e.located(name) for e in reader.errors]
                    if problems and on_error is None:
                        raise problems[0]
                    for e in problems:
                        on_error(name, e)  # type: ignore[misc]
                else:
                    # streamed: the puzzles before a malformed one are still imported
                    # path-aware: companion files (tournament solutions) bring goals
                    it = loads(data, path=name, companions=True)
                    first = next(it, None)
                    if first is None:
                        raise FormatError("no puzzle in file", path=name)
                    second = next(it, None)
                    n = 1
                    # the raw file is kept for re-parsing when it holds this one puzzle
                    keep = data if second is None else None
                    yield _Item(first, keep, source, "1", per_file=True)
                    if second is not None:
                        for p in itertools.chain([second], it):
                            n += 1
                            yield _Item(p, None, source, str(n), per_file=True)
            except (FormatError, CorpusError, ValueError) as e:
                if on_error is None:
                    raise
                on_error(name, e)
            if on_file is not None:
                on_file(name, n)


# -- helpers ------------------------------------------------------------------------------

def _read_bytes(path: str, limit: int) -> bytes:
    try:
        if os.path.getsize(path) > limit:
            raise FormatError(f"file is larger than {limit // 2**20} MiB", path=path)
        return Path(path).read_bytes()
    except IsADirectoryError:
        raise FormatError("is a directory, not a puzzle file", path=path) from None
    except FileNotFoundError:
        raise FormatError("no such file", path=path) from None
    except PermissionError:
        raise FormatError("permission denied", path=path) from None
    except OSError as e:
        raise FormatError(e.strerror or str(e), path=path) from None


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
        "source_id": None if source_id is None else str(source_id)[:200],
        "title": meta.title,
        "author": meta.author,
        "copyright": meta.copyright,
        "licence": meta.licence,
        "note": meta.note,
        "raw": it.raw,
    }


def _as_datetime(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        raise CorpusError(f"rated_at is not an ISO timestamp: {value!r}") from None


__all__ = ["DEFAULT_PATH", "SIZE_BANDS", "AddStats", "Corpus", "size_band"]
