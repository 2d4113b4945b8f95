"""The engine's search options: probe records and LalaFrogKK's score.

Each option must leave every answer as it was: the same solutions (all of them, when all are
counted), the same verdicts; probe records must even leave the search itself unchanged (the
same nodes, the same states), only fewer line requests.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_bw_puzzle

from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import driver as D  # noqa: N812
from nonoforge.solver import engine as E  # noqa: N812
from nonoforge.solver.options import SearchOptions
from nonoforge.solver.tables import Tables


def _search(p: Puzzle, max_solutions: int, **options: int | bool) -> tuple[int, D.Work, list[Grid]]:
    """The engine alone (no SAT), searching to the end or to ``max_solutions``."""
    w = D.Work(Tables.of(p), max_solutions, False, SearchOptions(**options))  # type: ignore[arg-type]
    w.v[E.V_STRAT] = 2
    w.v[E.V_NODELIM] = -1
    grids: list[Grid] = []
    rc, stop = D.drive(w, None, [], p, grids)
    assert stop is None
    return rc, w, grids


@pytest.mark.parametrize("seed", range(30))
def test_probe_records_change_no_search(seed: int) -> None:
    p = random_bw_puzzle(seed, 10 + seed % 7, 10 + seed % 7, 0.4 + 0.1 * (seed % 3))
    rc0, w0, g0 = _search(p, 2)
    rc1, w1, g1 = _search(p, 2, incremental=True)
    assert rc0 == rc1 and g0 == g1
    e0, e1 = w0.effort(), w1.effort()
    for k in ("nodes", "backtracks", "max_depth", "cells_by_probe", "probe_contradictions",
              "cells_by_line"):
        assert e0[k] == e1[k], k
    assert e1["probes"] <= e0["probes"]
    assert np.array_equal(w0.root_state(), w1.root_state())


def _count_all(p: Puzzle, **options: int | bool) -> set[Grid]:
    rc, _, grids = _search(p, 10_000, **options)
    assert rc == E.RC_DONE
    assert all(g.matches(p) for g in grids)
    return set(grids)


@pytest.mark.parametrize("seed", range(16))
def test_options_find_every_solution(seed: int) -> None:
    p = random_bw_puzzle(seed, 7 + seed % 4, 7 + seed % 4, 0.5)
    every = _count_all(p)
    for options in ({"incremental": True}, {"incremental": True, "score": 4, "order": 0}):
        assert _count_all(p, **options) == every, options  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(40))
def test_records_and_score_keep_two_solution_verdicts(seed: int) -> None:
    p = random_bw_puzzle(seed, 9 + seed % 9, 9 + seed % 9, 0.5)
    rc0, _, g0 = _search(p, 2)
    rc1, _, g1 = _search(p, 2, incremental=True, score=4, order=0)
    assert rc1 == rc0 and len(g1) == len(g0)
    assert all(g.matches(p) for g in g1)
    if len(g0) == 1:
        assert g1 == g0


@pytest.mark.parametrize("seed", range(6))
def test_one_solution_solves_use_the_records_and_give_checked_solutions(seed: int) -> None:
    from nonoforge.solver import core, solve

    assert core.SEARCH_ONE.incremental
    p = random_bw_puzzle(seed, 12, 12, 0.5)
    one = solve(p, max_solutions=1, strategy="search")
    assert one.status in ("unique", "found") and one.solutions[0].matches(p)
    two = solve(p, max_solutions=2, strategy="search")
    if two.status == "unique":
        assert one.solutions == two.solutions
