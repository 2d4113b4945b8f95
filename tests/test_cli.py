"""The foundation commands (show, info, convert, formats) through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
import typer.main
from conftest import DATA
from test_formats import HOSTILE, HOSTILE_IDS
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.formats import FORMATS, dumps, read_file
from nonoforge.puzzle import Grid, Meta, Puzzle

runner = CliRunner()
PATTERN = str(DATA / "heart-arrow.pattern")
FLOWER = str(DATA / "flower.pzl")
SAVE = str(DATA / "heart.sav")


def run(*args: str) -> click.testing.Result:
    return runner.invoke(app, list(args))


def assert_clean_error(result: click.testing.Result, code: int = 2) -> None:
    """Exit ``code``, one ``error:`` line on stderr, no traceback anywhere."""
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, cmd in sorted(group.commands.items()):
        out.append((*prefix, name))
        if isinstance(cmd, click.Group):
            out += _commands(cmd, (*prefix, name))
    return out


COMMANDS = _commands(typer.main.get_command(app))  # type: ignore[arg-type]


@pytest.mark.parametrize("command", [(), *COMMANDS], ids=["nonoforge", *map(" ".join, COMMANDS)])
def test_help_of_every_command(command: tuple[str, ...]) -> None:
    result = run(*command, "--help")
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.stdout


def test_foundation_commands_exist() -> None:
    assert {("show",), ("info",), ("convert",), ("formats",)} <= set(COMMANDS)


def test_formats_lists_every_registered_format() -> None:
    result = run("formats")
    assert result.exit_code == 0
    names = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert sorted(names) == sorted(FORMATS)
    pzl_line = next(line for line in result.stdout.splitlines() if line.startswith("pzl"))
    assert ".pzl" in pzl_line and "colour" in pzl_line and "write" in pzl_line


def test_show_black_and_white_without_goal() -> None:
    result = run("show", PATTERN)
    assert result.exit_code == 0, result.output
    assert result.stdout.count("key ") == 2  # both puzzles of the file
    assert "heart-arrow.pattern  (5x5, 1 colour" in result.stdout
    assert "1 1 | ? ? ? ? ?" in result.stdout


def test_show_draws_the_goal(tmp_path: Path) -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#.", "##"]), meta=Meta(title="Corner"))
    src = tmp_path / "corner.json"
    src.write_text(str(dumps(p, "json")))
    result = run("show", str(src))
    assert result.exit_code == 0, result.output
    assert "Corner  (2x2, 1 colour" in result.stdout
    assert "1 | # ." in result.stdout and "2 | # #" in result.stdout


def test_show_colour() -> None:
    result = run("show", FLOWER)
    assert result.exit_code == 0, result.output
    assert "(5x5, 4 colours" in result.stdout  # the list names one unused colour
    assert "2b 1c 2b |  ?  ?  ?  ?  ?" in result.stdout


def test_info_text() -> None:
    result = run("info", PATTERN, FLOWER)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    heart = read_file(PATTERN)[0]
    assert lines[0].startswith(f"{PATTERN}: 5x5, 1 colour(s)")
    assert f"key {heart.key}" in lines[0]


def test_info_json() -> None:
    result = run("info", "--json", FLOWER, SAVE)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["width"], r["height"], r["colors"]) for r in rows] == [(5, 5, 4), (5, 5, 1)]
    assert rows[0]["key"] == read_file(FLOWER)[0].key
    assert rows[1]["key"] == read_file(PATTERN)[0].key  # same heart, another format
    assert rows[0]["file"] == FLOWER and rows[0]["has_goal"] is False


def test_info_with_explicit_format() -> None:
    assert run("info", "--format", "tatham", PATTERN).exit_code == 0
    assert_clean_error(run("info", "--format", "csv", PATTERN))
    assert_clean_error(run("info", "--format", "nosuch", PATTERN))


def test_convert_by_extension(tmp_path: Path) -> None:
    dest = tmp_path / "flower.json"
    result = run("convert", FLOWER, str(dest))
    assert result.exit_code == 0, result.output
    assert "wrote 1 puzzle(s)" in result.stderr and "(json)" in result.stderr
    (p,) = read_file(dest)
    assert p == read_file(FLOWER)[0]
    assert not list(tmp_path.glob("*.part"))


def test_convert_with_to(tmp_path: Path) -> None:
    dest = tmp_path / "heart.out"
    result = run("convert", "--to", "csv", SAVE, str(dest))
    assert result.exit_code == 0, result.output
    assert dest.read_text() == "5\n1 1\n5\n5\n3\n1\n5\n2\n4\n4\n4\n2\n"
    assert read_file(dest, "csv")[0].key == read_file(SAVE)[0].key


def test_convert_into_a_directory(tmp_path: Path) -> None:
    result = run("convert", PATTERN, str(tmp_path), "--to", "pzl")
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["heart-arrow-0001.pzl", "heart-arrow-0002.pzl"]
    keys = [read_file(tmp_path / n)[0].key for n in written]
    assert keys == [p.key for p in read_file(PATTERN)]


def test_convert_into_a_directory_needs_a_format(tmp_path: Path) -> None:
    assert_clean_error(run("convert", PATTERN, str(tmp_path)))
    assert not list(tmp_path.iterdir())


def test_convert_says_what_is_missing_in_the_users_terms() -> None:
    """It said ``Missing argument 'sources'`` when the destination was missing."""
    r = run("convert", "example:dancer")
    assert_clean_error(r)
    assert r.stderr.strip() == ("error: convert needs a destination after example:dancer: "
                                "nonoforge convert IN OUT (OUT a file, or a directory with --to)")
    r = run("convert")
    assert_clean_error(r)
    assert "convert needs a source and a destination" in r.stderr


@pytest.mark.parametrize("option", [["--size", "2x2"], ["--size", "4x30"], ["--width", "3"],
                                    ["--size", "1x1", "--grade", "2"]])
def test_generate_refuses_a_grid_under_five_cells_a_side(
    tmp_path: Path, option: list[str]
) -> None:
    """``generate --size 2x2`` made a 1x1 puzzle: now one line, nothing written."""
    r = run("generate", "example:koala", *option, "--out", str(tmp_path))
    assert_clean_error(r)
    assert "needs at least 5 cells a side" in r.stderr
    assert not list(tmp_path.iterdir())


def test_convert_refuses_what_the_target_cannot_hold(tmp_path: Path) -> None:
    assert_clean_error(run("convert", FLOWER, str(tmp_path / "flower.pattern")))
    assert_clean_error(run("convert", PATTERN, str(tmp_path / "two.csv")))  # one a file
    assert_clean_error(run("convert", PATTERN, str(tmp_path / "x.unknown")))
    assert not list(tmp_path.iterdir())


def test_missing_file_is_a_clean_error() -> None:
    result = run("info", "no/such/file.pattern")
    assert_clean_error(result)
    assert "no such file" in result.stderr


def test_debug_shows_the_traceback() -> None:
    result = run("--debug", "info", "no/such/file.pattern")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr and "FormatError" in result.stderr


@pytest.mark.parametrize(("name", "suffix", "data"), HOSTILE, ids=HOSTILE_IDS)
def test_hostile_files_through_the_cli(
    tmp_path: Path, name: str, suffix: str, data: bytes
) -> None:
    src = tmp_path / f"hostile{suffix}"
    src.write_bytes(data)
    assert_clean_error(run("info", str(src)))
    out = tmp_path / "out"
    out.mkdir()
    assert_clean_error(run("convert", str(src), str(out / "converted.json")))
    assert_clean_error(run("convert", str(src), str(out), "--to", "json"))
    assert not list(out.iterdir())  # no output file, no .part file


def test_version() -> None:
    from nonoforge import __version__

    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout.strip() == f"nonoforge {__version__}"


# -- batches that keep going (issues 12 and 14) -----------------------------------------------


def _bad_files(tmp_path: Path) -> tuple[str, str]:
    binary = tmp_path / "binary.non"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    return str(binary), str(tmp_path / "missing.non")


def test_solve_batch_answers_every_good_file_in_order_and_exits_2(tmp_path: Path) -> None:
    binary, missing = _bad_files(tmp_path)
    result = run("solve", "--json", "example:dancer", binary, PATTERN, missing, FLOWER)
    assert result.exit_code == 2, result.output
    rows = json.loads(result.stdout)
    assert [r["file"] for r in rows] == ["example:dancer", binary, PATTERN, PATTERN, missing,
                                         FLOWER]
    assert [r.get("status") for r in rows] == ["unique", None, "unique", "unique", None,
                                               "unique"]
    assert rows[1]["error"].startswith("not a puzzle file") and rows[4]["error"] == "no such file"
    errors = result.stderr.strip().splitlines()
    assert errors == [f"error: {binary}: {rows[1]['error']}", f"error: {missing}: no such file"]


def test_info_batch_text_and_json(tmp_path: Path) -> None:
    binary, missing = _bad_files(tmp_path)
    result = run("info", "--json", binary, SAVE)
    assert result.exit_code == 2
    rows = json.loads(result.stdout)
    assert rows[0] == {"file": binary, "error": rows[0]["error"]} and rows[1]["width"] == 5
    text = run("info", missing, SAVE)
    assert text.exit_code == 2 and text.stdout.startswith(SAVE)
    assert text.stderr.strip() == f"error: {missing}: no such file"


def test_every_error_line_is_written_one_way(tmp_path: Path) -> None:
    """A batch's bad file (info), a file db import cannot read and one rate cannot read
    each give one ``error:`` line, control characters shown escaped (cli.say_error)."""
    bad = tmp_path / "bad\x1b[2J.non"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    shown = str(bad).replace("\x1b", "\\x1b")
    for args in (["info", str(bad)],
                 ["-q", "db", "import", "--db", str(tmp_path / "c.db"), str(bad)],
                 ["-q", "rate", "--workers", "1", "--runs", "1", str(bad)]):
        result = run(*args)
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {shown}: "), lines
        assert "\x1b" not in result.output


def test_convert_several_files_into_a_folder(tmp_path: Path) -> None:
    binary, _ = _bad_files(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    result = run("convert", "example:dancer", binary, SAVE, str(out), "--to", "non")
    assert result.exit_code == 2 and binary in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["dancer.non", "heart.non"]
    assert run("convert", SAVE, FLOWER, str(tmp_path / "x.non")).exit_code == 2  # not a folder


def test_convert_keeps_sources_of_the_same_name_apart(tmp_path: Path) -> None:
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.non").write_bytes((DATA / "dancer.non").read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    result = run("convert", str(tmp_path / "a" / "x.non"), str(tmp_path / "b" / "x.non"),
                 str(out), "--to", "non")
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["x-2.non", "x.non"]


def test_rate_escapes_control_characters_in_file_names(tmp_path: Path) -> None:
    hostile = tmp_path / "y\x1b[7mBAD.non"
    hostile.write_bytes((DATA / "dancer.non").read_bytes())
    missing = tmp_path / "z\x07gone.non"
    result = run("rate", str(hostile), str(missing), "--workers", "1", "--runs", "1")
    assert result.exit_code == 2
    for text in (result.stdout, result.stderr):
        assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b" in result.stdout and "\\x07" in result.stderr


def test_fifo_gives_one_line_and_never_hangs(tmp_path: Path) -> None:
    import os

    pipe = tmp_path / "pipe.non"
    os.mkfifo(pipe)
    result = run("info", str(pipe))
    assert_clean_error(result)
    assert "not a regular file (a FIFO" in result.stderr


def test_db_import_reads_a_folder_and_one_bad_title_costs_nothing(tmp_path: Path) -> None:
    import os

    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    good = [Puzzle.from_grid(Grid.from_rows(r), meta=Meta(title=f"p{i}"))
            for i, r in enumerate([["#.", "##"], ["##", "#."], ["#.#", "###"]])]
    (folder / "a.non").write_text(str(dumps(good[0], "non")))
    (folder / "sub" / "b.xml").write_text(str(dumps(good[1], "xml")))
    doc = json.loads(dumps(good[2], "json"))
    doc["meta"]["title"] = "\ud800 lone surrogate"
    (folder / "sub" / "c.json").write_text(json.dumps(doc))  # valid JSON, \ud800 escaped
    (folder / "notes.txt").write_text("not a puzzle extension: not read")
    odd = Puzzle.from_grid(Grid.from_rows(["##", "##"]), meta=Meta(title="rofl \ud800"))
    (folder / "sub" / "d.rofl").write_bytes(bytes(dumps(odd, "rofl")))  # ROFL keeps it as is
    os.mkfifo(folder / "pipe.non")
    outside = tmp_path / "outside.non"
    outside.write_text(str(dumps(good[0], "non")))
    os.symlink(outside, folder / "link.non")
    db = str(tmp_path / "c.db")
    result = run("db", "import", "--db", db, str(folder))
    assert result.exit_code == 0, result.output
    assert "4 new" in result.stderr and "pipe.non" in result.stderr and "link.non" in result.stderr
    query = json.loads(run("db", "query", "--db", db, "--json").stdout)
    assert sorted(r["title"] for r in query) == ["p0", "p1", "rofl \ufffd",
                                                 "\ufffd lone surrogate"]
    binary, _ = _bad_files(tmp_path)
    again = run("db", "import", "--db", db, binary, str(folder / "a.non"))
    assert again.exit_code == 2 and binary in again.stderr


# -- example:NAME everywhere a file is taken (issue 12) ---------------------------------------

EXAMPLE_RUNS: dict[tuple[str, ...], list[str]] = {
    ("show",): ["show", "example:dancer"],
    ("info",): ["info", "example:dancer"],
    ("convert",): ["convert", "example:dancer", "{out}", "--to", "xml"],
    ("solve",): ["solve", "example:dancer"],
    ("render",): ["render", "example:dancer", "--out", "{out}", "--no-png"],
    ("generate",): ["generate", "example:koala", "--size", "10x10", "--out", "{out}"],
    ("rate",): ["rate", "example:dancer", "--workers", "1", "--runs", "1"],
    ("db", "import"): ["db", "import", "example:dancer", "--db", "{out}/c.db"],
    ("ingest", "path"): ["ingest", "path", "example:dancer", "--db", "{out}/c.db"],
}
FILE_ARGS = {"files", "images", "sources", "source", "path"}


def _file_taking_commands() -> list[tuple[str, ...]]:
    """Every command (sub-commands too) with an argument naming input files."""
    found = []

    def visit(cmd: Any, path: tuple[str, ...]) -> None:
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            visit(sub, (*path, name))
        params = getattr(cmd, "params", [])
        if any(type(p).__name__.endswith("Argument") and p.name in FILE_ARGS for p in params):
            found.append(path)

    visit(typer.main.get_command(app), ())
    return found


def test_every_file_taking_command_is_tried_on_an_example() -> None:
    assert set(_file_taking_commands()) <= set(EXAMPLE_RUNS)


@pytest.mark.parametrize("command", sorted(EXAMPLE_RUNS), ids=" ".join)
def test_example_names_work_everywhere(command: tuple[str, ...], tmp_path: Path) -> None:
    args = [a.replace("{out}", str(tmp_path)) for a in EXAMPLE_RUNS[command]]
    result = run("-q", *args)
    assert result.exit_code == 0, result.output
    assert "no such file" not in result.output
    written = [p.name for p in tmp_path.iterdir()]
    assert not any("example:" in n for n in written), written  # the prefix is dropped
    if command in (("convert",), ("render",), ("generate",)):
        assert any(n.startswith(("dancer", "koala")) for n in written), written


# -- givens (issue 17): cells printed solved -----------------------------------------------

GIVENS = str(DATA / "givens.nonpack")


def test_convert_keeps_givens_or_refuses_in_one_line(tmp_path: Path) -> None:
    result = run("convert", GIVENS, str(tmp_path / "both.json"))
    assert result.exit_code == 0, result.output
    assert [p.givens for p in read_file(tmp_path / "both.json")] == [
        p.givens for p in read_file(GIVENS)
    ]
    for target in ("both.xml", "both.rofl"):
        result = run("convert", GIVENS, str(tmp_path / target))
        assert_clean_error(result)
        assert "cannot hold given cells" in result.stderr and "use non, " in result.stderr
        assert not (tmp_path / target).exists()


def test_info_and_show_mention_givens() -> None:
    result = run("info", "--json", GIVENS)
    assert result.exit_code == 0, result.output
    assert [r["givens"] for r in json.loads(result.stdout)] == [2, 3]
    assert "2 given cell(s)" in run("info", GIVENS).stdout
    shown = run("show", GIVENS).stdout
    assert "2 given (▣ ×)" in shown and "3 given" in shown
    # the switch's given filled cell (row 2, column 2) and crossed one (row 10, column 10)
    rows = [line for line in shown.splitlines() if " | " in line][:10]
    assert rows[1].split(" | ")[1].split() == [".", "▣", "#", ".", ".", ".", ".", ".", ".", "."]
    assert rows[9].split(" | ")[1].split()[-1] == "×"
    solved = run("solve", GIVENS).stdout
    assert "Switch  (10x10) with 2 given cell(s): unique" in solved


def test_solve_json_says_how_many_givens_the_verdict_is_for() -> None:
    """The verdict is for the clues plus the givens: --json says how many, as the text
    line ("with 2 given cell(s)") and info --json do; 0 for a puzzle without."""
    result = run("solve", "--json", GIVENS, str(DATA / "dancer.non"))
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["status"], r["givens"]) for r in rows] == [
        ("unique", 2), ("unique", 3), ("unique", 0)
    ]


def test_solve_one_solution_says_found_and_the_solution_reproduces_the_clues() -> None:
    """Issue 39: ``--max-solutions 1`` that finds its solution (here a probe runs into it)
    without proving it the only one says ``found``, not ``unsolved``; asked for two, the
    same puzzle is proven ``unique`` (and the two answers agree)."""
    from nonoforge.examples import resolve
    from nonoforge.puzzle import cell_chars

    [p] = read_file(resolve("example:petro"))
    one = run("solve", "--max-solutions", "1", "--json", "example:petro")
    assert one.exit_code == 0, one.output
    [r] = json.loads(one.stdout)
    assert r["status"] == "found"
    [rows] = r["solutions"]
    found = Grid.from_rows(rows, cell_chars(p.ncolors))
    assert found.matches(p)
    full = run("solve", "--json", "example:petro")
    assert full.exit_code == 0, full.output
    [f] = json.loads(full.stdout)
    assert f["status"] == "unique" and f["solutions"] == [rows]
    text = run("solve", "-n", "1", "example:petro").stdout
    assert ": found, technique" in text


# A tournament question file (``$N``, column then row clues, TAB-separated, as the sets in
# /work/shared/corpora/tournament), written by hand: its middle puzzle's row 2 (line 13)
# cannot fit, the puzzles before and after it are good.
MULTI_BAD = (
    "$1\n1\t1\n1\n1\t1\n1\t1\n1\n1\t1\n"
    "$2\n3\n3\n3\n3\n2\t2\n3\n"
    "$3\n3\n3\n3\n3\n3\n3\n"
)


def test_info_and_rate_report_a_bad_puzzle_of_a_multi_file_as_its_own_item(
    tmp_path: Path,
) -> None:
    bad = tmp_path / "set.tournament"
    bad.write_text(MULTI_BAD)
    for args in (["info", "--json", str(bad)],
                 ["-q", "rate", "--json", "--workers", "1", "--runs", "1", str(bad)]):
        result = run(*args)
        assert result.exit_code == 2, result.output
        if "rate" in args:  # JSON Lines, one worker: in input order
            rows = [json.loads(line) for line in result.stdout.splitlines()]
        else:
            rows = json.loads(result.stdout)
        rows = rows if isinstance(rows, list) else rows["puzzles"]
        where = f"{bad}:13"
        assert [r["file"] for r in rows] == [str(bad), where, str(bad)], rows
        assert "error" not in rows[0] and "error" not in rows[2]
        assert rows[1] == {"file": where, "error": rows[1]["error"]}
        assert rows[1]["error"].startswith("row 2: ")  # the line is in "file", once
        assert result.stderr.strip().splitlines() == [f"error: {where}: {rows[1]['error']}"]


def test_names_and_titles_are_printed_as_written_not_as_emoji(tmp_path: Path) -> None:
    """Rich turns ``:fish:`` into an emoji unless told not to: a name such as
    ``example:fish`` followed by our ``:`` (or a title or path holding ``:b:``) must come
    out as written."""
    result = run("generate", "example:fish", "--size", "12x12", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "example:fish: " in result.output and "\N{FISH}" not in result.output
    p = Puzzle.from_grid(Grid.from_rows(["#."]), meta=Meta(title="a:b: :smile:"))
    src = tmp_path / "t.json"
    src.write_text(str(dumps(p, "json")))
    shown = run("show", str(src)).stdout
    assert "a:b: :smile:" in shown


def test_db_import_counts_a_file_with_one_bad_puzzle_among_the_files_read(
    tmp_path: Path,
) -> None:
    """A file whose other puzzles were imported is one of the files read (and one that had
    errors): "2 new ... from 0 file(s)" contradicts itself."""
    bad = tmp_path / "set.tournament"
    bad.write_text(MULTI_BAD)
    result = run("db", "import", "--db", str(tmp_path / "c.db"), str(bad))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {bad}:13: row 2: ")
    assert "2 new, 0 duplicate, 0 merged from 1 file(s); 1 file(s) had errors" in result.stderr


# -- solve --workers (issue 39) -------------------------------------------------------------


def _tournament_slice(tmp_path: Path, name: str, count: int) -> Path:
    """The first ``count`` puzzles of a shared tournament set, as a file of their own."""
    from conftest import shared_path

    text = shared_path("corpora", "tournament", "question", f"{name}.txt").read_text()
    cut = text.find(f"${count + 1}\n")
    out = tmp_path / f"{name}-{count}.txt"
    out.write_text(text[:cut])
    return out


def _without_times(result: click.testing.Result, as_json: bool) -> Any:
    """What ``solve`` printed, its only clock-dependent part (seconds taken) left out."""
    if as_json:
        return [{k: v for k, v in r.items() if k != "time_s"} for r in json.loads(result.stdout)]
    import re

    return re.sub(r", \d+\.\d+ s$", "", result.stdout, flags=re.MULTILINE)


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_solve_workers_2_answers_a_tournament_file_as_one_worker(
    tmp_path: Path, as_json: bool,
) -> None:
    """24 puzzles of the TAAI 2011 set: the same verdicts, techniques, effort, drawings,
    in the same order, whether one process solves them or two workers."""
    src = str(_tournament_slice(tmp_path, "taai2011", 24))
    json_flag = ["--json"] if as_json else []
    one = run("solve", "--max-solutions", "1", *json_flag, src)
    two = run("solve", "--max-solutions", "1", "--workers", "2", *json_flag, src)
    assert one.exit_code == 0 and two.exit_code == 0, two.output
    assert _without_times(two, as_json) == _without_times(one, as_json)
    if as_json:
        assert len(json.loads(two.stdout)) == 24


def test_solve_workers_2_answers_several_files_in_order_bad_ones_in_their_place(
    tmp_path: Path,
) -> None:
    binary, missing = _bad_files(tmp_path)
    bad = tmp_path / "set.tournament"
    bad.write_text(MULTI_BAD)  # a bad puzzle between two good ones
    files = ["example:dancer", binary, PATTERN, str(bad), missing, FLOWER, "example:petro"]
    for as_json in (True, False):
        flag = ["--json"] if as_json else []
        one = run("solve", *flag, *files)
        two = run("solve", "--workers", "2", *flag, *files)
        assert one.exit_code == two.exit_code == 2, two.output
        assert _without_times(two, as_json) == _without_times(one, as_json)
        assert two.stderr == one.stderr  # the error lines too, in input order
    rows = json.loads(run("solve", "--json", "--workers", "3", *files).stdout)
    assert [r["file"] for r in rows] == [
        "example:dancer", binary, PATTERN, PATTERN, str(bad), f"{bad}:13", str(bad), missing,
        FLOWER, "example:petro"]
    assert [r.get("status") for r in rows] == [
        "unique", None, "unique", "unique", "unique", None, "unique", None, "unique", "unique"]


def test_solve_workers_2_in_a_real_process_prints_each_answer_once(tmp_path: Path) -> None:
    """The command as a user runs it, its stdout a pipe (block-buffered, as to a file): the
    forked workers write nothing to it, and it is the one-worker output, text and JSON."""
    import re

    from conftest import fresh_python

    src = str(_tournament_slice(tmp_path, "taai2011", 12))
    code = "import sys; from nonoforge.cli import main; sys.argv[0] = 'nonoforge'; main()"
    for flag in ([], ["--json"]):
        outs = [fresh_python(code, "-q", "solve", "--max-solutions", "1", *flag, "--workers",
                             workers, "example:dancer", src, "example:petro",
                             cwd=Path(__file__).resolve().parents[1]).stdout
                for workers in ("1", "2")]
        if flag:
            one, two = ([{k: v for k, v in a.items() if k != "time_s"} for a in json.loads(o)]
                        for o in outs)
            assert two == one and len(one) == 14
        else:
            one, two = (re.sub(r", \d+\.\d+ s$", "", o, flags=re.MULTILINE) for o in outs)
            assert two == one and one.count("effort: ") == 14


def test_solve_workers_must_be_positive() -> None:
    result = run("solve", "--workers", "0", "example:dancer")
    assert result.exit_code == 2 and "Traceback" not in result.output


def _session(sid: int) -> list[int]:
    """Processes of the session ``sid`` that are still alive (zombies are gone ones)."""
    import os

    alive = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            if os.getsid(int(name)) == sid and state != "Z":
                alive.append(int(name))
        except (OSError, IndexError):
            continue
    return alive


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds a session's processes in /proc")
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_interrupting_solve_workers_leaves_no_process_and_whole_answers(
    tmp_path: Path, sig: str,
) -> None:
    """Ctrl-C (SIGINT to the whole process group) or SIGTERM (to the command alone) in the
    middle of `solve --workers 2` on a tournament set: no worker survives, and every answer
    printed is whole (title line to the blank line after its effort)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import shared_path

    src = shared_path("corpora", "tournament", "question", "tcga2016.txt")
    out = tmp_path / "out.txt"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    with out.open("wb") as stdout:
        proc = subprocess.Popen(
            [sys.executable, "-m", "nonoforge", "solve", "--max-solutions", "1", "--workers",
             "2", str(src)], env=env, stdout=stdout, stderr=subprocess.PIPE,
            start_new_session=True)
    try:
        deadline = time.monotonic() + 300  # a guard against a hang, not a speed test
        while out.read_text().count("effort: ") < 3 and proc.poll() is None:
            assert time.monotonic() < deadline, "no answers printed"
            time.sleep(0.05)
        assert proc.poll() is None, "finished before it could be interrupted"
        workers = [p for p in _session(proc.pid) if p != proc.pid]
        assert workers, "no worker process seen"
        if sig == "SIGINT":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=300)  # a hang guard, not a measure
    finally:
        if proc.poll() is None:
            proc.kill()
    end = time.monotonic() + 60  # workers end at once; a guard for a loaded machine
    while _session(proc.pid) and time.monotonic() < end:
        time.sleep(0.05)
    left = _session(proc.pid)
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"processes left after {sig}: {left}"
    if sig == "SIGINT":
        assert proc.returncode == 130, err
        assert err.decode().strip().splitlines()[-1] == "interrupted"
        assert b"Traceback" not in err
    else:
        assert proc.returncode == -signal.SIGTERM
    text = out.read_text()
    blocks = text.split("\n\n")
    assert blocks[-1] == "" and len(blocks) > 3, text[-300:]  # ends with a whole answer
    for b in blocks[:-1]:
        lines = b.splitlines()
        assert lines[0].startswith("tcga2016.txt  (25x25): ") and lines[-1].startswith(
            "effort: "), b
