"""The solver's flat arrays: built from the clues, and spliced from the last puzzle's when
only a few lines are new clue objects (a repair's candidates). Spliced arrays must be the
arrays built afresh, byte for byte, or the solver would answer another puzzle."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.puzzle import Grid, Palette, Puzzle, clue_of
from nonoforge.solver import solve
from nonoforge.solver import tables as T  # noqa: N812
from nonoforge.solver.tables import Tables


def fresh(p: Puzzle) -> Tables:
    """The arrays built from every clue (never from the last puzzle's)."""
    return Tables._built(p.height, p.width, p.ncolors, (*p.rows, *p.columns))


def same(a: Tables, b: Tables) -> bool:
    return (
        (a.height, a.width, a.ncolors, a.full, a.max_blocks)
        == (b.height, b.width, b.ncolors, b.full, b.max_blocks)
        and all(x.dtype == y.dtype and np.array_equal(x, y)
                for x, y in ((a.lines, b.lines), (a.blen, b.blen), (a.bcol, b.bcol)))
    )


def edited(p: Puzzle, cells: np.ndarray, y: int, x: int, colour: int) -> Puzzle:
    """``p`` with cell ``(y, x)`` of its picture ``cells`` set to ``colour``, sharing the
    other lines' clue objects, as a repair builds its candidates."""
    cells[y, x] = colour
    rows, cols = list(p.rows), list(p.columns)
    rows[y], cols[x] = clue_of(cells[y]), clue_of(cells[:, x])
    return Puzzle.trusted(tuple(rows), tuple(cols), p.palette)


def test_known_arrays() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["##.#", "....", ".###"]))
    t = Tables.of(p)
    assert t.lines.tolist() == [
        [0, 1, 4, 0, 2], [4, 1, 4, 2, 0], [8, 1, 4, 2, 1],  # rows: 2 1 / - / 3
        [0, 4, 3, 3, 1], [1, 4, 3, 4, 2], [2, 4, 3, 6, 1], [3, 4, 3, 7, 2],
    ]
    assert t.blen.tolist() == [2, 1, 3, 1, 1, 1, 1, 1, 1, 0]
    assert t.bcol.tolist() == [1, 1, 1, 1, 1, 1, 1, 1, 1, 0]
    assert t.max_blocks == 2


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_spliced_arrays_are_the_built_ones(h: int, w: int, ncol: int, seed: int) -> None:
    """A walk of one-cell edits (lines emptied, filled, blocks split and joined), each
    puzzle's arrays against a fresh build; and the solver's verdict on the last one is the
    verdict of the same clues as a new puzzle."""
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, ncol + 1, (h, w))
    palette = Palette.bw() if ncol == 1 else Puzzle.from_grid(
        Grid(np.arange(ncol + 1).reshape(1, -1))).palette
    p = Puzzle.trusted(Grid(cells).row_clues(), Grid(cells).column_clues(), palette)
    assert same(Tables.of(p), fresh(p))
    for _ in range(12):
        y, x = int(rng.integers(h)), int(rng.integers(w))
        p = edited(p, cells, y, x, int(rng.integers(ncol + 1)))
        assert same(Tables.of(p), fresh(p))
    copy = Puzzle(tuple(map(tuple, p.rows)), tuple(map(tuple, p.columns)), palette)
    a, b = solve(p, strategy="line"), solve(copy, strategy="line")
    assert (a.status, a.effort) == (b.status, b.effort)


def test_splices_only_a_few_lines() -> None:
    """Past SPLICE_LINES changed lines, another shape or other colours, the arrays are
    built afresh; every answer is the fresh one."""
    rng = np.random.default_rng(3)
    cells = rng.integers(0, 2, (12, 12))
    p = Puzzle.from_grid(Grid(cells))
    assert same(Tables.of(p), fresh(p))
    q = Puzzle.from_grid(Grid(1 - cells))  # every line new
    assert same(Tables.of(q), fresh(q))
    r = Puzzle.from_grid(Grid(cells[:, :11]))  # another shape
    assert same(Tables.of(r), fresh(r))
    s = Puzzle.trusted(p.rows, p.columns, Puzzle.from_grid(Grid([[1, 2]])).palette)
    t = Tables.of(s)  # the same clue objects, more colours in the palette
    assert t.ncolors == 2 and same(t, fresh(s))
    assert T._last[0] is not None and T._last[0][1] is t
