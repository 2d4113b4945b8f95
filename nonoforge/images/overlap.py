"""The overlap potential of a line, compiled: how many cells simple overlap settles in an
empty line with the clue of these cells.

Why: when line logic is stuck from the start no single edit settles a cell, and the
repair ranks its candidate edits by how much they raise this potential of their row and
column (images/generate.py). At 150x150 that is some 150,000 candidate lines a repair, and
building each one's clue in Python took a quarter of the repair's time; here the clue's
runs are read straight off the cells, twice over (once for the slack, once for the sum),
with nothing allocated.

The potential of a clue for ``n`` cells: with slack ``n`` minus the clue's least length
(its blocks plus a gap between same-coloured neighbours), the sum over blocks of how far
each is longer than the slack; ``n`` for an empty clue or no slack (the line is settled).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _least_length(line: np.ndarray, at: int, colour: int) -> int:
    """The least length of the clue of ``line`` with cell ``at`` read as ``colour`` (``at``
    -1: as it is): its blocks' cells plus a gap between same-coloured neighbours; -1 for an
    empty clue."""
    total = 0
    gaps = 0
    blocks = 0
    prev = 0
    last = 0  # the colour of the block seen last
    for j in range(line.shape[0]):
        v = colour if j == at else int(line[j])
        if v != 0:
            total += 1
            if v != prev:  # a block starts
                if blocks > 0 and last == v:
                    gaps += 1
                blocks += 1
                last = v
        prev = v
    return total + gaps if blocks else -1


@njit(cache=True, nogil=True)
def line_potential(line: np.ndarray, at: int = -1, colour: int = 0) -> int:
    """The overlap potential of the clue of ``line`` (colour indices, 0 for background)
    with cell ``at`` read as ``colour`` (``at`` -1: the line as it is)."""
    n = line.shape[0]
    least = _least_length(line, at, colour)
    if least < 0 or least == n:
        return n
    slack = n - least
    total = 0
    run = 0
    prev = 0
    for j in range(n + 1):
        v = 0 if j == n else (colour if j == at else int(line[j]))
        if v == prev and v != 0:
            run += 1
            continue
        if prev != 0 and run > slack:
            total += run - slack
        run = 1
        prev = v
    return total


@njit(cache=True, nogil=True)
def edit_gains(
    cells: np.ndarray, ys: np.ndarray, xs: np.ndarray, cs: np.ndarray,
    row_pot: np.ndarray, col_pot: np.ndarray,
) -> np.ndarray:
    """For each edit ``(ys[i], xs[i], cs[i])`` of the grid ``cells`` (uint8): how much it
    raises the overlap potential of its row and column together (``row_pot``/``col_pot``:
    their potentials as they are)."""
    out = np.empty(ys.shape[0], dtype=np.float64)
    for i in range(ys.shape[0]):
        y, x, c = ys[i], xs[i], cs[i]
        out[i] = (line_potential(cells[y, :], x, c) - row_pot[y]
                  + line_potential(cells[:, x], y, c) - col_pot[x])
    return out
