"""Reading and writing puzzles in every common file format.

>>> from nonoforge.formats import read_file, write_file   # doctest: +SKIP
>>> puzzles = read_file("dancer.non")                     # doctest: +SKIP
>>> write_file(puzzles, "dancer.xml")                     # doctest: +SKIP

The format is chosen by name (``fmt="xml"``), else recognised from the content, else from
the file's extension. Every error is a :class:`~nonoforge.errors.FormatError` that names
the file and line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from nonoforge.errors import FormatError

# Each module registers its format on import; detection order is each Format's priority.
from nonoforge.formats import (  # noqa: F401
    csv as _csv,
)
from nonoforge.formats import (  # noqa: F401
    cwc,
    nin,
    non,
    olsak,
    pzl,
    rofl,
    tatham,
    tournament,
    xml,
)
from nonoforge.formats import (  # noqa: F401
    json as _json,
)
from nonoforge.formats.base import (
    FORMATS,
    MAX_FILE_BYTES,
    Format,
    decode_text,
    looks_binary,
    read_regular,
    register,
    safe_puzzle,
)
from nonoforge.puzzle import Puzzle
from nonoforge.util import write_atomic

__all__ = [
    "FORMATS",
    "Format",
    "detect",
    "dumps",
    "get_format",
    "iter_file",
    "loads",
    "read_file",
    "register",
    "write_file",
]


def get_format(name: str) -> Format:
    """The format called ``name`` (or with that extension, ``.non`` or ``non``)."""
    key = name.lower().lstrip(".")
    if key in FORMATS:
        return FORMATS[key]
    for f in FORMATS.values():
        if "." + key in f.extensions:
            return f
    known = ", ".join(sorted(FORMATS))
    raise FormatError(f"unknown format {name!r} (known: {known})")


def _by_extension(path: str | None) -> Format | None:
    if not path:
        return None
    name = os.path.basename(path).lower()
    for f in FORMATS.values():
        if any(name.endswith(ext) for ext in f.extensions):
            return f
    return None


def _sniffable(data: bytes) -> str | bytes:
    """What sniffers see of a file: its text in any encoding we read (see decode_text);
    only bytes no text holds leave it binary."""
    return data if looks_binary(data) else decode_text(data)


def detect(data: bytes, path: str | None = None) -> Format:
    """The format of a file's content, by sniffing it (then by the file's extension)."""
    return _detect(data, _sniffable(data), path)


def _detect(data: bytes, text: str | bytes, path: str | None) -> Format:
    """:func:`detect` with the content already decoded by :func:`_sniffable`."""
    for f in sorted(FORMATS.values(), key=lambda f: f.priority):
        sample = data if f.binary else text
        if f.binary != isinstance(sample, bytes):
            continue
        try:
            if f.sniff(sample):
                return f
        except Exception:  # a sniffer must never break detection
            continue
    by_ext = _by_extension(path)
    if by_ext is not None and (by_ext.binary or isinstance(text, str)):
        return by_ext
    if isinstance(text, bytes):
        raise FormatError("not a puzzle file (binary content of no known format)", path=path)
    raise FormatError("not a puzzle file in any known format", path=path)


def loads(
    data: bytes | str,
    fmt: str | Format | None = None,
    path: str | None = None,
    *,
    companions: bool = False,
) -> Iterator[Puzzle]:
    """The puzzles in a file's content, as a stream.

    With ``companions``, ``data`` is the content of the regular file at ``path`` and a
    format completed by files beside it (the tournament sets' ``../solution/`` files, which
    hold the goals) reads them too, as :func:`iter_file` does: every importer that has read
    a file's bytes gets what reading it by path gives.
    """
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) > MAX_FILE_BYTES:
        raise FormatError(f"file is larger than {MAX_FILE_BYTES // 2**20} MiB", path=path)
    sniffed: str | bytes | None = None  # the file is decoded once, for detection and reading
    if isinstance(fmt, Format):
        f = fmt
    elif fmt:
        f = get_format(fmt)
    else:
        sniffed = _sniffable(raw)
        f = _detect(raw, sniffed, path)
    content: str | bytes = raw if f.binary else (
        sniffed if isinstance(sniffed, str) else decode_text(raw)
    )
    if companions and path and f.with_companions is not None and os.path.isfile(path):
        found = f.with_companions(path, content)  # the file itself is not read again
        if found is not None:
            yield from (safe_puzzle(x) for x in found)  # text made safe here too
            return
    try:
        for p in f.read(content):
            yield safe_puzzle(p)  # text made safe once, here, for every reader
    except FormatError as e:
        raise e.located(path) from None
    except RecursionError:
        raise FormatError("nesting too deep", path=path) from None


def iter_file(path: str | os.PathLike[str], fmt: str | None = None) -> Iterator[Puzzle]:
    """The puzzles in a file, as a stream."""
    p = str(path)
    data = read_regular(p, MAX_FILE_BYTES)  # a FIFO or device is refused, never waited on
    yield from loads(data, fmt, p, companions=True)


def read_file(path: str | os.PathLike[str], fmt: str | None = None) -> list[Puzzle]:
    """Every puzzle in a file; an empty file is an error."""
    puzzles = list(iter_file(path, fmt))
    if not puzzles:
        raise FormatError("no puzzle in file", path=str(path))
    return puzzles


def dumps(puzzles: Puzzle | Iterable[Puzzle], fmt: str | Format) -> str | bytes:
    """Puzzles written in a format (several only where the format holds several)."""
    f = fmt if isinstance(fmt, Format) else get_format(fmt)
    items = [puzzles] if isinstance(puzzles, Puzzle) else list(puzzles)
    if f.write is None:
        raise FormatError(f"format {f.name!r} can be read but not written")
    if len(items) > 1 and not f.multi:
        raise FormatError(f"format {f.name!r} holds one puzzle a file, got {len(items)}")
    for p in items:  # the one place a write is refused (convert, generate, exports)
        why = f.refusal(p)
        if why is not None:
            raise FormatError(why)
    return f.write(items)


def write_file(
    puzzles: Puzzle | Iterable[Puzzle],
    path: str | os.PathLike[str],
    fmt: str | None = None,
) -> Format:
    """Write puzzles to ``path``, in ``fmt`` or the format its extension names."""
    p = str(path)
    f = get_format(fmt) if fmt else _by_extension(p)
    if f is None:
        raise FormatError("cannot tell the format from the extension; name one", path=p)
    try:
        out = dumps(puzzles, f)
    except FormatError as e:
        raise e.located(p) from None
    try:
        write_atomic(p, out)
    except OSError as e:
        raise FormatError(e.strerror or str(e), path=p) from None
    return f
