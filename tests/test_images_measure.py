"""Measures of puzzle pictures: specks (one-cell islands) and the neighbour counts they are
read from, checked cell by cell against their definitions."""

from __future__ import annotations

import numpy as np

from nonoforge.images.measure import neighbour_counts, own_neighbours, speck_mask, specks


def test_specks_are_painted_cells_without_a_same_coloured_8_neighbour() -> None:
    rng = np.random.default_rng(3)
    for ncol in (2, 3, 5):
        cells = rng.integers(0, ncol, size=(9, 11))
        mask = speck_mask(cells)
        h, w = cells.shape
        for y in range(h):
            for x in range(w):
                same = sum(
                    cells[y + dy, x + dx] == cells[y, x]
                    for dy in (-1, 0, 1)
                    for dx in (-1, 0, 1)
                    if (dy or dx) and 0 <= y + dy < h and 0 <= x + dx < w
                )
                assert mask[y, x] == (cells[y, x] != 0 and same == 0), (ncol, y, x)
        assert specks(cells) == int(mask.sum())


def test_own_neighbours_reads_the_counts_of_each_cells_colour() -> None:
    cells = np.array([[0, 1, 1], [2, 1, 0], [2, 0, 0]])
    near8 = neighbour_counts(cells, 3, diagonal=True)
    assert np.array_equal(own_neighbours(cells), own_neighbours(cells, near8))
    assert own_neighbours(cells)[0, 1] == 2 and own_neighbours(cells)[1, 0] == 1
    # 4-neighbour counts give the 4-neighbour reading; outside counts as background
    assert own_neighbours(cells, neighbour_counts(cells, 3))[2, 2] == 4
    assert not speck_mask(np.zeros((3, 3), dtype=np.int64)).any()


def face_on_shading() -> tuple[np.ndarray, np.ndarray]:
    """L* of a face on a strong left-to-right shading (dark eyes and mouth), and its
    features as a two-tone picture."""
    h, w = 30, 30
    _, x = np.mgrid[0:h, 0:w]
    light = 30.0 + 60.0 * x / (w - 1)
    feat = np.zeros((h, w), dtype=bool)
    feat[9:12, 8:11] = feat[9:12, 19:22] = True  # eyes
    feat[20:22, 10:20] = True  # mouth
    return np.where(feat, light - 25.0, light), feat.astype(np.int64)


def test_likeness_rewards_features_where_the_source_has_them() -> None:
    """Band-passed likeness: the features drawn as ink match the face almost perfectly,
    whatever the shading; one threshold through the shading (the dark half of the
    picture, eyes lumped in) matches it badly."""
    from nonoforge.images.measure import likeness

    light, feat = face_on_shading()
    assert likeness(light, feat) > 0.95
    assert likeness(light, (light < 60).astype(np.int64)) < 0.6
    # which label is ink does not matter: each colour is drawn in its own mean lightness
    assert likeness(light, 1 - feat) == likeness(light, feat)
    two_tone = np.where(feat == 1, 20.0, 80.0)
    assert abs(likeness(two_tone, feat) - 1.0) < 1e-9
    assert np.isnan(likeness(light[:2], feat[:2]))
    assert likeness(light, np.zeros_like(feat)) == 0.0  # a blank picture shows nothing


def test_ssim_is_kept_as_the_second_figure() -> None:
    from nonoforge.images.measure import ssim

    light, feat = face_on_shading()
    assert 0.0 < ssim(light, feat) < 1.0
    assert np.isnan(ssim(light[:2], feat[:2]))


def _icon() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A light disc (L* 80) with two dark eyes and a mouth (L* 20) on a transparent
    background (drawn white, L* 100), and its silhouette with the features cut out as the
    quantiser draws an icon: ``(light, cells, transparent)``."""
    yy, xx = np.mgrid[0:24, 0:24]
    disc = (yy - 11.5) ** 2 + (xx - 11.5) ** 2 <= 10.5**2
    feature = np.zeros_like(disc)
    feature[7:10, 7:9] = feature[7:10, 15:17] = True
    feature[15:17, 8:16] = True
    light = np.where(disc, np.where(feature, 20.0, 80.0), 100.0)
    cells = (disc & ~feature).astype(np.int64)
    return light, cells, ~disc


def test_an_icons_cut_out_features_count_as_dark() -> None:
    """The holes of a silhouette are paper like its background, but they stand for dark
    features: averaged apart from the transparent background they are drawn dark, and the
    face that reads at a glance scores near 1 (averaged with it: below zero)."""
    from nonoforge.images.measure import likeness, ssim, tone_picture

    light, cells, clear = _icon()
    assert likeness(light, cells) < 0.0  # what a reader would call a perfect match
    assert likeness(light, cells, clear) > 0.95
    assert ssim(light, cells, clear) > ssim(light, cells)
    tone = tone_picture(light, cells, clear)
    assert np.all(tone[clear] == 100.0) and np.all(tone[(cells == 0) & ~clear] == 20.0)
    # a bare silhouette, the features lost, stays below the one that keeps them
    bare = (~clear).astype(np.int64)
    assert likeness(light, bare, clear) < 0.5
    # nothing marked apart: the plain definition
    assert likeness(light, cells, np.zeros_like(clear)) == likeness(light, cells)
