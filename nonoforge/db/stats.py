"""Counts over the whole corpus (part of the Corpus)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select

from nonoforge.db import models as m
from nonoforge.db.filters import SIZE_BANDS, size_band
from nonoforge.db.session import Session


def _latest_version(conn: Connection) -> str | None:
    """The solver version rated most recently (ties: the greatest name), found by seeks on
    ``ix_results_version_rated``: one for each version and its latest rating, instead of
    a read of every rating."""
    r = m.results
    best: tuple[Any, str] | None = None
    last: str | None = None
    while True:
        q = select(r.c.solver_version)
        if last is not None:
            q = q.where(r.c.solver_version > last)
        last = conn.scalar(q.order_by(r.c.solver_version).limit(1))
        if last is None:
            return None if best is None else best[1]
        at = conn.scalar(select(r.c.rated_at).where(r.c.solver_version == last)
                         .order_by(r.c.rated_at.desc()).limit(1))
        if best is None or at >= best[0]:
            best = (at, last)


class Stats(Session):
    """What the corpus holds, counted by site, size, colours, grade and fetch status."""

    # -- statistics ---------------------------------------------------------------------

    def stats(self, solver_version: str | None = None) -> dict[str, Any]:
        """Counts: puzzles; by site (a puzzle counts under each site it came from), size
        band, colours, grade; fetch log by site/status.

        Grades are those of ``solver_version`` (by default the most recently rated one):
        ``by_grade`` counts each grade, ``ungraded`` (rated, but no grade: no solution,
        cut off, refused) and ``unrated`` (no result of that version).
        """
        p, t, r, f = m.puzzles, m.provenance, m.results, m.fetch_log
        with self._read() as conn:
            total = int(conn.scalar(select(func.count()).select_from(p)) or 0)
            # by site, not by source: a source is a whole catalogue line, one per puzzle;
            # ix_provenance_site_puzzle gives each site's puzzles in order, so the distinct
            # count is one pass over the index (no sort, no table row read)
            by_site = {
                s: n
                for s, n in conn.execute(
                    select(t.c.site, func.count(func.distinct(t.c.puzzle_id)))
                    .group_by(t.c.site)
                    .order_by(t.c.site)
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
                solver_version = _latest_version(conn)
            by_grade: dict[str, int] = {}
            if solver_version is not None:
                for g, n in conn.execute(
                    select(r.c.grade, func.count())
                    .where(r.c.solver_version == solver_version)
                    .group_by(r.c.grade)
                    .order_by(r.c.grade)
                ):
                    # rated, no grade (no solution, cut off, refused): not "unrated"
                    by_grade["ungraded" if g is None else str(g)] = n
                rated = sum(by_grade.values())
                if total > rated:
                    by_grade["unrated"] = total - rated
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
            "by_site": by_site,
            "by_size": {k: v for k, v in by_size.items() if v},
            "by_colors": by_colors,
            "solver_version": solver_version,
            "by_grade": by_grade,
            "fetch_log": fetch,
            "collections": ncoll,
        }
