"""nonoforge.sweeps: the line sweep shared by the dataset's traces and the givens."""

from __future__ import annotations

import numpy as np

from nonoforge.images.givens import propagate
from nonoforge.pipeline.dataset import line_trace
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solving import mask_colours
from nonoforge.sweeps import line_sweeps


def _open(p: Puzzle) -> np.ndarray:
    return np.full((p.height, p.width), (1 << (p.ncolors + 1)) - 1, dtype=np.uint64)


def test_sweeps_go_rows_then_columns_and_yield_what_changed() -> None:
    # rows [2], [1]; columns [2], [1]: row 0 fills, column 0 then column 1 finish it.
    p = Puzzle.from_grid(Grid([[1, 1], [1, 0]]))
    st = _open(p)
    steps = [(kind, i, changed.tolist()) for kind, i, changed in line_sweeps(p, st)]
    assert steps == [("row", 0, [0, 1]), ("column", 0, [1]), ("column", 1, [1])]
    assert mask_colours(st).tolist() == [[1, 1], [1, 0]]  # solved in place


def test_a_contradiction_is_yielded_last() -> None:
    p = Puzzle.from_grid(Grid([[1, 1], [1, 0]]))
    st = _open(p)
    st[0, 0] = np.uint64(1)  # white where row 0's block of 2 must stand
    *_, last = line_sweeps(p, st)
    assert last[:2] == ("row", 0) and last[2] is None


def test_givens_and_dataset_traces_follow_the_same_sweeps() -> None:
    p = Puzzle.from_grid(Grid([[1, 0, 1], [1, 1, 1], [0, 1, 0]]))
    st = propagate(p, _open(p))
    assert st is not None
    trace = line_trace(p, p.goal)
    ours = _open(p)
    assert [(s["line"], s["index"]) for s in trace] == [
        (kind, i) for kind, i, _ in line_sweeps(p, ours)
    ]
    assert (ours == st).all()
