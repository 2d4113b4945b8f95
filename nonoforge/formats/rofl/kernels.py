"""ROFL's bit-level kernels: Golomb-Rice and Elias-gamma codes, the clue and goal sections.

The kernels are numba-compatible Python. :func:`_kernels` hands out the plain functions for
the first :data:`JIT_AFTER` records a process codes and numba-compiled ones (cached on disk)
after that, so numba is imported only when a process does bulk ROFL work: reading one
``.non`` file, or converting a few puzzles, never imports it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

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
        for i in range(n):
            c += values[i] >> k
        if best < 0 or c < best:
            best = c
            best_k = k
    return best_k, best


def _enc_clues(counts: Any, lengths: Any, colors: Any, cbits: int) -> Any:
    """The bit section of a record without a goal: parameters, then every line's clue."""
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


_ERRORS = {
    1: "bit section is truncated",
    2: "colour index out of range",
    3: "clue does not fit its line",
    4: "rows and columns paint different numbers of cells",
    5: "number too large",
    6: "goal runs overflow the picture",
}

_HELPERS = ("_bitlen", "_put_bits", "_put_rice", "_get_bits", "_get_rice", "_best_rice", "_grow")
_KERNELS = ("_enc_clues", "_dec_clues", "_enc_goal", "_dec_goal", "_clues_of_grid")
_compiled: dict[str, Callable[..., Any]] = {}
_plain: dict[str, Callable[..., Any]] = {name: globals()[name] for name in _KERNELS}
#: Records coded in plain Python before the kernels are compiled: a few conversions never
#: pay numba's start-up (an import, and a compilation unless numba's disk cache has it),
#: bulk work does once. ``NONOFORGE_ROFL_JIT=0`` never compiles, ``=1`` compiles at once.
JIT_AFTER = 64
_calls = 0


def _kernels(jit: bool | None = None) -> dict[str, Callable[..., Any]]:
    """The bit-level kernels: plain Python at first, numba-compiled for bulk work.

    Helpers are compiled first and put in the module's namespace, so that the kernels
    calling them compile against compiled helpers (the plain kernels keep working too).
    """
    global _calls
    if _compiled:
        return _compiled
    mode = os.environ.get("NONOFORGE_ROFL_JIT", "")
    if jit is None:
        _calls += 1
        jit = mode == "1" or (mode != "0" and _calls > JIT_AFTER)
    if not jit:
        return _plain
    try:
        import numba
    except ImportError:
        return _plain
    g = globals()
    for name in _HELPERS:
        g[name] = numba.njit(cache=True, nogil=True, inline="always")(g[name])
    for name in _KERNELS:
        _compiled[name] = numba.njit(cache=True, nogil=True)(g[name])
    return _compiled

