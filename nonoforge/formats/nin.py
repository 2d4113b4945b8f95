"""Jakub Wilk's ``.nin`` format (black-and-white, clues only).

::

    10 10          width height
    1              the height row clues, top to bottom
    4
    ...
    2 2            then the width column clues, left to right

Numbers are separated by spaces or tabs; ``0`` or an empty line is an empty clue; lines
starting with ``#`` are comments (they do not count as clue lines). As in Wilk's own
solver, anything after the last column line is ignored: one file of his test set
(``data142.nin``) carries trailing copies of its puzzle glued together.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nonoforge.errors import FormatError
from nonoforge.formats.base import Format, bw_clues, parse_int, register
from nonoforge.formats.non import build_puzzle, check_line_length
from nonoforge.puzzle import Block, Clue, Palette, Puzzle

_HEADER = re.compile(r"\s*(\S+)\s+(\S+)\s*$")


def _content_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line_number, line)`` with comment lines left out."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            continue
        yield lineno, line


def _clue(line: str, lineno: int) -> Clue:
    check_line_length(line, lineno)
    tokens = line.split()
    blocks = []
    for t in tokens:
        if t.startswith("-"):
            raise FormatError(f"negative clue number {t[:20]!r}", line=lineno)
        blocks.append(parse_int(t, lineno, "clue number"))
    if blocks == [0]:
        return ()
    if 0 in blocks:
        raise FormatError("a clue of several numbers contains 0", line=lineno)
    return tuple(Block(n, 1) for n in blocks)


def read(text: str | bytes) -> Iterator[Puzzle]:
    """The one puzzle of a ``.nin`` file."""
    if isinstance(text, bytes):
        raise FormatError(".nin files are text")
    lines = _content_lines(text)
    header = None
    for lineno, line in lines:
        if line.strip():
            header = (lineno, line)
            break
    if header is None:
        raise FormatError("empty file: expected a 'width height' line", line=1)
    hline, htext = header
    if len(htext) > 100:
        raise FormatError("expected a 'width height' line, got a very long line", line=hline)
    m = _HEADER.match(htext)
    if not m:
        raise FormatError(f"expected 'width height', got {htext.strip()[:40]!r}", line=hline)
    width = parse_int(m.group(1), hline, "width")
    height = parse_int(m.group(2), hline, "height")
    if width < 1 or height < 1:
        raise FormatError("width and height must be at least 1", line=hline)
    clues: list[Clue] = []
    where: list[int] = []
    last = hline
    for lineno, line in lines:
        clues.append(_clue(line, lineno))
        where.append(lineno)
        last = lineno
        if len(clues) == width + height:
            break
    if len(clues) < width + height:
        kind = "row" if len(clues) < height else "column"
        raise FormatError(
            f"file ends after {len(clues)} of {height} row and {width} column clue lines "
            f"(missing {kind} clues)",
            line=last,
        )
    yield build_puzzle(
        clues[:height], clues[height:], Palette.bw(), None, where[:height], where[height:],
        last,
    )


def write(puzzles: list[Puzzle]) -> str:
    """One puzzle as ``.nin`` text."""
    (p,) = puzzles

    def line(c: Clue) -> str:
        return " ".join(str(b.length) for b in c) if c else "0"

    return "\n".join([f"{p.width} {p.height}", *map(line, p.rows), *map(line, p.columns)]) + "\n"


holds = bw_clues  # what survives: the clues, in black on white


_NUMS = re.compile(r"[0-9 \t]*")


def sniff(text: str | bytes) -> bool:
    """A ``W H`` line followed by lines of numbers only (comments allowed)."""
    if not isinstance(text, str):
        return False
    lines = [ln for ln in text[:4096].splitlines() if not ln.lstrip().startswith("#")]
    if len(text) > 4096 and lines:
        lines.pop()  # the last line may be cut short
    body = [ln for ln in lines if ln.strip()]
    if len(body) < 3:
        return False
    head = body[0].split()
    if len(head) != 2 or not all(t.isdigit() and t.isascii() for t in head):
        return False
    return all(_NUMS.fullmatch(ln) for ln in body[1:])


FORMAT = register(
    Format(
        name="nin",
        extensions=(".nin",),
        description="Jakub Wilk's .nin (black-and-white clues)",
        read=read,
        write=write,
        sniff=sniff,
        holds=holds,
        priority=80,
    )
)
