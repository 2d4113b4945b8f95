"""The computer-tournament batch format, its solution files and its square-size rule."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DATA
from hypothesis import given
from hypothesis import strategies as st

from nonoforge.errors import FormatError
from nonoforge.formats import detect, dumps, iter_file, loads, read_file, tournament
from nonoforge.puzzle import Grid, Meta, Puzzle

MINI = DATA / "tournament" / "question" / "mini.txt"
MINI_SOLUTION = DATA / "tournament" / "solution" / "mini.txt"


def test_bundled_batch_reads_columns_then_rows_with_numbers() -> None:
    ps = read_file(MINI)
    assert [p.meta.source_id for p in ps] == ["1", "2", "3"]
    heart = ps[0]
    assert [[b.length for b in c] for c in heart.columns] == [[2], [4], [4], [4], [2]]
    assert [[b.length for b in r] for r in heart.rows] == [[1, 1], [5], [5], [3], [1]]
    # read by path, the solution file beside it supplies each goal
    assert all(p.goal is not None and p.goal.matches(p) for p in ps)
    assert detect(MINI.read_bytes()).name == "tournament"


def test_solutions_attach_goals_tabs_or_not() -> None:
    assert tournament.solution_path_for(MINI) == MINI_SOLUTION
    ps = tournament.read_with_solutions(MINI)
    assert ps == tournament.read_with_solutions(MINI, MINI_SOLUTION)
    assert ps[2].goal == Grid.from_rows(["#####", "#...#", "#.#.#", "#...#", "#####"])
    assert all(p.goal is not None and p.goal.matches(p) for p in ps)


def test_write_reproduces_the_bundled_files() -> None:
    ps = tournament.read_with_solutions(MINI)
    assert dumps(ps, "tournament") == MINI.read_text()
    tabbed = MINI_SOLUTION.read_text().replace("11111", "1\t1\t1\t1\t1")
    tabbed = tabbed.replace("10001", "1\t0\t0\t0\t1").replace("10101", "1\t0\t1\t0\t1")
    assert tournament.write_solutions(ps) == tabbed


def test_missing_solution_file_is_an_error(tmp_path: Path) -> None:
    q = tmp_path / "question" / "mini.txt"
    q.parent.mkdir()
    shutil.copy(MINI, q)
    assert tournament.solution_path_for(q) is None
    with pytest.raises(FormatError, match="no solution file"):
        tournament.read_with_solutions(q)


def test_solutions_and_questions_must_pair_up(tmp_path: Path) -> None:
    sol = tmp_path / "sol.txt"
    text = MINI_SOLUTION.read_text()
    sol.write_text(text[: text.index("$3")])
    with pytest.raises(FormatError, match=r"puzzle \$3 has no solution"):
        tournament.read_with_solutions(MINI, sol)
    sol.write_text(text + "$9\n1\n")
    with pytest.raises(FormatError, match=r"solution \$9 has no puzzle"):
        tournament.read_with_solutions(MINI, sol)
    sol.write_text(text.replace("$2\n1\t0", "$2\n0\t0", 1))
    with pytest.raises(FormatError, match="does not match"):
        tournament.read_with_solutions(MINI, sol)


def test_a_solution_file_is_not_a_question_file() -> None:
    with pytest.raises(FormatError, match="solution file"):
        read_file(MINI_SOLUTION)


def test_size_comes_from_the_line_count() -> None:
    (p,) = loads("$7\n1\n1\n1\n1\n", "tournament")
    assert (p.width, p.height, p.meta.source_id) == (2, 2, "7")
    with pytest.raises(FormatError, match="even number"):
        list(loads("$1\n1\n1\n1\n", "tournament"))


def test_empty_clues_are_zero_or_empty_lines() -> None:
    (a,) = loads("$1\n0\n1\n0\n1\n", "tournament")
    (b,) = loads("$1\n\n1\n\n1\n\n\n", "tournament")  # blank lines at the end: ignored
    assert a.rows == b.rows == ((), ((1, 1),))
    assert dumps(a, "tournament") == "$1\n0\n1\n0\n1\n"


def test_only_square_puzzles_can_be_written() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#.#"]))
    assert not tournament.FORMAT.accepts(p)
    with pytest.raises(FormatError):
        dumps(p, "tournament")


def test_holds_keeps_the_number_or_numbers_by_position() -> None:
    p = Puzzle.from_grid(Grid.from_rows(["#.", "##"]), meta=Meta(title="t", source_id="42"))
    assert tournament.FORMAT.holds(p) == p.replace(meta=Meta(source_id="42"), goal=None)
    (q,) = loads(dumps(p, "tournament"), "tournament")
    assert q == tournament.FORMAT.holds(p)
    unnumbered = p.replace(meta=Meta(source_id="webpbn-1"))
    assert tournament.FORMAT.holds(unnumbered).meta.source_id == "1"
    ids = [x.meta.source_id for x in loads(dumps([unnumbered] * 3, "tournament"))]
    assert ids == ["1", "2", "3"]


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("1\n1\n", "expected a \\$N line", 1),
        ("$x\n1\n1\n", "expected a puzzle number", 1),
        ("$1\n1\n-1\n1\n1\n", "expected a column 2 block length", 3),
        ("$1\n1\n1\t1\n1\n1\n", "clue needs more than the 2 cells", 3),
        ("$1\n1\n0\t1\n1\n1\n", "length 0", 3),
        ("$1\n2\n1\n1\n1\n", "paint", 1),
        ("$1\n", "even number", 1),
    ],
)
def test_malformed_batches_are_format_errors(text: str, message: str, line: int) -> None:
    with pytest.raises(FormatError, match=message) as e:
        list(loads(text, "tournament"))
    assert e.value.line == line


def test_reading_a_question_file_by_path_attaches_its_solutions() -> None:
    from nonoforge.formats import iter_file

    puzzles = list(iter_file(DATA / "tournament" / "question" / "mini.txt"))
    assert puzzles and all(p.goal is not None and p.goal.matches(p) for p in puzzles)


def test_companions_complete_the_content_given_without_reading_the_file_again(
    tmp_path: Path,
) -> None:
    # loads(data, path=..., companions=True) takes data as the file's content: the
    # question file is read once (by the caller), and only its solution file beside it.
    q = tmp_path / "question" / "mini.txt"
    q.parent.mkdir()
    (tmp_path / "solution").mkdir()
    shutil.copy(MINI_SOLUTION, tmp_path / "solution" / "mini.txt")
    data = MINI.read_bytes()
    q.write_text("not read again\n")  # what is on disk now is not what the caller read
    ps = list(loads(data, path=str(q), companions=True))
    assert ps == tournament.read_with_solutions(MINI)
    assert all(p.goal is not None for p in ps)
    q.write_bytes(data)
    assert read_file(q) == ps


def test_a_bad_block_read_with_its_solutions_costs_only_itself(tmp_path: Path) -> None:
    """The companion path (question file + ../solution/) resynchronises too: puzzle $2's
    clue is spoilt (line 13), $1 and $3 keep their goals, and the solution left without
    its damaged question is not reported a second time."""
    q = tmp_path / "question" / "mini.txt"
    q.parent.mkdir()
    (tmp_path / "solution").mkdir()
    shutil.copy(MINI_SOLUTION, tmp_path / "solution" / "mini.txt")
    lines = MINI.read_text().split("\n")
    assert lines[12] == "1\t1"
    lines[12] = "1\t?"
    q.write_text("\n".join(lines))
    reading = iter_file(q, on_error="collect")
    ps = list(reading)
    assert [p.meta.source_id for p in ps] == ["1", "3"] and all(p.goal is not None for p in ps)
    assert [(e.path, e.line) for e in reading.errors] == [(str(q), 13)]
    with pytest.raises(FormatError, match="mini.txt:13: "):
        read_file(q)


# A set written by hand after the shared sets' structure (e.g. taai2018, tcga2019): CRLF
# line ends, TAB-separated numbers, a question block whose empty row clue is an empty line
# (tcga2019 has them mid-file), a blank line at the end; the solution file with the same
# $N blocks of TAB-separated 0/1 rows. 4 x 4 pictures:
#   $1 ##..  .##.  ..##  #..#     $2 ....  ####  ....  .##.     $3 #...  #...  ####  ...#
QUESTION = "\r\n".join([
    "$1", "1\t1", "2", "2", "2", "2", "2", "2", "1\t1",
    "$2", "1", "1\t1", "1\t1", "1", "", "4", "0", "2",
    "$3", "3", "1", "1", "2", "1", "1", "4", "1",
    "", "",
])
SOLUTION = "\r\n".join([
    "$1", "1\t1\t0\t0", "0\t1\t1\t0", "0\t0\t1\t1", "1\t0\t0\t1",
    "$2", "0\t0\t0\t0", "1\t1\t1\t1", "0\t0\t0\t0", "0\t1\t1\t0",
    "$3", "1\t0\t0\t0", "1\t0\t0\t0", "1\t1\t1\t1", "0\t0\t0\t1",
    "",
])
#: line 10 of the solution file, $2's last row, spoilt by a hand that typed 2 for 1 (line
#: 10 of the question file is $2's header: the old report pointed there, plausibly wrong)
SPOILT_LINE = 10


def spoilt_set(tmp_path: Path) -> tuple[Path, Path]:
    """The hand-written set as question/set.txt and solution/set.txt, $2's solution spoilt."""
    q, s = tmp_path / "question" / "set.txt", tmp_path / "solution" / "set.txt"
    q.parent.mkdir()
    s.parent.mkdir()
    q.write_bytes(QUESTION.encode())
    lines = SOLUTION.split("\r\n")
    assert lines[SPOILT_LINE - 1] == "0\t1\t1\t0"
    lines[SPOILT_LINE - 1] = "0\t1\t2\t0"
    s.write_bytes("\r\n".join(lines).encode())
    return q, s


def test_the_hand_written_set_reads_whole_with_its_goals(tmp_path: Path) -> None:
    q, s = spoilt_set(tmp_path)
    s.write_bytes(SOLUTION.encode())
    ps = read_file(q)
    assert [p.meta.source_id for p in ps] == ["1", "2", "3"]
    assert ps[1].rows[0] == () and all(p.goal is not None for p in ps)


def test_a_bad_solution_line_is_reported_in_the_solution_file(tmp_path: Path) -> None:
    """The spoilt row of $2's solution costs $2 only (its error stands in its place, named
    by the solution file and that file's line); $1 and $3 keep their goals."""
    q, s = spoilt_set(tmp_path)
    reading = iter_file(q, on_error="collect")
    records = list(reading.records())
    assert [r.meta.source_id for r in records if isinstance(r, Puzzle)] == ["1", "3"]
    assert all(r.goal is not None for r in records if isinstance(r, Puzzle))
    assert isinstance(records[1], FormatError)
    assert (records[1].path, records[1].line) == (str(s), SPOILT_LINE)
    assert records[1].reason == "solution $2: a row must be 0s and 1s"
    with pytest.raises(FormatError) as strict:
        read_file(q)
    assert str(strict.value) == f"{s}:{SPOILT_LINE}: solution $2: a row must be 0s and 1s"


def test_solution_errors_that_name_no_puzzle_come_after_the_questions(tmp_path: Path) -> None:
    """A malformed header in the solution file belongs to no puzzle: $2 then has no solution
    (its error in the question file, its place), and the header's error, in the solution
    file, follows the question's records; a solution given twice costs its puzzle."""
    q, s = spoilt_set(tmp_path)
    s.write_bytes(SOLUTION.replace("$2", "$two").encode())
    records = list(iter_file(q, on_error="collect").records())
    assert [(r.path, r.line) for r in records if isinstance(r, FormatError)] == [
        (str(q), 10), (str(s), 6)]
    assert "has no solution" in str(records[1]) and "$two" in str(records[3])
    s.write_bytes((SOLUTION + "$3\r\n1\t1\t1\t1\r\n").encode())
    records = list(iter_file(q, on_error="collect").records())
    assert isinstance(records[2], FormatError) and "twice" in records[2].reason
    assert (records[2].path, records[2].line) == (str(s), 16)


def test_every_batch_names_the_solution_file_and_its_line(tmp_path: Path) -> None:
    """info --json, rate, db import and ingest PATH all report the spoilt solution line as
    SOLUTION:LINE (not under the question file's name) and keep $1 and $3; exit 2 (ingest:
    0, its rule when something was ingested)."""
    import json

    from typer.testing import CliRunner

    from nonoforge.cli import app
    from nonoforge.db import Corpus

    q, s = spoilt_set(tmp_path)
    where = f"{s}:{SPOILT_LINE}"
    runner = CliRunner()
    info = runner.invoke(app, ["-q", "info", "--json", str(q)])
    assert info.exit_code == 2, info.output
    items = json.loads(info.stdout)
    assert len(items) == 3 and items[1] == {
        "file": where, "error": "solution $2: a row must be 0s and 1s"}
    assert f"{where}: solution $2" in info.stderr and f"{q}:" not in info.stderr
    rate = runner.invoke(app, ["-q", "rate", "--json", str(q)])
    assert rate.exit_code == 2, rate.output
    assert f"{where}: solution $2" in rate.stderr and f"{q}:" not in rate.stderr
    lines = [json.loads(line) for line in rate.stdout.splitlines()]  # JSON Lines
    assert len([r for r in lines if "error" not in r]) == 2

    db = tmp_path / "c.db"
    imp = runner.invoke(app, ["-q", "db", "import", "--db", str(db), str(q)])
    assert imp.exit_code == 2, imp.output
    assert f"{where}: solution $2" in imp.stderr and f"{q}:" not in imp.stderr
    with Corpus.open(db) as c:
        assert len(c) == 2

    db2 = tmp_path / "c2.db"
    ing = runner.invoke(app, ["-q", "ingest", str(q), "--db", str(db2)])
    assert ing.exit_code == 0, ing.output
    assert "new 2" in ing.stdout and "failed 1" in ing.stdout
    assert f"set.txt#2: {where}: solution $2" in ing.stdout
    with Corpus.open(db2) as c:
        log = {row["item"]: row for row in c.fetch_log("local")}
        assert log[f"{q}#2"]["reason"] == f"{where}: solution $2: a row must be 0s and 1s"
        assert [log[f"{q}#{n}"]["status"] for n in (1, 3)] == ["done", "done"]


def test_the_key_given_by_the_reader_is_the_key_of_the_clues() -> None:
    """The reader hashes its lines' texts instead of the clues' text built again: the
    keys must be the ones the clues give (a corpus dedups on them), on the shared sets."""
    from conftest import shared_path

    folder = shared_path("corpora", "tournament", "question")
    for path in sorted(folder.glob("*.txt"))[:3]:
        for p in iter_file(path).records():
            assert isinstance(p, Puzzle)
            rebuilt = Puzzle.from_clues([[b.length for b in r] for r in p.rows],
                                        [[b.length for b in c] for c in p.columns])
            assert p.key == rebuilt.key
            assert p.with_meta(Meta(title="t")).key == p.key
    # a line written with a leading zero or spaces is the same clue, and the same key
    (a,) = loads("$1\n02\n1\n 2\n1\n", "tournament")
    b = Puzzle.from_clues([[2], [1]], [[2], [1]])
    assert a.key == b.key


def test_the_clue_cache_keeps_the_common_lines_when_a_generation_fills() -> None:
    """Lines seen once fill the cache; a line every puzzle repeats stays in it (it used to
    be cleared whole when full), and the cache never holds more than two generations."""
    t = tournament
    t._clue_facts("0", 1, "row", 0)
    for i in range(1, 3 * t._CLUES_MAX):
        t._clue_facts(f"{i % 900 + 1}\t{i // 900 + 1}", 1, "row", 0)
        if i % 1000 == 0:
            t._clue_facts("0", 1, "row", 0)
    assert "0" in t._CLUES or "0" in t._OLD_CLUES
    assert len(t._CLUES) + len(t._OLD_CLUES) <= 2 * t._CLUES_MAX


def _picture_or_error(n: int, body: list[tuple[int, str]], fast: bool) -> object:
    read = tournament._picture if fast else tournament._picture_rows
    try:
        pic = read(n, 1, body)
    except FormatError as e:
        return ("error", str(e), e.line)
    return (pic.cells, pic.grid.shape)


def test_the_block_at_once_picture_is_the_row_by_row_one_on_the_shared_solutions() -> None:
    """A solution block read at once (:func:`tournament._picture`) gives the bytes the
    row-by-row reading gives, on every block of the shared sets' solution files."""
    from conftest import shared_path

    from nonoforge.formats.base import file_lines

    folder = shared_path("corpora", "tournament", "solution")
    blocks = 0
    for path in sorted(folder.glob("*.txt")):
        for block in tournament._blocks(file_lines(str(path))):
            assert not isinstance(block, FormatError)
            n, _, body = block
            fast = _picture_or_error(n, body, True)
            assert fast == _picture_or_error(n, body, False)
            assert fast[0] != "error"
            blocks += 1
    assert blocks == 27_000


_ROW_TEXT = st.text(alphabet="01 \t2x\u00e9", max_size=8).map(str.strip)


@given(st.lists(_ROW_TEXT, max_size=6), st.lists(st.sampled_from("01"), min_size=1, max_size=6),
       st.integers(0, 6))
def test_the_block_at_once_picture_agrees_with_the_row_by_row_one(
    rows: list[str], cells: list[str], square: int
) -> None:
    """Good blocks (rows of 0/1, tabs or spaces between) and damaged ones (other
    characters, empty or ragged rows): the same picture, or the same error at the same
    line, whichever way the block is read."""
    good = ["\t".join(cells)] * square
    for body_rows in (rows, good, good + rows):
        body = [(i + 2, s) for i, s in enumerate(body_rows)]
        assert _picture_or_error(7, body, True) == _picture_or_error(7, body, False)
