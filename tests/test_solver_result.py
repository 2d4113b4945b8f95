"""What a solve returns (nonoforge/solver/result.py)."""

from __future__ import annotations

import numpy as np
import pytest

from nonoforge.errors import SolverError
from nonoforge.examples import example_path
from nonoforge.formats import read_file
from nonoforge.puzzle import Grid, Palette, Puzzle
from nonoforge.results import Verdict
from nonoforge.solver import solve
from nonoforge.solver.result import STATUSES, check_colours, state_rows, verify_solution


def test_statuses_are_the_verdicts() -> None:
    assert tuple(v.value for v in Verdict) == STATUSES


def test_a_solve_of_a_bundled_example_carries_a_checked_solution() -> None:
    (p,) = list(read_file(example_path("dancer")))
    r = solve(p)
    assert r.status is Verdict.UNIQUE and r.undecided == 0
    assert r.solution is not None and r.solution.matches(p)
    assert verify_solution(p, r.solution) is r.solution
    assert repr(r).startswith("SolveResult(status='unique', solutions=1,")
    assert state_rows(r.state, p.ncolors) == r.solution.to_rows()


def test_a_grid_that_breaks_a_clue_is_a_solver_bug_not_a_verdict() -> None:
    p = Puzzle.from_clues([[1], []], [[1], []])
    wrong = Grid(np.array([[0, 0], [0, 1]]))
    with pytest.raises(SolverError, match="internal error"):
        verify_solution(p, wrong)


def test_too_many_colours_are_refused_before_solving() -> None:
    palette = Palette.of(("white", "#fff"), *((f"c{i}", (i, i, i)) for i in range(1, 65)))
    p = Puzzle.from_clues([[(1, 64)]], [[(1, 64)]], palette=palette)
    with pytest.raises(SolverError, match="at most 63 colours"):
        check_colours(p)
