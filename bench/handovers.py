"""Benchmark: SAT back-ends on a fixed sample of ``auto`` hand-overs (tournament puzzles).

``auto`` with ``max_solutions=1`` hands a tournament puzzle to the SAT back-end right after
root probing. This bench collects those hand-overs once (the puzzle and the root's logic
state; saved with ``--save``, reloaded with ``--load``) and then solves the same sample with
each back-end named, interleaved round by round, printing CPU seconds, conflicts and the
slowest puzzles. Every solution is checked against the clues.

    .venv/bin/python bench/handovers.py --sets tcga2022:401-700 \\
        --first 100 --save /tmp/ho.pkl --backends minisat22,glucose42 --rounds 2

``--stages`` times the shipped hand-over stage by stage instead (encode, load, phase
hints, search) and prints how many belief-propagation rounds the hints ran.
``--schedules`` runs hint schedules side by side on the same hand-overs (hints CPU,
search CPU, conflicts, rounds, per set):

    .venv/bin/python bench/handovers.py --load /tmp/ho.pkl --schedules 100:0:1e-4,100:2:1e-4,-

``--arms`` runs two-arm schedules (the shipped search and a second arm taking turns with it,
:class:`TwoArms`) side by side on the same hand-overs, each ``-`` (the shipped search) or
``NAME[/PATIENCE]:FIRST_ALONE:TURN:FIRST_SHARE`` (PATIENCE -1: the second arm gets no hints),
and ``--tail N`` keeps only hand-overs whose shipped search needs over N conflicts (from
``--table``'s pickle of a ``minisat-gh+bp`` run, which names them):

    .venv/bin/python bench/handovers.py --load /tmp/all.pkl --tail 8000 \
        --tail-from /tmp/base.pkl --arms=-,cadical195:8000:4000:1

A back-end is ``minisat22`` (or any python-sat solver name: the shipped order encoding,
one solution), ``NAME+regular`` (the automaton line encoding), ``NAME+bp`` (with the
belief-propagation phase hints of ``nonoforge.solver.phases``), ``cadical195:sat:walk=0``
(CaDiCaL with a preset of ``PRESETS`` and/or options set), ``cpsat`` (OR-tools
CP-SAT, one worker, when ``ortools`` is importable). The lazy-clause-generation solver
measured against these (docs/solver.md, "Lazy clause generation") was dropped; its code and
its back-end here are at commit 908d370.

``--survey knotty`` collects the hand-over of a survey-free puzzle instead (the root
state after probing, as ``auto`` hands it to SAT); ``--max-solutions 2`` asks python-sat
back-ends for a uniqueness proof from the same states:

    .venv/bin/python bench/handovers.py --survey knotty \
        --backends minisat-gh --max-solutions 2
"""

from __future__ import annotations

import argparse
import functools
import pickle
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.formats import read_file  # noqa: E402
from nonoforge.formats.tournament import read_with_solutions  # noqa: E402
from nonoforge.puzzle import Grid, Puzzle  # noqa: E402
from nonoforge.solver import core, sat, solve, warmup  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "tournament"
SURVEY = ROOT.parent / "shared" / "corpora" / "survey-free"

Item = tuple[str, int, Puzzle, np.ndarray]
#: What the python-sat back-ends are asked for (``--max-solutions``).
MAX_SOLUTIONS = 1


class _Handover(Exception):
    def __init__(self, state: np.ndarray) -> None:
        self.state = state


def collect(spec: list[str], first: int | None, survey: list[str] | None = None) -> list[Item]:
    """The hand-overs of ``set:lo-hi`` (1-based puzzle numbers) or ``set:$n,$m`` specs,
    or of the survey-free puzzles named in ``survey`` (file stems; numbered 0).

    The SAT back-end is loaded first: loading it solves a warm-up puzzle through
    ``core._solve_sat``, which ``collect`` replaces, so a first load inside would hand over
    the warm-up's state in place of the puzzle's."""
    warmup()
    real = core._solve_sat

    def grab(puzzle: Puzzle, state: Any, *args: Any, **kw: Any) -> Any:
        raise _Handover(np.array(state))

    core._solve_sat = grab
    items: list[Item] = []
    try:
        for stem in survey or []:
            p = read_file(SURVEY / f"{stem}.non")[0]
            try:
                solve(p, max_solutions=1)
            except _Handover as h:
                items.append((stem, 0, p, h.state))
        for s in [] if survey else spec:
            name, _, which = s.partition(":")
            puzzles = read_with_solutions(CORPUS / "question" / f"{name}.txt",
                                          CORPUS / "solution" / f"{name}.txt")
            if "-" in which:
                lo, hi = (int(x) for x in which.split("-"))
                nums = list(range(lo, hi + 1))
            else:
                nums = [int(x) for x in which.split(",")]
            got = 0
            for i in nums:
                p = puzzles[i - 1]
                try:
                    solve(p, max_solutions=1)
                except _Handover as h:
                    items.append((name, i, p, h.state))
                    got += 1
                    if first is not None and got >= first:
                        break
    finally:
        core._solve_sat = real
    return items


#: CaDiCaL's presets (its config.cpp), as the options python-sat's ``configure`` can set.
PRESETS = {
    "sat": {"elimreleff": 10, "stabilizeonly": 1, "subsumereleff": 60},
    "unsat": {"stabilize": 0, "walk": 0},
    "plain": {o: 0 for o in ("block", "compact", "cover", "decompose", "deduplicate", "elim",
                             "instantiate", "probe", "subsume", "ternary", "transred",
                             "vivify")},
}


def run_pysat(items: list[Item], name: str, lines: str, phases: bool = False,
              options: dict[str, int] | None = None) -> dict[tuple[str, int], tuple[float, int]]:
    solver_names = sat.SOLVER_NAME, sat.ONE_SOLUTION_SOLVER
    switches = sat.ONE_SOLUTION_PHASES, sat.PROOF_PHASES, dict(sat.SOLVER_OPTIONS)
    sat.SOLVER_NAME = sat.ONE_SOLUTION_SOLVER = name
    sat.ONE_SOLUTION_PHASES = sat.PROOF_PHASES = phases
    sat.SOLVER_OPTIONS[name] = options or {}
    out = {}
    plain = sat.encode
    if lines != "order":
        sat.encode = functools.partial(plain, lines="regular")
    try:
        for set_name, i, p, st in items:
            c0 = time.process_time()
            res = sat.solve_sat(p, st, max_solutions=MAX_SOLUTIONS)
            cpu = time.process_time() - c0
            assert res.solutions and res.solutions[0].matches(p), (set_name, i, res.status)
            out[set_name, i] = (cpu, res.conflicts)
    finally:
        sat.encode = plain
        sat.SOLVER_NAME, sat.ONE_SOLUTION_SOLVER = solver_names
        sat.ONE_SOLUTION_PHASES, sat.PROOF_PHASES, sat.SOLVER_OPTIONS = switches
    return out


def run_pre(items: list[Item], name: str, engine: str) -> dict[tuple[str, int], tuple[float, int]]:
    """The order CNF through CaDiCaL's preprocessor (python-sat ``Processor``), then solved."""
    from pysat.process import Processor
    from pysat.solvers import Solver

    out = {}
    for set_name, i, p, st in items:
        c0 = time.process_time()
        enc = sat.encode(p, st)
        proc = Processor(bootstrap_with=enc.clauses, engine=engine)
        simp = proc.process()
        with Solver(name=name, bootstrap_with=simp.clauses) as s:
            found = s.solve()
            assert found  # the hand-over is satisfiable: a solution is found
            model = proc.restore(s.get_model())
            conflicts = int(s.accum_stats().get("conflicts", 0))
        proc.delete()
        cpu = time.process_time() - c0
        grid = enc.decode(model)
        assert grid.matches(p), (set_name, i)
        out[set_name, i] = (cpu, conflicts)
    return out


def score_perm(enc: sat.Encoding, st: np.ndarray, how: str) -> np.ndarray:
    """A numbering that puts the cell variables first in order of a score of the state."""
    h, w = st.shape
    und = np.array([[bin(int(x)).count("1") > 1 for x in row] for row in st])
    ru = und.sum(axis=1)[:, None] + np.zeros((1, w), dtype=int)
    cu = und.sum(axis=0)[None, :] + np.zeros((h, 1), dtype=int)
    if how == "sum":
        key = (ru + cu).ravel()
    elif how == "min":
        key = np.minimum(ru, cu).ravel()
    elif how == "max":
        key = -(ru + cu).ravel()
    elif how == "row":
        key = np.arange(h * w)
    elif how == "col":
        key = np.arange(h * w).reshape(h, w).T.ravel()
    else:
        raise SystemExit(f"unknown score {how}")
    lits = enc._lits
    cellvar = np.abs(lits[:, 1])
    free = enc._free
    cells = sorted(np.flatnonzero(free).tolist(), key=lambda c: (key[c], c))
    order = [int(cellvar[c]) for c in cells]
    taken = set(order)
    rest = [v for v in range(1, enc.nvars + 1) if v not in taken]
    new_of_old = np.zeros(enc.nvars + 1, dtype=np.int64)
    for new, old in enumerate(order + rest, start=1):
        new_of_old[old] = new
    return new_of_old[1:]


def run_perm(items: list[Item], name: str, seed: str) -> dict[tuple[str, int], tuple[float, int]]:
    """The order CNF under a seeded random numbering of its variables (or a scored one)."""
    from pysat.solvers import Solver

    out = {}
    for set_name, i, p, st in items:
        c0 = time.process_time()
        enc = sat.encode(p, st)
        if seed.isdigit():
            perm = np.random.default_rng(int(seed) * 1_000_003 + i).permutation(enc.nvars) + 1
        else:
            perm = score_perm(enc, st, seed)
        fwd = np.concatenate([[0], perm])
        clauses = [[int(fwd[x]) if x > 0 else -int(fwd[-x]) for x in cl] for cl in enc.clauses]
        with Solver(name=name, bootstrap_with=clauses) as s:
            found = s.solve()
            assert found  # the hand-over is satisfiable: a solution is found
            m = s.get_model()
            conflicts = int(s.accum_stats().get("conflicts", 0))
        model = [v if m[fwd[v] - 1] > 0 else -v for v in range(1, enc.nvars + 1)]
        cpu = time.process_time() - c0
        grid = enc.decode(model)
        assert grid.matches(p), (set_name, i)
        out[set_name, i] = (cpu, conflicts)
    return out


def run_backend(items: list[Item], backend: str) -> dict[tuple[str, int], tuple[float, int]]:
    if "@" in backend:
        name, _, seed = backend.partition("@")
        return run_perm(items, name, seed)
    if backend.startswith("cpsat"):
        return run_cpsat(items, backend)
    if "+pre" in backend:
        name, _, engine = backend.partition("+pre")
        return run_pre(items, name, engine or "cd15")
    name, *suffixes = backend.split("+")
    name, *opts = name.split(":")
    options: dict[str, int] = {}
    for o in opts:  # a preset (sat, unsat, plain) or option=value
        k, eq, v = o.partition("=")
        options.update({k: int(v)} if eq else PRESETS[k])
    lines = "regular" if "regular" in suffixes else "order"
    return run_pysat(items, name, lines, "bp" in suffixes, options)


def cpsat_one(p: Puzzle, st: np.ndarray, backend: str) -> tuple[Grid | None, int]:
    """One solution by OR-tools CP-SAT (one worker): each line an automaton over its cells
    (``cpsat``), or the shipped order-encoding CNF as boolean clauses (``cpsat-cnf``)."""
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    h, w = p.height, p.width
    if backend == "cpsat-cnf":
        enc = sat.encode(p, st)
        xs = [m.new_bool_var("") for _ in range(enc.nvars)]
        for cl in enc.clauses:
            m.add_bool_or([xs[x - 1] if x > 0 else xs[-x - 1].Not() for x in cl])
    else:
        cells = []
        for r in range(h):
            for c in range(w):
                mask = int(st[r, c])
                vals = [a for a in range(p.ncolors + 1) if mask >> a & 1]
                cells.append(m.new_int_var_from_domain(cp_model.Domain.from_values(vals), ""))
        for li, clue in enumerate(p.rows + p.columns):
            line = (cells[li * w:(li + 1) * w] if li < h else cells[li - h::w])
            label, succ, accept = sat._line_automaton(clue)
            triples = [(q, a, q2) for q in range(len(succ)) for a, q2 in succ[q].items()]
            m.add_automaton(line, 0, sorted(accept), triples)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60
    for kv in backend.split(":")[1:]:
        k, _, v = kv.partition("=")
        setattr(solver.parameters, k, type(getattr(solver.parameters, k))(v))
    status = solver.solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, int(solver.num_conflicts)
    if backend == "cpsat-cnf":
        model = [i + 1 if solver.boolean_value(x) else -(i + 1) for i, x in enumerate(xs)]
        return enc.decode(model), int(solver.num_conflicts)
    vals = [solver.value(x) for x in cells]
    return Grid(np.array(vals).reshape(h, w)), int(solver.num_conflicts)


def run_cpsat(items: list[Item], backend: str) -> dict[tuple[str, int], tuple[float, int]]:
    out = {}
    for set_name, i, p, st in items:
        c0 = time.process_time()
        grid, conflicts = cpsat_one(p, st, backend)
        cpu = time.process_time() - c0
        assert grid is not None and grid.matches(p), (set_name, i)
        out[set_name, i] = (cpu, conflicts)
    return out


def _hinted_search(solver: Any, t: Any, st: np.ndarray, enc: Any,
                   hinted: bool = True) -> tuple[float, float]:
    """Give ``solver`` (loaded with ``enc``) the phase hints of the hand-over ``st``, under
    ``phases``' constants as they are set now (none unless ``hinted``), and search for a
    solution: the CPU seconds of the hints and of the search."""
    from nonoforge.solver import phases

    c0 = time.process_time()
    if hinted:
        lits = phases.phase_literals(t, st, enc)
        if lits:
            solver.set_phases(lits)
    c1 = time.process_time()
    found = solver.solve()
    assert found  # the hand-over is satisfiable: a solution is found
    return c1 - c0, time.process_time() - c1


def _hint_rounds(t: Any, st: np.ndarray) -> tuple[np.ndarray, int]:
    """The hand-over ``st``'s cells as the phase hints read them (1 white, 2 black, 3 open)
    and the belief-propagation rounds the hints run on it, under ``phases``' constants as
    they are set now (``--schedules`` sets them per schedule)."""
    from nonoforge.solver import phases

    allow, _, _, ran = phases._settle(t, st, phases.ROUNDS, phases.DAMPING,
                                      np.zeros(1, dtype=np.int64))
    return allow, ran


def stages(items: list[Item]) -> None:
    """Where one-solution hand-overs spend their CPU, stage by stage as ``solve_sat`` runs
    them (encode, load MiniSat, phase hints, search), and why the hints cost what they do:
    the belief-propagation rounds each hand-over runs (those that never settle run all
    ``phases.ROUNDS``) and the share of chain states the reachable bands keep."""
    from nonoforge.solver import phases
    from nonoforge.solver.tables import Tables

    cpu = dict.fromkeys(("encode", "load", "hints", "search"), 0.0)
    rounds: list[int] = []
    band = full = 0
    stop = np.zeros(1, dtype=np.int64)
    for _, _, p, st in items:
        t = Tables.of(p)
        c0 = time.process_time()
        enc = sat.encode(p, st, tables=t)
        c1 = time.process_time()
        solver = sat._loaded_encoding(enc, stop, sat.ONE_SOLUTION_SOLVER)
        c2 = time.process_time()
        hints, search = _hinted_search(solver, t, st, enc)
        solver.delete()
        for k, dt in zip(cpu, (c1 - c0, c2 - c1, hints, search), strict=True):
            cpu[k] += dt
        # not timed: how many rounds the hints ran, and how narrow the bands were
        allow, ran = _hint_rounds(t, st)
        rounds.append(ran)
        coff, _, _, flo, fhi, _, _, _, _ = phases._plan(allow, t.lines, t.blen)
        for li in range(t.lines.shape[0]):
            n = int(t.lines[li, 2])
            full += n * int(coff[li + 1] - coff[li])
            band += int(np.maximum(0, fhi[li, 1 : n + 1] - flo[li, 1 : n + 1] + 1).sum())
    r = np.array(rounds)
    print(f"{len(items)} hand-overs, CPU s: " + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items()))
    print(f"hint rounds: mean {r.mean():.1f}, all {phases.ROUNDS} (never settled) in "
          f"{int((r >= phases.ROUNDS).sum())}, under 20 in {int((r < 20).sum())}; "
          f"forward bands keep {band / max(1, full):.0%} of the chain states")


def schedules(items: list[Item], specs: list[str]) -> None:
    """The hint schedules ``specs`` side by side on the same hand-overs, each
    ``ROUNDS:PATIENCE:SETTLED`` (the constants of :mod:`nonoforge.solver.phases`;
    ``-`` for no hints at all), interleaved puzzle by puzzle: per set and in all, the
    hints' CPU (timed as the hand-over runs them), MiniSat's search CPU, their sum, the
    conflicts and the mean rounds run."""
    from nonoforge.solver import phases
    from nonoforge.solver.tables import Tables

    saved = phases.ROUNDS, phases.PATIENCE, phases.SETTLED
    stop = np.zeros(1, dtype=np.int64)
    # spec -> set -> [hints CPU, search CPU, conflicts, rounds, hand-overs]
    acc: dict[str, dict[str, list[float]]] = {s: {} for s in specs}
    try:
        for set_name, _, p, st in items:
            t = Tables.of(p)
            enc = sat.encode(p, st, tables=t)
            for spec in specs:
                row = acc[spec].setdefault(set_name, [0.0, 0.0, 0, 0, 0])
                solver = sat._loaded_encoding(enc, stop, sat.ONE_SOLUTION_SOLVER)
                if spec != "-":
                    r, pat, settled = spec.split(":")
                    phases.ROUNDS, phases.PATIENCE = int(r), int(pat)
                    phases.SETTLED = float(settled)
                hints, search = _hinted_search(solver, t, st, enc, spec != "-")
                row[0] += hints
                row[1] += search
                row[2] += int(solver.accum_stats().get("conflicts", 0))
                solver.delete()
                if spec != "-":  # not timed: the rounds this schedule ran
                    row[3] += _hint_rounds(t, st)[1]
                row[4] += 1
    finally:
        phases.ROUNDS, phases.PATIENCE, phases.SETTLED = saved
    names = sorted({n for per in acc.values() for n in per})
    print(f"{'schedule':<22} {'set':<10} {'hints':>7} {'search':>7} {'sum':>7} "
          f"{'conflicts':>10} {'rounds':>6}")
    for spec in specs:
        per = acc[spec]
        for n in [*names, "all"]:
            v = ([sum(per[m][k] for m in names) for k in range(5)] if n == "all" else per[n])
            print(f"{spec:<22} {n:<10} {v[0]:7.2f} {v[1]:7.2f} {v[0] + v[1]:7.2f} "
                  f"{int(v[2]):>10,} {v[3] / max(1, v[4]):6.1f}", flush=True)


@dataclass(frozen=True)
class TwoArms:
    """A two-arm schedule (see ``--arms``): the second arm's python-sat back-end and its
    hints' ``patience`` (``None``: the first arm's hints, -1: none), the conflicts the first
    arm runs alone, the second arm's first turn (each later pair of turns twice the one
    before) and the first arm's turn as a share of the second's."""

    name: str
    patience: int | None
    first_alone: int
    turn: int
    first_share: float

    @classmethod
    def parse(cls, spec: str) -> TwoArms:
        arm, first, turn, share = spec.split(":")
        name, _, patience = arm.partition("/")
        return cls(name, int(patience) if patience else None, int(first), int(turn),
                   float(share))

    def turns(self) -> Iterator[tuple[int, int]]:
        """``(arm, conflicts)``: the conflicts the arm may have used in all when its turn
        ends (a fixed sequence: deterministic)."""
        yield 0, self.first_alone
        first, second, turn = self.first_alone, 0, self.turn
        while True:
            second += turn
            yield 1, second
            first += int(turn * self.first_share)
            yield 0, first
            turn *= 2


def two_arm_solve(p: Puzzle, st: np.ndarray, arms: TwoArms) -> tuple[Grid, int]:
    """One solution of the hand-over ``st`` of ``p`` by the shipped search (MiniSat with
    its hints) and a second arm taking turns with it, each turn resuming where the arm
    stopped: the solution and the conflicts of both arms. A probe of issue 39's tail, kept
    here, not in the solver: no schedule measured beat the one arm (see
    docs/notes/solver-benchmarks.md, "The tail at solver 1.5")."""
    from nonoforge.solver import phases
    from nonoforge.solver.tables import Tables

    t = Tables.of(p)
    stop = np.zeros(1, dtype=np.int64)
    enc = sat.encode(p, st, tables=t)
    assert not enc.unsat
    hints = phases.phase_literals(t, st, enc)
    names = [sat.ONE_SOLUTION_SOLVER]
    solvers = [sat._loaded_encoding(enc, stop, names[0])]
    try:
        if hints:
            solvers[0].set_phases(hints)
        for arm, upto in arms.turns():
            if arm == len(solvers):  # the second arm, made at its first turn
                names.append(arms.name)
                solvers.append(sat._loaded_encoding(enc, stop, arms.name))
                lits = (hints if arms.patience is None else [] if arms.patience == -1
                        else phases.phase_literals(t, st, enc, patience=arms.patience))
                if lits:
                    solvers[1].set_phases(lits)
            if int(solvers[arm].accum_stats().get("conflicts", 0)) > upto:
                continue  # it ran past its mark in an earlier turn
            found = sat._solve_until(solvers[arm], None, upto, names[arm])
            if found is not None:
                assert found
                grid = enc._grid(enc._colours(solvers[arm].get_model()))
                used = sum(int(s.accum_stats().get("conflicts", 0)) for s in solvers)
                return grid, used
        raise AssertionError("unreachable: the turns never end")
    finally:
        for solver in solvers:
            solver.delete()


def arms(items: list[Item], specs: list[str]) -> None:
    """The two-arm schedules ``specs`` side by side on the same hand-overs, interleaved
    puzzle by puzzle (one solution, every answer checked): per schedule the CPU, the
    conflicts, how many need over 45,000 conflicts (about 2 s) and the slowest five."""
    res: dict[str, dict[tuple[str, int], tuple[float, int]]] = {s: {} for s in specs}
    for set_name, i, p, st in items:
        for spec in specs:
            c0 = time.process_time()
            if spec == "-":  # the shipped search
                out = sat.solve_sat(p, st, max_solutions=1)
                grid, used = out.solutions[0], out.conflicts
            else:
                grid, used = two_arm_solve(p, st, TwoArms.parse(spec))
            cpu = time.process_time() - c0
            assert grid.matches(p), (set_name, i, spec)
            res[spec][set_name, i] = (cpu, used)
    for spec in specs:
        r = res[spec]
        cpu = sum(c for c, _ in r.values())
        confl = sum(n for _, n in r.values())
        over = sum(n > 45_000 for _, n in r.values())
        slow = sorted(((n, c, k) for k, (c, n) in r.items()), reverse=True)[:5]
        slow_s = ", ".join(f"{k[0]}${k[1]} {n:,} {c:.2f}" for n, c, k in slow)
        print(f"{spec:<32} {cpu:8.2f} CPU s {confl:>11,} conflicts  over 45k {over}  "
              f"slowest {slow_s}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="*", default=["tcga2022:401-700"])
    ap.add_argument("--survey", help="survey-free puzzles instead (file stems, e.g. knotty)")
    ap.add_argument("--first", type=int, default=None, help="hand-overs per spec")
    ap.add_argument("--save", type=Path)
    ap.add_argument("--load", type=Path)
    ap.add_argument("--backends", default="minisat22")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--max-solutions", type=int, default=1,
                    help="2: uniqueness proofs from the same states (python-sat back-ends)")
    ap.add_argument("--table", type=Path, help="write per-puzzle CPU and conflicts (pickle)")
    ap.add_argument("--stages", action="store_true",
                    help="CPU of each stage of the shipped hand-over (encode, load, hints, "
                    "search) and the hints' rounds, instead of the back-ends")
    ap.add_argument("--schedules",
                    help="hint schedules side by side instead, comma-separated, each "
                    "ROUNDS:PATIENCE:SETTLED or - (no hints), e.g. 100:0:1e-4,100:2:1e-4")
    ap.add_argument("--arms", help="two-arm schedules side by side instead, comma-separated, "
                    "each - or NAME[/PATIENCE]:FIRST_ALONE:TURN:FIRST_SHARE")
    ap.add_argument("--tail", type=int, help="only hand-overs needing over N conflicts "
                    "in --tail-from's table")
    ap.add_argument("--tail-from", type=Path, help="a --table pickle of a minisat-gh+bp run")
    args = ap.parse_args()
    global MAX_SOLUTIONS
    MAX_SOLUTIONS = args.max_solutions
    warmup()
    if args.load:
        items = pickle.loads(args.load.read_bytes())
    else:
        c0 = time.process_time()
        items = collect(args.sets, args.first,
                        args.survey.split(",") if args.survey else None)
        print(f"collected {len(items)} hand-overs in {time.process_time() - c0:.1f} CPU s",
              flush=True)
        if args.save:
            args.save.write_bytes(pickle.dumps(items))
    if args.tail is not None:
        if args.tail_from is None:
            raise SystemExit("--tail needs --tail-from")
        base = next(iter(pickle.loads(args.tail_from.read_bytes()).values()))
        items = [it for it in items if base[it[0], it[1]][1] > args.tail]
        print(f"{len(items)} hand-overs over {args.tail:,} conflicts", flush=True)
    if args.arms:
        arms(items[:1], args.arms.split(","))  # compiles and loads everything before timing
        arms(items, args.arms.split(","))
        return
    if args.schedules:
        specs = args.schedules.split(",")
        schedules(items[:1], specs)  # compiles and loads everything before timing
        schedules(items, specs)
        return
    if args.stages:
        stages(items[:1])  # compiles and loads everything before timing
        stages(items)
        return
    backends = args.backends.split(",")
    for b in backends:  # warm every back-end once (imports, compiles) before timing
        run_backend(items[:1], b)
    table: dict[str, Any] = {}
    for rnd in range(args.rounds):
        for b in backends:
            res = run_backend(items, b)
            table[f"{b}#{rnd}"] = res
            if args.table:
                args.table.write_bytes(pickle.dumps(table))
            cpu = sum(c for c, _ in res.values())
            confl = sum(n for _, n in res.values())
            slow = sorted(((c, k) for k, (c, _) in res.items()), reverse=True)[:3]
            slow_s = ", ".join(f"{k[0]}${k[1]} {c:.2f}" for c, k in slow)
            print(f"round {rnd + 1} {b:<22} {cpu:8.2f} CPU s {confl:>10,} conflicts  "
                  f"slowest {slow_s}", flush=True)


if __name__ == "__main__":
    main()
