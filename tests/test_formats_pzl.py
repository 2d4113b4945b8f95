"""izaron's .pzl files: the colour form and the black-and-white form."""

from __future__ import annotations

import pytest
from conftest import DATA

from nonoforge.errors import FormatError
from nonoforge.formats import detect, dumps, loads, pzl, read_file
from nonoforge.puzzle import Grid, Meta, Palette, Puzzle

FLOWER = [".r.r.", "rryrr", ".rrr.", "..g..", ".gg.."]


def one(text: str) -> Puzzle:
    (p,) = list(loads(text, "pzl"))
    return p


def test_colour_file_reads_rows_then_columns_with_rgb_colours() -> None:
    (p,) = read_file(DATA / "flower.pzl")
    assert (p.width, p.height) == (5, 5)
    # the list names an unused #000000 first (as izaron's encoder lists transparent pixels)
    assert [c.name for c in p.palette] == ["white", "000000", "e02020", "f0d000", "20a040"]
    assert p.palette[2].rgb == (224, 32, 32)
    assert p.rows[1] == ((2, 2), (1, 3), (2, 2))
    assert p.columns[2] == ((1, 3), (1, 2), (2, 4))
    assert p.used_colors() == [2, 3, 4]
    drawn = Grid.from_rows(FLOWER, ".ryg")
    assert drawn.row_clues() == tuple(
        tuple((b.length, b.color - 1) for b in r) for r in p.rows
    )
    assert detect((DATA / "flower.pzl").read_bytes()).name == "pzl"


def test_black_and_white_form() -> None:
    (p,) = read_file(DATA / "heart-bw.pzl")
    assert p.palette == Palette.bw()
    assert p.rows == (((1, 1), (1, 1)), ((5, 1),), ((5, 1),), ((3, 1),), ((1, 1),))
    assert detect((DATA / "heart-bw.pzl").read_bytes()).name == "pzl"


def test_write_is_the_colour_form_izaron_reads_by_default() -> None:
    palette = Palette.of(("white", "#fff"), ("red", "#ff0000"), ("blue", "#0000ff"))
    p = Puzzle.from_grid(Grid.from_rows(["rb", ".b"], ".rb"), palette)
    text = dumps(p, "pzl")
    assert text == (
        "2\n#ff0000\n#0000ff\n\n2 2\n\n"
        "2 1 255 0 0 1 0 0 255\n1 1 0 0 255\n\n"
        "1 1 255 0 0\n1 2 0 0 255\n"
    )
    q = one(text)
    assert q == pzl.FORMAT.holds(p)
    assert [c.name for c in q.palette] == ["white", "ff0000", "0000ff"]
    assert q.key == p.key


def test_black_and_white_survives_as_black_and_white() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#.", "##"]), meta=Meta(title="x"))
    text = dumps(p, "pzl")
    assert text.startswith("1\n#000000\n")
    assert one(text) == p.replace(meta=Meta(), goal=None)


def test_painted_white_is_a_colour_of_its_own() -> None:
    text = "2\n#ffffff\n#000000\n1 3\n1 3 255 255 255\n1 1 255 255 255\n1 1 255 255 255\n" \
           "1 1 255 255 255\n"
    p = one(text)
    assert p.palette[1].rgb == (255, 255, 255) and p.palette[1].name == "ffffff"
    assert p.rows == (((3, 1),),)


def test_same_rgb_twice_cannot_be_held() -> None:
    p = Puzzle.from_clues(rows=[[(1, 1), (1, 2)]], columns=[[(1, 1)], [(1, 2)]],
                          palette=Palette.of(("w", "#fff"), ("a", "#123456"), ("b", "#123456")))
    assert not pzl.FORMAT.accepts(p)
    with pytest.raises(FormatError):
        dumps(p, "pzl")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("1\n#00000\n1 1\n1 1 0 0 0\n1 1 0 0 0\n", "expected a colour"),
        ("1\n#000000\n1 1\n1 1 0 0 0\n", "file ends"),
        ("1\n#000000\n1 1\n1 1 0 0 1\n1 1 0 0 0\n", "not in the colour list"),
        ("1\n#000000\n1 1\n1 -1 0 0 0\n1 1 0 0 0\n", "expected a block length of row 1"),
        ("1\n#000000\n1 1\n1 0 0 0 0\n1 1 0 0 0\n", "length 0"),
        ("1\n#000000\n1 1\n1 2 0 0 0\n1 1 0 0 0\n", "needs 2 cells"),
        ("1\n#000000\n1 1\n1 1 0 0 0\n1 1 0 0 0\n7\n", "unexpected data"),
        ("2\n#000000\n#000000\n1 1\n0\n0\n", "twice"),
        ("1 1\n1 1\n1 1\n1\n", "unexpected data"),
        ("1 0\n", "out of range"),
        ("9999999 1\n", "too large"),
    ],
)
def test_malformed_files_are_format_errors(text: str, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        one(text)


def test_error_line_points_at_the_bad_token() -> None:
    with pytest.raises(FormatError) as e:
        one("1\n#000000\n\n2 1\n\n1 1 0 0 0\n1 x 0 0 0\n\n1 2 0 0 0\n")
    assert e.value.line == 7


def test_sniffer_does_not_claim_other_layouts() -> None:
    assert pzl.sniff("1\n#000000\n1 1\n")
    assert not pzl.sniff("2 2\n1 1\n2\n1\n2\n")  # nin-like: no block counts
    assert not pzl.sniff("width 5\nheight 5\n")
    assert not pzl.sniff(b"\x00\x01")
