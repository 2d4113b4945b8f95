"""The export item (``nonoforge.pipeline.item``): what books and pages print beside a
puzzle, from its verdict, and the clues as JSON."""

from __future__ import annotations

import pytest

from nonoforge.pipeline.item import ExportItem, clues_json
from nonoforge.puzzle import Grid, Meta, Puzzle
from nonoforge.results import Verdict

SWITCH = Puzzle.from_grid(Grid.from_rows(["#.", ".#"]), meta=Meta(title="Switch"))


@pytest.mark.parametrize(("verdict", "unique", "note"), [
    ("unique", True, None),
    (Verdict.UNIQUE, True, None),
    ("multiple", False, "not unique: one of several solutions"),
    # a one-solution answer, stored as "found" now and as "unsolved" before: not proven
    ("found", False, "uniqueness not proven"),
    ("unsolved", False, "uniqueness not proven"),
    ("timeout_wall", False, "uniqueness not proven"),  # the rating's own verdicts
    ("error", False, "uniqueness not proven"),
    (None, False, "uniqueness not proven"),
])
def test_only_a_proven_unique_verdict_prints_without_a_note(
    verdict: str | None, unique: bool, note: str | None
) -> None:
    it = ExportItem(SWITCH, 1, verdict=verdict)
    assert (it.unique, it.note) == (unique, note)


def test_title_and_grade_come_from_the_puzzle_and_its_rating() -> None:
    it = ExportItem(SWITCH, 3, {"grade": 2})
    assert (it.title, it.grade) == ("Switch", 2)
    bare = ExportItem(SWITCH.replace(meta=Meta()), 4)
    assert bare.title == "No. 4" and bare.grade is None  # never a hex key (issue 37)


def test_clues_as_json_lengths_for_black_and_white_pairs_for_colour() -> None:
    assert clues_json(SWITCH.rows, bw=True) == [[1], [1]]
    assert clues_json(SWITCH.columns, bw=False) == [[[1, 1]], [[1, 1]]]
