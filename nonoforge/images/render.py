"""Pictures of puzzles: the printable sheet (PNG and SVG), the solution, the edits a repair
made, where a picture is ambiguous (still and animated), an animated GIF of a solve and a
terminal preview.

Every function here is pure: it takes a puzzle (or a grid and a palette) and returns an
image, a string or bytes; writing files is the caller's business. Sheets follow print
conventions: column clues stacked above, row clues to the left, a thicker rule every five
cells, colour clues on a swatch of their colour with text that stays readable on dark ones.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from nonoforge.puzzle import Clue, Grid, Palette, Puzzle, cell_chars
from nonoforge.solving import mask_colours as state_cells
from nonoforge.util import xml_text

RGB = tuple[int, int, int]

INK: RGB = (0, 0, 0)
PAPER: RGB = (255, 255, 255)
THIN: RGB = (170, 170, 170)
UNDECIDED: RGB = (190, 190, 190)
MARK: RGB = (255, 0, 200)
PROGRESS: RGB = (90, 90, 90)

FontT = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=32)
def _font(size: int) -> FontT:
    """Pillow's bundled font at ``size`` pixels: no font file needed anywhere."""
    return ImageFont.load_default(size=max(6, size))


def text_color(rgb: RGB) -> RGB:
    """Black or white, whichever reads better on ``rgb`` (WCAG relative luminance)."""

    def lin(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2])
    return INK if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else PAPER


def _hex(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


# -- layout ---------------------------------------------------------------------------------


class _Layout:
    """Where everything of a sheet goes, shared by the PNG and SVG renderers."""

    def __init__(self, puzzle: Puzzle, cell: int, margin: int) -> None:
        self.p = puzzle
        self.cell = cell
        self.margin = margin
        self.left_n = max(1, max(len(r) for r in puzzle.rows))
        self.top_n = max(1, max(len(c) for c in puzzle.columns))
        self.gx = margin + self.left_n * cell  # grid origin
        self.gy = margin + self.top_n * cell
        self.width = self.gx + puzzle.width * cell + margin
        self.height = self.gy + puzzle.height * cell + margin

    def clue_boxes(self) -> list[tuple[int, int, str, int]]:
        """``(x, y, text, colour index)`` of every clue number's box (top-left corner)."""
        c = self.cell
        out = []
        for i, clue in enumerate(self.p.rows):
            y = self.gy + i * c
            for k, b in enumerate(_nonempty(clue)):
                x = self.gx - (len(_nonempty(clue)) - k) * c
                out.append((x, y, str(b[0]) if b[0] else "0", b[1]))
        for j, clue in enumerate(self.p.columns):
            x = self.gx + j * c
            for k, b in enumerate(_nonempty(clue)):
                y = self.gy - (len(_nonempty(clue)) - k) * c
                out.append((x, y, str(b[0]) if b[0] else "0", b[1]))
        return out

    def rules(self) -> list[tuple[int, int, int, int, int]]:
        """``(x0, y0, x1, y1, width)`` of the grid's lines; every fifth and the frame thick."""
        c, p = self.cell, self.p
        thick = max(2, c // 8)
        out = []
        x1, y1 = self.gx + p.width * c, self.gy + p.height * c
        for j in range(p.width + 1):
            w = thick if j % 5 == 0 or j == p.width else 1
            x = self.gx + j * c
            out.append((x, self.margin if w > 1 else self.gy, x, y1, w))
        for i in range(p.height + 1):
            w = thick if i % 5 == 0 or i == p.height else 1
            y = self.gy + i * c
            out.append((self.margin if w > 1 else self.gx, y, x1, y, w))
        return out


def _nonempty(clue: Clue) -> list[tuple[int, int]]:
    """A clue's blocks, or one ``0`` (colour 0: no swatch) for an empty line, as on paper."""
    return [(b.length, b.color) for b in clue] or [(0, 0)]


# -- sheets ---------------------------------------------------------------------------------


def sheet_png(
    puzzle: Puzzle, cell: int = 20, margin: int = 10, solved: bool = False
) -> Image.Image:
    """The printable puzzle sheet as a Pillow image (``solved=True`` fills in the goal).

    The puzzle's givens (:attr:`~nonoforge.puzzle.Puzzle.givens`) are printed solved:
    filled in their colour, or crossed when given empty."""
    lay = _Layout(puzzle, cell, margin)
    im = Image.new("RGB", (lay.width, lay.height), PAPER)
    d = ImageDraw.Draw(im)
    bw = puzzle.is_bw
    for x, y, text, col in lay.clue_boxes():
        swatch = not bw and col != 0
        fill = puzzle.palette[col].rgb if swatch else PAPER
        if swatch:
            d.rectangle((x + 1, y + 1, x + cell - 1, y + cell - 1), fill=fill, outline=THIN)
        size = int(cell * (0.6 if len(text) < 3 else 0.45))
        d.text((x + cell / 2, y + cell / 2), text, fill=text_color(fill), font=_font(size),
               anchor="mm")
    if solved and puzzle.goal is not None:
        cells = puzzle.goal.cells
        for i, j in zip(*np.nonzero(cells), strict=True):
            x, y = lay.gx + int(j) * cell, lay.gy + int(i) * cell
            d.rectangle((x, y, x + cell, y + cell), fill=puzzle.palette[int(cells[i, j])].rgb)
    for i, j, c in puzzle.givens:
        x, y = lay.gx + j * cell, lay.gy + i * cell
        if c:
            d.rectangle((x, y, x + cell, y + cell), fill=puzzle.palette[c].rgb)
        else:
            q = cell // 4
            d.line((x + q, y + q, x + cell - q, y + cell - q), fill=INK, width=max(1, cell // 10))
            d.line((x + q, y + cell - q, x + cell - q, y + q), fill=INK, width=max(1, cell // 10))
    for x0, y0, x1, y1, w in lay.rules():
        colour = INK if w > 1 else THIN
        if w > 1:
            off = w // 2
            if x0 == x1:
                d.rectangle((x0 - off, y0, x0 - off + w - 1, y1), fill=colour)
            else:
                d.rectangle((x0, y0 - off, x1, y0 - off + w - 1), fill=colour)
        else:
            d.line((x0, y0, x1, y1), fill=colour, width=1)
    return im


def sheet_svg(
    puzzle: Puzzle, cell: int = 20, margin: int = 10, solved: bool = False
) -> str:
    """The printable puzzle sheet as SVG text (scalable, text kept as text); givens as in
    :func:`sheet_png`."""
    lay = _Layout(puzzle, cell, margin)
    bw = puzzle.is_bw
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{lay.width}" height="{lay.height}" '
        f'viewBox="0 0 {lay.width} {lay.height}" font-family="DejaVu Sans, Arial, sans-serif">',
    ]
    if puzzle.meta.title:
        out.append(f"<title>{xml_text(puzzle.meta.title)}</title>")
    out.append(f'<rect width="{lay.width}" height="{lay.height}" fill="#ffffff"/>')
    for x, y, text, col in lay.clue_boxes():
        swatch = not bw and col != 0
        fill = puzzle.palette[col].rgb if swatch else PAPER
        if swatch:
            out.append(
                f'<rect x="{x + 1}" y="{y + 1}" width="{cell - 2}" height="{cell - 2}" '
                f'fill="{_hex(fill)}" stroke="{_hex(THIN)}"/>'
            )
        size = round(cell * (0.6 if len(text) < 3 else 0.45), 1)
        out.append(
            f'<text x="{x + cell / 2}" y="{y + cell / 2}" font-size="{size}" '
            f'fill="{_hex(text_color(fill))}" text-anchor="middle" '
            f'dominant-baseline="central">{text}</text>'
        )
    if solved and puzzle.goal is not None:
        cells = puzzle.goal.cells
        for i, j in zip(*np.nonzero(cells), strict=True):
            x, y = lay.gx + int(j) * cell, lay.gy + int(i) * cell
            rgb = puzzle.palette[int(cells[i, j])].rgb
            out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{_hex(rgb)}"/>')
    for i, j, c in puzzle.givens:
        x, y = lay.gx + j * cell, lay.gy + i * cell
        if c:
            rgb = puzzle.palette[c].rgb
            out.append(f'<rect class="given" x="{x}" y="{y}" width="{cell}" height="{cell}" '
                       f'fill="{_hex(rgb)}"/>')
        else:
            q = cell / 4
            out.append(f'<path class="given" d="M{x + q} {y + q}L{x + cell - q} {y + cell - q}'
                       f'M{x + q} {y + cell - q}L{x + cell - q} {y + q}" stroke="#000000"/>')
    for x0, y0, x1, y1, w in lay.rules():
        colour = INK if w > 1 else THIN
        out.append(
            f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="{_hex(colour)}" '
            f'stroke-width="{w}"/>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- pictures -------------------------------------------------------------------------------


def _palette_image(cells: np.ndarray, colors: Sequence[RGB], scale: int) -> Image.Image:
    """An exact-colour paletted image of index ``cells``, each cell ``scale`` pixels."""
    im = Image.fromarray(np.ascontiguousarray(cells, dtype=np.uint8), mode="P")
    flat = [v for rgb in colors for v in rgb]
    im.putpalette(flat + [0] * (768 - len(flat)))
    if scale > 1:
        im = im.resize((im.width * scale, im.height * scale), Image.Resampling.NEAREST)
    return im


def solution_png(grid: Grid, palette: Palette, scale: int = 10) -> Image.Image:
    """The solution picture: one ``scale``-pixel square per cell, in the palette's colours."""
    if scale < 1:
        raise ValueError("scale must be at least 1")
    return _palette_image(grid.cells, [c.rgb for c in palette], scale).convert("RGB")


def edits_png(before: Grid, after: Grid, palette: Palette, scale: int = 10) -> Image.Image:
    """The repaired picture with every edited cell framed in magenta and crossed.

    Shows what a repair changed to make the puzzle unique: a reviewer sees at once whether
    the edits sit on region edges (good) or punch holes into shapes.
    """
    im = solution_png(after, palette, scale)
    d = ImageDraw.Draw(im)
    s = scale
    for i, j in zip(*np.nonzero(before.cells != after.cells), strict=True):
        x, y = int(j) * s, int(i) * s
        d.rectangle((x, y, x + s - 1, y + s - 1), outline=MARK, width=max(1, s // 6))
        d.line((x, y, x + s - 1, y + s - 1), fill=MARK, width=1)
    return im


def _faded(rgb: RGB, amount: float = 0.55) -> RGB:
    """``rgb`` moved ``amount`` of the way to white (a colour that recedes)."""
    r, g, b = (round(v + (255 - v) * amount) for v in rgb)
    return (r, g, b)


def _explain_frame(
    cells: np.ndarray, palette: Palette, marked: Sequence[tuple[int, int]], scale: int,
    area: bool = False,
) -> Image.Image:
    """The picture ``cells`` with the ``marked`` cells in their colours and framed in
    magenta (with ``area``, one outline around each area of them instead of a frame per
    cell), every other cell faded: the view :func:`explain_png` and :func:`explain_gif`
    share. A paletted image with exact colours (palette, faded palette, magenta)."""
    colors = [c.rgb for c in palette]
    n = len(colors)
    keep = np.zeros(cells.shape, dtype=bool)
    for i, j in marked:
        keep[i, j] = True
    index = np.where(keep, cells, cells.astype(np.int64) + n)
    im = _palette_image(index, [*colors, *map(_faded, colors), MARK], scale)
    d = ImageDraw.Draw(im)
    s, w = scale, max(1, scale // 5)
    h, wd = cells.shape[0], cells.shape[1]
    for i, j in marked:
        x, y = int(j) * s, int(i) * s
        if not area:
            d.rectangle((x, y, x + s - 1, y + s - 1), outline=2 * n, width=w)
            continue
        if i == 0 or not keep[i - 1, j]:
            d.rectangle((x, y, x + s - 1, y + w - 1), fill=2 * n)
        if i == h - 1 or not keep[i + 1, j]:
            d.rectangle((x, y + s - w, x + s - 1, y + s - 1), fill=2 * n)
        if j == 0 or not keep[i, j - 1]:
            d.rectangle((x, y, x + w - 1, y + s - 1), fill=2 * n)
        if j == wd - 1 or not keep[i, j + 1]:
            d.rectangle((x + s - w, y, x + s - 1, y + s - 1), fill=2 * n)
    return im


def explain_png(
    grid: Grid, palette: Palette, cells: Sequence[tuple[int, int]], scale: int = 10,
    regions: Sequence[Sequence[tuple[int, int]]] = (), area: bool = False,
) -> Image.Image:
    """The picture with the ambiguous ``cells`` (that flip between two solutions, or that
    line logic leaves open) framed in magenta, the rest faded so they stand out; with
    ``area`` (for the many cells line logic leaves open) each area of them is outlined
    once instead. Each of the ``regions`` (independent ambiguities) gets a thin box
    around its cells, numbered from 1 beside its top corner, as the JSON lists them."""
    im = _explain_frame(grid.cells, palette, cells, scale, area).convert("RGB")
    d = ImageDraw.Draw(im)
    font = _font(max(9, min(16, scale)))
    for k, region in enumerate(regions, 1):
        top, left = min(i for i, _ in region), min(j for _, j in region)
        bottom, right = max(i for i, _ in region) + 1, max(j for _, j in region) + 1
        d.rectangle((left * scale - 2, top * scale - 2, right * scale + 1, bottom * scale + 1),
                    outline=MARK, width=1)
        tw = d.textbbox((0, 0), str(k), font=font)[2]
        x = left * scale - tw - 4  # left of the box; right of it at the picture's left edge
        x = x if x >= 1 else min(right * scale + 4, im.width - tw - 2)
        y = max(1, top * scale - 2)
        box = d.textbbox((x, y), str(k), font=font)
        d.rectangle((box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1), fill=PAPER, outline=MARK)
        d.text((x, y), str(k), fill=INK, font=font)
    return im


def explain_gif(
    grid: Grid, palette: Palette, alternatives: Sequence[Grid], scale: int = 16,
    frame_ms: int = 900,
) -> bytes:
    """An animated GIF, looping, of where the picture ``grid`` is ambiguous: for each
    alternative solution in turn, the picture and then that alternative, the cells that
    flip between them framed in magenta (everything else faded), captioned
    ``k/n: as drawn`` and ``k/n: other solution``."""
    if not alternatives:
        raise ValueError("no alternative solutions to animate")
    strip = max(14, scale)
    font = _font(min(14, strip - 2))
    colors = [c.rgb for c in palette]
    paper, ink = 2 * len(colors) + 1, 2 * len(colors) + 2  # after colours, faded, MARK
    flat = [v for rgb in [*colors, *map(_faded, colors), MARK, PAPER, INK] for v in rgb]
    n = len(alternatives)
    probe = ImageDraw.Draw(Image.new("P", (1, 1)))
    longest = probe.textbbox((0, 0), f"{n}/{n}: other solution", font=font)
    width = max(grid.width * scale, int(longest[2]) + 6)  # a small grid: room for the text

    def frames() -> Iterator[Image.Image]:
        # one frame at a time, drawn in the palette's indices (no RGB copy, no quantising)
        for k, alt in enumerate(alternatives, 1):
            ys, xs = np.nonzero(alt.cells != grid.cells)
            flips = list(zip(ys.tolist(), xs.tolist(), strict=True))
            for cells, caption in ((grid.cells, "as drawn"), (alt.cells, "other solution")):
                pic = _explain_frame(cells, palette, flips, scale)
                im = Image.new("P", (width, pic.height + strip), paper)
                im.putpalette(flat + [0] * (768 - len(flat)))
                im.paste(pic, (0, 0))
                del pic
                ImageDraw.Draw(im).text((3, im.height - strip + strip // 2),
                                        f"{k}/{n}: {caption}", fill=ink, font=font, anchor="lm")
                yield im

    return gif_stream(frames(), [frame_ms] * (2 * n))


def solve_gif(
    puzzle: Puzzle, steps: Sequence[np.ndarray], scale: int = 8, frame_ms: int = 200
) -> bytes:
    """An animated GIF of a solve, one frame per sweep (``SolveResult.steps``).

    Decided cells show their colour, undecided ones grey; a strip under the grid fills up
    sweep by sweep; the last frame lingers.
    """
    if not steps:
        raise ValueError("no solver steps to animate (solve with record_steps=True)")
    colors = [c.rgb for c in puzzle.palette] + [UNDECIDED, PROGRESS]
    grey, bar = len(colors) - 2, len(colors) - 1
    strip = max(2, scale // 2)
    frames = []
    for i, st in enumerate(steps):
        cells = state_cells(st, grey)
        # a progress strip under the grid: shows the sweep, and keeps every frame distinct
        # (GIF writers merge identical frames, which would lose sweeps that change nothing)
        below = np.zeros((1, cells.shape[1]), dtype=np.int64)
        im = _palette_image(np.vstack([cells, below]), colors, scale)
        im = im.crop((0, 0, im.width, cells.shape[0] * scale + strip))
        filled = round(im.width * (i + 1) / len(steps))
        ImageDraw.Draw(im).rectangle(
            (0, cells.shape[0] * scale, filled - 1, im.height - 1), fill=bar
        )
        frames.append(im)
    return _gif_bytes(frames, [frame_ms] * (len(frames) - 1) + [max(frame_ms, 1500)])


def _gif_bytes(frames: Sequence[Image.Image], durations: Sequence[int]) -> bytes:
    """Frames as a looping animated GIF (``durations`` in ms, one per frame). Frames must
    differ from their neighbours: GIF writers merge identical ones."""
    buf = io.BytesIO()
    frames[0].save(
        buf, format="GIF", save_all=True, append_images=list(frames[1:]),
        duration=list(durations), loop=0, optimize=False, disposal=1,
    )
    return buf.getvalue()


def gif_stream(frames: Iterable[Image.Image], durations: Sequence[int]) -> bytes:
    """Paletted frames of one size as a looping animated GIF, written one frame at a time.

    Pillow's writer holds every frame (and a copy of each) until it has seen the last, so
    a long animation of a large picture peaks at hundreds of megabytes (an explain GIF of
    200x200 cells, 16 regions: 504 MB). Here each frame is encoded by Pillow alone, as a
    one-frame GIF, and its image block (only the box that differs from the frame before,
    at its offset) is appended after a delay of ``durations[k]`` ms: one frame in memory
    at a time. A frame whose colour table is not the first one's keeps its own table.
    Identical neighbours are kept (nothing merges them).
    """
    out = io.BytesIO()
    before: np.ndarray | None = None
    colours_before: list[int] | None = None
    table = b""
    for k, im in enumerate(frames):
        idx = np.asarray(im)
        box = (0, 0, im.width, im.height)
        if before is not None and idx.shape != before.shape:
            raise ValueError("every frame of a GIF must have the first one's size")
        colours_now = im.getpalette()
        # a frame in the colours of the one before: only the box where its indices differ
        # (in other colours every cell may look different: the whole frame)
        if before is not None and colours_now == colours_before:
            ys, xs = np.nonzero(idx != before)
            box = ((int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
                   if len(ys) else (0, 0, 1, 1))
        one = io.BytesIO()
        (im if before is None else im.crop(box)).save(one, format="GIF", optimize=False)
        screen, colours, block = _gif_parts(one.getvalue())
        if before is None:
            table = colours
            out.write(b"GIF89a" + struct.pack("<HH", im.width, im.height) + screen[4:])
            out.write(colours)
            out.write(b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00")  # loop forever
        out.write(b"\x21\xf9\x04\x04" + struct.pack("<H", round(durations[k] / 10)) + b"\0\0")
        left, top = box[0], box[1]
        descriptor = bytearray(block[:10])
        descriptor[1:5] = struct.pack("<HH", left, top)
        body = block[10:]
        if colours != table and not descriptor[9] & 0x80:  # its own table, kept local
            descriptor[9] |= 0x80 | (screen[4] & 0x07)
            body = colours + body
        out.write(bytes(descriptor) + body)
        before, colours_before = idx, colours_now
    if before is None:
        raise ValueError("no frames to animate")
    out.write(b"\x3b")
    return out.getvalue()


def _gif_parts(data: bytes) -> tuple[bytes, bytes, bytes]:
    """A one-frame GIF's logical screen descriptor (7 bytes), global colour table and
    image block (descriptor, local table if any, LZW data up to its terminator),
    extensions skipped."""
    screen = data[6:13]
    flags = screen[4]
    size = 3 << ((flags & 0x07) + 1) if flags & 0x80 else 0
    colours, pos = data[13:13 + size], 13 + size
    while data[pos] == 0x21:  # extension: label, then sub-blocks up to an empty one
        pos += 2
        while data[pos]:
            pos += data[pos] + 1
        pos += 1
    if data[pos] != 0x2C:
        raise ValueError("no image block in a GIF written by Pillow")  # pragma: no cover
    end = pos + 10
    if data[pos + 9] & 0x80:
        end += 3 << ((data[pos + 9] & 0x07) + 1)
    end += 1  # LZW minimum code size
    while data[end]:
        end += data[end] + 1
    return screen, colours, data[pos:end + 1]


def png_bytes(im: Image.Image) -> bytes:
    """A Pillow image as PNG file content."""
    buf = io.BytesIO()
    im.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


# -- terminal -------------------------------------------------------------------------------


def preview(grid: Grid, palette: Palette, color: bool = True) -> str:
    """The picture for a terminal: two cells per character with 24-bit colour (``▀`` with a
    foreground and background colour), or plain ``.``/``#`` characters without colour."""
    cells = grid.cells
    if not color:
        return "\n".join(grid.to_rows(cell_chars(palette.ncolors)))
    rows = []
    for i in range(0, grid.height, 2):
        parts = []
        for j in range(grid.width):
            top = palette[int(cells[i, j])].rgb
            if i + 1 < grid.height:
                bot = palette[int(cells[i + 1, j])].rgb
                parts.append("\x1b[38;2;{};{};{}m\x1b[48;2;{};{};{}m\u2580".format(*top, *bot))
            else:
                parts.append("\x1b[38;2;{};{};{}m\x1b[49m\u2580".format(*top))
        rows.append("".join(parts) + "\x1b[0m")
    return "\n".join(rows)
