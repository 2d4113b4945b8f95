"""Harder on purpose (nonoforge.pipeline.harden): a unique puzzle moved toward a target human
grade with few edits or by removing givens, proven unique by the engine at every step, its
likeness to the source picture guarded; and saying so when the grade cannot be reached."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from nonoforge.errors import UsageError
from nonoforge.examples import resolve
from nonoforge.formats import read_file
from nonoforge.pipeline.harden import HardenOptions, Source, harden, harden_generated
from nonoforge.pipeline.rate import human_fields
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import solve


def _unique(p: Puzzle) -> bool:
    return solve(p, max_solutions=2).status.value == "unique"


def test_a_bundled_example_is_made_one_grade_harder_with_one_edit() -> None:
    p = read_file(resolve("example:edge"))[0]
    assert human_fields(p, "unique")["human_grade"] == 2
    h = harden(p, HardenOptions(grade=3))
    assert h.reached and h.note is None and (h.grade_before, h.grade_after) == (2, 3)
    assert h.score_after > h.score_before
    assert len(h.changes) == h.edits == 1
    [c] = h.changes
    goal = solve(p).solutions[0].cells
    assert c.kind == "edit" and goal[c.row, c.col] == c.before != c.after
    new = np.asarray(h.puzzle.goal.cells)
    assert (new != goal).sum() == 1 and new[c.row, c.col] == c.after
    assert _unique(h.puzzle)
    assert human_fields(h.puzzle, "unique")["human_grade"] == 3  # the grade it says
    s = h.summary()
    assert s["grade_before"] == 2 and s["grade_after"] == 3 and s["reached"]
    assert s["changes"] == [{"kind": "edit", "row": c.row, "col": c.col, "before": c.before,
                             "after": c.after}]
    json.dumps(s)
    assert h.line().startswith("human grade 2 -> 3 (wanted 3; ")


def test_a_capped_repair_says_it_stopped_short() -> None:
    p = read_file(resolve("example:edge"))[0]
    h = harden(p, HardenOptions(grade=5, max_edits=2))
    assert not h.reached and h.grade_after < 5 and len(h.changes) <= 2
    assert h.note is not None and "2 change(s)" in h.note
    assert _unique(h.puzzle)


def test_givens_go_first_and_keep_the_picture() -> None:
    """edge with cells printed solved is easier; taking givens away moves it back up while the
    picture stays exactly the same."""
    p = read_file(resolve("example:edge"))[0]
    goal = solve(p).solutions[0]
    cells = np.asarray(goal.cells)
    givens = tuple((r, c, int(cells[r, c])) for r, c in ((1, 1), (3, 8), (5, 2), (7, 6),
                                                         (9, 3), (10, 9)))
    easy = dataclasses.replace(p, goal=goal, givens=givens)
    before = human_fields(easy, "unique")["human_grade"]
    h = harden(easy, HardenOptions(grade=before + 1, max_edits=len(givens)))
    assert h.changes and all(c.kind == "given" for c in h.changes[:1])
    removed = [c for c in h.changes if c.kind == "given"]
    assert removed and all(c.before == c.after == cells[c.row, c.col] for c in removed)
    assert len(h.puzzle.givens) == len(givens) - len(removed)
    assert h.grade_after > before and _unique(h.puzzle)


def test_nothing_to_do_and_refusals() -> None:
    p = read_file(resolve("example:dancer"))[0]
    h = harden(p, HardenOptions(grade=1))
    assert not h.changes and h.puzzle is p and h.reached
    assert h.note == "already at human grade 1 (wanted 1): nothing to do"
    two = Puzzle.from_grid(Grid.from_rows(["#.", ".#"]))
    with pytest.raises(UsageError, match="not proven unique"):
        harden(two, HardenOptions(grade=3))
    with pytest.raises(UsageError, match="1..5"):
        harden(p, HardenOptions(grade=7))


@pytest.mark.slow  # generates a 20x20 picture, then a few rounds of candidates
def test_a_bundled_image_keeps_its_likeness_and_says_when_the_grade_is_out_of_reach() -> None:
    from nonoforge.images.generate import generate

    g = generate(resolve("example:koala"), size=(20, 20))
    assert g.accepted
    before = g.likeness
    made, h = harden_generated(g, HardenOptions(grade=4))
    assert h.likeness_before == pytest.approx(before)
    assert h.changes and h.score_after > h.score_before  # harder, if not grade 4
    assert not h.reached and h.note is not None
    assert h.likeness_after is not None and before - h.likeness_after <= 0.05 + 1e-9
    assert made.likeness == pytest.approx(h.likeness_after)
    assert made.edits == g.edits + h.edits and _unique(made.puzzle)
    assert (np.asarray(made.puzzle.goal.cells) != np.asarray(g.puzzle.goal.cells)).sum() == \
        h.edits
    # the likeness guard is the caller's to set: no loss at all, and only edits that keep
    # the picture as like its source (or more) are made
    strict = harden(g.puzzle, HardenOptions(grade=4, max_likeness_drop=0.0),
                    Source(g.quantised.light, g.quantised.transparent))
    assert strict.likeness_after is not None and strict.likeness_before is not None
    assert strict.likeness_after >= strict.likeness_before - 1e-12


@pytest.mark.slow  # aims a picture by size, then hardens it: several generations and paths
def test_generate_grade_by_human_through_the_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from nonoforge.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["generate", "example:koala", "--size", "20x20", "--grade", "2",
                            "--grade-by", "human", "--json", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    assert row["grade_wanted"] == 2 and row["grade_by"] == "human"
    if "harden" in row:  # the size alone fell short: what the repair did is reported
        hard = row["harden"]
        assert hard["grade_wanted"] == 2 and hard["edits"] == len(
            [c for c in hard["changes"] if c["kind"] == "edit"])
        assert row["grade"] == hard["grade_after"]
        assert (row["grade_note"] is None) == (hard["grade_after"] == 2)
    p = read_file(row["puzzle"])[0]
    assert _unique(p)
    assert human_fields(p, "unique")["human_grade"] == row["grade"]
    r = runner.invoke(app, ["generate", "example:koala", "--size", "20x20", "--grade", "2",
                            "--grade-by", "feel", "--out", str(tmp_path)])
    assert r.exit_code != 0 and "--grade-by" in r.output and "Traceback" not in r.output
