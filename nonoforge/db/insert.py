"""The phases of adding a batch of puzzles inside one transaction (see ``Corpus._insert``).

Each phase reads or writes what it needs for the whole batch at once (``IN`` lists of
:data:`~nonoforge.db.records.CHUNK`), so a batch costs a handful of statements whatever
its size.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from operator import itemgetter
from typing import Any, Protocol

from sqlalchemy import Connection, Table, select, update

from nonoforge.db import models as m
from nonoforge.db.records import chunks, encode_record, puzzle_row
from nonoforge.puzzle import Puzzle

#: A provenance row on its way in (the columns of ``provenance``, ``puzzle_id`` set).
Row = dict[str, Any]


class Incoming(Protocol):
    """A puzzle on its way in; its ``outcome`` is set when the batch is classified."""

    puzzle: Puzzle
    outcome: str


#: Whether a batch's rows go into SQLite through the driver's ``executemany`` (see
#: :func:`insert_rows`); tests switch it off to compare the rows with Core's.
DRIVER_EXECUTEMANY = True


def insert_rows(conn: Connection, table: Table, rows: Sequence[Row]) -> None:
    """Insert ``rows`` (dicts with the same keys: columns of ``table``) in one statement.

    On SQLite, one ``executemany`` of the driver, each value converted by its column's
    own bind processor -- what Core's ``insert()`` sends, without Core's per-row work
    (compiling the parameters of every row: a third of what storing a batch cost, issue
    38). Elsewhere (PostgreSQL's driver batches differently), and with
    :data:`DRIVER_EXECUTEMANY` off, through Core.
    """
    if not rows:
        return
    dialect = conn.dialect
    if dialect.name != "sqlite" or not DRIVER_EXECUTEMANY:
        conn.execute(table.insert(), list(rows))
        return
    names = list(rows[0])
    procs = [table.c[n].type.dialect_impl(dialect).bind_processor(dialect) for n in names]
    convert = [(i, f) for i, f in enumerate(procs) if f is not None]
    values = itemgetter(*names) if len(names) > 1 else lambda row: (row[names[0]],)
    params = []
    for row in rows:
        vals = list(values(row))
        for i, f in convert:
            vals[i] = f(vals[i])
        params.append(tuple(vals))
    quote = dialect.identifier_preparer.quote
    sql = (f"INSERT INTO {quote(table.name)} ({', '.join(map(quote, names))}) "
           f"VALUES ({', '.join('?' * len(names))})")
    conn.exec_driver_sql(sql, params)


def known_puzzles(conn: Connection, keys: Sequence[str]) -> dict[str, tuple[int, bool]]:
    """``key -> (id, has_goal)`` of the keys the corpus already has."""
    known: dict[str, tuple[int, bool]] = {}
    for chunk in chunks(sorted(set(keys))):
        q = select(m.puzzles.c.key, m.puzzles.c.id, m.puzzles.c.has_goal).where(
            m.puzzles.c.key.in_(chunk)
        )
        known.update({k: (i, g) for k, i, g in conn.execute(q)})
    return known


def insert_fresh(
    conn: Connection,
    keys: Sequence[str],
    items: Sequence[Incoming],
    known: dict[str, tuple[int, bool]],
    now: datetime,
) -> dict[str, Incoming]:
    """Insert the puzzles new to the corpus (adding them to ``known``); returns them by key.

    One row per key, preferring an occurrence that brings a goal.
    """
    fresh: dict[str, Incoming] = {}
    for key, it in zip(keys, items, strict=True):
        if key in known:
            continue
        prev = fresh.get(key)
        if prev is None or (prev.puzzle.goal is None and it.puzzle.goal is not None):
            fresh[key] = it
    if fresh:
        rows = [puzzle_row(k, it.puzzle, now) for k, it in fresh.items()]
        if conn.dialect.name == "sqlite" and DRIVER_EXECUTEMANY:
            insert_rows(conn, m.puzzles, rows)
            known.update({k: (i, True) for k, (i, _) in known_puzzles(conn, list(fresh)).items()})
        elif conn.dialect.insert_executemany_returning:
            ins = m.puzzles.insert().returning(m.puzzles.c.key, m.puzzles.c.id)
            known.update({k: (i, True) for k, i in conn.execute(ins, rows)})
        else:  # pragma: no cover - backends without RETURNING
            conn.execute(m.puzzles.insert(), rows)
            for chunk in chunks(list(fresh)):
                q = select(m.puzzles.c.key, m.puzzles.c.id).where(m.puzzles.c.key.in_(chunk))
                known.update({k: (i, True) for k, i in conn.execute(q)})
    return fresh


def upgrade_goals(
    conn: Connection,
    keys: Sequence[str],
    items: Sequence[Incoming],
    known: dict[str, tuple[int, bool]],
    fresh: dict[str, Incoming],
) -> set[str]:
    """Store the goals of puzzles the corpus had without one; returns their keys."""
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
    return upgraded


def claim_source_ids(conn: Connection, provs: list[Row]) -> list[bool]:
    """Which provenance rows repeat a (source, id) already seen (in the corpus or earlier in
    the batch). One whose id names another puzzle (the source changed it) loses the id
    instead, so it is kept, not lost."""
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
    return dups


def anonymous_provenance(
    conn: Connection, keys: Sequence[str], provs: list[Row], fresh: dict[str, Incoming]
) -> set[tuple[int, str, str | None]]:
    """``(puzzle id, source, title)`` of the stored rows without a source id that this
    batch's rows without one could repeat: without an id, a provenance is the same when
    puzzle, source and title are."""
    anonymous: set[tuple[int, str, str | None]] = set()
    stored = sorted({pv["puzzle_id"] for k, pv in zip(keys, provs, strict=True)
                     if pv["source_id"] is None and k not in fresh})
    for chunk in chunks(stored):
        q = select(
            m.provenance.c.puzzle_id, m.provenance.c.source, m.provenance.c.title
        ).where(m.provenance.c.puzzle_id.in_(chunk), m.provenance.c.source_id.is_(None))
        anonymous.update((p, s, t) for p, s, t in conn.execute(q))
    return anonymous


def classify(
    keys: Sequence[str],
    items: Sequence[Incoming],
    provs: list[Row],
    dups: list[bool],
    fresh: dict[str, Incoming],
    upgraded: set[str],
    anonymous: set[tuple[int, str, str | None]],
    now: datetime,
) -> tuple[tuple[int, int, int], list[Row]]:
    """Set each item's outcome (new, merged, duplicate): ``((new, duplicate, merged),
    provenance rows to insert)``."""
    new = duplicate = merged = 0
    new_rows: list[Row] = []
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
            new += 1
        elif not dup or key in upgraded:
            upgraded.discard(key)
            it.outcome = "merged"
            merged += 1
        else:
            it.outcome = "duplicate"
            duplicate += 1
    return (new, duplicate, merged), new_rows
