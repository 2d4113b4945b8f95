"""nonograms.ru / .org: the var d decoder and encoder, page parsing, hostile pages, the site."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sitefixtures import (
    Reply,
    SiteServer,
    nonograms_deleted_page,
    nonograms_page,
    offline,  # noqa: F401 - a fixture, used by pytestmark
)

from nonoforge.errors import FormatError
from nonoforge.puzzle import Palette
from nonoforge.scraper.http import Http
from nonoforge.scraper.nonograms import (
    MAX_SIDE,
    Nonograms,
    PageMissing,
    decode,
    decode_html,
    encode,
    format_d,
    palette_of,
    parse_page,
    read_page,
    runs_of,
)

PAGES = Path(__file__).parent / "data" / "nonograms"

RED, GREEN, BLUE = (200, 30, 40), (20, 160, 60), (10, 20, 230)
HEART = np.array(
    [
        [0, 1, 1, 0, 1, 1, 0],
        [1, 1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 1],
        [0, 1, 1, 1, 1, 1, 0],
        [0, 0, 1, 1, 1, 0, 0],
        [0, 0, 0, 1, 0, 0, 0],
    ]
)
FLAG = np.array([[1, 1, 2, 2, 3], [1, 0, 2, 0, 3], [1, 1, 2, 2, 3], [0, 3, 3, 3, 0]])

pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture
def site() -> Iterator[SiteServer]:
    with SiteServer() as s:
        yield s


def client() -> Http:
    return Http(rate=1000, read_timeout=1.0, retries=2, backoff=0.01)


# -- the var d scheme ------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    h=st.integers(1, 25),
    w=st.integers(1, 25),
    ncolors=st.integers(1, 8),
    seed=st.integers(0, 2**31),
)
def test_decode_inverts_encode(h: int, w: int, ncolors: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    grid = rng.integers(0, ncolors + 1, size=(h, w))
    colors = [tuple(int(v) for v in rng.integers(0, 256, 3)) for _ in range(ncolors)]
    dec = decode(encode(grid, colors, seed=seed))
    assert np.array_equal(dec.grid, grid)
    assert list(dec.colors) == colors


def test_decode_follows_the_documented_scheme_by_hand() -> None:
    # width: 7%10 + 5%10 - 2%10 = 10; height 3%4 + 0 - 0 = 3; one colour
    d = [
        [9, 9, 9, 9],
        [17, 5, 2, 10],
        [3, 4, 4, 4],
        [1, 0, 0, 5],
        [10, 20, 30, 40],  # colour key K
        [20, 10, 40, 50],  # red = 20-20, green = 10-10, blue = 40-40 -> black
        [1, 0, 1, 3],  # N = 1 + 0 + 1 = 2 runs
        [100, 200, 300, 400],  # run key J
        [101, 210, 301, 401],  # column 0, length 10, colour 1, row 0
        [105, 202, 301, 403],  # column 4, length 2, colour 1, row 2
        [7, 7, 7, 7],  # trailing, ignored
    ]
    dec = decode(d)
    assert dec.colors == ((0, 0, 0),)
    assert dec.grid.tolist() == [[1] * 10, [0] * 10, [0, 0, 0, 0, 1, 1, 0, 0, 0, 0]]


def test_runs_are_row_major_and_maximal() -> None:
    assert runs_of(np.array([[1, 1, 2, 0, 2], [0, 0, 0, 0, 3]])) == [
        (0, 0, 2, 1), (0, 2, 1, 2), (0, 4, 1, 2), (1, 4, 1, 3),
    ]  # fmt: skip


def _valid() -> list[list[int]]:
    return encode(HEART, [(0, 0, 0)], seed=3)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.__setitem__(1, [10**9, 0, 0, 10**9 + 1]), "absurd size"),
        (lambda d: d.__setitem__(2, [0, 0, 0, 0]), "modulus"),
        (lambda d: d.__setitem__(3, [500, 0, 0, 1000]), "absurd colour count"),
        (lambda d: d.__setitem__(5, [10**6, 0, 0, 0]), "not an RGB colour"),
        (lambda d: d.__setitem__(6, [10**6, 0, 0, 10**6 + 1]), "cannot fit"),
        (lambda d: d.__setitem__(8, [d[7][0] + 1, d[7][1] + 10**9, d[7][2] + 1, d[7][3] + 1]),
         "outside"),
        (lambda d: d.__setitem__(8, [d[7][0] + 1, d[7][1] + 1, d[7][2] + 9, d[7][3] + 1]),
         "colour 9"),
        (lambda d: d.__setitem__(8, [d[7][0] + 1, d[7][1] + 1, d[7][2] + 1, d[7][3] + 99]),
         "outside"),
        (lambda d: d.__delitem__(slice(10, None)), "has only"),
        (lambda d: d.__setitem__(4, [1, 2, 3]), "not 4"),
        (lambda d: d.__setitem__(4, [1, 2, -3, 4]), "non-negative"),
    ],
)
def test_hostile_arrays_fail_with_a_reason(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    d = _valid()
    mutate(d)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match=message):
            decode(d)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MAX_SIDE * MAX_SIDE + 2**20  # nothing big was allocated


def test_palette_of() -> None:
    assert palette_of([(0, 0, 0)]) == Palette.bw()
    p = palette_of([RED, RED, (0, 0, 0)])
    assert [c.name for c in p] == ["white", "c81e28", "c81e28-2", "000000"]
    assert p[1].rgb == RED


# -- pages ------------------------------------------------------------------------------


def test_page_gives_puzzle_metadata_and_a_trimmed_copy() -> None:
    html = nonograms_page(FLAG, [RED, GREEN, BLUE], title="Flag & co", author="Ann",
                          difficulty="3 of 5", seed=9)
    p, trimmed, _ = read_page(html, site="nonograms.ru", item="42")
    assert np.array_equal(p.goal.cells, FLAG)  # type: ignore[union-attr]
    assert [c.rgb for c in p.palette] == [(255, 255, 255), RED, GREEN, BLUE]
    assert (p.meta.title, p.meta.author, p.meta.source, p.meta.source_id) == (
        "Flag & co", "Ann", "nonograms.ru", "42",
    )
    assert "personal use" in (p.meta.licence or "") and "3 of 5" in (p.meta.note or "")
    assert len(trimmed) < len(html)
    again, _, _ = read_page(trimmed, site="nonograms.ru", item="42")
    assert again == p


def test_page_info_fields() -> None:
    _, info, _ = parse_page(nonograms_page(HEART, [(0, 0, 0)], title="  Heart\n  ", author="Bo"))
    assert (info.title, info.author, info.size) == ("Heart", "Bo", (7, 6))
    assert (info.difficulty, info.rating, info.date) == ("3/10", "6/10", "2022-12-22")
    assert info.author_id == "177539" and info.adult is False


# The hand-written pages in tests/data/nonograms follow a real nonograms.org page's
# structure (issue 12; the pages themselves are the site's and are not copied here): a
# BOM, one information row of label-and-value cells, an outer layout table and a menu
# that also say "Author", "Size" and "Difficulty" (the menu even has an exact
# "Size: 10x10" filter cell, outside div.content), the comment form's <select>, a var d
# with surplus rows, the statistics and answer links; a colour page; a Russian page
# (labels in Russian, a Cyrillic "х" in the size, a four-digit year, an adult marker);
# a deleted page (200, red notice, no var d).

ORG = "https://www.nonograms.org/nonograms/i/41234"


def _page(name: str) -> bytes:
    return (PAGES / name).read_bytes()


def test_real_layout_black_and_white_page() -> None:
    data = _page("org-bw-swan.html")
    assert data.startswith(b"\xef\xbb\xbf")  # the BOM is part of the test
    p, trimmed, info = read_page(data, site="nonograms.org", item="41234", url=ORG)
    assert (p.width, p.height, p.is_bw) == (15, 15, True)
    assert p.goal is not None and int(p.goal.cells.sum()) > 0  # the designer's picture
    assert (info.title, info.author, info.author_id) == ("Swan on a lake", "L1nnea", "177539")
    # the comment form's "Very simple..." and the layout table's "Author" are not read
    assert (info.difficulty, info.rating, info.date) == ("3/10", "6/10", "2022-12-22")
    assert info.stat_url == "https://www.nonograms.org/files/nonograms/stat/en/41234.png"
    assert info.answer_url and info.answer_url.endswith("swan_1_1p.png")
    assert info.adult is False and info.color is False
    assert p.meta.note == "nonograms.org difficulty: 3/10"
    assert info.extra() == {
        "difficulty": "3/10", "rating": "6/10", "added": "2022-12-22", "author": "L1nnea",
        "author_id": "177539", "stat_url": info.stat_url, "answer_url": info.answer_url,
        "adult": False,
    }
    # surplus var d rows: 64 rows in the array, far fewer used; the page still parses
    d, _, _ = parse_page(data)
    assert len(d) == 64
    # the trimmed copy parses again to the same puzzle and the same fields
    again, _, info2 = read_page(trimmed, site="nonograms.org", item="41234", url=ORG)
    assert again == p and info2 == info
    assert "Very simple" not in trimmed and len(trimmed) < len(data) / 2


def test_real_layout_colour_page() -> None:
    p, _, info = read_page(_page("org-color-flag.html"), site="nonograms.org", item="20877",
                           url="https://www.nonograms.org/nonograms2/i/20877")
    assert (p.width, p.height, p.ncolors) == (8, 6, 3) and info.color is True
    assert [c.rgb for c in p.palette][1:] == [(200, 30, 40), (20, 160, 60), (30, 60, 200)]
    assert (info.title, info.author, info.author_id) == ("Flag & stripes", "Kåre Ødegård", "9031")
    assert (info.difficulty, info.rating, info.date) == ("2/10", "8/10", "2021-07-03")


def test_real_layout_russian_page() -> None:
    p, _, info = read_page(_page("ru-bw-adult-heart.html"), site="nonograms.ru", item="7",
                           url="https://www.nonograms.ru/nonograms/i/7")
    assert (p.width, p.height) == (7, 6) and info.size == (7, 6)  # "7х6", Cyrillic х
    assert (info.title, info.author, info.author_id) == ("Сердечко", "Валентина", "4411")
    assert (info.difficulty, info.rating, info.date) == ("1/10", "5/10", "2019-02-14")
    assert info.adult is True
    assert info.stat_url == "https://www.nonograms.ru/files/nonograms/stat/ru/7.png"


def test_deleted_page_is_missing_not_failed() -> None:
    with pytest.raises(PageMissing, match="deleted by its author"):
        parse_page(_page("org-deleted.html"))


def test_score_from_alt_when_the_image_has_no_title() -> None:
    page = nonograms_page(HEART, [(0, 0, 0)]).replace('title="3/10"', 'alt="3/10"')
    assert parse_page(page)[1].difficulty == "3/10"


@pytest.mark.parametrize("charset", ["undefined", "idna", "rot13", "x-unknown"])
def test_a_bogus_charset_falls_back_to_utf8(charset: str) -> None:
    page = nonograms_page(HEART, [(0, 0, 0)], title="Сердце").replace(
        'charset="utf-8"', f'charset="{charset}"').encode()
    assert parse_page(page, encoding=charset)[1].title == "Сердце"


def test_page_bytes_are_decoded_by_the_one_text_decoder() -> None:
    """A BOM first, then the server's charset, then ``<meta charset>``, then UTF-8; a name
    that is no text encoding is passed over (formats.base.decode_as judges every name)."""
    heart = "Сердце".encode("cp1251")
    page = b'<meta charset="windows-1251"><title>' + heart + b"</title>"
    assert decode_html(page) == decode_html(page, "rot13") == page.decode("cp1251")
    assert decode_html(page, "koi8-r") == page.decode("koi8-r")  # the server wins
    assert decode_html(b"\xef\xbb\xbf" + "Сердце".encode(), "cp1251") == "Сердце"
    assert decode_html(b'<meta charset="utf-7">+ADw-', "undefined") == '<meta charset="utf-7">+ADw-'
    assert decode_html(b"caf\xe9") == "caf\ufffd"


def test_size_split_over_elements_and_a_red_background_is_no_notice() -> None:
    page = nonograms_page(HEART, [(0, 0, 0)]).replace("<td>Size: 7x6</td>",
                                                      "<td>Size: 7<span>x</span>6</td>")
    assert parse_page(page)[1].size == (7, 6)
    odd = "<html><body><div style='background-color:red'>ad</div><p>no puzzle</p></body></html>"
    with pytest.raises(FormatError, match="no `var d`") as e:
        parse_page(odd)
    assert not isinstance(e.value, PageMissing)


def test_labels_read_by_position_when_unknown() -> None:
    page = nonograms_page(HEART, [(0, 0, 0)]).replace("Picture:", "Bild:").replace(
        "Difficulty:<img", "Schwierigkeit:<img")
    _, info, _ = parse_page(page)
    assert (info.rating, info.difficulty) == ("6/10", "3/10")


def test_russian_fixture_builder_and_size_check() -> None:
    page = nonograms_page(HEART, [(0, 0, 0)], lang="ru", adult=True, added="01.02.2015")
    p, info = read_page(page, site="nonograms.ru", item="3")[::2]
    assert info.adult and info.date == "2015-02-01" and p.goal is not None
    with pytest.raises(FormatError, match="page says 6x7"):
        read_page(nonograms_page(HEART, [(0, 0, 0)], lang="ru", size="6х7"),
                  site="nonograms.ru", item="3")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"d_line": "var x=1;"}, "no `var d`"),
        ({"d_line": "var d=[[1,2,3,-4],[5,6,7,8]];"}, "non-negative"),
        ({"d_line": "var d=[[1,2,3,4]]; var d=[[1,2,3,4]];"}, "more than one"),
        ({"d_line": "var d=alert(document.cookie);"}, "not an array"),
        ({"d_line": "var d=[[1,2,3,4],[1,2,3]];"}, "not an array"),
        ({"raw_title": "Cat<script>var d=[[1,1,1,1]];alert(1)</script>"}, "markup"),
        ({"raw_title": "<img src=x onerror=alert(1)>"}, "markup"),
        ({"size": "8x6"}, "page says 8x6"),
        ({"size": "1000000000x1000000000"}, "page says"),
        ({"size": "huge"}, "stated size"),
    ],
)
def test_hostile_or_broken_pages_fail_with_a_reason(kwargs: dict[str, str], message: str) -> None:
    html = nonograms_page(HEART, [(0, 0, 0)], **kwargs)
    with pytest.raises(FormatError, match=message):
        read_page(html, site="nonograms.ru", item="1")


def test_absurd_var_d_in_a_page_is_refused_without_allocating() -> None:
    d = _valid()
    d[1] = [10**9, 0, 0, 10**9 + 1]
    d[2] = [10**9, 0, 0, 10**9 + 1]
    html = nonograms_page(HEART, [(0, 0, 0)], d_line=format_d(d), size="1000000000x1000000000")
    with pytest.raises(FormatError, match="absurd size"):
        read_page(html, site="nonograms.ru", item="1")


def test_var_d_outside_a_script_is_not_read() -> None:
    html = "<html><body><p>var d=[[1,2,3,4]];</p></body></html>"
    with pytest.raises(FormatError, match="no `var d`"):
        parse_page(html)


def test_escaped_markup_in_a_title_is_just_text() -> None:
    p, _, _ = read_page(
        nonograms_page(HEART, [(0, 0, 0)], title="<b>bold</b> & \x07bell"),
        site="nonograms.ru", item="1",
    )
    assert p.meta.title == "<b>bold</b> & bell"


# -- the site ---------------------------------------------------------------------------


def test_bw_then_colour_then_missing(site: SiteServer) -> None:
    site.page("/nonograms/i/1", nonograms_page(HEART, [(0, 0, 0)], title="Heart", seed=1))
    site.page("/nonograms2/i/2", nonograms_page(FLAG, [RED, GREEN, BLUE], title="Flag", seed=2))
    with client() as http:
        nono = Nonograms(http, site.url)
        bw, colour, gone = nono.fetch(1), nono.fetch(2), nono.fetch(3)
    assert bw.status == "done" and bw.puzzle is not None and bw.puzzle.is_bw
    assert np.array_equal(bw.puzzle.goal.cells, HEART)  # type: ignore[union-attr]
    assert colour.status == "done" and colour.puzzle is not None
    assert colour.puzzle.ncolors == 3 and colour.url and "/nonograms2/" in colour.url
    assert gone.status == "missing"
    assert [h.path for h in site.hits() if h.path != "/robots.txt"] == [
        "/nonograms/i/1", "/nonograms/i/2", "/nonograms2/i/2", "/nonograms/i/3",
        "/nonograms2/i/3",
    ]  # fmt: skip


def test_site_failures_are_recorded_not_raised(site: SiteServer) -> None:
    site.page("/nonograms/i/1", "<html><body>maintenance</body></html>")
    site.page("/nonograms/i/2", nonograms_page(HEART, [(0, 0, 0)], raw_title="<script>x</script>"))
    site.page("/nonograms/i/3", "forbidden", status=403)
    site.add("/nonograms/i/4", Reply(500, "x"), Reply(200, nonograms_page(HEART, [(0, 0, 0)])))
    with client() as http:
        nono = Nonograms(http, site.url)
        f1, f2, f3, f4 = (nono.fetch(i) for i in (1, 2, 3, 4))
    assert f1.status == "failed" and "no `var d`" in (f1.reason or "")
    assert f2.status == "failed" and "markup" in (f2.reason or "")
    assert f3.status == "failed" and "HTTP 403" in (f3.reason or "")
    assert f4.status == "done"


def test_page_encodings(site: SiteServer) -> None:
    page = nonograms_page(HEART, [(0, 0, 0)], title="Сердце", author="Автор")
    cp1251 = page.replace('charset="utf-8"', 'charset="windows-1251"').encode("cp1251")
    site.page("/nonograms/i/1", cp1251)  # no charset in the headers: the page's <meta> says
    site.page("/nonograms/i/2", page.replace('charset="utf-8"', "").encode("cp1251"),
              **{"Content-Type": "text/html; charset=windows-1251"})
    site.page("/nonograms/i/3", page.replace('charset="utf-8"', "").encode())  # UTF-8 default
    with client() as http:
        nono = Nonograms(http, site.url)
        got = [nono.fetch(i).puzzle for i in (1, 2, 3)]
    assert [(p.meta.title, p.meta.author) for p in got if p] == [("Сердце", "Автор")] * 3


def test_deleted_page_and_site_fields(site: SiteServer) -> None:
    site.page("/nonograms/i/1", nonograms_deleted_page())
    site.page("/nonograms/i/2", nonograms_page(HEART, [(0, 0, 0)], title="Heart", seed=2))
    with client() as http:
        nono = Nonograms(http, site.url)
        gone, ok = nono.fetch(1), nono.fetch(2)
    assert gone.status == "missing" and "deleted" in (gone.reason or "")
    assert [h.path for h in site.hits() if h.path.startswith("/nonograms2/")] == []
    assert ok.status == "done" and ok.extra["difficulty"] == "3/10"
    assert ok.extra["stat_url"] == site.url + "/files/nonograms/stat/en/1.png"


def test_base_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NONOFORGE_NONOGRAMS_URL", "http://mirror.example/")
    with client() as http:
        n = Nonograms(http)
        assert n.urls(5)[0] == "http://mirror.example/nonograms/i/5" and n.name == "nonograms.ru"
        assert Nonograms(http, "https://www.nonograms.org").name == "nonograms.org"
