"""Jakub Wilk's ``.nin``: ``W H``, then row and column clues, one a line."""

from __future__ import annotations

import random

import pytest
from conftest import DATA, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import FormatError
from nonoforge.formats import dumps, loads, nin, read_file
from nonoforge.puzzle import Block, Grid, Meta, Palette, Puzzle


def read(text: str) -> list[Puzzle]:
    return list(nin.read(text))


def error_of(text: str) -> FormatError:
    with pytest.raises(FormatError) as e:
        read(text)
    assert "\n" not in str(e.value) and len(str(e.value)) < 300
    return e.value


@st.composite
def puzzles(draw: st.DrawFn) -> Puzzle:
    w, h = draw(st.integers(1, 10)), draw(st.integers(1, 10))
    cells = draw(st.lists(st.lists(st.integers(0, 1), min_size=w, max_size=w),
                          min_size=h, max_size=h))  # fmt: skip
    palette = Palette.bw() if draw(st.booleans()) else Palette.of(("w", "#eee"), ("r", "#f00"))
    return Puzzle.from_grid(Grid(cells), palette, Meta(title=draw(st.none() | st.text())))


@settings(max_examples=60, deadline=None)
@given(puzzles())
def test_read_of_write_is_what_nin_holds(p: Puzzle) -> None:
    back = read(nin.write([p]))
    assert back == [nin.holds(p)]
    assert back[0].key == p.key and back[0].goal is None and not back[0].meta


def test_bundled_known_answer() -> None:
    (p,) = read_file(DATA / "jwilk-data000.nin")
    assert (p.width, p.height) == (10, 10)
    assert p.rows[:4] == ((Block(1),), (Block(4),), (Block(4), Block(1)), (Block(8),))
    assert p.columns[-1] == (Block(2), Block(2))
    assert nin.write([p]) == (DATA / "jwilk-data000.nin").read_text()


def test_comments_empty_lines_zeros_and_trailing_text() -> None:
    text = "# a comment\n3 2\n1 1\n\n  # another\n1\n0\n1\nleft over: ignored (like Wilk's)\n"
    (p,) = read(text)
    assert p.rows == ((Block(1), Block(1)), ())
    assert p.columns == ((Block(1),), (), (Block(1),))


def test_writer_marks_empty_clues_with_zero() -> None:
    p = Puzzle.from_grid(Grid([[0, 1], [0, 0]]))
    assert nin.write([p]) == "2 2\n1\n0\n0\n1\n"


def test_sniff() -> None:
    assert nin.sniff((DATA / "jwilk-data000.nin").read_text())
    assert not nin.sniff((DATA / "dancer.cwc").read_text())
    assert not nin.sniff((DATA / "dancer.non").read_text())


# -- bad input ------------------------------------------------------------------------


def test_truncated_and_missing_rows() -> None:
    e = error_of("10 10\n1\n4\n")
    assert "ends after 2 of 10 row and 10 column" in e.reason and "row clues" in e.reason
    assert e.line == 3
    e = error_of("2 2\n1\n1\n1\n")
    assert "missing column clues" in e.reason and e.line == 4


def test_bad_header() -> None:
    assert error_of("").line == 1
    assert "width height" in error_of("10\n1\n").reason
    assert "too large" in error_of("1000000 2\n").reason
    assert "at least 1" in error_of("0 2\n").reason
    assert error_of("7" * 10_000_000 + "\n").line == 1


def test_bad_numbers() -> None:
    e = error_of("2 2\n1\nx\n1\n1\n")
    assert "expected a clue number, got 'x'" in e.reason and e.line == 3
    e = error_of("2 2\n-1\n1\n1\n1\n")
    assert "negative" in e.reason and e.line == 2
    assert "contains 0" in error_of("3 1\n1 0\n1\n0\n0\n").reason


def test_clue_longer_than_its_line() -> None:
    e = error_of("2 2\n1 1\n1\n2\n1\n")
    assert "row 1: clue 1 1 needs 3 cells but the line has 2" in e.reason and e.line == 2
    e = error_of("2 2\n1\n1\n2\n1\n")
    assert "rows paint 2 cells but columns paint 3" in e.reason


def test_ten_megabyte_clue_line() -> None:
    e = error_of("2 2\n" + "1 " * 5_000_000 + "\n1\n1\n1\n")
    assert "too long" in e.reason and e.line == 2


def test_binary_noise_and_colour() -> None:
    with pytest.raises(FormatError):
        list(loads(random.Random(9).randbytes(4096), "nin"))
    with pytest.raises(FormatError):
        dumps(Puzzle.from_grid(Grid([[1, 2]])), "nin")


# -- the shared corpus ----------------------------------------------------------------


def test_every_jwilk_file_reads() -> None:
    folder = shared_path("corpora", "jwilk-nin")
    files = sorted(folder.glob("*.nin")) + sorted(
        shared_path("samples", "formats", "nin").glob("*.nin")
    )
    assert len(files) >= 151
    for path in files:
        (p,) = read_file(path)
        assert nin.sniff(path.read_text()), path
        assert read(nin.write([p])) == [p], path


def test_jwilk_data142_carries_glued_copies_after_its_puzzle() -> None:
    path = shared_path("corpora", "jwilk-nin", "data142.nin")
    lines = path.read_text().splitlines()
    assert len(lines) > 1 + 25 + 20 and "425 20" in lines
    (p,) = read_file(path)
    assert (p.width, p.height) == (25, 20)
