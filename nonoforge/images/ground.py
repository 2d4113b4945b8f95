"""Structures against a smooth ground: the launch towers around a rocket, dark against the
evening sky it stands in.

A black-and-white picture inks one side of a threshold (or of a sketch's contrast). When
the subject is *lighter* than its ground -- a white rocket in a dark-blue sky -- the ink is
the light side, and everything darker than the sky (the lattice towers the rocket stands
between, the horizon) falls on the paper side with the sky and is lost: the puzzle is a
bar on its pad, cropped to it. A pixel artist draws those structures as strokes.

The ground is modelled as a smooth surface: a quadratic in x and y per Lab channel, fitted
by least squares and refitted on the pixels it explains (within GROUND_DELTA), so a sky's
gradient from zenith to horizon is ground and the towers standing in it are not. A pixel is
a dark structure when it is GROUND_DELTA (ΔE76) or more from the ground and darker than it.
Pictures whose ground is not smooth (a cat's face filling the frame, a cup on a wooden
table) explain less than GROUND_SHARE of their pixels and get nothing from here.
"""

from __future__ import annotations

import numpy as np

#: A pixel this far (Lab, ΔE76) from the ground model is not ground.
GROUND_DELTA = 10.0
#: Refits of the ground model on the pixels it explains.
GROUND_ROUNDS = 4
#: The model must explain at least this share of the pixels for the picture to have a
#: smooth ground (the rocket's sky: 0.80; a face filling the frame: 0.2-0.5).
GROUND_SHARE = 0.6
#: The model is fitted on about this many pixels, an even sample of the picture.
GROUND_SAMPLE = 8000
#: Pixels the model is evaluated on at a time (whole rows), so that a large picture's
#: residual costs the memory of a band, not of six terms a pixel (1600x1600: 369 MB).
GROUND_BAND = 65536


def ground_residual(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Fit the smooth ground of a Lab picture ``(h, w, 3)``: ``(distance, darker, share)``
    -- each pixel's ΔE76 from the ground model, whether it is darker than the model, and
    the share of pixels the model explains (within GROUND_DELTA). A picture with fewer
    pixels than the model has terms gets no model, and a share of 0: no ground is claimed
    (the unfitted zero surface would "explain" a black picture perfectly)."""
    h, w = lab.shape[:2]
    px = lab.reshape(-1, 3).astype(np.float64)
    at_px = np.arange(0, h * w, max(1, h * w // GROUND_SAMPLE))  # an even sample
    sample, at = px[at_px], _design(at_px // w, at_px % w, h, w)
    if len(sample) < at.shape[1]:  # too few pixels to fit a surface
        return np.full((h, w), np.inf), np.zeros((h, w), dtype=bool), 0.0  # none explained
    keep = np.ones(len(sample), dtype=bool)
    coef = np.zeros((at.shape[1], 3))
    for _ in range(GROUND_ROUNDS):
        if keep.sum() < at.shape[1]:
            break
        coef, *_ = np.linalg.lstsq(at[keep], sample[keep], rcond=None)
        keep = np.sqrt(((sample - at @ coef) ** 2).sum(axis=1)) < GROUND_DELTA
    dist, darker = np.empty(h * w), np.empty(h * w, dtype=bool)
    band = max(1, GROUND_BAND // max(1, w))  # rows at a time: memory of a band, not a grid
    for top in range(0, h, band):
        part = slice(top * w, min(h, top + band) * w)
        cells = np.arange(part.start, part.stop)
        model = _design(cells // w, cells % w, h, w) @ coef
        dist[part] = np.sqrt(((px[part] - model) ** 2).sum(axis=1))
        darker[part] = px[part, 0] < model[:, 0]
    return dist.reshape(h, w), darker.reshape(h, w), float((dist < GROUND_DELTA).mean())


def _design(rows: np.ndarray, cols: np.ndarray, h: int, w: int) -> np.ndarray:
    """The quadratic surface's terms (1, x, y, x², xy, y²) at pixels ``(rows, cols)`` of an
    ``h x w`` picture, x and y running from -0.5 to 0.5 across it: ``(n, 6)``."""
    x = cols / max(1, w - 1) - 0.5
    y = rows / max(1, h - 1) - 0.5
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=-1)


def dark_structures(lab: np.ndarray) -> np.ndarray | None:
    """The pixels darker than a smooth ground by GROUND_DELTA or more, or None when the
    picture has no smooth ground (the model explains under GROUND_SHARE of it)."""
    dist, darker, share = ground_residual(lab)
    if share < GROUND_SHARE:
        return None
    return (dist >= GROUND_DELTA) & darker
