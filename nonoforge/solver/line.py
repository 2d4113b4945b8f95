"""Complete single-line logic: the compiled line solver at the bottom of every rung.

A line is ``n`` cells, each a ``uint64`` mask of the colours it may still take (bit 0 the
background, bit ``c`` colour ``c``), and a clue of ``k`` blocks (lengths and colours, taken
from the flat clue arrays at offset ``b0``). :func:`dp_line` keeps exactly the colours that
some placement of all blocks consistent with the masks gives each cell, or reports that no
placement exists, in O(k*n):

* ``F[b, j]``: blocks ``0..b-1`` fit in cells ``[0, j)``, cells after the last one background;
* ``B[b, j]``: blocks ``b..k-1`` fit in cells ``[j, n)``, cells before the first background;
* a cell may be background when ``F[b, j]`` and ``B[b, j+1]`` for some ``b``; block ``b`` may
  start at ``s`` when its cells allow its colour and both sides fit (with a background gap
  next to a neighbour of the same colour: blocks of different colours may touch).

Scratch arrays are passed in (never allocated here) so the kernel can run millions of times
inside the compiled propagation loop. The same logic on bitsets, one word per row of the
programme: :func:`bits_line` (colour, up to 62 cells), :func:`bw_bits` (black and white, up
to 62 cells), :func:`bw_bits2` (black and white, two words, up to 126 cells; with
:func:`bw_cached2`, the engine's line cache for those lines) and :func:`bits_linew`
(colour, and black and white past 126 cells: as many words as the line takes, up to
1022 cells; no cache, so its lines count as line solves as the DP's did).
:func:`overlap_line` is the cheap "simple overlap" rung (leftmost against rightmost
packing on an empty line). :func:`solve_line` is the Python-facing wrapper used by tests
and benchmarks.
"""

from __future__ import annotations

import numpy as np

from nonoforge.errors import SolverError
from nonoforge.puzzle import Clue
from nonoforge.solver.kernel_cache import njit  # numba's, its cache keyed to all solver sources
from nonoforge.solver.tables import BITS, MAX_COLORS, clue_arrays

U0 = np.uint64(0)
U1 = np.uint64(1)


@njit(cache=True, nogil=True)
def _forward(lm, n, blen, bcol, b0, k, F, bits):  # noqa: N803
    """``F[b*(n+1) + j]``: blocks ``0..b-1`` fit in cells ``[0, j)``, the cells after the
    last of them background. Whether the whole clue fits the line."""
    w = n + 1
    F[0] = 1
    for j in range(1, n + 1):
        F[j] = 1 if (F[j - 1] != 0 and (lm[j - 1] & U1) != U0) else 0
    for b in range(1, k + 1):
        blk = b0 + b - 1
        ln = blen[blk]
        cb = bits[bcol[blk]]
        same = b >= 2 and bcol[blk - 1] == bcol[blk]
        base = b * w
        pbase = base - w
        F[base] = 0
        r = 0
        for j in range(1, n + 1):
            m = lm[j - 1]
            if (m & cb) != U0:
                r += 1
            else:
                r = 0
            v = 1 if (F[base + j - 1] != 0 and (m & U1) != U0) else 0
            if v == 0 and r >= ln:
                s = j - ln
                if same:
                    if s >= 1 and (lm[s - 1] & U1) != U0 and F[pbase + s - 1] != 0:
                        v = 1
                elif F[pbase + s] != 0:
                    v = 1
            F[base + j] = v
    return F[k * w + n] != 0


@njit(cache=True, nogil=True)
def _backward(lm, n, blen, bcol, b0, k, B, bits):  # noqa: N803
    """``B[b*(n+1) + j]``: blocks ``b..k-1`` fit in cells ``[j, n)``, the cells before the
    first of them background."""
    w = n + 1
    kb = k * w
    B[kb + n] = 1
    for j in range(n - 1, -1, -1):
        B[kb + j] = 1 if (B[kb + j + 1] != 0 and (lm[j] & U1) != U0) else 0
    for b in range(k - 1, -1, -1):
        blk = b0 + b
        ln = blen[blk]
        cb = bits[bcol[blk]]
        same = b + 1 < k and bcol[blk + 1] == bcol[blk]
        base = b * w
        nbase = base + w
        B[base + n] = 0
        r = 0
        for j in range(n - 1, -1, -1):
            m = lm[j]
            if (m & cb) != U0:
                r += 1
            else:
                r = 0
            v = 1 if (B[base + j + 1] != 0 and (m & U1) != U0) else 0
            if v == 0 and r >= ln:
                e = j + ln
                if same:
                    if e < n and (lm[e] & U1) != U0 and B[nbase + e + 1] != 0:
                        v = 1
                elif B[nbase + e] != 0:
                    v = 1
            B[base + j] = v


@njit(cache=True, nogil=True)
def _background_cells(lm, n, k, F, B, out):  # noqa: N803
    """Start ``out`` with the background wherever some split of the blocks leaves it."""
    w = n + 1
    for j in range(n):
        out[j] = U0
        if (lm[j] & U1) != U0:
            for b in range(k + 1):
                if F[b * w + j] != 0 and B[b * w + j + 1] != 0:
                    out[j] = U1
                    break


@njit(cache=True, nogil=True)
def _block_cells(lm, n, blen, bcol, b0, k, F, B, run, out, bits):  # noqa: N803
    """Add to ``out`` the colour of every block on the cells of its valid placements: a
    start is valid when the cells allow the colour, the blocks before it fit on its left
    and the rest on its right, with a background cell between blocks of the same colour
    (checked inline: a helper per start costs numba a reference count per array)."""
    w = n + 1
    for b in range(k):
        blk = b0 + b
        ln = blen[blk]
        cb = bits[bcol[blk]]
        same_l = b > 0 and bcol[blk - 1] == bcol[blk]
        same_r = b + 1 < k and bcol[blk + 1] == bcol[blk]
        run[n] = 0
        for j in range(n - 1, -1, -1):
            run[j] = run[j + 1] + 1 if (lm[j] & cb) != U0 else 0
        base = b * w
        nbase = base + w
        reach = 0
        for s in range(n - ln + 1):
            if run[s] < ln:
                continue
            if same_l:
                if s < 1 or (lm[s - 1] & U1) == U0 or F[base + s - 1] == 0:
                    continue
            elif F[base + s] == 0:
                continue
            e = s + ln
            if same_r:
                if e >= n or (lm[e] & U1) == U0 or B[nbase + e + 1] == 0:
                    continue
            elif B[nbase + e] == 0:
                continue
            lo = s if s > reach else reach
            for j in range(lo, e):
                out[j] |= cb
            reach = e


@njit(cache=True, nogil=True)
def dp_line(lm, n, blen, bcol, b0, k, F, B, run, out, bits):  # noqa: N803 - F, B as in papers
    """Exact line logic on ``lm[:n]``; writes the surviving masks to ``out[:n]``.

    Returns ``False`` when no placement of the clue fits (``out`` is then undefined).
    ``F`` and ``B`` are ``uint8`` scratch of at least ``(k+1)*(n+2)`` entries, ``run`` an
    ``int64`` scratch of at least ``n+1``. Four passes: the forward and backward tables,
    then the background cells, then the block cells.
    """
    if not _forward(lm, n, blen, bcol, b0, k, F, bits):
        return False
    _backward(lm, n, blen, bcol, b0, k, B, bits)
    _background_cells(lm, n, k, F, B, out)
    _block_cells(lm, n, blen, bcol, b0, k, F, B, run, out, bits)
    return True


#: The longest line the bit-parallel solver takes (positions 0..n, bit 63 spare).
MAX_BITS_LINE = 62


@njit(cache=True, nogil=True, inline="always")
def _fill_right(g, w):
    """Close ``g`` under "position j+1 is reachable from j when cell j may be background"."""
    p = w << U1
    g |= p & (g << U1)
    p &= p << U1
    g |= p & (g << np.uint64(2))
    p &= p << np.uint64(2)
    g |= p & (g << np.uint64(4))
    p &= p << np.uint64(4)
    g |= p & (g << np.uint64(8))
    p &= p << np.uint64(8)
    g |= p & (g << np.uint64(16))
    p &= p << np.uint64(16)
    g |= p & (g << np.uint64(32))
    return g


@njit(cache=True, nogil=True, inline="always")
def _fill_left(g, w):
    """Close ``g`` under "position j is reachable from j+1 when cell j may be background"."""
    p = w
    g |= p & (g >> U1)
    p &= p >> U1
    g |= p & (g >> np.uint64(2))
    p &= p >> np.uint64(2)
    g |= p & (g >> np.uint64(4))
    p &= p >> np.uint64(4)
    g |= p & (g >> np.uint64(8))
    p &= p >> np.uint64(8)
    g |= p & (g >> np.uint64(16))
    p &= p >> np.uint64(16)
    g |= p & (g >> np.uint64(32))
    return g


@njit(cache=True, nogil=True, inline="always")
def _runs(k, ln):
    """Positions ``s`` where bits ``s .. s+ln-1`` of ``k`` are all set."""
    t = k
    step = 1
    while step * 2 <= ln:
        t &= t >> np.uint64(step)
        step *= 2
    if step < ln:
        t &= t >> np.uint64(ln - step)
    return t


@njit(cache=True, nogil=True, inline="always")
def _smear(v, ln):
    """Cells ``s .. s+ln-1`` for every position ``s`` in ``v``."""
    c = v
    step = 1
    while step * 2 <= ln:
        c |= c << np.uint64(step)
        step *= 2
    if step < ln:
        c |= c << np.uint64(ln - step)
    return c


@njit(cache=True, nogil=True)
def bits_line(lm, n, blen, bcol, b0, k, sc, out, bits):
    """The same logic as :func:`dp_line` for lines of at most 63 cells, bit-parallel.

    Each ``F[b]`` / ``B[b]`` row of the dynamic programme is one 64-bit word over the
    positions ``0..n``; moving through background cells is a Kogge-Stone fill, "block
    fits here" a run test of the colour's cells. ``sc`` is ``uint64`` scratch of at least
    ``3*(k+1) + 128`` words. About ten word operations per block and direction.
    """
    fo = 0  # fo + b: F[b]
    so = 2 * (k + 1)  # so + b: starts of block b allowed by the left part
    ko = 3 * (k + 1)  # ko + c: cells that may take colour c
    co = ko + 64  # co + c: cells that may take colour c in a valid placement
    pm = (U1 << np.uint64(n + 1)) - U1
    w = U0
    for j in range(n):
        if (lm[j] & U1) != U0:
            w |= U1 << np.uint64(j)
    _colour_cells(lm, n, bcol, b0, k, sc, ko, co, bits)
    # forward
    sc[fo] = _fill_right(U1, w) & pm
    for b in range(k):
        blk = b0 + b
        ln = blen[blk]
        c = bcol[blk]
        f = sc[fo + b]
        s = (f & w) << U1 if b > 0 and bcol[blk - 1] == c else f
        s &= _runs(sc[ko + c] & ~(U1 << np.uint64(63)), ln)
        sc[so + b] = s
        sc[fo + b + 1] = _fill_right(s << np.uint64(ln), w) & pm
    if ((sc[fo + k] >> np.uint64(n)) & U1) == U0:
        return False
    # backward, and each block's valid starts
    bb = _fill_left(U1 << np.uint64(n), w)
    white = sc[fo + k] & (bb >> U1) & w
    for b in range(k - 1, -1, -1):
        blk = b0 + b
        ln = blen[blk]
        c = bcol[blk]
        e = (bb >> U1) & w if b + 1 < k and bcol[blk + 1] == c else bb
        s = (e >> np.uint64(ln)) & _runs(sc[ko + c] & ~(U1 << np.uint64(63)), ln)
        sc[co + c] |= _smear(s & sc[so + b], ln)
        bb = _fill_left(s, w)
        white |= sc[fo + b] & (bb >> U1) & w
    _bits_out(n, bcol, b0, k, sc, co, white, out, bits)
    return True


@njit(cache=True, nogil=True, inline="always")
def _colour_cells(lm, n, bcol, b0, k, sc, ko, co, bits):
    """:func:`bits_line`'s words of the cells allowing each colour of the clue (``sc[ko +
    c]``, bit 63 marking "computed"), and the words of placed cells cleared (``sc[co +
    c]``)."""
    for b in range(k):
        c = bcol[b0 + b]
        sc[ko + c] = U0
        sc[co + c] = U0
    for b in range(k):
        c = bcol[b0 + b]
        if sc[ko + c] != U0 or (b > 0 and bcol[b0 + b - 1] == c):
            continue
        cb = bits[c]
        kk = U0
        for j in range(n):
            if (lm[j] & cb) != U0:
                kk |= U1 << np.uint64(j)
        sc[ko + c] = kk | (U1 << np.uint64(63))  # marks "computed" (bit 63 is never a cell)


@njit(cache=True, nogil=True, inline="always")
def _bits_out(n, bcol, b0, k, sc, co, white, out, bits):
    """:func:`bits_line`'s answer, back to one mask per cell: ``white`` the cells that may
    stay background, ``sc[co + c]`` those colour ``c`` may cover (cleared as used)."""
    if k > 0 and (bits[bcol[b0]] == np.uint64(2)):
        mono = True
        for b in range(1, k):
            if bcol[b0 + b] != 1:
                mono = False
                break
    else:
        mono = False
    if mono or k == 0:
        black = sc[co + 1] if k > 0 else U0
        for j in range(n):
            sj = np.uint64(j)
            out[j] = ((white >> sj) & U1) | (((black >> sj) & U1) << U1)
        return
    for j in range(n):
        out[j] = (white >> np.uint64(j)) & U1
    for b in range(k):
        c = bcol[b0 + b]
        cov = sc[co + c]
        if cov == U0:
            continue
        cb = bits[c]
        for j in range(n):
            if ((cov >> np.uint64(j)) & U1) != U0:
                out[j] |= cb
        sc[co + c] = U0  # each colour once


@njit(cache=True, nogil=True)
def bw_bits(w, kb, n, blen, b0, k, sc):
    """Black-and-white line logic on bitsets: ``w``/``kb`` the cells that may be white/black.

    Returns ``(ok, white, black)``: the cells that may still be white and black. The
    special case of :func:`bits_line` for one colour (every neighbour needs a gap), with
    no per-cell masks at all. ``sc`` needs ``k + 1`` words.
    """
    pm = (U1 << np.uint64(n + 1)) - U1
    f = _fill_right(U1, w) & pm
    for b in range(k):
        s = f if b == 0 else (f & w) << U1
        s &= _runs(kb, blen[b0 + b])
        sc[b] = s
        f = _fill_right(s << np.uint64(blen[b0 + b]), w) & pm
        sc[k + 1 + b] = f
    if ((f >> np.uint64(n)) & U1) == U0:
        return False, U0, U0
    bb = _fill_left(U1 << np.uint64(n), w)
    white = f & (bb >> U1) & w
    black = U0
    for b in range(k - 1, -1, -1):
        ln = blen[b0 + b]
        e = bb if b == k - 1 else (bb >> U1) & w
        s = (e >> np.uint64(ln)) & _runs(kb, ln)
        black |= _smear(s & sc[b], ln)
        bb = _fill_left(s, w)
        fb = _fill_right(U1, w) & pm if b == 0 else sc[k + b]
        white |= fb & (bb >> U1) & w
    return True, white, black


#: The longest black-and-white line the two-word kernel takes (positions 0..n in two
#: words, bit 127 spare).
MAX_BITS2_LINE = 126


@njit(cache=True, nogil=True, inline="always")
def _shl2(lo, hi, s):
    """``(lo, hi)`` shifted up by ``s`` bits (0 <= s < 128; bits past 127 are lost)."""
    if s == 0:
        return lo, hi
    if s < 64:
        return lo << np.uint64(s), (hi << np.uint64(s)) | (lo >> np.uint64(64 - s))
    return U0, lo << np.uint64(s - 64)


@njit(cache=True, nogil=True, inline="always")
def _shr2(lo, hi, s):
    """``(lo, hi)`` shifted down by ``s`` bits (0 <= s < 128)."""
    if s == 0:
        return lo, hi
    if s < 64:
        return (lo >> np.uint64(s)) | (hi << np.uint64(64 - s)), hi >> np.uint64(s)
    return hi >> np.uint64(s - 64), U0


@njit(cache=True, nogil=True, inline="always")
def _fill_up2(glo, ghi, wlo, whi):
    """:func:`_fill_right` on two words, by one addition with carry: position ``j+1`` is
    reachable from ``j`` when cell ``j`` may be background. In ``m`` (the positions that
    may be entered, and the seeds) adding the seeds carries through each run of ``m``
    above a seed; the bits the carry flipped, with the seeds, are the fill."""
    mlo = (wlo << U1) | glo
    mhi = (whi << U1) | (wlo >> np.uint64(63)) | ghi
    slo = mlo + glo
    carry = U1 if slo < mlo else U0
    shi = mhi + ghi + carry
    return ((slo ^ mlo) | glo) & mlo, ((shi ^ mhi) | ghi) & mhi


@njit(cache=True, nogil=True, inline="always")
def _fill_down2(glo, ghi, wlo, whi):
    """:func:`_fill_left` on two words (Kogge-Stone: carries run only upwards)."""
    plo = wlo
    phi = whi
    for step in (1, 2, 4, 8, 16, 32):
        s = np.uint64(step)
        r = np.uint64(64 - step)
        glo |= plo & ((glo >> s) | (ghi << r))
        ghi |= phi & (ghi >> s)
        plo &= (plo >> s) | (phi << r)
        phi &= phi >> s
    glo |= plo & ghi
    return glo, ghi


@njit(cache=True, nogil=True, inline="always")
def _runs2(lo, hi, ln):
    """:func:`_runs` on two words: positions ``s`` where bits ``s .. s+ln-1`` are all set."""
    step = 1
    while step * 2 <= ln:
        a, b = _shr2(lo, hi, step)
        lo &= a
        hi &= b
        step *= 2
    if step < ln:
        a, b = _shr2(lo, hi, ln - step)
        lo &= a
        hi &= b
    return lo, hi


@njit(cache=True, nogil=True, inline="always")
def _smear2(lo, hi, ln):
    """:func:`_smear` on two words: cells ``s .. s+ln-1`` for every ``s`` in ``(lo, hi)``."""
    step = 1
    while step * 2 <= ln:
        a, b = _shl2(lo, hi, step)
        lo |= a
        hi |= b
        step *= 2
    if step < ln:
        a, b = _shl2(lo, hi, ln - step)
        lo |= a
        hi |= b
    return lo, hi


@njit(cache=True, nogil=True)
def bw_bits2(wlo, whi, klo, khi, n, blen, b0, k, sc):
    """:func:`bw_bits` for black-and-white lines of up to :data:`MAX_BITS2_LINE` cells,
    every set two words (``lo`` cells/positions 0..63, ``hi`` 64..127).

    Returns ``(ok, white lo, white hi, black lo, black hi)``. Moving through background
    cells upwards is one addition with carry (:func:`_fill_up2`), downwards a two-word
    Kogge-Stone fill. ``sc`` needs ``4 * (k + 1)`` words (each block's starts allowed by
    the left part, and the forward rows): the engine's ``3 * (blocks + 1) + 128`` suffice,
    as a line of at most 126 cells has at most 63 blocks.
    """
    if n + 1 >= 64:
        pmlo = ~U0
        pmhi = (U1 << np.uint64(n + 1 - 64)) - U1
    else:
        pmlo = (U1 << np.uint64(n + 1)) - U1
        pmhi = U0
    fo = 2 * (k + 1)  # sc[fo + 2b], sc[fo + 2b + 1]: F[b]
    flo, fhi = _fill_up2(U1, U0, wlo, whi)
    flo &= pmlo
    fhi &= pmhi
    sc[fo] = flo
    sc[fo + 1] = fhi
    for b in range(k):
        ln = blen[b0 + b]
        if b == 0:
            slo, shi = flo, fhi
        else:
            slo, shi = _shl2(flo & wlo, fhi & whi, 1)
        rlo, rhi = _runs2(klo, khi, ln)
        slo &= rlo
        shi &= rhi
        sc[2 * b] = slo
        sc[2 * b + 1] = shi
        a, c = _shl2(slo, shi, ln)
        flo, fhi = _fill_up2(a, c, wlo, whi)
        flo &= pmlo
        fhi &= pmhi
        sc[fo + 2 * b + 2] = flo
        sc[fo + 2 * b + 3] = fhi
    top = (fhi >> np.uint64(n - 64)) if n >= 64 else (flo >> np.uint64(n))
    if (top & U1) == U0:
        return False, U0, U0, U0, U0
    blo, bhi = _shl2(U1, U0, n)
    blo, bhi = _fill_down2(blo, bhi, wlo, whi)
    a, c = _shr2(blo, bhi, 1)
    whlo = flo & a & wlo
    whhi = fhi & c & whi
    bklo = U0
    bkhi = U0
    for b in range(k - 1, -1, -1):
        ln = blen[b0 + b]
        if b == k - 1:
            elo, ehi = blo, bhi
        else:
            elo, ehi = _shr2(blo, bhi, 1)
            elo &= wlo
            ehi &= whi
        slo, shi = _shr2(elo, ehi, ln)
        rlo, rhi = _runs2(klo, khi, ln)
        slo &= rlo
        shi &= rhi
        a, c = _smear2(slo & sc[2 * b], shi & sc[2 * b + 1], ln)
        bklo |= a
        bkhi |= c
        blo, bhi = _fill_down2(slo, shi, wlo, whi)
        a, c = _shr2(blo, bhi, 1)
        whlo |= sc[fo + 2 * b] & a & wlo
        whhi |= sc[fo + 2 * b + 1] & c & whi
    return True, whlo, whhi, bklo, bkhi


#: Multipliers of the long lines' cache hash (odd 64-bit constants).
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)
_K3 = np.uint64(0x165667B19E3779F9)
_K4 = np.uint64(0xD6E8FEB86659FD93)
_K5 = np.uint64(0xFF51AFD7ED558CCD)
#: Marks a long line's entry in the line cache (a short line's key is its index + 1).
_LONG = np.uint64(1) << np.uint64(63)


@njit(cache=True, nogil=True, inline="always")
def _pack2(src, start, stride, n, lm):
    """The masks of a black-and-white line of up to 126 cells, ``src[start + j * stride]``,
    copied into ``lm`` and returned as two-word bitsets ``(wlo, whi, klo, khi)``: which
    cells may be white and which black, cells 0..63 in the low words."""
    wlo = U0
    whi = U0
    klo = U0
    khi = U0
    for j in range(min(n, 64)):
        m = src[start + j * stride]
        lm[j] = m
        wlo |= (m & U1) << np.uint64(j)
        klo |= ((m >> U1) & U1) << np.uint64(j)
    for j in range(64, n):
        m = src[start + j * stride]
        lm[j] = m
        whi |= (m & U1) << np.uint64(j - 64)
        khi |= ((m >> U1) & U1) << np.uint64(j - 64)
    return wlo, whi, klo, khi


@njit(cache=True, nogil=True, inline="always")
def _unpack2(owlo, owhi, oblo, obhi, n, out):
    """The two-word bitsets of :func:`_pack2` back into per-cell masks in ``out[:n]``."""
    for j in range(min(n, 64)):
        sj = np.uint64(j)
        out[j] = ((owlo >> sj) & U1) | (((oblo >> sj) & U1) << U1)
    for j in range(64, n):
        sj = np.uint64(j - 64)
        out[j] = ((owhi >> sj) & U1) | (((obhi >> sj) & U1) << U1)


@njit(cache=True, nogil=True, inline="always")
def bw_cached2(st, start, stride, n, line, blen, b0, k, sc, cache, lm, out):
    """Line logic for a black-and-white line of 63..126 cells of ``st``, through the cache.

    Reads the line's masks into ``lm``; returns ``(ok, hit, changed)``: ``ok`` False on a
    contradiction, ``hit`` when the cache answered, ``changed`` when ``out[:n]`` holds
    narrowed masks. An entry takes two neighbouring 5-word slots of the engine's cache
    (key, white and black sets in, white and black sets out), keyed exactly; its key,
    written into both slots, has bit 63 set, so a short line's lookup (key = line + 1)
    never matches it, and an entry partly overwritten by a short line's never matches
    either. Inlined into the propagation loop (no reference counting per call).
    """
    wlo, whi, klo, khi = _pack2(st, start, stride, n, lm)
    tag = np.uint64(line + 1) | _LONG
    h = (wlo * _K1) ^ (klo * _K2) ^ (whi * _K4) ^ (khi * _K5) ^ (tag * _K3)
    nslot = cache.shape[0] // 5
    slot = np.int64((h >> np.uint64(32)) & np.uint64(nslot - 2)) * 5 if nslot >= 2 else -1
    if slot >= 0 and cache[slot] == tag and cache[slot + 5] == tag and cache[slot + 1] == wlo \
            and cache[slot + 2] == whi and cache[slot + 3] == klo and cache[slot + 4] == khi:
        hit = True
        owlo = cache[slot + 6]
        owhi = cache[slot + 7]
        oblo = cache[slot + 8]
        obhi = cache[slot + 9]
        ok = (owlo | owhi | oblo | obhi) != U0
    else:
        hit = False
        ok, owlo, owhi, oblo, obhi = bw_bits2(wlo, whi, klo, khi, n, blen, b0, k, sc)
        if slot >= 0:
            cache[slot] = tag
            cache[slot + 1] = wlo
            cache[slot + 2] = whi
            cache[slot + 3] = klo
            cache[slot + 4] = khi
            cache[slot + 5] = tag
            cache[slot + 6] = owlo
            cache[slot + 7] = owhi
            cache[slot + 8] = oblo
            cache[slot + 9] = obhi
    if not ok:
        return False, hit, False
    if owlo == wlo and owhi == whi and oblo == klo and obhi == khi:
        return True, hit, False
    _unpack2(owlo, owhi, oblo, obhi, n, out)
    return True, hit, True


@njit(cache=True, nogil=True)
def bw_line2(lm, n, blen, b0, k, sc, out):
    """:func:`bw_bits2` on per-cell masks: the answer of :func:`dp_line` for a line of at
    most :data:`MAX_BITS2_LINE` cells whose blocks all have colour 1 (a cell keeps the
    background and colour 1 where some placement gives them, and loses other colours)."""
    wlo, whi, klo, khi = _pack2(lm, 0, 1, n, lm)
    ok, owlo, owhi, oblo, obhi = bw_bits2(wlo, whi, klo, khi, n, blen, b0, k, sc)
    if not ok:
        return False
    _unpack2(owlo, owhi, oblo, obhi, n, out)
    return True


#: The longest line the many-word kernel takes (:func:`bits_linew`); longer ones take the
#: array DP. A bound on the scratch every solve allocates (:func:`bitsw_scratch`), not a
#: break-even point: at 1000 cells the kernel still solves 12-16x the lines the DP does.
MAX_BITSW_LINE = 1022


@njit(cache=True, nogil=True, inline="always")
def bitsw_words(n):
    """Words a set over the positions ``0..n`` of a line takes in :func:`bits_linew`, with
    a spare bit on top for the carry of :func:`_fill_up_w` (compiled: the kernel and the
    scratch sizes from Python use this one count)."""
    return (n + 65) // 64


def bitsw_scratch(max_blocks: int, longest: int) -> int:
    """Scratch words :func:`bits_linew` needs for lines of up to ``longest`` cells and
    ``max_blocks`` blocks: six working sets, two for each of the 64 colours a mask can
    name, and a block's starts, runs and forward row (one more forward row)."""
    return (3 * max_blocks + 135) * bitsw_words(min(longest, MAX_BITSW_LINE))


@njit(cache=True, nogil=True, inline="always")
def _shl_w(sc, src, dst, s, nw):
    """``sc[dst:dst+nw] = sc[src:src+nw] << s`` (bits past the top lost); in place too,
    as the words are written from the top down and each reads only words below it."""
    q = s // 64
    r = np.uint64(s % 64)
    for i in range(nw - 1, -1, -1):
        j = i - q
        v = U0
        if j >= 0:
            v = sc[src + j] << r
            if r != U0 and j >= 1:
                v |= sc[src + j - 1] >> (np.uint64(64) - r)
        sc[dst + i] = v


@njit(cache=True, nogil=True, inline="always")
def _shr_at(sc, src, i, q, r, nw):
    """Word ``i`` of ``sc[src:src+nw] >> (64 q + r)``."""
    j = i + q
    v = U0
    if j < nw:
        v = sc[src + j] >> r
        if r != U0 and j + 1 < nw:
            v |= sc[src + j + 1] << (np.uint64(64) - r)
    return v


@njit(cache=True, nogil=True, inline="always")
def _shr_w(sc, src, dst, s, nw):
    """``sc[dst:dst+nw] = sc[src:src+nw] >> s``; in place too (written from the bottom
    up, each word reading only words at or above it)."""
    q = s // 64
    r = np.uint64(s % 64)
    for i in range(nw):
        sc[dst + i] = _shr_at(sc, src, i, q, r, nw)


@njit(cache=True, nogil=True, inline="always")
def _fill_up_w(sc, g, w, dst, nw):
    """:func:`_fill_up2` on ``nw`` words: ``dst`` = the positions reached from ``g``
    moving up through cells that may be background (``w``), by one addition with carry."""
    carry = U0
    for i in range(nw):
        m = (sc[w + i] << U1) | sc[g + i]
        if i > 0:
            m |= sc[w + i - 1] >> np.uint64(63)
        a = m + sc[g + i]
        c = U1 if a < m else U0
        a2 = a + carry
        if a2 < a:
            c = U1
        carry = c
        sc[dst + i] = ((a2 ^ m) | sc[g + i]) & m


@njit(cache=True, nogil=True, inline="always")
def _fill_down_w(sc, g, w, nw):
    """:func:`_fill_left` on ``nw`` words, in place on ``g``: the positions from which
    ``g`` is reached moving down through cells that may be background (``w``). Word by
    word from the top, each filled as :func:`_fill_left` fills one, what reaches its
    lowest position carried into the top of the word below when that cell may be
    background."""
    carry = U0
    for i in range(nw - 1, -1, -1):
        x = sc[g + i] | ((carry & (sc[w + i] >> np.uint64(63))) << np.uint64(63))
        x = _fill_left(x, sc[w + i])
        sc[g + i] = x
        carry = x & U1


@njit(cache=True, nogil=True, inline="always")
def _and_shr_w(sc, v, s, nw):
    """``sc[v:v+nw] &= sc[v:v+nw] >> s``, in place: the words are written from the bottom
    up, and each reads only words at or above it, still the old ones."""
    q = s // 64
    r = np.uint64(s % 64)
    for i in range(nw):
        sc[v + i] &= _shr_at(sc, v, i, q, r, nw)


@njit(cache=True, nogil=True, inline="always")
def _runs_w(sc, src, dst, ln, nw):
    """:func:`_runs` on ``nw`` words into ``dst``: positions ``s`` where bits
    ``s .. s+ln-1`` of ``src`` are all set."""
    for i in range(nw):
        sc[dst + i] = sc[src + i]
    step = 1
    while step * 2 <= ln:
        _and_shr_w(sc, dst, step, nw)
        step *= 2
    if step < ln:
        _and_shr_w(sc, dst, ln - step, nw)


@njit(cache=True, nogil=True, inline="always")
def _or_shl_w(sc, v, s, nw):
    """``sc[v:v+nw] |= sc[v:v+nw] << s``, in place: the words are written from the top
    down, and each reads only words below it, still the old ones."""
    q = s // 64
    r = np.uint64(s % 64)
    for i in range(nw - 1, q - 1, -1):
        j = i - q
        x = sc[v + j] << r
        if r != U0 and j >= 1:
            x |= sc[v + j - 1] >> (np.uint64(64) - r)
        sc[v + i] |= x


@njit(cache=True, nogil=True, inline="always")
def _smear_w(sc, v, ln, nw):
    """:func:`_smear` on ``nw`` words, in place: cells ``s .. s+ln-1`` for every ``s``."""
    step = 1
    while step * 2 <= ln:
        _or_shl_w(sc, v, step, nw)
        step *= 2
    if step < ln:
        _or_shl_w(sc, v, ln - step, nw)


@njit(cache=True, nogil=True, inline="always")
def _colour_sets_w(lm, n, bcol, b0, k, sc, ko, co, nw, bits):
    """For :func:`bits_linew`: for each colour of the clue, at ``ko + c nw`` the cells that
    may take it, and at ``co + c nw`` an empty set for the cells it covers. Bit 63 of a
    colour's last word (never a cell: a spare bit) marks its set as made."""
    top = np.uint64(63)
    for b in range(k):
        c = bcol[b0 + b]
        for i in range(nw):
            sc[ko + c * nw + i] = U0
            sc[co + c * nw + i] = U0
    for b in range(k):
        c = bcol[b0 + b]
        kc = ko + c * nw
        if (sc[kc + nw - 1] >> top) & U1:
            continue
        cb = bits[c]
        for j in range(n):
            if (lm[j] & cb) != U0:
                sc[kc + j // 64] |= U1 << np.uint64(j % 64)
        sc[kc + nw - 1] |= U1 << top


@njit(cache=True, nogil=True, inline="always")
def _colour_out_w(n, bcol, b0, k, sc, wh, ko, co, nw, out, bits):
    """For :func:`bits_linew`: the background set ``wh`` and each colour's covered cells
    back into one mask per cell in ``out``, each colour once (its mark taken off its
    "may take it" set at ``ko`` when done)."""
    top = np.uint64(63)
    for j in range(n):
        out[j] = (sc[wh + j // 64] >> np.uint64(j % 64)) & U1
    for b in range(k):
        c = bcol[b0 + b]
        last = ko + c * nw + nw - 1
        if ((sc[last] >> top) & U1) == U0:
            continue  # done already (a colour of several blocks)
        sc[last] &= ~(U1 << top)
        cc = co + c * nw
        cb = bits[c]
        for i in range(nw):
            x = sc[cc + i]
            j = 64 * i
            while x != U0 and j < n:
                if (x & U1) != U0:
                    out[j] |= cb
                x >>= U1
                j += 1


@njit(cache=True, nogil=True)
def bits_linew(lm, n, blen, bcol, b0, k, sc, out, bits):
    """:func:`bits_line` (and :func:`bw_bits2`) for lines of any length up to
    :data:`MAX_BITSW_LINE`, every set :func:`bitsw_words` words: the answer of
    :func:`dp_line`, or False when no placement fits. Blocks of different colours may
    touch, the same colour needs a background cell between. Moving up through
    background cells is one addition with carry across the words, moving down a
    word-by-word fill from the top. ``sc`` needs :func:`bitsw_scratch` words (a "may take
    it" set and a "takes it in some placement" set for each of the 64 colours a mask can
    name). A few operations a word per step of the programme, where the DP takes one a
    cell."""
    nw = bitsw_words(n)
    W = 0  # noqa: N806 - cells that may be background
    PM = nw  # noqa: N806 - positions 0..n
    T1 = 2 * nw  # noqa: N806 - scratch
    T2 = 3 * nw  # noqa: N806 - scratch
    FB = 4 * nw  # noqa: N806 - the forward row, then the backward one
    WH = 5 * nw  # noqa: N806 - cells some placement leaves background
    KO = 6 * nw  # noqa: N806 - KO + c nw: cells that may take colour c
    CO = KO + 64 * nw  # noqa: N806 - CO + c nw: cells colour c covers in some placement
    S0 = CO + 64 * nw  # noqa: N806 - S0 + b nw: starts of block b allowed by the left part
    R0 = S0 + k * nw  # noqa: N806 - R0 + b nw: where block b's cells may all take its colour
    F0 = R0 + k * nw  # noqa: N806 - F0 + b nw: forward row b
    top = np.uint64(63)  # :func:`_colour_sets_w`'s mark, cleared from each block's runs
    for i in range(6 * nw):
        sc[i] = U0
    for j in range(n):
        sc[W + j // 64] |= (lm[j] & U1) << np.uint64(j % 64)
    for j in range(n + 1):
        sc[PM + j // 64] |= U1 << np.uint64(j % 64)
    _colour_sets_w(lm, n, bcol, b0, k, sc, KO, CO, nw, bits)
    sc[T1] = U1
    _fill_up_w(sc, T1, W, FB, nw)
    for i in range(nw):
        sc[FB + i] &= sc[PM + i]
        sc[F0 + i] = sc[FB + i]
    for b in range(k):
        ln = blen[b0 + b]
        c = bcol[b0 + b]
        s = S0 + b * nw
        if b > 0 and bcol[b0 + b - 1] == c:
            for i in range(nw):
                sc[T1 + i] = sc[FB + i] & sc[W + i]
            _shl_w(sc, T1, s, 1, nw)
        else:
            for i in range(nw):
                sc[s + i] = sc[FB + i]
        rb = R0 + b * nw
        _runs_w(sc, KO + c * nw, rb, ln, nw)
        sc[rb + nw - 1] &= ~(U1 << top)
        for i in range(nw):
            sc[s + i] &= sc[rb + i]
        _shl_w(sc, s, T1, ln, nw)
        _fill_up_w(sc, T1, W, FB, nw)
        f = F0 + (b + 1) * nw
        for i in range(nw):
            sc[FB + i] &= sc[PM + i]
            sc[f + i] = sc[FB + i]
    if ((sc[FB + n // 64] >> np.uint64(n % 64)) & U1) == U0:
        return False
    for i in range(nw):
        sc[FB + i] = U0
    sc[FB + n // 64] = U1 << np.uint64(n % 64)
    _fill_down_w(sc, FB, W, nw)
    _shr_w(sc, FB, T1, 1, nw)
    f = F0 + k * nw
    for i in range(nw):
        sc[WH + i] = sc[f + i] & sc[T1 + i] & sc[W + i]
    for b in range(k - 1, -1, -1):
        ln = blen[b0 + b]
        c = bcol[b0 + b]
        if b + 1 < k and bcol[b0 + b + 1] == c:
            _shr_w(sc, FB, T1, 1, nw)
            for i in range(nw):
                sc[T1 + i] &= sc[W + i]
        else:
            for i in range(nw):
                sc[T1 + i] = sc[FB + i]
        _shr_w(sc, T1, T2, ln, nw)  # T2: starts whose block ends where the right part fits
        s = S0 + b * nw
        rb = R0 + b * nw
        for i in range(nw):
            sc[T2 + i] &= sc[rb + i]
            sc[T1 + i] = sc[T2 + i] & sc[s + i]
        _smear_w(sc, T1, ln, nw)
        co = CO + c * nw
        for i in range(nw):
            sc[co + i] |= sc[T1 + i]
            sc[FB + i] = sc[T2 + i]
        _fill_down_w(sc, FB, W, nw)
        _shr_w(sc, FB, T1, 1, nw)
        f = F0 + b * nw
        for i in range(nw):
            sc[WH + i] |= sc[f + i] & sc[T1 + i] & sc[W + i]
    _colour_out_w(n, bcol, b0, k, sc, WH, KO, CO, nw, out, bits)
    return True


@njit(cache=True, nogil=True)
def line_solve(lm, n, blen, bcol, b0, k, F, B, run, sc, out, bits):  # noqa: N803
    """Complete line logic with the fastest kernel that takes the line (see above)."""
    if n <= MAX_BITS_LINE:
        return bits_line(lm, n, blen, bcol, b0, k, sc, out, bits)
    if n <= MAX_BITS2_LINE:
        mono = True
        for b in range(k):
            if bcol[b0 + b] != 1:
                mono = False
                break
        if mono:
            return bw_line2(lm, n, blen, b0, k, sc, out)
    if n <= MAX_BITSW_LINE:
        return bits_linew(lm, n, blen, bcol, b0, k, sc, out, bits)
    return dp_line(lm, n, blen, bcol, b0, k, F, B, run, out, bits)


@njit(cache=True, nogil=True)
def overlap_line(n, blen, bcol, b0, k, out, bits, full):
    """Simple overlap on an empty line: what leftmost and rightmost packings agree on.

    Writes to ``out[:n]`` the masks the clue alone allows (a cell covered by both packings
    of a block takes its colour; a cell takes only colours of blocks that can reach it).
    Returns the kind: 0 = trivial (empty clue or a clue that fills the line), 1 = overlap.
    """
    if k == 0:
        for j in range(n):
            out[j] = U1
        return 0
    # leftmost start of each block, packed against the left edge
    total = 0
    for b in range(k):
        if b > 0 and bcol[b0 + b] == bcol[b0 + b - 1]:
            total += 1
        total += blen[b0 + b]
    slack = n - total
    for j in range(n):
        out[j] = U1
    pos = 0
    for b in range(k):
        blk = b0 + b
        if b > 0 and bcol[blk] == bcol[blk - 1]:
            pos += 1
        ln = blen[blk]
        cb = bits[bcol[blk]]
        # the block can reach [pos, pos + ln + slack); it surely covers [pos + slack, pos + ln)
        for j in range(pos, pos + ln + slack):
            out[j] |= cb
        pos += ln
    pos = 0
    for b in range(k):
        blk = b0 + b
        if b > 0 and bcol[blk] == bcol[blk - 1]:
            # the gap cell is background when the packing is tight
            if slack == 0:
                out[pos] = U1
            pos += 1
        ln = blen[blk]
        cb = bits[bcol[blk]]
        for j in range(pos + slack, pos + ln):
            out[j] = cb
        pos += ln
    for j in range(n):
        out[j] &= full
    return 0 if slack == 0 else 1


def solve_line(
    clue: Clue, state: np.ndarray | list[int], kernel: str = "auto"
) -> np.ndarray | None:
    """Complete line logic from Python: the masks every valid placement allows, or None.

    ``state`` holds one mask per cell (bit 0 background, bit c colour c). ``kernel`` is
    ``auto`` (bit-parallel up to 62 cells; beyond, two words up to 126 cells when every
    block has colour 1, else as many words as the line takes up to 1022; the array DP
    past that), ``bits``, ``bits2`` (colour 1 only), ``bitsw`` or ``dp``. Each call
    allocates its scratch; the hot loops call the kernels directly.

    >>> from nonoforge.puzzle import Block
    >>> solve_line((Block(3, 1),), [3, 3, 3, 3]).tolist()
    [3, 2, 2, 3]
    """
    lm = np.ascontiguousarray(state, dtype=np.uint64)
    n = int(lm.shape[0])
    if any(b.color > MAX_COLORS for b in clue):
        raise SolverError(f"at most {MAX_COLORS} colours are supported")
    if kernel not in ("auto", "bits", "bits2", "bitsw", "dp"):
        raise SolverError(f"unknown line kernel {kernel!r}")
    if kernel == "bits" and n > MAX_BITS_LINE:
        raise SolverError(f"the bit-parallel kernel takes at most {MAX_BITS_LINE} cells")
    if kernel == "bits2" and (n > MAX_BITS2_LINE or any(b.color != 1 for b in clue)):
        raise SolverError(f"the two-word kernel takes colour 1 and at most {MAX_BITS2_LINE} "
                          "cells")
    if kernel == "bitsw" and n > MAX_BITSW_LINE:
        raise SolverError(f"the many-word kernel takes at most {MAX_BITSW_LINE} cells")
    blen, bcol = clue_arrays(clue)
    k = len(clue)
    if blen.size == 0:
        blen = np.zeros(1, dtype=np.int64)
        bcol = np.zeros(1, dtype=np.int64)
    size = (k + 1) * (n + 2)
    F = np.zeros(size, dtype=np.uint8)  # noqa: N806
    B = np.zeros(size, dtype=np.uint8)  # noqa: N806
    run = np.zeros(n + 1, dtype=np.int64)
    sc = np.zeros(max(4 * (k + 1) + 128, bitsw_scratch(k, n)), dtype=np.uint64)
    out = np.zeros(max(n, 1), dtype=np.uint64)
    if kernel == "dp":
        ok = dp_line(lm, n, blen, bcol, 0, k, F, B, run, out, BITS)
    elif kernel == "bits":
        ok = bits_line(lm, n, blen, bcol, 0, k, sc, out, BITS)
    elif kernel == "bits2":
        ok = bw_line2(lm, n, blen, 0, k, sc, out)
    elif kernel == "bitsw":
        ok = bits_linew(lm, n, blen, bcol, 0, k, sc, out, BITS)
    else:
        ok = line_solve(lm, n, blen, bcol, 0, k, F, B, run, sc, out, BITS)
    return out[:n].copy() if ok else None
