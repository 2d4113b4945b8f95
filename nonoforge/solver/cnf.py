"""The compiled half of the SAT encoder: narrowing the cells' colours and emitting clauses.

:func:`nonoforge.solver.sat.encode` builds the CNF of a puzzle for the SAT fallback. Doing
that in Python took about a fifth of the fallback's time on the tournament sets (some 20 ms
for a 25x25 puzzle, as much as the CDCL search of a typical one), so its loops live here,
compiled by numba like the rest of the solver. The Python side keeps the interface and the
readable description of the encoding (see :mod:`nonoforge.solver.sat`).

Lines come as :class:`nonoforge.solver.tables.Tables` describes them: ``lines[l]`` is (first
cell, stride, length, first block, blocks) and ``blen``/``bcol`` hold the blocks. Cell masks
are ``uint64`` colour sets (bit 0 background). Clauses come out in CSR form: literals in
``lits[cstart[i]:cstart[i + 1]]``, constants already simplified away.
"""

from __future__ import annotations

import numpy as np

from nonoforge.solver.kernel_cache import njit  # numba's, its cache keyed to all solver sources

#: Constant literals (a decided cell, an order variable outside its range): far above any
#: variable number, so that negation works on them as on literals. Never reach the solver.
TRUE = 1 << 60
FALSE = -TRUE

#: :func:`emit` return codes besides success (0).
EMIT_FULL = 1  # the clause buffer is too small: grow it and call again
EMIT_UNSAT = 2  # a cell has no colour left, or a clause lost every literal
EMIT_STOPPED = 3  # stop[0] was set (a deadline, from another thread): nothing usable

# ``stop`` (an int64 array of one) is how a deadline reaches these kernels: they run
# without the GIL, a timer thread sets ``stop[0] = 1``, and they look at it once a line.


@njit(cache=True, nogil=True)
def _packing(masks, first, stride, n, off, k, blen, bcol, can, forced):
    """AND into the line's masks the colours leftmost-to-rightmost packing can place."""
    if k == 0:
        for i in range(n):
            masks[first + i * stride] &= np.uint64(1)
        return True
    used = 0
    for j in range(k):
        used += blen[off + j]
        if j + 1 < k and bcol[off + j + 1] == bcol[off + j]:
            used += 1
    slack = n - used
    if slack < 0:
        return False
    for i in range(n):
        can[i] = 0
        forced[i] = False
    pos = 0
    for j in range(k):
        ln = blen[off + j]
        bit = np.uint64(1) << np.uint64(bcol[off + j])
        for c in range(pos, pos + slack + ln):
            can[c] |= bit
        for c in range(pos + slack, pos + ln):
            forced[c] = True
        pos += ln
        if j + 1 < k and bcol[off + j + 1] == bcol[off + j]:
            pos += 1
    for i in range(n):
        keep = can[i] if forced[i] else can[i] | np.uint64(1)
        masks[first + i * stride] &= keep
    return True


@njit(cache=True, nogil=True)
def _bad_cells(masks, first, stride, n, lastbad, nextbad):
    """``lastbad[p]``: the last cell before ``p`` that cannot be background (-1: none);
    ``nextbad[p]``: the first from ``p`` on (``n``: none)."""
    one = np.uint64(1)
    lastbad[0] = -1
    for p in range(1, n + 1):
        bg = masks[first + (p - 1) * stride] & one
        lastbad[p] = lastbad[p - 1] if bg else p - 1
    nextbad[n] = n
    for p in range(n - 1, -1, -1):
        bg = masks[first + p * stride] & one
        nextbad[p] = nextbad[p + 1] if bg else p


@njit(cache=True, nogil=True)
def _feasible(masks, first, stride, n, off, k, blen, bcol, feas, lastbad, nextbad, fwd, cnt):
    """Every start of every block that some placement of the whole clue allows.

    ``feas[off + j, p]`` is set when block ``j`` may start at ``p``: it fits on cells that
    allow its colour and the blocks before and after it can be placed too, with only
    background-allowed cells between them (a forward and a backward pass, O(k*n)).
    False when the clue cannot be placed at all.
    """
    _bad_cells(masks, first, stride, n, lastbad, nextbad)
    if not _fits_forward(masks, first, stride, n, off, k, blen, bcol, lastbad, fwd, cnt):
        return False
    return _fits_backward(n, off, k, blen, bcol, feas, nextbad, fwd, cnt)


@njit(cache=True, nogil=True)
def _fits_forward(masks, first, stride, n, off, k, blen, bcol, lastbad, fwd, cnt):
    """:func:`_feasible`'s forward pass: ``fwd[j, p]`` set when block ``j`` fits at ``p``
    and blocks ``0..j-1`` can be placed before it (only background-allowed cells between).
    False when some block has no such start."""
    one = np.uint64(1)
    for j in range(k):
        ln = blen[off + j]
        bit = one << np.uint64(bcol[off + j])
        # fits: a run of cells allowing the colour, at least ln long, starts at p
        run = 0
        for c in range(n - 1, -1, -1):
            run = run + 1 if masks[first + c * stride] & bit else 0
            fwd[j, c] = run >= ln
        if j == 0:
            for p in range(n):
                fwd[j, p] = fwd[j, p] and lastbad[p] == -1
        else:
            # some end e of block j-1 in [lastbad[p] + 1, p - gap] (prefix counts)
            lp = blen[off + j - 1]
            g = 1 if bcol[off + j - 1] == bcol[off + j] else 0
            cnt[0] = 0
            for e in range(n + 1):
                cnt[e + 1] = cnt[e] + (1 if e - lp >= 0 and fwd[j - 1, e - lp] else 0)
            for p in range(n):
                lb = lastbad[p]
                fwd[j, p] = (
                    fwd[j, p] and p - g >= lb + 1 and cnt[p - g + 1] > cnt[lb + 1]
                )
        if not fwd[j, :n].any():
            return False
    return True


@njit(cache=True, nogil=True)
def _fits_backward(n, off, k, blen, bcol, feas, nextbad, fwd, cnt):
    """:func:`_feasible`'s backward pass: ``feas[off + j, p]`` set when ``fwd[j, p]`` is and
    blocks ``j+1..k-1`` can be placed after it. False when some block has no such start."""
    for j in range(k - 1, -1, -1):
        ln = blen[off + j]
        row = off + j
        if j == k - 1:
            for p in range(n):
                feas[row, p] = fwd[j, p] and p + ln <= n and nextbad[p + ln] == n
        else:
            # some start q of block j+1 in [p + ln + gap, nextbad[p + ln]] (suffix counts)
            g = 1 if bcol[off + j + 1] == bcol[off + j] else 0
            cnt[n] = 0
            cnt[n + 1] = 0
            for q in range(n - 1, -1, -1):
                cnt[q] = cnt[q + 1] + (1 if feas[row + 1, q] else 0)
            for p in range(n):
                e = p + ln
                ok = fwd[j, p] and e + g <= n
                if ok:
                    hi = min(nextbad[e], n - 1)
                    ok = hi >= e + g and cnt[e + g] > cnt[hi + 1]
                feas[row, p] = ok
        if not feas[row, :n].any():
            return False
    return True


@njit(cache=True, nogil=True)
def narrow(masks, lines, blen, bcol, feas, slo, shi, stop):
    """Narrow the cells' colours and find every block's feasible starts; False if unsat
    (or stopped: ``stop[0]`` set, which the caller checks first).

    First each line's packing ranges (exact on a blank line, cheap), then, line by line
    (rows, then columns, each seeing what the lines before it narrowed), the feasible
    starts on the cells' masks and the colours those starts can give. One pass, not a
    fixpoint: propagation is the caller's job; this only prunes variables. Block ``b``'s
    feasible starts go to ``feas[b]``, the first and last of them to ``slo[b]``, ``shi[b]``.
    """
    nl = lines.shape[0]
    maxn = feas.shape[1]
    can = np.zeros(maxn, dtype=np.uint64)
    forced = np.zeros(maxn, dtype=np.bool_)
    lastbad = np.zeros(maxn + 1, dtype=np.int64)
    nextbad = np.zeros(maxn + 1, dtype=np.int64)
    cnt = np.zeros(maxn + 2, dtype=np.int64)
    maxk = max(1, lines[:, 4].max()) if nl else 1
    fwd = np.zeros((maxk, maxn), dtype=np.bool_)
    for li in range(nl):
        if stop[0] != 0:
            return False
        first, stride, n, off, k = (
            lines[li, 0], lines[li, 1], lines[li, 2], lines[li, 3], lines[li, 4]
        )
        if not _packing(masks, first, stride, n, off, k, blen, bcol, can, forced):
            return False
    one = np.uint64(1)
    for li in range(nl):
        if stop[0] != 0:
            return False
        first, stride, n, off, k = (
            lines[li, 0], lines[li, 1], lines[li, 2], lines[li, 3], lines[li, 4]
        )
        if k == 0:
            continue
        if not _feasible(masks, first, stride, n, off, k, blen, bcol, feas, lastbad,
                         nextbad, fwd, cnt):
            return False
        for i in range(n):
            can[i] = 0
            forced[i] = False
        for j in range(k):
            ln = blen[off + j]
            bit = one << np.uint64(bcol[off + j])
            lo = -1
            hi = -1
            for p in range(n):
                if feas[off + j, p]:
                    if lo < 0:
                        lo = p
                    hi = p
                    for c in range(p, p + ln):
                        can[c] |= bit
            for c in range(hi, lo + ln):
                forced[c] = True
            slo[off + j] = lo
            shi[off + j] = hi
        for i in range(n):
            keep = can[i] if forced[i] else can[i] | one
            masks[first + i * stride] &= keep
    return True


@njit(cache=True, nogil=True, inline="always")
def _put(out, cstart, top, a, b, c):
    """Append the clause (a or b or c) -- 0 for an absent literal -- simplifying constants.

    ``top`` holds (clauses, literals, flags): flag 1 the buffer was too small, flag 2 an
    empty clause (the encoding is unsatisfiable).
    """
    if a == TRUE or b == TRUE or c == TRUE:
        return
    nc, nlit = top[0], top[1]
    if nlit + 3 > out.shape[0] or nc + 2 > cstart.shape[0]:
        top[2] |= 1
        return
    for x in (a, b, c):
        if x != 0 and x != FALSE:
            out[nlit] = x
            nlit += 1
    if nlit == top[1]:
        top[2] |= 2
    top[0] = nc + 1
    top[1] = nlit
    cstart[nc + 1] = nlit


@njit(cache=True, nogil=True)
def emit(masks, ncol, lines, blen, bcol, feas, slo, shi, with_lines, lits, out, cstart,
         top, stop):
    """Number the cell variables and emit the clauses; returns 0, EMIT_FULL, EMIT_UNSAT or
    EMIT_STOPPED.

    ``lits[cell, colour]`` receives the literal "cell has colour" (a constant where the
    cell's mask decides it): one possible colour is a constant, two share one variable,
    more get one-hot variables with exactly-one clauses. With ``with_lines``, each line's
    order encoding follows (see :mod:`nonoforge.solver.sat`). ``top`` receives (clauses,
    literals, flags, variables).
    """
    top[0] = 0
    top[1] = 0
    top[2] = 0
    cstart[0] = 0
    status, nv = _emit_cells(masks, ncol, lits, out, cstart, top)
    if status != 0:
        return status
    if with_lines:
        base = np.empty(blen.shape[0], dtype=np.int64)
        nv = start_bases(lines, slo, shi, nv, base)
        for li in range(lines.shape[0]):
            if stop[0] != 0:
                return EMIT_STOPPED
            first, stride, n, off, k = (
                lines[li, 0], lines[li, 1], lines[li, 2], lines[li, 3], lines[li, 4]
            )
            if k == 0:
                for c in range(n):
                    _put(out, cstart, top, lits[first + c * stride, 0], 0, 0)
                continue
            _emit_line(out, cstart, top, lits, first, stride, n, off, k, blen, bcol, feas,
                       slo[off : off + k], shi[off : off + k], base[off : off + k])
    top[3] = nv
    if top[2] & 1:
        return EMIT_FULL
    if top[2] & 2:
        return EMIT_UNSAT
    return 0


@njit(cache=True, nogil=True)
def _emit_cells(masks, ncol, lits, out, cstart, top):
    """:func:`emit`'s cell variables: fills ``lits`` (a constant where the mask decides,
    one shared variable for two colours, one-hot variables with exactly-one clauses for
    more). Returns ``(0 or EMIT_UNSAT or EMIT_FULL, variables numbered)``."""
    ncell = masks.shape[0]
    nv = 0
    one = np.uint64(1)
    for cell in range(ncell):
        m = masks[cell]
        nopt = 0
        for col in range(ncol):
            lits[cell, col] = FALSE
            if m >> np.uint64(col) & one:
                nopt += 1
        if nopt == 0:
            return EMIT_UNSAT, nv
        if nopt == 1:
            for col in range(ncol):
                if m >> np.uint64(col) & one:
                    lits[cell, col] = TRUE
        elif nopt == 2:
            nv += 1
            sign = -1
            for col in range(ncol):
                if m >> np.uint64(col) & one:
                    lits[cell, col] = sign * nv
                    sign = 1
        else:
            v0 = nv + 1
            for col in range(ncol):
                if m >> np.uint64(col) & one:
                    nv += 1
                    lits[cell, col] = nv
            # at least one (a long clause), then at most one, pairwise
            nc, nlit = top[0], top[1]
            if nlit + nopt > out.shape[0] or nc + 2 > cstart.shape[0]:
                return EMIT_FULL, nv
            for v in range(v0, nv + 1):
                out[nlit] = v
                nlit += 1
            top[0] = nc + 1
            top[1] = nlit
            cstart[nc + 1] = nlit
            for a in range(v0, nv + 1):
                for b in range(a + 1, nv + 1):
                    _put(out, cstart, top, -a, -b, 0)
    return 0, nv


@njit(cache=True, nogil=True)
def start_bases(lines, slo, shi, nv, base):
    """Number the order encoding's start variables after the ``nv`` variables before them
    (the cells'): line by line, block by block, one for each position ``p`` of block ``b``
    past ``slo[b]`` up to ``shi[b]`` (the variable of "``b`` starts at or after ``p``",
    :func:`start_var`). ``base[b]`` receives block ``b``'s first; returns the variables
    numbered then in all.

    The one home of that numbering: :func:`emit` numbers the CNF's variables by it, and
    the phase hints (:mod:`nonoforge.solver.phases`) and the benches that read start
    literals (``bench/inproc.py``) find each start's variable by it, so they cannot hint
    or read another variable than the encoder meant."""
    for li in range(lines.shape[0]):
        off, k = lines[li, 3], lines[li, 4]
        for b in range(off, off + k):
            base[b] = nv + 1
            nv += shi[b] - slo[b]
    return nv


@njit(cache=True, nogil=True, inline="always")
def start_var(base, slo, b, p):
    """The variable of "block ``b`` starts at or after ``p``" (``slo[b] < p <= shi[b]``),
    ``base`` as :func:`start_bases` numbered it."""
    return base[b] + p - slo[b] - 1


@njit(cache=True, nogil=True, inline="always")
def _ge(j, p, lo, hi, base):
    """The literal "block j starts at or after p" (order encoding; ``lo``, ``hi``,
    ``base``: the line's slices of the blocks' arrays)."""
    if p <= lo[j]:
        return TRUE
    if p > hi[j]:
        return FALSE
    return start_var(base, lo, j, p)


@njit(cache=True, nogil=True)
def _emit_line(out, cstart, top, lits, first, stride, n, off, k, blen, bcol, feas, lo, hi,
               base):
    """One line's order-encoding clauses (``lo``, ``hi``, ``base``: its blocks' slices of
    ``slo``, ``shi`` and :func:`start_bases`' numbering); it numbers no variables."""
    for j in range(k):
        ln = blen[off + j]
        col = bcol[off + j]
        # monotone: start_j >= p  ->  start_j >= p - 1
        for p in range(lo[j] + 2, hi[j] + 1):
            _put(out, cstart, top, -_ge(j, p, lo, hi, base), _ge(j, p - 1, lo, hi, base), 0)
        # an infeasible start inside the range: start_j >= p  ->  start_j >= p + 1
        for p in range(lo[j] + 1, hi[j]):
            if not feas[off + j, p]:
                _put(out, cstart, top, -_ge(j, p, lo, hi, base), _ge(j, p + 1, lo, hi, base),
                     0)
        if j + 1 < k:
            # order: block j+1 starts at least len (+ a gap if same colour) after block j
            d = ln + (1 if bcol[off + j + 1] == col else 0)
            for p in range(lo[j] + 1, hi[j] + 1):
                _put(out, cstart, top, -_ge(j, p, lo, hi, base),
                     _ge(j + 1, p + d, lo, hi, base), 0)
        # covered: c - len < start_j <= c  ->  cell c has the block's colour
        for c in range(lo[j], hi[j] + ln):
            _put(out, cstart, top, -_ge(j, c - ln + 1, lo, hi, base),
                 _ge(j, c + 1, lo, hi, base), lits[first + c * stride, col])
        # between block j and the next (or the end): background
        if j + 1 < k:
            for c in range(lo[j] + ln, hi[j + 1]):
                _put(out, cstart, top, _ge(j, c - ln + 1, lo, hi, base),
                     -_ge(j + 1, c + 1, lo, hi, base), lits[first + c * stride, 0])
        else:
            for c in range(lo[j] + ln, n):
                _put(out, cstart, top, _ge(j, c - ln + 1, lo, hi, base),
                     lits[first + c * stride, 0], 0)
    # before the first block: background
    for c in range(hi[0]):
        _put(out, cstart, top, -_ge(0, c + 1, lo, hi, base), lits[first + c * stride, 0], 0)


__all__ = ["EMIT_FULL", "EMIT_UNSAT", "FALSE", "TRUE", "emit", "narrow", "start_bases",
           "start_var"]
