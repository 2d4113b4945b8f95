"""The engine's parity-summing rung (``engine._sum_line``, ``engine._summing``).

Summing counts across lines: the even rows hold exactly as many black cells as their clues
add up to, and each column puts between its fewest and its most black cells into them. The
rung must never remove a colour the true picture has (it is logic, not a guess), its line
counts must be exact, and it must decide Wolter's n-Dom puzzles without search, which line
logic, probing and search alone could not do in polynomial time (docs/notes/ndom.md).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import random_bw_puzzle
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import engine as E  # noqa: N812
from nonoforge.solver import solve
from nonoforge.solver.tables import Tables

U1, U2, U3 = np.uint64(1), np.uint64(2), np.uint64(3)


def ndom_clues(n: int) -> tuple[list[list[int]], list[list[int]]]:
    """Wolter's n-Dom (https://webpbn.com/survey/dom.html; 9-Dom is webpbn #8098): rows
    [3], then [3, 1] and [1] alternately, the last [1]; the columns the mirror image."""
    side = 2 * n + 1
    rows = [[3]] + [[3, 1] if i % 2 == 0 else [1] for i in range(1, side - 1)] + [[1]]
    cols = [[1]] + [[1, 3] if j % 2 == 0 else [1] for j in range(1, side - 1)] + [[3]]
    return rows, cols


def ndom_picture(n: int) -> list[str]:
    """The staircase of n dominoes the clues describe (Wolter's picture)."""
    side = 2 * n + 1
    cells = [["."] * side for _ in range(side)]
    for k in range(n):
        for c in range(2 * n - 2 - 2 * k, 2 * n - 2 * k + 1):
            cells[2 * k][c] = "#"
        for r in range(2 * k, 2 * k + 3):
            cells[r][2 * n - 2 * k] = "#"
    return ["".join(row) for row in cells]


@pytest.mark.parametrize("n", [3, 4, 5, 7, 9, 12, 15])
def test_ndom_is_proven_unique_without_search(n: int) -> None:
    rows, cols = ndom_clues(n)
    p = Puzzle.from_clues(rows=rows, columns=cols)
    res = solve(p, max_solutions=2)
    assert res.status == "unique"
    assert res.solutions[0].to_rows() == ndom_picture(n)
    assert res.effort["nodes"] == 0 and res.effort.get("sat_conflicts", 0) == 0
    assert res.effort["cells_by_sum"] > 0 and res.technique == "probe"
    # logic alone (no guessing allowed) decides it too
    assert solve(p, strategy="probe").status == "unique"


def test_ndom_line_logic_alone_decides_nothing() -> None:
    # the wall the rung removes: lines leave every cell of 9-Dom open
    rows, cols = ndom_clues(9)
    res = solve(Puzzle.from_clues(rows=rows, columns=cols), strategy="line")
    assert res.status == "unsolved" and res.undecided == 19 * 19


def _placements(n: int, clue: list[int]) -> list[list[int]]:
    """Every black-and-white line of ``n`` cells with ``clue`` (brute force)."""
    out = []
    for bits in itertools.product([0, 1], repeat=n):
        runs = [len(list(g)) for v, g in itertools.groupby(bits) if v == 1]
        if runs == clue:
            out.append(list(bits))
    return out


def _line_arrays(clue: list[int], masks: list[int]) -> tuple[np.ndarray, ...]:
    n = len(masks)
    k = len(clue)
    st_ = np.array(masks, dtype=np.uint64)
    blen = np.array(clue or [0], dtype=np.int64)
    w = np.zeros(4 * (n + 1) * (k + 2), dtype=np.int64)
    out = np.zeros(n, dtype=np.uint64)
    return st_, blen, w, out


@st.composite
def lines_with_state(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    n = draw(st.integers(1, 10))
    clue: list[int] = []
    room = n
    while room > 0 and draw(st.booleans()):
        b = draw(st.integers(1, room))
        clue.append(b)
        room -= b + 1
    masks = draw(st.lists(st.sampled_from([1, 2, 3, 3, 3]), min_size=n, max_size=n))
    return clue, masks


@settings(max_examples=300, deadline=None)
@given(lines_with_state(), st.integers(0, 6), st.integers(0, 6))
def test_sum_line_counts_and_solves_exactly(case: tuple[list[int], list[int]], a: int,
                                            b: int) -> None:
    clue, masks = case
    n = len(masks)
    allowed = [pl for pl in _placements(n, clue)
               if all(masks[j] & (2 if x else 1) for j, x in enumerate(pl))]
    st_, blen, w, out = _line_arrays(clue, masks)
    ok, mn, mx = E._sum_line(st_, 0, 1, n, blen, 0, len(clue), w, -1, -1, out)
    assert ok == bool(allowed)
    assume(allowed)
    counts = [sum(pl[0::2]) for pl in allowed]
    assert (mn, mx) == (min(counts), max(counts))
    lo, hi = min(a, b), max(a, b)
    ok, _, _ = E._sum_line(st_, 0, 1, n, blen, 0, len(clue), w, lo, hi, out)
    kept = [pl for pl, c in zip(allowed, counts, strict=True) if lo <= c <= hi]
    truth = [0] * n
    for pl in kept:
        for j, x in enumerate(pl):
            truth[j] |= 2 if x else 1
    if ok:
        # never loses a colour some placement in range has; exact at either end of the range
        assert all((int(out[j]) & truth[j]) == truth[j] for j in range(n))
        if lo == hi and lo in (mn, mx):
            assert [int(x) for x in out] == truth
    else:
        assert not kept


def _summing(p: Puzzle, state: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """Run the rung once on ``state`` (flat masks): (answer, new state, effort counters)."""
    t = Tables.of(p)
    h, w = t.height, t.width
    nl = h + w
    maxn = max(h, w)
    sched = np.zeros((nl + 1, 4), dtype=np.int64)
    sched[:nl, 0] = -1
    v = np.zeros(E.NV, dtype=np.int64)
    v[E.V_NCOL] = 1
    v[E.V_UNDEC] = int(np.count_nonzero(state == U3))
    cur = state.copy()
    r = E._summing(cur, h, w, t.lines, t.blen, sched, v, np.zeros(nl, dtype=np.int64),
                   np.zeros(4 * (maxn + 1) * (t.max_blocks + 2), dtype=np.int64),
                   np.zeros((maxn, 2), dtype=np.int64), np.zeros(maxn, dtype=np.uint64))
    return r, cur, v


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 9), st.integers(2, 9),
       st.floats(0.2, 0.8), st.floats(0.0, 0.9))
def test_summing_never_removes_the_true_picture(seed: int, h: int, w: int, density: float,
                                                shown: float) -> None:
    p = random_bw_puzzle(seed, h, w, density)
    truth = np.asarray(p.goal.cells, dtype=np.int64).reshape(-1)
    rng = np.random.default_rng(seed + 1)
    state = np.where(rng.random(h * w) < shown, np.where(truth == 1, U2, U1), U3)
    state = state.astype(np.uint64)
    r, cur, v = _summing(p, state)
    assert r >= 0  # the truth fits the state: never a contradiction
    true_bits = np.where(truth == 1, U2, U1).astype(np.uint64)
    assert np.all((cur & true_bits) == true_bits)  # every true colour kept
    assert (r == 1) == (not np.array_equal(cur, state))
    assert v[E.V_SUMCHG] == int(np.count_nonzero(cur != state))
    assert v[E.V_UNDEC] == int(np.count_nonzero(cur == U3))


def test_summing_finds_the_ndom_contradiction_of_a_wrong_top_corner() -> None:
    # 4-Dom with its top-right corner white: the columns' 3s no longer fit the even rows
    rows, cols = ndom_clues(4)
    p = Puzzle.from_clues(rows=rows, columns=cols)
    res = solve(Puzzle.from_clues(rows=rows, columns=cols, givens=[(0, 8, 0)]))
    assert res.status == "none"
    assert solve(p).status == "unique"


def _fits_so_far(col: list[int], clue: list[int], done: bool) -> bool:
    """Whether a column's first cells can begin a line with ``clue`` (all of it: ``done``)."""
    runs = [len(list(g)) for v, g in itertools.groupby(col) if v == 1]
    if done:
        return runs == clue
    if not runs:
        return True
    closed = runs if col[-1] == 0 else runs[:-1]
    k = len(closed)
    if closed != clue[:k]:
        return False
    return col[-1] == 0 or (k < len(clue) and runs[-1] <= clue[k])


def _every_picture(p: Puzzle) -> set[Grid]:
    """Every picture of a small black-and-white puzzle, row placements crossed and pruned
    by the columns (brute force, independent of the solver)."""
    rows = [_placements(p.width, [b.length for b in c]) for c in p.rows]
    cols = [[b.length for b in c] for c in p.columns]
    found: set[Grid] = set()

    def extend(pick: list[list[int]]) -> None:
        r = len(pick)
        if r == p.height:
            found.add(Grid(np.array(pick)))
            return
        for row in rows[r]:
            nxt = [*pick, row]
            if all(_fits_so_far([x[j] for x in nxt], cols[j], r + 1 == p.height)
                   for j in range(p.width)):
                extend(nxt)

    extend([])
    return found


@pytest.mark.parametrize("seed", range(20))
def test_verdicts_and_pictures_as_counted_by_brute_force(seed: int) -> None:
    # every picture of a small puzzle: the solver's verdict and pictures are the true ones
    p = random_bw_puzzle(seed, 6 + seed % 3, 6 + seed % 2, 0.35 + 0.05 * (seed % 5))
    every = _every_picture(p)
    res = solve(p, max_solutions=2)
    assert res.status == ("unique" if len(every) == 1 else "multiple")
    assert set(res.solutions) <= every
