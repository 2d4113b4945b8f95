"""The studio's check of a picture (nonoforge/studio/check.py): verdict, undecided cells,
where two solutions differ, and one-cell suggestions, each re-checked for what it claims."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nonoforge.formats import read_file
from nonoforge.puzzle import Palette
from nonoforge.studio.check import SHOWN_OF_KIND, Check, candidates, check, puzzle_of

DATA = Path(__file__).parent / "data"
BW = Palette.bw()


def grid(rows: list[str]) -> np.ndarray:
    return np.array([[1 if ch == "#" else 0 for ch in r] for r in rows])


def checked(cells: np.ndarray, palette: Palette = BW) -> Check:
    return check(puzzle_of(cells, palette))


def test_webpbns_dancer_is_unique_by_line_logic() -> None:
    dancer = read_file(DATA / "dancer.non")[0]  # webpbn #1, solved by line logic on webpbn
    c = check(dancer)
    assert (c.verdict, c.line_solves, c.undecided, c.differ, c.suggestions) == (
        "unique", True, [], [], [])
    assert c.key == dancer.key


def test_a_diagonal_pair_is_multiple_and_its_square_is_marked() -> None:
    c = checked(grid(["....", ".#..", "..#.", "...."]))
    assert c.verdict == "multiple" and not c.line_solves
    square = [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert c.undecided == square
    assert c.differ == square
    assert c.suggestions and c.suggestions[0].unique
    top = c.suggestions[0]
    fixed = grid(["....", ".#..", "..#.", "...."])
    fixed[top.row, top.column] = top.colour
    again = checked(fixed)
    assert again.verdict == "unique" and again.line_solves


def test_a_colour_picture_is_checked_in_its_colours() -> None:
    pal = Palette.of(("white", "#ffffff"), ("red", "#d03030"), ("navy", "#102060"))
    cells = np.array([[1, 0], [0, 1]])  # the same switch in red: two solutions
    c = checked(cells, pal)
    assert c.verdict == "multiple"
    assert all(s.colour in (0, 1, 2) for s in c.suggestions)
    assert checked(np.array([[1, 2], [2, 1]]), pal).verdict == "unique"


def test_candidates_prefer_the_cells_where_solutions_differ() -> None:
    cells = grid(["#....", ".#...", ".....", ".....", "....."])
    c = check(puzzle_of(cells, BW))
    state = np.full(cells.shape, 1, dtype=np.uint64)  # decided white ...
    state[cells == 1] = 2
    for y, x in c.undecided:
        state[y, x] = 3  # ... except where line logic is stuck
    differ = np.zeros(cells.shape, dtype=bool)
    for y, x in c.differ:
        differ[y, x] = True
    ranked = candidates(cells, state, differ, 2)
    assert {(y, x) for _, y, x, _ in ranked[:4]} == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert [cost for cost, *_ in ranked] == sorted(cost for cost, *_ in ranked)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrays(np.int64, st.tuples(st.integers(2, 7), st.integers(2, 7)),
              elements=st.integers(0, 1)))
def test_every_suggestion_does_what_it_says(cells: np.ndarray) -> None:
    c = checked(cells)
    assert c == checked(cells)  # deterministic: the same grid, the same answer
    assert (c.verdict == "unique") or not c.line_solves
    if c.verdict == "multiple":
        assert c.differ and set(c.differ) <= set(c.undecided)
    order = [(not s.unique, s.undecided, s.cost, s.kind, s.row, s.column)
             for s in c.suggestions]
    assert order == sorted(order)
    for kind, most in SHOWN_OF_KIND.items():
        assert sum(s.kind == kind for s in c.suggestions) <= most
    for s in c.suggestions:
        if s.kind == "given":  # the cell revealed as the picture has it; the picture kept
            assert s.colour == cells[s.row, s.column]
            p = puzzle_of(cells, BW).replace(givens=((s.row, s.column, s.colour),))
            after = check(p)
        else:
            changed = cells.copy()
            assert changed[s.row, s.column] != s.colour
            changed[s.row, s.column] = s.colour
            after = checked(changed)
        assert len(after.undecided) == s.undecided < len(c.undecided)
        assert s.unique == (after.line_solves and after.verdict == "unique")


def test_givens_are_suggested_ranked_with_the_edits_and_the_solver_starts_from_them() -> None:
    (switch, _) = read_file(DATA / "givens.nonpack")  # two squares on a diagonal, one given
    assert switch.goal is not None and switch.givens
    c = check(switch)
    assert (c.verdict, c.line_solves, c.givens) == ("unique", True, list(switch.givens))
    bare = check(switch.replace(givens=()))  # the clues alone: two pictures
    assert bare.verdict == "multiple" and not bare.line_solves
    gives = [s for s in bare.suggestions if s.kind == "given"]
    assert gives and all(s.unique for s in gives)  # any one cell of a square settles it
    assert {s.kind for s in bare.suggestions} == {"paint", "given"}
    top = gives[0]
    again = check(switch.replace(givens=((top.row, top.column, top.colour),)))
    assert again.verdict == "unique" and again.line_solves


def test_a_given_under_a_painted_cell_shows_the_new_colour() -> None:
    cells = grid(["....", ".#..", "..#.", "...."])
    p = puzzle_of(cells, BW).replace(givens=((0, 0, 0),))
    c = check(p)
    for s in c.suggestions:
        if s.kind == "paint" and (s.row, s.column) == (0, 0):
            changed = cells.copy()
            changed[0, 0] = s.colour
            after = check(puzzle_of(changed, BW).replace(givens=((0, 0, s.colour),)))
            assert len(after.undecided) == s.undecided


def test_a_picture_too_hard_to_decide_at_once_says_so() -> None:
    from nonoforge.studio.check import CHECK_WORK

    rng = np.random.default_rng(4)
    noise = (rng.random((100, 100)) < 0.5).astype(int)  # random noise: no foothold at all
    c = checked(noise)
    assert c.verdict == "budget" and c.work >= CHECK_WORK  # the same on every machine
    assert len(c.undecided) == 100 * 100 and c.differ == []


def test_a_check_no_longer_wanted_stops() -> None:
    import pytest

    from nonoforge.studio.check import Superseded

    switch = puzzle_of(grid(["....", ".#..", "..#.", "...."]), BW)
    with pytest.raises(Superseded):
        check(switch, stale=lambda: True)
    assert check(switch, stale=lambda: False) == check(switch)
