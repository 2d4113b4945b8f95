"""From a picture to a small grid of palette indices: the picture a puzzle is made of.

Steps, each a pure function of its inputs and a seed:

1. **fit** the image to the target grid by exact area averaging. Averaging happens in
   *linear light* (sRGB decoded, alpha premultiplied): that is how light mixes, so a cell half
   black and half white comes out the grey the eye sees from afar, where averaging encoded
   sRGB values would make it too dark. The averaged colours are then converted to CIE Lab,
   where distances follow perception, for everything that compares colours.
2. find the **background**: the transparent cells when the image has an alpha channel that is
   used, else the colour that dominates the border.
3. **black-and-white** by Otsu's threshold on lightness (or a target fill fraction), ink being
   the side away from the background; **colour** by seeded k-means in Lab, near-duplicate
   colours (CIEDE2000 below ``merge_delta``) merged.
4. a 3x3 **majority filter** replaces isolated cells (specks) by their neighbours' colour.

Never dithering: dithering multiplies clue counts and makes ambiguous puzzles.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from PIL import Image
from skimage.color import deltaE_ciede2000, lab2rgb, rgb2lab
from skimage.filters import threshold_otsu

from nonoforge import ranges
from nonoforge.errors import ImageError, UsageError
from nonoforge.images.light import area_weights, linear_to_srgb, srgb_to_linear
from nonoforge.images.load import as_rgba
from nonoforge.puzzle import Color, Grid, Palette

#: Largest grid side we generate: beyond this nobody solves a puzzle by hand.
MAX_SIDE = 200
#: Most painted colours: the .non colour extension and the sheet's legend stay readable.
MAX_COLORS = 16
#: Colours closer than this (CIEDE2000) are one colour.
DEFAULT_MERGE_DELTA = 10.0
#: Transparency defines the background when at least this share of cells is transparent
#: (a square icon with rounded corners has a few transparent cells and a coloured background).
ALPHA_SHARE = 0.1

ImageSource = str | os.PathLike[str] | np.ndarray | Image.Image


@dataclass(frozen=True)
class Quantised:
    """A picture reduced to a grid: what the puzzle shows and where it came from.

    ``source_lab`` is each cell's averaged colour in Lab (transparent cells take the
    background's), kept so that repairs can measure how far an edit moves from the image.
    """

    grid: Grid
    palette: Palette
    source_lab: np.ndarray
    palette_lab: np.ndarray
    background_from_alpha: bool


# -- sizes and averaging --------------------------------------------------------------------


def parse_size(text: str, what: str = "size") -> tuple[int, int]:
    """``"30x20"`` as ``(width, height)`` (the grammar of :mod:`nonoforge.ranges`)."""
    w, h = ranges.parse_size(text, what)
    check_grid_size(w, h)
    return w, h


def check_grid_size(width: int, height: int) -> None:
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise UsageError(f"grid size must be 1..{MAX_SIDE} a side, got {width}x{height}")


def fit_size(
    image_width: int,
    image_height: int,
    size: tuple[int, int] | None = None,
    width: int | None = None,
) -> tuple[int, int]:
    """The grid ``(width, height)``: ``size`` as given, or ``width`` with the image's aspect."""
    if size is not None and width is not None:
        raise UsageError("give a size or a width, not both")
    if size is not None:
        check_grid_size(*size)
        return size
    if width is None:
        raise UsageError("give a grid size (WxH) or a width")
    h = max(1, round(width * image_height / image_width))
    check_grid_size(width, h)
    return width, h


def area_average(rgba: np.ndarray, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's mean colour (sRGB, 0..1, averaged in linear light) and its alpha coverage."""
    ry = area_weights(rgba.shape[0], height)
    rx = area_weights(rgba.shape[1], width)
    alpha = rgba[..., 3]
    lin = srgb_to_linear(rgba[..., :3]) * alpha[..., None]
    cover = ry @ alpha @ rx.T
    mixed = np.stack([ry @ lin[..., c] @ rx.T for c in range(3)], axis=-1)
    safe = np.where(cover > 1e-9, cover, 1.0)[..., None]
    return linear_to_srgb(mixed / safe), cover


# -- colour helpers -------------------------------------------------------------------------

_NAMES = {
    "black": (0, 0, 0), "white": (255, 255, 255), "grey": (128, 128, 128),
    "red": (220, 30, 40), "orange": (245, 140, 30), "yellow": (250, 220, 40),
    "green": (50, 160, 60), "cyan": (40, 200, 220), "blue": (40, 80, 210),
    "purple": (130, 60, 170), "pink": (240, 130, 180), "brown": (130, 80, 40),
}  # fmt: skip
_NAME_LAB = rgb2lab(np.array(list(_NAMES.values()), dtype=np.float64)[None] / 255.0)[0]


def color_names(labs: np.ndarray) -> list[str]:
    """Short, distinct, human names for Lab colours (``red``, ``red2``, ...)."""
    out: list[str] = []
    keys = list(_NAMES)
    for lab in labs:
        d = deltaE_ciede2000(np.broadcast_to(lab, _NAME_LAB.shape), _NAME_LAB)
        base = keys[int(np.argmin(d))]
        name, k = base, 2
        while name in out:
            name, k = f"{base}{k}", k + 1
        out.append(name)
    return out


def lab_to_rgb8(lab: np.ndarray) -> tuple[int, int, int]:
    rgb = lab2rgb(np.asarray(lab, dtype=np.float64).reshape(1, 1, 3))[0, 0]
    r, g, b = (int(round(float(v) * 255)) for v in np.clip(rgb, 0.0, 1.0))
    return (r, g, b)


def kmeans(
    points: np.ndarray, k: int, seed: int, n_init: int = 4, iters: int = 50
) -> tuple[np.ndarray, np.ndarray]:
    """Seeded k-means (k-means++ start, best of ``n_init``): ``(centres, labels)``."""
    rng = np.random.default_rng(seed)
    n = len(points)
    k = min(k, len(np.unique(points.round(3), axis=0)))
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for _ in range(n_init):
        centres = [points[rng.integers(n)]]
        for _ in range(1, k):
            d2 = np.min(((points[:, None, :] - np.array(centres)[None]) ** 2).sum(-1), axis=1)
            total = d2.sum()
            idx = rng.choice(n, p=d2 / total) if total > 0 else rng.integers(n)
            centres.append(points[idx])
        c = np.array(centres, dtype=np.float64)
        labels = np.zeros(n, dtype=np.int64)
        for it in range(iters):
            d2 = ((points[:, None, :] - c[None]) ** 2).sum(-1)
            new = np.argmin(d2, axis=1)
            if it and np.array_equal(new, labels):
                break
            labels = new
            for j in range(k):
                members = points[labels == j]
                if len(members):
                    c[j] = members.mean(axis=0)
        inertia = float(((points - c[labels]) ** 2).sum())
        if best is None or inertia < best[0] - 1e-9:
            best = (inertia, c.copy(), labels.copy())
    assert best is not None
    return best[1], best[2]


def merge_close(
    centres: np.ndarray,
    labels: np.ndarray,
    points: np.ndarray,
    delta: float,
    keep: int = -1,
    at_least: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """Merge clusters whose centres are closer than ``delta`` (CIEDE2000), closest first.

    Cluster ``keep`` (the background, when there is one) keeps its identity when merged;
    merging stops at ``at_least`` clusters (a low-contrast picture still gets its ink).
    Returns the surviving centres and the points' labels into them.
    """
    centres = centres.copy()
    alive = [j for j in range(len(centres)) if np.any(labels == j) or j == keep]
    labels = labels.copy()
    while len(alive) > max(1, at_least):
        best = (np.inf, -1, -1)
        for a_i, a in enumerate(alive):
            for b in alive[a_i + 1 :]:
                d = float(deltaE_ciede2000(centres[a], centres[b]))
                if d < best[0]:
                    best = (d, a, b)
        d, a, b = best
        if d >= delta:
            break
        if b == keep:
            a, b = b, a
        labels[labels == b] = a
        if a != keep:
            centres[a] = points[labels == a].mean(axis=0)
        alive.remove(b)
    remap = {old: new for new, old in enumerate(alive)}
    return centres[alive], np.vectorize(remap.__getitem__)(labels) if len(labels) else labels


def despeckle(labels: np.ndarray, passes: int = 2) -> np.ndarray:
    """The 3x3 majority filter: a cell with no same-coloured neighbour (8-connected) takes
    the colour most of its neighbours have. Lines one cell wide survive; lone specks go."""
    out = labels.copy()
    ncol = int(out.max()) + 1
    for _ in range(passes):
        counts = np.empty((ncol, *out.shape), dtype=np.int64)
        for c in range(ncol):
            pad = np.pad(out == c, 1).astype(np.int64)
            counts[c] = sum(
                pad[1 + dy : 1 + dy + out.shape[0], 1 + dx : 1 + dx + out.shape[1]]
                for dy in (-1, 0, 1)
                for dx in (-1, 0, 1)
            )
        own = np.take_along_axis(counts, out[None], axis=0)[0]
        speck = own <= 1
        if not speck.any():
            break
        others = counts.copy()
        np.put_along_axis(others, out[None], -1, axis=0)
        out = np.where(speck, np.argmax(others, axis=0), out)
    return out


def _border(a: np.ndarray) -> np.ndarray:
    if a.shape[0] <= 2 or a.shape[1] <= 2:
        return a.reshape(-1, *a.shape[2:])
    return np.concatenate([a[0], a[-1], a[1:-1, 0], a[1:-1, -1]])


# -- the quantiser --------------------------------------------------------------------------


def quantise(
    image: ImageSource,
    *,
    size: tuple[int, int] | None = None,
    width: int | None = None,
    colors: int = 1,
    seed: int = 0,
    fill: float | None = None,
    merge_delta: float = DEFAULT_MERGE_DELTA,
    despeckle_passes: int = 2,
) -> Quantised:
    """Reduce an image to a grid of at most ``colors`` painted colours plus the background.

    ``size`` is ``(width, height)``; or give ``width`` and keep the aspect ratio. With
    ``colors=1`` the puzzle is black-and-white: Otsu's threshold, or the threshold that inks
    a ``fill`` fraction of the cells. Same inputs and seed, same grid.
    """
    if not 1 <= colors <= MAX_COLORS:
        raise UsageError(f"colours must be 1..{MAX_COLORS}, got {colors}")
    if fill is not None and not 0.0 < fill < 1.0:
        raise UsageError(f"fill fraction must be between 0 and 1, got {fill}")
    rgba = as_rgba(image)
    w, h = fit_size(rgba.shape[1], rgba.shape[0], size, width)
    rgb, cover = area_average(rgba, w, h)
    lab = rgb2lab(rgb)
    transparent = cover < 0.5
    use_alpha = float(transparent.mean()) >= ALPHA_SHARE
    if transparent.all():
        raise ImageError("the image is transparent: nothing to draw")

    if colors == 1:
        labels, palette_lab = _bw(lab, transparent, use_alpha, fill)
    else:
        labels, palette_lab = _colour(lab, transparent, use_alpha, colors, seed, merge_delta)
    if despeckle_passes and min(h, w) >= 3:
        labels = despeckle(labels, despeckle_passes)
    labels, palette_lab = _drop_unused(labels, palette_lab)
    if palette_lab.shape[0] < 2:
        raise ImageError("the image is a single flat colour: nothing to draw")
    source = lab.copy()
    source[transparent] = palette_lab[0]
    if colors == 1:
        palette = Palette.bw()
    else:
        bg = Color("white", (255, 255, 255)) if use_alpha else None
        names = color_names(palette_lab)
        colours = [Color(n, lab_to_rgb8(c)) for n, c in zip(names, palette_lab, strict=True)]
        if bg is not None:
            colours[0] = bg
            if "white" in names[1:]:
                i = names.index("white", 1)
                colours[i] = Color("white2", colours[i].rgb)
        palette = Palette(tuple(colours))
    return Quantised(Grid(labels), palette, source, palette_lab, use_alpha)


def _bw(
    lab: np.ndarray, transparent: np.ndarray, use_alpha: bool, fill: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Black-and-white labels.

    With a used alpha channel the opaque shape is the ink (a silhouette), or its darkest
    cells when a ``fill`` fraction is asked for. Otherwise lightness is thresholded (Otsu, or
    the quantile that inks ``fill`` of the cells) and ink is the side the border is not on.
    """
    light = lab[..., 0]
    bw_lab = np.array([[100.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    if use_alpha and fill is None:
        return _silhouette(light, ~transparent).astype(np.int64), bw_lab
    opaque = ~transparent
    vals = light[opaque]
    if use_alpha:
        assert fill is not None
        k = min(len(vals), max(1, round(fill * light.size)))
        t = float(np.sort(vals)[k - 1])
        return ((light <= t) & opaque).astype(np.int64), bw_lab
    if np.ptp(vals) < 1e-6:
        raise ImageError("the image is a single flat colour: nothing to draw")
    border = _border(light)[_border(opaque)]
    if fill is not None:
        dark_ink = float(np.median(border)) >= float(np.median(vals))
        t = float(np.quantile(vals, fill if dark_ink else 1.0 - fill))
    else:
        t = float(threshold_otsu(vals))
        dark_ink = float(np.mean(border > t)) >= 0.5
    ink = (light <= t) if dark_ink else (light > t)
    return (ink & opaque).astype(np.int64), bw_lab


#: Lightness gap (L*) between the two Otsu classes of a shape for the darker one to show.
HOLE_CONTRAST = 30.0
#: The darker class becomes holes only while it is at most this share of the shape.
HOLE_SHARE = 0.4


def _silhouette(light: np.ndarray, opaque: np.ndarray) -> np.ndarray:
    """The opaque shape as ink, with its dark details (eyes, letters, outlines) cut out.

    A bare silhouette loses everything inside the outline; the dark minority of the shape,
    when it stands out clearly (Otsu classes ``HOLE_CONTRAST`` apart), becomes background.
    """
    vals = light[opaque]
    if len(vals) < 4 or np.ptp(vals) < HOLE_CONTRAST:
        return opaque
    t = float(threshold_otsu(vals))
    dark = vals <= t
    if not dark.any() or dark.all():
        return opaque
    gap = float(vals[~dark].mean() - vals[dark].mean())
    if gap < HOLE_CONTRAST or dark.mean() > HOLE_SHARE:
        return opaque
    return opaque & (light > t)


def _colour(
    lab: np.ndarray,
    transparent: np.ndarray,
    use_alpha: bool,
    colors: int,
    seed: int,
    merge_delta: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Colour: k-means in Lab, background cluster first, near-duplicates merged."""
    h, w = lab.shape[:2]
    flat = lab.reshape(-1, 3)
    if use_alpha:
        mask = ~transparent.reshape(-1)
        pts = flat[mask]
        centres, lab_labels = kmeans(pts, colors, seed)
        centres, lab_labels = merge_close(centres, lab_labels, pts, merge_delta)
        labels = np.zeros(h * w, dtype=np.int64)
        labels[mask] = lab_labels + 1
        palette_lab = np.vstack([[100.0, 0.0, 0.0], centres])
        return labels.reshape(h, w), palette_lab
    mask = ~transparent.reshape(-1)
    pts = flat[mask]
    centres, lab_labels = kmeans(pts, colors + 1, seed)
    on_border = _border(mask.reshape(h, w))
    counts = np.bincount(_border(_spread(lab_labels, mask, h, w))[on_border],
                         minlength=len(centres))
    bg = int(np.argmax(counts))
    centres, lab_labels = merge_close(
        centres, lab_labels, pts, merge_delta, keep=bg, at_least=2
    )
    # after merging, find the background again (its index may have shifted)
    grid = _spread(lab_labels, mask, h, w)
    bg = int(np.argmax(np.bincount(_border(grid)[on_border], minlength=len(centres))))
    grid[~mask.reshape(h, w)] = bg
    order = [bg] + [j for j in range(len(centres)) if j != bg]
    remap = np.empty(len(centres), dtype=np.int64)
    remap[order] = np.arange(len(centres))
    return remap[grid], centres[order]


def _spread(values: np.ndarray, mask: np.ndarray, h: int, w: int) -> np.ndarray:
    """Per-cell values for the cells ``mask`` selects, as an ``(h, w)`` grid (0 elsewhere)."""
    out = np.zeros(h * w, dtype=np.int64)
    out[mask] = values
    return out.reshape(h, w)


def _drop_unused(labels: np.ndarray, palette_lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Renumber painted colours by how many cells use them (most first), dropping unused ones.

    The background keeps index 0 even when no cell uses it.
    """
    counts = np.bincount(labels.reshape(-1), minlength=len(palette_lab))
    painted = sorted((j for j in range(1, len(palette_lab)) if counts[j]), key=lambda j: -counts[j])
    order = [0, *painted]
    remap = np.zeros(len(palette_lab), dtype=np.int64)
    remap[order] = np.arange(len(order))
    return remap[labels], palette_lab[order]
