"""The Python side of the solver: set-up, the time-sliced driving loop, and the results.

:func:`solve` turns a :class:`~nonoforge.puzzle.Puzzle` into flat arrays
(:class:`Tables`), allocates the engine's working memory (:class:`Work`) and calls the
compiled :func:`~nonoforge.solver.engine.run` in slices of deterministic work, looking at
the clock only between slices. The ``auto`` strategy hands a search that exceeds its node
budget to the SAT back-end (:mod:`nonoforge.solver.sat`) when that is available.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from nonoforge.errors import SolverError
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import engine as E  # noqa: N812
from nonoforge.solver.line import BITS, MAX_COLORS
from nonoforge.solver.result import TECHNIQUES, SolveResult
from nonoforge.solving import mask_colours

#: Bump whenever a solve of the same puzzle could give a different result or effort.
SOLVER_VERSION = "1.1"  # 1.1: MiniSat back-end (SAT conflict counts differ)

STRATEGIES = ("auto", "line", "probe", "search", "sat")
_STRAT_LEVEL = {"line": 0, "probe": 1, "search": 2, "auto": 2}

#: Search nodes the ``auto`` strategy spends before it asks the SAT back-end: this many
#: cell-nodes (divided by the puzzle's cells, at least AUTO_MIN_NODES). Past a few hundred
#: nodes clause learning wins by far (e.g. 0.03-0.3 s against tens of seconds).
AUTO_NODE_WORK = 30_000
AUTO_MIN_NODES = 50
#: How a probed cell is scored as a branching candidate (engine knob): 0 the fewest cells
#: a branch settles, 1 their sum, 2 their product, 3 fewest then most. The fewest measured
#: best over uniqueness proofs and tournament puzzles together (see docs/solver.md).
BRANCH_SCORE = 0
#: Which colour of the branching cell is tried first: 0 lowest index, 1 the branch that
#: settles the fewest cells (least constrained: most likely to hold a solution), 2 the most.
BRANCH_ORDER = 1
#: Line-cache slots per line of the puzzle (rounded to a power of two, 64 .. 65536).
CACHE_SLOTS_PER_LINE = 256
#: Work per slice (line solves) when no deadline needs watching.
_FREE_SLICE = 500_000
#: What one CDCL conflict of the SAT back-end costs in work units (the ``budget`` of
#: :func:`solve` and the ``work`` effort count). Engine units are line requests (solved or
#: answered by the cache) plus solution bookkeeping; measured on the tournament and survey
#: puzzles a conflict costs about as much time as this many of them (see docs/solver.md).
SAT_CONFLICT_WORK = 200


@dataclass(frozen=True)
class Tables:
    """A puzzle as the flat arrays the compiled engine reads (see :mod:`engine`)."""

    height: int
    width: int
    ncolors: int
    lines: np.ndarray
    blen: np.ndarray
    bcol: np.ndarray
    full: np.uint64
    max_blocks: int

    @classmethod
    def of(cls, puzzle: Puzzle) -> Tables:
        if puzzle.ncolors > MAX_COLORS:
            raise SolverError(
                f"the solver handles at most {MAX_COLORS} colours, this puzzle has "
                f"{puzzle.ncolors}"
            )
        h, w = puzzle.height, puzzle.width
        lines = np.zeros((h + w, 5), dtype=np.int64)
        blen: list[int] = []
        bcol: list[int] = []
        for i, clue in enumerate(puzzle.rows):
            lines[i] = (i * w, 1, w, len(blen), len(clue))
            blen += [b.length for b in clue]
            bcol += [b.color for b in clue]
        for j, clue in enumerate(puzzle.columns):
            lines[h + j] = (j, w, h, len(blen), len(clue))
            blen += [b.length for b in clue]
            bcol += [b.color for b in clue]
        blen.append(0)  # never read: keeps the arrays non-empty for empty puzzles
        bcol.append(0)
        full = np.uint64((1 << (puzzle.ncolors + 1)) - 1)
        return cls(
            h, w, puzzle.ncolors, lines,
            np.array(blen, dtype=np.int64), np.array(bcol, dtype=np.int64),
            full, int(lines[:, 4].max()),
        )


class Work:
    """The engine's working memory for one solve (the whole resumable state)."""

    def __init__(self, t: Tables, max_solutions: int, record_steps: bool) -> None:
        h, w = t.height, t.width
        ncell, nl, maxn = h * w, h + w, max(h, w)
        self.t = t
        self.cur = np.zeros(ncell, dtype=np.uint64)
        cap = min(ncell, 64)
        self.stack = np.zeros((cap, ncell), dtype=np.uint64)
        self.bcell = np.zeros(cap, dtype=np.int64)
        self.brem = np.zeros(cap, dtype=np.uint64)
        self.sched = np.zeros((nl + 1, 4), dtype=np.int64)
        self.sched[:nl, 0] = -1
        self.v = np.zeros(E.NV, dtype=np.int64)
        size = (t.max_blocks + 1) * (maxn + 2)
        self.F = np.zeros(size, dtype=np.uint8)
        self.B = np.zeros(size, dtype=np.uint8)
        self.run_ = np.zeros(maxn + 1, dtype=np.int64)
        self.sc = np.zeros(3 * (t.max_blocks + 1) + 128, dtype=np.uint64)
        # line cache (black and white): 5 words a slot, a power of two of slots
        slots = 1 << int(np.clip(np.ceil(np.log2(nl * CACHE_SLOTS_PER_LINE)), 6, 16))
        self.cache = np.zeros(slots * 5 if t.ncolors == 1 else 5, dtype=np.uint64)
        self.lm = np.zeros(maxn, dtype=np.uint64)
        self.out = np.zeros(maxn, dtype=np.uint64)
        self.trail = np.zeros(ncell + 1, dtype=np.int64)
        self.trold = np.zeros(ncell + 1, dtype=np.uint64)
        self.stamp = np.zeros(ncell, dtype=np.int64)
        self.hcnt = np.zeros(ncell, dtype=np.int64)
        self.hacc = np.zeros(ncell, dtype=np.uint64)
        self.hstamp = np.zeros(ncell, dtype=np.int64)
        self.touched = np.zeros(ncell, dtype=np.int64)
        self.sols = np.zeros((min(max_solutions, 16), ncell + 1), dtype=np.uint64)
        nsteps = max(16, min(2048, 32_000_000 // (8 * ncell))) if record_steps else 1
        self.steps = np.zeros((nsteps, ncell), dtype=np.uint64)
        self.v[E.V_MAXSOL] = max_solutions
        self.v[E.V_NCOL] = t.ncolors
        self.v[E.V_RECORD] = 1 if record_steps else 0
        self.v[E.V_BEST] = -1
        self.v[E.V_HEUR] = BRANCH_SCORE
        self.v[E.V_ORDER] = BRANCH_ORDER

    def grow_stack(self) -> None:
        """Double the search stack (the engine asks when a branch would overflow it)."""
        cap = self.stack.shape[0]
        stack = np.zeros((cap * 2, self.stack.shape[1]), dtype=np.uint64)
        stack[:cap] = self.stack
        bcell = np.zeros(cap * 2, dtype=np.int64)
        bcell[:cap] = self.bcell
        brem = np.zeros(cap * 2, dtype=np.uint64)
        brem[:cap] = self.brem
        self.stack, self.bcell, self.brem = stack, bcell, brem

    def work(self) -> int:
        """Work done so far, in the units of the engine's slices."""
        v = self.v
        return int(v[E.V_LINES] + v[E.V_CACHEHIT] + v[E.V_WORK])

    def grow_sols(self) -> None:
        """More room for solutions (up to max_solutions; the engine asks before it fills)."""
        cap = self.sols.shape[0]
        new = min(int(self.v[E.V_MAXSOL]), cap * 2 + 64)
        sols = np.zeros((new, self.sols.shape[1]), dtype=np.uint64)
        sols[:cap] = self.sols
        self.sols = sols

    def run(self, work_limit: int) -> int:
        t = self.t
        return int(E.run(
            self.cur, self.stack, self.bcell, self.brem, t.height, t.width, t.lines, t.blen,
            t.bcol, BITS, t.full, self.sched, self.v, self.F, self.B, self.run_, self.sc,
            self.cache, self.lm, self.out, self.trail, self.trold, self.stamp, self.steps,
            self.hcnt, self.hacc, self.hstamp, self.touched, self.sols, work_limit,
        ))

    def drain_steps(self, into: list[np.ndarray]) -> None:
        n = int(self.v[E.V_NSTEPS])
        shape = (self.t.height, self.t.width)
        into.extend(self.steps[i].reshape(shape).copy() for i in range(n))
        self.v[E.V_NSTEPS] = 0

    def root_state(self) -> np.ndarray:
        """Where logic stopped at the root: the state before the first guess."""
        src = self.stack[0] if self.v[E.V_MAXDEPTH] > 0 else self.cur
        return src.reshape(self.t.height, self.t.width).copy()

    def effort(self) -> dict[str, int]:
        v = self.v
        return {
            "line_solves": int(v[E.V_LINES]),
            "cache_hits": int(v[E.V_CACHEHIT]),
            "trivial_lines": int(v[E.V_TRIVIAL]),
            "overlap_lines": int(v[E.V_OVERLAP]),
            "sweeps": int(v[E.V_SWEEPS]),
            "cells_by_line": int(v[E.V_LINECHG]),
            "probes": int(v[E.V_PROBES]),
            "probe_assumptions": int(v[E.V_PBRANCH]),
            "probe_contradictions": int(v[E.V_PCONTRA]),
            "cells_by_probe": int(v[E.V_PROBECHG]),
            "nodes": int(v[E.V_NODES]),
            "backtracks": int(v[E.V_BACKTRACKS]),
            "max_depth": int(v[E.V_MAXDEPTH]),
            "work": self.work(),
        }


def state_to_grid(state: np.ndarray, ncolors: int) -> Grid:
    """A fully decided state (one bit a cell) as a picture of colour indices."""
    return Grid(mask_colours(state, 0).astype(np.uint8))


def _checked(puzzle: Puzzle, grids: list[Grid]) -> list[Grid]:
    """The grids, each verified against the clues (a failure here is a solver bug)."""
    out: list[Grid] = []
    seen: set[Grid] = set()
    for g in grids:
        if not g.matches(puzzle):
            raise SolverError("internal error: the solver produced a grid that breaks a clue")
        if g not in seen:
            seen.add(g)
            out.append(g)
    return out


def _sat_backend() -> Callable[..., Any] | None:
    """The SAT back-end's ``solve_sat``, or None while it is unavailable."""
    try:
        from nonoforge.solver.sat import solve_sat
    except Exception:  # noqa: BLE001 - a missing or half-written back-end is not fatal
        return None
    return solve_sat


_compiled = False


def warmup() -> float:
    """Compile (or load from numba's cache) every kernel on a tiny puzzle; seconds spent.

    :func:`solve` calls this once before its clock starts, so compile time never counts
    against a timeout or a per-puzzle time.
    """
    global _compiled
    if _compiled:
        return 0.0
    t0 = time.perf_counter()
    _compiled = True
    p = Puzzle.from_grid(Grid([[1, 0], [0, 1]]))
    for strategy in ("line", "search"):
        for record in (False, True):
            _solve(p, 2, None, strategy, None, record)
    q = Puzzle.from_grid(Grid([[1, 2], [2, 0]]))
    _solve(q, 2, None, "search", None, False)
    if _sat_backend() is not None:  # the SAT encoder's kernels
        _solve(p, 2, None, "sat", None, False)
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
) -> SolveResult:
    """Solve ``puzzle``: find up to ``max_solutions`` solutions and say whether it is unique.

    ``strategy`` picks how far up the technique ladder to go: ``line`` (overlap and
    complete line logic), ``probe`` (adds probing), ``search`` (backtracking with probing at
    every node), ``sat`` (the SAT back-end alone) or ``auto`` (search, handing over to SAT
    after ``node_budget`` nodes, by default :func:`auto_node_budget`, when SAT is
    available). ``timeout``
    (seconds) is honoured within about 10 %; ``node_budget`` bounds the search (``budget``
    status when it runs out, except in ``auto``, where it is the hand-over point).
    ``budget`` is a deterministic amount of work (the ``work`` effort count: engine work
    units plus :data:`SAT_CONFLICT_WORK` per SAT conflict): a solve that needs more is
    stopped just past it with status ``budget`` (never a verdict that was not proven),
    and a budget of at least the ``work`` an unlimited solve reports gives that solve.
    The same puzzle (and budget) gives the same status, technique and effort counts on
    every run and machine; only ``timeout`` depends on the clock.

    >>> from nonoforge.puzzle import Grid, Puzzle
    >>> solve(Puzzle.from_grid(Grid.from_rows(["#.", "##"]))).status
    'unique'
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
    if puzzle.ncolors > MAX_COLORS:
        raise SolverError(
            f"the solver handles at most {MAX_COLORS} colours, this puzzle has {puzzle.ncolors}"
        )
    warmup()
    return _solve(puzzle, max_solutions, timeout, strategy, node_budget, record_steps, budget)


def auto_node_budget(puzzle: Puzzle) -> int:
    """The search nodes ``auto`` allows before handing over to SAT (by puzzle size)."""
    return max(AUTO_MIN_NODES, AUTO_NODE_WORK // (puzzle.width * puzzle.height))


def _solve(
    puzzle: Puzzle,
    max_solutions: int,
    timeout: float | None,
    strategy: str,
    node_budget: int | None,
    record_steps: bool,
    budget: int | None = None,
) -> SolveResult:
    t0 = time.monotonic()
    deadline = None if timeout is None else t0 + timeout
    if strategy == "sat":
        return _solve_sat_only(puzzle, max_solutions, deadline, t0, budget)
    t = Tables.of(puzzle)
    w = Work(t, max_solutions, record_steps)
    sat = _sat_backend() if strategy == "auto" else None
    w.v[E.V_STRAT] = _STRAT_LEVEL[strategy]
    if node_budget is not None:
        w.v[E.V_NODELIM] = node_budget
    elif sat is not None:
        w.v[E.V_NODELIM] = auto_node_budget(puzzle)
    else:
        w.v[E.V_NODELIM] = -1
    steps: list[np.ndarray] = []
    grids: list[Grid] = []
    rc, stop = _drive(w, deadline, steps, puzzle, grids, budget)
    if record_steps:
        w.drain_steps(steps)
    effort = w.effort()
    technique = TECHNIQUES[int(w.v[E.V_TECH])]
    proven_by_logic = int(w.v[E.V_MAXDEPTH]) == 0 and int(w.v[E.V_UNDEC]) == 0
    if stop is not None:
        status = stop
    elif rc == E.RC_DONE:
        n = len(grids)
        status = ("none", "unique")[n] if n < 2 else "multiple"
    elif rc == E.RC_SOLS:
        # one solution asked for: unique only when logic alone forced it
        status = (
            "multiple" if max_solutions >= 2 else "unique" if proven_by_logic else "unsolved"
        )
    elif rc == E.RC_LIMIT:
        status = "unsolved"
    elif rc == E.RC_NODES:
        status = "budget"
        if sat is not None and node_budget is None:
            status, grids = _sat_fallback(
                puzzle, w, sat, grids, max_solutions, deadline, effort, budget
            )
            technique = "search"
    else:  # pragma: no cover - the engine returns nothing else
        raise SolverError(f"internal error: engine returned {rc}")
    return SolveResult(
        status=status,
        solutions=grids,
        technique=technique,
        effort=effort,
        time_s=time.monotonic() - t0,
        state=w.root_state(),
        steps=steps,
    )


def _drive(
    w: Work,
    deadline: float | None,
    steps: list[np.ndarray],
    puzzle: Puzzle,
    grids: list[Grid],
    budget: int | None = None,
) -> tuple[int, str | None]:
    """Run the engine in slices until it stops; ``(return code, "timeout" | "budget" | None)``.

    Solutions are turned into grids and verified between slices, so that their cost counts
    against the deadline too; ``grids`` receives them. The engine checks its work limit
    only between units of work, and a slice ending early changes nothing it computes, so
    capping the last slice just past ``budget`` stops it at the same point on every run.
    """
    slice_ = 2_000 if deadline is not None else _FREE_SLICE
    while True:
        t_slice = time.monotonic()
        done0 = w.work()
        limit = done0 + slice_ if budget is None else min(done0 + slice_, budget + 1)
        rc = w.run(limit)
        _collect(w, puzzle, grids)
        if rc == E.RC_GROW_STACK:
            w.grow_stack()
        elif rc == E.RC_GROW_SOLS:
            w.grow_sols()
        elif rc == E.RC_STEPS:
            w.drain_steps(steps)
        elif rc != E.RC_PAUSED:
            return rc, None
        elif budget is not None and w.work() > budget:
            return rc, "budget"
        if deadline is not None:
            now = time.monotonic()
            left = deadline - now
            if left <= 0:
                return rc, "timeout"
            # aim each slice at a small fraction of the time left (at most 50 ms)
            done = max(w.work() - done0, 1)
            rate = done / max(now - t_slice, 1e-6)
            slice_ = int(max(50, min(rate * min(0.05, left * 0.25), 10 * slice_)))


def _collect(w: Work, puzzle: Puzzle, grids: list[Grid]) -> None:
    """Verify and keep the solutions the engine found since the last call."""
    n = min(int(w.v[E.V_NSOL]), w.sols.shape[0], int(w.v[E.V_MAXSOL]))
    t = w.t
    for i in range(len(grids), n):
        g = state_to_grid(w.sols[i, :-1].reshape(t.height, t.width), t.ncolors)
        if not g.matches(puzzle):
            raise SolverError("internal error: the solver produced a grid that breaks a clue")
        grids.append(g)


def _sat_fallback(
    puzzle: Puzzle,
    w: Work,
    sat: Callable[..., Any],
    grids: list[Grid],
    max_solutions: int,
    deadline: float | None,
    effort: dict[str, int],
    budget: int | None = None,
) -> tuple[str, list[Grid]]:
    """Finish an over-budget search with SAT, starting from the root's logic state.

    With a work ``budget``, what the search left of it is SAT's conflict budget.
    """
    conflicts = None if budget is None else (budget - effort["work"]) // SAT_CONFLICT_WORK
    if conflicts is not None and conflicts < 0:
        return "budget", _checked(puzzle, grids)[:max_solutions]
    out = sat(puzzle, state=w.root_state(), max_solutions=max_solutions, deadline=deadline,
              conflict_budget=conflicts)
    effort["sat_conflicts"] = int(out.conflicts)
    effort["sat_decisions"] = int(out.decisions)
    effort["work"] += SAT_CONFLICT_WORK * int(out.conflicts)
    found = _checked(puzzle, [*grids, *out.solutions])[:max_solutions]
    return _sat_status(out.status, found, max_solutions), found


def _sat_status(status: str, found: list[Grid], max_solutions: int) -> str:
    """Our verdict from the SAT back-end's: "unique" only with a proof of it."""
    if len(found) >= 2:
        return "multiple"
    if status == "none" and found:
        raise SolverError("internal error: SAT found no solution where search found one")
    if status == "unique" and max_solutions < 2:
        return "unsolved"  # asked for one solution: found, but no second one was sought
    return status


def _solve_sat_only(
    puzzle: Puzzle, max_solutions: int, deadline: float | None, t0: float,
    budget: int | None = None,
) -> SolveResult:
    sat = _sat_backend()
    if sat is None:
        raise SolverError("the SAT back-end is not available")
    conflicts = None if budget is None else budget // SAT_CONFLICT_WORK
    out = sat(puzzle, state=None, max_solutions=max_solutions, deadline=deadline,
              conflict_budget=conflicts)
    full = np.uint64((1 << (puzzle.ncolors + 1)) - 1)
    grids = _checked(puzzle, list(out.solutions)[:max_solutions])
    if out.status == "unique" and grids:
        state = (np.uint64(1) << grids[0].cells.astype(np.uint64)).astype(np.uint64)
    else:
        state = np.full((puzzle.height, puzzle.width), full, dtype=np.uint64)
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
