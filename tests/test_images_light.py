"""Light arithmetic shared by the loader and the quantiser (images/light.py)."""

from __future__ import annotations

import warnings

import numpy as np

from nonoforge.images.light import area_weights, lab_to_srgb


def test_lab_outside_the_gamut_is_clipped_without_a_warning() -> None:
    """A green pushed past what sRGB holds (an accent's colour) comes back clipped to 0..1,
    silently: the clipping is meant, and a warning would reach the user's terminal."""
    lab = np.array([[[51.0, -90.0, 90.0], [50.0, 0.0, 0.0]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rgb = lab_to_srgb(lab)
    assert rgb.shape == (1, 2, 3) and rgb.min() >= 0.0 and rgb.max() <= 1.0
    assert rgb[0, 0, 0] == 0.0 and rgb[0, 0, 1] > 0.4  # green, its red clipped at 0
    assert np.allclose(rgb[0, 1], rgb[0, 1, 0], atol=1e-3)  # a grey stays grey


def test_area_weights_share_each_pixel_out_exactly() -> None:
    w = area_weights(7, 3)
    assert w.shape == (3, 7)
    assert np.allclose(w.sum(axis=1), 1.0)
    assert np.allclose(w.sum(axis=0) * 7 / 3, 1.0)  # every pixel weighs the same in all
