"""The human-like step solver: each rung on lines of its own, soundness against complete line
logic, and agreement with the engine on the bundled examples and the shared corpora."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from nonoforge.errors import PuzzleError
from nonoforge.examples import list_examples, resolve
from nonoforge.formats import read_file
from nonoforge.puzzle import Grid, Puzzle, clue_of
from nonoforge.solver import solve
from nonoforge.solver.human import (
    LADDER,
    LINE_RUNGS,
    TRIAL_RUNGS,
    HumanOptions,
    Stop,
    Technique,
    _dp_line_logic,
    explain_path,
    line_logic,
    next_step,
    parse_state,
    path_rows,
    path_text,
    rung,
)
from nonoforge.solver.quick import line_logic as quick_line_logic
from nonoforge.solving import mask_colours
from tests.conftest import shared_path

T = Technique
BW = [(1, 1)]


def _first(masks: list[int], blocks: list[tuple[int, int]]) -> tuple[Technique, list[int]]:
    """The easiest rung that narrows the line, and what it gives."""
    for t in LINE_RUNGS:
        out = rung(t, masks, blocks)
        if out is not None and out != masks:
            return t, out
    raise AssertionError("no rung applies")


# masks: 1 empty, 2 filled, 3 unknown; each line is the easiest case of its rung
@pytest.mark.parametrize(("technique", "masks", "blocks", "out"), [
    (T.SIMPLE_BOXES, [3] * 10, [(7, 1)], [3, 3, 3, 2, 2, 2, 2, 3, 3, 3]),
    (T.SIMPLE_BOXES, [3] * 4, [(2, 1), (1, 1)], [2, 2, 1 | 2, 2]),
    (T.SIMPLE_SPACES, [3, 1, 3, 3, 3, 3], [(2, 1)], [1, 1, 3, 3, 3, 3]),
    (T.SIMPLE_SPACES, [2, 2, 3, 2], [(2, 1), (1, 1)], [2, 2, 1, 2]),
    (T.SIMPLE_SPACES, [3, 3, 3], [], [1, 1, 1]),
    (T.FORCING, [3, 1, 2, 1], [(1, 1)], [1, 1, 2, 1]),
    (T.FORCING, [3, 2, 3, 3, 3, 3, 3, 3], [(3, 1), (1, 1)], [3, 2, 2, 3, 3, 3, 3, 3]),
    (T.GLUE, [3, 3, 3, 2, 3, 3], [(1, 1), (1, 1), (1, 1)], [3, 3, 1, 2, 3, 3]),
    (T.COMPLETING, [3, 3, 2, 1, 2], [(1, 1), (1, 1)], [1, 1, 2, 1, 2]),
    (T.LINE, [3, 3, 2, 1, 3], [(1, 1), (1, 1)], [3, 1, 2, 1, 3]),
    # colour: red 2 then blue 2 in 4 cells touch; overlap and spaces by colour
    (T.SIMPLE_BOXES, [7] * 4, [(2, 1), (2, 2)], [2, 2, 4, 4]),
    (T.SIMPLE_SPACES, [7] * 3, [(1, 1), (1, 2)], [3, 7, 5]),
])
def test_each_rung_on_its_own_line(technique: Technique, masks: list[int],
                                   blocks: list[tuple[int, int]], out: list[int]) -> None:
    assert _first(masks, blocks) == (technique, out)


def test_line_logic_agrees_with_the_quick_line_solver() -> None:
    for n in range(1, 9):
        for cells in itertools.product((0, 1), repeat=n):
            lens = [b.length for b in clue_of(cells)]
            for reveal in ((), (0,), (n - 1,), tuple(range(0, n, 2))):
                masks = [2 if i in reveal and cells[i] else 1 if i in reveal else 3
                         for i in range(n)]
                blocks = [(x, 1) for x in lens]
                assert _dp_line_logic(masks, blocks) == quick_line_logic(masks, lens)
                assert line_logic(masks, blocks) == quick_line_logic(masks, lens)


@st.composite
def lines(draw: st.DrawFn) -> tuple[list[int], list[tuple[int, int]]]:
    """A line solved by some picture (1-3 colours), some of its cells known."""
    ncol = draw(st.integers(1, 3))
    n = draw(st.integers(1, 18))
    cells = draw(st.lists(st.integers(0, ncol), min_size=n, max_size=n))
    known = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    full = (1 << (ncol + 1)) - 1
    masks = [1 << c if k else full for c, k in zip(cells, known, strict=True)]
    return masks, [(b.length, b.color) for b in clue_of(cells)]


@settings(max_examples=400, deadline=None)
@given(lines())
def test_line_logic_is_the_step_solvers_own_dynamic_programme(
    line: tuple[list[int], list[tuple[int, int]]],
) -> None:
    """line_logic runs the quick solvers (faster); the rungs' own DP must agree with them,
    colour included, on lines that fit and on lines broken by a wrong known cell."""
    masks, blocks = line
    assert line_logic(masks, blocks) == _dp_line_logic(masks, blocks)
    if blocks:
        wrong = [m if i else 1 for i, m in enumerate(masks)]  # the first cell forced empty
        assert line_logic(wrong, blocks) == _dp_line_logic(wrong, blocks)


def _ranges_cell_by_cell(
    masks: list[int], blocks: list[tuple[int, int]],
) -> tuple[list[int], list[int]] | None:
    """The rungs' block ranges by their definition: slide each block cell by cell as far
    left (right) as the cells that cannot take its colour allow."""
    n, k = len(masks), len(blocks)

    def fits(j: int, s: int) -> bool:
        ln, c = blocks[j]
        return all(masks[i] >> c & 1 for i in range(s, s + ln))

    left, pos = [], 0
    for j, (ln, c) in enumerate(blocks):
        while pos + ln <= n and not fits(j, pos):
            pos += 1
        if pos + ln > n:
            return None
        left.append(pos)
        pos += ln + (1 if j + 1 < k and blocks[j + 1][1] == c else 0)
    right, end = [0] * k, n
    for j in range(k - 1, -1, -1):
        ln, c = blocks[j]
        s = end - ln
        while s >= 0 and not fits(j, s):
            s -= 1
        if s < 0:
            return None
        right[j] = s
        end = s - (1 if j > 0 and blocks[j - 1][1] == c else 0)
    if any(left[j] > right[j] for j in range(k)):
        return None
    return left, right


@settings(max_examples=400, deadline=None)
@given(lines(), st.data())
def test_block_ranges_on_bitsets_are_the_cell_by_cell_slide(
    line: tuple[list[int], list[tuple[int, int]]], data: st.DataObject,
) -> None:
    """Also on lines some cells of which lost a colour they need (a player's mistakes):
    then blocks may not fit at all."""
    from nonoforge.solver.human import _ranges

    masks, blocks = line
    struck = data.draw(st.lists(st.tuples(st.integers(0, len(masks) - 1), st.integers(0, 3)),
                                max_size=4))
    for i, c in struck:
        if masks[i] & ~(1 << c):  # never a cell with no colour left
            masks[i] &= ~(1 << c)
    assert _ranges(masks, blocks) == _ranges_cell_by_cell(masks, blocks)


@settings(max_examples=400, deadline=None)
@given(lines())
def test_every_rung_decides_only_what_line_logic_decides(
    line: tuple[list[int], list[tuple[int, int]]],
) -> None:
    masks, blocks = line
    full = line_logic(masks, blocks)
    assert full is not None
    for t in LINE_RUNGS:
        out = rung(t, masks, blocks)
        if out is None:
            continue
        for m, o, f in zip(masks, out, full, strict=True):
            assert o & ~m == 0, t  # only narrows
            assert f & ~o == 0, t  # never past complete line logic
        if t is T.LINE:
            assert out == full


def _solution(path_state: np.ndarray) -> np.ndarray:
    return mask_colours(path_state)


def _agrees(p: Puzzle) -> None:
    res = solve(p)
    path = explain_path(p, options=HumanOptions(max_probe_lines=20_000))
    if res.technique in ("trivial", "overlap", "line"):
        assert path.stop is Stop.SOLVED
        assert all(s.technique not in TRIAL_RUNGS for s in path.steps)
    if path.stop is Stop.SOLVED:
        assert res.status.value == "unique"
        assert np.array_equal(_solution(path.state), res.solutions[0].cells)
    else:
        assert path.stop in (Stop.STALLED, Stop.BUDGET)
        assert res.technique in ("probe", "search")


def _examples() -> list[object]:
    """The bundled puzzles; the big ones (a few seconds each) are slow tests."""
    out: list[object] = []
    for e in list_examples():
        if e.kind == "image":
            continue
        p = read_file(resolve(f"example:{e.name}"))[0]
        big = p.width * p.height > 1500
        out.append(pytest.param(e.name, marks=[pytest.mark.slow] if big else []))
    return out


@pytest.mark.parametrize("name", _examples())
def test_bundled_examples_end_on_the_engines_solution(name: str) -> None:
    _agrees(read_file(resolve(f"example:{name}"))[0])


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["survey-free", "mikix-db"])
def test_shared_corpus_puzzles_end_on_the_engines_solution(corpus: str) -> None:
    root = shared_path("corpora", corpus)
    files = sorted(root.rglob("*.non"))[:40]
    assert files
    for f in files:
        for p in read_file(f):
            if p.width * p.height <= 1600:
                _agrees(p)


def test_a_path_reads_like_a_player_and_is_deterministic() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["...#######"]))
    path = explain_path(p)
    first = path.steps[0]
    assert (first.technique, first.kind.value, first.index) == (T.SIMPLE_BOXES, "row", 0)
    assert first.sentence == ("Row 1: the block of 7 in 10 cells must cover cells 4-7 "
                              "whichever way it sits.")
    assert [(c.row, c.col, c.after) for c in first.cells] == [(0, j, 2) for j in range(3, 7)]
    assert explain_path(p).steps == path.steps
    assert path.stop is Stop.SOLVED and path.footholds >= 1
    assert path.hardest is not None and path.hardest in LADDER


def test_a_wrong_cell_stops_before_any_hint() -> None:
    p = Puzzle.from_grid(Grid.from_rows([".#.", "###", ".#."]))
    wrong = parse_state("#??\n???\n???", p)
    path = next_step(p, wrong, solve(p).solutions[0].cells)
    assert path.stop is Stop.WRONG and not path.steps and path.wrong == ((0, 0),)
    # without the solution the mistake shows once line deduction meets it
    blind = explain_path(p, wrong)
    assert blind.stop is Stop.CONTRADICTION and blind.broken is not None
    broken = next_step(p, parse_state("#??\n#??\n#??", p))
    assert broken.stop is Stop.CONTRADICTION and not broken.steps
    ok = next_step(p, parse_state("??.\n???\n???", p))
    assert len(ok.steps) == 1 and ok.stop is Stop.LIMIT


def test_two_solutions_stall_where_the_engine_searches() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#.", ".#"]))
    path = explain_path(p)
    assert path.stop is Stop.STALLED and not path.steps and path.bottleneck == 0
    assert solve(p).status.value == "multiple"
    # it says so: the rest needs search (the engine's), or there are several solutions
    assert path_text(path)[0] == ("Stuck: no technique on the ladder applies here; the rest "
                                  "needs guessing (search), or the puzzle has more than one "
                                  "solution.")


def test_trial_rungs_name_the_cell_on_an_example() -> None:
    p = read_file(resolve("example:edge"))[0]  # the engine needs probing here
    path = explain_path(p)
    probes = [s for s in path.steps if s.technique in TRIAL_RUNGS]
    assert probes and path.stop is Stop.SOLVED
    assert all(len(s.cells) == 1 and "if the cell at" in s.sentence for s in probes)
    assert np.array_equal(_solution(path.state), solve(p).solutions[0].cells)


def test_two_line_rung_on_a_hand_made_puzzle() -> None:
    """No line has a deduction on the empty grid; two rows read together give the first:
    row 1 (clue 1) with its cell 1 filled would have cells 2-4 empty, and columns 1 (clue 2)
    and 4 (clue 1 1) would then fill cells 1 and 4 of row 2, which its clue 2 cannot hold."""
    p = Puzzle.from_grid(Grid.from_rows(["...#", "##..", "#...", "..##"]))
    path = explain_path(p)
    first = path.steps[0]
    assert path.footholds == 0 and path.bottleneck == 0
    assert (first.technique, first.kind.value, first.index) == (T.TWO_LINE, "row", 1)
    assert [(c.row, c.col, c.before, c.after) for c in first.cells] == [(0, 0, 3, 1)]
    assert first.assumed == 2 and first.via is not None and first.via[0].value == "row"
    assert first.via[1] == 0
    assert first.sentence == (
        "Rows 1 and 2 together: if the cell at row 1, column 1 were filled, row 1 would need "
        "cells 2-4 empty; the columns through them then give row 2 cells 1 and 4 filled, "
        "which its clue 2 cannot hold; so it is empty.")
    assert path_rows(path)[0]["assumed"] == 1 and path_rows(path)[0]["via"] == {
        "line": "row", "index": 0}
    assert path.stop is Stop.SOLVED and path.hardest is T.TWO_LINE
    assert np.array_equal(_solution(path.state), solve(p).solutions[0].cells)


def test_contradiction_rung_where_two_lines_are_not_enough() -> None:
    """Cell (1, 1) empty breaks column 4 only after line deduction has gone round more than
    two lines: the contradiction rung, naming the cell and the line where it fails."""
    p = Puzzle.from_grid(Grid.from_rows(["#..##", "..#.#", ".###.", "..#.#", "##..."]))
    path = explain_path(p)
    used = [s.technique for s in path.steps]
    assert T.TWO_LINE in used and used.index(T.TWO_LINE) < used.index(T.CONTRADICTION)
    step = next(s for s in path.steps if s.technique is T.CONTRADICTION)
    assert (step.kind.value, step.index) == ("column", 3)
    assert [(c.row, c.col, c.after) for c in step.cells] == [(0, 0, 2)]
    assert step.assumed == 1 and step.via is None
    assert step.sentence == ("Cell at row 1, column 1: if it were empty, line deduction "
                             "would break column 4 (clue 1 1), so it is filled.")
    # the state just before: no line rung and no two-line trial decides anything there
    before = explain_path(p, options=HumanOptions(max_steps=used.index(T.CONTRADICTION)))
    nxt = next_step(p, before.state)
    assert [s.technique for s in nxt.steps] == [T.CONTRADICTION]
    assert path.stop is Stop.SOLVED and path.hardest is T.CONTRADICTION
    assert np.array_equal(_solution(path.state), solve(p).solutions[0].cells)


def test_trials_stop_at_their_budget() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#..##", "..#.#", ".###.", "..#.#", "##..."]))
    path = explain_path(p, options=HumanOptions(max_probe_lines=3))
    assert path.stop is Stop.BUDGET and path.probe_lines == 3
    assert all(s.technique not in TRIAL_RUNGS for s in path.steps)


def test_state_text_is_checked() -> None:
    p = Puzzle.from_grid(Grid.from_rows([".#.", "###", ".#."]))
    with pytest.raises(PuzzleError, match="rows"):
        parse_state("???\n???", p)
    with pytest.raises(PuzzleError, match="row 2 has 2 cells"):
        parse_state("???\n??\n???", p)
    with pytest.raises(PuzzleError, match="'x' is not one of"):
        parse_state("???\n?x?\n???", p)


def test_explain_through_the_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from nonoforge.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["explain", "example:dancer"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("   1. [simple_boxes] Row 2:")
    assert "Solved." in lines and lines[-1].startswith("37 step(s); hardest: forcing")
    r = runner.invoke(app, ["explain", "example:dancer", "--json", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["summary"]["steps"] == len(data["steps"]) == 37
    assert data["summary"]["stop"] == "solved" and data["summary"]["footholds"] == 5
    assert data["steps"][0]["cells"] == [{"row": 1, "col": 1, "value": 1, "mask": 2}]
    gif = Image.open(data["gif"])
    assert gif.n_frames == 38  # the start, then one frame per step
    # a hint from a partly solved grid, and a wrong cell reported before any hint
    p = read_file(resolve("example:dancer"))[0]
    grid = ["?" * p.width] * p.height
    state = tmp_path / "state.txt"
    state.write_text("\n".join(grid) + "\n")
    r = runner.invoke(app, ["explain", "example:dancer", "--state", str(state),
                            "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == lines[0]
    assert Image.open(tmp_path / "dancer-hint.png").size[0] > p.width
    sol = solve(p).solutions[0].cells
    bad = [row for row in grid]
    bad[0] = ("#" if sol[0, 0] == 0 else ".") + bad[0][1:]
    state.write_text("\n".join(bad))
    r = runner.invoke(app, ["explain", "example:dancer", "--state", str(state), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["steps"] == [] and data["summary"]["stop"] == "wrong"
    assert data["summary"]["wrong"] == [{"row": 0, "col": 0}]
    state.write_text("??\n")
    r = runner.invoke(app, ["explain", "example:dancer", "--state", str(state)])
    assert r.exit_code != 0 and "rows" in r.output and "Traceback" not in r.output


def test_a_colour_puzzle_is_walked_in_its_colours() -> None:
    from nonoforge.puzzle import Palette

    pal = Palette.of(("white", "#fff"), ("red", "#f00"), ("blue", "#00f"))
    grid = Grid(np.array([[1, 1, 2, 0], [0, 2, 2, 1], [1, 0, 2, 2]], dtype=np.uint8))
    p = Puzzle.from_grid(grid, pal)
    path = explain_path(p)
    res = solve(p)
    if res.technique in ("trivial", "overlap", "line"):
        assert path.stop is Stop.SOLVED
        assert np.array_equal(_solution(path.state), res.solutions[0].cells)
    assert any("red" in s.sentence or "blue" in s.sentence for s in path.steps)
