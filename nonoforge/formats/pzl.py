"""Evgeny Shulgin's (izaron) ``.pzl`` files, of his colour nonogram solver.

The layout, as his solver (github.com/izaron/Nonograms, ``src/puzzle.cpp``) reads it and
his image encoder (``src/paint.cpp``) writes it, is a stream of whitespace-separated
tokens, laid out one item a line::

    3                  number of painted colours K
    #000000            K colours as #rrggbb; white (#ffffff) is the implicit background
    #ff9900
    #48332b
                       (blank lines are ignored)
    2 3                height (row count), then width (column count)

    1 2 255 153 0      each row, top to bottom: the block count, then per block
    2 1 0 0 0 1 72 51 43     its length and its colour as three decimal numbers r g b
    0                  an empty row
    1 2 255 153 0      then each column, left to right, the same way
    ...

A block's colour is found by its RGB among the listed colours. The list may name colours
no clue uses (the encoder lists the colour of transparent pixels). The solver's
black-and-white mode (``--black``) reads a variant without the colour list whose blocks
are bare lengths (``2 1 3`` is two blocks, 1 and 3); we read it too, and write every
puzzle in the colour form, which the solver reads by default.

What survives: clues and colours. The background becomes white; colours are named by
their hex code (``ff9900``); a puzzle whose only colour is black is black-and-white. Two
painted colours with the same RGB cannot be told apart, so such puzzles are refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nonoforge.errors import FormatError
from nonoforge.formats.base import MAX_SIDE, Format, parse_int, puzzle_or_error, register
from nonoforge.puzzle import WHITE, Color, Meta, Palette, Puzzle, parse_rgb

_HEX = re.compile(r"#[0-9A-Fa-f]{6}")
#: Limit against absurd files: colours in the list (cells on a side: ``base.MAX_SIDE``).
MAX_COLORS = 4096


class _Tokens:
    """The file's tokens with their line numbers, read one by one like a C++ stream."""

    def __init__(self, text: str) -> None:
        self.items = [
            (tok, lineno)
            for lineno, raw in enumerate(text.splitlines(), start=1)
            for tok in raw.split()
        ]
        self.pos = 0

    def peek(self, k: int = 0) -> str | None:
        i = self.pos + k
        return self.items[i][0] if i < len(self.items) else None

    @property
    def line(self) -> int:
        if self.pos < len(self.items):
            return self.items[self.pos][1]
        return self.items[-1][1] if self.items else 1

    def next(self, what: str) -> tuple[str, int]:
        if self.pos >= len(self.items):
            raise FormatError(f"file ends where {what} should be", line=self.line)
        tok = self.items[self.pos]
        self.pos += 1
        return tok

    def number(self, what: str) -> int:
        tok, line = self.next(what)
        return parse_int(tok, line, what)


def pzl_palette(colors: list[str]) -> Palette:
    """The palette of a colour list: white background, colours named by hex code."""
    if len(colors) == 1 and colors[0].lower() == "#000000":
        return Palette.bw()
    named = [Color(c.lstrip("#").lower(), parse_rgb(c)) for c in colors]
    return Palette((WHITE, *named))


def _read_clues(
    tokens: _Tokens, count: int, kind: str, rgb_index: dict[tuple[int, int, int], int] | None
) -> list[list[tuple[int, int]]]:
    clues = []
    for i in range(count):
        what = f"{kind} {i + 1}"
        nblocks = tokens.number(f"block count of {what}")
        if nblocks > MAX_SIDE:
            raise FormatError(f"{what}: {nblocks} blocks is too many", line=tokens.line)
        clue = []
        for _ in range(nblocks):
            line = tokens.line
            length = tokens.number(f"block length of {what}")
            if length < 1:
                raise FormatError(f"{what}: a block of length 0", line=line)
            color = 1
            if rgb_index is not None:
                rgb = tuple(tokens.number(f"colour component of {what}") for _ in range(3))
                if rgb not in rgb_index:
                    raise FormatError(
                        f"{what}: colour {' '.join(map(str, rgb))} is not in the colour list",
                        line=line,
                    )
                color = rgb_index[rgb]
            clue.append((length, color))
        clues.append(clue)
    return clues


def parse(text: str) -> Puzzle:
    """The puzzle of a ``.pzl`` file, colour or black-and-white form."""
    tokens = _Tokens(text)
    if not tokens.items:
        raise FormatError("empty file")
    colored = tokens.peek(1) is not None and str(tokens.peek(1)).startswith("#")
    rgb_index: dict[tuple[int, int, int], int] | None = None
    palette = Palette.bw()
    if colored:
        k = tokens.number("number of colours")
        if not 1 <= k <= MAX_COLORS:
            raise FormatError(f"number of colours {k} is out of range 1..{MAX_COLORS}", line=1)
        colors = []
        for _ in range(k):
            tok, line = tokens.next("a colour")
            if not _HEX.fullmatch(tok):
                raise FormatError(f"expected a colour like #d7e41a, got {tok[:20]!r}", line=line)
            colors.append(tok)
        rgbs = [parse_rgb(c) for c in colors]
        if len(set(rgbs)) != len(rgbs):
            raise FormatError("the colour list names a colour twice", line=tokens.line)
        # The background is white; a listed white is a painted white (as in the solver).
        rgb_index = {rgb: i + 1 for i, rgb in enumerate(rgbs)}
        palette = pzl_palette(colors)
    h = tokens.number("row count")
    w = tokens.number("column count")
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise FormatError(f"size {w}x{h} is out of range 1..{MAX_SIDE}", line=tokens.line)
    rows = _read_clues(tokens, h, "row", rgb_index)
    cols = _read_clues(tokens, w, "column", rgb_index)
    if tokens.peek() is not None:
        raise FormatError("unexpected data after the last column", line=tokens.line)
    return puzzle_or_error(lambda: Puzzle.from_clues(rows, cols, palette))


def read(text: str | bytes) -> Iterator[Puzzle]:
    if isinstance(text, bytes):
        raise FormatError("a .pzl file is text")
    yield parse(text)


def _rgb_text(c: Color) -> str:
    return " ".join(str(v) for v in c.rgb)


def _line(clue: tuple, palette: Palette) -> str:
    parts = [str(len(clue))]
    for b in clue:
        parts.append(f"{b.length} {_rgb_text(palette[b.color])}")
    return " ".join(parts)


def write(puzzles: list[Puzzle]) -> str:
    (p,) = puzzles
    painted = list(p.palette)[1:]
    out = [str(len(painted)), *(c.hex for c in painted), "", f"{p.height} {p.width}", ""]
    out += [_line(r, p.palette) for r in p.rows]
    out.append("")
    out += [_line(c, p.palette) for c in p.columns]
    return "\n".join(out) + "\n"


def can_hold(p: Puzzle) -> bool:
    """Painted colours must differ in RGB: a clue names its colour by RGB alone."""
    rgbs = [c.rgb for c in list(p.palette)[1:]]
    return len(set(rgbs)) == len(rgbs)


def holds(p: Puzzle) -> Puzzle:
    """What a write and a read keep: clues, and colours renamed by hex on white."""
    palette = pzl_palette([c.hex for c in list(p.palette)[1:]])
    return p.replace(meta=Meta(), goal=None, palette=palette)


def _sniff_bw(tokens: list[list[str]]) -> bool:
    """Whether lines are surely the black-and-white form: ``H W``, then counted clues
    that make a consistent puzzle (the bare layout alone could be a ``.nin`` file)."""
    if len(tokens[0]) != 2 or not all(t.isdigit() and len(t) <= 6 for t in tokens[0]):
        return False
    h, w = int(tokens[0][0]), int(tokens[0][1])
    if len(tokens) != 1 + h + w:
        return False
    sums = []
    for i, toks in enumerate(tokens[1:]):
        if not all(t.isdigit() and len(t) <= 6 for t in toks) or int(toks[0]) != len(toks) - 1:
            return False
        blocks = [int(t) for t in toks[1:]]
        if 0 in blocks or sum(blocks) + len(blocks) - 1 > (w if i < h else h):
            return False
        sums.append(sum(blocks))
    return sum(sums[:h]) == sum(sums[h:]) > 0


def sniff(text: str | bytes) -> bool:
    if not isinstance(text, str):
        return False
    head = text[:4096].split()
    if len(head) >= 2 and head[0].isdigit() and _HEX.fullmatch(head[1]):
        return True
    if len(text) > 1 << 20:
        return False
    lines = [ln.split() for ln in text.splitlines() if ln.strip()]
    return bool(lines) and _sniff_bw(lines)


FORMAT = register(
    Format(
        name="pzl",
        extensions=(".pzl",),
        description="izaron's .pzl colour nonogram files (colours by RGB)",
        read=read,
        write=write,
        sniff=sniff,
        multi=False,
        color=True,
        holds=holds,
        can_hold=can_hold,
        priority=40,
    )
)
