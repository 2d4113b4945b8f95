"""A printable puzzle book: puzzles first, solutions at the back (fpdf2).

Pure: puzzles in, PDF bytes out. Small puzzles share a page (up to four), large ones get a
page each; every puzzle carries its number, title and grade; grids have a thicker rule every
five cells, and colour clues are printed in their colour on a tinted background where the
colour is pale.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fpdf import FPDF

from nonoforge.puzzle import Clue, Puzzle

PAGE_W, PAGE_H, MARGIN = 210.0, 297.0, 12.0
PT_PER_MM = 72 / 25.4


@dataclass(frozen=True)
class BookEntry:
    """One puzzle of the book and what is printed above it."""

    puzzle: Puzzle
    number: int
    title: str
    grade: int | None = None


def _per_page(e: BookEntry) -> int:
    return 4 if max(e.puzzle.width, e.puzzle.height) <= 15 else 1


def _luma(rgb: tuple[int, int, int]) -> float:
    r, g, b = rgb
    return 0.299 * r + 0.587 * g + 0.114 * b


def _clue_tokens(clue: Clue) -> list[tuple[str, int]]:
    return [(str(b.length), b.color) for b in clue] or [("0", 0)]


class _Book(FPDF):
    def __init__(self, title: str) -> None:
        super().__init__(unit="mm", format="A4")
        self.set_auto_page_break(False)
        self.set_title(title)
        self.set_creator("nonoforge")
        self.book_title = title

    def footer(self) -> None:
        self.set_y(-9)
        self.set_font("helvetica", size=8)
        self.set_text_color(120, 120, 120)
        self.cell(0, 5, f"{self.book_title} - page {self.page_no()}", align="C")


def _draw(pdf: _Book, e: BookEntry, x: float, y: float, w: float, h: float, solved: bool) -> None:
    p = e.puzzle
    head = f"{e.number}. {e.title}"
    if e.grade is not None:
        head += f"  (grade {e.grade})"
    if solved:
        head = f"Solution {head}"
    pdf.set_text_color(0, 0, 0)
    pdf.set_font("helvetica", style="B", size=11 if w > 120 else 9)
    pdf.text(x, y + 4, head[:90])
    y += 7
    h -= 7
    rows = [_clue_tokens(c) for c in p.rows]
    cols = [_clue_tokens(c) for c in p.columns]
    depth = max(len(t) for t in cols)
    span = max(len(t) for t in rows)
    if solved:
        depth = span = 0
    # cell size: the grid plus clue margins (each clue token ~ one cell wide) must fit
    cell = min(w / (p.width + span * 1.1), h / (p.height + depth), 8.0)
    font_pt = max(3.0, min(9.0, cell * PT_PER_MM * 0.62))
    gx = x + span * 1.1 * cell
    gy = y + depth * cell
    palette = p.palette
    pdf.set_font("helvetica", size=font_pt)

    def token(tx: float, ty: float, text: str, color: int) -> None:
        if color:
            rgb = palette[color].rgb
            if _luma(rgb) > 200:  # pale ink: print dark text on a swatch of the colour
                pdf.set_fill_color(*rgb)
                pdf.rect(tx, ty, cell * 1.1 if ty >= gy else cell, cell, style="F")
                pdf.set_text_color(0, 0, 0)
            else:
                pdf.set_text_color(*rgb)
        else:
            pdf.set_text_color(0, 0, 0)
        pdf.set_xy(tx, ty)
        pdf.cell(cell * (1.1 if ty >= gy else 1.0), cell, text, align="C")

    if not solved:
        for j, toks in enumerate(cols):
            for k, (txt, c) in enumerate(toks):
                token(gx + j * cell, gy - (len(toks) - k) * cell, txt, c)
        for i, toks in enumerate(rows):
            for k, (txt, c) in enumerate(toks):
                token(gx - (len(toks) - k) * 1.1 * cell, gy + i * cell, txt, c)
    if solved and p.goal is not None:
        cells = p.goal.cells
        for i in range(p.height):
            for j in range(p.width):
                v = int(cells[i, j])
                if v:
                    pdf.set_fill_color(*palette[v].rgb)
                    pdf.rect(gx + j * cell, gy + i * cell, cell, cell, style="F")
    pdf.set_draw_color(150, 150, 150)
    pdf.set_line_width(0.1)
    for i in range(p.height + 1):
        if i % 5:
            pdf.line(gx, gy + i * cell, gx + p.width * cell, gy + i * cell)
    for j in range(p.width + 1):
        if j % 5:
            pdf.line(gx + j * cell, gy, gx + j * cell, gy + p.height * cell)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.45)
    for i in range(0, p.height + 1, 5):
        pdf.line(gx, gy + i * cell, gx + p.width * cell, gy + i * cell)
    for j in range(0, p.width + 1, 5):
        pdf.line(gx + j * cell, gy, gx + j * cell, gy + p.height * cell)
    pdf.rect(gx, gy, p.width * cell, p.height * cell)


def _layout(pdf: _Book, entries: Sequence[BookEntry], solved: bool) -> None:
    i = 0
    while i < len(entries):
        pdf.add_page()
        n = _per_page(entries[i])
        group = [entries[i]]
        while n > 1 and len(group) < n and i + len(group) < len(entries) \
                and _per_page(entries[i + len(group)]) > 1:
            group.append(entries[i + len(group)])
        i += len(group)
        w = PAGE_W - 2 * MARGIN
        h = PAGE_H - 2 * MARGIN - 6
        if n == 1:
            _draw(pdf, group[0], MARGIN, MARGIN, w, h, solved)
            continue
        for k, e in enumerate(group):
            cx = MARGIN + (k % 2) * (w / 2 + 2)
            cy = MARGIN + (k // 2) * (h / 2 + 2)
            _draw(pdf, e, cx, cy, w / 2 - 4, h / 2 - 4, solved)


def book(entries: Sequence[BookEntry], title: str = "nonoforge puzzles") -> bytes:
    """The PDF: a title page, the puzzles, then the solutions of those whose goal is known."""
    pdf = _Book(title)
    pdf.add_page()
    pdf.set_font("helvetica", style="B", size=24)
    pdf.set_xy(MARGIN, 80)
    pdf.multi_cell(PAGE_W - 2 * MARGIN, 12, title, align="C")
    pdf.set_font("helvetica", size=12)
    pdf.set_x(MARGIN)
    pdf.multi_cell(PAGE_W - 2 * MARGIN, 8, f"{len(entries)} puzzles, easiest first. "
                   "Solutions at the back. Made with nonoforge.", align="C")
    _layout(pdf, entries, solved=False)
    solved = [e for e in entries if e.puzzle.goal is not None]
    if solved:
        _layout(pdf, solved, solved=True)
    return bytes(pdf.output())


def page_count(entries: Sequence[BookEntry]) -> int:
    """How many pages :func:`book` makes for these entries (title page included)."""

    def pages(es: Sequence[BookEntry]) -> int:
        n, i = 0, 0
        while i < len(es):
            per = _per_page(es[i])
            take = 1
            while per > 1 and take < per and i + take < len(es) and _per_page(es[i + take]) > 1:
                take += 1
            i += take
            n += 1
        return n

    return 1 + pages(entries) + pages([e for e in entries if e.puzzle.goal is not None])
