"""Probe: our line logic and root probing on MiniSat's root-level facts during the search.

The order encoding's unit propagation is weaker than complete line logic (see
docs/notes/solver-benchmarks.md, "A stronger CNF for the hand-over"). During the search
MiniSat learns root-level facts: cells and block starts fixed in every solution. This
probe runs the hand-over's MiniSat (loaded and hinted as ``sat.solve_sat`` does it) in
slices of conflicts; between slices it reads the root level, fixes those cells in the
hand-over's state, runs the engine's own root logic on it (line logic, then root probing:
the very path a hand-over's state comes from, :func:`root_logic`) and gives MiniSat every
cell that logic fixed and MiniSat did not hold, as a unit clause, together with every
start literal the narrowed cells decide (a block's first or last feasible start moved);
then the SAME solver goes on (learnt clauses kept).

Reading the root level with python-sat: ``Solver.propagate([lit])`` is python-sat's
``prop_check`` (its minisatgh patch): it returns ``(True, [])`` when ``lit`` is already
true at the root (no new decision level is opened), ``(False, [])`` when it is false
there, and ``(False, [...])`` when it fails by unit propagation at a new level (a failed
literal: ``-lit`` holds in every solution, sound, though not yet on MiniSat's trail). It
runs with phase saving off and backtracks to the root, so the saved phases and the
variable order stay as they were; its propagation does move clauses' watches, so reading
alone perturbs the search. Hence three sliced arms per schedule:

``slice:SCHED``
    the search cut into calls at the schedule's conflict counts, nothing else (cutting
    MiniSat into calls restarts its restart sequence: a redraw of its own);
``read:SCHED``
    the same, with the root level read (every open cell, both signs) at each cut and
    nothing added (the reads' own perturbation);
``in:SCHED``
    read, our root logic, units added (the inprocessing).

``SCHED`` is ``N`` (a cut every N conflicts) or ``gN`` (cuts at N, 2N, 4N, ...: the slices
double). ``shipped`` is the one-call search (``bench/decimate.py``'s ``timed_solve`` with
the shipped hints, which reproduces ``bench/.cache/tail-1.5.json``). Deterministic: the
cuts are conflict counts, the reads and the engine's logic depend on nothing else.

``--facts`` (the go/no-go): one sliced search per hand-over with cuts at ``--at``
(default 2k, 5k, 10k, 20k conflicts), reading only; at each cut how many root-level
literals MiniSat holds (cells, start literals, failed cell literals) and how many more
cells and start literals our root logic then fixes.

    nice .venv/bin/python bench/inproc.py --tail 8 --facts
    nice .venv/bin/python bench/inproc.py --tail 8 \\
        --settings shipped,slice:g5000,read:g5000,in:g5000
    nice .venv/bin/python bench/inproc.py --tail 174    # shipped, slice, read and in at g2000
    nice .venv/bin/python bench/handovers.py --sets icga2018:1-1000 tcga2022:1-1000 \\
        --save /tmp/ho.pkl --backends minisat-gh+bp
    nice .venv/bin/python bench/inproc.py --load /tmp/ho.pkl --settings shipped,in:g2000

``--backbone CONFLICTS`` (with ``--refute CONFLICTS``) instead finds each hand-over's
backbone (the open cells fixed in every solution), what our root logic does with all of
it or a random part of it fixed, and what proving one cell costs MiniSat; ``--depth2``
probes each hand-over one level deeper than the engine does (no CDCL):

    nice .venv/bin/python bench/inproc.py --specs icga2018:558 tcga2020:538 \\
        --backbone 1000000 --refute 50000
    nice .venv/bin/python bench/inproc.py --tail 8 --depth2

``--tail N``, ``--specs`` and ``--load`` take hand-overs as ``bench/decimate.py`` does.
See docs/notes/solver-benchmarks.md, "Line logic on the search's root facts, measured".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from decimate import (  # noqa: E402
    SLOW,
    Row,
    add_item_args,
    interleaved,
    load_items,
    timed_solve,
)
from handovers import Item  # noqa: E402
from mapphases import summarise  # noqa: E402

from nonoforge.puzzle import Grid, Puzzle  # noqa: E402
from nonoforge.solver import cnf, core, phases, sat, warmup  # noqa: E402
from nonoforge.solver import driver as D  # noqa: E402, N812
from nonoforge.solver import engine as E  # noqa: E402, N812
from nonoforge.solver.cnf import FALSE, TRUE  # noqa: E402
from nonoforge.solver.tables import Tables  # noqa: E402

#: A sliced search gives up past this many conflicts (the shipped one never does).
CAP = 1_000_000
WHITE, BLACK, OPEN = 1, 2, 3


@dataclass(frozen=True)
class Setting:
    """A sliced search: ``mode`` slice / read / in (see the module's docstring), cuts
    every ``first`` conflicts, or at ``first``, 2 ``first``, 4 ``first``, ... when
    ``doubling``."""

    mode: str
    first: int
    doubling: bool

    @classmethod
    def parse(cls, spec: str) -> Setting:
        mode, _, sched = spec.partition(":")
        if mode not in ("slice", "read", "in"):
            raise SystemExit(f"unknown setting {spec!r}")
        doubling = sched.startswith("g")
        return cls(mode, int(sched.lstrip("g")), doubling)

    def cuts(self) -> Iterator[int]:
        """The conflict counts at which the search is cut, in order."""
        at, step = self.first, self.first
        while True:
            yield at
            if self.doubling:
                step *= 2
            at += step


@dataclass
class InRow(Row):
    """One sliced search's figures: besides :class:`Row`'s, the cuts made, the CPU of
    reading and of our logic with the units added (``inproc_s``, inside ``search_s``),
    the cells MiniSat held at the root when it stopped, and the units the inprocessing
    added (cells and start literals)."""

    cuts: int = 0
    inproc_s: float = 0.0
    root_cells: int = 0
    unit_cells: int = 0
    unit_starts: int = 0
    capped: bool = False


class Handover:
    """One hand-over loaded as ``sat.solve_sat`` loads it, hinted with the shipped phases,
    with what reading its root level needs: the open cells' variables (black is the
    positive literal) and every start variable's block and position."""

    def __init__(self, p: Puzzle, st: np.ndarray) -> None:
        self.p = p
        self.t = Tables.of(p)
        self.st = np.asarray(st).reshape(-1).astype(np.uint64)
        self.enc = sat.encode(p, st, tables=self.t)
        assert not self.enc.unsat
        self.solver = sat._loaded_encoding(self.enc, np.zeros(1, dtype=np.int64),
                                           sat.ONE_SOLUTION_SOLVER)
        c0 = time.process_time()
        lits = phases.phase_literals(self.t, np.asarray(st), self.enc)
        if lits:
            self.solver.set_phases(lits)
        self.hints_s = time.process_time() - c0
        black = self.enc._lits[:, 1]
        self.cells = np.flatnonzero((black != TRUE) & (black != FALSE))
        self.cell_var = black[self.cells]
        assert (self.cell_var > 0).all()  # black and white: one positive variable a cell
        # the start variables, numbered after the cells as the encoder numbers them
        # (cnf.start_bases): ge(b, p) for slo[b] < p <= shi[b] is cnf.start_var
        assert self.enc._starts is not None  # the order encoding numbers start variables
        self.slo, self.shi = (a.copy() for a in self.enc._starts)
        self.base = np.zeros(len(self.t.blen), dtype=np.int64)
        nv = self.enc.nvars - int((self.shi - self.slo).sum())
        assert nv == int(self.cell_var.max(initial=0))
        numbered = cnf.start_bases(self.t.lines, self.slo, self.shi, nv, self.base)
        assert numbered == self.enc.nvars

    def delete(self) -> None:
        self.solver.delete()

    def solution(self) -> Grid:
        """The solution MiniSat's last call found, checked against the clues."""
        grid = self.enc._grid(self.enc._colours(self.solver.get_model()))
        assert grid.matches(self.p)
        return grid

    def cell_lits(self, state: np.ndarray) -> list[int]:
        """Each open cell's literal as ``state`` decides it (its variable if black, negated
        if white), 0 where ``state`` leaves it open; in the order of :attr:`cells`."""
        return [int(v) if state[c] == BLACK else -int(v) if state[c] != OPEN else 0
                for c, v in zip(self.cells.tolist(), self.cell_var.tolist(), strict=True)]

    def conflicts(self) -> int:
        return int(self.solver.accum_stats().get("conflicts", 0))

    def value(self, lit: int) -> int:
        """1 if ``lit`` is true at MiniSat's root, -1 if false there, -2 if it fails by
        unit propagation (so it is false in every solution), 0 otherwise."""
        ok, prop = self.solver.propagate(assumptions=[lit])
        if ok:
            return 1 if not prop else 0
        return -1 if not prop else -2

    def read_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Each open cell's colour as MiniSat's root level has it (WHITE, BLACK or OPEN),
        reading both signs of its variable, and whether it came from a failed literal
        rather than the root trail."""
        col = np.full(len(self.cells), OPEN, dtype=np.uint64)
        failed = np.zeros(len(self.cells), dtype=np.bool_)
        for i, v in enumerate(self.cell_var.tolist()):
            a = self.value(v)
            if a == 0:
                a = -self.value(-v)
                if a == 0:
                    continue
            col[i] = BLACK if a > 0 else WHITE
            failed[i] = abs(a) == 2
        return col, failed

    def start_lits(self, masks: np.ndarray) -> list[int]:
        """The start literals the cells ``masks`` decide: ``ge(b, p)`` true up to each
        block's first feasible start on them, false past its last (the encoder's own
        narrowing, :func:`cnf.narrow`, on those cells)."""
        m = masks.copy()
        t = self.t
        feas = np.zeros((len(t.blen), max(t.height, t.width)), dtype=np.bool_)
        slo = np.zeros(len(t.blen), dtype=np.int64)
        shi = np.zeros(len(t.blen), dtype=np.int64)
        consistent = cnf.narrow(m, t.lines, t.blen, t.bcol, feas, slo, shi,
                                np.zeros(1, dtype=np.int64))
        assert consistent
        out: list[int] = []
        for b in range(len(t.blen)):
            lo, hi = int(self.slo[b]), int(self.shi[b])
            out.extend(self.var(b, p) for p in range(lo + 1, min(int(slo[b]), hi) + 1))
            out.extend(-self.var(b, p) for p in range(max(int(shi[b]) + 1, lo + 1), hi + 1))
        return out

    def var(self, b: int, p: int) -> int:
        """The variable of "block ``b`` starts at or after ``p``" (the encoder's,
        :func:`cnf.start_var`)."""
        return int(cnf.start_var(self.base, self.slo, b, p))

    def our_logic(self, col: np.ndarray) -> tuple[np.ndarray, list[int]]:
        """What our root logic decides with the root's cell colours ``col`` fixed in the
        hand-over's state: the state it leaves, and the start literals its cells decide
        that MiniSat does not hold true at its root."""
        st = self.st.copy()
        st[self.cells] &= col
        new = root_logic(self.t, self.p, st)
        assert new is not None, "MiniSat's root facts contradict the clues"
        return new, [x for x in self.start_lits(new) if self.value(x) != 1]

    def read_starts(self) -> int:
        """How many start literals MiniSat holds at the root (either sign)."""
        return sum(self.value(v) in (1, -1)
                   for v in range(int(self.cell_var.max(initial=0)) + 1, self.enc.nvars + 1))


def root_logic(t: Tables, p: Puzzle, state: np.ndarray) -> np.ndarray | None:
    """The engine's root logic from ``state`` (flat masks): what ``auto`` does before it
    hands a one-solution solve over (line logic, then root probing; node limit 0), from
    a state with more cells fixed. The state it leaves, or None on a contradiction."""
    w = D.Work(t, 1, False, core.SEARCH_ONE, state, branches=True)
    w.v[E.V_STRAT] = core._STRAT_LEVEL["auto"]
    w.v[E.V_NODELIM] = 0
    grids: list = []
    rc, stop = D.drive(w, None, [], p, grids)
    assert stop is None
    if rc == E.RC_DONE and not grids:
        return None
    assert rc in (E.RC_NODES, E.RC_SOLS, E.RC_DONE), rc
    return w.root_state().reshape(-1)


def inprocess(h: Handover, row: InRow) -> None:
    """One cut of ``in``: read the root, run our root logic on the hand-over's state with
    those cells fixed, add every cell and start literal it decides that MiniSat does not
    hold at its root (failed literals included: they are not on MiniSat's trail)."""
    col, failed = h.read_cells()
    new, starts = h.our_logic(col)
    units = [u for u, known, f in zip(h.cell_lits(new), (col != OPEN).tolist(),
                                      failed.tolist(), strict=True)
             if u and (not known or f)]
    for u in units + starts:
        # python-sat returns add-clause's answer only when asked (no_return=False)
        consistent = h.solver.add_clause([u], no_return=False)
        assert consistent, "our unit contradicts MiniSat"
    row.unit_cells += len(units)
    row.unit_starts += len(starts)


def sliced_solve(p: Puzzle, st: np.ndarray, setting: Setting) -> InRow:
    """One hand-over searched for one solution by ``setting``'s sliced search; the
    solution is checked against the clues."""
    h = Handover(p, st)
    row = InRow(0, h.hints_s, 0.0)
    try:
        c0 = time.process_time()
        result = None
        for cut in setting.cuts():
            h.solver.conf_budget(max(1, cut - h.conflicts()))
            result = h.solver.solve_limited()
            if result is not None or h.conflicts() >= CAP:
                break
            row.cuts += 1
            i0 = time.process_time()
            if setting.mode == "read":
                h.read_cells()
            elif setting.mode == "in":
                inprocess(h, row)
            row.inproc_s += time.process_time() - i0
        row.search_s = time.process_time() - c0
        row.conflicts = h.conflicts()
        if result is None:
            row.capped = True
        else:
            assert result
            h.solution()
        if setting.mode != "slice":
            col, _ = h.read_cells()
            row.root_cells = int((col != OPEN).sum())
    finally:
        h.delete()
    return row


def facts(items: list[Item], at: list[int]) -> None:
    """The go/no-go: at each cut of ``at`` (reading only), MiniSat's root-level literals
    and what our root logic adds to them."""
    print("hand-over  open | at conflicts: MiniSat root cells (of them failed literals) + "
          "starts -> our logic: cells +new, starts +new [CPU s]")
    total: dict[int, list[int]] = {a: [0, 0, 0, 0, 0] for a in at}
    for set_name, i, p, st in items:
        h = Handover(p, st)
        parts = []
        try:
            for a in at:
                h.solver.conf_budget(max(1, a - h.conflicts()))
                if h.solver.solve_limited() is not None:
                    parts.append(f"{a:,}: solved at {h.conflicts():,}")
                    break
                c0 = time.process_time()
                col, failed = h.read_cells()
                nstart = h.read_starts()
                new, starts = h.our_logic(col)
                more = int((new[h.cells] != OPEN).sum() - (col != OPEN).sum())
                cpu = time.process_time() - c0
                known = int((col != OPEN).sum())
                parts.append(f"{h.conflicts():,}: {known} ({int(failed.sum())}) + {nstart}"
                             f" -> +{more}, +{len(starts)} [{cpu:.2f}]")
                for k, x in enumerate((known, int(failed.sum()), nstart, more, len(starts))):
                    total[a][k] += x
        finally:
            h.delete()
        print(f"{set_name}#{i} {len(h.cells)} | " + " | ".join(parts), flush=True)
    for a in at:
        known, nfailed, nstart, more, nstarts = total[a]
        print(f"at {a:,}: root cells {known} (failed {nfailed}), root starts {nstart}, "
              f"our logic +{more} cells, +{nstarts} start literals")


def find_backbone(h: Handover, budget: int) -> tuple[dict[int, int], list[int], bool]:
    """The hand-over's backbone as :func:`backbone` finds it (on ``h``'s solver, which it
    uses up): the candidates left (cell variable -> its literal in every solution found),
    how many were left after each further solution, and whether the rest is exact (no
    solution differs in a candidate) rather than an upper bound (``budget`` ran out)."""
    found = h.solver.solve()
    assert found  # the hand-over is satisfiable: a solution is found
    model = h.solver.get_model()
    cand = {v: model[v - 1] for v in h.cell_var.tolist()}
    act = h.enc.nvars
    trail: list[int] = []
    exact = False
    while cand:
        if act > h.enc.nvars:
            h.solver.add_clause([-act])  # retire the last call's clause
        act += 1
        h.solver.add_clause([-act, *(-lit for lit in cand.values())])
        h.solver.conf_budget(budget)
        res = h.solver.solve_limited(assumptions=[act])
        if res is None:
            break
        if not res:
            exact = True
            break
        model = h.solver.get_model()
        cand = {v: lit for v, lit in cand.items() if model[v - 1] == lit}
        trail.append(len(cand))
    return cand, trail, exact or not cand


def backbone(items: list[Item], budget: int, refute: int = 0) -> None:
    """How many open cells take the same colour in every solution (the hand-over's
    backbone): from a first solution, all its open cells are candidates; MiniSat is asked
    for a solution that differs in at least one candidate (a clause under an activation
    literal), and every solution found drops the candidates it flips, until none is left
    to find (the rest is the backbone) or ``budget`` conflicts a call run out (then the
    rest is only an upper bound). With an exact backbone: the oracle (what our root logic
    and the search do with all of it or a random part of it fixed) and, with ``refute``
    conflicts, :func:`_refutes`."""
    print("hand-over  open | solutions, candidates left after each, backbone "
          "(exact or an upper bound), conflicts")
    for set_name, i, p, st in items:
        h = Handover(p, st)
        try:
            cand, trail, exact = find_backbone(h, budget)
            print(f"{set_name}#{i} {len(h.cells)} | {len(trail) + 1} solutions, "
                  f"{' '.join(map(str, trail))} | backbone {'' if exact else '<= '}"
                  f"{len(cand)} | {h.conflicts():,} conflicts", flush=True)
        finally:
            h.delete()
        if exact:
            # the oracle: were every backbone cell a root fact, what would our root logic
            # add, and what would the shipped search from that state cost?
            s = h.st.copy()
            at = {v: c for c, v in zip(h.cells.tolist(), h.cell_var.tolist(), strict=True)}
            for v, lit in cand.items():
                s[at[v]] = BLACK if lit > 0 else WHITE
            new = root_logic(h.t, p, s)
            assert new is not None
            row = timed_solve(p, new.reshape(p.height, p.width), phases.phase_literals)
            print(f"  with the backbone fixed: our root logic +"
                  f"{int((new != OPEN).sum() - (s != OPEN).sum())} cells, "
                  f"{int((new == OPEN).sum())} open; the shipped search from there "
                  f"{row.conflicts:,} conflicts", flush=True)
            # how far our logic carries a part of the backbone: seeded random shares
            rng = np.random.default_rng(39)
            keys = sorted(cand)
            parts = []
            for share in (0.02, 0.05, 0.1, 0.25, 0.5):
                got = []
                for _ in range(5):
                    pick = rng.choice(len(keys), max(1, round(share * len(keys))), False)
                    s = h.st.copy()
                    for j in pick.tolist():
                        s[at[keys[j]]] = BLACK if cand[keys[j]] > 0 else WHITE
                    new = root_logic(h.t, p, s)
                    assert new is not None
                    got.append(int((new[h.cells] != OPEN).sum()) - len(pick))
                parts.append(f"{share:.0%} ({max(1, round(share * len(keys)))}): "
                             f"+{min(got)}..+{max(got)}")
            print("  a random part of the backbone fixed (5 draws), our root logic adds: "
                  + ", ".join(parts), flush=True)
            if refute:
                _refutes(p, st, h, cand, refute)


def _refutes(p: Puzzle, st: np.ndarray, h: Handover, cand: dict[int, int], budget: int) -> None:
    """What proving one cell's colour costs: 12 seeded backbone cells, each searched from
    the fresh hand-over under the assumption of its other colour (UNSAT proves it), and 12
    cells outside the backbone, each under the assumption of black (its conflicts to a
    solution or to UNSAT), ``budget`` conflicts each."""
    rng = np.random.default_rng(39)
    keys = sorted(cand)
    others = [v for v in h.cell_var.tolist() if v not in cand]
    for label, pool in (("backbone", keys), ("not backbone", others)):
        costs = []
        for j in rng.choice(len(pool), 12, False).tolist():
            v = pool[j]
            g = Handover(p, st)
            try:
                g.solver.conf_budget(budget)
                r = g.solver.solve_limited(assumptions=[-cand[v] if v in cand else v])
                costs.append(f"{g.conflicts():,}{'U' if r is False else 'S' if r else '?'}")
            finally:
                g.delete()
        how = "assumed the other way" if label == "backbone" else "assumed black"
        print(f"  one {label} cell {how}, from scratch (U unsat, S sat, ? over budget): "
              f"{' '.join(costs)}", flush=True)


def depth2(items: list[Item]) -> None:
    """Probing one level deeper than the hand-over's, with no CDCL: each open cell fixed
    to each colour in turn, then the engine's root logic (line logic and root probing:
    a depth-2 probe); a colour that ends in a contradiction is removed, and a cell both
    colours settle alike is kept (the masks' union of the two outcomes), repeated to a
    fixpoint. How many cells that fixes, in how many probes and how much CPU."""
    for set_name, i, p, st0 in items:
        t = Tables.of(p)
        st = np.asarray(st0).reshape(-1).astype(np.uint64)
        c0 = time.process_time()
        probes = sweeps = 0
        changed = True
        while changed:
            changed = False
            sweeps += 1
            for c in np.flatnonzero(st == OPEN).tolist():
                if st[c] != OPEN:
                    continue
                outcome = []
                for colour in (WHITE, BLACK):
                    s = st.copy()
                    s[c] = colour
                    probes += 1
                    outcome.append(root_logic(t, p, s))
                white, black = outcome
                union = (black if white is None else white if black is None
                         else white | black)
                assert union is not None  # not both colours a contradiction
                if (union != st).any():
                    settled = root_logic(t, p, union)
                    assert settled is not None
                    st = settled
                    changed = True
        print(f"{set_name}#{i} open {int((np.asarray(st0) == OPEN).sum())} -> "
              f"{int((st == OPEN).sum())} after {probes:,} depth-2 probes in {sweeps} "
              f"sweeps, {time.process_time() - c0:.1f} CPU s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_item_args(ap)
    ap.add_argument("--settings", default="shipped,slice:g2000,read:g2000,in:g2000",
                    help="comma-separated: shipped, or slice|read|in:N or :gN")
    ap.add_argument("--facts", action="store_true",
                    help="instead: root facts and what our logic adds, at --at conflicts")
    ap.add_argument("--at", default="2000,5000,10000,20000")
    ap.add_argument("--backbone", type=int, metavar="CONFLICTS",
                    help="instead: each hand-over's backbone, CONFLICTS a MiniSat call")
    ap.add_argument("--depth2", action="store_true",
                    help="instead: depth-2 probing from each hand-over, no CDCL")
    ap.add_argument("--refute", type=int, default=0, metavar="CONFLICTS",
                    help="with --backbone: the cost of proving single cells, capped")
    ap.add_argument("--each", action="store_true", help="print every hand-over's row")
    ap.add_argument("--table", type=Path, help="write every hand-over's figures (JSON)")
    args = ap.parse_args()
    warmup()
    items, known = load_items(args)
    if args.depth2:
        depth2(items)
        return
    if args.backbone:
        backbone(items, args.backbone, args.refute)
        return
    if args.facts:
        facts(items, [int(x) for x in args.at.split(",")])
        return
    specs = args.settings.split(",")
    settings = {s: None if s == "shipped" else Setting.parse(s) for s in specs}

    def run(p: Puzzle, st: np.ndarray, s: str) -> Row:
        setting = settings[s]
        if setting is None:
            return timed_solve(p, st, phases.phase_literals)
        return sliced_solve(p, st, setting)

    def note(row: Row) -> str:
        if not isinstance(row, InRow):
            return ""
        return (f", cuts {row.cuts}, inproc {row.inproc_s:.3f} s, units {row.unit_cells}"
                f" cells + {row.unit_starts} starts, root cells at the end {row.root_cells}"
                f"{' CAPPED' if row.capped else ''}")

    res = interleaved(items, specs, run, known, args.each, note)
    if args.table:
        args.table.write_text(json.dumps({s: {f"{k[0]}#{k[1]}": [x.conflicts, x.hints_s,
                                                                 x.search_s, note(x)]
                                              for k, x in r.items()}
                                          for s, r in res.items()}))
    summarise(items, res, known)
    print(f"{'setting':<12} {'inproc s':>8} {'cuts':>6} {'unit cells':>10} "
          f"{'unit starts':>11} {'capped':>6}  (search s above includes inproc s)")
    for s, r in res.items():
        rows = [x for x in r.values() if isinstance(x, InRow)]
        if not rows:
            continue
        print(f"{s:<12} {sum(x.inproc_s for x in rows):8.2f} "
              f"{sum(x.cuts for x in rows):>6} {sum(x.unit_cells for x in rows):>10} "
              f"{sum(x.unit_starts for x in rows):>11} {sum(x.capped for x in rows):>6}")
    if len(res) > 1 and "shipped" in res:
        base = res["shipped"]
        for s, r in res.items():
            ratio = [r[k].conflicts / max(1, base[k].conflicts) for k in base]
            print(f"{s:<12} median conflict ratio to shipped {statistics.median(ratio):.2f}, "
                  f"over {SLOW:,}: {sum(x.conflicts > SLOW for x in r.values())}")


if __name__ == "__main__":
    main()
