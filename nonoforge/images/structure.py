"""Structure at the grid's scale: does the puzzle draw the edges a person reads in the source?

SSIM and likeness in lightness (:mod:`~nonoforge.images.measure`) compare tones: a dahlia
drawn as a black disc matches its dark middle and scores well, though nobody names it.
What a person reads in a small picture is where its edges are: the contour of the subject
and the few inner lines that carry it (petals, glasses, a roof's tiers). So both pictures
are reduced to the same abstraction, **edges at the grid's scale**, and compared:

* the source's **salient edges** (:func:`source_edges`): for each cell, the largest CIE Lab
  difference (ΔE76) to a 4-neighbour, the cells being the source averaged to the grid and
  smoothed there (total variation, EDGE_TV: a texture of cells flattens); weighted by the
  cell's saliency (:func:`~nonoforge.images.subject.saliency`, floor SALIENCY_FLOOR), so
  the background's texture counts little; scaled so its
  EDGE_QUANTILE quantile is 1 and clipped there (one very strong edge does not make the
  rest invisible); edges under NOISE of that scale are noise and dropped;
* the puzzle's **drawn edges** (:func:`drawn_edges`): the ink cells with a paper
  4-neighbour (the grid's frame counts as paper). A one-cell line is all drawn edge; a filled
  mass only its rim: its inside draws nothing;
* **agreement** (:func:`structure`): recall = the share of the source's edge strength that
  has a drawn edge within one cell (8-neighbourhood); precision = the mean source edge
  strength within one cell of the drawn edges; the score is their harmonic mean, 0..1.

A black disc against a flower draws the flower's outer rim but none of its petals (low
recall); an outlined flower draws both (tests/test_images_structure.py). Filling cells
costs nothing here and drawing lines where the source has no edge costs precision, so the
measure does not simply reward more ink.
"""

from __future__ import annotations

import numpy as np

#: Total-variation smoothing of the cells before their edges are taken: a texture of cells
#: (fur, grass, gravel) flattens, a subject's contour stays.
EDGE_TV = 0.1
#: Saliency weight of an edge in the least salient cell (1 in the most salient).
SALIENCY_FLOOR = 0.15
#: The source's edge strengths are scaled so this quantile (of the cells with an edge) is 1.
EDGE_QUANTILE = 0.9
#: Edges weaker than this share of the scale are noise.
NOISE = 0.15


def cell_edges(lab: np.ndarray) -> np.ndarray:
    """``(H, W)``: each cell's largest ΔE76 to its right or lower neighbour (and, so a
    line's both sides mark it, to its left or upper one)."""
    h, w = lab.shape[:2]
    out = np.zeros((h, w))
    dx = np.sqrt(((lab[:, 1:] - lab[:, :-1]) ** 2).sum(-1))
    dy = np.sqrt(((lab[1:] - lab[:-1]) ** 2).sum(-1))
    out[:, :-1] = np.maximum(out[:, :-1], dx)
    out[:, 1:] = np.maximum(out[:, 1:], dx)
    out[:-1] = np.maximum(out[:-1], dy)
    out[1:] = np.maximum(out[1:], dy)
    return out


def source_edges(lab: np.ndarray, ground: np.ndarray | None = None) -> np.ndarray:
    """The salient edges of a source fitted to the grid (``lab``: ``(H, W, 3)`` per cell),
    0..1 (module doc); ``ground`` is the background's colours saliency is measured against
    (:func:`~nonoforge.images.subject.saliency`; default: the grid's border's)."""
    from nonoforge.images.smoothing import smooth_lab
    from nonoforge.images.subject import saliency

    sal = saliency(lab, ground)
    lab = smooth_lab(lab, EDGE_TV) if min(lab.shape[:2]) >= 3 else lab
    e = cell_edges(lab) * (SALIENCY_FLOOR + (1.0 - SALIENCY_FLOOR) * sal)
    nz = e[e > 1e-9]
    if not len(nz):
        return np.zeros(e.shape)
    scale = float(np.quantile(nz, EDGE_QUANTILE))
    e = np.clip(e / scale, 0.0, 1.0) if scale > 0 else np.zeros(e.shape)
    e[e < NOISE] = 0.0
    return e


def drawn_edges(cells: np.ndarray) -> np.ndarray:
    """The puzzle picture's edges: ink cells with a paper 4-neighbour (outside is paper)."""
    ink = np.pad(cells != 0, 1)
    inner = ink[:-2, 1:-1] & ink[2:, 1:-1] & ink[1:-1, :-2] & ink[1:-1, 2:]
    return ink[1:-1, 1:-1] & ~inner


def _near(a: np.ndarray) -> np.ndarray:
    """The largest value of ``a`` in each cell's 3x3 neighbourhood."""
    from scipy.ndimage import maximum_filter

    return maximum_filter(a.astype(np.float64), size=3, mode="constant", cval=0.0)


def structure(edges: np.ndarray, cells: np.ndarray) -> float:
    """Agreement (0..1) of the puzzle picture ``cells`` with the source's salient edges
    ``edges`` (:func:`source_edges`, same grid): the harmonic mean of recall and precision
    within one cell (module doc). 0 when either has no edge."""
    drawn = drawn_edges(cells)
    total = float(edges.sum())
    if total <= 0 or not drawn.any():
        return 0.0
    recall = float((edges * _near(drawn)).sum()) / total
    precision = float(_near(edges)[drawn].mean())
    if recall + precision <= 0:
        return 0.0
    return 2.0 * recall * precision / (recall + precision)
