"""The compiled engine's whole solve, in plain Python, for small puzzles.

A process that solves one small puzzle which line logic alone does not settle paid 0.5-0.6
s of CPU for numba's import, its registries and the cached kernels, to do 0.01 s of
probing (issue 39: 100 small colour files, one process each, cost 35 s where the target
is 25). :func:`solve_plain` runs :func:`nonoforge.solver.engine.run`'s phases -- the first
rungs, line logic to a fixpoint, parity summing (black and white), probing cell after cell
(with the probe records of one-solution solves), branching and backtracking -- here, step
for step: the same schedule of lines, the same black-and-white line cache (its slots and
hash, so the same requests are cache hits), the same order of probes and colours, the
same branching scores and the same counters. A puzzle it answers gets the very verdict,
solutions, technique, root state and effort counts the engine gives it (tests compare
them on the shared corpora and many random puzzles).

It takes puzzles of at most :data:`PLAIN_MAX_CELLS` cells (black-and-white ones with lines
of at most :data:`MAX_BITS_LINE` cells: the engine caches longer ones differently), and
gives up (``None``: the caller runs the engine from the start) past :data:`PLAIN_MAX_OPS`
of line-solver work, or where the engine would hand over to SAT. Both limits are counts,
never the clock, so which path answers a puzzle is decided by the puzzle alone.

A work ``budget`` stops it where the engine's driver stops (just past the budget, at the
same unit of work) and a deadline is looked at between units of work once the driver's
first slice is done, as the driver does between slices.

It imports neither numpy nor numba (the line solvers are :mod:`nonoforge.solver.quick`'s;
complete line logic has one answer, so they narrow exactly as the engine's kernels do).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver.quick import COLOUR_OPS, colour_line_logic, line_logic, pop_best
from nonoforge.solver.quick import _init_state as init_rungs
from nonoforge.solving import TECHNIQUES, start_masks

#: Colour puzzles with more cells go to the compiled engine. Measured (seeded random
#: pictures a third to half painted, those line logic leaves undecided, CPU of this path
#: against the 0.45-0.6 s of loading the engine): 20x20 median 0.02 s, 25x25 0.05 s,
#: 30x30 0.13 s (max 0.6 s), 40x40 0.36 s (max 5 s).
PLAIN_MAX_CELLS = 1024
#: Line-solver work after which the plain-Python path gives up and the engine solves the
#: puzzle from the start: a line solve costs :data:`~nonoforge.solver.quick.COLOUR_OPS`
#: times its cells times its blocks + 1, one answered from the memo its cells. It does
#: 7.5-10.5 million a second on the sizes above, so giving up wastes at most about
#: 0.3 s, where the engine's loading costs 0.45-0.6 s.
PLAIN_MAX_OPS = 2_500_000
#: Line-solver work this path may spend in one process, all solves together: past it the
#: process loads the engine (:func:`worth_it`). A batch of many small puzzles (``rate``,
#: ``solve`` of a multi-puzzle file) then pays the engine's loading once instead of plain
#: Python's slower solving for each; the answers are the same either way.
PROCESS_MAX_OPS = 6_000_000
#: Line-solver work spent here in this process so far.
spent = 0

#: The work of the driver's first slice under a deadline (``driver._slices``): the engine
#: is neither stopped nor asked about the clock before it (a small puzzle's alarm is armed
#: after it).
FIRST_SLICE = 2_000

#: The engine's black-and-white line cache (``driver.Work``, ``engine.propagate``): slots
#: per line (rounded to a power of two, 64 .. 65536), the hash's multipliers, and the
#: longest line it takes as one word (``line.MAX_BITS_LINE``; this path takes no longer).
CACHE_SLOTS_PER_LINE = 256
H1, H2, H3 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
MAX_BITS_LINE = 62
_M64 = (1 << 64) - 1
_SUM_INF = 1 << 40

# the engine's return codes (nonoforge.solver.engine.RC_*) and rungs (T_*)
RC_PAUSED, RC_DONE, RC_LIMIT, RC_NODES, RC_SOLS, RC_STOPPED = 0, 1, 2, 3, 4, 6
_GO = 100
PH_INIT, PH_PROP, PH_PROBE, PH_DECIDE, PH_BACK, PH_DONE, PH_SUM = 0, 1, 2, 3, 4, 5, 6
T_LINE, T_PROBE, T_SEARCH = 2, 3, 4


class GiveUp(Exception):  # noqa: N818 (a signal, not an error)
    """More line-solver work than the plain-Python path is worth: the engine's job."""


@dataclass(frozen=True)
class PlainOptions:
    """What the engine is told for a solve (``core._solve`` sets the same on ``Work``)."""

    max_solutions: int
    strategy_level: int  # 0 line, 1 probe, 2 search (the engine's V_STRAT)
    node_limit: int  # -1: none
    score: int  # branching score (SearchOptions.score)
    order: int  # colour order (SearchOptions.order)
    incremental: bool  # probe records (SearchOptions.incremental)
    budget: int | None = None  # the work budget (the driver's)
    deadline: float | None = None  # time.monotonic() value


@dataclass
class PlainOutcome:
    """How the run ended: the engine's return code and stop reason, and its results."""

    rc: int
    stop: str | None  # "timeout" | "budget" | None
    technique: str
    effort: dict[str, int]
    state: list[int]  # the root state (before the first branch), row by row
    solutions: list[Grid] = field(default_factory=list)
    max_depth: int = 0
    undecided: int = 0


def takes(puzzle: Puzzle) -> bool:
    """Whether this path takes ``puzzle``: at most :data:`PLAIN_MAX_CELLS` cells, and a
    black-and-white one's lines at most :data:`MAX_BITS_LINE` long (the engine caches
    longer ones in another way)."""
    h, w = puzzle.height, puzzle.width
    if not 0 < h * w <= PLAIN_MAX_CELLS:
        return False
    return puzzle.ncolors >= 2 or max(h, w) <= MAX_BITS_LINE


def worth_it() -> bool:
    """Whether this process should still try this path before loading the engine: until
    it has spent :data:`PROCESS_MAX_OPS` here (a process that solves one puzzle always
    does; one that solves thousands loads the engine soon)."""
    return spent < PROCESS_MAX_OPS


def solve_plain(puzzle: Puzzle, opts: PlainOptions) -> PlainOutcome | None:
    """Run the engine's solve of ``puzzle`` in plain Python; None when the puzzle is not
    one this path takes (:func:`takes`) or it gave up (too much work)."""
    global spent
    if not takes(puzzle):
        return None
    run = _Run(puzzle, opts)
    try:
        rc, stop = run.drive()
    except GiveUp:
        return None
    finally:
        spent += run.ops
    h, w = puzzle.height, puzzle.width
    sols = [Grid.from_bytes(bytes(m.bit_length() - 1 for m in s), h, w) for s in run.sols]
    root = run.stack[0] if run.maxdepth > 0 else run.st
    return PlainOutcome(rc, stop, TECHNIQUES[run.tech], run.effort(), list(root), sols,
                        run.maxdepth, run.undec)


class _Run:
    """The engine's state (``Work``'s arrays, as lists and ints) and its phases."""

    def __init__(self, puzzle: Puzzle, o: PlainOptions) -> None:
        h, w = puzzle.height, puzzle.width
        self.h, self.w, self.ncell, self.nl = h, w, h * w, h + w
        self.o = o
        self.ncol = puzzle.ncolors
        self.full = (1 << (self.ncol + 1)) - 1
        self.cells = [list(range(r * w, r * w + w)) for r in range(h)]
        self.cells += [list(range(c, h * w, w)) for c in range(w)]
        clues = (*puzzle.rows, *puzzle.columns)
        self.lens = [[b.length for b in clue] for clue in clues]
        self.cols = [[b.color for b in clue] for clue in clues]
        self.mono = self.ncol == 1
        per = 1 if self.mono else COLOUR_OPS
        self.cost = [per * len(self.cells[i]) * (len(self.lens[i]) + 1)
                     for i in range(self.nl)]
        # the engine's line cache (black and white): slot -> (line + 1, white and black
        # bitsets of the masks asked, the answer); a direct-mapped table, as the engine's
        slots = 1 << min(16, max(6, math.ceil(math.log2(self.nl * CACHE_SLOTS_PER_LINE))))
        self.cmask = slots - 1
        self.cache: dict[int, tuple[int, int, int, list[int] | None]] = {}
        self.slots: dict[tuple[int, tuple[int, ...]], tuple[int, int, int]] = {}
        # parity summing (black and white): due (1 after the next fixpoint, 2 before a
        # branch, 0 not), and whether probing narrowed cells since it last ran
        self.sumdue = self.sumdirty = 0
        self.memo: dict[tuple[int, tuple[int, ...]], list[int] | None] = {}
        self.ops = 0
        self.st = start_masks(puzzle)
        # the schedule: whether a line waits, its score, this generation's and the next's
        self.waits = [False] * self.nl
        self.score = [0] * self.nl
        self.cur: list[int] = []
        self.nxt: list[int] = []
        # trail of the current propagation: (cell, mask before), first change per stamp
        self.trail: list[tuple[int, int]] = []
        self.stamp = [0] * self.ncell
        self.sid = 0
        # search
        self.stack: list[list[int]] = []
        self.bcell: list[int] = []
        self.brem: list[int] = []
        self.depth = self.maxdepth = 0
        self.phase = PH_INIT
        self.undec = 0
        self.ppos = self.psince = 0
        self.best, self.bscore, self.branchc = -1, -1, 0
        self.tech = 0
        self.sols: list[list[int]] = []
        self.sol_set: set[tuple[int, ...]] = set()
        # probe records (one-solution solves): lver[l], the tick line l last changed
        # outside a probe; prec[p] = (tick, score, first, done); pdep[p] a bitset of lines
        self.tick = 0
        self.lver = [0] * self.nl
        self.prec: list[tuple[int, int, int, int]] = [(-1, 0, 0, 0)] * self.ncell
        self.pdep = [0] * self.ncell
        # effort
        self.c_lines = self.c_sweeps = self.c_probes = self.c_pbranch = self.c_pcontra = 0
        self.c_nodes = self.c_backtracks = self.c_trivial = self.c_overlap = 0
        self.c_linechg = self.c_probechg = self.c_work = 0
        self.c_hits = self.c_sumlines = self.c_sumchg = 0

    # ---- the driver -------------------------------------------------------------------

    def drive(self) -> tuple[int, str | None]:
        """``driver.drive``: the engine's run to its end, or stopped just past the budget
        (where the driver's last slice stops) or at the deadline."""
        b = self.o.budget
        limit = b + 1 if b is not None else 1 << 62
        rc = self.run(limit)
        if rc == RC_STOPPED:
            return rc, "timeout"
        if rc == RC_PAUSED:
            return rc, "budget"
        return rc, None

    def work(self) -> int:
        return self.c_lines + self.c_hits + self.c_work

    def effort(self) -> dict[str, int]:
        out = {
            "line_solves": self.c_lines, "cache_hits": self.c_hits,
            "trivial_lines": self.c_trivial,
            "overlap_lines": self.c_overlap, "sweeps": self.c_sweeps,
            "cells_by_line": self.c_linechg, "probes": self.c_probes,
            "probe_assumptions": self.c_pbranch, "probe_contradictions": self.c_pcontra,
            "cells_by_probe": self.c_probechg, "nodes": self.c_nodes,
            "backtracks": self.c_backtracks, "max_depth": self.maxdepth, "work": self.work(),
        }
        if self.c_sumlines > 0:
            out["sum_lines"] = self.c_sumlines
            out["cells_by_sum"] = self.c_sumchg
        return out

    def pause_reason(self, limit: int) -> int:
        """``_pause_reason``: the deadline (the engine's stop), the work limit, or go on.
        The deadline is looked at from :data:`FIRST_SLICE` units of work on: the driver
        runs a small puzzle's first slice whole before it looks at the clock."""
        work = self.c_lines + self.c_hits + self.c_work
        d = self.o.deadline
        if d is not None and work >= FIRST_SLICE and time.monotonic() >= d:
            return RC_STOPPED
        if work >= limit:
            return RC_PAUSED
        return _GO

    def run(self, limit: int) -> int:
        """``engine.run``: one unit of work in the current phase per turn."""
        while True:
            rc = self.pause_reason(limit)
            if rc != _GO:
                return rc
            ph = self.phase
            if ph == PH_INIT:
                rc = self.phase_init()
            elif ph == PH_PROP:
                rc = self.phase_propagate()
            elif ph == PH_PROBE:
                rc = self.phase_probe(limit)
            elif ph == PH_SUM:
                rc = self.phase_sum()
            elif ph == PH_DECIDE:
                rc = self.phase_branch()
            elif ph == PH_BACK:
                rc = self.phase_backtrack()
            else:
                return RC_DONE
            if rc != _GO:
                return rc

    # ---- the schedule -----------------------------------------------------------------

    def schedule(self, line: int) -> None:
        """``_schedule``: wait in the next generation unless waiting already."""
        self._wait(line, self.nxt)

    def schedule_now(self, line: int) -> None:
        """``_schedule_now``: wait in this generation unless waiting already."""
        self._wait(line, self.cur)

    def _wait(self, line: int, generation: list[int]) -> None:
        """``line`` joins ``generation`` unless it waits already; either way its score
        (how many of its cells changed since it was last solved) goes up."""
        if not self.waits[line]:
            self.waits[line] = True
            self.score[line] = 1
            generation.append(line)
        else:
            self.score[line] += 1

    def mark_cell(self, cell: int) -> None:
        r = cell // self.w
        self.schedule_now(r)
        self.schedule_now(self.h + cell - r * self.w)

    def clear_schedule(self) -> None:
        for line in (*self.cur, *self.nxt):
            self.waits[line] = False
            self.score[line] = 0
        self.cur = []
        self.nxt = []

    def bump_cell(self, cell: int) -> None:
        """``_bump_cell``: the lines through ``cell`` changed outside a probe."""
        r = cell // self.w
        self.lver[r] = self.tick
        self.lver[self.h + cell - r * self.w] = self.tick

    # ---- line logic -------------------------------------------------------------------

    def solve_line(self, line: int, lm: list[int]) -> list[int] | None:
        """Complete line logic on ``line`` (memoised: the answer depends on the masks
        alone; the engine counts every request, and so does the caller)."""
        key = (line, tuple(lm))
        try:
            out = self.memo[key]
            self.ops += len(lm)
        except KeyError:
            if self.mono:
                out = line_logic(lm, self.lens[line])
            else:
                out = colour_line_logic(lm, self.lens[line], self.cols[line])
            self.memo[key] = out
            self.ops += self.cost[line]
        if self.ops > PLAIN_MAX_OPS:
            raise GiveUp
        return out

    def propagate(self, root: bool) -> bool:
        """``propagate``: line logic to a fixpoint over the scheduled lines, most-changed
        line first, in generations; every first change of a cell goes on the trail."""
        st, sid, stamp, trail = self.st, self.sid, self.stamp, self.trail
        score, waits, cells, h = self.score, self.waits, self.cells, self.h
        while True:
            cur = self.cur
            if not cur:
                self.c_sweeps += 1
                if not self.nxt:
                    return True
                self.cur, self.nxt = self.nxt, []
                continue
            line = pop_best(cur, score)
            waits[line] = False
            score[line] = 0
            idx = cells[line]
            lm = [st[c] for c in idx]
            if self.mono:
                out = self.cached_line(line, lm)
            else:
                self.c_lines += 1
                out = self.solve_line(line, lm)
            if out is None:
                self.clear_schedule()
                return False
            if out == lm:
                continue
            cross0 = 0 if line >= h else h
            for j, o in enumerate(out):
                old = lm[j]
                if o == old:
                    continue
                cell = idx[j]
                if stamp[cell] != sid:
                    stamp[cell] = sid
                    trail.append((cell, old))
                st[cell] = o
                if not o & (o - 1):
                    self.undec -= 1
                if root:
                    self.c_linechg += 1
                self.schedule(cross0 + j)

    def cached_line(self, line: int, lm: list[int]) -> list[int] | None:
        """A black-and-white line through the engine's cache: a hit (the same masks in
        the line's slot) is counted a cache hit, a miss a line solve that fills the slot.
        The masks' slot is worked out once per line state (:attr:`slots`)."""
        key = (line, tuple(lm))
        where = self.slots.get(key)
        if where is None:
            wb = kb = 0
            for j, m in enumerate(lm):
                if m & 1:
                    wb |= 1 << j
                if m & 2:
                    kb |= 1 << j
            h = ((wb * H1) ^ (kb * H2) ^ ((line + 1) * H3)) & _M64
            where = self.slots[key] = ((h >> 32) & self.cmask, wb, kb)
            self.ops += self.cost[line]
        slot, wb, kb = where
        hit = self.cache.get(slot)
        if hit is not None and hit[0] == line + 1 and hit[1] == wb and hit[2] == kb:
            self.c_hits += 1
            self.ops += len(lm)
            return hit[3]
        self.c_lines += 1
        out = self.solve_line(line, lm)
        self.cache[slot] = (line + 1, wb, kb, out)
        return out

    def new_trail(self) -> None:
        self.trail = []
        self.sid += 1

    def propagate_state(self, root: bool) -> bool:
        """``_propagate_state``: line logic on a fresh trail, outside a probe; the cells
        it changed make their lines' probe records stale."""
        self.new_trail()
        ok = self.propagate(root)
        for cell, _old in self.trail:
            self.bump_cell(cell)
        return ok

    def store_solution(self, st: list[int]) -> None:
        """``_store_solution``: keep a new solution; its bookkeeping is work."""
        ns = len(self.sols)
        self.c_work += ns // 64 + 1
        key = tuple(st)
        if key in self.sol_set:
            return
        self.sol_set.add(key)
        self.sols.append(list(st))
        self.c_work += 4 * self.ncell

    # ---- the phases -------------------------------------------------------------------

    def phase_init(self) -> int:
        cnt = {"trivial": 0, "overlap": 0}
        ok, self.tech = init_rungs(self.st, self.cells, self.lens, self.cols, self.full, cnt)
        self.c_trivial, self.c_overlap = cnt["trivial"], cnt["overlap"]
        self.undec = sum(1 for m in self.st if m & (m - 1))
        for line in range(self.nl):
            self.schedule_now(line)
        self.phase = PH_PROP if ok else PH_BACK
        self.sumdue = 1
        if not ok:
            self.clear_schedule()
        return _GO

    def solved(self) -> int:
        self.store_solution(self.st)
        if len(self.sols) >= self.o.max_solutions:
            self.phase = PH_DONE
            return RC_SOLS
        self.phase = PH_BACK
        return _GO

    def after_propagation(self, ok: bool) -> int:
        if not ok:
            self.phase = PH_BACK
            return _GO
        if self.undec == 0:
            return self.solved()
        if self.o.strategy_level == 0:
            return RC_LIMIT
        self.phase = PH_SUM if self.mono and self.sumdue == 1 else PH_PROBE
        self.psince = 0
        self.best = -1
        self.bscore = -1
        return _GO

    def phase_propagate(self) -> int:
        root = self.depth == 0
        ok = self.propagate_state(root)
        if root and self.trail:
            self.tech = max(self.tech, T_LINE)
        return self.after_propagation(ok)

    def probe_learnt(self, status: int) -> int:
        if self.depth == 0:
            self.tech = max(self.tech, T_PROBE)
        if status < 0:
            self.clear_schedule()
            self.phase = PH_BACK
            return _GO
        self.sumdirty = 1
        ok = self.propagate_state(self.depth == 0)
        return self.after_propagation(ok)

    def next_probe(self) -> int:
        st, ncell = self.st, self.ncell
        while self.psince < ncell:
            p = self.ppos
            self.ppos = p + 1 if p + 1 < ncell else 0
            m = st[p]
            if m & (m - 1):
                return p
            self.psince += 1
        return -1

    def stale(self, p: int) -> bool:
        """``_stale``: whether probing ``p`` again could answer anything but its record."""
        t, _score, _first, done = self.prec[p]
        if t < 0 or done >= self.undec:
            return True
        m, line, lver = self.pdep[p], 0, self.lver
        while m:
            if m & 1 and lver[line] >= t:
                return True
            m >>= 1
            line += 1
        return False

    def phase_probe(self, limit: int) -> int:
        incr = self.o.incremental
        while True:
            p = self.next_probe()
            if p < 0:
                if self.mono and self.sumdirty:
                    self.sumdue = 2  # sum what probing learnt before branching
                    self.phase = PH_SUM
                else:
                    self.phase = PH_DECIDE
                return _GO
            if incr and not self.stale(p):
                status = 0
                _t, score, first, _d = self.prec[p]
            else:
                status, score, first = self.probe_cell(p)
                if len(self.sols) >= self.o.max_solutions:
                    self.phase = PH_DONE
                    return RC_SOLS
                if incr:
                    t, _s, _f, d = self.prec[p]
                    self.prec[p] = (t, score, first, d)
            if status != 0:
                rc = self.probe_learnt(status)
                if rc != _GO or self.phase != PH_PROBE:
                    return rc
            else:
                self.psince += 1
                if score > self.bscore:
                    self.bscore = score
                    self.best = p
                    self.branchc = first
            rc = self.pause_reason(limit)
            if rc != _GO:
                return rc

    def probe_cell(self, p: int) -> tuple[int, int, int]:
        """``_probe_cell``: assume each colour of ``p`` in turn, keep what every survivor
        agrees on; ``(status, score, first)`` as the engine's."""
        incr = self.o.incremental
        h, w = self.h, self.w
        if incr:
            self.tick += 1
            self.prec[p] = (-1, *self.prec[p][1:])
            self.pdep[p] = 0
        self.c_probes += 1
        st = self.st
        m = st[p]
        und0 = self.undec
        mn, mx, tot, prod = 1 << 40, -1, 0, 1
        cmin = cmax = 0
        done = nsurv = 0
        hcnt: dict[int, int] = {}  # insertion order: the engine's ``touched``
        hacc: dict[int, int] = {}
        dep = 0
        for c in range(self.ncol + 1):
            cb = 1 << c
            if not m & cb:
                continue
            self.c_pbranch += 1
            self.new_trail()
            self.stamp[p] = self.sid
            self.trail.append((p, m))
            st[p] = cb
            self.undec -= 1
            self.mark_cell(p)
            ok = self.propagate(False)
            trail = self.trail
            nt = len(trail)
            if incr:  # the lines this assumption read
                for q, _old in trail:
                    r = q // w
                    dep |= (1 << r) | (1 << (h + q - r * w))
            if ok:
                nsurv += 1
                done = max(done, und0 - self.undec)
                if self.undec == 0:
                    self.store_solution(st)
                    if self.depth == 0:
                        self.tech = max(self.tech, T_PROBE)
                tot += nt
                prod *= nt
                if nt < mn:
                    mn, cmin = nt, cb
                if nt > mx:
                    mx, cmax = nt, cb
                for q, _old in trail:
                    if q in hcnt:
                        hcnt[q] += 1
                        hacc[q] |= st[q]
                    else:
                        hcnt[q] = 1
                        hacc[q] = st[q]
            else:
                self.c_pcontra += 1
            for q, old in reversed(trail):
                st[q] = old
            self.undec = und0
            if incr:
                self.pdep[p] = dep
            if len(self.sols) >= self.o.max_solutions:
                return 0, 0, 0
        if nsurv == 0:
            return -1, 0, 0
        learnt = self.probe_learn(hcnt, hacc, nsurv)
        if learnt > 0:
            self.c_probechg += learnt
            return 1, 0, 0
        if incr:
            self.prec[p] = (self.tick, self.prec[p][1], self.prec[p][2], done)
        if nsurv == 1:
            return 0, 0, 0
        om = self.o.order
        first = 0 if om == 0 else (cmin if om == 1 else cmax)
        return 0, _branch_score(self.o.score, mn, mx, tot, prod), first

    def probe_learn(self, hcnt: dict[int, int], hacc: dict[int, int], nsurv: int) -> int:
        """``_probe_learn``: a cell every one of the ``nsurv`` survivors touched keeps only
        the union of what they left in it; the cells narrowed (scheduled, their lines'
        probe records made stale)."""
        st = self.st
        learnt = 0
        for q, n in hcnt.items():
            if n != nsurv:
                continue
            old = st[q]
            nm = old & hacc[q]
            if nm != old:
                if not nm & (nm - 1) and old & (old - 1):
                    self.undec -= 1
                st[q] = nm
                learnt += 1
                self.mark_cell(q)
                self.bump_cell(q)
        return learnt

    def branch_cell(self) -> tuple[int, int]:
        st = self.st
        p = self.best
        if p < 0:
            p = next(c for c in range(self.ncell) if st[c] & (st[c] - 1))
        m = st[p]
        first = self.branchc if self.best >= 0 else 0
        if not first & m or first & (first - 1):
            first = _lowest(m)
        return p, first

    def phase_branch(self) -> int:
        if self.o.strategy_level < 2:
            return RC_LIMIT
        if 0 <= self.o.node_limit <= self.c_nodes:
            return RC_NODES
        p, first = self.branch_cell()
        depth = self.depth
        if depth == 0:
            self.tech = max(self.tech, T_SEARCH)
        st = self.st
        snap = list(st)
        if depth < len(self.stack):
            self.stack[depth] = snap
            self.bcell[depth] = p
            self.brem[depth] = st[p] & ~first
        else:
            self.stack.append(snap)
            self.bcell.append(p)
            self.brem.append(st[p] & ~first)
        st[p] = first
        self.bump_cell(p)
        self.undec -= 1
        self.depth = depth + 1
        self.maxdepth = max(self.maxdepth, depth + 1)
        self.c_nodes += 1
        self.mark_cell(p)
        self.sumdue = 1
        self.phase = PH_PROP
        return _GO

    def phase_backtrack(self) -> int:
        depth = self.depth
        while depth > 0 and self.brem[depth - 1] == 0:
            depth -= 1
        self.depth = depth
        if depth == 0:
            self.phase = PH_DONE
            return RC_DONE
        if 0 <= self.o.node_limit <= self.c_nodes:
            return RC_NODES
        self.c_backtracks += 1
        d = depth - 1
        rem = self.brem[d]
        nxt = _lowest(rem)
        self.brem[d] = rem & ~nxt
        p = self.bcell[d]
        st, saved = self.st, self.stack[d]
        for c in range(self.ncell):
            if st[c] != saved[c]:
                self.bump_cell(c)
                st[c] = saved[c]
        und = sum(1 for x in st if x & (x - 1)) - 1
        st[p] = nxt
        self.bump_cell(p)
        self.undec = und
        self.c_nodes += 1
        self.clear_schedule()
        self.mark_cell(p)
        self.sumdue = 1
        self.phase = PH_PROP
        return _GO


    # ---- parity summing (black and white; the engine's _summing and its helpers) ------

    def phase_sum(self) -> int:
        """PH_SUM: parity summing where a node's line logic reached its fixpoint or
        before it branches; what it narrows is propagated (and summed again)."""
        due = self.sumdue
        self.sumdue = self.sumdirty = 0
        r = self.summing()
        if r < 0:
            self.clear_schedule()
            self.phase = PH_BACK
        elif r > 0:
            if self.depth == 0:
                self.tech = max(self.tech, T_PROBE)
            self.sumdue = 1
            self.phase = PH_PROP
        else:
            self.phase = PH_PROBE if due == 1 else PH_DECIDE
        return _GO

    def summing(self) -> int:
        """1 cells narrowed (their lines scheduled), 0 nothing, -1 a contradiction."""
        learnt = 0
        for fam in (0, 1):
            r = self.sum_family(fam)
            if r < 0:
                return -1
            learnt += r
        return 1 if learnt > 0 else 0

    def sum_family(self, fam: int) -> int:
        """The even rows' black cells counted in the columns (``fam`` 0) or the even
        columns' in the rows (1): the cells narrowed, or -1 for a contradiction."""
        h, w, st = self.h, self.w, self.st
        s0, ns, x0, nx = (0, h, h, w) if fam == 0 else (h, w, 0, h)
        total = sum(sum(self.lens[s0 + i]) for i in range(0, ns, 2))
        rng: list[tuple[int, int]] = []
        for x in range(nx):
            self.c_sumlines += 1
            self.c_work += 1
            got = self.sum_line(x0 + x, -1, -1)
            if got is None:
                return -1
            rng.append((got[0], got[1]))
        slo = sum(r[0] for r in rng)
        shi = sum(r[1] for r in rng)
        if total < slo or total > shi:
            return -1
        learnt = 0
        if slo == shi:
            return learnt
        for x in range(nx):
            mn, mx = rng[x]
            lo = max(mn, total - (shi - mx))
            hi = min(mx, total - (slo - mn))
            if lo == mn and hi == mx:
                continue
            line = x0 + x
            self.c_sumlines += 1
            self.c_work += 1
            out = self.sum_line(line, lo, hi)
            if out is None:
                return -1
            for j, cell in enumerate(self.cells[line]):
                old = st[cell]
                o = old & out[j]
                if o == old:
                    continue
                if o == 0:
                    return -1
                st[cell] = o
                if not o & (o - 1):
                    self.undec -= 1
                self.c_sumchg += 1
                learnt += 1
                self.mark_cell(cell)
                self.bump_cell(cell)
        return learnt

    def sum_line(self, line: int, lo: int, hi: int) -> list[int] | None:
        """``_sum_line``: with ``lo < 0`` ``[fewest, most]`` black cells on the line's
        even positions over the placements the masks allow; else the masks the
        placements whose count may lie in ``[lo, hi]`` allow. None: no placement."""
        idx, st = self.cells[line], self.st
        n, k1 = len(idx), len(self.lens[line]) + 1
        self.ops += 4 * (n + 1) * k1
        if self.ops > PLAIN_MAX_OPS:
            raise GiveUp
        line_ = _SumLine([st[c] for c in idx], self.lens[line])
        g = line_.backward()
        if g[1][0] < 0:
            return None
        if lo < 0:
            return [g[0][0], g[1][0]]
        return line_.forward(g, lo, hi)


class _SumLine:
    """One black-and-white line's parity count (the engine's ``_sum_line``): states
    ``(i, b)``, cells before ``i`` placed with ``b`` blocks done (the gap after a block
    included); from one, cell ``i`` is white, or block ``b`` starts at ``i``."""

    def __init__(self, masks: list[int], blen: list[int]) -> None:
        n = len(masks)
        self.n, self.k, self.blen = n, len(blen), blen
        self.canw = [m & 1 != 0 for m in masks]
        self.nb = [0] * (n + 1)  # cells before i that cannot be black
        self.pc = [0] * (n + 1)  # even positions before i
        for j, m in enumerate(masks):
            self.nb[j + 1] = self.nb[j] + (m & 2 == 0)
            self.pc[j + 1] = self.pc[j] + (j & 1 == 0)

    def block_end(self, i: int, b: int) -> int:
        """Where block ``b`` placed at ``i`` ends (-1: it cannot be placed there: a cell
        it covers cannot be black, or the cell after it cannot be white)."""
        e = i + self.blen[b]
        n = self.n
        if e <= n and self.nb[e] == self.nb[i] and (e == n or self.canw[e]):
            return e
        return -1

    def backward(self) -> tuple[list[int], list[int]]:
        """The fewest and most counted cells from each state to the end (most -1: the
        end cannot be reached)."""
        n, k, pc, canw = self.n, self.k, self.pc, self.canw
        k1 = k + 1
        gmn = [_SUM_INF] * ((n + 1) * k1)
        gmx = [-1] * ((n + 1) * k1)
        for i in range(n, -1, -1):
            for b in range(k, -1, -1):
                mn, mx = (0, 0) if i == n and b == k else (_SUM_INF, -1)
                if i < n and canw[i]:
                    y = (i + 1) * k1 + b
                    if gmx[y] >= 0:
                        mn, mx = min(mn, gmn[y]), max(mx, gmx[y])
                e = self.block_end(i, b) if b < k else -1
                if e >= 0:
                    y = min(e + 1, n) * k1 + b + 1
                    if gmx[y] >= 0:
                        c = pc[e] - pc[i]
                        mn, mx = min(mn, gmn[y] + c), max(mx, gmx[y] + c)
                gmn[i * k1 + b] = mn
                gmx[i * k1 + b] = mx
        return gmn, gmx

    def forward(self, g: tuple[list[int], list[int]], lo: int, hi: int) -> list[int]:
        """The masks of the placements through which a count in ``[lo, hi]`` may pass."""
        gmn, gmx = g
        n, k, pc, canw = self.n, self.k, self.pc, self.canw
        k1 = k + 1
        fmn = [_SUM_INF] * ((n + 1) * k1)
        fmx = [-1] * ((n + 1) * k1)
        dlt = [0] * (n + 1)  # black marks, a difference array
        cw = [0] * (n + 1)  # white marks
        fmn[0] = fmx[0] = 0
        for i in range(n + 1):
            for b in range(k1):
                x = i * k1 + b
                if fmx[x] < 0 or gmx[x] < 0:
                    continue
                if i < n and canw[i]:
                    y = (i + 1) * k1 + b
                    if gmx[y] >= 0 and fmn[x] + gmn[y] <= hi and fmx[x] + gmx[y] >= lo:
                        cw[i] = 1
                        fmn[y], fmx[y] = min(fmn[y], fmn[x]), max(fmx[y], fmx[x])
                e = self.block_end(i, b) if b < k else -1
                if e < 0:
                    continue
                y = min(e + 1, n) * k1 + b + 1
                c = pc[e] - pc[i]
                if gmx[y] >= 0 and fmn[x] + c + gmn[y] <= hi and fmx[x] + c + gmx[y] >= lo:
                    dlt[i] += 1
                    dlt[e] -= 1
                    if e < n:
                        cw[e] = 1
                    fmn[y], fmx[y] = min(fmn[y], fmn[x] + c), max(fmx[y], fmx[x] + c)
        out = []
        run = 0
        for j in range(n):
            run += dlt[j]
            out.append((1 if cw[j] else 0) | (2 if run > 0 else 0))
        return out


def _lowest(mask: int) -> int:
    """The lowest colour bit of ``mask`` (``_first_colour``)."""
    return mask & -mask


def _branch_score(hm: int, mn: int, mx: int, tot: int, prod: int) -> int:
    """``_branch_score``: a probed cell's worth as a branching cell under heuristic
    ``hm`` (:class:`~nonoforge.solver.options.SearchOptions`'s ``score``)."""
    if hm == 0:
        return mn
    if hm == 1:
        return tot
    if hm == 2:
        return prod
    if hm == 3:
        return mn * 4096 + mx
    return mn * 1024 + int(1.85 * 1024 * math.log(1.0 + (mx - mn)))
