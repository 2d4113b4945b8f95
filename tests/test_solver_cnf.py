"""Tests of the compiled CNF kernels (nonoforge.solver.cnf) against brute force."""

from __future__ import annotations

import itertools

import numpy as np
from conftest import all_solutions
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import cnf
from nonoforge.solver.sat import encode
from nonoforge.solver.tables import Tables


def placements(lengths: list[int], colours: list[int], n: int) -> list[list[int]]:
    """Every line of ``n`` cells (colour per cell) the clue describes, by enumeration."""
    out = []

    def rec(j: int, pos: int, cells: list[int]) -> None:
        if j == len(lengths):
            out.append(cells + [0] * (n - len(cells)))
            return
        gap = 1 if j > 0 and colours[j - 1] == colours[j] else 0
        for s in range(pos + gap, n - lengths[j] + 1):
            rec(j + 1, s + lengths[j], cells + [0] * (s - len(cells)) + [colours[j]] * lengths[j])

    rec(0, 0, [])
    return out


def starts_of(line: list[int], lengths: list[int]) -> list[int]:
    """Where each block starts in a line (blocks read left to right)."""
    starts, c = [], 0
    for ln in lengths:
        while line[c] == 0 or (starts and c < starts[-1] + lengths[len(starts) - 1]):
            c += 1
        starts.append(c)
        c += ln
    return starts


@st.composite
def lines(draw: st.DrawFn) -> tuple[list[int], list[int], int, np.ndarray]:
    n = draw(st.integers(1, 12))
    ncolors = draw(st.integers(1, 3))
    picture = draw(st.lists(st.integers(0, ncolors), min_size=n, max_size=n))
    lengths, colours = [], []
    for colour, run in itertools.groupby(picture):
        if colour:
            lengths.append(len(list(run)))
            colours.append(colour)
    full = (1 << (ncolors + 1)) - 1
    masks = draw(st.lists(st.integers(0, full), min_size=n, max_size=n))
    if draw(st.booleans()):  # keep the picture possible
        masks = [m | 1 << c for m, c in zip(masks, picture, strict=True)]
    return lengths, colours, n, np.array(masks, dtype=np.uint64)


@settings(max_examples=300, deadline=None)
@given(lines())
def test_feasible_starts_are_exactly_those_of_some_allowed_placement(case) -> None:  # noqa: ANN001
    lengths, colours, n, masks = case
    k = len(lengths)
    assume(k > 0)
    allowed = [
        line for line in placements(lengths, colours, n)
        if all(int(masks[i]) >> line[i] & 1 for i in range(n))
    ]
    feas = np.zeros((k, n), dtype=np.bool_)
    ok = cnf._feasible(
        masks, 0, 1, n, 0, k, np.array(lengths, dtype=np.int64),
        np.array(colours, dtype=np.int64), feas, np.zeros(n + 1, dtype=np.int64),
        np.zeros(n + 1, dtype=np.int64), np.zeros((k, n), dtype=np.bool_),
        np.zeros(n + 2, dtype=np.int64),
    )
    assert ok == bool(allowed)
    if allowed:
        expected = np.zeros((k, n), dtype=np.bool_)
        for line in allowed:
            for j, s in enumerate(starts_of(line, lengths)):
                expected[j, s] = True
        assert (feas == expected).all()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(0, 2**32 - 1))
def test_the_cnf_has_exactly_the_solutions_of_brute_force(
    h: int, w: int, ncolors: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    p = Puzzle.from_grid(Grid(rng.integers(0, ncolors + 1, size=(h, w))))
    full = (1 << (p.ncolors + 1)) - 1
    state = np.where(rng.random((h, w)) < 0.6, full, rng.integers(0, full + 1, (h, w)))
    state = state.astype(np.uint64)
    expected = set()
    for cells in itertools.product(range(p.ncolors + 1), repeat=h * w):
        g = Grid(np.array(cells).reshape(h, w))
        if g.matches(p) and np.all((state >> g.cells.astype(np.uint64)) & np.uint64(1)):
            expected.add(g)
    assert all_solutions(p, state=state) == expected


#: The kernels' stop flag, never set here.
GO = np.zeros(1, dtype=np.int64)


def test_a_small_buffer_asks_for_more_room() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#..", ".#.", "..#"]))  # six solutions
    t = Tables.of(p)
    masks = np.full(9, t.full, dtype=np.uint64)
    feas = np.zeros((len(t.blen), 3), dtype=np.bool_)
    slo, shi = np.zeros(len(t.blen), dtype=np.int64), np.zeros(len(t.blen), dtype=np.int64)
    assert cnf.narrow(masks, t.lines, t.blen, t.bcol, feas, slo, shi, GO)
    lits = np.zeros((9, 2), dtype=np.int64)
    top = np.zeros(4, dtype=np.int64)
    small = cnf.emit(masks, 2, t.lines, t.blen, t.bcol, feas, slo, shi, True, lits,
                     np.zeros(6, dtype=np.int64), np.zeros(3, dtype=np.int64), top, GO)
    assert small == cnf.EMIT_FULL
    rc = cnf.emit(masks, 2, t.lines, t.blen, t.bcol, feas, slo, shi, True, lits,
                  np.zeros(3000, dtype=np.int64), np.zeros(1001, dtype=np.int64), top, GO)
    assert rc == 0 and top[0] > 0 and top[3] > 0


def test_a_line_that_cannot_be_placed_is_unsat() -> None:
    p = Puzzle.from_clues([[2], [1]], [[1], [2]])
    t = Tables.of(p)
    # the state forbids black in the top-left cell, which the row's block of 2 needs
    masks = np.full(4, t.full, dtype=np.uint64)
    masks[0] = np.uint64(1)
    feas = np.zeros((len(t.blen), 2), dtype=np.bool_)
    slo, shi = np.zeros(len(t.blen), dtype=np.int64), np.zeros(len(t.blen), dtype=np.int64)
    assert not cnf.narrow(masks, t.lines, t.blen, t.bcol, feas, slo, shi, GO)
    assert encode(p, masks.reshape(2, 2)).unsat


def test_a_stop_flag_stops_the_kernels() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#..", ".#.", "..#"]))
    t = Tables.of(p)
    stop = np.ones(1, dtype=np.int64)
    masks = np.full(9, t.full, dtype=np.uint64)
    feas = np.zeros((len(t.blen), 3), dtype=np.bool_)
    slo, shi = np.zeros(len(t.blen), dtype=np.int64), np.zeros(len(t.blen), dtype=np.int64)
    assert not cnf.narrow(masks, t.lines, t.blen, t.bcol, feas, slo, shi, stop)
    assert cnf.narrow(masks, t.lines, t.blen, t.bcol, feas, slo, shi, GO)
    rc = cnf.emit(masks, 2, t.lines, t.blen, t.bcol, feas, slo, shi, True,
                  np.zeros((9, 2), dtype=np.int64), np.zeros(3000, dtype=np.int64),
                  np.zeros(1001, dtype=np.int64), np.zeros(4, dtype=np.int64), stop)
    assert rc == cnf.EMIT_STOPPED
