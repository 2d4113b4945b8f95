"""What the studio's solver says about a picture while it is drawn: the check of one grid.

A designer paints a picture; after every stroke the page asks :func:`check` about it. The
answer (:class:`Check`) says what webpbn's Check button and number-loom's live view say,
in one go:

* the verdict of the full solver (unique, multiple, none), under a deterministic work
  budget (:data:`CHECK_WORK`: ``budget`` when the puzzle is too hard to decide at once);
* whether complete line logic alone finishes it, and the cells it leaves undecided;
* for a multiple puzzle, the cells where the two solutions found differ;
* a ranked list of one-cell changes (:class:`Suggestion`), each re-solved by line logic,
  that make the puzzle unique or leave fewer cells undecided: a cell painted another
  colour, or a cell *given* (revealed to the solver as it is in the picture, printed
  solved on the sheet, as webpbn's and number-loom's puzzles with givens have them).

The puzzle's own givens are where every solve starts (:func:`nonoforge.solving.start_state`),
so the verdict is for the puzzle as printed, givens included.

The candidate changes are the repair's (:func:`nonoforge.images.generate.repair`, what
``generate`` runs): cells line logic left undecided and their 4-neighbours, set to the
background, a neighbour's colour or a colour the solver still allows there, ranked first
by :func:`~nonoforge.images.generate.edit_costs` (prefer edges of regions to holes, avoid
specks). Without a source picture there is no colour fidelity to keep, so only the
shape terms rank them. :data:`TRIALS` of them are re-solved: a count, not a clock, so the
same grid gets the same suggestions on every machine. The candidate givens are undecided
cells, those two solutions disagree on first, then those on the lines with the most cells
undecided (as :func:`nonoforge.images.givens.find_givens` picks them);
:data:`GIVEN_TRIALS` of them are tried, each by line logic from where the check's line
logic stopped. A given never changes the picture, so one that leaves nothing undecided
makes the puzzle unique with that very picture.

This module imports no web framework: it is library code the web layer calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from nonoforge.errors import UsageError
from nonoforge.puzzle import Clue, Grid, Palette, Puzzle, clue_of
from nonoforge.solving import mask_counts

#: Work (the solver's deterministic ``work`` count) the full verdict may take after a
#: stroke: beyond it the verdict is ``budget`` ("too hard to decide while drawing"), the
#: same on every machine. About a second of CPU at most; most pictures need far less (a
#: 30x30 picture with two solutions: about 12,000).
CHECK_WORK = 200_000
#: The work a check asked for on purpose ("check thoroughly") may take.
THOROUGH_WORK = 20_000_000
#: How many one-cell changes are re-solved for suggestions, cheapest first.
TRIALS = 32
#: How many candidate givens are tried for suggestions.
GIVEN_TRIALS = 16
#: How many suggestions an answer lists.
SHOWN = 8
#: Of those, at most this many of each kind, so that both stay in view: paint changes
#: and givens each rank among their own kind (a given often settles more than an edit,
#: an edit is often cheaper to rank), and a designer may prefer either.
SHOWN_OF_KIND = {"paint": 6, "given": 4}
#: The rank cost of a given against an edit's shape cost: about an edit inside a region
#: (a given leaves the picture alone but adds a printed cell to the sheet).
GIVEN_COST = 1.0
#: Cells beyond which the cells a suggestion may touch are the undecided ones only.
MAX_CELLS = 100 * 100


@dataclass(frozen=True)
class Suggestion:
    """One cell changed: ``(row, column)`` set to ``colour`` (``kind`` ``paint``), or given
    as the picture has it (``kind`` ``given``: ``colour`` is the picture's there), and what
    line logic then says."""

    row: int
    column: int
    colour: int
    #: line logic alone then finishes the puzzle (so it is unique)
    unique: bool
    #: cells line logic still leaves undecided after the change
    undecided: int
    #: how many fewer undecided cells than before the change
    gain: int
    #: the edit's shape cost (lower: a less visible change); a given's is GIVEN_COST
    cost: float
    #: ``paint`` (the picture changes) or ``given`` (the cell is revealed)
    kind: Literal["paint", "given"] = "paint"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "row": self.row, "column": self.column,
                "colour": self.colour, "unique": self.unique, "undecided": self.undecided,
                "gain": self.gain, "cost": round(self.cost, 3)}


@dataclass(frozen=True)
class Check:
    """The solver's view of one grid (see the module doc)."""

    verdict: str
    technique: str | None
    line_solves: bool
    undecided: list[tuple[int, int]]
    differ: list[tuple[int, int]]
    suggestions: list[Suggestion] = field(default_factory=list)
    work: int = 0
    key: str = ""
    #: the puzzle's givens (cells revealed to the solver) the check started from
    givens: list[tuple[int, int, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict, "technique": self.technique,
            "line_solves": self.line_solves,
            "undecided": [list(c) for c in self.undecided],
            "differ": [list(c) for c in self.differ],
            "suggestions": [s.to_dict() for s in self.suggestions],
            "work": self.work, "key": self.key,
            "givens": [list(g) for g in self.givens],
        }


def puzzle_of(cells: np.ndarray, palette: Palette) -> Puzzle:
    """The puzzle whose picture ``cells`` is (its goal), in ``palette``."""
    if cells.ndim != 2 or cells.size == 0:
        raise UsageError("the grid must have at least one row and one column")
    if cells.size > MAX_CELLS:
        raise UsageError(f"the grid has {cells.size} cells; the studio edits at most "
                         f"{MAX_CELLS}")
    if int(cells.min()) < 0 or int(cells.max()) >= len(palette):
        raise UsageError(f"cells must be colour indices 0..{len(palette) - 1}")
    return Puzzle.from_grid(Grid(cells), palette)


class Superseded(Exception):
    """A newer stroke's check has started: this one's answer would never be shown."""


def check(
    puzzle: Puzzle, *, trials: int = TRIALS, work: int = CHECK_WORK,
    stale: Callable[[], bool] | None = None,
) -> Check:
    """Check ``puzzle`` (one with a goal, the picture being drawn): see the module doc.

    ``stale`` is asked between the solves: once it says a newer check has started, this
    one stops with :class:`Superseded` (what it would say depends only on the picture; it
    is just no longer wanted)."""
    from nonoforge.solver import solve

    def still_wanted() -> None:
        if stale is not None and stale():
            raise Superseded("superseded by a newer stroke")

    goal = puzzle.goal
    if goal is None:
        raise UsageError("the studio checks a picture: the puzzle needs its goal")
    cells = goal.cells.astype(np.int64)
    lines = solve(puzzle, strategy="line", max_solutions=2)
    stuck = mask_counts(lines.state) > 1
    line_solves = lines.status == "unique"
    if line_solves:
        verdict, technique, spent, differ = "unique", lines.technique, lines.effort.get(
            "work", 0), np.zeros_like(stuck)
    else:
        still_wanted()
        full = solve(puzzle, max_solutions=2, budget=work)
        verdict, technique = str(full.status.value), full.technique
        spent = full.effort.get("work", 0)
        differ = np.zeros_like(stuck)
        if len(full.solutions) >= 2:
            differ = full.solutions[0].cells != full.solutions[1].cells
    still_wanted()
    suggestions = [] if line_solves else suggest(puzzle, cells, lines.state, differ, trials,
                                                 still_wanted)
    return Check(
        verdict=verdict, technique=technique, line_solves=line_solves,
        undecided=_coords(stuck), differ=_coords(differ), suggestions=suggestions,
        work=int(spent), key=puzzle.key, givens=list(puzzle.givens),
    )


def _coords(mask: np.ndarray) -> list[tuple[int, int]]:
    ys, xs = np.nonzero(mask)
    return list(zip(ys.tolist(), xs.tolist(), strict=True))


def candidates(
    cells: np.ndarray, state: np.ndarray, differ: np.ndarray, ncolours: int
) -> list[tuple[float, int, int, int]]:
    """Every one-cell change near where line logic is stuck, ``(cost, row, column,
    colour)``, cheapest first (ties in reading order): the repair's candidates, ranked by
    :func:`~nonoforge.images.generate.edit_costs` alone, and the cells two solutions
    disagree on before the others."""
    from nonoforge.images.generate import edit_costs
    from nonoforge.images.measure import neighbour_counts

    undecided = mask_counts(state) > 1
    # an undecided cell or a 4-neighbour of one
    near = undecided | (neighbour_counts(undecided.astype(np.int64), 2)[1] > 0)
    counts = neighbour_counts(cells, ncolours)
    colours = np.arange(ncolours)[:, None, None]
    allowed = (np.asarray(state, dtype=np.uint64)[None] >> colours.astype(np.uint64)) & 1
    ok = near[None] & (colours != cells[None]) & (
        (colours == 0) | (counts > 0) | (undecided[None] & (allowed == 1))
    )
    fid = np.zeros((*cells.shape, ncolours))  # no source picture: shape terms only
    cost = edit_costs(cells, cells, fid)
    cost += np.where(undecided, 0.0, 0.05)[None]  # prefer the cells logic is stuck on
    cost -= np.where(differ, 0.5, 0.0)[None]  # and those two solutions disagree on
    cs, ys, xs = np.nonzero(ok)
    vals = cost[cs, ys, xs]
    order = np.lexsort((xs, ys, vals))
    return [(float(vals[i]), int(ys[i]), int(xs[i]), int(cs[i])) for i in order]


def suggest(
    puzzle: Puzzle, cells: np.ndarray, state: np.ndarray, differ: np.ndarray, trials: int,
    still_wanted: Callable[[], None] | None = None,
) -> list[Suggestion]:
    """The one-cell changes (of the cheapest ``trials`` :func:`candidates`, and of
    :data:`GIVEN_TRIALS` :func:`given_candidates`) after which line logic leaves fewer cells
    undecided, best first: those that finish the puzzle, then by cells left undecided,
    then by cost; :data:`SHOWN` of them, at most :data:`SHOWN_OF_KIND` of each kind."""
    from nonoforge.solver import solve

    before = int((mask_counts(state) > 1).sum())
    rows = list(puzzle.rows)
    cols = list(puzzle.columns)
    work = cells.astype(np.uint8)
    found: list[Suggestion] = []
    given_at = {(r, c): i for i, (r, c, _) in enumerate(puzzle.givens)}
    for cost, y, x, c in candidates(cells, state, differ, puzzle.ncolors + 1)[:trials]:
        if still_wanted is not None:
            still_wanted()
        old = work[y, x]
        work[y, x] = c
        row: Clue = clue_of(work[y].tobytes())
        col: Clue = clue_of(work[:, x].tobytes())
        work[y, x] = old
        r2, c2 = list(rows), list(cols)
        r2[y], c2[x] = row, col
        givens = puzzle.givens
        if (y, x) in given_at:  # a given shows the picture: painted, it shows the new colour
            g = list(givens)
            g[given_at[y, x]] = (y, x, c)
            givens = tuple(g)
        trial = Puzzle.trusted(tuple(r2), tuple(c2), puzzle.palette, givens=givens)
        res = solve(trial, strategy="line", max_solutions=2)
        left = int((mask_counts(res.state) > 1).sum())
        if left < before:
            found.append(Suggestion(y, x, c, res.status == "unique" and left == 0, left,
                                    before - left, cost))
    found += suggest_givens(puzzle, cells, state, differ, GIVEN_TRIALS, still_wanted)
    found.sort(key=lambda s: (not s.unique, s.undecided, s.cost, s.kind, s.row, s.column))
    shown: list[Suggestion] = []
    room = dict(SHOWN_OF_KIND)
    for s in found:
        if room[s.kind] > 0:
            room[s.kind] -= 1
            shown.append(s)
            if len(shown) >= SHOWN:
                break
    return shown


def given_candidates(state: np.ndarray, differ: np.ndarray) -> list[tuple[int, int]]:
    """Cells to try giving, ``(row, column)``: the undecided ones, those two solutions
    disagree on first, then those on the lines with the most undecided cells, then reading
    order.

    >>> st = np.array([[3, 3], [2, 1]], dtype=np.uint64)  # row 0 undecided
    >>> given_candidates(st, np.array([[False, True], [False, False]]))
    [(0, 1), (0, 0)]
    """
    open_ = mask_counts(state) > 1
    weight = open_.sum(axis=1)[:, None] + open_.sum(axis=0)[None, :]
    ys, xs = np.nonzero(open_)
    order = np.lexsort((xs, ys, -weight[ys, xs], ~differ[ys, xs]))
    return [(int(ys[i]), int(xs[i])) for i in order]


def suggest_givens(
    puzzle: Puzzle, cells: np.ndarray, state: np.ndarray, differ: np.ndarray, trials: int,
    still_wanted: Callable[[], None] | None = None,
) -> list[Suggestion]:
    """The givens (of the first ``trials`` :func:`given_candidates`) after which line logic
    leaves fewer cells undecided: each tried by line logic from ``state`` (where the
    check's line logic stopped, the puzzle's own givens in it) with the cell fixed to its
    colour in the picture, only its row and column dirty. Not ranked (:func:`suggest`
    ranks them with the edits)."""
    from nonoforge.images.givens import propagate

    before = int((mask_counts(state) > 1).sum())
    found: list[Suggestion] = []
    for y, x in given_candidates(state, differ)[:trials]:
        if still_wanted is not None:
            still_wanted()
        k = int(cells[y, x])
        trial = state.copy()
        trial[y, x] = np.uint64(1 << k)
        new = propagate(puzzle, trial, rows=[y], cols=[x], in_place=True)
        if new is None:  # not the picture's colour after all (a picture off its clues)
            continue
        left = int((mask_counts(new) > 1).sum())
        if left < before:
            found.append(Suggestion(y, x, k, left == 0, left, before - left, GIVEN_COST,
                                    "given"))
    return found
