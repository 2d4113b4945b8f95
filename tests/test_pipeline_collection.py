"""Collection selection: filters, balance over grades, symmetry dedup, easy-to-hard order."""

from __future__ import annotations

import numpy as np
import pytest

from nonoforge.pipeline.collection import Candidate, Filters, select, shape_key
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.ranges import SizeSpan, Span


def rand_puzzle(seed: int, w: int = 10, h: int = 10, colors: int = 1) -> Puzzle:
    g = np.random.default_rng(seed).integers(0, colors + 1, (h, w))
    g[0, 0] = 1
    return Puzzle.from_grid(Grid(g))


def pool() -> list[Candidate]:
    out = []
    for i in range(100):
        size = 5 + (i % 5) * 5
        p = rand_puzzle(i, size, size, 1 + i % 3)
        out.append(Candidate(p, grade=1 + i % 5, score=i / 10, source=("a", "b")[i % 2]))
    return out


def test_filters_are_honoured_and_order_is_easy_to_hard() -> None:
    f = Filters(grade=Span(1, 3), size=SizeSpan.parse("10x10..20x20"), colors=Span(1, 2))
    chosen = select(pool(), f, 12)
    assert len(chosen) == 12
    for c in chosen:
        assert 1 <= c.grade <= 3
        assert 10 <= c.puzzle.width <= 20 and 10 <= c.puzzle.height <= 20
        assert 1 <= c.puzzle.ncolors <= 2
    order = [(c.grade, c.score) for c in chosen]
    assert order == sorted(order)


def test_grades_are_balanced() -> None:
    chosen = select(pool(), Filters(grade=Span(1, 5)), 15)
    counts = [sum(1 for c in chosen if c.grade == g) for g in range(1, 6)]
    assert counts == [3, 3, 3, 3, 3]


def test_source_filter_and_short_supply() -> None:
    chosen = select(pool(), Filters(source="a"), 1000)
    assert chosen and all(c.source == "a" for c in chosen)
    assert len(chosen) == 50


def test_mirror_images_and_transposes_count_once() -> None:
    p = rand_puzzle(3, 6, 4)
    g = p.goal.cells
    variants = [np.fliplr(g), np.flipud(g), g.T, np.rot90(g)]
    keys = {shape_key(Puzzle.from_grid(Grid(v))) for v in variants}
    assert keys == {shape_key(p)}
    cands = [Candidate(Puzzle.from_grid(Grid(v)), 1, float(i)) for i, v in enumerate(variants)]
    assert len(select(cands, Filters(), 10)) == 1


def test_ungraded_puzzles_never_enter() -> None:
    assert select([Candidate(rand_puzzle(1), None, 0.0)], Filters(), 10) == []


def test_filters_admit_open_and_exact_ranges() -> None:
    p = rand_puzzle(1, 12, 8, 2)
    cand = Candidate(p, grade=4, score=1.0, source="b")
    for f, admitted in (
        (Filters(), True),
        (Filters(size=SizeSpan.parse("..12")), True),
        (Filters(size=SizeSpan.parse("..10")), False),  # width 12 is too wide
        (Filters(size=SizeSpan.parse("12x8")), True),
        (Filters(grade=Span(None, 3)), False),
        (Filters(grade=Span(4, None), colors=Span(2, 2), source="b"), True),
        (Filters(width=12, height=9), False),
    ):
        assert (select([cand], f, 1) == [cand]) is admitted, f


# -- picking in the database: the same collection, at the cost of the collection ----------


def _rated_corpus(tmp_path, n: int, version: str = "v-test"):  # noqa: ANN202
    """A real SQLite corpus of ``n`` random puzzles, rated as ``rate --db`` saves ratings
    (grade 1-5, distinct scores), and the candidates :func:`select` would be given."""
    from nonoforge.db import Corpus

    c = Corpus.open(tmp_path / "c.db")
    ps = [rand_puzzle(1000 + i, 5 + i % 4, 6) for i in range(n)]
    c.add(ps)
    scores = {p.key: (1 + i % 5, ((i * 7919) % n) / 10) for i, p in enumerate(ps)}
    c.save_results([{"key": k, "grade": g, "score": s} for k, (g, s) in scores.items()],
                   version)
    cands = [Candidate(p, scores[p.key][0], scores[p.key][1]) for p in ps]
    return c, cands


def test_pick_of_a_small_supply_is_select_on_everything(tmp_path) -> None:
    from nonoforge.pipeline.collection import pick

    c, cands = _rated_corpus(tmp_path, 300)
    with c:
        # at most SMALL_SUPPLY (4) times the count qualify: every candidate is read
        for f, count in ((Filters(grade=Span(1, 3)), 50), (Filters(), 75),
                         (Filters(size=SizeSpan.parse("6x6..7x7"), grade=Span(2, 4)), 23),
                         (Filters(grade=Span(5, 5)), 200)):
            want = select(cands, f, count)
            got = pick(c, "v-test", f, count)
            assert [x.puzzle.key for x in got] == [x.puzzle.key for x in want], f
            assert [(x.grade, x.score) for x in got] == [(x.grade, x.score) for x in want]
        assert pick(c, "other-version", Filters(), 5) == []


def _seeked(cands: list[Candidate], f: Filters, count: int) -> list[Candidate]:
    """What a pick from a large supply takes, worked out on the candidates in plain Python
    (no shape repeats among them): each grade's quota of even shares, and for each of its
    ``n`` picks the first candidate after the previous pick scoring at least the i-th of
    ``n`` evenly spaced scores over the grade's range."""
    from nonoforge.pipeline.collection import _quotas

    ok = [c for c in cands if f.admits(width=c.puzzle.width, height=c.puzzle.height,
                                       colors=c.puzzle.ncolors, grade=c.grade)]
    by_grade = {g: sorted((c for c in ok if c.grade == g), key=lambda c: c.score)
                for g in {c.grade for c in ok}}
    out = []
    for g, n in sorted(_quotas({g: len(v) for g, v in by_grade.items()}, count).items()):
        row = by_grade[g]
        lo, hi = row[0].score, row[-1].score
        i = 0
        for k in range(n):
            target = lo + (hi - lo) * (2 * k + 1) / (2 * n)
            while row[i].score < target:
                i += 1
            out.append(row[i])
            i += 1
    return sorted(out, key=lambda c: (c.grade, c.score))


def test_pick_of_a_large_supply_seeks_evenly_spaced_scores_in_each_grade(tmp_path) -> None:
    from collections import Counter

    from nonoforge.pipeline.collection import pick

    c, cands = _rated_corpus(tmp_path, 300)
    assert len({shape_key(x.puzzle) for x in cands}) == len(cands)
    with c:
        for f, count in ((Filters(grade=Span(1, 3)), 12), (Filters(), 7), (Filters(), 20),
                         (Filters(size=SizeSpan.parse("6x6..7x7"), grade=Span(2, 4)), 9)):
            got = pick(c, "v-test", f, count)
            want = _seeked(cands, f, count)
            assert [(x.puzzle.key, x.grade, x.score) for x in got] == [
                (x.puzzle.key, x.grade, x.score) for x in want], f
            assert pick(c, "v-test", f, count) == got  # deterministic
            per_grade = Counter(x.grade for x in got)
            assert max(per_grade.values()) - min(per_grade.values()) <= 1  # balanced
        # a quota of 4 in each grade of 60, scores spread over 0..29.9: one pick in each
        # quarter of the grade's range
        got = pick(c, "v-test", Filters(), 20)
        for g in range(1, 6):
            scores = [x.score for x in got if x.grade == g]
            row = sorted(x.score for x in cands if x.grade == g)
            quarter = (row[-1] - row[0]) / 4
            assert [int((s - row[0]) // quarter) for s in scores] == [0, 1, 2, 3]


def test_pick_fills_from_the_bottom_when_the_seeks_run_off_the_top(tmp_path) -> None:
    from nonoforge.db import Corpus
    from nonoforge.pipeline.collection import pick

    ps = [rand_puzzle(3000 + i, 6, 7) for i in range(50)]
    with Corpus.open(tmp_path / "t.db") as c:
        c.add(ps)
        # 49 scores bunched in 0.00..0.48 under one at 100: the first seek (at 5.0) takes
        # the top one and the next ones find nothing above it
        c.save_results([{"key": p.key, "grade": 2, "score": 100.0 if i == 0 else i / 100}
                        for i, p in enumerate(ps)], "v")
        got = pick(c, "v", Filters(), 10)
    assert [x.score for x in got] == [i / 100 for i in range(1, 10)] + [100.0]


def test_pick_gives_way_to_the_next_puzzle_when_a_shape_is_taken(tmp_path) -> None:
    from nonoforge.db import Corpus
    from nonoforge.pipeline.collection import pick

    base = [rand_puzzle(2000 + i, 7, 5) for i in range(60)]
    mirrored = [Puzzle.from_grid(Grid(np.fliplr(p.goal.cells))) for p in base]
    with Corpus.open(tmp_path / "m.db") as c:
        c.add(base + mirrored)
        rows = [{"key": p.key, "grade": 1, "score": float(i)} for i, p in enumerate(base)]
        rows += [{"key": q.key, "grade": 1, "score": i + 0.5} for i, q in enumerate(mirrored)]
        c.save_results(rows, "v")
        chosen = pick(c, "v", Filters(), 20)  # 120 candidates: picked in the database
    shapes = [shape_key(x.puzzle) for x in chosen]
    assert len(chosen) == 20 and len(set(shapes)) == 20
    assert [x.score for x in chosen] == sorted(x.score for x in chosen)


# -- only proven-unique puzzles qualify (issue 37) -------------------------------------------


def _wilk_corpus(tmp_path):  # noqa: ANN202
    """A real corpus of Jakub Wilk's .nin puzzles (MIT), ``data001`` among them with two
    solutions, rated through the CLI as a user rates; skipped without the shared copy."""
    from pathlib import Path

    import pytest
    from typer.testing import CliRunner

    from nonoforge.cli import app

    shared = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "jwilk-nin"
    files = [Path(__file__).parent / "data" / "jwilk-data000.nin"]
    files += [shared / f"data00{i}.nin" for i in range(1, 8)]
    if not all(f.exists() for f in files):
        pytest.skip("the shared jwilk-nin corpus is not there")
    db = str(tmp_path / "w.db")
    res = CliRunner().invoke(app, ["-q", "rate", "--db", db, "--workers", "1", "--runs", "1",
                                   *map(str, files)])
    assert res.exit_code == 0, res.output
    return db, len(files)


@pytest.mark.slow
def test_ambiguous_puzzles_are_not_picked_unless_asked_and_every_export_counts_alike(
        tmp_path) -> None:
    import json

    import pypdfium2 as pdfium
    from typer.testing import CliRunner

    from nonoforge.cli import app
    from nonoforge.db import Corpus
    from nonoforge.formats import read_file
    from nonoforge.solver import SOLVER_VERSION

    db, n = _wilk_corpus(tmp_path)
    with Corpus.open(db) as c:
        status = {r["key"]: r["status"] for r in c.results(SOLVER_VERSION)}
    multiple = {k for k, s in status.items() if s == "multiple"}
    unique = {k for k, s in status.items() if s == "unique"}
    assert multiple and len(unique) + len(multiple) == n  # data001 at least
    run = CliRunner().invoke

    res = run(app, ["collection", "build", "b", "--count", str(n), "--json", "--db", db])
    assert res.exit_code == 0, res.output
    keys = [r["key"] for r in json.loads(res.stdout)]
    assert set(keys) <= unique and not set(keys) & multiple
    # asked for more than qualify: one line says how many do, and why the rest do not
    assert f"holds {len(keys)} of the {n} puzzles asked for" in res.stderr
    assert f"{len(multiple)} more lack a proven unique solution" in res.stderr

    res = run(app, ["collection", "build", "all", "--count", str(n), "--json",
                    "--include-ambiguous", "--db", db])
    assert res.exit_code == 0, res.output
    keys = [r["key"] for r in json.loads(res.stdout)]
    assert multiple <= set(keys)
    counts = {}
    for suffix in ("pdf", "html", "jsonl", "rofl", ""):
        to = str(tmp_path / (f"all.{suffix}" if suffix else "all-dir"))
        res = run(app, ["collection", "export", "all", "--to", to, "--db", db])
        assert res.exit_code == 0, res.output
        counts[suffix] = int(res.stderr.split("wrote ")[1].split()[0])
    assert set(counts.values()) == {len(keys)}, counts
    assert len((tmp_path / "all.jsonl").read_text().splitlines()) == len(keys)
    assert len(read_file(tmp_path / "all.rofl")) == len(keys)
    assert len(list((tmp_path / "all-dir").iterdir())) == len(keys)
    doc = pdfium.PdfDocument(str(tmp_path / "all.pdf"))
    text = "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    assert f"{len(keys)} puzzles" in text and "more than one solution" in text


@pytest.mark.slow
def test_collection_build_grade_by_human_through_the_cli(tmp_path) -> None:
    """``--grade-by human`` grades and orders by the human-effort grade and score the
    ratings carry; the default (time) builds as before; a bad value is one line."""
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from nonoforge.cli import app
    from nonoforge.db import Corpus
    from nonoforge.solver import SOLVER_VERSION

    examples = Path(__file__).resolve().parents[1] / "nonoforge" / "examples" / "puzzles"
    files = [str(examples / f"{n}.non") for n in ("dancer", "cat", "skid", "edge", "bucks",
                                                   "mum", "knot", "swing")]
    db = str(tmp_path / "c.db")
    runner = CliRunner()
    r = runner.invoke(app, ["-q", "rate", "--db", db, "--workers", "1", "--runs", "1", *files])
    assert r.exit_code == 0, r.output
    with Corpus.open(db) as c:
        rated = {x["key"]: x for x in c.results(SOLVER_VERSION)}
    r = runner.invoke(app, ["-q", "collection", "build", "h", "--db", db, "--count", "5",
                            "--grade-by", "human", "--json"])
    assert r.exit_code == 0, r.output
    chosen = json.loads(r.stdout)
    assert len(chosen) == 5
    for x in chosen:
        assert (x["grade"], x["score"]) == (rated[x["key"]]["human_grade"],
                                            rated[x["key"]]["human_score"])
    assert [(x["grade"], x["score"]) for x in chosen] == sorted(
        (x["grade"], x["score"]) for x in chosen)
    r = runner.invoke(app, ["-q", "collection", "build", "t", "--db", db, "--count", "5",
                            "--json"])
    assert r.exit_code == 0, r.output
    for x in json.loads(r.stdout):
        assert (x["grade"], x["score"]) == (rated[x["key"]]["grade"], rated[x["key"]]["score"])
    with Corpus.open(db) as c:
        params = {x["name"]: x["params"] for x in c.collections()}
    assert params["h"]["grade_by"] == "human" and "grade_by" not in params["t"]
    r = runner.invoke(app, ["-q", "collection", "build", "x", "--db", db, "--grade-by", "feel"])
    assert r.exit_code == 2 and "error:" in r.output and "--grade-by" in r.output
