"""Every registered format, against each other: round trips, real files, hostile input.

The tests run over whatever :data:`nonoforge.formats.FORMATS` holds when they are
collected, so a format that lands later is covered without touching this file; a module
that registers nothing is simply not tested here.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import SHARED, shared_path
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from nonoforge.errors import FormatError
from nonoforge.formats import FORMATS, Format, detect, dumps, loads, read_file, tournament
from nonoforge.puzzle import Color, Grid, Meta, Palette, Puzzle

WRITABLE = sorted(name for name, f in FORMATS.items() if f.write is not None)
ALL = sorted(FORMATS)
FAST = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


def as_bytes(out: str | bytes) -> bytes:
    return out.encode() if isinstance(out, str) else out


def read_back(out: str | bytes, fmt: str | Format | None) -> list[Puzzle]:
    return list(loads(as_bytes(out), fmt))


# ---------------------------------------------------------------------------------------
# random puzzles

_TEXT = st.text(
    alphabet=st.sampled_from(
        list("abcXYZ0129 -.,;:!?'\"()&<>/#=_") + ["é", "ü", "ß", "漢", "—"]
    ),
    min_size=1,
    max_size=24,
).map(lambda s: " ".join(s.split())).filter(bool)


@st.composite
def metas(draw: st.DrawFn) -> Meta:
    fields = ("title", "author", "copyright", "licence", "source", "source_id", "note")
    return Meta(**{f: draw(st.none() | _TEXT) for f in fields})


@st.composite
def palettes(draw: st.DrawFn, ncolors: int) -> Palette:
    if ncolors == 1 and draw(st.booleans()):
        return Palette.bw()
    names = draw(
        st.lists(
            st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8),
            min_size=ncolors + 1,
            max_size=ncolors + 1,
            unique=True,
        )
    )
    rgbs = draw(
        st.lists(
            st.tuples(*[st.integers(0, 255)] * 3), min_size=ncolors + 1, max_size=ncolors + 1,
            unique=True,
        )
    )
    return Palette(tuple(Color(n, c) for n, c in zip(names, rgbs, strict=True)))


@st.composite
def puzzles(draw: st.DrawFn, color: bool = True) -> Puzzle:
    """A random consistent puzzle (from a random picture), with or without its goal."""
    w = draw(st.integers(1, 9))
    h = w if draw(st.booleans()) else draw(st.integers(1, 9))
    ncolors = draw(st.integers(1, 4)) if color else 1
    cells = draw(
        st.lists(
            st.lists(st.integers(0, ncolors), min_size=w, max_size=w), min_size=h, max_size=h
        )
    )
    palette = draw(palettes(ncolors))
    p = draw(some_givens(Puzzle.from_grid(Grid(cells), palette, draw(metas()))))
    return p if draw(st.booleans()) else p.replace(goal=None)


@st.composite
def some_givens(draw: st.DrawFn, p: Puzzle) -> Puzzle:
    """``p`` (with its goal) and, one time in three, a few of its cells given."""
    assert p.goal is not None
    if draw(st.integers(0, 2)):
        return p
    cells = st.tuples(st.integers(0, p.height - 1), st.integers(0, p.width - 1))
    picks = draw(st.lists(cells, min_size=1, max_size=4, unique=True))
    return p.replace(givens=[(r, c, int(p.goal.cells[r, c])) for r, c in picks])


@st.composite
def format_and_puzzle(draw: st.DrawFn, names: list[str]) -> tuple[Format, Puzzle]:
    f = FORMATS[draw(st.sampled_from(names))]
    p = draw(puzzles(color=f.color))
    return f, p


# ---------------------------------------------------------------------------------------
# round trips


def test_some_formats_are_registered() -> None:
    assert {"json", "tatham", "pzl", "tournament", "csv"} <= set(FORMATS)


@pytest.mark.parametrize("name", WRITABLE)
@FAST
@given(data=st.data())
def test_read_of_write_is_what_the_format_holds(name: str, data: st.DataObject) -> None:
    f = FORMATS[name]
    p = data.draw(puzzles(color=f.color))
    if not f.accepts(p):
        with pytest.raises(FormatError):
            dumps(p, f)
        return
    back = read_back(dumps(p, f), f)
    assert back == [f.holds(p)]
    assert back[0].key == p.key


@pytest.mark.parametrize("name", WRITABLE)
@FAST
@given(data=st.data())
def test_holds_is_stable(name: str, data: st.DataObject) -> None:
    """What survives one trip survives the next unchanged."""
    f = FORMATS[name]
    p = data.draw(puzzles(color=f.color))
    if f.accepts(p):
        once = f.holds(p)
        assert f.holds(once) == once
        assert read_back(dumps(once, f), f) == [once]


@pytest.mark.parametrize("name", [n for n in WRITABLE if FORMATS[n].multi])
@FAST
@given(data=st.data())
def test_multi_formats_keep_every_puzzle_in_order(name: str, data: st.DataObject) -> None:
    f = FORMATS[name]
    ps = data.draw(st.lists(puzzles(color=f.color), min_size=2, max_size=4))
    ps = [p for p in ps if f.accepts(p)]
    assume(len(ps) >= 2)
    back = read_back(dumps(ps, f), f)
    assert [p.key for p in back] == [p.key for p in ps]


@pytest.mark.parametrize("name", WRITABLE)
@FAST
@given(data=st.data())
def test_written_files_are_recognised_by_content(name: str, data: st.DataObject) -> None:
    """Detection may pick another format, but it must read the same puzzle."""
    f = FORMATS[name]
    p = data.draw(puzzles(color=f.color))
    assume(f.accepts(p))
    out = as_bytes(dumps(p, f))
    assert [q.key for q in loads(out)] == [p.key], f"detected as {detect(out).name}"


# ---------------------------------------------------------------------------------------
# real files from the shared corpora


def _shared_files() -> list[tuple[str, str]]:
    """``(relative path, expected format)`` of every shared file we must read."""
    if not SHARED.exists():
        return [("corpora", "")]  # one test that skips
    found: list[tuple[str, str]] = []
    samples = SHARED / "samples" / "formats"
    for p in sorted(samples.rglob("*")):
        if p.is_file():
            found.append((str(p.relative_to(SHARED)), p.parent.name))
    for pattern, fmt in [
        ("corpora/survey-free/*.non", "non"),
        ("corpora/jwilk-nin/*.nin", "nin"),
        ("corpora/mikix-db/**/*.non", "non"),
        ("corpora/tournament/question/*.txt", "tournament"),
    ]:
        found += [(str(p.relative_to(SHARED)), fmt) for p in sorted(SHARED.glob(pattern))]
    return found


SHARED_FILES = _shared_files()


def _read_shared(rel: str, fmt: str) -> list[Puzzle]:
    path = shared_path(*rel.split("/"))
    if fmt not in FORMATS:
        pytest.skip(f"format {fmt!r} is not registered (yet)")
    if fmt == "tournament":
        return tournament.read_with_solutions(path)
    return read_file(path)


@pytest.mark.parametrize(("rel", "fmt"), SHARED_FILES, ids=[r for r, _ in SHARED_FILES])
def test_shared_file_reads_and_converts_everywhere(rel: str, fmt: str) -> None:
    puzzles_ = _read_shared(rel, fmt)
    assert puzzles_
    if fmt == "tournament":  # read with their solution files: every one has its goal
        assert len(puzzles_) == 1000 and all(p.goal is not None for p in puzzles_)
        assert {(p.width, p.height) for p in puzzles_} == {(25, 25)}
        text = shared_path(*rel.split("/")).read_text()
        # our writer reproduces the file; four later sets (icga2020, taai2017, taai2019,
        # tcga2019) write a line with no blocks as an empty line where we write "0"
        canonical = "\n".join(line or "0" for line in text.split("\n")[:-1]) + "\n"
        assert dumps(puzzles_, "tournament") == canonical
    detected = detect(shared_path(*rel.split("/")).read_bytes(), rel)
    assert detected.name == fmt, f"{rel} detected as {detected.name}"
    # tournament sets hold 1000 puzzles: convert a sample of them
    for p in puzzles_[:12] if len(puzzles_) > 12 else puzzles_:
        if p.goal is not None:
            assert p.goal.matches(p)
        for name in WRITABLE:
            f = FORMATS[name]
            if not f.accepts(p):
                continue
            back = read_back(dumps(p, f), f)
            assert back == [f.holds(p)], f"{rel} via {name}"
            assert back[0].key == p.key


def test_shared_corpora_with_goals_keep_them() -> None:
    if "non" not in FORMATS:
        pytest.skip("format 'non' is not registered (yet)")
    folder = shared_path("corpora", "survey-free")
    for path in sorted(folder.glob("*.non")):
        for p in read_file(path):
            assert p.goal is not None and p.goal.matches(p), path.name


# ---------------------------------------------------------------------------------------
# hostile input: one-line FormatErrors, never another exception, never a hang

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<puzzleset><puzzle type="grid" defaultcolor="black"><title>&lol9;</title>
<clues type="columns"><line><count>1</count></line></clues>
<clues type="rows"><line><count>1</count></line></clues>
</puzzle></puzzleset>
"""

#: ``(name, suffix, content)``: files that are no puzzle, in many disguises.
HOSTILE: list[tuple[str, str, bytes]] = [
    ("noise", ".non", random.Random(7).randbytes(4096)),
    ("noise-text", ".pzl", bytes(random.Random(8).choices(b"0123456789 #$\n\t-x", k=4096))),
    ("empty", ".non", b""),
    ("blank", ".csv", b"\n\n  \n"),
    ("long-line", ".nin", b"7" * 10_000_000 + b"\n"),
    ("long-word", ".pattern", b"5x5:" + b"1." * 5_000_000),
    ("negative-tatham", ".pattern", b"2x2:1/-1/1/1\n"),
    ("negative-pzl", ".pzl", b"1\n#000000\n1 1\n1 -1 0 0 0\n1 1 0 0 0\n"),
    ("negative-csv", ".csv", b"1\n-1\n1\n1\n"),
    ("negative-tournament", ".tournament", b"$1\n-1\n1\n1\n1\n"),
    ("negative-non", ".non", b"width 2\nheight 2\nrows\n-1\n1\ncolumns\n1\n1\n"),
    ("negative-nin", ".nin", b"2 2\n-1\n1\n1\n1\n"),
    ("long-clue-tatham", ".pattern", b"2x2:3/1/1/1\n"),
    ("long-clue-pzl", ".pzl", b"1\n#000000\n1 1\n1 2 0 0 0\n1 2 0 0 0\n"),
    ("long-clue-csv", ".csv", b"1\n1 1\n1\n1\n"),
    ("long-clue-tournament", ".tournament", b"$1\n3\n1\n3\n1\n"),
    ("long-clue-non", ".non", b"width 2\nheight 2\nrows\n3\n1\ncolumns\n2\n2\n"),
    ("long-clue-nin", ".nin", b"2 2\n1 1\n1\n2\n1\n"),
    ("huge-size", ".non", b"width 999999\nheight 999999\nrows\ncolumns\n"),
    ("billion-laughs", ".xml", BILLION_LAUGHS),
    ("external-entity", ".xml", b'<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY x SYSTEM '
     b'"file:///etc/passwd">]>\n<puzzleset><puzzle><title>&x;</title></puzzle></puzzleset>\n'),
]
HOSTILE_IDS = [h[0] for h in HOSTILE]


def _assert_refused(data: bytes, fmt: str | None, suffix: str) -> None:
    try:
        got = list(loads(data, fmt, path="hostile" + suffix))
    except FormatError as e:
        msg = str(e)
        assert "\n" not in msg and len(msg) < 500, msg
        return
    # a format may read an empty file as "no puzzles"; nothing else may pass
    assert got == [] and not data.strip(), f"read {len(got)} puzzle(s) from hostile input"


@pytest.mark.parametrize(("name", "suffix", "data"), HOSTILE, ids=HOSTILE_IDS)
def test_hostile_input_is_refused_when_detected(name: str, suffix: str, data: bytes) -> None:
    _assert_refused(data, None, suffix)


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize(("name", "suffix", "data"), HOSTILE, ids=HOSTILE_IDS)
def test_hostile_input_is_refused_by_every_format(
    fmt: str, name: str, suffix: str, data: bytes
) -> None:
    _assert_refused(data, fmt, suffix)


@pytest.mark.parametrize("name", WRITABLE)
@FAST
@given(data=st.data())
def test_damaged_files_fail_cleanly(name: str, data: st.DataObject) -> None:
    """Random edits of a valid file: a FormatError or some puzzle, never another exception."""
    f = FORMATS[name]
    p = data.draw(puzzles(color=f.color))
    assume(f.accepts(p))
    raw = bytearray(as_bytes(dumps(p, f)))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, max(len(raw) - 1, 0)))
        edit = data.draw(st.sampled_from(["delete", "insert", "replace", "cut"]))
        ch = data.draw(st.sampled_from(list(b"0123456789-.,:/#$ \n\t<>\"x\xff")))
        if edit == "delete" and raw:
            del raw[i]
        elif edit == "insert":
            raw.insert(i, ch)
        elif edit == "replace" and raw:
            raw[i] = ch
        elif edit == "cut":
            del raw[i:]
    try:
        list(loads(bytes(raw), f))
    except FormatError as e:
        assert "\n" not in str(e)


def test_hostile_files_list_covers_the_brief() -> None:
    kinds = {n.split("-")[0] for n in HOSTILE_IDS}
    assert {"noise", "empty", "long", "negative", "billion"} <= kinds
    assert any(n.startswith("long-clue") for n in HOSTILE_IDS)



# -- text as found in the wild (issue 12) and made safe once (issue 14) -------------------

DANCER_CP1252 = (
    b'catalogue "webpbn.com #1"\ntitle "Danseuse \xe9l\xe9gante"\nby "J\xf6rg W\xe9lter"\n'
    b'copyright "\xa9 2004 J\xf6rg \x96 all rights"\nwidth 5\nheight 10\n\nrows\n2\n2,1\n1,1\n3\n'
    b"1,1\n1,1\n2\n1,1\n1,2\n2\n\ncolumns\n2,1\n2,1,3\n7\n1,3\n2,1\n"
)


def test_cp1252_non_reads_with_the_right_title_and_round_trips() -> None:
    # the shape of the 79 files of the 2014 webpbn archive that were refused as "binary"
    assert detect(DANCER_CP1252, "x.non").name == "non"
    (p,) = loads(DANCER_CP1252, path="x.non")
    assert (p.meta.title, p.meta.author) == ("Danseuse élégante", "Jörg Wélter")
    assert p.meta.copyright == "© 2004 Jörg – all rights"  # 0x96 is cp1252's en dash
    again = list(loads(dumps(p, "non"), "non"))[0]  # written back as UTF-8: the text stays
    assert again.meta == p.meta


def test_latin1_only_bytes_and_every_text_reader_fall_back() -> None:
    from nonoforge.formats.base import decode_text

    assert decode_text(b"caf\xe9 \x81") == "café \x81"  # 0x81: undefined in cp1252 -> Latin-1
    assert decode_text("caf\u00e9".encode()) == "café"
    assert decode_text(b"\xef\xbb\xbfcaf\xc3\xa9") == "café"
    assert decode_text("caf\u00e9".encode("utf-16")) == "café"
    p = Puzzle.from_grid(Grid([[1, 0], [1, 1]]), meta=Meta(title="Café ©"))
    for name, f in FORMATS.items():
        if f.binary or f.write is None or not f.accepts(p):
            continue
        text = dumps(p, name)
        assert isinstance(text, str)
        latin = text.encode("cp1252", errors="replace")
        got = list(loads(latin, name))
        assert got and (got[0].rows, got[0].columns) == (p.rows, p.columns), name
        if f.holds(p).meta.title:
            assert got[0].meta.title == "Café ©", name


def test_xml_honours_its_declared_encoding() -> None:
    doc = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<puzzleset><puzzle type="grid">'
        "<title>Ã©tÃ© é</title><clues type=\"columns\"><line><count>1</count></line></clues>"
        '<clues type="rows"><line><count>1</count></line></clues></puzzle></puzzleset>\n'
    )
    (p,) = loads(doc.encode("latin-1"), path="x.xml")
    assert p.meta.title == "Ã©tÃ© é"  # read as Latin-1, as declared, not as UTF-8


def test_a_few_high_bytes_never_make_a_file_binary() -> None:
    from nonoforge.formats.base import looks_binary

    assert not looks_binary(DANCER_CP1252)
    assert not looks_binary(b"\xff\xfe" + "text".encode("utf-16-le"))
    assert looks_binary(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(FormatError, match="binary"):
        detect(b"\x00\x01\x02\x03garbage\x00" * 20, "x.bin")


@given(st.lists(st.sampled_from(
    ["a", " 1\t2", "", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e",
     "\x85", "\u2028", "\u2029"]), max_size=12).map("".join))
def test_numbered_lines_are_the_lines_splitlines_gives(text: str) -> None:
    """The readers' line stream (a generator: no list of the file's lines) splits where
    str.splitlines does, every line end included, and numbers the lines from 1."""
    from nonoforge.formats.base import numbered_lines

    assert list(numbered_lines(text)) == list(enumerate(text.splitlines(), start=1))


def test_a_file_is_read_whole_and_the_cap_still_holds(tmp_path: Path) -> None:
    """read_regular reads the file's size (not the cap: that would allocate the cap for
    every file) and still refuses a file over the cap."""
    from nonoforge.formats.base import read_regular

    f = tmp_path / "x.non"
    for data in (b"", b"x", bytes(range(256)) * 1000):
        f.write_bytes(data)
        assert read_regular(f) == data
    with pytest.raises(FormatError, match="larger than"):
        read_regular(f, cap=len(data) - 1)


def test_text_is_made_safe_once_at_the_reader() -> None:
    import json

    base = json.loads(dumps(Puzzle.from_grid(Grid([[1]]), meta=Meta(title="t")), "json"))
    doc = json.dumps({**base, "meta": {"title": "bad \ud800 and \x1b[31mred"}})  # valid JSON
    (p,) = loads(doc.encode(), "json")
    assert p.meta.title == "bad \ufffd and \ufffd[31mred"
    p.meta.title.encode("utf-8")  # storable
    (q,) = loads(json.dumps({**base, "meta": {"title": "x" * 50_000}}).encode(), "json")
    assert q.meta.title is not None and len(q.meta.title) <= 1000


@pytest.mark.parametrize("name", ["idna", "punycode", "rot13", "hex", "base64", "undefined",
                                  "utf-7", "utf-16", "unicode_escape", "no-such-codec"])
def test_a_bogus_declared_encoding_falls_back(name: str) -> None:
    from nonoforge.formats.base import decode_text

    doc = f'<?xml version="1.0" encoding="{name}"?><puzzleset>caf\u00e9</puzzleset>'
    assert decode_text(doc.encode()).endswith("café</puzzleset>")
    assert decode_text(doc.encode("cp1252")).endswith("café</puzzleset>")


def test_a_file_is_decoded_once_for_detection_and_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    import nonoforge.formats as formats

    calls: list[int] = []
    real = formats.decode_text

    def counting(data: bytes) -> str:
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(formats, "decode_text", counting)
    data = shared_path("corpora", "survey-free", "faase.non").read_bytes()
    assert len(list(loads(data))) == 1
    assert len(calls) == 1
    calls.clear()
    assert len(list(loads(data, "non"))) == 1
    assert len(calls) == 1


def test_control_characters_are_replaced_alike_by_every_text_reader_and_writer() -> None:
    # One rule (util.safe_text): a control character in a title is replaced by U+FFFD, so
    # a reader sees something was there; neither .non nor XML drops it, reading or writing.
    non = 'title "a\x9bb&#27;c&#x7f;"\nwidth 1\nheight 1\nrows\n1\ncolumns\n1\n'
    xml = ('<?xml version="1.0"?><puzzleset><puzzle><title>a&#133;b</title>'
           '<clues type="rows"><line><count>1</count></line></clues>'
           '<clues type="columns"><line><count>1</count></line></clues></puzzle></puzzleset>')
    assert [p.meta.title for p in loads(non, "non")] == ["a\ufffdb\ufffdc\ufffd"]
    assert [p.meta.title for p in loads(xml, "xml")] == ["a\ufffdb"]
    p = Puzzle.from_grid(Grid([[1]]), meta=Meta(title=" Cat\x1b[31m \x85red\r\n"))
    for fmt in ("non", "xml"):
        (back,) = loads(dumps(p, fmt), fmt)
        assert back.meta.title == "Cat\ufffd[31m \ufffdred", fmt


# ---------------------------------------------------------------------------------------
# givens (issue 17): part of the puzzle, so a format either holds them or refuses


GIVENS_HOLDERS = {"non", "json", "tatham"}


def _switch_with_a_given() -> Puzzle:
    g = Grid.from_rows(["##..", "##..", "..##", "..##"])
    return Puzzle.from_grid(g).replace(givens=[(0, 0, 1)])


def test_formats_that_hold_givens_are_the_documented_ones() -> None:
    assert {n for n, f in FORMATS.items() if f.givens} == GIVENS_HOLDERS


@pytest.mark.parametrize("name", sorted(GIVENS_HOLDERS))
def test_givens_survive_a_trip_through_the_formats_that_hold_them(name: str) -> None:
    p = _switch_with_a_given()
    [back] = read_back(dumps(p, name), name)
    assert back.givens == p.givens and back.key == p.key


@pytest.mark.parametrize("name", sorted(set(WRITABLE) - GIVENS_HOLDERS))
def test_every_other_format_refuses_givens_in_one_line(name: str) -> None:
    p = _switch_with_a_given()
    assert not FORMATS[name].accepts(p)
    with pytest.raises(FormatError) as e:
        dumps(p, name)
    msg = str(e.value)
    assert f"format {name!r} cannot hold given cells" in msg and "has 1" in msg
    assert "use non, " in msg and "json" in msg and "\n" not in msg
    assert FORMATS[name].accepts(p.replace(givens=()))  # the clues alone it can write


@pytest.mark.parametrize("value", [{}, False, 0, "", "1,1,1", [[0, 0]], [[0, 0, True]]])
def test_json_givens_that_are_not_a_list_of_triples_are_refused(value: object) -> None:
    """A malformed "givens" field is an error, never read as "no givens": the clues alone
    are another puzzle (``{}`` or ``false`` used to slip through as none)."""
    import json

    base = json.loads(dumps(_switch_with_a_given(), "json"))
    with pytest.raises(FormatError, match='"givens" must be a list'):
        list(loads(json.dumps({**base, "givens": value}), "json"))
    (p,) = loads(json.dumps({**base, "givens": None}), "json")  # null: none, as absent
    assert p.givens == ()


# ---------------------------------------------------------------------------------------
# one bad puzzle costs only itself: a multi-puzzle file resynchronises at the next record
#
# Each fixture is written by hand after the structure of a real file (the tournament
# question files of /work/shared/corpora/tournament: ``$N`` then W column clue lines then H
# row clue lines, TAB-separated; webpbn's export of /work/shared/samples/formats/xml;
# Tatham's game IDs; a ``====`` .non bundle; our own JSON list). The middle puzzle is bad.

_TOURNAMENT_BAD = (
    "$1\n1\t1\n1\n1\t1\n1\t1\n1\n1\t1\n"  # lines 1-7: an X, 3 x 3
    "$2\n3\n3\n3\n3\n2\t2\n3\n"  # lines 8-14: row 2 (line 13) cannot fit
    "$3\n3\n3\n3\n3\n3\n3\n"  # lines 15-21: all black
)
_XML_PUZZLE = """<puzzle type="grid" defaultcolor="black">
<title>{title}</title>
<color name="white" char=".">FFFFFF</color>
<color name="black" char="X">000000</color>
<clues type="columns">
<line><count>2</count></line>
<line><count>{count}</count></line>
</clues>
<clues type="rows">
<line><count>2</count></line>
<line><count>2</count></line>
</clues>
</puzzle>
"""
_XML_BAD = (
    '<?xml version="1.0"?>\n<!DOCTYPE pbn SYSTEM "http://webpbn.com/pbn-0.3.dtd">\n'
    "<puzzleset>\n<source>hand-written</source>\n"  # lines 1-4
    + _XML_PUZZLE.format(title="one", count=2)  # lines 5-17
    + _XML_PUZZLE.format(title="two", count="x")  # lines 18-30: the count on line 24
    + _XML_PUZZLE.format(title="three", count=2)
    + "</puzzleset>\n"
)
_NON_PUZZLE = "title \"{t}\"\nwidth 2\nheight {h}\nrows\n2\n2\ncolumns\n2\n2\n"
_NON_BAD = (
    _NON_PUZZLE.format(t="one", h=2) + "====\n"  # lines 1-10
    + _NON_PUZZLE.format(t="two", h="x") + "====\n"  # lines 11-20: height x on line 13
    + _NON_PUZZLE.format(t="three", h=2)
)
_TATHAM_BAD = "2x2:2/2/2/2\n2x2:3/1/1/1\n\n2x2:1/1/1/1\n"


def _json_bad() -> tuple[str, int]:
    """A JSON list whose second puzzle's size contradicts its clues, and that one's line."""
    import json

    from nonoforge.formats.json import to_dict

    docs = [to_dict(Puzzle.from_grid(Grid.from_rows(r), meta=Meta(title=t)))
            for t, r in (("one", ["##", "##"]), ("two", ["#.", ".#"]), ("three", [".#", "#."]))]
    docs[1]["width"] = 9
    text = json.dumps(docs, indent=1) + "\n"
    starts = [i for i, line in enumerate(text.splitlines(), start=1) if line == " {"]
    return text, starts[1]


_JSON_BAD, _JSON_BAD_LINE = _json_bad()

MULTI_BAD = {  # format: (content, the bad puzzle's line, the good puzzles' titles)
    "tournament": (_TOURNAMENT_BAD, 13, ["1", "3"]),
    "xml": (_XML_BAD, 24, ["one", "three"]),
    "non": (_NON_BAD, 13, ["one", "three"]),
    "tatham": (_TATHAM_BAD, 2, None),
    "json": (_JSON_BAD, _JSON_BAD_LINE, ["one", "three"]),
}


def _names(ps: list[Puzzle]) -> list[str | None]:
    return [p.meta.title or p.meta.source_id for p in ps]


@pytest.mark.parametrize("name", sorted(MULTI_BAD))
def test_a_bad_puzzle_in_a_multi_file_costs_only_itself(name: str) -> None:
    text, line, names = MULTI_BAD[name]
    reading = loads(text.encode(), name, path="set.txt", on_error="collect")
    got = list(reading)
    assert len(got) == 2
    if names is not None:
        assert _names(got) == names
    [err] = reading.errors
    assert (err.path, err.line) == ("set.txt", line), str(err)
    assert str(err).startswith(f"set.txt:{line}: ")


@pytest.mark.parametrize("name", sorted(MULTI_BAD))
def test_records_come_in_file_order_with_the_bad_one_in_its_place(name: str) -> None:
    text, line, _ = MULTI_BAD[name]
    kinds = ["error" if isinstance(r, FormatError) else "puzzle"
             for r in loads(text.encode(), name, on_error="collect").records()]
    assert kinds == ["puzzle", "error", "puzzle"]


@pytest.mark.parametrize("name", sorted(MULTI_BAD))
def test_without_collect_the_first_bad_puzzle_still_stops_the_file(name: str) -> None:
    text, line, _ = MULTI_BAD[name]
    with pytest.raises(FormatError) as info:
        list(loads(text.encode(), name, path="set.txt"))
    assert info.value.line == line


def test_a_bad_tournament_header_costs_only_its_block() -> None:
    text = _TOURNAMENT_BAD.replace("$2\n", "$two\n")
    reading = loads(text.encode(), "tournament", on_error="collect")
    assert _names(list(reading)) == ["1", "3"]
    assert [e.line for e in reading.errors] == [8]


def test_a_file_where_nothing_could_be_read_stays_one_failure() -> None:
    reading = loads(b"2x2:3/1/1/1\n2x2:9/9/9/9\n", "tatham", path="t.txt", on_error="collect")
    with pytest.raises(FormatError) as info:
        list(reading)
    assert (info.value.path, info.value.line) == ("t.txt", 1)


def test_broken_json_syntax_stays_one_failure_for_the_file() -> None:
    """Past a syntax error nothing of a JSON file can be trusted: the file fails whole."""
    text = _JSON_BAD.replace('"width": 9', '"width": 2')
    cut = text[: text.rindex("{")] + "{ oops"
    with pytest.raises(FormatError, match="invalid JSON") as info:
        list(loads(cut.encode(), "json", on_error="collect"))
    assert info.value.line == cut.count("\n") + 1


def test_a_json_list_reads_like_json_loads_reads_it() -> None:
    """Reading a list element by element (to keep each one's line) checks the syntax as
    json.loads does."""
    text = _JSON_BAD.replace('"width": 9', '"width": 2')
    assert _names(list(loads(text.encode(), "json"))) == ["one", "two", "three"]
    for bad in ("[", "[1,]", "[] x", '[{"a": 1} {"b": 2}]', "[1 2]", "", "[1,\n]"):
        with pytest.raises(FormatError, match="invalid JSON"):
            list(loads(bad.encode(), "json"))
    assert list(loads(b" [ ] ", "json")) == []


def test_a_malformed_xml_puzzle_element_costs_only_that_puzzle() -> None:
    """Errors met while the document is parsed (a <clues> of no known type, a second one,
    a nameless <color>) spoil only their <puzzle>; broken XML still fails the file."""
    good = _XML_BAD.replace("<count>x</count>", "<count>2</count>")
    for old, new in (('<clues type="rows">', '<clues type="diagonal">'),
                     ('<clues type="rows">', '<clues type="columns">'),
                     ('<color name="white"', '<color name=""')):
        at = good.index(old, good.index("<title>two</title>"))
        text = good[:at] + new + good[at + len(old):]
        reading = loads(text.encode(), "xml", on_error="collect")
        assert _names(list(reading)) == ["one", "three"]
        [err] = reading.errors
        assert err.line == text.count("\n", 0, at) + 1, (new, err)
    with pytest.raises(FormatError, match="malformed XML"):
        list(loads(good.replace("</puzzle>", "</puzle>", 2).encode(), "xml", on_error="collect"))


def test_every_bad_json_element_keeps_the_line_it_starts_on() -> None:
    """Lines are counted on from element to element (never again from the file's start: a
    list of many bad elements stays linear, bench/items.py): the first, a middle and the
    last element each report their own line, in a CRLF file too."""
    good = _JSON_BAD.replace('"width": 9', '"width": 2')
    first = good.index("\n {") + 1
    third = good.rindex("\n {") + 1
    text = (good[:first] + ' {"format": "x"},\n' + good[first:third]
            + ' {"format": "y"},\n' + good[third:].replace('"nonoforge"', '"z"', 1))
    for eol in ("\n", "\r\n"):
        doc = text.replace("\n", eol)
        starts = [i for i, s in enumerate(doc.split(eol), start=1) if s.startswith(" {")]
        reading = loads(doc.encode(), "json", path="p.json", on_error="collect")
        kinds = [r.line if isinstance(r, FormatError) else "puzzle" for r in reading.records()]
        assert kinds == [starts[0], "puzzle", "puzzle", starts[3], starts[4]], eol


def test_a_file_that_opens_with_nothing_but_malformed_records_is_given_up_early() -> None:
    """Errors are held until a puzzle is read (a file where nothing can be read is one
    failure); past MAX_ERRORS_BEFORE_A_PUZZLE of them the file is not one of this format's
    (a 1 MiB file of bad Tatham IDs held 131k errors, 78 MiB, to raise only the first):
    it fails then, with its first error. Fewer, then a puzzle, are each reported."""
    from nonoforge.formats import MAX_ERRORS_BEFORE_A_PUZZLE as cap

    bad, good = "2x2:3/1/1/1\n", "2x2:2/2/2/2\n"
    few = loads(bad * (cap - 1) + good, "tatham", path="t", on_error="collect")
    assert [isinstance(r, FormatError) for r in few.records()] == [True] * (cap - 1) + [False]
    many = loads(bad * cap + good, "tatham", path="t", on_error="collect")
    with pytest.raises(FormatError) as info:
        list(many.records())
    assert (info.value.line, many.errors) == (1, [])


def test_a_reading_keeps_a_bounded_list_of_errors_and_counts_them_all() -> None:
    """Batches take each error from :meth:`Reading.records` in its place; :attr:`errors`
    keeps only the first MAX_KEPT_ERRORS (holding all of a big damaged file's cost ~80
    bytes of memory a byte of input) and :attr:`error_count` counts them all."""
    from nonoforge.formats import MAX_KEPT_ERRORS as cap

    reading = loads("2x2:2/2/2/2\n" + "2x2:3/1/1/1\n" * (cap + 5), "tatham",
                    on_error="collect")
    records = list(reading.records())
    assert sum(isinstance(r, FormatError) for r in records) == cap + 5
    assert (len(reading.errors), reading.error_count) == (cap, cap + 5)
    assert [e.line for e in reading.errors] == list(range(2, cap + 2))


# -- reading large files as a stream (issue 38) ---------------------------------------------

_LINE_PIECES = ["a", " 1\t2", "", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85",
                "\u2028", "é"]


@given(st.lists(st.lists(st.sampled_from(_LINE_PIECES), max_size=6).map("".join),
                max_size=8))
def test_split_lines_of_chunks_are_the_lines_of_the_joined_text(chunks: list[str]) -> None:
    """However the text is cut into chunks (a "\\r" at the end of one and "\\n" at the
    start of the next included), the stream gives the lines splitlines gives, numbered."""
    from nonoforge.formats.base import split_lines

    text = "".join(chunks)
    assert list(split_lines(chunks)) == list(enumerate(text.splitlines(), start=1))


def test_numbered_lines_of_long_text_are_the_lines_splitlines_gives() -> None:
    """Text longer than SPLIT_CHARS is split a chunk at a time, with the same lines."""
    from nonoforge.formats.base import SPLIT_CHARS, numbered_lines

    text = ("12\t3\r\n" * 7 + "$9\r" + "\x0c\n") * (SPLIT_CHARS // 40)
    assert len(text) > SPLIT_CHARS
    assert list(numbered_lines(text)) == list(enumerate(text.splitlines(), start=1))


_ENCODED = st.one_of(
    st.text(alphabet=st.sampled_from("ab1 \n\r\x0c\x85é©€\u2028"), max_size=40)
    .map(lambda t: t.encode("utf-8")),
    st.binary(max_size=40),  # cp1252 and Latin-1 (0x81, 0x8d... undefined in cp1252)
    st.text(max_size=20).map(lambda t: "\ufeff".encode("utf-8") + t.encode("utf-8")),
    st.text(max_size=20).map(lambda t: t.encode("utf-16")),  # with its byte-order mark
    st.text(alphabet=st.sampled_from("aé\n"), max_size=20).map(
        lambda t: b'<?xml version="1.0" encoding="iso-8859-15"?>\n'
        + t.encode("iso-8859-15")),
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150)
@given(_ENCODED, st.integers(1, 9))
def test_a_text_file_streams_the_lines_of_its_decoded_text(
    tmp_path: Path, data: bytes, chunk: int
) -> None:
    """TextFile decodes as decode_text decodes the whole file (byte-order marks, an XML
    declaration, UTF-8, else cp1252, else Latin-1) and splits as splitlines, read a few
    bytes at a time (multi-byte characters and "\\r\\n" cut between chunks)."""
    from nonoforge.formats.base import TextFile, decode_text

    f = tmp_path / "x.txt"
    f.write_bytes(data)
    with TextFile(f, chunk=chunk) as text:
        got = list(text.lines())
    assert got == list(enumerate(decode_text(data).splitlines(), start=1))


def test_a_text_file_refuses_what_read_regular_refuses(tmp_path: Path) -> None:
    from nonoforge.formats.base import TextFile

    with pytest.raises(FormatError, match="no such file"):
        TextFile(tmp_path / "absent.non")
    with pytest.raises(FormatError, match="directory"):
        TextFile(tmp_path)
    f = tmp_path / "x.non"
    f.write_bytes(b"width 1\n" * 10)
    with pytest.raises(FormatError, match="larger than"):
        TextFile(f, cap=20)


def _renumbered_sets(n: int) -> tuple[str, str]:
    """``n`` copies of the first shared tournament set and its solutions, numbered afresh
    (a question file over STREAM_BYTES from ``n = 2``)."""
    import re

    q = shared_path("corpora", "tournament", "question")
    name = sorted(p.name for p in q.glob("*.txt"))[0]
    qtext = (q / name).read_text()
    stext = (q.parent / "solution" / name).read_text()
    qs, ss = [], []
    for k in range(n):
        def renumber(m: re.Match[str], k: int = k) -> str:
            return f"${int(m.group(1)) + 10000 * k}"

        qs.append(re.sub(r"(?m)^\$(\d+)", renumber, qtext))
        ss.append(re.sub(r"(?m)^\$(\d+)", renumber, stext))
    return "".join(qs), "".join(ss)


@pytest.mark.slow
def test_a_large_tournament_set_is_streamed_with_its_solutions(tmp_path: Path) -> None:
    """A question file over STREAM_BYTES is read from the file a chunk at a time, with its
    solution file (streamed too): the same puzzles, goals included, as reading the whole
    content; a damaged block still costs only itself."""
    from nonoforge.formats import iter_file
    from nonoforge.formats.base import STREAM_BYTES

    qtext, stext = _renumbered_sets(2)
    (tmp_path / "question").mkdir()
    (tmp_path / "solution").mkdir()
    qtext = qtext.replace("\n$5\n", "\n$5x\n", 1)  # one damaged header
    q = tmp_path / "question" / "big.txt"
    q.write_text(qtext)
    (tmp_path / "solution" / "big.txt").write_text(stext)
    assert q.stat().st_size > STREAM_BYTES
    streamed = list(iter_file(q, on_error="collect").records())
    whole = list(loads(q.read_bytes(), path=str(q), companions=True,
                       on_error="collect").records())
    assert [str(r) if isinstance(r, FormatError) else r for r in streamed] == [
        str(r) if isinstance(r, FormatError) else r for r in whole]
    assert sum(isinstance(r, Puzzle) and r.goal is not None for r in streamed) == 1999
    assert [str(r) for r in streamed if isinstance(r, FormatError)] == [
        f"{q}:{qtext[:qtext.index('$5x')].count(chr(10)) + 1}: expected a puzzle number "
        "like $12, got '$5x'"]


@pytest.mark.slow
def test_reading_a_large_bundle_holds_a_record_not_the_file(tmp_path: Path) -> None:
    """Memory while reading a 24 MB .non bundle stays a few MB (a chunk and a record),
    not a multiple of the file (it was twice the file, bytes and text, at decoding):
    measured by tracemalloc, every allocation of the reading counted."""
    import tracemalloc

    from nonoforge.formats import iter_file

    one = str(dumps(tournament.read_with_solutions(
        shared_path("corpora", "tournament", "question", "icga2016.txt"))[:40], "non"))
    f = tmp_path / "big.non"
    with f.open("w") as out:
        for _ in range(24_000_000 // len(one) + 1):
            out.write(one + "\n====\n\n")
    size = f.stat().st_size
    list(loads(one, "non"))  # what reading imports on first use is not what it holds
    tracemalloc.start()
    try:
        n = 0
        for p in iter_file(f):
            n += 1
            last = p
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n == 40 * (24_000_000 // len(one) + 1)
    assert last.goal is not None
    assert size > 22 * 2**20
    assert peak < 8 * 2**20, f"peak {peak / 2**20:.1f} MiB for a {size} byte file"
