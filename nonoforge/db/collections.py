"""Named, ordered collections of the corpus's puzzles (part of the Corpus)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, delete, false, func, or_, select

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
    id: int  # the puzzle's row id, which breaks ties in score: (score, id) orders a grade
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
    #
    # Every read below is an index seek or a LIMIT-ed range of the results index
    # (solver_version, grade, score, puzzle_id) of migration 0008 (0009's for ``human``):
    # its cost grows with what is asked for, not with the corpus.

    @staticmethod
    def _rated_where(
        solver_version: str, filters: Filters, by: str = "time", grade_no: int | None = None
    ) -> list[ColumnElement[bool]]:
        """The conditions on the results (and their puzzles) ``filters`` set; with
        ``grade_no``, of that one grade (an equality, not the filters' grade range beside
        it: SQLite would seek by the range and sort)."""
        r = m.results
        grade, score = _graded_by(by)
        kw = filters.query_kwargs()
        where = [*conditions(**{k: kw[k] for k in _PUZZLE_FILTERS}),
                 r.c.solver_version == solver_version, score.is_not(None)]
        lo, hi = bounds(kw["grade"], "grade")
        if grade_no is not None:
            inside = (lo is None or grade_no >= lo) and (hi is None or grade_no <= hi)
            where.append(grade == grade_no if inside else false())
        else:
            where.append(grade.is_not(None))
        if grade_no is None and lo is not None:
            where.append(grade >= lo)
        if grade_no is None and hi is not None:
            where.append(grade <= hi)
        if filters.status is not None:
            where.append(r.c.status == filters.status)
        if filters.technique is not None:
            where.append(r.c.technique == filters.technique)
        return where

    @staticmethod
    def _rated_from(filters: Filters) -> Any:
        """The results, joined to their puzzles when a filter is on the puzzle itself."""
        p, r = m.puzzles, m.results
        kw = filters.query_kwargs()
        if conditions(**{k: kw[k] for k in _PUZZLE_FILTERS}):
            return r.join(p, p.c.id == r.c.puzzle_id)
        return r

    def rated_supply(
        self, solver_version: str, filters: Filters | None = None, by: str = "time",
        cap: int | None = None,
    ) -> dict[int, int]:
        """How many puzzles the filters admit per grade of ``solver_version`` (those with
        a grade and a score; ``by`` ``human``: the human ones), nothing decoded.

        Without ``cap``: one grouped count, which reads the index entry of every rated
        puzzle. With ``cap``: each grade's count up to ``cap`` (``min(supply, cap)``), at a
        cost that grows with ``cap``: the grades are found by seeks (one per grade, the
        next one above the last) and each is counted over at most ``cap`` rows.
        """
        f = filters or Filters()
        grade, _ = _graded_by(by)
        where = self._rated_where(solver_version, f, by)
        if cap is None:
            q = (select(grade, func.count()).select_from(self._rated_from(f))
                 .where(*where).group_by(grade))
            with self._read() as conn:
                return {int(g): int(n) for g, n in conn.execute(q)}
        r = m.results
        lo, hi = bounds(f.query_kwargs()["grade"], "grade")
        out: dict[int, int] = {}
        with self._read() as conn:
            last: int | None = None
            while True:
                nxt = select(grade).where(r.c.solver_version == solver_version,
                                          grade.is_not(None))
                if last is not None:
                    nxt = nxt.where(grade > last)
                elif lo is not None:
                    nxt = nxt.where(grade >= lo)
                if hi is not None:
                    nxt = nxt.where(grade <= hi)
                g = conn.scalar(nxt.order_by(grade).limit(1))
                if g is None:
                    break
                last = int(g)
                rows = (select(r.c.id).select_from(self._rated_from(f))
                        .where(*self._rated_where(solver_version, f, by, last))
                        .limit(cap).subquery())
                n = int(conn.scalar(select(func.count()).select_from(rows)) or 0)
                if n:
                    out[last] = n
        return out

    def rated_bounds(
        self, solver_version: str, filters: Filters, grade_no: int, by: str = "time"
    ) -> tuple[float, float] | None:
        """The lowest and highest score of the puzzles of grade ``grade_no`` the filters
        admit (None if none): two seeks, one from each end of the grade."""
        grade, score = _graded_by(by)
        q = (select(score).select_from(self._rated_from(filters))
             .where(*self._rated_where(solver_version, filters, by, grade_no)))
        with self._read() as conn:
            lo = conn.scalar(q.order_by(score, m.results.c.puzzle_id).limit(1))
            hi = conn.scalar(q.order_by(score.desc(), m.results.c.puzzle_id.desc()).limit(1))
        return None if lo is None or hi is None else (float(lo), float(hi))

    def rated_from(
        self, solver_version: str, filters: Filters, grade_no: int, *,
        at_least: float | None = None, after: tuple[float, int] | None = None,
        limit: int | None = None, by: str = "time",
    ) -> list[Rated]:
        """The puzzles of grade ``grade_no`` the filters admit, in (score, puzzle id) order,
        decoded with their metadata: those scoring ``at_least`` and coming ``after`` a
        (score, id) in that order, the first ``limit`` of them (``by``: whose grade and
        score, as in :meth:`rated_supply`).

        One range of the results index read from a seek: with a ``limit`` its cost grows
        with the limit, not with the corpus.
        """
        p, r = m.puzzles, m.results
        grade, score = _graded_by(by)
        q = (
            select(r.c.puzzle_id, score.label("score"), p.c.key, p.c.rofl, p.c.givens)
            .select_from(r.join(p, p.c.id == r.c.puzzle_id))
            .where(*self._rated_where(solver_version, filters, by, grade_no))
        )
        if at_least is not None:
            q = q.where(score >= at_least)
        if after is not None:  # (score, id) > after, written so the score bound seeks
            q = q.where(score >= after[0],
                        or_(score > after[0], r.c.puzzle_id > after[1]))
        q = q.order_by(score, r.c.puzzle_id)
        if limit is not None:
            q = q.limit(limit)
        with self._read() as conn:
            rows = conn.execute(q).all()
            metas = first_meta(conn, [row.puzzle_id for row in rows])
        return [
            Rated(grade_no, float(row.score), int(row.puzzle_id),
                  with_meta(decode_record(row.rofl, row.key, row.givens),
                            metas.get(row.puzzle_id)))
            for row in rows
        ]

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
