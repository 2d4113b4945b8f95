"""A print-ready puzzle book: puzzles first, every solution at the back (fpdf2).

Pure: puzzles in, PDF bytes out. What print services ask for, and what readers need:

- page sizes A4, US letter (8.5x11 in) and travel (6x9 in), with mirrored margins whose
  inside (gutter) grows with the page count as KDP requires (0.375 in up to 150 pages,
  0.5 in to 300, 0.625 in to 500, then 0.75 and 0.875 in);
- all text in DejaVu Sans, embedded (subset) from the copy shipped in
  :mod:`nonoforge.fonts`, so any Unicode title prints; a character the font lacks
  (Chinese, most emoji) is replaced by U+FFFD with one warning, never an error;
- colour clues on a swatch of their colour with a contrasting digit, as the PNG/SVG sheets
  draw them (:mod:`nonoforge.images.render` decides where clues go and which ink reads),
  and a colour key under each colour puzzle; ``greyscale`` maps colours to distinct grey
  levels (and hatching beyond five colours), named in the key;
- the clue area sized to the longest clue; a puzzle too large for a legible cell on one
  page is printed in parts, one a page, each with its rows' and columns' clues (and smaller,
  with a warning, only when 4x4 parts are not enough); nothing is ever clipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from fpdf import FPDF

from nonoforge.errors import UsageError
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.titles import difficulty
from nonoforge.util import safe_text

RGB = tuple[int, int, int]
Warn = Callable[[str], None]

INCH = 25.4
#: Page sizes in millimetres, portrait.
PAGE_SIZES: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "letter": (8.5 * INCH, 11 * INCH),
    "6x9": (6 * INCH, 9 * INCH),
}
#: (up to this many pages, inside margin in inches): KDP's table for paperbacks.
GUTTERS = ((150, 0.375), (300, 0.5), (500, 0.625), (700, 0.75), (10**9, 0.875))
OUTSIDE = 0.375 * INCH
TOP, BOTTOM = 12.0, 14.0
PT_PER_MM = 72 / INCH
#: Cells smaller than this (mm) are hard to fill in with a pencil: a warning says so.
MIN_CELL = 3.0
#: Puzzles are not drawn larger than this (mm per cell).
MAX_CELL = 8.0
#: A page holds 4 or 2 puzzles when each still gets at least this cell (mm).
SHARE_CELL = 4.0
#: Solutions are only looked at: they share pages down to this cell (mm).
SOLUTION_CELL = 2.0
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
    """The inside margin (mm) for a book of ``pages`` pages."""
    for upto, inches in GUTTERS:
        if pages <= upto:
            return inches * INCH
    raise AssertionError("unreachable")


def page_size(page: str) -> tuple[float, float]:
    """``a4``, ``letter`` or ``6x9`` in millimetres."""
    try:
        return PAGE_SIZES[page.lower()]
    except KeyError:
        raise UsageError(
            f"--page: unknown page size {page!r} (choose from {', '.join(PAGE_SIZES)})"
        ) from None


# -- text -----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _covered() -> frozenset[int]:
    """Code points DejaVu Sans draws."""
    from fontTools.ttLib import TTFont

    from nonoforge.fonts import REGULAR

    return frozenset(TTFont(str(REGULAR), lazy=True).getBestCmap())


def printable(text: str, missing: set[str] | None = None) -> str:
    """``text`` made safe, with every character the font lacks replaced by U+FFFD
    (collected in ``missing``)."""
    have = _covered()
    out = []
    for ch in safe_text(text, 300):
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
    """How one colour index is printed: fill, hatching, digit colour and its key name."""

    fill: RGB
    hatch: str
    text: RGB
    name: str


def inks(p: Puzzle, greyscale: bool) -> list[Ink]:
    """One :class:`Ink` per palette index (0, the background, is paper)."""
    from nonoforge.images.render import text_color

    pal = p.palette
    out = [Ink((255, 255, 255), "", (0, 0, 0), pal[0].name)]
    if not greyscale or pal.is_bw:
        for c in list(pal)[1:]:
            out.append(Ink(c.rgb, "", text_color(c.rgb), c.name))
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
        name = f"{safe_text(pal[i].name, 40)} ({what})"
        shade[i] = Ink((g, g, g), hatch, text_color((g, g, g)), name)
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


# -- drawing --------------------------------------------------------------------------------


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

    def frame(self) -> tuple[float, float, float, float]:
        """The printable box of the current page: mirrored margins, gutter inside."""
        pw, ph = self.w, self.h
        left = self.gutter if self.page_no() % 2 else OUTSIDE  # odd pages are on the right
        return left, TOP, pw - self.gutter - OUTSIDE, ph - TOP - BOTTOM

    def footer(self) -> None:
        if self.page_no() == 1:
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
    page at a legible cell (rows ``r0:r1`` and columns ``c0:c1``, with their clues)."""

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
    """A piece's size in cells, clue area included: the grid starts at (left, top)."""

    left: int
    top: int
    width: int
    height: int
    key_items: int

    @classmethod
    def of(cls, pc: Piece, solved: bool) -> _Fit:
        p = pc.entry.puzzle
        rows, cols = p.rows[pc.r0:pc.r1], p.columns[pc.c0:pc.c1]
        left = 0 if solved else max(1, max(len(r) for r in rows))
        top = 0 if solved else max(1, max(len(c) for c in cols))
        return cls(left, top, left + pc.c1 - pc.c0, top + pc.r1 - pc.r0,
                   0 if p.is_bw else p.ncolors)

    def cell(self, w: float, h: float) -> float:
        """The cell (mm) that fits this piece, its heading and key into a ``w`` x ``h`` box."""
        key_lines = -(-self.key_items // max(1, int(w // 32))) if self.key_items else 0
        room = h - HEAD - key_lines * KEY_LINE - (1.5 if key_lines else 0)
        return max(0.1, min(w / self.width, room / self.height, MAX_CELL))


def _givens_in(pc: Piece) -> list[tuple[int, int, int]]:
    """The givens of a piece's puzzle that lie in the piece."""
    return [(i, j, k) for i, j, k in pc.entry.puzzle.givens
            if pc.r0 <= i < pc.r1 and pc.c0 <= j < pc.c1]


def _slots(n: int, box: tuple[float, float, float, float]) -> list[tuple[float, ...]]:
    x, y, w, h = box
    if n == 4:
        return [(x + (k % 2) * (w / 2 + 2), y + (k // 2) * (h / 2 + 2), w / 2 - 2, h / 2 - 2)
                for k in range(4)]
    if n == 2:
        return [(x, y + k * (h / 2 + 2), w, h / 2 - 2) for k in range(2)]
    return [(x, y, w, h)]


def _narrowest(size: tuple[float, float]) -> tuple[float, float, float, float]:
    """The printable box of the widest-gutter page: plans never depend on the gutter, so
    the page count (which sets the gutter) cannot change under them."""
    return (0.0, 0.0, size[0] - GUTTERS[-1][1] * INCH - OUTSIDE, size[1] - TOP - BOTTOM)


def _per_page(pc: Piece, size: tuple[float, float], solved: bool) -> int:
    """4, 2 or 1 pieces per page: the most that still leave each a comfortable cell."""
    if pc.parts > 1:
        return 1
    fit = _Fit.of(pc, solved)
    for n in (4, 2):
        _, _, w, h = _slots(n, _narrowest(size))[0]
        if fit.cell(w, h) >= (SOLUTION_CELL if solved else SHARE_CELL):
            return n
    return 1


def _spans(n: int, k: int) -> list[tuple[int, int]]:
    """``n`` lines cut into ``k`` parts, cuts on multiples of five where possible."""
    step = -(-n // k)
    step = -(-step // 5) * 5 if step > 5 else step
    return [(a, min(n, a + step)) for a in range(0, n, step)]


def _pieces(e: BookEntry, size: tuple[float, float], solved: bool) -> list[Piece]:
    """The puzzle whole, or (puzzles only, not solutions) in the fewest parts that each
    keep a legible cell; when even 4x4 parts cannot, in the parts that give the largest
    cell (drawn small, with a warning)."""
    whole = Piece.whole(e)
    _, _, w, h = _narrowest(size)
    if solved or _Fit.of(whole, False).cell(w, h) >= MIN_CELL:
        return [whole]
    p = e.puzzle
    best, best_cell = [whole], _Fit.of(whole, False).cell(w, h)
    for ry, cx in sorted(((ry, cx) for ry in range(1, 5) for cx in range(1, 5)
                          if ry * cx > 1), key=lambda t: (t[0] * t[1], t[0])):
        rows, cols = _spans(p.height, ry), _spans(p.width, cx)
        parts = [Piece(e, r0, r1, c0, c1) for r0, r1 in rows for c0, c1 in cols]
        cell = min(_Fit.of(pc, False).cell(w, h) for pc in parts)
        if cell > best_cell * 1.25:  # parts only where they pay: a clearly larger cell
            best, best_cell = parts, cell
        if cell >= MIN_CELL:
            break
    return [Piece(pc.entry, pc.r0, pc.r1, pc.c0, pc.c1, k, len(best))
            for k, pc in enumerate(best, start=1)]


def _plan(
    entries: Sequence[BookEntry], size: tuple[float, float], solved: bool
) -> list[list[Piece]]:
    """Pieces grouped into pages, in order."""
    todo = [pc for e in entries for pc in _pieces(e, size, solved)]
    pages: list[list[Piece]] = []
    i = 0
    while i < len(todo):
        n = _per_page(todo[i], size, solved)
        group = [todo[i]]
        while len(group) < n and i + len(group) < len(todo) \
                and _per_page(todo[i + len(group)], size, solved) >= n:
            group.append(todo[i + len(group)])
        pages.append(group)
        i += len(group)
    return pages


@dataclass(frozen=True)
class Layout:
    """Which pieces go on which page: the puzzles (``fronts``), then the solutions
    (``backs``). The page count it gives sets the gutter before anything is drawn."""

    fronts: list[list[Piece]]
    backs: list[list[Piece]]

    contents: int = 1

    @classmethod
    def of(cls, entries: Sequence[BookEntry], size: tuple[float, float]) -> Layout:
        return cls(_plan(entries, size, solved=False), _plan(entries, size, solved=True),
                   -(-len(entries) // contents_lines(size)))

    @property
    def pages(self) -> int:
        """Every page :func:`book` makes: the title page, the contents, the puzzles, and,
        when there are solutions, a divider and the solutions."""
        return 1 + self.contents + len(self.fronts) + (1 + len(self.backs) if self.backs else 0)

    def page_of(self, number: int) -> int:
        """The page a puzzle (its first part) is printed on, counted from the title page."""
        for i, group in enumerate(self.fronts):
            if any(pc.entry.number == number for pc in group):
                return 2 + self.contents + i
        raise KeyError(number)


def contents_lines(size: tuple[float, float]) -> int:
    """How many puzzles one contents page lists."""
    return max(1, int((_narrowest(size)[3] - CONTENTS_HEAD) // CONTENTS_LINE))


class _Drawer:
    """Draws puzzles and solutions onto the book, collecting warnings."""

    def __init__(self, pdf: _Book, greyscale: bool) -> None:
        self.pdf = pdf
        self.greyscale = greyscale
        self.missing: set[str] = set()
        self.small: list[str] = []

    def text(self, s: str) -> str:
        return printable(s, self.missing)

    def heading(self, pc: Piece, x: float, y: float, w: float, solved: bool) -> None:
        pdf = self.pdf
        e = pc.entry
        head = f"{e.number}. {e.title}"
        if e.grade is not None:
            head += f" \u00b7 {difficulty(e.grade)}"
        given = 0 if solved else len(_givens_in(pc))
        if given:  # printed solved: the reader is told they are part of the puzzle
            head += f"  \u00b7 {given} cell{'s' if given > 1 else ''} given"
        if e.note:
            head += f"  [{e.note}]"
        if pc.parts > 1:
            head = (f"{e.number}. part {pc.part} of {pc.parts}: rows {pc.r0 + 1}\u2013{pc.r1}, "
                    f"columns {pc.c0 + 1}\u2013{pc.c1}  \u00b7  {head[len(str(e.number)) + 2:]}")
        pdf.set_text_color(0, 0, 0)
        pdf.set_font(FONT, style="B", size=10 if w > 100 else 8.5)
        head = self.text(head)
        while len(head) > 4 and pdf.get_string_width(head) > w:
            head = head[:-2].rstrip() + "\u2026"
        pdf.text(x, y + 4.5, head)

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

    def puzzle(self, pc: Piece, box: tuple[float, ...], solved: bool) -> None:
        from nonoforge.images.render import _Layout

        pdf = self.pdf
        x, y, w, h = box
        e = pc.entry
        p = e.puzzle
        self.heading(pc, x, y, w, solved)
        fit = _Fit.of(pc, solved)
        cell = fit.cell(w, h)
        if cell < MIN_CELL and not solved:
            self.small.append(f"puzzle {e.number} ({p.width}x{p.height}) is printed with "
                              f"{cell:.1f} mm cells, under the legible {MIN_CELL:.0f} mm")
        ink = inks(p, self.greyscale)
        gx = x + fit.left * cell
        gy = y + HEAD + fit.top * cell
        if not solved:
            lay = _Layout(p, 1, 0)  # the sheets' clue positions, in cells
            for cx, cy, label, col in lay.clue_boxes():
                if cx < lay.gx:  # a row clue: right-aligned to the grid
                    if not pc.r0 <= cy - lay.gy < pc.r1:
                        continue
                    tx, ty = gx + (cx - lay.gx) * cell, gy + (cy - lay.gy - pc.r0) * cell
                else:  # a column clue: bottom-aligned to the grid
                    if not pc.c0 <= cx - lay.gx < pc.c1:
                        continue
                    tx, ty = gx + (cx - lay.gx - pc.c0) * cell, gy + (cy - lay.gy) * cell
                colour = ink[col] if col and not p.is_bw else ink[0]
                if col and not p.is_bw:
                    self.swatch(colour, tx + 0.12 * cell / 2, ty + 0.12 * cell / 2,
                                cell * 0.88, cell * 0.88)
                    if colour.hatch:  # a plain patch under the digit keeps it readable
                        pdf.set_fill_color(*colour.fill)
                        pdf.rect(tx + 0.2 * cell, ty + 0.2 * cell, 0.6 * cell, 0.6 * cell, "F")
                pdf.set_text_color(*colour.text)
                size = cell * PT_PER_MM * (0.62 if len(label) < 3 else 0.45)
                pdf.set_font(FONT, size=max(2.0, size))
                pdf.set_xy(tx, ty)
                pdf.cell(cell, cell, label, align="C")
            self.givens(pc, ink, gx, gy, cell)
        grid = e.answer if solved else None
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
            self.key(p, ink, x, gy + (pc.r1 - pc.r0) * cell + 1.5, w)

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

    def key(self, p: Puzzle, ink: list[Ink], x: float, y: float, w: float) -> None:
        """The colour key: each colour's swatch (as printed) and its name."""
        pdf = self.pdf
        pdf.set_font(FONT, size=6.5)
        cx = x
        # in the colours' own order (a b c d), not the palette's: a corpus stores palettes
        # in a canonical order, and a key once read ``a d c b`` (issue 37)
        for i in sorted(range(1, len(ink)), key=lambda i: (natural(ink[i].name), i)):
            label = self.text(ink[i].name)
            tw = min(pdf.get_string_width(label), w - 6)
            if cx > x and cx + 4 + tw > x + w:
                cx, y = x, y + KEY_LINE
            self.swatch(ink[i], cx, y + 0.5, 3, 3)
            pdf.set_draw_color(120, 120, 120)
            pdf.set_line_width(0.1)
            pdf.rect(cx, y + 0.5, 3, 3)
            pdf.set_text_color(0, 0, 0)
            pdf.set_xy(cx + 3.6, y)
            pdf.cell(tw, 4, label)
            cx += 4 + tw + 3


def book(
    entries: Sequence[BookEntry],
    title: str = "nonoforge puzzles",
    *,
    page: str = "a4",
    greyscale: bool = False,
    warn: Warn | None = None,
) -> bytes:
    """The PDF: a title page, the puzzles, then the solution of every puzzle.

    Every entry must have an answer (its ``solution`` or the puzzle's goal): the caller
    solves puzzles without a stored goal. Warnings (missing glyphs, tiny cells) go to
    ``warn``.
    """
    size = page_size(page)
    unsolved = [e.number for e in entries if e.answer is None]
    if unsolved:
        raise UsageError(f"no solution known for puzzle(s) {unsolved[:5]}: solve them first")
    layout = Layout.of(entries, size)
    fronts, backs = layout.fronts, layout.backs
    pdf = _Book(safe_text(title, 200), size)
    pdf.gutter = gutter(layout.pages)
    draw = _Drawer(pdf, greyscale)
    pdf.book_title = draw.text(safe_text(title, 80))
    pdf.add_page()
    x, y, w, h = pdf.frame()
    pdf.set_font(FONT, style="B", size=22 if size[0] > 200 else 18)
    pdf.set_xy(x, y + h * 0.3)
    pdf.multi_cell(w, 11, draw.text(title), align="C")
    pdf.set_font(FONT, size=11)
    pdf.set_x(x)
    marked = sum(1 for e in entries if e.note)
    given = any(e.puzzle.givens for e in entries)
    pdf.multi_cell(w, 7, f"{len(entries)} puzzles, easiest first. Solutions at the back."
                   + ("\nColours are printed as greys, named in each puzzle's key."
                      if greyscale else "")
                   + (f"\n{marked} marked puzzle(s) may have more than one solution: "
                      "the one at the back is one of them." if marked else "")
                   + ("\nCells printed filled or crossed (\u00d7) in a grid are given: "
                      "they are part of the solution." if given else "")
                   + "\nMade with nonoforge.", align="C")
    draw.contents(entries, layout)
    for group in fronts:
        pdf.add_page()
        n = _per_page(group[0], size, False)
        for pc, slot in zip(group, _slots(n, pdf.frame()), strict=False):
            draw.puzzle(pc, slot, solved=False)
    if backs:
        pdf.add_page()
        x, y, w, h = pdf.frame()
        pdf.set_font(FONT, style="B", size=18)
        pdf.set_text_color(0, 0, 0)
        pdf.set_xy(x, y + h * 0.4)
        pdf.cell(w, 10, "Solutions", align="C")
    for group in backs:
        pdf.add_page()
        n = _per_page(group[0], size, True)
        for pc, slot in zip(group, _slots(n, pdf.frame()), strict=False):
            draw.puzzle(pc, slot, solved=True)
    for e in entries:
        parts = max((pc.parts for g in fronts for pc in g if pc.entry is e), default=1)
        if parts > 1:
            draw.small.append(f"puzzle {e.number} ({e.puzzle.width}x{e.puzzle.height}) is "
                              f"printed in {parts} parts, one a page, for legible cells")
    if warn:
        if draw.missing:
            shown = "".join(sorted(draw.missing)[:12])
            warn(f"the book's font has no glyph for {len(draw.missing)} character(s) "
                 f"({shown}): printed as \ufffd")
        for msg in dict.fromkeys(draw.small):  # each once, in order
            warn(msg)
    return bytes(pdf.output())

