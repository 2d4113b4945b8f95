"""Query filters (nonoforge/db/filters.py): size, colours, site, title and author words
and rating conditions, as keywords and as typed :class:`Filters`, on SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dbfixtures import corpus, mixed, puzzles, url

from nonoforge.db import Corpus
from nonoforge.db.filters import Filters, words
from nonoforge.formats import read_file
from nonoforge.puzzle import Meta, Puzzle

__all__ = ["corpus", "mixed", "url"]  # the corpus fixtures, from dbfixtures


def test_query_filters(mixed: tuple[Corpus, dict[str, list[Puzzle]]]) -> None:
    c, g = mixed

    def keys(ps: list[Puzzle]) -> list[str]:
        return [p.key for p in ps]

    everything = keys(g["small"] + g["wide"] + g["colour"] + g["big"])
    assert c.keys() == everything
    assert keys(list(c.query())) == everything
    assert c.keys(width=12) == keys(g["wide"])
    assert c.keys(height=25) == keys(g["big"])
    assert c.keys(min_size=8) == keys(g["colour"] + g["big"])
    assert c.keys(max_size=(12, 6)) == keys(g["small"] + g["wide"])
    assert c.keys(min_size=(7, 7), max_size=(20, 25)) == keys(g["colour"] + g["big"])
    assert c.keys(colors=2) == keys(g["colour"])
    assert c.keys(colors=(1, 1)) == keys(g["small"] + g["wide"] + g["big"])
    assert c.keys(colors=(2, None)) == keys(g["colour"])
    assert c.keys(source="a") == keys(g["small"] + g["colour"])
    assert c.keys(status="multiple") == keys(g["big"])
    assert c.keys(status="unique") == keys(g["small"] + g["wide"][:1])
    assert c.keys(status="unique", solver_version="s1") == keys(g["small"])
    assert c.keys(technique="probe") == keys(g["big"])
    assert c.keys(grade=(1, 2)) == keys(g["small"] + g["wide"][:1])
    assert c.keys(grade=(3, None), source="c") == keys(g["big"])
    assert c.keys(source="a", limit=3) == keys(g["small"][:3])
    assert keys(list(c.query(source="a", limit=3))) == keys(g["small"][:3])
    assert c.keys(source="nowhere") == []
    got = next(c.query(colors=2))
    assert got.meta.source == "a" and got.meta.title == "p0" and got.goal is not None
    info = c.info(keys(g["big"]))
    assert [(r["width"], r["height"], r["source"]) for r in info] == [(20, 25, "c")] * 2


def test_typed_filters_select_what_the_keywords_select(
    mixed: tuple[Corpus, dict[str, list[Puzzle]]],
) -> None:
    from nonoforge.db.filters import Filters
    from nonoforge.ranges import SizeSpan, Span

    c, _ = mixed
    for f, kw in (
        (Filters(size=SizeSpan.parse("8..")), {"min_size": 8}),
        (Filters(size=SizeSpan.parse("..12x6")), {"max_size": (12, 6)}),
        (Filters(size=SizeSpan.parse("7x7..20x25")), {"min_size": (7, 7), "max_size": (20, 25)}),
        (Filters(colors=Span.parse("2..")), {"colors": (2, None)}),
        (Filters(grade=Span.parse("1-2")), {"grade": (1, 2)}),
        (Filters(grade=Span.parse("3.."), source="c"), {"grade": (3, None), "source": "c"}),
        (Filters(source="a", limit=3), {"source": "a", "limit": 3}),
    ):
        assert c.keys(**f.query_kwargs()) == c.keys(**kw), f


def test_an_exact_size_selects_what_the_range_does(url: str) -> None:
    with Corpus.open(url) as c:
        c.add(puzzles(4, 49, size=(6, 5)) + puzzles(3, 50, size=(5, 6)) + puzzles(2, 51))
        got = c.keys(min_size=(6, 5), max_size=(6, 5))
        assert got == c.keys(min_size=(6, 5), max_size=(6, 6)) and len(got) == 6
        assert c.keys(colors=1) == c.keys(colors=(1, 1)) == c.keys()
        assert [r["key"] for r in c.listing(min_size=(6, 5), max_size=(6, 5), limit=4)] == got[:4]


# -- title and author words ----------------------------------------------------------

DATA = Path(__file__).parent / "data"
#: Titles and authors as sources write them: accents, capitals, SQL's wildcard characters.
NAMED = [("Étude in Black", "Zoë Ünal"), ("the 100% cat", "a_b"), ("Plain title", "Bob"),
         ("ÉTUDE two", "zoë ünal"), ("under_score", None)]


@pytest.fixture
def named(url: str) -> Iterator[Corpus]:
    """The corpus at ``url`` with webpbn's dancer and puzzles under :data:`NAMED`."""
    with Corpus.open(url) as c:
        dancer = read_file(DATA / "dancer.non")[0]  # webpbn #1: "Dancer" by Jan Wolter
        made = puzzles(len(NAMED), 11)
        c.add([dancer, *(p.with_meta(Meta(title=t, author=a, source="gen", source_id=str(i)))
                         for i, (p, (t, a)) in enumerate(zip(made, NAMED, strict=True)))])
        yield c


def titles(c: Corpus, **kw: str) -> list[str]:
    return [r["title"] for r in c.listing(**Filters(**kw).query_kwargs())]


def test_title_words_each_match_case_folded(named: Corpus) -> None:
    assert titles(named, title="DANCER") == ["Dancer"]
    assert titles(named, title="étude") == ["Étude in Black", "ÉTUDE two"]
    assert titles(named, title="tude  two") == ["ÉTUDE two"]  # every word, anywhere
    assert titles(named, title="dancer two") == []


def test_sql_wildcards_in_a_word_are_plain_characters(named: Corpus) -> None:
    assert titles(named, title="0%") == ["the 100% cat"]
    assert titles(named, title="%") == ["the 100% cat"]
    assert titles(named, title="r_s") == ["under_score"]
    assert titles(named, title="_") == ["under_score"]
    assert titles(named, author="a_b") == ["the 100% cat"]


def test_author_words_match_the_same_source_as_the_title(named: Corpus) -> None:
    assert titles(named, author="wolter jan") == ["Dancer"]
    assert titles(named, author="ZOË") == ["Étude in Black", "ÉTUDE two"]
    assert titles(named, title="two", author="zoë") == ["ÉTUDE two"]
    assert titles(named, title="dancer", author="zoë") == []


def test_the_text_filters_page_with_the_others(named: Corpus) -> None:
    every = named.keys(title="étude")
    assert len(every) == 2
    assert named.keys(title="étude", offset=1, limit=5) == every[1:]
    assert named.keys(title="étude", width=5) == []  # dancer's width; the études are 6 wide
    assert len(list(named.query(title="étude"))) == 2


def test_words_split_and_fold() -> None:
    assert words(" Zoë  ÜNAL ") == ["zoë", "ünal"]
    assert words("") == words(None) == []
    assert Filters(title="cat").to_dict() == {"title": "cat"}


def test_db_query_takes_the_same_title_and_author_filter(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from nonoforge.cli import app

    db = str(tmp_path / "c.db")
    with Corpus.open(db) as c:
        c.add([read_file(DATA / "dancer.non")[0], *puzzles(3, 12)])
    runner = CliRunner()
    r = runner.invoke(app, ["-q", "db", "query", "--db", db, "--title", "DANCE", "--json"])
    assert r.exit_code == 0, r.output
    assert [row["title"] for row in json.loads(r.stdout)] == ["Dancer"]
    r = runner.invoke(app, ["-q", "db", "query", "--db", db, "--author", "nobody", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout) == []
