"""webpbn's XML puzzle format (``<puzzleset>`` of ``<puzzle>`` elements).

::

    <puzzleset>
    <source>webpbn.com</source>
    <puzzle type="grid" defaultcolor="black" backgroundcolor="white">
    <title>Demo Puzzle from Front Page</title>  <author>...</author>
    <copyright>...</copyright>  <id>#1 (v.1)</id>  <description>...</description>
    <color name="white" char=".">FFFFFF</color>
    <color name="black" char="X">000000</color>
    <clues type="columns"><line><count>2</count><count color="red">1</count></line>...</clues>
    <clues type="rows">...</clues>
    <solution type="goal"><image>|.XX..|...</image></solution>
    </puzzle>
    </puzzleset>

The palette is the background colour (index 0), the default colour (1, used by counts
without a ``color``) and then the other ``<color>`` elements in order; colours keep their
XML names. ``white`` and ``black`` may be used without a ``<color>`` element. A puzzle
with a goal and no clues gets its clues from the goal. A goal with undetermined cells
(``?`` or ``[..]``) is not kept.

Givens (cells printed solved) have no place here: the format's only partial grid,
``<solution type="saved">``, is a player's saved progress, which pbnsolve starts from only
when told (``-s``) and readers otherwise skip; so a puzzle with givens is refused.

Metadata: ``title``, ``author``, ``copyright``, ``id`` -> source_id, ``description`` (else
``note``) -> note, and the set's ``<source>`` -> source; the set's ``author`` and
``copyright`` fill in for puzzles that have none. There is no licence element.

Parsing uses :mod:`defusedxml`'s expat parser with a small target that notes each
element's line: entity declarations are refused (no billion laughs, no external
entities), the DTD named by ``<!DOCTYPE>`` is never fetched, and an undefined entity is an
error.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from xml.etree.ElementTree import ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from nonoforge.errors import FormatError, PuzzleError
from nonoforge.formats.base import (
    Format,
    clean_text,
    parse_int,
    puzzle_or_error,
    record,
    register,
    strict,
)
from nonoforge.formats.non import build_puzzle, decode_cells
from nonoforge.puzzle import (
    BLACK,
    WHITE,
    Block,
    Clue,
    Color,
    Grid,
    Meta,
    Palette,
    Puzzle,
    parse_rgb,
)
from nonoforge.util import xml_chars, xml_text

#: More blocks than any real document holds; refused to keep memory bounded.
MAX_COUNTS = 2_000_000
_META_TAGS = ("title", "author", "copyright", "id", "description", "note", "source")
_TEXT_TAGS = frozenset({*_META_TAGS, "color", "count", "image"})
_IMPLICIT = {"white": (WHITE.rgb, "."), "black": (BLACK.rgb, "X")}


@dataclass
class _Raw:
    """One ``<puzzle>`` as read, before it is checked."""

    line: int
    attrs: dict[str, str]
    meta: dict[str, str] = field(default_factory=dict)
    colors: list[tuple[str, str | None, str, int]] = field(default_factory=list)
    clues: dict[str, tuple[list[list[tuple[str, str | None, int]]], int]] = field(
        default_factory=dict
    )
    goal: tuple[str, int] | None = None
    #: the first thing wrong inside this puzzle: it is reported in its place, the others read
    error: FormatError | None = None


class _Target:
    """Collects puzzles from parser events; each element keeps the line it starts on."""

    def __init__(self) -> None:
        self.expat: Any = None  # the expat parser, for line numbers
        #: open elements: (lower-case tag, attributes, start line)
        self.stack: list[tuple[str, dict[str, str], int]] = []
        self.text: list[str] = []
        self.set_meta: dict[str, str] = {}
        self.puzzles: list[_Raw] = []
        self.cur: _Raw | None = None
        self.clue_kind: str | None = None
        self.line_blocks: list[tuple[str, str | None, int]] | None = None
        self.counts = 0
        self.solution_type: str | None = None

    @property
    def line(self) -> int:
        return int(self.expat.CurrentLineNumber) if self.expat is not None else 1

    def fail(self, reason: str) -> FormatError:
        return FormatError(reason, line=self.line)

    def spoil(self, reason: str, line: int | None = None) -> None:
        """Something is wrong inside the current ``<puzzle>``: it costs only that puzzle
        (the document is well-formed, so the next one starts at its own element)."""
        assert self.cur is not None
        if self.cur.error is None:
            self.cur.error = FormatError(reason, line=self.line if line is None else line)

    def start(self, name: str, attrs: dict[str, str]) -> None:
        tag = name.lower()
        parent = self.stack[-1][0] if self.stack else None
        at = {k.lower(): v for k, v in attrs.items()}
        self.stack.append((tag, at, self.line))
        self.text = []
        if parent is None:
            if tag != "puzzleset":
                raise self.fail(f"not a webpbn puzzle file: the root is <{name[:30]}>")
        elif tag == "puzzleset":
            raise self.fail("a <puzzleset> inside another element")
        elif tag == "puzzle" and parent == "puzzleset":
            self.cur = _Raw(self.line, at)
            self.clue_kind = None
            self.puzzles.append(self.cur)
        elif tag == "clues" and parent == "puzzle" and self.cur is not None:
            kind = at.get("type", "").lower()
            self.clue_kind = None  # the lines of bad <clues> are not read
            if kind not in ("rows", "columns"):
                self.spoil(f"<clues> type must be rows or columns, got {kind[:20]!r}")
            elif kind in self.cur.clues:
                self.spoil(f"a second <clues type={kind!r}>")
            else:
                self.cur.clues[kind] = ([], self.line)
                self.clue_kind = kind
        elif tag == "line" and parent == "clues" and self.cur is not None and self.clue_kind:
            self.line_blocks = []
            self.cur.clues[self.clue_kind][0].append(self.line_blocks)
        elif tag == "solution" and parent == "puzzle":
            self.solution_type = at.get("type", "goal").lower()

    def data(self, content: str) -> None:
        if self.stack and self.stack[-1][0] in _TEXT_TAGS:
            self.text.append(content)

    def end(self, name: str) -> None:
        tag, at, line = self.stack.pop()
        parent = self.stack[-1][0] if self.stack else None
        text = "".join(self.text)
        self.text = []
        if tag in _META_TAGS:
            self._end_meta(tag, parent, text)
        elif tag == "puzzle":
            self.cur = None
        elif tag == "clues":
            self.clue_kind = None
        elif tag == "line" and parent == "clues":
            self.line_blocks = None
        elif tag == "count" and parent == "line" and self.line_blocks is not None:
            self.counts += 1
            if self.counts > MAX_COUNTS:
                raise self.fail(f"more than {MAX_COUNTS} blocks")
            self.line_blocks.append((text, at.get("color"), line))
        elif parent in ("puzzle", "solution") and self.cur is not None:
            self._end_in_puzzle(tag, parent, at, text, line)

    def _end_meta(self, tag: str, parent: str | None, text: str) -> None:
        """A metadata element: the puzzle's own, or the set's (which fills in)."""
        if parent == "puzzle" and self.cur is not None:
            self.cur.meta.setdefault(tag, text)
        elif parent == "puzzleset":
            self.set_meta.setdefault(tag, text)

    def _end_in_puzzle(
        self, tag: str, parent: str, at: dict[str, str], text: str, line: int
    ) -> None:
        """A ``<color>`` of the puzzle, or the ``<image>`` of its goal solution."""
        cur = self.cur
        assert cur is not None
        if tag == "color" and parent == "puzzle":
            cname = at.get("name")
            if not cname:
                self.spoil("<color> without a name", line)
                return
            cur.colors.append((cname, at.get("char"), text, line))
        elif tag == "image" and parent == "solution" and cur.goal is None:
            # the first image of a goal solution counts
            cur.goal = (text, line) if self.solution_type == "goal" else None

    def close(self) -> None:
        return None


def _parse(data: bytes) -> _Target:
    target = _Target()
    parser = DefusedXMLParser(
        target=target, forbid_dtd=False, forbid_entities=True, forbid_external=True
    )
    target.expat = parser.parser
    try:
        parser.feed(data)
        parser.close()
    except ParseError as e:
        line = e.position[0] if getattr(e, "position", None) else target.line
        msg = str(e).split(":", 1)[0] if str(e) else "malformed XML"
        raise FormatError(f"malformed XML: {msg[:80]}", line=line) from None
    except DefusedXmlException as e:
        name = getattr(e, "name", None)
        what = f" ({name[:30]!r})" if isinstance(name, str) else ""
        raise FormatError(
            f"XML entity declarations are refused{what}: they could expand without bound "
            "or read local files",
            line=target.line,
        ) from None
    return target


_Defined = dict[str, tuple[tuple[int, int, int], str | None]]


def _defined_colors(raw: _Raw) -> tuple[_Defined, list[str]]:
    """The ``<color>`` elements: each name's RGB and char, and the names in order."""
    defined: _Defined = {}
    order: list[str] = []
    for cname, ch, text, line in raw.colors:
        if cname in defined:
            raise FormatError(f"colour {cname[:30]!r} defined twice", line=line)
        try:
            rgb = parse_rgb(text)
        except PuzzleError:
            raise FormatError(
                f"colour {cname[:30]!r}: not an RGB colour {text.strip()[:20]!r}", line=line
            ) from None
        if ch is not None and len(ch) != 1:
            raise FormatError(f"colour {cname[:30]!r}: char must be one character", line=line)
        defined[cname] = (rgb, ch)
        order.append(cname)
    return defined, order


def _implicit(name: str, defined: _Defined, line: int, what: str) -> bool:
    """Define ``white``/``black`` when used without a ``<color>``; whether it was added."""
    if name in defined:
        return False
    if name not in _IMPLICIT:
        raise FormatError(what, line=line)
    defined[name] = _IMPLICIT[name]
    return True


def _palette(raw: _Raw) -> tuple[Palette, list[str], dict[str, int]]:
    """Background (0), default colour (1), the other colours in order, then implicit
    colours only counts name: the palette, its names, and the goal's cell characters."""
    bg_name = raw.attrs.get("backgroundcolor", "white")
    fg_name = raw.attrs.get("defaultcolor", "black")
    defined, order = _defined_colors(raw)
    for name in (bg_name, fg_name):
        _implicit(name, defined, raw.line, f"colour {name[:30]!r} is used but not defined")
    if bg_name == fg_name:
        raise FormatError("background and default colour are the same", line=raw.line)
    names = [bg_name, fg_name, *(n for n in order if n not in (bg_name, fg_name))]
    for kind in ("rows", "columns"):
        for blocks in raw.clues.get(kind, ([], 0))[0]:
            for _, used, line in blocks:
                if used is not None and _implicit(
                    used, defined, line, f"unknown colour {used[:30]!r}"
                ):
                    names.append(used)
    palette = puzzle_or_error(
        lambda: Palette(tuple(Color(n, defined[n][0]) for n in names)), raw.line
    )
    chars = {ch: i for i, n in enumerate(names) if (ch := defined[n][1])}
    return palette, names, chars


def _meta(raw: _Raw, set_meta: dict[str, str]) -> Meta:
    """The puzzle's metadata; the set's author, copyright and source fill in."""
    m = raw.meta
    return Meta(
        title=clean_text(m.get("title")),
        author=clean_text(m.get("author") or set_meta.get("author")),
        copyright=clean_text(m.get("copyright") or set_meta.get("copyright")),
        source=clean_text(m.get("source") or set_meta.get("source")),
        source_id=clean_text(m.get("id")),
        note=clean_text(m.get("description") or m.get("note")),
    )


def _count(text: str, cname: str | None, line: int, index: dict[str, int]) -> Block:
    if text.strip().startswith("-"):
        raise FormatError(f"negative count {text.strip()[:20]!r}", line=line)
    n = parse_int(text, line, "count")
    if n == 0:
        raise FormatError("a count of 0", line=line)
    return Block(n, index[cname] if cname is not None else 1)


def _clues(raw: _Raw, kind: str, index: dict[str, int]) -> tuple[list[Clue], list[int]]:
    """The clues of ``<clues type=kind>`` (present) and the line each starts on."""
    out: list[Clue] = []
    where: list[int] = []
    lines, at = raw.clues[kind]
    for blocks in lines:
        out.append(tuple(_count(text, cname, line, index) for text, cname, line in blocks))
        where.append(blocks[0][2] if blocks else at)
    if not out:
        raise FormatError(f"<clues type={kind!r}> has no <line>", line=at)
    return out, where


def _build(raw: _Raw, set_meta: dict[str, str]) -> Puzzle:
    kind = raw.attrs.get("type", "grid").lower()
    if kind != "grid":
        raise FormatError(f"puzzle type {kind[:20]!r} is not supported (only grid)", line=raw.line)
    palette, names, chars = _palette(raw)
    meta = _meta(raw, set_meta)
    goal = _goal(raw.goal, chars) if raw.goal else None
    if not raw.clues:
        if goal is None or raw.goal is None:
            raise FormatError("puzzle has neither clues nor a goal", line=raw.line)
        g = goal
        return puzzle_or_error(lambda: Puzzle.from_grid(g, palette, meta), raw.goal[1])
    for kind in ("rows", "columns"):
        if kind not in raw.clues:
            raise FormatError(f"puzzle has no <clues type={kind!r}>", line=raw.line)
    index = {n: i for i, n in enumerate(names)}
    rows, row_at = _clues(raw, "rows", index)
    cols, col_at = _clues(raw, "columns", index)
    end = max(raw.clues["rows"][1], raw.clues["columns"][1])
    goal_line = raw.goal[1] if raw.goal else None
    return build_puzzle(rows, cols, palette, meta, row_at, col_at, end, goal, goal_line)


def _goal(goal: tuple[str, int], chars: dict[str, int]) -> Grid | None:
    """The goal picture, or None when it leaves cells open (``?``, ``[..]``)."""
    text, line = goal
    if "?" in text or "[" in text:
        return None
    parts = text.split("|")
    if "".join(parts[0::2]).strip() or len(parts) % 2 == 0:
        raise FormatError("goal image must be rows of |...|, and nothing between", line=line)
    rows = ["".join(part.split()) for part in parts[1::2]]
    return decode_cells(rows, chars, line)


def records(text: str | bytes) -> Iterator[Puzzle | FormatError]:
    """Every puzzle of a webpbn XML ``<puzzleset>``; a malformed ``<puzzle>`` is its
    FormatError in its place, and reading goes on at the next one (see
    :attr:`Format.records`). A document that is not well-formed XML fails as a whole."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    if isinstance(text, str) and text.startswith("<?xml"):
        # the declaration may name another encoding; we were handed decoded text
        head, sep, rest = text.partition("?>")
        if "encoding" in head:
            data = ('<?xml version="1.0" encoding="utf-8"' + sep + rest).encode("utf-8")
    handler = _parse(data)
    for raw in handler.puzzles:
        yield raw.error if raw.error is not None else record(partial(_build, raw, handler.set_meta))


read = strict(records)


# -- writing ------------------------------------------------------------------------------

#: Cell characters for the goal image: never ``|``, ``?``, ``[``, ``]`` or space.
_CHARS = "." + string.ascii_letters + string.digits + "!#$%*+-/=@^_~"


def _kept(value: str | None) -> str | None:
    """A metadata field as an XML file keeps it: made safe (:func:`clean_text`), then
    without what XML cannot carry at all (:func:`~nonoforge.util.xml_chars`)."""
    v = clean_text(value)
    return None if v is None else xml_chars(v).strip() or None


def _xml_name(i: int, c: Color) -> str:
    """A colour's name as written: kept unless XML cannot carry it."""
    return c.name if xml_chars(c.name) == c.name else f"color{i}"


def _names(p: Puzzle) -> list[str]:
    names: list[str] = []
    for i, c in enumerate(p.palette):
        n = _xml_name(i, c)
        names.append(n if n not in names else f"color{i}")
    return names


def _write_one(p: Puzzle) -> list[str]:
    from xml.sax.saxutils import quoteattr

    names = _names(p)
    chars = ".X" if p.is_bw else _CHARS
    out = [
        f"<puzzle type=\"grid\" defaultcolor={quoteattr(names[1])} "
        f"backgroundcolor={quoteattr(names[0])}>"
    ]
    m = p.meta
    fields = (("title", m.title), ("author", m.author), ("copyright", m.copyright),
              ("source", m.source), ("id", m.source_id), ("description", m.note))  # fmt: skip
    for tag, value in fields:
        v = _kept(value)
        if v is not None:
            out.append(f"<{tag}>{xml_text(v)}</{tag}>")
    for i, c in enumerate(p.palette):
        out.append(f"<color name={quoteattr(names[i])} char={quoteattr(chars[i])}>"
                   f"{c.hex[1:].upper()}</color>")  # fmt: skip
    for kind, clues in (("columns", p.columns), ("rows", p.rows)):
        out.append(f'<clues type="{kind}">')
        for clue in clues:
            counts = "".join(
                f"<count>{b.length}</count>" if b.color == 1
                else f"<count color={quoteattr(names[b.color])}>{b.length}</count>"
                for b in clue
            )  # fmt: skip
            out.append(f"<line>{counts}</line>")
        out.append("</clues>")
    if p.goal is not None:
        image = "\n".join(f"|{row}|" for row in p.goal.to_rows(chars))
        out.append(f'<solution type="goal">\n<image>\n{image}\n</image>\n</solution>')
    out.append("</puzzle>")
    return out


def write(puzzles: list[Puzzle]) -> str:
    """Puzzles as one webpbn XML ``<puzzleset>``."""
    out = ['<?xml version="1.0"?>', '<!DOCTYPE pbn SYSTEM "http://webpbn.com/pbn-0.3.dtd">',
           "<puzzleset>"]  # fmt: skip
    for p in puzzles:
        out += _write_one(p)
    out.append("</puzzleset>")
    return "\n".join(out) + "\n"


def holds(p: Puzzle) -> Puzzle:
    """Everything but the licence; colour names XML cannot carry are replaced."""
    m = p.meta
    meta = Meta(
        title=_kept(m.title),
        author=_kept(m.author),
        copyright=_kept(m.copyright),
        source=_kept(m.source),
        source_id=_kept(m.source_id),
        note=_kept(m.note),
    )
    names = _names(p)
    palette = Palette(tuple(Color(n, c.rgb) for n, c in zip(names, p.palette, strict=True)))
    return p.replace(meta=meta, palette=palette)


def can_hold(p: Puzzle) -> bool:
    return len(p.palette) <= len(_CHARS)


def sniff(text: str | bytes) -> bool:
    """An XML document whose root is ``<puzzleset>``."""
    head = text[:4096]
    if isinstance(head, bytes):
        head = head.decode("utf-8", "replace")
    s = head.lstrip("\ufeff \t\r\n")
    return s.startswith("<") and ("<puzzleset" in head or "<!DOCTYPE pbn" in head)


FORMAT = register(
    Format(
        name="xml",
        extensions=(".xml", ".pbn"),
        description="webpbn XML (<puzzleset>), colour, several puzzles a file",
        read=read,
        records=records,
        write=write,
        sniff=sniff,
        multi=True,
        color=True,
        holds=holds,
        can_hold=can_hold,
        priority=20,
    )
)
