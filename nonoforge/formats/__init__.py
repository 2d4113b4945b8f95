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
from collections.abc import Callable, Iterable, Iterator
from typing import Literal

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
    STREAM_BYTES,
    Format,
    Record,
    TextFile,
    decode_text,
    looks_binary,
    read_regular,
    register,
    safe_puzzle,
    too_large,
)
from nonoforge.puzzle import Puzzle
from nonoforge.util import write_atomic

__all__ = [
    "FORMATS",
    "MAX_ERRORS_BEFORE_A_PUZZLE",
    "MAX_KEPT_ERRORS",
    "Format",
    "SNIFF_BYTES",
    "Reading",
    "companion_of",
    "detect",
    "dumps",
    "get_format",
    "iter_file",
    "loads",
    "read_file",
    "recognise",
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


def _sniff(data: bytes, text: str | bytes) -> Format | None:
    """The first format (by priority) whose sniffer recognises the content, or None."""
    for f in sorted(FORMATS.values(), key=lambda f: f.priority):
        sample = data if f.binary else text
        if f.binary != isinstance(sample, bytes):
            continue
        try:
            if f.sniff(sample):
                return f
        except Exception:  # a sniffer must never break detection
            continue
    return None


def _detect(data: bytes, text: str | bytes, path: str | None) -> Format:
    """:func:`detect` with the content already decoded by :func:`_sniffable`."""
    found = _sniff(data, text)
    if found is not None:
        return found
    by_ext = _by_extension(path)
    if by_ext is not None and (by_ext.binary or isinstance(text, str)):
        return by_ext
    if isinstance(text, bytes):
        raise FormatError("not a puzzle file (binary content of no known format)", path=path)
    raise FormatError("not a puzzle file in any known format", path=path)


#: How much of a file with no puzzle extension :func:`recognise` reads to tell its format:
#: every sniffer decides on the first 4 KiB (Tatham's game IDs on 64 KiB).
SNIFF_BYTES = 64 * 1024


def recognise(name: str, head: bytes) -> Format | None:
    """The format of a file met in a folder or an archive, or None when it is not a puzzle
    file (a README, a licence, a photo): the one rule of every folder walk.

    A file whose name has the extension of a format we read is taken for that format, as
    it is named (if it is damaged, reading it says so); any other file (a tournament set's
    ``.txt``, a file with no extension) by its content: ``head``, its first
    :data:`SNIFF_BYTES` bytes, must be recognised by a format's sniffer.
    """
    by_ext = _by_extension(name)
    if by_ext is not None:
        return by_ext
    head = head[:SNIFF_BYTES]
    return _sniff(head, _sniffable(head)) if head else None


def companion_of(path: str) -> str | None:
    """When the file at ``path`` is read with another file, as a companion completing it
    (a tournament set's ``../solution/NAME``), the path of that file; else None. A folder
    walk leaves a companion to the file it completes."""
    for f in FORMATS.values():
        if f.companion_of is not None:
            found = f.companion_of(path)
            if found is not None:
                return found
    return None


OnError = Literal["raise", "collect"]

#: With ``on_error="collect"``, how many malformed records a file may open with before it
#: is given up as one failure (its first error): such a file is not one of this format's,
#: and holding every error to learn that cost ~80 bytes of memory a byte of input.
MAX_ERRORS_BEFORE_A_PUZZLE = 1000
#: How many errors :attr:`Reading.errors` keeps (batches take every one from
#: :meth:`Reading.records` in its place; :attr:`Reading.error_count` counts them all).
MAX_KEPT_ERRORS = 1000


class Reading(Iterator[Puzzle]):
    """The puzzles of one file's content, as a stream (what :func:`loads` returns).

    With ``on_error="raise"`` the first malformed puzzle raises its FormatError and ends
    the stream. With ``"collect"``, in a format whose records have clear boundaries
    (:attr:`Format.records`), a malformed puzzle costs only itself: its error (with the
    file's path and the record's line) goes to :attr:`errors` and the stream goes on at
    the next record; an error the reader cannot resynchronise after (broken JSON or XML
    syntax) ends the stream and is collected too. A file where nothing could be read stays
    one failure: the stream raises its first error (as soon as
    :data:`MAX_ERRORS_BEFORE_A_PUZZLE` errors come before any puzzle). :meth:`records`
    gives the puzzles and the errors in file order, for batches that report each in its
    place.
    """

    def __init__(self, path: str | None, on_error: OnError = "raise") -> None:
        if on_error not in ("raise", "collect"):
            raise ValueError(f"on_error must be raise or collect, not {on_error!r}")
        self.path = path
        #: the file's format, once the stream has begun and found it
        self.format: Format | None = None
        #: what could not be read (``on_error="collect"``), located, in file order: the
        #: first :data:`MAX_KEPT_ERRORS` (memory stays bounded whatever the damage)
        self.errors: list[FormatError] = []
        #: how many records could not be read, all of them
        self.error_count = 0
        self._collect = on_error == "collect"
        self._source: Iterator[Record] = iter(())
        self._records = self._run()

    def start(self, source: Iterator[Record]) -> None:
        """Read ``source``: the records of the file (set once, before iterating)."""
        self._source = source

    def __next__(self) -> Puzzle:
        for r in self._records:
            if isinstance(r, Puzzle):
                return r
        raise StopIteration

    def records(self) -> Iterator[Record]:
        """The file's puzzles and, in their places, the errors of the damaged ones."""
        return self._records

    def _run(self) -> Iterator[Record]:
        read = 0
        pending: list[FormatError] = []  # held until a puzzle is read (see the class doc)
        try:
            for r in self._source:
                if isinstance(r, FormatError):
                    e = r.located(self.path)
                    if not self._collect:
                        raise e
                    pending.append(e)
                    if read:  # the file is readable: each error in its place, at once
                        yield from self._flush(pending)
                    elif len(pending) >= MAX_ERRORS_BEFORE_A_PUZZLE:
                        break  # not a file of this format: one failure (below)
                    continue
                read += 1
                yield from self._flush(pending)
                yield safe_puzzle(r)  # text made safe once, here, for every reader
        except FormatError as e:
            pending.append(e.located(self.path))
        except RecursionError:
            pending.append(FormatError("nesting too deep", path=self.path))
        if pending and (read == 0 or not self._collect):
            raise pending[0]  # strict, or nothing could be read: the file is one failure
        yield from self._flush(pending)

    def _flush(self, pending: list[FormatError]) -> Iterator[FormatError]:
        self.error_count += len(pending)
        self.errors += pending[: max(0, MAX_KEPT_ERRORS - len(self.errors))]
        yield from pending
        pending.clear()


def loads(
    data: bytes | str,
    fmt: str | Format | None = None,
    path: str | None = None,
    *,
    companions: bool = False,
    on_error: OnError = "raise",
) -> Reading:
    """The puzzles in a file's content, as a stream (a :class:`Reading`: see it for
    ``on_error="collect"``, where a malformed puzzle costs only itself). Nothing is read
    before the stream is: a bad file fails when iterated, as it always has.

    With ``companions``, ``data`` is the content of the regular file at ``path`` and a
    format completed by files beside it (the tournament sets' ``../solution/`` files, which
    hold the goals) reads them too, as :func:`iter_file` does: every importer that has read
    a file's bytes gets what reading it by path gives.
    """
    reading = Reading(path, on_error)
    reading.start(_records(reading, lambda: data, fmt, companions))
    return reading


def _records(
    reading: Reading,
    data_of: Callable[[], bytes | str],
    fmt: str | Format | None,
    companions: bool,
) -> Iterator[Record]:
    """A file's records (see :attr:`Format.records`); the Reading locates the errors and
    learns the format here, once it is known."""
    path = reading.path
    data = data_of()
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) > MAX_FILE_BYTES:
        raise FormatError(too_large(), path=path)
    sniffed: str | bytes | None = None  # the file is decoded once, for detection and reading
    if isinstance(fmt, Format):
        f = fmt
    elif fmt:
        f = get_format(fmt)
    else:
        sniffed = _sniffable(raw)
        f = _detect(raw, sniffed, path)
    reading.format = f
    content: str | bytes = raw if f.binary else (
        sniffed if isinstance(sniffed, str) else decode_text(raw)
    )
    # the readers stream records from the content; the file's bytes are not held beside
    # its text while they do (a caller that does not keep them frees them: iter_file)
    del data, raw, sniffed
    if companions and path and f.with_companions is not None and os.path.isfile(path):
        found = f.with_companions(path, content)  # the file itself is not read again
        if found is not None:
            yield from found
            return
    yield from (f.records or f.read)(content)


def iter_file(
    path: str | os.PathLike[str], fmt: str | None = None, *, on_error: OnError = "raise"
) -> Reading:
    """The puzzles in a file, as a stream (see :class:`Reading` for ``on_error``).

    A file larger than :data:`~nonoforge.formats.base.STREAM_BYTES` in a format read line
    by line (``.non`` bundles, tournament sets: :attr:`Format.stream`) is read a chunk at a
    time, never held: memory stays that of a record, whatever the file's size. Other files
    are read whole (single-puzzle formats, XML, JSON, ROFL), as they always were.
    """
    p = str(path)
    reading = Reading(p, on_error)
    reading.start(_file_records(reading, fmt))
    return reading


def _file_records(reading: Reading, fmt: str | None) -> Iterator[Record]:
    """:func:`iter_file`'s records: streamed from a :class:`TextFile` when the file is
    large and its format reads lines, else from its bytes (read when the stream is; a FIFO
    or device is refused, never waited on)."""
    path = reading.path
    assert path is not None
    streamed = _streamed(path, fmt)
    if streamed is None:
        yield from _records(reading, lambda: read_regular(path, MAX_FILE_BYTES), fmt, True)
        return
    f, text = streamed
    assert f.stream is not None
    with text:
        reading.format = f
        lines = text.lines()
        found = None if f.with_companions is None else f.with_companions(path, lines)
        yield from (found if found is not None else f.stream(lines))


#: How much of a large file :func:`_streamed` sniffs (every sniffer decides on less).
_STREAM_HEAD = 2 * SNIFF_BYTES


def _streamed(path: str, fmt: str | None) -> tuple[Format, TextFile] | None:
    """The format and open :class:`TextFile` of a file to stream: one larger than
    :data:`~nonoforge.formats.base.STREAM_BYTES` whose format (named, or recognised from
    its head as :func:`detect` recognises the whole) reads lines; else None (read whole,
    which also says why a file cannot be read)."""
    try:
        if os.stat(path).st_size <= STREAM_BYTES:
            return None
        f = get_format(fmt) if fmt else None
        if f is not None and f.stream is None:
            return None
        text = TextFile(path, MAX_FILE_BYTES)
    except (OSError, FormatError):
        return None
    if not text.streams:
        text.close()
        return None
    if f is None:
        head = text.head_bytes(_STREAM_HEAD)
        try:
            f = None if looks_binary(head) else _detect(head, text.head(_STREAM_HEAD), path)
        except FormatError:
            f = None
        if f is None or f.stream is None:
            text.close()
            return None
    return f, text


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
