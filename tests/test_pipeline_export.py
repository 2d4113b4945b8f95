"""Exporting collections through the CLI: books of goal-less .nin puzzles get their
solutions, any title exports, exports never mix, the JSON-lines dataset is complete."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import Corpus
from nonoforge.errors import FAILED_EXIT
from nonoforge.formats import read_file
from nonoforge.pipeline.pdf import section_of
from nonoforge.puzzle import Grid, Meta, Puzzle, clue_of
from nonoforge.titles import DIFFICULTY

DATA = Path(__file__).parent / "data"
SHARED_NIN = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "jwilk-nin"


def nin_puzzles() -> list[Puzzle]:
    """Jakub Wilk's .nin puzzles (MIT): clues only, no stored goal, the first one titled in
    Cyrillic; from the shared copy of his set also ``data001`` (two solutions) and two more.
    Last, a goal-less picture of ours with a Chinese and emoji title."""
    files = [DATA / "jwilk-data000.nin"]
    files += [SHARED_NIN / f"data00{i}.nin" for i in (1, 2, 3) if SHARED_NIN.exists()]
    out = []
    for f in files:
        p = read_file(f)[0]
        assert p.goal is None
        title = "Кошка на крыше" if not out else f.stem
        out.append(p.replace(meta=Meta(title=title, source="jwilk")))
    rng = np.random.default_rng(3)
    ours = Puzzle.from_grid(Grid((rng.random((6, 7)) < 0.6).astype(int)))
    out.append(ours.replace(goal=None, meta=Meta(title="猫 and 🐈 emoji", source="test")))
    return out


def ambiguous(puzzles: list[Puzzle]) -> int:
    return sum(p.meta.title == "data001" for p in puzzles)


def corpus_with(tmp_path: Path, puzzles: list[Puzzle], name: str = "nin") -> str:
    db = str(tmp_path / "c.db")
    with Corpus.open(db) as c:
        c.add(puzzles)
        c.create_collection(name, [p.key for p in puzzles])
    return db


def export(db: str, *args: str):
    return CliRunner().invoke(app, ["collection", "export", *args, "--db", db])


def test_a_nin_only_book_has_every_solution_and_any_title_prints(tmp_path) -> None:
    puzzles = nin_puzzles()
    db = corpus_with(tmp_path, puzzles, "Сборник")
    pdf = tmp_path / "nin.pdf"
    res = export(db, "Сборник", "--to", str(pdf), "--page", "letter")
    assert res.exit_code == 0, res.output
    assert "no glyph" in res.output  # the Chinese character falls back, with a warning
    left = ambiguous(puzzles)  # Wilk's data001 has two solutions: not in the book
    assert f"wrote {len(puzzles) - left} puzzle" in res.output
    assert ("left out 1 puzzle" in res.output) == bool(left)
    doc = pdfium.PdfDocument(str(pdf))
    assert doc[0].get_size() == pytest.approx((612, 792), abs=1)
    text = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    assert "Сборник" in text[0] and any("Кошка на крыше" in t for t in text)
    divider = next(i for i, t in enumerate(text) if t.split()[0] == "Solutions")
    backs = "\n".join(text[divider + 1:])
    for n in range(1, len(puzzles) - left + 1):
        assert f"{n}. " in backs  # every puzzle's solution is at the back
    ink = [(np.asarray(doc[i].render(scale=0.5).to_pil().convert("L")) < 128).mean()
           for i in range(divider + 1, len(doc))]
    assert min(ink) > 0.02  # filled-in pictures, not empty grids
    assert b"/FontFile2" in pdf.read_bytes()


def test_an_ambiguous_puzzle_stays_out_of_books_unless_asked_and_is_then_marked(tmp_path):
    unique = nin_puzzles()[0]
    twin = Puzzle.from_grid(Grid(np.array([[1, 0], [0, 1]])), meta=Meta(title="Twin"))
    db = corpus_with(tmp_path, [unique, twin])
    res = export(db, "nin", "--to", str(tmp_path / "a.pdf"))
    assert res.exit_code == 0 and "left out 1 puzzle" in res.output
    assert "wrote 1 puzzle" in res.output
    res = export(db, "nin", "--to", str(tmp_path / "b.pdf"), "--include-ambiguous")
    assert res.exit_code == 0 and "wrote 2 puzzle" in res.output
    doc = pdfium.PdfDocument(str(tmp_path / "b.pdf"))
    text = "".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    assert "not unique" in text
    res = export(db, "nin", "--to", str(tmp_path / "b.html"), "--include-ambiguous")
    assert res.exit_code == 0 and "not unique" in (tmp_path / "b.html").read_text()


def test_a_stored_verdict_is_reused_not_solved_again(tmp_path) -> None:
    """Folder and ROFL exports take each puzzle's verdict from its stored rating and solve
    nothing again (issue 38 suspected the demo's folder export of re-solving): a puzzle the
    solver proves unique, stored as rated ``multiple``, stays out -- a fresh solve would
    have put it in -- and the one stored as ``unique`` goes in."""
    from nonoforge.examples import PUZZLES
    from nonoforge.solver import SOLVER_VERSION, solve

    nin, dancer = nin_puzzles()[0], read_file(PUZZLES / "dancer.non")[0]
    assert solve(nin).status == "unique"
    db = corpus_with(tmp_path, [nin, dancer])
    with Corpus.open(db) as c:
        c.save_results([{"key": nin.key, "status": "multiple", "technique": "search",
                         "effort": {"work": 1}},
                        {"key": dancer.key, "status": "unique", "technique": "line",
                         "effort": {"work": 1}}], SOLVER_VERSION)
    for to in ("folder", "c.rofl"):
        res = export(db, "nin", "--to", str(tmp_path / to))
        assert res.exit_code == 0, res.output
        assert "left out 1 puzzle" in res.output and "wrote 1 puzzle" in res.output
    files = list((tmp_path / "folder").iterdir())
    assert [read_file(f)[0].key for f in files] == [dancer.key]
    assert [p.key for p in read_file(tmp_path / "c.rofl")] == [dancer.key]


def test_exports_never_mix(tmp_path) -> None:
    puzzles = nin_puzzles()
    db = corpus_with(tmp_path, puzzles)
    with Corpus.open(db) as c:
        c.create_collection("two", [p.key for p in puzzles[:2]])
    folder = tmp_path / "out"
    assert export(db, "nin", "--to", str(folder)).exit_code == 0
    first = sorted(f.name for f in folder.iterdir())
    assert len(first) == len(puzzles) - ambiguous(puzzles)  # as in every export kind
    # again, or another collection into the same folder: refused in one line, nothing written
    for name in ("nin", "two"):
        res = export(db, name, "--to", str(folder))
        assert res.exit_code == 2
        assert res.output.strip().count("\n") == 0 and "--overwrite" in res.output
    assert sorted(f.name for f in folder.iterdir()) == first
    # --overwrite with an export that fails its checks removes nothing
    for args in (("nosuch",), ("two", "--format", "bogus")):
        res = export(db, *args, "--to", str(folder), "--overwrite")
        assert res.exit_code != 0 and "error:" in res.output, args
        assert sorted(f.name for f in folder.iterdir()) == first, args
    book_pdf = tmp_path / "kept.pdf"
    assert export(db, "two", "--to", str(book_pdf)).exit_code == 0
    before = book_pdf.read_bytes()
    res = export(db, "two", "--to", str(book_pdf), "--overwrite", "--page", "a5")
    assert res.exit_code == 2 and book_pdf.read_bytes() == before
    # --overwrite: exactly the collection, the user's own file kept
    (folder / "my notes.txt").write_text("mine")
    res = export(db, "two", "--to", str(folder), "--overwrite")
    assert res.exit_code == 0, res.output
    names = sorted(f.name for f in folder.iterdir())
    # "two" holds data000 and the ambiguous data001: only the first is exported
    assert names == sorted([*first[:2 - ambiguous(puzzles[:2])], "my notes.txt"])
    kept = [p for p in puzzles[:2] if p.meta.title != "data001"]
    assert [p.key for f in names[:len(kept)] for p in read_file(folder / f)] == \
        [p.key for p in kept]
    # single files too
    for suffix in ("pdf", "html", "jsonl", "rofl"):
        target = tmp_path / f"book.{suffix}"
        assert export(db, "two", "--to", str(target)).exit_code == 0
        res = export(db, "two", "--to", str(target))
        assert res.exit_code == 2 and "exists" in res.output, suffix
        assert export(db, "two", "--to", str(target), "--overwrite").exit_code == 0


def test_an_unknown_suffix_is_refused_in_one_line_and_creates_nothing(tmp_path) -> None:
    """Issue 38: ``--to book.txt`` once made a folder named book.txt; now it is refused,
    naming the kinds there are. A suffix in an existing folder's name stays a folder."""
    puzzles = nin_puzzles()[:2]
    db = corpus_with(tmp_path, puzzles)
    before = sorted(p.name for p in tmp_path.iterdir())
    res = export(db, "nin", "--to", str(tmp_path / "book.txt"))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and res.output.strip().count("\n") == 0
    assert ".txt" in res.output and ".pdf" in res.output and "a folder" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    dotted = tmp_path / "set.v2"
    dotted.mkdir()
    res = export(db, "nin", "--to", str(dotted))
    assert res.exit_code == 0 and "(dir)" in res.output, res.output
    assert len(list(dotted.iterdir())) == 2 - ambiguous(puzzles)


def test_a_new_export_kind_is_one_registration(tmp_path) -> None:
    """A toy kind registered here is found by its suffix, gets what its flags ask for
    (answers, only the unique puzzles) and is listed among the known kinds."""
    from nonoforge.pipeline.export import KINDS, ExportJob, ExportKind, register_kind

    def write_keys(job: ExportJob) -> None:
        job.target.write_text("".join(f"{it.number} {it.puzzle.key} {it.verdict}\n"
                                      for it in job.items))

    puzzles = nin_puzzles()
    db = corpus_with(tmp_path, puzzles)
    register_kind(ExportKind("toy", (".toy",), "toy list", write_keys, answers=True,
                             playable=True))
    try:
        target = tmp_path / "list.toy"
        res = export(db, "nin", "--to", str(target))
        assert res.exit_code == 0, res.output
        assert "(toy)" in res.output
        lines = target.read_text().splitlines()
        assert len(lines) == len(puzzles) - ambiguous(puzzles)
        assert all(line.endswith(" unique") for line in lines)
        assert [line.split()[1] for line in lines] == [  # grouped by size, as a book is
            p.key for p in sorted(puzzles, key=section_of) if p.meta.title != "data001"]
        assert ".toy (toy list)" in export(db, "nin", "--to", str(tmp_path / "x.bad")).output
        with pytest.raises(ValueError):  # a suffix belongs to one kind
            register_kind(ExportKind("clash", (".toy",), "clash", write_keys))
    finally:
        del KINDS["toy"]
    assert "toy" not in export(db, "nin", "--to", str(tmp_path / "x.bad")).output


def test_bad_options_are_one_line_errors(tmp_path) -> None:
    db = corpus_with(tmp_path, nin_puzzles()[:1])
    res = export(db, "nin", "--to", str(tmp_path / "x.pdf"), "--page", "a5")
    assert res.exit_code == 2 and "unknown trim" in res.output
    assert not (tmp_path / "x.pdf").exists()
    res = export(db, "nope", "--to", str(tmp_path / "y.pdf"))
    assert res.exit_code != 0 and "error:" in res.output and "Traceback" not in res.output


def test_the_dataset_holds_clues_solution_rating_provenance_and_steps(tmp_path) -> None:
    puzzles = nin_puzzles()
    colour = read_file(DATA / "flags.nonpack")[0]
    db = corpus_with(tmp_path, [*puzzles, colour])
    target = tmp_path / "puzzles.jsonl"
    res = export(db, "nin", "--to", str(target), "--steps", "--include-ambiguous")
    assert res.exit_code == 0, res.output
    lines = target.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(puzzles) + 1
    for line, p in zip(lines, sorted([*puzzles, colour], key=section_of), strict=True):
        r = json.loads(line)
        assert {"key", "width", "height", "palette", "rows", "columns", "solution", "verdict",
                "technique", "effort", "score", "grade", "source", "licence"} <= set(r)
        assert r["key"] == p.key
        assert r["verdict"] == ("multiple" if p.meta.title == "data001" else "unique")
        assert r["technique"] in ("line", "probe", "search") and r["effort"]
        sol = np.array(r["solution"])
        assert sol.shape == (p.height, p.width)
        assert tuple(clue_of(row) for row in sol) == p.rows  # the solution fits the clues
        # replaying the trace's cells, in order, paints exactly the solution
        painted = np.full(sol.shape, -1)
        for step in r["steps"]:
            for i, j, v in step["cells"]:
                assert painted[i, j] == -1  # each cell decided once
                painted[i, j] = v
        assert (painted == sol).all()
        if p is colour:
            assert isinstance(r["rows"][0][0], list) and len(r["palette"]) > 2
        else:
            assert all(isinstance(n, int) for n in r["rows"][0])
    assert json.loads(lines[0])["title"] == "Кошка на крыше"
    assert json.loads(lines[0])["source"] == "jwilk"


def test_no_exporter_fails_on_hostile_text(tmp_path) -> None:
    """Issue 14.8: control characters, markup, line breaks, emoji, CJK and a 5000-character
    title go through every export kind and every folder format, and read back."""
    from nonoforge.formats import FORMATS

    evil = "Evil \x00\x1b[31m\n<script>alert(1)</script>&\"'\u2028 \U0001f408 猫 " + "x" * 5000
    p = Puzzle.from_grid(Grid(np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]])),
                         meta=Meta(title=evil, author=evil, licence=evil, note=evil))
    db = corpus_with(tmp_path, [p], "evil")
    for name, f in FORMATS.items():
        if f.write is None:
            continue
        res = export(db, "evil", "--to", str(tmp_path / f"dir-{name}"), "--format", name)
        assert res.exit_code == 0, (name, res.output)
        [written] = list((tmp_path / f"dir-{name}").iterdir())
        assert read_file(written)[0].key == p.key, name
    for suffix in ("pdf", "html", "jsonl", "rofl"):
        res = export(db, "evil", "--to", str(tmp_path / f"evil.{suffix}"), "--steps")
        assert res.exit_code == 0, (suffix, res.output)
    html = (tmp_path / "evil.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "\x1b" not in html
    [line] = (tmp_path / "evil.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["title"].startswith("Evil")
    doc = pdfium.PdfDocument(str(tmp_path / "evil.pdf"))
    assert "Evil" in doc[1].get_textpage().get_text_range()


def test_svg_sheets_stay_well_formed_xml_whatever_the_title() -> None:
    import xml.etree.ElementTree as ET

    from nonoforge.images.render import sheet_svg

    p = Puzzle.from_grid(Grid(np.array([[1, 0], [1, 1]])),
                         meta=Meta(title="a\x00\x1b<b>&\ud800\ufffe z"))
    root = ET.fromstring(sheet_svg(p))
    assert root.find("{http://www.w3.org/2000/svg}title").text == "a<b>& z"


def test_a_rated_collection_exports_its_scores_grades_and_verdicts(tmp_path) -> None:
    from test_pipeline_jobs import rate_into, small_corpus

    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.collection import Filters
    from nonoforge.pipeline.rate import LocalExecutor

    db = str(tmp_path / "r.db")
    rows = rate_into(db, LocalExecutor(1), small_corpus())
    with Corpus.open(db) as c:
        chosen = jobs.build_collection(c, "rated", Filters(), count=6)
    target = tmp_path / "rated.jsonl"
    assert export(db, "rated", "--to", str(target)).exit_code == 0
    got = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert [r["key"] for r in got] == [
        x.puzzle.key for x in sorted(chosen, key=lambda x: section_of(x.puzzle))]
    for r in got:
        stored = rows[r["key"]]
        assert (r["verdict"], r["technique"], r["effort"], r["score"], r["grade"]) == (
            stored["status"], stored["technique"], stored["effort"], stored["score"],
            stored["grade"])
        assert r["grade"] is not None and "steps" not in r


# -- givens -----------------------------------------------------------------------------------


def switch_with_givens() -> Puzzle:
    """Two 2x2 blocks on a diagonal: the other diagonal has the same clues; a filled and a
    crossed given make it unique."""
    return Puzzle.from_grid(Grid.from_rows(["##..", "##..", "..##", "..##"]),
                            meta=Meta(title="Switch", source="test")).replace(
        givens=[(0, 0, 1), (0, 3, 0)])


def test_the_dataset_lists_givens_and_its_steps_start_from_them(tmp_path) -> None:
    plain = nin_puzzles()[0]
    p = switch_with_givens()
    db = corpus_with(tmp_path, [plain, p], "g")
    target = tmp_path / "g.jsonl"
    res = export(db, "g", "--to", str(target), "--steps")
    assert res.exit_code == 0, res.output
    first, second = (json.loads(line) for line in target.read_text("utf-8").splitlines())
    assert first["givens"] == [] and second["givens"] == [[0, 0, 1], [0, 3, 0]]
    assert second["verdict"] == "unique"  # proven from the givens (two solutions without)
    # the steps decide every cell but the givens, once each: replayed over the givens they
    # paint the solution, by line logic alone
    painted = np.full((4, 4), -1)
    for r, c, v in second["givens"]:
        painted[r, c] = v
    for step in second["steps"]:
        assert step["line"] in ("row", "column")
        for i, j, v in step["cells"]:
            assert painted[i, j] == -1
            painted[i, j] = v
    assert (painted == np.array(second["solution"])).all()


def test_files_that_cannot_hold_givens_leave_those_puzzles_out(tmp_path) -> None:
    """ROFL and most folder formats cannot hold givens: that puzzle stays out with a warning
    that says why, the others are written, and the exit code tells; a format that holds them
    (.non) writes them all; nothing is written or removed when no puzzle can be."""
    plain = nin_puzzles()[0]
    p = switch_with_givens()
    db = corpus_with(tmp_path, [plain, p], "g")
    res = export(db, "g", "--to", str(tmp_path / "g.rofl"))
    assert res.exit_code == FAILED_EXIT, res.output
    assert "puzzle 2" in res.output and "cannot hold given cells" in res.output
    assert "wrote 1 puzzle(s)" in res.output and "1 left out" in res.output
    assert [q.key for q in read_file(tmp_path / "g.rofl")] == [plain.key]
    res = export(db, "g", "--to", str(tmp_path / "xml"), "--format", "xml")
    assert res.exit_code == FAILED_EXIT and "cannot hold given cells" in res.output
    assert len(list((tmp_path / "xml").iterdir())) == 1
    res = export(db, "g", "--to", str(tmp_path / "non"))
    assert res.exit_code == 0, res.output
    back = [read_file(f)[0] for f in sorted((tmp_path / "non").iterdir())]
    assert [q.key for q in back] == [plain.key, p.key] and back[1].givens == p.givens
    with Corpus.open(db) as c:
        c.create_collection("only", [p.key])
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "001-g0-x.xml").write_text("an earlier export")
    res = export(db, "only", "--to", str(tmp_path / "keep"), "--format", "xml", "--overwrite")
    assert res.exit_code == 2 and "no puzzle can be written" in res.output
    assert (tmp_path / "keep" / "001-g0-x.xml").read_text() == "an earlier export"


def test_a_photo_with_givens_goes_from_generate_to_every_export(tmp_path) -> None:
    """End to end through the CLI as a user types it: a photograph (scikit-image's
    astronaut) made into a puzzle kept exact with givens, imported into a corpus, rated, built
    into a collection and exported as a book, a page and a dataset, each carrying the
    givens."""
    import skimage.data
    from PIL import Image

    def run(*args: str):
        res = CliRunner().invoke(app, list(args))
        assert res.exit_code == 0, (args, res.output)
        return res

    src = tmp_path / "astronaut.png"
    Image.fromarray(skimage.data.astronaut()).save(src)
    gen = tmp_path / "gen"
    [row] = json.loads(run("generate", str(src), "--size", "15x15", "--repair", "givens",
                           "--format", "non", "--json", "--out", str(gen)).stdout)
    givens = [list(g) for g in row["givens"]]
    assert givens and row["accepted"] and row["edits"] == 0
    db = str(tmp_path / "c.db")
    run("db", "import", "--db", db, row["puzzle"], "example:dancer")
    run("rate", "--db", db, "--workers", "1")
    run("collection", "build", "photos", "--db", db, "--count", "5")
    for name in ("book.pdf", "page.html", "data.jsonl"):
        run("collection", "export", "photos", "--db", db, "--to", str(tmp_path / name))
    records = [json.loads(line) for line in (tmp_path / "data.jsonl").read_text().splitlines()]
    [photo] = [r for r in records if r["key"] == row["key"]]
    assert photo["givens"] == givens and photo["verdict"] == "unique"
    assert all(photo["solution"][r][c] == v for r, c, v in givens)
    assert [r["givens"] for r in records if r is not photo] == [[]]
    html = (tmp_path / "page.html").read_text(encoding="utf-8")
    data = json.loads(html.split('id="nf-data">')[1].split("</script>")[0])
    assert [p["givens"] for p in data["puzzles"] if p["key"] == row["key"]] == [givens]
    doc = pdfium.PdfDocument(str(tmp_path / "book.pdf"))
    text = "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    n = len(givens)
    g = photo["grade"]
    assert f"Astronaut \u00b7 {DIFFICULTY[g]} (grade {g}) \u00b7 {n} cell" \
        f"{'s' if n > 1 else ''} given" in text
    assert "are given" in doc[0].get_textpage().get_text_range()


def test_a_built_book_has_its_title_the_given_titles_a_contents_page_and_matching_numbers(
        tmp_path) -> None:
    """Issue 37: ``collection build --title/--titles``; the book's contents list each
    puzzle's number, title, size, difficulty in words and page, and the puzzle and its
    solution carry the same number; the dataset says the same title."""
    from nonoforge.solver import SOLVER_VERSION
    from nonoforge.titles import difficulty

    puzzles = [p for p in nin_puzzles() if p.meta.title != "data001"]
    puzzles[1] = puzzles[1].replace(meta=Meta())  # untitled: named by the --titles file
    db = str(tmp_path / "c.db")
    with Corpus.open(db) as c:
        c.add(puzzles)
        c.save_results([{"key": p.key, "status": "unique", "grade": 1 + i % 5,
                         "score": float(i)} for i, p in enumerate(puzzles)], SOLVER_VERSION)
    titles = tmp_path / "titles.tsv"
    titles.write_text(f"# for the book\n{puzzles[1].key[:8]}\tThe second one\n",
                      encoding="utf-8")
    run = CliRunner().invoke
    res = run(app, ["collection", "build", "b", "--count", str(len(puzzles)), "--title",
                    "Roofs and Cats", "--titles", str(titles), "--db", db])
    assert res.exit_code == 0, res.output
    assert "The second one" in res.stdout
    res = run(app, ["collection", "build", "x", "--titles", str(tmp_path / "no.tsv"),
                    "--db", db])
    assert res.exit_code == 2 and "--titles" in res.output and "Traceback" not in res.output
    pdf = tmp_path / "b.pdf"
    assert export(db, "b", "--to", str(pdf)).exit_code == 0
    doc = pdfium.PdfDocument(str(pdf))
    text = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    assert "Roofs and Cats" in text[0] and "Contents" in text[1]
    divider = next(i for i, t in enumerate(text) if t.split()[:1] == ["Solutions"])
    lines = [ln for ln in text[1].splitlines() if ln[:1].isdigit() or ln.startswith(" ")]
    with Corpus.open(db) as c:
        order = sorted(c.collection("b"), key=section_of)  # the book's sections, by size
    assert len(lines) == len(order)
    for n, (line, p) in enumerate(zip(lines, order, strict=True), start=1):
        grade = next(1 + i % 5 for i, q in enumerate(puzzles) if q.key == p.key)
        title = "The second one" if p.key == puzzles[1].key else p.meta.title
        if "猫" in (title or ""):
            title = "and"  # the font lacks the glyphs: printed as U+FFFD
        assert line.split()[0] == str(n) and title in line, line
        assert f"{p.width}\u00d7{p.height}" in line and difficulty(grade) in line, line
        page = int(line.split()[-1])  # printed page number, 1 = the title page
        assert f"{n}. " in text[page - 1] and title in text[page - 1]
        assert sum(f"{n}. " in t for t in text[divider + 1:]) == 1  # its solution, alike
    jsonl = tmp_path / "b.jsonl"
    assert export(db, "b", "--to", str(jsonl)).exit_code == 0
    rows = [json.loads(x) for x in jsonl.read_text(encoding="utf-8").splitlines()]
    assert [r["key"] for r in rows] == [p.key for p in order]
    assert "The second one" in [r["display_title"] for r in rows]


def test_a_7x10_book_with_its_cover_through_the_cli(tmp_path) -> None:
    """--page 7x10 --per-page 2 --cover --paper cream: the book at the trim, and beside it
    NAME-cover.pdf whose spine is the book's page count x KDP's cream paper; bad values of the
    new options are one line each, and a cover is never written over unless --overwrite."""
    puzzles = [p for p in nin_puzzles() if p.meta.title != "data001"]
    db = corpus_with(tmp_path, puzzles)
    pdf = tmp_path / "trim.pdf"
    res = export(db, "nin", "--to", str(pdf), "--page", "7x10", "--per-page", "2", "--cover",
                 "--paper", "cream")
    assert res.exit_code == 0, res.output
    assert "trim-cover.pdf" in res.output
    book = pdfium.PdfDocument(str(pdf))
    w, h = book[0].get_size()
    assert (round(w / 72, 2), round(h / 72, 2)) == (7.0, 10.0)
    cover = pdfium.PdfDocument(str(tmp_path / "trim-cover.pdf"))
    cw, ch = cover[0].get_size()
    assert abs(cw / 72 - (14 + len(book) * 0.0025 + 0.25)) < 0.005
    assert abs(ch / 72 - 10.25) < 0.005
    res = export(db, "nin", "--to", str(tmp_path / "again.pdf"), "--cover")
    assert res.exit_code == 0
    (tmp_path / "again.pdf").unlink()
    res = export(db, "nin", "--to", str(tmp_path / "again.pdf"), "--cover")
    assert res.exit_code == 2 and "again-cover.pdf exists" in res.output
    for bad, word in ((["--per-page", "3"], "per-page"), (["--paper", "gold"], "paper")):
        res = export(db, "nin", "--to", str(tmp_path / "bad.pdf"), *bad)
        assert res.exit_code == 2 and word in res.output and "Traceback" not in res.output
        assert not (tmp_path / "bad.pdf").exists()
