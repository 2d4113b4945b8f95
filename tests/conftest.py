"""Shared fixtures and helpers: test data, the optional shared corpora, SAT enumeration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
#: The workplace's shared corpora sit beside the project; a user's clone has none.
SHARED = ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ``../shared``, or skip the test with the reason when it is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is absent: the shared corpora sit beside the project only in CI")
    return p


@pytest.fixture
def data_dir() -> Path:
    return DATA


def all_solutions(puzzle: Any, lines: str = "order", state: Any = None) -> set[Any]:
    """Every solution, by enumerating the SAT encoding with blocking clauses (small puzzles)."""
    from pysat.solvers import Solver

    from nonoforge.solver.sat import SOLVER_NAME, encode

    enc = encode(puzzle, state, lines=lines)
    found: set[Any] = set()
    if enc.unsat:
        return found
    with Solver(name=SOLVER_NAME, bootstrap_with=enc.clauses) as s:
        while s.solve():
            model = s.get_model()
            found.add(enc.decode(model))
            block = enc.blocking_clause(model)
            if not block:
                break
            s.add_clause(block)
    return found
