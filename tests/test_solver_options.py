"""The engine's search options and work costs (nonoforge/solver/options.py)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nonoforge.examples import example_path
from nonoforge.formats import read_file
from nonoforge.solver import solve
from nonoforge.solver.options import SAT_CONFLICT_WORK, SearchOptions, WorkCosts


def test_options_are_frozen_records() -> None:
    opts = SearchOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.score = 4  # type: ignore[misc]
    assert SearchOptions(score=4) != opts


def test_default_costs_charge_exactly_the_solvers_own_work() -> None:
    for name in ("dancer", "petro"):
        (p,) = read_file(example_path(name))
        effort = solve(p).effort
        assert WorkCosts().charged(effort) == effort["work"]


@given(st.integers(0, 10**6), st.integers(0, 10**5), st.integers(0, 10**3),
       st.integers(1, 50), st.integers(1, 1000))
def test_costs_move_only_what_lines_and_conflicts_charge(
    other: int, lines: int, conflicts: int, line_cost: int, conflict_cost: int,
) -> None:
    effort = {"work": other + lines + SAT_CONFLICT_WORK * conflicts,
              "line_solves": lines, "sat_conflicts": conflicts}
    charged = WorkCosts(line=line_cost, conflict=conflict_cost).charged(effort)
    assert charged == other + line_cost * lines + conflict_cost * conflicts
