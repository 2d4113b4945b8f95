"""Lazy clause generation (solver/lcg.py): every solution reproduces the clues, "none"
agrees with the SAT back-end, the counts repeat, and a conflict budget stops the run."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_bw_puzzle, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import SolverError
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import lcg
from nonoforge.solver.sat import solve_sat
from nonoforge.solver.tables import Tables


@pytest.mark.parametrize("size,density", [(5, 0.5), (10, 0.3), (15, 0.5), (20, 0.6)])
def test_random_puzzles_from_the_blank_grid(size: int, density: float) -> None:
    for seed in range(8):
        p = random_bw_puzzle(seed, size, size + 2, density)
        out = lcg.solve_lcg(p)
        assert out.status == "found" and out.grid is not None
        assert out.grid.matches(p)


@pytest.mark.parametrize("options", [
    lcg.Options(minimize=False), lcg.Options(eorder=1), lcg.Options(eorder=2),
    lcg.Options(cache=True), lcg.Options(ccmin=False, phase=0, restart_unit=1,
                                          reduce_first=1, reduce_inc=0, keep_lbd=0),
])
def test_every_option_gives_solutions_that_reproduce_the_clues(options: lcg.Options) -> None:
    """Restarting and reducing after every conflict exercises the clause store's rebuild."""
    for seed in range(6):
        p = random_bw_puzzle(100 + seed, 18, 18, 0.5)
        out = lcg.solve_lcg(p, options=options)
        assert out.status == "found" and out.grid is not None and out.grid.matches(p)


def test_a_tiny_clause_store_grows() -> None:
    p = random_bw_puzzle(7, 20, 20, 0.5)
    t = Tables.of(p)
    s = lcg.new_state(t, lcg.Options(), clauses=4, arena=64)
    cells = np.full(p.height * p.width, 3, dtype=np.uint64)
    assert lcg.start(s, cells)
    rc = lcg.run(s, -1)
    while rc == lcg.RC_GROW:
        s = lcg._grown(s)
        rc = lcg.run(s, -1)
    assert rc == lcg.RC_SAT
    assert Grid(s.val.reshape(20, 20).astype(np.uint8)).matches(p)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), h=st.integers(1, 9), w=st.integers(1, 9),
       forced=st.lists(st.tuples(st.integers(0, 80), st.booleans()), max_size=6))
def test_satisfiability_agrees_with_sat(seed: int, h: int, w: int,
                                        forced: list[tuple[int, bool]]) -> None:
    """From a state with a few cells forced (often to the wrong colour, so often without a
    solution) lcg finds a solution exactly when MiniSat does, and it keeps the forced
    cells."""
    p = random_bw_puzzle(seed, h, w, 0.5)
    state = np.full((h, w), 3, dtype=np.uint64)
    for cell, black in forced:
        state.flat[cell % (h * w)] = 2 if black else 1
    out = lcg.solve_lcg(p, state)
    ref = solve_sat(p, state, max_solutions=1)
    assert (out.status == "found") == (ref.status == "unique")
    assert out.status in ("found", "none")
    if out.grid is not None:
        assert out.grid.matches(p)
        painted = np.where(out.grid.cells == 1, 2, 1).astype(np.uint64)
        assert ((painted & state) != 0).all()


def test_a_state_without_colours_has_no_solution() -> None:
    p = random_bw_puzzle(1, 4, 4, 0.5)
    state = np.full((4, 4), 3, dtype=np.uint64)
    state[2, 2] = 0
    assert lcg.solve_lcg(p, state).status == "none"


def test_only_black_and_white_puzzles_with_short_lines() -> None:
    colour = Puzzle.from_grid(Grid([[1, 2], [2, 0]]))
    assert not lcg.supports(colour)
    with pytest.raises(SolverError, match="black-and-white"):
        lcg.solve_lcg(colour)
    wide = random_bw_puzzle(1, 2, lcg.MAX_LINE + 1, 0.5)
    assert not lcg.supports(wide)
    assert lcg.supports(random_bw_puzzle(1, lcg.MAX_LINE, 2, 0.5))


def test_tournament_hand_overs() -> None:
    """TCGA 2022 #401-#410 (real 25x25 puzzles) from the root state ``auto`` hands over
    (after probing): each answer reproduces the clues, the counts repeat, and a conflict
    budget stops a run as ``budget``."""
    from nonoforge.formats.tournament import read_with_solutions
    from nonoforge.solver import solve

    folder = shared_path("corpora", "tournament")
    puzzles = read_with_solutions(folder / "question" / "tcga2022.txt",
                                  folder / "solution" / "tcga2022.txt")[400:410]
    reached = 0
    for p in puzzles:
        root = solve(p, max_solutions=1, strategy="probe").state
        a = lcg.solve_lcg(p, root)
        b = lcg.solve_lcg(p, root)
        assert a.status == "found" and a.grid is not None and a.grid.matches(p)
        assert a == b
        if a.conflicts > 10:
            reached += 1
            cut = lcg.solve_lcg(p, root, conflict_budget=a.conflicts // 2)
            assert cut.status == "budget" and cut.grid is None
    assert reached >= 3


def test_a_passed_deadline_stops_before_any_work() -> None:
    p = random_bw_puzzle(3, 20, 20, 0.5)
    out = lcg.solve_lcg(p, deadline=0.0)
    assert out.status == "timeout" and out.conflicts == 0


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), h=st.integers(1, 7), w=st.integers(1, 7),
       density=st.sampled_from([0.3, 0.5, 0.7]))
def test_two_solutions_agree_with_sat(seed: int, h: int, w: int, density: float) -> None:
    """Asked for two, lcg says ``multiple`` exactly when MiniSat does (small random
    puzzles often have several), with two different pictures that reproduce the clues,
    and ``unique`` with the one solution otherwise."""
    p = random_bw_puzzle(seed, h, w, density)
    out = lcg.solve_lcg(p, max_solutions=2)
    ref = solve_sat(p, None, max_solutions=2)
    assert out.status == ref.status
    assert out.grid is not None and out.grid.matches(p)
    if out.status == "multiple":
        assert out.second is not None and out.second.matches(p) and out.second != out.grid
        assert 0 <= out.first_conflicts <= out.conflicts
    else:
        assert out.second is None and out.grid == ref.solutions[0]


def test_a_budget_after_the_first_solution_keeps_it() -> None:
    """Random 12x12 puzzles with several solutions whose second took conflicts: the
    first solution survives a budget that stops the search for the second."""
    hits = 0
    for seed in range(40):
        p = random_bw_puzzle(seed, 12, 12, 0.5)
        full = lcg.solve_lcg(p, max_solutions=2)
        if full.status != "multiple" or full.conflicts <= full.first_conflicts + 1:
            continue
        cut = lcg.solve_lcg(p, max_solutions=2, conflict_budget=full.first_conflicts)
        assert cut.status == "budget" and cut.grid == full.grid and cut.second is None
        hits += 1
    assert hits >= 1
