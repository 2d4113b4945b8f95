"""Finding the subject (images/subject.py): saliency and the crop it gives."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from nonoforge.images.load import as_rgba
from nonoforge.images.subject import find_subject, saliency


def scene(noise: float = 0.03) -> np.ndarray:
    """A red ball right of the middle of a grey-blue ground, with grain."""
    im = Image.new("RGB", (400, 300), (120, 140, 170))
    ImageDraw.Draw(im).ellipse((230, 110, 310, 190), fill=(200, 40, 30))
    arr = np.asarray(im).astype(np.float64) / 255
    arr += np.random.default_rng(1).normal(0.0, noise, arr.shape)
    return as_rgba(np.clip(arr, 0, 1))


def test_the_ball_is_found_with_a_margin() -> None:
    sub = find_subject(scene())
    assert sub.found
    t, b, l_, r = sub.box
    assert t <= 110 and b >= 190 and l_ <= 230 and r >= 310  # all of the ball
    assert (b - t) * (r - l_) < 0.25 * 400 * 300  # and not much else


def test_saliency_is_high_on_the_ball_and_low_on_the_ground() -> None:
    from skimage.color import rgb2lab

    sal = saliency(rgb2lab(scene()[..., :3]))
    assert sal.min() >= 0.0 and sal.max() <= 1.0
    assert sal[140:160, 260:280].mean() > 0.8 and sal[10:40, 10:60].mean() < 0.2


def test_a_frame_full_of_texture_is_no_crop() -> None:
    rng = np.random.default_rng(2)
    noise = as_rgba(rng.random((120, 160, 3)))
    assert not find_subject(noise).found
    assert find_subject(noise).box == (0, 120, 0, 160)


def test_a_transparent_picture_is_its_own_subject() -> None:
    rgba = scene().copy()
    rgba[:20, :, 3] = 0.0
    assert not find_subject(rgba).found


def test_a_strip_is_widened_to_a_picture() -> None:
    """A salient strip (a far horizon) would make a puzzle of a few lines: the box is
    widened to at most MAX_ASPECT : 1."""
    from nonoforge.images.subject import MAX_ASPECT

    im = Image.new("RGB", (400, 300), (120, 140, 170))
    ImageDraw.Draw(im).rectangle((60, 150, 340, 160), fill=(200, 40, 30))
    sub = find_subject(as_rgba(np.asarray(im)))
    t, b, l_, r = sub.box
    assert sub.found and (r - l_) <= MAX_ASPECT * (b - t) + 8
    assert t <= 150 and b >= 160
