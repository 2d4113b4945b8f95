"""A puzzle as the flat arrays every part of the solver reads, and the colour masks.

The compiled engine (:mod:`nonoforge.solver.engine`), the CNF encoder
(:mod:`nonoforge.solver.sat`, :mod:`nonoforge.solver.cnf`) and the plain-Python line logic
(:mod:`nonoforge.solver.quick`) all take a puzzle in this one form, so none of them needs to
import another, and importing this module costs no compiler (no numba).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nonoforge.errors import SolverError
from nonoforge.puzzle import Puzzle
from nonoforge.solving import all_colours

#: ``BITS[c]`` is the mask of colour ``c`` (a table avoids mixed-sign shifts in numba).
BITS = np.array([1 << c for c in range(64)], dtype=np.uint64)
#: The most colours a mask can hold besides the background.
MAX_COLORS = 63


def check_colours(puzzle: Puzzle) -> None:
    """Refuse a puzzle with more colours than a cell mask holds."""
    if puzzle.ncolors > MAX_COLORS:
        raise SolverError(
            f"the solver handles at most {MAX_COLORS} colours, this puzzle has {puzzle.ncolors}"
        )


@dataclass(frozen=True)
class Tables:
    """A puzzle as flat arrays.

    ``lines[l] = (first cell, stride, length, clue offset, blocks)``: rows ``0..H-1`` then
    columns ``H..H+W-1``, cells numbered ``row * W + column``; ``blen`` and ``bcol`` hold
    the lengths and colours of every clue's blocks, concatenated; ``full`` is the mask of
    every colour (background included).
    """

    height: int
    width: int
    ncolors: int
    lines: np.ndarray
    blen: np.ndarray
    bcol: np.ndarray
    full: np.uint64
    max_blocks: int

    @classmethod
    def of(cls, puzzle: Puzzle) -> Tables:
        """The arrays of ``puzzle``; the entry points (``solve``, ``sat.encode``) have
        already refused a puzzle with too many colours (:func:`check_colours`)."""
        h, w = puzzle.height, puzzle.width
        lines = np.zeros((h + w, 5), dtype=np.int64)
        blen: list[int] = []
        bcol: list[int] = []
        for i, clue in enumerate(puzzle.rows):
            lines[i] = (i * w, 1, w, len(blen), len(clue))
            blen += [b.length for b in clue]
            bcol += [b.color for b in clue]
        for j, clue in enumerate(puzzle.columns):
            lines[h + j] = (j, w, h, len(blen), len(clue))
            blen += [b.length for b in clue]
            bcol += [b.color for b in clue]
        blen.append(0)  # never read: keeps the arrays non-empty for empty puzzles
        bcol.append(0)
        full = all_colours(puzzle.ncolors)
        return cls(
            h, w, puzzle.ncolors, lines,
            np.array(blen, dtype=np.int64), np.array(bcol, dtype=np.int64),
            full, int(lines[:, 4].max()),
        )


__all__ = ["BITS", "MAX_COLORS", "Tables", "check_colours"]
