"""The solver's vocabulary, importable without loading the solver (and so numba).

Readers of a solve's outcome — image generation, rendering, rating — need the technique
ladder and must decode the solver's cell masks, but should not pay for compiling the
solver just to name a technique or draw a state. Both live here, once; the solver itself
uses them too.

A solver *state* is an ``(H, W)`` ``uint64`` array: bit ``c`` of a cell is set while colour
``c`` (0 is the background) may still stand there. A cell is *decided* when exactly one
bit is left.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from nonoforge.puzzle import Puzzle

__all__ = ["TECHNIQUES", "line_sweeps", "mask_colours", "mask_counts"]

#: The technique ladder, easiest first: ``trivial`` lines, simple ``overlap``, complete
#: ``line`` logic, ``probe`` (try each colour of a cell) and ``search`` (guessing).
#: :attr:`nonoforge.solver.SolveResult.technique` is one of these.
TECHNIQUES = ("trivial", "overlap", "line", "probe", "search")


def mask_counts(state: np.ndarray) -> np.ndarray:
    """How many colours each cell of a state may still take (``int64``, same shape).

    >>> mask_counts(np.array([[1, 2], [3, 0]], dtype=np.uint64)).tolist()
    [[1, 1], [2, 0]]
    """
    return np.bitwise_count(np.asarray(state, dtype=np.uint64)).astype(np.int64)


def mask_colours(state: np.ndarray, undecided: int = -1) -> np.ndarray:
    """Each cell's colour index where it is decided, ``undecided`` elsewhere (``int64``).

    >>> mask_colours(np.array([[1, 2], [3, 4]], dtype=np.uint64)).tolist()
    [[0, 1], [-1, 2]]
    """
    st = np.asarray(state, dtype=np.uint64)
    decided = np.bitwise_count(st) == 1
    out = np.full(st.shape, undecided, dtype=np.int64)
    # a single set bit is a power of two: log2 is exact in float64 for every bit of a uint64
    out[decided] = np.log2(st[decided].astype(np.float64)).astype(np.int64)
    return out


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
