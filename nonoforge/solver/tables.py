"""A puzzle as the flat arrays every part of the solver reads, and the colour masks.

The compiled engine (:mod:`nonoforge.solver.engine`), the CNF encoder
(:mod:`nonoforge.solver.sat`, :mod:`nonoforge.solver.cnf`) and the plain-Python line logic
(:mod:`nonoforge.solver.quick`) all take a puzzle in this one form, so none of them needs to
import another, and importing this module costs no compiler (no numba).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from nonoforge.puzzle import Clue, Puzzle
from nonoforge.solving import MAX_COLORS, all_colours

#: ``BITS[c]`` is the mask of colour ``c`` (a table avoids mixed-sign shifts in numba).
BITS = np.array([1 << c for c in range(64)], dtype=np.uint64)


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
        already refused a puzzle with too many colours (``result.check_colours``).

        A repair solves thousands of puzzles each a row and a column away from the one
        before, and building these arrays took as long as a 100x100 puzzle's line logic.
        So, as Tatham's solver re-examines only changed lines, the arrays of the last
        puzzle are kept, and a puzzle of the same shape and colours whose clues are, but
        for at most :data:`SPLICE_LINES` lines, the very same clue objects (immutable
        tuples) is built from them, only its changed lines read."""
        h, w = puzzle.height, puzzle.width
        clues = (*puzzle.rows, *puzzle.columns)
        last = _last[0]  # one read: another thread may replace it meanwhile
        t = None
        if last is not None and last[1].height == h and last[1].width == w \
                and last[1].ncolors == puzzle.ncolors:
            changed = [i for i, (a, b) in enumerate(zip(clues, last[0], strict=True))
                       if a is not b]
            if len(changed) <= SPLICE_LINES:
                t = last[1]._spliced(clues, changed)
        if t is None:
            t = cls._built(h, w, puzzle.ncolors, clues)
        _last[0] = (clues, t)
        return t

    @classmethod
    def _built(cls, h: int, w: int, ncolors: int, clues: tuple[Clue, ...]) -> Tables:
        """The arrays of rows then columns ``clues``, from one flat pass over the blocks
        (each a ``(length, colour)`` pair)."""
        counts = np.fromiter(map(len, clues), dtype=np.int64, count=h + w)
        n = int(counts.sum())
        pairs = np.fromiter(chain.from_iterable(chain.from_iterable(clues)), dtype=np.int64,
                            count=2 * n)
        blen = np.zeros(n + 1, dtype=np.int64)  # the last entry is never read: it keeps
        bcol = np.zeros(n + 1, dtype=np.int64)  # the arrays non-empty for empty puzzles
        blen[:n] = pairs[0::2]
        bcol[:n] = pairs[1::2]
        lines = np.empty((h + w, 5), dtype=np.int64)
        lines[:h, 0] = np.arange(h) * w  # rows: first cell, stride 1, length w
        lines[:h, 1] = 1
        lines[:h, 2] = w
        lines[h:, 0] = np.arange(w)  # columns: first cell, stride w, length h
        lines[h:, 1] = w
        lines[h:, 2] = h
        return cls._with_counts(h, w, ncolors, lines, counts, blen, bcol)

    def _spliced(self, clues: tuple[Clue, ...], changed: list[int]) -> Tables:
        """These arrays with lines ``changed`` (ascending) given ``clues``' blocks: the
        other lines' blocks copied as slices, never re-read from their clues."""
        counts = self.lines[:, 4].copy()
        lens: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        at = 0
        for i in changed:
            first = int(self.lines[i, 3])
            lens.append(self.blen[at:first])
            cols.append(self.bcol[at:first])
            blen, bcol = clue_arrays(clues[i])
            lens.append(blen)
            cols.append(bcol)
            counts[i] = len(blen)
            at = first + int(self.lines[i, 4])
        lens.append(self.blen[at:])  # the unread last entry comes along
        cols.append(self.bcol[at:])
        return Tables._with_counts(self.height, self.width, self.ncolors, self.lines.copy(),
                                   counts, np.concatenate(lens), np.concatenate(cols))

    @classmethod
    def _with_counts(cls, h: int, w: int, ncolors: int, lines: np.ndarray, counts: np.ndarray,
                     blen: np.ndarray, bcol: np.ndarray) -> Tables:
        """Tables from ``lines``' first three columns, each line's block count and the
        blocks: the clue offsets follow from the counts."""
        lines[:, 3] = np.cumsum(counts) - counts
        lines[:, 4] = counts
        return cls(h, w, ncolors, lines, blen, bcol, all_colours(ncolors),
                   int(counts.max()) if counts.size else 0)


def clue_arrays(clue: Clue) -> tuple[np.ndarray, np.ndarray]:
    """A clue as the flat ``(lengths, colours)`` int64 arrays the kernels read."""
    blen = np.array([b.length for b in clue], dtype=np.int64)
    bcol = np.array([b.color for b in clue], dtype=np.int64)
    return blen, bcol


#: Most changed lines :meth:`Tables.of` splices into the last puzzle's arrays (a repair's
#: candidates differ from each other in at most two rows and two columns); more, and the
#: arrays are built afresh.
SPLICE_LINES = 8
#: The last puzzle's clues (rows then columns) and its arrays, for :meth:`Tables.of`.
_last: list[tuple[tuple[Clue, ...], Tables] | None] = [None]

__all__ = ["BITS", "MAX_COLORS", "Tables", "clue_arrays"]
