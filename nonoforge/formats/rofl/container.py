"""ROFL containers: records framed with sync markers and CRC-32s, an end block, a trailer.

Strict reading stops at the first problem; salvage reading resynchronises on the next valid
record and reads every intact one.
"""

from __future__ import annotations

import io
import os
import zlib
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Literal

from nonoforge.errors import RoflError
from nonoforge.formats.base import MAX_FILE_BYTES
from nonoforge.formats.rofl.record import _read_varint, _varint, decode, encode
from nonoforge.puzzle import Puzzle

MAGIC = b"ROFL"
VERSION = 1
HEADER = MAGIC + bytes([VERSION])
REC_SYNC = b"\xc5R"  # starts every record
END_SYNC = b"\xc5E"  # starts the end block
TRAILER_MAGIC = b"LFOR"
TRAILER_SIZE = 12
#: No record may claim more bytes than this (also the largest file we read at all).
MAX_RECORD = MAX_FILE_BYTES

OnError = Literal["raise", "skip", "collect"]


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

