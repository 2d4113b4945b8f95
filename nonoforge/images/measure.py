"""Measures of a puzzle picture: likeness to its source, specks, empty margins, colour gaps.

These are the numbers ``generate --json`` and ``bench/generate.py`` report, and the numbers
the quantiser itself optimises (the photo path picks a silhouette's threshold and a colour
palette by SSIM, and between silhouette and sketch by likeness).

**Likeness** is the correlation, in CIE lightness L*, between the source fitted to the grid
(each cell the linear-light mean of its pixels) and the puzzle picture, both **band-passed
at the scale of a puzzle's features**: a difference of Gaussians of sigma BAND = (0.7, 2.5)
cells, which keeps strokes one cell wide up to shapes a few cells across and discards the
smooth shading no two-tone picture can show (and the sub-cell texture no grid can). Each
colour of the puzzle is drawn in the mean lightness of the source cells it covers (where
the picture is transparent, apart: see :func:`tone_picture`); the
correlation (Pearson) ignores the tone and contrast of the ink, so a thin outline where the
source has an edge or a dark feature scores as well as a filled shape that matches its
shading. 1 is a perfect match, 0 no relation. This is what a person reads at 20-45 cells:
where the eyes, outlines and shapes are (recognition of line drawings rests on this band,
Marr & Hildreth 1980), not how grey a patch is on average.

**SSIM** (Wang et al. 2004, in L*, 7x7 windows, same tone picture) was the likeness before;
it is kept as a second figure (:func:`ssim`). It rewards reproducing local mean lightness,
which large dark patches do and outlines do not, so it scores a texture of blobs above the
sketch of a face that a person recognises (docs/images.md, "Likeness").
"""

from __future__ import annotations

import numpy as np
from skimage.color import deltaE_ciede2000
from skimage.metrics import structural_similarity


def tone_picture(
    source_light: np.ndarray, cells: np.ndarray, apart: np.ndarray | None = None
) -> np.ndarray:
    """Each cell drawn in the mean source lightness of all cells of its colour; the cells
    ``apart`` marks (a transparent picture's background) are averaged on their own.

    Why apart: an icon's silhouette cuts its dark details (eyes, mouth, a nose) out of the
    shape, so they are paper like the background around it. Averaged together, those
    holes were drawn as light as the background, the opposite of the dark features they
    stand for, and a face that reads at a glance scored below zero."""
    groups = cells if apart is None else cells * 2 + apart.astype(cells.dtype)
    out = np.empty(cells.shape, dtype=np.float64)
    for c in np.unique(groups):
        m = groups == c
        out[m] = float(source_light[m].mean())
    return out


#: Sigmas (in cells) of the difference of Gaussians likeness compares pictures through.
BAND = (0.7, 2.5)


def band_pass(light: np.ndarray) -> np.ndarray:
    """``light`` through the BAND difference of Gaussians (edges repeated outwards)."""
    from scipy.ndimage import gaussian_filter

    fine = gaussian_filter(light.astype(np.float64), BAND[0], mode="nearest")
    return fine - gaussian_filter(light.astype(np.float64), BAND[1], mode="nearest")


def likeness(
    source_light: np.ndarray, cells: np.ndarray, apart: np.ndarray | None = None
) -> float:
    """Band-passed correlation in L* (module doc) between ``source_light`` and the puzzle
    picture ``cells`` (``apart``: see :func:`tone_picture`): 1 at best; nan on grids under
    3 cells a side."""
    if min(cells.shape) < 3:
        return float("nan")
    src = band_pass(source_light)
    pic = band_pass(tone_picture(source_light, cells, apart))
    src -= src.mean()
    pic -= pic.mean()
    den = float(np.sqrt((src * src).sum() * (pic * pic).sum()))
    return float((src * pic).sum() / den) if den > 1e-12 else 0.0


def ssim(
    source_light: np.ndarray, cells: np.ndarray, apart: np.ndarray | None = None
) -> float:
    """SSIM in L* (0..100) between ``source_light`` and the puzzle picture ``cells`` (the
    likeness of earlier versions, kept as a second figure; ``apart``: see
    :func:`tone_picture`)."""
    h, w = cells.shape
    win = min(7, h, w)
    if win % 2 == 0:
        win -= 1
    if win < 3:
        return float("nan")
    picture = tone_picture(source_light, cells, apart)
    return float(
        structural_similarity(source_light, picture, data_range=100.0, win_size=win)
    )


def neighbour_counts(cells: np.ndarray, ncolors: int, diagonal: bool = False) -> np.ndarray:
    """``(ncolors, H, W)``: how many of each cell's 4-neighbours (8 with ``diagonal``) have
    each colour.

    Outside the grid counts as background, so cells on the frame lean towards it.
    """
    h, w = cells.shape
    out = np.zeros((ncolors, h, w), dtype=np.int64)
    steps = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy or dx)]
    if not diagonal:
        steps = [(dy, dx) for dy, dx in steps if not (dy and dx)]
    for c in range(ncolors):
        pad = np.pad(cells == c, 1, constant_values=c == 0).astype(np.int64)
        for dy, dx in steps:
            out[c] += pad[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
    return out


def own_neighbours(cells: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """How many of each cell's neighbours share its colour, read from ``counts``
    (:func:`neighbour_counts`; when not given, the 8 neighbours'). A painted cell with no
    such 8-neighbour is a speck; one with exactly one is stranded when that one changes."""
    if counts is None:
        counts = neighbour_counts(cells, int(cells.max(initial=0)) + 1, diagonal=True)
    return np.take_along_axis(counts, cells[None].astype(np.int64), axis=0)[0]


def speck_mask(cells: np.ndarray) -> np.ndarray:
    """Painted cells with no 8-neighbour of their own colour: one-cell islands."""
    return (cells != 0) & (own_neighbours(cells) == 0)


def specks(cells: np.ndarray) -> int:
    """How many one-cell islands of paint the picture has (see :func:`speck_mask`)."""
    return int(speck_mask(cells).sum())


def margins(cells: np.ndarray) -> tuple[int, int, int, int]:
    """Empty (all-background) lines at the ``(top, bottom, left, right)`` edges."""
    rows = ~(cells != 0).any(axis=1)
    cols = ~(cells != 0).any(axis=0)

    def run(flags: np.ndarray) -> int:
        n = 0
        for f in flags:
            if not f:
                break
            n += 1
        return n

    return run(rows), run(rows[::-1]), run(cols), run(cols[::-1])


def empty_margins(cells: np.ndarray) -> int:
    """Total empty lines along the edges (a grid with no paint counts each line once)."""
    if not (cells != 0).any():
        return int(cells.shape[0] + cells.shape[1])
    return sum(margins(cells))


def closest_pair(palette_lab: np.ndarray) -> tuple[float, int, int]:
    """The two palette colours (background included) closest in CIEDE2000: ``(dE, i, j)``."""
    best = (float("inf"), -1, -1)
    for i in range(len(palette_lab)):
        for j in range(i + 1, len(palette_lab)):
            d = float(deltaE_ciede2000(palette_lab[i], palette_lab[j]))
            if d < best[0]:
                best = (d, i, j)
    return best
