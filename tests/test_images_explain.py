"""The designer's view (``images/explain.py``, ``render.explain_png``/``explain_gif``):
each independent ambiguity of a picture as its own region, drawn and animated."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.images.explain import (
    SWAP_WORK,
    Explanation,
    _Seeker,
    _swaps,
    costs,
    explain,
    summary_line,
    switches,
)
from nonoforge.images.render import _faded, explain_gif, explain_png
from nonoforge.puzzle import Grid, Palette, Puzzle, clue_of
from nonoforge.solver import solve

#: Two classic switches far apart (the diagonal pairs at rows 1-2 and 7-8), each with
#: its own rows and columns, around parts line logic settles alone (two full-width bars).
TWO_SWITCHES = [
    "............",
    ".#..........",
    "..#.........",
    "............",
    "..######....",
    "..######....",
    "............",
    "........#...",
    ".........#..",
    "............",
    ".##########.",
    "............",
]
SWITCH_A = ((1, 1), (1, 2), (2, 1), (2, 2))
SWITCH_B = ((7, 8), (7, 9), (8, 8), (8, 9))


def _explained(rows: list[str], **kw: int) -> tuple[Puzzle, Explanation]:
    grid = Grid.from_rows(rows)
    puzzle = Puzzle.from_grid(grid)
    return puzzle, explain(grid, puzzle.palette, **kw)


def _assert_alternatives(puzzle: Puzzle, e: Explanation) -> None:
    """Every region is a solution of its own: the picture with just it flipped."""
    assert puzzle.goal is not None
    assert len(e.alternatives) == len(e.regions)
    for region, alt in zip(e.regions, e.alternatives, strict=True):
        assert alt.matches(puzzle)  # the clues, checked here again
        ys, xs = np.nonzero(alt.cells != puzzle.goal.cells)
        assert set(zip(ys.tolist(), xs.tolist(), strict=True)) == set(region)
    assert sorted(c for r in e.regions for c in r) == list(e.cells)


def test_each_independent_switch_is_its_own_region() -> None:
    puzzle, e = _explained(TWO_SWITCHES)
    assert e.kind == "flip" and e.status == "multiple"
    assert e.regions == (SWITCH_A, SWITCH_B)  # reading order
    assert e.complete  # with both pinned the picture is proven the only solution
    _assert_alternatives(puzzle, e)
    facts = e.as_json()
    assert facts["regions"] == [[list(c) for c in SWITCH_A], [list(c) for c in SWITCH_B]]
    assert facts["complete"] is True and len(facts["cells"]) == 8


def test_a_far_flung_difference_is_narrowed_to_the_small_switch() -> None:
    """Two 2x2 blocks on a diagonal flip as one 4x4 region; the lone pair beside them
    sharing no line is a region of its own, not merged with it."""
    rows = ["." * 10 for _ in range(10)]
    grid = np.array([list(r) for r in rows])
    grid[1:3, 1:3] = "#"
    grid[3:5, 3:5] = "#"
    grid[7, 7] = grid[8, 8] = "#"
    puzzle, e = _explained(["".join(r) for r in grid])
    assert e.regions == (
        tuple((y, x) for y in range(1, 5) for x in range(1, 5)),
        ((7, 7), (7, 8), (8, 7), (8, 8)),
    )
    _assert_alternatives(puzzle, e)


def test_rounds_and_budget_bound_the_search_deterministically() -> None:
    puzzle, one = _explained(TWO_SWITCHES, rounds=1)
    assert len(one.regions) == 1 and not one.complete
    _assert_alternatives(puzzle, one)
    # just enough work for the first solve (its share of the budget): its alternative is
    # shown as found
    from nonoforge.images.explain import FIRST_SHARE

    work = -(-solve(puzzle, strategy="auto", max_solutions=2).effort["work"] * 100
             // FIRST_SHARE)
    _, tight = _explained(TWO_SWITCHES, budget=work)
    assert tight.kind == "flip" and len(tight.regions) == 1 and not tight.complete
    assert _explained(TWO_SWITCHES, budget=work)[1] == tight  # the same every run
    _assert_alternatives(puzzle, tight)
    # what stopped it is said, in the JSON and the line for people
    assert (one.stopped, tight.stopped, _explained(TWO_SWITCHES)[1].stopped) == (
        "rounds", "budget", None)
    assert one.as_json()["stopped"] == "rounds" and tight.as_json()["stopped"] == "budget"
    assert _explained(TWO_SWITCHES)[1].as_json()["stopped"] is None
    assert "16 regions looked for" in summary_line({**one.as_json(), "file": "x.png"})
    # which regions are proven minimal: not the one the budget stopped shrinking
    assert one.minimal == (True,) and tight.minimal == (False,)
    assert tight.as_json()["minimal"] == [False]
    assert summary_line({**tight.as_json(), "file": "x.png"}) == (
        f"explain: 1 independent ambiguity ({len(tight.cells)} cells), perhaps more "
        "(work budget spent); region 1 not proven minimal -> x.png")
    assert _explained(TWO_SWITCHES)[1].minimal == (True, True)
    assert "work budget spent" in summary_line({**tight.as_json(), "file": "x.png"})


def test_the_time_guard_firing_is_reported_not_taken_for_the_budget() -> None:
    """A deadline already past stops the search for ambiguities as ``timeout`` (the
    wall-clock guard: on a quiet machine the budget would have decided), never as if the
    budget had run out, and the explanation says so."""
    puzzle, e = _explained(TWO_SWITCHES)
    assert puzzle.goal is not None
    mine = puzzle.goal.cells
    seek = _Seeker(puzzle, mine, time.monotonic() - 1.0, 10**9)
    assert seek.other(np.zeros(mine.shape, dtype=bool)) is None
    assert seek.exhausted and seek.stopped == "timeout"
    guarded = explain(puzzle.goal, puzzle.palette, timeout=1e-9)
    said = guarded.status if guarded.kind == "undecided" else guarded.stopped
    assert said == "timeout" and not (guarded.kind == "flip" and guarded.complete)
    if guarded.kind == "flip":
        line = summary_line({**guarded.as_json(), "file": "x.png"})
        assert "time guard" in line and "budget" not in line


def test_a_cnf_too_large_for_the_sat_back_end_stops_the_search_as_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the SAT back-end's clause limit the search stops and says ``size`` (what was
    found is shown); only that refusal is taken for it, any other solver error is a bug
    and propagates."""
    import nonoforge.solver.sat as sat

    puzzle, _ = _explained(TWO_SWITCHES)
    assert puzzle.goal is not None
    monkeypatch.setattr(sat, "FIRST_CLAUSES", 8)  # the buffer fills at once...
    monkeypatch.setattr(sat, "MAX_CLAUSES", 8)  # ...and may not grow: no CNF of this size
    seek = _Seeker(puzzle, puzzle.goal.cells, time.monotonic() + 60.0, 10**9)
    assert seek.other(np.zeros(puzzle.goal.cells.shape, dtype=bool)) is None
    assert seek.exhausted and seek.stopped == "size"


def test_a_picture_line_logic_solves_has_nothing_to_explain() -> None:
    e = _explained([".#.", "###", ".#."])[1]
    assert (e.kind, e.regions, e.as_json()) == (
        "none", (), {"kind": "none", "status": "unique", "cells": []})


def _centre(im: Image.Image, cell: tuple[int, int], scale: int) -> tuple[int, int, int]:
    y, x = cell
    px = im.getpixel((x * scale + scale // 2, y * scale + scale // 2))
    assert isinstance(px, tuple)
    return (int(px[0]), int(px[1]), int(px[2]))


def _frames(data: bytes) -> list[Image.Image]:
    im = Image.open(io.BytesIO(data))
    assert im.format == "GIF" and im.info.get("loop") == 0
    out = []
    for k in range(im.n_frames):
        im.seek(k)
        out.append(im.convert("RGB"))
    return out


def _assert_animation(data: bytes, grid: Grid, palette: Palette,
                      regions: tuple[tuple[tuple[int, int], ...], ...],
                      alternatives: tuple[Grid, ...], scale: int) -> None:
    """Picture, alternative, for each region in turn: at every cell centre the two frames
    differ exactly at the region's cells, which show the two solutions' colours in full;
    every other cell shows the picture faded."""
    frames = _frames(data)
    assert len(frames) == 2 * len(regions) >= 2
    everywhere = [(y, x) for y in range(grid.height) for x in range(grid.width)]
    for k, (region, alt) in enumerate(zip(regions, alternatives, strict=True)):
        drawn, other = frames[2 * k], frames[2 * k + 1]
        assert drawn.height == grid.height * scale + max(14, scale)
        assert drawn.width >= grid.width * scale
        differ = {c for c in everywhere if _centre(drawn, c, scale) != _centre(other, c, scale)}
        assert differ == set(region)
        for c in everywhere:
            want = palette[int(grid.cells[c])].rgb
            if c in region:
                assert _centre(drawn, c, scale) == want
                assert _centre(other, c, scale) == palette[int(alt.cells[c])].rgb
            else:
                assert _centre(drawn, c, scale) == _faded(want)


def test_explain_gif_alternates_picture_and_each_alternative() -> None:
    puzzle, e = _explained(TWO_SWITCHES)
    assert puzzle.goal is not None
    data = explain_gif(puzzle.goal, puzzle.palette, e.alternatives, scale=12)
    _assert_animation(data, puzzle.goal, puzzle.palette, e.regions, e.alternatives, 12)


def test_explain_gif_keeps_colours_exact() -> None:
    """A colour switch (two red cells on a diagonal) beside a blue bar."""
    palette = Palette.of(("white", (255, 255, 255)), ("red", (200, 30, 40)),
                         ("blue", (30, 60, 200)))
    cells = np.zeros((6, 6), dtype=np.uint8)
    cells[1, 1] = cells[2, 2] = 1
    cells[4, 0:6] = 2
    grid = Grid(cells)
    e = explain(grid, palette)
    assert e.regions == (((1, 1), (1, 2), (2, 1), (2, 2)),)
    _assert_alternatives(Puzzle.from_grid(grid, palette), e)
    data = explain_gif(grid, palette, e.alternatives, scale=16)
    _assert_animation(data, grid, palette, e.regions, e.alternatives, 16)


def test_explain_png_frames_cells_and_numbers_regions() -> None:
    puzzle, e = _explained(TWO_SWITCHES)
    assert puzzle.goal is not None
    im = explain_png(puzzle.goal, puzzle.palette, e.cells, 20, regions=e.regions)
    black, white = puzzle.palette[1].rgb, puzzle.palette[0].rgb
    assert _centre(im, (2, 2), 20) == black and _centre(im, (1, 2), 20) == white
    assert _centre(im, (10, 5), 20) == _faded(black)  # the bar, not ambiguous
    without = explain_png(puzzle.goal, puzzle.palette, e.cells, 20)
    assert np.any(np.asarray(im) != np.asarray(without))  # boxes and numbers drawn


def test_generate_explain_writes_regions_and_animation(tmp_path: Path) -> None:
    """Through the CLI: a 2x2 switch inside a picture that is otherwise unique."""
    grid = Grid.from_rows(TWO_SWITCHES[:6] + ["." * 12] * 3 + TWO_SWITCHES[9:])
    src = tmp_path / "switch.png"
    ink = np.where(grid.cells > 0, 0, 255).astype(np.uint8)
    Image.fromarray(ink).resize((120, 120), Image.Resampling.NEAREST).save(src)
    r = CliRunner().invoke(app, ["generate", str(src), "--size", "12x12", "--no-crop",
                                 "--explain", "--json", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    ex = row["explain"]
    assert ex["kind"] == "flip" and ex["complete"] is True
    assert ex["regions"] == [[list(c) for c in SWITCH_A]]
    assert row["files"]["explain_gif"] == ex["animation"]
    palette = Puzzle.from_grid(grid).palette
    other = grid.cells.copy()
    other[1, 1] = other[2, 2] = 0
    other[1, 2] = other[2, 1] = 1
    scale = Image.open(ex["file"]).width // 12
    _assert_animation(Path(ex["animation"]).read_bytes(), grid, palette, (SWITCH_A,),
                      (Grid(other),), max(12, scale))


def test_explain_png_outlines_an_area_of_open_cells_once() -> None:
    """For many cells line logic leaves open, one outline per area, not a frame a cell."""
    grid = Grid.from_rows(["#.#.#", "#####", ".....", "#.#.#", "#####"])
    block = [(y, x) for y in range(1, 4) for x in range(1, 4)]
    im = explain_png(grid, Palette.bw(), block, 20, area=True)
    mark = (255, 0, 200)
    assert im.getpixel((2 * 20 + 10, 1 * 20 + 18)) != mark  # inner edges: no frame
    assert im.getpixel((2 * 20 + 10, 2 * 20 + 1)) != mark
    assert im.getpixel((1 * 20 + 10, 1 * 20 + 1)) == mark  # the area's top edge
    assert im.getpixel((3 * 20 + 18, 2 * 20 + 10)) == mark  # its right edge
    assert _centre(im, (2, 2), 20) == (255, 255, 255)  # open cells in full colour
    assert _centre(im, (0, 0), 20) == _faded((0, 0, 0))  # decided ones faded


def test_generate_explain_says_what_it_found_in_text_mode(tmp_path: Path) -> None:
    src = tmp_path / "switch.png"
    ink = np.where(Grid.from_rows(TWO_SWITCHES).cells > 0, 0, 255).astype(np.uint8)
    Image.fromarray(ink).save(src)
    r = CliRunner().invoke(app, ["generate", str(src), "--size", "12x12", "--no-crop",
                                 "--explain", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "explain: 2 independent ambiguities (8 cells) -> " in r.stdout
    assert "switch-explain.png" in r.stdout and "switch-explain.gif" in r.stdout


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.booleans(), min_size=36, max_size=36))
def test_regions_are_minimal_disjoint_solutions_against_every_solution(bits: list[bool]) -> None:
    """On random 6x6 pictures, against all their solutions (enumerated): each region is a
    solution's whole difference from the picture, no solution differs on only part of a
    region, regions are disjoint, and ``complete`` means no solution keeps every region
    cell as drawn except the picture itself."""
    grid = Grid(np.array(bits, dtype=np.uint8).reshape(6, 6))
    puzzle = Puzzle.from_grid(grid)
    every = solve(puzzle, max_solutions=10_000)
    assert every.status in ("unique", "multiple") and len(every.solutions) < 10_000
    mine = grid.cells
    diffs = [frozenset(zip(*map(np.ndarray.tolist, np.nonzero(s.cells != mine)), strict=True))
             for s in every.solutions]
    diffs = [d for d in diffs if d]  # the picture itself differs nowhere
    e = explain(grid, puzzle.palette)
    if not diffs:
        assert e.kind != "flip"
        return
    assert e.kind == "flip" and e.complete
    _assert_alternatives(puzzle, e)
    seen: set[tuple[int, int]] = set()
    for region in map(frozenset, e.regions):
        assert region in diffs and not region & seen
        assert not any(d < region for d in diffs)  # minimal by inclusion
        seen |= region
    assert all(d & seen for d in diffs)  # every other solution flips some region cell


def test_a_wide_picture_keeps_rows_and_columns_in_the_png_and_the_gif() -> None:
    """A 5x13 picture (rows != columns) with its switch at rows 1-2, columns 9-10: the
    flipping cells, the region's box and its number sit there, not transposed."""
    rows = ["." * 13 for _ in range(5)]
    grid_rows = [list(r) for r in rows]
    grid_rows[1][9] = grid_rows[2][10] = "#"
    grid_rows[4] = list("#" * 13)
    puzzle, e = _explained(["".join(r) for r in grid_rows])
    assert puzzle.goal is not None
    assert e.regions == (((1, 9), (1, 10), (2, 9), (2, 10)),)
    _assert_alternatives(puzzle, e)
    scale = 20
    im = explain_png(puzzle.goal, puzzle.palette, e.cells, scale, regions=e.regions)
    assert im.size == (13 * scale, 5 * scale)
    black, white = puzzle.palette[1].rgb, puzzle.palette[0].rgb
    assert _centre(im, (1, 9), scale) == black and _centre(im, (1, 10), scale) == white
    assert _centre(im, (2, 1), scale) == _faded(white)  # elsewhere in those rows: faded
    mark = (255, 0, 200)
    assert im.getpixel((9 * scale - 2, 2 * scale)) == mark  # the box's left side, row 2
    assert im.getpixel((11 * scale + 1, 2 * scale)) == mark  # its right side
    # the number "1" in its white label just left of the box, at the region's top row
    label = np.asarray(im)[scale - 2:2 * scale, 7 * scale:9 * scale - 2].sum(axis=2)
    assert (label < 200).any()  # ink of the digit
    assert (np.asarray(im)[:, : 7 * scale].sum(axis=2)[: 4 * scale] < 200).sum() == 0
    data = explain_gif(puzzle.goal, puzzle.palette, e.alternatives, scale=12)
    _assert_animation(data, puzzle.goal, puzzle.palette, e.regions, e.alternatives, 12)


def test_the_budget_weighs_only_lines_past_the_bit_parallel_kernels() -> None:
    """A line solve costs one unit up to 126 cells in black and white (62 in colour), as in
    the solver's count; past that its length times its blocks, so that at 150-200 cells a
    side the budget, not the time guard, ends the search (bench/explain.py --scale). The
    weights come from the clues alone: the same on every machine."""
    from nonoforge.solver.options import SAT_CONFLICT_WORK

    def picture(h: int, w: int, ncol: int) -> Puzzle:
        rng = np.random.default_rng(5)
        cells = (rng.random((h, w)) < 0.5) * rng.integers(1, ncol + 1, size=(h, w))
        return Puzzle.from_grid(Grid(cells.astype(np.uint8)))

    assert costs(picture(126, 126, 1)).line == 1
    long = picture(140, 140, 1)
    assert costs(long).line > 1 and costs(long) == costs(picture(140, 140, 1))
    assert costs(picture(62, 62, 3)).line == 1 and costs(picture(70, 70, 3)).line > 1
    assert costs(picture(30, 30, 1)).conflict == SAT_CONFLICT_WORK
    assert costs(picture(200, 200, 1)).conflict > SAT_CONFLICT_WORK


def _random_picture(seed: int, n: int, ink: float) -> Grid:
    rng = np.random.default_rng(seed)
    return Grid((rng.random((n, n)) < ink).astype(np.uint8))


def test_past_its_share_of_the_budget_the_picture_lets_sat_find_another() -> None:
    """A random 25x25 picture whose second solution the full solver does not reach within
    half the budget: the SAT back-end, asked directly for a solution other than the picture,
    finds one, and its region is a true alternative; the same on every run."""
    from nonoforge.images.explain import FIRST_SHARE, costs

    grid = _random_picture(27, 25, 0.4)
    puzzle = Puzzle.from_grid(grid)
    weights = costs(puzzle)
    need = weights.charged(solve(puzzle, max_solutions=2, costs=weights).effort)
    budget = need // 2
    first = solve(puzzle, max_solutions=2, budget=budget * FIRST_SHARE // 100, costs=weights)
    assert first.status == "budget"
    e = explain(grid, puzzle.palette, budget=budget)
    assert (e.kind, e.status) == ("flip", "multiple") and e.regions
    _assert_alternatives(puzzle, e)
    assert e == explain(grid, puzzle.palette, budget=budget)


@pytest.mark.parametrize("rows", [TWO_SWITCHES, [".#.", "###", ".#."]])
def test_sat_alone_explains_as_the_full_solver_does(rows: list[str]) -> None:
    """With no share for the full solver the SAT route answers alone: the same regions,
    and for a picture line logic solves, "none" with the uniqueness proven by SAT."""
    grid = Grid.from_rows(rows)
    puzzle = Puzzle.from_grid(grid)
    both, alone = explain(grid, puzzle.palette), explain(grid, puzzle.palette, first_share=0)
    assert (alone.kind, alone.status, alone.regions, alone.complete) == (
        both.kind, both.status, both.regions, both.complete)


def test_sat_alone_proves_a_picture_unique_where_line_logic_stalls() -> None:
    """A random 25x25 picture, unique but only by probing: the SAT route finds no other
    solution (a proof), so the verdict is "unique" and the open cells are line logic's."""
    grid = _random_picture(20, 25, 0.5)
    puzzle = Puzzle.from_grid(grid)
    assert solve(puzzle, max_solutions=2).status == "unique"
    both, alone = explain(grid, puzzle.palette), explain(grid, puzzle.palette, first_share=0)
    assert (both.kind, both.status) == ("undecided", "unique") and both.cells
    assert (alone.kind, alone.status, alone.cells) == ("undecided", "unique", both.cells)


def _keeps_clue(line: list[int], i: int, j: int) -> bool:
    swapped = list(line)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return clue_of(swapped) == clue_of(line)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=14))
def test_swaps_are_exactly_the_exchanges_that_keep_a_line_clue(line: list[int]) -> None:
    """Against every pair of cells of different colours (two colours and background):
    the listed swaps keep the clue, and every exchange that keeps it is listed."""
    codes, steps = _swaps(line)
    assert steps >= len(line)
    listed = {divmod(code, len(line)) for code in codes}
    every = {(i, j) for i in range(len(line)) for j in range(i + 1, len(line))
             if line[i] != line[j] and _keeps_clue(line, i, j)}
    assert listed == every


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 2), min_size=49, max_size=49))
def test_switches_are_disjoint_minimal_solutions(cells: list[int]) -> None:
    """On random 7x7 pictures in two colours: each switch found is a solution differing
    from the picture in four cells at the corners of a rectangle, no two share a cell, and
    no solution differs on only part of one (enumerated)."""
    grid = Grid(np.array(cells, dtype=np.uint8).reshape(7, 7))
    puzzle = Puzzle.from_grid(grid)
    found, work = switches(grid.cells, 100, 10**9)
    assert work > 0 or not found
    every = solve(puzzle, max_solutions=10_000)
    diffs = {frozenset(zip(*map(np.ndarray.tolist, np.nonzero(s.cells != grid.cells)),
                           strict=True)) for s in every.solutions}
    seen: set[tuple[int, int]] = set()
    for alt in found:
        assert Grid(alt).matches(puzzle)
        ys, xs = np.nonzero(alt != grid.cells)
        region = frozenset(zip(ys.tolist(), xs.tolist(), strict=True))
        assert len(set(ys.tolist())) == len(set(xs.tolist())) == 2 and len(region) == 4
        assert region in diffs and not any(d and d < region for d in diffs)
        assert not region & seen
        seen |= region


def test_switches_stop_where_their_work_does_the_same_every_time() -> None:
    """Given just the work that finding the first two took, the search stops after them,
    with the same two as an unbounded one; with less than listing the lines costs, none."""
    cells = _random_picture(1, 40, 0.5).cells
    every, work = switches(cells, 1000, 10**9)
    assert len(every) > 3 and all(len(np.nonzero(a != cells)[0]) == 4 for a in every)
    two, upto = switches(cells, 2, 10**9)
    assert len(two) == 2 and upto < work
    cut, spent = switches(cells, 1000, upto)
    assert len(cut) == 2 and spent == upto + SWAP_WORK
    assert all(np.array_equal(a, b) for a, b in zip(cut, every[:2], strict=True))
    again, spent_again = switches(cells, 1000, upto)
    assert spent_again == spent and all(map(np.array_equal, again, cut))
    assert switches(cells, 1000, 0)[0] == []


def test_a_large_picture_past_the_first_share_shows_its_switches() -> None:
    """A random half-ink 80x80 picture: line logic settles nothing, the full solver and one
    SAT call over the whole picture both run out of budget (``undecided`` before, at the
    default budget too: bench/explain.py --scale). Its
    four-cell switches are found without a solver: as many regions as rounds allow, each
    minimal, ``rounds`` said to have ended the search; the same on every run."""
    grid = _random_picture(1, 80, 0.5)
    puzzle = Puzzle.from_grid(grid)
    first = solve(puzzle, max_solutions=2, budget=500_000, costs=costs(puzzle))
    assert first.status == "budget"  # the full solver's share runs out (half the budget)
    e = explain(grid, puzzle.palette, rounds=6, budget=1_000_000)
    assert (e.kind, e.status, e.stopped, e.complete) == ("flip", "multiple", "rounds", False)
    assert len(e.regions) == 6 and all(len(r) == 4 for r in e.regions)
    assert e.minimal == (True,) * 6
    _assert_alternatives(puzzle, e)
    assert e == explain(grid, puzzle.palette, rounds=6, budget=1_000_000)


def test_switches_first_then_sat_for_what_they_miss() -> None:
    """With no share for the full solver: the picture's one switch (rows 4-5, columns 3-4)
    is found without a solver, and the SAT back-end then finds the ambiguity that is no
    switch -- a cycle of six cells through three rows and three columns -- as a region of
    its own (a random 7x7 picture, found by a search for both): the same regions as the
    full solver's, and ``complete`` proven with both pinned."""
    rows = ["..#.##.", "#.#..#.", "#.####.", "#.....#", "#..#...", ".#..#..", ".#....#"]
    grid = Grid.from_rows(rows)
    puzzle = Puzzle.from_grid(grid)
    assert len(switches(grid.cells, 10, 10**9)[0]) == 1
    both, alone = explain(grid, puzzle.palette), explain(grid, puzzle.palette, first_share=0)
    assert alone.regions == (((0, 0), (0, 2), (3, 2), (3, 6), (4, 0), (4, 6)),
                             ((4, 3), (4, 4), (5, 3), (5, 4)))
    assert (alone.kind, alone.regions, alone.complete) == (both.kind, both.regions, True)
    _assert_alternatives(puzzle, alone)
