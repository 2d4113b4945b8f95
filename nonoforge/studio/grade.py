"""Grade on purpose, the easier way: move a unique picture toward a lower human grade.

The studio shows the picture's human grade (:func:`nonoforge.pipeline.rate.human_fields`,
the grade 1..5 of ``rate``) beside a target grade. *Harder* is
:func:`nonoforge.pipeline.harden.harden` (``generate --grade``'s own search); *easier* is
:func:`easier`, its mirror for a picture being drawn:

* the changes are one-cell **edits** of the picture: a cell on the edge of a shape (a
  4-neighbour has another colour) set to a neighbour's colour, never a colour's last cell;
  the puzzle's givens stay where they are, each showing the picture's colour there (an
  edit of a given cell changes what it shows);
* the candidates tried first are those that give a person the most new **footholds**
  (lines where line deduction decides something on the empty starting grid: the places a
  person starts from), then reading order; :data:`CANDIDATES` of them a round;
* each candidate must stay **unique, proven by the engine** (``solve`` counting to two);
  the round keeps the one whose human score comes nearest the target grade's range (on a
  log scale, as ``harden`` measures it), and only if it is nearer than before;
* it stops when the target grade is reached, no single edit brings it nearer, or
  :func:`edit_allowance` edits are made; or, raised by the caller's ``still_wanted``
  between two candidates, when its answer is no longer wanted (the studio: a newer stroke).

Deterministic (a fixed order, a fixed number of candidates, the human path bounded by a
count of line solves); no clocks. Library code: no web framework here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from nonoforge.errors import UsageError
from nonoforge.pipeline.harden import distance, edge_edits, rated
from nonoforge.puzzle import Grid, Puzzle

#: Candidate edits evaluated (solved and rated) per round, at most.
CANDIDATES = 12


def edit_allowance(cells: int) -> int:
    """The most edits one *easier* makes: 3 % of the cells, at least 2 (as ``harden``).

    >>> edit_allowance(400), edit_allowance(25)
    (12, 2)
    """
    return max(2, round(0.03 * cells))


@dataclass(frozen=True)
class Regraded:
    """What :func:`easier` did: the edits ``(row, column, colour)`` in order, the human
    grade and score before and after, and a note when the target was not reached."""

    cells: np.ndarray
    changed: list[tuple[int, int, int]]
    grade_wanted: int
    grade_before: int
    grade_after: int
    score_before: float
    score_after: float
    note: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"changed": [list(c) for c in self.changed], "cells": self.cells.tolist(),
                "grade_wanted": self.grade_wanted, "grade_before": self.grade_before,
                "grade_after": self.grade_after, "score_before": round(self.score_before, 1),
                "score_after": round(self.score_after, 1),
                "reached": self.grade_after <= self.grade_wanted, "note": self.note}


def candidates(cells: np.ndarray, ncolours: int) -> list[tuple[int, int, int]]:
    """Edits to try, ``(row, column, colour)``: harden's :func:`edge_edits` on empty lines,
    most footholds gained first, then reading order."""
    ranked = sorted((-gain, r, c, colour) for gain, r, c, colour in edge_edits(cells, ncolours))
    return [(r, c, colour) for _, r, c, colour in ranked]


def regiven(p: Puzzle, cells: np.ndarray) -> Puzzle:
    """The puzzle of picture ``cells`` in ``p``'s palette and metadata, with ``p``'s givens
    on the same cells, each showing the colour ``cells`` has there.

    >>> p = Puzzle.from_clues([[1], [1]], [[1], [1]], givens=[(0, 1, 0)])
    >>> regiven(p, np.array([[0, 1], [1, 0]])).givens
    ((0, 1, 1),)
    """
    import dataclasses

    q = Puzzle.from_grid(Grid(cells), p.palette, p.meta)
    if not p.givens:
        return q
    return dataclasses.replace(q, givens=tuple((r, c, int(cells[r, c]))
                                               for r, c, _ in p.givens))


def easier(
    puzzle: Puzzle, grade: int, max_edits: int | None = None,
    still_wanted: Callable[[], None] | None = None,
) -> Regraded:
    """Edit ``puzzle``'s picture (its goal) a cell at a time toward human grade ``grade``
    or below, keeping it unique (module doc). A puzzle already there is left as it is.
    ``still_wanted`` is called before each candidate is solved and rated; it raises to
    stop the search (the caller's exception goes through).

    >>> from nonoforge.puzzle import Grid, Puzzle
    >>> easier(Puzzle.from_grid(Grid.from_rows(["##", "#."])), 1).note
    'already at human grade 1 (wanted 1 or easier): nothing to do'
    """
    if not 1 <= grade <= 5:
        raise UsageError(f"the target grade must be 1..5, got {grade}")
    if puzzle.goal is None:
        raise UsageError("the studio regrades a picture: the puzzle needs its goal")
    now = rated(puzzle)
    if now is None:
        raise UsageError("the puzzle is not proven unique: make it unique first")
    score, got = now
    cells = np.array(puzzle.goal.cells, dtype=np.int64)
    start = (score, got)
    changed: list[tuple[int, int, int]] = []
    if got <= grade:
        return Regraded(cells, [], grade, got, got, score, score,
                        f"already at human grade {got} (wanted {grade} or easier): "
                        "nothing to do")
    most = max_edits if max_edits is not None else edit_allowance(cells.size)
    note = None
    while distance(score, grade) > 0:
        if len(changed) >= most:
            note = f"stopped at {most} edit(s) (the most allowed)"
            break
        here = distance(score, grade)
        best: tuple[tuple[float, int], tuple[int, int, int], float, int] | None = None
        for i, (r, c, k) in enumerate(candidates(cells, puzzle.ncolors)[:CANDIDATES]):
            new = cells.copy()
            new[r, c] = k
            if still_wanted is not None:
                still_wanted()
            res = rated(regiven(puzzle, new))
            if res is None:
                continue
            key = (distance(res[0], grade), i)
            if key[0] < here and (best is None or key < best[0]):
                best = (key, (r, c, k), res[0], res[1])
        if best is None:
            note = "no single edit that keeps the puzzle unique makes it easier"
            break
        _, (r, c, k), score, got = best
        cells[r, c] = k
        changed.append((r, c, k))
    if note is None and got > grade:
        note = f"grade {grade} not reached"
    return Regraded(cells, changed, grade, start[1], got, start[0], score, note)
