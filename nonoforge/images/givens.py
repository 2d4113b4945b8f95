"""Givens: keep the picture exact and make its puzzle unique by printing a few cells.

Instead of editing pixels (:func:`~nonoforge.images.generate.repair`), ``--repair givens``
prints some cells on the sheet already solved -- filled in their colour, or crossed as
empty -- chosen so that the clues *plus* those cells have exactly one solution that line
logic alone reaches. Line logic here is the solver's own complete line kernel
(:func:`nonoforge.solver.line.solve_line`) run to a fixed point from the givens as the
starting state (:func:`nonoforge.solving.start_state`, where the solver starts too, so
``solve`` proves the printed puzzle unique with the very same givens). A given always
agrees with the picture, and line logic never removes a colour some valid placement keeps,
so when every cell is decided the result *is* the picture: the givens prove uniqueness by
construction.

Choosing the fewest givens is a set-cover-like problem; :func:`find_givens` is greedy
(each round, of the undecided cells on the most-undecided lines, the one whose given
settles the most cells) followed by a pruning pass that drops every given the others make
redundant. Same puzzle, same givens.

The givens are part of the puzzle (:attr:`~nonoforge.puzzle.Puzzle.givens`): ``.non``
files hold them as a ``givens`` line (:mod:`nonoforge.formats.non`), our JSON as a field,
Pattern game IDs as clue squares; every other format refuses a puzzle that has any.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from nonoforge.puzzle import Given, Grid, Puzzle
from nonoforge.solving import mask_colours, mask_counts, start_state
from nonoforge.sweeps import line_sweeps

#: Undecided cells tried per round (those on the lines with the most undecided cells).
GIVEN_CANDIDATES = 40


def propagate(
    puzzle: Puzzle,
    state: np.ndarray,
    rows: Iterable[int] = (),
    cols: Iterable[int] = (),
    in_place: bool = False,
) -> np.ndarray | None:
    """Line logic to a fixed point from ``state``, starting with the given dirty lines (all
    lines when none are given). Returns the new state (``state`` itself, narrowed, with
    ``in_place``; else a copy), or None on a contradiction."""
    st = state if in_place else state.copy()
    for _, _, changed in line_sweeps(puzzle, st, rows, cols):
        if changed is None:
            return None
    return st


def undecided(state: np.ndarray) -> np.ndarray:
    return mask_counts(state) > 1


def apply_givens(puzzle: Puzzle, givens: Sequence[Given]) -> np.ndarray | None:
    """The line-logic fixed point from the clues with ``givens`` (in place of the puzzle's
    own) as the start, :func:`~nonoforge.solving.start_state` as the solver has it."""
    return propagate(puzzle, start_state(Puzzle.trusted(
        puzzle.rows, puzzle.columns, puzzle.palette, puzzle.meta, puzzle.goal, tuple(givens)
    )))


def solved_by_line_logic(puzzle: Puzzle, givens: Sequence[Given], goal: Grid) -> bool:
    """Whether clues plus ``givens`` decide every cell by line logic, as ``goal``."""
    st = apply_givens(puzzle, givens)
    if st is None or undecided(st).any():
        return False
    return bool((mask_colours(st) == goal.cells).all())


def find_givens(puzzle: Puzzle, goal: Grid, candidates: int = GIVEN_CANDIDATES) -> list[Given]:
    """Few givens that make ``puzzle`` (whose solution is ``goal``) solvable by line logic
    alone; empty when it already is. See the module doc for the method."""
    cells = goal.cells.astype(np.int64)
    st = apply_givens(puzzle, [])
    assert st is not None, "the goal does not satisfy its own clues"
    givens: list[Given] = []
    while undecided(st).any():
        open_ = undecided(st)
        weight = open_.sum(axis=1)[:, None] + open_.sum(axis=0)[None, :]
        ys, xs = np.nonzero(open_)
        order = np.lexsort((xs, ys, -weight[ys, xs]))[:candidates]
        best: tuple[int, int, int, np.ndarray] | None = None
        for k in order:
            y, x = int(ys[k]), int(xs[k])
            trial = st.copy()
            trial[y, x] = np.uint64(1 << int(cells[y, x]))
            new = propagate(puzzle, trial, rows=[y], cols=[x], in_place=True)
            assert new is not None
            left = int(undecided(new).sum())
            if best is None or left < best[0]:
                best = (left, y, x, new)
        assert best is not None
        _, y, x, st = best
        givens.append((y, x, int(cells[y, x])))
    # pruning: a given the others make redundant goes (latest first: the earliest givens
    # were chosen with the least help and are the likeliest to be needed)
    for g in list(reversed(givens)):
        rest = [h for h in givens if h != g]
        if solved_by_line_logic(puzzle, rest, goal):
            givens = rest
    return sorted(givens)
