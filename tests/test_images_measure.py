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
