"""Measures of a puzzle picture: likeness to its source, specks, empty margins, colour gaps.

These are the numbers ``generate --json`` and ``bench/generate.py`` report, and the numbers
the quantiser itself optimises (the photo path picks the threshold of highest likeness).

**Likeness** is the structural similarity (SSIM, Wang et al. 2004) in CIE lightness L*
between the source fitted to the grid (each cell the linear-light mean of its pixels) and
the puzzle picture, each colour of the puzzle drawn in the mean lightness of the source
cells it covers. Drawing colours in their own mean lightness measures what the puzzle can
control -- which cells go together -- rather than the arbitrary choice of pure black ink
for a mid-grey subject, which would lower every black-and-white score alike. SSIM compares
local means, contrasts and structure in 7x7 windows (smaller on smaller grids), so it
rewards a picture whose edges and shapes sit where the source's are. 1 is identical.
"""

from __future__ import annotations

import numpy as np
from skimage.color import deltaE_ciede2000
from skimage.metrics import structural_similarity


def tone_picture(source_light: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Each cell drawn in the mean source lightness of all cells of its colour."""
    out = np.empty(cells.shape, dtype=np.float64)
    for c in np.unique(cells):
        m = cells == c
        out[m] = float(source_light[m].mean())
    return out


def likeness(source_light: np.ndarray, cells: np.ndarray) -> float:
    """SSIM in L* (0..100) between ``source_light`` and the puzzle picture ``cells``."""
    h, w = cells.shape
    win = min(7, h, w)
    if win % 2 == 0:
        win -= 1
    if win < 3:
        return float("nan")
    picture = tone_picture(source_light, cells)
    return float(
        structural_similarity(source_light, picture, data_range=100.0, win_size=win)
    )


def speck_mask(cells: np.ndarray) -> np.ndarray:
    """Painted cells with no 8-neighbour of their own colour: one-cell islands."""
    h, w = cells.shape
    pad = np.pad(cells, 1, constant_values=-1)
    same = np.zeros(cells.shape, dtype=np.int64)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy or dx:
                same += pad[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w] == cells
    return (cells != 0) & (same == 0)


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
