"""The puzzle model: validation, grids, canonical form and key, text forms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nonoforge.errors import NonoforgeError, PuzzleError
from nonoforge.puzzle import (
    Block,
    Color,
    Grid,
    Meta,
    Palette,
    Puzzle,
    cell_chars,
    clue_of,
    draw,
    drawn_cell,
    format_clue,
    min_length,
    parse_rgb,
)

DANCER_ROWS = [[2], [2, 1], [1, 1], [3], [1, 1], [1, 1], [2], [1, 1], [1, 2], [2]]
DANCER_COLS = [[2, 1], [2, 1, 3], [7], [1, 3], [2, 1]]


def dancer() -> Puzzle:
    return Puzzle.from_clues(DANCER_ROWS, DANCER_COLS, meta=Meta(title="Dancer"))


def grids(max_side: int = 8, max_colors: int = 4) -> st.SearchStrategy[np.ndarray]:
    return st.tuples(
        st.integers(1, max_side), st.integers(1, max_side), st.integers(1, max_colors)
    ).flatmap(
        lambda t: arrays(np.uint8, (t[0], t[1]), elements=st.integers(0, t[2]))
    )


def test_dancer_shape_and_clues() -> None:
    p = dancer()
    assert (p.width, p.height, p.ncolors) == (5, 10, 1)
    assert p.rows[1] == (Block(2, 1), Block(1, 1))
    assert p.is_bw and p.palette == Palette.bw()


def test_clue_of_splits_on_colour_change_and_background() -> None:
    assert clue_of([0, 1, 1, 0, 2, 2, 1, 0]) == (Block(2, 1), Block(2, 2), Block(1, 1))
    assert clue_of([0, 0]) == ()
    assert clue_of([3]) == (Block(1, 3),)


def test_min_length_needs_gaps_only_between_same_colours() -> None:
    assert min_length((Block(2, 1), Block(1, 1))) == 4
    assert min_length((Block(2, 1), Block(1, 2))) == 3
    assert min_length(()) == 0


@pytest.mark.parametrize(
    ("rows", "cols", "palette", "message"),
    [
        ([[3]], [[1], [1]], None, "row 1: clue 3 needs 3 cells but the line has 2"),
        ([[1, 1]], [[1], [1]], None, "row 1: clue 1 1 needs 3 cells"),
        ([[0]], [[]], None, "row 1: block length must be positive, got 0"),
        ([[-2]], [[]], None, "block length must be positive, got -2"),
        ([[(1, 2)]], [[(1, 2)]], None, "unknown colour 2 (the palette has colours 1..1)"),
        ([[1], [1]], [[2], [1]], None, "colour 'black': rows paint 2 cells but columns paint 3"),
        ([], [], None, "at least one row and one column"),
        # bench/fuzz.py: JSON's 1e999 parses to inf, and int(inf) raised OverflowError
        ([[(1, float("inf"))]], [[1]], None, "row 1: not a block: (1, inf)"),
    ],
)
def test_validation_messages(rows, cols, palette, message) -> None:
    with pytest.raises(PuzzleError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Puzzle.from_clues(rows, cols, palette)


def test_different_colours_may_touch() -> None:
    pal = Palette.of(("white", "#fff"), ("red", "#f00"), ("blue", "#00f"))
    p = Puzzle.from_clues([[(1, 1), (1, 2)]], [[(1, 1)], [(1, 2)]], pal)
    assert p.width == 2


def test_puzzle_errors_are_nonoforge_errors() -> None:
    with pytest.raises(NonoforgeError):
        Puzzle.from_clues([[5]], [[1]])


def test_goal_must_match_the_clues() -> None:
    p = dancer()
    bad = Grid(np.zeros((10, 5), dtype=np.uint8))
    with pytest.raises(PuzzleError, match="goal picture does not match"):
        p.replace(goal=bad)
    with pytest.raises(PuzzleError, match="goal is 2x2"):
        p.replace(goal=Grid([[0, 0], [0, 0]]))


def test_palette_rules() -> None:
    with pytest.raises(PuzzleError, match="background and at least one"):
        Palette((Color("white", (255, 255, 255)),))
    with pytest.raises(PuzzleError, match="twice"):
        Palette.of(("a", "#fff"), ("a", "#000"))
    with pytest.raises(PuzzleError, match="0..255"):
        Color("x", (0, 0, 300))
    assert parse_rgb("#f0a") == (255, 0, 170)
    assert Palette.bw().index("black") == 1
    with pytest.raises(PuzzleError):
        parse_rgb("#12345g")


def test_grid_is_immutable_and_hashable() -> None:
    g = Grid.from_rows([".#", "#."])
    with pytest.raises(ValueError):
        g.cells[0, 0] = 1
    assert g == Grid([[0, 1], [1, 0]])
    assert len({g, Grid([[0, 1], [1, 0]])}) == 1
    assert g.to_rows() == [".#", "#."]
    with pytest.raises(PuzzleError):
        Grid([1, 2, 3])
    with pytest.raises(PuzzleError):
        Grid.from_rows(["x"])


def test_key_ignores_metadata_goal_and_palette_order() -> None:
    g = Grid([[1, 2, 0], [2, 2, 1]])
    a = Puzzle.from_grid(g)
    pal = a.palette
    swapped = Palette((pal[0], pal[2], pal[1]))
    b = Puzzle.from_grid(Grid([[2, 1, 0], [1, 1, 2]]), swapped, Meta(title="other"))
    assert a.key == b.key
    assert a.replace(goal=None, meta=Meta(author="x")).key == a.key
    assert a.canonical().palette == b.canonical().palette


def test_key_of_single_colour_puzzle_ignores_the_ink() -> None:
    red = Palette.of(("bg", "#ffffff"), ("red", "#ff0000"))
    assert Puzzle.from_clues(DANCER_ROWS, DANCER_COLS, red).key == dancer().key


def test_key_is_stable_across_versions() -> None:
    # A published key must never change: the corpus is keyed by it.
    assert dancer().key == "7ab5a6f41d97a350"
    assert dancer().canonical_text().startswith("5x10;2.1/2.1.3/7/1.3/2.1;2/2.1/")


def test_repr_round_trips() -> None:
    p = Puzzle.from_grid(Grid([[1, 2, 0], [2, 2, 1]]), meta=Meta(title="t", source="s"))
    ns = {"Puzzle": Puzzle, "Palette": Palette, "Meta": Meta, "Grid": Grid}
    assert eval(repr(p), ns) == p  # noqa: S307 - that is the point of a round-tripping repr
    assert eval(repr(dancer()), ns) == dancer()  # noqa: S307


def test_givens_are_part_of_the_puzzle() -> None:
    """Givens (cells printed solved) are kept sorted, change the key (a puzzle without them
    keeps its published key), survive repr, canonical() and with_meta()."""
    g = Grid([[1, 2, 0], [2, 2, 1]])
    plain = Puzzle.from_grid(g)
    p = plain.replace(givens=((1, 2, 1), (0, 2, 0)))
    assert p.givens == ((0, 2, 0), (1, 2, 1))
    assert p.key != plain.key and plain.replace(givens=()).key == plain.key
    ns = {"Puzzle": Puzzle, "Palette": Palette, "Meta": Meta, "Grid": Grid}
    assert eval(repr(p), ns) == p  # noqa: S307
    assert p.with_meta(Meta(title="x")).givens == p.givens
    # colours renumbered by first use: the givens follow the clues
    swapped = Palette((p.palette[0], p.palette[2], p.palette[1]))
    q = Puzzle.from_grid(Grid([[2, 1, 0], [1, 1, 2]]), swapped).replace(
        givens=((0, 2, 0), (1, 2, 2))
    )
    assert q.key == p.key and q.canonical().givens == p.canonical().givens


@pytest.mark.parametrize(
    ("givens", "message"),
    [
        ([(2, 0, 1)], "outside the 3x2 grid"),
        ([(0, 0, 3)], "unknown colour 3"),
        ([(0, 0, 1), (0, 0, 2)], "given twice"),
        ([(0, 0, 1), (0, 0, 1)], "given twice"),  # the same cell listed twice: a slip
        ([(0, 2, 2)], "no block of colour 2"),
        ([(0, 0, 0)], "disagrees with the goal"),
        ([(0, 0)], "triples"),
    ],
)
def test_givens_are_checked(givens: list[tuple[int, ...]], message: str) -> None:
    with pytest.raises(PuzzleError, match=message):
        Puzzle.from_grid(Grid([[1, 2, 0], [2, 2, 1]])).replace(givens=givens)


def test_a_grid_from_bytes_gives_its_rows_and_columns_apart() -> None:
    """Rows and columns each come from the bytes on their own (no array is made)."""
    g = Grid.from_bytes(bytes([1, 0, 2, 1, 1, 0]), 2, 3)  # "#.x" over "##."
    assert g.row_clues() == ((Block(1), Block(1, 2)), (Block(2),))
    assert g.column_clues() == ((Block(2),), (Block(1),), (Block(1, 2),))
    assert repr(g) == "Grid([[1, 0, 2], [1, 1, 0]])"
    p = Puzzle.from_clues(g.row_clues(), g.column_clues(), Palette.of(
        ("white", "#fff"), ("black", "#000"), ("red", "#f00")))
    assert g.matches(p) and g._cells is None
    assert not Grid.from_bytes(bytes([1, 0, 2, 1, 0, 1]), 2, 3).matches(p)  # rows differ
    assert not Grid.from_bytes(bytes([1, 2, 0, 0, 1, 1]), 2, 3).matches(p)  # columns differ


def test_str_draws_clues_and_goal() -> None:
    p = Puzzle.from_grid(Grid.from_rows([".##.", "#..#", "####"]))
    text = str(p)
    assert "1 1 | # . . #" in text
    assert "  4 | # # # #" in text
    assert "?" in draw(p)  # no grid: unknown cells
    assert format_clue(p.rows[1]) == "1 1"
    assert format_clue(()) == "0"


@settings(max_examples=60, deadline=None)
@given(grids(max_side=14))
def test_drawn_cell_points_at_the_cell_in_the_drawing(cells: np.ndarray) -> None:
    """``show`` styles given cells by these offsets: each must land on its own cell, with
    multi-digit clues (wider cells) and colour letters too, not on a clue or a neighbour."""
    if not cells.any():
        cells = cells.copy()
        cells[0, 0] = 1
    p = Puzzle.from_grid(Grid(cells))
    text = draw(p, p.goal)
    chars = cell_chars(p.ncolors)
    for r in range(p.height):
        for c in range(p.width):
            pos = drawn_cell(p, r, c)
            assert text[pos] == chars[int(cells[r, c])]
    wide = Puzzle.from_grid(Grid.from_rows(["#" * 12, "#.#" + "." * 9]))  # clue 12: cells 2 wide
    t = draw(wide, wide.goal)
    assert (t[drawn_cell(wide, 0, 11)], t[drawn_cell(wide, 1, 2)]) == ("#", "#")
    assert t[drawn_cell(wide, 1, 11)] == "." and t[drawn_cell(wide, 1, 11) - 1] == " "


def test_meta_merge_fills_gaps() -> None:
    m = Meta(title="a").merged(Meta(title="b", author="c"))
    assert (m.title, m.author) == ("a", "c")
    assert not Meta() and Meta(note="x")


@settings(max_examples=80, deadline=None)
@given(grids())
def test_from_grid_reproduces_its_clues(cells: np.ndarray) -> None:
    if not cells.any():
        cells = cells.copy()
        cells[0, 0] = 1
    p = Puzzle.from_grid(Grid(cells))
    assert p.goal is not None and p.goal.matches(p)
    assert Grid(cells).row_clues() == p.rows
    c = p.canonical()
    assert c.key == p.key
    assert c.goal is not None and c.goal.matches(c)


@given(grids(), st.data())
def test_matches_as_arrays_is_comparing_the_clues(cells: np.ndarray, data: st.DataObject) -> None:
    """The array check (every line's runs at once, as the solver checks its answers) says
    what comparing the picture's clues says: for the goal itself, one cell changed, and any
    other picture of the shape."""
    if not cells.any():
        cells = cells.copy()
        cells[0, 0] = 1
    p = Puzzle.from_grid(Grid(cells))
    assert p.goal is not None
    h, w = cells.shape
    top = max(1, int(cells.max()))
    y, x = data.draw(st.integers(0, h - 1)), data.draw(st.integers(0, w - 1))
    changed = cells.copy()
    changed[y, x] = data.draw(st.integers(0, top))
    other = data.draw(arrays(np.uint8, (h, w), elements=st.integers(0, top)))
    for picture in (cells, changed, other, cells.T.copy()):
        g = Grid(picture)
        by_clues = g.shape == (h, w) and g.row_clues() == p.rows and g.column_clues() == p.columns
        assert g.matches(p) == by_clues
        assert Grid(picture).matches(p) == by_clues  # the cached wanted runs, read again
    assert p.runs_wanted() is p.runs_wanted()
    assert p == Puzzle.from_grid(Grid(cells))  # the kept runs are no part of equality
