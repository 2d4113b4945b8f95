"""The registry of file formats and the contract each one fulfils.

A format is a small module that builds one :class:`Format` and passes it to
:func:`register`. Readers take the whole file (text, or bytes for binary formats) and
yield puzzles; writers take puzzles and return the file. Readers raise
:class:`~nonoforge.errors.FormatError` with the line where a file goes wrong; the caller
fills in the path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from nonoforge.errors import FormatError, PuzzleError
from nonoforge.puzzle import Meta, Puzzle

T = TypeVar("T")

#: Files larger than this are refused before they are read: no puzzle file is near it.
MAX_FILE_BYTES = 64 * 1024 * 1024

#: The longest side a text reader accepts: formats allow any size, so absurd ones are
#: refused before anything is allocated. (Image grids and site pages have their own,
#: smaller limits; ROFL's binary field its own larger one.)
MAX_SIDE = 10_000

Reader = Callable[[str | bytes], Iterator[Puzzle]]
Writer = Callable[[list[Puzzle]], str | bytes]


def _keep_all(p: Puzzle) -> Puzzle:
    return p


@dataclass(frozen=True)
class Format:
    """One file format: its names, how to recognise it, read it and write it.

    ``holds(p)`` is what survives a write and a read of ``p`` (the metadata and goal the
    format keeps), so that ``read(write(p)) == holds(p)`` for every puzzle the format can
    hold; ``can_hold(p)`` says which those are (size limits, colours).
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
    #: solution files): read a file *by path* with its companions, or None when it has none.
    with_companions: Callable[[str], list[Puzzle] | None] | None = None

    def accepts(self, p: Puzzle) -> bool:
        """Whether ``p`` can be written in this format without losing clues or colours."""
        if self.write is None:
            return False
        if not self.color and not p.is_bw:
            return False
        return self.can_hold(p) if self.can_hold else True


FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Add a format to the registry (each module calls this once, at import)."""
    FORMATS[fmt.name] = fmt
    return fmt


def strip_meta(p: Puzzle) -> Puzzle:
    """``p`` without metadata or goal: what a clue-only format keeps."""
    return p.replace(meta=Meta(), goal=None)


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


def numbered_lines(text: str) -> Iterable[tuple[int, str]]:
    """``(line_number, line)`` pairs, numbered from 1."""
    return enumerate(text.splitlines(), start=1)
