"""The one-column ``puzzle.csv`` layout of R nonogram scripts.

One value a line: the row count, each row's clue (top to bottom), the column count, each
column's clue (left to right)::

    3
    1 1
    3
    0
    3
    2
    1
    2

A clue's numbers are separated by spaces or commas, and the value may be quoted as CSV
(``"1,1"``); an empty clue is ``0`` or an empty value. A single header line that is not a
number (R's ``write.csv`` writes ``"x"``) is skipped. We write the numbers space-separated,
unquoted, ``0`` for an empty clue. Black-and-white, one puzzle a file, no metadata.
"""

from __future__ import annotations

import csv as _csv
import re
from collections.abc import Iterator

from nonoforge.errors import FormatError
from nonoforge.formats.base import (
    MAX_SIDE,
    Format,
    bw_clues,
    numbered_lines,
    parse_int,
    puzzle_or_error,
    register,
)
from nonoforge.puzzle import Puzzle

_SEP = re.compile(r"[\s,]+")


def _value(raw: str, lineno: int) -> str:
    """The one CSV value on a line (unquoted)."""
    try:
        fields = next(_csv.reader([raw], strict=True))
    except (_csv.Error, StopIteration) as e:
        raise FormatError(f"malformed CSV value: {e}", line=lineno) from None
    if len(fields) > 1:
        # an unquoted "1,2": the commas separate the clue's numbers, not columns
        return ",".join(fields)
    return fields[0] if fields else ""


def _numbers(value: str, lineno: int, what: str) -> list[int]:
    toks = [t for t in _SEP.split(value.strip()) if t]
    return [parse_int(t, lineno, what) for t in toks]


def _values(text: str) -> list[tuple[int, str]]:
    return [(n, _value(raw, n)) for n, raw in numbered_lines(text)]


def parse(text: str) -> Puzzle:
    vals = _values(text)
    if not any(v.strip() for _, v in vals):
        raise FormatError("empty file")
    pos = 0
    first = vals[0][1].strip()
    if any(ch.isalpha() for ch in first):
        pos = 1  # a header such as "x" or "V1"

    def count(what: str) -> int:
        nonlocal pos
        if pos >= len(vals):
            raise FormatError(f"file ends where {what} should be", line=vals[-1][0])
        lineno, v = vals[pos]
        pos += 1
        n = parse_int(v, lineno, what)
        if not 1 <= n <= MAX_SIDE:
            raise FormatError(f"{what} {n} is out of range 1..{MAX_SIDE}", line=lineno)
        return n

    def clues(n: int, kind: str, size_line: int) -> list[tuple[int, ...]]:
        nonlocal pos
        out = []
        for i in range(n):
            what = f"{kind} {i + 1}"
            if pos >= len(vals):
                raise FormatError(
                    f"file ends at {what} of {n} (the count is on line {size_line})",
                    line=vals[-1][0],
                )
            lineno, v = vals[pos]
            pos += 1
            nums = _numbers(v, lineno, f"{what} block length")
            if nums == [0]:
                nums = []
            if 0 in nums:
                raise FormatError(f"{what}: a block of length 0", line=lineno)
            out.append(tuple(nums))
        return out

    if pos >= len(vals):
        raise FormatError("a header line and nothing else", line=1)
    h_line = vals[pos][0]
    h = count("row count")
    rows = clues(h, "row", h_line)
    w_line = vals[pos][0] if pos < len(vals) else vals[-1][0]
    w = count("column count")
    cols = clues(w, "column", w_line)
    for lineno, v in vals[pos:]:
        if v.strip():
            raise FormatError("unexpected data after the last column clue", line=lineno)
    return puzzle_or_error(lambda: Puzzle.from_clues(rows, cols))


def read(text: str | bytes) -> Iterator[Puzzle]:
    if isinstance(text, bytes):
        raise FormatError("a CSV file is text")
    yield parse(text)


def write(puzzles: list[Puzzle]) -> str:
    (p,) = puzzles

    def clue(c: tuple) -> str:
        return " ".join(str(b.length) for b in c) if c else "0"

    out = [str(p.height), *(clue(r) for r in p.rows), str(p.width), *(clue(c) for c in p.columns)]
    return "\n".join(out) + "\n"


def _count_of(line: str) -> int | None:
    """The number a line holds alone (quoted or not), else None."""
    t = line.strip().strip('"').strip()
    return int(t) if t.isdigit() and t.isascii() and len(t) <= 6 else None


holds = bw_clues  # what survives: the clues, in black on white


def sniff(text: str | bytes) -> bool:
    """A strict check of the layout: the two counts must match the number of lines.

    Strict enough to run before the looser ``.cwc`` and ``.nin`` sniffers: a file of
    blank-free lines of numbers whose counts agree with its length.
    """
    if not isinstance(text, str) or len(text) > 1 << 20:
        return False
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and lines[0].strip().strip('"').isalnum() and _count_of(lines[0]) is None:
        lines = lines[1:]  # a header such as "x"
    if len(lines) < 4:
        return False
    h = _count_of(lines[0])
    if not h or len(lines) < h + 3:
        return False
    w = _count_of(lines[h + 1])
    if not w or len(lines) != h + w + 2:
        return False
    allowed = set('0123456789 ,"\t')
    # no blank lines: an empty clue is "0" or "" when we sniff (.cwc files have blank lines)
    return all(ln.strip() and set(ln) <= allowed for ln in lines)


FORMAT = register(
    Format(
        name="csv",
        extensions=(".csv",),
        description="one-column puzzle.csv of R scripts (row count, rows, column count, columns)",
        read=read,
        write=write,
        sniff=sniff,
        multi=False,
        color=False,
        holds=holds,
        priority=55,
    )
)
