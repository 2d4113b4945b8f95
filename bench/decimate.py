"""Probe: phase hints from belief-propagation-guided decimation, against the shipped hints.

Issue 39's tail (icga2018 #558, tcga2020 #538) are puzzles with dozens of solutions. The
shipped hints (:func:`nonoforge.solver.phases.phase_literals`) give each open cell its
likelier colour under loopy belief propagation; on a puzzle with many solutions the
marginals average over them, so the phase vector can mix pieces of different solutions.
Decimation pulls it towards ONE solution: run BP, fix the ``share`` most biased open cells
(of the hand-over's open cells; ties by cell index) to their likelier colour as a hard
restriction of the state, run ``rounds`` more rounds (the messages kept from the step
before), and repeat until every cell is fixed or a line has no placement left (then the
last batch is undone and decimation stops). Cells that line logic forces after a batch
get beliefs at the messages' clamp and so go first in the next batch: that is the
propagation, with no separate line solver. The phases handed to MiniSat are then
``phase_literals`` of the decimated state on the hand-over's encoding: the fixed cells'
colours, the BP sign of any cell left open, and the start variables from the start odds
of belief propagation on the decimated state. Deterministic: fixed batch sizes and
rounds, ties by index, no clock decides anything.

Each hand-over is loaded as ``sat.solve_sat`` loads it (``sat.encode``,
``sat._loaded_encoding``), given the hints, searched for one solution (checked against the
clues); per setting the conflicts, hints CPU and search CPU, interleaved hand-over by
hand-over with the shipped hints (``shipped``). A setting is ``SHARE:ROUNDS`` (e.g.
``0.05:5``), or ``SHARE:ROUNDS:b``: on a contradiction the step is retried with half the
batch, down to one cell, before decimation stops.

    nice .venv/bin/python bench/decimate.py --tail 8 --settings shipped,0.05:5,0.1:3
    nice .venv/bin/python bench/decimate.py --tail 174 --settings shipped,0.05:5
    nice .venv/bin/python bench/handovers.py --sets icga2018:1-1000 --save /tmp/ho.pkl \\
        --backends minisat-gh --rounds 0
    nice .venv/bin/python bench/decimate.py --load /tmp/ho.pkl --settings shipped,0.05:5

``--tail N`` takes the N worst hand-overs of ``bench/.cache/tail-1.5.json`` (collected
afresh with ``bench/handovers.collect``); ``--specs`` takes ``set:lo-hi`` or
``set:n,m`` specs as ``handovers.py --sets`` does; ``--load`` a ``handovers.py --save``
pickle. See docs/notes/solver-benchmarks.md, "BP-guided decimation phases, measured".
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from handovers import Item, collect  # noqa: E402

from nonoforge.puzzle import Puzzle  # noqa: E402
from nonoforge.solver import phases, sat, warmup  # noqa: E402
from nonoforge.solver.tables import Tables  # noqa: E402

TAIL = ROOT / "bench" / ".cache" / "tail-1.5.json"
#: Conflicts above which a search counts as too slow for issue 39 (about 2 s).
SLOW = 45_000


@dataclass(frozen=True)
class Setting:
    """A decimation schedule: the share of the hand-over's open cells fixed per step and
    the belief-propagation rounds run after each step (and before the first)."""

    share: float
    rounds: int
    #: On a contradiction, retry the step with half the batch (down to one cell) before
    #: stopping, instead of stopping at once.
    backoff: bool = False

    @classmethod
    def parse(cls, spec: str) -> Setting:
        share, rounds, *rest = spec.split(":")
        return cls(float(share), int(rounds), rest == ["b"])


@dataclass(frozen=True)
class Decimated:
    """What decimation left: the state with the fixed cells, the steps taken, and whether
    it stopped at a contradiction (a line with no placement) before fixing every cell."""

    state: np.ndarray
    steps: int
    contradiction: bool
    left: int


def _feasible(allow: np.ndarray, t: Tables) -> bool:
    """Whether every line still has a placement on ``allow`` (the chain's start state
    reaches an accepting one across the whole line: its backward band at cell 0 holds
    state 0)."""
    _, _, _, _, _, blo, _, _, _ = phases._plan(allow, t.lines, t.blen)
    return bool((blo[:, 0] == 0).all())


def decimate(t: Tables, state: np.ndarray, setting: Setting) -> Decimated:
    """BP-guided decimation of the hand-over ``state`` (see the module's docstring)."""
    allow = phases.allowed(state)
    n_open = int((allow == 3).sum())
    batch = max(1, math.ceil(setting.share * n_open))
    row = np.full(allow.shape[0], 0.5)
    col = np.full(allow.shape[0], 0.5)
    stop = np.zeros(1, dtype=np.int64)
    steps = 0
    contradiction = False
    while True:
        phases._propagate_beliefs(allow, t.lines, t.blen, t.height, setting.rounds,
                                  phases.DAMPING, phases.SETTLED, row, col, stop, 0)
        belief = phases._beliefs(allow, row, col)
        open_cells = np.flatnonzero(allow == 3)
        if not len(open_cells):
            break
        bias = np.abs(belief[open_cells] - 0.5)
        # most biased first, ties by cell index (lexsort: last key is the primary one)
        ranked = open_cells[np.lexsort((open_cells, -bias))]
        size = batch
        while True:
            take = ranked[:size]
            trial = allow.copy()
            trial[take] = np.where(belief[take] > 0.5, 2, 1)
            steps += 1
            if _feasible(trial, t):
                break
            if not setting.backoff or size == 1:
                contradiction = True
                break
            size = max(1, size // 2)
        if contradiction:
            break
        allow = trial
    out = np.asarray(state).copy().reshape(-1)
    fixed = (allow != 3) & (phases.allowed(state) == 3)
    out[fixed] = allow[fixed].astype(out.dtype)
    return Decimated(out.reshape(np.asarray(state).shape), steps, contradiction,
                     int((allow == 3).sum()))


@dataclass
class Row:
    """One setting's figures on one hand-over."""

    conflicts: int
    hints_s: float
    search_s: float
    steps: int = 0
    contradiction: bool = False
    left: int = 0


#: A phase-hint function: the literals for the encoding of a hand-over's state, as
#: ``phases.phase_literals(tables, state, enc)`` gives them.
Hints = Callable[[Tables, np.ndarray, sat.Encoding], list[int]]


def timed_solve(p: Puzzle, st: np.ndarray, hints: Hints) -> Row:
    """One hand-over searched for one solution as ``sat.solve_sat`` does it, with the
    phases ``hints`` gives; the solution is checked against the clues. The hints' CPU and
    the search's apart (this bench's and ``bench/mapphases.py``'s one way of timing)."""
    t = Tables.of(p)
    enc = sat.encode(p, st, tables=t)
    assert not enc.unsat
    solver = sat._loaded_encoding(enc, np.zeros(1, dtype=np.int64), sat.ONE_SOLUTION_SOLVER)
    try:
        c0 = time.process_time()
        lits = hints(t, st, enc)
        if lits:
            solver.set_phases(lits)
        c1 = time.process_time()
        found = solver.solve()
        assert found  # the hand-over is satisfiable: a solution is found
        grid = enc._grid(enc._colours(solver.get_model()))
        c2 = time.process_time()
        assert grid.matches(p)
        conflicts = int(solver.accum_stats().get("conflicts", 0))
    finally:
        solver.delete()
    return Row(conflicts, c1 - c0, c2 - c1)


def run_one(p: Puzzle, st: np.ndarray, setting: Setting | None) -> Row:
    """:func:`timed_solve` with the shipped hints (``setting`` None) or the phases of the
    hand-over decimated by ``setting``, whose steps the row also reports."""
    if setting is None:
        return timed_solve(p, st, phases.phase_literals)
    done: list[Decimated] = []

    def decimated(t: Tables, state: np.ndarray, enc: sat.Encoding) -> list[int]:
        done.append(decimate(t, state, setting))
        return phases.phase_literals(t, done[-1].state, enc)

    row = timed_solve(p, st, decimated)
    row.steps, row.contradiction, row.left = done[0].steps, done[0].contradiction, done[0].left
    return row


def tail_items(n: int) -> tuple[list[Item], dict[tuple[str, int], int]]:
    """The ``n`` worst hand-overs of the saved tail (collected afresh), and the conflicts
    the tail file gives them (the shipped search at solver 1.5)."""
    tail = json.loads(TAIL.read_text())["tail"][:n]
    by_set: dict[str, list[int]] = {}
    for e in tail:
        by_set.setdefault(e["set"], []).append(int(e["puzzle"]))
    items = collect([f"{s}:{','.join(map(str, sorted(v)))}" for s, v in by_set.items()], None)
    order = {(e["set"], int(e["puzzle"])): k for k, e in enumerate(tail)}
    items.sort(key=lambda it: order[it[0], it[1]])
    return items, {(e["set"], int(e["puzzle"])): int(e["conflicts"]) for e in tail}


def add_item_args(ap: argparse.ArgumentParser) -> None:
    """The options that say which hand-overs to take (``--tail``, ``--specs``, ``--load``),
    shared with ``bench/mapphases.py``."""
    ap.add_argument("--tail", type=int, help="the N worst hand-overs of the saved tail")
    ap.add_argument("--specs", nargs="*", help="set:lo-hi or set:n,m specs")
    ap.add_argument("--load", type=Path, help="a bench/handovers.py --save pickle")


def load_items(args: argparse.Namespace) -> tuple[list[Item], dict[tuple[str, int], int]]:
    """The hand-overs :func:`add_item_args`' options name, and (for ``--tail``) the
    conflicts the tail file gives them."""
    if args.tail:
        return tail_items(args.tail)
    if args.load:
        return pickle.loads(args.load.read_bytes()), {}
    return collect(args.specs or [], None), {}


def interleaved(items: list[Item], specs: list[str], run: Callable[[Puzzle, np.ndarray, str], Row],
                known: dict[tuple[str, int], int], each: bool,
                note: Callable[[Row], str] = lambda row: "",
                ) -> dict[str, dict[tuple[str, int], Row]]:
    """Every setting of ``specs`` run on every hand-over, hand-over by hand-over (so that a
    slower minute of the machine costs every setting alike), after one untimed run of each
    on the first (which compiles and loads everything); with ``each``, a line a run
    (``note`` adds a setting's own figures)."""
    for s in specs:
        run(items[0][2], items[0][3], s)
    res: dict[str, dict[tuple[str, int], Row]] = {s: {} for s in specs}
    for set_name, i, p, st in items:
        for s in specs:
            row = run(p, st, s)
            res[s][set_name, i] = row
            if each:
                was = f" (tail file {known[set_name, i]:,})" if known else ""
                print(f"{set_name}#{i} {s:<10} {row.conflicts:>8,} conflicts{was} "
                      f"hints {row.hints_s:.3f} search {row.search_s:.3f} s{note(row)}",
                      flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_item_args(ap)
    ap.add_argument("--settings", default="shipped,0.05:5",
                    help="comma-separated: shipped (the shipped hints) or SHARE:ROUNDS")
    ap.add_argument("--each", action="store_true", help="print every hand-over's row")
    args = ap.parse_args()
    warmup()
    items, known = load_items(args)
    specs = args.settings.split(",")
    settings = {s: None if s == "shipped" else Setting.parse(s) for s in specs}
    res = interleaved(
        items, specs, lambda p, st, s: run_one(p, st, settings[s]), known, args.each,
        lambda row: (f", steps {row.steps}, open left {row.left}"
                     f"{' contradiction' if row.contradiction else ''}"))
    print(f"{len(items)} hand-overs")
    print(f"{'setting':<10} {'conflicts':>11} {'hints s':>8} {'search s':>8} {'sum s':>8} "
          f"{'>45k':>5} {'steps':>6} {'contra':>6}  slowest")
    for s in specs:
        r = res[s]
        confl = sum(x.conflicts for x in r.values())
        hints = sum(x.hints_s for x in r.values())
        search = sum(x.search_s for x in r.values())
        over = sum(x.conflicts > SLOW for x in r.values())
        steps = sum(x.steps for x in r.values()) / max(1, len(r))
        contra = sum(x.contradiction for x in r.values())
        slow = sorted(((x.conflicts, k) for k, x in r.items()), reverse=True)[:3]
        slow_s = ", ".join(f"{k[0]}#{k[1]} {n:,}" for n, k in slow)
        print(f"{s:<10} {confl:>11,} {hints:8.2f} {search:8.2f} {hints + search:8.2f} "
              f"{over:>5} {steps:6.1f} {contra:>6}  {slow_s}", flush=True)


if __name__ == "__main__":
    main()
