"""The one-column puzzle.csv layout of R nonogram scripts."""

from __future__ import annotations

import pytest
from conftest import DATA

from nonoforge.errors import FormatError
from nonoforge.formats import csv, detect, dumps, loads, read_file
from nonoforge.puzzle import Grid, Meta, Puzzle

ARROW = Puzzle.from_grid(Grid.from_rows(["..#.", "####", "..#."])).replace(goal=None)


def one(text: str) -> Puzzle:
    (p,) = list(loads(text, "csv"))
    return p


def test_bundled_r_style_file_with_header_and_quotes() -> None:
    (p,) = read_file(DATA / "arrow.csv")
    assert p == ARROW
    assert detect((DATA / "arrow.csv").read_bytes()).name == "csv"


def test_write_is_rows_then_columns_one_value_a_line() -> None:
    assert dumps(ARROW, "csv") == "3\n1\n4\n1\n4\n1\n1\n3\n1\n"
    empty = Puzzle.from_clues(rows=[[1], []], columns=[[1], []])
    assert dumps(empty, "csv") == "2\n1\n0\n2\n1\n0\n"
    assert one(dumps(empty, "csv")) == empty


@pytest.mark.parametrize(
    "row",
    ["1 1", "1,1", '"1,1"', '"1 1"', " 1 , 1 ", '"1, 1"'],
)
def test_numbers_of_a_clue_by_spaces_or_commas(row: str) -> None:
    p = one(f"1\n{row}\n3\n1\n0\n1\n")
    assert p.rows == (((1, 1), (1, 1)),)


def test_empty_value_is_an_empty_clue() -> None:
    assert one("2\n1\n\n2\n1\n0\n") == one("2\n1\n0\n2\n1\n\n")


def test_holds_drops_metadata() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#.", "##"]), meta=Meta(title="t"))
    assert one(dumps(p, "csv")) == csv.FORMAT.holds(p) == p.replace(meta=Meta(), goal=None)


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("", "empty file", None),
        ("2\n1\n", "file ends at row 2", 2),
        ("1\n1\n1\n1\n9\n", "unexpected data", 5),
        ("-1\n1\n1\n1\n", "expected a row count", 1),
        ("1\n1 -1\n1\n1\n", "expected a row 1 block length", 2),
        ("1\n2\n1\n1\n", "needs 2 cells", None),
        ("1\n1 0\n2\n1\n0\n", "length 0", 2),
        ("0\n1\n1\n", "out of range", 1),
        ('1\n"1\n1\n1\n', "malformed CSV", 2),
        ("1\n" + "1" * 200_000 + "\n1\n1\n", "malformed CSV|too large", 2),
    ],
)
def test_malformed_files_are_format_errors(text: str, message: str, line: int | None) -> None:
    with pytest.raises(FormatError, match=message) as e:
        one(text)
    if line is not None:
        assert e.value.line == line


def test_sniffer_checks_the_counts() -> None:
    assert csv.sniff("3\n1\n4\n1\n4\n1\n1\n3\n1\n")
    assert not csv.sniff("3\n1\n4\n1\n4\n1\n1\n3\n")  # one column clue short
    assert not csv.sniff("5 5\n1\n1\n")
    assert not csv.sniff("$1\n1\n1\n1\n1\n")
