"""Rating, grading, collections and the demo, on a real SQLite corpus and the real solver."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pypdfium2 as pdfium
import pytest
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import Corpus
from nonoforge.examples import PUZZLES
from nonoforge.formats import read_file
from nonoforge.pipeline import jobs
from nonoforge.pipeline.collection import BuildOptions, Filters
from nonoforge.pipeline.difficulty import Model
from nonoforge.pipeline.rate import CUT_OFF, LocalExecutor, RateOptions
from nonoforge.puzzle import Grid, Meta, Puzzle
from nonoforge.ranges import SizeSpan, Span
from nonoforge.results import Rating

FAST = RateOptions(timeout=10.0, runs=1)


def json_lines(text: str) -> list[dict]:
    """``rate --json`` output: every line one whole JSON object (JSON Lines)."""
    assert text == "" or text.endswith("\n"), text[-200:]
    rows = [json.loads(line) for line in text.splitlines()]
    assert all(isinstance(r, dict) for r in rows)
    return rows


def in_order(entries: list[dict], files: list[str]) -> list[dict]:
    """Streamed entries (in the order they finished) put in the order of their files."""
    return sorted(entries, key=lambda e: files.index(e["file"]))


def small_corpus() -> list[Puzzle]:
    """Bundled examples plus seeded random pictures: quick, and of varied difficulty."""
    out = [read_file(PUZZLES / f"{n}.non")[0] for n in ("dancer", "cat", "skid", "edge")]
    rng = np.random.default_rng(11)
    for i in range(10):
        size = 6 + i
        g = (rng.random((size, size)) < 0.55).astype(int) * rng.integers(1, 2 + i % 3, (size, size))
        g[0, 0] = 1
        out.append(Puzzle.from_grid(Grid(g), meta=Meta(title=f"random {i}", source="test")))
    return out


def a_model() -> dict:
    """A fixed model, so that scores and grades are comparable across separate runs."""
    return Model(
        jobs.solver_version(), ["cells", "effort.line_solves"], [1e-6, 2e-6], 1e-4,
        [2e-4, 4e-4, 1e-3, 1e-2],
    ).to_dict()


def rate_into(path: str, executor, puzzles: list[Puzzle]) -> dict[str, dict]:
    with Corpus.open(path) as c:
        c.add(puzzles)
        c.set_model(jobs.solver_version(), a_model())
        jobs.rate_corpus(c, executor=executor, opts=FAST)
        return {r["key"]: r for r in c.results(jobs.solver_version())}


def deterministic_part(rows: dict[str, dict]) -> dict[str, tuple]:
    return {
        k: (r["status"], r["technique"], json.dumps(r["effort"], sort_keys=True), r["score"],
            r["grade"])
        for k, r in rows.items()
    }


def test_rating_is_deterministic_across_runs_and_worker_counts(tmp_path) -> None:
    puzzles = small_corpus()
    one = rate_into(str(tmp_path / "a.db"), LocalExecutor(1), puzzles)
    again = rate_into(str(tmp_path / "b.db"), LocalExecutor(1), puzzles)
    two = rate_into(str(tmp_path / "c.db"), LocalExecutor(2), puzzles)
    assert len(one) == len(puzzles)
    assert deterministic_part(one) == deterministic_part(again) == deterministic_part(two)
    assert all(r["grade"] is not None for r in one.values() if r["status"] == "unique")


def test_rating_resumes_and_skips_what_is_rated(tmp_path) -> None:
    puzzles = small_corpus()
    with Corpus.open(str(tmp_path / "r.db")) as c:
        c.add(puzzles)
        first = jobs.rate_corpus(
            c, executor=LocalExecutor(1), opts=FAST, keys=[p.key for p in puzzles[:5]]
        )
        assert first.rated == 5
        second = jobs.rate_corpus(c, executor=LocalExecutor(1), opts=FAST)
        assert (second.rated, second.skipped) == (len(puzzles) - 5, 5)
        third = jobs.rate_corpus(c, executor=LocalExecutor(1), opts=FAST)
        assert third.rated == 0
        assert len(c.results(jobs.solver_version())) == len(puzzles)


def test_a_puzzle_past_its_budget_or_the_wall_is_recorded_apart_and_the_batch_goes_on(
    tmp_path,
) -> None:
    rng = np.random.default_rng(0)  # a random 60x60: far beyond 50 ms of logic and search
    hard = Puzzle.from_grid(Grid((rng.random((60, 60)) < 0.5).astype(int)))
    easy = small_corpus()[:3]
    statuses = {}
    for name, opts in (("budget", RateOptions(budget=20_000, timeout=60.0, runs=2)),
                       ("wall", RateOptions(budget=None, timeout=0.05, runs=2))):
        with Corpus.open(str(tmp_path / f"{name}.db")) as c:
            c.add([hard, *easy])
            c.set_model(jobs.solver_version(), a_model())
            s = jobs.rate_corpus(c, executor=LocalExecutor(1), opts=opts)
            rows = {r["key"]: r for r in c.results(jobs.solver_version())}
        statuses[name] = rows[hard.key]
        assert rows[hard.key]["grade"] is None and len(rows[hard.key]["times"]) == 1
        if name == "budget":  # under the 50 ms wall a loaded machine may cut the easy too
            assert all(rows[p.key]["status"] == "unique" for p in easy)
            assert all(rows[p.key]["grade"] is not None for p in easy)
        assert s.rated == 4
    assert statuses["budget"]["status"] == "budget"  # deterministic: it has a score
    assert statuses["budget"]["score"] is not None
    assert 20_000 < statuses["budget"]["effort"]["work"] < 40_000
    assert statuses["wall"]["status"] == "timeout_wall"  # the safety net: no score either
    assert statuses["wall"]["score"] is None


def test_dask_executor_gives_the_local_results(tmp_path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    puzzles = small_corpus()[:8]
    local = rate_into(str(tmp_path / "l.db"), LocalExecutor(1), puzzles)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        ex = jobs.make_executor("dask", None, cluster.scheduler_address)
        try:
            remote = rate_into(str(tmp_path / "d.db"), ex, puzzles)
        finally:
            ex.close()
    assert deterministic_part(remote) == deterministic_part(local)
    assert ex.chunks < len(puzzles)  # puzzles travel in chunks, not one task each


def test_a_source_filter_finds_a_puzzle_by_any_of_its_sources(tmp_path) -> None:
    # the puzzle came first from "test", then from "mirror": the corpus keeps both
    # provenances and its meta names the first; --source mirror must still select it
    db = str(tmp_path / "c.db")
    puzzles = small_corpus()
    rate_into(db, LocalExecutor(1), puzzles)
    again = puzzles[-1].replace(meta=Meta(title="again", source="mirror", source_id="9"))
    with Corpus.open(db) as c:
        c.add([again])
        # that puzzle has several solutions: let in, as the source filter is the point
        chosen = jobs.build_collection(c, "mirrored", Filters(source="mirror"), count=5,
                                       opts=BuildOptions(include_ambiguous=True))
    assert [x.puzzle.key for x in chosen] == [again.key]


def test_collection_honours_filters_order_and_exports(tmp_path) -> None:
    db = str(tmp_path / "c.db")
    rate_into(db, LocalExecutor(1), small_corpus())
    with Corpus.open(db) as c:
        chosen = jobs.build_collection(
            c, "mid", Filters(size=SizeSpan.parse("6..12"), colors=Span(1, 2)), count=6
        )
        assert chosen
        for x in chosen:
            assert 6 <= x.puzzle.width <= 12 and x.puzzle.ncolors <= 2
        order = [(x.grade, x.score) for x in chosen]
        assert order == sorted(order)
        stored = c.collection("mid")
        assert [p.key for p in stored] == [x.puzzle.key for x in chosen]
        pdf = jobs.export_collection(c, "mid", str(tmp_path / "mid.pdf"))
        folder = jobs.export_collection(c, "mid", str(tmp_path / "mid"), "non")
        rofl = jobs.export_collection(c, "mid", str(tmp_path / "mid.rofl"))
    assert len(list((tmp_path / "mid").glob("*.non"))) == folder.count == len(chosen)
    assert [p.key for p in read_file(rofl.path)] == [x.puzzle.key for x in chosen]
    doc = pdfium.PdfDocument(pdf.path)
    assert len(doc) >= 2
    assert doc[0].render(scale=0.5).to_pil().size[0] > 0


def test_cli_rate_files_json_and_collection_commands(tmp_path) -> None:
    runner = CliRunner()
    dancer = str(PUZZLES / "dancer.non")
    res = runner.invoke(app, ["--quiet", "rate", "--workers", "1", "--runs", "1", "--json", dancer])
    assert res.exit_code == 0, res.output
    rows = json_lines(res.stdout)
    assert rows[0]["status"] == "unique" and set(rows[0]) >= {
        "key", "status", "technique", "score", "grade", "time_s"}
    db = str(tmp_path / "cli.db")
    files = [str(PUZZLES / f"{n}.non") for n in ("dancer", "cat", "skid", "edge", "bucks",
                                                   "mum", "knot", "swing", "petro", "light")]
    res = runner.invoke(app, ["--quiet", "rate", "--db", db, "--workers", "1", "--runs", "1",
                              *files])
    assert res.exit_code == 0, res.output
    assert "rated 10" in res.stdout
    res = runner.invoke(app, ["collection", "build", "best", "--db", db, "--count", "5",
                              "--json"])
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)) == 5
    res = runner.invoke(app, ["collection", "export", "best", "--db", db, "--to",
                              str(tmp_path / "best.pdf")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "best.pdf").read_bytes()[:5] == b"%PDF-"
    res = runner.invoke(app, ["collection", "build", "x", "--db", db, "--grades", "5-1"])
    assert res.exit_code == 2 and "error:" in res.output


def test_examples_command_and_example_paths() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["examples", "--json"])
    names = {e["name"] for e in json.loads(res.stdout)}
    assert {"dancer", "koala"} <= names
    res = runner.invoke(app, ["info", "--json", "example:dancer"])
    assert res.exit_code == 0 and json.loads(res.stdout)[0]["width"] == 5
    res = runner.invoke(app, ["info", "example:nope"])
    assert res.exit_code == 2 and "no bundled example" in res.output


def test_demo_runs_end_to_end(tmp_path) -> None:
    res = CliRunner().invoke(app, ["demo", "--out", str(tmp_path / "d"), "--workers", "1",
                                   "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["generated_count"] >= 6
    assert report["rating"]["rated"] >= 18
    doc = pdfium.PdfDocument(report["pdf"])
    assert len(doc) > 5
    with open(report["pdf"], "rb") as f:  # print-ready: fonts embedded, no core font
        pdf = f.read()
    assert b"/FontFile2" in pdf and b"/Helvetica" not in pdf
    assert len(read_file(report["rofl"])) == len(report["collection"])


def rate_or_die(p: Puzzle, opts: RateOptions) -> Rating:
    """The real rating, except that the worker process dies outright on one puzzle."""
    import os

    from nonoforge.pipeline.rate import rate_one

    if p.meta.title == "boom":
        os._exit(9)
    return rate_one(p, opts)


def test_a_worker_that_dies_costs_one_puzzle_not_the_batch() -> None:
    puzzles = small_corpus()[:6]
    puzzles[2] = puzzles[2].replace(meta=Meta(title="boom"))
    rows = list(LocalExecutor(2).map_unordered(rate_or_die, puzzles, FAST))
    by_key = {r.key: r for r in rows}
    assert len(rows) == len(puzzles) == len(by_key)
    assert by_key[puzzles[2].key].status == "error"
    assert all(by_key[p.key].status == "unique" for i, p in enumerate(puzzles) if i != 2)


def sixty_four_colours() -> Puzzle:
    """A valid puzzle the solver refuses: 64 colours (it handles at most 63)."""
    from nonoforge.puzzle import WHITE, Color, Palette

    g = (np.arange(8 * 16).reshape(8, 16) % 64) + 1
    pal = Palette((WHITE, *[Color(f"c{i}", (i * 3, 255 - i * 3, i)) for i in range(64)]))
    return Puzzle.from_grid(Grid(g), meta=Meta(title="sixty-four"), palette=pal)


def a_bad_batch(tmp_path) -> list[str]:
    """Good files with a refused puzzle, a binary file and a missing file among them."""
    from nonoforge.formats import write_file

    write_file(sixty_four_colours(), tmp_path / "64.xml", "xml")
    (tmp_path / "junk.non").write_bytes(bytes(range(256)) * 4)
    return [str(PUZZLES / "dancer.non"), str(tmp_path / "64.xml"), str(tmp_path / "junk.non"),
            str(PUZZLES / "cat.non"), str(tmp_path / "absent.non"), str(PUZZLES / "skid.non")]


def test_rate_files_one_bad_item_costs_only_itself(tmp_path) -> None:
    files = a_bad_batch(tmp_path)
    res = CliRunner().invoke(app, ["--quiet", "rate", "--workers", "2", "--runs", "1", "--json",
                                   *files])
    assert res.exit_code == 2, res.output
    entries = in_order(json_lines(res.stdout), files)
    assert [e["file"] for e in entries] == files  # one entry per item
    assert entries[1]["status"] == "error" and "63 colours" in entries[1]["error"]
    assert set(entries[2]) == {"file", "error"} and set(entries[4]) == {"file", "error"}
    assert "no such file" in entries[4]["error"]
    for i in (0, 3, 5):
        assert entries[i]["status"] == "unique" and "error" not in entries[i]
    assert res.stderr.count("error:") == 3


def test_rate_db_records_the_refused_puzzle_and_fills_titles(tmp_path) -> None:
    files = a_bad_batch(tmp_path)
    db = str(tmp_path / "bad.db")
    res = CliRunner().invoke(app, ["--quiet", "rate", "--db", db, "--workers", "1", "--runs", "1",
                                   "--json", *files])
    assert res.exit_code == 2, res.output
    entries = in_order(json_lines(res.stdout), files)
    assert [e["file"] for e in entries] == files
    assert entries[0]["title"] == "Demo Puzzle from Front Page"
    assert entries[3]["title"] == "Scardy Cat"
    with Corpus.open(db) as c:
        rows = {r["key"]: r for r in c.results(jobs.solver_version())}
    refused = rows[sixty_four_colours().key]
    assert refused["status"] == "error" and "63 colours" in refused["effort"]["error"]
    assert len(rows) == 4
    # the whole corpus, titled, in corpus order
    res = CliRunner().invoke(app, ["--quiet", "rate", "--db", db, "--json"])
    assert res.exit_code == 2
    whole = json_lines(res.stdout)  # nothing left to rate: all told at the end, in order
    assert [e["key"] for e in whole] == [e["key"] for e in entries if "key" in e]
    assert all(e["title"] for e in whole)


def _children_of(root: int) -> set[int]:
    """Every live descendant of ``root`` (read from /proc)."""
    import os

    parents: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(d)] = int(fields[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="reads /proc")
def test_killing_rate_workers_2_loses_nothing_and_leaves_no_process(tmp_path) -> None:
    """kill -9 / SIGTERM at seeded points of `rate --workers 2`; re-run; all complete."""
    import os
    import random
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    rng = np.random.default_rng(5)
    puzzles = []
    for i in range(150):  # 25x25..40x40 random pictures: about a minute of rating on 2 cores
        n = int(rng.integers(25, 41))
        g = (rng.random((n, n)) < rng.uniform(0.5, 0.65)).astype(int)
        puzzles.append(Puzzle.from_grid(Grid(g), meta=Meta(title=f"kill {i}", source="test")))
    db = str(tmp_path / "kill.db")
    with Corpus.open(db) as c:
        c.add(puzzles)
    cmd = [sys.executable, "-m", "nonoforge", "--quiet", "rate", "--db", db, "--workers", "2",
           "--runs", "3", "--timeout", "2"]
    env = {**os.environ, "PYTHONPATH": str(__import__("pathlib").Path(__file__).parents[1])}
    version = jobs.solver_version()
    seeds = random.Random(14)
    for point in range(4):
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + seeds.uniform(2.0, 9.0)
        seen: set[int] = set()
        while time.monotonic() < deadline and proc.poll() is None:
            seen |= _children_of(proc.pid)
            time.sleep(0.1)
        seen |= _children_of(proc.pid)
        proc.send_signal(signal.SIGKILL if point % 2 == 0 else signal.SIGTERM)
        proc.wait(300)  # a hang guard, not a measure
        end = time.monotonic() + 60  # a guard for a loaded machine
        while any(_alive(p) for p in seen) and time.monotonic() < end:
            time.sleep(0.1)
        left = [p for p in seen if _alive(p)]
        for p in left:  # do not leave them to the next test, but fail
            os.kill(p, signal.SIGKILL)
        assert not left, f"kill point {point}: processes of the killed run left: {left}"
        with sqlite3.connect(db) as con:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with Corpus.open(db) as c:
            for r in c.results(version):  # every saved row is whole (score comes at the end)
                assert r["status"] and r["effort"] is not None, r
                assert len(r["times"]) == (1 if r["status"] in CUT_OFF else 3), r
    # a guard against a hang, not a measure: the rest of the ratings at load 15 take minutes
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    with Corpus.open(db) as c:
        rows = c.results(version)
    assert sorted(r["key"] for r in rows) == sorted(p.key for p in puzzles)
    for r in rows:
        assert r["status"] in ("unique", "multiple", *CUT_OFF)
        assert len(r["times"]) == (1 if r["status"] in CUT_OFF else 3)
        assert (r["score"] is None) == (r["status"] == "timeout_wall")
        assert (r["grade"] is not None) == (r["status"] in ("unique", "multiple"))
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_site_difficulty_reads_the_nonograms_fraction() -> None:
    from nonoforge.pipeline.rate import Summary, site_difficulty

    assert site_difficulty({"difficulty": "3/10"}) == 3.0
    assert site_difficulty({"difficulty": "1/5"}) == 2.0
    assert site_difficulty({"difficulty": "?"}) is None
    assert site_difficulty(None) is None and site_difficulty({}) is None
    s = Summary()
    s.compare_site([(1, 1.0), (2, 3.0), (3, 2.0), (5, 9.0)])
    assert s.site_difficulty == {"n": 4, "spearman": pytest.approx(0.8)}


def test_rate_summary_compares_grades_with_the_sites_difficulty(tmp_path) -> None:
    import inspect

    if "extra" not in inspect.signature(Corpus.add_fetched).parameters:
        pytest.skip("the corpus keeps no site provenance extra on this branch yet")
    puzzles = small_corpus()
    with Corpus.open(str(tmp_path / "s.db")) as c:
        for i, p in enumerate(puzzles):  # the site's difficulty: by size, a plausible signal
            c.add_fetched("nonograms", str(i), p, "done",
                          extra={"difficulty": f"{min(10, p.width // 2)}/10"})
        c.set_model(jobs.solver_version(), a_model())
        s = jobs.rate_corpus(c, executor=LocalExecutor(1), opts=FAST).to_dict()
    assert s["site_difficulty"]["n"] >= 10
    assert -1.0 <= s["site_difficulty"]["spearman"] <= 1.0


def test_rating_a_corpus_reads_its_results_and_listing_once(tmp_path, monkeypatch) -> None:
    """`rate --db` (whole corpus, and files added to it): grading reads every result and
    the listing (titles, the site's difficulty); the report reuses them, not a second read."""
    db = str(tmp_path / "once.db")
    puzzles = small_corpus()[:6]
    with Corpus.open(db) as c:
        c.add(puzzles[:3])
    reads: dict[str, int] = {}
    for name in ("results", "info"):
        real = getattr(Corpus, name)

        def counted(self, *a, _real=real, _name=name, **k):  # the real method, counted
            reads[_name] = reads.get(_name, 0) + 1
            return _real(self, *a, **k)

        monkeypatch.setattr(Corpus, name, counted)
    run = jobs.rate_inputs(None, db, executor=LocalExecutor(1), opts=FAST)
    assert len(run.entries) == 3 and all(e["title"] for e in run.entries)
    assert reads == {"results": 1, "info": 1}
    reads.clear()
    files = []
    for i, p in enumerate(puzzles[3:]):
        f = tmp_path / f"p{i}.non"
        from nonoforge.formats import write_file

        write_file(p, f)
        files.append(str(f))
    run = jobs.rate_inputs(files, db, executor=LocalExecutor(1), opts=FAST)
    assert [e["file"] for e in run.entries] == files
    assert reads == {"results": 1, "info": 1}


def thirty_files() -> list[str]:
    """The 12 bundled puzzles and 18 of Jakub Wilk's test puzzles (MIT): 30 real files."""
    from conftest import shared_path

    wilk = sorted(shared_path("corpora", "jwilk-nin").glob("*.nin"))[::8][:18]
    return sorted(str(f) for f in PUZZLES.glob("*.non")) + [str(f) for f in wilk]


def verdicts(entries: list[dict]) -> list[tuple]:
    return [(e["file"], e["status"], e["technique"], json.dumps(e["effort"], sort_keys=True),
             e["score"], e["grade"]) for e in entries]


@pytest.mark.slow
def test_rate_30_files_same_verdicts_scores_grades_with_1_or_2_workers_and_under_load() -> None:
    import subprocess
    import sys

    files = thirty_files()
    assert len(files) == 30

    def rate(workers: str) -> list[dict]:
        res = CliRunner().invoke(app, ["--quiet", "rate", "--workers", workers, "--runs", "1",
                                       "--json", *files])
        assert res.exit_code == 0, res.output
        return in_order(json_lines(res.stdout), files)

    one = rate("1")
    assert [e["file"] for e in one] == files
    for e in one:  # a score and a grade for each, from the shipped reference model
        assert e["status"] in ("unique", "multiple") and e["score"] is not None, e
        assert e["grade"] in range(1, 6), e
    two = rate("2")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded = rate("2")
    finally:
        for b in busy:
            b.kill()
            b.wait()
    assert verdicts(one) == verdicts(two) == verdicts(loaded)


@pytest.mark.slow
def test_a_puzzle_grades_the_same_alone_and_in_a_corpus_of_2000(tmp_path) -> None:
    named = [read_file(PUZZLES / f"{n}.non")[0] for n in ("dancer", "cat", "skid", "knot")]
    alone, _ = jobs.rate_puzzles(named, executor=LocalExecutor(1), opts=FAST)
    rng = np.random.default_rng(2000)
    others: list[Puzzle] = []
    seen = {p.key for p in named}
    while len(others) < 2000 - len(named):
        n = int(rng.integers(4, 11))
        g = (rng.random((n, n)) < rng.uniform(0.4, 0.8)).astype(int)
        g[0, 0] = 1
        p = Puzzle.from_grid(Grid(g))
        if p.key not in seen:
            seen.add(p.key)
            others.append(p)
    with Corpus.open(str(tmp_path / "big.db")) as c:
        c.add([*others[:1000], *named, *others[1000:]])
        s = jobs.rate_corpus(c, executor=LocalExecutor(2), opts=FAST)
        rows = {r["key"]: r for r in c.results(jobs.solver_version())}
    assert s.rated == 2000 and s.model_fit["kind"] == "reference"
    for a in alone:
        assert a.grade is not None
        assert (rows[a.key]["grade"], rows[a.key]["score"]) == (a.grade, a.score)


@pytest.mark.slow
def test_dask_on_a_cluster_of_separate_processes_gives_the_local_results(tmp_path) -> None:
    """`dask scheduler` plus two `dask worker` processes on 127.0.0.1, as a user starts them."""
    import os
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    distributed = pytest.importorskip("dask.distributed")
    dask = Path(sys.executable).parent / "dask"
    if not dask.exists():
        pytest.skip("no dask command beside this Python")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    quiet = {"env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port",
                               str(port), "--no-dashboard"], **quiet)]
    procs += [subprocess.Popen([str(dask), "worker", address, "--nthreads", "1", "--nworkers",
                                "1", "--no-dashboard", "--host", "127.0.0.1"], **quiet)
              for _ in range(2)]
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with distributed.Client(address, timeout="5s") as c:
                    c.wait_for_workers(2, timeout=90)
                break
            except OSError:
                assert time.monotonic() < deadline, "the Dask cluster did not start"
                time.sleep(0.5)
        puzzles = small_corpus()
        ex = jobs.make_executor("dask", None, address)
        try:
            remote = rate_into(str(tmp_path / "p.db"), ex, puzzles)
        finally:
            ex.close()
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    local = rate_into(str(tmp_path / "l.db"), LocalExecutor(1), puzzles)
    assert deterministic_part(remote) == deterministic_part(local)
    assert ex.chunks < len(puzzles)


# -- issue 38: folders, JSON Lines, resumable corpus ratings --------------------------------


def test_rate_a_folder_reads_what_db_import_reads(tmp_path) -> None:
    """`rate FOLDER` walks the folder as `db import FOLDER` does: the same puzzles, nested
    folders included, files of no format we read (a README) and hidden ones left out."""
    import shutil

    from conftest import shared_path

    root = tmp_path / "puzzles"
    (root / "nested").mkdir(parents=True)
    for n in ("dancer", "cat", "skid"):
        shutil.copy(PUZZLES / f"{n}.non", root / f"{n}.non")
    shutil.copy(PUZZLES / "knot.non", root / "nested" / "knot.non")
    shutil.copy(PUZZLES / "edge.non", root / ".hidden.non")
    (root / "README.md").write_text("# not a puzzle\n")
    for f in sorted(shared_path("corpora", "jwilk-nin").glob("*.nin"))[:3]:
        shutil.copy(f, root / "nested" / f.name)
    runner = CliRunner()
    res = runner.invoke(app, ["--quiet", "rate", "--workers", "1", "--runs", "1", "--json",
                              str(root)])
    assert res.exit_code == 0, res.output
    rated = json_lines(res.stdout)
    assert len(rated) == 7 and all(e["status"] in ("unique", "multiple") for e in rated)
    assert all(e["file"].startswith(str(root)) for e in rated)
    db = str(tmp_path / "i.db")
    res = runner.invoke(app, ["--quiet", "db", "import", "--db", db, str(root)])
    assert res.exit_code == 0, res.output
    with Corpus.open(db) as c:
        assert sorted(c.keys()) == sorted(e["key"] for e in rated)
    # into a corpus too: the folder's puzzles are added and rated
    res = runner.invoke(app, ["--quiet", "rate", "--db", str(tmp_path / "r.db"), "--workers",
                              "1", "--runs", "1", "--json", str(root)])
    assert res.exit_code == 0, res.output
    assert sorted(e["key"] for e in json_lines(res.stdout)) == sorted(e["key"] for e in rated)
    # a folder with nothing we read is an error of its own; the rest is rated
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.md").write_text("nothing here\n")
    res = runner.invoke(app, ["--quiet", "rate", "--workers", "1", "--runs", "1", "--json",
                              str(tmp_path / "empty"), "example:dancer"])
    assert res.exit_code == 2, res.output
    entries = json_lines(res.stdout)
    assert entries[0] == {"file": str(tmp_path / "empty"),
                          "error": "no puzzle file in this folder: 1 file(s) that are not "
                                   "puzzle files (notes.md)"}
    assert entries[1]["status"] == "unique"
    assert res.stderr.count("error:") == 1


def test_rate_help_gives_the_budget_default_once() -> None:
    res = CliRunner().invoke(app, ["rate", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert res.stdout.count("20000000") == 1 and "[default: 20000000]" in res.stdout


def test_unrated_puzzles_come_from_a_query_and_a_resume_rewrites_nothing(
    tmp_path, monkeypatch,
) -> None:
    """The corpus names the puzzles a version has not rated (all, or of given keys); a run
    over a fully rated corpus rates nothing and writes no result back."""
    puzzles = small_corpus()
    version = jobs.solver_version()
    with Corpus.open(str(tmp_path / "q.db")) as c:
        c.add(puzzles)
        c.set_model(version, a_model())
        jobs.rate_corpus(c, executor=LocalExecutor(1), opts=FAST,
                         keys=[p.key for p in puzzles[::2]])
        left = [p.key for p in puzzles[1::2]]
        assert [p.key for p in c.unrated(version)] == left
        assert c.unrated_count(version) == len(left) and c.rated_count(version) == 7
        some = [puzzles[0].key, puzzles[1].key, puzzles[3].key]
        assert [p.key for p in c.unrated(version, some)] == [puzzles[1].key, puzzles[3].key]
        assert c.unrated_count(version, some) == 2 and c.rated_count(version, some) == 1
        assert [p.meta.title for p in c.unrated(version)] == [p.meta.title for p in puzzles[1::2]]
        jobs.rate_corpus(c, executor=LocalExecutor(1), opts=FAST)
        before = c.results(version)
        saved: list[int] = []
        real = Corpus.save_results

        def counted(self, rows, *a, **k):  # the real method, its rows counted
            rows = list(rows)
            saved.append(len(rows))
            return real(self, rows, *a, **k)

        monkeypatch.setattr(Corpus, "save_results", counted)
        s = jobs.rate_corpus(c, executor=LocalExecutor(2), opts=FAST)
        assert (s.rated, s.skipped) == (0, len(puzzles))
        assert sum(saved) == 0  # nothing changed, nothing written
        assert c.results(version) == before


def test_every_saved_rating_is_graded_and_counted_by_db_stats(tmp_path) -> None:
    """Ratings are graded as they are saved; db stats counts a rated puzzle that has no
    grade (cut off by the budget) as ungraded, not unrated."""
    rng = np.random.default_rng(0)
    hard = Puzzle.from_grid(Grid((rng.random((60, 60)) < 0.5).astype(int)))
    puzzles = [hard, *small_corpus()[:5]]
    db = str(tmp_path / "g.db")
    with Corpus.open(db) as c:
        c.add(puzzles)
        c.set_model(jobs.solver_version(), a_model())
        seen: list[Rating] = []
        jobs.rate_corpus(c, executor=LocalExecutor(1), opts=replace(FAST, budget=20_000),
                         progress=lambda ev: seen.append(ev["row"]) if "row" in ev else None)
        stored = {r.key: r for r in c.ratings(jobs.solver_version())}
    for row in seen:  # as it finished, each carried the grade it was saved with
        assert (row.score, row.grade) == (stored[row.key].score, stored[row.key].grade)
    res = CliRunner().invoke(app, ["db", "stats", "--db", db, "--json"])
    assert res.exit_code == 0, res.output
    by_grade = json.loads(res.stdout)["by_grade"]
    assert by_grade.get("ungraded") == 1 and "unrated" not in by_grade
    assert sum(by_grade.values()) == len(puzzles)


def random_pictures(n: int, seed: int) -> list[Puzzle]:
    """``n`` random 25x25..40x40 pictures: about 10 s of rating for 300 on 2 cores."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        side = int(rng.integers(25, 41))
        g = (rng.random((side, side)) < rng.uniform(0.5, 0.65)).astype(int)
        out.append(Puzzle.from_grid(Grid(g), meta=Meta(title=f"pic {i}", source="test")))
    return out


def _run_until(cmd: list[str], out_path, lines: int, sig: int) -> int:
    """Start ``cmd`` with stdout to a file, signal it once the file holds ``lines`` lines
    (or the run ends), and return its exit code."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    with open(out_path, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "nonoforge", *cmd], env=env,
                                stdout=out, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 600  # a guard against a hang, not a measure
        while proc.poll() is None and time.monotonic() < end:
            if Path(out_path).read_bytes().count(b"\n") >= lines:
                proc.send_signal(sig)
                break
            time.sleep(0.05)
        return proc.wait(300)  # a guard against a hang after the signal, not a measure


@pytest.mark.slow
def test_an_interrupted_rate_json_keeps_every_finished_rating_as_a_whole_line(tmp_path) -> None:
    """`rate --json > out` stopped midway (SIGTERM, Ctrl-C, kill -9): every rating that was
    written is a whole JSON line, none is cut, and what was there at the signal stays."""
    import signal

    from nonoforge.formats import write_file

    files = []
    for i, p in enumerate(random_pictures(300, 38)):
        f = tmp_path / f"p{i:03d}.non"
        write_file(p, f)
        files.append(str(f))
    for n, sig in enumerate((signal.SIGTERM, signal.SIGINT, signal.SIGKILL)):
        out = tmp_path / f"out{n}.jsonl"
        code = _run_until(["--quiet", "rate", "--json", "--workers", "2", "--runs", "3",
                           *files], out, 10, sig)
        text = out.read_text()
        rows = json_lines(text)  # whole lines only, the last one ended
        assert len(rows) >= 10, (sig, code, len(rows))
        assert len(rows) < len(files), "the run ended before the signal: nothing was tested"
        assert all(r["status"] in ("unique", "multiple", *CUT_OFF) for r in rows)
        assert len({r["file"] for r in rows}) == len(rows)
        if sig != signal.SIGKILL:
            assert code == 130, code  # "interrupted"


@pytest.mark.slow
def test_a_killed_rate_db_keeps_each_finished_rating_counted_and_a_rerun_rates_the_rest(
    tmp_path,
) -> None:
    """`rate --db --json` stopped by SIGTERM midway: each rating it wrote out is saved with
    its grade, `db stats` counts them (not "unrated"), and the next run rates only the rest."""
    import signal
    import subprocess
    import sys

    puzzles = random_pictures(300, 825)
    db = str(tmp_path / "kill.db")
    with Corpus.open(db) as c:
        c.add(puzzles)
    out = tmp_path / "out.jsonl"
    cmd = ["--quiet", "rate", "--db", db, "--json", "--workers", "2", "--runs", "3"]
    assert _run_until(cmd, out, 20, signal.SIGTERM) == 130
    told = json_lines(out.read_text())
    version = jobs.solver_version()
    with Corpus.open(db) as c:
        saved = {r["key"]: r for r in c.results(version)}
    assert len(told) >= 20 and len(saved) < len(puzzles)
    assert {r["key"] for r in told} <= set(saved)  # all it told is saved...
    assert len(saved) - len(told) <= 1  # ...and at most the one the signal caught untold
    for r in told:
        assert (saved[r["key"]]["score"], saved[r["key"]]["grade"]) == (r["score"], r["grade"])
        assert (r["grade"] is not None) == (r["status"] in ("unique", "multiple"))
    res = CliRunner().invoke(app, ["db", "stats", "--db", db, "--json"])
    by_grade = json.loads(res.stdout)["by_grade"]
    assert by_grade["unrated"] == len(puzzles) - len(saved)
    assert sum(n for g, n in by_grade.items() if g != "unrated") == len(saved)
    env = {**__import__("os").environ,
           "PYTHONPATH": str(__import__("pathlib").Path(__file__).parents[1])}
    done = subprocess.run([sys.executable, "-m", "nonoforge", "rate", "--db", db, "--workers",
                           "2", "--runs", "3"], env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    assert (f"rated {len(puzzles) - len(saved)} puzzle(s), skipped {len(saved)} already rated"
            in done.stdout), done.stdout
    with Corpus.open(db) as c:
        assert len(c.results(version)) == len(puzzles)
