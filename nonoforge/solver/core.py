"""The solver's entry point: checks, the choice of path, and the verdicts.

:func:`solve` turns a :class:`~nonoforge.puzzle.Puzzle` into flat arrays
(:class:`~nonoforge.solver.tables.Tables`) and runs the compiled engine through
:mod:`nonoforge.solver.driver`, in slices of deterministic work, looking at the clock only
between slices. The ``auto`` strategy hands a search that exceeds its node budget to the
SAT back-end (:mod:`nonoforge.solver.sat`).

Loading the compiled engine costs a process 0.5-1.6 s of CPU (importing numba, loading
the cached kernels). A small puzzle (up to 1024 cells) is solved by a plain-Python copy of
the engine's whole solve (:mod:`nonoforge.solver.plain`) before that is paid, and a larger
one that line logic settles by a copy of its root line logic
(:mod:`nonoforge.solver.quick`), each with the very same verdict, technique and effort
counts; any other puzzle, or one that needs more work than plain Python is worth, goes to
the engine. The engine modules, numpy and the
puzzle's arrays (:mod:`nonoforge.solver.tables`) are imported only then: a puzzle answered
in plain Python loads neither numpy nor numba (issue 39).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from nonoforge.errors import SolverError
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.results import Verdict
from nonoforge.solver import plain, quick
from nonoforge.solver.options import SAT_CONFLICT_WORK, SearchOptions, WorkCosts
from nonoforge.solver.result import (
    TECHNIQUES,
    FlatState,
    SolveResult,
    check_colours,
    verify_solution,
)
from nonoforge.solving import full_state, start_state

if TYPE_CHECKING:
    import numpy as np

    from nonoforge.solver.driver import Work
    from nonoforge.solver.sat import SatOutcome
    from nonoforge.solver.tables import Tables

#: Bump whenever a solve of the same puzzle could give a different result or effort.
SOLVER_VERSION = "1.5"  # 1.1: MiniSat back-end (SAT conflict counts differ); 1.2: b/w lines of
# 63-126 cells cached (line_solves become cache_hits), one-solution solves: probe records,
# LalaFrogKK branching, MiniSat GitHub build; 1.3: belief-propagation phase hints at every
# SAT hand-over, proofs by MiniSat's GitHub build too (SAT conflict counts differ); 1.4:
# parity summing (a rung that counts across lines: n-Dom without search; the effort of
# puzzles past line logic moves, and sum_lines/cells_by_sum are counted); 1.5: the phase hints
# stop once no cell's phase changed for phases.PATIENCE rounds (SAT conflict counts differ)

STRATEGIES = ("auto", "line", "probe", "search", "sat")
_STRAT_LEVEL = {"line": 0, "probe": 1, "search": 2, "auto": 2}

#: Search nodes the ``auto`` strategy spends before it asks the SAT back-end: this many
#: cell-nodes (divided by the puzzle's cells, at least AUTO_MIN_NODES). Past a few hundred
#: nodes clause learning wins by far (e.g. 0.03-0.3 s against tens of seconds).
AUTO_NODE_WORK = 30_000
AUTO_MIN_NODES = 50
#: The same when one solution is asked for (``max_solutions=1``, as tournaments ask): SAT
#: right after root probing. On the hard halves of TAAI 2011 and TCGA 2022 (450 puzzles)
#: that took 11-16 % less CPU than searching 50 nodes first: a search that fails to find a
#: solution in a few nodes rarely finds one before CDCL does (see docs/solver.md). Only
#: measured on 25x25 puzzles, so larger ones keep the usual budget.
AUTO_FIRST_NODES = 0
AUTO_FIRST_MAX_CELLS = 1024
#: How the engine searches (:class:`~nonoforge.solver.options.SearchOptions`) when one
#: solution is asked for (the tournament question: effort counts free to change) and when
#: two or more are (ratings, the generator, uniqueness: the difficulty model is fitted on
#: their effort counts, so changing these needs a refit). See docs/solver.md.
SEARCH_ONE = SearchOptions(incremental=True, score=4, order=0)
SEARCH_MANY = SearchOptions()


def _checked(puzzle: Puzzle, grids: list[Grid]) -> list[Grid]:
    """The grids, each verified against the clues and the givens (a failure here is a
    solver bug), each once."""
    for g in grids:
        verify_solution(puzzle, g)
    return _distinct(grids)


def _distinct(grids: list[Grid]) -> list[Grid]:
    """The grids without repeats, in order: for grids already verified where they were
    made (the engine's, as it collects them, and the SAT back-end's, as it decodes them),
    whose second check cost a hand-over as much as reading its model."""
    out: list[Grid] = []
    seen: set[Grid] = set()
    for g in grids:
        if g not in seen:
            seen.add(g)
            out.append(g)
    return out


def _solve_sat(
    puzzle: Puzzle, state: np.ndarray | None, max_solutions: int, deadline: float | None,
    conflict_budget: int | None, tables: Tables,
) -> SatOutcome:
    """The SAT back-end (imported on first use: it loads python-sat and compiled kernels)."""
    from nonoforge.solver.sat import solve_sat

    return solve_sat(puzzle, state=state, max_solutions=max_solutions, deadline=deadline,
                     conflict_budget=conflict_budget, tables=tables)


def engine_loaded() -> bool:
    """Whether this process has loaded the compiled engine (then it is used for all)."""
    return "nonoforge.solver.driver" in sys.modules


_loaded: set[str] = set()
#: What is being loaded now, by the thread that holds :data:`_LOADING`: its own solves
#: during the load go on (the lock is re-entrant); another thread (the studio's warmup
#: beside a request's solve) waits for the load to finish instead of importing numba at
#: the same time, which broke numba's circular imports half-way ("partially initialized
#: module") or ran a kernel not yet loaded.
_loading: set[str] = set()
_LOADING = threading.RLock()


def warmup() -> float:
    """Compile (or load from numba's cache) every kernel on a tiny puzzle; seconds spent.

    When numba's cache holds no kernel for these sources (the first run after an install),
    one line on stderr says that they are being compiled and how long that takes
    (:func:`~nonoforge.solver.kernel_cache.announce_if_cold`).

    :func:`solve` loads what a puzzle first needs (the engine's kernels; the SAT
    back-end's when a solve first reaches it: :func:`_load_engine`, :func:`_load_sat`),
    outside its per-puzzle time (``time_s``), and outside its timeout unless the caller
    passed ``started`` (then the timeout bounds the caller's whole wait, loading
    included). Batch jobs call this up front so that every puzzle is timed on the same
    engine.
    """
    return _load_engine() + _load_sat()


def _load_engine() -> float:
    """Load the engine's kernels (numba, its registries, ``engine.run``), once per
    process; seconds spent (0 when loaded). SciPy stays out of it
    (:func:`~nonoforge.solver.kernel_cache.without_scipy`)."""
    if "engine" in _loaded:
        return 0.0
    with _LOADING:
        if "engine" in _loaded or "engine" in _loading:
            return 0.0
        _loading.add("engine")
        t = _load_engine_now()
        _loaded.add("engine")
        return t


def _load_engine_now() -> float:
    t0 = time.perf_counter()
    from nonoforge.solver import kernel_cache

    with kernel_cache.without_scipy():
        from nonoforge.solver import engine

        kernel_cache.announce_if_cold(engine.run)  # a cold cache: a minute or more (issue 38)
        p = Puzzle.from_grid(Grid([[1, 0], [0, 1]]))
        for strategy in ("line", "search"):
            for record in (False, True):
                _solve(p, 2, None, strategy, None, record)
        q = Puzzle.from_grid(Grid([[1, 2], [2, 0]]))
        _solve(q, 2, None, "search", None, False)
    return time.perf_counter() - t0


def _load_sat() -> float:
    """Load the SAT back-end (python-sat, the CNF encoder's and the phase hints' kernels),
    once per process; seconds spent (0 when loaded). Only a solve that reaches SAT pays
    it (about 0.07 s of CPU from numba's cache): most puzzles never do."""
    if "sat" in _loaded:
        return 0.0
    with _LOADING:  # see _loading
        if "sat" in _loaded or "sat" in _loading:
            return 0.0
        t0 = time.perf_counter()
        _load_engine()
        _loading.add("sat")
        p = Puzzle.from_grid(Grid([[1, 0], [0, 1]]))
        _solve(p, 2, None, "sat", None, False)  # the SAT encoder's kernels
        _solve(p, 1, None, "sat", None, False)  # and the phase hints of one-solution hand-overs
        _loaded.add("sat")
        return time.perf_counter() - t0


def solve(
    puzzle: Puzzle,
    *,
    max_solutions: int = 2,
    timeout: float | None = None,
    strategy: str = "auto",
    node_budget: int | None = None,
    record_steps: bool = False,
    budget: int | None = None,
    started: float | None = None,
    costs: WorkCosts | None = None,
) -> SolveResult:
    """Solve ``puzzle``: find up to ``max_solutions`` solutions and say whether it is unique.

    ``strategy`` picks how far up the technique ladder to go: ``line`` (overlap and
    complete line logic), ``probe`` (adds probing), ``search`` (backtracking with probing at
    every node), ``sat`` (the SAT back-end alone) or ``auto`` (search, handing over to SAT
    after ``node_budget`` nodes, by default :func:`auto_node_budget`). ``timeout``
    (seconds) stops the solve within about one line solve of the deadline (a timer stops
    the compiled kernels from outside); ``node_budget`` bounds the search (``budget``
    status when it runs out, except in ``auto``, where it is the hand-over point).
    ``budget`` is a deterministic amount of work (the ``work`` effort count: engine work
    units plus :data:`SAT_CONFLICT_WORK` per SAT conflict): a solve that needs more is
    stopped just past it with status ``budget`` (never a verdict that was not proven),
    and a budget of at least the ``work`` an unlimited solve reports gives that solve.
    The same puzzle (and budget) gives the same status, technique and effort counts on
    every run and machine; only ``timeout`` depends on the clock. By default the timeout is
    the puzzle's: it counts from this call, and loading the compiled engine (compiling it,
    the first time after an install) is not counted. ``costs``
    (:class:`~nonoforge.solver.options.WorkCosts`) charges the ``budget`` otherwise per
    line solve and per conflict (the effort counts stay the solver's). Given ``started`` (a
    :func:`time.monotonic` value), it counts from there, loading included: a command that
    starts the clock when it starts (``solve --timeout``) gets its answer within the
    timeout, reading the file and all.

    >>> from nonoforge.puzzle import Grid, Puzzle
    >>> solve(Puzzle.from_grid(Grid.from_rows(["#.", "##"]))).status
    <Verdict.UNIQUE: 'unique'>
    """
    if strategy not in STRATEGIES:
        raise SolverError(f"unknown strategy {strategy!r} (choose from {', '.join(STRATEGIES)})")
    if max_solutions < 1:
        raise SolverError("max_solutions must be at least 1")
    if timeout is not None and timeout <= 0:
        raise SolverError("timeout must be positive")
    if node_budget is not None and node_budget < 0:
        raise SolverError("node_budget must be non-negative")
    if budget is not None and budget < 0:
        raise SolverError("budget must be non-negative")
    check_colours(puzzle)
    return _solve(puzzle, max_solutions, timeout, strategy, node_budget, record_steps, budget,
                  allow_quick=True, started=started, costs=costs)


def auto_node_budget(puzzle: Puzzle, max_solutions: int = 2) -> int:
    """The search nodes ``auto`` allows before handing over to SAT (by puzzle size, and
    :data:`AUTO_FIRST_NODES` when only one solution is asked for)."""
    if max_solutions == 1 and puzzle.width * puzzle.height <= AUTO_FIRST_MAX_CELLS:
        return AUTO_FIRST_NODES
    return max(AUTO_MIN_NODES, AUTO_NODE_WORK // (puzzle.width * puzzle.height))


def _solve(
    puzzle: Puzzle,
    max_solutions: int,
    timeout: float | None,
    strategy: str,
    node_budget: int | None,
    record_steps: bool,
    budget: int | None = None,
    allow_quick: bool = False,
    started: float | None = None,
    costs: WorkCosts | None = None,
) -> SolveResult:
    t0 = time.monotonic()
    deadline = None if timeout is None else (t0 if started is None else started) + timeout
    if allow_quick and not record_steps and strategy != "sat":
        done = _without_engine(puzzle, max_solutions, strategy, node_budget, budget, costs,
                               t0, deadline)
        if done is not None:
            return done
    # every path starts from the givens (cells printed solved), so "unique" is proven for
    # the puzzle as printed; None (the blank grid) when it has none, as it always was
    start = start_state(puzzle) if puzzle.givens else None
    if allow_quick:  # compile time (or loading from numba's cache) is not the puzzle's time
        if deadline is not None and not engine_loaded() and time.monotonic() >= deadline:
            # reading a huge file took the time: loading the engine would only overshoot
            return SolveResult(status=Verdict.TIMEOUT, solutions=[], technique=TECHNIQUES[0],
                               effort={"work": 0}, time_s=time.monotonic() - t0,
                               state=start_state(puzzle))
        t0, deadline = _after_loading(t0, deadline, started,
                                      _load_sat if strategy == "sat" else _load_engine)
    if strategy == "sat":
        if costs is not None and budget is not None:  # conflicts only: the same budget
            budget = budget * SAT_CONFLICT_WORK // costs.conflict
        return _solve_sat_only(puzzle, max_solutions, deadline, t0, budget, start)
    from nonoforge.solver import driver as D  # noqa: N812
    from nonoforge.solver import engine as E  # noqa: N812
    from nonoforge.solver.tables import Tables

    t = Tables.of(puzzle)
    w = D.Work(t, max_solutions, record_steps, SEARCH_ONE if max_solutions == 1 else SEARCH_MANY,
               start, branches=_STRAT_LEVEL[strategy] >= 2)
    use_sat = strategy == "auto"
    w.v[E.V_STRAT] = _STRAT_LEVEL[strategy]
    w.v[E.V_NODELIM] = _node_limit(puzzle, max_solutions, node_budget, use_sat)
    steps: list[np.ndarray] = []
    grids: list[Grid] = []
    rc, stop = D.drive(w, deadline, steps, puzzle, grids, budget, costs)
    if rc == E.RC_NODES and stop is None and use_sat and node_budget is None:
        from nonoforge.solver.sat import TooLarge

        effort = w.effort()
        if allow_quick:  # loading the SAT back-end is not the puzzle's time either
            t0, deadline = _after_loading(t0, deadline, started, _load_sat)
        try:
            status, grids = _sat_fallback(puzzle, w, grids, max_solutions, deadline, effort,
                                          budget, costs)
        except TooLarge:  # no CNF of this size: the search goes on where it stopped
            w.v[E.V_NODELIM] = -1
            rc, stop = D.drive(w, deadline, steps, puzzle, grids, budget, costs)
        else:
            return SolveResult(status=status, solutions=grids, technique="search",
                               effort=effort, time_s=time.monotonic() - t0,
                               state=w.root_state(), steps=steps)
    if record_steps:
        w.drain_steps(steps)
    return SolveResult(
        status=_engine_status(w, rc, stop, grids, max_solutions),
        solutions=grids,
        technique=TECHNIQUES[int(w.v[E.V_TECH])],
        effort=w.effort(),
        time_s=time.monotonic() - t0,
        state=w.root_state(),
        steps=steps,
    )



def _quick(puzzle: Puzzle, max_solutions: int, budget: int | None, costs: WorkCosts | None,
           t0: float) -> SolveResult | None:
    """The plain-Python root line logic's result when it decides the puzzle, else None:
    the engine must run. Only while the engine is not loaded (then it is as quick), and
    only with the costs that count a line solve at 1 (as the plain-Python path does)."""
    quick_ok = costs is None or costs.line == 1  # it counts line solves at 1
    if not quick_ok or engine_loaded():
        return None
    q = quick.solve_by_lines(puzzle, max_solutions, budget)
    if q is None:
        return None
    return SolveResult(
        status=Verdict(q.status), solutions=_checked(puzzle, q.solutions),
        technique=q.technique, effort=q.effort, time_s=time.monotonic() - t0,
        state=FlatState(q.state, puzzle.height, puzzle.width),
    )


def _without_engine(puzzle: Puzzle, max_solutions: int, strategy: str,
                    node_budget: int | None, budget: int | None, costs: WorkCosts | None,
                    t0: float, deadline: float | None) -> SolveResult | None:
    """The answer in plain Python when one of its paths gives it: the engine's whole solve
    for a small puzzle (:func:`_plain`, until the process has spent its share there),
    else the root line logic (:func:`_quick`); None: the engine must run."""
    if plain.takes(puzzle) and plain.worth_it():
        return _plain(puzzle, max_solutions, strategy, node_budget, budget, costs, t0,
                      deadline)
    return _quick(puzzle, max_solutions, budget, costs, t0)


def _plain(puzzle: Puzzle, max_solutions: int, strategy: str, node_budget: int | None,
           budget: int | None, costs: WorkCosts | None, t0: float,
           deadline: float | None) -> SolveResult | None:
    """The engine's whole solve of a small colour puzzle in plain Python
    (:mod:`nonoforge.solver.plain`), when the engine is not loaded: the same verdict,
    technique, effort and state. None when it gives up (more work than it is worth, or
    where the engine would hand the search over to SAT): the engine solves it then."""
    if (costs is not None and costs.line != 1) or engine_loaded():
        return None
    use_sat = strategy == "auto"
    how = SEARCH_ONE if max_solutions == 1 else SEARCH_MANY
    out = plain.solve_plain(puzzle, plain.PlainOptions(
        max_solutions=max_solutions, strategy_level=_STRAT_LEVEL[strategy],
        node_limit=_node_limit(puzzle, max_solutions, node_budget, use_sat),
        score=how.score, order=how.order, incremental=how.incremental, budget=budget,
        deadline=deadline))
    if out is None:
        return None
    if out.rc == plain.RC_NODES and out.stop is None and use_sat and node_budget is None:
        return None  # the SAT hand-over: the engine's (and SAT's) job
    grids = _checked(puzzle, out.solutions)
    if out.stop is not None:
        status = Verdict(out.stop)
    else:
        status = _status(out.rc, len(grids), max_solutions,
                         out.max_depth == 0 and out.undecided == 0)
    return SolveResult(
        status=status, solutions=grids, technique=out.technique, effort=out.effort,
        time_s=time.monotonic() - t0, state=FlatState(out.state, puzzle.height, puzzle.width),
    )


def _after_loading(t0: float, deadline: float | None, started: float | None,
                   load: Callable[[], float]) -> tuple[float, float | None]:
    """Load what the solve needs next (``load``: :func:`_load_engine` or :func:`_load_sat`,
    compiling it or loading it from numba's cache) and return the solve's start and
    deadline with the loading time left out where it is not the puzzle's."""
    loading = load()
    t0 += loading
    if started is None and deadline is not None:
        # a library call's timeout is the puzzle's: compiling (first run after an
        # install) cannot be interrupted and must not turn a solve into an early
        # timeout; a command that passes ``started`` has its loading counted (issue 14)
        deadline += loading
    return t0, deadline


def _node_limit(puzzle: Puzzle, max_solutions: int, node_budget: int | None,
                use_sat: bool) -> int:
    """The engine's node limit: the node budget given, else the automatic one when SAT
    takes over past it, else none (-1)."""
    if node_budget is not None:
        return node_budget
    if use_sat:
        return auto_node_budget(puzzle, max_solutions)
    return -1


def _engine_status(
    w: Work, rc: int, stop: str | None, grids: list[Grid], max_solutions: int
) -> Verdict:
    """The verdict from how the engine stopped: "unique" only with a proof of it."""
    from nonoforge.solver import engine as E  # noqa: N812

    if stop is not None:
        return Verdict(stop)
    proven_by_logic = int(w.v[E.V_MAXDEPTH]) == 0 and int(w.v[E.V_UNDEC]) == 0
    return _status(rc, len(grids), max_solutions, proven_by_logic)


def _status(rc: int, n: int, max_solutions: int, proven_by_logic: bool) -> Verdict:
    """The verdict from the engine's return code (its ``RC_*``, which
    :mod:`nonoforge.solver.plain` copies) with ``n`` solutions found; ``proven_by_logic``:
    no search ran and every cell is decided."""
    if rc == plain.RC_DONE:
        return (Verdict.NONE, Verdict.UNIQUE)[n] if n < 2 else Verdict.MULTIPLE
    if rc == plain.RC_SOLS:
        # one solution asked for: unique only when logic alone forced it; found by search,
        # it is just found (no second one was sought)
        if max_solutions >= 2:
            return Verdict.MULTIPLE
        return Verdict.UNIQUE if proven_by_logic else Verdict.FOUND
    if rc == plain.RC_LIMIT:  # a limited strategy (line, probe) stopped with cells undecided
        return Verdict.UNSOLVED
    if rc == plain.RC_NODES:
        return Verdict.BUDGET
    raise SolverError(f"internal error: engine returned {rc}")  # pragma: no cover


def _sat_fallback(
    puzzle: Puzzle,
    w: Work,
    grids: list[Grid],
    max_solutions: int,
    deadline: float | None,
    effort: dict[str, int],
    budget: int | None = None,
    costs: WorkCosts | None = None,
) -> tuple[Verdict, list[Grid]]:
    """Finish an over-budget search with SAT, starting from the root's logic state.

    With a work ``budget``, what the search left of it is SAT's conflict budget (at
    ``costs``, when given).
    """
    c = costs or WorkCosts()
    conflicts = None if budget is None else (budget - c.charged(effort)) // c.conflict
    if conflicts is not None and conflicts < 0:
        return Verdict.BUDGET, _distinct(grids)[:max_solutions]
    out = _solve_sat(puzzle, w.root_state(), max_solutions, deadline, conflicts, w.t)
    effort["sat_conflicts"] = int(out.conflicts)
    effort["sat_decisions"] = int(out.decisions)
    effort["work"] += SAT_CONFLICT_WORK * int(out.conflicts)
    found = _distinct([*grids, *out.solutions])[:max_solutions]
    return _sat_status(out.status, found, max_solutions), found


def _sat_status(status: str, found: list[Grid], max_solutions: int) -> Verdict:
    """Our verdict from the SAT back-end's: "unique" only with a proof of it."""
    if len(found) >= 2:
        return Verdict.MULTIPLE
    if status == Verdict.NONE and found:
        raise SolverError("internal error: SAT found no solution where search found one")
    if status == Verdict.UNIQUE and max_solutions < 2:
        return Verdict.FOUND  # asked for one solution: found, but no second one was sought
    return Verdict(status)


def _solve_sat_only(
    puzzle: Puzzle, max_solutions: int, deadline: float | None, t0: float,
    budget: int | None = None, start: np.ndarray | None = None,
) -> SolveResult:
    import numpy as np

    from nonoforge.solver.tables import Tables

    conflicts = None if budget is None else budget // SAT_CONFLICT_WORK
    out = _solve_sat(puzzle, start, max_solutions, deadline, conflicts, Tables.of(puzzle))
    grids = _distinct(list(out.solutions)[:max_solutions])
    if Verdict(out.status) is Verdict.UNIQUE and grids:
        state = (np.uint64(1) << grids[0].cells.astype(np.uint64)).astype(np.uint64)
    elif start is not None:
        state = start
    else:
        state = full_state(puzzle.height, puzzle.width, puzzle.ncolors)
    return SolveResult(
        status=_sat_status(out.status, grids, max_solutions),
        solutions=grids,
        technique="search",
        effort={
            "work": SAT_CONFLICT_WORK * int(out.conflicts),
            "sat_conflicts": int(out.conflicts),
            "sat_decisions": int(out.decisions),
        },
        time_s=time.monotonic() - t0,
        state=state,
    )
