"""Named, ordered collections of the corpus's puzzles (part of the Corpus)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, delete, func, select, tuple_

from nonoforge.db import models as m
from nonoforge.db.filters import Filters, bounds, conditions
from nonoforge.db.records import chunks, decode_record, first_meta, isoformat, utcnow, with_meta
from nonoforge.db.session import Session
from nonoforge.errors import CorpusError
from nonoforge.puzzle import Puzzle

#: The filters on the puzzle itself; grade, status and technique apply to the one result
#: of the solver version a collection is built from.
_PUZZLE_FILTERS = ("width", "height", "min_size", "max_size", "colors", "source")


@dataclass(frozen=True)
class Rated:
    """A rated puzzle as a collection is built from it: its grade, score and puzzle."""

    grade: int
    score: float
    position: int  # from 0, in (score, puzzle id) order within its grade
    puzzle: Puzzle


def _graded_by(by: str) -> tuple[Any, Any]:
    """The results' (grade, score) columns a collection is picked by: ``time`` (the
    time-calibrated ones) or ``human`` (the human-effort ones, migration 0009)."""
    r = m.results
    if by == "human":
        return r.c.human_grade, r.c.human_score
    if by == "time":
        return r.c.grade, r.c.score
    raise CorpusError(f"unknown grading {by!r}: time or human")


class Collections(Session):
    """Collections: a name, how they were built, and their puzzles in order."""

    # -- picking rated puzzles in the database -------------------------------------------

    @staticmethod
    def _rated_where(
        solver_version: str, filters: Filters, by: str = "time"
    ) -> list[ColumnElement[bool]]:
        r = m.results
        grade, score = _graded_by(by)
        kw = filters.query_kwargs()
        where = [*conditions(**{k: kw[k] for k in _PUZZLE_FILTERS}),
                 r.c.solver_version == solver_version,
                 grade.is_not(None), score.is_not(None)]
        lo, hi = bounds(kw["grade"], "grade")
        if lo is not None:
            where.append(grade >= lo)
        if hi is not None:
            where.append(grade <= hi)
        if filters.status is not None:
            where.append(r.c.status == filters.status)
        if filters.technique is not None:
            where.append(r.c.technique == filters.technique)
        return where

    def rated_supply(
        self, solver_version: str, filters: Filters | None = None, by: str = "time"
    ) -> dict[int, int]:
        """How many puzzles the filters admit per grade of ``solver_version`` (those with
        a grade and a score; ``by`` ``human``: the human ones): one indexed, grouped
        count, nothing decoded."""
        p, r = m.puzzles, m.results
        grade, _ = _graded_by(by)
        q = (
            select(grade, func.count())
            .select_from(r.join(p, p.c.id == r.c.puzzle_id))
            .where(*self._rated_where(solver_version, filters or Filters(), by))
            .group_by(grade)
        )
        with self._read() as conn:
            return {int(g): int(n) for g, n in conn.execute(q)}

    def rated_at(
        self, solver_version: str, filters: Filters, positions: Mapping[int, Sequence[int]],
        by: str = "time",
    ) -> list[Rated]:
        """The puzzles at ``positions[grade]`` (from 0) of each grade's (score, puzzle id) order
        of the puzzles :meth:`rated_supply` counts, decoded with their metadata (``by``:
        whose grade and score, as there).

        The database numbers the rows (a window function) and hands back only those asked
        for, so the cost grows with what is picked, not with the corpus.
        """
        p, r = m.puzzles, m.results
        wanted = [(g, i + 1) for g, ps in positions.items() for i in sorted(set(ps))]
        if not wanted:
            return []
        # (score, puzzle id) order, which the results index holds: without puzzle filters
        # the numbering reads the index alone, sorting nothing
        grade, score = _graded_by(by)
        rn = func.row_number().over(partition_by=grade, order_by=(score, r.c.puzzle_id))
        where = self._rated_where(solver_version, filters, by)
        needs_puzzles = bool(conditions(**{k: filters.query_kwargs()[k]
                                           for k in _PUZZLE_FILTERS}))
        numbered = (
            select(r.c.puzzle_id.label("id"), grade.label("grade"),
                   score.label("score"), rn.label("rn"))
            .select_from(r.join(p, p.c.id == r.c.puzzle_id) if needs_puzzles else r)
            .where(*where, grade.in_(sorted(positions)))
            .subquery()
        )
        out: list[Rated] = []
        with self._read() as conn:
            for chunk in chunks(wanted):
                q = (
                    select(numbered.c.id, numbered.c.grade, numbered.c.score, numbered.c.rn,
                           p.c.key, p.c.rofl, p.c.givens)
                    .join(p, p.c.id == numbered.c.id)
                    .where(tuple_(numbered.c.grade, numbered.c.rn).in_(list(chunk)))
                )
                rows = conn.execute(q).all()
                metas = first_meta(conn, [row.id for row in rows])
                out += [
                    Rated(int(row.grade), float(row.score), int(row.rn) - 1,
                          with_meta(decode_record(row.rofl, row.key, row.givens),
                                    metas.get(row.id)))
                    for row in rows
                ]
        out.sort(key=lambda x: (x.grade, x.position))
        return out

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
            inserted = conn.execute(
                c.insert().values(name=name, created=utcnow(), params=params or {})
            ).inserted_primary_key
            assert inserted is not None  # an INSERT of one row always has its key
            cid = inserted[0]
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
                select(p.c.id, p.c.key, p.c.rofl, p.c.givens)
                .join(cm, cm.c.puzzle_id == p.c.id)
                .where(cm.c.collection_id == cid)
                .order_by(cm.c.position)
            ).all()
            metas = first_meta(conn, [r.id for r in rows])
        return [with_meta(decode_record(r.rofl, r.key, r.givens), metas.get(r.id))
                for r in rows]

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
