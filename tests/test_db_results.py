"""Solver results and difficulty models per solver version (nonoforge/db/results.py),
on SQLite and PostgreSQL, and the human features an old corpus's ratings gain."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from dbfixtures import corpus, puzzles, url
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import Corpus
from nonoforge.db import models as m
from nonoforge.errors import CorpusError
from nonoforge.results import Effort, Mishap, Rating, Verdict

ROOT = Path(__file__).resolve().parents[1]
__all__ = ["corpus", "url"]  # the corpus fixtures, from dbfixtures


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


def test_ratings_are_saved_whole_and_read_back_as_records(corpus: Corpus) -> None:
    """A Rating is saved as its dict face (a failure's reason in ``effort["error"]``, where
    the corpus has always kept it) and :meth:`Corpus.ratings` gives it back, with the
    context the corpus adds (size, colours, solver version, when) and without what it does
    not store (title, CPU times)."""
    ps = puzzles(2, 6)
    corpus.add(ps)
    good = Rating(ps[0].key, Verdict.UNIQUE, "probe",
                  Effort({"line_solves": 40, "sum_lines": 3, "work": 900}), 0.002,
                  (0.002, 0.003, 0.001), score=0.0004, grade=2,
                  human={"steps": 12, "stop": "solved"}, human_score=80.5, human_grade=1,
                  title="not stored", cpu_s=0.001, cpu_times=(0.001,))
    failed = Rating(ps[1].key, Mishap.ERROR, error="the solver process died on this puzzle")
    assert corpus.save_results([good, failed], "v1") == 2
    back = {r.key: r for r in corpus.ratings("v1")}
    p = ps[0]
    for saved, r in ((good, back[p.key]), (failed, back[ps[1].key])):
        assert r.rated_at is not None and r.solver_version == "v1"
        assert r == Rating.from_json({**saved.to_json(), "title": None, "cpu_s": None,
                                      "cpu_times": None, "rated_at": r.rated_at,
                                      "solver_version": "v1", "width": r.width,
                                      "height": r.height, "colors": r.colors})
    assert (back[p.key].width, back[p.key].height) == (p.width, p.height)
    assert list(back[p.key].effort) == ["line_solves", "sum_lines", "work"]  # kept, in order
    row = {r["key"]: r for r in corpus.results("v1")}[ps[1].key]
    assert row["effort"] == {"error": "the solver process died on this puzzle"}
    # the record and its dict face write the same row
    corpus.save_results([good.to_json()], "v2")
    as_dict = corpus.results("v2")[0]
    corpus.save_results([good], "v2")
    assert corpus.results("v2")[0] | {"rated_at": None} == as_dict | {"rated_at": None}


def test_a_stored_status_no_version_wrote_is_refused_in_one_line(corpus: Corpus) -> None:
    ps = puzzles(1, 5)
    corpus.add(ps)
    corpus.save_results([{"key": ps[0].key, "status": "solved"}], "v1")
    assert corpus.results("v1")[0]["status"] == "solved"  # the dict face reads anything
    with pytest.raises(CorpusError, match="stored rating of .* is damaged.*not a rating status"):
        corpus.ratings("v1")


def test_difficulty_model_per_solver_version(corpus: Corpus) -> None:
    assert corpus.get_model("v1") is None
    corpus.set_model("v1", {"knots": [1, 2, 3], "fit": {"rho": 0.93}})
    corpus.set_model("v1", {"knots": [4]})
    corpus.set_model("v2", {"knots": []})
    assert corpus.get_model("v1") == {"knots": [4]}
    assert corpus.get_model("v2") == {"knots": []}


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
