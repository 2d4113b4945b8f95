"""ROFL's bit-level kernels: Golomb-Rice and Elias-gamma codes, the clue and goal sections.

The kernels are numba-compatible Python. :func:`_kernels` hands out the plain functions for
the first :data:`JIT_AFTER` records a process codes and numba-compiled ones (cached on disk)
after that, so numba is imported only when a process does bulk ROFL work: reading one
``.non`` file, or converting a few puzzles, never imports it.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from nonoforge.util import without_scipy

# Bits are written most significant first within each byte. R_k(v) is the Golomb-Rice code:
# (v >> k) zero bits, a one bit, then the low k bits of v (most significant first). G(x) is
# Elias-gamma for x >= 1: floor(log2 x) zero bits, then x in floor(log2 x) + 1 bits.


def _bitlen(x: int) -> int:
    n = 0
    while x > 0:
        n += 1
        x >>= 1
    return n


def _put_bits(buf: Any, pos: int, value: int, nbits: int) -> int:
    for i in range(nbits - 1, -1, -1):
        if (value >> i) & 1:
            buf[pos >> 3] |= np.uint8(0x80 >> (pos & 7))
        pos += 1
    return pos


def _put_rice(buf: Any, pos: int, v: int, k: int) -> int:
    pos += v >> k
    buf[pos >> 3] |= np.uint8(0x80 >> (pos & 7))
    return _put_bits(buf, pos + 1, v & ((1 << k) - 1), k)


def _get_bits(data: Any, pos: int, end: int, nbits: int) -> tuple[int, int]:
    """``(value, new_pos)``, or ``(-1, pos)`` when fewer than ``nbits`` bits remain."""
    if pos + nbits > end:
        return -1, pos
    v = 0
    for _ in range(nbits):
        v = (v << 1) | ((int(data[pos >> 3]) >> (7 - (pos & 7))) & 1)
        pos += 1
    return v, pos


def _get_rice(data: Any, pos: int, end: int, k: int) -> tuple[int, int]:
    """``(value, new_pos)``, or ``(-1, pos)`` when the code runs past ``end``."""
    q = 0
    while True:
        if pos >= end:
            return -1, pos
        if (pos & 7) == 0 and data[pos >> 3] == 0 and pos + 8 <= end:
            q += 8
            pos += 8
            continue
        bit = (int(data[pos >> 3]) >> (7 - (pos & 7))) & 1
        pos += 1
        if bit:
            break
        q += 1
    if q > (1 << 40):
        return -1, pos
    r, pos = _get_bits(data, pos, end, k)
    if r < 0:
        return -1, pos
    return (q << k) | r, pos


def _best_rice(values: Any, n: int) -> tuple[int, int]:
    """The Rice parameter 0..15 that codes ``values[:n]`` in the fewest bits (ties: smallest)."""
    best_k = 0
    best = -1
    for k in range(16):
        c = n * (1 + k)
        q = 0
        for i in range(n):
            q += values[i] >> k
        c += q
        if best < 0 or c < best:
            best = c
            best_k = k
        if q == 0:  # every value fits in k bits: a larger k only costs more
            break
    return best_k, best


def _clue_plan(counts: Any, lengths: Any, cbits: int) -> tuple[int, int, int, Any, int]:
    """The Rice section's parameters and size: ``(kL, kC, base, zigzag counts, bits)``."""
    nlines = counts.shape[0]
    nb = lengths.shape[0]
    vals = np.empty(max(nb, nlines), np.int64)
    for i in range(nb):
        vals[i] = lengths[i] - 1
    k_len, cost_len = _best_rice(vals, nb)
    srt = np.sort(counts)
    base = srt[(nlines - 1) // 2]
    for i in range(nlines):
        d = counts[i] - base
        vals[i] = 2 * d if d >= 0 else -2 * d - 1
    k_cnt, cost_cnt = _best_rice(vals, nlines)
    gb = _bitlen(base + 1)
    total = 8 + 2 * gb - 1 + cost_len + cost_cnt + cbits * nb
    return k_len, k_cnt, base, vals, total


def _enc_clues(counts: Any, lengths: Any, colors: Any, cbits: int) -> Any:
    """The bit section of a record without a goal: parameters, then every line's clue."""
    nlines = counts.shape[0]
    k_len, k_cnt, base, vals, total = _clue_plan(counts, lengths, cbits)
    gb = _bitlen(base + 1)
    buf = np.zeros((total + 7) // 8, np.uint8)
    pos = _put_bits(buf, 0, k_len, 4)
    pos = _put_bits(buf, pos, k_cnt, 4)
    pos = _put_bits(buf, pos + gb - 1, base + 1, gb)
    j = 0
    for li in range(nlines):
        pos = _put_rice(buf, pos, vals[li], k_cnt)
        for _ in range(counts[li]):
            pos = _put_rice(buf, pos, lengths[j] - 1, k_len)
            if cbits > 0:
                pos = _put_bits(buf, pos, colors[j] - 1, cbits)
            j += 1
    return buf


def _grow(a: Any, need: int) -> Any:
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), np.int64)
    b[: a.shape[0]] = a
    return b


def _dec_clues(
    data: Any, pos: int, end: int, height: int, width: int, ncolors: int, cbits: int
) -> tuple[int, int, int, Any, Any, Any, int]:
    """Decode and check a clue bit section.

    Returns ``(error, where, pos, counts, lengths, colours, nblocks)``; ``error`` is 0 or an
    error code (see ``_ERRORS``) and ``where`` the line it concerns.
    """
    nlines = height + width
    counts = np.zeros(nlines, np.int64)
    cap = min(max(end - pos, 1), 1 << 12)
    lengths = np.empty(cap, np.int64)
    colors = np.empty(cap, np.int64)
    k_len, pos = _get_bits(data, pos, end, 4)
    k_cnt, pos = _get_bits(data, pos, end, 4)
    if k_cnt < 0:
        return 1, -1, pos, counts, lengths, colors, 0
    z = 0
    while pos < end and ((int(data[pos >> 3]) >> (7 - (pos & 7))) & 1) == 0:
        z += 1
        pos += 1
    if z > 40:
        return 5, -1, pos, counts, lengths, colors, 0
    b1, pos = _get_bits(data, pos, end, z + 1)
    if b1 < 0:
        return 1, -1, pos, counts, lengths, colors, 0
    base = b1 - 1
    row_tot = np.zeros(ncolors + 1, np.int64)
    col_tot = np.zeros(ncolors + 1, np.int64)
    j = 0
    for li in range(nlines):
        n = width if li < height else height
        zz, pos = _get_rice(data, pos, end, k_cnt)
        if zz < 0:
            return 1, li, pos, counts, lengths, colors, j
        c = base + (zz >> 1) if (zz & 1) == 0 else base - ((zz + 1) >> 1)
        if c < 0 or c > n:
            return 3, li, pos, counts, lengths, colors, j
        counts[li] = c
        if j + c > lengths.shape[0]:
            lengths = _grow(lengths, j + c)
            colors = _grow(colors, j + c)
        used = 0
        prev = 0
        for _ in range(c):
            v, pos = _get_rice(data, pos, end, k_len)
            if v < 0:
                return 1, li, pos, counts, lengths, colors, j
            if v >= n:
                return 3, li, pos, counts, lengths, colors, j
            col = 1
            if cbits > 0:
                col, pos = _get_bits(data, pos, end, cbits)
                if col < 0:
                    return 1, li, pos, counts, lengths, colors, j
                col += 1
                if col > ncolors:
                    return 2, li, pos, counts, lengths, colors, j
            used += v + 1 + (1 if col == prev else 0)
            if used > n:
                return 3, li, pos, counts, lengths, colors, j
            prev = col
            lengths[j] = v + 1
            colors[j] = col
            if li < height:
                row_tot[col] += v + 1
            else:
                col_tot[col] += v + 1
            j += 1
    for col in range(ncolors + 1):
        if row_tot[col] != col_tot[col]:
            return 4, col, pos, counts, lengths, colors, j
    return 0, -1, pos, counts, lengths, colors, j


def _enc_goal(cells: Any, ncolors: int) -> Any:
    """The bit section of a record with a goal: the picture's row-major runs."""
    n = cells.shape[0]
    nr = 1
    for i in range(1, n):
        if cells[i] != cells[i - 1]:
            nr += 1
    run_len = np.empty(nr, np.int64)
    run_col = np.empty(nr, np.int64)
    r = 0
    start = 0
    for i in range(1, n + 1):
        if i == n or cells[i] != cells[i - 1]:
            run_len[r] = i - start
            run_col[r] = cells[i - 1]
            r += 1
            start = i
    bg = np.empty(nr, np.int64)
    fg = np.empty(nr, np.int64)
    nbg = 0
    nfg = 0
    for i in range(nr):
        if run_col[i] == 0:
            bg[nbg] = run_len[i] - 1
            nbg += 1
        else:
            fg[nfg] = run_len[i] - 1
            nfg += 1
    k_bg, cost_bg = _best_rice(bg, nbg)
    k_fg, cost_fg = _best_rice(fg, nfg)
    first_bits = _bitlen(ncolors)
    rel_bits = _bitlen(ncolors - 1)
    total = 8 + first_bits + cost_bg + cost_fg + rel_bits * (nr - 1)
    buf = np.zeros((total + 7) // 8, np.uint8)
    pos = _put_bits(buf, 0, k_bg, 4)
    pos = _put_bits(buf, pos, k_fg, 4)
    prev = 0
    for i in range(nr):
        col = run_col[i]
        if i == 0:
            pos = _put_bits(buf, pos, col, first_bits)
        else:
            pos = _put_bits(buf, pos, col if col < prev else col - 1, rel_bits)
        pos = _put_rice(buf, pos, run_len[i] - 1, k_bg if col == 0 else k_fg)
        prev = col
    return buf


def _dec_goal(data: Any, pos: int, end: int, ncells: int, ncolors: int) -> tuple[int, int, Any]:
    """Decode a goal bit section: ``(error, pos, cells)``."""
    cells = np.zeros(ncells, np.uint8)
    k_bg, pos = _get_bits(data, pos, end, 4)
    k_fg, pos = _get_bits(data, pos, end, 4)
    if k_fg < 0:
        return 1, pos, cells
    first_bits = _bitlen(ncolors)
    rel_bits = _bitlen(ncolors - 1)
    done = 0
    prev = 0
    first = True
    while done < ncells:
        if first:
            col, pos = _get_bits(data, pos, end, first_bits)
            first = False
        else:
            col, pos = _get_bits(data, pos, end, rel_bits)
            if col >= prev:
                col += 1
        if col < 0:
            return 1, pos, cells
        if col > ncolors:
            return 2, pos, cells
        v, pos = _get_rice(data, pos, end, k_bg if col == 0 else k_fg)
        if v < 0:
            return 1, pos, cells
        if v >= ncells - done:
            return 6, pos, cells
        for i in range(done, done + v + 1):
            cells[i] = col
        done += v + 1
        prev = col
    return 0, pos, cells


def _clues_of_grid(grid: Any) -> tuple[Any, Any, Any]:
    """Every line's clue of a picture, rows then columns: ``(counts, lengths, colours)``."""
    h, w = grid.shape
    nb = 0
    for y in range(h):
        for x in range(w):
            v = grid[y, x]
            if v != 0 and (x == 0 or grid[y, x - 1] != v):
                nb += 1
            if v != 0 and (y == 0 or grid[y - 1, x] != v):
                nb += 1
    counts = np.zeros(h + w, np.int64)
    lengths = np.empty(nb, np.int64)
    colors = np.empty(nb, np.int64)
    j = 0
    for y in range(h):
        x = 0
        while x < w:
            v = grid[y, x]
            s = x
            while x < w and grid[y, x] == v:
                x += 1
            if v != 0:
                lengths[j] = x - s
                colors[j] = v
                counts[y] += 1
                j += 1
    for x in range(w):
        y = 0
        while y < h:
            v = grid[y, x]
            s = y
            while y < h and grid[y, x] == v:
                y += 1
            if v != 0:
                lengths[j] = y - s
                colors[j] = v
                counts[h + x] += 1
                j += 1
    return counts, lengths, colors


# ---------------------------------------------------------------------------------------
# v3: black-and-white clues under a random-picture model, range-coded
#
# A line of n cells painted independently with probability q has the clue (a_1..a_k) of sum
# s with probability C(n-s+1, k) q^s (1-q)^(n-s); given (k, s) the k lengths are equally
# likely among the C(s-1, k-1) ways to write s as k positive parts. So a line is coded as
# the symbol (k, s) under that model, then the rank of its lengths among those ways. The
# range coder below has a 32-bit range, renormalises a byte at a time, carries into the
# bytes already written, and ends with the fewest bytes that pin its interval.

#: Density levels of the model: q = Q / MODEL_Q for Q in 1 .. MODEL_Q - 1.
MODEL_Q = 32
#: Longest line the model codes (ranks of compositions then fit in 63 bits).
MODEL_MAX_SIDE = 64
#: Frequency total of the model's tables (the range coder divides a >= 2^24 range by it).
MODEL_TOTAL = 1 << 16
_TOP = 1 << 24
_WORD = 1 << 32


def _sym(n: int, k: int, s: int) -> int:
    """The index of the symbol (k blocks, s cells) in a line of n cells; 0 is (0, 0)."""
    if k == 0:
        return 0
    return 1 + (k - 1) * (n + 2 - k) + s - k


def _rc_carry(buf: Any, n: int) -> None:
    """Add 1 to the ``n`` bytes written so far, read as one big-endian number (a carry out of
    ``low``; it never runs past the first byte, as the code stays below 1)."""
    i = n - 1
    while buf[i] == 255:
        buf[i] = 0
        i -= 1
    buf[i] += np.uint8(1)


def _rc_put(
    buf: Any, n: int, low: int, rng: int, cum: int, freq: int, tot: int
) -> tuple[int, int, int]:
    """Code the symbol ``[cum, cum + freq)`` of ``tot``: ``(bytes written, low, range)``."""
    r = rng // tot
    low += r * cum
    rng = r * freq
    if low >= _WORD:
        low -= _WORD
        _rc_carry(buf, n)
    while rng < _TOP:
        buf[n] = np.uint8(low >> 24)
        n += 1
        low = (low & 0xFFFFFF) << 8
        rng <<= 8
    return n, low, rng


def _rc_put_uniform(buf: Any, n: int, low: int, rng: int, r: int, m: int) -> tuple[int, int, int]:
    """Code ``r`` in ``0 .. m-1``, all equally likely (16 bits at most a step)."""
    while m > MODEL_TOTAL:
        sh = _bitlen(m - 1) - 16
        mh = ((m - 1) >> sh) + 1
        h = r >> sh
        n, low, rng = _rc_put(buf, n, low, rng, h, 1, mh)
        r -= h << sh
        m = (1 << sh) if h < mh - 1 else m - (h << sh)
    if m > 1:
        n, low, rng = _rc_put(buf, n, low, rng, r, 1, m)
    return n, low, rng


def _rc_flush(buf: Any, n: int, low: int, rng: int) -> int:
    """End the code: the value in ``[low, low + range)`` with the fewest significant bytes,
    then without trailing zero bytes (a decoder reads zeros past the end)."""
    nb = 0
    v = low
    while nb < 4:
        unit = 1 << (32 - 8 * nb)
        v = ((low + unit - 1) // unit) * unit
        if v < low + rng:
            break
        nb += 1
    if nb == 4:
        v = low
    if v >= _WORD:
        v -= _WORD
        _rc_carry(buf, n)
    for i in range(nb):
        buf[n] = np.uint8((v >> (24 - 8 * i)) & 0xFF)
        n += 1
    while n > 0 and buf[n - 1] == 0:
        n -= 1
    return n


def _rc_byte(data: Any, p: int, end: int) -> int:
    return int(data[p]) if p < end else 0


def _rc_get(code: int, rng: int, tot: int) -> tuple[int, int]:
    """The next value below ``tot`` and the range step: ``(value, step)``; value -1 if bad.
    Only reads the coder's state: :func:`_rc_take` then consumes the bytes."""
    r = rng // tot
    v = code // r
    if v >= tot:
        return -1, r
    return v, r


def _rc_take(
    data: Any, p: int, end: int, code: int, rng: int, r: int, cum: int, freq: int
) -> tuple[int, int, int]:
    """Consume the symbol ``[cum, cum + freq)``: ``(next byte, code, range)``."""
    code -= r * cum
    rng = r * freq
    while rng < _TOP:
        code = (code << 8) | _rc_byte(data, p, end)
        p += 1
        rng <<= 8
    return p, code, rng


def _rc_get_uniform(
    data: Any, p: int, end: int, code: int, rng: int, m: int
) -> tuple[int, int, int, int]:
    """The inverse of :func:`_rc_put_uniform`: ``(value or -1, next byte, code, range)``."""
    value = 0
    while m > MODEL_TOTAL:
        sh = _bitlen(m - 1) - 16
        mh = ((m - 1) >> sh) + 1
        h, r = _rc_get(code, rng, mh)
        if h < 0:
            return -1, p, code, rng
        p, code, rng = _rc_take(data, p, end, code, rng, r, h, 1)
        value += h << sh
        m = (1 << sh) if h < mh - 1 else m - (h << sh)
    if m > 1:
        v, r = _rc_get(code, rng, m)
        if v < 0:
            return -1, p, code, rng
        p, code, rng = _rc_take(data, p, end, code, rng, r, v, 1)
        value += v
    return value, p, code, rng


def _model_wins(counts: Any, lengths: Any, size: int) -> bool:
    """Whether ``size`` bytes are fewer than the black-and-white Rice section's."""
    return size < (_clue_plan(counts, lengths, 0)[4] + 7) // 8


def _enc_model(
    counts: Any, lengths: Any, height: int, width: int,
    tab_r: Any, tab_c: Any, last: Any, binom: Any,
) -> tuple[Any, bool]:
    """The range-coded clue section of a black-and-white puzzle (v3), and whether it is
    shorter than the Rice section (the writer keeps the shorter)."""
    code = _model_code(counts, lengths, height, width, tab_r, tab_c, last, binom)
    return code, _model_wins(counts, lengths, code.shape[0])


def _model_code(
    counts: Any, lengths: Any, height: int, width: int,
    tab_r: Any, tab_c: Any, last: Any, binom: Any,
) -> Any:
    """The range code of a black-and-white puzzle's clues (v3).

    ``tab_r``/``tab_c``: cumulative frequencies of (k, s) for rows/columns, one row per
    density; ``last``: of k given s for the last column, whose s follows from the others.
    """
    nlines = counts.shape[0]
    painted = 0
    for i in range(height):
        painted += counts[i]
    nrow = painted
    painted = 0
    for i in range(nrow):
        painted += lengths[i]
    q = _model_density(painted, height * width)
    buf = np.zeros(16 + 16 * nlines, np.uint8)
    n = 0
    low = 0
    rng = _WORD - 1
    n, low, rng = _rc_put(buf, n, low, rng, q - 1, 1, MODEL_Q - 1)
    j = 0
    for li in range(nlines):
        size = width if li < height else height
        k = counts[li]
        s = 0
        for t in range(k):
            s += lengths[j + t]
        if li == nlines - 1:
            cum = last[s, k]
            n, low, rng = _rc_put(buf, n, low, rng, cum, last[s, k + 1] - cum, last[s, -1])
        else:
            tab = tab_r if li < height else tab_c
            sym = _sym(size, k, s)
            cum = tab[q - 1, sym]
            n, low, rng = _rc_put(
                buf, n, low, rng, cum, tab[q - 1, sym + 1] - cum, tab[q - 1, -1]
            )
        if k >= 2:
            r = 0
            c = 0
            for t in range(k - 1):
                c += lengths[j + t]
                r += binom[c - 1, t + 1]
            n, low, rng = _rc_put_uniform(buf, n, low, rng, r, binom[s - 1, k - 1])
        j += k
    n = _rc_flush(buf, n, low, rng)
    return buf[:n]


def _dec_model(
    data: Any, pos: int, end: int, height: int, width: int,
    tab_r: Any, tab_c: Any, last: Any, binom: Any,
) -> tuple[int, int, Any, Any, int]:
    """Decode a range-coded clue section in bytes ``pos .. end`` and check that it is the
    one code a writer makes of these clues (a range coder's last bytes have slack, and the
    Rice section must be longer).

    Returns ``(error, where, counts, lengths, nblocks)``. How far the decoder read is not
    returned: the section runs to ``end`` by definition, and the re-encoding is compared
    with every byte of it (the decoder's look-ahead reads zeros past ``end``).
    """
    nlines = height + width
    counts = np.zeros(nlines, np.int64)
    lengths = np.empty(max(height * ((width + 1) // 2) + width * ((height + 1) // 2), 1), np.int64)
    p = pos
    code = 0
    for _ in range(4):
        code = (code << 8) | _rc_byte(data, p, end)
        p += 1
    rng = _WORD - 1
    v, r = _rc_get(code, rng, MODEL_Q - 1)
    if v < 0:
        return 7, -1, counts, lengths, 0
    p, code, rng = _rc_take(data, p, end, code, rng, r, v, 1)
    q = v + 1
    j = 0
    painted = 0
    for li in range(nlines):
        size = width if li < height else height
        if li == nlines - 1:
            s = painted
            if s < 0 or s > size:
                return 4, 1, counts, lengths, j
            err, p, code, rng, k = _dec_last_count(data, p, end, code, rng, last, s)
        else:
            tab = tab_r if li < height else tab_c
            err, p, code, rng, k, s = _dec_line_sum(data, p, end, code, rng, tab, q, size)
        if err:
            return err, li, counts, lengths, j
        counts[li] = k
        if k >= 2:
            err, p, code, rng = _dec_lengths(data, p, end, code, rng, binom, s, k, lengths, j)
            if err:
                return err, li, counts, lengths, j
        elif k == 1:
            lengths[j] = s
        j += k
        if li < height:
            painted += s
        elif li < nlines - 1:
            painted -= s
    again = _model_code(counts, lengths[:j], height, width, tab_r, tab_c, last, binom)
    size = again.shape[0]
    if size != end - pos or not _model_wins(counts, lengths[:j], size):
        return 8, -1, counts, lengths, j
    for i in range(size):
        if again[i] != data[pos + i]:
            return 8, -1, counts, lengths, j
    return 0, -1, counts, lengths, j


def _dec_last_count(
    data: Any, p: int, end: int, code: int, rng: int, last: Any, s: int
) -> tuple[int, int, int, int, int]:
    """The last line's block count, coded under the model of its known sum ``s``.

    Returns ``(error, p, code, rng, count)``; error 7 when the section is corrupt.
    """
    tot = last[s, -1]
    v, r = _rc_get(code, rng, tot)
    if v < 0:
        return 7, p, code, rng, 0
    k = 0
    while last[s, k + 1] <= v:
        k += 1
    cum = last[s, k]
    p, code, rng = _rc_take(data, p, end, code, rng, r, cum, last[s, k + 1] - cum)
    return 0, p, code, rng, k


def _dec_line_sum(
    data: Any, p: int, end: int, code: int, rng: int, tab: Any, q: int, size: int
) -> tuple[int, int, int, int, int, int]:
    """A line's symbol under its model ``tab[q - 1]`` (found by bisection), as its block
    count and the sum of its block lengths.

    Returns ``(error, p, code, rng, count, sum)``; error 7 when the section is corrupt.
    """
    m = tab.shape[1] - 1
    v, r = _rc_get(code, rng, tab[q - 1, m])
    if v < 0:
        return 7, p, code, rng, 0, 0
    lo = 0
    hi = m - 1
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if tab[q - 1, mid] <= v:
            lo = mid
        else:
            hi = mid - 1
    p, code, rng = _rc_take(
        data, p, end, code, rng, r, tab[q - 1, lo], tab[q - 1, lo + 1] - tab[q - 1, lo]
    )
    k = 0
    s = 0
    if lo > 0:
        k = 1
        while _sym(size, k + 1, k + 1) <= lo:
            k += 1
        s = lo - _sym(size, k, k) + k
    return 0, p, code, rng, k, s


def _dec_lengths(
    data: Any, p: int, end: int, code: int, rng: int, binom: Any, s: int, k: int,
    lengths: Any, j: int,
) -> tuple[int, int, int, int]:
    """The ``k >= 2`` block lengths of sum ``s`` from their uniformly coded rank (the
    composition's combination, unranked), into ``lengths[j : j + k]``.

    Returns ``(error, p, code, rng)``; error 7 when the section is corrupt.
    """
    rank, p, code, rng = _rc_get_uniform(data, p, end, code, rng, binom[s - 1, k - 1])
    if rank < 0:
        return 7, p, code, rng
    hi_cut = s
    x = s - 1
    for t in range(k - 1, 0, -1):
        x -= 1
        while binom[x, t] > rank:
            x -= 1
        rank -= binom[x, t]
        lengths[j + t] = hi_cut - (x + 1)
        hi_cut = x + 1
    lengths[j] = hi_cut
    return 0, p, code, rng


@functools.cache
def model_binomials() -> Any:
    """``C(x, y)`` for ``0 <= x, y <= MODEL_MAX_SIDE`` (int64: C(64, 32) < 2^61)."""
    b = np.zeros((MODEL_MAX_SIDE + 1, MODEL_MAX_SIDE + 1), np.int64)
    for x in range(MODEL_MAX_SIDE + 1):
        for y in range(x + 1):
            b[x, y] = math.comb(x, y)
    return b


def _quantised(weights: list[int]) -> list[int]:
    """Cumulative frequencies (total at most MODEL_TOTAL) in proportion to ``weights``; every
    positive weight gets at least 1, a zero weight 0. Exact integers: the same everywhere."""
    total = sum(weights)
    live = sum(1 for w in weights if w)
    spare = MODEL_TOTAL - live
    cum = [0]
    for w in weights:
        cum.append(cum[-1] + (1 + w * spare // total if w else 0))
    return cum


@functools.cache
def model_table(n: int) -> Any:
    """Cumulative frequencies of the symbols (k, s) of a line of ``n`` cells, one row per
    density ``Q`` (row ``Q - 1``): weights ``C(n-s+1, k) C(s-1, k-1) Q^s (MODEL_Q-Q)^(n-s)``."""
    kmax = (n + 1) // 2
    rows = []
    for q in range(1, MODEL_Q):
        w = [(MODEL_Q - q) ** n]
        for k in range(1, kmax + 1):
            for s in range(k, n - k + 2):
                w.append(
                    math.comb(n - s + 1, k) * math.comb(s - 1, k - 1) * q**s
                    * (MODEL_Q - q) ** (n - s)
                )
        rows.append(_quantised(w))
    return np.array(rows, np.int64)


@functools.cache
def model_last(n: int) -> Any:
    """Cumulative frequencies of k given s for the last column (``n`` cells), whose s is
    known from the others: row ``s``, weights ``C(s-1, k-1) C(n-s+1, k)`` (the density
    cancels). Column ``(n + 1) // 2 + 1`` is the total."""
    kmax = (n + 1) // 2
    rows = []
    for s in range(n + 1):
        w = [1 if s == 0 else 0]
        for k in range(1, kmax + 1):
            w.append(math.comb(s - 1, k - 1) * math.comb(n - s + 1, k) if s >= k else 0)
        rows.append(_quantised(w))
    return np.array(rows, np.int64)


@functools.cache
def model_tables(width: int, height: int) -> tuple[Any, Any, Any, Any]:
    """What the model kernels take for a ``width`` x ``height`` puzzle: the (k, s) tables of
    rows and columns, the last column's table and the binomials."""
    return model_table(width), model_table(height), model_last(height), model_binomials()


def _model_density(painted: int, cells: int) -> int:
    """The canonical density level: ``painted / cells`` rounded to ``1 / MODEL_Q`` (halves
    up), kept in ``1 .. MODEL_Q - 1``."""
    q = (2 * MODEL_Q * painted + cells) // (2 * cells)
    return min(max(q, 1), MODEL_Q - 1)


_ERRORS = {
    1: "bit section is truncated",
    2: "colour index out of range",
    3: "clue does not fit its line",
    4: "rows and columns paint different numbers of cells",
    5: "number too large",
    6: "goal runs overflow the picture",
    7: "range-coded section is corrupt",
    8: "range-coded section is not canonical",
}

_HELPERS = (
    "_bitlen", "_put_bits", "_put_rice", "_get_bits", "_get_rice", "_best_rice", "_grow",
    "_clue_plan", "_sym", "_rc_carry", "_rc_put", "_rc_put_uniform", "_rc_flush", "_rc_byte",
    "_rc_get", "_rc_take", "_rc_get_uniform", "_model_density", "_model_code", "_model_wins",
    "_dec_last_count", "_dec_line_sum", "_dec_lengths",
)
_KERNELS = (
    "_enc_clues", "_dec_clues", "_enc_goal", "_dec_goal", "_clues_of_grid", "_enc_model",
    "_dec_model",
)
_compiled: dict[str, Callable[..., Any]] = {}
_plain: dict[str, Callable[..., Any]] = {name: globals()[name] for name in _KERNELS}
#: Records coded in plain Python before the kernels are compiled: a few conversions never
#: pay numba's start-up (an import, and a compilation unless numba's disk cache has it),
#: bulk work does once. ``NONOFORGE_ROFL_JIT=0`` never compiles, ``=1`` compiles at once.
JIT_AFTER = 64
_calls = 0
#: A job that says beforehand it codes at most this many records (:func:`small_job`) codes
#: them in plain Python: about 0.6 ms a 25x25 record, against 0.5-1 s of loading numba
#: and its cached kernels.
SMALL_JOB = 800
_small = False


@contextlib.contextmanager
def small_job(records: int) -> Iterator[None]:
    """Within: a job that codes about ``records`` records (a collection's few hundred
    picks). Up to :data:`SMALL_JOB` the kernels stay plain Python unless already compiled;
    the results are the same either way, only the cost differs."""
    global _small
    before = _small
    _small = records <= SMALL_JOB
    try:
        yield
    finally:
        _small = before


def _load_numba() -> Any:
    """numba (None when it is not installed), its typing and target registries loaded
    with SciPy kept out (:func:`~nonoforge.util.without_scipy`): the first kernel call
    would load them and, with them, ``scipy.linalg`` (0.15-0.2 s of the CPU of every
    process that imports a corpus, for linear algebra no kernel of ours does). What a
    kernel computes does not change."""
    with without_scipy():
        try:
            import numba
        except ImportError:
            return None
        try:
            from numba.core.registry import cpu_target

            cpu_target.typing_context.refresh()
            cpu_target.target_context.refresh()
        except (ImportError, AttributeError):  # pragma: no cover - another numba: its way
            pass
    return numba


def _kernels(jit: bool | None = None) -> dict[str, Callable[..., Any]]:
    """The bit-level kernels: plain Python at first, numba-compiled for bulk work.

    Helpers are compiled first and put in the module's namespace, so that the kernels
    calling them compile against compiled helpers (the plain kernels keep working too).
    """
    global _calls
    if _compiled:
        return _compiled
    if _small and jit is None:
        return _plain
    mode = os.environ.get("NONOFORGE_ROFL_JIT", "")
    if jit is None:
        _calls += 1
        jit = mode == "1" or (mode != "0" and _calls > JIT_AFTER)
    if not jit:
        return _plain
    numba = _load_numba()
    if numba is None:
        return _plain
    g = globals()
    for name in _HELPERS:
        g[name] = numba.njit(cache=True, nogil=True, inline="always")(g[name])
    for name in _KERNELS:
        _compiled[name] = numba.njit(cache=True, nogil=True)(g[name])
    return _compiled

