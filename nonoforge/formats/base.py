"""The registry of file formats and the contract each one fulfils.

A format is a small module that builds one :class:`Format` and passes it to
:func:`register`. Readers take the whole file (text, or bytes for binary formats) and
yield puzzles; writers take puzzles and return the file. Readers raise
:class:`~nonoforge.errors.FormatError` with the line where a file goes wrong; the caller
fills in the path.
"""

from __future__ import annotations

import codecs
import dataclasses
import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from nonoforge.errors import FormatError, PuzzleError
from nonoforge.puzzle import Meta, Palette, Puzzle
from nonoforge.util import safe_text

T = TypeVar("T")

#: Files larger than this are refused before they are read: the one cap of every command
#: that reads files (``db import``, ``ingest PATH`` and the members of its archives,
#: ``convert``, ``info``, ``solve``, images for ``generate``). Readers stream records, so
#: the cap bounds the bytes held, not the memory reading them takes; ``convert`` writes
#: bundles of tens of MB that every command must read back.
MAX_FILE_BYTES = 64 * 1024 * 1024

#: The longest side a text reader accepts: formats allow any size, so absurd ones are
#: refused before anything is allocated. (Image grids and site pages have their own,
#: smaller limits; ROFL's binary field its own larger one.)
MAX_SIDE = 10_000

Reader = Callable[[str | bytes], Iterator[Puzzle]]
Writer = Callable[[list[Puzzle]], str | bytes]
#: What a resynchronising reader yields: a puzzle, or the error of a record it could not
#: read, in that record's place (it then goes on at the next record).
Record = Puzzle | FormatError
RecordReader = Callable[[str | bytes], Iterator[Record]]
#: A file's lines, numbered from 1, as a stream (see :func:`numbered_lines`).
NumberedLines = Iterator[tuple[int, str]]
#: See :attr:`Format.with_companions`.
Companions = Callable[[str, "str | bytes | NumberedLines"], Iterable[Record] | None]


def record(build: Callable[[], T]) -> T | FormatError:
    """One record of a resynchronising reader: what ``build`` reads, or the FormatError it
    raises, to be yielded in that record's place (the reader then goes on at the next)."""
    try:
        return build()
    except FormatError as e:
        return e


def puzzles_of(records: Iterable[Record]) -> Iterator[Puzzle]:
    """The puzzles of a resynchronising reader's records, up to the first damaged one,
    whose error is then raised (strict reading)."""
    for r in records:
        if isinstance(r, FormatError):
            raise r
        yield r


def strict(records: RecordReader) -> Reader:
    """The reader that stops at the first damaged record (raises its error): a format's
    ``read``, built from its resynchronising ``records`` reader."""

    def read(content: str | bytes) -> Iterator[Puzzle]:
        return puzzles_of(records(content))

    read.__doc__ = records.__doc__
    return read


def _keep_all(p: Puzzle) -> Puzzle:
    return p


@dataclass(frozen=True)
class Format:
    """One file format: its names, how to recognise it, read it and write it.

    ``holds(p)`` is what survives a write and a read of ``p`` (the metadata and goal the
    format keeps), so that ``read(write(p)) == holds(p)`` for every puzzle the format can
    hold; ``can_hold(p)`` says which those are (size limits, colours). ``givens`` says
    whether the format holds a puzzle's givens (cells printed solved): they are part of
    the puzzle, so a format without them cannot hold a puzzle that has any.
    """

    name: str
    extensions: tuple[str, ...]
    description: str
    read: Reader
    write: Writer | None
    sniff: Callable[[str | bytes], bool]
    binary: bool = False
    multi: bool = False
    color: bool = False
    holds: Callable[[Puzzle], Puzzle] = field(default=_keep_all)
    can_hold: Callable[[Puzzle], bool] | None = None
    #: Detection tries formats in ascending priority: the most specific sniffers first.
    priority: int = 50
    #: For formats whose puzzles are completed by files beside them (the tournament sets'
    #: solution files): given a file's path and its content (already read and decoded),
    #: read it with its companions (records, errors in place), or None when it has none.
    with_companions: Companions | None = None
    #: The other half of ``with_companions``: given a file's path, when that file is a
    #: companion (a tournament solution file), the path of the file it completes (read
    #: with it), else None. Folder walks leave companions to the files they complete.
    companion_of: Callable[[str], str | None] | None = None
    #: Whether files of this format carry a puzzle's givens (see the class doc).
    givens: bool = False
    #: For multi-puzzle formats with clear record boundaries: the reader that, on a
    #: malformed puzzle, yields its FormatError in its place and resynchronises at the next
    #: record (``read`` is then ``strict(records)``). With ``with_companions``, that returns
    #: records too. See ``loads(..., on_error="collect")``.
    records: RecordReader | None = None
    #: For formats read line by line (``.non`` bundles, tournament sets): the records of
    #: a file's numbered lines (:func:`numbered_lines`, or a :class:`TextFile`'s stream),
    #: so that a large file is read without being held (``records`` is the same reader
    #: given text). ``with_companions`` then takes such lines as the content too.
    stream: Callable[[NumberedLines], Iterator[Record]] | None = None

    def accepts(self, p: Puzzle) -> bool:
        """Whether ``p`` can be written in this format without losing clues, colours or
        givens."""
        return self.refusal(p) is None

    def refusal(self, p: Puzzle) -> str | None:
        """Why ``p`` cannot be written in this format (one line), or None when it can."""
        if self.write is None:
            return f"format {self.name!r} can be read but not written"
        if not self.color and not p.is_bw:
            return f"format {self.name!r} cannot hold colour"
        if p.givens and not self.givens:
            return givens_refusal(self.name, p)
        if self.can_hold and not self.can_hold(p):
            return f"format {self.name!r} cannot hold this puzzle"
        return None


FORMATS: dict[str, Format] = {}


def givens_refusal(name: str, p: Puzzle) -> str:
    """Why format ``name``, which has no place for givens, refuses ``p`` (one line, naming
    the formats that hold them): :meth:`Format.refusal`'s words, and ROFL's record encoder's,
    which cannot reach the registry without an import cycle."""
    return (
        f"format {name!r} cannot hold given cells (cells printed solved; this "
        f"puzzle has {len(p.givens)}): use {_givens_formats()}"
    )


def _givens_formats() -> str:
    """The formats that hold givens, for messages: ``non, json or tatham (...)``."""
    names = [
        f.name + ("" if f.color else " (black-and-white)")
        for f in FORMATS.values()
        if f.givens and f.write is not None
    ]
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


def register(fmt: Format) -> Format:
    """Add a format to the registry (each module calls this once, at import)."""
    FORMATS[fmt.name] = fmt
    return fmt


def strip_meta(p: Puzzle) -> Puzzle:
    """``p`` without metadata or goal: what a clue-only format keeps (givens stay: a format
    that cannot hold them refuses a puzzle that has any, see :meth:`Format.refusal`)."""
    return p.replace(meta=Meta(), goal=None)


def bw_clues(p: Puzzle) -> Puzzle:
    """``p``'s clues alone, in black on white: what a black-and-white, clue-only format
    (``.nin``, CSV, Tatham's game IDs) keeps."""
    return p.replace(meta=Meta(), goal=None, palette=Palette.bw())


def puzzle_or_error(build: Callable[[], T], line: int | None = None) -> T:
    """Build a puzzle (or a part of one, such as a palette), turning a
    :class:`PuzzleError` into a :class:`FormatError` at ``line``."""
    try:
        return build()
    except PuzzleError as e:
        raise FormatError(str(e), line=line) from None


def parse_int(token: str, line: int, what: str = "number") -> int:
    """A non-negative decimal integer of at most 6 digits, or a FormatError at ``line``."""
    t = token.strip()
    if not t.isdigit() or not t.isascii():
        raise FormatError(f"expected a {what}, got {_show(t)}", line=line)
    if len(t) > 6:
        raise FormatError(f"{what} {_show(t)} is too large", line=line)
    return int(t)


def _show(token: str) -> str:
    return repr(token if len(token) <= 20 else token[:20] + "...")


#: Text up to this many characters is split into lines at once (C speed, a list of lines
#: a few times the text's size: small); longer text, and files longer than
#: :data:`STREAM_BYTES`, are split a chunk of this size at a time.
SPLIT_CHARS = 1 << 18


def numbered_lines(text: str) -> NumberedLines:
    """``(line_number, line)`` pairs, numbered from 1: the lines of ``text.splitlines()``,
    without a list of the whole file's lines for long text (~70 bytes a line, 5x a
    tournament file's size): a multi-puzzle reader then holds only the record it reads."""
    if len(text) <= SPLIT_CHARS:
        return enumerate(text.splitlines(), 1)
    return split_lines(text[i : i + SPLIT_CHARS] for i in range(0, len(text), SPLIT_CHARS))


def split_lines(chunks: Iterable[str]) -> NumberedLines:
    """The numbered lines of the text that ``chunks`` make up, joined: exactly what
    ``"".join(chunks).splitlines()`` numbers from 1, holding one chunk and a line at a time.

    A line is given once the text after it is known (a ``\r`` may be the first half of
    ``\r\n``): the last line of each chunk waits for the next.
    """
    n = 0
    buf = ""
    for chunk in chunks:
        buf += chunk
        # everything up to the last "\n" is whole lines ("\n" never pairs with what
        # follows); text without one (old Mac files: "\r" alone) is cut at its last break
        cut = buf.rfind("\n") + 1
        if not cut:
            parts = buf.splitlines(True)
            if len(parts) < 2:
                continue
            cut = len(buf) - len(parts[-1])
        lines = buf[:cut].splitlines()
        buf = buf[cut:]
        yield from enumerate(lines, n + 1)
        n += len(lines)
    yield from enumerate(buf.splitlines(), n + 1)


# -- text as found in the wild ------------------------------------------------------------

_XML_DECL = re.compile(rb"""^<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9._-]{1,40})["']""")
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF32_LE, "utf-32"),
         (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
#: Bytes that never occur in text: NUL and the C0 controls other than tab, LF, FF, CR, ESC.
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 26, 27))


#: Codecs that are not a way to store text in a file, whatever a document declares: the
#: transforms (idna, punycode), the escapes, "undefined", UTF-7, and the wide encodings
#: (a declaration we could read as ASCII cannot be in UTF-16/32: it lies).
_NOT_FILE_ENCODINGS = frozenset({
    "idna", "punycode", "undefined", "utf-7", "unicode-escape", "raw-unicode-escape",
    "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be",
    "mbcs", "oem", "charmap",
})


def text_codec(name: str | None) -> str | None:
    """The codec a charset name means, if it is one a text file or page can be in; else None.

    Unknown and bogus names (``undefined``, ``idna``, ``rot13``, ``base64``...) give None,
    so the caller falls back instead of failing. Files and web pages (HTTP ``charset``,
    ``<meta charset>``) share this one judgement; a page declaring UTF-16 in its text is
    read as UTF-8, as browsers do.
    """
    if not name or len(name) > 40:
        return None
    try:
        info = codecs.lookup(name.strip().strip("\"'"))
    except (LookupError, ValueError):
        return None
    if not getattr(info, "_is_text_encoding", True):
        return None
    canonical = info.name.replace("_", "-")
    return None if canonical in _NOT_FILE_ENCODINGS else info.name


def decode_as(data: bytes, name: str | None) -> str | None:
    """``data`` decoded with the charset ``name`` (bad bytes replaced), or None when
    ``name`` is not a usable text encoding."""
    codec = text_codec(name)
    if codec is None:
        return None
    try:
        return data.decode(codec, errors="replace")
    except (UnicodeError, LookupError, ValueError):  # pragma: no cover - text codecs replace
        return None


def declared_encoding(data: bytes) -> str | None:
    """The encoding an XML declaration at the start of ``data`` names (a usable one), or None."""
    m = _XML_DECL.match(data.lstrip(b"\xef\xbb\xbf \t\r\n")[:300])
    return text_codec(m.group(1).decode("ascii")) if m else None


def decode_text(data: bytes) -> str:
    """A text file's bytes as text, as such files are found in the wild; never fails.

    A byte-order mark decides first; then an XML declaration's encoding; then UTF-8; a
    file that is not UTF-8 is read whole as cp1252 (which webpbn's old ``.non`` files and
    Windows editors write: é, ö, ©), or as Latin-1 when it holds a byte cp1252 leaves
    undefined. One byte never makes a file "binary": see :func:`looks_binary`.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(name, errors="replace")
    declared = declared_encoding(data)
    if declared is not None and declared != "utf-8":
        text = decode_as(data, declared)
        if text is not None:
            return text
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def looks_binary(data: bytes, sample: int = 8192) -> bool:
    """Whether ``data`` is not text at all: a NUL, or many control bytes, in its head.

    High bytes (a title in Latin-1) never count: only bytes no text file holds.
    """
    head = data[:sample]
    if not head or any(head.startswith(bom) for bom, _ in _BOMS[1:]):
        return False
    if b"\x00" in head:
        return True
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls > max(4, len(head) // 50)


#: Longest text a metadata field keeps: titles, authors... are short; notes may not be.
MAX_META_CHARS = 1000
MAX_NOTE_CHARS = 20000


def safe_meta(meta: Meta) -> Meta:
    """``meta`` with every field made safe to store (:func:`nonoforge.util.safe_text`)."""
    changes = {}
    for f in dataclasses.fields(meta):
        value = getattr(meta, f.name)
        if isinstance(value, str):
            limit = MAX_NOTE_CHARS if f.name == "note" else MAX_META_CHARS
            safe = safe_text(value, limit)
            if safe != value:
                changes[f.name] = safe
    return dataclasses.replace(meta, **changes) if changes else meta


def clean_text(text: str | None) -> str | None:
    """A metadata field as a format writes and keeps it: made safe by the one rule for
    stored text (:func:`nonoforge.util.safe_text`: control characters *replaced*, never
    dropped; line breaks normalised), surrounding space stripped; empty is None.

    >>> clean_text("  Cat\\x1b[31m ")
    'Cat\\ufffd[31m'
    """
    if text is None:
        return None
    return safe_text(text, len(text) + 1).strip() or None


def safe_puzzle(p: Puzzle) -> Puzzle:
    """``p`` with its metadata made safe: the one place readers' text is cleaned."""
    meta = safe_meta(p.meta)
    return p if meta is p.meta else p.with_meta(meta)  # the clues are already valid


# -- reading files -------------------------------------------------------------------------


def read_regular(path: str | os.PathLike[str], cap: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``cap`` bytes; FormatError otherwise.

    The file is opened without blocking and checked before anything is read, so a FIFO,
    a device or a socket is refused at once instead of hanging; a file that grows past
    the cap while read is refused too.
    """
    p = os.fspath(path)
    fd, size = open_regular(p, cap)
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            # the size it has, then what it grew by: read(cap + 1) would allocate the cap
            # (64 MiB) for every file, however small, before shrinking it
            data = f.read(size + 1)
            if len(data) > size:
                data += f.read(cap + 1 - len(data))
    except OSError as e:
        raise FormatError(e.strerror or str(e), path=p) from None
    finally:
        os.close(fd)
    if len(data) > cap:
        raise FormatError(too_large(cap), path=p)
    return data


def open_regular(p: str, cap: int = MAX_FILE_BYTES) -> tuple[int, int]:
    """``(descriptor, size)`` of the regular file ``p`` of at most ``cap`` bytes, opened
    without blocking and checked before anything is read (see :func:`read_regular`); the
    caller closes the descriptor. FormatError otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(p, flags)
    except IsADirectoryError:
        raise FormatError("is a directory, not a puzzle file", path=p) from None
    except FileNotFoundError:
        raise FormatError("no such file", path=p) from None
    except PermissionError:
        raise FormatError("permission denied", path=p) from None
    except OSError as e:
        if e.errno == errno.ENXIO:  # a FIFO nobody writes to, a socket
            raise FormatError("not a regular file (a FIFO or socket)", path=p) from None
        raise FormatError(e.strerror or str(e), path=p) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise FormatError("is a directory, not a puzzle file", path=p)
        if not stat.S_ISREG(st.st_mode):
            raise FormatError(f"not a regular file ({file_kind(st.st_mode)})", path=p)
        if st.st_size > cap:
            raise FormatError(too_large(cap), path=p)
    except OSError as e:
        os.close(fd)
        raise FormatError(e.strerror or str(e), path=p) from None
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


#: Files larger than this, in a format read line by line (:attr:`Format.stream`), are
#: read as a stream of lines (:class:`TextFile`) instead of whole: reading then holds a
#: chunk and a record, not the file's bytes and its text (2x the file, at decoding).
STREAM_BYTES = 1 << 20
#: Bytes read (and decoded) at a time from a streamed file.
READ_BYTES = 1 << 18


def file_lines(path: str | os.PathLike[str], cap: int = MAX_FILE_BYTES) -> NumberedLines:
    """The numbered lines of the text file at ``path``: read whole and decoded by
    :func:`decode_text` when it is small, streamed by a :class:`TextFile` when it is larger
    than :data:`STREAM_BYTES`. The file is opened and checked at once (a missing file, a
    FIFO, one over ``cap``: FormatError now, not when the lines are read)."""
    p = os.fspath(path)
    fd, size = open_regular(p, cap)
    os.close(fd)
    if size <= STREAM_BYTES:
        return numbered_lines(decode_text(read_regular(p, cap)))
    return _closing_lines(TextFile(p, cap))


def _closing_lines(text: TextFile) -> NumberedLines:
    with text:
        yield from text.lines()


class TextFile:
    """A regular file's text as a stream of numbered lines, decoded exactly as
    :func:`decode_text` decodes the file's bytes, split exactly as ``splitlines`` splits
    the text; memory: a chunk of :data:`READ_BYTES` and a line, whatever the file's size.

    Opening checks the file as :func:`read_regular` does (FIFOs, devices and files over
    ``cap`` are refused before anything is read) and chooses the encoding: a byte-order
    mark or an XML declaration from the head, else a pass over the bytes (nothing kept)
    tells UTF-8 from cp1252 and Latin-1. A file that grows past ``cap`` while read is
    refused when reading reaches the excess. ``chunk``: bytes read at a time.
    """

    def __init__(
        self, path: str | os.PathLike[str], cap: int = MAX_FILE_BYTES, chunk: int = READ_BYTES
    ) -> None:
        self.path = os.fspath(path)
        self.cap = cap
        self.chunk = max(1, chunk)
        #: whether :meth:`lines` reads a chunk at a time (all but UTF-16/32 files)
        self.streams = True
        self._fd, self.size = open_regular(self.path, cap)
        try:
            self._skip, self.encoding, self._errors = self._choose_encoding()
        except OSError as e:
            self.close()
            raise FormatError(e.strerror or str(e), path=self.path) from None

    def close(self) -> None:
        """Let the file go (reading after this is an error)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> TextFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def head_bytes(self, n: int) -> bytes:
        """The file's first ``n`` bytes (or all of it, when shorter)."""
        return os.pread(self._fd, n, 0)

    def head(self, n: int) -> str:
        """The text of the file's first ``n`` bytes (a character cut at the end dropped)."""
        decoder = codecs.getincrementaldecoder(self.encoding)(self._errors)
        return decoder.decode(self.head_bytes(n)[self._skip :])

    def lines(self) -> NumberedLines:
        """The file's numbered lines (see :func:`split_lines`), read a chunk at a time
        (a UTF-16 or UTF-32 file is read whole: see :attr:`streams`)."""
        if not self.streams:
            return numbered_lines(decode_text(read_regular(self.path, self.cap)))
        return split_lines(self._texts())

    def _texts(self) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder(self.encoding)(self._errors)
        pos = self._skip
        try:
            while data := os.pread(self._fd, self.chunk, pos):
                pos += len(data)
                if pos > self.cap:
                    raise FormatError(too_large(self.cap), path=self.path)
                yield decoder.decode(data)
        except OSError as e:
            raise FormatError(e.strerror or str(e), path=self.path) from None
        yield decoder.decode(b"", True)

    def _choose_encoding(self) -> tuple[int, str, str]:
        """``(bytes to skip, codec, errors)``: :func:`decode_text`'s choice, made without
        holding the file (it is read once more, a chunk at a time, unless the head
        decides)."""
        head = self.head_bytes(300)
        for bom, name in _BOMS:
            if head.startswith(bom):
                # decode_text decodes what follows a UTF-16/32 mark as bytes.decode does,
                # which an incremental decoder does not reproduce: such files are read whole
                self.streams = name == "utf-8"
                return len(bom), name, "replace"
        declared = declared_encoding(head)
        if declared is not None and declared != "utf-8":
            return 0, declared, "replace"
        for name in ("utf-8", "cp1252"):
            if self._decodes(name):  # (read with "replace": the file may change meanwhile)
                return 0, name, "replace"
        return 0, "latin-1", "replace"

    def _decodes(self, name: str) -> bool:
        """Whether the whole file decodes as ``name`` without an error."""
        decoder = codecs.getincrementaldecoder(name)("strict")
        pos = 0
        try:
            while data := os.pread(self._fd, self.chunk, pos):
                pos += len(data)
                if data.isascii() and not decoder.getstate()[0]:
                    continue  # ASCII is the same in both, and nothing is pending
                decoder.decode(data)
            decoder.decode(b"", True)
        except UnicodeDecodeError:
            return False
        return True


def file_kind(mode: int) -> str:
    """What a non-regular file is, for messages: a FIFO, a socket, a device."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def too_large(cap: int = MAX_FILE_BYTES) -> str:
    """The one-line refusal of a file over ``cap`` bytes (the same words everywhere)."""
    return f"file is larger than {size_text(cap)}"


def size_text(n: int) -> str:
    """A byte count for messages: ``64 MiB``, or ``512 bytes``."""
    return f"{n // 2**20} MiB" if n >= 2**20 else f"{n} bytes"
