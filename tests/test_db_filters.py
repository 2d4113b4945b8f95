"""The corpus's query filters (nonoforge/db/filters.py): the title and author words, on
SQLite and PostgreSQL, through the corpus's public queries."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_db import _pg_url, pg_server, puzzles

from nonoforge.db import Corpus
from nonoforge.db.filters import Filters, words
from nonoforge.formats import read_file
from nonoforge.puzzle import Meta

__all__ = ["pg_server"]  # the fixture, imported for the tests below

DATA = Path(__file__).parent / "data"
#: Titles and authors as sources write them: accents, capitals, SQL's wildcard characters.
NAMED = [("Étude in Black", "Zoë Ünal"), ("the 100% cat", "a_b"), ("Plain title", "Bob"),
         ("ÉTUDE two", "zoë ünal"), ("under_score", None)]


@pytest.fixture(params=["sqlite", "postgresql"])
def corpus(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Corpus]:
    url = str(tmp_path / "c.db") if request.param == "sqlite" else _pg_url(
        request.getfixturevalue("pg_server"))
    with Corpus.open(url) as c:
        dancer = read_file(DATA / "dancer.non")[0]  # webpbn #1: "Dancer" by Jan Wolter
        made = puzzles(len(NAMED), 11)
        c.add([dancer, *(p.with_meta(Meta(title=t, author=a, source="gen", source_id=str(i)))
                         for i, (p, (t, a)) in enumerate(zip(made, NAMED, strict=True)))])
        yield c


def titles(c: Corpus, **kw: str) -> list[str]:
    return [r["title"] for r in c.listing(**Filters(**kw).query_kwargs())]


def test_title_words_each_match_case_folded(corpus: Corpus) -> None:
    assert titles(corpus, title="DANCER") == ["Dancer"]
    assert titles(corpus, title="étude") == ["Étude in Black", "ÉTUDE two"]
    assert titles(corpus, title="tude  two") == ["ÉTUDE two"]  # every word, anywhere
    assert titles(corpus, title="dancer two") == []


def test_sql_wildcards_in_a_word_are_plain_characters(corpus: Corpus) -> None:
    assert titles(corpus, title="0%") == ["the 100% cat"]
    assert titles(corpus, title="%") == ["the 100% cat"]
    assert titles(corpus, title="r_s") == ["under_score"]
    assert titles(corpus, title="_") == ["under_score"]
    assert titles(corpus, author="a_b") == ["the 100% cat"]


def test_author_words_match_the_same_source_as_the_title(corpus: Corpus) -> None:
    assert titles(corpus, author="wolter jan") == ["Dancer"]
    assert titles(corpus, author="ZOË") == ["Étude in Black", "ÉTUDE two"]
    assert titles(corpus, title="two", author="zoë") == ["ÉTUDE two"]
    assert titles(corpus, title="dancer", author="zoë") == []


def test_the_text_filters_page_with_the_others(corpus: Corpus) -> None:
    every = corpus.keys(title="étude")
    assert len(every) == 2
    assert corpus.keys(title="étude", offset=1, limit=5) == every[1:]
    assert corpus.keys(title="étude", width=5) == []  # dancer's width; the études are 6 wide
    assert len(list(corpus.query(title="étude"))) == 2


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
