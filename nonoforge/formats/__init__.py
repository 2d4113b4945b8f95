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
from pathlib import Path

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
from nonoforge.formats.base import FORMATS, MAX_FILE_BYTES, Format, register
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


def detect(data: bytes, path: str | None = None) -> Format:
    """The format of a file's content, by sniffing it (then by the file's extension)."""
    try:
        text: str | bytes = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data
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
    f = fmt if isinstance(fmt, Format) else get_format(fmt) if fmt else detect(raw, path)
    if companions and path and f.with_companions is not None and os.path.isfile(path):
        found = f.with_companions(path)
        if found is not None:
            yield from found
            return
    if f.binary:
        content: str | bytes = raw
    else:
        try:
            content = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise FormatError(f"not UTF-8 text (byte {e.start})", path=path) from None
    try:
        yield from f.read(content)
    except FormatError as e:
        raise e.located(path) from None
    except RecursionError:
        raise FormatError("nesting too deep", path=path) from None


def iter_file(path: str | os.PathLike[str], fmt: str | None = None) -> Iterator[Puzzle]:
    """The puzzles in a file, as a stream."""
    p = str(path)
    try:
        size = os.path.getsize(p)
        if size > MAX_FILE_BYTES:
            raise FormatError(f"file is larger than {MAX_FILE_BYTES // 2**20} MiB", path=p)
        data = Path(p).read_bytes()
    except IsADirectoryError:
        raise FormatError("is a directory, not a puzzle file", path=p) from None
    except FileNotFoundError:
        raise FormatError("no such file", path=p) from None
    except PermissionError:
        raise FormatError("permission denied", path=p) from None
    except OSError as e:
        raise FormatError(e.strerror or str(e), path=p) from None
    f = get_format(fmt) if fmt else detect(data, p)
    yield from loads(data, f, p, companions=True)


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
    for p in items:
        if not f.accepts(p):
            why = "colour" if not f.color and not p.is_bw else "this puzzle"
            raise FormatError(f"format {f.name!r} cannot hold {why}")
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
