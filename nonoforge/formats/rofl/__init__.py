"""ROFL v3: a compact, checksummed, streamable binary container of puzzles.

The name comes from the "ROFL Omitting Format Language" sketched in izaron's article on
colour nonograms; version 1 is ours and ``docs/rofl.md`` is its full specification. In short:

* a **record** (:func:`encode` / :func:`decode`) is one puzzle: sizes as varints, a flags
  byte, the palette only when it is not the standard black-and-white one, then a bit-packed
  section, then the metadata strings. The bit section holds the clues as Golomb-Rice codes
  (block lengths, and the number of blocks per line as a signed offset from its median) with
  parameters chosen per puzzle; colour indices take ``ceil(log2 C)`` bits and only when there
  are several colours. Black-and-white clues (sides up to 64) are range-coded instead
  under a random-picture model when that is shorter (v3: TAAI 2011's random 25x25
  tournament puzzles take 81.6 bytes a payload instead of 87.9). A puzzle with a goal
  picture stores the picture instead of its clues (run lengths in the same coder) because
  the clues follow from it.
* a **container** (:func:`dump` / :func:`iter_load`) is ``ROFL`` + a version byte, then
  records, each framed by a sync marker, its length, a header check byte and a CRC-32, then
  an end block (record count, optional index of record offsets, CRC-32) and a trailer that
  points to it. Truncating or altering any byte is detected and named; salvage mode
  resynchronises on the next valid record and still reads every intact one.

The bit-level work runs in small kernels: plain Python for the first few records a process
codes, numba-compiled (and cached on disk) once there is bulk work, so importing this module
and converting a few puzzles stay cheap.

The package: :mod:`~nonoforge.formats.rofl.kernels` (bit-level kernels and when they are
compiled), :mod:`~nonoforge.formats.rofl.record` (one puzzle's payload) and
:mod:`~nonoforge.formats.rofl.container` (framing, checksums, salvage, the index).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from nonoforge.errors import RoflError
from nonoforge.formats.base import Format, register
from nonoforge.puzzle import Puzzle

if TYPE_CHECKING:
    from nonoforge.formats.rofl.container import (
        END_SYNC,
        HEADER,
        MAGIC,
        REC_SYNC,
        TABLE_SYNC,
        VERSION,
        VERSIONS,
        RoflReader,
        dump,
        dumps,
        iter_load,
        load_salvage,
        offsets,
        read_at,
    )
    from nonoforge.formats.rofl.record import (
        FLAG_GOAL,
        FLAG_META,
        FLAG_MODEL,
        FLAG_PALETTE,
        FLAG_PALETTE_REF,
        FLAG_RAW_GOAL,
        FLAG_TAGGED,
        decode,
        encode,
    )

# The container and record modules import numpy: they load on first use, so that registering
# the format (every command reads files) does not cost numpy's import (issue 15).
_LAZY = dict.fromkeys(
    ("END_SYNC", "HEADER", "MAGIC", "REC_SYNC", "TABLE_SYNC", "VERSION", "VERSIONS",
     "RoflReader", "dump", "dumps", "iter_load", "load_salvage", "offsets", "read_at"),
    "container",
) | dict.fromkeys(
    ("FLAG_GOAL", "FLAG_META", "FLAG_MODEL", "FLAG_PALETTE", "FLAG_PALETTE_REF", "FLAG_RAW_GOAL",
     "FLAG_TAGGED", "decode", "encode"),
    "record",
)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "END_SYNC",
    "FLAG_GOAL",
    "FLAG_META",
    "FLAG_MODEL",
    "FLAG_PALETTE",
    "FLAG_PALETTE_REF",
    "FLAG_RAW_GOAL",
    "FLAG_TAGGED",
    "HEADER",
    "MAGIC",
    "REC_SYNC",
    "TABLE_SYNC",
    "VERSION",
    "VERSIONS",
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


# ---------------------------------------------------------------------------------------
# registration


def _read(content: str | bytes) -> Iterator[Puzzle]:
    from nonoforge.formats.rofl.container import iter_load

    data = content.encode() if isinstance(content, str) else content
    return iter(iter_load(data, on_error="raise"))


def _records(content: str | bytes) -> Iterator[Puzzle | RoflError]:
    """Every intact record; each damaged one's error in its place (the reader resynchronises
    on the next valid record: see :attr:`Format.records`)."""
    from nonoforge.formats.rofl.container import iter_load

    data = content.encode() if isinstance(content, str) else content
    reader = iter_load(data, on_error="collect")
    told = 0
    for p in reader:
        yield from reader.errors[told:]
        told = len(reader.errors)
        yield p
    yield from reader.errors[told:]


def _write(puzzles: list[Puzzle]) -> bytes:
    from nonoforge.formats.rofl.container import dumps

    return dumps(puzzles)


FORMAT = register(
    Format(
        name="rofl",
        extensions=(".rofl",),
        description="ROFL v3: compact checksummed binary container (docs/rofl.md)",
        read=_read,
        records=_records,
        write=_write,
        sniff=lambda b: isinstance(b, bytes) and b[:4] == b"ROFL",  # MAGIC, without numpy
        binary=True,
        multi=True,
        color=True,
        priority=0,
    )
)
