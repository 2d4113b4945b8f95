"""The overlap potential of a line, compiled (images/overlap.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.images.overlap import edit_gains, line_potential
from nonoforge.puzzle import Clue, clue_of, min_length


def reference(clue: Clue, n: int) -> int:
    """The definition, from a clue: with slack ``n`` minus the clue's least length, the sum
    of how far each block is longer than the slack; ``n`` for an empty clue or no slack."""
    if not clue:
        return n
    slack = n - min_length(clue)
    if not slack:
        return n
    return sum(b.length - slack for b in clue if b.length > slack)


def line(text: str) -> np.ndarray:
    return np.array([0 if ch == "." else int(ch) for ch in text], dtype=np.uint8)


def test_known_potentials() -> None:
    assert line_potential(line("..........")) == 10  # empty: settled
    assert line_potential(line("1111111111")) == 10  # no slack: settled
    assert line_potential(line("111111....")) == 2  # a 6 in 10: 2 cells overlap
    assert line_potential(line("111.111...")) == 0  # 3 3 in 10: slack 3
    assert line_potential(line("111222....")) == 0  # 3 3 of two colours: slack 4
    assert line_potential(line("11111.2222")) == 7  # 5 4, slack 1: 4 + 3
    # with one cell read as another colour: the 6 becomes a 7 (slack 3: 4 settled)
    assert line_potential(line("111111....")) == 2
    assert line_potential(line("111111...."), 6, 1) == 4
    assert line_potential(line("111111...."), 0, 0) == 0  # a 5 in 10: slack 5


@settings(max_examples=300, deadline=None)
@given(
    cells=st.lists(st.integers(0, 3), min_size=1, max_size=60),
    at=st.integers(-1, 59),
    colour=st.integers(0, 3),
)
def test_the_compiled_potential_is_the_definition(cells: list[int], at: int, colour: int) -> None:
    """Any line of up to 3 colours, any cell read as any colour (or none): the compiled
    potential equals the definition's for the clue of the line so read."""
    arr = np.array(cells, dtype=np.uint8)
    at = at if at < len(cells) else -1
    read = list(cells)
    if at >= 0:
        read[at] = colour
    assert line_potential(arr, at, colour) == reference(clue_of(read), len(cells))


def test_edit_gains_are_each_edits_change_of_its_row_and_column() -> None:
    rng = np.random.default_rng(4)
    cells = ((rng.random((9, 13)) < 0.5) * rng.integers(1, 3, size=(9, 13))).astype(np.uint8)
    rows = np.array([reference(clue_of(r.tolist()), 13) for r in cells], dtype=np.int64)
    cols = np.array([reference(clue_of(c.tolist()), 9) for c in cells.T], dtype=np.int64)
    ys, xs = np.nonzero(np.ones_like(cells))
    cs = (cells[ys, xs] + 1) % 3
    got = edit_gains(cells, ys.astype(np.int64), xs.astype(np.int64), cs.astype(np.int64),
                     rows, cols)
    for i, (y, x, c) in enumerate(zip(ys.tolist(), xs.tolist(), cs.tolist(), strict=True)):
        edited = cells.copy()
        edited[y, x] = c
        want = (reference(clue_of(edited[y].tolist()), 13) - rows[y]
                + reference(clue_of(edited[:, x].tolist()), 9) - cols[x])
        assert got[i] == want
