"""The studio's "easier" (nonoforge/studio/grade.py): edits toward a lower human grade, on
webpbn puzzles bundled with nonoforge, each claim re-checked by the solver and the rating."""

from __future__ import annotations

import numpy as np
import pytest

from nonoforge.errors import UsageError
from nonoforge.examples import example_path
from nonoforge.formats import read_file
from nonoforge.pipeline.rate import human_fields
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import solve
from nonoforge.studio.grade import (
    candidates,
    distance,
    easier,
    edit_allowance,
    rated,
    regiven,
)


def example(name: str) -> Puzzle:
    return read_file(example_path(name))[0]


def test_cat_is_made_easier_with_few_edits_and_stays_unique() -> None:
    cat = example("cat")  # webpbn's cat, 20x20: human grade 2 (score 357)
    assert cat.goal is not None
    before = rated(cat)
    assert before is not None and before[1] == 2
    out = easier(cat, 1)
    assert 1 <= len(out.changed) <= edit_allowance(cat.width * cat.height)
    assert (out.grade_before, out.score_before) == (before[1], before[0])
    # every edit is where the answer says, one cell each, and nothing else changed
    want = np.array(cat.goal.cells, dtype=np.int64)
    for r, c, k in out.changed:
        assert want[r, c] != k
        want[r, c] = k
    assert np.array_equal(out.cells, want)
    # the solver proves the result unique and the rating gives what the answer claims
    q = Puzzle.from_grid(Grid(out.cells), cat.palette)
    assert solve(q, max_solutions=2).status.value == "unique"
    h = human_fields(q, "unique")
    assert h["human_grade"] == out.grade_after and round(h["human_score"], 1) == out.score_after
    assert out.score_after < out.score_before
    assert (out.grade_after <= 1) == (out.note is None)


def test_easier_is_deterministic_and_leaves_an_easy_puzzle_alone() -> None:
    skid = example("skid")
    assert easier(skid, 1).changed == easier(skid, 1).changed
    dancer = example("dancer")  # grade 1 already
    out = easier(dancer, 2)
    assert out.changed == [] and "nothing to do" in (out.note or "")


def test_candidates_keep_every_colour_and_touch_shape_edges_only() -> None:
    cells = np.array([[1, 1, 0], [1, 2, 0], [0, 0, 0]])
    got = candidates(cells, 2)
    assert got and all((r, c) != (1, 1) for r, c, _ in got)  # colour 2's last cell
    for r, c, k in got:
        near = {int(cells[y, x]) for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= y < 3 and 0 <= x < 3}
        assert k in near and k != cells[r, c]


def test_distance_is_zero_inside_the_grade_and_grows_outside() -> None:
    assert distance(500.0, 2) == 0.0
    assert 0 < distance(400.0, 1) < distance(4000.0, 1)
    assert 0 < distance(200.0, 3) < distance(20.0, 3)


def test_a_puzzle_that_is_not_unique_or_a_bad_target_is_refused() -> None:
    two = Puzzle.from_grid(Grid(np.array([[1, 0], [0, 1]])))
    with pytest.raises(UsageError, match="not proven unique"):
        easier(two, 1)
    with pytest.raises(UsageError, match="1..5"):
        easier(example("dancer"), 0)


@pytest.mark.slow
def test_a_colour_picture_made_harder_is_made_easier_again() -> None:
    from nonoforge.images.generate import generate
    from nonoforge.pipeline.harden import HardenOptions, harden

    fish = generate(str(example_path("fish")), size=(25, 25), colors=3).puzzle
    hard = harden(fish, HardenOptions(grade=2))
    assert hard.grade_after == 2  # the fish at 25x19 in 3 colours: one edit from grade 1
    out = easier(hard.puzzle, 1)
    assert out.changed and out.grade_after == 1 and out.score_after < out.score_before
    q = Puzzle.from_grid(Grid(out.cells), hard.puzzle.palette)
    assert q.ncolors == 3 and solve(q, max_solutions=2).status.value == "unique"


def test_easier_stops_when_its_answer_is_no_longer_wanted() -> None:
    class Unwanted(Exception):
        pass

    calls = []

    def wanted() -> None:
        calls.append(1)
        if len(calls) > 3:  # a newer stroke came after three candidates
            raise Unwanted

    with pytest.raises(Unwanted):
        easier(example("cat"), 1, still_wanted=wanted)
    assert len(calls) == 4  # asked before every candidate, and stopped at once


def test_easier_keeps_the_puzzles_givens_on_their_cells() -> None:
    cat = example("cat")
    assert cat.goal is not None
    r, c = 0, 0
    with_given = cat.replace(givens=((r, c, int(cat.goal.cells[r, c])),))
    out = easier(with_given, 1, max_edits=1)
    after = regiven(with_given, out.cells)
    assert [(g[0], g[1]) for g in after.givens] == [(r, c)]
    assert after.givens[0][2] == out.cells[r, c]
