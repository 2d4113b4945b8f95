"""What a solve returns: the verdict, the proof's solutions, the technique and the effort."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nonoforge.errors import SolverError
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.results import Verdict
from nonoforge.solving import TECHNIQUES as TECHNIQUES  # its home; re-exported
from nonoforge.solving import mask_colours, shows_givens

#: Every verdict :attr:`SolveResult.status` can take, as strings (their home is
#: :class:`nonoforge.results.Verdict`).
STATUSES: tuple[str, ...] = tuple(v.value for v in Verdict)


@dataclass(eq=False)
class SolveResult:
    """The outcome of :func:`nonoforge.solver.solve`.

    ``status`` is a :class:`~nonoforge.results.Verdict` (a ``str``): ``unique`` (proven:
    logic forced every cell, or the search was exhausted with exactly one solution),
    ``multiple`` (two different solutions are in ``solutions``), ``none`` (the clues admit
    no picture), ``found`` (``max_solutions=1`` found a solution by search or probing without
    deciding whether it is the only one), ``timeout`` (the time ran out first; ``solutions`` holds
    what was found), ``budget`` (the deterministic work budget, or the node budget, ran out
    first: the same on every machine, unlike ``timeout``, which is the wall clock) or
    ``unsolved`` (a limited strategy stopped with cells undecided). Every grid in
    ``solutions`` reproduces the clues.
    ``state`` is the ``(H, W)`` ``uint64`` mask of the colours each cell may still take
    where logic (line and probe, before any guess) stopped; ``steps`` the same after each
    root sweep when asked for.
    """

    status: Verdict
    solutions: list[Grid]
    technique: str
    effort: dict[str, int]
    time_s: float
    state: np.ndarray
    steps: list[np.ndarray] = field(default_factory=list)

    @property
    def solution(self) -> Grid | None:
        """The first solution, if any."""
        return self.solutions[0] if self.solutions else None

    @property
    def undecided(self) -> int:
        """How many cells logic left with more than one colour possible."""
        s = self.state
        return int(np.count_nonzero(s & (s - np.uint64(1))))

    def __repr__(self) -> str:
        return (
            f"SolveResult(status={self.status.value!r}, solutions={len(self.solutions)}, "
            f"technique={self.technique!r}, time_s={self.time_s:.4f})"
        )


def state_rows(state: np.ndarray, ncolors: int) -> list[str]:
    """A (partial) state drawn as text: a decided cell's character, ``?`` where undecided.

    >>> state_rows(np.array([[1, 2], [3, 2]], dtype=np.uint64), 1)
    ['.#', '?#']
    """
    from nonoforge.puzzle import cell_chars

    chars = cell_chars(ncolors)
    return ["".join(chars[c] if c >= 0 else "?" for c in row)
            for row in mask_colours(state).tolist()]


def verify_solution(puzzle: Puzzle, g: Grid) -> Grid:
    """``g``, once checked to reproduce ``puzzle``'s clues and show its givens: every
    solution a solve returns passes here (a failure is a solver bug, never a verdict)."""
    if not g.matches(puzzle) or not shows_givens(g.cells, puzzle):
        raise SolverError(
            "internal error: the solver produced a grid that breaks a clue or a given"
        )
    return g
