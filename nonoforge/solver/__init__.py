"""The nonoforge solver: exact, colour-capable, proves uniqueness, reports its technique.

>>> from nonoforge.solver import solve
>>> from nonoforge.puzzle import Grid, Puzzle
>>> res = solve(Puzzle.from_grid(Grid.from_rows([".#.", "###", ".#."])))
>>> res.status.value, res.technique
('unique', 'line')

The ladder, easiest first: ``trivial`` lines, simple ``overlap``, complete ``line`` logic
(a compiled O(k*n) dynamic programme per line, propagated to a fixpoint), ``probe``
(assume each colour of a cell, keep what all survivors agree on) and ``search``
(backtracking with probing at each node, falling back to SAT when over budget). See
docs/solver.md for the design and the benchmark figures.
"""

from typing import Any

from nonoforge.solver.core import SOLVER_VERSION, STRATEGIES, solve, warmup
from nonoforge.solver.result import STATUSES, TECHNIQUES, SolveResult, state_rows


def __getattr__(name: str) -> Any:
    # solve_line lives with the compiled kernels: importing it loads numba, so only on use
    if name == "solve_line":
        from nonoforge.solver.line import solve_line

        return solve_line
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SOLVER_VERSION",
    "STATUSES",
    "STRATEGIES",
    "TECHNIQUES",
    "SolveResult",
    "solve",
    "solve_line",
    "state_rows",
    "warmup",
]
