"""The subject's shape from a trained salient-object model, shipped with nonoforge.

Colour contrast (:mod:`~nonoforge.images.subject`) cannot tell a dog from the porch it
sits on, nor two men in dark suits from the dark crowd behind them: in a scene the subject
and its ground share colours. A network trained on salient objects can. U²-Net's small
model, ``u2netp`` (Qin et al. 2020; weights under Apache-2.0, 4.6 MB as ONNX), gives a
foreground probability for every pixel of a 320x320 copy of the picture; it runs on the CPU
under onnxruntime in about half a second, single-threaded and so deterministic.

The model ships with nonoforge (``nonoforge/images/models/u2netp.onnx``; where it comes
from and its licence are in the README beside it) and onnxruntime is one of nonoforge's
dependencies, so every install draws a photo alike. ``$NONOFORGE_SUBJECT_MODEL`` names
another model file of the same input and output, or, set empty, turns the model off
(:func:`subject_mask` is then None and every style draws as it did before the model).
onnxruntime is imported, and the model loaded (about 0.1 s of CPU, 0.7 s for the first
photo with the import), only when a photo is drawn: a ``solve`` never pays for it.

What the mask is used for (:func:`find_shape`, read by ``generate``): a subject whose
**shape** says what it is -- an eagle, a giraffe, a man aiming a camera, two men, one
pointing -- is drawn as that shape, its silhouette cut out of the ground (``generate``
gives the picture the mask as its transparency, so the silhouette path draws the subject
alone). A shape that says nothing -- a disc (a cup from above, a logo, a retina, a colour
wheel), a box (a bus, a page) or a blob of tissue -- is not: there the mask's silhouette
is a black disc, and the styles drawn from the whole picture (rings, letters, inner lines)
read better. The test is the mask's **solidity** (its area over its convex hull's): under
MAX_SOLIDITY the outline has limbs, necks and gaps, over it the shape is convex and tells
nothing. The mask must also be confident (most pixels far from 0.5: a scene the model
cannot split is grey) and of a sensible size.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from nonoforge.errors import ImageError

#: The environment variable naming an ONNX salient-object model (input 1x3x320x320).
MODEL_ENV = "NONOFORGE_SUBJECT_MODEL"
#: The model's input side, pixels.
SIDE = 320
#: ImageNet's channel means and spreads, which the model was trained with.
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
#: A pixel is subject where the model's probability is above this.
THRESHOLD = 0.5
#: The subject's shape is drawn only when its solidity (area / convex hull's area) is at
#: most this: a convex shape (disc, box, blob) says nothing as a silhouette.
MAX_SOLIDITY = 0.73
#: ... and at least this share of the pixels are confidently subject or ground (probability
#: within CONFIDENT_BAND of 0 or 1): a mask the model hesitates over is no shape.
LEAST_CONFIDENT = 0.85
CONFIDENT_BAND = 0.1
#: ... and the subject covers this share of the frame or more (a rocket as a thin line, a
#: kite as a speck, are not drawn as shapes) and at most MOST_SHARE of it.
LEAST_SHARE = 0.05
MOST_SHARE = 0.8


@dataclass(frozen=True)
class SubjectShape:
    """What the model's mask says about the subject's shape (module doc)."""

    #: share of the frame that is subject
    share: float
    #: area over the area of its convex hull (1 for a disc or a box)
    solidity: float
    #: share of pixels the model is confident about
    confident: float

    @property
    def shaped(self) -> bool:
        """Whether the subject is drawn as its shape (module doc)."""
        return (LEAST_SHARE <= self.share <= MOST_SHARE and self.solidity <= MAX_SOLIDITY
                and self.confident >= LEAST_CONFIDENT)

    def summary(self) -> dict[str, Any]:
        """The JSON-able facts and the rule's limits they were held against: why the
        subject's shape was drawn, or not (``generate --json``'s ``subject_shape``)."""
        return {
            "shaped": self.shaped,
            "share": round(self.share, 4),
            "solidity": round(self.solidity, 4),
            "confident": round(self.confident, 4),
            "max_solidity": MAX_SOLIDITY,
            "share_range": [LEAST_SHARE, MOST_SHARE],
            "least_confident": LEAST_CONFIDENT,
        }


#: The model nonoforge ships (README.md beside it: U²-Net's u2netp, Apache-2.0).
SHIPPED = "u2netp.onnx"


def shipped_model() -> Path:
    """The model file installed with nonoforge (``nonoforge/images/models/``)."""
    from importlib.resources import files

    return Path(str(files("nonoforge.images") / "models" / SHIPPED))


def model_path() -> Path | None:
    """The ONNX model's file: ``$NONOFORGE_SUBJECT_MODEL``, else the one nonoforge ships;
    None when the variable is set empty (the model turned off). A variable naming no file,
    or an install that lost the shipped one, is a one-line ImageError: the picture drawn
    must not depend on what happens to be installed."""
    named = os.environ.get(MODEL_ENV)
    if named is not None:
        if not named:
            return None
        if not Path(named).is_file():
            raise ImageError(f"{MODEL_ENV} names no file: {named}")
        return Path(named)
    shipped = shipped_model()
    if not shipped.is_file():
        raise ImageError(f"the subject model is missing from this install ({shipped}): "
                         f"reinstall nonoforge, or set {MODEL_ENV}= (empty) to draw "
                         "without it")
    return shipped


@lru_cache(maxsize=2)
def _session(path: str) -> Any:
    """An onnxruntime session of the model at ``path`` on one CPU thread (deterministic,
    and polite to a shared machine). onnxruntime missing (an install that skipped a
    dependency) or a file that is no such model is a one-line ImageError."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise ImageError(f"onnxruntime is not installed, which the subject model needs: "
                         f"pip install onnxruntime, or set {MODEL_ENV}= (empty) to draw "
                         "without it") from None
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    try:
        session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's own exception types are not public
        raise ImageError(f"the subject model {path} cannot be loaded ({MODEL_ENV}): "
                         f"{type(exc).__name__}") from None
    shape = session.get_inputs()[0].shape
    if list(shape[1:]) != [3, SIDE, SIDE]:
        raise ImageError(f"the subject model {path} takes {shape}, not 1x3x{SIDE}x{SIDE}")
    return session


def loaded() -> bool:
    """Whether the model is loaded in this process already (the first photo pays for the
    import and the load; a caller says so to the user before)."""
    return _session.cache_info().currsize > 0


def subject_mask(rgba: np.ndarray) -> np.ndarray | None:
    """The model's subject probability (0..1) for each pixel of ``rgba`` (float sRGB+alpha,
    ``(H, W, 4)``), or None when the model is turned off (module doc).

    The picture is shrunk to the model's side and its answer stretched back with our own
    weights (area averages down, linear interpolation up), not Pillow's resize: Pillow 13
    rounds a fifth of the pixels of a 320x320 copy differently from Pillow 12, which moved
    a mask and so a puzzle; numpy's arithmetic is the same on every install."""
    from nonoforge.images.light import area_weights

    path = model_path()
    if path is None:
        return None
    session = _session(str(path))
    h, w = rgba.shape[:2]
    ry, rx = area_weights(h, SIDE), area_weights(w, SIDE)
    rgb = np.clip(rgba[..., :3], 0.0, 1.0)
    small = np.stack([ry @ rgb[..., c] @ rx.T for c in range(3)])  # (3, SIDE, SIDE)
    x = (small - MEAN[:, None, None]) / STD[:, None, None]
    feed = {session.get_inputs()[0].name: x[None].astype(np.float32)}
    out = np.asarray(session.run(None, feed)[0], dtype=np.float64)[0, 0]
    lo, hi = float(out.min()), float(out.max())
    out = (out - lo) / (hi - lo) if hi > lo else np.zeros_like(out)
    big = linear_weights(SIDE, h) @ out @ linear_weights(SIDE, w).T
    return np.clip(big, 0.0, 1.0)


def linear_weights(n_in: int, n_out: int) -> np.ndarray:
    """``(n_out, n_in)`` matrix: linear interpolation between pixel centres (the ends
    held), to stretch a row of ``n_in`` values to ``n_out``.

    >>> linear_weights(2, 4) @ np.array([0.0, 1.0])
    array([0.  , 0.25, 0.75, 1.  ])
    """
    pos = np.clip((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0, n_in - 1.0)
    return np.clip(1.0 - np.abs(pos[:, None] - np.arange(n_in)[None, :]), 0.0, None)


def shape_of(prob: np.ndarray) -> SubjectShape:
    """The shape facts of a subject probability map (module doc).

    >>> yy, xx = np.mgrid[:60, :60]
    >>> disc = ((yy - 30) ** 2 + (xx - 30) ** 2 < 15 ** 2).astype(float)
    >>> shape_of(disc).shaped        # a disc says nothing as a silhouette
    False
    >>> ell = np.zeros((60, 60)); ell[5:55, 5:15] = 1; ell[45:55, 5:55] = 1
    >>> shape_of(ell).shaped         # an L has a shape
    True
    """
    from skimage.morphology import convex_hull_image

    mask = prob > THRESHOLD
    area = int(mask.sum())
    confident = float((np.abs(prob - 0.5) >= 0.5 - CONFIDENT_BAND).mean())
    if area == 0:
        return SubjectShape(0.0, 1.0, confident)
    hull = int(convex_hull_image(mask).sum())
    return SubjectShape(area / mask.size, area / max(hull, area), confident)


def model_step(shape: tuple[int, ...]) -> int:
    """The stride that samples a picture of ``shape`` (height, width, ...) down to about
    the model's own scale, its long side at most :data:`SIDE` pixels: where a mask's shape
    is judged.

    >>> model_step((480, 640, 4)), model_step((200, 300))
    (2, 1)
    """
    return -(-max(shape[:2]) // SIDE)


def find_shape(rgba: np.ndarray) -> tuple[SubjectShape, np.ndarray] | None:
    """The model's subject in ``rgba``: the facts of its shape (:class:`SubjectShape`,
    judged at the model's own scale) and its mask (bool, ``(H, W)``); None when the model
    is turned off."""
    prob = subject_mask(rgba)
    if prob is None:
        return None
    k = model_step(prob.shape)  # the shape is judged at the model's own scale
    return shape_of(prob[::k, ::k]), prob > THRESHOLD
