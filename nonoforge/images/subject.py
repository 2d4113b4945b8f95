"""The main subject of a picture: where a person looks, so the grid is spent on it.

A photo's subject differs in colour from the frame's border (the ground around it) and
tends to sit towards the middle. :func:`saliency` scores each pixel (or each cell of a grid)
by both: its CIE Lab distance to the border's dominant colours (the "boundary prior" of
background-contrast saliency, Wei et al. 2012, Zhu et al. 2014), times a centre prior.
:func:`find_subject` thresholds that map (Otsu) on a small copy of the picture, keeps the
large pieces and returns their box with a margin: the crop ``generate`` fits the grid to
when it draws outlines or tones. When the salient part fills most of the frame (a face, a
cup on a table) or almost none of it, the whole frame is kept: nothing says where a
smaller subject is.

The same map, computed on the grid's own cells, quiets the background: the outline and
tones styles (:mod:`~nonoforge.images.styles`) draw no edge where it is low, and the
structure measure (:mod:`~nonoforge.images.structure`) weighs the source's edges by it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The picture saliency is found on is shrunk to at most this many pixels a side.
SALIENCY_SIDE = 96
#: Border colours (k-means clusters of the border pixels) holding at least this share of
#: the border are the background's colours.
BORDER_SHARE = 0.15
#: Clusters the border's colours are grouped into.
BORDER_CLUSTERS = 4
#: Colour distance (ΔE76) at which a pixel counts as fully unlike the background.
CONTRAST_FULL = 40.0
#: Spread of the centre prior (a Gaussian, in shares of the frame's sides).
CENTRE_SIGMA = 0.4
#: Weight of the centre prior: saliency is contrast x (1 - w + w x prior).
CENTRE_WEIGHT = 0.5
#: Margin around the subject's box, as a share of its sides.
MARGIN = 0.08
#: Pieces of the salient mask smaller than this share of the largest are left out of the box.
PIECE_SHARE = 0.15
#: The box's long side is at most this many times its short side: it is widened about its
#: middle (within the frame) when the salient part is a strip (a horizon, a row of horses
#: far away), which would make a puzzle of a few lines.
MAX_ASPECT = 2.0
#: A box this share of the frame or more is no crop (the whole frame is subject).
MOST_AREA = 0.8
#: A salient mask under this share of the frame is too small to trust: no crop.
LEAST_AREA = 0.02


@dataclass(frozen=True)
class Subject:
    """Where the subject is: ``box`` ``(top, bottom, left, right)`` in the picture's pixels
    (the whole frame when ``found`` is false) and the share of the frame it covers."""

    box: tuple[int, int, int, int]
    found: bool
    share: float
    #: the background's colours (Lab, one a row): the dominant colours of the whole
    #: frame's border, what saliency inside the crop is measured against (the crop's own
    #: border is the subject's margin, partly subject)
    ground: np.ndarray | None = None


def ground_colours(lab: np.ndarray) -> np.ndarray:
    """The dominant colours of the border of the Lab picture ``lab`` (k-means clusters
    holding BORDER_SHARE of it or more), one a row."""
    from nonoforge.images.quantise import kmeans

    border = np.concatenate([lab[0], lab[-1], lab[1:-1, 0], lab[1:-1, -1]])
    centres, labels = kmeans(border[:: max(1, len(border) // 400)], BORDER_CLUSTERS, seed=0,
                             n_init=1)
    share = np.bincount(labels, minlength=len(centres)) / len(labels)
    return np.asarray(centres[share >= min(BORDER_SHARE, float(share.max()))])


def saliency(lab: np.ndarray, ground: np.ndarray | None = None) -> np.ndarray:
    """``(H, W)`` in 0..1: how much each pixel of the Lab picture ``lab`` stands out from
    the background's colours ``ground`` (default: its own border's,
    :func:`ground_colours`), weighted towards the middle (module doc)."""
    h, w = lab.shape[:2]
    if h < 3 or w < 3:
        return np.ones((h, w))
    if ground is None:
        ground = ground_colours(lab)
    dist = np.min([np.sqrt(((lab - c) ** 2).sum(-1)) for c in ground], axis=0)
    contrast = np.clip(dist / CONTRAST_FULL, 0.0, 1.0)
    yy = (np.arange(h) + 0.5) / h - 0.5
    xx = (np.arange(w) + 0.5) / w - 0.5
    prior = np.exp(-(yy[:, None] ** 2 + xx[None, :] ** 2) / (2 * CENTRE_SIGMA**2))
    out = contrast * (1.0 - CENTRE_WEIGHT + CENTRE_WEIGHT * prior)
    top = float(out.max())
    return out / top if top > 0 else out


def find_subject(rgba: np.ndarray) -> Subject:
    """The subject's box in ``rgba`` (float sRGB+alpha, ``(H, W, 4)``), with a margin of
    MARGIN a side; the whole frame when the salient part covers MOST_AREA of it or less than
    LEAST_AREA, or the picture has transparency (its shape is its subject already)."""
    from scipy.ndimage import label
    from skimage.color import rgb2lab
    from skimage.filters import threshold_otsu

    from nonoforge.images.light import block_reduce_linear

    h, w = rgba.shape[:2]
    whole = Subject((0, h, 0, w), False, 1.0)
    if float((rgba[..., 3] < 0.5).mean()) > 0.0 or min(h, w) < 8:
        return whole
    k = -(-max(h, w) // SALIENCY_SIDE)
    small = block_reduce_linear(rgba, k) if k > 1 else rgba
    lab = rgb2lab(small[..., :3])
    ground = ground_colours(lab)
    whole = Subject((0, h, 0, w), False, 1.0, ground)
    sal = saliency(lab, ground)
    if float(np.ptp(sal)) < 1e-6:
        return whole
    mask = sal > float(threshold_otsu(sal))
    parts, n = label(mask, structure=np.ones((3, 3)))
    if n == 0:
        return whole
    sizes = np.bincount(parts.ravel())[1:]
    keep = np.flatnonzero(sizes >= PIECE_SHARE * sizes.max()) + 1
    mask = np.isin(parts, keep)
    share = float(mask.mean())
    ys, xs = np.nonzero(mask)
    sh, sw = small.shape[:2]
    t, b, l_, r = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    mh, mw = MARGIN * (b - t), MARGIN * (r - l_)
    t, b = max(0, int(t - mh)), min(sh, int(np.ceil(b + mh)))
    l_, r = max(0, int(l_ - mw)), min(sw, int(np.ceil(r + mw)))
    t, b = _widen(t, b, (r - l_) / MAX_ASPECT, sh)
    l_, r = _widen(l_, r, (b - t) / MAX_ASPECT, sw)
    if share < LEAST_AREA or (b - t) * (r - l_) >= MOST_AREA * sh * sw:
        return Subject((0, h, 0, w), False, share, ground)
    box = (t * k, min(h, b * k), l_ * k, min(w, r * k))
    return Subject(box, True, share, ground)


def _widen(lo: int, hi: int, least: float, most: int) -> tuple[int, int]:
    """``[lo, hi)`` widened about its middle to at least ``least`` (within ``0..most``)."""
    if hi - lo >= least:
        return lo, hi
    mid = (lo + hi) / 2
    lo, hi = int(mid - least / 2), int(np.ceil(mid + least / 2))
    if lo < 0:
        lo, hi = 0, hi - lo
    if hi > most:
        lo, hi = max(0, lo - (hi - most)), most
    return lo, hi
