"""Olšák's ``.g``: comment preamble, ``#d`` colour declarations, ``:`` sections."""

from __future__ import annotations

import random

import pytest
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import FormatError
from nonoforge.formats import dumps, loads, olsak, read_file
from nonoforge.puzzle import Block, Color, Grid, Meta, Palette, Puzzle

FLAG = (DATA / "flag.g").read_text()

# black-and-white, in the style of Olšák's own examples (kocka.g)
BW = """This file contains a small task.

Lines before the colon in first column are comments only.

: rows (this text from colon to the end of line is ignored)
1 1
3

: this colon starts the columns part of the task
2
1
2
: END - all text after it is ignored.
"""

# no default colour: every block has its suffix; hex colours; aligned clues (rose.g)
ROSE = """#d
   z:z  #9CF200  super svetle zelena
   g:g  #62F218  svetle zelena
:rows ---------------------------------------------
      1g 2z
   1z
:columns ------------------------------------------
   1g 1z
   1z
   1z
"""


def read(text: str) -> list[Puzzle]:
    return list(olsak.read(text))


def error_of(text: str) -> FormatError:
    with pytest.raises(FormatError) as e:
        read(text)
    assert "\n" not in str(e.value) and len(str(e.value)) < 300
    return e.value


_NAMES = ["red", "blue", "white", "black", "navy", "gold", "x", "ink", "salmon", "q", "%", "7"]


@st.composite
def puzzles(draw: st.DrawFn) -> Puzzle:
    w, h = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    n = draw(st.integers(1, 4))
    cells = draw(st.lists(st.lists(st.integers(0, n), min_size=w, max_size=w),
                          min_size=h, max_size=h))  # fmt: skip
    if n == 1 and draw(st.booleans()):
        palette = Palette.bw()
    else:
        # colour names (some the X11 name of their very RGB, some not) and plain words
        names = draw(st.lists(st.sampled_from(_NAMES), min_size=n + 1, max_size=n + 1,
                              unique=True))  # fmt: skip
        rgbs = draw(st.lists(st.sampled_from([(255, 0, 0), (0, 0, 255), (255, 255, 255),
                                              (0, 0, 0), (0, 0, 128), (1, 2, 3), (9, 9, 9),
                                              (250, 128, 114)]),
                             min_size=n + 1, max_size=n + 1, unique=True))  # fmt: skip
        palette = Palette(tuple(Color(a, b) for a, b in zip(names, rgbs, strict=True)))
    p = Puzzle.from_grid(Grid(cells), palette, Meta(title="not kept"))
    return p if draw(st.booleans()) else p.replace(goal=None)


@settings(max_examples=80, deadline=None)
@given(puzzles())
def test_read_of_write_is_what_olsak_holds(p: Puzzle) -> None:
    back = read(olsak.write([p]))
    assert back == [olsak.holds(p)]
    assert back[0].key == p.key
    assert olsak.holds(back[0]) == back[0]


def test_bundled_colour_file() -> None:
    (p,) = read_file(DATA / "flag.g")
    assert [(c.name, c.hex) for c in p.palette] == [
        ("white", "#ffffff"), ("black", "#000000"), ("r", "#d52b1e")
    ]  # fmt: skip
    assert p.rows == ((Block(1, 1), Block(2, 2)), (Block(1, 1), Block(2, 2)), (), (Block(3),))
    assert p.columns[1] == (Block(2, 2), Block(1, 1))
    assert read(olsak.write([p])) == [p]


def test_black_and_white_without_declarations() -> None:
    (p,) = read(BW)
    assert p.palette == Palette.bw()
    assert p.rows == ((Block(1), Block(1)), (Block(3),), ())
    assert p.columns == ((Block(2),), (Block(1),), (Block(2),))
    out = olsak.write([p])
    assert out.startswith(": rows\n1 1\n3\n\n: columns\n") and "#d" not in out


def test_hex_colours_without_a_default() -> None:
    (p,) = read(ROSE)
    assert [(c.name, c.hex) for c in p.palette] == [
        ("white", "#ffffff"), ("z", "#9cf200"), ("g", "#62f218")
    ]  # fmt: skip
    assert p.rows == ((Block(1, 2), Block(2, 1)), (Block(1, 1),))


def test_named_colours_and_background() -> None:
    text = "#D\n 0:. navy\n m:% blue modra\n: rows\n1m\n: columns\n1m\n"
    (p,) = read(text)
    assert [(c.name, c.rgb) for c in p.palette] == [("navy", (0, 0, 128)), ("blue", (0, 0, 255))]


def test_writer_names_colours_it_can() -> None:
    palette = Palette.of(("white", "#fff"), ("red", "#f00"), ("ink", "#123456"))
    p = Puzzle.from_grid(Grid([[1, 2]]), palette)
    out = olsak.write([p])
    assert "   a:a  red" in out and "   b:b  #123456" in out and "1a 1b" in out
    (back,) = read(out)
    assert [c.name for c in back.palette] == ["white", "red", "b"]


def test_sniff() -> None:
    assert olsak.sniff(FLAG) and olsak.sniff(BW) and olsak.sniff(ROSE)
    assert olsak.sniff(": rows\n\n\n: columns\n\n: end\n")
    assert not olsak.sniff((DATA / "dancer.non").read_text())
    assert not olsak.sniff("Subject: hello\n: not a puzzle\nwords here\n: end\n")


# -- bad input ------------------------------------------------------------------------


def test_truncated_and_missing_sections() -> None:
    e = error_of(FLAG[: FLAG.index(": columns")])
    assert "no ': columns' line" in e.reason and e.line == 12
    assert "no ': rows' line" in error_of("just words\n").reason
    e = error_of(BW.replace("1 1\n3\n", "1 1\n"))
    assert "rows paint 2 cells but columns paint 5" in e.reason and e.line == 11


def test_unknown_colours() -> None:
    e = error_of(FLAG.replace("1 2r\n1 2r", "1 2r\n1 2q"))
    assert "unknown colour character 'q'" in e.reason and e.line == 10
    e = error_of(ROSE.replace("   1z\n:columns", "   1\n:columns"))
    assert "no default colour" in e.reason and e.line == 6
    assert "unknown colour name 'zelena'" in error_of("#d\n a:a zelena\n: rows\n").reason
    assert "not an RGB colour" in error_of("#d\n a:a #12345\n: rows\n").reason
    e = error_of("#d\n a:a #123456\n nonsense\n: rows\n")
    assert "expected '<char>:<char> <colour>'" in e.reason and e.line == 3
    assert "declared twice" in error_of("#d\n a:a red\n a:b blue\n: rows\n").reason
    assert "triddlers" in error_of("#t\n: rows\n").reason


def test_bad_numbers() -> None:
    e = error_of(BW.replace("1 1\n3", "1 1\n3x"))
    assert "unknown colour character 'x'" in e.reason and e.line == 7
    e = error_of(BW.replace("1 1\n3", "1 1\nthree"))
    assert "expected a block" in e.reason and e.line == 7
    e = error_of(BW.replace("1 1\n3", "1 1\n-3"))
    assert "negative" in e.reason and e.line == 7
    assert "contains 0" in error_of(BW.replace("1 1\n3", "1 0\n3")).reason


def test_clue_longer_than_its_line() -> None:
    e = error_of(BW.replace("1 1\n3", "1 1\n4"))
    assert "row 2: clue 4 needs 4 cells but the line has 3" in e.reason and e.line == 7


def test_long_line_and_noise() -> None:
    e = error_of(BW.replace("1 1\n3", "1 1\n" + "1 " * 5_000_000))
    assert "too long" in e.reason and e.line == 7
    with pytest.raises(FormatError):
        list(loads(random.Random(12).randbytes(4096), "olsak"))
    with pytest.raises(FormatError):
        dumps(Puzzle.from_grid(Grid([list(range(1, 54))])), "olsak")
