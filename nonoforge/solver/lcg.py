"""Lazy clause generation for black-and-white puzzles: CDCL over the cells, line logic as
the propagator.

A CDCL solver whose only variables are the cells (white 0, black 1) and whose propagators
are the engine's complete line logic on bitsets (:func:`nonoforge.solver.line.bw_bits`):
no block-start or automaton variables to decide on. Each line inference is explained by a
clause built lazily, only when conflict analysis needs it: the cells of the line fixed
before the inferred cell on the trail (line logic is monotone, so those imply it), cut
down greedily to a subset that still leaves the line without a placement once the
inferred cell takes its other colour (tests drop the latest cells first, so the
explanation keeps older, lower-level ones). A failed line is explained the same way.
Around that: 1UIP learning, VSIDS activity over cells with a binary heap, phase saving,
Luby restarts and deletion of learnt clauses by LBD at restarts -- all compiled.

Deterministic: fixed options, no random choices, no clock; a conflict budget bounds the
work. :func:`solve_lcg` starts from a state of cell masks (the root state ``auto`` hands
over after probing) and returns one solution, checked against the clues, or ``none``
(the state has no solution: a proof, as every learnt clause is implied) or ``budget``.

Takes puzzles with one colour whose lines fit one word (:data:`MAX_LINE` cells).
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from nonoforge.errors import SolverError
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver.kernel_cache import njit  # numba's, its cache keyed to all solver sources
from nonoforge.solver.line import MAX_BITS_LINE, U0, U1, _fill_right, _runs, bw_bits
from nonoforge.solver.tables import Tables

#: The longest line taken (one 64-bit word of positions, as :func:`bw_bits`).
MAX_LINE = MAX_BITS_LINE

# ---- scalars in iv -----------------------------------------------------------------------
I_NTRAIL = 0  # cells on the trail
I_QHEAD = 1  # next trail entry for clause propagation
I_LEVEL = 2  # decision level
I_NCL = 3  # clauses in the database (slots used)
I_ARENA = 4  # literals used in the arena
I_QH = 5  # line queue: head
I_QN = 6  # line queue: entries
I_CONFLICTS = 7
I_DECISIONS = 8
I_PROPS = 9  # cells set by propagation
I_LSOLVES = 10  # line propagations
I_EXPLAINS = 11  # explanations built
I_CKIND = 12  # conflict: 0 none, 1 clause, 2 line
I_CWHICH = 13  # the clause or line
I_SINCE = 14  # conflicts since the last restart
I_RESTARTS = 15
I_REDUCE_AT = 16  # conflicts at which the next reduction is due (done at a restart)
I_STATUS = 17
I_LSTAMP = 18  # stamp for LBD counting
I_LEARNT = 19  # live learnt clauses
I_DELETED = 20  # learnt clauses deleted
# options
O_RESTART = 21  # Luby unit (conflicts)
O_MINIMIZE = 22  # 1: minimise explanations greedily
O_PHASE = 23  # initial phase of every cell (0 white, 1 black)
O_REDUCE_FIRST = 24
O_REDUCE_INC = 25
O_KEEP_LBD = 26  # learnt clauses of this LBD or less are never deleted
O_CCMIN = 27  # 1: drop learnt literals whose clause reason is subsumed (local minimisation)
O_EORDER = 28  # explanations try dropping: 0 the latest cells first, 1 the earliest, 2 the farthest
O_CACHE = 29  # 1: keep each cell's explanation while it stays set
I_ETOP = 30  # explanation cache: entries used
I_EHITS = 31  # explanations answered by the cache
NIV = 32

F_VARINC = 0
F_DECAY = 1
NFV = 2

# return codes of run
RC_SAT = 1
RC_UNSAT = 2
RC_PAUSED = 3  # conflict limit of the slice reached
RC_GROW = 4  # the clause database is full: grow it and call again

_LINE_RSN = -2  # rsn[c] <= _LINE_RSN: set by line (_LINE_RSN - rsn[c])
_NO_RSN = -1


class Options(NamedTuple):
    """Knobs of the LCG search (all deterministic). The defaults are the best measured on
    sample A of ``bench/handovers.py`` (see docs/solver.md): explanations minimised (without,
    3.6x the conflicts), dropping the latest cells first (earliest first: 1.5x the
    conflicts, farthest from the inferred cell first: 1.3x), cells black first, a
    reduction every 5,000 conflicts and more. ``cache`` keeps explanations while their
    cell stays set; it never hit (only cells of the conflict's level are explained, and
    the backjump unsets them), so it is off."""

    restart_unit: int = 100
    minimize: bool = True
    phase: int = 1
    reduce_first: int = 5000
    reduce_inc: int = 300
    keep_lbd: int = 2
    ccmin: bool = True
    decay: float = 0.95
    eorder: int = 0
    cache: bool = False


# ---- line logic --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _fits(w, kb, n, blen, b0, k):
    """Whether some placement of the blocks fits: ``w`` the cells that may be white, ``kb``
    those that may be black (the forward half of :func:`bw_bits`)."""
    pm = (U1 << np.uint64(n + 1)) - U1
    f = _fill_right(U1, w) & pm
    for b in range(k):
        s = f if b == 0 else (f & w) << U1
        ln = blen[b0 + b]
        s &= _runs(kb, ln)
        f = _fill_right(s << np.uint64(ln), w) & pm
    return ((f >> np.uint64(n)) & U1) != U0


@njit(cache=True, nogil=True, inline="always")
def _drop_key(mode, tp, j, jt):
    """Which fixed cell an explanation tries to drop first (the highest key)."""
    if mode == 1:
        return -tp
    if mode == 2 and jt >= 0:
        return j - jt if j > jt else jt - j
    return tp


@njit(cache=True, nogil=True)
def _explain(line, target, before, lines, blen, lcell, val, tpos, order, out, mode):
    """The false literals of an explanation on ``line``: fixed cells whose values leave no
    placement once ``target`` (or, ``target < 0``, nothing) takes the colour it does not
    have; only cells before trail position ``before`` count. Written to ``out``; returns
    how many. ``order`` is scratch of the line's length."""
    n = lines[line, 2]
    b0 = lines[line, 3]
    k = lines[line, 4]
    full = (U1 << np.uint64(n)) - U1
    fw = U0
    fb = U0
    m = 0
    jt = -1
    for j in range(n):
        if lcell[line, j] == target:
            jt = j
    for j in range(n):
        c = lcell[line, j]
        if c == target:
            if val[c] == 1:
                fw |= U1 << np.uint64(j)  # assume the other colour
            else:
                fb |= U1 << np.uint64(j)
        elif val[c] >= 0 and tpos[c] < before:
            if val[c] == 1:
                fb |= U1 << np.uint64(j)
            else:
                fw |= U1 << np.uint64(j)
            # insert j into order, the highest key first
            key = _drop_key(mode, tpos[c], j, jt)
            i = m
            while i > 0:
                prev = order[i - 1]
                if _drop_key(mode, tpos[lcell[line, prev]], prev, jt) >= key:
                    break
                order[i] = prev
                i -= 1
            order[i] = j
            m += 1
    return _minimise(line, lines, blen, lcell, val, order, m, fw, fb, full, n, b0, k, out)


@njit(cache=True, nogil=True)
def _minimise(line, lines, blen, lcell, val, order, m, fw, fb, full, n, b0, k, out):
    """Drop from the fixed cells ``order[:m]`` each one the contradiction survives without
    (when ``lines[line, 5]`` says so); their false literals to ``out``, the count returned."""
    minimise = lines[line, 5] != 0
    for i in range(m):
        j = order[i]
        bit = U1 << np.uint64(j)
        if not minimise:
            break
        nw = fw & ~bit
        nb = fb & ~bit
        if not _fits(full & ~nb, full & ~nw, n, blen, b0, k):
            fw = nw
            fb = nb
            order[i] = -1
    cnt = 0
    for i in range(m):
        j = order[i]
        if j < 0:
            continue
        c = lcell[line, j]
        out[cnt] = 2 * c + (1 - val[c])
        cnt += 1
    return cnt


# ---- the VSIDS heap ----------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _heap_up(heap, hpos, act, i):
    c = heap[i]
    a = act[c]
    while i > 0:
        p = (i - 1) >> 1
        if act[heap[p]] >= a:
            break
        heap[i] = heap[p]
        hpos[heap[i]] = i
        i = p
    heap[i] = c
    hpos[c] = i


@njit(cache=True, nogil=True)
def _heap_down(heap, hpos, act, i, size):
    c = heap[i]
    a = act[c]
    while True:
        ch = 2 * i + 1
        if ch >= size:
            break
        if ch + 1 < size and act[heap[ch + 1]] > act[heap[ch]]:
            ch += 1
        if act[heap[ch]] <= a:
            break
        heap[i] = heap[ch]
        hpos[heap[i]] = i
        i = ch
    heap[i] = c
    hpos[c] = i


@njit(cache=True, nogil=True)
def _heap_insert(heap, hpos, act, hv, c):
    if hpos[c] >= 0:
        return
    i = hv[0]
    hv[0] += 1
    heap[i] = c
    hpos[c] = i
    _heap_up(heap, hpos, act, i)


@njit(cache=True, nogil=True)
def _heap_pop(heap, hpos, act, hv):
    size = hv[0]
    c = heap[0]
    hpos[c] = -1
    size -= 1
    hv[0] = size
    if size > 0:
        heap[0] = heap[size]
        hpos[heap[0]] = 0
        _heap_down(heap, hpos, act, 0, size)
    return c


@njit(cache=True, nogil=True)
def _bump(c, act, fv, heap, hpos):
    act[c] += fv[F_VARINC]
    if act[c] > 1e100:
        for i in range(act.shape[0]):
            act[i] *= 1e-100
        fv[F_VARINC] *= 1e-100
    if hpos[c] >= 0:
        _heap_up(heap, hpos, act, hpos[c])


# ---- assignment and backtracking ---------------------------------------------------------


@njit(cache=True, nogil=True)
def _assign(c, v, reason, iv, val, lev, rsn, tpos, trail, fw, fb, cline, cidx):
    val[c] = v
    lev[c] = iv[I_LEVEL]
    rsn[c] = reason
    t = iv[I_NTRAIL]
    tpos[c] = t
    trail[t] = c
    iv[I_NTRAIL] = t + 1
    for s in range(2):
        bit = U1 << np.uint64(cidx[c, s])
        if v == 1:
            fb[cline[c, s]] |= bit
        else:
            fw[cline[c, s]] |= bit


@njit(cache=True, nogil=True)
def _enqueue_line(iv, lq, inq, line):
    if inq[line]:
        return
    nl = lq.shape[0]
    lq[(iv[I_QH] + iv[I_QN]) % nl] = line
    iv[I_QN] += 1
    inq[line] = 1


@njit(cache=True, nogil=True)
def _backtrack(level, iv, val, rsn, trail, tlim, fw, fb, cline, cidx, phase, heap, hpos, act, hv,
               lq, inq, eoff):
    if iv[I_LEVEL] <= level:
        return
    stop = tlim[level + 1]
    for t in range(iv[I_NTRAIL] - 1, stop - 1, -1):
        c = trail[t]
        for s in range(2):
            bit = ~(U1 << np.uint64(cidx[c, s]))
            fw[cline[c, s]] &= bit
            fb[cline[c, s]] &= bit
        phase[c] = val[c]
        val[c] = -1
        rsn[c] = _NO_RSN
        eoff[c] = -1
        _heap_insert(heap, hpos, act, hv, c)
    iv[I_NTRAIL] = stop
    iv[I_QHEAD] = stop
    iv[I_LEVEL] = level
    while iv[I_QN] > 0:  # a conflict left lines queued: their fixpoint holds below
        inq[lq[iv[I_QH]]] = 0
        iv[I_QH] = (iv[I_QH] + 1) % lq.shape[0]
        iv[I_QN] -= 1


# ---- propagation -------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _prop_line(line, iv, lines, blen, lcell, sc, val, lev, rsn, tpos, trail, fw, fb, cline,
               cidx):
    """Line logic on ``line``; False on a contradiction. Cells it settles are set with the
    line as their reason (their other lines are queued when the clauses see them)."""
    iv[I_LSOLVES] += 1
    n = lines[line, 2]
    full = (U1 << np.uint64(n)) - U1
    ok, white, black = bw_bits(full & ~fb[line], full & ~fw[line], n, blen, lines[line, 3],
                               lines[line, 4], sc)
    if not ok:
        return False
    newb = black & ~white & ~fb[line]
    neww = white & ~black & ~fw[line]
    todo = newb | neww
    if todo == U0:
        return True
    for j in range(n):
        bit = U1 << np.uint64(j)
        if (todo & bit) != U0:
            v = 1 if (newb & bit) != U0 else 0
            _assign(lcell[line, j], v, _LINE_RSN - line, iv, val, lev, rsn, tpos, trail, fw, fb,
                    cline, cidx)
            iv[I_PROPS] += 1
    return True


@njit(cache=True, nogil=True)
def _prop_clauses(iv, arena, cst, csz, wnext, whead, val, lev, rsn, tpos, trail, fw, fb, cline,
                  cidx, lq, inq):
    """Unit propagation over the learnt clauses (two watched literals, linked watch lists);
    the index of a falsified clause, or -1."""
    while iv[I_QHEAD] < iv[I_NTRAIL]:
        c = trail[iv[I_QHEAD]]
        iv[I_QHEAD] += 1
        for side in range(2):  # its lines, but not the one whose logic set it
            if rsn[c] != _LINE_RSN - cline[c, side]:
                _enqueue_line(iv, lq, inq, cline[c, side])
        false_lit = 2 * c + 1 - val[c]
        prev = -1
        node = whead[false_lit]
        while node >= 0:
            nxt = wnext[node]
            cl = node >> 1
            i = node & 1
            s = cst[cl]
            other = arena[s + 1 - i]
            ov = val[other >> 1]
            if ov >= 0 and ov == (other & 1):
                prev = node
                node = nxt
                continue
            moved = False
            for j in range(s + 2, s + csz[cl]):
                lit = arena[j]
                lv = val[lit >> 1]
                if lv < 0 or lv == (lit & 1):
                    arena[j] = arena[s + i]
                    arena[s + i] = lit
                    if prev < 0:
                        whead[false_lit] = nxt
                    else:
                        wnext[prev] = nxt
                    wnext[node] = whead[lit]
                    whead[lit] = node
                    moved = True
                    break
            if moved:
                node = nxt
                continue
            prev = node
            node = nxt
            if ov >= 0:
                return cl
            _assign(other >> 1, other & 1, cl, iv, val, lev, rsn, tpos, trail, fw, fb, cline,
                    cidx)
            iv[I_PROPS] += 1
    return -1


# ---- the whole state ---------------------------------------------------------------------


class State(NamedTuple):
    """Every array :func:`run` works in (the whole resumable state)."""

    lines: np.ndarray  # (H + W, 6): first cell, stride, length, clue offset, blocks, minimise
    blen: np.ndarray
    lcell: np.ndarray  # lcell[l, j]: the j-th cell of line l
    cline: np.ndarray  # cline[c]: c's row line and column line
    cidx: np.ndarray  # cidx[c]: c's position in them
    iv: np.ndarray
    fv: np.ndarray
    val: np.ndarray  # -1 undecided, 0 white, 1 black
    lev: np.ndarray
    rsn: np.ndarray
    tpos: np.ndarray
    trail: np.ndarray
    tlim: np.ndarray  # tlim[d]: trail size when level d began
    fw: np.ndarray  # fw[l]: the cells of l fixed white (bits)
    fb: np.ndarray  # ... fixed black
    lq: np.ndarray  # line queue (ring)
    inq: np.ndarray
    phase: np.ndarray
    act: np.ndarray
    heap: np.ndarray
    hpos: np.ndarray
    hv: np.ndarray  # hv[0]: heap size
    seen: np.ndarray
    arena: np.ndarray  # clause literals
    cst: np.ndarray  # clause start in the arena (-1: deleted)
    csz: np.ndarray
    clbd: np.ndarray
    wnext: np.ndarray  # watch list links, node 2*clause + watched position
    whead: np.ndarray  # whead[lit]: first node watching lit
    sc: np.ndarray  # line scratch
    ebuf: np.ndarray  # an explanation's literals
    order: np.ndarray  # explanation scratch
    learnt: np.ndarray  # the clause being learnt
    lstamp: np.ndarray  # per level: LBD stamp
    ecache: np.ndarray  # explanations kept (literals)
    eoff: np.ndarray  # eoff[c]: where c's explanation is kept (-1: not kept)
    elen: np.ndarray  # its length


@njit(cache=True, nogil=True)
def _reason_lits(c, s, out):
    """The false literals of the reason of cell ``c`` into ``out`` (count returned)."""
    r = s.rsn[c]
    if r >= 0:
        st = s.cst[r]
        cnt = 0
        for j in range(st, st + s.csz[r]):
            lit = s.arena[j]
            if lit >> 1 != c:
                out[cnt] = lit
                cnt += 1
        return cnt
    iv = s.iv
    if s.eoff[c] >= 0:
        iv[I_EHITS] += 1
        e = s.eoff[c]
        for i in range(s.elen[c]):
            out[i] = s.ecache[e + i]
        return s.elen[c]
    iv[I_EXPLAINS] += 1
    cnt = _explain(_LINE_RSN - r, c, s.tpos[c], s.lines, s.blen, s.lcell, s.val, s.tpos,
                   s.order, out, iv[O_EORDER])
    if iv[O_CACHE]:
        if iv[I_ETOP] + cnt > s.ecache.shape[0]:  # full: start afresh
            s.eoff[:] = -1
            iv[I_ETOP] = 0
        e = iv[I_ETOP]
        for i in range(cnt):
            s.ecache[e + i] = out[i]
        s.eoff[c] = e
        s.elen[c] = cnt
        iv[I_ETOP] = e + cnt
    return cnt


@njit(cache=True, nogil=True)
def _conflict_lits(s, out):
    """The false literals of the current conflict into ``out``."""
    w = s.iv[I_CWHICH]
    if s.iv[I_CKIND] == 1:
        st = s.cst[w]
        n = s.csz[w]
        for j in range(n):
            out[j] = s.arena[st + j]
        return n
    s.iv[I_EXPLAINS] += 1
    return _explain(w, -1, s.iv[I_NTRAIL] + 1, s.lines, s.blen, s.lcell, s.val, s.tpos,
                    s.order, out, s.iv[O_EORDER])


@njit(cache=True, nogil=True)
def _analyze(s):
    """1UIP: the learnt clause in ``s.learnt`` (asserting literal first, then the literal of
    the highest other level); returns (size, backjump level)."""
    iv = s.iv
    level = iv[I_LEVEL]
    seen = s.seen
    learnt = s.learnt
    size = 1
    path = 0
    idx = iv[I_NTRAIL] - 1
    cnt = _conflict_lits(s, s.ebuf)
    p = -1
    while True:
        for i in range(cnt):
            lit = s.ebuf[i]
            c = lit >> 1
            if seen[c] or s.lev[c] == 0:
                continue
            seen[c] = 1
            _bump(c, s.act, s.fv, s.heap, s.hpos)
            if s.lev[c] >= level:
                path += 1
            else:
                learnt[size] = lit
                size += 1
        while not seen[s.trail[idx]]:
            idx -= 1
        p = s.trail[idx]
        idx -= 1
        seen[p] = 0
        path -= 1
        if path <= 0:
            break
        cnt = _reason_lits(p, s, s.ebuf)
    learnt[0] = 2 * p + 1 - s.val[p]
    if iv[O_CCMIN]:
        size = _ccmin(s, size)
    for i in range(1, size):
        seen[learnt[i] >> 1] = 0
    return _put_second(s, size)


@njit(cache=True, nogil=True)
def _ccmin(s, size):
    """Local minimisation: drop a literal whose reason is a clause (not a line: those would
    cost an explanation) all of whose other cells are in the learnt clause or at level 0."""
    learnt = s.learnt
    keep = 1
    for i in range(1, size):
        c = learnt[i] >> 1
        r = s.rsn[c]
        drop = False
        if r >= 0:
            drop = True
            st = s.cst[r]
            for j in range(st, st + s.csz[r]):
                d = s.arena[j] >> 1
                if d != c and not s.seen[d] and s.lev[d] > 0:
                    drop = False
                    break
        if drop:
            s.seen[c] = 0
        else:
            learnt[keep] = learnt[i]
            keep += 1
    return keep


@njit(cache=True, nogil=True)
def _put_second(s, size):
    """Move the literal of the highest level (below the asserting one) to position 1."""
    learnt = s.learnt
    if size == 1:
        return size, 0
    best = 1
    for i in range(2, size):
        if s.lev[learnt[i] >> 1] > s.lev[learnt[best] >> 1]:
            best = i
    x = learnt[1]
    learnt[1] = learnt[best]
    learnt[best] = x
    return size, s.lev[learnt[1] >> 1]


@njit(cache=True, nogil=True)
def _lbd(s, size):
    s.iv[I_LSTAMP] += 1
    stamp = s.iv[I_LSTAMP]
    n = 0
    for i in range(size):
        lv = s.lev[s.learnt[i] >> 1]
        if s.lstamp[lv] != stamp:
            s.lstamp[lv] = stamp
            n += 1
    return n


@njit(cache=True, nogil=True)
def _attach(s, cl):
    st = s.cst[cl]
    for i in range(2):
        lit = s.arena[st + i]
        node = 2 * cl + i
        s.wnext[node] = s.whead[lit]
        s.whead[lit] = node


@njit(cache=True, nogil=True)
def _add_learnt(s, size, lbd):
    """Store the learnt clause (two literals or more); its index."""
    iv = s.iv
    cl = iv[I_NCL]
    st = iv[I_ARENA]
    for i in range(size):
        s.arena[st + i] = s.learnt[i]
    s.cst[cl] = st
    s.csz[cl] = size
    s.clbd[cl] = lbd
    iv[I_NCL] = cl + 1
    iv[I_ARENA] = st + size
    iv[I_LEARNT] += 1
    _attach(s, cl)
    return cl


@njit(cache=True, nogil=True)
def _propagate(s):
    """Clauses to a fixpoint, then one line at a time (back to the clauses after each);
    sets the conflict in iv and returns False on one."""
    iv = s.iv
    while True:
        cl = _prop_clauses(iv, s.arena, s.cst, s.csz, s.wnext, s.whead, s.val, s.lev, s.rsn,
                           s.tpos, s.trail, s.fw, s.fb, s.cline, s.cidx, s.lq, s.inq)
        if cl >= 0:
            iv[I_CKIND] = 1
            iv[I_CWHICH] = cl
            return False
        if iv[I_QN] == 0:
            return True
        line = s.lq[iv[I_QH]]
        iv[I_QH] = (iv[I_QH] + 1) % s.lq.shape[0]
        iv[I_QN] -= 1
        s.inq[line] = 0
        if not _prop_line(line, iv, s.lines, s.blen, s.lcell, s.sc, s.val, s.lev, s.rsn,
                          s.tpos, s.trail, s.fw, s.fb, s.cline, s.cidx):
            iv[I_CKIND] = 2
            iv[I_CWHICH] = line
            return False


@njit(cache=True, nogil=True)
def _back(s, level):
    _backtrack(level, s.iv, s.val, s.rsn, s.trail, s.tlim, s.fw, s.fb, s.cline, s.cidx,
               s.phase, s.heap, s.hpos, s.act, s.hv, s.lq, s.inq, s.eoff)


@njit(cache=True, nogil=True)
def _luby(i):
    """The ``i``-th term (0-based) of the Luby sequence 1 1 2 1 1 2 4 ..."""
    size = 1
    seq = 0
    while size < i + 1:
        seq += 1
        size = 2 * size + 1
    while size - 1 != i:
        size = (size - 1) >> 1
        seq -= 1
        i = i % size
    return 1 << seq


@njit(cache=True, nogil=True)
def _reduce(s):
    """At level 0: drop the worse half of the deletable learnt clauses (highest LBD, the
    older first among equals), simplify the rest by the level-0 cells and rebuild the
    arena and the watch lists. False when a clause became empty (no solution)."""
    iv = s.iv
    ncl = iv[I_NCL]
    cand = np.empty(ncl, dtype=np.int64)
    m = 0
    for cl in range(ncl):
        if s.clbd[cl] > iv[O_KEEP_LBD]:
            cand[m] = cl
            m += 1
    if m > 0:
        keys = np.empty(m, dtype=np.int64)
        for i in range(m):
            keys[i] = -s.clbd[cand[i]] * (ncl + 1) + cand[i]
        ordr = np.argsort(keys)
        for i in range(m // 2):
            s.csz[cand[ordr[i]]] = 0
            iv[I_DELETED] += 1
    return _compact(s)


@njit(cache=True, nogil=True)
def _compact(s):
    """Rebuild the arena from the live clauses, simplified at level 0 (satisfied clauses
    out, false literals out, units set); False on an empty clause."""
    iv = s.iv
    ncl = iv[I_NCL]
    for lit in range(s.whead.shape[0]):
        s.whead[lit] = -1
    top = 0
    out = 0
    units = 0
    for cl in range(ncl):
        n = s.csz[cl]
        if n == 0:
            continue
        st = s.cst[cl]
        keep = 0
        sat = False
        for j in range(st, st + n):
            lit = s.arena[j]
            v = s.val[lit >> 1]
            if v < 0:
                s.arena[top + keep] = lit
                keep += 1
            elif v == (lit & 1):
                sat = True
                break
        if sat:
            continue
        if keep == 0:
            return False
        if keep == 1:
            lit = s.arena[top]
            _assign(lit >> 1, lit & 1, _NO_RSN, iv, s.val, s.lev, s.rsn, s.tpos, s.trail, s.fw,
                    s.fb, s.cline, s.cidx)
            units += 1
            continue
        s.cst[out] = top
        s.csz[out] = keep
        s.clbd[out] = s.clbd[cl]
        _attach(s, out)
        top += keep
        out += 1
    iv[I_NCL] = out
    iv[I_ARENA] = top
    iv[I_LEARNT] = out
    return True


@njit(cache=True, nogil=True)
def _conflict(s):
    """Learn from the current conflict, jump back and assert; False when it is at level 0
    (no solution)."""
    iv = s.iv
    iv[I_CONFLICTS] += 1
    iv[I_SINCE] += 1
    if iv[I_LEVEL] == 0:
        return False
    size, bj = _analyze(s)
    _back(s, bj)
    lit = s.learnt[0]
    if size == 1:
        _assign(lit >> 1, lit & 1, _NO_RSN, iv, s.val, s.lev, s.rsn, s.tpos, s.trail, s.fw, s.fb,
                s.cline, s.cidx)
    else:
        cl = _add_learnt(s, size, _lbd(s, size))
        _assign(lit >> 1, lit & 1, cl, iv, s.val, s.lev, s.rsn, s.tpos, s.trail, s.fw, s.fb,
                s.cline, s.cidx)
    s.fv[F_VARINC] /= s.fv[F_DECAY]
    return True


@njit(cache=True, nogil=True)
def _decide(s):
    """Branch on the most active undecided cell, on its saved phase; False when none is."""
    iv = s.iv
    while s.hv[0] > 0:
        c = _heap_pop(s.heap, s.hpos, s.act, s.hv)
        if s.val[c] < 0:
            iv[I_DECISIONS] += 1
            iv[I_LEVEL] += 1
            s.tlim[iv[I_LEVEL]] = iv[I_NTRAIL]
            _assign(c, s.phase[c], _NO_RSN, iv, s.val, s.lev, s.rsn, s.tpos, s.trail, s.fw,
                    s.fb, s.cline, s.cidx)
            return True
    return False


@njit(cache=True, nogil=True)
def _full(s):
    """Whether the clause database may not take one more clause of every cell."""
    ncell = s.val.shape[0]
    return (s.iv[I_NCL] + 2 >= s.cst.shape[0]
            or s.iv[I_ARENA] + ncell + 1 >= s.arena.shape[0])


@njit(cache=True, nogil=True)
def _restart(s):
    """Back to level 0; reduce the learnt clauses when due. False: no solution."""
    iv = s.iv
    iv[I_SINCE] = 0
    iv[I_RESTARTS] += 1
    _back(s, 0)
    if iv[I_CONFLICTS] >= iv[I_REDUCE_AT] or _full(s):
        iv[I_REDUCE_AT] = iv[I_CONFLICTS] + iv[O_REDUCE_FIRST] + iv[O_REDUCE_INC] * iv[I_RESTARTS]
        return _reduce(s)
    return True


@njit(cache=True, nogil=True)
def run(s, conflict_limit):
    """Search until a solution (RC_SAT), a proof of none (RC_UNSAT), ``conflict_limit``
    conflicts in all (RC_PAUSED: call again to go on) or a full clause store (RC_GROW)."""
    iv = s.iv
    while True:
        if not _propagate(s):
            if not _conflict(s):
                return RC_UNSAT
            if _full(s):
                if not _restart(s):
                    return RC_UNSAT
                if _full(s):
                    return RC_GROW
            elif iv[I_SINCE] >= iv[O_RESTART] * _luby(iv[I_RESTARTS]) and not _restart(s):
                return RC_UNSAT
            if conflict_limit >= 0 and iv[I_CONFLICTS] >= conflict_limit:
                return RC_PAUSED
            continue
        if not _decide(s):
            return RC_SAT


@njit(cache=True, nogil=True)
def block(s):
    """After RC_SAT: back to level 0 and add a clause that the decisions of this solution
    are not all taken again (propagation is sound, so any solution agreeing with them is
    this one; the clause excludes it and nothing else). The clause's LBD is 0: never
    deleted. False when there were no decisions (the solution was forced at level 0: there
    is no other). There is room for the clause: :func:`run` keeps the store below
    :func:`_full` after every conflict."""
    iv = s.iv
    size = iv[I_LEVEL]
    for lv in range(1, size + 1):
        c = s.trail[s.tlim[lv]]
        s.learnt[lv - 1] = 2 * c + (1 - s.val[c])
    _back(s, 0)
    if size == 0:
        return False
    if size == 1:
        lit = s.learnt[0]
        _assign(lit >> 1, lit & 1, _NO_RSN, iv, s.val, s.lev, s.rsn, s.tpos, s.trail, s.fw,
                s.fb, s.cline, s.cidx)
    else:
        _add_learnt(s, size, 0)
    return True


@njit(cache=True, nogil=True)
def start(s, cells):
    """Set the decided cells of ``cells`` (masks: 1 white, 2 black, 3 open) at level 0
    and queue every line; False when a cell has no colour left."""
    iv = s.iv
    n = s.val.shape[0]
    for c in range(n):
        m = cells[c] & np.uint64(3)
        if m == U0:
            return False
        if m == U1:
            _assign(c, 0, _NO_RSN, iv, s.val, s.lev, s.rsn, s.tpos, s.trail, s.fw, s.fb,
                    s.cline, s.cidx)
        elif m == np.uint64(2):
            _assign(c, 1, _NO_RSN, iv, s.val, s.lev, s.rsn, s.tpos, s.trail, s.fw, s.fb,
                    s.cline, s.cidx)
        else:
            _heap_insert(s.heap, s.hpos, s.act, s.hv, c)
    iv[I_QHEAD] = iv[I_NTRAIL]
    for line in range(s.lq.shape[0]):
        _enqueue_line(iv, s.lq, s.inq, line)
    return True


# ---- Python side -------------------------------------------------------------------------


def supports(puzzle: Puzzle) -> bool:
    """Whether :func:`solve_lcg` takes ``puzzle``: black and white, lines of at most
    :data:`MAX_LINE` cells."""
    return puzzle.ncolors == 1 and max(puzzle.height, puzzle.width) <= MAX_LINE


def new_state(t: Tables, options: Options, clauses: int = 1 << 14, arena: int = 1 << 20) -> State:
    """Every array of a fresh search of the puzzle of ``t``."""
    h, w = t.height, t.width
    ncell, nl, maxn = h * w, h + w, max(h, w)
    lines = np.zeros((nl, 6), dtype=np.int64)
    lines[:, :5] = t.lines
    lines[:, 5] = 1 if options.minimize else 0
    lcell = np.zeros((nl, maxn), dtype=np.int64)
    cline = np.zeros((ncell, 2), dtype=np.int64)
    cidx = np.zeros((ncell, 2), dtype=np.int64)
    for li in range(nl):
        first, stride, n = int(t.lines[li, 0]), int(t.lines[li, 1]), int(t.lines[li, 2])
        cells = first + stride * np.arange(n)
        lcell[li, :n] = cells
        side = 0 if li < h else 1
        cline[cells, side] = li
        cidx[cells, side] = np.arange(n)
    iv = np.zeros(NIV, dtype=np.int64)
    iv[O_RESTART] = options.restart_unit
    iv[O_MINIMIZE] = int(options.minimize)
    iv[O_PHASE] = options.phase
    iv[O_REDUCE_FIRST] = options.reduce_first
    iv[O_REDUCE_INC] = options.reduce_inc
    iv[O_KEEP_LBD] = options.keep_lbd
    iv[O_CCMIN] = int(options.ccmin)
    iv[O_EORDER] = options.eorder
    iv[O_CACHE] = int(options.cache)
    iv[I_REDUCE_AT] = options.reduce_first
    fv = np.zeros(NFV, dtype=np.float64)
    fv[F_VARINC] = 1.0
    fv[F_DECAY] = options.decay
    z = np.zeros
    return State(
        lines=lines, blen=t.blen, lcell=lcell, cline=cline, cidx=cidx, iv=iv, fv=fv,
        val=np.full(ncell, -1, dtype=np.int64), lev=z(ncell, dtype=np.int64),
        rsn=np.full(ncell, _NO_RSN, dtype=np.int64), tpos=z(ncell, dtype=np.int64),
        trail=z(ncell, dtype=np.int64), tlim=z(ncell + 2, dtype=np.int64),
        fw=z(nl, dtype=np.uint64), fb=z(nl, dtype=np.uint64), lq=z(nl, dtype=np.int64),
        inq=z(nl, dtype=np.int64), phase=np.full(ncell, options.phase, dtype=np.int64),
        act=z(ncell, dtype=np.float64), heap=z(ncell, dtype=np.int64),
        hpos=np.full(ncell, -1, dtype=np.int64), hv=z(1, dtype=np.int64),
        seen=z(ncell, dtype=np.int64), arena=z(arena, dtype=np.int64),
        cst=z(clauses, dtype=np.int64), csz=z(clauses, dtype=np.int64),
        clbd=z(clauses, dtype=np.int64), wnext=z(2 * clauses, dtype=np.int64),
        whead=np.full(2 * ncell, -1, dtype=np.int64), sc=z(2 * t.max_blocks + 4, dtype=np.uint64),
        ebuf=z(ncell + 1, dtype=np.int64), order=z(maxn + 1, dtype=np.int64),
        learnt=z(ncell + 1, dtype=np.int64), lstamp=z(ncell + 2, dtype=np.int64),
        ecache=z(max(1 << 16, 64 * ncell), dtype=np.int64), eoff=np.full(ncell, -1, dtype=np.int64),
        elen=z(ncell, dtype=np.int64),
    )


def _grown(s: State) -> State:
    """The same state with room for twice the clauses (at level 0, watch lists rebuilt)."""
    ncl = int(s.iv[I_NCL])
    cap = 2 * s.cst.shape[0]
    cst = np.zeros(cap, dtype=np.int64)
    csz = np.zeros(cap, dtype=np.int64)
    clbd = np.zeros(cap, dtype=np.int64)
    cst[:ncl], csz[:ncl], clbd[:ncl] = s.cst[:ncl], s.csz[:ncl], s.clbd[:ncl]
    arena = np.zeros(2 * s.arena.shape[0], dtype=np.int64)
    arena[: s.arena.shape[0]] = s.arena
    g = s._replace(cst=cst, csz=csz, clbd=clbd, arena=arena,
                   wnext=np.zeros(2 * cap, dtype=np.int64))
    _compact(g)
    return g


class LcgOutcome(NamedTuple):
    """What :func:`solve_lcg` found: ``status`` ``found`` (``grid`` set, checked against the
    clues), ``none`` (proof that the state has no solution), ``budget`` or ``timeout``.
    Asked for two solutions, ``multiple`` (``grid`` and ``second`` set) or ``unique``
    (``grid`` set, and a proof that the state has no other) instead of ``found``; a budget
    or timeout after the first keeps it in ``grid``. ``first_conflicts`` is the conflict
    count when the first solution was found."""

    status: str
    grid: Grid | None
    conflicts: int
    decisions: int
    explanations: int
    line_solves: int
    second: Grid | None = None
    first_conflicts: int = 0


#: Conflicts per compiled slice when a deadline must be watched between slices.
SLICE = 2000


def solve_lcg(
    puzzle: Puzzle,
    state: np.ndarray | None = None,
    conflict_budget: int | None = None,
    deadline: float | None = None,
    options: Options | None = None,
    tables: Tables | None = None,
    max_solutions: int = 1,
) -> LcgOutcome:
    """One solution of ``puzzle`` from ``state`` (cell masks, e.g. the root state after
    probing) by lazy clause generation; see the module's text. ``max_solutions=2`` goes on
    after the first with a clause that blocks it (:func:`block`), so the answer is
    ``multiple`` or ``unique``; the budget and deadline cover both."""
    if not supports(puzzle):
        raise SolverError("lazy clause generation takes black-and-white puzzles with lines "
                          f"of at most {MAX_LINE} cells")
    if max_solutions not in (1, 2):
        raise SolverError("lazy clause generation finds one or two solutions")
    t = tables if tables is not None else Tables.of(puzzle)
    h, w = puzzle.height, puzzle.width
    cells = np.full(h * w, 3, dtype=np.uint64)
    if state is not None:
        cells &= np.asarray(state, dtype=np.uint64).reshape(h * w)
    s = new_state(t, options or Options())
    if not start(s, cells):
        return LcgOutcome("none", None, 0, 0, 0, 0)
    first: Grid | None = None
    first_conflicts = 0
    while True:
        rc = RC_PAUSED
        while rc in (RC_PAUSED, RC_GROW):
            if rc == RC_GROW:
                s = _grown(s)
            done = int(s.iv[I_CONFLICTS])
            limit = -1
            if deadline is not None:
                if time.monotonic() >= deadline:
                    return _outcome(s, "timeout", first, None, first_conflicts)
                limit = done + SLICE
            if conflict_budget is not None:
                if done > conflict_budget:
                    return _outcome(s, "budget", first, None, first_conflicts)
                limit = conflict_budget + 1 if limit < 0 else min(limit, conflict_budget + 1)
            rc = run(s, limit)
        if rc == RC_UNSAT:
            if first is None:
                return _outcome(s, "none", None, None, 0)
            return _outcome(s, "unique", first, None, first_conflicts)
        grid = Grid(s.val.reshape(h, w).astype(np.uint8))
        if not grid.matches(puzzle):  # pragma: no cover - a propagator bug
            raise SolverError("internal error: lazy clause generation broke a clue")
        if first is not None:
            if grid == first:  # pragma: no cover - a blocking-clause bug
                raise SolverError("internal error: lazy clause generation found a solution twice")
            return _outcome(s, "multiple", first, grid, first_conflicts)
        if max_solutions == 1:
            return _outcome(s, "found", grid, None, int(s.iv[I_CONFLICTS]))
        first, first_conflicts = grid, int(s.iv[I_CONFLICTS])
        # run() leaves room for a clause of every cell after each conflict (it restarts
        # or grows the store when it is full), and a solution adds none after that
        if _full(s):  # pragma: no cover
            raise SolverError("internal error: no room for the blocking clause")
        if not block(s):
            return _outcome(s, "unique", first, None, first_conflicts)


def _outcome(s: State, status: str, grid: Grid | None, second: Grid | None,
             first_conflicts: int) -> LcgOutcome:
    iv = s.iv
    return LcgOutcome(status, grid, int(iv[I_CONFLICTS]), int(iv[I_DECISIONS]),
                      int(iv[I_EXPLAINS]), int(iv[I_LSOLVES]), second, first_conflicts)


__all__ = ["MAX_LINE", "LcgOutcome", "Options", "solve_lcg", "supports"]
