"""ROFL containers: records framed with sync markers and CRC-32s, an end block, a trailer.

Strict reading stops at the first problem; salvage reading resynchronises on the next valid
record and reads every intact one.
"""

from __future__ import annotations

import io
import itertools
import os
import zlib
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Literal

from nonoforge.errors import RoflError
from nonoforge.formats.base import MAX_FILE_BYTES
from nonoforge.formats.rofl.record import (
    Refs,
    Table,
    _is_number,
    _read_str,
    _read_varint,
    _utf8,
    _varint,
    decode,
    encode,
    palette_bytes,
    read_palette,
)
from nonoforge.puzzle import Palette, Puzzle

MAGIC = b"ROFL"
#: The container version written; 1 (no table blocks) and 2 (no range-coded clues) are
#: read too.
VERSION = 3
VERSIONS = (1, 2, 3)
HEADER = MAGIC + bytes([VERSION])
REC_SYNC = b"\xc5R"  # starts every record
END_SYNC = b"\xc5E"  # starts the end block
TABLE_SYNC = b"\xc5T"  # starts a table block (v2)
_SYNCS = (REC_SYNC, END_SYNC, TABLE_SYNC)
#: Metadata fields whose repeated values go to the table (titles and ids rarely repeat).
TABLE_FIELDS = ("author", "copyright", "licence", "source")
#: Records a writer looks ahead to find repeated values: bounds what it holds in memory.
GROUP = 1024
TABLE_ENTRY_STRING = 0
TABLE_ENTRY_PALETTE = 1
TRAILER_MAGIC = b"LFOR"
TRAILER_SIZE = 12
#: No record may claim more bytes than this (also the largest file we read at all).
MAX_RECORD = MAX_FILE_BYTES

OnError = Literal["raise", "skip", "collect"]


# ---------------------------------------------------------------------------------------
# container


def _frame(payload: bytes, sync: bytes = REC_SYNC) -> bytes:
    """A record (or table block): sync, length, header check byte, payload, its CRC-32."""
    head = sync + _varint(len(payload))
    return (
        head
        + bytes([zlib.crc32(head) & 0xFF])
        + payload
        + zlib.crc32(payload).to_bytes(4, "little")
    )


def _deltas(offsets: list[int]) -> bytes:
    out = bytearray()
    prev = len(HEADER)
    for o in offsets:
        out += _varint(o - prev)
        prev = o
    return bytes(out)


def _end_block(offsets: list[int], index: bool, tables: list[int]) -> bytes:
    body = bytearray(END_SYNC)
    body += _varint(len(offsets))
    body.append(1 if index else 0)
    if index:
        body += _deltas(offsets)
    body += _varint(len(tables)) + _deltas(tables)
    body += zlib.crc32(body).to_bytes(4, "little")
    return bytes(body)


def _table_block(first: int, entries: list[str | Palette]) -> bytes:
    """A table block: the index of its first entry, then the entries (strings, palettes)."""
    body = bytearray(_varint(first))
    body += _varint(len(entries))
    for e in entries:
        if isinstance(e, Palette):
            body.append(TABLE_ENTRY_PALETTE)
            body += palette_bytes(e)
        else:
            b = _utf8(e)
            body.append(TABLE_ENTRY_STRING)
            body += _varint(len(b)) + b
    return _frame(bytes(body), TABLE_SYNC)


def _repeated(group: list[Puzzle], refs: Refs) -> list[str | Palette]:
    """Values that occur twice or more in ``group`` and are not yet in the table."""
    seen: dict[str | Palette, int] = {}
    for p in group:
        for f in TABLE_FIELDS:
            v = getattr(p.meta, f)
            if v is not None and v not in refs and not _is_number(v):
                seen[v] = seen.get(v, 0) + 1
        if p.palette != Palette.bw() and p.palette not in refs:
            seen[p.palette] = seen.get(p.palette, 0) + 1
    return [v for v, n in seen.items() if n > 1]


def dump(puzzles: Iterable[Puzzle], fp: BinaryIO, *, index: bool = True) -> int:
    """Write puzzles to ``fp`` as a ROFL container, record by record; returns the count.

    Values that repeat (sources, authors, copyrights, licences, palettes) go once into the
    file's table, in a table block written before the first record that refers to them
    (the writer looks :data:`GROUP` records ahead). With ``index`` the end block lists
    every record's offset, for :func:`read_at`. Offsets count from where the container
    starts (``fp``'s position on entry).
    """
    fp.write(HEADER)
    pos = len(HEADER)
    offs: list[int] = []
    tables: list[int] = []
    refs: Refs = {}
    it = iter(puzzles)
    while True:
        group = list(itertools.islice(it, GROUP))
        if not group:
            break
        new = _repeated(group, refs)
        if new:
            block = _table_block(len(refs), new)
            for v in new:
                refs[v] = len(refs)
            tables.append(pos)
            fp.write(block)
            pos += len(block)
        for p in group:
            rec = _frame(encode(p, refs))
            offs.append(pos)
            fp.write(rec)
            pos += len(rec)
    fp.write(_end_block(offs, index, tables))
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
        self.work = 0  # bytes checksummed or parsed by the block parsers
        self.resync_work = 0  # bytes examined while resynchronising

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


def _src_varint(src: _Source, p: int, what: str, limit: int) -> tuple[int, int]:
    """A varint read from ``src`` at ``p`` (at most ``limit``), or _Bad."""
    src.need(p, 10)
    try:
        n, used = _read_varint(src.get(p, 10), 0, what, limit)
    except RoflError as e:
        raise _Bad(e.reason) from None
    return n, p + used


def _framed(src: _Source, pos: int, what: str, resync: bool = False) -> tuple[bytes, int]:
    """The checked payload of the record or table block at ``pos``: ``(payload, next)``.

    Adds the bytes it examines to ``src.work`` (the salvage work cap counts them). While
    resynchronising (``resync``), a candidate must be followed by another block's marker
    before its checksum is computed: a false header is then refused in constant time
    unless its claimed end happens to land on a marker.
    """
    n, p = _src_varint(src, pos + 2, f"{what} length", 1 << 35)
    if not src.need(p, 1):
        raise _Bad(f"truncated {what} header")
    if zlib.crc32(src.get(pos, p - pos)) & 0xFF != src.get(p, 1)[0]:
        raise _Bad(f"{what} header check failed")
    p += 1
    if n > MAX_RECORD:
        raise _Bad(f"{what} length {n} is too large")
    if not src.need(p, n + 4):
        raise _Bad(f"truncated ({what} claims {n} bytes)")
    if resync and not (src.need(p + n + 4, 2) and src.get(p + n + 4, 2) in _SYNCS):
        raise _Bad(f"{what} not followed by a block")
    src.work += n + 4
    payload = src.get(p, n)
    if zlib.crc32(payload) != int.from_bytes(src.get(p + n, 4), "little"):
        raise _Bad("checksum mismatch")
    return payload, p + n + 4


def _parse_record(
    src: _Source,
    pos: int,
    table: Table | None = None,
    resync: bool = False,
    version: int | None = None,
) -> tuple[Puzzle, int]:
    """The record at ``pos`` (its sync already seen): ``(puzzle, next_pos)``, or _Bad."""
    payload, nxt = _framed(src, pos, "record", resync)
    try:
        puzzle = decode(payload, table, version)
    except RoflError as e:
        raise _Bad(e.reason) from None
    return puzzle, nxt


def _parse_table(
    src: _Source, pos: int, resync: bool = False
) -> tuple[int, list[str | Palette], int]:
    """The table block at ``pos``: ``(first index, entries, next_pos)``, or _Bad."""
    body, nxt = _framed(src, pos, "table block", resync)
    try:
        first, p = _read_varint(body, 0, "first entry", 1 << 32)
        count, p = _read_varint(body, p, "entry count", len(body))
        entries: list[str | Palette] = []
        for i in range(count):
            if p >= len(body):
                raise RoflError(f"entry {first + i}: truncated")
            kind = body[p]
            if kind == TABLE_ENTRY_STRING:
                text, p = _read_str(body, p + 1, f"entry {first + i}")
                entries.append(text)
            elif kind == TABLE_ENTRY_PALETTE:
                pal, p = read_palette(body, p + 1)
                entries.append(pal)
            else:
                raise RoflError(f"entry {first + i}: unknown kind {kind}")
        if p != len(body):
            raise RoflError("trailing bytes")
    except RoflError as e:
        raise _Bad(e.reason) from None
    return first, entries, nxt


def _parse_end(
    src: _Source, pos: int, version: int = VERSION, at: int | None = None
) -> tuple[int, list[int] | None, list[int], int]:
    """The end block at ``pos``: ``(count, offsets or None, table offsets, next_pos)``.

    Read varint by varint (never more than the block itself), so that a false end marker
    met while resynchronising costs what its bytes can claim: every record takes at least
    9 bytes, so a block at ``pos`` lists at most ``pos // 9`` of them. ``at`` is the
    block's offset in its file when ``src`` holds the block alone.
    """
    where = pos if at is None else at

    def deltas(p: int, n: int) -> tuple[list[int], int]:
        out = []
        o = len(HEADER)
        for _ in range(n):
            d, p = _src_varint(src, p, "index", where)
            o += d
            out.append(o)
        return out, p

    start_work = src.work
    count, p = _src_varint(src, pos + 2, "record count", where // 9)
    if not src.need(p, 1):
        raise _Bad("truncated end block")
    has_index = src.get(p, 1)[0]
    p += 1
    if has_index > 1:
        raise _Bad(f"bad index flag {has_index}")
    offs = None
    if has_index:
        offs, p = deltas(p, count)
    tables: list[int] = []
    if version >= 2:
        ntables, p = _src_varint(src, p, "table count", where // 9)
        tables, p = deltas(p, ntables)
    if not src.need(p, 4):
        raise _Bad("truncated end block")
    src.work = start_work + (p - pos) + 4
    if zlib.crc32(src.get(pos, p - pos)) != int.from_bytes(src.get(p, 4), "little"):
        raise _Bad("checksum mismatch")
    return count, offs, tables, p + 4


#: Salvage examines at most this many bytes a byte of input (plus WORK_FLOOR) while it
#: resynchronises: crafted files of false record headers cost linear time, not quadratic.
WORK_PER_BYTE = 32
WORK_FLOOR = 1 << 20
_SYNC_SECOND = {m[1] for m in _SYNCS}


class RoflReader(Iterator[Puzzle]):
    """Iterates the puzzles of a ROFL container; ``errors`` collects what went wrong.

    ``on_error="raise"`` stops at the first problem with a :class:`RoflError`; ``"skip"`` and
    ``"collect"`` resynchronise on the next valid record and go on (``"collect"`` keeps the
    errors in :attr:`errors`, ``"skip"`` forgets them). :attr:`work` counts the bytes that
    resynchronisation has examined (scanned for markers, checksummed, decoded): at most
    :data:`WORK_PER_BYTE` times the input read, plus :data:`WORK_FLOOR`, whatever the input.
    """

    def __init__(self, src: Any, on_error: OnError = "raise") -> None:
        if on_error not in ("raise", "skip", "collect"):
            raise ValueError(f"on_error must be raise, skip or collect, not {on_error!r}")
        self.on_error = on_error
        self.errors: list[RoflError] = []
        self.table: Table = {}
        self.version = VERSION
        self._src = _Source(src)
        self._it = self._run(self._src)

    @property
    def work(self) -> int:
        """Bytes examined while resynchronising (see the class docstring)."""
        return self._src.resync_work

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
        """The next offset >= pos where a valid record or block starts; -1 when none is
        left, -2 when the work cap stopped the search.

        Markers are scanned for once, left to right (a false candidate moves the scan on by
        one byte, never back), and each candidate's checks count against the work cap.
        """
        while True:
            start = pos
            c = src.find(b"\xc5", pos)
            while c >= 0 and not (src.need(c, 2) and src.get(c + 1, 1)[0] in _SYNC_SECOND):
                c = src.find(b"\xc5", c + 1)
            src.resync_work += (c if c >= 0 else src.base + len(src.buf)) - start + 1
            if c < 0:
                return -1
            before = src.work
            try:
                mark = src.get(c, 2)
                if mark == REC_SYNC:
                    # intact framing is enough: a record that then fails to decode (say it
                    # refers to a lost table block) is reported by name, not skipped
                    _framed(src, c, "record", resync=True)
                elif mark == TABLE_SYNC and self.version >= 2:
                    _parse_table(src, c, resync=True)
                elif mark == END_SYNC:
                    _parse_end(src, c, self.version)
                else:
                    raise _Bad("no block")
                return c
            except _Bad:
                pos = c + 1
            finally:
                src.resync_work += src.work - before + 8
            read = src.base + len(src.buf)
            if src.resync_work > WORK_PER_BYTE * read + WORK_FLOOR:
                return -2

    def _lost(self, src: _Source, pos: int, what: str) -> int:
        """Resynchronise after a problem at ``pos``: the next offset, or -1 to stop."""
        nxt = self._resync(src, pos + 1)
        if nxt == -2:
            self._fail(f"salvage stopped at offset {pos}: too much damage to resynchronise "
                       f"(work cap of {WORK_PER_BYTE} bytes examined a byte read)")
            return -1
        if nxt < 0 and what:
            self._fail(what)
        return nxt

    def _run(self, src: _Source) -> Iterator[Puzzle]:
        pos = len(HEADER)
        if not src.need(0, len(HEADER)):
            self._fail("header: truncated (not a ROFL file)")
            pos = 0
        elif src.get(0, 4) != MAGIC:
            self._fail("header: not a ROFL file (bad magic)")
        elif src.get(4, 1)[0] not in VERSIONS:
            self._fail(f"header: unsupported ROFL version {src.get(4, 1)[0]}")
        else:
            self.version = src.get(4, 1)[0]
        seen: list[int] = []
        tables: list[int] = []
        lost = False
        i = 0
        missing = "end block missing (file truncated?)"
        while True:
            if not src.need(pos, 2):
                self._fail(f"record {i} (offset {pos}): truncated (no end block)")
                return
            mark = src.get(pos, 2)
            if mark == REC_SYNC:
                try:
                    puzzle, nxt = _parse_record(src, pos, self.table, version=self.version)
                except _Bad as e:
                    self._fail(f"record {i} (offset {pos}): {e}")
                    lost = True
                    i += 1
                    pos = self._lost(src, pos, missing)
                    if pos < 0:
                        return
                    continue
                seen.append(pos)
                i += 1
                pos = nxt
                src.drop_before(pos)
                yield puzzle
            elif mark == TABLE_SYNC and self.version >= 2:
                try:
                    first, entries, nxt = _parse_table(src, pos)
                except _Bad as e:
                    self._fail(f"table block (offset {pos}): {e}")
                    lost = True
                    pos = self._lost(src, pos, missing)
                    if pos < 0:
                        return
                    continue
                for j, entry in enumerate(entries):
                    self.table[first + j] = entry
                tables.append(pos)
                pos = nxt
            elif mark == END_SYNC:
                try:
                    count, offs, toffs, nxt = _parse_end(src, pos, self.version)
                except _Bad as e:
                    self._fail(f"end block (offset {pos}): {e}")
                    pos = self._lost(src, pos, "")
                    if pos < 0:
                        return
                    continue
                if not lost and count != len(seen):
                    self._fail(f"end block (offset {pos}): lists {count} records, read {len(seen)}")
                elif not lost and (
                    (offs is not None and offs != seen) or toffs != tables
                ):
                    self._fail(f"end block (offset {pos}): index does not match the records")
                self._check_trailer(src, pos, nxt)
                return
            else:
                self._fail(f"record {i} (offset {pos}): bad sync marker")
                lost = True
                pos = self._lost(src, pos, missing)
                if pos < 0:
                    return

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


def _directory(fp: BinaryIO | bytes) -> tuple[list[int] | None, list[int], int]:
    """The record offsets (``None`` without an index), the table-block offsets and the
    version of a file, from its header, trailer and end block alone (``fp`` must be
    seekable)."""
    if isinstance(fp, bytes | bytearray | memoryview):
        data = bytes(fp)
        size = len(data)
        head, tail = data[: len(HEADER)], data[-TRAILER_SIZE:]
    else:
        fp.seek(0)
        head = fp.read(len(HEADER))
        size = fp.seek(0, os.SEEK_END)
        fp.seek(max(size - TRAILER_SIZE, 0))
        tail = fp.read(TRAILER_SIZE)
    if head[:4] != MAGIC or len(head) < len(HEADER):
        raise RoflError("header: not a ROFL file (bad magic)")
    if head[4] not in VERSIONS:
        raise RoflError(f"header: unsupported ROFL version {head[4]}")
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
        _count, offs, tables, nxt = _parse_end(_Source(block), 0, head[4], at=end)
    except _Bad as e:
        raise RoflError(f"end block (offset {end}): {e}") from None
    if nxt != len(block):
        raise RoflError(f"end block (offset {end}): trailing bytes")
    return offs, tables, head[4]


def offsets(fp: BinaryIO | bytes) -> list[int] | None:
    """The record offsets the container's index lists (``None`` when it has no index).

    Reads only the header, the trailer and the end block (``fp`` must be seekable).
    """
    return _directory(fp)[0]


def _at(fp: BinaryIO | bytes, offset: int, sync: bytes, what: str) -> _Source:
    if isinstance(fp, bytes | bytearray | memoryview):
        src = _Source(bytes(fp)[offset:])
    else:
        fp.seek(offset)
        src = _Source(fp)
    if not src.need(0, 2) or src.get(0, 2) != sync:
        raise RoflError(f"{what} (offset {offset}): bad sync marker")
    return src


def read_at(fp: BinaryIO | bytes, i: int) -> Puzzle:
    """Record ``i`` (from 0) of a container, found through its index.

    The table blocks the end block lists are read first (the record may refer to them).
    The record's flags are checked against the file's version, as :func:`iter_load`
    checks them. Without an index the records are scanned from the start.
    """
    offs, tables, version = _directory(fp)
    if offs is None:
        if not isinstance(fp, bytes | bytearray | memoryview):
            fp.seek(0)
        for j, p in enumerate(iter_load(fp)):
            if j == i:
                return p
        raise RoflError(f"record {i}: no such record")
    if not 0 <= i < len(offs):
        raise RoflError(f"record {i}: no such record (the file has {len(offs)})")
    table: Table = {}
    for t in tables:
        try:
            first, entries, _ = _parse_table(_at(fp, t, TABLE_SYNC, "table block"), 0)
        except _Bad as e:
            raise RoflError(f"table block (offset {t}): {e}") from None
        table.update((first + j, e) for j, e in enumerate(entries))
    src = _at(fp, offs[i], REC_SYNC, f"record {i}")
    try:
        return _parse_record(src, 0, table, version=version)[0]
    except _Bad as e:
        raise RoflError(f"record {i} (offset {offs[i]}): {e}") from None
