"""Counts over the whole corpus (part of the Corpus)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from nonoforge.db import models as m
from nonoforge.db.filters import SIZE_BANDS, size_band
from nonoforge.db.session import Session


class Stats(Session):
    """What the corpus holds, counted by source, size, colours, grade and fetch status."""

    # -- statistics ---------------------------------------------------------------------

    def stats(self, solver_version: str | None = None) -> dict[str, Any]:
        """Counts: puzzles; by source, size band, colours, grade; fetch log by site/status.

        Grades are those of ``solver_version`` (by default the most recently rated one):
        ``by_grade`` counts each grade, ``ungraded`` (rated, but no grade: no solution,
        cut off, refused) and ``unrated`` (no result of that version).
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
            "by_source": by_source,
            "by_size": {k: v for k, v in by_size.items() if v},
            "by_colors": by_colors,
            "solver_version": solver_version,
            "by_grade": by_grade,
            "fetch_log": fetch,
            "collections": ncoll,
        }
