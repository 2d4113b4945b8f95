"""Opening a corpus (nonoforge/db/connect.py): paths and URLs, SQLite settings, what is
not a corpus, the migrations an old file goes through on open, and the intactness check.
Real SQLite files in tmp_path, and PostgreSQL where ``url``/``corpus`` run on both."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import fresh_python
from dbfixtures import EXAMPLES, GIVENS, _cli_json, corpus, puzzles, url
from sqlalchemy import create_engine, inspect, text
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import AddStats, Corpus
from nonoforge.db import models as m
from nonoforge.errors import CorpusError

ROOT = Path(__file__).resolve().parents[1]
__all__ = ["corpus", "url"]  # the corpus fixtures, from dbfixtures


def test_open_creates_the_schema_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    with Corpus.open(path) as c:
        names = set(inspect(c.engine).get_table_names())
        assert {t.name for t in m.TABLES} <= names
        assert m.VERSION_TABLE in names
        with c.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
    with Corpus.open(str(path)) as c:  # reopening changes nothing
        assert len(c) == 0


def test_default_corpus_is_nonoforge_db_in_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Corpus.open() as c:
        c.add(puzzles(2, 1))
    assert (tmp_path / "nonoforge.db").exists()


def test_old_and_empty_files_are_migrated_on_open(tmp_path: Path) -> None:
    from alembic import command

    from nonoforge.db.connect import alembic_config

    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with Corpus.open(empty) as c:
        c.set_model("v1", {"a": 1})
        assert c.get_model("v1") == {"a": 1}

    old = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{old}")
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0001")
    with engine.connect() as conn:
        assert "difficulty_models" not in inspect(conn).get_table_names()
        assert conn.execute(text(f"SELECT version_num FROM {m.VERSION_TABLE}")).scalar() == "0001"
    engine.dispose()
    with Corpus.open(old) as c:
        assert "difficulty_models" in inspect(c.engine).get_table_names()
        c.add(puzzles(3, 2))
        c.set_model("v1", {"b": [1, 2]})
        assert c.get_model("v1") == {"b": [1, 2]}
        assert c.get_model("v2") is None


def test_provenance_extra_migration_keeps_rows_and_stores_json(tmp_path: Path) -> None:
    from alembic import command

    from nonoforge.db.connect import alembic_config

    old = tmp_path / "v4.db"
    with Corpus.open(old) as c:  # made at head, then taken back to 0004 (main before extra)
        c.add(puzzles(2, 1))
        with c.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0004")
    with Corpus.open(old) as c:
        assert len(c) == 2
        assert all(r["extra"] is None for r in c.info())
        p = puzzles(1, 9)[0]
        extra = {"difficulty": "3/10", "rating": "6/10", "added": "2022-12-22", "adult": False}
        assert c.add_fetched("nonograms.org", "7", p, "done", extra=extra) == "new"
        assert c.provenance(p.key)[0]["extra"] == extra
        assert c.info([p.key])[0]["extra"] == extra


def test_what_is_not_a_corpus_gives_corpus_error(tmp_path: Path) -> None:
    text_file = tmp_path / "notes.txt"
    text_file.write_text("these are not the tables you are looking for\n" * 50)
    with pytest.raises(CorpusError, match="not a nonoforge database"):
        Corpus.open(text_file)

    foreign = tmp_path / "other.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE customers (id INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(CorpusError, match="not a nonoforge database"):
        Corpus.open(foreign)

    newer = tmp_path / "newer.db"
    Corpus.open(newer).close()
    con = sqlite3.connect(newer)
    con.execute(f"UPDATE {m.VERSION_TABLE} SET version_num = '9999'")
    con.commit()
    con.close()
    with pytest.raises(CorpusError, match="newer than this nonoforge"):
        Corpus.open(newer)

    with pytest.raises(CorpusError, match="is a directory"):
        Corpus.open(tmp_path)
    with pytest.raises(CorpusError, match="does not exist"):
        Corpus.open(tmp_path / "no" / "such" / "dir.db")
    with pytest.raises(CorpusError, match="cannot use database"):
        Corpus.open("nosuchdialect://x/y")
    for e in (CorpusError,):
        assert e.exit_code == 4


def test_givens_migration_keeps_old_corpora(tmp_path: Path) -> None:
    """A corpus made before the givens column (0005) is upgraded on open: its puzzles stay
    as they were (no givens), and puzzles with givens can be added."""
    from alembic import command

    from nonoforge.db.connect import alembic_config
    from nonoforge.formats import read_file

    old = tmp_path / "v5.db"
    ps = puzzles(3, 41)
    with Corpus.open(old) as c:
        c.add(ps)
        with c.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0005")
    with create_engine(f"sqlite:///{old}").connect() as conn:
        assert "givens" not in {col["name"] for col in inspect(conn).get_columns("puzzles")}
    with Corpus.open(old) as c:
        assert [p.key for p in c.query()] == [p.key for p in ps]
        assert all(p.givens == () for p in c.query())
        switch = read_file(GIVENS)[0]
        assert c.add([switch]) == AddStats(new=1)
        assert c.get(switch.key).givens == switch.givens


def test_an_old_corpus_is_split_into_sites_on_open(tmp_path: Path) -> None:
    # corpus-0006.db was made by nonoforge at revision 0006 through its commands: db import
    # of the bundled examples, dancer.xml, the tournament mini set and flags.nonpack, then
    # ingest of a folder (jwilk-data000.nin, heart.sav, webpbn-00065.non)
    old = tmp_path / "old.db"
    shutil.copy(ROOT / "tests" / "data" / "corpus-0006.db", old)
    with sqlite3.connect(old) as conn:
        assert conn.execute(f"SELECT version_num FROM {m.VERSION_TABLE}").fetchall() == [
            ("0006",)]
        before = conn.execute("SELECT id, source, source_id FROM provenance ORDER BY id"
                              ).fetchall()
    runner = CliRunner()
    s = _cli_json(runner, "db", "stats", "--json", "--db", str(old))
    assert isinstance(s, dict)
    assert s["puzzles"] == 18 and s["by_site"] == {"file": 7, "webpbn": 11}
    rows = _cli_json(runner, "db", "query", "--source", "webpbn", "--json", "--db", str(old))
    assert len(rows) == 11  # type: ignore[arg-type]
    with sqlite3.connect(old) as conn:
        after = conn.execute("SELECT id, source, source_id, site FROM provenance ORDER BY id"
                             ).fetchall()
    assert [a[:3] for a in after] == before  # the catalogue lines and ids are unchanged
    sites = {src: site for _, src, _, site in after}
    assert sites["webpbn.com #1611"] == "webpbn" and sites["webpbn.com"] == "webpbn"
    assert sites["gnonograms 42.gno"] == "file" and sites["local"] == "file"
    assert sites["file:mini.txt"] == "file"  # which format it was is not known any more
    r = runner.invoke(app, ["-q", "db", "import", "--db", str(old), str(EXAMPLES)])
    assert r.exit_code == 0, r.output
    with Corpus.open(old) as c:  # importing the same files again adds nothing
        assert len(c) == 18


def test_an_intact_corpus_passes_the_check_on_every_backend(corpus: Corpus) -> None:
    from nonoforge.db.connect import check_intact

    corpus.add(puzzles(3, 44))
    check_intact(corpus.engine)  # no error
    assert corpus.add(puzzles(3, 44)) == AddStats(duplicate=3)


def test_the_head_revision_constant_is_the_migrations_head() -> None:
    from nonoforge.db.connect import HEAD_REVISION, script_info

    assert script_info()[0] == HEAD_REVISION  # a new revision must update HEAD_REVISION


def test_the_scale_indexes_migration_keeps_an_old_corpus_and_its_answers(
    tmp_path: Path,
) -> None:
    """Migration 0010 on a corpus made at revision 0006 (see the test above it): the new
    indexes are there and the old ones they replace are gone; the counts, a site filter,
    an exact-size query and a rating of the old corpus give what they gave before."""
    from nonoforge.db.filters import Filters

    old = tmp_path / "old.db"
    shutil.copy(ROOT / "tests" / "data" / "corpus-0006.db", old)
    with sqlite3.connect(old) as conn:
        pid, key = conn.execute("SELECT id, key FROM puzzles ORDER BY id LIMIT 1").fetchone()
        conn.execute(  # a rating as nonoforge at revision 0006 stored it
            "INSERT INTO results (puzzle_id, solver_version, status, technique, effort, "
            "time_s, times, score, grade, rated_at) VALUES (?, 'v0', 'unique', 'line', '{}', "
            "0.25, '[0.25]', 0.5, 3, '2026-01-02 03:04:05')", (pid,))
        sizes = conn.execute("SELECT width, height, count(*) FROM puzzles "
                             "GROUP BY width, height ORDER BY count(*) DESC").fetchall()
    (w, h, n), *_ = sizes
    with Corpus.open(old) as c:
        ix = {t: {i["name"]: i["column_names"] for i in inspect(c.engine).get_indexes(t)}
              for t in ("puzzles", "provenance", "results")}
        s = c.stats()
        exact = c.keys(min_size=(w, h), max_size=(w, h))
        picked = c.rated_from("v0", Filters(), 3)
    assert ix["puzzles"]["ix_puzzles_size"] == ["width", "height", "id"]
    assert ix["provenance"]["ix_provenance_site_puzzle"] == ["site", "puzzle_id"]
    assert "ix_provenance_site" not in ix["provenance"]
    assert ix["results"]["ix_results_version_rated"] == ["solver_version", "rated_at"]
    with sqlite3.connect(old) as conn:
        assert conn.execute(f"SELECT version_num FROM {m.VERSION_TABLE}").fetchall() == [
            ("0010",)]
        want = [k for (k,) in conn.execute(
            "SELECT key FROM puzzles WHERE width = ? AND height = ? ORDER BY id", (w, h))]
    assert s["puzzles"] == 18 and s["by_site"] == {"file": 7, "webpbn": 11}
    assert s["solver_version"] == "v0" and s["by_grade"] == {"3": 1, "unrated": 17}
    assert exact == want and len(exact) == n
    assert [(x.puzzle.key, x.score) for x in picked] == [(key, 0.5)]


def _alembic_made(path: Path) -> None:
    """A fresh SQLite file brought to head by the migrations themselves."""
    from alembic import command

    from nonoforge.db.connect import alembic_config

    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "head")
    engine.dispose()


def _schema(path: Path) -> tuple[object, ...]:
    with sqlite3.connect(path) as db:
        master = sorted(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
        version = db.execute(f"SELECT * FROM {m.VERSION_TABLE}").fetchall()
        pragmas = [db.execute(f"PRAGMA {p}").fetchall()
                   for p in ("user_version", "application_id", "auto_vacuum", "encoding")]
    return master, version, pragmas


def test_the_head_schema_file_is_what_the_migrations_build(tmp_path: Path) -> None:
    """``HEAD_SCHEMA`` (what a new SQLite corpus is created from) is the schema the
    migrations build, statement for statement; a new revision writes it again
    (``connect.write_head_schema``)."""
    from nonoforge.db.connect import HEAD_SCHEMA, head_schema

    _alembic_made(tmp_path / "alembic.db")
    engine = create_engine(f"sqlite:///{tmp_path / 'alembic.db'}")
    with engine.connect() as conn:
        built = head_schema(conn)
    engine.dispose()
    assert built == HEAD_SCHEMA.read_text(), "run connect.write_head_schema() again"


def test_a_new_sqlite_corpus_is_the_one_the_migrations_make(tmp_path: Path) -> None:
    """A corpus created on a new (or empty) file without alembic has the schema, the
    version row and the settings the migrations give, and alembic is never imported;
    it then works as any corpus (a second open, an import, the intactness check)."""

    _alembic_made(tmp_path / "alembic.db")
    new, empty = tmp_path / "new.db", tmp_path / "empty.db"
    empty.write_bytes(b"")
    code = ("import sys\nfrom nonoforge.db import Corpus\n"
            f"for p in ({str(new)!r}, {str(empty)!r}):\n    Corpus.open(p).close()\n"
            "print('alembic' in sys.modules)\n")
    assert fresh_python(code, cwd=ROOT, timeout=120).stdout.strip() == "False"
    assert _schema(new) == _schema(tmp_path / "alembic.db") == _schema(empty)
    with Corpus.open(new, check=True) as c:
        assert c.add(puzzles(3, 5)) == AddStats(new=3)
    with Corpus.open(new) as c:
        assert len(c) == 3


def test_a_file_with_foreign_tables_is_not_given_the_head_schema(tmp_path: Path) -> None:
    """Only a file with nothing in it is created from ``HEAD_SCHEMA``: one with tables of
    its own is refused as before (the migrations' judgement), and left as it was."""
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (t TEXT)")
    with pytest.raises(CorpusError, match="not a nonoforge database"):
        Corpus.open(other)
    with sqlite3.connect(other) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["notes"]
