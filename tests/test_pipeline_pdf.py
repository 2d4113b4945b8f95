"""The print-ready book, checked in a real PDF renderer (pdfium): embedded fonts, page sizes,
mirrored margins, colour clues on swatches, greyscale, any title, solutions at the back."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from nonoforge.errors import UsageError
from nonoforge.formats import read_file
from nonoforge.pipeline.pdf import (
    DIGIT_PT,
    INCH,
    BookEntry,
    BookOptions,
    Layout,
    book,
    cover,
    cover_size,
    gutter,
    inks,
    page_size,
    section_of,
    spine_width,
)
from nonoforge.puzzle import Grid, Palette, Puzzle

MM = 72 / 25.4  # PDF points per millimetre
#: The first puzzle page, from 0: after the title page, the contents and how to solve.
FIRST = 3


def entries() -> list[BookEntry]:
    rng = np.random.default_rng(5)
    out = []
    for i, (w, h, c) in enumerate([(10, 10, 1), (12, 8, 3), (5, 5, 2), (30, 25, 1), (8, 8, 1)]):
        g = rng.integers(0, c + 1, (h, w))
        g[0, 0] = 1
        out.append(BookEntry(Puzzle.from_grid(Grid(g)), i + 1, f"Puzzle {i + 1}", 1 + i % 5))
    return out


def open_pdf(data: bytes, tmp_path, name: str = "book.pdf") -> pdfium.PdfDocument:
    assert data[:5] == b"%PDF-"
    path = tmp_path / name
    path.write_bytes(data)
    return pdfium.PdfDocument(str(path))


def page_text(doc: pdfium.PdfDocument, i: int) -> str:
    return doc[i].get_textpage().get_text_range()


def fonts_of(doc: pdfium.PdfDocument) -> set[tuple[str, bool]]:
    """(font name, embedded?) of every text object on every page, as pdfium loads them."""
    found = set()
    for page in doc:
        for obj in page.get_objects():
            if obj.type != pdfium_c.FPDF_PAGEOBJ_TEXT:
                continue
            font = pdfium_c.FPDFTextObj_GetFont(obj.raw)
            buf = ctypes.create_string_buffer(256)
            n = pdfium_c.FPDFFont_GetBaseFontName(font, buf, 256)
            name = buf.raw[: max(0, n - 1)].decode("latin-1")
            found.add((name, bool(pdfium_c.FPDFFont_GetIsEmbedded(font))))
    return found


def pixels(doc: pdfium.PdfDocument, i: int, scale: float = 1.0) -> np.ndarray:
    return np.asarray(doc[i].render(scale=scale).to_pil().convert("RGB")).astype(int)


def test_every_font_is_embedded_and_is_dejavu(tmp_path) -> None:
    data = book(entries(), "Test book")
    doc = open_pdf(data, tmp_path)
    fonts = fonts_of(doc)
    assert fonts, "no text objects found"
    assert all(embedded for _, embedded in fonts), fonts
    assert {re.sub(r"^[A-Z]{6}\+", "", name) for name, _ in fonts} == {
        "DejaVuSansBook", "DejaVuSansBold"}
    # and in the file itself: TrueType programs, no unembedded core font
    assert data.count(b"/FontFile2") >= 2
    assert b"/Helvetica" not in data


@pytest.mark.parametrize(("page", "inches"), [("a4", (8.27, 11.69)), ("letter", (8.5, 11)),
                                                ("6x9", (6, 9)), ("7x10", (7, 10))])
def test_page_size_per_option(tmp_path, page: str, inches: tuple[float, float]) -> None:
    doc = open_pdf(book(entries(), "Sizes", BookOptions(page)), tmp_path)
    for i in range(len(doc)):
        w, h = doc[i].get_size()
        assert abs(w - inches[0] * 72) < 1.5 and abs(h - inches[1] * 72) < 1.5


def test_pages_and_solutions_at_the_back(tmp_path) -> None:
    es = entries()
    doc = open_pdf(book(es, "Test book"), tmp_path)
    assert len(doc) == Layout.of(es, page_size("a4")).pages  # the count the gutter is set by
    text = [page_text(doc, i) for i in range(len(doc))]
    assert "Solutions at the back" in " ".join(text[0].split())
    divider = next(i for i, t in enumerate(text) if t.split()[:1] == ["Solutions"])
    assert divider % 2 == 0  # a right-hand page (the first page is 0)
    fronts, backs = text[FIRST:divider], text[divider + 1:]
    for e in es:  # every puzzle once in front, once at the back, with its grade
        assert sum(f"{e.number}. {e.title}" in t for t in fronts) == 1
        assert sum(f"{e.number}. {e.title}" in t for t in backs) == 1
    assert "Easy (grade 1)" in text[FIRST]
    # a solution page is filled in: far more ink than the empty grids in front
    ink = [(pixels(doc, i, 0.5).sum(axis=2) < 300).mean() for i in range(len(doc))]
    assert max(ink[divider + 1:]) > 1.5 * max(ink[FIRST:divider])


def test_an_entry_without_any_answer_is_refused() -> None:
    e = entries()[0]
    with pytest.raises(UsageError, match="no solution known"):
        book([BookEntry(e.puzzle.replace(goal=None), 1, "x")])


def test_a_stored_solution_is_printed_when_the_puzzle_has_no_goal(tmp_path) -> None:
    e = entries()[2]
    solved = BookEntry(e.puzzle.replace(goal=None), 1, "Solved by us", solution=e.puzzle.goal)
    doc = open_pdf(book([solved], "x"), tmp_path)
    assert "Solved by us" in page_text(doc, len(doc) - 1)


def test_mirrored_margins_grow_with_the_page_count(tmp_path) -> None:
    assert [round(gutter(n) / INCH, 3) for n in (24, 150, 151, 300, 301, 500, 501)] == [
        0.375, 0.375, 0.5, 0.5, 0.625, 0.625, 0.75]
    # 160 big puzzles, one a page: over 150 pages, so a 0.5 in gutter, on the inside edge
    big = [e for e in entries() if e.puzzle.width == 30][0]
    es = [BookEntry(big.puzzle, n, big.title) for n in range(1, 161)]
    assert 150 < Layout.of(es, page_size("a4")).pages <= 300
    doc = open_pdf(book(es, "Margins"), tmp_path)
    w_pt = doc[1].get_size()[0]

    def ink_span(i: int) -> tuple[float, float]:
        cols = np.nonzero((pixels(doc, i).sum(axis=2) < 300).any(axis=0))[0]
        return cols[0] / MM, (w_pt - cols[-1]) / MM

    left2, right2 = ink_span(1)  # page 2: a left-hand page, inside on the right
    left3, right3 = ink_span(2)  # page 3: a right-hand page, inside on the left
    assert left3 >= 0.5 * INCH - 0.3 and right2 >= 0.5 * INCH - 0.3  # the gutters
    assert 0.375 * INCH - 0.3 <= left2 < 0.5 * INCH - 1  # outside margins
    # the same drawing moves by the gutter's extra width from one side to the other
    assert abs((left3 - left2) - 0.125 * INCH) < 0.5


def test_colour_clues_on_swatches_with_contrasting_digits_and_a_key(tmp_path) -> None:
    pal = Palette.of(("white", "#ffffff"), ("green", "#a6d388"), ("navy", "#101060"))
    g = np.array([[1, 1, 0, 2], [2, 0, 1, 1], [1, 2, 2, 0]])
    p = Puzzle.from_grid(Grid(g), palette=pal)
    doc = open_pdf(book([BookEntry(p, 1, "Colours")], "Colours"), tmp_path)
    img = pixels(doc, FIRST, 2.0)
    green = (abs(img - np.array([0xa6, 0xd3, 0x88])).sum(axis=2) < 12).sum()
    navy = (abs(img - np.array([0x10, 0x10, 0x60])).sum(axis=2) < 12).sum()
    assert green > 200 and navy > 200  # swatches, not thin coloured digits
    # white digits on the dark swatch: light pixels inside navy regions' bounding boxes
    text = page_text(doc, FIRST)
    assert "green" in text and "navy" in text  # the key names the colours
    ink = inks(p, greyscale=False)
    assert ink[2].text == (255, 255, 255) and ink[1].text == (0, 0, 0)


def test_greyscale_uses_distinct_greys_named_in_the_key(tmp_path) -> None:
    colours = [("white", "#ffffff"), ("red", "#e02020"), ("green", "#20c020"),
               ("blue", "#2020e0"), ("yellow", "#f0f020")]
    p = Puzzle.from_grid(Grid(np.array([[1, 2, 3, 4], [4, 3, 2, 1], [1, 0, 3, 0]])),
                         palette=Palette.of(*colours))
    doc = open_pdf(book([BookEntry(p, 1, "Grey")], "Grey", BookOptions(greyscale=True)), tmp_path)
    for i in range(len(doc)):
        img = pixels(doc, i, 1.0)
        chroma = img.max(axis=2) - img.min(axis=2)
        assert chroma.max() <= 8, f"page {i + 1} has colour"
    ink = inks(p, greyscale=True)
    greys = [k.fill for k in ink[1:]]
    assert len(set(greys)) == 4 and all(r == g == b for r, g, b in greys)
    levels = sorted(r for r, _, _ in greys)
    # issue 37: at least 20 % apart, none lighter than 25 % grey (16 % vanished on paper)
    assert min(b - a for a, b in zip(levels, levels[1:], strict=False)) >= 0.2 * 255
    assert max(levels) <= 0.75 * 255
    text = page_text(doc, FIRST)
    assert all(name in text for name, _ in colours[1:]) and "grey" in text
    # many colours: hatching keeps them apart where grey levels run out
    many = Palette.of(("white", "#fff"), *[(f"c{i}", f"#{i:02x}{i * 20:02x}80")
                                           for i in range(1, 10)])
    styles = {(k.fill, k.hatch) for k in inks(Puzzle.from_grid(
        Grid(np.arange(1, 10).reshape(3, 3)), palette=many), greyscale=True)[1:]}
    assert len(styles) == 9


@pytest.mark.parametrize("greyscale", [False, True])
def test_the_colour_key_lists_colours_in_their_order(tmp_path, greyscale: bool) -> None:
    """A corpus hands palettes back in its own order (generated colours a..d came back
    b a d c): the key still reads a b c d, each with its swatch (issue 37)."""
    pal = Palette.of(("white", "#ffffff"), ("ink-b", "#d03030"), ("ink-a", "#30a030"),
                     ("ink-d", "#3030d0"), ("ink-c", "#e0c020"))
    p = Puzzle.from_grid(Grid(np.array([[1, 2, 3, 4], [4, 3, 2, 1], [1, 0, 3, 0]])),
                         palette=pal)
    doc = open_pdf(book([BookEntry(p, 1, "Key")], "K", BookOptions(greyscale=greyscale)), tmp_path)
    text = page_text(doc, FIRST)
    # named by what a reader sees (ink-a is green, b red, c yellow, d blue), in a b c d order
    at = [text.index(name) for name in ("green", "red", "yellow", "blue")]
    assert at == sorted(at), text


@pytest.mark.parametrize("title", ["Кошка на крыше", "猫 🐈 emoji 😀", "bad \ud800 \x1b[31m"])
def test_any_title_prints_without_error(tmp_path, title: str) -> None:
    warnings: list[str] = []
    e = entries()[0]
    data = book([BookEntry(e.puzzle, 1, title)], title, warn=warnings.append)
    doc = open_pdf(data, tmp_path)
    text = page_text(doc, 0) + page_text(doc, FIRST)
    if title.startswith("Кошка"):
        assert "Кошка на крыше" in text and not warnings  # Cyrillic prints as itself
    if "猫" in title:
        assert any("no glyph" in w for w in warnings)  # falls back, says so once
        assert "emoji" in text


def inked_box(doc: pdfium.PdfDocument, i: int) -> tuple[int, int, int, int, int, int]:
    img = pixels(doc, i, 2.0)
    dark = np.nonzero(img.sum(axis=2) < 200)
    h, w = img.shape[:2]
    return dark[1].min(), dark[0].min(), dark[1].max(), dark[0].max(), w, h


def test_a_puzzle_too_large_for_a_page_is_printed_in_parts_never_clipped(tmp_path) -> None:
    rng = np.random.default_rng(1)  # a picture of 5x5 blocks: clues of up to 10 numbers
    blocks = (rng.random((12, 20)) < 0.5).astype(int)
    p = Puzzle.from_grid(Grid(np.kron(blocks, np.ones((5, 5), dtype=int))[:59, :99]))
    warnings: list[str] = []
    doc = open_pdf(book([BookEntry(p, 1, "Huge")], "Huge", BookOptions("6x9"),
                        warn=warnings.append), tmp_path)
    assert any("99x59" in w and "parts" in w for w in warnings), warnings
    heads = [t.splitlines()[0] for i in range(1, len(doc)) if (t := page_text(doc, i))]
    parts = [m.groups() for t in heads
             if (m := re.match(r"1\. .*part \d+ of \d+: rows (\d+)\D(\d+), columns (\d+)\D(\d+)",
                               t))]
    assert len(parts) > 1
    covered = np.zeros((59, 99), dtype=int)  # the parts tile the grid exactly once
    for r0, r1, c0, c1 in parts:
        covered[int(r0) - 1:int(r1), int(c0) - 1:int(c1)] += 1
    assert (covered == 1).all()
    for i in range(1, len(parts) + 1):  # each part inside its page, clear of the edges
        x0, y0, x1, y1, w, h = inked_box(doc, i)
        assert x0 > 0.3 * INCH * MM * 2 and x1 < w - 0.3 * INCH * MM * 2 and y1 < h - 20 * MM


def test_what_parts_cannot_fit_is_printed_small_with_a_warning(tmp_path) -> None:
    # a row clue of 60 blocks needs 60 cells of clue area whatever the parts
    g = np.zeros((4, 120), dtype=int)
    g[0, ::2] = 1
    g[1:, :3] = 1
    p = Puzzle.from_grid(Grid(g))
    warnings: list[str] = []
    doc = open_pdf(book([BookEntry(p, 1, "Wide")], "Wide", BookOptions("6x9"),
                        warn=warnings.append), tmp_path)
    assert any("120x4" in w and "mm cells" in w for w in warnings), warnings
    x0, y0, x1, y1, w, h = inked_box(doc, FIRST)
    assert x0 > 0.3 * INCH * MM * 2 and x1 < w - 0.3 * INCH * MM * 2


# -- givens -----------------------------------------------------------------------------------


def longest_runs(dark: np.ndarray) -> np.ndarray:
    """The longest run of True in each row of ``dark``."""
    out = np.zeros(dark.shape[0], dtype=int)
    for r, row in enumerate(dark):
        edges = np.diff(np.concatenate(([0], row.astype(int), [0])))
        starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
        out[r] = (ends - starts).max() if starts.size else 0
    return out


def grid_of(img: np.ndarray, w: int, h: int) -> tuple[float, float, float]:
    """(x, y, cell) in pixels of the one puzzle grid on a page: its frame's left and top are
    the leftmost and topmost long black lines (text and grey thin rules have no long runs)."""
    dark = img.sum(axis=2) < 200
    down, across = longest_runs(dark.T), longest_runs(dark)
    xs = np.nonzero(down >= 0.9 * down.max())[0]
    ys = np.nonzero(across >= 0.9 * across.max())[0]
    # the right and bottom edges: the last long lines, grid-high and grid-wide
    right = np.nonzero(down >= 0.5 * down.max())[0].max()
    cell = (right - xs.min()) / w
    assert abs((np.nonzero(across >= (w - 0.5) * cell)[0].max() - ys.min()) / h - cell) < 1.5
    return xs.min() + 1, ys.min() + 1, cell


GIVEN_PALETTE = Palette.of(("white", "#ffffff"), ("red", "#d03030"), ("navy", "#102060"),
                           ("yellow", "#f0e040"))
GIVEN_GRID = np.array([[1, 1, 0, 2, 2, 0], [1, 3, 3, 0, 2, 1], [0, 3, 2, 2, 0, 1],
                       [2, 0, 1, 1, 3, 3], [2, 2, 0, 1, 0, 3]])
GIVENS = [(0, 0, 1), (0, 2, 0), (1, 2, 3), (2, 3, 2), (4, 2, 0)]


@pytest.mark.parametrize("greyscale", [False, True])
def test_givens_are_printed_solved_on_the_puzzle_page_only(tmp_path, greyscale: bool) -> None:
    """Each given is printed in its cell: filled with its ink (greyscale: the grey the key
    names) or crossed when given empty; the heading says how many, the title page what they
    are; other cells stay paper and the solution pages are those of the puzzle without them."""
    plain = Puzzle.from_grid(Grid(GIVEN_GRID), palette=GIVEN_PALETTE, meta=None)
    p = plain.replace(givens=GIVENS)
    doc = open_pdf(book([BookEntry(p, 1, "Givens", 2)], "G", BookOptions(greyscale=greyscale)),
                   tmp_path)
    bare = open_pdf(book([BookEntry(plain, 1, "Givens", 2)], "G", BookOptions(greyscale=greyscale)),
                    tmp_path, "bare.pdf")
    assert len(doc) == len(bare) == 6  # title, contents, how to, puzzle, divider, solution
    assert "given" in page_text(doc, 0) and "given" not in page_text(bare, 0)
    assert "1. Givens \u00b7 Medium (grade 2) \u00b7 5 cells given" in page_text(doc, FIRST)
    assert "given" not in page_text(doc, FIRST + 2)
    assert page_text(doc, FIRST + 1).split()[:1] == ["Solutions"]
    img = pixels(doc, FIRST, 2.0)
    x0, y0, cell = grid_of(pixels(bare, FIRST, 2.0), p.width, p.height)
    assert (x0, y0, cell) == grid_of(img, p.width, p.height)  # same place, with or without

    def at(i: int, j: int, dx: float = 0.5, dy: float = 0.5) -> np.ndarray:
        return img[int(y0 + (i + dy) * cell), int(x0 + (j + dx) * cell)]

    ink = inks(p, greyscale)
    given = {(i, j): k for i, j, k in GIVENS}
    for i in range(p.height):
        for j in range(p.width):
            k = given.get((i, j))
            if k:  # filled with its ink, edge to edge (grid lines aside)
                for dx, dy in ((0.5, 0.5), (0.25, 0.3), (0.8, 0.7)):
                    assert abs(at(i, j, dx, dy) - ink[k].fill).max() <= 12, (i, j)
            elif k == 0:  # crossed: ink where the strokes cross, paper between the arms
                assert at(i, j).sum() < 150, (i, j)
                assert (at(i, j, 0.5, 0.15) > 240).all() and (at(i, j, 0.15, 0.5) > 240).all()
            else:
                assert (at(i, j) > 240).all(), (i, j)
    if greyscale:
        assert (img.max(axis=2) - img.min(axis=2)).max() <= 8
    assert (pixels(doc, FIRST + 2) == pixels(bare, FIRST + 2)).all()  # the solutions, unchanged


def test_a_black_and_white_puzzle_in_parts_prints_each_given_on_its_part(tmp_path) -> None:
    rng = np.random.default_rng(1)  # as in the parts test: printed in parts on 6x9
    blocks = (rng.random((12, 20)) < 0.5).astype(int)
    g = np.kron(blocks, np.ones((5, 5), dtype=int))[:59, :99]
    givens = [(0, 0, int(g[0, 0])), (30, 50, int(g[30, 50])), (58, 98, int(g[58, 98])),
              (12, 70, int(g[12, 70]))]
    p = Puzzle.from_grid(Grid(g)).replace(givens=givens)
    doc = open_pdf(book([BookEntry(p, 1, "Huge")], "Huge", BookOptions("6x9")), tmp_path)
    counted = 0
    for i in range(1, len(doc)):
        head = (page_text(doc, i).splitlines() or [""])[0]
        m = re.match(r"1\. .*part \d+ of \d+: rows (\d+)\D(\d+), columns (\d+)\D(\d+)", head)
        if not m:
            continue
        r0, r1, c0, c1 = (int(v) for v in m.groups())
        inside = [(r, c) for r, c, _ in givens if r0 - 1 <= r < r1 and c0 - 1 <= c < c1]
        assert (f"\u00b7 {len(inside)} cell" in head) == bool(inside), head
        counted += len(inside)
    assert counted == len(givens)


# -- layout a typesetter accepts (issue 37) ---------------------------------------------------

EXAMPLES = Path(__file__).parent.parent / "nonoforge" / "examples" / "puzzles"


def real(name: str) -> Puzzle:
    """A bundled puzzle from Jan Wolter's survey set (webpbn), goal included."""
    return read_file(EXAMPLES / f"{name}.non")[0]


def random_entries(sizes: list[tuple[int, int]], seed: int = 3) -> list[BookEntry]:
    rng = np.random.default_rng(seed)
    out = []
    for n, (w, h) in enumerate(sizes, start=1):
        g = (rng.random((h, w)) < 0.55).astype(int)
        g[0, 0] = 1
        out.append(BookEntry(Puzzle.from_grid(Grid(g)), n, f"R{n}", 1 + n % 5))
    return out


@pytest.mark.parametrize("trim", ["letter", "6x9"])
def test_each_section_has_one_cell_size_and_groups_puzzles_by_size(trim: str) -> None:
    sizes = [(10, 10)] * 7 + [(15, 12)] * 5 + [(20, 20)] * 4 + [(30, 25)] * 3
    es = random_entries(sizes)
    layout = Layout.of(es, page_size(trim))
    cells: dict[int, set[float]] = {}
    for plan in layout.fronts:
        assert len({section_of(pc.entry.puzzle) for pc in plan.pieces}) == 1
        assert plan.grid in ((2, 2), (1, 2), (1, 1))
        assert len(plan.pieces) <= plan.grid[0] * plan.grid[1]
        if plan.pieces[0].parts == 1:  # a puzzle in parts has its own cell
            cells.setdefault(plan.section, set()).add(round(plan.cell, 6))
    assert all(len(c) == 1 for c in cells.values()), cells
    assert {plan.section for plan in layout.fronts} == {0, 1, 2, 4}
    # small puzzles share pages: 10x10s four to a page (one whose clues would be under 7 pt
    # so gets a page of its own)
    assert max(len(plan.pieces) for plan in layout.fronts if plan.section == 0) == 4
    numbers = [pc.entry.number for plan in layout.fronts for pc in plan.pieces]
    assert numbers == sorted(numbers)  # in order: sections follow the book's numbering


def test_per_page_caps_how_many_puzzles_share_a_page(tmp_path) -> None:
    es = random_entries([(8, 8)] * 5)
    doc = open_pdf(book(es, "One a page", BookOptions("letter", per_page=1)), tmp_path)
    heads = [sum(bool(re.match(r"\d+\. R\d", ln)) for ln in page_text(doc, i).splitlines())
             for i in range(FIRST, FIRST + 5)]
    assert heads == [1, 1, 1, 1, 1]
    with pytest.raises(UsageError, match="per-page"):
        BookOptions(per_page=3).check()


def digit_points(doc: pdfium.PdfDocument, i: int) -> list[float]:
    tp = doc[i].get_textpage()
    return [pdfium_c.FPDFText_GetFontSize(tp, k) for k in range(tp.count_chars())
            if 48 <= pdfium_c.FPDFText_GetUnicode(tp, k) <= 57]


@pytest.mark.parametrize("trim", ["6x9", "a4"])
def test_clue_digits_are_never_under_7_points(tmp_path, trim: str) -> None:
    """Real large puzzles (webpbn #529 45x45, #803 50x45, #1611 55x60) and small ones: every
    digit on every puzzle page is at least 7 pt; what cannot fit so is printed in parts."""
    ps = [real("dancer"), real("edge"), real("cat"), real("swing"), real("light"),
          real("merka")]
    es = [BookEntry(p, n, f"P{n}") for n, p in enumerate(ps, start=1)]
    warnings: list[str] = []
    doc = open_pdf(book(es, "Digits", BookOptions(trim), warn=warnings.append), tmp_path)
    divider = next(i for i in range(len(doc)) if page_text(doc, i).split()[:1] == ["Solutions"])
    sizes = [s for i in range(FIRST, divider) for s in digit_points(doc, i)]
    assert sizes and min(sizes) >= DIGIT_PT - 0.01, min(sizes)
    assert not any("under" in w for w in warnings), warnings
    if trim == "6x9":
        assert any("parts" in w for w in warnings)


def ink_edges(doc: pdfium.PdfDocument, i: int) -> tuple[float, float, float, float]:
    """Distance (mm) of the page's ink from the left, right, top edges, and its width; the
    footer (page number) aside."""
    img = pixels(doc, i, 2.0).sum(axis=2)
    h = img.shape[0]
    body = img[: int(h - 14 * MM * 2)]
    cols = np.nonzero((body < 600).any(axis=0))[0]
    rows = np.nonzero((body < 600).any(axis=1))[0]
    px = 1 / (MM * 2)
    return cols[0] * px, (img.shape[1] - 1 - cols[-1]) * px, rows[0] * px, img.shape[1] * px


@pytest.mark.parametrize("trim", ["letter", "7x10"])
def test_each_puzzle_is_centred_between_its_margins_on_both_sides(tmp_path, trim: str) -> None:
    """One puzzle a page, on right- and left-hand pages: the figure (clues, grid, heading)
    sits in the middle of the printable box, which has the gutter on the inside."""
    es = [BookEntry(real("cat"), 1, "Cat"), BookEntry(real("skid"), 2, "Skid"),
          BookEntry(real("edge"), 3, "Edge")]
    opts = BookOptions(trim, per_page=1)
    doc = open_pdf(book(es, "Centred", opts), tmp_path)
    pages = Layout.of(es, opts.size, 1).pages
    g = gutter(pages)
    for i in range(FIRST, FIRST + 3):
        left, right, _, width = ink_edges(doc, i)
        right_hand = (i + 1) % 2 == 1
        inside, outside = (left, right) if right_hand else (right, left)
        # centred in the box: the ink's slack is split evenly, the gutter added inside
        assert abs((inside - g) - (outside - 0.375 * INCH)) < 1.0, (i, inside, outside)
        assert inside >= g - 0.2 and outside >= 0.25 * INCH


def test_the_gutter_is_on_the_inside_of_every_page(tmp_path) -> None:
    es = random_entries([(25, 30)] * 6)
    opts = BookOptions("6x9", per_page=1)
    doc = open_pdf(book(es, "Gutter", opts), tmp_path)
    g = gutter(len(doc))
    assert len(doc) % 2 == 0
    for i in range(1, len(doc)):
        text = page_text(doc, i)
        if not text.strip():
            continue  # a blank page (before the divider, or the last)
        left, right, _, _ = ink_edges(doc, i)
        inside, outside = (left, right) if (i + 1) % 2 == 1 else (right, left)
        assert inside >= g - 0.2 and outside >= 0.25 * INCH - 0.2, (i + 1, inside, outside)


def test_how_to_solve_shows_a_real_worked_example(tmp_path) -> None:
    doc = open_pdf(book(entries()[:2], "How"), tmp_path)
    text = page_text(doc, FIRST - 1)
    assert text.startswith("How to solve") and "webpbn.com puzzle #1" in text
    assert "The puzzle" in text and "Solved" in text
    dancer = real("dancer")  # its clues, as printed: row 2 is "2 1", column 3 is "7"
    assert "2\r\n1" in text or "2 1" in text
    assert len(dancer.rows) == 10
    assert not text.rstrip().endswith("\u2026")  # nothing cut short


def test_the_key_names_colours_as_a_reader_sees_them(tmp_path) -> None:
    pal = Palette.of(("white", "#ffffff"), ("a", "#a6d388"), ("b", "#101060"))
    p = Puzzle.from_grid(Grid(np.array([[1, 1, 0, 2], [2, 0, 1, 1], [1, 2, 2, 0]])), palette=pal)
    doc = open_pdf(book([BookEntry(p, 1, "Names")], "N"), tmp_path)
    text = page_text(doc, FIRST)
    assert "light green" in text and "navy" in text


# -- the cover --------------------------------------------------------------------------------


@pytest.mark.parametrize(("pages", "paper", "spine_in"), [
    (200, "white", 0.4504), (200, "cream", 0.5), (120, "colour", 0.28164), (24, "white", 0.054048)])
def test_the_spine_is_as_wide_as_kdp_computes(pages: int, paper: str, spine_in: float) -> None:
    assert abs(spine_width(pages, paper) / INCH - spine_in) < 1e-6
    geo = cover_size(pages, BookOptions("6x9", paper=paper))
    assert abs(geo.width / INCH - (12 + spine_in + 0.25)) < 1e-6
    assert abs(geo.height / INCH - 9.25) < 1e-6


@pytest.mark.parametrize("pages", [40, 120])
def test_the_cover_is_one_wrap_with_bleed_and_a_spine_title_when_thick(tmp_path,
                                                                     pages: int) -> None:
    es = entries()
    opts = BookOptions("letter")
    warnings: list[str] = []
    doc = open_pdf(cover(es, "Cover test", pages, opts, warn=warnings.append), tmp_path)
    assert len(doc) == 1
    w, h = doc[0].get_size()
    assert abs(w / 72 - (17 + pages * 0.002252 + 0.25)) < 0.01
    assert abs(h / 72 - 11.25) < 0.01
    text = page_text(doc, 0)
    assert text.count("Cover test") == (3 if pages >= 79 else 2)  # back, front, spine
    img = pixels(doc, 0, 0.5)
    assert (abs(img[1, 1] - np.array([28, 48, 84])) < 4).all()  # the ground runs into the bleed
    assert all(embedded for _, embedded in fonts_of(doc))
    assert not warnings


def test_the_worked_example_never_gives_a_puzzle_of_the_book_away(tmp_path) -> None:
    """Dancer (webpbn #1) is the example unless the book holds it: then Edge (#23), with
    the steps put in words from its own clues."""
    with_dancer = [BookEntry(real("dancer"), 1, "Dancer"), *entries()[:1]]
    doc = open_pdf(book(with_dancer, "Has dancer"), tmp_path)
    text = " ".join(page_text(doc, FIRST - 1).split())
    assert "webpbn.com puzzle #23" in text and "#1," not in text
    assert "clue" in text and "longest blocks" in text  # Edge has no block over half a line


def test_nothing_is_transparent_in_the_book_or_its_cover() -> None:
    """No soft mask, blend mode, opacity or transparency group anywhere: printers flatten
    transparency, sometimes badly (the graphics state dictionaries are where PDF keeps it)."""
    pal = Palette.of(("white", "#ffffff"), ("red", "#d03030"), ("navy", "#102060"))
    colour = Puzzle.from_grid(Grid(np.array([[1, 2, 0], [2, 1, 1]])), palette=pal)
    es = [*entries(), BookEntry(colour, 6, "Colour")]
    for data in (book(es, "Flat"), book(es, "Flat", BookOptions(greyscale=True)),
                 cover(es, "Flat", 120)):
        for sign in (b"/ExtGState", b"/SMask", b"/CA ", b"/ca ", b"/Transparency", b"/BM "):
            assert sign not in data, sign


def test_a_book_holding_both_examples_shows_dancer_mirrored(tmp_path) -> None:
    both = [BookEntry(real("dancer"), 1, "Dancer"), BookEntry(real("edge"), 2, "Edge")]
    doc = open_pdf(book(both, "Both"), tmp_path)
    text = " ".join(page_text(doc, FIRST - 1).split())
    assert '"Dancer, mirrored", webpbn.com puzzle #1' in text
