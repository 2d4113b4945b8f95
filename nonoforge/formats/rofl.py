"""ROFL v1: a compact, checksummed, streamable binary container of puzzles.

The name comes from the "ROFL Omitting Format Language" sketched in izaron's article on
colour nonograms; version 1 is ours and ``docs/rofl.md`` is its full specification. In short:

* a **record** (:func:`encode` / :func:`decode`) is one puzzle: sizes as varints, a flags
  byte, the palette only when it is not the standard black-and-white one, then a bit-packed
  section, then the metadata strings. The bit section holds the clues as Golomb-Rice codes
  (block lengths, and the number of blocks per line as a signed offset from its median) with
  parameters chosen per puzzle; colour indices take ``ceil(log2 C)`` bits and only when there
  are several colours. A puzzle with a goal picture stores the picture instead of its clues
  (run lengths in the same coder) because the clues follow from it.
* a **container** (:func:`dump` / :func:`iter_load`) is ``ROFL`` + a version byte, then
  records, each framed by a sync marker, its length, a header check byte and a CRC-32, then
  an end block (record count, optional index of record offsets, CRC-32) and a trailer that
  points to it. Truncating or altering any byte is detected and named; salvage mode
  resynchronises on the next valid record and still reads every intact one.

The bit-level work runs in small kernels: plain Python for the first few records a process
codes, numba-compiled (and cached on disk) once there is bulk work, so importing this module
and converting a few puzzles stay cheap.
"""

from __future__ import annotations

import dataclasses
import io
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO, Literal

import numpy as np

from nonoforge.errors import RoflError
from nonoforge.formats.base import MAX_FILE_BYTES, Format, register
from nonoforge.puzzle import COLOR_CHARS, Block, Color, Grid, Meta, Palette, Puzzle

__all__ = [
    "VERSION",
    "RoflReader",
    "decode",
    "dump",
    "dumps",
    "encode",
    "iter_load",
    "load_salvage",
    "offsets",
    "read_at",
]

MAGIC = b"ROFL"
VERSION = 1
HEADER = MAGIC + bytes([VERSION])
REC_SYNC = b"\xc5R"  # starts every record
END_SYNC = b"\xc5E"  # starts the end block
TRAILER_MAGIC = b"LFOR"
TRAILER_SIZE = 12
#: No record may claim more bytes than this (also the largest file we read at all).
MAX_RECORD = MAX_FILE_BYTES
#: Largest width or height a record may declare (real puzzles stay under a few hundred).
MAX_SIDE = 1 << 24
#: Largest goal picture (cells) a record may declare: bounds what a decoder allocates.
MAX_GOAL_CELLS = 1 << 24

FLAG_GOAL = 1
FLAG_META = 2
FLAG_PALETTE = 4

META_FIELDS = tuple(f.name for f in dataclasses.fields(Meta))

OnError = Literal["raise", "skip", "collect"]


# ---------------------------------------------------------------------------------------
# bit-level kernels: numba-compatible Python, compiled lazily by _kernels()
#
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
    g = globals()
    try:
        if os.environ.get("NONOFORGE_NO_NUMBA"):
            raise ImportError("numba disabled")
        import numba

        for name in _HELPERS:
            g[name] = numba.njit(cache=True, nogil=True, inline="always")(g[name])
        for name in _KERNELS:
            _compiled[name] = numba.njit(cache=True, nogil=True)(g[name])
    except ImportError:
        for name in _KERNELS:
            _compiled[name] = g[name]
    return _compiled


# ---------------------------------------------------------------------------------------
# byte-level helpers


def _varint(n: int) -> bytes:
    """Unsigned LEB128: 7 bits a byte, least significant first, high bit = more follows."""
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_varint(data: bytes, pos: int, what: str, limit: int = 1 << 63) -> tuple[int, int]:
    """A minimal-length varint at ``pos``: ``(value, next_pos)``; RoflError otherwise."""
    value = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise RoflError(f"{what}: truncated")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            if b == 0 and shift > 7:
                raise RoflError(f"{what}: non-minimal varint")
            break
        if shift >= 63:
            raise RoflError(f"{what}: varint too long")
    if value > limit:
        raise RoflError(f"{what}: {value} is too large")
    return value, pos


def _utf8(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")


def _read_str(data: bytes, pos: int, what: str) -> tuple[str, int]:
    n, pos = _read_varint(data, pos, what, limit=len(data) - pos)
    try:
        return data[pos : pos + n].decode("utf-8", "surrogatepass"), pos + n
    except UnicodeDecodeError:
        raise RoflError(f"{what}: not UTF-8") from None


def _default_name(i: int, ncolors: int) -> str | None:
    """The colour name a palette need not store: white, black, then ``a``, ``b``, ..."""
    if i == 0:
        return "white"
    if ncolors == 1:
        return "black"
    return COLOR_CHARS[i] if i < len(COLOR_CHARS) else None


_BW = Palette.bw()
_BW_BLOCKS = np.empty(0, dtype=object)


def _bw_blocks(n: int) -> Any:
    """An object array whose item ``i`` is ``Block(i, 1)``, for ``i`` up to at least ``n``.

    Decoded clues share these immutable blocks, which makes building them a C-level gather.
    """
    global _BW_BLOCKS
    if len(_BW_BLOCKS) <= n:
        table = np.empty(max(n + 1, 2 * len(_BW_BLOCKS), 64), dtype=object)
        for i in range(len(table)):
            table[i] = Block(i, 1)
        _BW_BLOCKS = table
    return _BW_BLOCKS


# ---------------------------------------------------------------------------------------
# records


def encode(p: Puzzle) -> bytes:
    """One puzzle as a ROFL v1 record payload (canonical: equal puzzles give equal bytes).

    Everything the model holds survives: clues, palette (order and names), metadata and goal.
    """
    k = _kernels()
    out = bytearray(_varint(p.width))
    out += _varint(p.height)
    pal = p.palette
    ncol = len(pal) - 1
    has_meta = any(getattr(p.meta, f) is not None for f in META_FIELDS)
    flags = (FLAG_GOAL if p.goal is not None else 0) | (FLAG_META if has_meta else 0)
    if pal != _BW:
        flags |= FLAG_PALETTE
    out.append(flags)
    if flags & FLAG_PALETTE:
        out += _varint(ncol)
        for c in pal:
            out += bytes(c.rgb)
        if all(c.name == _default_name(i, ncol) for i, c in enumerate(pal)):
            out.append(0)
        else:
            out.append(1)
            for c in pal:
                b = _utf8(c.name)
                out += _varint(len(b)) + b
    if p.goal is not None:
        out += k["_enc_goal"](p.goal.cells.reshape(-1), ncol).tobytes()
    else:
        lines = p.rows + p.columns
        counts = np.array([len(c) for c in lines], np.int64)
        lengths = np.array([b[0] for c in lines for b in c], np.int64)
        colors = np.array([b[1] for c in lines for b in c], np.int64) if ncol > 1 else lengths
        out += k["_enc_clues"](counts, lengths, colors, (ncol - 1).bit_length()).tobytes()
    if has_meta:
        present = 0
        body = bytearray()
        for i, f in enumerate(META_FIELDS):
            v = getattr(p.meta, f)
            if v is not None:
                present |= 1 << i
                b = _utf8(v)
                body += _varint(len(b)) + b
        out.append(present)
        out += body
    return bytes(out)


def _trusted_puzzle(
    rows: tuple[Any, ...],
    columns: tuple[Any, ...],
    palette: Palette,
    meta: Meta,
    goal: Grid | None,
) -> Puzzle:
    """A Puzzle built without re-running the model's validation.

    Only for clues the decoding kernels have already checked against every rule the model
    enforces (positive lengths, colours in range, each clue fits its line, equal colour
    totals; clues derived from the goal when there is one): validating again would cost
    ten times the decoding itself.
    """
    p = object.__new__(Puzzle)
    object.__setattr__(p, "rows", rows)
    object.__setattr__(p, "columns", columns)
    object.__setattr__(p, "palette", palette)
    object.__setattr__(p, "meta", meta)
    object.__setattr__(p, "goal", goal)
    return p


def _split_clues(
    counts: Any, lengths: Any, colors: Any, nblocks: int, ncolors: int
) -> list[tuple[Block, ...]]:
    """Per-line tuples of blocks from the kernels' flat arrays."""
    lens = lengths[:nblocks]
    if ncolors == 1:
        blocks = tuple(_bw_blocks(int(lens.max()) if nblocks else 0)[lens].tolist())
    else:
        blocks = tuple(map(Block, lens.tolist(), colors[:nblocks].tolist()))
    out = []
    i = 0
    for c in counts.tolist():
        out.append(blocks[i : i + c])
        i += c
    return out


def decode(data: bytes | bytearray | memoryview) -> Puzzle:
    """The puzzle a record payload holds (the inverse of :func:`encode`).

    Raises :class:`RoflError` (without a record number; the container adds it) for any
    payload that is truncated, inconsistent or carries trailing bytes.
    """
    data = bytes(data)
    k = _kernels()
    width, pos = _read_varint(data, 0, "width", MAX_SIDE)
    height, pos = _read_varint(data, pos, "height", MAX_SIDE)
    if width < 1 or height < 1:
        raise RoflError(f"puzzle size {width}x{height} is empty")
    if pos >= len(data):
        raise RoflError("flags: truncated")
    flags = data[pos]
    pos += 1
    if flags & ~(FLAG_GOAL | FLAG_META | FLAG_PALETTE):
        raise RoflError(f"unknown flags 0x{flags:02x}")
    if flags & FLAG_PALETTE:
        ncol, pos = _read_varint(data, pos, "colour count", (len(data) - pos) // 3)
        if ncol < 1:
            raise RoflError("palette has no painted colour")
        rgb = data[pos : pos + 3 * (ncol + 1)]
        if len(rgb) < 3 * (ncol + 1):
            raise RoflError("palette: truncated")
        pos += 3 * (ncol + 1)
        if pos >= len(data):
            raise RoflError("palette names: truncated")
        mode = data[pos]
        pos += 1
        names: list[str] = []
        if mode == 0:
            for i in range(ncol + 1):
                name = _default_name(i, ncol)
                if name is None:
                    raise RoflError("palette: too many colours for default names")
                names.append(name)
        elif mode == 1:
            for i in range(ncol + 1):
                name, pos = _read_str(data, pos, f"colour {i} name")
                names.append(name)
        else:
            raise RoflError(f"palette: unknown name mode {mode}")
        try:
            palette = Palette(
                tuple(Color(n, tuple(rgb[3 * i : 3 * i + 3])) for i, n in enumerate(names))
            )
        except ValueError as e:
            raise RoflError(f"palette: {e}") from None
        if palette == _BW:
            raise RoflError("palette: the standard palette must not be stored")
    else:
        palette = _BW
        ncol = 1
    arr = np.frombuffer(data, np.uint8)
    end_bits = 8 * len(data)
    bitpos = 8 * pos
    goal = None
    if flags & FLAG_GOAL:
        ncells = width * height
        if ncells > MAX_GOAL_CELLS or ncells > (end_bits - bitpos) << 16:
            raise RoflError(f"goal of {width}x{height} cells is too large for its record")
        err, bitpos, cells = k["_dec_goal"](arr, bitpos, end_bits, ncells, ncol)
        if err:
            raise RoflError(f"goal: {_ERRORS[err]}")
        grid = cells.reshape(height, width)
        counts, lengths, colors = k["_clues_of_grid"](grid)
        nblocks = lengths.shape[0]
        goal = Grid(grid)
    else:
        if width + height > end_bits - bitpos:
            raise RoflError(f"{width}x{height} clues cannot fit in {len(data)} bytes")
        err, where, bitpos, counts, lengths, colors, nblocks = k["_dec_clues"](
            arr, bitpos, end_bits, height, width, ncol, (ncol - 1).bit_length()
        )
        if err:
            if err == 4:
                raise RoflError(f"colour {where}: {_ERRORS[err]}")
            if where >= 0:
                line = f"row {where + 1}" if where < height else f"column {where - height + 1}"
                raise RoflError(f"{line}: {_ERRORS[err]}")
            raise RoflError(_ERRORS[err])
    pos = (bitpos + 7) >> 3
    if bitpos & 7 and data[pos - 1] & (0xFF >> (bitpos & 7)):
        raise RoflError("bit section: padding bits are not zero")
    meta = Meta()
    if flags & FLAG_META:
        if pos >= len(data):
            raise RoflError("metadata: truncated")
        present = data[pos]
        pos += 1
        if present == 0 or present >> len(META_FIELDS):
            raise RoflError(f"metadata: bad presence byte 0x{present:02x}")
        values: dict[str, str] = {}
        for i, f in enumerate(META_FIELDS):
            if present >> i & 1:
                values[f], pos = _read_str(data, pos, f"metadata {f}")
        meta = Meta(**values)
    if pos != len(data):
        raise RoflError(f"{len(data) - pos} trailing byte(s) after the record")
    lines = _split_clues(counts, lengths, colors, nblocks, ncol)
    return _trusted_puzzle(tuple(lines[:height]), tuple(lines[height:]), palette, meta, goal)


# ---------------------------------------------------------------------------------------
# container


def _frame(payload: bytes) -> bytes:
    """A record: sync, length, header check byte, payload, CRC-32 of the payload."""
    head = REC_SYNC + _varint(len(payload))
    return (
        head
        + bytes([zlib.crc32(head) & 0xFF])
        + payload
        + zlib.crc32(payload).to_bytes(4, "little")
    )


def _end_block(offsets: list[int], index: bool) -> bytes:
    body = bytearray(END_SYNC)
    body += _varint(len(offsets))
    body.append(1 if index else 0)
    if index:
        prev = len(HEADER)
        for o in offsets:
            body += _varint(o - prev)
            prev = o
    body += zlib.crc32(body).to_bytes(4, "little")
    return bytes(body)


def dump(puzzles: Iterable[Puzzle], fp: BinaryIO, *, index: bool = True) -> int:
    """Write puzzles to ``fp`` as a ROFL container, one record at a time; returns the count.

    With ``index`` the end block lists every record's offset, for :func:`read_at`.
    Offsets count from where the container starts (``fp``'s position on entry).
    """
    fp.write(HEADER)
    pos = len(HEADER)
    offs: list[int] = []
    for p in puzzles:
        rec = _frame(encode(p))
        offs.append(pos)
        fp.write(rec)
        pos += len(rec)
    fp.write(_end_block(offs, index))
    fp.write(pos.to_bytes(8, "little") + TRAILER_MAGIC)
    return len(offs)


def dumps(puzzles: Iterable[Puzzle], *, index: bool = True) -> bytes:
    """A whole ROFL container as bytes."""
    buf = io.BytesIO()
    dump(puzzles, buf, index=index)
    return buf.getvalue()


class _Bad(Exception):
    """A record or block that does not check out (internal; becomes a RoflError)."""


class _Source:
    """Bytes addressed by absolute offset, read from a buffer or lazily from a file."""

    CHUNK = 1 << 20

    def __init__(self, src: Any) -> None:
        if isinstance(src, bytes | bytearray | memoryview):
            self.buf = bytes(src)
            self.fp = None
        else:
            self.buf = b""
            self.fp = src
        self.base = 0  # absolute offset of buf[0]
        self.eof = self.fp is None

    def need(self, pos: int, n: int) -> bool:
        """Whether bytes ``[pos, pos + n)`` exist (reading more of the file as needed)."""
        while pos + n > self.base + len(self.buf) and not self.eof:
            assert self.fp is not None
            want = max(self.CHUNK, pos + n - self.base - len(self.buf))
            chunk = self.fp.read(want)
            if not chunk:
                self.eof = True
                break
            self.buf += chunk
        return pos + n <= self.base + len(self.buf)

    def get(self, pos: int, n: int) -> bytes:
        s = pos - self.base
        return self.buf[s : s + n]

    def find(self, marker: bytes, pos: int) -> int:
        """The first offset >= pos where ``marker`` starts, or -1."""
        while True:
            i = self.buf.find(marker, max(pos - self.base, 0))
            if i >= 0:
                return i + self.base
            if self.eof:
                return -1
            self.need(self.base + len(self.buf), 1)

    def drop_before(self, pos: int) -> None:
        """Forget bytes before ``pos`` (streaming: keep memory bounded)."""
        if self.fp is not None and pos - self.base > self.CHUNK:
            self.buf = self.buf[pos - self.base :]
            self.base = pos


def _parse_record(src: _Source, pos: int) -> tuple[Puzzle, int]:
    """The record at ``pos`` (its sync already seen): ``(puzzle, next_pos)``, or _Bad."""
    n = 0
    p = pos + 2
    shift = 0
    while True:
        if not src.need(p, 1):
            raise _Bad("truncated record header")
        b = src.get(p, 1)[0]
        p += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
        if shift > 35:
            raise _Bad("bad record length")
    if not src.need(p, 1):
        raise _Bad("truncated record header")
    if zlib.crc32(src.get(pos, p - pos)) & 0xFF != src.get(p, 1)[0]:
        raise _Bad("record header check failed")
    p += 1
    if n > MAX_RECORD:
        raise _Bad(f"record length {n} is too large")
    if not src.need(p, n + 4):
        raise _Bad(f"truncated (record claims {n} bytes)")
    payload = src.get(p, n)
    if zlib.crc32(payload) != int.from_bytes(src.get(p + n, 4), "little"):
        raise _Bad("checksum mismatch")
    try:
        puzzle = decode(payload)
    except RoflError as e:
        raise _Bad(e.reason) from None
    return puzzle, p + n + 4


def _parse_end(src: _Source, pos: int) -> tuple[int, list[int] | None, int]:
    """The end block at ``pos``: ``(count, offsets or None, next_pos)``, or _Bad."""
    if not src.need(pos, 2):
        raise _Bad("truncated end block")
    # The end block is small next to the records it lists: read what the file has left.
    src.need(pos, MAX_RECORD)
    avail = src.base + len(src.buf) - pos
    data = src.get(pos, avail)
    try:
        count, p = _read_varint(data, 2, "record count")
        if p >= len(data):
            raise _Bad("truncated end block")
        has_index = data[p]
        p += 1
        if has_index > 1:
            raise _Bad(f"bad index flag {has_index}")
        offs = None
        if has_index:
            offs = []
            o = len(HEADER)
            for _ in range(count):
                d, p = _read_varint(data, p, "index")
                o += d
                offs.append(o)
    except RoflError as e:
        raise _Bad(e.reason) from None
    if p + 4 > len(data):
        raise _Bad("truncated end block")
    if zlib.crc32(data[:p]) != int.from_bytes(data[p : p + 4], "little"):
        raise _Bad("checksum mismatch")
    return count, offs, pos + p + 4


class RoflReader(Iterator[Puzzle]):
    """Iterates the puzzles of a ROFL container; ``errors`` collects what went wrong.

    ``on_error="raise"`` stops at the first problem with a :class:`RoflError`; ``"skip"`` and
    ``"collect"`` resynchronise on the next valid record and go on (``"collect"`` keeps the
    errors in :attr:`errors`, ``"skip"`` forgets them).
    """

    def __init__(self, src: Any, on_error: OnError = "raise") -> None:
        if on_error not in ("raise", "skip", "collect"):
            raise ValueError(f"on_error must be raise, skip or collect, not {on_error!r}")
        self.on_error = on_error
        self.errors: list[RoflError] = []
        self._it = self._run(_Source(src))

    def __iter__(self) -> RoflReader:
        return self

    def __next__(self) -> Puzzle:
        return next(self._it)

    def _fail(self, reason: str) -> None:
        err = RoflError(reason)
        if self.on_error == "raise":
            raise err
        if self.on_error == "collect":
            self.errors.append(err)

    def _resync(self, src: _Source, pos: int) -> int:
        """The next offset >= pos where a valid record or end block starts, or -1."""
        while True:
            a = src.find(REC_SYNC, pos)
            b = src.find(END_SYNC, pos)
            cands = [x for x in (a, b) if x >= 0]
            if not cands:
                return -1
            c = min(cands)
            try:
                if c == a:
                    _parse_record(src, c)
                else:
                    _parse_end(src, c)
                return c
            except _Bad:
                pos = c + 1

    def _run(self, src: _Source) -> Iterator[Puzzle]:
        pos = len(HEADER)
        if not src.need(0, len(HEADER)):
            self._fail("header: truncated (not a ROFL file)")
            pos = 0
        elif src.get(0, 4) != MAGIC:
            self._fail("header: not a ROFL file (bad magic)")
        elif src.get(4, 1)[0] != VERSION:
            self._fail(f"header: unsupported ROFL version {src.get(4, 1)[0]}")
        seen: list[int] = []
        lost = False
        i = 0
        while True:
            if not src.need(pos, 2):
                self._fail(f"record {i} (offset {pos}): truncated (no end block)")
                return
            mark = src.get(pos, 2)
            if mark == REC_SYNC:
                try:
                    puzzle, nxt = _parse_record(src, pos)
                except _Bad as e:
                    self._fail(f"record {i} (offset {pos}): {e}")
                    lost = True
                    i += 1
                    nxt = self._resync(src, pos + 1)
                    if nxt < 0:
                        self._fail("end block missing (file truncated?)")
                        return
                    pos = nxt
                    continue
                seen.append(pos)
                i += 1
                pos = nxt
                src.drop_before(pos)
                yield puzzle
            elif mark == END_SYNC:
                try:
                    count, offs, nxt = _parse_end(src, pos)
                except _Bad as e:
                    self._fail(f"end block (offset {pos}): {e}")
                    nxt = self._resync(src, pos + 1)
                    if nxt < 0:
                        return
                    pos = nxt
                    continue
                if not lost and count != len(seen):
                    self._fail(f"end block (offset {pos}): lists {count} records, read {len(seen)}")
                elif not lost and offs is not None and offs != seen:
                    self._fail(f"end block (offset {pos}): index does not match the records")
                self._check_trailer(src, pos, nxt)
                return
            else:
                self._fail(f"record {i} (offset {pos}): bad sync marker")
                lost = True
                nxt = self._resync(src, pos + 1)
                if nxt < 0:
                    self._fail("end block missing (file truncated?)")
                    return
                pos = nxt

    def _check_trailer(self, src: _Source, end_pos: int, pos: int) -> None:
        if not src.need(pos, TRAILER_SIZE):
            self._fail(f"trailer (offset {pos}): truncated")
            return
        t = src.get(pos, TRAILER_SIZE)
        if t[8:] != TRAILER_MAGIC or int.from_bytes(t[:8], "little") != end_pos:
            self._fail(f"trailer (offset {pos}): does not point to the end block")
        elif src.need(pos + TRAILER_SIZE, 1):
            self._fail(f"trailer (offset {pos}): trailing bytes after the container")


def iter_load(
    fp_or_bytes: BinaryIO | bytes | bytearray | memoryview, *, on_error: OnError = "raise"
) -> RoflReader:
    """Stream the puzzles of a container (bytes, or a binary file read chunk by chunk)."""
    return RoflReader(fp_or_bytes, on_error)


def load_salvage(data: bytes | bytearray | memoryview) -> tuple[list[Puzzle], list[RoflError]]:
    """Every intact record of a possibly damaged container, and what was wrong with it."""
    r = RoflReader(data, "collect")
    puzzles = list(r)
    return puzzles, r.errors


def offsets(fp: BinaryIO | bytes) -> list[int] | None:
    """The record offsets the container's index lists (``None`` when it has no index).

    Reads only the trailer and the end block (``fp`` must be seekable).
    """
    if isinstance(fp, bytes | bytearray | memoryview):
        data = bytes(fp)
        size = len(data)
        tail = data[-TRAILER_SIZE:]
    else:
        size = fp.seek(0, os.SEEK_END)
        fp.seek(max(size - TRAILER_SIZE, 0))
        tail = fp.read(TRAILER_SIZE)
    if size < len(HEADER) + TRAILER_SIZE or tail[8:] != TRAILER_MAGIC:
        raise RoflError("trailer: missing (not a complete ROFL file)")
    end = int.from_bytes(tail[:8], "little")
    if not len(HEADER) <= end <= size - TRAILER_SIZE:
        raise RoflError("trailer: points outside the file")
    if isinstance(fp, bytes | bytearray | memoryview):
        block = bytes(fp)[end : size - TRAILER_SIZE]
    else:
        fp.seek(end)
        block = fp.read(size - TRAILER_SIZE - end)
    if block[:2] != END_SYNC:
        raise RoflError(f"end block (offset {end}): bad marker")
    try:
        _count, offs, nxt = _parse_end(_Source(block), 0)
    except _Bad as e:
        raise RoflError(f"end block (offset {end}): {e}") from None
    if nxt != len(block):
        raise RoflError(f"end block (offset {end}): trailing bytes")
    return offs


def read_at(fp: BinaryIO | bytes, i: int) -> Puzzle:
    """Record ``i`` (from 0) of a container, found through its index.

    Without an index the records are scanned from the start.
    """
    offs = offsets(fp)
    if offs is None:
        if not isinstance(fp, bytes | bytearray | memoryview):
            fp.seek(0)
        for j, p in enumerate(iter_load(fp)):
            if j == i:
                return p
        raise RoflError(f"record {i}: no such record")
    if not 0 <= i < len(offs):
        raise RoflError(f"record {i}: no such record (the file has {len(offs)})")
    if isinstance(fp, bytes | bytearray | memoryview):
        src = _Source(bytes(fp)[offs[i] :])
    else:
        fp.seek(offs[i])
        src = _Source(fp)
    if not src.need(0, 2) or src.get(0, 2) != REC_SYNC:
        raise RoflError(f"record {i} (offset {offs[i]}): bad sync marker")
    try:
        return _parse_record(src, 0)[0]
    except _Bad as e:
        raise RoflError(f"record {i} (offset {offs[i]}): {e}") from None


# ---------------------------------------------------------------------------------------
# registration


def _read(content: str | bytes) -> Iterator[Puzzle]:
    data = content.encode() if isinstance(content, str) else content
    return iter(iter_load(data, on_error="raise"))


def _write(puzzles: list[Puzzle]) -> bytes:
    return dumps(puzzles)


FORMAT = register(
    Format(
        name="rofl",
        extensions=(".rofl",),
        description="ROFL v1: compact checksummed binary container (docs/rofl.md)",
        read=_read,
        write=_write,
        sniff=lambda b: isinstance(b, bytes) and b[:4] == MAGIC,
        binary=True,
        multi=True,
        color=True,
        priority=0,
    )
)
