"""Adding a batch of puzzles (nonoforge/db/insert.py): new, duplicate and merged puzzles,
twins inside one batch, goals that arrive later, source ids that come to name another
puzzle. On SQLite and PostgreSQL."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from conftest import DATA
from dbfixtures import corpus, count, puzzles, url

from nonoforge.db import AddStats, Corpus
from nonoforge.puzzle import Meta

__all__ = ["corpus", "url"]  # the corpus fixtures, from dbfixtures


def test_add_counts_new_duplicate_and_merged(corpus: Corpus) -> None:
    ps = puzzles(40, 3)
    assert corpus.add(ps, batch=7) == AddStats(new=40)
    assert corpus.add(ps, batch=9) == AddStats(duplicate=40)
    other = [p.replace(meta=Meta(source="elsewhere", source_id=f"x{i}"))
             for i, p in enumerate(ps[:10])]
    assert corpus.add(other) == AddStats(merged=10)
    assert corpus.add(other) == AddStats(duplicate=10)
    assert len(corpus) == 40
    assert count(corpus, "provenance") == 50
    assert corpus.stats()["by_site"] == {"elsewhere": 10, "gen": 40}
    assert {s["name"] for s in corpus.sources()} == {"elsewhere", "gen"}
    # the first provenance names the puzzle; all are kept
    assert corpus.get(ps[0].key).meta == ps[0].meta
    assert [r["source"] for r in corpus.provenance(ps[0].key)] == ["gen", "elsewhere"]


def test_duplicates_inside_one_batch_are_one_puzzle(corpus: Corpus) -> None:
    p = puzzles(1, 4)[0]
    twins = [p, p.replace(meta=Meta(source="b", source_id="1")), p,
             p.replace(meta=Meta(title="no id", source="c"))]
    assert corpus.add(twins) == AddStats(new=1, merged=2, duplicate=1)
    assert len(corpus) == 1
    assert count(corpus, "provenance") == 3
    assert corpus.add(twins) == AddStats(duplicate=4)


def test_a_goal_arriving_later_is_merged_into_the_stored_record(corpus: Corpus) -> None:
    with_goal = puzzles(5, 5)
    bare = [p.replace(goal=None) for p in with_goal]
    assert corpus.add(bare) == AddStats(new=5)
    assert corpus.get(bare[0].key).goal is None
    assert corpus.add(with_goal) == AddStats(merged=5)
    got = corpus.get(with_goal[0].key)
    assert got.goal == with_goal[0].goal
    assert got == with_goal[0]
    assert corpus.add(bare) == AddStats(duplicate=5)
    assert corpus.get(bare[0].key).goal is not None  # a goal is never lost


def test_a_source_id_naming_another_puzzle_keeps_both(corpus: Corpus) -> None:
    a, b = puzzles(2, 8, source=None)
    corpus.add([a.replace(meta=Meta(source="site", source_id="7", title="v1"))])
    # the site changed puzzle 7: the new one is stored, its provenance without the id
    assert corpus.add([b.replace(meta=Meta(source="site", source_id="7", title="v2"))]) \
        == AddStats(new=1)
    assert corpus.add([b.replace(meta=Meta(source="site", source_id="7", title="v2"))]) \
        == AddStats(duplicate=1)
    assert len(corpus) == 2
    assert corpus.get(b.key).meta.title == "v2"
    assert corpus.get(b.key).meta.source_id is None


def _dump(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, each value with its SQLite storage class; timestamps
    (the time of the import) kept as their format only."""
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}")
    out: dict[str, list[tuple[object, ...]]] = {}
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        for t in tables:
            rows = []
            for row in db.execute(f"select * from {t} order by rowid"):
                rows.append(tuple(
                    ("timestamp", type(v).__name__) if isinstance(v, str) and stamp.fullmatch(v)
                    else (v, type(v).__name__) for v in row))
            out[t] = rows
    return out


@pytest.mark.slow  # two corpora of a shared set and the test data: about 10 s
def test_the_driver_executemany_stores_the_rows_core_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite batches go in through the driver's ``executemany`` (``insert_rows``): every
    table holds the same rows, value for value and storage class for storage class, as
    when Core's ``insert()`` wrote them -- real files (a shared tournament set with its
    goals, the test data's puzzles with titles, authors, givens, colours), a fetched item
    with its extra JSON, and a re-import that merges."""
    from conftest import shared_path

    from nonoforge.db import insert
    from nonoforge.formats import read_file

    tset = shared_path("corpora", "tournament", "question", "icga2016.txt")
    files = [str(tset), *(str(f) for f in sorted(DATA.iterdir())
                          if f.suffix in (".non", ".cwc", ".xml", ".pzl", ".nonpack", ".nin"))]
    dancer = read_file(str(DATA / "dancer.non"))[0]
    dumps = []
    for fast in (True, False):
        monkeypatch.setattr(insert, "DRIVER_EXECUTEMANY", fast)
        db = tmp_path / f"fast-{fast}.db"
        with Corpus.open(db) as c:
            c.import_files(files, on_error=lambda _p, _e: None, batch=300)
            c.add_fetched("webpbn", "1", dancer, "done", raw=b"<xml/>",
                          extra={"catalogue": "x", "n": [1, 2]})
            c.add_fetched("webpbn", "2", dancer.replace(meta=Meta(title="t")), "done")
            c.import_files(files[1:], on_error=lambda _p, _e: None)
        dumps.append(_dump(db))
    assert dumps[0] == dumps[1]
    assert len(dumps[0]["puzzles"]) > 1000 and len(dumps[0]["provenance"]) > 1000
