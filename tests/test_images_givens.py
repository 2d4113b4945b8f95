"""``--repair givens``: the fewest cells printed solved so that line logic finishes alone."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import skimage.data
from PIL import Image
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.formats import read_file
from nonoforge.images.generate import generate
from nonoforge.images.givens import find_givens, solved_by_line_logic
from nonoforge.puzzle import Grid, Palette, Puzzle
from nonoforge.solver import solve


def switch_grid() -> Grid:
    """Two 2x2 blocks on a diagonal: the other diagonal has the same clues."""
    cells = np.zeros((10, 10), dtype=np.int64)
    cells[1:3, 1:3] = 1
    cells[3:5, 3:5] = 1
    cells[7:9, 1:9] = 1
    return Grid(cells)


def only_solution_with(puzzle: Puzzle, givens: list[tuple[int, int, int]]) -> int:
    """How many of the puzzle's solutions (all of them, found by the full solver) agree
    with the givens: the check that clues plus givens have exactly one solution."""
    res = solve(puzzle, strategy="auto", max_solutions=1000)
    assert res.status in ("unique", "multiple") and len(res.solutions) < 1000
    sols = [np.asarray(s.cells if isinstance(s, Grid) else s) for s in res.solutions]
    return sum(all(int(s[y, x]) == c for y, x, c in givens) for s in sols)


def test_givens_make_an_ambiguous_picture_unique_by_line_logic() -> None:
    goal = switch_grid()
    p = Puzzle.from_grid(goal)
    assert solve(p, strategy="auto", max_solutions=2).status == "multiple"
    givens = find_givens(p, goal)
    assert len(givens) == 1  # one cell of the switch settles it
    assert solved_by_line_logic(p, givens, goal)
    assert only_solution_with(p, givens) == 1
    assert not solved_by_line_logic(p, [], goal)


def test_no_givens_for_a_line_solvable_picture() -> None:
    goal = Grid.from_rows(["##..", "#...", "####", "..##"])
    p = Puzzle.from_grid(goal)
    assert solve(p, strategy="line").status == "unique"
    assert find_givens(p, goal) == []


@pytest.mark.parametrize(("name", "colors"), [("astronaut", 1), ("chelsea", 4)])
def test_givens_on_photos_keep_the_picture_exact(name: str, colors: int) -> None:
    img = getattr(skimage.data, name)()
    g = generate(img, size=(20, 20), colors=colors, repair_with="givens")
    assert g.accepted and g.edits == 0
    assert g.puzzle.goal is not None  # the quantised picture itself: no cell edited
    assert solved_by_line_logic(g.puzzle, list(g.givens), g.puzzle.goal)
    assert g.givens == g.puzzle.givens  # part of the puzzle: files, sheets, solver
    # the solver proves the printed puzzle (clues + givens) unique, by line logic alone
    for strategy in ("line", "auto"):
        r = solve(g.puzzle, strategy=strategy, max_solutions=2)
        assert r.status == "unique" and r.solutions == [g.puzzle.goal]
    if g.givens:  # without them line logic stalls
        assert not solved_by_line_logic(g.puzzle, [], g.puzzle.goal)
        # pruned: every given is needed
        for k in range(len(g.givens)):
            rest = [h for i, h in enumerate(g.givens) if i != k]
            assert not solved_by_line_logic(g.puzzle, rest, g.puzzle.goal)


def test_verdict_reported_is_the_printed_puzzles() -> None:
    """With givens the puzzle is the clues *plus* the givens (its key says so), so the
    verdict generate reports (``status``, ``technique`` in ``--json``) is that puzzle's,
    proven by the solver -- not the clues' alone, which are ambiguous (the switch)."""
    im = np.where(switch_grid().cells, 0, 255).astype(np.uint8)
    g = generate(Image.fromarray(im).resize((100, 100), Image.Resampling.NEAREST),
                 size=(10, 10), crop=False, repair_with="givens")
    assert g.givens and g.accepted
    facts = g.summary()
    r = solve(g.puzzle, strategy="line", max_solutions=2)
    assert (facts["status"], facts["technique"]) == (r.status, r.technique) == ("unique", "line")
    assert facts["key"] == g.puzzle.key


def test_cli_repair_givens_writes_non_with_givens_and_sheets(tmp_path: Path) -> None:
    src = tmp_path / "switch.png"
    im = Image.fromarray(np.where(switch_grid().cells, 0, 255).astype(np.uint8))
    im.resize((100, 100), Image.Resampling.NEAREST).save(src)
    runner = CliRunner()
    r = runner.invoke(app, ["generate", str(src), "--size", "10x10", "--no-crop",
                            "--repair", "givens", "--json", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    assert row["accepted"] and row["edits"] == 0 and len(row["givens"]) == 1
    assert "\ngivens " in Path(row["puzzle"]).read_text()
    [p] = read_file(row["puzzle"])  # the givens come back as part of the puzzle
    assert p.goal == switch_grid()
    assert p.givens == tuple(tuple(g) for g in row["givens"])
    assert p.key == row["key"]
    assert solve(p).status == "unique"  # proven with its givens; multiple without them
    assert solve(p.replace(givens=())).status == "multiple"
    assert 'class="given"' in Path(row["files"]["sheet_svg"]).read_text()
    # a format that holds givens is written: our JSON
    r = runner.invoke(app, ["generate", str(src), "--size", "10x10", "--no-crop",
                            "--repair", "givens", "--format", "json", "--json", "--out",
                            str(tmp_path / "j")])
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    assert read_file(row["puzzle"])[0].givens == p.givens
    # a format that would drop the givens is refused, with one line, nothing written
    out = tmp_path / "x"
    r = runner.invoke(app, ["generate", str(src), "--size", "10x10", "--no-crop",
                            "--repair", "givens", "--format", "xml", "--out", str(out)])
    assert r.exit_code == 2 and "cannot hold given cells" in r.stderr
    assert str(out / "switch.xml") in r.stderr  # which file, why, what to use instead
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert not out.exists()
    # Pattern game IDs hold them as clue squares (Tatham's Pattern starts from them)
    r = runner.invoke(app, ["generate", str(src), "--size", "10x10", "--no-crop",
                            "--repair", "givens", "--format", "tatham", "--json", "--out",
                            str(tmp_path / "t")])
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    assert row["puzzle"].endswith(".pattern") and "," in Path(row["puzzle"]).read_text()
    assert read_file(row["puzzle"])[0].givens == p.givens


def test_sheet_png_draws_givens() -> None:
    from nonoforge.images.render import sheet_png

    p = Puzzle.from_grid(switch_grid(), Palette.bw())
    plain = np.asarray(sheet_png(p))
    marked = np.asarray(sheet_png(p.replace(givens=[(1, 1, 1), (0, 0, 0)])))
    assert (plain != marked).any()


def test_find_givens_answers_are_those_of_the_two_copy_version() -> None:
    """Each candidate's trial state is copied once (propagate narrows it in place); the
    givens chosen are those the earlier version, which copied it twice, chose on the same
    seeded random pictures, black-and-white and two-colour (answers recorded from it)."""
    from nonoforge.images.givens import propagate

    want = [
        [(2, 0, 1), (8, 6, 0)], [(4, 3, 1), (5, 4, 1)], [(2, 4, 1)],
        [(4, 6, 0), (7, 2, 0)], [], [(0, 2, 0), (7, 2, 1)],
    ]  # fmt: skip
    for seed in range(6):
        rng = np.random.default_rng(seed)
        cells = (rng.random((10, 10)) < 0.5).astype(np.int64)
        if seed >= 3:
            cells = cells * rng.integers(1, 3, size=cells.shape)  # two painted colours
        g = Grid(cells)
        p = Puzzle.from_grid(g)
        assert find_givens(p, g) == want[seed], seed
        if seed == 0:
            from nonoforge.solving import full_state

            st = full_state(p.height, p.width, p.ncolors)
            copy = propagate(p, st)
            assert copy is not st and copy is not None
            same = propagate(p, st, in_place=True)
            assert same is st and np.array_equal(same, copy)


def test_chelsea_needs_its_given_the_solver_says_so() -> None:
    """A real picture: chelsea in 4 colours at 20x20 is ambiguous as clues alone
    (``multiple``, two pictures both reproducing the clues) and unique with the given that
    find_givens prints; the .non written for it reads back as the same puzzle."""
    from nonoforge.formats import dumps, loads

    g = generate(skimage.data.chelsea(), size=(20, 20), colors=4, repair_with="givens")
    p = g.puzzle
    assert p.givens and g.summary()["givens"] == [list(x) for x in p.givens]
    assert solve(p).status == "unique"
    bare = solve(p.replace(givens=()), max_solutions=2)
    assert bare.status == "multiple" and all(s.matches(p) for s in bare.solutions)
    assert sum(all(int(s.cells[y, x]) == k for y, x, k in p.givens)
               for s in bare.solutions) <= 1  # the givens rule the other picture out
    [back] = loads(dumps(p, "non"), "non")
    assert back.givens == p.givens and back.key == p.key
