"""Steve Simpson's ``.non`` format, with the mikix extensions and ``====`` bundles.

::

    catalogue "webpbn.com #1"
    title "Demo Puzzle from Front Page"
    by "Jan Wolter"
    copyright "&copy; Copyright 2004 by Jan Wolter"
    license CC-BY-3.0
    width 5
    height 10
    color a #ff0000            (mikix: colour clues like 3a,1b)
    rows
    2
    2,1
    ...
    columns
    ...
    goal "01100011010010101110101001010000110010100101111000"
    givens 3,4,1 7,2,0         (ours: cells printed solved, see below)

Keys come one a line; ``rows`` and ``columns`` are followed by exactly ``height`` and
``width`` clue lines (an empty line or ``0`` is an empty clue); unknown lines are
ignored, as the format asks. Quoted strings may hold HTML escapes.

Mapping to :class:`~nonoforge.puzzle.Meta`: ``title`` -> title, ``by`` -> author,
``copyright`` -> copyright, ``license`` -> licence, ``catalogue`` -> source (it names
where the puzzle comes from, e.g. ``webpbn.com #1``). ``source_id`` and ``note`` have no
key and are not kept.

Colours: a colour character after a number (``3a``) names a palette entry called by that
character. ``color X #rrggbb`` lines give their RGB; characters without one get invented,
distinct RGBs. ``color 0 #rrggbb`` sets the background (white otherwise). A clue number
without a character in a colour puzzle is colour 1, the first colour. ``goal`` holds
``0`` for the background, ``1`` for colour 1, or colour characters.

Several puzzles a file ("nonpack"): separated by a line ``====``.

Givens (our extension, issue 17): cells printed already solved on the sheet, part of the
puzzle (:attr:`~nonoforge.puzzle.Puzzle.givens`). One ``givens`` line lists them as
``row,column,colour``, rows and columns counted from 1; the colour is written as the
``goal`` line writes a cell: ``0`` for a cell given empty (crossed), ``1`` in a
black-and-white puzzle, the colour's character (``3,4,a``) in a colour puzzle; a number
``n`` is the palette's ``n``-th colour. Readers that do not know the line ignore it, as
the format asks -- and so solve a puzzle that may have several solutions: the clues alone
are not the puzzle once it has givens.

This module also holds the few helpers the other line-based formats share (clue checks
that know their line number, invented colours).
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import islice, repeat
from operator import itemgetter

from nonoforge.errors import FormatError, PuzzleError
from nonoforge.formats.base import (
    Format,
    NumberedLines,
    clean_text,
    numbered_lines,
    parse_int,
    record,
    register,
    strict,
)
from nonoforge.puzzle import (
    BLACK,
    RGB,
    WHITE,
    Block,
    Clue,
    Color,
    Given,
    Grid,
    Meta,
    Palette,
    Puzzle,
    format_clue,
    min_length,
    parse_rgb,
)
from nonoforge.util import REPLACEMENT

# ---------------------------------------------------------------------------------------
# helpers shared by the line-based formats (non, nin, cwc, olsak)

#: No clue line of a real puzzle is near this long; longer ones are refused unread.
MAX_CLUE_LINE = 65536

#: Distinct, recognisable colours for puzzles whose files name colours but no RGB.
_INVENTED = [
    "#000000", "#e6194b", "#3cb44b", "#4363d8", "#ffe119", "#f58231", "#911eb4",
    "#46f0f0", "#f032e6", "#bcf60c", "#fabebe", "#008080", "#9a6324", "#800000",
    "#808000", "#000075", "#808080", "#aaffc3", "#e6beff", "#ffd8b1",
]  # fmt: skip


def invent_rgbs(n: int, taken: Sequence[RGB] = ()) -> list[RGB]:
    """``n`` distinct RGBs, none of them in ``taken`` (e.g. the background)."""
    used = set(taken)
    out: list[RGB] = []
    i = 0
    while len(out) < n:
        if i < len(_INVENTED):
            rgb = parse_rgb(_INVENTED[i])
        else:  # a deterministic walk through the colour cube past the fixed list
            k = i - len(_INVENTED)
            rgb = ((k * 97 + 31) % 256, (k * 57 + 101) % 256, (k * 31 + 17) % 256)
        i += 1
        if rgb not in used:
            used.add(rgb)
            out.append(rgb)
    return out


def check_line_length(line: str, lineno: int) -> None:
    """Refuse a clue line too long for any real puzzle before splitting it."""
    if len(line) > MAX_CLUE_LINE:
        raise FormatError(f"line is too long ({len(line)} characters)", line=lineno)


def check_fit(clue: Clue, length: int, kind: str, index: int, lineno: int) -> None:
    """A clue that cannot fit its line is an error at the line that gave it."""
    need = min_length(clue)
    if need > length:
        shown = format_clue(clue[:12], max((b.color for b in clue), default=1))
        if len(clue) > 12:
            shown += f" ... ({len(clue)} blocks)"
        raise FormatError(
            f"{kind} {index + 1}: clue {shown} needs {need} cells but the line has {length}",
            line=lineno,
        )


def build_puzzle(
    rows: list[Clue],
    columns: list[Clue],
    palette: Palette,
    meta: Meta | None,
    row_lines: Sequence[int],
    column_lines: Sequence[int],
    end_line: int | None,
    goal: Grid | None = None,
    goal_line: int | None = None,
    *,
    made: bool = False,
) -> Puzzle:
    """A puzzle from parsed clues, with every model error pinned to a line.

    Each clue is checked against its line first (so the error names the clue's line);
    a goal that disagrees is reported at ``goal_line``, anything else (colour totals that
    differ) at ``end_line``. The puzzle is built (and validated) once.

    ``made``: the clues are tuples of :class:`Block` of positive lengths (the reader made
    them so). What the constructor would check beyond the checks here (each colour's
    totals, the goal) is then checked here, and the puzzle built without validating it
    again (half the cost of reading a ``.non`` bundle); when a check fails, the
    constructor builds it, so that its error is the one it always gave.
    """
    w, h = len(columns), len(rows)
    for i, c in enumerate(rows):
        check_fit(c, w, "row", i, row_lines[i])
    for i, c in enumerate(columns):
        check_fit(c, h, "column", i, column_lines[i])
    ncol = len(palette) - 1
    for kind, clues, lines in (("row", rows, row_lines), ("column", columns, column_lines)):
        for i, c in enumerate(clues):
            colors = set(map(itemgetter(1), c))  # at C speed: 1000x1000 puzzles
            if colors and not 1 <= min(colors) <= max(colors) <= ncol:
                bad = next(b.color for b in c if not 1 <= b.color <= ncol)
                raise FormatError(f"{kind} {i + 1}: unknown colour {bad}", line=lines[i])
    if made and w and h and _totals(rows, ncol) == _totals(columns, ncol):
        p = Puzzle.trusted(tuple(rows), tuple(columns), palette, meta or Meta())
        if goal is None:
            return p
        if goal.shape == (h, w) and goal.max_color() <= ncol and goal.matches(p):
            return Puzzle.trusted(p.rows, p.columns, palette, p.meta, goal)
    try:
        return Puzzle(tuple(rows), tuple(columns), palette, meta or Meta(), goal)
    except PuzzleError as e:
        at_goal = goal is not None and str(e).startswith("goal")
        raise FormatError(str(e), line=goal_line if at_goal else end_line) from None


def _totals(clues: list[Clue], ncol: int) -> dict[int, int] | int:
    """The cells the clues paint (of each colour, when there are several)."""
    if ncol == 1:
        return sum(map(itemgetter(0), itertools.chain.from_iterable(clues)))
    out: dict[int, int] = {}
    for clue in clues:
        for length, color in clue:
            out[color] = out.get(color, 0) + length
    return out


#: Goal pictures larger than this (cells) are refused: no real puzzle is near it.
MAX_GOAL_CELLS = 4_000_000


def decode_cells(rows: Sequence[str], table: dict[str, int], lineno: int) -> Grid:
    """A goal picture drawn as equal-length strings, ``table`` giving each character's
    colour index; kept as one byte a cell, so large pictures stay small in memory."""
    width = len(rows[0]) if rows else 0
    if not rows or not width or any(len(r) != width for r in rows):
        raise FormatError("goal rows must be non-empty and of equal length", line=lineno)
    if width * len(rows) > MAX_GOAL_CELLS:
        raise FormatError(f"goal has more than {MAX_GOAL_CELLS} cells", line=lineno)
    text = "".join(rows)
    known = {ord(ch): v for ch, v in table.items() if len(ch) == 1 and 0 <= v <= 255}
    rest = text.translate(dict.fromkeys(known))
    if rest:
        raise FormatError(f"goal has an unknown cell character {rest[0]!r}", line=lineno)
    coded = text.translate({k: chr(v) for k, v in known.items()}).encode("latin-1")
    return Grid.from_bytes(coded, len(rows), width)


# ---------------------------------------------------------------------------------------
# .non

KEYS = frozenset(
    {"width", "height", "rows", "columns", "title", "by", "copyright", "catalogue",
     "license", "licence", "color", "colour", "goal", "givens"}
)  # fmt: skip
_META_KEYS = {
    "title": "title",
    "by": "author",
    "copyright": "copyright",
    "license": "licence",
    "licence": "licence",
    "catalogue": "source",
}
_WRITE_META = (("catalogue", "source"), ("title", "title"), ("by", "author"),
               ("copyright", "copyright"), ("license", "licence"))  # fmt: skip
_TOKEN = re.compile(r"(\d+)([A-Za-z]?)$")
_SPDX = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+\-]*")
_COLOR_LINE = re.compile(r"(\S)\s+(#?[0-9A-Fa-f]{6}|#?[0-9A-Fa-f]{3})(?:\s.*)?$")
_SEPARATOR = "===="


#: A character reference to a C0 control or DEL, which :func:`html.unescape` drops.
_CONTROL_REF = re.compile(
    r"&#(?:[xX]0*([0-9a-fA-F]{1,2})(?![0-9a-fA-F])|0*([0-9]{1,3})(?![0-9]));?"
)


def _control_ref(m: re.Match[str]) -> str:
    n = int(m.group(1), 16) if m.group(1) is not None else int(m.group(2))
    dropped = 1 <= n <= 8 or n == 0x0B or 0x0E <= n <= 0x1F or n == 0x7F
    return REPLACEMENT if dropped else m.group(0)


def _unquote(value: str) -> str:
    """A key's value: a quoted string (HTML escapes decoded) or the bare rest of the line.

    A reference to a control character is replaced with U+FFFD, as every reader's text is
    (:func:`nonoforge.util.safe_text`), where HTML's rule would drop it."""
    v = value.strip()
    if len(v) >= 2 and v[0] == '"' and v.rfind('"') > 0:
        return html.unescape(_CONTROL_REF.sub(_control_ref, v[1 : v.rfind('"')]))
    return v


def _quote(text: str) -> str:
    """A string as a quoted ``.non`` value; line breaks become numeric escapes."""
    s = html.escape(text, quote=True)
    s = s.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    s = s.replace("\u2028", "&#8232;").replace("\u2029", "&#8233;")
    return f'"{s}"'


class _Section:
    """One puzzle's worth of lines from a ``.non`` file (``lines`` numbered from 1)."""

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.lines = lines
        self.pos = 0

    def next_line(self) -> tuple[int, str] | None:
        if self.pos >= len(self.lines):
            return None
        item = self.lines[self.pos]
        self.pos += 1
        return item


_PLAIN_LINE = re.compile(r"\s*\d{1,6}[A-Za-z]?(?:\s*,\s*\d{1,6}[A-Za-z]?)*[\s,]*")
_PLAIN_TOKEN = re.compile(r"(\d+)([A-Za-z]?)")
_DIGITS = re.compile(r"\d+")
_LETTER = re.compile(r"[A-Za-z]")


def _parse_clue_line(text: str, lineno: int) -> list[tuple[int, str]]:
    """``3a,1b,2`` as ``[(3, "a"), (1, "b"), (2, "")]``; ``0`` or blank is empty."""
    check_line_length(text, lineno)
    if _PLAIN_LINE.fullmatch(text):  # the usual line, read at once (at C speed: 1000x1000)
        if _LETTER.search(text):
            tokens = _PLAIN_TOKEN.findall(text)
            lengths = list(map(int, map(itemgetter(0), tokens)))
            letters: Iterable[str] = map(itemgetter(1), tokens)
        else:
            lengths, letters = list(map(int, _DIGITS.findall(text))), repeat("")
        if all(lengths):
            return list(zip(lengths, letters, strict=False))
    out: list[tuple[int, str]] = []
    for tok in re.split(r"[,\s]+", text.strip()):
        if not tok:
            continue
        m = _TOKEN.match(tok)
        if not m:
            if tok[:1] == "-":
                raise FormatError(f"negative clue number {tok[:20]!r}", line=lineno)
            raise FormatError(f"expected a clue like 3 or 3a, got {tok[:20]!r}", line=lineno)
        n = parse_int(m.group(1), lineno, "clue number")
        out.append((n, m.group(2)))
    if any(n == 0 for n, _ in out):
        if len(out) == 1:
            return []
        raise FormatError("a clue of several numbers contains 0", line=lineno)
    return out


def _is_key_line(text: str) -> bool:
    word = text.split(None, 1)[0].lower() if text.strip() else ""
    return word in KEYS


class _Blocks(dict[tuple[int, str], Block]):
    """``(length, colour character)`` to its :class:`Block`, each made once (large puzzles
    have hundreds of thousands of blocks and few distinct ones)."""

    def __init__(self, index: dict[str, int]) -> None:
        super().__init__()
        self.index = index

    def __missing__(self, key: tuple[int, str]) -> Block:
        b = self[key] = Block(key[0], self.index[key[1]] if key[1] else 1)
        return b


_RawClues = list[list[tuple[int, str]]]


@dataclass
class _Sheet:
    """What the key lines of one ``.non`` puzzle said, before the puzzle is built."""

    sec: _Section
    first_line: int
    last_line: int
    width: int | None = None
    height: int | None = None
    meta: dict[str, str] = field(default_factory=dict)
    declared: dict[str, tuple[RGB, int]] = field(default_factory=dict)
    background: RGB | None = None
    #: ``rows``/``columns``: the clues, the line of each, the line of the key
    raw: dict[str, tuple[_RawClues, list[int], int]] = field(default_factory=dict)
    goal: tuple[str, int] | None = None
    givens: tuple[str, int] | None = None
    #: the key line being handled, stripped (for messages)
    text: str = ""


def _on_size(st: _Sheet, key: str, value: str, lineno: int) -> None:
    n = parse_int(value.split()[0] if value.split() else "", lineno, key)
    if n < 1:
        raise FormatError(f"{key} must be at least 1", line=lineno)
    if key == "width":
        st.width = n
    else:
        st.height = n


def _on_meta(st: _Sheet, key: str, value: str, lineno: int) -> None:
    st.meta[_META_KEYS[key]] = _unquote(value)


def _on_color(st: _Sheet, key: str, value: str, lineno: int) -> None:
    m = _COLOR_LINE.match(value.strip())
    if not m:
        shown = st.text[:40]
        raise FormatError(f"expected 'color <char> #rrggbb', got {shown!r}", line=lineno)
    ch, rgb = m.group(1), parse_rgb(m.group(2))
    if ch == "0":
        st.background = rgb
    elif ch.isalpha():
        st.declared[ch] = (rgb, lineno)
    else:
        raise FormatError(f"colour character must be a letter, got {ch!r}", line=lineno)


def _on_clues(st: _Sheet, key: str, value: str, lineno: int) -> None:
    """``rows``/``columns``: exactly ``height``/``width`` clue lines follow the key."""
    count = st.height if key == "rows" else st.width
    if count is None:
        other = "height" if key == "rows" else "width"
        raise FormatError(f"'{key}' comes before '{other}'", line=lineno)
    clues: _RawClues = []
    lines: list[int] = []
    for k in range(count):
        nxt = st.sec.next_line()
        if nxt is None or _is_key_line(nxt[1]):
            where = nxt[0] if nxt else st.last_line
            raise FormatError(f"{key}: expected {count} clue lines, found {k}", line=where)
        ln, t = nxt
        st.last_line = ln
        clues.append(_parse_clue_line(t, ln))
        lines.append(ln)
    _check_no_surplus(st.sec, key, count)
    st.raw[key] = (clues, lines, lineno)


def _check_no_surplus(sec: _Section, key: str, count: int) -> None:
    """A clue line after a section's ``count`` clue lines, before the next key line, is an
    error naming it: other unknown lines are ignored, as the format asks, but a clue line
    there means the declared size is wrong (a ``height 10`` with a million row lines was
    read as 10 rows without a word). Blank lines (empty clues at the end) are let pass."""
    for ln, t in islice(sec.lines, sec.pos, None):
        if _is_key_line(t):
            return
        if t.strip() and _PLAIN_LINE.fullmatch(t):
            size = "height" if key == "rows" else "width"
            raise FormatError(f"{key}: more clue lines than '{size} {count}'", line=ln)


def _on_goal(st: _Sheet, key: str, value: str, lineno: int) -> None:
    st.goal = (_unquote(value), lineno)


def _on_givens(st: _Sheet, key: str, value: str, lineno: int) -> None:
    if st.givens is not None:
        raise FormatError("a second 'givens' line", line=lineno)
    st.givens = (value, lineno)


#: What each key line does; every key of :data:`KEYS` has one.
_HANDLERS: dict[str, Callable[[_Sheet, str, str, int], None]] = {
    "width": _on_size, "height": _on_size,
    **dict.fromkeys(_META_KEYS, _on_meta),
    "color": _on_color, "colour": _on_color,
    "rows": _on_clues, "columns": _on_clues,
    "goal": _on_goal, "givens": _on_givens,
}  # fmt: skip


def _read_keys(sec: _Section) -> _Sheet | None:
    """Every key line of a section, handled in order; None when it has none."""
    first = sec.lines[0][0] if sec.lines else 1
    st = _Sheet(sec, first, first)
    seen_any = False
    while (item := sec.next_line()) is not None:
        lineno, text = item
        st.last_line = lineno
        parts = text.split(None, 1)
        key = parts[0].lower() if parts else ""
        if key not in KEYS:
            continue  # the format asks readers to ignore lines they do not know
        seen_any = True
        st.text = text.strip()
        value = parts[1].strip() if len(parts) > 1 else ""
        _HANDLERS[key](st, key, value, lineno)
    return st if seen_any else None


def _check_complete(st: _Sheet) -> None:
    for key, n in (("width", st.width), ("height", st.height)):
        if n is None:
            raise FormatError(f"no '{key}' line", line=st.first_line)
    for key in ("rows", "columns"):
        if key not in st.raw:
            raise FormatError(f"no '{key}' section", line=st.last_line)


def _palette(st: _Sheet) -> Palette:
    """Colour characters become entries named by the character, in order of appearance:
    declared ones, then those of the clues, then those only the goal uses."""
    chars: list[str] = list(st.declared)
    for key in ("rows", "columns"):
        for clue in st.raw[key][0]:
            for _, ch in clue:
                if ch and ch not in chars:
                    chars.append(ch)
    if st.goal:
        goal_chars = dict.fromkeys(re.sub(r"\s", "", st.goal[0]))
        chars += [ch for ch in goal_chars if ch.isalpha() and ch not in chars]
    bg = Color("white", WHITE.rgb) if st.background is None else Color("0", st.background)
    if not chars:
        return Palette.bw() if st.background is None else Palette((bg, BLACK))
    missing = [ch for ch in chars if ch not in st.declared]
    taken = [bg.rgb] + [rgb for rgb, _ in st.declared.values()]
    invented = dict(zip(missing, invent_rgbs(len(missing), taken), strict=True))
    rgb_of = {ch: rgb for ch, (rgb, _) in st.declared.items()} | invented
    return Palette((bg, *(Color(ch, rgb_of[ch]) for ch in chars)))


def _read_one(sec: _Section) -> Puzzle | None:
    st = _read_keys(sec)
    if st is None:
        return None
    _check_complete(st)
    palette = _palette(st)
    index = {c.name: i for i, c in enumerate(palette)}

    made = _Blocks(index)

    def blocks(clue: list[tuple[int, str]]) -> Clue:
        return tuple(map(made.__getitem__, clue))

    (row_clues, row_lines, row_at), (col_clues, col_lines, col_at) = (
        st.raw["rows"], st.raw["columns"]
    )
    rows = [blocks(c) for c in row_clues]
    cols = [blocks(c) for c in col_clues]
    info = Meta(**{k: (v or None) for k, v in st.meta.items()})
    grid = goal_line = None
    if st.goal is not None:
        grid = _parse_goal(st.goal[0], len(cols), len(rows), index, st.goal[1])
        goal_line = st.goal[1]
    end = max(row_at, col_at)
    p = build_puzzle(rows, cols, palette, info, row_lines, col_lines, end, grid, goal_line,
                     made=True)
    if st.givens is None:
        return p
    value, at = st.givens
    givens = parse_givens(value, index, at)
    try:
        return p.replace(givens=givens)
    except PuzzleError as e:
        raise FormatError(str(e), line=at) from None


_TRIPLE = re.compile(r"(\d{1,6}),(\d{1,6}),(\d{1,6}|[A-Za-z])")


def parse_givens(value: str, index: dict[str, int], lineno: int) -> list[Given]:
    """The triples of a ``givens`` line (see the module doc), 0-based; ``index`` maps a
    colour character to its palette index."""
    out: list[Given] = []
    for tok in value.split():
        m = _TRIPLE.fullmatch(tok)
        if m is None or int(m[1]) < 1 or int(m[2]) < 1:
            shown = tok[:20]
            raise FormatError(
                f"bad given {shown!r} (want row,column,colour, e.g. 3,4,1)", line=lineno
            )
        colour = m[3]
        if colour.isdigit():
            k = int(colour)
        elif colour in index:
            k = index[colour]
        else:
            raise FormatError(f"given {tok!r}: unknown colour character {colour!r}", line=lineno)
        out.append((int(m[1]) - 1, int(m[2]) - 1, k))
    return out


def givens_line(p: Puzzle, chars: Sequence[str] | None = None) -> str:
    """``p``'s ``givens`` line (no newline); ``chars`` names each colour (the colour
    characters of a colour puzzle; digits by default)."""
    def colour(k: int) -> str:
        return str(k) if chars is None or k == 0 else chars[k]

    return "givens " + " ".join(f"{r + 1},{c + 1},{colour(k)}" for r, c, k in p.givens)


def _parse_goal(text: str, w: int, h: int, index: dict[str, int], lineno: int) -> Grid:
    cells = re.sub(r"\s", "", text)
    if len(cells) != w * h:
        raise FormatError(f"goal has {len(cells)} cells, the puzzle has {w}x{h}", line=lineno)
    table = {"0": 0, ".": 0, "1": 1}
    table.update({ch: i for ch, i in index.items() if len(ch) == 1 and ch.isalpha()})
    return decode_cells([cells[r * w : (r + 1) * w] for r in range(h)], table, lineno)


def _chunks(lines: NumberedLines) -> Iterator[list[tuple[int, str]]]:
    """The numbered lines of each puzzle of a bundle, one ``====``-separated chunk at a
    time (a stream: only the chunk being read is held, whatever the file's size)."""
    chunk: list[tuple[int, str]] = []
    for lineno, line in lines:
        if line.strip() == _SEPARATOR:
            yield chunk
            chunk = []
        else:
            chunk.append((lineno, line))
    yield chunk


def records(text: str | bytes) -> Iterator[Puzzle | FormatError]:
    """Every puzzle in a ``.non`` file or ``====``-separated bundle; a malformed puzzle of
    a bundle is its FormatError in its place, and reading goes on after the next ``====``
    (see :attr:`Format.records`)."""
    if isinstance(text, bytes):
        raise FormatError(".non files are text")
    yield from stream(numbered_lines(text))


def stream(lines: NumberedLines) -> Iterator[Puzzle | FormatError]:
    """:func:`records` of a file's numbered lines, read as they come (a large bundle is
    never held: see :attr:`Format.stream`)."""
    found = False
    for chunk in _chunks(lines):
        r = record(partial(_read_one, _Section(chunk)))
        if r is not None:  # None: a chunk with no puzzle in it (blank, comments)
            found = True
            yield r
    if not found:
        raise FormatError("no puzzle: no 'width', 'height', 'rows' or 'columns' lines", line=1)


read = strict(records)


# -- writing ------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _color_chars(p: Puzzle) -> list[str]:
    """The character for each painted colour: its name if a free letter, else the next one."""
    names = [c.name for c in p.palette.colors[1:]]
    chars: list[str] = []
    used = {n for n in names if len(n) == 1 and n.isalpha() and n.isascii()}
    spare = (ch for ch in _LETTERS if ch not in used)
    taken: set[str] = set()
    for n in names:
        if len(n) == 1 and n in used and n not in taken:
            chars.append(n)
            taken.add(n)
        else:
            chars.append(next(spare))
    return chars


def _plain(p: Puzzle) -> bool:
    """Whether ``p`` is written as classic black-and-white (no colour characters)."""
    return p.palette.is_bw and p.palette[1] == BLACK and p.palette[0].rgb == WHITE.rgb


def _write_one(p: Puzzle) -> str:
    out: list[str] = []
    for key, attr in _WRITE_META:
        v = clean_text(getattr(p.meta, attr))
        if v is None:
            continue
        if key == "license" and _SPDX.fullmatch(v):
            out.append(f"{key} {v}")
        else:
            out.append(f"{key} {_quote(v)}")
    out += [f"width {p.width}", f"height {p.height}"]
    plain = _plain(p)
    chars = [""] * len(p.palette)
    if not plain:
        chars = ["0", *_color_chars(p)]
        if p.palette[0].rgb != WHITE.rgb:
            out.append(f"color 0 {p.palette[0].hex}")
        for i, c in enumerate(p.palette.colors[1:], start=1):
            out.append(f"color {chars[i]} {c.hex}")

    def clue(c: Clue) -> str:
        if not c:
            return "0"
        return ",".join(f"{b.length}{'' if plain else chars[b.color]}" for b in c)

    out += ["", "rows", *map(clue, p.rows), "", "columns", *map(clue, p.columns)]
    if p.goal is not None:
        table = ["0", *(["1"] if plain else chars[1:])]
        cells = "".join(table[v] for v in p.goal.cells.ravel().tolist())
        out += ["", f'goal "{cells}"']
    if p.givens:
        out += ["", givens_line(p, None if plain else chars)]
    return "\n".join(out) + "\n"


def write(puzzles: list[Puzzle]) -> str:
    """Puzzles as ``.non`` text (a ``====`` bundle when there are several)."""
    return f"\n{_SEPARATOR}\n\n".join(_write_one(p) for p in puzzles)


def holds(p: Puzzle) -> Puzzle:
    """What a ``.non`` file keeps of ``p``: clues, colours (named by their character),
    goal, givens, and title/author/copyright/licence/source metadata."""
    meta = Meta(
        title=clean_text(p.meta.title),
        author=clean_text(p.meta.author),
        copyright=clean_text(p.meta.copyright),
        licence=clean_text(p.meta.licence),
        source=clean_text(p.meta.source),
    )
    if _plain(p):
        return p.replace(meta=meta, palette=Palette.bw())
    chars = _color_chars(p)
    bg = p.palette[0]
    bg = Color("white", WHITE.rgb) if bg.rgb == WHITE.rgb else Color("0", bg.rgb)
    colors = [Color(ch, c.rgb) for ch, c in zip(chars, p.palette.colors[1:], strict=True)]
    return p.replace(meta=meta, palette=Palette((bg, *colors)))


def can_hold(p: Puzzle) -> bool:
    return p.ncolors <= len(_LETTERS)


_SNIFF_KEYS = re.compile(r"^\s*(width|height)\s+\d+\s*$", re.MULTILINE | re.IGNORECASE)
_SNIFF_SECTION = re.compile(r"^\s*(rows|columns)\s*$", re.MULTILINE | re.IGNORECASE)


def sniff(text: str | bytes) -> bool:
    """``width N`` and ``height N`` lines, or one of them and a ``rows``/``columns`` line."""
    if not isinstance(text, str):
        return False
    head = text[:4096]
    keys = {m.group(1).lower() for m in _SNIFF_KEYS.finditer(head)}
    return len(keys) == 2 or (len(keys) == 1 and bool(_SNIFF_SECTION.search(head)))


FORMAT = register(
    Format(
        name="non",
        extensions=(".non", ".nonpack"),
        description="Steve Simpson's .non, with mikix colours/licence and ==== bundles",
        read=read,
        records=records,
        stream=stream,
        write=write,
        sniff=sniff,
        multi=True,
        color=True,
        holds=holds,
        can_hold=can_hold,
        priority=30,
        givens=True,
    )
)
