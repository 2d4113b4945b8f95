"""The designer's view: where a picture's clues are ambiguous, one ambiguity at a time.

:func:`explain` solves the puzzle of the *quantised* picture (before any repair) with the
full solver, asking for two solutions. When there is a second one, the cells where it
differs from the picture flip between them -- the places a designer would redraw. When the
full solver spends its share of the budget first (long lines of a large picture make its
probing dear), the picture's four-cell switches are listed without a solver
(:func:`switches`), and the picture, a solution already known, lets the SAT back-end be
asked for another one directly, from what line logic settles; none found is a proof of
uniqueness.

A second solution can flip several places at once (two switches far apart flip together
in it only because the solver found them together), and a designer fixes each place on its
own. So the ambiguity is shown as *regions*, each one alternative solution on its own: the
solver looks for a solution that differs from the picture only in a small window around
the first difference (3x3, 5x5, 9x9, 17x17 cells, else anywhere), then shrinks that
difference cell by cell until no solution differs on fewer of its cells (a classic 2x2
switch is one region). Then the regions found are pinned to the picture and the SAT
back-end is asked for another solution, which can only flip somewhere else; this repeats
until none is left (``complete``), or the rounds or the deterministic work budget run
out (``stopped`` says which; ``timeout`` when the wall-clock guard fired first, the one
case where the result depends on the machine). Every solution shown comes from the solver,
which checks it against the clues.

When the picture is unique but line logic stalls on it, the cells line logic leaves
undecided are shown instead. :func:`~nonoforge.images.render.explain_png` draws either
over the picture, :func:`~nonoforge.images.render.explain_gif` animates the regions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from nonoforge.errors import SolverError
from nonoforge.puzzle import Grid, Palette, Puzzle
from nonoforge.solver.options import SAT_CONFLICT_WORK, WorkCosts
from nonoforge.solving import full_state, mask_counts

#: Seconds all of explain's solves together may take: a guard only, the budget decides
#: (at twice the time the budget takes on a quiet machine, so that under load it still does).
EXPLAIN_TIMEOUT = 30.0
#: Work units that all rounds together may spend; past it the regions found so far are
#: shown, not ``complete``. A unit is about half a microsecond of CPU at every size: the
#: solver's ``work`` count, but with a line solve weighed by its length (:func:`costs`),
#: and each SAT call charged for its clauses and each conflict by the puzzle's size.
EXPLAIN_BUDGET = 20_000_000
#: Most regions looked for (one a round).
EXPLAIN_ROUNDS = 16
#: What one call of the SAT back-end costs in work units per cell of the puzzle, besides
#: its clauses and conflicts, so that the budget also bounds how many calls are made:
#: measured 8-17 ms a call with all but a window pinned at 30x30-45x45 and 97-150 ms at
#: 80x80-100x100 (about 12 microseconds a cell).
CELL_WORK = 25
#: What one clause of a SAT call's CNF costs in work units (encoding it, loading it):
#: measured 0.9-1 microsecond a clause with nothing pinned at 150x150-200x200 (4-11 M
#: clauses, 3.6-10 s a call), up to 2 at 80x80.
CLAUSE_WORK = 3
#: Cells of the puzzle per work unit of one SAT conflict (at least the solver's
#: :data:`~nonoforge.solver.options.SAT_CONFLICT_WORK`): a conflict took 64-117
#: microseconds at 80x80-150x150 in black and white, 200-520 at 200x200 and 330-380 in
#: 3 colours at 150x150-200x200, growing with the CNF.
CONFLICT_CELLS = 40
#: Cell-blocks (a line's length times its blocks plus one) per work unit of a line solve
#: past the one- and two-word kernels (62 cells in colour, 126 in black and white, which
#: cost 0.2-0.9 microseconds a line). Measured on the array DP (``dp_line``), which took
#: those lines then: 8.0-9.0 ns a cell-block from 80x80 (3 colours) to 200x200. The
#: many-word kernel that takes them now up to 1022 cells does 0.6-1.9 ns a cell-block, so
#: these lines are charged about 8x what they cost. That is kept on purpose: charged at
#: their cost (500 cell-blocks a unit), the full solver's share of the budget let it probe
#: on, and bench/explain.py --scale found the same regions in 4.8-13 s instead of 0.7-3.5
#: (astronaut at 150: 1.3 -> 10.4 s; hubble in 4 colours at 80: 1.5 -> 7.0 s).
DP_CELL_BLOCKS = 60
#: Percent of the budget the first solve (the full solver, two solutions) may spend. Past
#: it the picture, a solution already known, lets the SAT back-end be asked for another
#: directly from line logic's state: on large pictures the solver's probing of long lines
#: costs far more than that one call (hubble in 4 colours at 80x71: the solver spends its
#: whole budget without a second solution, the call finds one in 0.4 s).
FIRST_SHARE = 50
#: Half-widths of the windows :meth:`_Seeker.local` tries around a difference.
WINDOWS = (1, 2, 4, 8)
#: What :func:`switches` charges the budget for each cell it looks at while listing a
#: line's swaps and each swap it tests: measured 0.1-0.3 microseconds each (pure Python,
#: 200x200 pictures, random and regular, dense and sparse).
SWAP_WORK = 1

Cell = tuple[int, int]


@dataclass(frozen=True)
class Explanation:
    """``kind`` is ``flip`` (other solutions differ at ``cells``), ``undecided`` (line
    logic leaves ``cells`` open; ``status`` says whether the picture is proven unique or
    the budget ran out first), or ``none`` (line logic solves the picture).

    For ``flip``: ``regions`` are the independent ambiguities, each a group of cells that
    flips alone (``alternatives[k]`` is the picture with region ``k`` flipped, a solution);
    ``other`` is the first solution found that is not the picture; ``complete`` says no
    further ambiguity is left once the regions are pinned to the picture (proven by the
    solver within the budget); otherwise ``stopped`` says what ended the search: ``rounds``
    (:data:`EXPLAIN_ROUNDS` regions found), ``budget`` (the work budget, the same on every
    machine) or ``timeout`` (the wall-clock guard fired first: on a quieter machine more
    might have been found). ``minimal[k]`` says whether region ``k`` was proven minimal by
    inclusion; only a region whose shrinking the budget or the guard cut short is not (it
    is still a true alternative, perhaps several ambiguities at once)."""

    kind: str
    status: str
    cells: tuple[Cell, ...]
    other: Grid | None = None
    regions: tuple[tuple[Cell, ...], ...] = ()
    alternatives: tuple[Grid, ...] = ()
    complete: bool = True
    stopped: str | None = None
    minimal: tuple[bool, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The facts ``generate --json`` prints under ``explain`` (cells as ``[row, column]``;
        the alternatives themselves are drawn, not listed)."""
        out: dict[str, Any] = {
            "kind": self.kind, "status": self.status, "cells": [list(c) for c in self.cells]
        }
        if self.kind == "flip":
            out["regions"] = [[list(c) for c in r] for r in self.regions]
            out["complete"] = self.complete
            out["stopped"] = self.stopped
            out["minimal"] = list(self.minimal)
        return out


#: What :func:`summary_line` says stopped an incomplete search, by ``stopped``.
_STOPPED = {
    "rounds": f"{EXPLAIN_ROUNDS} regions looked for",
    "budget": "work budget spent",
    "timeout": "time guard fired",
    "size": "too large for the SAT back-end",
}


def summary_line(facts: dict[str, Any]) -> str:
    """One line for people about an explanation's JSON facts (``generate --explain``).

    >>> summary_line({"kind": "flip", "status": "multiple", "cells": [[0, 0]] * 8,
    ...               "regions": [[[0, 0]] * 4] * 2, "complete": True, "file": "x.png",
    ...               "animation": "x.gif"})
    'explain: 2 independent ambiguities (8 cells) -> x.png, x.gif'
    """
    files = ", ".join(f for f in (facts.get("file"), facts.get("animation")) if f)
    if facts["kind"] == "flip":
        n = len(facts["regions"])
        why = _STOPPED.get(facts.get("stopped") or "", facts.get("stopped"))
        more = "" if facts["complete"] else f", perhaps more ({why})"
        cut = [k for k, m in enumerate(facts.get("minimal", []), 1) if not m]
        more += "".join(f"; region {k} not proven minimal" for k in cut)
        what = (f"{n} independent {'ambiguity' if n == 1 else 'ambiguities'} "
                f"({len(facts['cells'])} cells){more}")
    elif facts["kind"] == "undecided":
        what = f"line logic leaves {len(facts['cells'])} cells open ({facts['status']})"
    else:
        what = "line logic solves the picture as drawn"
    return f"explain: {what} -> {files}"


def costs(puzzle: Puzzle) -> WorkCosts:
    """What explain's budget charges ``puzzle``'s solves: a line solve weighed by the mean
    over its lines of :data:`DP_CELL_BLOCKS` (the lines the bit-parallel kernels take cost
    one unit, like the solver's count), a SAT conflict by :data:`CONFLICT_CELLS`. Depends
    on the clues alone, so the budget stops at the same point on every machine.

    >>> costs(Puzzle.from_grid(Grid(np.eye(30, dtype=np.uint8))))
    WorkCosts(line=1, conflict=200)
    """
    from nonoforge.solver.line import MAX_BITS2_LINE, MAX_BITS_LINE

    longest = MAX_BITS2_LINE if puzzle.ncolors == 1 else MAX_BITS_LINE
    lines = [(puzzle.width, c) for c in puzzle.rows] + [(puzzle.height, c) for c in puzzle.columns]
    each = [max(1, n * (len(c) + 1) // DP_CELL_BLOCKS) if n > longest else 1 for n, c in lines]
    line = -(-sum(each) // max(1, len(each)))  # the mean, rounded up
    cells = puzzle.width * puzzle.height
    return WorkCosts(line=line, conflict=max(SAT_CONFLICT_WORK, cells // CONFLICT_CELLS))


def _clause_bound(puzzle: Puzzle, state: np.ndarray) -> int:
    """About how many clauses the SAT back-end's CNF of ``puzzle`` restricted to ``state``
    has: a quarter of its encoder's bound, (4 blocks + 1) clauses a cell of each line, over
    the lines with an undecided cell (measured a quarter to a half of the bound)."""
    open_: np.ndarray = np.asarray(mask_counts(state) > 1)
    rows = [(len(c) * 4 + 1) * puzzle.width for i, c in enumerate(puzzle.rows)
            if open_[i].any()]
    cols = [(len(c) * 4 + 1) * puzzle.height for j, c in enumerate(puzzle.columns)
            if open_[:, j].any()]
    return (sum(rows) + sum(cols)) // 4


def _admits(state: np.ndarray, cells: np.ndarray) -> bool:
    """Whether the colour masks ``state`` allow the picture ``cells`` everywhere."""
    bits = np.left_shift(np.uint64(1), cells.astype(np.uint64))
    return bool(np.all(np.bitwise_and(state.astype(np.uint64), bits) != 0))


def explain(
    grid: Grid, palette: Palette, timeout: float = EXPLAIN_TIMEOUT,
    budget: int = EXPLAIN_BUDGET, rounds: int = EXPLAIN_ROUNDS,
    first_share: int = FIRST_SHARE,
) -> Explanation:
    """Why the picture ``grid`` is (or is not) unique by line logic; see the module doc.

    ``budget`` (work units) decides how far the search for ambiguities goes, the same on
    every machine; ``timeout`` (seconds, all solves together) only guards. The full
    solver may spend ``first_share`` percent of it (:data:`FIRST_SHARE`; 0: the SAT
    back-end alone answers)."""
    from nonoforge.solver import solve

    puzzle = Puzzle.from_grid(grid, palette)
    weights = costs(puzzle)
    # the full solver gets a share of the budget; past it, the picture (a solution known)
    # lets one SAT call from line logic's state ask for another directly
    first = budget * first_share // 100
    full = solve(puzzle, strategy="auto", max_solutions=2, timeout=timeout, budget=first,
                 costs=weights)
    deadline = time.monotonic() + max(0.0, timeout - full.time_s)  # loading not counted
    mine = grid.cells
    others = [g.cells for g in full.solutions if not np.array_equal(g.cells, mine)]
    spent = weights.charged(full.effort)
    if "sat_conflicts" in full.effort:  # the hand-over's CNF, as each call's is charged
        spent += CELL_WORK * mine.size + CLAUSE_WORK * _clause_bound(puzzle, full.state)
    status: str  # the solve's Verdict, or the verdict this explanation proves
    status, seek, line = full.status, None, None
    nxt: np.ndarray | None = None  # the next alternative to narrow into a region
    if full.status == "multiple" and others:
        # what the first solve's root logic settled holds for every solution (the solver's
        # own SAT hand-over starts there): the calls start there too, a far smaller CNF
        base = full.state if all(_admits(full.state, g) for g in (mine, *others)) else None
        seek = _Seeker(puzzle, mine, deadline, budget - spent, base)
    found: list[tuple[np.ndarray, bool]] = []  # each with: proven minimal
    pinned = np.zeros(mine.shape, dtype=bool)
    if full.status == "budget":
        line = solve(puzzle, strategy="line", max_solutions=2)
        # four-cell switches first: found in a blink where one SAT call over a large
        # picture's millions of clauses may spend the rest of the budget without an answer
        # (one more than the rounds: the last, if found, says there are more)
        quick, work = switches(mine, rounds + 1, budget - spent)
        spent += work
        found = [(alt, True) for alt in quick[:rounds]]  # a switch is minimal
        for alt, _ in found:
            pinned |= alt != mine
        seek = _Seeker(puzzle, mine, deadline, budget - spent, line.state)
        nxt = quick[rounds] if len(quick) > rounds else seek.other(pinned)
        first_other = found[0][0] if found else nxt
        if first_other is not None:
            status, others = "multiple", [first_other]
        elif not seek.exhausted:
            status = "unique"  # proven by the SAT back-end: no solution but the picture
    if status == "multiple" and seek is not None:
        if not found:
            nxt = others[0]
        while len(found) < rounds and nxt is not None:
            alt = seek.minimal(seek.local(nxt, pinned))
            found.append((alt, not seek.exhausted))  # cut short: perhaps not minimal
            pinned |= alt != mine
            nxt = seek.other(pinned)
        stopped = seek.stopped or (None if nxt is None else "rounds")
        return _flip(puzzle, status, others[0], found, stopped)
    if line is None:  # (the budget's way above has it already)
        line = solve(puzzle, strategy="line", max_solutions=2)
    ys, xs = np.nonzero(mask_counts(line.state) > 1)
    kind = "undecided" if len(ys) else "none"
    return Explanation(kind, status, _cells(ys, xs))


def switches(cells: np.ndarray, most: int, work: int) -> tuple[list[np.ndarray], int]:
    """Up to ``most`` alternative solutions of the picture ``cells``, each a four-cell
    *switch*, no two sharing a cell, in reading order; with the work units they cost (at
    most ``work`` and one line's listing or one test more: the search stops there, at the
    same point every time, and finds none if it stops while listing).

    A switch is two rows and two columns whose corner cells read ``a b / b a`` and whose
    exchange (``b a / a b``) keeps all four lines' clues: in each line two cells swap, a
    block moving by one or a one-cell block elsewhere (:func:`_swaps`). It needs no solver:
    each line's clue-keeping swaps are listed once, a row's are joined to the columns' by
    their cells. Each is minimal by inclusion -- any smaller part of it changes a single
    cell of some line, and with it that line's count of a colour -- so it is a region as
    it stands. Not every ambiguity is a switch (longer cycles, blocks sliding together):
    what this misses, the SAT back-end is asked for afterwards."""
    height, width = cells.shape
    grid = cells.tolist()  # plain ints: a Python loop indexes them far faster
    spent = 0
    rows: list[set[int]] = []  # each swap (i, j) as i * length + j (an int, not a tuple)
    cols: list[set[int]] = []
    for lines, into in ((grid, rows), (cells.T.tolist(), cols)):
        for line in lines:
            pairs, steps = _swaps(line)
            into.append(pairs)
            spent += SWAP_WORK * steps
            if spent > work:
                return [], spent
    below: list[dict[int, list[int]]] = [{} for _ in range(width)]  # column: row -> rows
    for c, pairs in enumerate(cols):
        for pair in sorted(pairs):
            below[c].setdefault(pair // height, []).append(pair % height)
    found: list[np.ndarray] = []
    used: set[tuple[int, int]] = set()
    for r1 in range(height):
        for pair in sorted(rows[r1]):
            c1, c2 = divmod(pair, width)
            for r2 in below[c1].get(r1, ()):
                spent += SWAP_WORK
                if spent > work:
                    return found, spent
                if (pair not in rows[r2] or r1 * height + r2 not in cols[c2]
                        or grid[r1][c1] != grid[r2][c2] or grid[r1][c2] != grid[r2][c1]):
                    continue
                corners = [(r1, c1), (r1, c2), (r2, c1), (r2, c2)]
                if used.intersection(corners):
                    continue
                used.update(corners)
                alt = cells.copy()
                alt[r1, c1], alt[r1, c2] = grid[r1][c2], grid[r1][c1]
                alt[r2, c1], alt[r2, c2] = grid[r2][c2], grid[r2][c1]
                found.append(alt)
                if len(found) >= most:
                    return found, spent
    return found, spent


def _swaps(line: list[int]) -> tuple[set[int], int]:
    """The pairs of cells ``(i, j)``, ``i < j``, of different colours whose exchange keeps
    the clue of ``line`` (colours, 0 the background), each as ``i * len(line) + j`` (ints,
    not tuples: a fifth less memory at 200x200), and how many steps listing them
    took (cells looked at): a block moved one cell along into the background (the cell
    past it is not of its colour, or they would merge), or a one-cell block moved to a
    background cell elsewhere, past one-cell blocks of its colour only (``1.1..`` ->
    ``..1.1``). (Two painted cells of different colours never swap and keep the clue:
    their blocks' order would change.)"""
    n = len(line)
    x = line
    out: set[int] = set()
    steps = n
    s = 0
    while s < n:
        a, e = x[s], s
        while e + 1 < n and x[e + 1] == a:
            e += 1
        if a and s < e:  # a longer block: one cell either way
            _block_shifts(x, s, e, out)
        elif a:  # a one-cell block: to any background cell either side
            steps += _single_moves(x, s, out)
        s = e + 1
    return out, steps


def _block_shifts(x: list[int], s: int, e: int, out: set[int]) -> None:
    """Add to ``out`` (as :func:`_swaps` codes them) the moves of the block ``x[s..e]``
    (two cells or more) one cell along into the background either way, where the cell
    past it is not of its colour (they would merge)."""
    n, a = len(x), x[s]
    if e + 1 < n and x[e + 1] == 0 and (e + 2 >= n or x[e + 2] != a):
        out.add(s * n + e + 1)
    if s > 0 and x[s - 1] == 0 and (s < 2 or x[s - 2] != a):
        out.add((s - 1) * n + e)


def _single_moves(x: list[int], s: int, out: set[int]) -> int:
    """Add to ``out`` (as :func:`_swaps` codes them) the moves of the one-cell block at
    ``s`` to a background cell either side, past one-cell blocks of its colour only;
    return the cells looked at."""
    n, a = len(x), x[s]
    steps = 0
    for step in (1, -1):
        j = s + step
        while 0 <= j < n:
            steps += 1
            if x[j] == 0:  # not beside a cell of its colour (it would merge)
                left = x[j - 1] if j > 0 and j - 1 != s else 0
                right = x[j + 1] if j + 1 < n and j + 1 != s else 0
                if left != a and right != a:
                    out.add(s * n + j if s < j else j * n + s)
            elif x[j] != a or (0 <= j + step < n and x[j + step] == a):
                break  # past a one-cell block of its colour only (the same clue)
            j += step
    return steps


class _Seeker:
    """Asks the SAT back-end for solutions other than the picture ``mine`` with some of
    its cells pinned, all within one deterministic work budget: each call costs
    :data:`CELL_WORK` a cell and :data:`CLAUSE_WORK` a clause of its CNF, each conflict
    what :func:`costs` says. The calls start from ``base`` (colour masks every solution
    agrees with, e.g. the first solve's root logic), else from nothing decided.
    ``stopped`` says what stopped an answer, once something did: ``budget``, ``timeout``
    (the deadline, a guard) or ``size`` (no CNF of this size)."""

    def __init__(self, puzzle: Puzzle, mine: np.ndarray, deadline: float, work: int,
                 base: np.ndarray | None = None) -> None:
        self.puzzle, self.mine, self.deadline, self.work = puzzle, mine, deadline, work
        p = puzzle
        self.base = full_state(p.height, p.width, p.ncolors) if base is None else base
        self.conflict = costs(p).conflict  # what one conflict costs, the same every call
        self.stopped: str | None = None

    @property
    def exhausted(self) -> bool:
        """Whether the budget, the guard or the size stopped an answer: no proof past it."""
        return self.stopped is not None

    def other(self, pinned: np.ndarray) -> np.ndarray | None:
        """A solution that differs from the picture, but not at the ``pinned`` cells
        (a boolean mask); ``None`` when there is none or the budget ran out first."""
        from nonoforge.solver.sat import TooLarge, solve_sat

        if self.exhausted:
            return None
        p, mine = self.puzzle, self.mine
        state = self.base.copy()
        state[pinned] = np.left_shift(np.uint64(1), mine[pinned].astype(np.uint64))
        calling, conflict = CELL_WORK * mine.size, self.conflict
        # the CNF's size is known once built: what is left must pay for about that much
        conflicts = (self.work - calling - CLAUSE_WORK * _clause_bound(p, state)) // conflict
        if conflicts <= 0:
            self.stopped = "budget"
        elif time.monotonic() >= self.deadline:
            self.stopped = "timeout"
        if self.exhausted:
            return None
        try:
            out = solve_sat(p, state, max_solutions=2, deadline=self.deadline,
                            conflict_budget=conflicts)
        except TooLarge:  # no CNF of this size: show what was found (any other error is a bug)
            self.stopped = "size"
            return None
        self.work -= calling + CLAUSE_WORK * int(out.clauses) + conflict * int(out.conflicts)
        for g in out.solutions:  # each checked against the clues by the back-end
            if not np.array_equal(g.cells, mine):
                return g.cells
        if out.status != "unique":  # "unique": proven, none other here
            self.stopped = out.status  # "budget" or "timeout"
        return None

    def local(self, other: np.ndarray, pinned: np.ndarray) -> np.ndarray:
        """A solution that differs from the picture near ``other``'s first difference:
        the smallest of the square windows :data:`WINDOWS` around it (everything outside
        and the ``pinned`` cells kept as in the picture) that still admits one, else
        ``other`` itself. Finds the small ambiguity (a 2x2 switch) where a solver's
        solution flips several far apart at once."""
        ys, xs = np.nonzero(other != self.mine)
        y, x = int(ys[0]), int(xs[0])
        rows, cols = np.indices(self.mine.shape)
        for r in WINDOWS:
            outside = (np.abs(rows - y) > r) | (np.abs(cols - x) > r)
            if not outside.any() or self.exhausted:
                break
            got = self.other(pinned | outside)
            if got is not None:
                return got
        return other

    def minimal(self, other: np.ndarray) -> np.ndarray:
        """A solution whose difference from the picture lies within ``other``'s and can
        shrink no further (no solution differs from the picture on fewer of those cells,
        by inclusion): each differing cell in turn is pinned to the picture, and if a
        solution is still found the difference becomes its. Stops where the budget does
        (the solution is then still one, only perhaps not the smallest)."""
        free = other != self.mine
        for y, x in zip(*np.nonzero(free), strict=True):
            if not free[y, x]:
                continue  # left behind by an earlier shrink
            pinned = ~free
            pinned[y, x] = True
            nxt = self.other(pinned)
            if nxt is not None:
                other, free = nxt, nxt != self.mine
            elif self.exhausted:
                break
        return other


def _flip(
    puzzle: Puzzle, status: str, first: np.ndarray, found: list[tuple[np.ndarray, bool]],
    stopped: str | None,
) -> Explanation:
    """The ``flip`` explanation from the alternatives ``found`` (each with whether it is
    proven minimal): regions in reading order of their first cell, each alternative checked
    against the clues once more (a solution shown is a solution)."""
    assert puzzle.goal is not None
    mine = puzzle.goal.cells
    if not all(Grid(f).matches(puzzle) for f in [first, *(f for f, _ in found)]):
        raise SolverError("internal error: an alternative solution breaks a clue")
    regions = sorted(((_cells(*np.nonzero(f != mine)), f, m) for f, m in found),
                     key=lambda r: r[0])
    cells = tuple(sorted(c for r, _, _ in regions for c in r))
    return Explanation(
        "flip", status, cells, Grid(first), regions=tuple(r for r, _, _ in regions),
        alternatives=tuple(Grid(f) for _, f, _ in regions), complete=stopped is None,
        stopped=stopped, minimal=tuple(m for _, _, m in regions),
    )


def _cells(ys: np.ndarray, xs: np.ndarray) -> tuple[Cell, ...]:
    """``np.nonzero``'s row and column arrays as ``(row, column)`` pairs of plain ints (for
    JSON and for sorting regions)."""
    return tuple((int(y), int(x)) for y, x in zip(ys, xs, strict=True))
