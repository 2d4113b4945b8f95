"""What a solve returns: the verdict, the proof's solutions, the technique and the effort."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nonoforge.errors import SolverError
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.results import Verdict
from nonoforge.solving import MAX_COLORS, mask_colours, shows_givens
from nonoforge.solving import TECHNIQUES as TECHNIQUES  # its home; re-exported

if TYPE_CHECKING:
    import numpy as np

#: Every verdict :attr:`SolveResult.status` can take, as strings (their home is
#: :class:`nonoforge.results.Verdict`).
STATUSES: tuple[str, ...] = tuple(v.value for v in Verdict)


@dataclass(frozen=True)
class FlatState:
    """A state as plain ints, row by row: what the plain-Python line logic
    (:mod:`nonoforge.solver.quick`) leaves, made an array only when someone reads
    :attr:`SolveResult.state` (a solve answered there never imports numpy, issue 39)."""

    masks: list[int]
    height: int
    width: int

    def array(self) -> np.ndarray:
        """The ``(height, width)`` ``uint64`` array of the masks."""
        import numpy as np

        return np.array(self.masks, dtype=np.uint64).reshape(self.height, self.width)


class _StateField:
    """:attr:`SolveResult.state`: given an array or a :class:`FlatState`, always read as an
    array (the flat one converted on first read)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._key = "_" + name

    def __get__(self, obj: Any, objtype: Any = None) -> np.ndarray:
        if obj is None:
            raise AttributeError(self._key)  # no default: the field is required
        value = obj.__dict__[self._key]
        if isinstance(value, FlatState):
            value = obj.__dict__[self._key] = value.array()
        return value

    def __set__(self, obj: Any, value: np.ndarray | FlatState) -> None:
        obj.__dict__[self._key] = value


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
    where logic (line and probe, before any guess) stopped (an answer of the plain-Python
    line logic keeps it as a :class:`FlatState` and makes the array on first read, so that
    it never imports numpy); ``steps`` the same after each root sweep when asked for.
    """

    status: Verdict
    solutions: list[Grid]
    technique: str
    effort: dict[str, int]
    time_s: float
    state: _StateField = _StateField()
    steps: list[np.ndarray] = field(default_factory=list)

    @property
    def solution(self) -> Grid | None:
        """The first solution, if any."""
        return self.solutions[0] if self.solutions else None

    @property
    def undecided(self) -> int:
        """How many cells logic left with more than one colour possible."""
        import numpy as np

        s = self.state
        return int(np.count_nonzero(s & (s - np.uint64(1))))

    def __repr__(self) -> str:
        return (
            f"SolveResult(status={self.status.value!r}, solutions={len(self.solutions)}, "
            f"technique={self.technique!r}, time_s={self.time_s:.4f})"
        )


def state_rows(state: np.ndarray, ncolors: int) -> list[str]:
    """A (partial) state drawn as text: a decided cell's character, ``?`` where undecided.

    >>> import numpy as np
    >>> state_rows(np.array([[1, 2], [3, 2]], dtype=np.uint64), 1)
    ['.#', '?#']
    """
    from nonoforge.puzzle import cell_chars

    chars = cell_chars(ncolors)
    return ["".join(chars[c] if c >= 0 else "?" for c in row)
            for row in mask_colours(state).tolist()]


def check_colours(puzzle: Puzzle) -> None:
    """Refuse a puzzle with more colours than a cell mask holds (before any solve)."""
    if puzzle.ncolors > MAX_COLORS:
        raise SolverError(
            f"the solver handles at most {MAX_COLORS} colours, this puzzle has {puzzle.ncolors}"
        )


def verify_solution(puzzle: Puzzle, g: Grid) -> Grid:
    """``g``, once checked to reproduce ``puzzle``'s clues and show its givens: every
    solution a solve returns passes here (a failure is a solver bug, never a verdict)."""
    if not g.matches(puzzle) or (puzzle.givens and not shows_givens(g.cells, puzzle)):
        raise SolverError(
            "internal error: the solver produced a grid that breaks a clue or a given"
        )
    return g
