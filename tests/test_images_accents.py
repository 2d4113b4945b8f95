"""Accents: small features found as local colour outliers and drawn as shapes in the
palette's spare colours (images/accents.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skimage.color import deltaE_ciede2000, lab2rgb, rgb2lab

from nonoforge.images import accents
from nonoforge.images.accents import CORE_COVER, COVER, MIN_DRAWN, Accent, draw, find
from nonoforge.images.quantise import MIN_DELTA, quantise

TAN = (60.0, 12.0, 30.0)


def eye_on_fur(cell: int = 6, w: int = 30, h: int = 24) -> np.ndarray:
    """A tan field with one olive-green disc (an iris, 4 cells across) and a black pupil in
    its middle (2 cells across), centred in cell (5, 6): a Lab picture."""
    lab = np.empty((h * cell, w * cell, 3))
    lab[...] = TAN
    yy, xx = np.mgrid[: h * cell, : w * cell]
    r = np.hypot(yy - 5.5 * cell, xx - 6.5 * cell)
    lab[r <= 2 * cell] = (52.0, -4.0, 40.0)
    lab[r <= 1 * cell] = (12.0, 0.0, 0.0)
    return lab


def test_an_eye_on_fur_is_one_accent_with_its_pupil_as_core() -> None:
    found = find(eye_on_fur(), 30, 24)
    assert len(found) == 1
    eye = found[0]
    ys, xs = np.nonzero(eye.shape >= COVER)
    assert ys.min() >= 3 and ys.max() <= 8 and xs.min() >= 4 and xs.max() <= 9
    assert (eye.shape >= COVER).sum() >= 9  # the whole iris, not its rim
    core = eye.core >= CORE_COVER
    assert core[5, 6] and 1 <= core.sum() <= 5
    assert eye.colour[2] > 30 and abs(eye.colour[1] + 4) < 3  # the iris's own colour


def test_a_flat_or_grey_picture_has_no_accents() -> None:
    import skimage.data

    flat = np.empty((60, 90, 3))
    flat[...] = TAN
    assert find(flat, 30, 20) == []
    grey = skimage.data.camera()[::2, ::2] / 255.0
    assert find(rgb2lab(np.stack([grey] * 3, axis=-1)), 30, 30) == []


def test_a_light_spot_on_a_dark_ground_has_no_core() -> None:
    """A star (a yellow disc on a near-black sky) is an accent, but the sky around it is not
    darker than its surroundings: no core, or the sky colour would erase it."""
    lab = np.empty((84, 120, 3))
    lab[...] = (6.0, 0.0, -2.0)
    yy, xx = np.mgrid[:84, :120]
    lab[np.hypot(yy - 40, xx - 60) <= 9] = (85.0, 2.0, 60.0)
    found = find(lab, 20, 14)
    assert len(found) == 1 and not found[0].core.any()


def test_the_cats_eyes_and_nose_are_its_accents() -> None:
    """scikit-image's chelsea at 30x20 cells: its two green eyes (with their pupils as cores)
    lead, then the nose."""
    import skimage.data

    lab = rgb2lab(skimage.data.chelsea()[::2, ::2] / 255.0)
    found = find(lab, 30, 20)
    assert len(found) >= 3
    eyes = found[:2]
    for eye, (rows, cols) in zip(eyes, (((5, 10), (8, 13)), ((7, 11), (19, 23))), strict=True):
        ys, xs = np.nonzero(eye.shape >= COVER)
        assert rows[0] <= ys.min() and ys.max() <= rows[1], ys
        assert cols[0] <= xs.min() and xs.max() <= cols[1], xs
        assert (eye.core >= CORE_COVER).any()  # a pupil
        assert eye.colour[1] < 5 and eye.colour[2] > 25  # yellow-green, not the fur's tan
        assert eye.around[0] > 8  # the fur around is redder
    nose = found[2]
    ys, xs = np.nonzero(nose.shape >= COVER)
    assert ys.min() >= 14 and xs.min() >= 16 and xs.max() <= 19
    assert nose.colour[1] > 25  # red


@pytest.mark.parametrize("size", [20, 30, 45])
def test_the_cat_gets_its_eyes_in_the_colour_its_clusters_left_free(size: int) -> None:
    """The cat's clusters give 3 of the 4 colours asked (its fur); the fourth is now its eyes,
    the floor from every other colour, drawn over the eyes and nowhere else."""
    import skimage.data

    from nonoforge.images.measure import closest_pair

    q = quantise(skimage.data.chelsea(), size=(size, size), colors=4)
    assert q.palette.ncolors == 4 and q.colors_note is None
    assert closest_pair(q.palette_lab)[0] >= MIN_DELTA
    greenish = [i for i, c in enumerate(q.palette_lab) if c[1] < 3 and c[2] > 30]
    assert len(greenish) == 1
    ys, xs = np.nonzero(q.grid.cells == greenish[0])
    h, w = q.grid.cells.shape
    assert 2 <= len(ys) <= 0.03 * h * w
    assert ys.max() < 0.6 * h and 0.2 * w <= xs.min() and xs.max() < 0.8 * w  # the eyes


def test_a_photo_with_its_colours_gets_no_accents() -> None:
    """The astronaut has its 4 colours: accents take none (the patch on her suit is an
    accent, but no colour is free for it)."""
    import skimage.data

    q = quantise(skimage.data.astronaut(), size=(30, 30), colors=4)
    assert q.palette.ncolors == 4
    lab = rgb2lab(skimage.data.astronaut()[::2, ::2] / 255.0)
    assert find(lab, 30, 30)  # there are accents to be had
    labels = np.asarray(q.grid.cells)
    out, palette, added = draw(labels, q.palette_lab, find(lab, 30, 30), 0, MIN_DELTA)
    assert added == 0 and out is labels and palette is q.palette_lab


def blob(h: int, w: int, top: int, left: int, size: int, colour: tuple[float, ...],
         core: bool = False) -> Accent:
    shape = np.zeros((h, w))
    shape[top : top + size, left : left + size] = 1.0
    pupil = np.zeros((h, w))
    if core:
        pupil[top + size // 2, left + size // 2] = 1.0
    return Accent(shape, pupil, np.array(colour), np.array([12.0, 30.0]), float(size * size))


def test_near_accents_share_a_colour_and_cores_take_the_darkest() -> None:
    h, w = 12, 16
    labels = np.ones((h, w), dtype=np.int64)
    labels[:, :3] = 0
    labels[10:, :] = 2
    palette = np.array([[95.0, 0.0, 0.0], [60.0, 12.0, 30.0], [25.0, 8.0, 10.0]])
    left = blob(h, w, 2, 3, 3, (52.0, -4.0, 40.0), core=True)
    right = blob(h, w, 2, 10, 3, (50.0, -3.0, 37.0), core=True)
    out, pal, added = draw(labels, palette, [left, right], 2, MIN_DELTA)
    assert added == 1 and len(pal) == 4
    assert (out[2:5, 3:6] == 3).sum() == 8 and out[3, 4] == 2  # iris and pupil
    assert (out[2:5, 10:13] == 3).sum() == 8 and out[3, 11] == 2
    assert min(float(deltaE_ciede2000(pal[3], p)) for p in pal[:3]) >= MIN_DELTA


def test_an_accent_that_would_not_tell_or_is_one_cell_is_left_out() -> None:
    h, w = 10, 10
    labels = np.ones((h, w), dtype=np.int64)
    palette = np.array([[95.0, 0.0, 0.0], [60.0, 12.0, 30.0]])
    speck = blob(h, w, 4, 4, 1, (40.0, -40.0, 30.0))
    out, pal, added = draw(labels, palette, [speck], 1, MIN_DELTA)
    assert added == 0 and (out == labels).all()
    assert MIN_DRAWN == 2


def test_an_accent_never_paints_over_the_last_cells_of_a_colour() -> None:
    h, w = 10, 10
    labels = np.ones((h, w), dtype=np.int64)
    labels[5, 5] = 2  # a colour's only cell, under the accent
    palette = np.array([[95.0, 0.0, 0.0], [60.0, 12.0, 30.0], [30.0, 40.0, 30.0]])
    out, pal, added = draw(labels, palette, [blob(h, w, 4, 4, 3, (50.0, -20.0, 40.0))], 1,
                           MIN_DELTA)
    assert added == 0 and (out == labels).all()


def test_a_colour_is_pushed_from_its_surroundings_until_it_tells() -> None:
    """An iris within the floor of the fur is pushed further from the fur's a*b*, the least
    of the pushes that sets it apart, and printed in gamut."""
    acc = blob(8, 8, 2, 2, 3, (55.0, 6.0, 34.0))
    palette = np.array([[95.0, 0.0, 0.0], [57.0, 15.0, 35.0]])
    assert float(deltaE_ciede2000(acc.colour, palette[1])) < MIN_DELTA
    _, pal, added = draw(np.ones((8, 8), dtype=np.int64), palette, [acc], 1, MIN_DELTA)
    assert added == 1
    shares = [float(deltaE_ciede2000(acc.pushed(s), palette[1])) for s in accents.PUSHES]
    first = next(i for i, d in enumerate(shares) if d >= MIN_DELTA)
    assert np.allclose(pal[2], acc.pushed(accents.PUSHES[first]))
    rgb = lab2rgb(pal[2][None, None, :])
    assert (rgb >= -1e-6).all() and (rgb <= 1 + 1e-6).all()


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_accents=st.integers(0, 5),
    slots=st.integers(0, 3),
)
def test_drawing_keeps_every_colour_and_the_floor(seed: int, n_accents: int, slots: int) -> None:
    """Whatever the accents: at most ``slots`` colours are added, each the floor from every
    other; no colour present before is lost; only cells an accent covers change."""
    rng = np.random.default_rng(seed)
    h, w = 12, 12
    palette = np.array([[95.0, 0.0, 0.0], [60.0, 12.0, 30.0], [30.0, 10.0, 12.0]])
    labels = rng.integers(0, 3, size=(h, w))
    found = []
    for _ in range(n_accents):
        size = int(rng.integers(1, 4))
        top, left = (int(v) for v in rng.integers(0, h - size, size=2))
        colour = (float(rng.uniform(20, 90)), float(rng.uniform(-60, 60)),
                  float(rng.uniform(-60, 60)))
        found.append(blob(h, w, top, left, size, colour, core=bool(rng.integers(0, 2))))
    out, pal, added = draw(labels, palette, found, slots, MIN_DELTA)
    assert 0 <= added <= slots and len(pal) == len(palette) + added
    for i in range(len(palette), len(pal)):
        assert min(float(deltaE_ciede2000(pal[i], p)) for p in np.delete(pal, i, 0)) >= MIN_DELTA
    before = set(np.unique(labels).tolist())
    assert before <= set(np.unique(out).tolist())
    covered = np.zeros((h, w), bool)
    for acc in found:
        covered |= acc.shape >= COVER
    assert (out[~covered] == labels[~covered]).all()
