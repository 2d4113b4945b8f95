"""The per-file loop of batch commands, and ``solve``'s loop over it (``solve_batch``)."""

from __future__ import annotations

from pathlib import Path

from conftest import DATA

from nonoforge.examples import resolve
from nonoforge.pipeline.batch import Batch, SolveOptions, solve_batch

DANCER = str(DATA / "dancer.non")
PATTERN = str(DATA / "heart-arrow.pattern")  # two puzzles in one file


def _run(paths: list[str], workers: int) -> tuple[list[tuple], list[tuple[str, str]], int]:
    """Each answer as (file, key, status, technique, effort, error), the error lines told,
    and the batch's exit code."""
    told: list[tuple[str, str]] = []
    batch = Batch(paths, resolve=resolve, on_error=lambda f, r: told.append((f, r)))
    answers = [
        (a.file, a.puzzle.key if a.puzzle else None,
         a.result.status if a.result else None, a.result.technique if a.result else None,
         a.result.effort if a.result else None, a.error)
        for a in solve_batch(batch, SolveOptions(max_solutions=2, workers=workers))
    ]
    return answers, told, batch.exit_code


def test_solve_batch_is_the_same_with_two_workers(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.non")
    paths = [DANCER, missing, PATTERN, "example:petro", "example:knot"]
    one = _run(paths, 1)
    two = _run(paths, 2)
    assert two == one
    answers, told, code = one
    assert [a[0] for a in answers] == [DANCER, missing, PATTERN, PATTERN, "example:petro",
                                       "example:knot"]
    assert [a[2] for a in answers] == ["unique", None, "unique", "unique", "unique", "unique"]
    assert told == [(missing, "no such file")] and code == 2


def test_a_puzzle_the_solver_refuses_costs_only_itself(tmp_path: Path) -> None:
    """A strategy the solver does not know is refused per puzzle (the CLI checks it first;
    the library says it per item): every item is an error, told once, in order."""
    told: list[tuple[str, str]] = []
    batch = Batch([DANCER, PATTERN], on_error=lambda f, r: told.append((f, r)))
    answers = list(solve_batch(batch, SolveOptions(strategy="guess", workers=2)))
    assert [a.file for a in answers] == [DANCER, PATTERN, PATTERN]
    assert all(a.result is None and a.error and a.error.startswith("unknown strategy")
               for a in answers)
    assert [f for f, _ in told] == [DANCER, PATTERN, PATTERN] and batch.exit_code == 2
