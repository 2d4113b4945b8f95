"""Total-variation smoothing (nonoforge.images.smoothing).

The known answer is scikit-image's ``denoise_tv_chambolle``, a third-party implementation of
the same algorithm (Chambolle 2004): ours must give its pictures, since the photo path's
puzzles were tuned on them, while not importing ``skimage.restoration`` (which imports
``scipy.stats``, 0.4-0.7 s of every photo's start-up).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import fresh_python
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from skimage.color import rgb2lab

from nonoforge.images.smoothing import smooth_lab, tv_channel


def _reference(lab: np.ndarray, weight: float) -> np.ndarray:
    from skimage.restoration import denoise_tv_chambolle

    return np.asarray(100.0 * denoise_tv_chambolle(lab / 100.0, weight=weight, channel_axis=-1))


@pytest.mark.parametrize("name", ["chelsea", "astronaut", "camera"])
@pytest.mark.parametrize("weight", [0.1, 0.3, 0.9])
def test_photos_are_smoothed_as_scikit_image_does(name: str, weight: float) -> None:
    import skimage.data

    img = getattr(skimage.data, name)()
    if img.ndim == 2:
        img = np.stack([img] * 3, axis=-1)
    lab = rgb2lab(img[::6, ::6, :3])
    np.testing.assert_allclose(smooth_lab(lab, weight), _reference(lab, weight), atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 12)),
           elements=st.floats(0.0, 1.0)),
    st.sampled_from([0.05, 0.2, 1.0]),
)
def test_any_channel_matches_the_reference(f: np.ndarray, weight: float) -> None:
    lab = np.repeat(100.0 * f[..., None], 3, axis=-1)
    np.testing.assert_allclose(smooth_lab(lab, weight), _reference(lab, weight), atol=1e-9)


def test_flat_stays_flat_and_edges_stay() -> None:
    flat = np.full((8, 9), 0.4)
    assert np.array_equal(tv_channel(flat, 0.3), flat)
    step = np.zeros((10, 10))
    step[:, 5:] = 1.0
    out = tv_channel(step, 0.1)
    assert out[:, :5].max() < 0.2 and out[:, 5:].min() > 0.8  # the edge survives
    noisy = step + np.random.default_rng(0).normal(0, 0.1, step.shape)
    assert np.abs(tv_channel(noisy, 0.1) - step).mean() < np.abs(noisy - step).mean()


def test_smoothing_a_photo_does_not_load_scipy_stats() -> None:
    """The reason this module exists: a photo's ``generate`` must not pay for
    ``skimage.restoration`` and the ``scipy.stats`` it imports."""
    code = (
        "import sys, numpy as np\n"
        "from nonoforge.images.quantise import prepare\n"
        "import skimage.data\n"
        "prepare(skimage.data.chelsea(), size=(20, 20), colors=4)\n"
        "print(sorted(m for m in ('scipy.stats', 'skimage.restoration') if m in sys.modules))\n"
    )
    root = Path(__file__).resolve().parents[1]
    assert fresh_python(code, cwd=root, timeout=120).stdout.strip() == "[]"
