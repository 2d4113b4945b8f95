"""Petr Olšák's ``.g`` format, read by his ``grid`` solver and exported by webpbn.

::

    Any text before a line starting with # or : is a comment.
    #d                              colour declarations (colour puzzles only)
       0:   white    background     <inchar>:<outchar> <XPM colour> <comment>
       1:#  black    default colour (blocks without a suffix)
       r:%  #ff0000  red
    : rows                          the row clues, one line each, top to bottom
    3 1r 2
    <an empty line is an empty clue>
    : columns                       the column clues, left to right
    ...
    : end                           anything after this is ignored

A block is a number with an optional colour character (``2r``). A colour is an XPM word:
``#rrggbb`` or a colour name (``blue``); the palette entry is named by the word when it is
a name, else by its character. Without ``#d`` the puzzle is black-and-white. Triddlers
(``#t``) are refused. The format keeps no metadata and no goal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nonoforge.errors import FormatError, PuzzleError
from nonoforge.formats.base import Format, parse_int, register, strip_meta
from nonoforge.formats.non import build_puzzle, check_line_length
from nonoforge.puzzle import RGB, WHITE, Block, Clue, Color, Palette, Puzzle, parse_rgb

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DECL = re.compile(r"\s*(\S):(.)\s*(\S+)")
_TOKEN = re.compile(r"(\d+)(\D?)$")
_NAME = re.compile(r"[A-Za-z]+")


def _named_rgb(name: str) -> RGB | None:
    """The RGB of an X11/CSS colour name, or None if the name is unknown."""
    from PIL import ImageColor  # only files that name colours need it

    if not _NAME.fullmatch(name):
        return None
    try:
        rgb = ImageColor.getrgb(name)
    except ValueError:
        return None
    return (int(rgb[0]), int(rgb[1]), int(rgb[2]))


def _xpm_rgb(word: str, lineno: int) -> RGB:
    if word.startswith("#"):
        hexes = word[1:]
        if len(hexes) == 12:  # X11's #RRRRGGGGBBBB: keep the high bytes
            hexes = hexes[0:2] + hexes[4:6] + hexes[8:10]
        try:
            return parse_rgb(hexes)
        except PuzzleError:
            raise FormatError(f"not an RGB colour: {word[:20]!r}", line=lineno) from None
    rgb = _named_rgb(word)
    if rgb is None:
        raise FormatError(f"unknown colour name {word[:30]!r}", line=lineno)
    return rgb


def _names(words: list[str], inchars: list[str]) -> list[str]:
    """Palette names: the XPM word when it is a colour name, else the colour's character
    (and if that is taken too, ``colorN``). Shared by the reader and :func:`holds`."""
    out: list[str] = []
    for i, (word, ch) in enumerate(zip(words, inchars, strict=True)):
        for cand in (word if not word.startswith("#") else None, ch, f"color{i}"):
            if cand and cand not in out:
                out.append(cand)
                break
    return out


def _parse_clue(line: str, lineno: int, inchars: dict[str, int], default: int | None) -> Clue:
    check_line_length(line, lineno)
    blocks = []
    for tok in re.split(r"[\s,]+", line.strip()):
        if not tok:
            continue
        m = _TOKEN.match(tok)
        if not m:
            if tok.startswith("-"):
                raise FormatError(f"negative clue number {tok[:20]!r}", line=lineno)
            raise FormatError(f"expected a block like 3 or 3r, got {tok[:20]!r}", line=lineno)
        n = parse_int(m.group(1), lineno, "clue number")
        ch = m.group(2)
        if ch:
            if ch not in inchars:
                raise FormatError(f"unknown colour character {ch!r}", line=lineno)
            color = inchars[ch]
        elif default is None:
            raise FormatError("a block without a colour and no default colour 1", line=lineno)
        else:
            color = default
        blocks.append((n, color))
    if [n for n, _ in blocks] == [0]:
        return ()
    if any(n == 0 for n, _ in blocks):
        raise FormatError("a clue of several numbers contains 0", line=lineno)
    return tuple(Block(n, c) for n, c in blocks)


_Decl = tuple[str, str, RGB, int]  # (inchar, word, rgb, line)


def _declaration(d: str, lineno: int, decls: list[_Decl]) -> _Decl:
    """One ``#d`` line, ``<inchar>:<outchar> <colour>``, checked against those before it."""
    m = _DECL.match(d)
    if not m:
        raise FormatError(f"expected '<char>:<char> <colour>', got {d.strip()[:40]!r}", line=lineno)
    ch, word = m.group(1), m.group(3)
    if ch.isdigit() and ch not in "01" or ch == ",":
        raise FormatError(f"colour character {ch!r} is not allowed", line=lineno)
    if any(ch == c for c, *_ in decls):
        raise FormatError(f"colour character {ch!r} declared twice", line=lineno)
    return (ch, word, _xpm_rgb(word, lineno), lineno)


def _declarations(lines: list[str], i: int) -> tuple[list[_Decl], int]:
    """The ``#d`` block starting after line index ``i - 1``, up to a line starting
    (after space) with ``:``; and the index where it stops."""
    decls: list[_Decl] = []
    while i < len(lines) and not lines[i].lstrip().startswith(":"):
        if lines[i].strip():
            decls.append(_declaration(lines[i], i + 1, decls))
        i += 1
    return decls, i


def _preamble(lines: list[str]) -> tuple[list[_Decl], int]:
    """Comments until a line starting with ``:``, and any ``#d`` colour declarations:
    the declarations and the index of the line after the ``: rows`` line."""
    i = 0
    decls: list[_Decl] = []
    while i < len(lines) and not lines[i].startswith(":"):
        head = lines[i][:2].lower()
        if head == "#t":
            raise FormatError("triddlers (#t) are not supported", line=i + 1)
        if head == "#d":
            decls, i = _declarations(lines, i + 1)
            break
        i += 1
    # the rows start after the first line beginning with ':'
    while i < len(lines) and not lines[i].lstrip().startswith(":"):
        i += 1
    if i >= len(lines):
        raise FormatError("no ': rows' line (a line starting with a colon)", line=len(lines) or 1)
    return decls, i + 1


def _palette(decls: list[_Decl], rows_at: int) -> tuple[Palette, dict[str, int], int | None]:
    """The palette the declarations make, each inchar's colour index and the default
    colour (of blocks without a character); black-and-white without declarations."""
    if not decls:
        return Palette.bw(), {}, 1
    bg = next(((w, rgb) for ch, w, rgb, _ in decls if ch == "0"), ("white", WHITE.rgb))
    painted = [(ch, w, rgb) for ch, w, rgb, _ in decls if ch != "0"]
    if not painted:
        raise FormatError("the colour declarations declare no block colour", line=rows_at)
    names = _names([bg[0], *(w for _, w, _ in painted)], ["0", *(ch for ch, _, _ in painted)])
    colors = (Color(n, rgb) for n, (_, _, rgb) in zip(names[1:], painted, strict=True))
    palette = Palette((Color(names[0], bg[1]), *colors))
    inchars = {ch: k for k, (ch, _, _) in enumerate(painted, start=1)}
    return palette, inchars, inchars.get("1")


def _section(
    lines: list[str], i: int, inchars: dict[str, int], default: int | None
) -> tuple[list[Clue], list[int], int]:
    """The clue lines from index ``i`` up to a line starting with ``:`` (or the end):
    the clues, their line numbers, and the index where the section stops."""
    clues: list[Clue] = []
    where: list[int] = []
    while i < len(lines) and not lines[i].startswith(":"):
        clues.append(_parse_clue(lines[i], i + 1, inchars, default))
        where.append(i + 1)
        i += 1
    if i >= len(lines):  # trailing blank lines at the end of a file are not empty clues
        while clues and not clues[-1] and not lines[where[-1] - 1].strip():
            clues.pop()
            where.pop()
    return clues, where, i


def read(text: str | bytes) -> Iterator[Puzzle]:
    """The one puzzle of an Olšák ``.g`` file."""
    if isinstance(text, bytes):
        raise FormatError(".g files are text")
    lines = text.splitlines()
    decls, rows_at = _preamble(lines)
    palette, inchars, default = _palette(decls, rows_at)
    rows, row_at, i = _section(lines, rows_at, inchars, default)
    if i >= len(lines):
        raise FormatError("no ': columns' line after the row clues", line=len(lines))
    cols, col_at, _ = _section(lines, i + 1, inchars, default)
    if not rows:
        raise FormatError("no row clues", line=rows_at)
    if not cols:
        raise FormatError("no column clues", line=row_at[-1] + 1)
    yield build_puzzle(rows, cols, palette, None, row_at, col_at, col_at[-1])


# -- writing ------------------------------------------------------------------------------


def _word(c: Color) -> str:
    """The XPM word for a colour: its name when that is a colour name of the same RGB."""
    named = _named_rgb(c.name)
    return c.name if named == c.rgb else c.hex


def _usable(ch: str) -> bool:
    return len(ch) == 1 and ch.isprintable() and not ch.isspace() and not ch.isdigit() \
        and ch not in ",:"


def _inchars(p: Puzzle) -> list[str]:
    """The character of each colour (background ``0``): a colour's own one-character
    name when it can be one, else the next free letter."""
    names = [c.name for c in p.palette.colors[1:]]
    own = {n for n in names if _usable(n)}
    spare = (ch for ch in _LETTERS if ch not in own)
    return ["0", *(n if n in own else next(spare) for n in names)]


def write(puzzles: list[Puzzle]) -> str:
    """One puzzle as an Olšák ``.g`` file."""
    (p,) = puzzles
    out: list[str] = []
    plain = p.palette == Palette.bw()
    chars = [""] * len(p.palette)
    if not plain:
        chars = _inchars(p)
        out.append("#d")
        out.append(f"   0:.  {_word(p.palette[0])}")
        for k, c in enumerate(p.palette.colors[1:], start=1):
            out.append(f"   {chars[k]}:{chars[k]}  {_word(c)}")

    def clue(c: Clue) -> str:
        return " ".join(f"{b.length}{chars[b.color]}" for b in c)

    out += [": rows", *map(clue, p.rows), ": columns", *map(clue, p.columns), ": end"]
    return "\n".join(out) + "\n"


def holds(p: Puzzle) -> Puzzle:
    """Clues and colours (named as the reader names them); no metadata or goal."""
    q = strip_meta(p)
    if p.palette == Palette.bw():
        return q
    names = _names([_word(c) for c in p.palette], _inchars(p))
    return q.replace(
        palette=Palette(tuple(Color(n, c.rgb) for n, c in zip(names, p.palette, strict=True)))
    )


def can_hold(p: Puzzle) -> bool:
    return p.ncolors <= len(_LETTERS)


_BLOCK = re.compile(r"\d+[^\s\d,]?")


def _clue_like(line: str) -> bool:
    return all(_BLOCK.fullmatch(t) for t in re.split(r"[\s,]+", line.strip()) if t)
_HASH_D = re.compile(r"^#[dD]", re.MULTILINE)


def sniff(text: str | bytes) -> bool:
    """A line starting with ``:`` and clue lines after it, with ``#d`` colour declarations
    before it or a second ``:`` line after the clues."""
    if not isinstance(text, str):
        return False
    lines = text[:4096].splitlines()
    if len(text) > 4096 and lines:
        lines.pop()  # the last line may be cut short
    colons = [i for i, ln in enumerate(lines) if ln.startswith(":")]
    if not colons:
        return False
    first = colons[0]
    stop = colons[1] if len(colons) > 1 else len(lines)
    body = lines[first + 1 : stop]
    if not all(_clue_like(ln) for ln in body):
        return False
    declared = any(_HASH_D.match(ln) for ln in lines[:first])
    return declared or (len(colons) >= 2 and bool(body))


FORMAT = register(
    Format(
        name="olsak",
        extensions=(".g",),
        description="Petr Olšák's .g (griddler solver, webpbn export), colour",
        read=read,
        write=write,
        sniff=sniff,
        color=True,
        holds=holds,
        can_hold=can_hold,
        priority=40,
    )
)
