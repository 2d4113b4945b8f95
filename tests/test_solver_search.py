"""The engine's search options: probe records, LalaFrogKK's score, the 2x2 swap.

Each option must leave every answer as it was: the same solutions (all of them, when all are
counted), the same verdicts; probe records must even leave the search itself unchanged (the
same nodes, the same states), only fewer line requests.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import driver as D  # noqa: N812
from nonoforge.solver import engine as E  # noqa: N812
from nonoforge.solver.tables import Tables


def _runs(a: list[int]) -> list[int]:
    out, n = [], 0
    for x in [*a, 0]:
        if x:
            n += 1
        elif n:
            out.append(n)
            n = 0
    return out


def _search(p: Puzzle, max_solutions: int, **options: int | bool) -> tuple[int, D.Work, list[Grid]]:
    """The engine alone (no SAT), searching to the end or to ``max_solutions``."""
    w = D.Work(Tables.of(p), max_solutions, False, D.SearchOptions(**options))  # type: ignore[arg-type]
    w.v[E.V_STRAT] = 2
    w.v[E.V_NODELIM] = -1
    grids: list[Grid] = []
    rc, stop = D.drive(w, None, [], p, grids)
    assert stop is None
    return rc, w, grids


def _random(seed: int, size: int, density: float = 0.5) -> Puzzle:
    rng = np.random.default_rng(seed)
    cells = (rng.random((size, size)) < density).astype(np.uint8)
    cells[0, 0] = 1
    return Puzzle.from_grid(Grid(cells))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=1, max_size=24))
def test_moves_are_exactly_the_clue_keeping_ones(a: list[int]) -> None:
    n = len(a)
    ok = np.zeros((1, n, n), dtype=np.bool_)
    E._moves(np.array(a, dtype=np.int64), n, ok, 0)
    clue = _runs(a)
    for i, j in itertools.product(range(n), repeat=2):
        b = list(a)
        want = a[i] == 1 and a[j] == 0
        if want:
            b[i], b[j] = 0, 1
            want = _runs(b) == clue
        assert bool(ok[0, i, j]) == want, (a, i, j)


def _brute_swap(g: np.ndarray) -> bool:
    p = Puzzle.from_grid(Grid(g))
    h, w = g.shape
    for r1, r2 in itertools.combinations(range(h), 2):
        for c1, c2 in itertools.combinations(range(w), 2):
            if g[r1, c1] == g[r2, c2] != g[r1, c2] == g[r2, c1]:
                x = g.copy()
                x[[r1, r1, r2, r2], [c1, c2, c1, c2]] = 1 - x[[r1, r1, r2, r2], [c1, c2, c1, c2]]
                if Grid(x).matches(p):
                    return True
    return False


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 7), st.integers(2, 7), st.integers(0, 2**32 - 1))
def test_swap_partner_finds_a_swap_when_one_exists(h: int, w: int, seed: int) -> None:
    g = (np.random.default_rng(seed).random((h, w)) < 0.5).astype(np.uint8)
    st_ = np.where(g.ravel() == 1, 2, 1).astype(np.uint64)
    r1, c1, r2, c2 = E.swap_partner(st_, h, w)
    assert (r1 >= 0) == _brute_swap(g)
    if r1 >= 0:
        x = g.copy()
        assert x[r1, c1] == 1 and x[r2, c2] == 1 and x[r1, c2] == 0 and x[r2, c1] == 0
        x[r1, c1] = x[r2, c2] = 0
        x[r1, c2] = x[r2, c1] = 1
        assert Grid(x).matches(Puzzle.from_grid(Grid(g)))


@pytest.mark.parametrize("seed", range(30))
def test_probe_records_change_no_search(seed: int) -> None:
    p = _random(seed, 10 + seed % 7, 0.4 + 0.1 * (seed % 3))
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
    p = _random(seed, 7 + seed % 4, 0.5)
    every = _count_all(p)
    for options in ({"incremental": True}, {"incremental": True, "score": 4, "order": 0}):
        assert _count_all(p, **options) == every, options  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(40))
def test_swap_and_records_keep_two_solution_verdicts(seed: int) -> None:
    p = _random(seed, 9 + seed % 9, 0.5)
    rc0, _, g0 = _search(p, 2)
    for options in ({"swap": True}, {"swap": True, "incremental": True, "score": 4,
                                     "order": 0}):
        rc1, w1, g1 = _search(p, 2, **options)  # type: ignore[arg-type]
        assert rc1 == rc0 and len(g1) == len(g0), options
        assert all(g.matches(p) for g in g1)
        if len(g0) == 1:
            assert g1 == g0


@pytest.mark.parametrize("rows", [["#.", ".#"], ["####.", "#.#..", "##.#.", "####.", "....#"]])
def test_swap_gives_the_second_solution_at_once(rows: list[str]) -> None:
    p = Puzzle.from_grid(Grid.from_rows(rows))
    rc, w, grids = _search(p, 2, swap=True)
    assert rc == E.RC_SOLS and len(grids) == 2 and grids[0] != grids[1]
    assert all(g.matches(p) for g in grids)
    assert int(w.v[E.V_SWAPS]) == 1


@pytest.mark.parametrize("seed", range(6))
def test_one_solution_solves_use_the_records_and_give_checked_solutions(seed: int) -> None:
    from nonoforge.solver import core, solve

    assert core.SEARCH_ONE.get("incremental") is True
    p = _random(seed, 12, 0.5)
    one = solve(p, max_solutions=1, strategy="search")
    assert one.status in ("unique", "unsolved") and one.solutions[0].matches(p)
    two = solve(p, max_solutions=2, strategy="search")
    if two.status == "unique":
        assert one.solutions == two.solutions
