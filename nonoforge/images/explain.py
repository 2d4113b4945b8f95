"""The designer's view: where a picture's clues are ambiguous.

:func:`explain` solves the puzzle of the *quantised* picture (before any repair) with the
full solver, asking for two solutions. When there are two, the cells where they differ are
the ones that flip between them -- the places a designer would redraw. When the picture is
unique but line logic stalls on it, the cells line logic leaves undecided are shown instead.
:func:`~nonoforge.images.render.explain_png` draws either over the picture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nonoforge.images.generate import Solver, default_solver
from nonoforge.puzzle import Grid, Palette, Puzzle
from nonoforge.solving import mask_counts

#: Seconds the full solver may take to find a second solution.
EXPLAIN_TIMEOUT = 10.0


@dataclass(frozen=True)
class Explanation:
    """``kind`` is ``flip`` (two solutions differ at ``cells``), ``undecided`` (unique, but
    line logic leaves ``cells`` open), or ``none`` (line logic solves the picture)."""

    kind: str
    status: str
    cells: tuple[tuple[int, int], ...]
    other: Grid | None = None

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status, "cells": [list(c) for c in self.cells]}


def explain(
    grid: Grid, palette: Palette, solver: Solver | None = None, timeout: float = EXPLAIN_TIMEOUT
) -> Explanation:
    """Why the picture ``grid`` is (or is not) unique by line logic; see the module doc."""
    solve = solver or default_solver()
    puzzle = Puzzle.from_grid(grid, palette)
    full = solve(puzzle, strategy="auto", max_solutions=2, timeout=timeout)
    if full.status == "multiple" and len(full.solutions) >= 2:
        a, b = (np.asarray(s.cells if isinstance(s, Grid) else s) for s in full.solutions[:2])
        mine = grid.cells
        other = b if np.array_equal(a, mine) else a
        ys, xs = np.nonzero(other != mine)
        return Explanation("flip", full.status, _cells(ys, xs), Grid(other))
    line = solve(puzzle, strategy="line", max_solutions=2)
    ys, xs = np.nonzero(mask_counts(line.state) > 1)
    kind = "undecided" if len(ys) else "none"
    return Explanation(kind, full.status, _cells(ys, xs))


def _cells(ys: np.ndarray, xs: np.ndarray) -> tuple[tuple[int, int], ...]:
    return tuple((int(y), int(x)) for y, x in zip(ys, xs, strict=True))
