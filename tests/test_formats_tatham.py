"""Simon Tatham's Pattern game IDs and save files."""

from __future__ import annotations

import pytest
from conftest import DATA, shared_path

from nonoforge.errors import FormatError
from nonoforge.formats import detect, dumps, loads, read_file, tatham
from nonoforge.puzzle import Grid, Meta, Puzzle

HEART = Puzzle.from_clues(
    rows=[[1, 1], [5], [5], [3], [1]], columns=[[2], [4], [4], [4], [2]]
)


def one(text: str) -> Puzzle:
    (p,) = list(loads(text, "tatham"))
    return p


def test_shared_sample_reads_columns_first() -> None:
    path = shared_path("samples", "formats", "tatham", "pattern-4x4-bella-image.txt")
    (p,) = read_file(path)
    assert (p.width, p.height) == (4, 4)
    assert [[b.length for b in c] for c in p.columns] == [[2], [1], [2], [1]]
    assert [[b.length for b in r] for r in p.rows] == [[1, 1], [2], [1], [1]]
    assert detect(path.read_bytes()).name == "tatham"


def test_bundled_file_holds_one_id_a_line() -> None:
    heart, arrow = read_file(DATA / "heart-arrow.pattern")
    assert heart == HEART
    assert (arrow.width, arrow.height) == (4, 3)
    assert arrow.rows[1] == ((4, 1),)


def test_save_file_reads_params_and_desc() -> None:
    (p,) = read_file(DATA / "heart.sav")
    assert p == HEART


def test_save_file_of_another_game_is_refused() -> None:
    text = "SAVEFILE:41:Simon Tatham's Portable Puzzle Collection\nGAME    :3:Net\n"
    with pytest.raises(FormatError, match="'Net'"):
        one(text)


def test_write_is_pattern_syntax() -> None:
    assert dumps(HEART, "tatham") == "5x5:2/4/4/4/2/1.1/5/5/3/1\n"
    empty_row = Puzzle.from_clues(rows=[[1], []], columns=[[1], []])
    assert dumps(empty_row, "tatham") == "2x2:1//1/\n"
    assert one("2x2:1//1/") == empty_row


@pytest.mark.parametrize(
    "text",
    [
        "pattern:5x5:2/4/4/4/2/1.1/5/5/3/1",
        "5:2/4/4/4/2/1.1/5/5/3/1",
        "  5x5:2/4/4/4/2/1.1/5/5/3/1\n",
    ],
)
def test_accepted_spellings(text: str) -> None:
    assert one(text) == HEART


def test_zero_is_an_empty_clue() -> None:
    assert one("2x2:1/0/1/0") == one("2x2:1//1/")


def test_clue_squares_are_the_puzzles_givens() -> None:
    """Pattern's clue squares (cells shown solved from the start, which its own solver
    starts from) are givens: read, kept in the key, and written back as Pattern writes
    them (pattern.c's picture generator: a letter per given, its distance from ``a``/``A``
    the undecided cells skipped before it, ``z`` for 25 skipped, the rest at the end)."""
    # 25 cells: 'A' = a filled given at cell 0, then 'y' skips 24 cells to the end
    p = one("5x5:2/4/4/4/2/1.1/5/5/3/1,Ay")
    assert p.givens == ((0, 0, 1),)
    assert p.replace(givens=()) == HEART and p.key != HEART.key
    assert tatham.format_id(p) == "5x5:2/4/4/4/2/1.1/5/5/3/1,Ay"
    # an empty given (lower case) after a skip of 7: row 1, column 2 (0-based)
    q = one("5x5:2/4/4/4/2/1.1/5/5/3/1,hr")
    assert q.givens == ((1, 2, 0),)
    assert tatham.format_id(q) == "5x5:2/4/4/4/2/1.1/5/5/3/1,hr"
    # skips past 25 cells: 'z' (25 skipped, no cell) then the rest
    big = Puzzle.from_grid(Grid.from_rows(["." * 30])).replace(givens=[(0, 27, 0)])
    assert tatham.clue_squares(big) == "zcc"  # 25 skipped; 2 more, then the given; 2 left
    assert one(tatham.format_id(big)).givens == big.givens
    # a given that disagrees with the clues is a format error, at its line
    with pytest.raises(FormatError, match="column has no block"):
        one("2x2:1//1/,Bc")  # filled at row 1, column 2, whose clue is empty
    with pytest.raises(FormatError, match="too little data"):
        one("5x5:2/4/4/4/2/1.1/5/5/3/1,A")
    with pytest.raises(FormatError, match="unrecognised character"):
        one("5x5:2/4/4/4/2/1.1/5/5/3/1,A1")


def test_clue_squares_past_the_last_cell_are_refused() -> None:
    """pattern.c's validate_desc stops reading clue squares once every cell is accounted
    for and calls anything left "too much data in clue-squares section"; a letter after
    the grid is complete (even ``a``, a skip of none) must not be swallowed."""
    for tail in ("Aya", "AyA", "Ayaa"):
        with pytest.raises(FormatError, match="too much data"):
            one(f"5x5:2/4/4/4/2/1.1/5/5/3/1,{tail}")
    assert one("5x5:2/4/4/4/2/1.1/5/5/3/1,Ay").givens == ((0, 0, 1),)  # exactly complete


def test_random_seed_id_is_not_a_puzzle() -> None:
    with pytest.raises(FormatError, match="random-seed"):
        one("10x10#938473829")
    assert detect(b"10x10#938473829").name == "tatham"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5x5:2/4/4/4/2/1.1/5/5/3", "needs 10 clues"),
        ("5x5:2/4/4/4/2/1.1/5/5/3/1/1", "needs 10 clues"),
        ("5x5:2/4/-4/4/2/1.1/5/5/3/1", "expected a column 3 block length"),
        ("2x2:3/1/1/1", "needs 3 cells"),
        ("2x2:1.1.1/1/1/1", "cannot fit"),
        ("0x5:", "out of range"),
        ("5x5", "expected WxH:clues"),
        ("axb:1/1", "expected a size"),
        ("2x2:2/1/1/1", "rows paint"),
    ],
)
def test_malformed_ids_are_format_errors(text: str, message: str) -> None:
    with pytest.raises(FormatError, match=message) as e:
        one(text)
    assert e.value.line == 1


def test_error_names_the_line_of_a_multi_id_file() -> None:
    with pytest.raises(FormatError) as e:
        list(loads("2x2:1/1/1/1\n\n2x2:1/x/1/1\n", "tatham"))
    assert e.value.line == 3
    assert str(e.value).startswith("<input>:3: ")


def test_holds_drops_metadata_and_goal() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#.", "##"]), meta=Meta(title="t"))
    assert one(dumps(p, "tatham")) == tatham.FORMAT.holds(p) == p.replace(meta=Meta(), goal=None)


def test_colour_puzzles_are_refused() -> None:
    p = Puzzle.from_grid(Grid.from_rows([".a", "b."], ".ab"))
    assert not tatham.FORMAT.accepts(p)
    with pytest.raises(FormatError, match="cannot hold colour"):
        dumps(p, "tatham")
