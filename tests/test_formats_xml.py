"""webpbn XML: the puzzle model in and out, colours by name, and hostile documents."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from conftest import DATA, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import FormatError
from nonoforge.formats import loads, read_file, xml
from nonoforge.puzzle import Block, Color, Grid, Meta, Palette, Puzzle

FAST = settings(max_examples=60, deadline=None)


def read(text: str) -> list[Puzzle]:
    return list(xml.read(text))


def error_of(text: str) -> FormatError:
    with pytest.raises(FormatError) as e:
        read(text)
    assert "\n" not in str(e.value) and len(str(e.value)) < 300
    return e.value


def doc(puzzle_body: str, attrs: str = "", set_extra: str = "") -> str:
    return (
        '<?xml version="1.0"?>\n<puzzleset>' + set_extra + f"\n<puzzle{attrs}>\n"
        + puzzle_body + "\n</puzzle>\n</puzzleset>\n"
    )


def clues(kind: str, *lines: str) -> str:
    return f'<clues type="{kind}">\n' + "\n".join(f"<line>{ln}</line>" for ln in lines) + (
        "\n</clues>"
    )


# -- random puzzles -------------------------------------------------------------------

_TEXT = st.text(
    alphabet=st.sampled_from(list("aZ09 -&<>\"'#\t\r\n]]>") + ["é", "漢", "\x01", "\ufffe"]),
    max_size=16,
)


@st.composite
def puzzles(draw: st.DrawFn) -> Puzzle:
    w, h = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    n = draw(st.integers(1, 4))
    cells = draw(st.lists(st.lists(st.integers(0, n), min_size=w, max_size=w),
                          min_size=h, max_size=h))  # fmt: skip
    if n == 1 and draw(st.booleans()):
        palette = Palette.bw()
    else:
        names = draw(st.lists(st.text("ab &<\"'\x02é", min_size=1, max_size=4),
                              min_size=n + 1, max_size=n + 1, unique=True))  # fmt: skip
        rgbs = draw(st.lists(st.tuples(*[st.integers(0, 255)] * 3),
                             min_size=n + 1, max_size=n + 1, unique=True))  # fmt: skip
        palette = Palette(tuple(Color(a, b) for a, b in zip(names, rgbs, strict=True)))
    fields = ("title", "author", "copyright", "licence", "source", "source_id", "note")
    meta = Meta(**{f: draw(st.none() | _TEXT) for f in fields})
    p = Puzzle.from_grid(Grid(cells), palette, meta)
    return p if draw(st.booleans()) else p.replace(goal=None)


@FAST
@given(puzzles())
def test_read_of_write_is_what_xml_holds(p: Puzzle) -> None:
    back = read(xml.write([p]))
    assert back == [xml.holds(p)]
    assert back[0].key == p.key
    assert xml.holds(back[0]) == back[0]


@settings(max_examples=25, deadline=None)
@given(st.lists(puzzles(), min_size=2, max_size=3))
def test_a_set_keeps_every_puzzle_in_order(ps: list[Puzzle]) -> None:
    assert read(xml.write(ps)) == [xml.holds(p) for p in ps]


# -- known answers --------------------------------------------------------------------


def test_dancer_known_answer() -> None:
    (p,) = read_file(DATA / "dancer.xml")
    assert (p.width, p.height) == (5, 10)
    assert p.rows[1] == (Block(2), Block(1))
    assert p.palette == Palette.bw()
    assert p.meta.title == "Demo Puzzle from Front Page" and p.meta.author == "Jan Wolter"
    assert p.meta.copyright == "(c) Copyright 2004 by Jan Wolter"
    assert p.meta.source == "webpbn.com" and p.meta.source_id == "#1 (v.1)"
    assert p.meta.note == "A stick figure man, dancing his stickly little heart out."
    assert p.key == read_file(DATA / "dancer.non")[0].key == "7ab5a6f41d97a350"


COLOUR = doc(
    '<title>  Flag </title>\n'
    '<color name="sky" char=".">88CCFF</color>\n'
    '<color name="red" char="r">FF0000</color>\n'
    '<color name="green" char="g">0F0</color>\n'
    + clues("columns", "<count>1</count><count color='green'>1</count>",
            "<count color='black'>1</count><count color='green'>1</count>")
    + "\n"
    + clues("rows", "<count>1</count><count color='black'>1</count>",
            "<count color='green'>2</count>")
    + '\n<solution type="saved"><image>|..|..|</image></solution>'
    + '\n<solution><image>\n|rX|\n|gg|\n</image></solution>',
    ' type="grid" defaultcolor="red" backgroundcolor="sky"',
)  # fmt: skip


def test_colour_document() -> None:
    (p,) = read(COLOUR)
    assert [(c.name, c.hex) for c in p.palette] == [
        ("sky", "#88ccff"), ("red", "#ff0000"), ("green", "#00ff00"), ("black", "#000000")
    ]  # fmt: skip
    assert p.rows == ((Block(1, 1), Block(1, 3)), (Block(2, 2),))
    assert p.meta.title == "Flag"
    assert p.goal is not None and p.goal.cells.tolist() == [[1, 3], [2, 2]]
    assert read(xml.write([p])) == [xml.holds(p)]


def test_set_level_metadata_and_several_puzzles() -> None:
    body = clues("rows", "<count>1</count>") + clues("columns", "<count>1</count>")
    text = (
        '<puzzleset><author>Set Author</author><source>here</source>'
        f'<puzzle>{body}</puzzle><puzzle><author>Own</author>{body}</puzzle></puzzleset>'
    )
    a, b = read(text)
    assert (a.meta.author, b.meta.author) == ("Set Author", "Own")
    assert a.meta.source == b.meta.source == "here"


def test_goal_without_clues_gives_the_clues() -> None:
    (p,) = read(doc("<solution><image>|X.|\n|XX|</image></solution>"))
    assert p.rows == ((Block(1),), (Block(2),))
    assert p.columns == ((Block(2),), (Block(1),))


def test_goal_with_open_cells_is_not_kept() -> None:
    body = clues("rows", "<count>1</count>") + clues("columns", "<count>1</count>")
    (p,) = read(doc(body + "<solution><image>|?|</image></solution>"))
    assert p.goal is None


def test_sniff() -> None:
    assert xml.sniff((DATA / "dancer.xml").read_text())
    assert xml.sniff(xml.write([read_file(DATA / "dancer.non")[0]]))
    assert not xml.sniff("<html><body>puzzleset</body></html>")
    assert not xml.sniff((DATA / "dancer.non").read_text())


# -- bad input ------------------------------------------------------------------------

DANCER = (DATA / "dancer.xml").read_text()


def test_malformed_and_truncated() -> None:
    e = error_of(DANCER[: len(DANCER) // 2])
    assert "malformed XML" in e.reason and e.line is not None and e.line > 10
    e = error_of(DANCER.replace("<count>7</count>", "<count>7</cont>"))
    assert "malformed XML" in e.reason and e.line == 21


def test_missing_rows() -> None:
    no_rows = DANCER[: DANCER.index('<clues type="rows">')] + "</puzzle></puzzleset>"
    e = error_of(no_rows)
    assert "no <clues type='rows'>" in e.reason and e.line == 6


def test_bad_counts() -> None:
    e = error_of(DANCER.replace("<count>7</count>", "<count>seven</count>"))
    assert "expected a count" in e.reason and e.line == 21
    e = error_of(DANCER.replace("<count>7</count>", "<count>-7</count>"))
    assert "negative" in e.reason and e.line == 21
    e = error_of(DANCER.replace("<count>7</count>", "<count>0</count>"))
    assert "count of 0" in e.reason


def test_clue_longer_than_its_line() -> None:
    e = error_of(DANCER.replace("<count>7</count>", "<count>11</count>"))
    assert "column 3" in e.reason and "needs 11 cells" in e.reason and e.line == 21


def test_unknown_colours_and_chars() -> None:
    e = error_of(DANCER.replace("<count>7</count>", '<count color="mauve">7</count>'))
    assert "unknown colour 'mauve'" in e.reason and e.line == 21
    e = error_of(COLOUR.replace("|rX|", "|rQ|"))
    assert "unknown cell character 'Q'" in e.reason and e.line == 17
    e = error_of(COLOUR.replace("|gg|", "|rg|"))
    assert "goal picture does not match" in e.reason


def test_not_a_puzzleset() -> None:
    e = error_of("<?xml version='1.0'?>\n<html/>")
    assert "root is <html>" in e.reason and e.line == 2


def test_billion_laughs_is_refused_at_once() -> None:
    lol = "".join(
        f' <!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">\n' for i in range(1, 10)
    )
    bomb = (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol0 "lol">\n' + lol + "]>\n"
        "<puzzleset><puzzle><title>&lol9;</title></puzzle></puzzleset>\n"
    )
    start = time.perf_counter()
    e = error_of(bomb)
    # refused before anything is expanded (the reason says so); expanding would take
    # minutes and gigabytes, so a generous guard still tells, whatever the machine's load
    assert time.perf_counter() - start < 30
    assert "entity declarations are refused" in e.reason and e.line == 3


def test_external_entities_and_dtds_are_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    e = error_of(
        f'<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY x SYSTEM "{secret.as_uri()}">]>\n'
        "<puzzleset><puzzle><title>&x;</title></puzzle></puzzleset>\n"
    )
    assert "entity declarations are refused" in e.reason and "TOP-SECRET" not in str(e)
    dtd = tmp_path / "evil.dtd"
    dtd.write_text(f'<!ENTITY x SYSTEM "{secret.as_uri()}">')
    e = error_of(
        f'<?xml version="1.0"?>\n<!DOCTYPE puzzleset SYSTEM "{dtd.as_uri()}">\n'
        "<puzzleset><puzzle><title>&x;</title></puzzle></puzzleset>\n"
    )
    assert "undefined entity &x;" in e.reason and e.line == 3


def test_ten_megabyte_line() -> None:
    counts = "<count>1</count>" * 650_000
    e = error_of(doc(clues("rows", counts) + clues("columns", "<count>1</count>")))
    assert "(650000 blocks) needs 1299999 cells" in e.reason and e.line == 5


def test_binary_noise() -> None:
    with pytest.raises(FormatError):
        list(loads(random.Random(5).randbytes(8192), "xml"))
    with pytest.raises(FormatError):
        read("<puzzleset>" + "".join(random.Random(6).choices("<>/a&;\"= \n", k=2000)))


# -- the shared samples ---------------------------------------------------------------


def test_shared_webpbn_export_reads() -> None:
    path = shared_path("samples", "formats", "xml", "webpbn-1-export.xml")
    (p,) = read_file(path)
    (same,) = read_file(shared_path("samples", "formats", "non", "mikix-webpbn-1.non"))
    assert p.key == same.key and p.rows[1] == (Block(2), Block(1))
    for f in sorted(path.parent.glob("*.xml")):
        assert read_file(f) and xml.sniff(f.read_text())


def test_nested_puzzleset_is_a_format_error_not_a_crash() -> None:
    # found by bench/fuzz.py: a <puzzleset><puzzle> nested inside <clues> replaced the
    # current puzzle while the clue kind stayed "rows" (KeyError escaped the reader)
    doc = (
        '<puzzleset><puzzle><clues type="rows"><puzzleset><puzzle><x><clues><line/>'
        "</clues></x></puzzle></puzzleset></clues></puzzle></puzzleset>"
    )
    with pytest.raises(FormatError, match="puzzleset"):
        list(loads(doc.encode(), "xml"))
