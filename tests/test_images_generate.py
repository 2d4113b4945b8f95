"""Generation: puzzles made from images match their pictures and are unique at the rung asked.

Every check of uniqueness goes through the project's solver, as acceptance does.
"""

from __future__ import annotations

import numpy as np
import pytest
import skimage.data
from conftest import fresh_python, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import UsageError
from nonoforge.images.generate import (
    TECHNIQUES,
    Repair,
    _Clues,
    edit_costs,
    generate,
    neighbour_counts,
    repair,
)
from nonoforge.images.quantise import QuantiseOptions
from nonoforge.images.segment import MODEL_ENV
from nonoforge.puzzle import Grid, Palette, Puzzle
from nonoforge.solver import solve
from nonoforge.titles import readable

EMOJI = ("1f3a1.png", "1f33e.png", "1f428.png", "1f634.png")


def assert_good(g, max_technique: str = "line") -> None:
    """The goal reproduces the clues and the solver proves the puzzle unique at the rung."""
    p = g.puzzle
    assert g.accepted
    assert p.goal is not None and p.goal.matches(p)
    assert p.goal == g.repair.grid or np.array_equal(p.goal.cells > 0, g.repair.grid.cells > 0)
    res = solve(p, strategy=max_technique, max_solutions=2)
    assert res.status == "unique"
    assert TECHNIQUES.index(res.technique) <= TECHNIQUES.index(max_technique)
    sol = res.solutions[0]
    assert np.array_equal(sol.cells if isinstance(sol, Grid) else np.asarray(sol), p.goal.cells)
    assert g.edits == int(g.edited.sum())
    assert g.edit_fraction <= 0.06


@pytest.mark.parametrize("name", ["camera", "coffee"])
def test_black_and_white_from_skimage(name: str) -> None:
    g = generate(getattr(skimage.data, name)(), size=(20, 20))
    assert g.puzzle.is_bw
    assert_good(g)


@pytest.mark.parametrize("name", ["astronaut", "chelsea"])
def test_colour_from_skimage(name: str) -> None:
    g = generate(getattr(skimage.data, name)(), width=24, colors=4, seed=2)
    assert 2 <= g.puzzle.ncolors <= 4
    assert g.puzzle.width == 24
    assert_good(g)


@pytest.mark.parametrize("name", EMOJI)
def test_emoji_black_and_white_and_colour(name: str) -> None:
    path = shared_path("images", "emoji", name)
    assert_good(generate(path, size=(30, 30)))
    g = generate(path, size=(20, 20), colors=6)
    assert g.puzzle.ncolors <= 6
    # the image's name made readable (1f428.png -> Koala), never the hex stem (issue 37)
    assert g.puzzle.meta.title == readable(name) and name[:5] not in g.puzzle.meta.title
    assert_good(g)


def test_probe_rung_is_accepted_at_probe() -> None:
    g = generate(skimage.data.camera(), size=(25, 25), max_technique="probe")
    assert_good(g, "probe")


def test_same_seed_same_puzzle() -> None:
    img = skimage.data.astronaut()
    a = generate(img, size=(20, 20), colors=5, seed=11)
    b = generate(img, size=(20, 20), colors=5, seed=11)
    assert a.puzzle.key == b.puzzle.key
    assert a.puzzle.goal == b.puzzle.goal


def test_bad_rung_and_budget() -> None:
    with pytest.raises(UsageError):
        generate(skimage.data.camera(), size=(10, 10), max_technique="search")
    g = Grid.from_rows(["#.", ".#"])
    with pytest.raises(UsageError):
        repair(g, Palette.bw(), np.zeros((2, 2, 2)), budget=2.0)


AMBIGUOUS = [  # two diagonal 2x2 switches: several solutions, line logic settles nothing there
    "..........",
    ".#......#.",
    "..#....#..",
    "..........",
    "....##....",
    "....##....",
    "..........",
    "..#....#..",
    ".#......#.",
    "..........",
]


def flat_fid(grid: Grid, ncol: int = 2) -> np.ndarray:
    """Distances as if each cell's source were exactly its quantised colour."""
    cells = grid.cells
    fid = np.full((*cells.shape, ncol), 50.0)
    for c in range(ncol):
        fid[..., c][cells == c] = 0.0
    return fid


def test_repair_makes_an_ambiguous_picture_unique() -> None:
    g = Grid.from_rows(AMBIGUOUS)
    before = solve(Puzzle.from_grid(g), strategy="line")
    assert before.status != "unique"
    rep = repair(g, Palette.bw(), flat_fid(g), budget=0.1, seed=1)
    assert rep.accepted and rep.status == "unique"
    assert 1 <= rep.edits <= 10
    p = Puzzle.from_grid(rep.grid)
    assert solve(p, strategy="line").status == "unique"
    # the same again gives the same edits
    again = repair(g, Palette.bw(), flat_fid(g), budget=0.1, seed=1)
    assert again.grid == rep.grid


def test_zero_budget_keeps_the_picture_and_says_so() -> None:
    g = Grid.from_rows(AMBIGUOUS)
    rep = repair(g, Palette.bw(), flat_fid(g), budget=0.0)
    assert not rep.accepted
    assert rep.budget_spent or rep.rounds == 0
    assert rep.edits == 0 and rep.grid == g


def test_a_work_budget_ends_the_repair_at_the_same_point_every_time() -> None:
    """The repair's work is counted from the solver's counts (no clock): a budget of what an
    unbounded repair used gives the same result, a smaller one ends it early, the same way
    twice, not accepted and saying why; none at all stops before the first round."""
    from dataclasses import replace

    def run(work: int | None = None) -> Repair:  # without the timed solve result
        kw = {} if work is None else {"work_budget": work}
        return replace(repair(g, Palette.bw(), flat_fid(g), budget=0.1, seed=1, **kw),
                       result=None)

    g = Grid.from_rows(AMBIGUOUS)
    full = run()
    assert full.accepted and full.rounds >= 2 and not full.work_spent and full.work > 0
    assert full.refusal is None
    assert run(full.work) == full
    none = run(0)
    assert (none.accepted, none.work_spent, none.rounds, none.edits) == (False, True, 0, 0)
    assert none.refusal == "work budget spent" and none.grid == g
    cut = [run(full.work * k // 10) for k in range(1, 10)]
    for k, r in enumerate(cut, 1):
        assert r == full or (not r.accepted and r.work_spent and r.rounds < full.rounds)
        assert r.work >= full.work * k // 10 or r == full  # ended past the budget, not before
    assert any(r.work_spent and r.rounds > 0 for r in cut)  # ended between rounds
    assert cut == [run(full.work * k // 10) for k in range(1, 10)]  # at the same points


def test_progress_says_the_attempt_and_the_round_and_changes_nothing() -> None:
    """``progress`` hears the subject model asked, each attempt start and each repair
    round (edits and budgets used), and the puzzle is the one made without it (the
    silhouette style: its attempts are the quantiser's)."""
    from nonoforge.images.generate import GenerateOptions
    from nonoforge.images.styles import Style

    img = skimage.data.coffee()
    lines: list[str] = []
    opts = GenerateOptions(QuantiseOptions(size=(30, 30)), style=Style.SILHOUETTE)
    g = generate(img, opts, progress=lines.append)
    assert g.puzzle.key == generate(img, opts).puzzle.key
    rounds = g.repair.rounds
    # the subject model is asked (and its first load in a process said: "loading ...")
    assert lines[1].startswith("finding the subject")
    del lines[1]
    assert rounds >= 2 and lines[:2] == ["preparing the picture", "attempt 1/4: quantising"]
    assert [line.split(":")[1] for line in lines[2:]] == [
        f" repair round {k}" for k in range(1, rounds + 1)]
    assert lines[2].endswith(": 0/43 edits, 0 % of the work budget")


def test_incremental_clues_match_the_grid() -> None:
    rng = np.random.default_rng(0)
    cells = (rng.random((6, 7)) < 0.5).astype(np.int64)
    c = _Clues(cells, Palette.bw())
    row, col = c.changed(2, 3, 1 - cells[2, 3])
    assert c.puzzle() == Puzzle.from_grid(Grid(cells)).replace(goal=None)
    c.set(2, 3, 1 - cells[2, 3])
    cells[2, 3] = 1 - cells[2, 3]
    assert (c.rows[2], c.cols[3]) == (row, col)
    assert c.puzzle() == Puzzle.from_grid(Grid(cells)).replace(goal=None)


def test_kept_answers_of_changed_follow_every_edit() -> None:
    # changed() and gains() keep their answers until their row or column changes: after any
    # sequence of edits each answer must be what a fresh grid says, and every puzzle a valid one
    rng = np.random.default_rng(3)
    palette = Palette.of(("white", "#fff"), ("black", "#000"), ("red", "#f00"))
    cells = rng.integers(0, 3, (5, 6))
    c = _Clues(cells, palette)
    for _ in range(300):
        y, x, colour = int(rng.integers(5)), int(rng.integers(6)), int(rng.integers(3))
        if rng.random() < 0.3:
            c.set(y, x, colour)
            cells[y, x] = colour
            continue
        row, col = c.changed(y, x, colour)
        at = np.array([y]), np.array([x]), np.array([colour])
        gain = c.gains(*at)[0]
        edited = cells.copy()
        edited[y, x] = colour
        fresh = _Clues(cells, palette)
        assert (row, col, gain) == (*fresh.changed(y, x, colour), fresh.gains(*at)[0])
        assert c.puzzle_with(y, x, row, col) == Puzzle.from_grid(
            Grid(edited), palette).replace(goal=None)
    assert c.puzzle() == Puzzle.from_grid(Grid(cells), palette).replace(goal=None)
    with pytest.raises(ValueError, match="not in the palette"):
        c.set(0, 0, 3)


def test_costs_prefer_edges_and_faithful_colours() -> None:
    g = Grid.from_rows(["....", ".##.", ".##.", "...."])
    cells = g.cells.astype(np.int64)
    counts = neighbour_counts(cells, 2)
    assert counts[1, 1, 1] == 2 and counts[0, 0, 0] == 4  # outside counts as background
    cost = edit_costs(cells, cells, flat_fid(g))
    # painting a background cell next to the square is cheaper than one in the far corner
    assert cost[1, 0, 1] < cost[1, 0, 0]


def test_neighbour_counts_with_diagonals() -> None:
    cells = np.zeros((3, 3), dtype=np.int64)
    cells[0, 0] = 1
    assert neighbour_counts(cells, 2)[1, 1, 1] == 0
    assert neighbour_counts(cells, 2, diagonal=True)[1, 1, 1] == 1


def test_edits_that_make_specks_cost_more() -> None:
    g = Grid.from_rows(["......", ".##...", ".##...", "......", "......"])
    cells = g.cells.astype(np.int64)
    cost = edit_costs(cells, cells, flat_fid(g))
    # painting a cell far from any ink makes a one-cell island: dearer than one beside it
    assert cost[1, 4, 4] > cost[1, 3, 3] + 0.4
    pair = Grid.from_rows(["....", ".##.", "...."]).cells.astype(np.int64)
    # clearing one cell of a two-cell blob strands the other
    strand = edit_costs(pair, pair, flat_fid(Grid(pair)))
    single = Grid.from_rows(["....", ".###", "...."]).cells.astype(np.int64)
    assert strand[0, 1, 1] > edit_costs(single, single, flat_fid(Grid(single)))[0, 1, 1]


def test_photo_specks_are_few_after_repair() -> None:
    """hubble_deep_field in 4 colours had 5 specks at 20x20, left by edits that stranded
    the other cell of two-cell blobs; the accepted picture is cleaned of them."""
    from nonoforge.images.measure import specks

    g = generate(skimage.data.hubble_deep_field(), size=(20, 20), colors=4)
    assert_good(g)
    assert specks(g.repair.grid.cells) <= 3


def test_a_dot_the_picture_draws_is_kept() -> None:
    """A one-cell island the quantised picture had before any edit is the picture's own (an
    eye, a dot): the speck clean-up after an accepted repair takes only the specks that the
    edits made or stranded. A framed centre dot is unique as drawn and stays, with 0 edits."""
    cells = Grid.from_rows(
        ["#######", "#.....#", "#.....#", "#..#..#", "#.....#", "#.....#", "#######"]
    )
    r = repair(cells, Palette.bw(), flat_fid(cells))
    assert r.accepted and r.edits == 0
    assert np.array_equal(r.grid.cells, cells.cells)


def test_speck_cost_counts_the_islands_an_edit_makes() -> None:
    """The speck term of :func:`edit_costs` is, for every cell and colour, SPECK_COST times
    the one-cell islands (``measure.speck_mask``) that setting the cell to that colour
    leaves: the cell itself when no 8-neighbour shares the colour, plus the painted cells
    it strands. Checked by making each edit on seeded random grids (held before and after
    edit_costs read its islands from measure's neighbour counts)."""
    import importlib

    from nonoforge.images.measure import speck_mask

    gen = importlib.import_module("nonoforge.images.generate")  # the module, not the function

    rng = np.random.default_rng(7)
    for trial in range(12):
        ncol = 2 + trial % 3
        cells = rng.choice(ncol, size=(7, 9), p=[0.55] + [0.45 / (ncol - 1)] * (ncol - 1))
        original = rng.integers(0, ncol, size=cells.shape)
        fid = rng.random((*cells.shape, ncol)) * 60.0
        full = edit_costs(cells, original, fid)
        plain = gen.SPECK_COST
        try:
            gen.SPECK_COST = 0.0
            rest = edit_costs(cells, original, fid)
        finally:
            gen.SPECK_COST = plain
        before = speck_mask(cells)
        for c in range(ncol):
            for y in range(cells.shape[0]):
                for x in range(cells.shape[1]):
                    after = cells.copy()
                    after[y, x] = c
                    now = speck_mask(after)
                    made = now & ~before
                    made[y, x] = now[y, x]
                    want = plain * int(made.sum())
                    assert full[c, y, x] - rest[c, y, x] == pytest.approx(want), (trial, c, y, x)


def test_a_star_field_in_colour_is_a_field_of_stars() -> None:
    """hubble_deep_field in 4 colours at 30 cells: each cell takes the palette colour nearest
    its own (not its cluster's), so the galaxies stay apart and the first attempt is
    accepted (32 edits, 22 pieces); before, a simplified retry drew the brightest galaxy
    and 4 blobs (5 pieces) -- the "single blob" of issue 17."""
    from skimage.measure import label

    g = generate(skimage.data.hubble_deep_field(), size=(30, 30), colors=4)
    assert_good(g)
    cells = g.repair.grid.cells
    assert label(cells != 0, connectivity=2).max() >= 15
    assert g.puzzle.palette.ncolors == 4


def test_the_images_package_loads_without_numba() -> None:
    """Reading, quantising and rendering pictures need no compiled code: importing the
    images package (which imports ``generate``) leaves numba unloaded, so commands that
    only draw pay none of its start-up; the repair's compiled potentials load when a
    repair starts."""
    from pathlib import Path

    code = "import sys, nonoforge.images\nprint('numba' in sys.modules)\n"
    root = Path(__file__).resolve().parents[1]
    assert fresh_python(code, cwd=root, timeout=120).stdout.strip() == "False"


def test_an_icons_likeness_counts_its_cut_out_features_as_dark(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundled koala (an icon on a transparent background) in black and white is its
    head with the nose cut out. Its likeness was 0.05, the nose's hole averaged with the
    white around the head; the transparent cells are averaged apart now, and kept so
    when the edges are trimmed. A photo has none."""
    from nonoforge.examples import example_path

    g = generate(example_path("koala"), size=(30, 30))
    q = g.quantised
    assert q.transparent is not None and q.transparent.shape == g.repair.grid.cells.shape
    holes = (g.repair.grid.cells == 0) & ~q.transparent
    assert holes.sum() >= 4  # the nose
    assert g.likeness > 0.8 and g.summary()["likeness"] > 0.8
    monkeypatch.setenv(MODEL_ENV, "")  # with the subject model the man is cut out
    assert generate(skimage.data.camera(), size=(20, 20)).quantised.transparent is None


# -- the options record ----------------------------------------------------------------------


def test_the_options_defaults_are_generates_old_defaults() -> None:
    """The record's defaults are the keyword defaults ``generate`` had before it took one:
    the picture's are the quantiser's record's own (declared once), the repair's here."""
    from nonoforge.images.generate import GenerateOptions
    from nonoforge.images.styles import Style

    o = GenerateOptions()
    assert o.quantise == QuantiseOptions()
    assert (o.max_technique, o.edit_budget, o.candidates, o.repair_with, o.style) == (
        "line", 0.06, 12, "edits", Style.SILHOUETTE)


def test_the_keyword_form_names_every_knob_once() -> None:
    """``generate``'s deprecated keywords are the record's fields and its quantiser
    record's, by name and type, and nothing else (style came with the record)."""
    from dataclasses import fields

    from nonoforge.images.generate import GenerateKnobs, GenerateOptions

    own = {f.name: f.type for f in fields(GenerateOptions) if f.name not in ("quantise",
                                                                              "style")}
    picture = {f.name: f.type for f in fields(QuantiseOptions)}
    knobs = {k: getattr(v, "__forward_arg__", v) for k, v in GenerateKnobs.__annotations__.items()}
    assert knobs == {**picture, **own}


@settings(max_examples=40, deadline=None)
@given(
    size=st.none() | st.tuples(st.integers(5, 60), st.integers(5, 60)),
    colors=st.integers(1, 6), seed=st.integers(0, 99), crop=st.booleans(),
    max_technique=st.sampled_from(["line", "probe"]),
    edit_budget=st.floats(0.0, 1.0), candidates=st.integers(1, 40),
    repair_with=st.sampled_from(["edits", "givens"]),
)
def test_keywords_make_the_record_they_name(size, colors, seed, crop, max_technique,
                                            edit_budget, candidates, repair_with) -> None:
    """The older keyword form splits into the picture's record and the repair's knobs."""
    from nonoforge.images.generate import GenerateOptions

    knobs = {"size": size, "colors": colors, "seed": seed, "crop": crop,
             "max_technique": max_technique, "edit_budget": edit_budget,
             "candidates": candidates, "repair_with": repair_with}
    assert GenerateOptions.given(None, knobs) == GenerateOptions(  # type: ignore[arg-type]
        QuantiseOptions(size=size, colors=colors, seed=seed, crop=crop),
        max_technique=max_technique, edit_budget=edit_budget, candidates=candidates,
        repair_with=repair_with)


#: Values no generation can use: each refused as one line when the record is made.
BAD_GENERATE = [
    {"max_technique": "search"}, {"max_technique": "LINE"},
    {"edit_budget": -0.01}, {"edit_budget": 1.5}, {"edit_budget": float("nan")},
    {"edit_budget": "0.1"}, {"candidates": 0}, {"candidates": 2.0},
    {"repair_with": "cells"}, {"style": "sketch"},
    {"style": "outline", "quantise": QuantiseOptions(colors=2)},
    {"style": "tones", "quantise": QuantiseOptions(fill=0.3)},
    {"quantise": {"size": (20, 20)}},
]


@pytest.mark.parametrize("bad", BAD_GENERATE, ids=lambda b: "-".join(map(str, b.values())))
def test_a_bad_generate_knob_is_refused_in_one_line(bad: dict) -> None:
    from nonoforge.images.generate import GenerateOptions

    with pytest.raises(UsageError) as err:
        GenerateOptions(**bad)
    assert "\n" not in str(err.value) and str(err.value)


def test_a_style_name_becomes_the_style() -> None:
    from nonoforge.images.generate import GenerateOptions
    from nonoforge.images.styles import Style

    assert GenerateOptions(style=" Tones").style is Style.TONES  # type: ignore[arg-type]


def test_a_record_and_keywords_together_are_refused_before_any_work() -> None:
    from nonoforge.images.generate import GenerateOptions

    with pytest.raises(UsageError, match="not both"):
        generate("no-such-file.png", GenerateOptions(), colors=2)
