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
inside the compiled propagation loop. :func:`overlap_line` is the cheap "simple overlap"
rung (leftmost against rightmost packing on an empty line). :func:`solve_line` is the
Python-facing wrapper used by tests and benchmarks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nonoforge.errors import SolverError
from nonoforge.puzzle import Clue

U0 = np.uint64(0)
U1 = np.uint64(1)
#: ``BITS[c]`` is the mask of colour ``c`` (a table avoids mixed-sign shifts in numba).
BITS = np.array([1 << c for c in range(64)], dtype=np.uint64)
#: The most colours a mask can hold besides the background.
MAX_COLORS = 63


@njit(cache=True, nogil=True)
def dp_line(lm, n, blen, bcol, b0, k, F, B, run, out, bits):  # noqa: N803 - F, B as in papers
    """Exact line logic on ``lm[:n]``; writes the surviving masks to ``out[:n]``.

    Returns ``False`` when no placement of the clue fits (``out`` is then undefined).
    ``F`` and ``B`` are ``uint8`` scratch of at least ``(k+1)*(n+2)`` entries, ``run`` an
    ``int64`` scratch of at least ``n+1``.
    """
    w = n + 1
    # ---- forward: F[b*w + j]
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
    if F[k * w + n] == 0:
        return False
    # ---- backward: B[b*w + j]
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
    # ---- background cells
    for j in range(n):
        out[j] = U0
        if (lm[j] & U1) != U0:
            for b in range(k + 1):
                if F[b * w + j] != 0 and B[b * w + j + 1] != 0:
                    out[j] = U1
                    break
    # ---- block cells: every valid start of block b paints its colour
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
    return True


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


def clue_arrays(clue: Clue) -> tuple[np.ndarray, np.ndarray]:
    """A clue as the flat ``(lengths, colours)`` int64 arrays the kernels read."""
    blen = np.array([b.length for b in clue], dtype=np.int64)
    bcol = np.array([b.color for b in clue], dtype=np.int64)
    return blen, bcol


def solve_line(clue: Clue, state: np.ndarray | list[int]) -> np.ndarray | None:
    """Complete line logic from Python: the masks every valid placement allows, or None.

    ``state`` holds one mask per cell (bit 0 background, bit c colour c). Each call
    allocates its scratch; the hot loops call :func:`dp_line` directly.

    >>> from nonoforge.puzzle import Block
    >>> solve_line((Block(3, 1),), [3, 3, 3, 3]).tolist()
    [3, 2, 2, 3]
    """
    lm = np.ascontiguousarray(state, dtype=np.uint64)
    n = int(lm.shape[0])
    if any(b.color > MAX_COLORS for b in clue):
        raise SolverError(f"at most {MAX_COLORS} colours are supported")
    blen, bcol = clue_arrays(clue)
    k = len(clue)
    if blen.size == 0:
        blen = np.zeros(1, dtype=np.int64)
        bcol = np.zeros(1, dtype=np.int64)
    size = (k + 1) * (n + 2)
    F = np.zeros(size, dtype=np.uint8)  # noqa: N806
    B = np.zeros(size, dtype=np.uint8)  # noqa: N806
    run = np.zeros(n + 1, dtype=np.int64)
    out = np.zeros(max(n, 1), dtype=np.uint64)
    if not dp_line(lm, n, blen, bcol, 0, k, F, B, run, out, BITS):
        return None
    return out[:n].copy()
