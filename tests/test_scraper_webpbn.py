"""webpbn: XMLpuz.cgi and export.cgi against a local server that answers like the site."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs

import numpy as np
import pytest
from conftest import shared_path
from sitefixtures import (
    Reply,
    SiteServer,
    offline,  # noqa: F401 - a fixture, used by pytestmark
    webpbn_xml,
)

from nonoforge.puzzle import Grid, Meta, Palette, Puzzle
from nonoforge.scraper.http import Http
from nonoforge.scraper.webpbn import LICENCE, Webpbn

DANCER = Puzzle.from_grid(
    Grid.from_rows(["..#..", ".###.", "#.#.#", "..#..", ".#.#.", ".#.#."]),
    meta=Meta(title="Dancer", author="Jan Wolter", copyright="(c) 2004 Jan Wolter"),
)
COLOUR = Puzzle.from_grid(
    Grid([[1, 1, 2, 0], [0, 2, 2, 3], [3, 3, 0, 1]]),
    Palette.of(("white", "#ffffff"), ("black", "#000000"), ("red", "#ff0000"),
               ("blue", "#0000ff")),
    Meta(title="Tricolour", author="Someone"),
)

pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture
def site() -> Iterator[SiteServer]:
    with SiteServer() as s:
        yield s


def client() -> Http:
    return Http(rate=1000, read_timeout=1.0, retries=2, backoff=0.01)


def test_bw_and_colour_puzzles_arrive_intact(site: SiteServer) -> None:
    site.page("/XMLpuz.cgi?id=1", webpbn_xml(DANCER, 1), **{"Content-Type": "text/xml"})
    site.page("/XMLpuz.cgi?id=2", webpbn_xml(COLOUR, 2))
    with client() as http:
        web = Webpbn(http, site.url)
        bw, colour = web.fetch(1), web.fetch(2)
    assert bw.status == "done" and bw.puzzle is not None
    assert bw.puzzle.key == DANCER.key and bw.puzzle.goal == DANCER.goal
    m = bw.puzzle.meta
    assert (m.title, m.author, m.copyright) == ("Dancer", "Jan Wolter", "(c) 2004 Jan Wolter")
    assert (m.source, m.source_id, m.licence) == ("webpbn", "1", LICENCE)
    assert bw.raw is not None and b"<puzzleset>" in bw.raw
    assert colour.puzzle is not None and colour.puzzle.key == COLOUR.key
    assert colour.puzzle.goal == COLOUR.goal
    assert [c.rgb for c in colour.puzzle.palette][1:] == [c.rgb for c in COLOUR.palette][1:]


def test_export_endpoint_posts_the_form(site: SiteServer) -> None:
    def export(method: str, path: str, body: str) -> Reply:
        form = parse_qs(body)
        assert form["fmt"] == ["xml"] and form["go"] == ["1"] and form["xml_soln"] == ["on"]
        return Reply(200, webpbn_xml(COLOUR, int(form["id"][0])))

    site.handle("/export.cgi", export, method="POST")
    with client() as http:
        f = Webpbn(http, site.url, method="export").fetch(7)
    assert f.status == "done" and f.puzzle is not None and f.puzzle.key == COLOUR.key
    assert f.puzzle.meta.source_id == "7"


def test_missing_ids(site: SiteServer) -> None:
    # webpbn answers a missing id with a document that is not a puzzle
    site.page("/XMLpuz.cgi?id=5", "Puzzle 5 does not exist\n")
    site.page("/XMLpuz.cgi?id=6", '<?xml version="1.0"?>\n<puzzleset></puzzleset>\n')
    with client() as http:
        web = Webpbn(http, site.url)
        assert [web.fetch(i).status for i in (5, 6, 404)] == ["missing"] * 3


def test_broken_answers_are_failures_with_reasons(site: SiteServer) -> None:
    bomb = ('<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY a "aaaaaaaa">'
            '<!ENTITY b "&a;&a;&a;&a;&a;&a;">]>\n<puzzleset><puzzle>&b;</puzzle></puzzleset>')
    site.page("/XMLpuz.cgi?id=1", "<puzzleset><puzzle type='grid'><clues type='rows'>")
    site.page("/XMLpuz.cgi?id=2", bomb)
    site.page("/XMLpuz.cgi?id=3", "nope", status=403)
    site.add("/XMLpuz.cgi?id=4", Reply(503, "busy"))
    with client() as http:
        web = Webpbn(http, site.url)
        results = [web.fetch(i) for i in (1, 2, 3, 4)]
    assert [r.status for r in results] == ["failed"] * 4
    assert all(r.reason for r in results)
    assert "HTTP 403" in (results[2].reason or "") and "503" in (results[3].reason or "")


def test_500_then_success(site: SiteServer) -> None:
    site.add("/XMLpuz.cgi?id=1", Reply(500, "x"), Reply(200, webpbn_xml(DANCER, 1)))
    with client() as http:
        assert Webpbn(http, site.url).fetch(1).status == "done"


def test_the_real_export_sample_parses(site: SiteServer) -> None:
    sample = shared_path("samples", "formats", "xml", "webpbn-1-export.xml").read_bytes()
    site.page("/XMLpuz.cgi?id=1", sample)
    with client() as http:
        f = Webpbn(http, site.url).fetch(1)
    assert f.status == "done" and f.puzzle is not None
    assert f.puzzle.meta.title == "Demo Puzzle from Front Page"
    assert (f.puzzle.width, f.puzzle.height) == (5, 10)


def test_base_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NONOFORGE_WEBPBN_URL", "http://mirror.example/pbn/")
    with client() as http:
        assert Webpbn(http).url(3) == "http://mirror.example/pbn/XMLpuz.cgi?id=3"
        with pytest.raises(ValueError):
            Webpbn(http, method="csv")


def test_fixture_xml_builder_matches_the_reader() -> None:
    from nonoforge.formats import loads

    got = next(loads(webpbn_xml(COLOUR, 2), "xml"))
    assert got.key == COLOUR.key and np.array_equal(got.goal.cells, COLOUR.goal.cells)  # type: ignore[union-attr]
