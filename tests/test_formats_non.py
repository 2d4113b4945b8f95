"""The ``.non`` format: Simpson's keys, mikix colours and licences, ``====`` bundles."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import DATA, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import FormatError
from nonoforge.formats import dumps, loads, non, read_file
from nonoforge.puzzle import BLACK, WHITE, Block, Color, Grid, Meta, Palette, Puzzle

FAST = settings(max_examples=60, deadline=None)
FMT = non.FORMAT


def read(text: str) -> list[Puzzle]:
    return list(non.read(text))


def error_of(text: str) -> FormatError:
    with pytest.raises(FormatError) as e:
        read(text)
    assert "\n" not in str(e.value)
    return e.value


# -- random puzzles -------------------------------------------------------------------

_TEXT = st.text(
    alphabet=st.sampled_from(list("aZ09 -,;:!?'\"&<>#=/\t\n") + ["é", "漢", "\u2028", "\x07"]),
    max_size=16,
)


@st.composite
def puzzles(draw: st.DrawFn, max_colors: int = 4) -> Puzzle:
    w, h = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    n = draw(st.integers(1, max_colors))
    cells = draw(st.lists(st.lists(st.integers(0, n), min_size=w, max_size=w),
                          min_size=h, max_size=h))  # fmt: skip
    if n == 1 and draw(st.booleans()):
        palette = Palette.bw()
    else:
        names = draw(st.lists(st.text("abcdefghxyz", min_size=1, max_size=3),
                              min_size=n + 1, max_size=n + 1, unique=True))  # fmt: skip
        rgbs = draw(st.lists(st.tuples(*[st.integers(0, 255)] * 3),
                             min_size=n + 1, max_size=n + 1, unique=True))  # fmt: skip
        palette = Palette(tuple(Color(a, b) for a, b in zip(names, rgbs, strict=True)))
    fields = ("title", "author", "copyright", "licence", "source", "source_id", "note")
    meta = Meta(**{f: draw(st.none() | _TEXT) for f in fields})
    p = Puzzle.from_grid(Grid(cells), palette, meta)
    if draw(st.booleans()):  # a few cells given (the documented 'givens' line)
        picks = draw(st.lists(st.tuples(st.integers(0, h - 1), st.integers(0, w - 1)),
                              min_size=1, max_size=5, unique=True))  # fmt: skip
        assert p.goal is not None
        p = p.replace(givens=[(r, c, int(p.goal.cells[r, c])) for r, c in picks])
    return p if draw(st.booleans()) else p.replace(goal=None)


@FAST
@given(puzzles())
def test_read_of_write_is_what_non_holds(p: Puzzle) -> None:
    back = read(non.write([p]))
    assert back == [non.holds(p)]
    assert back[0].key == p.key
    assert non.holds(back[0]) == back[0]


@FAST
@given(st.lists(puzzles(max_colors=3), min_size=2, max_size=4))
def test_bundles_keep_every_puzzle_in_order(ps: list[Puzzle]) -> None:
    text = non.write(ps)
    assert text.count("\n====\n") == len(ps) - 1
    assert read(text) == [non.holds(p) for p in ps]


# -- known answers --------------------------------------------------------------------


def test_dancer_known_answer() -> None:
    (p,) = read_file(DATA / "dancer.non")
    assert (p.width, p.height) == (5, 10)
    assert p.rows[1] == (Block(2), Block(1))
    assert p.columns[1] == (Block(2), Block(1), Block(3))
    assert p.palette == Palette.bw()
    assert p.meta == Meta(
        title="Dancer", author="Jan Wolter", copyright="© 2004 Jan Wolter",
        licence="CC-BY-3.0", source="webpbn.com #1",
    )  # fmt: skip
    assert p.goal is not None and p.goal.matches(p)
    assert p.goal.to_rows()[:2] == [".##..", ".##.#"]
    assert p.key == "7ab5a6f41d97a350"


def test_colour_bundle_declared_and_invented_colours() -> None:
    first, second = read_file(DATA / "flags.nonpack")
    assert [(c.name, c.hex) for c in first.palette] == [
        ("white", "#ffffff"), ("r", "#d52b1e"), ("b", "#0039a6"), ("g", "#009b3a")
    ]  # fmt: skip
    assert first.rows[0] == (Block(2, 1), Block(1, 2))
    assert first.goal is not None and first.goal.to_rows(".rbg") == ["rr.b", "r.bb", "ggg."]
    assert first.meta.licence == "MIT" and first.meta.source == "nonoforge test data"
    # colour characters without a `color` line get distinct RGBs, none of them white
    names = [c.name for c in second.palette]
    rgbs = [c.rgb for c in second.palette]
    assert names == ["white", "a", "b"] and len(set(rgbs)) == 3
    assert second.rows == ((Block(3, 1),), (Block(1, 2),), (Block(1, 2),))


def test_simpson_details() -> None:
    text = """\
title "For  merilinnuke aka "Merka""
by "A &amp; B &lt;c&gt;"
copyright "&copy; Copyright 2004"
license "my own licence"
catalogue "somewhere"
unknownkey whatever
width 3
height 3
rows
1,1,
0

columns
1
0
1
"""
    (p,) = read(text)
    assert p.meta.title == 'For  merilinnuke aka "Merka"'
    assert p.meta.author == "A & B <c>"
    assert p.meta.copyright == "© Copyright 2004"
    assert p.meta.licence == "my own licence" and p.meta.source == "somewhere"
    assert p.rows == ((Block(1), Block(1)), (), ())
    assert p.columns == ((Block(1),), (), (Block(1),))


def test_background_colour_and_bare_numbers_in_colour_puzzles() -> None:
    text = "width 2\nheight 1\ncolor 0 #000000\ncolor x #ff0000\nrows\n1,1y\ncolumns\n1\n1y\n"
    (p,) = read(text)
    assert [c.name for c in p.palette] == ["0", "x", "y"]
    assert p.palette[0].hex == "#000000" and p.palette[1].hex == "#ff0000"
    assert p.rows == ((Block(1, 1), Block(1, 2)),)
    assert read(non.write([p])) == [p]


def test_writer_uses_mikix_colours() -> None:
    grid = Grid([[1, 2], [0, 2]])
    p = Puzzle.from_grid(grid, Palette.of(("white", "#fff"), ("r", "#f00"), ("blue", "#00f")))
    out = non.write([p])
    assert "color r #ff0000" in out and "color a #0000ff" in out
    assert "1r,1a" in out and 'goal "ra0a"' in out
    assert read(out) == [non.holds(p)]


def test_plain_black_and_white_is_written_without_colours() -> None:
    p = Puzzle.from_grid(Grid([[1, 0], [1, 1]]), Palette((WHITE, BLACK)))
    out = non.write([p])
    assert "color" not in out and 'goal "1011"' in out


def test_sniff() -> None:
    assert non.sniff((DATA / "dancer.non").read_text())
    assert non.sniff("width 3\nrows\n1\n")
    assert not non.sniff("10 10\n1\n2\n")
    assert not non.sniff((DATA / "dancer.xml").read_text())


# -- bad input ------------------------------------------------------------------------

DANCER = (DATA / "dancer.non").read_text()


def test_truncated_file() -> None:
    cut = DANCER[: DANCER.index("columns") + 14]  # two column lines of five
    e = error_of(cut)
    assert "columns: expected 5 clue lines, found 2" in e.reason and e.line == 23


def test_missing_rows() -> None:
    e = error_of("width 2\nheight 3\nrows\n1\n1\ncolumns\n2\n1\n")
    assert "rows: expected 3 clue lines, found 2" in e.reason and e.line == 6


def test_missing_section_and_sizes() -> None:
    assert "no 'columns'" in error_of("width 1\nheight 1\nrows\n1\n").reason
    assert error_of("height 1\nrows\n1\ncolumns\n1\n").reason == "'columns' comes before 'width'"
    assert "no puzzle" in error_of("just some text\n").reason


def test_bad_numbers() -> None:
    assert error_of("width 1\nheight 1\nrows\nx1\ncolumns\n1\n").line == 4
    e = error_of("width 2\nheight 2\nrows\n-1\n1\ncolumns\n1\n1\n")
    assert "negative" in e.reason and e.line == 4
    e = error_of("width 1234567\nheight 1\n")
    assert "too large" in e.reason and e.line == 1
    assert "contains 0" in error_of("width 3\nheight 1\nrows\n1,0\ncolumns\n1\n0\n0\n").reason


def test_clue_longer_than_its_line() -> None:
    e = error_of("width 2\nheight 2\nrows\n3\n1\ncolumns\n2\n2\n")
    assert "row 1" in e.reason and "needs 3 cells" in e.reason and e.line == 4


def test_totals_that_differ() -> None:
    e = error_of("width 2\nheight 2\nrows\n1\n1\ncolumns\n2\n2\n")
    assert "rows paint 2 cells but columns paint 4" in e.reason and e.line == 6


def test_goal_errors_carry_the_goal_line() -> None:
    bad = DANCER.replace('goal "0110', 'goal "1110')
    e = error_of(bad)
    assert "goal picture does not match" in e.reason and e.line == 28
    e = error_of(DANCER.replace('goal "0110', 'goal "110'))
    assert "goal has 49 cells" in e.reason and e.line == 28
    e = error_of(DANCER.replace('goal "0110', 'goal "?110'))
    assert "unknown cell" in e.reason


def test_ten_megabyte_line_is_refused_quickly() -> None:
    e = error_of("width 2\nheight 1\nrows\n" + "1," * 5_000_000 + "\ncolumns\n1\n1\n")
    assert "too long" in e.reason and e.line == 4


def test_binary_noise() -> None:
    noise = random.Random(3).randbytes(8192)
    with pytest.raises(FormatError):
        list(loads(noise, "non"))
    text = bytes(random.Random(4).choices(b"width 0123456789\nrows,abc", k=4096)).decode()
    with pytest.raises(FormatError):
        read(text)


def test_dumps_refuses_more_colours_than_letters() -> None:
    n = 53
    grid = Grid([list(range(1, n + 1))])
    with pytest.raises(FormatError):
        dumps(Puzzle.from_grid(grid), "non")


# -- the shared corpora ---------------------------------------------------------------


def _shared_non_files() -> list[Path]:
    files = sorted(shared_path("corpora", "survey-free").glob("*.non"))
    files += sorted(shared_path("corpora", "mikix-db").rglob("*.non"))
    files += sorted(shared_path("samples", "formats", "non").glob("*.non"))
    return files


def test_every_shared_non_file_reads_with_matching_goal() -> None:
    files = _shared_non_files()
    assert len(files) >= 14 + 39 + 3
    for path in files:
        (p,) = read_file(path)
        assert p.goal is not None and p.goal.matches(p), path
        assert FMT.sniff(path.read_text()), path
        assert read(non.write([p])) == [non.holds(p)], path


def test_shared_dancer_is_the_bundled_one() -> None:
    (shared,) = read_file(shared_path("samples", "formats", "non", "mikix-webpbn-1.non"))
    (survey,) = read_file(shared_path("corpora", "survey-free", "webpbn-00001.non"))
    (ours,) = read_file(DATA / "dancer.non")
    assert shared == ours
    assert survey.key == ours.key and survey.meta.title == "Demo Puzzle from Front Page"
    assert survey.meta.copyright == "© Copyright 2004 by Jan Wolter"


def test_goal_pictures_are_decoded_compactly_and_capped() -> None:
    g = non.decode_cells(["0ab", "ba0"], {"0": 0, "a": 1, "b": 2}, 7)
    assert g.cells.tolist() == [[0, 1, 2], [2, 1, 0]]
    with pytest.raises(FormatError, match="more than 4000000 cells") as e:
        non.decode_cells(["0" * 3000] * 1400, {"0": 0}, 7)
    assert e.value.line == 7


# -- givens (issue 17: cells printed solved) -------------------------------------------


def test_givens_fixture_reads_with_its_givens() -> None:
    """A hand-made bundle after the mikix files' layout: the ``givens`` line is part of
    the puzzle wherever it stands, in numbers or colour characters."""
    switch, steps = read_file(DATA / "givens.nonpack")
    assert switch.meta.title == "Switch" and switch.meta.licence == "MIT"
    assert switch.givens == ((1, 1, 1), (9, 9, 0))
    assert steps.givens == ((0, 0, 1), (4, 5, 2), (5, 0, 0))  # 1,1,r  5,6,2  6,1,0
    assert steps.palette[1].name == "r" and steps.goal is not None
    # part of the key: the same clues without givens are another puzzle
    assert switch.key != switch.replace(givens=()).key
    text = non.write([switch, steps])
    assert "\ngivens 2,2,1 10,10,0\n" in text and "\ngivens 1,1,r 5,6,g 6,1,0\n" in text
    assert read(text) == [switch, steps]


def test_real_non_files_read_as_before_without_givens() -> None:
    """Every real .non file we have (webpbn via mikix, gnonograms, the survey set, the
    curated database) has no givens line: read as ever, without givens."""
    root = shared_path()
    files = sorted(root.glob("samples/formats/non/*.non")) + sorted(
        root.glob("corpora/**/*.non")
    )
    assert len(files) >= 50
    for f in files:
        for p in read_file(f):
            assert p.givens == ()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("givens 0,1,1", "bad given '0,1,1'"),
        ("givens 1,1", "bad given '1,1'"),
        ("givens 1,1,x", "unknown colour character 'x'"),
        ("givens 3,1,1", "outside the 2x2 grid"),
        ("givens 1,2,1", "column has no block of colour 1"),
        ("givens 1,1,0", "disagrees with the goal"),
        ("givens 1,1,1\ngivens 2,2,1", "a second 'givens' line"),
        ("givens 1,1,1 1,1,1", "given twice"),  # a slip in the file, not quietly merged
    ],
)
def test_bad_givens_are_one_line_errors_at_their_line(line: str, message: str) -> None:
    text = 'width 2\nheight 2\nrows\n1\n0\ncolumns\n1\n0\ngoal "1000"\n' + line + "\n"
    e = error_of(text)
    assert message in e.reason and e.line == 9 + line.count("\n") + 1


def test_surplus_clue_lines_are_an_error_naming_the_line() -> None:
    """Webpbn's dancer (``height 10``) followed by a million more row lines was read as the
    5x10 dancer without a word: the declared size is wrong, and the line says where."""
    dancer = (DATA / "dancer.non").read_text()
    rows_end = dancer.index("\n\ncolumns")  # after the tenth row line (line 19)
    long = dancer[:rows_end] + "\n1" * 1_000_000 + dancer[rows_end:]
    e = error_of(long)
    assert (e.line, e.reason) == (20, "rows: more clue lines than 'height 10'")
    cols_end = dancer.index("\n\ngoal")
    e = error_of(dancer[:cols_end] + "\n2,1" + dancer[cols_end:])
    assert (e.line, e.reason) == (27, "columns: more clue lines than 'width 5'")
    # what the format lets readers skip still is: unknown lines and blank lines
    [p] = read(dancer.replace("\n\ncolumns", "\n\n\nthe columns:\ncolumns"))
    assert p == read(dancer)[0]
