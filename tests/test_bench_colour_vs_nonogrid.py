"""bench/colour_vs_nonogrid.py's own logic: the clues it hands nonogrid's driver, how it
reads the driver's answer, and the plain-Python check every answer goes through."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from conftest import bench_module
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.formats import read_file
from nonoforge.puzzle import Grid, Puzzle

cvn = bench_module("colour_vs_nonogrid")
DATA = Path(__file__).parent / "data"
NONOGRID = os.environ.get("NONOGRID")


def _dancer() -> Puzzle:
    return read_file(DATA / "dancer.non")[0]


def test_runs_of_colour_lines() -> None:
    """Runs of different colours touch without a gap and stay apart; background splits."""
    assert cvn.runs([1, 1, 2, 0, 2, 2, 2, 0]) == [(2, 1), (1, 2), (3, 2)]
    assert cvn.runs([0, 0]) == []
    assert cvn.runs([3]) == [(1, 3)]


def test_answer_check_on_a_published_puzzle() -> None:
    """webpbn #1 (Dancer): its published goal passes; any one cell changed fails."""
    p = _dancer()
    assert p.goal is not None
    goal = p.goal.cells.tolist()
    assert cvn.answer_matches(p, goal)
    for r, c in ((0, 0), (4, 2), (9, 4)):
        bad = [row[:] for row in goal]
        bad[r][c] = 1 - bad[r][c]
        assert not cvn.answer_matches(p, bad)
    assert not cvn.answer_matches(p, goal[:-1])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_a_picture_matches_its_own_clues(h: int, w: int, nc: int, seed: int) -> None:
    """Checked against nonoforge's own clues of a random colour picture, the picture passes
    and the driver's input carries one line per row and column."""
    cells = np.random.default_rng(seed).integers(0, nc + 1, size=(h, w))
    cells[0, 0] = cells[0, 0] or 1
    p = Puzzle.from_grid(Grid(cells))
    assert cvn.answer_matches(p, cells.tolist())
    text = cvn.driver_input(p).splitlines()
    assert text[0] == f"{h} {w}" and len(text) == 1 + h + w
    assert all(ln == "0" or all("," in tok for tok in ln.split()) for ln in text[1:])


def test_driver_output_read_and_refused() -> None:
    out = cvn.parse_driver_output("solutions 2\n1 0\n0 2\n\n2 0\n0 1\n\ncpu 0.000120\n")
    assert out.solutions == [[[1, 0], [0, 2]], [[2, 0], [0, 1]]] and out.cpu == 0.00012
    assert cvn.parse_driver_output("solutions 0\ncpu 0.1\n").solutions == []
    with pytest.raises(cvn.DriverOutputError):
        cvn.parse_driver_output("solutions 2\n1 0\n\ncpu 0.1\n")
    with pytest.raises(cvn.DriverOutputError):
        cvn.parse_driver_output("thread 'main' panicked\n")


@pytest.mark.skipif(not NONOGRID, reason="NONOGRID (the built nonogrid driver) not set; "
                    "build it with bench/build_nonogrid.sh")
def test_nonogrid_and_nonoforge_agree_on_published_and_colour_puzzles() -> None:
    """With the driver built: Dancer is unique for both, its answer checked; the colour
    flags get the same verdicts from both, every answer checked."""
    assert NONOGRID is not None
    puzzles = [_dancer(), *read_file(DATA / "flags.nonpack")]
    assert any(p.palette.ncolors > 1 for p in puzzles)
    for p in puzzles:
        theirs = cvn.run_nonogrid(NONOGRID, p, 60.0)
        ours = cvn.run_nonoforge(p, cvn.DEFAULT_WORK_BUDGET, 60.0)
        assert theirs.ok and ours.ok
        assert theirs.verdict == ours.verdict
    assert cvn.run_nonogrid(NONOGRID, _dancer(), 60.0).verdict == "unique"
