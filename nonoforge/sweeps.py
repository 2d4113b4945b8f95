"""Complete line logic swept to a fixed point, one line at a time, in one order.

Finding givens for a picture (:mod:`nonoforge.images.givens`) and tracing a solve for the
dataset (:func:`nonoforge.pipeline.dataset.line_trace`) both run these sweeps; one home
keeps their order, and so their results, the same. It builds on the solver's line solver
(loaded, with numba, only when lines are solved), so it sits above ``solving``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from nonoforge.puzzle import Puzzle

__all__ = ["line_sweeps"]


def line_sweeps(
    puzzle: Puzzle, state: np.ndarray, rows: Iterable[int] = (), cols: Iterable[int] = ()
) -> Iterator[tuple[str, int, np.ndarray | None]]:
    """Complete line logic to a fixed point, *in place* on ``state``, one line at a time.

    Sweeps go over the dirty rows in order, then the dirty columns in order, until no line
    is dirty; a line whose cells change makes the lines crossing them dirty. The start is
    the given dirty lines (every line when none are given). Each application that changes
    cells yields ``("row" | "column", index, changed positions)`` after ``state`` holds the
    result; a contradiction yields ``(kind, index, None)`` and ends. One order for every
    caller: the givens of :mod:`nonoforge.images.givens` and the dataset's step traces.
    """
    from nonoforge.solver.line import solve_line  # loads numba: only when lines are solved

    dirty_r, dirty_c = set(rows), set(cols)
    if not dirty_r and not dirty_c:
        dirty_r, dirty_c = set(range(puzzle.height)), set(range(puzzle.width))
    while dirty_r or dirty_c:
        for kind, dirty, crossing in (("row", dirty_r, dirty_c), ("column", dirty_c, dirty_r)):
            clues = puzzle.rows if kind == "row" else puzzle.columns
            for i in sorted(dirty):
                view = state[i, :] if kind == "row" else state[:, i]
                new = solve_line(clues[i], view)
                if new is None:
                    yield kind, i, None
                    return
                changed = np.nonzero(new != view)[0]
                if changed.size:
                    view[:] = new
                    crossing.update(changed.tolist())
                    yield kind, i, changed
            dirty.clear()
