"""Light arithmetic shared by the loader and the quantiser: sRGB <-> linear light and area
weights. Pixels are averaged in linear light (that is how light mixes), never in encoded sRGB.
"""

from __future__ import annotations

import warnings

import numpy as np


def srgb_to_linear(s: np.ndarray) -> np.ndarray:
    return np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v: np.ndarray) -> np.ndarray:
    v = np.clip(v, 0.0, 1.0)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def lab_to_srgb(lab: np.ndarray) -> np.ndarray:
    """Lab colours (``(..., 3)``) as sRGB 0..1, clipped into the gamut -- on purpose, so
    scikit-image's warning about the values it clips is not shown."""
    from skimage.color import lab2rgb

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Conversion from CIE-LAB", category=UserWarning)
        return np.asarray(np.clip(lab2rgb(np.asarray(lab, dtype=np.float64)), 0.0, 1.0))


def area_weights(n_in: int, n_out: int) -> np.ndarray:
    """``(n_out, n_in)`` matrix: the share of each source pixel inside each target cell."""
    edges = np.arange(n_out + 1) * (n_in / n_out)
    lo, hi = edges[:-1, None], edges[1:, None]
    px = np.arange(n_in)[None, :]
    overlap = np.clip(np.minimum(hi, px + 1) - np.maximum(lo, px), 0.0, None)
    return overlap / overlap.sum(axis=1, keepdims=True)


def block_reduce_linear(rgba: np.ndarray, k: int, strip: int = 64) -> np.ndarray:
    """Shrink a float sRGB+alpha image by the integer factor ``k`` (``k x k`` blocks; the
    last row and column of blocks may be partial), averaging premultiplied linear light.

    Works through ``strip`` block rows at a time, so the linear-light temporaries stay small
    whatever the image's size. Returns float64 sRGB+alpha.
    """
    h, w = rgba.shape[:2]
    out_h, out_w = -(-h // k), -(-w // k)
    out = np.empty((out_h, out_w, 4))
    cols = np.arange(0, w, k)
    col_n = np.diff(np.append(cols, w)).astype(np.float64)
    for b0 in range(0, out_h, strip):
        part = rgba[b0 * k : (b0 + strip) * k].astype(np.float64)
        a = part[..., 3:4]
        lin = np.concatenate([srgb_to_linear(part[..., :3]) * a, a], axis=-1)
        row_starts = np.arange(0, len(part), k)
        row_n = np.diff(np.append(row_starts, len(part))).astype(np.float64)
        sums = np.add.reduceat(np.add.reduceat(lin, row_starts, axis=0), cols, axis=1)
        n = row_n[:, None, None] * col_n[None, :, None]
        mean = sums / n
        cover = mean[..., 3:4]
        rgb = np.where(cover > 1e-9, mean[..., :3] / np.where(cover > 1e-9, cover, 1.0), 0.0)
        out[b0 : b0 + len(row_starts), :, :3] = linear_to_srgb(rgb)
        out[b0 : b0 + len(row_starts), :, 3] = cover[..., 0]
    return out
