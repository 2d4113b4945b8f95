"""ROFL records: one puzzle as a payload of sizes, flags, palette, bit section and metadata."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from nonoforge.errors import FormatError, RoflError
from nonoforge.formats.base import givens_refusal
from nonoforge.formats.rofl.kernels import (
    _ERRORS,
    MODEL_MAX_SIDE,
    _kernels,
    model_tables,
)
from nonoforge.puzzle import COLOR_CHARS, Block, Color, Grid, Meta, Palette, Puzzle, bw_key

#: Largest width or height a record may declare (real puzzles stay under a few hundred).
MAX_SIDE = 1 << 24
#: Largest goal picture (cells) a record may declare: bounds what a decoder allocates.
MAX_GOAL_CELLS = 1 << 24

FLAG_GOAL = 1
FLAG_META = 2
FLAG_PALETTE = 4
#: v2: with GOAL, the picture is stored cell by cell (bits(C) bits a cell), not as runs.
FLAG_RAW_GOAL = 8
#: v2: the metadata values are tagged (inline text, a number, or a table reference).
FLAG_TAGGED = 16
#: v2: the palette is an entry of the container's table (a varint index follows).
FLAG_PALETTE_REF = 32
#: v3: without GOAL, one painted colour: the clues are range-coded under a random-picture
#: model (docs/rofl.md §3.5), not Rice-coded.
FLAG_MODEL = 64
FLAGS_V1 = FLAG_GOAL | FLAG_META | FLAG_PALETTE
FLAGS = FLAGS_V1 | FLAG_RAW_GOAL | FLAG_TAGGED | FLAG_PALETTE_REF | FLAG_MODEL
#: The flags each container version may carry: a record with a later flag inside an earlier
#: version's file was not written by any writer of that version.
FLAGS_OF_VERSION = {1: FLAGS_V1, 2: FLAGS & ~FLAG_MODEL, 3: FLAGS}

#: Kinds of a tagged metadata value (the low 2 bits of its varint tag).
TAG_TEXT, TAG_REF, TAG_NUMBER = 0, 1, 2
#: Numbers a tag may carry: decimal strings up to 18 digits, without leading zeros.
MAX_NUMBER_DIGITS = 18

#: What a container's table holds: strings and palettes, by index (reader side)...
Table = dict[int, "str | Palette"]
#: ...and the index of each (writer side).
Refs = dict["str | Palette", int]

META_FIELDS = tuple(f.name for f in dataclasses.fields(Meta))


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


def palette_bytes(pal: Palette) -> bytes:
    """A stored palette: ``varint C``, RGB of colours 0..C, then names unless default."""
    ncol = len(pal) - 1
    out = bytearray(_varint(ncol))
    for c in pal:
        out += bytes(c.rgb)
    if all(c.name == _default_name(i, ncol) for i, c in enumerate(pal)):
        out.append(0)
    else:
        out.append(1)
        for c in pal:
            b = _utf8(c.name)
            out += _varint(len(b)) + b
    return bytes(out)


def read_palette(data: bytes, pos: int) -> tuple[Palette, int]:
    """The palette stored at ``pos`` (see :func:`palette_bytes`): ``(palette, next_pos)``."""
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
            tuple(
                Color(n, (rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]))
                for i, n in enumerate(names)
            )
        )
    except ValueError as e:
        raise RoflError(f"palette: {e}") from None
    if palette == _BW:
        raise RoflError("palette: the standard palette must not be stored")
    return palette, pos


def _is_number(s: str) -> bool:
    """Whether ``s`` is stored as a number: ASCII decimal, no leading zero, <= 18 digits."""
    return (
        0 < len(s) <= MAX_NUMBER_DIGITS and s.isascii() and s.isdigit()
        and (s[0] != "0" or s == "0")
    )


def _tagged(value: str, refs: Refs | None) -> bytes:
    if _is_number(value):
        return _varint(int(value) << 2 | TAG_NUMBER)
    if refs is not None:
        i = refs.get(value)
        if i is not None:
            return _varint(i << 2 | TAG_REF)
    b = _utf8(value)
    return _varint(len(b) << 2 | TAG_TEXT) + b


def _read_tagged(data: bytes, pos: int, what: str, table: Table | None) -> tuple[str, int]:
    tag, pos = _read_varint(data, pos, what)
    kind, value = tag & 3, tag >> 2
    if kind == TAG_TEXT:
        if value > len(data) - pos:
            raise RoflError(f"{what}: truncated")
        try:
            return data[pos : pos + value].decode("utf-8", "surrogatepass"), pos + value
        except UnicodeDecodeError:
            raise RoflError(f"{what}: not UTF-8") from None
    if kind == TAG_NUMBER:
        text = str(value)
        if len(text) > MAX_NUMBER_DIGITS:
            raise RoflError(f"{what}: number {value} is too large")
        return text, pos
    if kind == TAG_REF:
        entry = None if table is None else table.get(value)
        if not isinstance(entry, str):
            raise RoflError(f"{what}: no string {value} in the file's table")
        return entry, pos
    raise RoflError(f"{what}: unknown value kind {kind}")


def _raw_goal(cells: Any, ncolors: int) -> bytes:
    """The picture cell by cell, ``bits(C)`` bits a cell, most significant bit first."""
    nbits = ncolors.bit_length()
    if nbits == 1:
        return np.packbits(cells.astype(np.uint8)).tobytes()
    shifts = np.arange(nbits - 1, -1, -1, dtype=np.uint8)
    bits = (cells.astype(np.uint8)[:, None] >> shifts) & 1
    return np.packbits(bits.reshape(-1)).tobytes()


def _read_raw_goal(arr: Any, pos: int, ncells: int, ncolors: int) -> tuple[Any, int]:
    """``(cells, next_byte)`` of a raw picture at byte ``pos``; RoflError when bad."""
    nbits = ncolors.bit_length()
    total = ncells * nbits
    end = pos + (total + 7) // 8
    if end > arr.shape[0]:
        raise RoflError("goal: bit section is truncated")
    bits = np.unpackbits(arr[pos:end])
    if bits[total:].any():
        raise RoflError("bit section: padding bits are not zero")
    if nbits == 1:
        cells = bits[:total]
    else:
        weights = (1 << np.arange(nbits - 1, -1, -1)).astype(np.uint8)
        cells = (bits[:total].reshape(ncells, nbits) * weights).sum(axis=1).astype(np.uint8)
        if int(cells.max()) > ncolors:
            raise RoflError(f"goal: {_ERRORS[2]}")
    return cells, end


def _model_clues(
    k: dict[str, Any], counts: Any, lengths: Any, height: int, width: int
) -> bytes | None:
    """The range-coded clue section, or None when the puzzle is too large for the model or
    the Rice section is as short (an empty section is valid: the likeliest puzzles of the
    model take no bytes at all)."""
    if max(height, width) > MODEL_MAX_SIDE:
        return None
    tables = model_tables(width, height)
    code, shorter = k["_enc_model"](counts, lengths, height, width, *tables)
    return code.tobytes() if shorter else None


def _decode_model(
    k: dict[str, Any], data: bytes, pos: int, height: int, width: int
) -> tuple[Any, Any, int]:
    """The range-coded clue section from byte ``pos`` to the end of the payload:
    ``(counts, lengths, nblocks)``."""
    if max(height, width) > MODEL_MAX_SIDE:
        raise RoflError(f"{width}x{height} is too large for range-coded clues")
    tables = model_tables(width, height)
    err, where, counts, lengths, nblocks = k["_dec_model"](
        np.frombuffer(data, np.uint8), pos, len(data), height, width, *tables
    )
    if err:
        raise _clue_error(err, where, height)
    return counts, lengths, nblocks


def encode(p: Puzzle, refs: Refs | None = None) -> bytes:
    """One puzzle as a ROFL record payload (v3; canonical: equal puzzles give equal bytes).

    Everything the model holds survives: clues, palette (order and names), metadata and goal.
    ``refs`` is a container's table (strings and palettes by index): values it holds are
    stored as references. Without it the payload stands alone.
    """
    if p.givens:  # ROFL is a shared spec without givens: never drop them silently
        raise FormatError(givens_refusal("rofl", p))
    k = _kernels()
    out = bytearray(_varint(p.width))
    out += _varint(p.height)
    pal = p.palette
    has_meta = any(getattr(p.meta, f) is not None for f in META_FIELDS)
    flags = (FLAG_GOAL if p.goal is not None else 0) | (
        FLAG_META | FLAG_TAGGED if has_meta else 0
    )
    pal_ref = None
    if pal != _BW:
        pal_ref = None if refs is None else refs.get(pal)
        flags |= FLAG_PALETTE if pal_ref is None else FLAG_PALETTE_REF
    bits, flags = _encode_bits(k, p, flags)
    out.append(flags)
    if flags & FLAG_PALETTE:
        out += palette_bytes(pal)
    elif pal_ref is not None:
        out += _varint(pal_ref)
    meta = _encode_meta(p, refs) if has_meta else b""
    # a range-coded section has no end of its own: it comes last and ends with the payload
    out += meta + bits if flags & FLAG_MODEL else bits + meta
    return bytes(out)



def _encode_bits(k: dict[str, Any], p: Puzzle, flags: int) -> tuple[bytes, int]:
    """The bit section of :func:`encode` and the flags it adds: the goal (runs, or raw
    cells when shorter), else the clues (range-coded when the model takes them, else
    Rice-coded)."""
    ncol = len(p.palette) - 1
    if p.goal is not None:
        cells = p.goal.cells.reshape(-1)
        runs = k["_enc_goal"](cells, ncol).tobytes()
        raw = _raw_goal(cells, ncol) if len(cells) * ncol.bit_length() < 8 * len(runs) else None
        if raw is not None and len(raw) < len(runs):
            return raw, flags | FLAG_RAW_GOAL
        return runs, flags
    lines = p.rows + p.columns
    counts = np.array([len(c) for c in lines], np.int64)
    lengths = np.array([b[0] for c in lines for b in c], np.int64)
    colors = np.array([b[1] for c in lines for b in c], np.int64) if ncol > 1 else lengths
    model = _model_clues(k, counts, lengths, p.height, p.width) if ncol == 1 else None
    if model is not None:
        return model, flags | FLAG_MODEL
    return k["_enc_clues"](counts, lengths, colors, (ncol - 1).bit_length()).tobytes(), flags


def _encode_meta(p: Puzzle, refs: Refs | None) -> bytes:
    """The metadata section: a presence byte, then each field present, tagged."""
    meta = bytearray()
    present = 0
    for i, f in enumerate(META_FIELDS):
        v = getattr(p.meta, f)
        if v is not None:
            present |= 1 << i
            meta += _tagged(v, refs)
    meta.insert(0, present)
    return bytes(meta)


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


def _bw_puzzle(
    counts: Any, lengths: Any, nblocks: int, height: int, width: int, palette: Palette,
    meta: Meta, goal: Grid | None,
) -> Puzzle:
    """The one-colour puzzle of the kernels' flat arrays (checked by them), its key hashed
    from the lengths' texts as they are split into lines: what :attr:`Puzzle.key` would
    build again from the blocks (``canonical_text`` of one colour, columns first), at
    half its cost -- a fifth of importing a ROFL file went to the keys (issue 38)."""
    lines = _split_clues(counts, lengths, lengths, nblocks, 1)
    words = list(map(str, lengths[:nblocks].tolist()))
    texts = []
    i = 0
    for c in counts.tolist():
        texts.append(".".join(words[i : i + c]))
        i += c
    key = bw_key(width, height, texts[height:], texts[:height])
    return Puzzle.trusted(tuple(lines[:height]), tuple(lines[height:]), palette, meta, goal,
                          key=key)


def _decode_palette(
    data: bytes, pos: int, flags: int, table: Table | None
) -> tuple[Palette, int]:
    if flags & FLAG_PALETTE:
        return read_palette(data, pos)
    if flags & FLAG_PALETTE_REF:
        i, pos = _read_varint(data, pos, "palette")
        entry = None if table is None else table.get(i)
        if not isinstance(entry, Palette):
            raise RoflError(f"palette: no palette {i} in the file's table")
        return entry, pos
    return _BW, pos


def _decode_meta(data: bytes, pos: int, flags: int, table: Table | None) -> tuple[Meta, int]:
    if pos >= len(data):
        raise RoflError("metadata: truncated")
    present = data[pos]
    pos += 1
    if present == 0 or present >> len(META_FIELDS):
        raise RoflError(f"metadata: bad presence byte 0x{present:02x}")
    values: dict[str, str] = {}
    for i, f in enumerate(META_FIELDS):
        if present >> i & 1:
            if flags & FLAG_TAGGED:
                values[f], pos = _read_tagged(data, pos, f"metadata {f}", table)
            else:
                values[f], pos = _read_str(data, pos, f"metadata {f}")
    return Meta(**values), pos


def _clue_error(err: int, where: int, height: int) -> RoflError:
    if err == 4:
        return RoflError(f"colour {where}: {_ERRORS[err]}")
    if where >= 0:
        line = f"row {where + 1}" if where < height else f"column {where - height + 1}"
        return RoflError(f"{line}: {_ERRORS[err]}")
    return RoflError(_ERRORS[err])


def _decode_model_record(
    k: dict[str, Any], data: bytes, pos: int, height: int, width: int, palette: Palette,
    meta: Meta,
) -> Puzzle:
    """A v3 payload's puzzle from its range-coded clues at ``pos`` (to the payload's end)."""
    if len(palette) != 2:
        raise RoflError("range-coded clues need a palette of one painted colour")
    counts, lengths, nblocks = _decode_model(k, data, pos, height, width)
    return _bw_puzzle(counts, lengths, nblocks, height, width, palette, meta, None)



def _checked_flags(flags: int, version: int | None) -> int:
    """A payload's flags byte, refused when a flag is unknown to ``version`` (3 when not
    known) or two flags contradict each other."""
    if (
        flags & ~FLAGS_OF_VERSION.get(version or 3, FLAGS)
        or (flags & FLAG_PALETTE and flags & FLAG_PALETTE_REF)
        or (flags & FLAG_RAW_GOAL and not flags & FLAG_GOAL)
        or (flags & FLAG_TAGGED and not flags & FLAG_META)
        or (flags & FLAG_MODEL and flags & FLAG_GOAL)
    ):
        raise RoflError(f"unknown flags 0x{flags:02x}")
    return flags


def _decode_goal(
    k: dict[str, Any], data: bytes, bitpos: int, flags: int, height: int, width: int,
    ncol: int,
) -> tuple[int, Any, Any, Any, int, Grid]:
    """A goal section at bit ``bitpos`` (raw cells or runs) and the clues it implies.

    Returns ``(bit position after it, counts, lengths, colours, blocks, goal)``.
    """
    arr = np.frombuffer(data, np.uint8)
    end_bits = 8 * len(data)
    ncells = width * height
    if ncells > MAX_GOAL_CELLS or ncells > (end_bits - bitpos) << 16:
        raise RoflError(f"goal of {width}x{height} cells is too large for its record")
    if flags & FLAG_RAW_GOAL:
        cells, pos = _read_raw_goal(arr, bitpos >> 3, ncells, ncol)
        bitpos = 8 * pos
    else:
        err, bitpos, cells = k["_dec_goal"](arr, bitpos, end_bits, ncells, ncol)
        if err:
            raise RoflError(f"goal: {_ERRORS[err]}")
    grid = np.ascontiguousarray(cells.reshape(height, width))
    counts, lengths, colors = k["_clues_of_grid"](grid)
    return bitpos, counts, lengths, colors, lengths.shape[0], Grid(grid)


def decode(
    data: bytes | bytearray | memoryview, table: Table | None = None, version: int | None = None
) -> Puzzle:
    """The puzzle a record payload holds (the inverse of :func:`encode`), v1, v2 or v3.

    ``table`` is the container's table, for payloads that refer to it; ``version`` the
    container's version, when known (flags a later version added are refused). Raises
    :class:`RoflError` (without a record number; the container adds it) for any payload
    that is truncated, inconsistent or carries trailing bytes.
    """
    data = bytes(data)
    k = _kernels()
    width, pos = _read_varint(data, 0, "width", MAX_SIDE)
    height, pos = _read_varint(data, pos, "height", MAX_SIDE)
    if width < 1 or height < 1:
        raise RoflError(f"puzzle size {width}x{height} is empty")
    if pos >= len(data):
        raise RoflError("flags: truncated")
    flags = _checked_flags(data[pos], version)
    pos += 1
    palette, pos = _decode_palette(data, pos, flags, table)
    ncol = len(palette) - 1
    arr = np.frombuffer(data, np.uint8)
    end_bits = 8 * len(data)
    bitpos = 8 * pos
    goal = None
    if flags & FLAG_MODEL:
        # metadata first: the range-coded section runs to the end of the payload
        meta = Meta()
        if flags & FLAG_META:
            meta, pos = _decode_meta(data, pos, flags, table)
        return _decode_model_record(k, data, pos, height, width, palette, meta)
    if flags & FLAG_GOAL:
        bitpos, counts, lengths, colors, nblocks, goal = _decode_goal(
            k, data, bitpos, flags, height, width, ncol)
    else:
        if width + height > end_bits - bitpos:
            raise RoflError(f"{width}x{height} clues cannot fit in {len(data)} bytes")
        err, where, bitpos, counts, lengths, colors, nblocks = k["_dec_clues"](
            arr, bitpos, end_bits, height, width, ncol, (ncol - 1).bit_length()
        )
        if err:
            raise _clue_error(err, where, height)
    pos = (bitpos + 7) >> 3
    if bitpos & 7 and data[pos - 1] & (0xFF >> (bitpos & 7)):
        raise RoflError("bit section: padding bits are not zero")
    meta = Meta()
    if flags & FLAG_META:
        meta, pos = _decode_meta(data, pos, flags, table)
    if pos != len(data):
        raise RoflError(f"{len(data) - pos} trailing byte(s) after the record")
    # every rule the model checks was checked above, by the kernels: no second validation
    if ncol == 1:
        return _bw_puzzle(counts, lengths, nblocks, height, width, palette, meta, goal)
    lines = _split_clues(counts, lengths, colors, nblocks, ncol)
    return Puzzle.trusted(tuple(lines[:height]), tuple(lines[height:]), palette, meta, goal)
