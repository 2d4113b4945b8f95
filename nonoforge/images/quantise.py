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
from collections.abc import Callable
from dataclasses import dataclass, replace
from numbers import Integral, Real
from typing import Any, TypedDict, Unpack

import numpy as np
from PIL import Image
from skimage.color import deltaE_ciede2000, rgb2lab
from skimage.filters import threshold_otsu

from nonoforge import ranges
from nonoforge.errors import ImageError, UsageError
from nonoforge.images import accents
from nonoforge.images.ground import dark_structures
from nonoforge.images.light import (
    area_weights,
    block_reduce_linear,
    lab_to_srgb,
    linear_to_srgb,
    srgb_to_linear,
)
from nonoforge.images.load import as_rgba
from nonoforge.images.measure import likeness, margins, ssim
from nonoforge.images.smoothing import smooth_lab
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
    background's; on photos after contrast normalisation and smoothing), kept so that
    repairs can measure how far an edit moves from the image. ``source_light`` is each
    cell's plain lightness L*, what likeness is measured against.
    """

    grid: Grid
    palette: Palette
    source_lab: np.ndarray
    palette_lab: np.ndarray
    background_from_alpha: bool
    source_light: np.ndarray | None = None
    photo: bool = False
    #: ``(left, top, right, bottom)`` of the fitted part of the working image, or None.
    crop: tuple[int, int, int, int] | None = None
    wanted_colors: int = 1
    #: Why fewer painted colours than asked came out (None when all did).
    colors_note: str | None = None
    #: The cells where the picture is transparent (its background), None when there are
    #: none; likeness averages their tone apart (:func:`~nonoforge.images.measure.tone_picture`).
    transparent: np.ndarray | None = None

    @property
    def light(self) -> np.ndarray:
        """What likeness is measured against: ``source_light``, or the L* of ``source_lab``
        for a grid quantised without it."""
        return self.source_light if self.source_light is not None else self.source_lab[..., 0]


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
    """The grid ``(width, height)``: the largest that keeps the image's aspect ratio and
    fits in ``size`` (a maximum), or ``width`` wide with the image's aspect."""
    if size is not None and width is not None:
        raise UsageError("give a size or a width, not both")
    if size is not None:
        check_grid_size(*size)
        most_w, most_h = size
        if image_width * most_h >= most_w * image_height:
            return most_w, max(1, min(most_h, round(most_w * image_height / image_width)))
        return max(1, min(most_w, round(most_h * image_width / image_height))), most_h
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
    rgb = lab_to_srgb(np.asarray(lab, dtype=np.float64).reshape(1, 1, 3))[0, 0]
    r, g, b = (int(round(float(v) * 255)) for v in rgb)
    return (r, g, b)


def kmeans(
    points: np.ndarray, k: int, seed: int, n_init: int = 4, iters: int = 50
) -> tuple[np.ndarray, np.ndarray]:
    """Seeded k-means (k-means++ start, best of ``n_init``): ``(centres, labels)``.

    Distances are summed channel by channel over whole columns (:func:`_distances`), not
    over a points x centres x 3 array, and the k-means++ start keeps each point's distance
    to its nearest centre so far instead of recomputing all of them for each new centre:
    the same sums in the same order, so the same centres and labels bit for bit, 3-4x
    faster (a 150x133 photo in 4 colours spent 25 of its 80 s here)."""
    rng = np.random.default_rng(seed)
    n = len(points)
    k = min(k, len(np.unique(points.round(3), axis=0)))
    cols = [np.ascontiguousarray(points[:, ch]) for ch in range(points.shape[1])]
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for _ in range(n_init):
        centres = [points[rng.integers(n)]]
        nearest = _distances(cols, np.array(centres))[:, 0]
        for _ in range(1, k):
            total = nearest.sum()
            idx = rng.choice(n, p=nearest / total) if total > 0 else rng.integers(n)
            centres.append(points[idx])
            nearest = np.minimum(nearest, _distances(cols, points[idx][None])[:, 0])
        c = np.array(centres, dtype=np.float64)
        labels = np.zeros(n, dtype=np.int64)
        for it in range(iters):
            new = np.argmin(_distances(cols, c), axis=1)
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


def _distances(cols: list[np.ndarray], centres: np.ndarray) -> np.ndarray:
    """Squared distances, points x centres, from the points' channels ``cols``: each
    channel's squares added in channel order, as ``((p - c) ** 2).sum(-1)`` adds them."""
    out = np.subtract(cols[0][:, None], centres[None, :, 0])
    np.square(out, out=out)
    part = np.empty_like(out)  # (written in place: the arrays are the time here)
    for ch in range(1, len(cols)):
        np.subtract(cols[ch][:, None], centres[None, :, ch], out=part)
        out += np.square(part, out=part)
    return out


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
    the colour most of its neighbours have. Lines one cell wide survive; lone specks go,
    except those of a painted colour that has no other cells (in colour: a one-cell eye
    keeps its colour in the puzzle)."""
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
        if ncol > 2:  # a colour that exists only as specks (an eye, a button) stays
            for c in range(1, ncol):
                here = out == c
                if here.any() and not (here & ~speck).any():
                    speck &= ~here
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

#: Painted colours, and a painted colour and the background, are at least this far apart
#: (CIEDE2000). Below about 20 two flat swatches of ink are hard to tell apart on paper
#: (issue 17 found ``#a83315``/``#6e2f1c`` at 12 and ``#465473``/``#4d4648`` at 15).
MIN_DELTA = 15.0
#: An opaque image whose 8 commonest colours cover less than this share is a photograph.
PHOTO_SHARE = 0.6
#: Strength of the total-variation smoothing on photos (Lab scaled to 0..1): strong enough
#: to flatten fur, grass and noise at the scale of a cell, while edges survive.
TV_WEIGHT = 0.3
#: Contrast limit of CLAHE (kernel a quarter of the picture): lifts a dim subject out of
#: its surroundings without turning texture into contrast.
CLAHE_CLIP = 0.005
#: The analysis image is shrunk to this many pixels per grid cell (at least 256 a side).
ANALYSIS_PER_CELL = 8
#: A border line is background when this share of its pixels is within UNIFORM_DELTA of it.
UNIFORM_SHARE = 0.98
UNIFORM_DELTA = 8.0
#: Fits: the first, and one more after cropping off the empty lines at its edges (the
#: lines still empty after that are dropped from the grid).
CROP_ROUNDS = 2


#: How far apart (0..1) a pixel's channels may be for :func:`is_photo` to call it grey: 4 of
#: 255 levels, a tint no one sees but that a colour histogram at 6 bits would split on.
GREY_TINT = 4 / 255


def is_photo(rgba: np.ndarray) -> bool:
    """Whether an image is a photograph: opaque, and its 8 commonest colours (6 bits a
    channel, on a sample of up to 20,000 pixels) cover less than PHOTO_SHARE of it. Icons,
    logos and line art are a few flat colours plus anti-aliased edges; photos spread.

    A grey picture (no sampled pixel's channels more than GREY_TINT apart: a faint tint
    from a scanner or a camera's white balance still counts) is judged on its 256 grey
    levels of the channels' mean: at 6
    bits it has only 64 values where a colour picture has 262,144, and a grey photo with a
    narrow histogram (the moon, a blurred clock, a scan of text) put 70-93 % of its pixels
    in 8 of them; at 8 bits 24-55 %. A grey icon (flat greys and their edges) stays over."""
    if float((rgba[..., 3] < 0.5).mean()) >= ALPHA_SHARE:
        return False
    px = rgba.reshape(-1, 4)
    px = px[px[:, 3] >= 0.5]
    px = px[:: max(1, len(px) // 20000)]
    rgb = px[:, :3]
    if float(np.ptp(rgb, axis=1).max(initial=0.0)) <= GREY_TINT:
        keys = np.round(rgb.mean(axis=1) * 255).astype(np.int64)
    else:
        q = np.round(rgb * 63).astype(np.int64)
        keys = (q[:, 0] * 64 + q[:, 1]) * 64 + q[:, 2]
    _, counts = np.unique(keys, return_counts=True)
    top = np.sort(counts)[::-1][:8].sum()
    return bool(top < PHOTO_SHARE * counts.sum())


def enhance(rgba: np.ndarray) -> np.ndarray:
    """The photo path's preparation: contrast-limited adaptive histogram equalisation
    (CLAHE) of lightness, then total-variation smoothing in Lab, which flattens texture and
    noise but keeps edges. Returns float sRGB+alpha of the same shape."""
    return _to_rgba(rgba, smooth_lab(equalised_lab(rgba), TV_WEIGHT))


def equalised_lab(rgba: np.ndarray) -> np.ndarray:
    """Lab of ``rgba`` with its lightness equalised by CLAHE (kernel a quarter of the
    picture, clip CLAHE_CLIP): a dim subject lifted without turning texture into contrast."""
    from skimage import exposure

    lab = rgb2lab(rgba[..., :3])
    h, w = lab.shape[:2]
    light = np.clip(lab[..., 0] / 100.0, 0.0, 1.0)
    lab[..., 0] = 100.0 * exposure.equalize_adapthist(
        light, kernel_size=max(8, min(h, w) // 4), clip_limit=CLAHE_CLIP
    )
    return lab


def _to_rgba(rgba: np.ndarray, lab: np.ndarray) -> np.ndarray:
    out = rgba.copy()
    out[..., :3] = lab_to_srgb(lab)
    return out


def _background_lab(lab: np.ndarray, opaque: np.ndarray) -> np.ndarray:
    """The background's colour: the largest colour cluster of the opaque border pixels."""
    pts = _border(lab)[_border(opaque)]
    if len(pts) == 0:
        return np.array([100.0, 0.0, 0.0])
    step = max(1, len(pts) // 2000)
    pts = pts[::step]
    centres, labels = kmeans(pts, 3, seed=0, n_init=2)
    return centres[int(np.argmax(np.bincount(labels, minlength=len(centres))))]


def trim_box(
    lab: np.ndarray, opaque: np.ndarray, use_alpha: bool, bg_lab: np.ndarray
) -> tuple[int, int, int, int]:
    """``(top, bottom, left, right)`` pixel box inside the uniform background border.

    With a used alpha channel the border is the transparent lines; otherwise the lines
    whose pixels are (nearly all) within UNIFORM_DELTA of the background colour.
    """
    if use_alpha:
        plain = ~opaque
    else:
        plain = (np.sqrt(((lab - bg_lab) ** 2).sum(-1)) < UNIFORM_DELTA) | ~opaque
    rows = plain.mean(axis=1) >= (1.0 if use_alpha else UNIFORM_SHARE)
    cols = plain.mean(axis=0) >= (1.0 if use_alpha else UNIFORM_SHARE)
    h, w = plain.shape
    top = int(np.argmin(rows)) if not rows.all() else 0
    bottom = h - int(np.argmin(rows[::-1])) if not rows.all() else h
    left = int(np.argmin(cols)) if not cols.all() else 0
    right = w - int(np.argmin(cols[::-1])) if not cols.all() else w
    if bottom - top < MIN_CROP or right - left < MIN_CROP:
        return 0, h, 0, w
    return top, bottom, left, right


#: Photo black-and-white: ink pieces and holes smaller than this (8-connected) are noise.
CRUMB = 3
#: Retries from this crumb size on also smooth the shapes (:func:`smooth_shapes`).
SMOOTH_CRUMB = 12
#: Smallest crop box (pixels a side).
MIN_CROP = 4


def _shrink_box(
    box: tuple[int, int, int, int], edges: tuple[int, int, int, int], size: tuple[int, int]
) -> tuple[int, int, int, int]:
    """The pixel box without the empty grid lines ``edges`` (top, bottom, left, right)."""
    top, bottom, left, right = box
    w, h = size
    ch, cw = (bottom - top) / h, (right - left) / w
    t, b, l_, r = edges
    new = (
        top + int(t * ch), bottom - int(b * ch), left + int(l_ * cw), right - int(r * cw)
    )
    if new[1] - new[0] < MIN_CROP or new[3] - new[2] < MIN_CROP:
        return box
    return new


def _grid_long_side(size: tuple[int, int] | None, width: int | None) -> int:
    if size is not None:
        return max(size)
    return max(width or 1, 30)


def _is_int(value: object) -> bool:
    """A whole number (a Python or NumPy integer), not a bool."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    """A real number (not a bool), NaN excluded."""
    return isinstance(value, Real) and not isinstance(value, bool) and value == value


def _whole(least: int) -> Callable[[Any], bool]:
    return lambda v: _is_int(v) and v >= least


def _distance(value: Any) -> bool:
    return _is_real(value) and 0.0 <= value < float("inf")


#: What :class:`QuantiseOptions` refuses, a knob at a time: ``(field, whether a value is
#: usable, the one line that says it is not)``.
_KNOB_CHECKS: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("size", lambda v: v is None or (isinstance(v, tuple) and len(v) == 2
                                     and all(_is_int(x) for x in v)),
     "size must be (width, height), got {!r}"),
    ("width", lambda v: v is None or _whole(1)(v),
     "grid width must be a whole number of cells, got {!r}"),
    ("colors", lambda v: _is_int(v) and 1 <= v <= MAX_COLORS,
     f"colours must be 1..{MAX_COLORS}, got {{}}"),
    ("seed", _whole(0), "seed must be a whole number 0 or more, got {!r}"),
    ("fill", lambda v: v is None or (_is_real(v) and 0.0 < v < 1.0),
     "fill fraction must be between 0 and 1, got {}"),
    ("merge_delta", _distance, "merge delta must be a colour distance 0 or more, got {!r}"),
    ("min_delta", _distance, "min delta must be a colour distance 0 or more, got {!r}"),
    ("despeckle_passes", _whole(0), "despeckle passes must be a whole number 0 or more, "
                                    "got {!r}"),
    ("crumb", _whole(1), "crumb must be a whole number 1 or more, got {!r}"),
    ("crop", lambda v: isinstance(v, bool), "crop must be True or False, got {!r}"),
    ("photo", lambda v: v is None or isinstance(v, bool),
     "photo must be True, False or None, got {!r}"),
)


@dataclass(frozen=True)
class QuantiseOptions:
    """How an image becomes a grid: every knob of :func:`quantise` in one typed record,
    each declared (with its default) here and nowhere else --
    :class:`~nonoforge.images.generate.GenerateOptions` holds one, the CLI builds one.

    ``size`` is the largest ``(width, height)``: the picture keeps its aspect ratio inside
    it; or give ``width`` alone (quantising needs one of them; the record may be built
    without, to be completed with :func:`dataclasses.replace`). ``colors`` is the most
    painted colours (1: black-and-white, or ``fill``: the threshold that inks that fraction
    of the cells); ``seed`` seeds k-means and tie-breaks. Colours closer than
    ``merge_delta`` (CIEDE2000) are one colour, painted colours are at least ``min_delta``
    apart and from the background. ``despeckle_passes`` passes remove one-cell islands of
    plain black-and-white pictures; on black-and-white photos ink pieces and holes under
    ``crumb`` cells are dropped. ``crop`` trims uniform borders and empty edge lines so the
    subject fills the frame; ``photo`` forces the photo path on or off (None: decided from
    the image, :func:`is_photo`).

    A value no quantising could use is refused when the record is made, in one line:

    >>> QuantiseOptions(colors=0)
    Traceback (most recent call last):
    ...
    nonoforge.errors.UsageError: colours must be 1..16, got 0
    """

    size: tuple[int, int] | None = None
    width: int | None = None
    colors: int = 1
    seed: int = 0
    fill: float | None = None
    merge_delta: float = DEFAULT_MERGE_DELTA
    despeckle_passes: int = 2
    crop: bool = True
    photo: bool | None = None
    min_delta: float = MIN_DELTA
    crumb: int = CRUMB

    def __post_init__(self) -> None:
        for name, usable, says in _KNOB_CHECKS:
            value = getattr(self, name)
            if not usable(value):
                raise UsageError(says.format(value))
        if self.size is not None:
            check_grid_size(*self.size)
            if self.width is not None:
                raise UsageError("give a size or a width, not both")

    @classmethod
    def given(cls, options: QuantiseOptions | None, knobs: QuantiseKnobs) -> QuantiseOptions:
        """``options``, or the record the keyword arguments ``knobs`` make (the older call
        form): refused in one line when both are given."""
        if options is None:
            return cls(**knobs)
        if knobs:
            raise UsageError("give the quantising options either as an options record or "
                             "as keyword arguments, not both")
        return options


class QuantiseKnobs(TypedDict, total=False):
    """:class:`QuantiseOptions`' fields as keyword arguments, the older call form of
    :func:`quantise` and :func:`prepare` (``quantise(image, size=(30, 30))``), kept for
    callers written before the record and deprecated: give a :class:`QuantiseOptions`.
    Names and types only -- the defaults live in the record (a test keeps the two alike)."""

    size: tuple[int, int] | None
    width: int | None
    colors: int
    seed: int
    fill: float | None
    merge_delta: float
    despeckle_passes: int
    crop: bool
    photo: bool | None
    min_delta: float
    crumb: int


def quantise(
    image: ImageSource,
    options: QuantiseOptions | None = None,
    **knobs: Unpack[QuantiseKnobs],
) -> Quantised:
    """Reduce an image to a grid of at most ``colors`` painted colours plus the background,
    as ``options`` (:class:`QuantiseOptions`, which says what each knob does) asks.

    The keyword arguments (``quantise(image, size=(30, 30), colors=4)``) are the older
    form of the same record, deprecated: give ``QuantiseOptions(size=(30, 30), colors=4)``.

    With ``crop`` (the default) uniform background borders are trimmed first, and empty
    lines left at the grid's edges are cropped off and the grid fitted again, so the
    subject fills the frame. The photo path (``photo``, by default decided from the image,
    see :func:`is_photo`) takes CLAHE, edge-preserving smoothing and, in black-and-white,
    the silhouette of highest SSIM, the plain Otsu picture or a sketch, whichever is most
    like the source (band-passed likeness, :func:`_bw_likeness`; a light subject on a
    smooth dark ground keeps the structures around it, :func:`with_structures`). Same
    inputs and seed, same grid. (:func:`prepare` then :meth:`Prepared.quantise`, for
    several quantisings of one picture.)
    """
    return prepare(image, QuantiseOptions.given(options, knobs)).quantise()


def prepare(
    image: ImageSource,
    options: QuantiseOptions | None = None,
    **knobs: Unpack[QuantiseKnobs],
) -> Prepared:
    """The part of :func:`quantise` that depends only on the picture and the options' grid,
    colours, fill, crop and photo knobs: the image read, shrunk for analysis, on photos
    equalised and smoothed, its background colour and its trimmed box. ``generate``
    quantises a photo up to four times with coarser crumbs; it prepares it once (the
    smoothing is most of a large photo's quantising). The keyword arguments are the older,
    deprecated form of ``options``, as for :func:`quantise`."""
    opts = QuantiseOptions.given(options, knobs)
    size, width, colors, fill = opts.size, opts.width, opts.colors, opts.fill
    rgba = as_rgba(image)
    fit_size(rgba.shape[1], rgba.shape[0], size, width)  # argument errors before any work
    opaque_px = rgba[..., 3] >= 0.5
    if not opaque_px.any():
        raise ImageError("the image is transparent: nothing to draw")
    use_alpha = float((~opaque_px).mean()) >= ALPHA_SHARE
    photo = is_photo(rgba) if opts.photo is None else opts.photo
    k = -(-max(rgba.shape[:2]) // max(256, ANALYSIS_PER_CELL * _grid_long_side(size, width)))
    if k > 1:
        rgba = block_reduce_linear(rgba, k)
    opaque_px = rgba[..., 3] >= 0.5
    work, sketch_light, structures = _prepare(rgba, photo, colors == 1 and fill is None)
    work_lab = rgb2lab(work[..., :3])
    bg_lab = np.array([100.0, 0.0, 0.0]) if use_alpha else _background_lab(work_lab, opaque_px)
    h_px, w_px = rgba.shape[:2]
    box = trim_box(work_lab, opaque_px, use_alpha, bg_lab) if opts.crop else (0, h_px, 0, w_px)
    for shared in (rgba, work, sketch_light, structures, bg_lab):
        if shared is not None:
            shared.flags.writeable = False  # quantised again and again: never changed
    return Prepared(replace(opts, photo=photo), use_alpha, k, rgba, work, sketch_light,
                    structures, bg_lab, box)


@dataclass(frozen=True, eq=False)
class Prepared:
    """A picture made ready by :func:`prepare` (its options, ``photo`` decided, then what
    they gave): quantise it with :meth:`quantise` as often as needed."""

    options: QuantiseOptions
    use_alpha: bool
    k: int  # the analysis picture is the image shrunk k times
    rgba: np.ndarray
    work: np.ndarray
    sketch_light: np.ndarray | None
    structures: np.ndarray | None
    bg_lab: np.ndarray
    box: tuple[int, int, int, int]

    @property
    def photo(self) -> bool:
        """Whether the picture takes the photo path (as asked, or as :func:`is_photo`
        decided)."""
        return bool(self.options.photo)

    def quantise(self, crumb: int | None = None) -> Quantised:
        """The grid :func:`quantise` gives with the prepared options, or with ``crumb``
        in place of theirs (``generate`` retries a photo with coarser crumbs)."""
        opts = self.options if crumb is None else replace(self.options, crumb=crumb)
        return _quantise_prepared(self, opts)


def _quantise_prepared(pre: Prepared, opts: QuantiseOptions) -> Quantised:
    """:meth:`Prepared.quantise` with ``opts`` (``photo`` decided): fit the prepared picture
    to the grid (cropping its empty edge lines) and draw it, then name its colours."""
    size, width, colors, crop, photo = opts.size, opts.width, opts.colors, opts.crop, pre.photo
    min_delta, merge_delta = opts.min_delta, opts.merge_delta
    use_alpha, k, rgba, work, bg_lab, box = (
        pre.use_alpha, pre.k, pre.rgba, pre.work, pre.bg_lab, pre.box)
    sketch_light, structures = pre.sketch_light, pre.structures
    for _ in range(CROP_ROUNDS if crop else 1):
        top, bottom, left, right = box
        w, h = fit_size(right - left, bottom - top, size, width)
        sub = rgba[top:bottom, left:right]
        wsub = work[top:bottom, left:right]
        ssub = None if sketch_light is None else sketch_light[top:bottom, left:right]
        dsub = None if structures is None else structures[top:bottom, left:right]
        labels, palette_lab, lab, wlab, transparent, note = _quantise_fitted(
            sub, wsub, w, h, use_alpha, bg_lab, opts, ssub, dsub
        )
        if not crop or not (labels != 0).any():
            break
        edges = margins(labels)
        if not any(edges):
            break
        new = _shrink_box(box, edges, (w, h))
        if new == box:
            break
        box = new
    if crop and (labels != 0).any():
        t, b, l_, r = margins(labels)
        keep = (slice(t, labels.shape[0] - b), slice(l_, labels.shape[1] - r))
        labels, lab, wlab, transparent = labels[keep], lab[keep], wlab[keep], transparent[keep]
    chosen = len(palette_lab) - 1
    labels, palette_lab = _drop_unused(labels, palette_lab)
    kept = len(palette_lab) - 1
    if colors > 1 and kept < min(chosen, colors):
        note = (
            f"{kept} of {colors} colours: {chosen} found at least ΔE2000 "
            f"{max(min_delta, merge_delta):g} apart, {chosen - kept} only in specks "
            "(one-cell islands, removed)"
        )
    if palette_lab.shape[0] < 2:
        raise ImageError("the image is a single flat colour: nothing to draw")
    source = wlab.copy()
    source[transparent] = palette_lab[0]
    light = lab[..., 0].copy()
    light[transparent] = palette_lab[0, 0]
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
    return Quantised(
        Grid(labels), palette, source, palette_lab, use_alpha, source_light=light, photo=photo,
        crop=(box[2] * k, box[0] * k, box[3] * k, box[1] * k) if crop else None,
        wanted_colors=colors, colors_note=note,
        transparent=transparent if transparent.any() else None,
    )


def _prepare(
    rgba: np.ndarray, photo: bool, drawn: bool
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """What the picture is quantised from: ``(work, sketch_light, structures)`` -- on photos
    the CLAHE'd, TV-smoothed picture, and for black-and-white pictures drawn by likeness
    (``drawn``) the texture-free lightness sketches are drawn from and the pixels darker
    than a smooth ground (:func:`~nonoforge.images.ground.dark_structures`); else the
    picture itself and nothing."""
    if not photo:
        return rgba, None, None
    equal = equalised_lab(rgba)
    work = _to_rgba(rgba, smooth_lab(equal, TV_WEIGHT))
    if not drawn:
        return work, None, None
    return work, smooth_lab(equal, SKETCH_TV)[..., 0], dark_structures(rgb2lab(rgba[..., :3]))


def _quantise_fitted(
    rgba: np.ndarray,
    work: np.ndarray,
    w: int,
    h: int,
    use_alpha: bool,
    bg_lab: np.ndarray,
    o: QuantiseOptions,
    sketch_light: np.ndarray | None = None,
    structures: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, str | None]:
    """One fit of the (cropped) image to a ``w x h`` grid: labels, palette, the source's
    Lab per cell (plain and prepared), its transparent cells, and a note when fewer colours
    than asked exist. ``sketch_light`` (pixels) is what black-and-white photo sketches are
    drawn from; ``structures`` (pixels) what is darker than a smooth ground
    (:func:`~nonoforge.images.ground.dark_structures`)."""
    rgb, cover = area_average(rgba, w, h)
    lab = rgb2lab(rgb)
    transparent = cover < 0.5
    if transparent.all():
        raise ImageError("the image is transparent: nothing to draw")
    if work is rgba:
        wlab = lab
    else:
        wrgb, _ = area_average(work, w, h)
        wlab = rgb2lab(wrgb)
    note = None
    if o.colors == 1:
        if o.photo and o.fill is None:
            light = rgb2lab(work[..., :3])[..., 0] if sketch_light is None else sketch_light
            labels, palette_lab = _bw_likeness(lab, wlab, light, transparent, bg_lab, o,
                                               structures)
        else:
            labels, palette_lab = _bw(wlab, transparent, use_alpha, o.fill, bg_lab)
            if o.despeckle_passes and min(h, w) >= 3:
                labels = despeckle(labels, o.despeckle_passes)
    else:
        labels, palette_lab, note = _colour(lab, wlab, transparent, use_alpha, bg_lab, o)
        slots = o.colors + 1 - len(palette_lab)
        if o.photo and not use_alpha and slots > 0:
            found = accents.find(rgb2lab(rgba[..., :3]), w, h)
            labels, palette_lab, added = accents.draw(
                labels, palette_lab, found, slots, max(o.min_delta, o.merge_delta))
            if added:
                note = None if added == slots else (
                    f"{note}; {added} more drawn for small features (accents)")
    return labels, palette_lab, lab, wlab, transparent, note


def _bw(
    lab: np.ndarray,
    transparent: np.ndarray,
    use_alpha: bool,
    fill: float | None,
    bg_lab: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Black-and-white labels.

    With a used alpha channel the opaque shape is the ink (a silhouette), or its darkest
    cells when a ``fill`` fraction is asked for. Otherwise lightness is thresholded (Otsu, or
    the quantile that inks ``fill`` of the cells) and ink is the side the background
    (``bg_lab``, found on the whole frame's border) is not on.
    """
    light = lab[..., 0]
    if use_alpha and fill is None:
        return _silhouette(light, ~transparent).astype(np.int64), BW_LAB
    opaque = ~transparent
    vals = light[opaque]
    if use_alpha:
        assert fill is not None
        k = min(len(vals), max(1, round(fill * light.size)))
        t = float(np.sort(vals)[k - 1])
        return ((light <= t) & opaque).astype(np.int64), BW_LAB
    if _flat(vals):
        # one flat colour: all ink when it stands out from the frame's background (a
        # shape cropped to its edges), else there is nothing to draw
        if abs(float(bg_lab[0]) - float(vals.mean())) < HOLE_CONTRAST / 3:
            raise ImageError("the image is a single flat colour: nothing to draw")
        return opaque.astype(np.int64), BW_LAB
    if fill is None:
        ink = _ink_side(light, float(threshold_otsu(vals)), bg_lab)
    else:
        dark_ink = float(bg_lab[0]) >= float(np.median(vals))
        t = float(np.quantile(vals, fill if dark_ink else 1.0 - fill))
        ink = (light <= t) if dark_ink else (light > t)
    return (ink & opaque).astype(np.int64), BW_LAB


BW_LAB = np.array([[100.0, 0.0, 0.0], [0.0, 0.0, 0.0]])


def drop_crumbs(labels: np.ndarray, size: int = CRUMB) -> np.ndarray:
    """Black-and-white labels without ink pieces or holes under ``size`` cells (8-connected):
    a photo's grain becomes two-cell blobs the speck filter keeps, and a field of them is
    both meaningless and ambiguous."""
    from skimage.measure import label

    ink = labels.astype(bool)
    for value in (True, False):
        parts, n = label(ink == value, background=0, connectivity=2, return_num=True)
        if n:
            sizes = np.bincount(parts.ravel())
            small = (sizes < size) & (np.arange(n + 1) > 0)
            ink[small[parts]] = not value
    return ink.astype(np.int64)


def smooth_shapes(labels: np.ndarray) -> np.ndarray:
    """Black-and-white labels closed (3x3) then opened (2x2): gaps between nearby pieces
    filled, then spurs and one-cell bridges cut. Rows and columns get fewer, longer blocks,
    which line logic settles where a field of small blobs (a star field) stays ambiguous
    under any few edits (hubble_deep_field at 45x45: 108 edits not accepted, 19 after)."""
    from skimage.morphology import closing, opening

    ink = labels.astype(bool)
    ink = closing(np.pad(ink, 1, mode="edge"), np.ones((3, 3), dtype=bool))[1:-1, 1:-1]
    return opening(ink, np.ones((2, 2), dtype=bool)).astype(np.int64)


def _grow(mask: np.ndarray) -> np.ndarray:
    """``mask`` with its 8-neighbours."""
    h, w = mask.shape
    pad = np.pad(mask, 1)
    out = np.zeros_like(mask)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            out |= pad[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
    return out


def merge_crumbs(labels: np.ndarray, size: int) -> np.ndarray:
    """Colour labels with every piece under ``size`` cells (8-connected, any colour) given
    the colour most common around it, smallest pieces first."""
    from skimage.measure import label

    out = labels.copy()
    pieces = []
    for c in np.unique(out):
        parts, n = label(out == c, background=0, connectivity=2, return_num=True)
        sizes = np.bincount(parts.ravel())
        pieces += [(int(sizes[i]), int(c), parts == i) for i in range(1, n + 1) if sizes[i] < size]
    for _, c, mask in sorted(pieces, key=lambda t: t[0]):
        if not (out[mask] == c).all():
            continue
        ring = _grow(mask) & ~mask
        around = out[ring]
        if len(around):
            out[mask] = int(np.bincount(around).argmax())
    return out


#: SSIM one frame's worth of empty edge lines costs a threshold (silhouette) candidate.
MARGIN_PENALTY = 0.15
#: Likeness one frame's worth of empty edge lines costs a sketch: band-passed likeness
#: spreads candidates wider than SSIM, so at the silhouettes' 0.15 a sketch with empty edge
#: lines wins and is cropped (the coins at 30 cells: 29x23 against 30x23 at 0.3; the rocket
#: at 45 was 39x26 against 44x27 while it was drawn as a sketch). What keeps a sketch from
#: leaving a corner is SKETCH_EMPTY.
SKETCH_MARGIN_PENALTY = 0.3
#: Quantiles of the lightness tried as black-and-white thresholds on photos.
THRESHOLD_QUANTILES = tuple(np.round(np.arange(0.1, 0.91, 0.05), 2))
#: Sketches of black-and-white photos (:func:`sketch`): the surround's scale (Gaussian
#: sigma, in cells), how much darker than its surround a pixel must be (L*), the share of
#: the darkest pixels filled as well, and the share of a cell's pixels that inks it.
SKETCH_SURROUNDS = (1.5, 2.5)
SKETCH_CONTRASTS = (5.0, 8.0, 12.0)
SKETCH_FILLS = (0.0, 0.1)
SKETCH_SHARES = (0.2, 0.3)
#: Centres of the sketch's difference of Gaussians (sigma, in cells).
SKETCH_CENTRES = (0.35, 0.6)
#: Total-variation weight of the picture sketches are drawn from: much stronger than the
#: photo path's TV_WEIGHT, so fur, grass and grain flatten at the scale of a cell and only
#: the strokes a person would draw (eyes, rims, outlines) are left darker than their
#: surround (the cat's sketch was a field of fur strokes at TV_WEIGHT).
SKETCH_TV = 0.9
#: Black-and-white photos: candidates whose likeness is within this of the best one are
#: equally like their source as far as the band-passed likeness can tell (it moves by about
#: this much between neighbouring thresholds of one silhouette); of those the one of highest
#: SSIM, which weighs tone, is drawn (docs/images.md, "Black-and-white photos").
LIKENESS_TIE = 0.01
#: Retries from this crumb size on draw threshold pictures only (silhouette or plain
#: Otsu): a sketch whose thin strokes stayed ambiguous through the earlier retries gives
#: way to a simplified threshold picture (the cat at 45 cells: 79 edits, not accepted, as
#: a sketch at every crumb size).
SKETCH_LAST_CRUMB = 24
#: A sketch that leaves more than this share of a frame in empty edge lines is not drawn:
#: its few strokes would be cropped into a small puzzle of a corner of the picture (a
#: page of text at 20 cells became 4x8). A rocket standing in the middle of its sky leaves
#: half a frame (at 0.25 the rocket at 45 cells was a silhouette of blobs).
SKETCH_EMPTY = 0.75


def sketch(
    ink_light: np.ndarray,
    cell: float,
    surround: float,
    contrast: float,
    fill: float,
    centre: float = SKETCH_CENTRES[0],
) -> np.ndarray:
    """Line art of a picture, per pixel: the pixels darker than their surround by
    ``contrast`` (a difference of Gaussians: sigmas ``centre`` and ``surround`` cells of
    ``cell`` pixels), plus the darkest ``fill`` share. ``ink_light`` is lightness
    with ink dark (a picture whose ink is its light side is passed inverted).

    A threshold per neighbourhood: eyes, a smile, a cat's ears and nose stand out of their
    own surroundings where one threshold for the whole picture lumps them with everything
    around them into blobs.
    """
    from skimage.filters import gaussian

    mid = gaussian(ink_light, sigma=centre * cell, mode="nearest", preserve_range=True)
    around = gaussian(ink_light, sigma=surround * cell, mode="nearest", preserve_range=True)
    ink = mid < around - contrast
    if fill > 0:
        ink |= ink_light < float(np.quantile(ink_light, fill))
    return ink


def _silhouettes(
    lab: np.ndarray, wlab: np.ndarray, opaque: np.ndarray, bg_lab: np.ndarray
) -> list[np.ndarray]:
    """Otsu's threshold and the lightness quantiles of the prepared and the plain picture,
    ink the side away from the background's lightness."""
    out = []
    for light in (wlab[..., 0], lab[..., 0]):
        vals = light[opaque]
        if _flat(vals):
            continue
        ts = {float(threshold_otsu(vals))}
        ts |= {float(np.quantile(vals, q)) for q in THRESHOLD_QUANTILES}
        out += [_ink_side(light, t, bg_lab) & opaque for t in sorted(ts)]
    return out


def _flat(vals: np.ndarray) -> bool:
    """One lightness throughout (nothing for a threshold to split)."""
    return bool(np.ptp(vals) < 1e-6)


def _ink_side(light: np.ndarray, t: float, bg_lab: np.ndarray) -> np.ndarray:
    """The cells on the side of threshold ``t`` away from the background's lightness."""
    return (light <= t) if float(bg_lab[0]) > t else (light > t)


def _plain_otsu(light: np.ndarray, opaque: np.ndarray, bg_lab: np.ndarray) -> np.ndarray:
    """The plain method's picture: Otsu's threshold on the unprepared cells' lightness,
    ink the side away from the background (what ``bench/generate.py`` compares against)."""
    vals = light[opaque]
    if _flat(vals):
        return np.zeros(light.shape, dtype=bool)
    return _ink_side(light, float(threshold_otsu(vals)), bg_lab) & opaque


def _sketches(
    light: np.ndarray, wlab: np.ndarray, opaque: np.ndarray, bg_lab: np.ndarray
) -> list[np.ndarray]:
    """Sketches (:func:`sketch`) of the lightness ``light`` (pixels; texture smoothed away
    at SKETCH_TV), fitted to the grid of ``wlab``: a cell is ink when SKETCH_SHARES of its
    pixels are."""
    h, w = wlab.shape[:2]
    vals = wlab[..., 0][opaque]
    if _flat(vals):
        return []
    dark_ink = float(bg_lab[0]) > float(threshold_otsu(vals))
    ink_light = light if dark_ink else 100.0 - light
    ry = area_weights(light.shape[0], h)
    rx = area_weights(light.shape[1], w)
    cell = float(np.sqrt(light.shape[0] / h * light.shape[1] / w))
    out = []
    for centre in SKETCH_CENTRES:
        for surround in SKETCH_SURROUNDS:
            for contrast in SKETCH_CONTRASTS:
                for fill in SKETCH_FILLS:
                    ink = sketch(ink_light, cell, surround, contrast, fill, centre)
                    share = ry @ ink @ rx.T
                    out += [(share >= s) & opaque for s in SKETCH_SHARES]
    return out


def _best_bw(
    light: np.ndarray,
    candidates: list[np.ndarray],
    o: QuantiseOptions,
    measure: Callable[[np.ndarray, np.ndarray], float] = ssim,
    penalty: float = MARGIN_PENALTY,
    most_empty: float = 2.0,
) -> tuple[float, np.ndarray] | None:
    """Of black-and-white ink masks, the one whose despeckled picture scores highest by
    ``measure`` against ``light``, less ``penalty`` per frame of empty edge lines (those
    would be cropped away, shrinking the puzzle), skipping those with more than
    ``most_empty`` frames of them: ``(score, labels)``, or None."""
    best: tuple[float, np.ndarray] | None = None
    for ink in candidates:
        labels = _as_drawn(ink, o)
        if not labels.any() or labels.all():
            continue
        empty = _empty_frames(labels)
        if empty > most_empty:
            continue
        score = measure(light, labels) - penalty * empty
        if best is None or score > best[0]:
            best = (score, labels)
    return best


def _as_drawn(ink: np.ndarray, o: QuantiseOptions) -> np.ndarray:
    """A black-and-white ink mask as a photo puzzle draws it: despeckled, smoothed on late
    retries (:func:`smooth_shapes`), pieces and holes under ``o.crumb`` cells dropped."""
    labels = ink.astype(np.int64)
    if o.despeckle_passes and min(labels.shape) >= 3:
        labels = despeckle(labels, o.despeckle_passes)
        if o.crumb >= SMOOTH_CRUMB:  # a late retry after failed repairs
            labels = smooth_shapes(labels)
        labels = drop_crumbs(labels, o.crumb)
    return labels


#: :func:`with_structures` draws strokes only where the picture leaves at least this many
#: frames of empty edge lines (it would be cropped to its subject: the rocket at 30 cells,
#: 25x16 of 30x20, 0.37 frames).
STRUCTURE_EMPTY = 0.25
#: A cell is on a structure when this share of its pixels is (lattice towers are mostly
#: sky between their struts).
STRUCTURE_SHARE = 0.15


def with_structures(
    labels: np.ndarray,
    structures: np.ndarray,
    light: np.ndarray,
    opaque: np.ndarray,
    bg_lab: np.ndarray,
    o: QuantiseOptions,
) -> np.ndarray:
    """``labels`` with the structures darker than a smooth ground drawn as one-cell strokes,
    when its ink is the light side (a light subject on a dark ground: a threshold or sketch
    cannot ink what is darker than the ground) and it leaves STRUCTURE_EMPTY frames or more
    of empty edge lines (the subject alone would be cropped out of its scene). ``structures``
    is a pixel mask (:func:`~nonoforge.images.ground.dark_structures`), ``light`` the cells'
    L*. A cell is on a structure when STRUCTURE_SHARE of its pixels are; those cells are
    thinned to their skeleton and kept one cell clear of the ink (the rocket stands apart from
    the towers and the horizon), and the ink's one-cell lines are drawn two cells thick
    (:func:`_bold`). The rocket between its four launch towers."""
    from skimage.morphology import skeletonize

    vals = light[opaque]
    if min(labels.shape) < 3 or _flat(vals):
        return labels
    if float(bg_lab[0]) > float(threshold_otsu(vals)):  # dark ink: thresholds ink them
        return labels
    empty = _empty_frames(labels) if labels.any() else 2.0
    if empty < STRUCTURE_EMPTY:
        return labels
    h, w = labels.shape
    ry, rx = area_weights(structures.shape[0], h), area_weights(structures.shape[1], w)
    share = ry @ structures @ rx.T
    strokes = skeletonize(share >= STRUCTURE_SHARE) & opaque & ~_grow(labels != 0)
    if int(strokes.sum()) < max(h, w):  # a rim's few cells, not structures across a scene
        return labels
    drawn = _as_drawn(_bold(labels != 0) | strokes, o)
    if not drawn.any() or _empty_frames(drawn) >= empty:
        return labels
    return drawn


def _bold(ink: np.ndarray) -> np.ndarray:
    """``ink`` with its one-cell lines drawn two cells thick: a cell alone in its row's run
    gains the cell to its right, one alone in its column's run the cell below, except at a
    line's top or left end (a rocket's nose stays one cell). Beside one-cell strokes the
    subject keeps the heavier line (the rocket at 30 cells, 1.2 cells wide, was one more
    line among its towers)."""
    pad = np.pad(ink, 1)
    vertical = ink & ~pad[1:-1, :-2] & ~pad[1:-1, 2:] & pad[:-2, 1:-1]
    horizontal = ink & ~pad[:-2, 1:-1] & ~pad[2:, 1:-1] & pad[1:-1, :-2]
    out = ink.copy()
    out[:, 1:] |= vertical[:, :-1]
    out[1:, :] |= horizontal[:-1, :]
    return out


def _empty_frames(labels: np.ndarray) -> float:
    """Empty edge lines, in frames (all four edges of the grid being 2)."""
    h, w = labels.shape
    t_, b_, l_, r_ = margins(labels)
    return (t_ + b_) / h + (l_ + r_) / w


def _bw_likeness(
    lab: np.ndarray,
    wlab: np.ndarray,
    sketch_light: np.ndarray,
    transparent: np.ndarray,
    bg_lab: np.ndarray,
    o: QuantiseOptions,
    structures: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Black-and-white photo: a silhouette, the plain Otsu picture, or a sketch, whichever
    is most like the source.

    Three candidates, each despeckled and cleared of crumbs: the silhouette (the best by
    SSIM, :func:`_best_bw` -- thresholds differ in tone, which SSIM weighs -- of Otsu's
    threshold and the lightness quantiles of the prepared and the plain picture), the plain
    method's picture (:func:`_plain_otsu`: so the photo path is never less like its source
    than a plain resize and Otsu, but for the specks and crumbs a puzzle must not have), and
    the sketch (the best by likeness of :func:`_sketches` of ``sketch_light``, the picture
    with its texture smoothed away: a face's eyes and smile, a cup's rims). The drawn one
    has the highest band-passed likeness (:func:`~nonoforge.images.measure.likeness`), or,
    among those within LIKENESS_TIE of it, the highest SSIM (docs/images.md, "Black-and-white
    photos"). They are compared as drawn: the empty edge lines of either are cropped off
    (the frame fits the subject); only a sketch that would leave a corner is out
    (SKETCH_EMPTY). A light subject that the drawn picture would crop out of its scene gets
    the ``structures`` darker than its ground as strokes (:func:`with_structures`)."""
    opaque = ~transparent
    light = lab[..., 0]
    silhouette = _best_bw(light, _silhouettes(lab, wlab, opaque, bg_lab), o)
    if silhouette is None:
        raise ImageError("the image is a single flat colour: nothing to draw")
    plain = _best_bw(light, [_plain_otsu(light, opaque, bg_lab)], o)
    best = silhouette[1] if plain is None else most_alike(light, [silhouette[1], plain[1]])
    if min(lab.shape[:2]) >= 3 and o.crumb < SKETCH_LAST_CRUMB:
        drawn = _best_bw(light, _sketches(sketch_light, wlab, opaque, bg_lab), o, likeness,
                         SKETCH_MARGIN_PENALTY, SKETCH_EMPTY)
        if drawn is not None:
            best = sketch_or_threshold(light, drawn[1], best)
        if structures is not None:
            best = with_structures(best, structures, wlab[..., 0], opaque, bg_lab, o)
    return best, BW_LAB


def sketch_or_threshold(light: np.ndarray, drawn: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    """The sketch ``drawn`` when its likeness to ``light`` is over LIKENESS_TIE higher than
    the threshold picture's, or within LIKENESS_TIE of it and its clues hold fewer numbers
    (:func:`blocks`); else the threshold picture. Pictures of two kinds, lines and masses,
    are not compared by SSIM, which prefers masses (docs/images.md, "Likeness")."""
    gain = likeness(light, drawn) - likeness(light, threshold)
    if gain > LIKENESS_TIE or (gain >= -LIKENESS_TIE and blocks(drawn) < blocks(threshold)):
        return drawn
    return threshold


def blocks(labels: np.ndarray) -> int:
    """How many numbers the clues of a black-and-white picture hold (ink runs in its rows
    and columns): of two pictures equally like their source, the one with fewer numbers
    leaves line logic less to confuse and needs fewer edits to be unique."""
    ink = labels != 0
    starts = int((ink[:, 0]).sum() + (ink[:, 1:] & ~ink[:, :-1]).sum())
    return starts + int((ink[0]).sum() + (ink[1:] & ~ink[:-1]).sum())


def most_alike(light: np.ndarray, pictures: list[np.ndarray]) -> np.ndarray:
    """Of black-and-white pictures of one grid, the one of highest likeness to ``light``,
    or, among those within LIKENESS_TIE of it, the one of highest SSIM (the first on a
    tie). Grids under 3 cells a side have neither measure: the first is drawn."""
    scored = [(_score(likeness(light, p)), _score(ssim(light, p)), i)
              for i, p in enumerate(pictures)]
    top = max(s[0] for s in scored)
    near = [s for s in scored if s[0] >= top - LIKENESS_TIE]
    return pictures[max(near, key=lambda s: (s[1], -s[2]))[2]]


def _score(value: float) -> float:
    """A likeness or SSIM to rank by: nan (a grid too small to measure) ranks lowest."""
    return -np.inf if np.isnan(value) else value


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


#: Candidate colours (k-means clusters) the colour path chooses its palette from.
CANDIDATES_PER_COLOUR = 3


#: Exponents of a candidate's size in the pick score; each gives one palette, the one with
#: the most colours (then the highest SSIM) wins.
SIZE_WEIGHTS = (0.0, 0.25, 0.5, 1.0)


def _pick(
    dist: np.ndarray, counts: np.ndarray, bg: int, total: int, floor: float, size_weight: float
) -> list[int]:
    """Greedy palette: from ``bg``, add the candidate of best ``cells ** size_weight x
    min(ΔE to the chosen, 50)`` among those at least ``floor`` from every chosen one."""
    chosen = [bg]
    while len(chosen) < total:
        near = dist[:, chosen].min(axis=1)
        score = counts**size_weight * np.minimum(near, 50.0)
        score[(near < floor) | (counts == 0)] = -1.0
        j = int(np.argmax(score))
        if score[j] < 0:
            break
        chosen.append(j)
    return chosen


def _colour(
    lab: np.ndarray,
    wlab: np.ndarray,
    transparent: np.ndarray,
    use_alpha: bool,
    bg_lab: np.ndarray,
    o: QuantiseOptions,
) -> tuple[np.ndarray, np.ndarray, str | None]:
    """Colour: choose ``colors`` painted colours at least the ΔE floor apart, and from the
    background.

    The cells are over-clustered (seeded k-means on the prepared colours -- on photos
    contrast-normalised, so a dim photo still yields distinct inks -- about three clusters
    per colour asked). The background is the cluster nearest the background colour (white for a
    transparent ground). Painted colours are then picked one at a time, the candidate that
    best combines size and distance (``cells ** a x min(ΔE to those chosen, 50)``, a run
    each for a in SIZE_WEIGHTS = 0, 0.25, 0.5, 1) among those at least the floor from every
    colour already chosen; when every greedy run stops short of the colours asked and more
    exist, the largest palettes that clear the floor are tried too (:func:`_widest`).
    Each palette is drawn two ways: each cluster joins its nearest chosen colour, or (first
    attempt only) each cell takes the chosen colour nearest its own colour in the prepared
    and in the plain picture (:func:`_nearest`); the drawing with most colours, then highest
    SSIM as drawn (despeckled; on retries as quantised, then simplified), is kept. Palette
    colours are the chosen clusters' own colours, so the floor holds exactly. When fewer
    candidates clear the floor than asked, the picture lacks the colours: the returned
    note says so.
    """
    h, w = lab.shape[:2]
    mask = ~transparent.reshape(-1)
    floor = max(o.min_delta, o.merge_delta)
    k = min(24, CANDIDATES_PER_COLOUR * (o.colors + 1) + 4)
    best: tuple[Any, ...] | None = None
    sources = (wlab, lab) if wlab is not lab else (lab,)
    for source in sources:
        cand, counts, lbl, bg, dist = _candidates(source, mask, k, use_alpha, bg_lab, o.seed)
        palettes = _palettes(dist, counts, bg, o.colors + 1, floor)
        seen: set[tuple[int, ...]] = set()
        for chosen in palettes:
            if tuple(chosen) in seen:
                continue
            seen.add(tuple(chosen))
            grids = [_by_cluster(chosen, dist, lbl, mask, h, w)]
            if o.crumb <= CRUMB:  # retries simplify: clusters, as before (docs/images.md)
                grids += [_nearest(cells, cand[chosen], mask) for cells in sources]
            for grid in grids:
                grid[~mask.reshape(h, w)] = 0
                if o.crumb <= CRUMB:  # compared as drawn (retries: as before)
                    grid = _tidy(grid, o)
                score = ssim(lab[..., 0], grid) if min(h, w) >= 3 else 0.0
                if best is None or (len(chosen), score) > best[:2]:
                    best = (len(chosen), score, chosen, grid, cand, dist, counts, bg, lbl)
    assert best is not None
    return _colour_chosen(best, mask, h, w, floor, o)


def _candidates(
    source: np.ndarray, mask: np.ndarray, k: int, use_alpha: bool, bg_lab: np.ndarray,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray]:
    """The candidate colours of :func:`_colour` for one prepared picture: ``k`` k-means
    clusters of its visible cells (plus white first for a transparent ground); returns
    their colours, cell counts, each visible cell's cluster, the background's cluster and
    the candidates' ΔE2000 distances to each other."""
    centres, lbl = kmeans(source.reshape(-1, 3)[mask], k, seed)
    n = len(centres)
    counts = np.bincount(lbl, minlength=n).astype(np.float64)
    cand = centres.copy()
    if use_alpha:
        cand = np.vstack([[100.0, 0.0, 0.0], cand])
        counts = np.concatenate([[0.0], counts])
        lbl = lbl + 1
        n += 1
        bg = 0
    else:
        bg = int(np.argmin(deltaE_ciede2000(np.broadcast_to(bg_lab, cand.shape), cand)))
    dist = np.array([[float(deltaE_ciede2000(cand[i], cand[j])) for j in range(n)]
                     for i in range(n)])
    return cand, counts, lbl, bg, dist


def _palettes(
    dist: np.ndarray, counts: np.ndarray, bg: int, total: int, floor: float
) -> list[list[int]]:
    """The palettes :func:`_colour` tries: one greedy run per SIZE_WEIGHTS, and when all
    stop short of ``total`` colours, the wider ones :func:`_widest` finds, if wider."""
    palettes = [_pick(dist, counts, bg, total, floor, sw) for sw in SIZE_WEIGHTS]
    most = max(len(p) for p in palettes)
    if most < total:
        wider = _widest(dist, counts, bg, total, floor)
        if wider and len(wider[0]) > most:  # more colours than greedy found
            palettes += wider
    return palettes


def _colour_chosen(
    best: tuple[Any, ...], mask: np.ndarray, h: int, w: int, floor: float, o: QuantiseOptions
) -> tuple[np.ndarray, np.ndarray, str | None]:
    """:func:`_colour`'s answer from its best drawing: the grid, the palette and a note
    when the picture lacks the colours asked (with only the background, the candidate
    farthest from it is drawn instead)."""
    _, _, chosen, grid, cand, dist, counts, bg, lbl = best
    if len(chosen) == 1:
        # nothing clears the floor: the candidate farthest from the background, said so
        far = int(np.argmax(np.where(counts > 0, dist[bg], -1.0)))
        if far == bg or dist[bg, far] <= 0:
            raise ImageError("the image is a single flat colour: nothing to draw")
        chosen = [bg, far]
        grid = _by_cluster(chosen, dist, lbl, mask, h, w)
        grid[~mask.reshape(h, w)] = 0
        return _tidy(grid, o), cand[chosen], (
            f"the picture has no colour ΔE2000 {floor:g} from its background; the farthest "
            f"({dist[bg, far]:.0f} away) is used, {o.colors} asked for"
        )
    if o.crumb > CRUMB:  # a retry: chosen as quantised, then simplified
        grid = _tidy(grid, o)
    note = None
    if len(chosen) < o.colors + 1:
        note = (
            f"the picture has only {len(chosen) - 1} colour(s) at least ΔE2000 {floor:g} "
            f"apart (from each other and the background); {o.colors} asked for"
        )
    return grid, cand[chosen], note


#: Largest number of palettes :func:`_widest` enumerates (beyond it, the greedy palettes
#: are all there is: 16 colours asked of 24 candidates would be 10^6 sets).
MOST_PALETTES = 20000
#: Palettes of the largest size :func:`_widest` hands on, least quantisation error first.
WIDEST_KEEP = 6


def _widest(
    dist: np.ndarray, counts: np.ndarray, bg: int, total: int, floor: float
) -> list[list[int]]:
    """Palettes (``bg`` first) of as many candidates as possible up to ``total``, every pair
    at least ``floor`` apart, found exhaustively -- greedy picking can stop at fewer (the
    cat at 20 cells: 2 colours greedily where 3 exist; camera at 20: 3 where 4 do). Of the
    largest size, the WIDEST_KEEP of least quantisation error (cells x ΔE to their nearest
    chosen colour). Nothing when there are more than MOST_PALETTES sets to try."""
    from itertools import combinations
    from math import comb

    ok = [j for j in range(len(dist)) if j != bg and counts[j] > 0 and dist[bg, j] >= floor]
    sets: list[tuple[int, ...]] = []
    for size in range(min(total - 1, len(ok)), 0, -1):
        if comb(len(ok), size) > MOST_PALETTES:
            return []
        sets = [c for c in combinations(ok, size)
                if all(dist[a, b] >= floor for a, b in combinations(c, 2))]
        if sets:
            break

    def error(c: tuple[int, ...]) -> float:
        return float((counts * dist[:, [bg, *c]].min(axis=1)).sum())

    return [[bg, *c] for c in sorted(sets, key=error)[:WIDEST_KEEP]]


def _by_cluster(
    chosen: list[int], dist: np.ndarray, lbl: np.ndarray, mask: np.ndarray, h: int, w: int,
) -> np.ndarray:
    """The cells drawn in the palette ``chosen`` (candidate indices): each cluster as its
    nearest chosen candidate (``dist``: ΔE between candidates), each cell as its cluster
    (``lbl``, for the cells ``mask`` selects)."""
    to = np.array(chosen)[np.argmin(dist[:, chosen], axis=1)]
    remap = np.zeros(len(dist), dtype=np.int64)
    remap[chosen] = np.arange(len(chosen))
    return _spread(remap[to[lbl]], mask, h, w)


def _nearest(cells: np.ndarray, palette_lab: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Each cell (``(h, w, 3)`` Lab) as the index of its nearest palette colour (CIEDE2000);
    cells outside ``mask`` are 0."""
    h, w = cells.shape[:2]
    flat = cells.reshape(-1, 3)
    d = np.stack([deltaE_ciede2000(flat, np.broadcast_to(p, flat.shape)) for p in palette_lab])
    out = np.argmin(d, axis=0)
    out[~mask] = 0
    return out.reshape(h, w)


def _tidy(labels: np.ndarray, o: QuantiseOptions) -> np.ndarray:
    """Colour labels as drawn: despeckled and, on a retry after a failed repair, with
    pieces under ``o.crumb`` cells merged into their surroundings."""
    if o.despeckle_passes and min(labels.shape) >= 3:
        labels = despeckle(labels, o.despeckle_passes)
        if o.crumb > CRUMB:  # a retry after a failed repair: simplify harder
            labels = merge_crumbs(labels, o.crumb)
    return labels


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
