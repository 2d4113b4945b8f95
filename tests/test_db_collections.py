"""Collections and rated picks (nonoforge/db/collections.py): ordered collections, rated
puzzles counted and read by seeks in the database, and the same pick on every backend."""

from __future__ import annotations

from pathlib import Path

import pytest
from dbfixtures import EXAMPLES, _cli_json, corpus, count, puzzles, url
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import Corpus
from nonoforge.errors import CorpusError

__all__ = ["corpus", "url"]  # the corpus fixtures, from dbfixtures


def test_collections_keep_order_and_can_be_replaced(corpus: Corpus) -> None:
    ps = puzzles(6, 16)
    corpus.add(ps)
    order = [ps[4].key, ps[0].key, ps[2].key]
    corpus.create_collection("starter", order, {"grades": [1, 3]})
    assert [p.key for p in corpus.collection("starter")] == order
    assert corpus.collection("starter")[0].meta.title == "p4"
    corpus.create_collection("starter", order[::-1], {"v": 2})
    assert [p.key for p in corpus.collection("starter")] == order[::-1]
    assert corpus.collections()[0]["params"] == {"v": 2}
    assert corpus.collections()[0]["size"] == 3
    assert count(corpus, "collection_members") == 3
    with pytest.raises(CorpusError, match="no collection"):
        corpus.collection("nope")
    with pytest.raises(CorpusError, match="no puzzle with key"):
        corpus.create_collection("bad", ["0000000000000000"])
    with pytest.raises(CorpusError, match="twice"):
        corpus.create_collection("bad", [ps[0].key, ps[0].key])
    assert corpus.stats()["collections"] == 1


def test_collection_build_selects_by_site(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    runner = CliRunner()
    r = runner.invoke(app, ["-q", "db", "import", "--db", db, str(EXAMPLES)])
    assert r.exit_code == 0, r.output
    from nonoforge.solver import SOLVER_VERSION

    with Corpus.open(db) as c:  # ratings as `rate --db` saves them (not re-measured here)
        rows = [{"key": k, "status": "unique", "score": float(i), "grade": 1 + i % 3}
                for i, k in enumerate(c.keys())]
        c.save_results(rows, SOLVER_VERSION)
    chosen = _cli_json(runner, "collection", "build", "w", "--source", "webpbn", "--count",
                       "50", "--json", "--db", db)
    assert isinstance(chosen, list) and len(chosen) == 11
    r = runner.invoke(app, ["-q", "collection", "build", "g", "--source", "nowhere", "--db", db])
    assert r.exit_code == 2 and "no rated puzzle" in r.output


def test_rated_puzzles_are_counted_and_read_by_seeks_in_the_database(url: str) -> None:
    from nonoforge.db.filters import Filters
    from nonoforge.ranges import Span

    with Corpus.open(url) as c:
        ps = puzzles(40, 46, size=(6, 6), source="s")
        c.add(ps)
        c.save_results([{"key": p.key, "grade": 1 + i % 2, "score": float(40 - i)}
                        for i, p in enumerate(ps)], "v")
        c.save_results([{"key": ps[0].key, "grade": None, "score": None}], "v")
        assert c.rated_supply("v") == {1: 19, 2: 20}
        assert c.rated_supply("v", cap=5) == {1: 5, 2: 5}  # each grade counted up to 5
        assert c.rated_supply("v", Filters(grade=Span(2, 2))) == {2: 20}
        assert c.rated_supply("v", Filters(grade=Span(2, 2)), cap=30) == {2: 20}
        assert c.rated_supply("v", Filters(source="nowhere")) == {}
        assert c.rated_supply("v", Filters(source="nowhere"), cap=3) == {}
        # grade 1 in score order: ps[38] (2.0), ps[36] (4.0), ..., ps[2] (38.0)
        assert c.rated_bounds("v", Filters(), 1) == (2.0, 38.0)
        assert c.rated_bounds("v", Filters(grade=Span(2, 2)), 1) is None  # outside the filter
        first = c.rated_from("v", Filters(), 1, limit=2)
        assert [(x.grade, x.score, x.puzzle.key) for x in first] == [
            (1, 2.0, ps[38].key), (1, 4.0, ps[36].key)]
        assert first[0].puzzle.meta.source == "s"
        seek = c.rated_from("v", Filters(), 1, at_least=9.5, limit=1)
        assert [x.puzzle.key for x in seek] == [ps[30].key]  # 10.0
        after = c.rated_from("v", Filters(), 1, after=(seek[0].score, seek[0].id), limit=1)
        assert [x.puzzle.key for x in after] == [ps[28].key]  # 12.0
        assert len(c.rated_from("v", Filters(), 2)) == 20


def test_ties_in_score_are_read_in_puzzle_order(url: str) -> None:
    from nonoforge.db.filters import Filters

    with Corpus.open(url) as c:
        ps = puzzles(12, 47, size=(5, 5))
        c.add(ps)
        c.save_results([{"key": p.key, "grade": 3, "score": 1.5} for p in ps], "v")
        keys = [x.puzzle.key for x in c.rated_from("v", Filters(), 3)]
        assert keys == [p.key for p in ps]  # added in this order: ids in this order
        x = c.rated_from("v", Filters(), 3, limit=5)[-1]
        rest = c.rated_from("v", Filters(), 3, after=(x.score, x.id))
        assert [y.puzzle.key for y in rest] == keys[5:]


def test_a_large_pick_is_the_same_on_every_backend(url: str, tmp_path: Path) -> None:
    """``collection build``'s pick from a supply large enough to be sought grade by grade
    gives the same puzzles on this backend as on a SQLite corpus of the same ratings."""
    from nonoforge.db.filters import Filters
    from nonoforge.pipeline.collection import pick
    from nonoforge.ranges import Span

    ps = puzzles(150, 52, size=(6, 6))
    rows = [{"key": p.key, "grade": 1 + i % 3, "score": ((i * 37) % 150) / 7}
            for i, p in enumerate(ps)]
    got = []
    for where in (url, str(tmp_path / "ref.db")):
        with Corpus.open(where) as c:
            c.add(ps)
            c.save_results(rows, "v")
            got.append([(x.puzzle.key, x.grade, x.score)
                        for x in pick(c, "v", Filters(grade=Span(1, 2)), 12)])
    assert got[0] == got[1] and len(got[0]) == 12
    assert [g for _, g, _ in got[0]] == [1] * 6 + [2] * 6
