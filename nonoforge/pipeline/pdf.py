"""A print-ready puzzle book: puzzles first, every solution at the back (fpdf2), and a
matching cover.

Pure: puzzles in, PDF bytes out. What print services ask for, and what a typesetter and a
reader expect (issue 37):

- trims A4, US letter (8.5x11 in), 6x9 and 7x10 in, with mirrored margins: the inside
  (gutter) on every page grows with the page count as KDP requires (0.375 in for 24-150
  pages, 0.5 in to 300, 0.625 in to 500, 0.75 in to 700, 0.875 in beyond), the outside is
  0.375 in (KDP asks at least 0.25 in); pages are planned for the gutter their own count
  needs, not the widest;
- a title page, the contents, a "How to solve" page with a small worked example (a real
  puzzle, its clues and its solved grid), the puzzles, then the solutions, numbered alike;
- sections by size (:func:`section_of`): each section prints its puzzles 4, 2 or 1 to a
  page with one cell size, every figure (clues and grid) centred in its place; clue digits
  are never set under 7 pt (:data:`DIGIT_PT`): a puzzle that would need smaller gets a page
  of its own, or is printed in parts, each with its rows' and columns' clues;
- all text in DejaVu Sans, embedded (subset) from the copy shipped in
  :mod:`nonoforge.fonts`; a character the font lacks is replaced by U+FFFD with one warning;
- colour clues on a swatch of their colour with a contrasting digit, and a key of swatches
  and colour names a reader knows (:mod:`nonoforge.colournames`); ``greyscale`` maps
  colours to grey levels at least 20 % apart (hatching beyond four colours), named in the
  key; nothing is transparent;
- :func:`cover`: the matching full-wrap cover (back, spine, front) with KDP's 0.125 in bleed
  and a spine as wide as the page count and paper make it (:func:`spine_width`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from fpdf import FPDF

from nonoforge.colournames import colour_names
from nonoforge.errors import UsageError
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.titles import difficulty
from nonoforge.util import safe_text

RGB = tuple[int, int, int]
Warn = Callable[[str], None]

INCH = 25.4
#: Trim sizes in millimetres, portrait.
TRIMS: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "letter": (8.5 * INCH, 11 * INCH),
    "6x9": (6 * INCH, 9 * INCH),
    "7x10": (7 * INCH, 10 * INCH),
}
#: Kept for callers of the first release: the trims were called page sizes.
PAGE_SIZES = TRIMS
#: (up to this many pages, inside margin in inches): KDP's table for paperbacks.
GUTTERS = ((150, 0.375), (300, 0.5), (500, 0.625), (700, 0.75), (10**9, 0.875))
#: Paper thickness per page (inches) by KDP's paper types: the spine is pages x this.
PAPERS: dict[str, float] = {"white": 0.002252, "cream": 0.0025, "colour": 0.002347}
#: KDP's cover bleed on every outer edge, and how far text keeps from the trim and spine
#: folds; spine text only from this many pages (KDP: narrower spines take no text).
BLEED, SAFE, SPINE_SAFE, SPINE_TEXT_PAGES = 0.125 * INCH, 0.25 * INCH, 0.0625 * INCH, 79
#: KDP prints paperbacks of at least this many pages.
MIN_PAGES = 24
OUTSIDE = 0.375 * INCH
TOP, BOTTOM = 12.0, 14.0
PT_PER_MM = 72 / INCH
#: The smallest clue digit printed (points): below it, clues are hard to read (issue 37).
DIGIT_PT = 7.0
#: Digit height as a share of the cell: one or two digits, and three (``100``).
DIGIT_SHARE, WIDE_SHARE = 0.62, 0.45
#: The cell that sets one- and two-digit clues at DIGIT_PT (mm).
MIN_CELL = DIGIT_PT / (PT_PER_MM * DIGIT_SHARE)
#: Puzzles are not drawn larger than this (mm per cell).
MAX_CELL = 8.0
#: Solutions are only looked at: they share pages down to this cell, up to the other (mm).
SOLUTION_CELL, SOLUTION_MAX = 2.0, 5.0
#: A section prints n to a page when this share of its puzzles fit n to a page.
SHARE = 0.8
#: Slot grids (columns, rows) for puzzles and for solutions, most to a page first.
PUZZLE_GRIDS = ((2, 2), (1, 2), (1, 1))
SOLUTION_GRIDS = ((3, 3), (2, 3), (2, 2), (1, 2), (1, 1))
#: Sections by the puzzle's longer side: up to 10, 15, 20 ... cells.
SECTION_SIDES = (10, 15, 20, 25, 30, 40, 60)
GAP = 4.0  # between slots (mm)
RULE = 0.6  # room for the frame's thick rule, half of which lies outside the grid (mm)
HEAD = 7.0  # the line above each puzzle
#: One line of the contents page (mm), and the room its heading takes.
CONTENTS_LINE = 5.5
CONTENTS_HEAD = 16.0
KEY_LINE = 4.5  # one line of the colour key
FONT = "dejavu"
#: Hatching for greyscale books with more colours than grey levels tell apart.
HATCHES = ("", "/", "\\", "x", "-", "|")
#: Grey levels a greyscale book tells colours apart by: at least 20 % apart and none lighter
#: than 25 % grey (a 16 % grey was barely visible on paper: issue 37), so four of them.
GREY_LEVELS = 4
#: The darkest and lightest grey fills (0-255): 97 % and 25 % grey.
DARKEST, LIGHTEST = 8, 191
#: Worked examples for the "How to solve" page, small bundled puzzles from Jan Wolter's
#: survey set (name, webpbn number, title): the first that is not itself in the book, whose
#: answer the page would give away; when both are, Dancer mirrored.
EXAMPLES = (("dancer", 1, "Dancer"), ("edge", 23, "Edge"))


@dataclass(frozen=True)
class BookOptions:
    """How a book is printed: its trim, ink, the most puzzles a page holds, and the paper
    (which sets the cover's spine width)."""

    trim: str = "a4"
    greyscale: bool = False
    per_page: int = 4
    paper: str = "white"

    def check(self) -> None:
        """Refuse an unknown trim, paper or per-page count (UsageError, one line)."""
        trim_size(self.trim)
        if self.per_page not in (1, 2, 4):
            raise UsageError(f"--per-page: {self.per_page} (choose 1, 2 or 4)")
        if self.paper not in PAPERS:
            raise UsageError(f"--paper: unknown paper {self.paper!r} "
                             f"(choose from {', '.join(PAPERS)})")

    @property
    def size(self) -> tuple[float, float]:
        return trim_size(self.trim)


@dataclass(frozen=True)
class BookEntry:
    """One puzzle of the book and what is printed with it.

    ``solution`` is the answer printed at the back (the puzzle's goal when not given);
    ``note`` marks the puzzle, e.g. that its solution is one of several.
    """

    puzzle: Puzzle
    number: int
    title: str
    grade: int | None = None
    solution: Grid | None = None
    note: str | None = None

    @property
    def answer(self) -> Grid | None:
        return self.solution if self.solution is not None else self.puzzle.goal


def gutter(pages: int) -> float:
    """The inside margin (mm) for a book of ``pages`` pages (KDP's table).

    >>> [round(gutter(n) / INCH, 3) for n in (24, 150, 151, 300, 301, 500, 501, 700, 701)]
    [0.375, 0.375, 0.5, 0.5, 0.625, 0.625, 0.75, 0.75, 0.875]
    """
    for upto, inches in GUTTERS:
        if pages <= upto:
            return inches * INCH
    raise AssertionError("unreachable")


def spine_width(pages: int, paper: str = "white") -> float:
    """The spine (mm) of a paperback of ``pages`` pages on KDP's ``paper``.

    >>> round(spine_width(200, "white") / INCH, 3), round(spine_width(200, "cream") / INCH, 3)
    (0.45, 0.5)
    """
    return pages * PAPERS[paper] * INCH


def trim_size(trim: str) -> tuple[float, float]:
    """``a4``, ``letter``, ``6x9`` or ``7x10`` in millimetres."""
    try:
        return TRIMS[trim.lower()]
    except KeyError:
        raise UsageError(
            f"--page: unknown trim {trim!r} (choose from {', '.join(TRIMS)})") from None


page_size = trim_size  # the first release's name


def section_of(p: Puzzle) -> int:
    """The book section a puzzle belongs in, by its longer side (0: up to 10 cells, 1: up
    to 15, ...): a book groups its puzzles by size, so that each section has one cell size.

    >>> from nonoforge.puzzle import Grid, Puzzle
    >>> import numpy as np
    >>> section_of(Puzzle.from_grid(Grid(np.ones((10, 5), dtype=int)))), SECTION_SIDES[0]
    (0, 10)
    """
    side = max(p.width, p.height)
    return next((k for k, s in enumerate(SECTION_SIDES) if side <= s), len(SECTION_SIDES))


def section_name(k: int) -> str:
    """What the contents calls section ``k``."""
    if k >= len(SECTION_SIDES):
        return f"Larger than {SECTION_SIDES[-1]}\u00d7{SECTION_SIDES[-1]}"
    return f"Up to {SECTION_SIDES[k]}\u00d7{SECTION_SIDES[k]}"


# -- text -----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _covered() -> frozenset[int]:
    """Code points DejaVu Sans draws."""
    from fontTools.ttLib import TTFont

    from nonoforge.fonts import REGULAR

    return frozenset(TTFont(str(REGULAR), lazy=True).getBestCmap())


def printable(text: str, missing: set[str] | None = None, limit: int = 300) -> str:
    """``text`` made safe (at most ``limit`` characters), with every character the font
    lacks replaced by U+FFFD (collected in ``missing``)."""
    have = _covered()
    out = []
    for ch in safe_text(text, limit):
        if ch in "\n\t\r\u2028\u2029":  # one-line text: breaks become spaces
            out.append(" ")
        elif ord(ch) in have:
            out.append(ch)
        else:
            out.append("\ufffd")
            if missing is not None:
                missing.add(ch)
    return "".join(out)


# -- colours --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ink:
    """How one colour index is printed: fill, hatching, digit colour and its key name
    (``order``: the palette's own name, which the key is sorted by)."""

    fill: RGB
    hatch: str
    text: RGB
    name: str
    order: str = ""


def inks(p: Puzzle, greyscale: bool) -> list[Ink]:
    """One :class:`Ink` per palette index (0, the background, is paper). Each is named by
    the colour a reader sees (``light green``), not the palette's label (``a``, ``c2``)."""
    from nonoforge.images.render import text_color

    pal = p.palette
    named = colour_names([c.rgb for c in list(pal)[1:]])
    out = [Ink((255, 255, 255), "", (0, 0, 0), "white", pal[0].name)]
    if not greyscale or pal.is_bw:
        for c, name in zip(list(pal)[1:], named, strict=True):
            out.append(Ink(c.rgb, "", text_color(c.rgb), name, c.name))
        return out
    n = pal.ncolors
    # darkest colour -> darkest grey; levels evenly spread, hatching once they run out
    order = sorted(range(1, n + 1), key=lambda i: (_luma(pal[i].rgb), i))
    levels = min(n, GREY_LEVELS)
    shade: dict[int, Ink] = {}
    for rank, i in enumerate(order):
        step = rank * levels // n
        g = round(DARKEST + step * (LIGHTEST - DARKEST) / max(1, levels - 1))
        hatch = HATCHES[rank % len(HATCHES)] if n > levels else ""
        pct = round(100 * (255 - g) / 255)
        what = f"grey {pct}%" + (f", hatched {hatch}" if hatch else "")
        shade[i] = Ink((g, g, g), hatch, text_color((g, g, g)), f"{named[i - 1]} ({what})",
                       pal[i].name)
    return out + [shade[i] for i in range(1, n + 1)]


def natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that puts ``c2`` before ``c10`` and ``a`` before ``b``, case aside.

    >>> sorted(["d", "c10", "a", "c2"], key=natural)
    ['a', 'c2', 'c10', 'd']
    """
    import re

    return tuple((0, int(t)) if t.isdigit() else (1, t)
                 for t in re.findall(r"\d+|\D+", name.casefold()))


def _luma(rgb: RGB) -> float:
    r, g, b = rgb
    return 0.299 * r + 0.587 * g + 0.114 * b


# -- layout ---------------------------------------------------------------------------------


class _Book(FPDF):
    def __init__(self, title: str, size: tuple[float, float]) -> None:
        from nonoforge.fonts import BOLD, REGULAR

        super().__init__(unit="mm", format=size)
        self.add_font(FONT, "", str(REGULAR))
        self.add_font(FONT, "B", str(BOLD))
        self.set_auto_page_break(False)
        self.set_title(title)
        self.set_creator("nonoforge")
        self.book_title = title
        self.gutter = gutter(1)
        self.blank: set[int] = set()  # pages left blank on purpose: no page number

    def frame(self) -> tuple[float, float, float, float]:
        """The printable box of the current page: mirrored margins, gutter inside."""
        pw, ph = self.w, self.h
        left = self.gutter if self.page_no() % 2 else OUTSIDE  # odd pages are on the right
        return left, TOP, pw - self.gutter - OUTSIDE, ph - TOP - BOTTOM

    def footer(self) -> None:
        if self.page_no() == 1 or self.page_no() in self.blank:
            return
        x, _, w, _ = self.frame()
        self.set_y(-10)
        self.set_x(x)
        self.set_font(FONT, size=7)
        self.set_text_color(110, 110, 110)
        self.cell(w, 4, f"{self.book_title} \u2014 {self.page_no()}",
                  align="R" if self.page_no() % 2 else "L")


@dataclass(frozen=True)
class Piece:
    """What one slot of a page shows: a puzzle, or one part of a puzzle too large for a
    page at legible clues (rows ``r0:r1`` and columns ``c0:c1``, with their clues)."""

    entry: BookEntry
    r0: int
    r1: int
    c0: int
    c1: int
    part: int = 1
    parts: int = 1

    @classmethod
    def whole(cls, e: BookEntry) -> Piece:
        return cls(e, 0, e.puzzle.height, 0, e.puzzle.width)


@dataclass(frozen=True)
class _Fit:
    """A piece's size in cells, clue area included: the grid starts at (left, top).
    ``wide``: a clue of three digits (they need a larger cell for DIGIT_PT)."""

    left: int
    top: int
    width: int
    height: int
    key_items: int
    wide: bool

    @classmethod
    def of(cls, pc: Piece, solved: bool) -> _Fit:
        p = pc.entry.puzzle
        rows, cols = p.rows[pc.r0:pc.r1], p.columns[pc.c0:pc.c1]
        left = 0 if solved else max(1, max(len(r) for r in rows))
        top = 0 if solved else max(1, max(len(c) for c in cols))
        wide = not solved and any(b.length >= 100 for c in (*rows, *cols) for b in c)
        return cls(left, top, left + pc.c1 - pc.c0, top + pc.r1 - pc.r0,
                   0 if p.is_bw else p.ncolors, wide)

    def key_height(self, w: float) -> float:
        """Room the colour key takes under the grid in a box ``w`` wide (generous: names
        are measured only when drawn)."""
        if not self.key_items:
            return 0.0
        return -(-self.key_items // max(1, int(w // 40))) * KEY_LINE + 1.5

    def cell(self, w: float, h: float) -> float:
        """The cell (mm) that fits this piece, its heading and key into a ``w`` x ``h`` box."""
        room = h - HEAD - self.key_height(w) - RULE
        return max(0.1, min((w - RULE) / self.width, room / self.height))

    def height_mm(self, cell: float, w: float) -> float:
        """The figure's height at ``cell`` in a box ``w`` wide: heading, clues, grid, key."""
        return HEAD + self.height * cell + self.key_height(w)

    def need(self, solved: bool) -> float:
        """The smallest cell this piece may be printed at: its digits at DIGIT_PT."""
        if solved:
            return SOLUTION_CELL
        return DIGIT_PT / (PT_PER_MM * (WIDE_SHARE if self.wide else DIGIT_SHARE))


def _givens_in(pc: Piece) -> list[tuple[int, int, int]]:
    """The givens of a piece's puzzle that lie in the piece."""
    return [(i, j, k) for i, j, k in pc.entry.puzzle.givens
            if pc.r0 <= i < pc.r1 and pc.c0 <= j < pc.c1]


def _slot_size(grid: tuple[int, int], box: tuple[float, ...]) -> tuple[float, float]:
    cols, rows = grid
    return (box[2] - (cols - 1) * GAP) / cols, (box[3] - (rows - 1) * GAP) / rows


def _slots(grid: tuple[int, int], box: tuple[float, ...], count: int) -> list[tuple[float, ...]]:
    """The boxes of ``count`` pieces on a page of ``grid`` slots, row by row; a last row
    that is not full is centred."""
    cols, _ = grid
    x, y = box[0], box[1]
    w, h = _slot_size(grid, box)
    out: list[tuple[float, ...]] = []
    for k in range(count):
        r, c = divmod(k, cols)
        in_row = min(cols, count - r * cols)
        shift = (cols - in_row) * (w + GAP) / 2
        out.append((x + shift + c * (w + GAP), y + r * (h + GAP), w, h))
    return out


def _box(size: tuple[float, float], inside: float) -> tuple[float, float, float, float]:
    """The printable box of a page with an ``inside`` margin (mm), from its corner."""
    return (0.0, 0.0, size[0] - inside - OUTSIDE, size[1] - TOP - BOTTOM)


@dataclass(frozen=True)
class PagePlan:
    """One page of puzzles or solutions: its slot grid (columns, rows), the pieces in
    order, the one cell size (mm) they are all drawn at, and the book section."""

    grid: tuple[int, int]
    pieces: tuple[Piece, ...]
    cell: float
    section: int = 0


def _spans(n: int, k: int) -> list[tuple[int, int]]:
    """``n`` lines cut into ``k`` parts, cuts on multiples of five where possible."""
    step = -(-n // k)
    step = -(-step // 5) * 5 if step > 5 else step
    return [(a, min(n, a + step)) for a in range(0, n, step)]


def _parts(e: BookEntry, box: tuple[float, ...]) -> tuple[list[Piece], float]:
    """A puzzle too large for a page at legible clues, in the fewest parts that each keep
    them legible, and the cell they share; when even 4x4 parts cannot, the parts that give
    the largest cell (drawn small, with a warning)."""
    _, _, w, h = box
    p = e.puzzle
    whole = Piece.whole(e)
    best, best_cell = [whole], _Fit.of(whole, False).cell(w, h)
    for ry, cx in sorted(((ry, cx) for ry in range(1, 5) for cx in range(1, 5)
                          if ry * cx > 1), key=lambda t: (t[0] * t[1], t[0])):
        rows, cols = _spans(p.height, ry), _spans(p.width, cx)
        parts = [Piece(e, r0, r1, c0, c1) for r0, r1 in rows for c0, c1 in cols]
        fits = [_Fit.of(pc, False) for pc in parts]
        cell = min(f.cell(w, h) for f in fits)
        if cell >= max(f.need(False) for f in fits):  # the fewest parts that are legible
            best, best_cell = parts, cell
            break
        if cell > best_cell * 1.25:  # else parts only where they pay: a clearly larger cell
            best, best_cell = parts, cell
    out = [Piece(pc.entry, pc.r0, pc.r1, pc.c0, pc.c1, k, len(best))
           for k, pc in enumerate(best, start=1)]
    return out, min(best_cell, MAX_CELL)


def _grid_for(fits: Sequence[_Fit], box: tuple[float, ...], per_page: int,
              solved: bool) -> tuple[tuple[int, int], float]:
    """A section's slot grid and its one cell. A grid qualifies when SHARE of the section's
    puzzles keep legible clues in its slots; its cell is the largest all of those reach (the
    others get a page of their own at that cell, or parts). Of the grids that qualify, the
    one that takes the fewest pages, and of those the largest cell: a section of one or two
    puzzles is not drawn small to share a page with nothing."""
    grids = SOLUTION_GRIDS if solved else tuple(
        g for g in PUZZLE_GRIDS if g[0] * g[1] <= per_page)
    top = SOLUTION_MAX if solved else MAX_CELL
    best: tuple[int, float, tuple[int, int]] | None = None
    for g in grids:
        w, h = _slot_size(g, box)
        ok = [c for f in fits if (c := min(top, f.cell(w, h))) >= f.need(solved)]
        if ok and (len(ok) >= SHARE * len(fits) or g == (1, 1)):
            pages = -(-len(ok) // (g[0] * g[1])) + len(fits) - len(ok)
            if best is None or (pages, -min(ok)) < (best[0], -best[1]):
                best = (pages, min(ok), g)
    if best is None:
        return grids[-1], max(f.need(solved) for f in fits)  # all in parts
    return best[2], best[1]


def _section_pages(entries: Sequence[BookEntry], box: tuple[float, ...], per_page: int,
                   solved: bool, section: int) -> list[PagePlan]:
    """A section's pages: the puzzles that fit their slot at the section's cell share
    pages, in order; any other gets a page of its own (or, too large for legible clues on
    one page, a page per part)."""
    fits = [_Fit.of(Piece.whole(e), solved) for e in entries]
    grid, cell = _grid_for(fits, box, per_page, solved)
    w, h = _slot_size(grid, box)
    per = grid[0] * grid[1]
    pages: list[PagePlan] = []
    cur: list[Piece] = []

    def flush() -> None:
        if cur:
            pages.append(PagePlan(grid, tuple(cur), cell, section))
            cur.clear()

    for e, f in zip(entries, fits, strict=True):
        if f.cell(w, h) >= cell - 1e-9 and cell >= f.need(solved):
            cur.append(Piece.whole(e))
            if len(cur) == per:
                flush()
            continue
        flush()
        own = min(cell, f.cell(box[2], box[3]))
        if solved or own >= f.need(solved):
            pages.append(PagePlan((1, 1), (Piece.whole(e),), own, section))
        else:
            parts, part_cell = _parts(e, box)
            pages.extend(PagePlan((1, 1), (pc,), part_cell, section) for pc in parts)
    flush()
    return pages


def _plan(entries: Sequence[BookEntry], size: tuple[float, float], per_page: int,
          solved: bool, inside: float) -> list[PagePlan]:
    """The pages of puzzles (or solutions), section by section in the entries' order, for
    pages with an ``inside`` margin of that many mm."""
    box = _box(size, inside)
    pages: list[PagePlan] = []
    start = 0
    for i in range(1, len(entries) + 1):
        if i == len(entries) or section_of(entries[i].puzzle) != \
                section_of(entries[start].puzzle):
            pages += _section_pages(entries[start:i], box, per_page, solved,
                                    section_of(entries[start].puzzle))
            start = i
    return pages


@dataclass(frozen=True)
class Layout:
    """Every page of the book before anything is drawn: the title page, the contents, the
    "How to solve" page, the puzzles (``fronts``), a blank page where the "Solutions"
    divider would fall on a left-hand page, the divider, the solutions (``backs``) and a
    last blank page when that makes the count odd. The page count sets the gutter."""

    fronts: list[PagePlan]
    backs: list[PagePlan]
    contents: int = 1
    #: The inside margin (mm) the pages are planned for: at least KDP's for the page count.
    gutter: float = GUTTERS[0][1] * INCH

    @classmethod
    def of(cls, entries: Sequence[BookEntry], size: tuple[float, float],
           per_page: int = 4) -> Layout:
        """The layout planned for the narrowest gutter its own page count allows: planned
        for a gutter, counted, and planned again for a wider one while the count asks for
        it (a wider gutter only adds pages, so this ends within the table's five rows)."""
        contents = -(-len(entries) // contents_lines(size))
        inside = GUTTERS[0][1] * INCH
        while True:
            lay = cls(_plan(entries, size, per_page, False, inside),
                      _plan(entries, size, per_page, True, inside), contents, inside)
            if gutter(lay.pages) <= inside:
                return lay
            inside = gutter(lay.pages)

    @property
    def lead(self) -> int:
        """Pages before the first puzzle: title, contents, how to solve."""
        return 2 + self.contents

    @property
    def divider(self) -> int:
        """The page number of the "Solutions" divider: always a right-hand (odd) page."""
        after = self.lead + len(self.fronts) + 1
        return after + (after % 2 == 0)

    @property
    def pages(self) -> int:
        """Every page :func:`book` makes, an even count (a printed sheet has two sides)."""
        n = self.divider + len(self.backs)
        return n + n % 2

    def page_of(self, number: int) -> int:
        """The page a puzzle (its first part) is printed on, counted from the title page."""
        for i, plan in enumerate(self.fronts):
            if any(pc.entry.number == number for pc in plan.pieces):
                return self.lead + 1 + i
        raise KeyError(number)

    def solution_page(self, number: int) -> int:
        """The page a puzzle's solution is printed on."""
        for i, plan in enumerate(self.backs):
            if any(pc.entry.number == number for pc in plan.pieces):
                return self.divider + 1 + i
        raise KeyError(number)


def contents_lines(size: tuple[float, float]) -> int:
    """How many puzzles one contents page lists."""
    return max(1, int((_box(size, 0.0)[3] - CONTENTS_HEAD) // CONTENTS_LINE))


def worked_example(entries: Sequence[BookEntry]) -> tuple[Puzzle, int, str]:
    """The "How to solve" page's example: the first of :data:`EXAMPLES` not in the book."""
    from nonoforge.examples import example_path
    from nonoforge.formats import read_file

    keys = {e.puzzle.key for e in entries}
    found = [(read_file(example_path(name))[0], n, title) for name, n, title in EXAMPLES]
    free = next((f for f in found if f[0].key not in keys), None)
    if free is not None:
        return free
    p, n, title = found[0]
    assert p.goal is not None
    return Puzzle.from_grid(Grid(p.goal.cells[:, ::-1].copy())), n, f"{title}, mirrored"


def worked_steps(p: Puzzle) -> str:
    """Two steps on a puzzle in words: what a clue of several numbers asks, and a block
    long enough to cover some cells however it sits (the overlap a first pass finds).

    >>> from nonoforge.puzzle import Grid, Puzzle
    >>> import numpy as np
    >>> steps = worked_steps(Puzzle.from_grid(Grid(np.array([[1, 1, 0, 1], [0, 1, 1, 1]]))))
    >>> print(steps.replace(". ", ".|").replace(": ", ":|").replace("|", chr(10)))
    Row 1's clue 2 1 asks for a block of 2, at least one empty cell, then a block of 1.
    Row 2's clue 3 has 4 cells to sit in:
    however it sits, it covers cells 2 to 3, so those can be filled at once.
    """
    lines = [("Row", i, c, p.width) for i, c in enumerate(p.rows)] + [
        ("Column", j, c, p.height) for j, c in enumerate(p.columns)]
    out = []
    several = next((t for t in lines if len(t[2]) >= 2), None)
    if several:
        kind, i, clue, _ = several
        nums = [b.length for b in clue]
        blocks = ", then a block of ".join(str(n) for n in nums[1:])
        out.append(f"{kind} {i + 1}'s clue {' '.join(map(str, nums))} asks for a block of "
                   f"{nums[0]}, at least one empty cell, then a block of {blocks}.")
    over = [t for t in lines if len(t[2]) == 1 and 2 * t[2][0].length > t[3]]
    overlap = max(over, key=lambda t: 2 * t[2][0].length - t[3]) if over else None
    if overlap:  # the line where the block covers the most cells whichever way it sits
        kind, i, clue, n = overlap
        b = clue[0].length
        cells = (f"cell {b}, so it" if n - b + 1 == b else
                 f"cells {n - b + 1} to {b}, so those")
        out.append(f"{kind} {i + 1}'s clue {b} has {n} cells to sit in: however it sits, it "
                   f"covers {cells} can be filled at once.")
    if not overlap:
        out.append("Start with the longest blocks: they leave the fewest ways to sit.")
    return " ".join(out)


# -- drawing --------------------------------------------------------------------------------


class _Drawer:
    """Draws puzzles and solutions onto the book, collecting warnings."""

    def __init__(self, pdf: _Book, greyscale: bool) -> None:
        self.pdf = pdf
        self.greyscale = greyscale
        self.missing: set[str] = set()
        self.small: list[str] = []

    def text(self, s: str, limit: int = 300) -> str:
        return printable(s, self.missing, limit)

    def fitted(self, s: str, w: float) -> str:
        """``s`` cut with an ellipsis to ``w`` mm in the current font."""
        pdf = self.pdf
        w -= 2 * pdf.c_margin  # a cell pads its text on both sides
        while len(s) > 4 and pdf.get_string_width(s) > w:
            s = s[:-2].rstrip() + "\u2026"
        return s

    def heading(self, pc: Piece, x: float, y: float, w: float, solved: bool) -> None:
        """The line above a puzzle, centred over its box: number and title, which part (a
        puzzle in parts), difficulty, given cells, note. Too long for the box, the
        difficulty goes first (the contents and the first part say it), then the title is
        cut with an ellipsis; the number and the part are never cut."""
        pdf = self.pdf
        e = pc.entry
        part = (f", part {pc.part} of {pc.parts}: rows {pc.r0 + 1}\u2013{pc.r1}, columns "
                f"{pc.c0 + 1}\u2013{pc.c1}" if pc.parts > 1 else "")
        given = 0 if solved else len(_givens_in(pc))
        tail = ""
        if given:  # printed solved: the reader is told they are part of the puzzle
            tail += f"  \u00b7 {given} cell{'s' if given > 1 else ''} given"
        if e.note:
            tail += f"  [{e.note}]"
        grade = f" \u00b7 {difficulty(e.grade)}" if e.grade is not None and not solved else ""
        pdf.set_text_color(0, 0, 0)
        pdf.set_font(FONT, style="B", size=10 if w > 100 else 8.5)
        room = w - 2 * pdf.c_margin
        title = self.text(e.title)
        head = f"{e.number}. {title}{part}{grade}{tail}"
        if pdf.get_string_width(head) > room:
            head = f"{e.number}. {title}{part}{tail}"
        if pdf.get_string_width(head) > room:
            fixed = pdf.get_string_width(f"{e.number}. {part}{tail}\u2026")
            title = self.fitted(title, max(8.0, room - fixed) + 2 * pdf.c_margin)
            head = self.fitted(f"{e.number}. {title}{part}{tail}", w)
        pdf.set_xy(x, y)
        pdf.cell(w, 6, head, align="C")

    def contents(self, entries: Sequence[BookEntry], layout: Layout) -> None:
        """The contents: each puzzle's number, title, size, difficulty and page, as many
        pages as :attr:`Layout.contents` counts."""
        pdf = self.pdf
        per = contents_lines((pdf.w, pdf.h))
        for k in range(layout.contents):
            pdf.add_page()
            x, y, w, _ = pdf.frame()
            pdf.set_text_color(0, 0, 0)
            pdf.set_font(FONT, style="B", size=16)
            pdf.set_xy(x, y)
            pdf.cell(w, 9, "Contents" if k == 0 else "Contents (continued)")
            # columns: number, title, size, difficulty, page (widths in mm)
            cols = (10.0, w - 10 - 18 - 34 - 10, 18.0, 34.0, 10.0)
            ty = y + CONTENTS_HEAD - CONTENTS_LINE
            pdf.set_font(FONT, style="B", size=8)
            self._row(("No.", "Title", "Size", "Difficulty", "Page"), cols, x, ty)
            pdf.set_font(FONT, size=8.5)
            for i, e in enumerate(entries[k * per:(k + 1) * per]):
                p = e.puzzle
                self._row((str(e.number), self.text(e.title), f"{p.width}\u00d7{p.height}",
                           difficulty(e.grade) or "\u2013", str(layout.page_of(e.number))),
                          cols, x, ty + (i + 1) * CONTENTS_LINE)

    def _row(self, cells: Sequence[str], widths: Sequence[float], x: float, y: float) -> None:
        """One contents line; a title too long for its column is cut with an ellipsis."""
        pdf = self.pdf
        for n, (text, cw) in enumerate(zip(cells, widths, strict=True)):
            while len(text) > 2 and pdf.get_string_width(text) > cw - 1.5:
                text = text[:-2].rstrip() + "\u2026"
            pdf.set_xy(x, y)
            pdf.cell(cw, CONTENTS_LINE, text, align="R" if n in (0, 4) else "L")
            x += cw

    def swatch(self, ink: Ink, x: float, y: float, w: float, h: float) -> None:
        pdf = self.pdf
        pdf.set_fill_color(*ink.fill)
        pdf.rect(x, y, w, h, style="F")
        if ink.hatch:
            self.hatch(ink, x, y, w, h)

    def hatch(self, ink: Ink, x: float, y: float, w: float, h: float) -> None:
        pdf = self.pdf
        light = ink.text == (255, 255, 255)
        pdf.set_draw_color(*((200, 200, 200) if light else (60, 60, 60)))
        pdf.set_line_width(max(0.08, min(w, h) * 0.06))
        step = max(0.6, min(w, h) / 3)
        with pdf.rect_clip(x, y, w, h):
            k = -h
            while k < w + h:
                if ink.hatch in "/x":
                    pdf.line(x + k, y + h, x + k + h, y)
                if ink.hatch in "\\x":
                    pdf.line(x + k, y, x + k + h, y + h)
                k += step
            if ink.hatch == "-":
                for t in (0.25, 0.5, 0.75):
                    pdf.line(x, y + h * t, x + w, y + h * t)
            if ink.hatch == "|":
                for t in (0.25, 0.5, 0.75):
                    pdf.line(x + w * t, y, x + w * t, y + h)

    def puzzle(self, pc: Piece, box: tuple[float, ...], cell: float, solved: bool,
               row_h: float | None = None) -> None:
        """A piece centred in ``box`` at ``cell`` mm: its heading, then its clues, grid and
        key (the figure) centred as one block; across the box, and down it as the tallest
        figure of its row (``row_h``) is, so that the figures of a row share their top."""
        x, y, w, h = box
        e = pc.entry
        fit = _Fit.of(pc, solved)
        if cell < fit.need(solved) and not solved:
            self.small.append(f"puzzle {e.number} ({e.puzzle.width}x{e.puzzle.height}) is "
                              f"printed with {cell:.1f} mm cells: its clue digits are under "
                              f"{DIGIT_PT:g} pt")
        fh = row_h if row_h is not None else fit.height_mm(cell, w)
        x0 = x + (w - fit.width * cell) / 2
        y0 = y + max(0.0, (h - fh) / 2)
        self.heading(pc, x, y0, w, solved)
        self.figure(pc, x0 + fit.left * cell, y0 + HEAD + fit.top * cell, cell, solved, w,
                    x + w / 2)

    def figure(self, pc: Piece, gx: float, gy: float, cell: float, solved: bool,
               key_w: float, key_mid: float) -> None:
        """Clues, grid (filled when ``solved``) and key, the grid's corner at (gx, gy)."""
        p = pc.entry.puzzle
        ink = inks(p, self.greyscale)
        fit = _Fit.of(pc, solved)
        if not solved:
            self.clues(pc, ink, gx, gy, cell)
            self.givens(pc, ink, gx, gy, cell)
        grid = pc.entry.answer if solved else None
        if grid is not None:
            cells = grid.cells
            for i in range(pc.r0, pc.r1):
                for j in range(pc.c0, pc.c1):
                    v = int(cells[i, j])
                    if v:
                        self.swatch(ink[v], gx + (j - pc.c0) * cell, gy + (i - pc.r0) * cell,
                                    cell, cell)
        self.rules(pc, gx, gy, cell, fit)
        if fit.key_items:
            self.key(ink, key_mid, gy + (pc.r1 - pc.r0) * cell + 1.5, key_w)

    def clues(self, pc: Piece, ink: list[Ink], gx: float, gy: float, cell: float) -> None:
        """The piece's clue numbers: row clues right-aligned to the grid, column clues
        bottom-aligned, colour ones on a swatch of their colour."""
        from nonoforge.images.render import _Layout

        pdf = self.pdf
        p = pc.entry.puzzle
        lay = _Layout(p, 1, 0)  # the sheets' clue positions, in cells
        for cx, cy, label, col in lay.clue_boxes():
            if cx < lay.gx:  # a row clue
                if not pc.r0 <= cy - lay.gy < pc.r1:
                    continue
                tx, ty = gx + (cx - lay.gx) * cell, gy + (cy - lay.gy - pc.r0) * cell
            else:  # a column clue
                if not pc.c0 <= cx - lay.gx < pc.c1:
                    continue
                tx, ty = gx + (cx - lay.gx - pc.c0) * cell, gy + (cy - lay.gy) * cell
            colour = ink[col] if col and not p.is_bw else ink[0]
            if col and not p.is_bw:
                self.swatch(colour, tx + 0.06 * cell, ty + 0.06 * cell, cell * 0.88,
                            cell * 0.88)
                if colour.hatch:  # a plain patch under the digit keeps it readable
                    pdf.set_fill_color(*colour.fill)
                    pdf.rect(tx + 0.2 * cell, ty + 0.2 * cell, 0.6 * cell, 0.6 * cell, "F")
            pdf.set_text_color(*colour.text)
            share = DIGIT_SHARE if len(label) < 3 else WIDE_SHARE
            pdf.set_font(FONT, size=max(2.0, cell * PT_PER_MM * share))
            pdf.set_xy(tx, ty)
            pdf.cell(cell, cell, label, align="C")

    def givens(self, pc: Piece, ink: list[Ink], gx: float, gy: float, cell: float) -> None:
        """The piece's given cells, printed solved as on the sheets: filled with their ink
        (in greyscale the grey the key names), or crossed when given empty."""
        pdf = self.pdf
        for i, j, k in _givens_in(pc):
            x, y = gx + (j - pc.c0) * cell, gy + (i - pc.r0) * cell
            if k:
                self.swatch(ink[k], x, y, cell, cell)
                continue
            q = cell * 0.25
            pdf.set_draw_color(0, 0, 0)
            pdf.set_line_width(max(0.15, cell * 0.07))
            pdf.line(x + q, y + q, x + cell - q, y + cell - q)
            pdf.line(x + q, y + cell - q, x + cell - q, y + q)

    def rules(self, pc: Piece, gx: float, gy: float, cell: float, fit: _Fit) -> None:
        """Thin lines, a thick one every five cells (counted in the whole puzzle), a frame."""
        pdf = self.pdf
        nr, nc = pc.r1 - pc.r0, pc.c1 - pc.c0
        x1, y1 = gx + nc * cell, gy + nr * cell
        for thick in (False, True):
            pdf.set_draw_color(*((0, 0, 0) if thick else (150, 150, 150)))
            pdf.set_line_width(0.4 if thick else 0.1)
            for i in range(nr + 1):
                if ((pc.r0 + i) % 5 == 0) == thick:
                    pdf.line(gx - fit.left * cell, gy + i * cell, x1, gy + i * cell)
            for j in range(nc + 1):
                if ((pc.c0 + j) % 5 == 0) == thick:
                    pdf.line(gx + j * cell, gy - fit.top * cell, gx + j * cell, y1)
        pdf.rect(gx, gy, nc * cell, nr * cell)

    def key(self, ink: list[Ink], mid: float, y: float, w: float) -> None:
        """The colour key, centred under the grid: each colour's swatch (as printed) and its
        name, in the colours' own order (``a b c d``, ``c2`` before ``c10``) whatever order a
        corpus stored the palette in (a key once read ``a d c b``: issue 37)."""
        pdf = self.pdf
        pdf.set_font(FONT, size=7)
        items = []
        for i in sorted(range(1, len(ink)), key=lambda i: (natural(ink[i].order), i)):
            label = self.fitted(self.text(ink[i].name), w - 6)
            items.append((i, label, 4 + pdf.get_string_width(label)))
        lines: list[list[tuple[int, str, float]]] = [[]]
        for item in items:
            if lines[-1] and sum(t[2] + 3 for t in lines[-1]) + item[2] > w:
                lines.append([])
            lines[-1].append(item)
        for line in lines:
            cx = mid - (sum(t[2] + 3 for t in line) - 3) / 2
            for i, label, tw in line:
                self.swatch(ink[i], cx, y + 0.5, 3, 3)
                pdf.set_draw_color(120, 120, 120)
                pdf.set_line_width(0.1)
                pdf.rect(cx, y + 0.5, 3, 3)
                pdf.set_text_color(0, 0, 0)
                pdf.set_xy(cx + 3.6, y)
                pdf.cell(tw - 3.6, 4, label)
                cx += tw + 3
            y += KEY_LINE

    def title_page(self, entries: Sequence[BookEntry], title: str, greyscale: bool) -> None:
        pdf = self.pdf
        pdf.add_page()
        x, y, w, h = pdf.frame()
        pdf.set_text_color(0, 0, 0)
        pdf.set_font(FONT, style="B", size=24 if pdf.w > 200 else 20)
        pdf.set_xy(x, y + h * 0.3)
        pdf.multi_cell(w, 12, self.text(title), align="C")
        pdf.ln(4)
        pdf.set_font(FONT, size=11)
        grades = sorted({e.grade for e in entries if e.grade is not None})
        span = (f", from {difficulty(grades[0]).split(' (')[0]} to "  # type: ignore[union-attr]
                f"{difficulty(grades[-1]).split(' (')[0]}" if len(grades) > 1 else "")  # type: ignore[union-attr]
        marked = sum(1 for e in entries if e.note)
        given = any(e.puzzle.givens for e in entries)
        pdf.set_x(x)
        pdf.multi_cell(w, 7, f"{len(entries)} puzzles{span}, grouped by size, easiest first "
                       "in each group. Solutions at the back."
                       + ("\nColours are printed as greys, named in each puzzle's key."
                          if greyscale else "")
                       + (f"\n{marked} marked puzzle(s) may have more than one solution: "
                          "the one at the back is one of them." if marked else "")
                       + ("\nCells printed filled or crossed (\u00d7) in a grid are given: "
                          "they are part of the solution." if given else ""), align="C")
        pdf.set_font(FONT, size=8)
        pdf.set_text_color(90, 90, 90)
        pdf.set_xy(x, y + h - 10)
        pdf.cell(w, 5, "Made with nonoforge.", align="C")

    def how_to(self, entries: Sequence[BookEntry]) -> None:
        """The "How to solve" page: the rules in a few lines and a small worked example, a
        real puzzle (:data:`EXAMPLES`) shown with its clues and solved, and two steps on it
        put in words (:func:`worked_steps`)."""
        pdf = self.pdf
        pdf.add_page()
        x, y, w, h = pdf.frame()
        p, number, name = worked_example(entries)
        pdf.set_text_color(0, 0, 0)
        pdf.set_font(FONT, style="B", size=16)
        pdf.set_xy(x, y)
        pdf.cell(w, 9, "How to solve")
        pdf.set_font(FONT, size=9.5 if w > 120 else 8.5)
        pdf.set_xy(x, y + 12)
        pdf.multi_cell(w, 5.2, printable(
            "Fill in cells of the grid to reveal a picture. The numbers beside each row and "
            "above each column give, in order, the lengths of the blocks of filled cells in "
            "that line, with at least one empty cell between two blocks (in a colour puzzle, "
            "blocks of different colours may touch; each number is printed on its colour). "
            "Work line by line: where a block must cover a cell whichever way it sits, fill "
            "it; where no block can reach, mark the cell empty with a dot or a cross. Every "
            "puzzle has one solution (unless marked otherwise), found by reasoning, never by "
            "guessing; it is printed at the back under the puzzle's number.", limit=2000))
        top = pdf.get_y() + 6
        pdf.set_font(FONT, style="B", size=9)
        fit = _Fit.of(Piece.whole(BookEntry(p, 0, "")), False)
        cell = min(6.0, (w - 20 - 2 * RULE) / (fit.width + p.width),
                   (y + h - top - 30) / fit.height)
        pw = (fit.width + p.width) * cell + 20
        left = x + (w - pw) / 2
        example = BookEntry(p, 0, "")
        pdf.set_xy(left, top)
        pdf.cell(fit.width * cell, 5, "The puzzle", align="C")
        pdf.set_xy(left + fit.width * cell + 20, top)
        pdf.cell(p.width * cell, 5, "Solved", align="C")
        gy = top + 7 + fit.top * cell
        self.figure(Piece.whole(example), left + fit.left * cell, gy, cell, False, 0, 0)
        self.figure(Piece.whole(example), left + fit.width * cell + 20, gy, cell, True, 0, 0)
        pdf.set_font(FONT, size=8.5)
        pdf.set_xy(x, gy + p.height * cell + 6)
        pdf.multi_cell(w, 4.6, printable(
            f"{worked_steps(p)} (Example: \"{name}\", webpbn.com puzzle #{number}, by Jan "
            "Wolter.)", limit=2000))


def book(
    entries: Sequence[BookEntry],
    title: str = "nonoforge puzzles",
    opts: BookOptions | None = None,
    warn: Warn | None = None,
) -> bytes:
    """The PDF: title page, contents, how to solve, the puzzles section by section, then
    the solution of every puzzle, numbered alike (:class:`Layout`).

    Every entry must have an answer (its ``solution`` or the puzzle's goal): the caller
    solves puzzles without a stored goal. Warnings (missing glyphs, parts, small digits) go
    to ``warn``.
    """
    opts = opts or BookOptions()
    opts.check()
    size = opts.size
    unsolved = [e.number for e in entries if e.answer is None]
    if unsolved:
        raise UsageError(f"no solution known for puzzle(s) {unsolved[:5]}: solve them first")
    layout = Layout.of(entries, size, opts.per_page)
    pdf = _Book(safe_text(title, 200), size)
    pdf.gutter = layout.gutter
    draw = _Drawer(pdf, opts.greyscale)
    pdf.book_title = draw.text(safe_text(title, 80))
    draw.title_page(entries, title, opts.greyscale)
    draw.contents(entries, layout)
    draw.how_to(entries)
    for plan in layout.fronts:
        _draw_page(draw, plan, solved=False)
    while pdf.page_no() < layout.divider - 1:  # the divider opens on a right-hand page
        pdf.add_page()
        pdf.blank.add(pdf.page_no())
    pdf.add_page()
    x, y, w, h = pdf.frame()
    pdf.set_font(FONT, style="B", size=18)
    pdf.set_text_color(0, 0, 0)
    pdf.set_xy(x, y + h * 0.4)
    pdf.cell(w, 10, "Solutions", align="C")
    for plan in layout.backs:
        _draw_page(draw, plan, solved=True)
    while pdf.page_no() < layout.pages:
        pdf.add_page()
        pdf.blank.add(pdf.page_no())
    assert pdf.page_no() == layout.pages, (pdf.page_no(), layout.pages)
    if warn:
        _warn(warn, draw, layout, entries)
    return bytes(pdf.output())


def _draw_page(draw: _Drawer, plan: PagePlan, solved: bool) -> None:
    """A page of pieces: each centred across its slot; the figures of one row share their
    top, the row's tallest centred in its height."""
    draw.pdf.add_page()
    slots = _slots(plan.grid, draw.pdf.frame(), len(plan.pieces))
    cols = plan.grid[0]
    tall = [_Fit.of(pc, solved).height_mm(plan.cell, slots[k][2])
            for k, pc in enumerate(plan.pieces)]
    for k, (pc, slot) in enumerate(zip(plan.pieces, slots, strict=True)):
        row = tall[k - k % cols:k - k % cols + cols]
        draw.puzzle(pc, slot, plan.cell, solved, max(row))


def _warn(warn: Warn, draw: _Drawer, layout: Layout, entries: Sequence[BookEntry]) -> None:
    if draw.missing:
        shown = "".join(sorted(draw.missing)[:12])
        warn(f"the book's font has no glyph for {len(draw.missing)} character(s) "
             f"({shown}): printed as \ufffd")
    for e in entries:
        parts = max((pc.parts for plan in layout.fronts for pc in plan.pieces
                     if pc.entry is e), default=1)
        if parts > 1:
            warn(f"puzzle {e.number} ({e.puzzle.width}x{e.puzzle.height}) is printed in "
                 f"{parts} parts, one a page, for legible clues")
    for msg in dict.fromkeys(draw.small):  # each once, in order
        warn(msg)


# -- the cover ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CoverSize:
    """A full-wrap cover's geometry (mm): back, spine and front side by side, with bleed
    on every outer edge."""

    trim: tuple[float, float]
    spine: float
    bleed: float = BLEED

    @property
    def width(self) -> float:
        return 2 * self.trim[0] + self.spine + 2 * self.bleed

    @property
    def height(self) -> float:
        return self.trim[1] + 2 * self.bleed

    @property
    def spine_x(self) -> float:
        """Where the spine starts, from the left edge of the sheet."""
        return self.bleed + self.trim[0]

    @property
    def front_x(self) -> float:
        return self.spine_x + self.spine


def cover_size(pages: int, opts: BookOptions) -> CoverSize:
    """The cover of a book of ``pages`` pages: KDP's formula, ``2 x trim + spine + 2 x
    0.125 in`` wide and ``trim + 2 x 0.125 in`` high."""
    return CoverSize(opts.size, spine_width(pages, opts.paper))


#: The cover's colours: a dark ground, light type, a light panel behind the picture.
COVER_GROUND, COVER_TEXT, COVER_PANEL = (28, 48, 84), (255, 255, 255), (244, 241, 232)


def cover(
    entries: Sequence[BookEntry], title: str, pages: int, opts: BookOptions | None = None,
    warn: Warn | None = None,
) -> bytes:
    """The book's full-wrap cover as one PDF page: the back (left), the spine (its title
    only from 79 pages, as KDP asks), the front (right) with the title and a solved
    puzzle as its picture. The ground runs into the bleed; text keeps 0.25 in from every
    trim edge and 0.0625 in from the spine's folds; the back's bottom right corner is
    left clear for KDP's barcode (2 x 1.2 in)."""
    opts = opts or BookOptions()
    opts.check()
    geo = cover_size(pages, opts)
    pdf = FPDF(unit="mm", format=(geo.width, geo.height))
    from nonoforge.fonts import BOLD, REGULAR

    pdf.add_font(FONT, "", str(REGULAR))
    pdf.add_font(FONT, "B", str(BOLD))
    pdf.set_auto_page_break(False)
    pdf.set_title(safe_text(title, 200))
    pdf.set_creator("nonoforge")
    pdf.add_page()
    draw = _Drawer(pdf, opts.greyscale)  # type: ignore[arg-type]
    pdf.set_fill_color(*COVER_GROUND)
    pdf.rect(0, 0, geo.width, geo.height, style="F")
    _cover_front(draw, entries, title, geo)
    _cover_spine(draw, title, pages, geo)
    _cover_back(draw, entries, title, geo)
    if warn and pages < MIN_PAGES:
        warn(f"the book has {pages} pages: KDP prints paperbacks of {MIN_PAGES} pages or more")
    if warn and draw.missing:
        warn(f"the cover's font has no glyph for {len(draw.missing)} character(s): "
             "printed as \ufffd")
    return bytes(pdf.output())


def _cover_picture(entries: Sequence[BookEntry]) -> BookEntry | None:
    """The solved puzzle shown on the front: the most colourful, then the largest, of
    those up to 40 cells a side."""
    fit = [e for e in entries if e.answer is not None and max(e.puzzle.width,
                                                              e.puzzle.height) <= 40]
    if not fit:
        return None
    return max(fit, key=lambda e: (e.puzzle.ncolors, e.puzzle.width * e.puzzle.height,
                                   -e.number))


def _cover_front(draw: _Drawer, entries: Sequence[BookEntry], title: str,
                 geo: CoverSize) -> None:
    pdf = draw.pdf
    x, w = geo.front_x + SAFE, geo.trim[0] - 2 * SAFE
    top = geo.bleed + SAFE
    pdf.set_text_color(*COVER_TEXT)
    pdf.set_font(FONT, style="B", size=30 if w > 150 else 24)
    pdf.set_xy(x, top + 8)
    pdf.multi_cell(w, 13, draw.text(title), align="C")
    pdf.set_font(FONT, size=13)
    pdf.set_x(x)
    pdf.multi_cell(w, 8, f"{len(entries)} picture logic puzzles", align="C")
    pic = _cover_picture(entries)
    if pic is None:
        return
    p = pic.puzzle
    room_top = pdf.get_y() + 8
    room = geo.bleed + geo.trim[1] - SAFE - 12 - room_top
    cell = min((w - 16) / p.width, (room - 16) / p.height, 10.0)
    pw, ph = p.width * cell, p.height * cell
    px = x + (w - pw) / 2
    py = room_top + (room - ph) / 2
    pdf.set_fill_color(*COVER_PANEL)
    pdf.rect(px - 6, py - 6, pw + 12, ph + 12, style="F")
    draw.figure(Piece.whole(pic), px, py, cell, True, 0, 0)


def _cover_spine(draw: _Drawer, title: str, pages: int, geo: CoverSize) -> None:
    """The title down the spine, when the book is thick enough for text (79 pages)."""
    if pages < SPINE_TEXT_PAGES:
        return
    pdf = draw.pdf
    room = geo.spine - 2 * SPINE_SAFE
    size = min(14.0, room * PT_PER_MM * 0.7)
    pdf.set_font(FONT, style="B", size=size)
    pdf.set_text_color(*COVER_TEXT)
    text = draw.fitted(draw.text(title), geo.trim[1] - 2 * SAFE)
    cx, cy = geo.spine_x + geo.spine / 2, geo.height / 2
    with pdf.rotation(-90, cx, cy):  # read top to bottom, as books printed in English do
        tw = pdf.get_string_width(text)
        pdf.set_xy(cx - tw / 2, cy - size / PT_PER_MM / 2)
        pdf.cell(tw, size / PT_PER_MM, text, align="C")


def _cover_back(draw: _Drawer, entries: Sequence[BookEntry], title: str,
                geo: CoverSize) -> None:
    pdf = draw.pdf
    x, w = geo.bleed + SAFE, geo.trim[0] - 2 * SAFE
    grades = sorted({e.grade for e in entries if e.grade is not None})
    words = [str(difficulty(g)).split(" (")[0] for g in grades]
    sizes = sorted({section_of(e.puzzle) for e in entries})
    pdf.set_text_color(*COVER_TEXT)
    pdf.set_font(FONT, style="B", size=14)
    pdf.set_xy(x, geo.bleed + SAFE + 10)
    pdf.multi_cell(w, 8, draw.text(title), align="L")
    pdf.ln(3)
    pdf.set_font(FONT, size=10.5)
    pdf.set_x(x)
    text = (f"{len(entries)} nonograms (paint by numbers): follow the numbers to fill in "
            "the grid and a picture appears. Solutions are at the back.")
    if words:
        text += f"\n\nDifficulty: {words[0]}" + (f" to {words[-1]}." if len(words) > 1 else ".")
    if sizes:
        text += (f"\nSizes: {section_name(sizes[0]).lower()}"
                 + (f" to {section_name(sizes[-1]).lower()}." if len(sizes) > 1 else "."))
    pdf.multi_cell(w, 6, text, align="L")
