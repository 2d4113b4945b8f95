"""Accents: the small features of a photo that its colour clusters drop -- a cat's eyes and
nose, a few stained nuclei on a slide -- found as local colour outliers and drawn as shapes
in the colours the palette has to spare.

Why: a photo's clusters follow its large areas. A feature of a few cells whose colour is
under 1 % of the pixels (the cat's green eyes, its pink nose) never gets a cluster, so the
puzzle draws the cat as a tabby field (docs/images.md, "Accents: the cat's eyes ..."). A
designer draws such a feature as a shape in its own colour. Here a pixel is an outlier
when its a*b* lies far from the colours of its surroundings, as a Mahalanobis distance
under their local mean and covariance: that finds what stands out by colour, not by
lightness, and needs no threshold chosen per picture. Each compact group of outliers is
grown over the pixels more like it than like its surroundings, filled, and drawn where it
covers enough of a cell; its dark core (a pupil) is drawn in the palette's darkest colour.
Its colour is pushed further from its surroundings, as a designer would, until it tells
apart from every palette colour.

Accents only take colours the palette lacks (``--colors N`` asked more than the clusters
gave): a picture that already has its N colours is drawn as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage as ndi
from skimage.color import deltaE_ciede2000, rgb2lab
from skimage.morphology import convex_hull_image, disk

from nonoforge.images.light import area_weights, lab_to_srgb

#: Mahalanobis distance (a*b*, against the surroundings) that marks a pixel as standing out.
OUTLIER = 2.0
#: Gaussian scale, in cells, of the pixels' own colour (drops fur and grain).
SMOOTH = 0.4
#: Gaussian scale, in cells, of the surroundings a pixel is compared with.
SURROUND = 3.0
#: Added to the surroundings' a*b* variances: a flat surround still has some spread.
SPREAD = 4.0
#: An accent's outlier pixels cover at least this many cells...
MIN_CELLS = 1.0
#: ...its shape at most this share of the picture (larger is a region, not a feature)...
MAX_SHARE = 0.03
#: ...and its outliers at least this share of their convex hull (not a thin rim or ring).
MIN_SOLID = 0.3
#: A grown shape whose hull it fills at least this much is drawn as its hull (an eye's
#: iris crescent and pupil make a disc).
HULL_FILL = 0.6
#: Share of a cell an accent must cover to be drawn there; its dark core likewise.
COVER = 0.4
CORE_COVER = 0.3
#: Cells an accent's colour must draw: one cell alone would be a speck.
MIN_DRAWN = 2
#: L* under which an accent's pixels are its dark core (a pupil, a nostril), when also
#: CORE_DROP darker than its surroundings (a star on a black sky has no core).
DARK = 25.0
CORE_DROP = 15.0
#: The palette's darkest colour draws cores when its L* is at most this.
CORE_INK = 45.0
#: An accent's colour is pushed away from its surroundings' by these shares of the
#: difference in a*b*, the least that sets it the ΔE floor from every palette colour.
PUSHES = (0.5, 1.0, 1.5, 2.0)


@dataclass(frozen=True, eq=False)
class Accent:
    """One feature, on a grid: ``shape`` and ``core`` are the share of each cell covered by
    the feature and by its dark core; ``colour`` is its own Lab colour and ``around`` its
    surroundings' a*b*; ``weight`` its salience (outlier cells times their mean distance),
    which orders accents."""

    shape: np.ndarray
    core: np.ndarray
    colour: np.ndarray
    around: np.ndarray
    weight: float

    def pushed(self, share: float) -> np.ndarray:
        """Its colour pushed ``share`` of the way further from its surroundings' (a*b*),
        as it prints."""
        ab = self.colour[1:] + share * (self.colour[1:] - self.around)
        return _in_gamut(np.array([self.colour[0], *ab]))


def outliers(lab: np.ndarray, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel of a Lab picture: the Mahalanobis distance of its (smoothed) a*b* from its
    surroundings' at grid scale ``cell`` (pixels per cell), and the surroundings' mean a*b*
    (``(h, w, 2)``)."""
    a = ndi.gaussian_filter(lab[..., 1], SMOOTH * cell)
    b = ndi.gaussian_filter(lab[..., 2], SMOOTH * cell)
    s = SURROUND * cell
    ma, mb = ndi.gaussian_filter(a, s), ndi.gaussian_filter(b, s)
    vaa = ndi.gaussian_filter(a * a, s) - ma * ma + SPREAD
    vbb = ndi.gaussian_filter(b * b, s) - mb * mb + SPREAD
    vab = ndi.gaussian_filter(a * b, s) - ma * mb
    da, db = a - ma, b - mb
    det = np.maximum(vaa * vbb - vab * vab, 1e-9)
    d2 = (vbb * da * da - 2 * vab * da * db + vaa * db * db) / det
    return np.sqrt(np.maximum(d2, 0.0)), np.stack([ma, mb], axis=-1)


def find(lab: np.ndarray, w: int, h: int) -> list[Accent]:
    """The accents of a Lab picture (``(H, W, 3)``, plain, not equalised) drawn on a
    ``w x h`` grid, most salient first."""
    hp, wp = lab.shape[:2]
    cell = wp / w
    if min(hp, wp) < 8 or cell < 2:
        return []
    dist, surround = outliers(lab, cell)
    radius = max(1, int(cell * 0.4))
    marked = ndi.binary_closing(dist >= OUTLIER, structure=disk(radius))
    parts, n = ndi.label(marked, structure=np.ones((3, 3), bool))
    if n == 0:
        return []
    light_around = ndi.gaussian_filter(lab[..., 0], SURROUND * cell)
    ry, rx = area_weights(hp, h), area_weights(wp, w)
    areas = np.bincount(parts.ravel(), minlength=n + 1)
    most = MAX_SHARE * hp * wp
    # everything about a part happens within reach of its box: a window of it
    pad = int(np.ceil(max(cell, float(np.sqrt(most / np.pi))))) + 2
    found: list[Accent] = []
    for i, box in enumerate(ndi.find_objects(parts), start=1):
        area = float(areas[i])
        if box is None or area < MIN_CELLS * cell * cell or area > most:
            continue
        ys = slice(max(0, box[0].start - pad), min(hp, box[0].stop + pad))
        xs = slice(max(0, box[1].start - pad), min(wp, box[1].stop + pad))
        win = lab[ys, xs]
        part = parts[ys, xs] == i
        hull = convex_hull_image(part)
        if hull.sum() > most or area < MIN_SOLID * hull.sum():
            continue
        lit = part & (win[..., 0] >= DARK)
        if lit.sum() < 0.3 * cell * cell:
            continue  # all dark: the darkest colour draws it already
        px = win[lit]
        chroma = np.hypot(px[:, 1], px[:, 2])
        own = np.median(px[chroma >= np.median(chroma)], axis=0)
        cy, cx = (int(v) for v in ndi.center_of_mass(part))
        around = surround[ys, xs][cy, cx]
        shape = _grown(win, hull, own[1:], around, cell, most)
        dark = min(DARK, float(light_around[ys, xs][cy, cx]) - CORE_DROP)
        core = ((shape > 0) & (win[..., 0] < dark)).astype(np.float64)
        gy, gx = ry[:, ys], rx[:, xs]
        weight = float(dist[ys, xs][part].mean() * area / (cell * cell))
        found.append(Accent(gy @ shape @ gx.T, gy @ core @ gx.T, own, around, weight))
    found.sort(key=lambda acc: -acc.weight)
    return found


def _grown(lab: np.ndarray, hull: np.ndarray, own: np.ndarray, around: np.ndarray,
           cell: float, most: float) -> np.ndarray:
    """The feature's shape: its hull grown over the nearby pixels whose a*b* is nearer its
    own than its surroundings' (an iris beyond the outlier crescent), holes filled, as its
    hull when it fills that well; as a float mask. Larger than ``most`` pixels, it is the
    hull alone."""
    reach = max(cell, float(np.sqrt(hull.sum() / np.pi)))
    near = ndi.distance_transform_edt(~hull) <= reach
    ab = lab[..., 1:]
    like = near & (np.linalg.norm(ab - own, axis=-1) < np.linalg.norm(ab - around, axis=-1))
    like = ndi.binary_opening(like | hull, iterations=max(1, int(cell * 0.3))) | hull
    joined, _ = ndi.label(like)
    ids = np.unique(joined[hull])
    grown = ndi.binary_fill_holes(np.isin(joined, ids[ids > 0]) | hull)
    if grown.sum() > most:
        grown = hull
    full = convex_hull_image(grown)
    return (full if grown.sum() >= HULL_FILL * full.sum() else grown).astype(np.float64)


def _in_gamut(lab: np.ndarray) -> np.ndarray:
    """The Lab colour as it prints: through sRGB, clipped."""
    rgb = lab_to_srgb(lab[None, None, :])
    return np.asarray(rgb2lab(rgb)[0, 0])


def draw(
    labels: np.ndarray, palette_lab: np.ndarray, accents: list[Accent], slots: int, floor: float
) -> tuple[np.ndarray, np.ndarray, int]:
    """Draw up to ``slots`` new colours of accents over ``labels`` (``palette_lab``: Lab,
    background first). Accents whose own colours are within ``floor`` (ΔE2000) of one
    another share a colour, the most salient group first. A group's colour is its
    leader's, pushed from its surroundings the least of PUSHES that sets it the floor from
    every palette colour. Its dark cores take the palette's darkest colour when that is
    dark and tells from the group's. A group that cannot be set apart, draws fewer than
    MIN_DRAWN cells besides its cores, or would paint over the last cells of a colour is
    left out. Returns the labels, the palette and the number of colours added."""
    if slots <= 0 or not accents:
        return labels, palette_lab, 0
    groups: list[list[Accent]] = []
    for acc in accents:
        for members in groups:
            if _delta(members[0].colour, acc.colour) < floor:
                members.append(acc)
                break
        else:
            groups.append([acc])
    groups.sort(key=lambda g: -sum(a.weight for a in g))
    out, palette = labels.copy(), palette_lab
    for members in groups:
        if len(palette) - len(palette_lab) == slots:
            break
        cells = np.zeros(labels.shape, bool)
        cores = np.zeros(labels.shape, bool)
        for acc in members:
            cells |= acc.shape >= COVER
            cores |= acc.core >= CORE_COVER
        colour = next((c for c in map(members[0].pushed, PUSHES)
                       if min(_delta(c, p) for p in palette) >= floor), None)
        if colour is None:
            continue
        darkest = int(np.argmin(palette[:, 0]))
        if palette[darkest, 0] > CORE_INK or _delta(palette[darkest], colour) < floor:
            cores[:] = False
        if (cells & ~cores).sum() < MIN_DRAWN:
            continue
        drawn = out.copy()
        drawn[cells] = len(palette)
        drawn[cells & cores] = darkest
        if np.count_nonzero(np.bincount(drawn.ravel(), minlength=len(palette))[1:] == 0) > (
                np.count_nonzero(np.bincount(out.ravel(), minlength=len(palette))[1:] == 0)):
            continue  # it would paint over the last cells of a colour
        out, palette = drawn, np.vstack([palette, colour])
    return out, palette, len(palette) - len(palette_lab)


def _delta(a: np.ndarray, b: np.ndarray) -> float:
    return float(deltaE_ciede2000(a, b))
