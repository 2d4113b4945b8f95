"""The solver's vocabulary, importable without loading the solver (and so numba).

Readers of a solve's outcome — image generation, rendering, rating — need the technique
ladder and must decode the solver's cell masks, but should not pay for compiling the
solver just to name a technique or draw a state. Both live here, once; the solver itself
uses them too. It imports numpy only inside the functions that make arrays, so that the
plain-Python line logic answers a small puzzle without loading numpy (issue 39).

A solver *state* is an ``(H, W)`` ``uint64`` array: bit ``c`` of a cell is set while colour
``c`` (0 is the background) may still stand there. A cell is *decided* when exactly one
bit is left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nonoforge.techniques import engine_names

if TYPE_CHECKING:
    import numpy as np

    from nonoforge.puzzle import Puzzle

__all__ = ["MAX_COLORS", "TECHNIQUES", "mask_colours", "mask_counts", "start_masks",
           "start_state"]

#: The technique ladder, easiest first: ``trivial`` lines, simple ``overlap``, complete
#: ``line`` logic, ``probe`` (try each colour of a cell) and ``search`` (guessing).
#: :attr:`nonoforge.solver.SolveResult.technique` is one of these. Read from the engine
#: ladder of :mod:`nonoforge.techniques`, the rungs' one home.
TECHNIQUES: tuple[str, ...] = engine_names()

#: The most colours a cell mask holds besides the background (bits 1..63 of a ``uint64``).
MAX_COLORS = 63


def all_colours(ncolors: int) -> np.uint64:
    """The mask of a cell that may still take any colour: bit 0 background, bit c colour c."""
    import numpy as np

    return np.uint64((1 << (ncolors + 1)) - 1)


def full_state(height: int, width: int, ncolors: int) -> np.ndarray:
    """A state in which nothing is decided: every cell may take every colour.

    >>> full_state(1, 2, 1).tolist()
    [[3, 3]]
    """
    import numpy as np

    return np.full((height, width), all_colours(ncolors), dtype=np.uint64)


def start_state(puzzle: Puzzle) -> np.ndarray:
    """Where every solve of ``puzzle`` starts: nothing decided but its givens (cells
    printed solved, :attr:`~nonoforge.puzzle.Puzzle.givens`), each fixed to its colour.

    The solver's root, the SAT hand-over and :mod:`nonoforge.images.givens` all start
    here, so "unique" is proven for the puzzle as printed, givens included.

    >>> from nonoforge.puzzle import Puzzle
    >>> start_state(Puzzle.from_clues([[1], [1]], [[1], [1]], givens=[(0, 1, 0)])).tolist()
    [[3, 1], [3, 3]]
    """
    import numpy as np

    st = full_state(puzzle.height, puzzle.width, puzzle.ncolors)
    for r, c, k in puzzle.givens:
        st[r, c] = np.uint64(1 << k)
    return st


def start_masks(puzzle: Puzzle) -> list[int]:
    """:func:`start_state` as a flat list of ints, row by row, without numpy: where the
    plain-Python line logic (:mod:`nonoforge.solver.quick`) starts.

    >>> from nonoforge.puzzle import Puzzle
    >>> start_masks(Puzzle.from_clues([[1], [1]], [[1], [1]], givens=[(0, 1, 0)]))
    [3, 1, 3, 3]
    """
    st = [(1 << (puzzle.ncolors + 1)) - 1] * (puzzle.height * puzzle.width)
    for r, c, k in puzzle.givens:
        st[r * puzzle.width + c] = 1 << k
    return st


def shows_givens(cells: np.ndarray, puzzle: Puzzle) -> bool:
    """Whether a picture (colour indices) shows every given of ``puzzle`` in its colour:
    every solution the solver returns does, as it reproduces the clues.

    >>> from nonoforge.puzzle import Puzzle
    >>> p = Puzzle.from_clues([[1], [1]], [[1], [1]], givens=[(0, 1, 0)])
    >>> import numpy as np
    >>> shows_givens(np.array([[1, 0], [0, 1]]), p), shows_givens(np.array([[0, 1], [1, 0]]), p)
    (True, False)
    """
    return all(int(cells[r, c]) == k for r, c, k in puzzle.givens)


def mask_counts(state: np.ndarray) -> np.ndarray:
    """How many colours each cell of a state may still take (``int64``, same shape).

    >>> import numpy as np
    >>> mask_counts(np.array([[1, 2], [3, 0]], dtype=np.uint64)).tolist()
    [[1, 1], [2, 0]]
    """
    import numpy as np

    return np.bitwise_count(np.asarray(state, dtype=np.uint64)).astype(np.int64)


def mask_colours(state: np.ndarray, undecided: int = -1) -> np.ndarray:
    """Each cell's colour index where it is decided, ``undecided`` elsewhere (``int64``).

    >>> import numpy as np
    >>> mask_colours(np.array([[1, 2], [3, 4]], dtype=np.uint64)).tolist()
    [[0, 1], [-1, 2]]
    """
    import numpy as np

    st = np.asarray(state, dtype=np.uint64)
    decided = np.bitwise_count(st) == 1
    out = np.full(st.shape, undecided, dtype=np.int64)
    # a single set bit is a power of two: log2 is exact in float64 for every bit of a uint64
    out[decided] = np.log2(st[decided].astype(np.float64)).astype(np.int64)
    return out
