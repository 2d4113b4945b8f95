"""The engine's whole solve in plain Python, for small puzzles (issue 39's start-up).

It must give exactly what the compiled engine gives -- verdict, solutions, technique, root
state and every effort count -- for every strategy, number of solutions and work budget,
so the process a puzzle lands in never shows.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    ROOT,
    bench_module,
    fresh_python,
    random_bw_puzzle,
    shared_path,
    tournament_set,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from test_solver_quick import _modules_after, colour_contradiction, random_colour_puzzle

from nonoforge.formats import read_file, write_file
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.results import Verdict
from nonoforge.solver import core, plain
from nonoforge.solver.result import SolveResult


def _engine(p: Puzzle, ms: int, budget: int | None, strategy: str = "auto",
            node_budget: int | None = None) -> SolveResult:
    return core._solve(p, ms, None, strategy, node_budget, False, budget)


def _plain(p: Puzzle, ms: int, budget: int | None, strategy: str = "auto",
           node_budget: int | None = None, deadline: float | None = None) -> SolveResult | None:
    """The plain path's answer (as ``core`` gives it), or None where it hands over. This
    process has the engine loaded (the engine's answers are compared), so the check that
    keeps a loaded engine for every solve is bypassed here, and only here."""
    loaded = core.engine_loaded
    core.engine_loaded = lambda: False  # type: ignore[assignment]
    try:
        return core._plain(p, ms, strategy, node_budget, budget, None, time.monotonic(),
                           deadline)
    finally:
        core.engine_loaded = loaded  # type: ignore[assignment]


def _answer(r: SolveResult) -> tuple[object, ...]:
    return (r.status, r.technique, r.effort, r.solutions, r.state.tolist())


def _same_as_engine(p: Puzzle, ms: int, budget: int | None, strategy: str = "auto",
                    node_budget: int | None = None) -> SolveResult | None:
    """The plain answer, after checking it is the engine's field by field (None: it
    handed the puzzle over)."""
    q = _plain(p, ms, budget, strategy, node_budget)
    if q is not None:
        assert _answer(q) == _answer(_engine(p, ms, budget, strategy, node_budget))
    return q


def test_the_engine_constants_it_copies() -> None:
    from nonoforge.solver import engine as E  # noqa: N812

    for name in ("RC_PAUSED", "RC_DONE", "RC_LIMIT", "RC_NODES", "RC_SOLS", "RC_STOPPED",
                 "PH_INIT", "PH_PROP", "PH_PROBE", "PH_DECIDE", "PH_BACK", "PH_DONE",
                 "T_LINE", "T_PROBE", "T_SEARCH"):
        assert getattr(plain, name) == getattr(E, name), name


@pytest.mark.parametrize("seed", range(24))
def test_random_colour_puzzles_match_the_engine(seed: int) -> None:
    rng = np.random.default_rng(2000 + seed)
    h, w = (int(x) for x in rng.integers(2, 26, size=2))
    p = random_colour_puzzle(2000 + seed, h, w, 2 + seed % 4, (0.6, 0.75, 0.85, 0.95)[seed % 4])
    answered = 0
    for ms in (1, 2, 3):
        for strategy in ("auto", "line", "probe", "search"):
            for budget in (None, 0, 37, 400):
                answered += _same_as_engine(p, ms, budget, strategy) is not None
    assert answered >= 36  # auto with one solution may hand over to SAT


def test_budgets_stop_at_the_engines_count() -> None:
    """A work budget stops both at the same unit of work, every budget from 0 past the
    whole solve's work: the status, technique and counts agree at each."""
    p = next(q for seed in range(100)
             if (q := random_colour_puzzle(seed, 12, 12, 3, 0.8)) is not None
             and _engine(q, 2, None).technique == "probe")
    free = _engine(p, 2, None)
    whole = free.effort["work"]
    statuses = set()
    for budget in [*range(0, whole, max(1, whole // 60)), whole]:
        q = _same_as_engine(p, 2, budget)
        assert q is not None
        statuses.add(q.status)
    assert statuses == {Verdict.BUDGET, free.status}
    assert q.effort == free.effort  # a budget of the whole solve's work gives that solve


def _needs_search() -> Puzzle:
    """A random 8x8 picture in 3 colours that logic does not settle: searched, several
    solutions (found among the seeds once; the test checks it still is)."""
    return random_colour_puzzle(136, 8, 8, 3, 0.5)


def test_search_and_node_budgets_match_the_engine() -> None:
    p = _needs_search()
    for ms in (1, 2, 5):
        for nodes in (None, 0, 1, 3):
            for strategy in ("search", "probe"):
                _same_as_engine(p, ms, None, strategy, nodes)
        for budget in (None, 50, 800):
            _same_as_engine(p, ms, budget, "search")
    q = _same_as_engine(p, 5, None, "search")
    assert q is not None and q.status is Verdict.MULTIPLE and q.technique == "search"
    assert q.effort["nodes"] > 0 and q.effort["backtracks"] > 0 and len(q.solutions) >= 2
    assert _same_as_engine(p, 2, None, "search", 0).status is Verdict.BUDGET  # type: ignore[union-attr]


def test_hands_the_sat_hand_over_to_the_engine() -> None:
    """``auto`` goes to SAT past its node budget (with one solution asked for, right after
    root probing): that is the engine's (and SAT's) job, with its answer then."""
    p = _needs_search()
    assert _plain(p, 1, None) is None
    assert core.solve(p, max_solutions=1).status is Verdict.FOUND


def test_gives_up_past_its_work_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    p = random_colour_puzzle(3, 20, 20, 4, 0.8)
    assert _plain(p, 2, None) is not None
    monkeypatch.setattr(plain, "PLAIN_MAX_OPS", 1000)
    assert _plain(p, 2, None) is None  # the engine solves it from the start
    assert core.solve(p).status is _engine(p, 2, None).status


def test_takes_only_small_puzzles() -> None:
    big = random_colour_puzzle(1, 33, 32, 3, 0.8)
    assert not plain.takes(big) and plain.takes(random_colour_puzzle(1, 32, 32, 3, 0.8))
    assert plain.takes(random_bw_puzzle(1, 16, 62, 0.6))
    assert not plain.takes(random_bw_puzzle(1, 8, 63, 0.6))  # the engine's two-word lines


@pytest.mark.parametrize("seed", range(16))
def test_random_bw_puzzles_match_the_engine(seed: int) -> None:
    """Black and white: the line cache (hits counted as the engine counts them) and
    parity summing too."""
    rng = np.random.default_rng(3000 + seed)
    h, w = (int(x) for x in rng.integers(2, 26, size=2))
    p = random_bw_puzzle(3000 + seed, h, w, (0.45, 0.55, 0.65, 0.8)[seed % 4])
    for ms in (1, 2):
        for strategy in ("auto", "line", "probe", "search"):
            for budget in (None, 0, 45, 500):
                _same_as_engine(p, ms, budget, strategy)


def test_edge_uses_the_cache_and_parity_summing_as_the_engine_does() -> None:
    edge = read_file(ROOT / "nonoforge" / "examples" / "puzzles" / "edge.non")[0]
    for ms in (1, 2):
        q = _same_as_engine(edge, ms, None)
        assert q is not None and q.status is Verdict.UNIQUE and q.technique == "probe"
        assert q.effort["sum_lines"] > 0
    q = _same_as_engine(read_file(shared_path("corpora", "survey-free", "webpbn-00027.non"))[0],
                        2, None)
    assert q is not None and q.effort["cache_hits"] > 0


def _corpus(*parts: str, pattern: str = "*") -> list[Puzzle]:
    from nonoforge.errors import NonoforgeError

    out = []
    for f in sorted(x for x in shared_path("corpora", *parts).rglob(pattern) if x.is_file()):
        try:
            out += [p for p in read_file(f) if plain.takes(p)]
        except NonoforgeError:
            continue
    return out


def test_survey_puzzles_match_the_engine() -> None:
    ps = _corpus("survey-free", pattern="*.non")
    assert len(ps) >= 5
    for p in ps:
        for ms in (1, 2):
            for budget in (None, 300):
                _same_as_engine(p, ms, budget)


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["jwilk-nin", "mikix-db"])
def test_corpus_puzzles_match_the_engine(corpus: str) -> None:
    answered = 0
    for p in _corpus(corpus):
        for ms in (1, 2):
            for strategy in ("auto", "probe"):
                answered += _same_as_engine(p, ms, None, strategy) is not None
    assert answered >= 20


@pytest.mark.slow
def test_tournament_puzzles_match_the_engine() -> None:
    """The first puzzles of three tournament sets (25x25, many need search)."""
    answered = 0
    for name in ("taai2011", "tcga2016", "taai2018"):
        for p in tournament_set(name)[:15]:
            for ms in (1, 2):
                answered += _same_as_engine(p, ms, None) is not None
    assert answered >= 30


def test_colour_contradictions_match_the_engine() -> None:
    nones = 0
    for seed in range(30):
        p = colour_contradiction(700 + seed)
        if p is None:
            continue
        for strategy in ("auto", "search", "probe"):
            for budget in (None, 0, 10**9):
                q = _same_as_engine(p, 2, budget, strategy)
                nones += q is not None and q.status is Verdict.NONE
    assert nones > 10


def test_colour_samples_and_givens_match_the_engine(data_dir: Path) -> None:
    """The colour files in tests/data (flags, Olšák's format, izaron's .pzl, givens), and
    random pictures with givens (right and wrong)."""
    for name in ("flags.nonpack", "flag.g", "flower.pzl", "givens.nonpack"):
        for p in read_file(data_dir / name):
            for ms in (1, 2):
                for budget in (None, 0, 10**9):
                    _same_as_engine(p, ms, budget, "search")
    for seed in range(10):
        p = random_colour_puzzle(900 + seed, 9, 11, 3, 0.7)
        assert p.goal is not None
        cells = p.goal.cells
        given = p.replace(givens=[(2, 3, int(cells[2, 3])), (5, 7, int(cells[5, 7]))])
        assert _same_as_engine(given, 2, None).status is Verdict.UNIQUE  # type: ignore[union-attr]
        wrong = (int(cells[4, 4]) + 1) % 4
        try:
            bad = p.replace(goal=None, givens=[(4, 4, wrong)])
        except Exception:  # a colour the clues cannot put there: the model refuses it
            continue
        _same_as_engine(bad, 2, None)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 9), st.integers(2, 9), st.integers(1, 4), st.data())
def test_any_small_picture_matches_the_engine(h: int, w: int, ncol: int,
                                              data: st.DataObject) -> None:
    """Black and white (``ncol`` 1) and colour."""
    cells = data.draw(st.lists(st.integers(0, ncol), min_size=h * w, max_size=h * w))
    grid = np.array(cells, dtype=np.uint8).reshape(h, w)
    grid[0, 0] = 1
    grid[-1, -1] = ncol  # every colour in the palette is used
    p = Puzzle.from_grid(Grid(grid))
    ms = data.draw(st.integers(1, 3))
    strategy = data.draw(st.sampled_from(["auto", "probe", "search"]))
    budget = data.draw(st.one_of(st.none(), st.integers(0, 300)))
    q = _same_as_engine(p, ms, budget, strategy)
    if q is not None and q.status in (Verdict.UNIQUE, Verdict.MULTIPLE, Verdict.FOUND):
        assert p.goal in q.solutions or q.status is not Verdict.UNIQUE


def test_the_startup_bench_files_match_the_engine() -> None:
    """The first of the startup bench's small colour files (all of them: the slow test
    below), every one answered here and as the engine answers it."""
    for p in bench_module("startup").small_colour_puzzles(20):
        for ms in (1, 2):
            q = _same_as_engine(p, ms, None)
            assert q is not None or ms == 1


@pytest.mark.slow
def test_every_startup_bench_file_matches_the_engine() -> None:
    probing = 0
    for p in bench_module("startup").small_colour_puzzles(100):
        for ms in (1, 2):
            for strategy in ("auto", "search"):
                q = _same_as_engine(p, ms, None, strategy)
                assert q is not None or (ms, strategy) == (1, "auto")
                probing += q is not None and q.technique in ("probe", "search")
    assert probing >= 20


def test_a_deadline_never_cuts_early() -> None:
    """A generous deadline changes nothing (what a deadline cuts off is the clock's)."""
    p = random_colour_puzzle(5, 18, 18, 4, 0.8)
    q = _plain(p, 2, None, deadline=time.monotonic() + 600)
    assert q is not None and _answer(q) == _answer(_engine(p, 2, None))


def test_a_passed_deadline_still_gets_the_first_slice() -> None:
    """As the driver runs a small puzzle's first slice before it looks at the clock, a
    puzzle that needs less work is answered even past its deadline."""
    p = random_colour_puzzle(5, 12, 12, 3, 0.8)
    q = _plain(p, 2, None, deadline=time.monotonic() - 1)
    assert q is not None and q.effort["work"] < plain.FIRST_SLICE
    assert _answer(q) == _answer(_engine(p, 2, None))


def test_solving_a_colour_file_that_needs_probing_never_imports_numba(tmp_path: Path) -> None:
    p = next(q for q in bench_module("startup").small_colour_puzzles(30)
             if _engine(q, 2, None).technique == "probe")
    f = tmp_path / "probing.non"
    write_file(p, f)
    mods = _modules_after(["solve", str(f)])
    assert "nonoforge.cli" in mods
    assert "numba" not in mods and "numpy" not in mods
    assert "nonoforge.solver.engine" not in mods


def test_a_process_that_spent_its_plain_work_loads_the_engine() -> None:
    """Past PROCESS_MAX_OPS a process solves with the engine (a batch pays its loading
    once), with the same answer. A fresh interpreter: this one has the engine loaded."""

    edge = ROOT / "nonoforge" / "examples" / "puzzles" / "edge.non"
    code = (
        "import sys\n"
        "from nonoforge.formats import read_file\n"
        "from nonoforge.solver import plain, solve\n"
        f"p = read_file({str(edge)!r})[0]\n"
        "a = solve(p)\n"
        "print('numba' in sys.modules, plain.spent > 0)\n"
        "plain.spent = plain.PROCESS_MAX_OPS\n"
        "b = solve(p)\n"
        "print('numba' in sys.modules, (a.status, a.technique, a.effort, a.solutions)"
        " == (b.status, b.technique, b.effort, b.solutions))\n"
    )
    r = fresh_python(code, cwd=ROOT, timeout=600)
    assert r.stdout.split("\n")[:2] == ["False True", "True True"]
