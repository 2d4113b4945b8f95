"""Solver results and fitted difficulty models, per solver version (part of the Corpus)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, delete, exists, func, select, update

from nonoforge.db import models as m
from nonoforge.db.records import (
    CHUNK,
    chunks,
    decode_record,
    first_meta,
    isoformat,
    utcnow,
    with_meta,
)
from nonoforge.db.session import Session
from nonoforge.errors import CorpusError
from nonoforge.puzzle import Puzzle
from nonoforge.results import Rating


class Results(Session):
    """Ratings of the corpus's puzzles and the difficulty model of each solver version."""

    # -- results ------------------------------------------------------------------------

    _RESULT_FIELDS = ("status", "technique", "effort", "time_s", "times", "score", "grade",
                      "human", "human_score", "human_grade")

    def save_results(
        self, rows: Iterable[Rating | Mapping[str, Any]], solver_version: str
    ) -> int:
        """Insert or update ratings of one solver version; returns how many rows were saved.

        A :class:`~nonoforge.results.Rating` is saved whole (its dict face,
        :meth:`~nonoforge.results.Rating.to_json`). A mapping is a partial update: it
        names its puzzle by ``key`` and may carry ``status``, ``technique``,
        ``effort`` (a dict), ``time_s`` (the median), ``times`` (a list), ``score``,
        ``grade``, ``human`` (the human features, a dict), ``human_score``,
        ``human_grade`` and ``rated_at``. Updating a rated puzzle changes only the fields the row
        carries, so a score can be filled in after the model is fitted. Other fields (the
        ``width``, ``title``... that :meth:`results` rows carry) are ignored, so rows read
        with :meth:`results` can be changed and saved back.
        """
        items = [r.to_json() if isinstance(r, Rating) else r for r in rows]
        saved = 0
        for batch in chunks(items):
            with self._write() as conn:
                saved += self._save_batch(conn, batch, solver_version)
        return saved

    def _save_batch(
        self, conn: Connection, rows: Sequence[Mapping[str, Any]], version: str
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
                "score": row["score"], "grade": row["grade"], "human": row["human"],
                "human_score": row["human_score"], "human_grade": row["human_grade"],
                "rated_at": isoformat(row["rated_at"]), "width": row["width"],
                "height": row["height"], "colors": row["colors"],
            }
            for row in rows
        ]

    def ratings(self, solver_version: str | None = None) -> list[Rating]:
        """Every rating (of one solver version, if given), as :class:`Rating` records with
        the puzzle's size and colours, the solver version and when it was saved: the
        typed face of :meth:`results`. A stored status no version of nonoforge wrote is
        refused in one line (:class:`CorpusError`)."""
        out = []
        for row in self.results(solver_version):
            try:
                out.append(Rating.from_json(row))
            except ValueError as e:
                raise CorpusError(f"the stored rating of {row['key']!r} is damaged: {e}"
                                  ) from None
        return out

    def rated_keys(self, solver_version: str) -> set[str]:
        """Keys of the puzzles that have a result of this solver version."""
        r, p = m.results, m.puzzles
        q = select(p.c.key).join(r, r.c.puzzle_id == p.c.id).where(
            r.c.solver_version == solver_version
        )
        with self._read() as conn:
            return set(conn.scalars(q))

    def unrated(self, solver_version: str, keys: Iterable[str] | None = None) -> Iterator[Puzzle]:
        """The puzzles (of ``keys``, or all) with no result of this solver version, oldest
        first, as a stream.

        The database picks them (``NOT EXISTS`` on the results' ``(puzzle_id,
        solver_version)`` index): only these are decoded, so resuming a rating of a big
        corpus that is nearly all rated costs what is left, not the whole corpus.
        """
        p = m.puzzles
        where = [_no_result(solver_version)]
        if keys is not None:
            for chunk in chunks(list(dict.fromkeys(keys))):
                yield from self._decoded([*where, p.c.key.in_(chunk)])
        else:
            yield from self._decoded(where)

    def lacking_human(
        self, solver_version: str, keys: Iterable[str] | None = None
    ) -> Iterator[tuple[Puzzle, dict[str, Any]]]:
        """The puzzles (of ``keys``, or all) rated by this solver version whose rating has no
        human features yet (rated before migration 0009: no ``human_score``), oldest first,
        as a stream, each with its rating's ``status`` and ``rated_at`` (to save back
        unchanged). Ratings that failed (``error``) are left out: they have none to add."""
        r, p = m.results, m.puzzles
        lacking = (r.c.solver_version == solver_version, r.c.human_score.is_(None),
                   r.c.status != "error")
        q = select(p.c.key, r.c.status, r.c.rated_at).join(r, r.c.puzzle_id == p.c.id).where(
            *lacking)
        where = [p.c.id.in_(select(r.c.puzzle_id).where(*lacking))]
        parts: list[list[ColumnElement[bool]]] = [[]] if keys is None else [
            [p.c.key.in_(chunk)] for chunk in chunks(list(dict.fromkeys(keys)))]
        for extra in parts:
            with self._read() as conn:
                known = {str(k): {"status": s, "rated_at": isoformat(at)}
                         for k, s, at in conn.execute(q.where(*extra))}
            for puzzle in self._decoded([*where, *extra]):
                yield puzzle, known[puzzle.key]

    def unrated_count(self, solver_version: str, keys: Iterable[str] | None = None) -> int:
        """How many puzzles (of ``keys``, or all) :meth:`unrated` would give."""
        p = m.puzzles
        q = select(func.count()).select_from(p).where(_no_result(solver_version))
        with self._read() as conn:
            if keys is None:
                return int(conn.scalar(q) or 0)
            return sum(
                int(conn.scalar(q.where(p.c.key.in_(chunk))) or 0)
                for chunk in chunks(list(dict.fromkeys(keys)))
            )

    def rated_count(self, solver_version: str, keys: Iterable[str] | None = None) -> int:
        """How many puzzles (of ``keys``, or all) have a result of this solver version."""
        r, p = m.results, m.puzzles
        q = select(func.count()).select_from(r).where(r.c.solver_version == solver_version)
        with self._read() as conn:
            if keys is None:
                return int(conn.scalar(q) or 0)
            q = q.join(p, p.c.id == r.c.puzzle_id)
            return sum(
                int(conn.scalar(q.where(p.c.key.in_(chunk))) or 0)
                for chunk in chunks(list(dict.fromkeys(keys)))
            )

    def grade_counts(self, solver_version: str) -> dict[int | None, int]:
        """How many results of this solver version have each grade (None: no grade)."""
        r = m.results
        q = (
            select(r.c.grade, func.count())
            .where(r.c.solver_version == solver_version)
            .group_by(r.c.grade)
        )
        with self._read() as conn:
            return {g: int(n) for g, n in conn.execute(q)}

    def _decoded(
        self, where: list[ColumnElement[bool]], limit: int | None = None
    ) -> Iterator[Puzzle]:
        """The puzzles matching ``where`` (at most ``limit``), oldest first, decoded with
        their first provenance's metadata, read a page of :data:`CHUNK` at a time (by id,
        so rows written between pages neither repeat nor shift a page)."""
        p = m.puzzles
        last = 0
        left = limit
        while left is None or left > 0:
            page = CHUNK if left is None else min(CHUNK, left)
            q = (
                select(p.c.id, p.c.key, p.c.rofl, p.c.givens)
                .where(p.c.id > last, *where)
                .order_by(p.c.id)
                .limit(page)
            )
            with self._read() as conn:
                rows = conn.execute(q).all()
                metas = first_meta(conn, [r.id for r in rows])
            for row in rows:
                yield with_meta(decode_record(row.rofl, row.key, row.givens), metas.get(row.id))
            if len(rows) < page:
                return
            last = rows[-1].id
            if left is not None:
                left -= len(rows)

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


def _no_result(solver_version: str) -> ColumnElement[bool]:
    """A puzzle has no result of this solver version."""
    r, p = m.results, m.puzzles
    return ~exists().where(r.c.puzzle_id == p.c.id, r.c.solver_version == solver_version)


def _as_datetime(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        raise CorpusError(f"rated_at is not an ISO timestamp: {value!r}") from None
