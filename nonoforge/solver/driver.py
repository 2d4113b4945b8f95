"""Driving the compiled engine: its working memory and the time-sliced loop.

:class:`Work` allocates every array :func:`nonoforge.solver.engine.run` works in (the whole
resumable solve state) and :func:`drive` calls the engine in slices of deterministic work,
looking at the clock and the work budget only between slices. Importing this module loads
numba and the compiled kernels; :mod:`nonoforge.solver.core` imports it only when a puzzle
needs the engine.
"""

from __future__ import annotations

import time

import numpy as np

from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import engine as E  # noqa: N812
from nonoforge.solver.alarm import Alarm
from nonoforge.solver.line import bitsw_scratch
from nonoforge.solver.options import SearchOptions, WorkCosts
from nonoforge.solver.result import verify_solution
from nonoforge.solver.tables import BITS, Tables
from nonoforge.solving import mask_colours

#: Probe records (engine ``V_INCR``) are kept when the puzzle's line bitsets take at most
#: this many words (one bitset of its lines per cell).
PROBE_RECORD_WORDS = 4_000_000
#: Line-cache slots per line of the puzzle (rounded to a power of two, 64 .. 65536).
CACHE_SLOTS_PER_LINE = 256
#: Work per slice (line solves) when no deadline needs watching.
_FREE_SLICE = 500_000
#: Puzzles larger than this arm their deadline alarm before the first slice.
_ARM_AT_ONCE_CELLS = 4096


class Work:
    """The engine's working memory for one solve (the whole resumable state)."""

    def __init__(self, t: Tables, max_solutions: int, record_steps: bool,
                 search: SearchOptions | None = None, start: np.ndarray | None = None,
                 branches: bool = True) -> None:
        """``branches``: whether the solve may guess (strategies ``search`` and ``auto``).
        One that may not needs no search stack beyond a row: allocating 64 rows of a
        100x100 puzzle took a tenth of its line logic, thousands of times in a repair.
        Either way the engine asks for more rows before it would overflow them."""
        o = search or SearchOptions()
        h, w = t.height, t.width
        ncell, nl, maxn = h * w, h + w, max(h, w)
        self.t = t
        # where the engine starts (the blank grid, or the givens fixed: ``start``); also
        # what a stop before any logic reports
        if start is None:
            self.cur = np.full(ncell, t.full, dtype=np.uint64)
        else:
            self.cur = np.ascontiguousarray(start, dtype=np.uint64).reshape(ncell).copy()
        cap = min(ncell, 64) if branches else 1
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
        self.sc = np.zeros(max(3 * (t.max_blocks + 1) + 128, bitsw_scratch(t.max_blocks, maxn)),
                           dtype=np.uint64)
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
        self.v[E.V_HEUR] = o.score
        self.v[E.V_ORDER] = o.order
        # probe records: which lines each cell's last probe read, and what it answered
        words = (nl + 63) // 64
        keep = o.incremental and ncell * words <= PROBE_RECORD_WORDS
        self.v[E.V_INCR] = 1 if keep else 0
        self.lver = np.zeros(nl, dtype=np.int64)
        rec = ncell if keep else 1
        self.prec = np.zeros((rec, 4), dtype=np.int64)
        self.prec[:, E.R_TICK] = -1
        self.pdep = np.zeros((rec, words if keep else 1), dtype=np.uint64)
        # parity summing (black and white): one line's count tables, the lines' ranges
        mono = t.ncolors == 1
        self.sumw = np.zeros(4 * (maxn + 1) * (t.max_blocks + 2) if mono else 1,
                             dtype=np.int64)
        self.srng = np.zeros((maxn if mono else 1, 2), dtype=np.int64)

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

    def stop(self) -> None:
        """Stop the engine (from another thread) within one line solve; not resumable."""
        self.v[E.V_STOP] = 1

    def work(self) -> int:
        """Work done so far, in the units of the engine's slices."""
        v = self.v
        return int(v[E.V_LINES] + v[E.V_CACHEHIT] + v[E.V_WORK])

    def charged(self, costs: WorkCosts) -> int:
        """Work done so far at ``costs`` (line solves weighed, the rest one unit each)."""
        return self.work() + (costs.line - 1) * int(self.v[E.V_LINES])

    def grow_sols(self) -> None:
        """More room for solutions (up to max_solutions; the engine asks before it fills)."""
        cap = self.sols.shape[0]
        new = min(int(self.v[E.V_MAXSOL]), cap * 2 + 64)
        sols = np.zeros((new, self.sols.shape[1]), dtype=np.uint64)
        sols[:cap] = self.sols
        self.sols = sols

    def run(self, work_limit: int) -> int:
        t = self.t
        return int(E.run(E.Engine(
            t.height, t.width, t.lines, t.blen, t.bcol, BITS, t.full, self.cur, self.stack,
            self.bcell, self.brem, self.sched, self.v, self.F, self.B, self.run_, self.sc,
            self.cache, self.lm, self.out, self.trail, self.trold, self.stamp, self.steps,
            self.hcnt, self.hacc, self.hstamp, self.touched, self.sols, self.lver, self.prec,
            self.pdep, self.sumw, self.srng,
        ), work_limit))

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
        out = {
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
        if v[E.V_SUMLINES] > 0:  # parity summing ran (never on a puzzle lines settle)
            out["sum_lines"] = int(v[E.V_SUMLINES])
            out["cells_by_sum"] = int(v[E.V_SUMCHG])
        return out


def state_to_grid(state: np.ndarray) -> Grid:
    """A fully decided state (one bit a cell) as a picture of colour indices."""
    return Grid(mask_colours(state, 0).astype(np.uint8))


def drive(
    w: Work,
    deadline: float | None,
    steps: list[np.ndarray],
    puzzle: Puzzle,
    grids: list[Grid],
    budget: int | None = None,
    costs: WorkCosts | None = None,
) -> tuple[int, str | None]:
    """Run the engine in slices until it stops; ``(return code, "timeout" | "budget" | None)``.

    Solutions are turned into grids and verified between slices, so that their cost counts
    against the deadline too; ``grids`` receives them. The engine checks its work limit
    only between units of work, and a slice ending early changes nothing it computes, so
    capping the last slice just past ``budget`` stops it at the same point on every run.
    With ``costs`` the budget is in those units: a slice is capped at the units the budget
    left could pay for were each a line solve, so it stops within one line solve past it.
    """
    slice_ = 2_000 if deadline is not None else _FREE_SLICE
    # one unit of engine work (a propagation on a large puzzle) may outlast a slice: the
    # alarm stops the engine from outside, within one line solve. A small puzzle is armed
    # only when its first slice did not finish it (most are solved in that slice).
    with Alarm(deadline, w.stop) as alarm:
        if puzzle.width * puzzle.height > _ARM_AT_ONCE_CELLS:
            alarm.arm()
        return _slices(w, deadline, steps, puzzle, grids, budget, slice_, alarm, costs)


def _slices(
    w: Work,
    deadline: float | None,
    steps: list[np.ndarray],
    puzzle: Puzzle,
    grids: list[Grid],
    budget: int | None,
    slice_: int,
    alarm: Alarm,
    costs: WorkCosts | None = None,
) -> tuple[int, str | None]:
    c = costs or WorkCosts()
    while True:
        t_slice = time.monotonic()
        done0 = w.work()
        limit = done0 + slice_
        if budget is not None:
            limit = min(limit, done0 + (budget - w.charged(c)) // max(1, c.line) + 1)
        rc = w.run(limit)
        collect(w, puzzle, grids)
        if rc == E.RC_STOPPED:
            return rc, "timeout"
        if rc == E.RC_GROW_STACK:
            w.grow_stack()
        elif rc == E.RC_GROW_SOLS:
            w.grow_sols()
        elif rc == E.RC_STEPS:
            w.drain_steps(steps)
        elif rc != E.RC_PAUSED:
            return rc, None
        elif budget is not None and w.charged(c) > budget:
            return rc, "budget"
        alarm.arm()
        if deadline is not None:
            now = time.monotonic()
            left = deadline - now
            if left <= 0:
                return rc, "timeout"
            # aim each slice at a small fraction of the time left (at most 50 ms)
            done = max(w.work() - done0, 1)
            rate = done / max(now - t_slice, 1e-6)
            slice_ = int(max(50, min(rate * min(0.05, left * 0.25), 10 * slice_)))


def collect(w: Work, puzzle: Puzzle, grids: list[Grid]) -> None:
    """Verify and keep the solutions the engine found since the last call."""
    n = min(int(w.v[E.V_NSOL]), w.sols.shape[0], int(w.v[E.V_MAXSOL]))
    t = w.t
    for i in range(len(grids), n):
        g = state_to_grid(w.sols[i, :-1].reshape(t.height, t.width))
        grids.append(verify_solution(puzzle, g))
