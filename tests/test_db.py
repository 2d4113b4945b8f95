"""The corpus store (nonoforge.db): real SQLite files in tmp_path, and PostgreSQL when a
server can be started here (the PostgreSQL tests skip, saying why, when it cannot)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import create_engine, inspect, select, text
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import AddStats, Corpus
from nonoforge.db import models as m
from nonoforge.errors import FAILED_EXIT, CorpusError, FormatError
from nonoforge.formats import dumps
from nonoforge.puzzle import Meta, Palette, Puzzle

ROOT = Path(__file__).resolve().parents[1]


# -- puzzles ------------------------------------------------------------------------------


def puzzles(
    n: int,
    seed: int,
    size: tuple[int, int] = (6, 5),
    ncolors: int = 1,
    source: str | None = "gen",
    goal: bool = True,
) -> list[Puzzle]:
    """``n`` random puzzles (distinct keys) with source ids ``0..n-1``."""
    rng = np.random.default_rng(seed)
    w, h = size
    out: list[Puzzle] = []
    keys: set[str] = set()
    while len(out) < n:
        cells = rng.integers(0, ncolors + 1, size=(h, w)) * (rng.random((h, w)) < 0.6)
        cells[0, 0] = 1  # at least colour 1, so the palette is never empty
        if ncolors > 1:
            cells[0, 1] = ncolors
        meta = Meta(title=f"p{len(out)}", source=source,
                    source_id=None if source is None else str(len(out)))
        p = Puzzle.from_grid(cells, meta=meta)
        if not goal:
            p = p.replace(goal=None)
        if p.key not in keys:
            keys.add(p.key)
            out.append(p)
    return out


def count(c: Corpus, table: str) -> int:
    with c.engine.connect() as conn:
        return int(conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one())


# -- backends -----------------------------------------------------------------------------


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for d in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (d / name).exists():
            return str(d / name)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def pg_server() -> Iterator[dict[str, str]]:
    """A throw-away PostgreSQL server on a local socket, or a skip saying why not.

    initdb refuses to run as root, so as root the server runs as the ``postgres`` user
    (created by the Debian ``postgresql`` package). CI needs ``apt-get install -y
    postgresql`` and ``pip install psycopg[binary]``.
    """
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("PostgreSQL tests need the psycopg driver (pip install 'psycopg[binary]')")
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL tests need a server (apt-get install -y postgresql)")
    prefix: list[str] = []
    user = None
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run the server")
        if not runuser:
            pytest.skip("running as root and runuser is missing")
        user = "postgres"
        prefix = [runuser, "-u", user, "--"]
    base = Path(tempfile.mkdtemp(prefix="nonoforge-pg-"))
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    if user:
        shutil.chown(base, user)
        shutil.chown(sock, user)
    port = _free_port()
    log = base / "log"
    try:
        subprocess.run(
            [*prefix, initdb, "-D", str(data), "-A", "trust", "-U", "postgres",
             "--no-sync", "-E", "UTF8"],
            check=True, capture_output=True, timeout=120,
        )
        opts = f"-k {sock} -p {port} -h '' -F"
        subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-o", opts, "-l", str(log), "-w", "-t", "60",
             "start"],
            check=True, capture_output=True, timeout=90,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
        shutil.rmtree(base, ignore_errors=True)
        detail = getattr(e, "stderr", b"") or b""
        pytest.skip(f"could not start a PostgreSQL server: {e} {detail[-300:]!r}")
    try:
        yield {"host": str(sock), "port": str(port)}
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def _pg_url(server: dict[str, str]) -> str:
    """The test database, emptied: one database for the session, its schema made anew
    for each test (cheaper than a database each)."""
    url = f"postgresql+psycopg://postgres@/postgres?host={server['host']}&port={server['port']}"
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty corpus location on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "corpus.db")
    return _pg_url(request.getfixturevalue("pg_server"))


@pytest.fixture
def corpus(url: str) -> Iterator[Corpus]:
    with Corpus.open(url) as c:
        yield c


# -- opening and migrations ---------------------------------------------------------------


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


def test_schema_of_migrations_matches_the_models(url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    with Corpus.open(url) as c, c.engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"version_table": m.VERSION_TABLE})
        diff = [d for d in compare_metadata(ctx, m.metadata) if d[0] != "remove_table"]
    assert diff == []


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


# -- adding -------------------------------------------------------------------------------


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


def test_colour_puzzles_are_stored_canonically(corpus: Corpus) -> None:
    ps = puzzles(6, 6, size=(7, 6), ncolors=3)
    corpus.add(ps)
    for p in ps:
        got = corpus.get(p.key)
        assert got.key == p.key
        assert got == p.canonical()
        assert got.ncolors == 3
    assert corpus.stats()["by_colors"] == {"3": 6}
    # a one-colour puzzle in red is the same puzzle as in black
    red = Palette.of(("white", "#ffffff"), ("red", "#ff0000"))
    bw = puzzles(1, 7, source="bw")[0]
    corpus.add([bw.replace(palette=red, meta=Meta(source="red", source_id="1"))])
    assert corpus.add([bw]) == AddStats(merged=1)


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


def test_get_unknown_key_is_a_corpus_error(corpus: Corpus) -> None:
    with pytest.raises(CorpusError, match="no puzzle with key"):
        corpus.get("0123456789abcdef")
    assert "0123456789abcdef" not in corpus


def test_get_many_and_keys_from_an_offset_read_a_page_in_a_batch(corpus: Corpus) -> None:
    ps = puzzles(7, 21, size=(6, 5)) + puzzles(3, 22, size=(5, 5), ncolors=2)
    corpus.add(ps)
    corpus.add([ps[0].replace(meta=Meta(source="later", source_id="1", title="second"))])
    keys = [p.key for p in reversed(ps)]
    got = corpus.get_many([*keys[:4], "0123456789abcdef", *keys[4:], keys[0]])
    assert [p.key for p in got] == keys  # unknown left out, a repeat given once
    assert got == [corpus.get(k) for k in keys]  # records, goals and first metadata
    assert [p.meta for p in got] == [corpus.get(k).meta for k in keys]
    assert corpus.get_many([]) == []
    assert corpus.info([ps[1].key])[0]["author"] is None
    by = puzzles(1, 23)[0]
    corpus.add([by.replace(meta=Meta(source="x", source_id="1", title="T", author="Ann Bee"))])
    assert corpus.info([by.key])[0]["author"] == "Ann Bee"  # the first provenance's
    every = corpus.keys()
    assert corpus.keys(offset=3, limit=4) == every[3:7]
    assert corpus.keys(offset=8) == every[8:]
    assert corpus.keys(offset=2, colors=2) == corpus.keys(colors=2)[2:]


# -- queries ------------------------------------------------------------------------------


@pytest.fixture
def mixed(corpus: Corpus) -> tuple[Corpus, dict[str, list[Puzzle]]]:
    groups = {
        "small": puzzles(5, 10, size=(5, 5), source="a"),
        "wide": puzzles(4, 11, size=(12, 6), source="b"),
        "colour": puzzles(3, 12, size=(8, 8), ncolors=2, source="a"),
        "big": puzzles(2, 13, size=(20, 25), source="c"),
    }
    for ps in groups.values():
        corpus.add(ps)
    corpus.save_results(
        [{"key": p.key, "status": "unique", "technique": "line", "grade": 1}
         for p in groups["small"]]
        + [{"key": p.key, "status": "multiple", "technique": "probe", "grade": 4}
           for p in groups["big"]],
        "s1",
    )
    corpus.save_results([{"key": groups["wide"][0].key, "status": "unique", "grade": 2}], "s2")
    return corpus, groups


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


def test_query_streams_page_after_page(tmp_path: Path) -> None:
    with Corpus.open(tmp_path / "c.db") as c:
        ps = puzzles(1100, 14, size=(4, 4), source="x")
        c.add(ps)
        assert len(c) == len(ps)
        assert [p.key for p in c.query()] == [p.key for p in ps]
        assert len(list(c.query(limit=501))) == 501


def test_stats_counts_everything(mixed: tuple[Corpus, dict[str, list[Puzzle]]]) -> None:
    c, _ = mixed
    c.add_fetched("webpbn", "1", None, "missing", "404")
    s = c.stats()
    assert s["puzzles"] == 14
    assert s["by_site"] == {"a": 8, "b": 4, "c": 2}
    assert s["by_size"] == {"1-10": 8, "11-15": 4, "21-30": 2}
    assert s["by_colors"] == {"1": 11, "2": 3}
    assert s["solver_version"] == "s2"
    assert s["by_grade"] == {"2": 1, "unrated": 13}
    assert c.stats("s1")["by_grade"] == {"1": 5, "4": 2, "unrated": 7}
    assert s["fetch_log"] == {"webpbn": {"missing": 1}}


# -- results, models, collections -----------------------------------------------------------


def test_results_are_upserted_per_solver_version(corpus: Corpus) -> None:
    ps = puzzles(3, 15)
    corpus.add(ps)
    corpus.save_results(
        [{"key": p.key, "status": "unique", "technique": "line", "effort": {"sweeps": i},
          "time_s": 0.01 * i, "times": [0.01 * i] * 3} for i, p in enumerate(ps)],
        "v1",
    )
    assert corpus.rated_keys("v1") == {p.key for p in ps}
    assert corpus.rated_keys("v2") == set()
    rows = corpus.results("v1")
    assert [r["effort"] for r in rows] == [{"sweeps": 0}, {"sweeps": 1}, {"sweeps": 2}]
    assert rows[1]["times"] == [0.01] * 3 and rows[1]["score"] is None
    # scores arrive later, on the rows results() gave: other fields are kept
    for r in rows:
        r["score"], r["grade"] = r["time_s"] * 2, 3
    corpus.save_results(rows, "v1")
    again = corpus.results("v1")
    assert len(again) == 3
    assert [(r["technique"], r["grade"]) for r in again] == [("line", 3)] * 3
    assert again[2]["score"] == pytest.approx(0.04)
    corpus.save_results([{"key": ps[0].key, "status": "timeout"}], "v2")
    assert corpus.solver_versions() == ["v2", "v1"]
    assert len(corpus.results()) == 4
    with pytest.raises(CorpusError, match="no puzzle with key"):
        corpus.save_results([{"key": "ffffffffffffffff", "status": "unique"}], "v1")


def test_difficulty_model_per_solver_version(corpus: Corpus) -> None:
    assert corpus.get_model("v1") is None
    corpus.set_model("v1", {"knots": [1, 2, 3], "fit": {"rho": 0.93}})
    corpus.set_model("v1", {"knots": [4]})
    corpus.set_model("v2", {"knots": []})
    assert corpus.get_model("v1") == {"knots": [4]}
    assert corpus.get_model("v2") == {"knots": []}


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


# -- the fetch log ------------------------------------------------------------------------


def test_add_fetched_logs_each_item_with_its_puzzle(corpus: Corpus) -> None:
    a, b = puzzles(2, 17, source=None)
    assert corpus.add_fetched("webpbn", "10", a, "done", raw=b"<xml/>") == "new"
    assert corpus.add_fetched("webpbn", "11", None, "missing", "404") == "missing"
    assert corpus.add_fetched("webpbn", "12", None, "failed", "timeout") == "failed"
    assert corpus.add_fetched("nonograms", "3", a, "done") == "duplicate"
    assert corpus.add_fetched("webpbn", "12", b, "done") == "new"
    assert corpus.fetch_status("webpbn", "10") == "done"
    assert corpus.fetch_status("webpbn", "12") == "done"
    assert corpus.fetch_status("webpbn", "99") is None
    assert corpus.fetch_items("webpbn") == {"10", "11", "12"}
    assert corpus.fetch_items("webpbn", "missing") == {"11"}
    log = {(r["site"], r["item"]): r for r in corpus.fetch_log()}
    assert log[("webpbn", "12")]["attempts"] == 2
    assert log[("webpbn", "12")]["puzzle_key"] == b.key
    assert log[("webpbn", "11")]["reason"] == "404"
    prov = corpus.provenance(a.key)
    assert [(r["source"], r["source_id"], r["raw"]) for r in prov] == [
        ("webpbn", "10", b"<xml/>"), ("nonograms", "3", None)]
    with pytest.raises(CorpusError, match="status"):
        corpus.add_fetched("webpbn", "1", None, "weird")


# -- files --------------------------------------------------------------------------------


def _write_json_files(folder: Path, groups: list[list[Puzzle]]) -> list[str]:
    paths = []
    for i, ps in enumerate(groups):
        f = folder / f"set{i:03d}.json"
        data = dumps(ps, "json")
        f.write_text(data if isinstance(data, str) else data.decode())
        paths.append(str(f))
    return paths


def test_importing_the_same_files_twice_leaves_the_same_rows(tmp_path: Path) -> None:
    ps = puzzles(30, 18, source=None)
    paths = _write_json_files(tmp_path, [ps[:1], ps[1:20], ps[10:30]])
    tables = ("puzzles", "provenance", "sources", "fetch_log")
    with Corpus.open(tmp_path / "c.db") as c:
        first = c.import_files(paths, batch=8)
        assert first == AddStats(new=30, merged=10)
        rows = {t: count(c, t) for t in tables}
        assert rows == {"puzzles": 30, "provenance": 40, "sources": 3, "fetch_log": 0}
        assert c.import_files(paths) == AddStats(duplicate=40)
        assert {t: count(c, t) for t in tables} == rows
        # the raw file is kept where it holds one puzzle
        prov = c.provenance(ps[0].key)
        assert prov[0]["source"] == "file:set000.json" and prov[0]["raw"] is not None
        assert c.provenance(ps[5].key)[0]["raw"] is None


def test_import_reports_bad_files_and_imports_the_rest(tmp_path: Path) -> None:
    ps = puzzles(4, 19, source=None)
    good = _write_json_files(tmp_path, [ps])
    bad = tmp_path / "bad.non"
    bad.write_text("width 3\nheight x\n")
    missing = tmp_path / "missing.non"
    errors: list[tuple[str, str]] = []
    done: list[tuple[str, int]] = []
    with Corpus.open(tmp_path / "c.db") as c:
        stats = c.import_files(
            [str(bad), *good, str(missing)],
            on_error=lambda p, e: errors.append((p, str(e))),
            on_file=lambda p, n: done.append((os.path.basename(p), n)),
        )
        assert stats == AddStats(new=4)
        assert [p for p, _ in errors] == [str(bad), str(missing)]
        assert "no such file" in errors[1][1]
        assert done == [("bad.non", 0), ("set000.json", 4), ("missing.non", 0)]
        with pytest.raises(Exception, match="missing.non"):
            c.import_files([str(missing)])


def test_export_then_import_round_trip(tmp_path: Path) -> None:
    src = tmp_path / "a.db"
    ps = puzzles(12, 20, size=(7, 7), source="s") + puzzles(5, 21, ncolors=3, source="t")
    with Corpus.open(src) as c:
        c.add(ps)
        c.add([ps[0].replace(meta=Meta(source="later", source_id="1"))])
        assert c.export_rofl(tmp_path / "all.rofl") == 17
        assert c.export_rofl(tmp_path / "colour.rofl", colors=3, limit=4) == 4
        originals = {p.key: p for p in c.query()}
    assert not list(tmp_path.glob("*.part"))
    with Corpus.open(tmp_path / "b.db") as b:
        assert b.import_files([tmp_path / "all.rofl"]) == AddStats(new=17)
        assert b.import_files([tmp_path / "all.rofl", tmp_path / "colour.rofl"]) \
            == AddStats(duplicate=21)
        assert {p.key: p for p in b.query()} == originals
        assert b.get(ps[0].key).meta.source == "s"
        b.export_rofl(tmp_path / "again.rofl")
    assert (tmp_path / "again.rofl").read_bytes() == (tmp_path / "all.rofl").read_bytes()


def test_a_damaged_rofl_file_gives_its_intact_records(tmp_path: Path) -> None:
    ps = puzzles(10, 26, size=(6, 6), source="s")
    with Corpus.open(tmp_path / "a.db") as c:
        c.add(ps)
        c.export_rofl(tmp_path / "all.rofl")
    data = (tmp_path / "all.rofl").read_bytes()
    cut = tmp_path / "cut.rofl"
    cut.write_bytes(data[: len(data) * 2 // 3])
    errors: list[tuple[str, Exception]] = []
    with Corpus.open(tmp_path / "b.db") as b:
        stats = b.import_files([cut], on_error=lambda p, e: errors.append((p, e)))
        assert 0 < stats.new < 10
        assert set(b.keys()) <= {p.key for p in ps}
        assert errors and all(p == str(cut) and str(cut) in str(e) for p, e in errors)
        with pytest.raises(Exception, match="cut.rofl"):
            b.import_files([cut])  # without on_error: raised, after the intact records
        assert len(b) == stats.new


def test_a_closed_corpus_refuses_work(tmp_path: Path) -> None:
    c = Corpus.open(tmp_path / "c.db")
    c.close()
    with pytest.raises(CorpusError, match="closed"):
        c.add(puzzles(1, 27))


# -- interruptions ------------------------------------------------------------------------


def _rows(path: Path, table: str) -> int:
    con = sqlite3.connect(path, timeout=30)
    try:
        return int(con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0
    finally:
        con.close()


def _kill_when(proc: subprocess.Popen[bytes], db: Path, table: str, at_least: int) -> int:
    """SIGKILL ``proc`` once ``table`` has ``at_least`` rows; the rows it had then."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        n = _rows(db, table)
        if n >= at_least:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            return n
        time.sleep(0.005)
    proc.kill()
    out = proc.communicate()
    pytest.fail(f"the process ended before it could be killed: {out!r}")


CLI = [sys.executable, "-c", "from nonoforge.cli import main; main()"]
#: Subprocesses use the ROFL codec's plain-Python kernels (``NONOFORGE_ROFL_JIT=0``, the
#: codec's documented switch): each would otherwise import numba and load or compile its
#: kernels before its 65th record, which these tests do not need. They import this checkout.
ENV = {
    **os.environ,
    "NONOFORGE_ROFL_JIT": "0",
    "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
}


@pytest.mark.slow  # subprocesses killed and re-run
def test_import_killed_half_way_resumes_exactly(tmp_path: Path) -> None:
    ps = puzzles(1500, 22, size=(8, 8), source=None, goal=False)
    paths = _write_json_files(tmp_path, [ps[i : i + 100] for i in range(0, len(ps), 100)])
    db = tmp_path / "c.db"
    args = [*CLI, "-q", "db", "import", "--db", str(db), *paths]
    proc = subprocess.Popen(args, cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    n = _kill_when(proc, db, "puzzles", 500)
    assert proc.returncode == -signal.SIGKILL
    at_kill = _rows(db, "puzzles")
    assert n <= at_kill < len(ps), "the kill came too late to test anything"
    done = subprocess.run(args, cwd=ROOT, capture_output=True, timeout=300, env=ENV)
    assert done.returncode == 0, done.stderr.decode()
    with Corpus.open(db) as c:
        assert sorted(c.keys()) == sorted(p.key for p in ps)
        assert count(c, "provenance") == len(ps)
        with c.engine.connect() as conn:
            dup = conn.execute(text(
                "SELECT COUNT(*) FROM (SELECT source, source_id FROM provenance "
                "GROUP BY source, source_id HAVING COUNT(*) > 1) d")).scalar()
        assert dup == 0


FETCHER = """
import sys
import numpy as np
from nonoforge.db import Corpus
from nonoforge.puzzle import Puzzle

with Corpus.open(sys.argv[1]) as c:
    done = c.fetch_items("site", "done") | c.fetch_items("site", "missing")
    for i in range(int(sys.argv[2])):
        item = str(i)
        if item in done:
            continue
        if i % 7 == 3:
            c.add_fetched("site", item, None, "missing", "404")
            continue
        rng = np.random.default_rng(i % 500)  # items 500 apart hold the same puzzle
        p = Puzzle.from_grid((rng.random((6, 6)) < 0.5).astype(int))
        c.add_fetched("site", item, p, "done", raw=b"page %d" % i)
"""


@pytest.mark.slow  # subprocesses killed and re-run
def test_fetching_killed_half_way_resumes_exactly(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    script = tmp_path / "fetch.py"
    script.write_text(FETCHER)
    n = 700
    args = [sys.executable, str(script), str(db), str(n)]
    proc = subprocess.Popen(args, cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _kill_when(proc, db, "fetch_log", 150)
    assert _rows(db, "fetch_log") < n
    done = subprocess.run(args, cwd=ROOT, capture_output=True, timeout=300, env=ENV)
    assert done.returncode == 0, done.stderr.decode()
    missing = {str(i) for i in range(n) if i % 7 == 3}
    with Corpus.open(db) as c:
        assert c.fetch_items("site") == {str(i) for i in range(n)}
        assert c.fetch_items("site", "missing") == missing
        assert count(c, "fetch_log") == n
        assert count(c, "provenance") == n - len(missing)
        assert all(r["attempts"] == 1 for r in c.fetch_log())
        pictures = {i % 500 for i in range(n) if str(i) not in missing}
        assert len(c) <= len(pictures)  # items 500 apart: one puzzle, two provenance rows
        assert count(c, "puzzles") == len(set(c.keys()))


@pytest.mark.slow  # subprocesses killed and re-run
def test_concurrent_writers_wait_for_each_other(tmp_path: Path) -> None:
    ps = puzzles(600, 23, size=(5, 5))
    paths = _write_json_files(tmp_path, [ps[:400], ps[200:]])
    db = tmp_path / "c.db"
    Corpus.open(db).close()
    procs = [
        subprocess.Popen([*CLI, "-q", "db", "import", "--db", str(db), p], cwd=ROOT, env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for p in paths
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    with Corpus.open(db) as c:
        assert len(c) == 600
        assert count(c, "provenance") == 600  # the same (source, id) from both files: once


# -- the command line ---------------------------------------------------------------------


def test_cli_init_import_stats_query_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    db = str(tmp_path / "cli.db")
    ps = puzzles(8, 24, size=(9, 9), source="cli") + puzzles(3, 25, ncolors=2, source="cli2")
    paths = _write_json_files(tmp_path, [ps])
    bad = tmp_path / "bad.txt"
    bad.write_text("nothing to see\n")

    r = runner.invoke(app, ["db", "init", "--db", db])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["-q", "db", "import", "--db", db, *paths, str(bad)])
    assert r.exit_code == 2
    assert "bad.txt" in r.output
    monkeypatch.setenv("NONOFORGE_DB", db)
    r = runner.invoke(app, ["db", "stats", "--json"])
    assert r.exit_code == 0, r.output
    import json

    s = json.loads(r.stdout)
    assert s["puzzles"] == 11 and s["by_colors"] == {"1": 8, "2": 3}
    r = runner.invoke(app, ["db", "stats"])
    assert "11 puzzle(s)" in r.stdout and "cli 8" in r.stdout
    r = runner.invoke(app, ["-q", "db", "query", "--colors", "2", "--json"])
    rows = json.loads(r.stdout)
    assert [x["key"] for x in rows] == [p.key for p in ps[8:]]
    r = runner.invoke(app, ["-q", "db", "query", "--size", "9x9", "--limit", "2"])
    assert r.stdout.splitlines()[0].startswith(f"{ps[0].key}  9x9  1 colour(s)  cli  p0")
    assert len(r.stdout.splitlines()) == 2
    out = tmp_path / "sel.rofl"
    r = runner.invoke(app, ["-q", "db", "export", str(out), "--source", "cli2"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["-q", "db", "import", "--db", str(tmp_path / "b.db"), str(out)])
    assert r.exit_code == 0, r.output
    with Corpus.open(tmp_path / "b.db") as b:
        assert sorted(b.keys()) == sorted(p.key for p in ps[8:])
    r = runner.invoke(app, ["db", "query", "--grade", "3..1"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["db", "stats", "--db", str(bad)])
    assert r.exit_code == 4 and "not a nonoforge database" in r.output


# -- everything a file carries survives the corpus ----------------------------------------

#: Tournament sets checked by default (each is 1000 puzzles with ../solution/ goals): the
#: one issue 19 measured and the latest; ``NONOFORGE_ALL_TOURNAMENTS=1`` checks all 27.
TOURNAMENTS = ("taai2011", "icga2022")
META_FIELDS = ("title", "author", "copyright", "licence", "note", "source", "source_id")


def _shared_puzzle_files() -> list[tuple[Path, list[Puzzle]]]:
    """Every third-party file of ../shared that ``convert`` reads, with what it reads."""
    from conftest import shared_path

    from nonoforge.errors import FormatError
    from nonoforge.formats import read_file

    corpora, samples = shared_path("corpora"), shared_path("samples", "formats")
    files = [f for f in sorted(corpora.rglob("*")) if "tournament" not in f.parts]
    files += sorted(samples.rglob("*"))
    every = os.environ.get("NONOFORGE_ALL_TOURNAMENTS") == "1"
    question = corpora / "tournament" / "question"
    files += sorted(question.glob("*.txt")) if every else [
        question / f"{t}.txt" for t in TOURNAMENTS
    ]
    out = []
    for f in files:
        if not f.is_file():
            continue
        try:
            out.append((f, read_file(f)))  # by path, as convert reads it
        except FormatError:
            continue  # READMEs and licences
    return out


def _exported(db: Path, tmp_path: Path) -> dict[str, Puzzle]:
    out = tmp_path / "export.rofl"
    r = CliRunner().invoke(app, ["-q", "db", "export", "--db", str(db), str(out)])
    assert r.exit_code == 0, r.output
    from nonoforge.formats import rofl

    ps = list(rofl.iter_load(out.read_bytes()))
    return {p.key: p for p in ps}


def _check_kept(
    got: dict[str, Puzzle], want: dict[str, list[tuple[dict[str, str | None], Puzzle]]]
) -> None:
    """Every puzzle is back, with its goal and the metadata of one of its provenances."""
    assert set(got) == set(want)
    for key, options in want.items():
        p = got[key]
        fields = {f: getattr(p.meta, f) for f in META_FIELDS}
        assert fields in [f for f, _ in options], (key, fields, options[0][0])
        assert p.palette in [q.canonical().palette for _, q in options], key  # names, RGB
        goals = [q.canonical().goal for _, q in options if q.goal is not None]
        if goals:
            assert p.goal is not None and p.goal in goals, key
        else:
            assert p.goal is None, key


@pytest.mark.slow  # about 30 s: 2,200 real puzzles imported twice
def test_db_import_and_ingest_keep_every_goal_and_metadata_field(tmp_path: Path) -> None:
    """Issue 19: ``db import`` and ``ingest path`` of every shared corpus and sample file
    give back, through ``db export``, every goal and metadata field ``convert`` reads
    (tournament goals from ../solution/, .non ``goal``, XML ``<solution>``, notes)."""
    files = _shared_puzzle_files()
    assert sum(p.goal is not None for _, ps in files for p in ps) > 2000
    runner = CliRunner()

    by_import: dict[str, list[tuple[dict[str, str | None], Puzzle]]] = {}
    by_ingest: dict[str, list[tuple[dict[str, str | None], Puzzle]]] = {}
    for f, ps in files:
        item = str(f.resolve())
        for n, p in enumerate(ps, start=1):
            meta = {k: getattr(p.meta, k) for k in META_FIELDS}
            # db import: a file's own source when it has none, its position for want of an id
            imp = dict(meta, source=meta["source"] or f"file:{f.name}")
            if meta["source"] is None and meta["source_id"] is None:
                imp["source_id"] = str(n)
            by_import.setdefault(p.key, []).append((imp, p))
            # ingest: the fetch-log item (path, path#n) is the id under the site "local"
            ing = dict(meta)
            if meta["source"] is None:
                ing["source"] = "local"
                ing["source_id"] = item if len(ps) == 1 else f"{item}#{n}"
            by_ingest.setdefault(p.key, []).append((ing, p))

    db = tmp_path / "import.db"
    r = runner.invoke(app, ["-q", "db", "import", "--db", str(db), *(str(f) for f, _ in files)])
    assert r.exit_code == 0, r.output
    _check_kept(_exported(db, tmp_path), by_import)

    db = tmp_path / "ingest.db"
    for f, _ in files:
        r = runner.invoke(app, ["-q", "ingest", "path", "--db", str(db), str(f)])
        assert r.exit_code == 0, r.output
    _check_kept(_exported(db, tmp_path), by_ingest)


def test_a_fetched_puzzle_keeps_its_goal_and_note(corpus: Corpus) -> None:
    """A nonograms page's decoded picture is the designer's goal: add_fetched keeps it."""
    p = puzzles(1, 31, size=(7, 5))[0]
    assert p.goal is not None
    p = p.replace(meta=Meta(title="Cat", author="A", note="nonograms.ru difficulty: 3/10"))
    assert corpus.add_fetched("nonograms.ru", "9", p, "done", raw=b"<html>") == "new"
    back = corpus.get(p.key)
    assert back.goal == p.goal
    assert back.meta == Meta(title="Cat", author="A", note="nonograms.ru difficulty: 3/10",
                             source="nonograms.ru", source_id="9")


# -- givens (issue 17): cells printed solved, kept beside the ROFL record -----------------

GIVENS = ROOT / "tests" / "data" / "givens.nonpack"


def test_givens_are_stored_read_back_and_told_apart(corpus: Corpus) -> None:
    """``db add`` of a .non with givens keeps them (ROFL has none: their own column); the
    same clues without givens are another puzzle; get, query and collections give them
    back, in the record's canonical colours."""
    from nonoforge.formats import read_file

    switch, steps = read_file(GIVENS)
    plain = switch.replace(givens=(), meta=Meta(title="no givens"))
    assert corpus.add([switch, steps, plain]) == AddStats(new=3)
    assert corpus.add([switch]) == AddStats(duplicate=1)  # dedup by key, givens included
    for p in (switch, steps, plain):
        got = corpus.get(p.key)
        assert got.givens == p.canonical().givens and got.key == p.key
    assert corpus.get(steps.key).givens == ((0, 0, 1), (4, 5, 2), (5, 0, 0))
    assert {p.key: p.givens for p in corpus.query()} == {
        p.key: p.givens for p in (switch, steps, plain)
    }
    corpus.create_collection("printed", [steps.key, switch.key, plain.key])
    assert [p.givens for p in corpus.collection("printed")] == [
        steps.givens, switch.givens, ()
    ]
    with corpus.engine.connect() as conn:
        stored = dict(conn.execute(select(m.puzzles.c.key, m.puzzles.c.givens)).all())
    assert stored == {switch.key: "1,1,1 9,9,0", steps.key: "0,0,1 4,5,2 5,0,0",
                      plain.key: None}


def test_givens_in_a_colour_puzzle_follow_its_canonical_colours(corpus: Corpus) -> None:
    """A palette in another order is the same puzzle: its givens' colours are renumbered
    as its clues are, so the stored puzzle has the same key."""
    from nonoforge.formats import read_file

    steps = read_file(GIVENS)[1]
    pal = steps.palette
    swapped = Palette((pal[0], pal[2], pal[1]))
    table = [0, 2, 1]
    assert steps.goal is not None
    other = Puzzle.from_grid(
        [[table[v] for v in row] for row in steps.goal.cells.tolist()], swapped,
        meta=Meta(source="swapped"),
    ).replace(givens=[(r, c, table[k]) for r, c, k in steps.givens])
    assert other.key == steps.key
    corpus.add([other])
    assert corpus.add([steps]) == AddStats(merged=1)
    assert corpus.get(steps.key).givens == steps.givens


def test_rofl_export_leaves_out_puzzles_with_givens_saying_why(tmp_path: Path) -> None:
    from nonoforge.formats import read_file

    switch, steps = read_file(GIVENS)
    refused: list[tuple[str, str]] = []
    with Corpus.open(tmp_path / "c.db") as c:
        c.add([switch, steps, *puzzles(3, 40)])
        n = c.export_rofl(tmp_path / "out.rofl", on_refused=lambda k, w: refused.append((k, w)))
    assert n == 3  # one refused item costs only itself
    assert [k for k, _ in refused] == [switch.key, steps.key]
    assert all("format 'rofl' cannot hold given cells" in w for _, w in refused)
    with Corpus.open(tmp_path / "d.db") as d:
        assert d.import_files([tmp_path / "out.rofl"]) == AddStats(new=3)
    runner = CliRunner()
    r = runner.invoke(app, ["db", "export", "--db", str(tmp_path / "c.db"),
                            str(tmp_path / "cli.rofl")])
    assert r.exit_code == FAILED_EXIT, r.output  # the exit code tells at the end
    assert r.stderr.count("left out") == 3  # two puzzles and the summary
    assert "wrote 3 puzzle(s)" in r.stderr and "Traceback" not in r.output
    # db export writes ROFL whatever the name, so the refusal's "use non, ..." needs the
    # command that can: said once, after the summary
    assert "collection export --to DIR --format non" in r.stderr


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


def test_random_givens_round_trip_in_canonical_colours(corpus: Corpus) -> None:
    """Random pictures in 1-3 colours, palettes in any order, a few cells given: every
    puzzle comes back with its givens (renumbered as its colours are), under its key."""
    rng = np.random.default_rng(77)
    ps: list[Puzzle] = []
    for n, ncolors in enumerate([1, 2, 3] * 4):
        base = puzzles(1, 100 + n, size=(6, 5), ncolors=ncolors, source=f"r{n}")[0]
        assert base.goal is not None
        k = int(rng.integers(1, 5))
        cells = {(int(rng.integers(0, 5)), int(rng.integers(0, 6))) for _ in range(k)}
        given = base.replace(givens=[(r, c, int(base.goal.cells[r, c])) for r, c in cells])
        p = given
        if ncolors > 1:  # the same puzzle under a shuffled palette
            order = [0, *(int(i) + 1 for i in rng.permutation(ncolors))]
            inv = {old: new for new, old in enumerate(order)}
            p = Puzzle.from_grid(
                [[inv[v] for v in row] for row in base.goal.cells.tolist()],
                Palette(tuple(base.palette[i] for i in order)), meta=base.meta,
            ).replace(givens=[(r, c, inv[g]) for r, c, g in given.givens])
            assert p.key == given.key
        ps.append(p)
    corpus.add(ps)
    for p in ps:
        got = corpus.get(p.key)
        assert got.givens == p.canonical().givens and got.key == p.key


def test_a_file_with_bad_givens_costs_only_itself(tmp_path: Path) -> None:
    """Import and ingest of a batch: a .non whose givens do not fit its clues is reported
    (file, line, reason) and the others, givens and all, are stored."""
    bad = tmp_path / "bad.non"
    bad.write_text('width 2\nheight 2\nrows\n1\n0\ncolumns\n1\n0\ngoal "1000"\ngivens 1,2,1\n')
    errors: list[tuple[str, str]] = []
    with Corpus.open(tmp_path / "c.db") as c:
        stats = c.import_files([str(bad), str(GIVENS)],
                               on_error=lambda p, e: errors.append((p, str(e))))
        assert stats == AddStats(new=2)
        assert [p.givens != () for p in c.query()] == [True, True]
    [(path, why)] = errors
    assert path == str(bad) and "bad.non:10:" in why and "column has no block" in why
    folder = tmp_path / "in"
    folder.mkdir()
    bad.rename(folder / "bad.non")
    (folder / "givens.nonpack").write_bytes(GIVENS.read_bytes())
    r = CliRunner().invoke(app, ["ingest", "path", "--db", str(tmp_path / "i.db"), str(folder)])
    assert "Traceback" not in r.output and "failed 1" in r.stderr
    with Corpus.open(tmp_path / "i.db") as c:  # the refused item is logged with its reason
        assert len(c) == 2
        [failed] = [e for e in c.fetch_log("local") if e["status"] == "failed"]
        assert failed["item"].endswith("bad.non") and "column has no block" in failed["reason"]


def test_db_import_keeps_every_good_puzzle_of_a_file_with_a_bad_one(tmp_path: Path) -> None:
    """A ``====`` .non bundle (written by hand after mikix's .non samples) whose middle
    puzzle has ``height x`` (line 13): the first and last are imported, the middle reported
    with its line, and the exit code says something failed."""
    import json

    one = 'title "{t}"\nwidth 2\nheight {h}\nrows\n{r}\ncolumns\n{c}\n'
    bundle = tmp_path / "bundle.non"
    bundle.write_text("====\n".join([
        one.format(t="first", h=2, r="2\n2", c="2\n2"),
        one.format(t="bad", h="x", r="2\n2", c="2\n2"),
        one.format(t="last", h=2, r="1\n1", c="0\n2"),
    ]))
    db = str(tmp_path / "c.db")
    result = CliRunner().invoke(app, ["-q", "db", "import", "--db", db, str(bundle)])
    assert result.exit_code == FAILED_EXIT, result.output
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {bundle}:13: "), line
    query = CliRunner().invoke(app, ["db", "query", "--db", db, "--json"])
    assert sorted(r["title"] for r in json.loads(query.stdout)) == ["first", "last"]


def test_import_without_on_error_commits_the_puzzle_read_before_the_bad_one(
    tmp_path: Path,
) -> None:
    """``import_files`` without ``on_error`` raises the first error "after every puzzle read
    before it has been committed": in a bundle whose second puzzle is malformed, the first
    is in the corpus (it was held to learn whether it is alone in the file, then dropped)."""
    one = 'title "{t}"\nwidth 2\nheight {h}\nrows\n2\n2\ncolumns\n2\n2\n'
    bundle = tmp_path / "bundle.non"
    bundle.write_text(one.format(t="first", h=2) + "====\n" + one.format(t="bad", h="x"))
    with Corpus.open(tmp_path / "c.db") as c:
        with pytest.raises(FormatError, match="bundle.non:13"):
            c.import_files([str(bundle)])
        assert [p.meta.title for p in c.query()] == ["first"]


# -- sites: the short name a puzzle's catalogue line is filed under -----------------------

EXAMPLES = ROOT / "nonoforge" / "examples" / "puzzles"


def _cli_json(runner: CliRunner, *args: str) -> object:
    import json

    r = runner.invoke(app, ["-q", *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_the_site_is_stored_apart_from_the_catalogue_line(url: str, tmp_path: Path) -> None:
    # the bundled examples are mikix/nonogram-db files: `catalogue "webpbn.com #N"` and
    # one `catalogue "gnonograms 42.gno"`; the tournament set is a file of its own format
    files = sorted(EXAMPLES.glob("*.non"))
    tournament = ROOT / "tests" / "data" / "tournament" / "question" / "mini.txt"
    runner = CliRunner()
    r = runner.invoke(app, ["-q", "db", "import", "--db", url, *map(str, files),
                            str(tournament), str(ROOT / "tests" / "data" / "dancer.xml")])
    assert r.exit_code == 0, r.output
    webpbn = [f for f in files if "webpbn.com" in f.read_text()]
    assert len(webpbn) == 11
    s = _cli_json(runner, "db", "stats", "--json", "--db", url)
    assert isinstance(s, dict)
    # dancer.xml is webpbn #1 again (its <source> webpbn.com): one puzzle, two provenances
    assert s["by_site"] == {"file": 1, "tournament": 3, "webpbn": 11}
    assert "by_source" not in s
    text_out = runner.invoke(app, ["db", "stats", "--db", url]).stdout
    assert "by site: file 1, tournament 3, webpbn 11" in text_out
    rows = _cli_json(runner, "db", "query", "--source", "webpbn", "--json", "--db", url)
    assert isinstance(rows, list) and len(rows) == 11
    assert {x["site"] for x in rows} == {"webpbn"}
    assert {x["source"] for x in rows} >= {"webpbn.com #1", "webpbn.com #1611"}  # kept
    assert len(_cli_json(runner, "db", "query", "--source", "WebPBN", "--json",
                         "--db", url)) == 11  # type: ignore[arg-type]
    one = _cli_json(runner, "db", "query", "--source", "webpbn.com #1611", "--json",
                    "--db", url)
    assert [x["title"] for x in one] == ["For  merilinnuke aka \"Merka\""]  # type: ignore
    assert len(_cli_json(runner, "db", "query", "--source", "tournament", "--json",
                         "--db", url)) == 3  # type: ignore[arg-type]
    out = tmp_path / "webpbn.rofl"
    r = runner.invoke(app, ["-q", "db", "export", str(out), "--source", "webpbn", "--db", url])
    assert r.exit_code == 0, r.output
    with Corpus.open(tmp_path / "again.db") as c:
        c.import_files([out])
        assert len(c) == 11
        assert c.stats()["by_site"] == {"webpbn": 11}  # the catalogue lines travel along


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


def test_fetched_and_ingested_puzzles_get_their_site(corpus: Corpus, tmp_path: Path) -> None:
    from nonoforge.scraper.ingest import ingest_path

    p, q = puzzles(2, 31, source=None)
    assert corpus.add_fetched("nonograms.org", "7", p, "done") == "new"
    assert corpus.add_fetched("webpbn", "9", q, "done") == "new"
    folder = tmp_path / "in"
    (folder / "question").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "data" / "tournament" / "question" / "mini.txt",
                folder / "question")
    shutil.copy(EXAMPLES / "mum.non", folder)
    shutil.copy(ROOT / "tests" / "data" / "jwilk-data000.nin", folder)
    ingest_path(corpus, str(folder))
    assert corpus.stats()["by_site"] == {
        "file": 1, "nonograms": 1, "tournament": 3, "webpbn": 2,
    }
    assert corpus.keys(source="nonograms") == [p.key]


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


def test_the_shared_survey_set_is_filed_under_its_sites(tmp_path: Path) -> None:
    from conftest import shared_path

    folder = shared_path("corpora", "survey-free")
    with Corpus.open(tmp_path / "s.db") as c:
        c.import_files(sorted(folder.glob("*.non")))
        s = c.stats()
        webpbn = [f for f in folder.glob("*.non") if "webpbn.com" in f.read_text()]
        assert s["by_site"]["webpbn"] == len(webpbn) >= 12
        assert sum(s["by_site"].values()) == s["puzzles"]
        assert len(c.keys(source="webpbn")) == len(webpbn)


# -- a damaged corpus is refused before anything is written into it ----------------------


def _overwrite_middle_pages(path: Path, seed: int) -> None:
    """Garbage over a run of pages in the middle of a SQLite file (its header and schema,
    at the start, stay whole: opening it and reading its schema still work)."""
    with sqlite3.connect(path) as conn:
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    rng = np.random.default_rng(seed)
    with open(path, "r+b") as f:
        for n in range(pages * 2 // 5, pages * 3 // 5):
            f.seek(n * page)
            f.write(rng.integers(0, 256, page, dtype=np.uint8).tobytes())


def test_a_corpus_with_pages_overwritten_is_refused_before_a_write(tmp_path: Path) -> None:
    db = tmp_path / "damaged.db"
    with Corpus.open(db) as c:
        c.add(puzzles(3000, 41, size=(10, 10)))
    assert not (tmp_path / "damaged.db-wal").exists()  # all in the file: checkpointed
    _overwrite_middle_pages(db, 42)
    before = db.read_bytes()
    ps = puzzles(5, 43, size=(7, 7), source=None)
    files = _write_json_files(tmp_path, [ps])
    runner = CliRunner()
    for args in (["db", "import", *files], ["db", "init"], ["ingest", "path", files[0]],
                 ["collection", "build", "c"]):
        r = runner.invoke(app, [*args, "--db", str(db)])
        assert r.exit_code == 4, (args, r.output)
        lines = [x for x in r.output.splitlines() if x.strip()]
        assert len(lines) == 1 and "damaged" in lines[0] and str(db) in lines[0], r.output
    assert db.read_bytes() == before  # nothing was written
    with Corpus.open(db) as c, pytest.raises(CorpusError, match="damaged"):
        c.add(ps)


def test_an_intact_corpus_passes_the_check_on_every_backend(corpus: Corpus) -> None:
    from nonoforge.db.connect import check_intact

    corpus.add(puzzles(3, 44))
    check_intact(corpus.engine)  # no error
    assert corpus.add(puzzles(3, 44)) == AddStats(duplicate=3)


# -- at scale: listings stream, collections are picked in the database -------------------


def test_listing_streams_what_info_gives_page_after_page(url: str) -> None:
    from nonoforge.db.records import CHUNK

    with Corpus.open(url) as c:
        ps = puzzles(CHUNK + 30, 45, size=(5, 4), source="x")
        c.add(ps)
        c.add([ps[3].replace(meta=Meta(source="y", source_id="1"))])  # a second provenance
        rows = c.listing()
        assert not isinstance(rows, list)  # a stream
        got = list(rows)
        assert got == c.info() and len(got) == CHUNK + 30
        assert got[3]["source"] == "x"  # the first provenance
        assert [r["key"] for r in c.listing(limit=CHUNK + 2, source="y")] == [ps[3].key]
        assert [r["key"] for r in c.listing(limit=CHUNK + 2)] == [p.key for p in ps[:CHUNK + 2]]


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


def test_the_head_revision_constant_is_the_migrations_head() -> None:
    from nonoforge.db.connect import HEAD_REVISION, script_info

    assert script_info()[0] == HEAD_REVISION  # a new revision must update HEAD_REVISION


def test_an_ingested_archive_of_the_bundled_examples_is_filed_under_webpbn(
    tmp_path: Path,
) -> None:
    import zipfile

    archive = tmp_path / "examples.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(EXAMPLES.glob("*.non")):
            z.write(f, f"puzzles/{f.name}")
    runner = CliRunner()
    db = str(tmp_path / "z.db")
    r = runner.invoke(app, ["-q", "ingest", str(archive), "--db", db])
    assert r.exit_code == 0, r.output
    s = _cli_json(runner, "db", "stats", "--json", "--db", db)
    assert s["by_site"] == {"file": 1, "webpbn": 11}  # type: ignore[index]
    r = runner.invoke(app, ["-q", "db", "query", "--source", "webpbn", "--db", db])
    assert len(r.stdout.splitlines()) == 11 and "  webpbn  " in r.stdout


@pytest.mark.slow
def test_the_human_features_migration_keeps_ratings_and_rate_fills_them(
    tmp_path: Path,
) -> None:
    """Migration 0009 on a corpus made at revision 0006: its rating is kept with the human
    columns NULL; ``rate --db`` then gives it its human features without timing it again
    (its times and rated_at stay), and rates the rest with them."""
    import json

    from nonoforge.solver import SOLVER_VERSION

    old = tmp_path / "old.db"
    shutil.copy(ROOT / "tests" / "data" / "corpus-0006.db", old)
    with sqlite3.connect(old) as conn:  # a rating as nonoforge at revision 0006 stored it
        pid, key = conn.execute("SELECT id, key FROM puzzles ORDER BY id LIMIT 1").fetchone()
        conn.execute(
            "INSERT INTO results (puzzle_id, solver_version, status, technique, effort, "
            "time_s, times, score, grade, rated_at) VALUES (?, ?, 'unique', 'line', '{}', "
            "0.25, '[0.25]', 0.5, 3, '2026-01-02 03:04:05')", (pid, SOLVER_VERSION))
    with Corpus.open(old) as c:
        (row,) = c.results()
        assert (row["key"], row["times"], row["grade"]) == (key, [0.25], 3)
        assert row["human"] is row["human_score"] is row["human_grade"] is None
        assert [p.key for p, _ in c.lacking_human(SOLVER_VERSION)] == [key]
    from nonoforge.db.connect import HEAD_REVISION

    with sqlite3.connect(old) as conn:  # through 0009 to the head
        assert conn.execute(f"SELECT version_num FROM {m.VERSION_TABLE}").fetchall() == [
            (HEAD_REVISION,)]
    r = CliRunner().invoke(app, ["-q", "rate", "--db", str(old), "--workers", "1", "--runs",
                                 "1", "--budget", "200000", "--json"])
    assert r.exit_code == 0, r.output
    with Corpus.open(old) as c:
        rows = {x["key"]: x for x in c.results(SOLVER_VERSION)}
        assert list(c.lacking_human(SOLVER_VERSION)) == []
    kept = rows[key]
    assert kept["times"] == [0.25] and kept["rated_at"].startswith("2026-01-02")  # not re-timed
    assert kept["human"]["stop"] in ("solved", "stalled", "budget")
    assert kept["human_score"] is not None and kept["human_grade"] is not None
    assert len(rows) == 18 and all(x["human_score"] is not None for x in rows.values()
                                   if x["status"] != "error")
    told = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
    assert any(e.get("key") == key and e["human"] == kept["human"] for e in told)


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


def test_stats_default_to_the_version_rated_last(url: str) -> None:
    with Corpus.open(url) as c:
        ps = puzzles(3, 48)
        c.add(ps)
        c.save_results([{"key": ps[0].key, "grade": 2, "rated_at": "2026-03-01T00:00:00+00:00"}],
                       "b-older")
        c.save_results([{"key": p.key, "grade": 1, "rated_at": "2026-01-01T00:00:00+00:00"}
                        for p in ps], "a-newer")
        c.save_results([{"key": ps[1].key, "grade": 4, "rated_at": "2026-05-01T00:00:00+00:00"}],
                       "a-newer")
        assert c.stats()["solver_version"] == "a-newer"
        assert c.stats()["by_grade"] == {"1": 2, "4": 1}
        assert c.stats("b-older")["by_grade"] == {"2": 1, "unrated": 2}


def test_an_exact_size_selects_what_the_range_does(url: str) -> None:
    with Corpus.open(url) as c:
        c.add(puzzles(4, 49, size=(6, 5)) + puzzles(3, 50, size=(5, 6)) + puzzles(2, 51))
        got = c.keys(min_size=(6, 5), max_size=(6, 5))
        assert got == c.keys(min_size=(6, 5), max_size=(6, 6)) and len(got) == 6
        assert c.keys(colors=1) == c.keys(colors=(1, 1)) == c.keys()
        assert [r["key"] for r in c.listing(min_size=(6, 5), max_size=(6, 5), limit=4)] == got[:4]


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
