"""The computer-tournament batch format, its solution files and its square-size rule."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DATA

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
