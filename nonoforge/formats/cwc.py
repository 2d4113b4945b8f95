"""webpbn's ``.cwc`` export: clue lengths and clue colours in four positional blocks.

::

    10          height (rows)
    5           width (columns)
    1           number of painted colours
    2           height lines: each row's block lengths
    2 1
    ...
                a blank line
    1           height lines: each row's block colours (1..colours)
    1 1
    ...
                a blank line
    2 1         width lines: each column's block lengths
    ...
                a blank line
    1 1         width lines: each column's block colours
    ...

An empty clue is an empty line (``0`` is read as one too). The file names no RGB: a
one-colour puzzle is black-and-white, and colours ``1..n`` of a colour puzzle become
palette entries named ``1``, ``2``, ... with invented, distinct RGBs (see
:func:`palette_for`). So a colour puzzle is only written when its colours are those
(``can_hold``): otherwise its RGBs, and with them its key, would be lost. No metadata.
"""

from __future__ import annotations

from collections.abc import Iterator

from nonoforge.errors import FormatError
from nonoforge.formats.base import Format, parse_int, register, strip_meta
from nonoforge.formats.non import build_puzzle, check_line_length, invent_rgbs
from nonoforge.puzzle import WHITE, Block, Clue, Color, Palette, Puzzle

#: More painted colours than a palette (and a goal grid) can index.
_MAX_COLORS = 255


def palette_for(ncolors: int) -> Palette:
    """The palette a ``.cwc`` file with ``ncolors`` colours reads as."""
    if ncolors == 1:
        return Palette.bw()
    rgbs = invent_rgbs(ncolors, [WHITE.rgb])
    return Palette((WHITE, *(Color(str(i), rgb) for i, rgb in enumerate(rgbs, start=1))))


def _numbers(line: str, lineno: int, what: str) -> list[int]:
    check_line_length(line, lineno)
    out = []
    for t in line.split():
        if t.startswith("-"):
            raise FormatError(f"negative {what} {t[:20]!r}", line=lineno)
        out.append(parse_int(t, lineno, what))
    return out


def read(text: str | bytes) -> Iterator[Puzzle]:
    """The one puzzle of a ``.cwc`` file."""
    if isinstance(text, bytes):
        raise FormatError(".cwc files are text")
    lines = text.splitlines()

    def line(i: int, what: str) -> str:
        if i >= len(lines):
            raise FormatError(f"file ends early: expected {what}", line=max(len(lines), 1))
        return lines[i]

    header = []
    for i, what in enumerate(("row count", "column count", "colour count")):
        t = line(i, what).strip()
        if len(t) > 20:
            raise FormatError(f"expected {what}, got a long line", line=i + 1)
        header.append(parse_int(t, i + 1, what))
    height, width, ncolors = header
    if height < 1 or width < 1:
        raise FormatError("a puzzle needs at least one row and one column", line=1)
    if not 1 <= ncolors <= _MAX_COLORS:
        raise FormatError(f"number of colours must be 1..{_MAX_COLORS}, got {ncolors}", line=3)

    pos = 3

    def block(count: int, what: str) -> tuple[list[list[int]], list[int]]:
        nonlocal pos
        out, where = [], []
        for k in range(count):
            t = line(pos, f"{what} {k + 1} of {count}")
            out.append(_numbers(t, pos + 1, what))
            where.append(pos + 1)
            pos += 1
        return out, where

    def blank(before: str) -> None:
        nonlocal pos
        t = line(pos, f"a blank line before {before}")
        if t.strip():
            raise FormatError(
                f"expected a blank line before {before}, got {t.strip()[:30]!r} "
                "(too many clue lines above?)",
                line=pos + 1,
            )
        pos += 1

    row_len, row_at = block(height, "row clue")
    blank("the row colours")
    row_col, row_col_at = block(height, "row colour")
    blank("the column clues")
    col_len, col_at = block(width, "column clue")
    blank("the column colours")
    col_col, col_col_at = block(width, "column colour")
    for k in range(pos, len(lines)):
        if lines[k].strip():
            raise FormatError("unexpected text after the last column colours", line=k + 1)

    def clues(lengths: list[list[int]], colors: list[list[int]], at: list[int],
              color_at: list[int], kind: str) -> list[Clue]:  # fmt: skip
        out = []
        for i, (ls, cs) in enumerate(zip(lengths, colors, strict=True)):
            if ls == [0] and cs in ([0], []):
                ls, cs = [], []
            if 0 in ls:
                raise FormatError(f"{kind} {i + 1}: a block of length 0", line=at[i])
            if len(ls) != len(cs):
                raise FormatError(
                    f"{kind} {i + 1} has {len(ls)} blocks (line {at[i]}) "
                    f"but {len(cs)} colours",
                    line=color_at[i],
                )
            for c in cs:
                if not 1 <= c <= ncolors:
                    raise FormatError(
                        f"{kind} {i + 1}: colour {c} is not in 1..{ncolors}", line=color_at[i]
                    )
            out.append(tuple(Block(n, c) for n, c in zip(ls, cs, strict=True)))
        return out

    rows = clues(row_len, row_col, row_at, row_col_at, "row")
    cols = clues(col_len, col_col, col_at, col_col_at, "column")
    yield build_puzzle(rows, cols, palette_for(ncolors), None, row_at, col_at, pos)


def write(puzzles: list[Puzzle]) -> str:
    """One puzzle as ``.cwc`` text."""
    (p,) = puzzles

    def lengths(c: Clue) -> str:
        return " ".join(str(b.length) for b in c)

    def colors(c: Clue) -> str:
        return " ".join(str(b.color) for b in c)

    out = [str(p.height), str(p.width), str(p.ncolors)]
    out += [*map(lengths, p.rows), "", *map(colors, p.rows), ""]
    out += [*map(lengths, p.columns), "", *map(colors, p.columns)]
    return "\n".join(out) + "\n"


def holds(p: Puzzle) -> Puzzle:
    """Clues and colour numbers only: no metadata, goal or RGBs."""
    return strip_meta(p).replace(palette=palette_for(p.ncolors))


def can_hold(p: Puzzle) -> bool:
    """Black-and-white puzzles, and colour puzzles already in the colours a ``.cwc`` reads
    as: the file keeps colour numbers, not RGBs, and a puzzle's key depends on its RGBs."""
    if p.ncolors > _MAX_COLORS:
        return False
    used = p.used_colors()
    if len(used) <= 1:
        return True
    ours = palette_for(p.ncolors)
    return all(p.palette[i].rgb == ours[i].rgb for i in used)


def sniff(text: str | bytes) -> bool:
    """Three lines of one number each, then digit lines, and a blank after the row clues."""
    if not isinstance(text, str):
        return False
    lines = text[:4096].splitlines()
    if len(lines) < 5:
        return False
    head = [ln.strip() for ln in lines[:3]]
    if not all(t.isdigit() and t.isascii() and len(t) <= 6 for t in head):
        return False
    height = int(head[0])
    body = lines[3 : 3 + height]
    if not all(ln.replace(" ", "").isdigit() or not ln.strip() for ln in body):
        return False
    sep = 3 + height
    return sep >= len(lines) or not lines[sep].strip()


FORMAT = register(
    Format(
        name="cwc",
        extensions=(".cwc",),
        description="webpbn's .cwc export (clue lengths and colour numbers)",
        read=read,
        write=write,
        sniff=sniff,
        color=True,
        holds=holds,
        can_hold=can_hold,
        priority=60,
    )
)
