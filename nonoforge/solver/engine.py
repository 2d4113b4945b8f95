"""The compiled solving engine: propagation, probing and backtracking in one resumable loop.

Everything here runs under numba. The engine's whole state lives in arrays the caller owns
(:class:`~nonoforge.solver.driver.Work` allocates them and hands them over as one
:class:`Engine` tuple), so :func:`run` can stop after any
unit of work (one propagation, one probed cell, one search node) and be called again to go
on exactly where it stopped. The Python layer uses that to honour wall-clock timeouts
without letting time decide *what* is computed: the same puzzle always does the same work
and reports the same effort counts.

Layout (all flat, ``int64`` unless said):

* ``lines[l] = (first cell, stride, length, clue offset, blocks)``; rows ``0..H-1`` then
  columns ``H..H+W-1``; cells are numbered ``row * W + column``;
* ``blen``, ``bcol``: block lengths and colours of all clues, concatenated;
* ``cur``: the ``uint64`` state being worked on; ``stack``: saved states, one per depth;
* ``v``: scalars and effort counters, indexed by the ``V_*`` constants below.

:func:`run` takes the one :class:`Engine` tuple and is a small loop over phases
(``PH_*``), one function each: the first logic on the blank grid, propagation, probing,
branching and backtracking. A phase does its unit of work (probing: cell after cell, with
run's checks between them), moves ``v[V_PHASE]`` on and answers an ``RC_*`` code, or
``_GO`` to go on. ``run`` reads the arrays out of the tuple once per call and hands each
phase the ones it uses: numba counts a reference every time an array is read out of a
tuple or handed to a function, so the kernels that run per line or per probed cell
(:func:`propagate`, :func:`_probe_cell`) keep their work inline and read no tuple; done
per call of small helpers, that counting cost up to 18 % on the tournament sets. The
pieces they are split into (:func:`_take_line`, :func:`_end_sweep`, :func:`_write_line`,
:func:`_probe_learn`) are ``inline="always"``: numba inlines them in its IR, so they are
no calls and hand no arrays over (issue 40: ``propagate`` compiles to the same reference
counting as unsplit, ``_probe_cell`` to one pair more per probe; CPU time within the noise).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from nonoforge.solver.kernel_cache import njit  # numba's, its cache keyed to all solver sources
from nonoforge.solver.line import (
    MAX_BITS2_LINE,
    MAX_BITS_LINE,
    U0,
    U1,
    bw_bits,
    bw_cached2,
    line_solve,
    overlap_line,
)

U2 = np.uint64(2)
#: Multipliers of the line-cache hash (odd 64-bit constants).
H1 = np.uint64(0x9E3779B97F4A7C15)
H2 = np.uint64(0xC2B2AE3D27D4EB4F)
H3 = np.uint64(0x165667B19E3779F9)

# ---- indices into v ------------------------------------------------------------------
V_PHASE = 0  # what the loop does next (PH_*)
V_DEPTH = 1  # search depth (0 = root)
V_GEN = 2  # current propagation generation (sweep) number
V_TRAIL = 3  # entries in the trail
V_SID = 4  # stamp id of the trail
V_UNDEC = 5  # undecided cells in cur
V_PPOS = 6  # next cell to probe
V_PSINCE = 7  # cells probed since the last deduction
V_BEST = 8  # best branching cell of this probe pass (-1: none)
V_BSCORE = 9  # its score
V_NSOL = 10  # solutions found (distinct)
V_MAXSOL = 11  # stop when this many are found
V_STRAT = 12  # 0 line, 1 probe, 2 search
V_TECH = 13  # hardest rung that made progress (index into TECHNIQUES)
V_NODELIM = 14  # search node limit (-1: none)
V_NSTEPS = 15  # snapshots in the steps buffer
V_RECORD = 16  # 1: record root sweeps
V_HSTAMP = 17  # stamp of the probe accumulator
V_NCOL = 18  # painted colours
V_BRANCHC = 19  # colour order of the branching cell (bitmask of first choice)
# effort counters (deterministic)
V_LINES = 20  # dp line solves
V_SWEEPS = 21  # propagation generations
V_PROBES = 22  # cells probed
V_PBRANCH = 23  # colour assumptions propagated while probing
V_PCONTRA = 24  # of which led to a contradiction
V_NODES = 25  # search nodes
V_BACKTRACKS = 26  # search dead ends
V_MAXDEPTH = 27  # deepest search
V_TRIVIAL = 28  # lines settled by the trivial rule
V_OVERLAP = 29  # lines given to simple overlap
V_LINECHG = 30  # cells narrowed by line logic
V_PROBECHG = 31  # cells narrowed by probing
V_STEPLOST = 32  # sweeps not recorded (buffer full)
V_CACHEHIT = 33  # line solves answered by the cache
V_HEUR = 34  # branching score (experiments)
V_ORDER = 35  # branch order (experiments)
V_WORK = 36  # other work (solution bookkeeping), in line-solve units
#: Set to 1 from another thread (the deadline's timer; the engine runs without the GIL) to
#: stop the engine within one line solve: propagation looks at it before every line. A
#: stop is final (the caller reports a timeout), so it may leave the search unresumable,
#: but never a probe's assumption in the state.
V_STOP = 37
V_INCR = 38  # 1: skip a probe when no line its last probe read has changed since
V_TICK = 39  # clock of the probe records: lver[l] >= prec[p, R_TICK] means the record is stale
V_SUMLINES = 40  # lines counted by the parity-summing rung (each also one unit of V_WORK)
V_SUMCHG = 41  # cells narrowed by parity summing
#: When parity summing runs (black and white): 1 after the next propagation's fixpoint (a
#: new node, or summing itself narrowed cells), 2 before a branch (set with the phase), 0
#: not due. It runs once where a node starts and once before it branches, not after every
#: probe that narrows cells: run there it cost the tournament sets a quarter more CPU.
V_SUMDUE = 42
V_SUMDIRTY = 43  # 1: probing narrowed cells since summing last ran
NV = 44

PH_INIT = 0
PH_PROP = 1
PH_PROBE = 2
PH_DECIDE = 3
PH_BACK = 4
PH_DONE = 5
PH_SUM = 6

# ---- return codes of run ----------------------------------------------------------------
RC_PAUSED = 0  # work slice used up: call again
RC_DONE = 1  # search space exhausted (or logic decided everything)
RC_LIMIT = 2  # the strategy's rung is exhausted with cells undecided
RC_NODES = 3  # node budget used up
RC_SOLS = 4  # max_solutions reached
RC_STEPS = 5  # steps buffer full: drain it and call again
RC_STOPPED = 6  # v[V_STOP] was set: the deadline passed (not resumable)
RC_GROW_STACK = -1  # the search stack is full: grow it and call again
RC_GROW_SOLS = -2  # the solution store may overflow: grow it and call again
_GO = 100  # (phases only) no reason to return: the loop goes on

# ---- columns of the probe records (prec) --------------------------------------------------
R_TICK = 0  # V_TICK of the probe (-1: no record to reuse)
R_SCORE = 1  # the branching score it gave
R_FIRST = 2  # the colour to try first (a mask, as int64)
R_DONE = 3  # the most cells one of its surviving assumptions decided

T_TRIVIAL = 0
T_OVERLAP = 1
T_LINE = 2
T_PROBE = 3
T_SEARCH = 4


class Engine(NamedTuple):
    """Everything :func:`run` reads and writes: the puzzle's tables, the solve state, the
    scratch memory of the line solvers and of probing. A typed tuple of arrays: numba
    caches code that takes one (it does not cache a jitclass). Built afresh for each call,
    as the driver may have grown the search stack or the solution store in between.
    """

    H: int  # rows
    W: int  # columns
    lines: np.ndarray  # (H + W, 5): first cell, stride, length, clue offset, blocks
    blen: np.ndarray  # block lengths of all clues, concatenated
    bcol: np.ndarray  # their colours
    bits: np.ndarray  # bits[c]: the mask of colour c
    full: np.uint64  # the mask of every colour
    cur: np.ndarray  # the state being worked on (uint64 per cell)
    stack: np.ndarray  # stack[d]: the state at depth d before branching
    bcell: np.ndarray  # bcell[d]: the branching cell at depth d
    brem: np.ndarray  # brem[d]: the colours still to try there
    sched: np.ndarray  # the line schedule (see _schedule)
    v: np.ndarray  # scalars and effort counters (V_*)
    F: np.ndarray  # line-solver scratch: forward table
    B: np.ndarray  # backward table
    run: np.ndarray  # run lengths
    sc: np.ndarray  # bit-parallel scratch
    cache: np.ndarray  # black-and-white line cache, 5 words a slot
    lm: np.ndarray  # the line being solved (masks)
    out: np.ndarray  # what the line solver narrowed it to
    trail: np.ndarray  # cells changed since the trail was started
    trold: np.ndarray  # their masks before
    stamp: np.ndarray  # stamp[c] == v[V_SID]: c is on the trail
    steps: np.ndarray  # recorded root sweeps
    hcnt: np.ndarray  # probing: how many surviving colours touched a cell
    hacc: np.ndarray  # the union of what they left in it
    hstamp: np.ndarray  # hstamp[c] == v[V_HSTAMP]: hcnt/hacc are of this probe
    touched: np.ndarray  # cells touched by this probe
    sols: np.ndarray  # solutions found, each followed by its hash
    lver: np.ndarray  # lver[l]: V_TICK when line l last changed outside a probe
    prec: np.ndarray  # prec[p]: p's last complete probe (R_*: when, what it answered)
    pdep: np.ndarray  # pdep[p]: the lines that probe read (bitset, 64 lines a word)
    sumw: np.ndarray  # parity summing: the count tables of one line (see _sum_line)
    srng: np.ndarray  # parity summing: each crossing line's (fewest, most) counted cells


@njit(cache=True, nogil=True)
def _is_single(m):
    return m != U0 and (m & (m - U1)) == U0


# The schedule: ``sched[l] = (generation the line waits in or -1, score, -, -)``; column 2
# lists the lines of the current generation, column 3 those of the next, and the extra
# last row holds the two list lengths.


@njit(cache=True, nogil=True)
def _schedule(sched, line, g):
    """Mark ``line`` dirty: it stays in the current generation if pending there, else next."""
    if sched[line, 0] == -1:
        nl = sched.shape[0] - 1
        sched[line, 0] = g + 1
        sched[line, 1] = 1
        sched[sched[nl, 1], 3] = line
        sched[nl, 1] += 1
    else:
        sched[line, 1] += 1


@njit(cache=True, nogil=True)
def _schedule_now(sched, line, g):
    """Mark ``line`` dirty in the current generation (unless it already waits)."""
    if sched[line, 0] == -1:
        nl = sched.shape[0] - 1
        sched[line, 0] = g
        sched[line, 1] = 1
        sched[sched[nl, 0], 2] = line
        sched[nl, 0] += 1
    else:
        sched[line, 1] += 1


@njit(cache=True, nogil=True)
def _mark_cell(sched, H, W, cell, g):  # noqa: N803
    """Schedule the row and the column through ``cell`` for the current generation."""
    r = cell // W
    _schedule_now(sched, r, g)
    _schedule_now(sched, H + cell - r * W, g)


@njit(cache=True, nogil=True)
def _clear_schedule(sched):
    nl = sched.shape[0] - 1
    for i in range(sched[nl, 0]):
        line = sched[i, 2]
        sched[line, 0] = -1
        sched[line, 1] = 0
    for i in range(sched[nl, 1]):
        line = sched[i, 3]
        sched[line, 0] = -1
        sched[line, 1] = 0
    sched[nl, 0] = 0
    sched[nl, 1] = 0


@njit(cache=True, nogil=True, inline="always")
def _take_line(sched, nl, ncur):
    """Take the most-changed waiting line (first listed on ties) off the current list."""
    bi = 0
    bs = sched[sched[0, 2], 1]
    for i in range(1, ncur):
        sc_i = sched[sched[i, 2], 1]
        if sc_i > bs:
            bs = sc_i
            bi = i
    line = sched[bi, 2]
    sched[bi, 2] = sched[ncur - 1, 2]
    sched[nl, 0] = ncur - 1
    sched[line, 0] = -1
    sched[line, 1] = 0
    return line


@njit(cache=True, nogil=True, inline="always")
def _end_sweep(st, v, sched, steps, nl, g, root):
    """A generation is done: count (and at the root record) the sweep and start the next.

    Returns False when no line waits for the next generation (the fixpoint).
    """
    v[V_SWEEPS] += 1
    if root and v[V_RECORD] == 1:
        if v[V_NSTEPS] < steps.shape[0]:
            steps[v[V_NSTEPS], :] = st
            v[V_NSTEPS] += 1
        else:
            v[V_STEPLOST] += 1
    v[V_GEN] = g + 1
    nnext = sched[nl, 1]
    if nnext == 0:
        return False
    for i in range(nnext):
        sched[i, 2] = sched[i, 3]
    sched[nl, 0] = nnext
    sched[nl, 1] = 0
    return True


@njit(cache=True, nogil=True, inline="always")
def _write_line(st, H, line, start, stride, n, lm, out, sched, v, trail, trold, stamp, sid,  # noqa: N803
                g, root):
    """Write what line logic narrowed ``line`` to (``out``, from ``lm``) into the state:
    each cell's first change under stamp id ``sid`` goes on the trail, decided cells are
    counted and the crossing line of each changed cell is scheduled.

    Inlined into :func:`propagate` (numba inlines it in its IR: no call, and the arrays
    stay the caller's variables): no reference counting per line.
    """
    for j in range(n):
        o = out[j]
        if o != lm[j]:
            cell = start + j * stride
            if stamp[cell] != sid:
                stamp[cell] = sid
                t = v[V_TRAIL]
                trail[t] = cell
                trold[t] = lm[j]
                v[V_TRAIL] = t + 1
            st[cell] = o
            if _is_single(o):
                v[V_UNDEC] -= 1
            if root:
                v[V_LINECHG] += 1
            if line < H:
                _schedule(sched, H + j, g)
            else:
                _schedule(sched, j, g)


@njit(cache=True, nogil=True)
def propagate(st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm, out,  # noqa: N803
              trail, trold, stamp, steps, root):
    """Line logic to a fixpoint over the scheduled lines, most-changed line first.

    Lines are processed in generations (sweeps): a line changed while it waits keeps its
    place; a line changed after it was processed goes to the next generation. Every first
    change of a cell (per stamp id) is written to the trail so callers can undo or inspect
    it. Returns False on a contradiction (the schedule is then cleared).

    The per-line work stays inline in this loop (see the module's note on reference
    counting): the schedule's bookkeeping and the writing of a solved line into the state
    are split out into helpers numba inlines.
    """
    nl = H + W
    sid = v[V_SID]
    mono = v[V_NCOL] == 1
    cmask = np.uint64(cache.shape[0] // 5 - 1)
    while True:
        if v[V_STOP] != 0:
            _clear_schedule(sched)
            return False  # the caller sees V_STOP: not a contradiction
        g = v[V_GEN]
        ncur = sched[nl, 0]
        if ncur == 0:
            if not _end_sweep(st, v, sched, steps, nl, g, root):
                return True
            continue
        line = _take_line(sched, nl, ncur)
        start = lines[line, 0]
        stride = lines[line, 1]
        n = lines[line, 2]
        if mono and n <= MAX_BITS_LINE:
            # black and white: the line as two bitsets, through the cache
            wb = U0
            kb = U0
            for j in range(n):
                m = st[start + j * stride]
                lm[j] = m
                if (m & U1) != U0:
                    wb |= U1 << np.uint64(j)
                if (m & U2) != U0:
                    kb |= U1 << np.uint64(j)
            h = (wb * H1) ^ (kb * H2) ^ (np.uint64(line + 1) * H3)
            slot = np.int64((h >> np.uint64(32)) & cmask) * 5
            if cache[slot] == np.uint64(line + 1) and cache[slot + 1] == wb \
                    and cache[slot + 2] == kb:
                v[V_CACHEHIT] += 1
                ow = cache[slot + 3]
                ob = cache[slot + 4]
                ok = (ow | ob) != U0
            else:
                v[V_LINES] += 1
                ok, ow, ob = bw_bits(wb, kb, n, blen, lines[line, 3], lines[line, 4], sc)
                cache[slot] = np.uint64(line + 1)
                cache[slot + 1] = wb
                cache[slot + 2] = kb
                cache[slot + 3] = ow
                cache[slot + 4] = ob
            if not ok:
                _clear_schedule(sched)
                return False
            if ow == wb and ob == kb:
                continue
            for j in range(n):
                sj = np.uint64(j)
                out[j] = ((ow >> sj) & U1) | (((ob >> sj) & U1) << U1)
        elif mono and n <= MAX_BITS2_LINE:
            # black and white, 63..126 cells: two-word sets, through the cache (line.py)
            ok, hit, changed = bw_cached2(st, start, stride, n, line, blen, lines[line, 3],
                                          lines[line, 4], sc, cache, lm, out)
            v[V_CACHEHIT if hit else V_LINES] += 1
            if not ok:
                _clear_schedule(sched)
                return False
            if not changed:
                continue
        else:
            for j in range(n):
                lm[j] = st[start + j * stride]
            v[V_LINES] += 1
            ok = line_solve(lm, n, blen, bcol, lines[line, 3], lines[line, 4], F, B, run, sc,
                            out, bits)
            if not ok:
                _clear_schedule(sched)
                return False
        _write_line(st, H, line, start, stride, n, lm, out, sched, v, trail, trold, stamp, sid,
                    g, root)


@njit(cache=True, nogil=True, inline="always")
def _new_trail(v):
    v[V_TRAIL] = 0
    v[V_SID] += 1


@njit(cache=True, nogil=True)
def _store_solution(st, sols, v):
    """Keep ``st`` (fully decided) among the solutions unless it is already there.

    The last column of ``sols`` holds each solution's hash, compared first; the compare
    work is charged to the work counter so that many solutions cannot starve the clock.
    """
    ns = v[V_NSOL]
    nc = st.shape[0]
    h = np.uint64(0x84222325CBF29CE4)
    for c in range(nc):
        h = (h ^ st[c]) * H1
    v[V_WORK] += ns // 64 + 1
    for i in range(min(ns, sols.shape[0])):
        if sols[i, nc] != h:
            continue
        same = True
        for c in range(nc):
            if sols[i, c] != st[c]:
                same = False
                break
        if same:
            return
    if ns < sols.shape[0]:
        sols[ns, :nc] = st
        sols[ns, nc] = h
    v[V_NSOL] = ns + 1
    v[V_WORK] += 4 * nc  # the caller turns it into a picture and checks it: charge that


# ---- probe records ---------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _bump_cell(lver, v, H, W, cell):  # noqa: N803
    """The row and the column through ``cell`` changed (outside a probe): every probe
    record that read one of them is stale."""
    r = cell // W
    t = v[V_TICK]
    lver[r] = t
    lver[H + cell - r * W] = t


@njit(cache=True, nogil=True)
def _bump_trail(lver, v, trail, H, W):  # noqa: N803
    """Every cell on the trail changed outside a probe (a propagation of the state)."""
    for i in range(v[V_TRAIL]):
        _bump_cell(lver, v, H, W, trail[i])


@njit(cache=True, nogil=True)
def _stale(p, pdep, lver, prec, undec):
    """Whether probing ``p`` again could answer anything but its record: a line its last
    probe read has changed since (a probe reads only its cell's row and column and the
    lines through the cells it changed, and a line solve depends on the line alone), or an
    assumption would now decide the last undecided cells (a solution to store)."""
    t = prec[p, R_TICK]
    if t < 0 or prec[p, R_DONE] >= undec:
        return True
    for w in range(pdep.shape[1]):
        m = pdep[p, w]
        line = w * 64
        while m != U0:
            if (m & U1) != U0 and lver[line] >= t:
                return True
            m >>= U1
            line += 1
    return False


@njit(cache=True, nogil=True, inline="always")
def _is_trivial(lines, blen, bcol, line):
    """Whether the clue of ``line`` fills it exactly (or is empty)."""
    n = lines[line, 2]
    b0 = lines[line, 3]
    k = lines[line, 4]
    total = 0
    for b in range(k):
        if b > 0 and bcol[b0 + b] == bcol[b0 + b - 1]:
            total += 1
        total += blen[b0 + b]
    return k == 0 or total == n


@njit(cache=True, nogil=True, inline="always")
def _overlap_rung(s, kind):
    """Simple overlap on the trivial lines (``kind`` 0) or the others (1), counted;
    ``(cells narrowed, ok)``: not ok when a cell lost every colour."""
    st = s.cur
    v = s.v
    lines = s.lines
    blen = s.blen
    bcol = s.bcol
    out = s.out
    changed = 0
    ok = True
    for line in range(s.H + s.W):
        if _is_trivial(lines, blen, bcol, line) != (kind == 0):
            continue
        start = lines[line, 0]
        stride = lines[line, 1]
        n = lines[line, 2]
        overlap_line(n, blen, bcol, lines[line, 3], lines[line, 4], out, s.bits, s.full)
        if kind == 0:
            v[V_TRIVIAL] += 1
        else:
            v[V_OVERLAP] += 1
        for j in range(n):
            cell = start + j * stride
            nm = st[cell] & out[j]
            if nm != st[cell]:
                st[cell] = nm
                changed += 1
                if nm == U0:
                    ok = False
    return changed, ok


@njit(cache=True, nogil=True, inline="always")
def _count_undecided(st):
    und = 0
    for c in range(st.shape[0]):
        if not _is_single(st[c]):
            und += 1
    return und


@njit(cache=True, nogil=True)
def init_state(s):
    """The trivial and simple-overlap rungs on the starting state; schedules every line.

    The starting state is what ``s.cur`` holds (the caller's :class:`~nonoforge.solver.
    driver.Work` sets it): the blank grid, or the blank grid with the puzzle's givens
    fixed. Returns False when the rungs already contradict it.
    """
    v = s.v
    st = s.cur
    ok = True
    for kind in range(2):
        changed, kind_ok = _overlap_rung(s, kind)
        ok = ok and kind_ok
        if changed > 0:
            v[V_TECH] = max(v[V_TECH], T_TRIVIAL if kind == 0 else T_OVERLAP)
    v[V_UNDEC] = _count_undecided(st)
    for line in range(s.H + s.W):
        _schedule_now(s.sched, line, v[V_GEN])
    return ok


@njit(cache=True, nogil=True, inline="always")
def _probe_learn(st, H, W, sched, v, hcnt, hacc, touched, ntouch, nsurv, lver):  # noqa: N803
    """What every one of the ``nsurv`` surviving assumptions of a probe agrees on, written
    into ``st``: a cell each of them touched keeps only the union of what they left in it
    (``hacc``). Narrowed cells are scheduled and their lines' probe records made stale;
    returns how many cells were narrowed. Once per probe, inlined into :func:`_probe_cell`.
    """
    learnt = 0
    for i in range(ntouch):
        q = touched[i]
        if hcnt[q] == nsurv:
            nm = st[q] & hacc[q]
            if nm != st[q]:
                if _is_single(nm) and not _is_single(st[q]):
                    v[V_UNDEC] -= 1
                st[q] = nm
                learnt += 1
                _mark_cell(sched, H, W, q, v[V_GEN])
                _bump_cell(lver, v, H, W, q)
    return learnt


@njit(cache=True, nogil=True)
def _probe_cell(p, st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm, out,  # noqa: N803
                trail, trold, stamp, steps, hcnt, hacc, hstamp, touched, sols, lver, prec, pdep):
    """Assume each colour of cell ``p`` in turn and keep what every survivor agrees on.

    Returns ``(status, score, first)``: status -1 contradiction (no colour survives), 0
    nothing learnt, 1 cells narrowed in ``st`` (and lines scheduled: the caller
    propagates); score rates ``p`` as a branching cell (see ``V_HEUR``), first is the
    colour to try first there. With ``V_INCR`` the lines each assumption read are kept in
    ``pdep[p]`` (a probe that learnt nothing can then be skipped until one changes).
    """
    incr = v[V_INCR] != 0
    if incr:
        v[V_TICK] += 1
        prec[p, R_TICK] = -1  # until this probe completes
        for w in range(pdep.shape[1]):
            pdep[p, w] = U0
    v[V_PROBES] += 1
    v[V_HSTAMP] += 1
    hs = v[V_HSTAMP]
    ntouch = 0
    nsurv = 0
    ncol = v[V_NCOL]
    m = st[p]
    und0 = v[V_UNDEC]
    mn = 1 << 40
    mx = -1
    tot = 0
    prod = 1
    cmin = U0
    cmax = U0
    done = 0
    for c in range(ncol + 1):
        cb = bits[c]
        if (m & cb) == U0:
            continue
        v[V_PBRANCH] += 1
        _new_trail(v)
        sid = v[V_SID]
        stamp[p] = sid
        trail[0] = p
        trold[0] = m
        v[V_TRAIL] = 1
        st[p] = cb
        v[V_UNDEC] -= 1
        _mark_cell(sched, H, W, p, v[V_GEN])
        ok = propagate(st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm, out,
                       trail, trold, stamp, steps, False)
        nt = v[V_TRAIL]
        if v[V_STOP] != 0:  # stopped from outside: undo the assumption, learn nothing
            for t in range(nt - 1, -1, -1):
                st[trail[t]] = trold[t]
            v[V_UNDEC] = und0
            return 0, 0, U0
        if incr:  # the lines this assumption read: those through the cells it changed
            for t in range(nt):
                q = trail[t]
                r = q // W
                pdep[p, r >> 6] |= U1 << np.uint64(r & 63)
                cl = H + q - r * W
                pdep[p, cl >> 6] |= U1 << np.uint64(cl & 63)
        if ok:
            nsurv += 1
            done = max(done, und0 - v[V_UNDEC])
            if v[V_UNDEC] == 0:
                _store_solution(st, sols, v)
                if v[V_DEPTH] == 0:
                    v[V_TECH] = max(v[V_TECH], T_PROBE)  # a probe completed the grid
            tot += nt
            prod *= nt
            if nt < mn:
                mn = nt
                cmin = cb
            if nt > mx:
                mx = nt
                cmax = cb
            for t in range(nt):
                q = trail[t]
                if hstamp[q] != hs:
                    hstamp[q] = hs
                    hcnt[q] = 1
                    hacc[q] = st[q]
                    touched[ntouch] = q
                    ntouch += 1
                else:
                    hcnt[q] += 1
                    hacc[q] |= st[q]
        else:
            v[V_PCONTRA] += 1
        for t in range(nt - 1, -1, -1):
            st[trail[t]] = trold[t]
        v[V_UNDEC] = und0
        if v[V_NSOL] >= v[V_MAXSOL]:
            return 0, 0, U0
    if nsurv == 0:
        return -1, 0, U0
    learnt = _probe_learn(st, H, W, sched, v, hcnt, hacc, touched, ntouch, nsurv, lver)
    if learnt > 0:
        v[V_PROBECHG] += learnt
        return 1, 0, U0
    if incr:
        prec[p, R_TICK] = v[V_TICK]
        prec[p, R_DONE] = done
    if nsurv == 1:
        return 0, 0, U0
    om = v[V_ORDER]
    first = U0 if om == 0 else (cmin if om == 1 else cmax)
    return 0, _branch_score(v[V_HEUR], mn, mx, tot, prod), first


@njit(cache=True, nogil=True, inline="always")
def _branch_score(hm, mn, mx, tot, prod):
    """A probed cell's worth as a branching cell under heuristic ``hm`` (``V_HEUR``), from
    its surviving assumptions' trail lengths: the least ``mn``, the most ``mx``, their sum
    ``tot`` and product ``prod``."""
    if hm == 0:
        return mn
    if hm == 1:
        return tot
    if hm == 2:
        return prod
    if hm == 3:
        return mn * 4096 + mx
    # LalaFrogKK's: the weakest branch, plus 1.85 ln(1 + how unbalanced they are)
    return mn * 1024 + int(1.85 * 1024 * np.log(1.0 + (mx - mn)))


# ---- parity summing ----------------------------------------------------------------------
#
# Line logic reads one line at a time, probing one cell's consequences; neither can count
# across lines. Parity summing does, on black-and-white puzzles: the even rows together
# hold exactly T black cells (the sum of their clues), and each column puts between its
# fewest and its most black cells into the even rows (over the placements of its clue that
# the state allows). When the columns' fewest (or most) add up to T less their slack, every
# column is held to a narrower count, and a column solved under that count may lose cell
# colours that line logic alone keeps. The same with rows and the even columns (the odd
# rows and columns say the same: a line's total is fixed). Wolter's n-Dom puzzles (built
# to defeat solvers that guess) are decided by it with no search: the even rows' count is
# tight, which forces every vertical 3 of the columns to start on an even row, and line
# logic then places the dominoes one by one (docs/notes/ndom.md).

_SUM_INF = 1 << 40


@njit(cache=True, nogil=True, inline="always")
def _sum_fits(st, start, stride, n, w, nbp, i, e):
    """Whether a block may cover cells ``i..e-1`` (none of them white) with cell ``e``
    (if any) white after it."""
    return e <= n and w[nbp + e] == w[nbp + i] and \
        (e == n or (st[start + e * stride] & U1) != U0)


@njit(cache=True, nogil=True, inline="always")
def _sum_prefixes(st, start, stride, n, w, nbp, pcp):
    """``w[nbp + i]``: cells before ``i`` that cannot be black; ``w[pcp + i]``: even
    positions before ``i``."""
    w[nbp] = 0
    w[pcp] = 0
    for j in range(n):
        m = st[start + j * stride]
        w[nbp + j + 1] = w[nbp + j] + (1 if (m & U2) == U0 else 0)
        w[pcp + j + 1] = w[pcp + j] + (1 if (j & 1) == 0 else 0)


@njit(cache=True, nogil=True, inline="always")
def _sum_backward(st, start, stride, n, blen, b0, k, w, gmn, gmx, nbp, pcp):
    """The fewest and most counted cells from each state ``(i, b)`` to the end (``-1``
    most: the end cannot be reached)."""
    k1 = k + 1
    for i in range(n, -1, -1):
        for b in range(k, -1, -1):
            x = i * k1 + b
            mn = _SUM_INF
            mx = -1
            if i == n and b == k:
                mn = 0
                mx = 0
            if i < n and (st[start + i * stride] & U1) != U0:
                y = (i + 1) * k1 + b
                if w[gmx + y] >= 0:
                    mn = min(mn, w[gmn + y])
                    mx = max(mx, w[gmx + y])
            if b < k:
                e = i + blen[b0 + b]
                if _sum_fits(st, start, stride, n, w, nbp, i, e):
                    y = (min(e + 1, n)) * k1 + b + 1
                    if w[gmx + y] >= 0:
                        c = w[pcp + e] - w[pcp + i]
                        mn = min(mn, w[gmn + y] + c)
                        mx = max(mx, w[gmx + y] + c)
            w[gmn + x] = mn
            w[gmx + x] = mx


@njit(cache=True, nogil=True, inline="always")
def _sum_forward(st, start, stride, n, blen, b0, k, w, lo, hi, offsets):
    """The forward pass under ``lo <= count <= hi``: the fewest and most counted cells
    from the start to each state, marking the cells a placement in range may leave white
    (``w[cw + i]``) and the blocks it may place (a difference array at ``w[dlt]``)."""
    fmn, fmx, gmn, gmx, nbp, pcp, dlt, cw = offsets
    k1 = k + 1
    for x in range((n + 1) * k1):
        w[fmn + x] = _SUM_INF
        w[fmx + x] = -1
    for j in range(n + 1):
        w[dlt + j] = 0
        w[cw + j] = 0
    w[fmn] = 0
    w[fmx] = 0
    for i in range(n + 1):
        for b in range(k + 1):
            x = i * k1 + b
            if w[fmx + x] < 0 or w[gmx + x] < 0:
                continue
            if i < n and (st[start + i * stride] & U1) != U0:
                y = (i + 1) * k1 + b
                if w[gmx + y] >= 0 and w[fmn + x] + w[gmn + y] <= hi \
                        and w[fmx + x] + w[gmx + y] >= lo:
                    w[cw + i] = 1
                    w[fmn + y] = min(w[fmn + y], w[fmn + x])
                    w[fmx + y] = max(w[fmx + y], w[fmx + x])
            if b < k:
                e = i + blen[b0 + b]
                if _sum_fits(st, start, stride, n, w, nbp, i, e):
                    y = (min(e + 1, n)) * k1 + b + 1
                    c = w[pcp + e] - w[pcp + i]
                    if w[gmx + y] >= 0 and w[fmn + x] + c + w[gmn + y] <= hi \
                            and w[fmx + x] + c + w[gmx + y] >= lo:
                        w[dlt + i] += 1
                        w[dlt + e] -= 1
                        if e < n:
                            w[cw + e] = 1
                        w[fmn + y] = min(w[fmn + y], w[fmn + x] + c)
                        w[fmx + y] = max(w[fmx + y], w[fmx + x] + c)


@njit(cache=True, nogil=True)
def _sum_line(st, start, stride, n, blen, b0, k, w, lo, hi, out):
    """Count a black-and-white line's black cells on even positions, over the placements
    of its clue that the cell masks in ``st`` allow.

    With ``lo < 0``: returns ``(ok, fewest, most)`` (ok False: no placement at all). Else
    the line is solved under ``lo <= count <= hi``: ``out[j]`` gets the colours cell ``j``
    takes in some placement through which a count in range may pass (a transition is kept
    when the fewest and the most counts through it straddle the range: sound, and exact
    when the range is one end of the line's own range), and ``(ok, 0, 0)`` is returned.
    ``w`` is scratch of at least ``4 (n + 1) (k + 1) + 4 (n + 1)`` words.

    States are ``(i, b)``: cells before ``i`` placed with ``b`` blocks done (the gap after
    a block included); from one, cell ``i`` is white, or block ``b`` starts at ``i``.
    """
    sz = (n + 1) * (k + 1)
    fmn = 0
    fmx = sz
    gmn = 2 * sz
    gmx = 3 * sz
    nbp = 4 * sz  # nbp[i]: cells before i that cannot be black
    pcp = nbp + n + 1  # pcp[i]: even positions before i
    dlt = pcp + n + 1  # black marks (a difference array) when solving
    cw = dlt + n + 1  # white marks when solving
    _sum_prefixes(st, start, stride, n, w, nbp, pcp)
    _sum_backward(st, start, stride, n, blen, b0, k, w, gmn, gmx, nbp, pcp)
    if w[gmx] < 0:
        return False, 0, 0
    if lo < 0:
        return True, w[gmn], w[gmx]
    _sum_forward(st, start, stride, n, blen, b0, k, w, lo, hi,
                 (fmn, fmx, gmn, gmx, nbp, pcp, dlt, cw))
    run_ = 0
    for j in range(n):
        run_ += w[dlt + j]
        o = U0
        if w[cw + j] != 0:
            o |= U1
        if run_ > 0:
            o |= U2
        out[j] = o
    return True, 0, 0


@njit(cache=True, nogil=True, inline="always")
def _sum_family(st, H, W, lines, blen, sched, v, lver, sumw, srng, out, fam):  # noqa: N803
    """One family of :func:`_summing`: ``fam`` 0 counts the even rows' cells in the
    columns, 1 the even columns' in the rows. The cells narrowed, or -1 for a contradiction.
    """
    learnt = 0
    # fam 0: the even rows' count, read in the columns; fam 1: the even columns', in rows
    s0 = 0 if fam == 0 else H
    ns = H if fam == 0 else W
    x0 = H if fam == 0 else 0
    nx = W if fam == 0 else H
    total = 0
    for i in range(0, ns, 2):
        line = s0 + i
        for b in range(lines[line, 4]):
            total += blen[lines[line, 3] + b]
    slo = 0
    shi = 0
    for x in range(nx):
        if v[V_STOP] != 0:  # a count is O(k n): on a huge grid a pass takes seconds
            return learnt  # the caller sees V_STOP
        line = x0 + x
        v[V_SUMLINES] += 1
        v[V_WORK] += 1
        ok, mn, mx = _sum_line(st, lines[line, 0], lines[line, 1], lines[line, 2], blen,
                               lines[line, 3], lines[line, 4], sumw, -1, -1, out)
        if not ok:
            return -1
        srng[x, 0] = mn
        srng[x, 1] = mx
        slo += mn
        shi += mx
    if total < slo or total > shi:
        return -1
    if slo == shi:
        return learnt
    for x in range(nx):
        mn = srng[x, 0]
        mx = srng[x, 1]
        lo = max(mn, total - (shi - mx))
        hi = min(mx, total - (slo - mn))
        if lo == mn and hi == mx:
            continue
        if v[V_STOP] != 0:
            return learnt
        line = x0 + x
        start = lines[line, 0]
        stride = lines[line, 1]
        n = lines[line, 2]
        v[V_SUMLINES] += 1
        v[V_WORK] += 1
        ok, _a, _b = _sum_line(st, start, stride, n, blen, lines[line, 3], lines[line, 4],
                               sumw, lo, hi, out)
        if not ok:
            return -1
        for j in range(n):
            cell = start + j * stride
            o = st[cell] & out[j]
            if o == st[cell]:
                continue
            if o == U0:
                return -1
            st[cell] = o
            if _is_single(o):
                v[V_UNDEC] -= 1
            v[V_SUMCHG] += 1
            learnt += 1
            _mark_cell(sched, H, W, cell, v[V_GEN])
            _bump_cell(lver, v, H, W, cell)
    return learnt


@njit(cache=True, nogil=True)
def _summing(st, H, W, lines, blen, sched, v, lver, sumw, srng, out):  # noqa: N803
    """The parity-summing rung (black and white): 1 cells narrowed (their lines are
    scheduled), 0 nothing learnt, -1 a contradiction. Each line counted is one unit of work.
    It looks at ``V_STOP`` before each line it counts, as propagation does: a count is
    O(k n), and a pass over a 1000x1000 grid took 5 s that no deadline could cut.
    """
    learnt = 0
    for fam in range(2):
        r = _sum_family(st, H, W, lines, blen, sched, v, lver, sumw, srng, out, fam)
        if r < 0:
            return -1
        learnt += r
        if v[V_STOP] != 0:
            break
    return 1 if learnt > 0 else 0


# ---- the phases of run -------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _pause_reason(v, work_limit, nsteps, nsols):
    """Why run must return before the next unit of work (an ``RC_*``), or ``_GO``;
    ``nsteps``, ``nsols``: the room in the steps buffer and the solution store."""
    if v[V_STOP] != 0:
        return RC_STOPPED
    if v[V_LINES] + v[V_CACHEHIT] + v[V_WORK] >= work_limit:
        return RC_PAUSED
    if v[V_RECORD] == 1 and v[V_NSTEPS] >= nsteps:
        return RC_STEPS
    if nsols < v[V_MAXSOL] and nsols - v[V_NSOL] <= v[V_NCOL] + 1:
        return RC_GROW_SOLS  # one probe may find a solution per colour
    return _GO


@njit(cache=True, nogil=True, inline="always")
def _phase_init(s):
    """PH_INIT: the first rungs on the blank grid (recorded as the first step)."""
    v = s.v
    ok = init_state(s)
    if v[V_RECORD] == 1 and v[V_NSTEPS] < s.steps.shape[0]:
        s.steps[v[V_NSTEPS], :] = s.cur
        v[V_NSTEPS] += 1
    v[V_PHASE] = PH_PROP if ok else PH_BACK
    v[V_SUMDUE] = 1
    if not ok:
        _clear_schedule(s.sched)
    return _GO


@njit(cache=True, nogil=True, inline="always")
def _solved(v, cur, sols):
    """Every cell is decided: keep the solution; stop when enough, else backtrack."""
    _store_solution(cur, sols, v)
    if v[V_NSOL] >= v[V_MAXSOL]:
        v[V_PHASE] = PH_DONE
        return RC_SOLS
    v[V_PHASE] = PH_BACK
    return _GO


@njit(cache=True, nogil=True, inline="always")
def _after_propagation(v, cur, sols, ok):
    """Where a propagation leads: backtrack (contradiction), a solution, the end of the
    line rung, or a (new) probe pass over the cells."""
    if not ok:
        v[V_PHASE] = PH_BACK
        return _GO
    if v[V_UNDEC] == 0:
        return _solved(v, cur, sols)
    if v[V_STRAT] == 0:
        return RC_LIMIT
    v[V_PHASE] = PH_SUM if v[V_NCOL] == 1 and v[V_SUMDUE] == 1 else PH_PROBE
    v[V_PSINCE] = 0
    v[V_BEST] = -1
    v[V_BSCORE] = -1
    return _GO


@njit(cache=True, nogil=True, inline="always")
def _propagate_state(st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm,  # noqa: N803
                     out, trail, trold, stamp, steps, lver, root):
    """Line logic to a fixpoint on a fresh trail, outside a probe: 1 consistent, 0 a
    contradiction, -1 stopped from outside. The cells it changed mark their lines changed
    (the probe records' dependencies)."""
    _new_trail(v)
    ok = propagate(st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm, out,
                   trail, trold, stamp, steps, root)
    if v[V_STOP] != 0:
        return -1
    _bump_trail(lver, v, trail, H, W)
    return 1 if ok else 0


@njit(cache=True, nogil=True, inline="always")
def _phase_propagate(st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm,  # noqa: N803
                     out, trail, trold, stamp, steps, sols, lver):
    """PH_PROP: line logic to a fixpoint on a fresh trail."""
    root = v[V_DEPTH] == 0
    ok = _propagate_state(st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm,
                          out, trail, trold, stamp, steps, lver, root)
    if ok < 0:
        return RC_STOPPED
    if root and v[V_TRAIL] > 0:
        v[V_TECH] = max(v[V_TECH], T_LINE)
    return _after_propagation(v, st, sols, ok == 1)


@njit(cache=True, nogil=True, inline="always")
def _probe_learnt(status, st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache,  # noqa: N803
                  lm, out, trail, trold, stamp, steps, sols, lver):
    """A probe contradicted (``status`` < 0: backtrack) or narrowed cells (propagate them,
    then start the probe pass over)."""
    root = v[V_DEPTH] == 0
    if root:
        v[V_TECH] = max(v[V_TECH], T_PROBE)
    if status < 0:
        _clear_schedule(sched)
        v[V_PHASE] = PH_BACK
        return _GO
    v[V_SUMDIRTY] = 1
    ok = _propagate_state(st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm,
                          out, trail, trold, stamp, steps, lver, root)
    if ok < 0:
        return RC_STOPPED
    return _after_propagation(v, st, sols, ok == 1)


@njit(cache=True, nogil=True, inline="always")
def _phase_sum(st, H, W, lines, blen, sched, v, lver, sumw, srng, out):  # noqa: N803
    """PH_SUM: parity summing (black and white), where a node's line logic reached its
    fixpoint (``V_SUMDUE`` 1) or before it branches (2, when probing narrowed cells since
    summing last ran). What it narrows is propagated (and summed again); else the probe
    pass begins, or the branch is taken."""
    due = v[V_SUMDUE]
    v[V_SUMDUE] = 0
    v[V_SUMDIRTY] = 0
    r = _summing(st, H, W, lines, blen, sched, v, lver, sumw, srng, out)
    if r < 0:
        _clear_schedule(sched)
        v[V_PHASE] = PH_BACK
    elif r > 0:
        if v[V_DEPTH] == 0:
            v[V_TECH] = max(v[V_TECH], T_PROBE)
        v[V_SUMDUE] = 1
        v[V_PHASE] = PH_PROP
    else:
        v[V_PHASE] = PH_PROBE if due == 1 else PH_DECIDE
    return _GO


@njit(cache=True, nogil=True)
def _next_probe(v, cur, ncell):
    """The next undecided cell to probe (cells are taken in turn, wrapping around), or -1
    when a whole pass since the last deduction found nothing more to probe."""
    while v[V_PSINCE] < ncell:
        p = v[V_PPOS]
        v[V_PPOS] = p + 1 if p + 1 < ncell else 0
        if not _is_single(cur[p]):
            return p
        v[V_PSINCE] += 1
    return -1


@njit(cache=True, nogil=True, inline="always")
def _phase_probe(st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm, out,  # noqa: N803
                 trail, trold, stamp, steps, hcnt, hacc, hstamp, touched, sols, work_limit, lver,
                 prec, pdep):
    """PH_PROBE: probe the undecided cells in turn (a probe that narrows cells propagates
    them and starts the pass over); a pass that learns nothing ends in PH_DECIDE with the
    best-scored cell to branch on. Goes from cell to cell itself, with run's checks
    between them, and returns when the phase changes or run must return.
    """
    nsteps = steps.shape[0]
    nsols = sols.shape[0]
    while True:
        p = _next_probe(v, st, H * W)
        if p < 0:
            if v[V_NCOL] == 1 and v[V_SUMDIRTY] != 0:
                v[V_SUMDUE] = 2  # sum what probing learnt before branching
                v[V_PHASE] = PH_SUM
            else:
                v[V_PHASE] = PH_DECIDE
            return _GO
        if v[V_INCR] != 0 and not _stale(p, pdep, lver, prec, v[V_UNDEC]):
            status = 0  # the same lines would give the same answer: nothing learnt
            score = prec[p, R_SCORE]
            first = np.uint64(prec[p, R_FIRST])
        else:
            status, score, first = _probe_cell(
                p, st, H, W, lines, blen, bcol, bits, sched, v, F, B, run, sc, cache, lm, out,
                trail, trold, stamp, steps, hcnt, hacc, hstamp, touched, sols, lver, prec, pdep)
            if v[V_STOP] != 0:
                return RC_STOPPED
            if v[V_NSOL] >= v[V_MAXSOL]:
                v[V_PHASE] = PH_DONE
                return RC_SOLS
            if v[V_INCR] != 0:
                prec[p, R_SCORE] = score
                prec[p, R_FIRST] = np.int64(first)
        if status != 0:
            rc = _probe_learnt(status, st, H, W, lines, blen, bcol, bits, sched, v, F, B, run,
                               sc, cache, lm, out, trail, trold, stamp, steps, sols, lver)
            if rc != _GO or v[V_PHASE] != PH_PROBE:
                return rc
        else:
            v[V_PSINCE] += 1
            if score > v[V_BSCORE]:
                v[V_BSCORE] = score
                v[V_BEST] = p
                v[V_BRANCHC] = np.int64(first)
        rc = _pause_reason(v, work_limit, nsteps, nsols)
        if rc != _GO:
            return rc


@njit(cache=True, nogil=True, inline="always")
def _first_colour(bits, ncol, mask):
    """The lowest colour in ``mask`` (U0 if none)."""
    for c in range(ncol + 1):
        if (mask & bits[c]) != U0:
            return bits[c]
    return U0


@njit(cache=True, nogil=True, inline="always")
def _branch_cell(v, cur, bits, ncell):
    """The cell to branch on and the colour to try first there."""
    p = v[V_BEST]
    if p < 0:
        # no probe scored (every cell had one survivor): take the first undecided
        for c in range(ncell):
            if not _is_single(cur[c]):
                p = c
                break
    m = cur[p]
    first = np.uint64(v[V_BRANCHC]) if v[V_BEST] >= 0 else U0
    if (first & m) == U0 or not _is_single(first):
        first = _first_colour(bits, v[V_NCOL], m)
    return p, first


@njit(cache=True, nogil=True, inline="always")
def _phase_branch(v, cur, stack, bcell, brem, bits, sched, H, W, lver):  # noqa: N803
    """PH_DECIDE: save the state, give the chosen cell its first colour, go one deeper."""
    depth = v[V_DEPTH]
    if v[V_STRAT] < 2:
        return RC_LIMIT
    if v[V_NODELIM] >= 0 and v[V_NODES] >= v[V_NODELIM]:
        return RC_NODES
    p, first = _branch_cell(v, cur, bits, H * W)
    if depth == 0:
        v[V_TECH] = max(v[V_TECH], T_SEARCH)
    if depth >= stack.shape[0]:
        return RC_GROW_STACK
    stack[depth, :] = cur
    bcell[depth] = p
    brem[depth] = cur[p] & ~first
    cur[p] = first
    _bump_cell(lver, v, H, W, p)
    v[V_UNDEC] -= 1
    v[V_DEPTH] = depth + 1
    if depth + 1 > v[V_MAXDEPTH]:
        v[V_MAXDEPTH] = depth + 1
    v[V_NODES] += 1
    _mark_cell(sched, H, W, p, v[V_GEN])
    v[V_SUMDUE] = 1
    v[V_PHASE] = PH_PROP
    return _GO


@njit(cache=True, nogil=True, inline="always")
def _phase_backtrack(v, cur, stack, bcell, brem, bits, sched, H, W, lver):  # noqa: N803
    """PH_BACK: unwind to the deepest level with a colour left, restore its state and try
    that colour (the search is over when none is left)."""
    depth = v[V_DEPTH]
    while depth > 0 and brem[depth - 1] == U0:
        depth -= 1
    v[V_DEPTH] = depth
    if depth == 0:
        v[V_PHASE] = PH_DONE
        return RC_DONE
    if v[V_NODELIM] >= 0 and v[V_NODES] >= v[V_NODELIM]:
        return RC_NODES
    v[V_BACKTRACKS] += 1
    d = depth - 1
    rem = brem[d]
    nxt = _first_colour(bits, v[V_NCOL], rem)
    brem[d] = rem & ~nxt
    p = bcell[d]
    for c in range(H * W):
        if cur[c] != stack[d, c]:
            _bump_cell(lver, v, H, W, c)
            cur[c] = stack[d, c]
    # p is undecided in stack[d] (only PH_DECIDE writes the stack, and it branches on an
    # undecided cell), so giving it a colour takes one off the count
    und = _count_undecided(cur) - 1
    cur[p] = nxt
    _bump_cell(lver, v, H, W, p)
    v[V_UNDEC] = und
    v[V_NODES] += 1
    _clear_schedule(sched)
    _mark_cell(sched, H, W, p, v[V_GEN])
    v[V_SUMDUE] = 1
    v[V_PHASE] = PH_PROP
    return _GO


@njit(cache=True, nogil=True)
def run(s, work_limit):
    """Advance the solve held in ``s`` (an :class:`Engine`) until it ends or the work done
    (line requests, solved or cached, plus bookkeeping) passes ``work_limit``.

    Each turn of the loop does one unit of work in the current phase. Returns an ``RC_*``
    code; the solve resumes where it stopped on the next call (except after RC_STOPPED).
    The arrays are read out of ``s`` once here and handed to the hot phases (see
    :func:`propagate` for why).
    """
    (H, W, lines, blen, bcol, bits, _full, cur, stack, bcell, brem, sched, v,  # noqa: N806
     F, B, run_, sc, cache, lm, out, trail, trold, stamp, steps,  # noqa: N806
     hcnt, hacc, hstamp, touched, sols, lver, prec, pdep, sumw, srng) = s
    nsteps = steps.shape[0]
    nsols = sols.shape[0]
    while True:
        rc = _pause_reason(v, work_limit, nsteps, nsols)
        if rc != _GO:
            return rc
        ph = v[V_PHASE]
        if ph == PH_INIT:
            rc = _phase_init(s)
        elif ph == PH_PROP:
            rc = _phase_propagate(cur, H, W, lines, blen, bcol, bits, sched, v, F, B, run_, sc,
                                  cache, lm, out, trail, trold, stamp, steps, sols, lver)
        elif ph == PH_PROBE:
            rc = _phase_probe(cur, H, W, lines, blen, bcol, bits, sched, v, F, B, run_, sc,
                              cache, lm, out, trail, trold, stamp, steps, hcnt, hacc, hstamp,
                              touched, sols, work_limit, lver, prec, pdep)
        elif ph == PH_SUM:
            rc = _phase_sum(cur, H, W, lines, blen, sched, v, lver, sumw, srng, out)
        elif ph == PH_DECIDE:
            rc = _phase_branch(v, cur, stack, bcell, brem, bits, sched, H, W, lver)
        elif ph == PH_BACK:
            rc = _phase_backtrack(v, cur, stack, bcell, brem, bits, sched, H, W, lver)
        else:
            return RC_DONE
        if rc != _GO:
            return rc
