"""Rendering: sheets (PNG, SVG), solution and edits pictures, solve GIFs, terminal previews."""

from __future__ import annotations

import io

import defusedxml.ElementTree as ET
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from nonoforge.images.render import (
    INK,
    MARK,
    PAPER,
    edits_png,
    gif_stream,
    png_bytes,
    preview,
    sheet_png,
    sheet_svg,
    solution_png,
    solve_gif,
    state_cells,
    text_color,
)
from nonoforge.puzzle import Grid, Palette, Puzzle
from nonoforge.solver import solve

BW = Puzzle.from_grid(Grid.from_rows([
    "..##......", ".####.....", "######....", ".####..#..", "..##..###.",
    "......#.#.", "..........", "#########.", "#.......#.", "#########.",
]))  # fmt: skip
COLOUR = Puzzle.from_grid(
    Grid.from_rows(["aab.", "abb.", ".bcc", "..c."], ".abc"),
    Palette.of(("white", "#ffffff"), ("red", "#d01010"), ("navy", "#101050"),
               ("yellow", "#f0e040")),
)


def reopen(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def test_sheet_png_is_a_valid_png_with_thick_rules() -> None:
    im = sheet_png(BW, cell=20, margin=10)
    back = reopen(png_bytes(im))
    assert back.format == "PNG" and back.size == im.size
    left = max(len(r) for r in BW.rows) * 20 + 10
    top = max(len(c) for c in BW.columns) * 20 + 10
    assert im.size == (left + 10 * 20 + 10, top + 10 * 20 + 10)
    y = top + 2 * 20 + 10  # the middle of row 3
    assert im.getpixel((left, y)) == INK  # frame
    assert im.getpixel((left + 5 * 20, y)) == INK  # the fifth-cell rule
    assert im.getpixel((left + 3 * 20, y)) != INK  # an ordinary thin rule
    assert im.getpixel((left + 3 * 20 + 10, y)) == PAPER  # an empty cell


def test_colour_sheet_has_swatches_and_readable_text() -> None:
    im = sheet_png(COLOUR, cell=24)
    colours = {c for _, c in im.getcolors(1 << 16)}
    assert (0xD0, 0x10, 0x10) in colours and (0x10, 0x10, 0x50) in colours
    assert text_color((0x10, 0x10, 0x50)) == PAPER
    assert text_color((0xF0, 0xE0, 0x40)) == INK
    assert text_color((255, 255, 255)) == INK


def test_svg_parses_and_holds_every_clue() -> None:
    for p in (BW, COLOUR):
        svg = sheet_svg(p.replace(meta=p.meta.merged(p.meta)))
        root = ET.fromstring(svg)
        ns = "{http://www.w3.org/2000/svg}"
        texts = [t.text for t in root.iter(f"{ns}text")]
        blocks = sum(max(1, len(c)) for _, _, c in p.lines())
        assert len(texts) == blocks
        expected = [str(b.length) for _, _, c in p.lines() for b in c]
        expected += ["0"] * sum(1 for _, _, c in p.lines() if not c)
        assert sorted(texts) == sorted(expected)


def test_svg_title_is_escaped() -> None:
    from nonoforge.puzzle import Meta

    p = BW.replace(meta=Meta(title="<cat & dog>"))
    root = ET.fromstring(sheet_svg(p))
    assert root.find("{http://www.w3.org/2000/svg}title").text == "<cat & dog>"


def test_solution_and_edits_pictures() -> None:
    g = COLOUR.goal
    im = solution_png(g, COLOUR.palette, scale=5)
    assert im.size == (20, 20)
    assert im.getpixel((2, 2)) == COLOUR.palette[1].rgb
    assert im.getpixel((17, 2)) == (255, 255, 255)
    after = Grid(np.where(g.cells == 3, 0, g.cells))
    marked = edits_png(g, after, COLOUR.palette, scale=10)
    assert marked.getpixel((20, 20)) == MARK  # the edited cell (2, 2) is framed
    assert marked.getpixel((5, 5)) == COLOUR.palette[1].rgb
    assert reopen(png_bytes(marked)).size == (40, 40)


def test_solve_gif_has_one_frame_per_sweep() -> None:
    res = solve(BW, strategy="line", record_steps=True)
    assert res.steps
    data = solve_gif(BW, res.steps, scale=4)
    im = reopen(data)
    assert im.format == "GIF"
    assert im.n_frames == len(res.steps)
    assert im.size[0] == 40 and im.size[1] > 40  # the grid, then a progress strip
    im.seek(im.n_frames - 1)
    last = im.convert("RGB")
    assert last.getpixel((2, 2)) == (255, 255, 255)
    assert last.getpixel((10, 2)) == (0, 0, 0)


def test_state_cells_marks_undecided() -> None:
    st = np.array([[1, 2, 3], [4, 6, 1]], dtype=np.uint64)
    assert state_cells(st, 9).tolist() == [[0, 1, 9], [2, 9, 0]]


def test_terminal_preview() -> None:
    plain = preview(BW.goal, BW.palette, color=False)
    assert plain.splitlines()[0] == "..##......"
    coloured = preview(COLOUR.goal, COLOUR.palette)
    assert "\x1b[38;2;208;16;16m" in coloured
    assert len(coloured.splitlines()) == 2  # two rows of cells per line of text


def test_sheets_draw_the_puzzles_own_givens() -> None:
    """Givens come with the puzzle (one home): filled in their colour, or crossed, on the PNG
    and the SVG, with nothing to pass beside it; the rest of the grid stays paper."""
    p = COLOUR.replace(givens=[(0, 0, 1), (2, 2, 3), (0, 3, 0)])
    cell, margin = 24, 10
    im = sheet_png(p, cell=cell, margin=margin)
    plain = sheet_png(COLOUR, cell=cell, margin=margin)
    gx = margin + max(len(r) for r in p.rows) * cell
    gy = margin + max(len(c) for c in p.columns) * cell

    def at(i: int, j: int, dx: float = 0.5, dy: float = 0.5, of: Image.Image = im) -> tuple:
        return of.getpixel((gx + int((j + dx) * cell), gy + int((i + dy) * cell)))

    assert at(0, 0) == p.palette[1].rgb and at(2, 2) == p.palette[3].rgb
    assert at(0, 3) == INK and at(0, 3, 0.1, 0.5) == PAPER  # a cross: ink at the centre only
    assert at(1, 1) == PAPER  # no given: paper, as without givens
    assert at(0, 0, of=plain) == PAPER and at(0, 3, of=plain) == PAPER
    root = ET.fromstring(sheet_svg(p, cell=cell, margin=margin))
    given = [e for e in root.iter() if e.get("class") == "given"]
    assert len(given) == 3
    fills = {e.get("fill") for e in given if e.tag.endswith("rect")}
    assert fills == {p.palette[1].hex, p.palette[3].hex}
    assert not [e for e in ET.fromstring(sheet_svg(COLOUR)).iter() if e.get("class") == "given"]


def _paletted(cells: np.ndarray, rgb: list[tuple[int, int, int]]) -> Image.Image:
    im = Image.fromarray(cells.astype(np.uint8), mode="P")
    flat = [v for c in rgb for v in c]
    im.putpalette(flat + [0] * (768 - len(flat)))
    return im


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_gif_stream_plays_back_every_frame_as_given(data: st.DataObject) -> None:
    """Frames written one at a time (each only its changed box) play back as the frames
    given, in order, with their delays, looping; identical neighbours included, and a
    frame whose colours differ from the first one's keeps its own."""
    h, w = data.draw(st.integers(1, 9)), data.draw(st.integers(1, 9))
    n = data.draw(st.integers(1, 5))
    base = [(255, 255, 255), (0, 0, 0), (200, 30, 40), (30, 60, 200)]
    other = [(10, 200, 10), (250, 250, 0), (0, 0, 0), (90, 90, 90)]
    frames, durations = [], []
    for _ in range(n):
        cells = np.array(data.draw(st.lists(st.integers(0, 3), min_size=h * w,
                                            max_size=h * w))).reshape(h, w)
        if frames and data.draw(st.booleans()):  # the same as the frame before
            cells = np.asarray(frames[-1][0])
        rgb = other if frames and data.draw(st.booleans()) else base
        frames.append((cells, rgb))
        durations.append(data.draw(st.integers(2, 50)) * 10)
    out = gif_stream((_paletted(c, rgb) for c, rgb in frames), durations)
    im = Image.open(io.BytesIO(out))
    assert im.format == "GIF" and im.size == (w, h) and im.n_frames == n
    assert im.info.get("loop") == 0
    for k, (cells, rgb) in enumerate(frames):
        im.seek(k)
        want = np.array(rgb, dtype=np.uint8)[cells]
        assert np.array_equal(np.asarray(im.convert("RGB")), want), k
        assert im.info["duration"] == durations[k]


def test_gif_stream_refuses_no_frames_and_frames_of_two_sizes() -> None:
    rgb = [(255, 255, 255), (0, 0, 0)]
    with pytest.raises(ValueError, match="no frames"):
        gif_stream([], [])
    two = [_paletted(np.zeros((3, 3)), rgb), _paletted(np.zeros((3, 4)), rgb)]
    with pytest.raises(ValueError, match="size"):
        gif_stream(two, [100, 100])
