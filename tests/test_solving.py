"""The solver's vocabulary without the solver (nonoforge/solving.py)."""

from __future__ import annotations

import numpy as np
from conftest import fresh_python
from hypothesis import given
from hypothesis import strategies as st

from nonoforge.puzzle import Puzzle
from nonoforge.solving import (
    MAX_COLORS,
    TECHNIQUES,
    full_state,
    mask_colours,
    mask_counts,
    start_masks,
    start_state,
)


def test_the_ladder_runs_from_easiest_to_guessing() -> None:
    assert TECHNIQUES[0] == "trivial" and TECHNIQUES[-1] == "search"
    assert len(set(TECHNIQUES)) == len(TECHNIQUES)


def test_importing_the_vocabulary_loads_neither_numpy_nor_numba() -> None:
    # readers that only name a technique must not pay for the solver
    code = ("import sys, nonoforge.solving; "
            "print('numpy' in sys.modules, 'numba' in sys.modules)")
    out = fresh_python(code).stdout.split()
    assert out == ["False", "False"]


def test_givens_are_fixed_in_both_start_forms() -> None:
    p = Puzzle.from_clues([[1, 1], [1]], [[1], [1], [1]], givens=[(1, 1, 0), (0, 0, 1)])
    state = start_state(p)
    assert state.tolist() == [[2, 3, 3], [3, 1, 3]]
    assert start_masks(p) == [int(v) for v in state.ravel()]


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, MAX_COLORS))
def test_a_full_state_decides_nothing(h: int, w: int, ncolors: int) -> None:
    state = full_state(h, w, ncolors)
    assert (mask_counts(state) == ncolors + 1).all()
    assert (mask_colours(state) == -1).all()


@given(st.lists(st.integers(0, MAX_COLORS), min_size=1, max_size=30))
def test_a_decided_cell_reads_back_its_colour(colours: list[int]) -> None:
    state = np.array([[1 << c for c in colours]], dtype=np.uint64)
    assert mask_colours(state).tolist() == [colours]
    assert (mask_counts(state) == 1).all()
