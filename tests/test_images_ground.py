"""The smooth ground of a photo and the structures darker than it (images/ground.py)."""

from __future__ import annotations

import numpy as np
from skimage.color import rgb2lab

from nonoforge.images.ground import GROUND_SHARE, dark_structures, ground_residual


def evening_sky(h: int = 120, w: int = 180) -> np.ndarray:
    """A sky from dark blue at the top to a lighter blue at the horizon, one dark lattice
    tower (two legs) at the left, one white rocket in the middle: sRGB 0..1."""
    t = np.linspace(0.0, 1.0, h)[:, None, None]
    sky = (1 - t) * np.array([0.05, 0.08, 0.25]) + t * np.array([0.25, 0.35, 0.6])
    img = np.broadcast_to(sky, (h, w, 3)).copy()
    img[10:, 20:23] = 0.02  # the tower's legs
    img[10:, 34:37] = 0.02
    img[30:, 88:96] = 0.95  # the rocket
    return img


def test_the_sky_is_ground_and_the_tower_is_darker_than_it() -> None:
    lab = rgb2lab(evening_sky())
    dist, darker, share = ground_residual(lab)
    assert share >= GROUND_SHARE
    mask = dark_structures(lab)
    assert mask is not None
    assert mask[20:, 20:23].all() and mask[20:, 34:37].all()  # the legs
    assert not mask[30:, 88:96].any()  # the rocket is lighter than the sky: not a structure
    assert dist[30:, 88:96].min() > 10 and not darker[30:, 88:96].any()
    assert mask[:, 50:80].mean() < 0.01  # the gradient itself is ground


def test_a_face_filling_the_frame_has_no_smooth_ground() -> None:
    import skimage.data

    for name in ("chelsea", "astronaut", "coffee"):
        img = getattr(skimage.data, name)()[::2, ::2] / 255.0
        assert dark_structures(rgb2lab(img)) is None, name


def test_the_rockets_towers_are_found() -> None:
    """skimage's rocket: a sky the model explains, and its outer launch towers darker than
    it in the outer tenths of the frame."""
    import skimage.data

    img = skimage.data.rocket()[::2, ::2] / 255.0
    _, _, share = ground_residual(rgb2lab(img))
    assert share >= GROUND_SHARE
    mask = dark_structures(rgb2lab(img))
    assert mask is not None
    w = mask.shape[1]
    assert mask[: mask.shape[0] * 3 // 4, : w // 10].mean() > 0.1  # the left tower
    assert mask[: mask.shape[0] // 2, w * 3 // 10 : w * 7 // 10].mean() < 0.05  # open sky


def test_a_picture_too_small_to_fit_the_ground_has_none() -> None:
    """Fewer pixels than the model's six terms: no ground is fitted, so none is claimed --
    black or white alike (an unfitted model is the zero surface, which a black picture
    matched perfectly), and no numerical warning on flat or tiny pictures."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for shape in [(1, 1), (1, 5), (2, 2), (5, 1)]:
            for v in (0.0, 0.5, 1.0):
                lab = rgb2lab(np.full((*shape, 3), v))
                assert dark_structures(lab) is None, (shape, v)
                assert ground_residual(lab)[2] == 0.0
        for shape in [(3, 3), (20, 30)]:  # flat but large enough: all ground, no structure
            for v in (0.0, 0.5, 1.0):
                mask = dark_structures(rgb2lab(np.full((*shape, 3), v)))
                assert mask is not None and not mask.any(), (shape, v)


def test_the_residual_of_a_large_picture_costs_about_the_picture() -> None:
    """A 200x200-cell photo is analysed at up to 1600x1600 pixels: the ground's residual
    is evaluated a band of rows at a time, not with six terms a pixel held at once (that
    peaked at 369 MB there, six times the picture's Lab); same figures either way."""
    import tracemalloc

    lab = rgb2lab(np.random.default_rng(0).random((800, 800, 3)))
    tracemalloc.start()
    try:
        dist, _, _ = ground_residual(lab)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert dist.shape == (800, 800)
    assert peak < 3 * lab.nbytes, peak / lab.nbytes
