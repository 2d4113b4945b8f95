"""webpbn's ``.cwc``: clue lengths and colour numbers in four positional blocks."""

from __future__ import annotations

import random

import pytest
from conftest import DATA, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import FormatError
from nonoforge.formats import cwc, dumps, loads, read_file
from nonoforge.puzzle import Block, Grid, Meta, Palette, Puzzle

DANCER = (DATA / "dancer.cwc").read_text()
# a 2x2 two-colour puzzle: row 1 = 1 of colour 1, 1 of colour 2; row 2 empty
TWO = "2\n2\n2\n1 1\n\n\n1 2\n\n\n1\n1\n\n1\n2\n"


def read(text: str) -> list[Puzzle]:
    return list(cwc.read(text))


def error_of(text: str) -> FormatError:
    with pytest.raises(FormatError) as e:
        read(text)
    assert "\n" not in str(e.value) and len(str(e.value)) < 300
    return e.value


@st.composite
def puzzles(draw: st.DrawFn) -> Puzzle:
    """Random puzzles in the colours a .cwc reads back: black-and-white in any palette,
    or colour in :func:`cwc.palette_for`'s."""
    w, h = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    n = draw(st.integers(1, 5))
    cells = draw(st.lists(st.lists(st.integers(0, n), min_size=w, max_size=w),
                          min_size=h, max_size=h))  # fmt: skip
    palette = cwc.palette_for(n)
    if n == 1 and draw(st.booleans()):
        palette = Palette.of(("paper", "#fed"), ("ink", "#123"))
    p = Puzzle.from_grid(Grid(cells), palette, Meta(title="kept nowhere"))
    return p if draw(st.booleans()) else p.replace(goal=None)


@settings(max_examples=60, deadline=None)
@given(puzzles())
def test_read_of_write_is_what_cwc_holds(p: Puzzle) -> None:
    back = read(cwc.write([p]))
    assert back == [cwc.holds(p)]
    assert back[0].key == p.key


def test_dancer_known_answer() -> None:
    (p,) = read_file(DATA / "dancer.cwc")
    assert (p.width, p.height) == (5, 10)
    assert p.rows[1] == (Block(2), Block(1))
    assert p.palette == Palette.bw() and p.goal is None and not p.meta
    assert p.key == read_file(DATA / "dancer.non")[0].key
    assert cwc.write([p]) == DANCER


def test_colour_numbers_become_named_colours() -> None:
    (p,) = read(TWO)
    assert [c.name for c in p.palette] == ["white", "1", "2"]
    assert len({c.rgb for c in p.palette}) == 3
    assert p.rows == ((Block(1, 1), Block(1, 2)), ())
    assert cwc.write([p]) == TWO


def test_zero_is_an_empty_clue_too() -> None:
    (p,) = read(TWO.replace("1 1\n\n\n1 2\n\n", "1 1\n0\n\n1 2\n0\n"))
    assert p.rows[1] == ()


def test_colours_it_cannot_keep_are_refused() -> None:
    red_blue = Palette.of(("white", "#fff"), ("red", "#f00"), ("blue", "#00f"))
    with pytest.raises(FormatError, match="cannot hold"):
        dumps(Puzzle.from_grid(Grid([[1, 2]]), red_blue), "cwc")
    # one colour in use: its RGB is not part of the key, so it may go
    p = Puzzle.from_grid(Grid([[1, 1]]), red_blue)
    assert read(dumps(p, "cwc"))[0].key == p.key


def test_sniff() -> None:
    assert cwc.sniff(DANCER) and cwc.sniff(TWO)
    assert not cwc.sniff((DATA / "jwilk-data000.nin").read_text())
    assert not cwc.sniff("2\n1\n1\n2\n1\n1\n")  # R's puzzle.csv layout


# -- bad input ------------------------------------------------------------------------


def test_truncated_file() -> None:
    e = error_of(DANCER[: DANCER.index("2 1 3")])
    assert "file ends early: expected column clue 2 of 5" in e.reason and e.line == 26


def test_missing_rows() -> None:
    lines = DANCER.splitlines()
    del lines[5]  # one row clue fewer: the blank separator comes too early
    e = error_of("\n".join(lines) + "\n")
    assert "row clue" in e.reason or "blank line" in e.reason
    assert e.line is not None and e.line <= 14


def test_colour_lines_must_match() -> None:
    e = error_of(TWO.replace("1 2\n", "1\n"))
    assert "row 1 has 2 blocks (line 4) but 1 colours" in e.reason and e.line == 7
    e = error_of(TWO.replace("1 2\n", "1 3\n"))
    assert "colour 3 is not in 1..2" in e.reason and e.line == 7


def test_bad_numbers() -> None:
    assert "expected a row count" in error_of("ten\n5\n1\n").reason
    e = error_of(DANCER.replace("2 1 3", "2 x 3"))
    assert "expected a column clue" in e.reason and e.line == 27
    e = error_of(DANCER.replace("2 1 3", "2 -1 3"))
    assert "negative" in e.reason and e.line == 27
    assert "number of colours must be 1.." in error_of("1\n1\n0\n").reason


def test_clue_longer_than_its_line() -> None:
    e = error_of(DANCER.replace("2 1 3", "2 1 9"))
    assert "column 2" in e.reason and "needs 14 cells" in e.reason and e.line == 27


def test_trailing_text_and_long_lines() -> None:
    assert "after the last column" in error_of(DANCER + "\nmore\n").reason
    e = error_of(DANCER.replace("2 1 3", "1 " * 5_000_000))
    assert "too long" in e.reason and e.line == 27


def test_binary_noise() -> None:
    with pytest.raises(FormatError):
        list(loads(random.Random(11).randbytes(4096), "cwc"))


def test_shared_samples_read() -> None:
    folder = shared_path("samples", "formats", "cwc")
    files = sorted(folder.glob("*.cwc"))
    assert len(files) >= 2
    for path in files:
        (p,) = read_file(path)
        assert cwc.sniff(path.read_text())
        assert cwc.write([p]) == path.read_text()
    (edge,) = read_file(folder / "kamilkhanlab-webpbn-23.cwc")
    assert (edge.width, edge.height) == (10, 11)
