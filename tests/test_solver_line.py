"""The line solver: known answers, and a brute-force cross-check on random short lines."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from nonoforge.errors import SolverError
from nonoforge.puzzle import Block, clue_of
from nonoforge.solver import solve_line


def masks(text: str) -> list[int]:
    """Cells written as ``.`` (background), ``#`` (black), ``?`` (either), or digits=mask."""
    table = {".": 1, "#": 2, "?": 3}
    return [table[ch] if ch in table else int(ch, 16) for ch in text]


def show(out: np.ndarray | None) -> str | None:
    if out is None:
        return None
    return "".join({1: ".", 2: "#", 3: "?"}.get(int(m), format(int(m), "x")) for m in out)


@pytest.mark.parametrize(
    ("clue", "cells", "expected"),
    [
        ([3], "????", "?##?"),
        ([1, 1], "???", "#.#"),
        ([2, 2], "??????", "?#??#?"),
        ([5], "?????", "#####"),
        ([], "???", "..."),
        ([1], "?#?", ".#."),
        ([2], "#???", "##.."),
        ([1, 3], "???????", "????#??"),
        ([3, 1], "??.?????", "...###.#"),
        ([1], ".#.", ".#."),
        ([2], ".#.", None),
        ([1, 1], "##?", None),
    ],
)
def test_bw_known_answers(clue: list[int], cells: str, expected: str | None) -> None:
    out = solve_line(tuple(Block(n, 1) for n in clue), masks(cells))
    assert show(out) == expected


def test_bw_long_line() -> None:
    # 10 cells, clue 4 4: both blocks overlap themselves in two cells
    out = solve_line((Block(4), Block(4)), [3] * 10)
    assert show(out) == "?###??###?"


def test_colour_blocks_may_touch() -> None:
    # 1a 1b in two cells: no gap is needed between different colours
    out = solve_line((Block(1, 1), Block(1, 2)), [7, 7])
    assert out is not None and out.tolist() == [2, 4]


def test_colour_known_answer() -> None:
    # 2a 1b in four cells: a a b . | a a . b | . a a b
    out = solve_line((Block(2, 1), Block(1, 2)), [7, 7, 7, 7])
    assert out is not None and out.tolist() == [3, 2, 7, 5]


def test_colour_same_colour_needs_gap() -> None:
    out = solve_line((Block(1, 2), Block(1, 2)), [7, 7, 7])
    assert out is not None and out.tolist() == [4, 1, 4]


def test_colour_restricted_by_state() -> None:
    # 1a 1b 1a in 4 cells, cell 1 known to be b
    out = solve_line((Block(1, 1), Block(1, 2), Block(1, 1)), [7, 4, 7, 7])
    assert out is not None and out.tolist() == [2, 4, 3, 3]


def test_too_many_colours() -> None:
    with pytest.raises(SolverError):
        solve_line((Block(1, 64),), [1, 1])


def _placements(clue: tuple[Block, ...], n: int, ncol: int) -> list[tuple[int, ...]]:
    return [
        cells
        for cells in itertools.product(range(ncol + 1), repeat=n)
        if clue_of(cells) == clue
    ]


@pytest.mark.parametrize("seed", range(6))
def test_brute_force_cross_check(seed: int) -> None:
    """Every cell fixed is fixed in all placements; every colour kept occurs in one."""
    rng = random.Random(seed)
    for _ in range(120):
        n = rng.randint(1, 7)
        ncol = rng.choice([1, 1, 2, 3])
        truth = [rng.choice([0] * 2 + list(range(1, ncol + 1))) for _ in range(n)]
        clue = clue_of(truth)
        # a random partial state that the true line satisfies, sometimes a wrong one
        full = (1 << (ncol + 1)) - 1
        state = []
        for v in truth:
            m = full
            for c in range(ncol + 1):
                if c != v and rng.random() < 0.3:
                    m &= ~(1 << c)
            if rng.random() < 0.05:
                m = full & ~(1 << v) or full
            state.append(m)
        fits = [
            cells
            for cells in _placements(clue, n, ncol)
            if all(state[j] >> cells[j] & 1 for j in range(n))
        ]
        out = solve_line(clue, state)
        if not fits:
            assert out is None, (clue, state)
            continue
        assert out is not None, (clue, state)
        expect = [0] * n
        for cells in fits:
            for j, c in enumerate(cells):
                expect[j] |= 1 << c
        assert out.tolist() == expect, (clue, state)


@pytest.mark.parametrize("ncol", [1, 2, 5])
def test_kernels_agree(ncol: int) -> None:
    """The bit-parallel kernel and the array DP give the same answer on lines up to 62."""
    rng = random.Random(ncol)
    full = (1 << (ncol + 1)) - 1
    for _ in range(150):
        n = rng.choice([1, 2, 5, 13, 25, 40, 62])
        truth = [rng.choice([0, 0, *range(1, ncol + 1)]) for _ in range(n)]
        clue = clue_of(truth)
        state = [
            (1 << v) if rng.random() < 0.3 else (rng.randint(1, full) if rng.random() < 0.05
                                                  else full)
            for v in truth
        ]
        a = solve_line(clue, state, kernel="dp")
        b = solve_line(clue, state, kernel="bits")
        assert (a is None) == (b is None)
        if a is not None and b is not None:
            assert a.tolist() == b.tolist()


def test_long_lines_use_the_dp() -> None:
    clue = (Block(30), Block(30), Block(30))
    out = solve_line(clue, [3] * 100)
    # slack 8: each block surely covers its last 22 cells of leftmost packing
    assert out is not None and show(out) == "?" * 8 + ("#" * 22 + "?" * 9) * 2 + "#" * 22 + "?" * 8
    out = solve_line(clue, [3] * 92)
    assert out is not None and show(out) == ".".join(["#" * 30] * 3)
    with pytest.raises(SolverError):
        solve_line(clue, [3] * 100, kernel="bits")
