"""The structure measure (images/structure.py) on hand-made cases: a flower, a disc, lines."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw
from skimage.color import rgb2lab

from nonoforge.images.load import as_rgba
from nonoforge.images.quantise import area_average
from nonoforge.images.structure import drawn_edges, source_edges, structure

SIDE = 30


def _petals(draw: ImageDraw.ImageDraw, scale: float, width: int, fill: object | None,
            outline: object | None) -> None:
    """Six petals around a middle disc, in a ``SIDE * scale`` square."""
    c = SIDE * scale / 2
    for k in range(6):
        a = k * math.pi / 3
        px, py = c + math.cos(a) * 8 * scale, c + math.sin(a) * 8 * scale
        r = 5 * scale
        draw.ellipse((px - r, py - r, px + r, py + r), fill=fill, outline=outline, width=width)
    r = 4 * scale
    draw.ellipse((c - r, c - r, c + r, c + r), fill=fill and (240, 200, 40), outline=outline,
                 width=width)


def flower_photo() -> np.ndarray:
    """A pink flower with a yellow middle on a green ground, 8 pixels a cell."""
    im = Image.new("RGB", (SIDE * 8, SIDE * 8), (60, 130, 60))
    _petals(ImageDraw.Draw(im), 8, 8, (230, 120, 170), (150, 40, 90))
    return as_rgba(np.asarray(im))


def flower_edges() -> np.ndarray:
    rgb, _ = area_average(flower_photo(), SIDE, SIDE)
    return source_edges(rgb2lab(rgb))


def outlined_flower() -> np.ndarray:
    """The flower drawn as a person would at 30x30: its petals' outlines, one cell wide."""
    im = Image.new("L", (SIDE, SIDE), 0)
    _petals(ImageDraw.Draw(im), 1, 1, None, 1)
    return np.asarray(im).astype(np.int64)


def disc() -> np.ndarray:
    """The flower as a threshold draws it at its darkest: one black disc its size."""
    yy, xx = np.mgrid[:SIDE, :SIDE]
    return (((yy - SIDE / 2 + 0.5) ** 2 + (xx - SIDE / 2 + 0.5) ** 2) <= 13**2).astype(np.int64)


def test_an_outlined_flower_scores_above_a_black_disc() -> None:
    edges = flower_edges()
    assert structure(edges, outlined_flower()) > structure(edges, disc()) + 0.1


def test_the_disc_scores_what_its_rim_draws() -> None:
    """Filling a shape adds nothing: a disc and its rim score the same."""
    edges = flower_edges()
    d = disc()
    rim = drawn_edges(d).astype(np.int64)
    assert structure(edges, d) == structure(edges, rim)


def test_lines_where_the_source_has_none_cost_precision() -> None:
    edges = flower_edges()
    clutter = outlined_flower().copy()
    clutter[::3, :] = 1  # stripes across the green ground and the petals alike
    assert structure(edges, clutter) < structure(edges, outlined_flower())


def test_nothing_drawn_or_nothing_to_draw_scores_zero() -> None:
    edges = flower_edges()
    assert structure(edges, np.zeros((SIDE, SIDE), dtype=np.int64)) == 0.0
    flat = rgb2lab(np.full((SIDE, SIDE, 3), 0.5))
    assert structure(source_edges(flat), outlined_flower()) == 0.0


def test_scores_are_between_zero_and_one() -> None:
    edges = flower_edges()
    rng = np.random.default_rng(0)
    for _ in range(20):
        cells = (rng.random((SIDE, SIDE)) < rng.random()).astype(np.int64)
        assert 0.0 <= structure(edges, cells) <= 1.0


def test_drawn_edges_of_a_filled_square_are_its_rim() -> None:
    cells = np.zeros((7, 7), dtype=np.int64)
    cells[1:6, 1:6] = 1
    rim = drawn_edges(cells)
    assert rim.sum() == 16 and not rim[2:5, 2:5].any()
    line = np.zeros((5, 5), dtype=np.int64)
    line[2] = 1  # a one-cell line is all edge, the frame counting as paper
    assert drawn_edges(line).sum() == 5
