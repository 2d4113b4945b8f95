"""The subject's shape from the trained model (images/segment.py).

The model (u2netp) ships with nonoforge and onnxruntime is one of its dependencies, so
every test here runs wherever nonoforge is installed; each model run is about half a
second of CPU, and the tests that run it keep to a few.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import skimage.data
from conftest import fresh_python

from nonoforge.errors import ImageError
from nonoforge.images import segment
from nonoforge.images.generate import GenerateOptions, generate
from nonoforge.images.quantise import QuantiseOptions
from nonoforge.images.segment import (
    MAX_SOLIDITY,
    MODEL_ENV,
    SubjectShape,
    find_shape,
    shape_of,
    shipped_model,
    subject_mask,
)
from nonoforge.images.styles import Style, StyleReason

ROOT = Path(__file__).resolve().parents[1]


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


def test_the_model_turned_off_draws_as_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MODEL_ENV, "")  # turned off
    camera = skimage.data.camera()
    assert segment.model_path() is None
    assert subject_mask(np.dstack([camera / 255.0] * 3 + [np.ones(camera.shape)])) is None
    g = generate(camera, GenerateOptions(QuantiseOptions(size=(20, 20)), style=Style.AUTO))
    s = g.summary()
    assert not g.subject_shape and s["subject_shape"] is None and g.subject is None
    assert s["photo"] and s["style_by"] == "scores" and set(s["style_scores"]) == {
        "silhouette", "outline", "tones"}


def test_the_model_ships_with_nonoforge() -> None:
    """Every install has the same model, so `generate` draws a photo alike everywhere;
    its licence and where it comes from are beside it."""
    assert segment.model_path() == shipped_model()
    assert shipped_model().stat().st_size > 4_000_000
    beside = shipped_model().parent
    assert "Apache License" in (beside / "LICENSE-u2netp.txt").read_text()
    assert "xuebinqin/U-2-Net" in (beside / "README.md").read_text()


def test_a_solve_never_imports_onnxruntime() -> None:
    """The model's runtime loads only when a photo is drawn: the solver's start-up (issue
    39) and the images package's import do not pay for it."""
    code = ("import sys\nfrom typer.testing import CliRunner\nfrom nonoforge.cli import app\n"
            "import nonoforge.images.generate\n"
            "r = CliRunner().invoke(app, ['solve', 'example:dancer'])\n"
            "print(r.exit_code, 'onnxruntime' in sys.modules)\n")
    assert fresh_python(code, cwd=ROOT, timeout=120).stdout.split()[-2:] == ["0", "False"]


def test_a_file_that_is_no_model_is_one_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    monkeypatch.setenv(MODEL_ENV, str(bad))
    with pytest.raises(ImageError, match="cannot be loaded"):
        subject_mask(np.ones((40, 40, 4)))


def test_the_camera_man_is_the_subject_and_the_sky_is_not() -> None:
    camera = skimage.data.camera() / 255.0
    rgba = np.dstack([camera] * 3 + [np.ones(camera.shape)])
    prob = subject_mask(rgba)
    assert prob is not None and prob.shape == camera.shape
    assert prob[300:450, 50:150].mean() > 0.9  # his coat
    assert prob[20:120, 300:500].mean() < 0.1  # the sky
    again = subject_mask(rgba)
    assert again is not None and np.array_equal(prob, again)  # deterministic
    found = find_shape(rgba)  # a man aiming a camera: a shape, not a disc
    assert found is not None
    shape, mask = found
    assert shape.shaped and shape.solidity <= MAX_SOLIDITY and mask.dtype == bool


def test_a_cup_from_above_is_drawn_from_the_whole_picture() -> None:
    coffee = skimage.data.coffee() / 255.0
    found = find_shape(coffee)
    assert found is not None and not found[0].shaped
    assert found[0].solidity > MAX_SOLIDITY and not found[0].summary()["shaped"]


@pytest.mark.slow  # three pictures drawn (two shapes, an outline): 5-9 s
def test_auto_draws_the_shape_deterministically_and_says_why() -> None:
    opts = GenerateOptions(QuantiseOptions(size=(20, 20)), style=Style.AUTO)
    a = generate(skimage.data.camera(), opts)
    b = generate(skimage.data.camera(), opts)
    assert a.subject_shape and a.style is Style.SILHOUETTE and a.accepted
    assert a.style_by is StyleReason.SUBJECT_SHAPE
    assert a.puzzle.key == b.puzzle.key
    s = a.summary()
    # a photo, drawn as the subject's shape, and the facts that decided it
    assert s["photo"] is True and s["style"] == "silhouette"
    assert s["style_by"] == "subject_shape" and s["style_scores"] == {}
    shape = s["subject_shape"]
    assert shape["shaped"] and shape["solidity"] <= shape["max_solidity"] == MAX_SOLIDITY
    assert shape["share_range"][0] <= shape["share"] <= shape["share_range"][1]
    json.dumps(s)
    # an outline asked for is drawn as before, not as the shape
    c = generate(skimage.data.camera(), GenerateOptions(QuantiseOptions(size=(20, 20)),
                                                        style=Style.OUTLINE))
    assert not c.subject_shape


def test_the_models_first_load_is_announced_once() -> None:
    """A newcomer's first photo waits for onnxruntime and the model (about 0.7 s): the
    progress line says so, and only the first time in a process."""
    segment._session.cache_clear()  # as in a fresh process
    assert not segment.loaded()
    opts = GenerateOptions(QuantiseOptions(size=(12, 12)))
    first: list[str] = []
    a = generate(skimage.data.coffee(), opts, progress=first.append)
    assert segment.loaded()
    again: list[str] = []
    b = generate(skimage.data.coffee(), opts, progress=again.append)
    assert "finding the subject (loading the subject model, once: about 1 s)" in first
    assert "finding the subject" in again and not any("loading" in line for line in again)
    assert a.puzzle.key == b.puzzle.key
