"""Probe: counting black cells across lines, over families of cell sets, on the tail's hand-overs.

Issue 39's tail (icga2018 #558, tcga2020 #538) hands ~600 open cells to MiniSat, and the
backbone cells the search pays for are proven by resolution only at the cost of a whole
search. Counting facts (pigeonhole-like) are what resolution proves badly; the one counting
rule the solver ships, parity summing (``engine._summing``; ``plain.py``'s twin), counts the
black cells of the even rows two ways. This probe generalises it to other cell sets.

The rule, for a set S = R x C (rows R, columns C, any subsets): each row r of R puts
between its fewest and its most black cells into S (over the placements its clue and the
state allow, the DP of ``plain._SumLine`` with a position mask instead of the even
positions: :class:`MaskLine`); so does each column of C. Both sums count the same cells,
so S's total T lies in [sum of the rows' fewest, sum of their most] and in the columns'
range; each line's range is squeezed by T's bounds less the other lines' sums on its side,
and a line whose range narrowed is solved under it (``_SumLine.forward``), which narrows
its cells. :func:`count_to_fixpoint` alternates a family's sets with the engine's root
logic (line logic and root probing, ``inproc.root_logic``) until neither narrows anything.
With C all columns the rows' counts are their clue totals; rows mod 2 x all columns is the
shipped parity rule.

Families (``--families``): ``rowbands`` (every contiguous band of rows x all columns),
``colbands``, ``rects`` (every rectangle of contiguous rows x contiguous columns; the
bands included), ``mod`` (rows = a mod k x all columns and columns = a mod k x all rows, k
2, 3, 4, every offset), ``modgrid`` (rows = a mod k x columns = b mod k, k 2, 3),
``modbands`` (rows = a mod 2 x every band of columns, and the transpose), ``all`` (all of
them together to one fixpoint).

``--check N``: soundness against brute force on N seeded random small puzzles (every
solution consistent with a random partial state stays consistent after counting), and
:class:`MaskLine`'s ranges against enumerated placements.

``--compare ...,cnf:NAME+NAME[/ENCODING]`` (the second arm, :func:`cnf_sets`): the
hand-over's CNF with, for each set of a family,
a totalizer over its cells (``pysat.card``), its output fixed to the set's exact count
(sets whose rows or columns are whole lines, so the count is a clue total), leaves ordered
crossing line by crossing line so that the tree's lower nodes count the crossing lines'
segments; MiniSat's conflicts and CPU against the shipped search (``/free``: the control,
a totalizer tree with no bound).

``--refute N``: counting inside a probe, N seeded backbone cells a hand-over assumed the
colour no solution gives them, refuted (or not) by root logic and then by counting.
``--compare`` runs ``units:FAMILY`` (step 3: counting's cells as units) and arm 4 against
``shipped``. The commands run for the notes (``/tmp/bands10/tail8.pkl`` is the tail-8's
hand-overs, ``decimate.tail_items(8)`` pickled; ``--tail 8`` collects the same afresh;
two.pkl its first two; the backbone run was stopped after six of the eight):

    nice .venv/bin/python bench/counting.py --tail 8 --save-backbone /tmp/bands10/backbone.json
    nice .venv/bin/python bench/counting.py --check 300
    nice .venv/bin/python bench/counting.py --load /tmp/bands10/tail8.pkl \\
        --backbone /tmp/bands10/backbone.json \\
        --families rowbands,colbands,mod,modgrid,modbands,rects,all
    nice .venv/bin/python bench/counting.py --load /tmp/bands10/two.pkl \\
        --backbone /tmp/bands10/backbone.json --families mod,all --refute 12
    nice .venv/bin/python bench/counting.py --tail 8 --each --compare \\
        shipped,cnf:par,cnf:band5,cnf:band3,cnf:band5/cardnetwrk
    nice .venv/bin/python bench/counting.py --tail 174 --each --compare \\
        shipped,cnf:par,cnf:par/free,cnf:band3,cnf:band3/free
    nice .venv/bin/python bench/counting.py --specs icga2018:501-600 --each --compare \\
        shipped,cnf:par,cnf:band3,cnf:band3/free     # and icga2018:1-200

See docs/notes/solver-benchmarks.md, "Counting across lines on the tail's hand-overs".
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from decimate import SLOW, Row, add_item_args, interleaved, load_items, timed_solve  # noqa: E402
from handovers import Item  # noqa: E402
from inproc import BLACK, OPEN, WHITE, Handover, find_backbone, root_logic  # noqa: E402

from nonoforge.puzzle import Grid, Puzzle, clue_of  # noqa: E402
from nonoforge.solver import cnf, phases, warmup  # noqa: E402
from nonoforge.solver.plain import _SumLine  # noqa: E402
from nonoforge.solver.tables import Tables  # noqa: E402


class MaskLine(_SumLine):
    """``plain._SumLine`` counting the black cells on the positions ``on`` instead of the
    even ones: its backward pass gives a line's fewest and most black cells there, its
    forward pass the masks of the placements whose count lies in a range."""

    def __init__(self, masks: Sequence[int], blen: Sequence[int], on: Sequence[int]) -> None:
        super().__init__(list(masks), list(blen))
        for j, x in enumerate(on):
            self.pc[j + 1] = self.pc[j] + bool(x)


@dataclass
class Grid2:
    """A hand-over's state as the counting sees it: flat masks (1 white, 2 black, 3 open),
    the grid's size and the clues' block lengths, rows first then columns."""

    h: int
    w: int
    st: np.ndarray
    blen: list[list[int]]

    @classmethod
    def of(cls, p: Puzzle, st: np.ndarray) -> Grid2:
        lens = [[b.length for b in c] for c in (*p.rows, *p.columns)]
        return cls(p.height, p.width, np.asarray(st).reshape(-1).astype(np.uint64).copy(), lens)

    def cells(self, line: int) -> np.ndarray:
        """The flat cell indices of line ``line`` (rows 0..h-1, then columns)."""
        if line < self.h:
            return np.arange(line * self.w, (line + 1) * self.w)
        return np.arange(line - self.h, self.h * self.w, self.w)


class Counter:
    """The counting rule on one state, with each line's ranges cached by its masks and
    position set (so a pass after a change recomputes only the changed lines)."""

    def __init__(self, g: Grid2) -> None:
        self.g = g
        self.cache: dict[tuple[int, bytes, int], tuple[int, int] | None] = {}
        self.dps = 0  # line DPs run (the rule's own cost, in the engine's unit)
        self.narrowed = 0  # cells narrowed by counting alone
        self.squeezed = 0  # lines whose count range the rule narrowed (cells or not)
        self.lines: dict[int, list[int]] = {}
        #: how near the rule came to narrowing a line: the least, over the sets and lines
        #: counted, of min(side's most - T's least, T's most - side's least) less the
        #: line's own range width, plus one (<= 0: it narrows the line); lines whose
        #: count is already one number are left out
        self.closest = 1 << 30

    def masks(self, line: int) -> list[int]:
        """Line ``line``'s masks now (kept until :meth:`narrow` or :meth:`reset`)."""
        if line not in self.lines:
            self.lines[line] = [int(x) for x in self.g.st[self.g.cells(line)]]
        return self.lines[line]

    def reset(self, st: np.ndarray) -> None:
        """A new state (after root logic)."""
        self.g.st = st
        self.lines.clear()

    def mask_line(self, line: int, on: int) -> MaskLine:
        """Line ``line``'s count DP on the positions of the bit set ``on``."""
        m = self.masks(line)
        return MaskLine(m, self.g.blen[line], [(on >> j) & 1 for j in range(len(m))])

    def range(self, line: int, on: int) -> tuple[int, int] | None:
        """The fewest and most black cells line ``line`` puts on the positions of the bit
        set ``on`` (None: the line has no placement)."""
        m = self.masks(line)
        key = (line, bytes(m), on)
        if key not in self.cache:
            self.dps += 1
            gmn, gmx = self.mask_line(line, on).backward()
            self.cache[key] = None if gmx[0] < 0 else (gmn[0], gmx[0])
        return self.cache[key]

    def narrow(self, line: int, on: int, lo: int, hi: int) -> int:
        """Solve line ``line`` with its count on ``on`` in [lo, hi]; the cells narrowed,
        or -1 for a contradiction."""
        m = self.masks(line)
        self.dps += 2
        ml = self.mask_line(line, on)
        g = ml.backward()
        out = ml.forward(g, lo, hi)
        got = 0
        for cell, old, new in zip(self.g.cells(line).tolist(), m, out, strict=True):
            o = old & new
            if o == 0:
                return -1
            if o != old:
                self.g.st[cell] = o
                got += 1
        self.lines.clear()
        self.narrowed += got
        return got

    def count_set(self, rows: int, cols: int) -> int:
        """The rule on S = rows x cols (bit sets): the cells narrowed, -1 for a
        contradiction."""
        h = self.g.h
        sides = [[(r, cols) for r in range(h) if rows >> r & 1],
                 [(h + c, rows) for c in range(self.g.w) if cols >> c & 1]]
        rng: list[list[tuple[int, int]]] = []
        for side in sides:
            ranges = [self.range(line, on) for line, on in side]
            if any(x is None for x in ranges):
                return -1
            rng.append([x for x in ranges if x is not None])
        tlo = max(sum(x[0] for x in r) for r in rng)
        thi = min(sum(x[1] for x in r) for r in rng)
        if tlo > thi:
            return -1
        learnt = 0
        for side, r in zip(sides, rng, strict=True):
            slo, shi = sum(x[0] for x in r), sum(x[1] for x in r)
            for (line, on), (mn, mx) in zip(side, r, strict=True):
                lo, hi = max(mn, tlo - (shi - mx)), min(mx, thi - (slo - mn))
                if mx > mn:  # a line with one count left cannot narrow
                    self.closest = min(self.closest,
                                       min(shi - tlo, thi - slo) - (mx - mn) + 1)
                if (lo, hi) == (mn, mx):
                    continue
                self.squeezed += 1
                got = self.narrow(line, on, lo, hi)
                if got < 0:
                    return -1
                learnt += got
        return learnt


def _span(a: int, b: int) -> int:
    """The positions a..b-1 as a bit set."""
    return ((1 << b) - 1) ^ ((1 << a) - 1)


def _intervals(n: int) -> list[int]:
    """Every contiguous interval of 0..n-1 as a bit set."""
    return [_span(a, b) for a in range(n) for b in range(a + 1, n + 1)]


def _mods(n: int, ks: Sequence[int]) -> list[int]:
    """The positions a mod k of 0..n-1, for every k of ``ks`` and offset a, as bit sets."""
    return [sum(1 << j for j in range(a, n, k)) for k in ks for a in range(k)]


FAMILIES = ("rowbands", "colbands", "rects", "mod", "modgrid", "modbands")


def family(name: str, h: int, w: int) -> list[tuple[int, int]]:
    """The sets of family ``name`` (see the module's docstring) as (rows, columns) bit
    sets, in a fixed order."""
    allr, allc = (1 << h) - 1, (1 << w) - 1
    if name == "rowbands":
        return [(r, allc) for r in _intervals(h)]
    if name == "colbands":
        return [(allr, c) for c in _intervals(w)]
    if name == "rects":
        return [(r, c) for r in _intervals(h) for c in _intervals(w)]
    if name == "mod":
        return ([(r, allc) for r in _mods(h, (2, 3, 4))]
                + [(allr, c) for c in _mods(w, (2, 3, 4))])
    if name == "modgrid":
        return [(r, c) for k in (2, 3) for r in _mods(h, (k,)) for c in _mods(w, (k,))]
    if name == "modbands":
        return ([(r, c) for r in _mods(h, (2,)) for c in _intervals(w)]
                + [(r, c) for r in _intervals(h) for c in _mods(w, (2,))])
    if name == "all":
        return [s for f in FAMILIES for s in family(f, h, w)]
    raise SystemExit(f"unknown family {name!r}")


@dataclass
class Counted:
    """What counting with one family did from one state: the state it left (None: a
    contradiction), the cells counting narrowed itself, the passes over the family, the
    line DPs and CPU it took, and how near the last pass came to narrowing a line
    (:attr:`Counter.closest`), and the line counts it narrowed."""

    state: np.ndarray | None
    narrowed: int
    passes: int
    dps: int
    cpu_s: float
    closest: int = 0
    squeezed: int = 0


def count_to_fixpoint(p: Puzzle, st: np.ndarray, sets: list[tuple[int, int]],
                      logic: bool = True) -> Counted:
    """Every set of ``sets`` counted in turn, then (with ``logic``) the engine's root logic
    on the state, repeated until a pass narrows nothing."""
    c0 = time.process_time()
    g = Grid2.of(p, st)
    t = Tables.of(p) if logic else None
    ctr = Counter(g)
    passes = 0
    while True:
        passes += 1
        learnt = 0
        ctr.closest = 1 << 30
        for rows, cols in sets:
            got = ctr.count_set(rows, cols)
            if got < 0:
                return Counted(None, ctr.narrowed, passes, ctr.dps, time.process_time() - c0)
            learnt += got
        if not learnt:
            break
        if t is not None:
            new = root_logic(t, p, g.st.copy())
            if new is None:
                return Counted(None, ctr.narrowed, passes, ctr.dps, time.process_time() - c0)
            ctr.reset(new.astype(np.uint64))
    return Counted(g.st, ctr.narrowed, passes, ctr.dps, time.process_time() - c0, ctr.closest,
                   ctr.squeezed)


# ---- soundness against brute force -------------------------------------------------------

def _placements(n: int, blen: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every 0/1 line of length ``n`` with the clue ``blen``, by brute force."""
    for bits in itertools.product((0, 1), repeat=n):
        if [b.length for b in clue_of(bits)] == list(blen):
            yield bits


def _solutions(p: Puzzle) -> list[np.ndarray]:
    """Every solution of a small puzzle: the rows' placements crossed, the clues checked."""
    rows = [list(_placements(p.width, [b.length for b in c])) for c in p.rows]
    return [a for a in (np.array(pick) for pick in itertools.product(*rows))
            if Grid(a).matches(p)]


def check(n: int) -> None:
    """``--check``: seeded random small puzzles; from a random partial state of one
    solution, every family counted (no root logic, and with it); every solution the
    partial state allows must stay allowed. And MaskLine's ranges on random lines against
    enumerated placements."""
    rng = np.random.default_rng(50)
    lines = 0
    for _ in range(n * 4):
        m = int(rng.integers(3, 10))
        sol = (rng.random(m) < rng.uniform(0.3, 0.7)).astype(int)
        blen = [b.length for b in clue_of(sol.tolist())]
        masks = [int(rng.choice([1, 2, 3], p=[0.2, 0.2, 0.6])) for _ in range(m)]
        for j in range(m):  # keep the solution allowed half the time
            if rng.random() < 0.5:
                masks[j] |= 1 << int(sol[j])
        on = [int(x) for x in rng.random(m) < 0.5]
        ok = [b for b in _placements(m, blen)
              if all(masks[j] >> b[j] & 1 for j in range(m))]
        ml = MaskLine(masks, blen, on)
        gmn, gmx = ml.backward()
        if not ok:
            assert gmx[0] < 0
            continue
        counts = [sum(b[j] for j in range(m) if on[j]) for b in ok]
        assert (gmn[0], gmx[0]) == (min(counts), max(counts)), (masks, blen, on)
        lo = int(rng.integers(min(counts), max(counts) + 1))
        hi = int(rng.integers(lo, max(counts) + 1))
        out = ml.forward((gmn, gmx), lo, hi)
        want = [0] * m
        for b, c in zip(ok, counts, strict=True):
            if lo <= c <= hi:
                for j in range(m):
                    want[j] |= 1 << b[j]
        assert out == want, (masks, blen, on, lo, hi, out, want)
        lines += 1
    print(f"MaskLine: {lines} random lines, ranges and narrowed masks equal to enumeration")
    puzzles = narrowed = solutions = 0
    for _ in range(n):
        h, w = int(rng.integers(3, 7)), int(rng.integers(3, 7))
        cells = (rng.random((h, w)) < rng.uniform(0.35, 0.65)).astype(np.uint8)
        p = Puzzle.from_grid(Grid(cells))
        sols = _solutions(p)
        assert sols
        base = sols[int(rng.integers(len(sols)))]
        st = np.where(rng.random((h, w)) < rng.uniform(0.0, 0.5), 1 << base, OPEN)
        allowed = [s for s in sols if ((st >> s) & 1).all()]
        for name in (*FAMILIES, "all"):
            for logic in (False, True):
                got = count_to_fixpoint(p, st, family(name, h, w), logic)
                assert got.state is not None, (p, st, name)
                fin = got.state.reshape(h, w).astype(np.int64)
                for s in allowed:
                    assert ((fin >> s) & 1).all(), (p, st, name, logic)
                narrowed += got.narrowed
        puzzles += 1
        solutions += len(allowed)
    print(f"counting: {puzzles} random puzzles ({solutions} solutions allowed by the partial "
          f"states), every family with and without root logic: no allowed solution lost; "
          f"{narrowed} cells narrowed by counting in all")


# ---- the go/no-go table on the hand-overs ------------------------------------------------

def table(items: list[Item], names: list[str], backbone: dict[str, dict]) -> dict:
    """For each hand-over and family: the open cells counting (with root logic to a
    fixpoint) fixes, how many of them are backbone cells (all of them must be), the cells
    counting narrowed itself, passes, line DPs, CPU, and how near the last pass came to
    narrowing a line's count (``closest``; <= 0 narrows) and the line counts it narrowed
    (``squeezed``, whether or not a cell followed)."""
    print(f"{'hand-over':<14} {'family':<9} {'sets':>6} {'open':>4} {'fixed':>5} "
          f"{'in bb':>5} {'bb':>4} {'by count':>8} {'passes':>6} {'DPs':>7} {'CPU s':>7} "
          f"{'closest':>7} {'squeezed':>8}")
    res: dict = {}
    for set_name, i, p, st in items:
        key = f"{set_name}#{i}"
        flat = np.asarray(st).reshape(-1)
        bb = {int(c): v for c, v in backbone.get(key, {}).get("cells", {}).items()}
        for name in names:
            sets = family(name, p.height, p.width)
            got = count_to_fixpoint(p, st, sets)
            assert got.state is not None, f"counting contradicts {key}"
            fixed = np.flatnonzero((flat == OPEN) & (got.state != OPEN))
            inbb = sum(bb.get(int(c)) == int(got.state[c]) for c in fixed.tolist())
            if bb:
                assert inbb == len(fixed), f"{key} {name}: a fixed cell off the backbone"
            res[key, name] = got
            print(f"{key:<14} {name:<9} {len(sets):>6} {int((flat == OPEN).sum()):>4} "
                  f"{len(fixed):>5} {inbb if bb else '-':>5} {len(bb) if bb else '-':>4} "
                  f"{got.narrowed:>8} {got.passes:>6} {got.dps:>7} {got.cpu_s:7.2f} "
                  f"{got.closest:>7} {got.squeezed:>8}",
                  flush=True)
    return res


def refute(items: list[Item], names: list[str], backbone: dict[str, dict], n: int) -> None:
    """Counting inside a probe: ``n`` seeded backbone cells of each hand-over, each
    assumed the colour no solution gives it; the engine's root logic on that (line logic
    and root probing: a depth-2 probe), and if it finds no contradiction, counting with
    each family of ``names`` and root logic to a fixpoint. How many of the ``n`` each
    refutes (every one is refutable: it is false in every solution), and at what CPU. As
    a check, ``n`` cells off the backbone assumed each colour: none may be refuted."""
    rng = np.random.default_rng(39)
    for set_name, i, p, st in items:
        key = f"{set_name}#{i}"
        if key not in backbone:
            continue
        t = Tables.of(p)
        flat = np.asarray(st).reshape(-1).astype(np.uint64)
        bb = {int(c): int(v) for c, v in backbone[key]["cells"].items()}
        cells = sorted(bb)
        off = sorted(set(np.flatnonzero(flat == OPEN).tolist()) - set(cells))
        pick = [cells[j] for j in rng.choice(len(cells), min(n, len(cells)), False)]
        offp = [off[j] for j in rng.choice(len(off), min(n, len(off)), False)]
        logic = 0
        by = dict.fromkeys(names, 0)
        cpu = dict.fromkeys(names, 0.0)
        c0 = time.process_time()
        for c in pick:
            s = flat.copy()
            s[c] = 3 - bb[c]  # WHITE <-> BLACK
            new = root_logic(t, p, s)
            if new is None:
                logic += 1
                continue
            for name in names:
                got = count_to_fixpoint(p, new, family(name, p.height, p.width))
                cpu[name] += got.cpu_s
                by[name] += got.state is None
        logic_s = time.process_time() - c0 - sum(cpu.values())
        for c in offp:  # soundness: no colour of a non-backbone cell is refuted
            for colour in (WHITE, BLACK):
                s = flat.copy()
                s[c] = colour
                new = root_logic(t, p, s)
                assert new is not None
                for name in names:
                    assert count_to_fixpoint(p, new, family(name, p.height, p.width)).state \
                        is not None, f"{key}: {name} refutes a non-backbone cell"
        print(f"{key}: {len(pick)} backbone cells assumed the wrong way: root logic refutes "
              f"{logic} ({logic_s:.1f} s); then counting refutes "
              + ", ".join(f"{nm} +{by[nm]} ({cpu[nm]:.1f} s)" for nm in names)
              + f"; {len(offp)} cells off the backbone, both colours: none refuted",
              flush=True)


def save_backbones(items: list[Item], path: Path, budget: int) -> None:
    """Each hand-over's backbone by ``inproc.find_backbone`` (``budget`` conflicts a call),
    written to ``path`` as JSON after each (set#i -> open cells, solutions, exact,
    conflicts, cells: flat cell -> colour)."""
    out: dict[str, dict] = {}
    for set_name, i, p, st in items:
        h = Handover(p, st)
        try:
            cand, trail, exact = find_backbone(h, budget)
            at = dict(zip(h.cell_var.tolist(), h.cells.tolist(), strict=True))
            out[f"{set_name}#{i}"] = {
                "open": len(h.cells), "solutions": len(trail) + 1, "exact": exact,
                "conflicts": h.conflicts(),
                "cells": {str(at[v]): BLACK if lit > 0 else WHITE for v, lit in cand.items()}}
            print(f"{set_name}#{i}: {len(h.cells)} open, {len(trail) + 1} solutions, backbone "
                  f"{'' if exact else '<= '}{len(cand)}, {h.conflicts():,} conflicts",
                  flush=True)
        finally:
            h.delete()
        path.write_text(json.dumps(out))


# ---- arm 3: the cells counting fixes given to MiniSat as units ---------------------------

@dataclass
class UnitRow(Row):
    """The shipped search with counting's cells as units: besides :class:`Row`'s figures,
    the counting's CPU (not in ``search_s``) and the units added (cells, start literals)."""

    count_s: float = 0.0
    unit_cells: int = 0
    unit_starts: int = 0


def unit_solve(p: Puzzle, st: np.ndarray, sets: list[tuple[int, int]]) -> UnitRow:
    """Counting with ``sets`` (and root logic) to a fixpoint, then the hand-over loaded and
    hinted as shipped, every open cell counting fixed added as a unit with the start
    literals they decide (as ``inproc``'s ``in:`` arm adds them), and one solution searched
    (checked against the clues)."""
    got = count_to_fixpoint(p, st, sets)
    assert got.state is not None
    h = Handover(p, st)
    try:
        new = got.state
        units = [u for u in h.cell_lits(new) if u]
        starts = h.start_lits(new)
        for u in units + starts:
            h.solver.add_clause([int(u)])
        c0 = time.process_time()
        found = h.solver.solve()
        assert found  # the hand-over is satisfiable: a solution is found
        c1 = time.process_time()
        h.solution()
        row = UnitRow(h.conflicts(), h.hints_s, c1 - c0)
    finally:
        h.delete()
    row.count_s, row.unit_cells, row.unit_starts = got.cpu_s, len(units), len(starts)
    return row


# ---- arm 4: counting in the CNF (totalizers) ----------------------------------------------

def cnf_sets(name: str, h: int, w: int) -> list[tuple[int, int]]:
    """The sets whose exact count arm 4 encodes: ``par`` the parity sets (rows = a mod 2 x
    all columns, and the transpose), ``modK`` rows and columns = a mod K, ``bandK`` the
    bands of K lines tiling the grid (offsets 0, K, 2K, ...), ``slideK`` every band of K
    lines; rows x all columns and the transpose."""
    allr, allc = (1 << h) - 1, (1 << w) - 1
    if name == "par":
        name = "mod2"
    kind = next(x for x in ("mod", "band", "slide") if name.startswith(x))
    k = int(name.removeprefix(kind))
    if name.startswith("mod"):
        rs, cs = _mods(h, (k,)), _mods(w, (k,))
    else:
        step = k if kind == "band" else 1
        rs = [_span(a, min(a + k, h)) for a in range(0, h - k + 1, step)]
        cs = [_span(a, min(a + k, w)) for a in range(0, w - k + 1, step)]
    return [(r, allc) for r in rs] + [(allr, c) for c in cs]


@dataclass
class CnfRow(Row):
    """The shipped search with totalizers added: besides :class:`Row`'s figures, the sets,
    clauses and extension variables added and the CPU of building them."""

    sets: int = 0
    clauses: int = 0
    ext_vars: int = 0
    build_s: float = 0.0


def cnf_solve(p: Puzzle, st: np.ndarray, names: list[str], how: str = "totalizer") -> CnfRow:
    """The hand-over loaded and hinted as shipped, plus, for each set of the ``names``
    families, ``pysat.card``'s encoding ``how`` of "exactly T of its open cells are black"
    (T its lines' clue totals less its black cells fixed already), the leaves in crossing-
    line order; one solution searched (checked against the clues). ``how`` ``free`` is
    the control: a totalizer's tree over the same cells with no bound (extension variables
    and clauses that say nothing about the solutions: the perturbation alone)."""
    from pysat.card import CardEnc, EncType, ITotalizer

    hd = Handover(p, st)
    try:
        c0 = time.process_time()
        black = hd.enc._lits[:, 1]
        fixed_black = np.asarray(hd.st) == BLACK
        top = hd.enc.nvars
        sets = [s for n in names for s in cnf_sets(n, p.height, p.width)]
        nclauses = 0
        g = Grid2.of(p, st)
        for rows, cols in sets:
            whole_rows = cols == (1 << p.width) - 1
            lines = ([r for r in range(p.height) if rows >> r & 1] if whole_rows
                     else [p.height + c for c in range(p.width) if cols >> c & 1])
            total = sum(sum(g.blen[x]) for x in lines)
            cross = ([p.height + c for c in range(p.width)] if whole_rows
                     else list(range(p.height)))
            lits = []
            for x in cross:  # leaves crossing line by crossing line
                for c in g.cells(x).tolist():
                    r, k = divmod(c, p.width)
                    if not (rows >> r & 1 and cols >> k & 1):
                        continue
                    if fixed_black[c]:
                        total -= 1
                    elif int(black[c]) not in (cnf.TRUE, cnf.FALSE):
                        lits.append(int(black[c]))
            if how == "free":  # the control: the tree's own clauses, no bound
                tot = ITotalizer(lits=lits, ubound=len(lits), top_id=top)
                clauses, top = tot.cnf.clauses, max(top, tot.top_id)
            else:
                enc = CardEnc.equals(lits=lits, bound=total, top_id=top,
                                     encoding=getattr(EncType, how))
                clauses, top = enc.clauses, max(top, enc.nv)
            for cl in clauses:
                hd.solver.add_clause(cl)
            nclauses += len(clauses)
        build = time.process_time() - c0
        c1 = time.process_time()
        found = hd.solver.solve()
        assert found  # the hand-over is satisfiable: a solution is found
        c2 = time.process_time()
        hd.solution()
        return CnfRow(hd.conflicts(), hd.hints_s, c2 - c1, sets=len(sets), clauses=nclauses,
                      ext_vars=top - hd.enc.nvars, build_s=build)
    finally:
        hd.delete()


def compare(items: list[Item], specs: list[str], known: dict, each: bool) -> None:
    """Arms 3 and 4 against the shipped search, interleaved hand-over by hand-over:
    ``shipped``, ``units:FAMILY`` (arm 3) or ``cnf:NAME+NAME...[/ENCODING]`` (arm 4)."""

    def run(p: Puzzle, st: np.ndarray, spec: str) -> Row:
        if spec == "shipped":
            return timed_solve(p, st, phases.phase_literals)
        arm, _, arg = spec.partition(":")
        if arm == "units":
            return unit_solve(p, st, family(arg, p.height, p.width))
        names, _, how = arg.partition("/")
        return cnf_solve(p, st, names.split("+"), how or "totalizer")

    def note(row: Row) -> str:
        if isinstance(row, UnitRow):
            return (f", counting {row.count_s:.2f} s, units {row.unit_cells} cells + "
                    f"{row.unit_starts} starts")
        if isinstance(row, CnfRow):
            return (f", {row.sets} sets, {row.clauses:,} clauses, {row.ext_vars:,} vars, "
                    f"build {row.build_s:.2f} s")
        return ""

    res = interleaved(items, specs, run, known, each, note)
    print(f"{len(items)} hand-overs")
    print(f"{'setting':<24} {'conflicts':>11} {'hints s':>8} {'search s':>8} {'own s':>7} "
          f"{'>45k':>5}  slowest")
    for s in specs:
        r = res[s]
        own = sum(x.count_s if isinstance(x, UnitRow) else
                  x.build_s if isinstance(x, CnfRow) else 0.0 for x in r.values())
        slow = sorted(((x.conflicts, k) for k, x in r.items()), reverse=True)[:3]
        print(f"{s:<24} {sum(x.conflicts for x in r.values()):>11,} "
              f"{sum(x.hints_s for x in r.values()):8.2f} "
              f"{sum(x.search_s for x in r.values()):8.2f} {own:7.2f} "
              f"{sum(x.conflicts > SLOW for x in r.values()):>5}  "
              + ", ".join(f"{k[0]}#{k[1]} {n:,}" for n, k in slow), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_item_args(ap)
    ap.add_argument("--families", default="rowbands,colbands,mod,modgrid,modbands,rects,all")
    ap.add_argument("--backbone", type=Path,
                    help="a JSON of each hand-over's backbone (set#i -> cells -> colour)")
    ap.add_argument("--compare", help="instead: arms 3/4 against the shipped search, "
                    "comma-separated: shipped, units:FAMILY, cnf:NAME+NAME[/ENCODING]")
    ap.add_argument("--each", action="store_true", help="with --compare: a line a run")
    ap.add_argument("--save-backbone", type=Path, metavar="JSON",
                    help="instead: each hand-over's backbone written to JSON")
    ap.add_argument("--budget", type=int, default=1_000_000,
                    help="with --save-backbone: conflicts a MiniSat call")
    ap.add_argument("--refute", type=int, metavar="N",
                    help="instead: N backbone cells a hand-over assumed the wrong way, "
                    "refuted by root logic and then counting (needs --backbone)")
    ap.add_argument("--check", type=int, metavar="N",
                    help="instead: soundness against brute force on N small puzzles")
    args = ap.parse_args()
    if args.check:
        check(args.check)
        return
    warmup()
    items, known = load_items(args)
    if args.save_backbone:
        save_backbones(items, args.save_backbone, args.budget)
        return
    if args.compare:
        compare(items, args.compare.split(","), known, args.each)
        return
    bb = json.loads(args.backbone.read_text()) if args.backbone else {}
    if args.refute:
        refute(items, args.families.split(","), bb, args.refute)
        return
    table(items, args.families.split(","), bb)


if __name__ == "__main__":
    main()
