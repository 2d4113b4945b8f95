"""Benchmark: the computer-nonogram tournament sets (TAAI, TCGA, ICGA 2011-2023).

Every set in ``../shared/corpora/tournament/question/`` is 1000 random 25x25 puzzles
(later sets are sparser and harder). Tournaments ask for one solution, so every puzzle is
solved with ``max_solutions=1`` and the solution is checked against the clues (a set's
solution file holds one picture per puzzle; a puzzle may have others, so a different but
valid picture counts as solved). Prints a table per set (total, slowest, over 1 s, over
10 s) and one for the whole.

    .venv/bin/python bench/tournament.py                  # all 27 sets
    .venv/bin/python bench/tournament.py taai2011 tcga2016 --limit 100 --timeout 20
    .venv/bin/python bench/tournament.py taai2011 --workers 2   # solve --workers, wall time

Times are CPU seconds of this process per solve (``time.process_time``: the machine is
shared, and wall time would count the others' work); wall seconds are printed beside the
totals. Compile time (numba, first call) is measured and printed separately, never counted.
The solver is single-threaded: run one of these at a time.

``--stages`` prints, after each set, where its solves' CPU went (reading the set apart):
the engine's arrays and its run (line logic and root probing), the SAT hand-over's
encoding, loading MiniSat, phase hints, search, decoding and checking, deleting the
solver, the alarms, and the rest of ``solve``. Each stage is the CPU of this thread inside
a wrapper around the function named, less the stages inside it (the wrappers add a few
microseconds a call). ``--answers FILE`` writes every solve's verdict, technique and effort
counts (JSON lines) to compare two checkouts: same answers, one set at a time.

``--workers N`` measures ``nonoforge solve --workers`` instead: each set is solved by the
command (one process, as a user runs it, start-up included) with one worker and with N,
and the wall seconds, the CPU seconds of the command and its workers, the ratio of the
wall times (issue 39's target with 2 workers: at most 0.55) and whether the answers are
the same (verdict, technique, effort of every puzzle) are printed. Wall time is what
workers save, so run it on a quiet machine; the load average is printed beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.formats.tournament import read_with_solutions  # noqa: E402
from nonoforge.puzzle import Puzzle  # noqa: E402
from nonoforge.solver import SOLVER_VERSION, solve, warmup  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "tournament"


def sets() -> list[str]:
    """Every set of the corpus, oldest first (then by name)."""
    names = [p.stem for p in (CORPUS / "question").glob("*.txt")]
    return sorted(names, key=lambda n: (n[-4:], n))


def load(name: str) -> list[Puzzle]:
    return read_with_solutions(CORPUS / "question" / f"{name}.txt",
                               CORPUS / "solution" / f"{name}.txt")


@dataclass
class SetResult:
    name: str
    puzzles: int = 0
    checked: int = 0
    cpu: float = 0.0
    wall: float = 0.0
    over1: int = 0
    over5: int = 0
    over10: int = 0
    timeouts: int = 0
    slowest: list[tuple[float, int]] = field(default_factory=list)


class Stages:
    """CPU of this thread per stage of a solve, each stage exclusive of those inside it:
    the functions of :data:`STAGES` wrapped while it is installed (``--stages``)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._inner: list[float] = []
        self._undo: list[tuple[object, str, object]] = []

    def timed(self, label: str, fn: Any) -> Any:
        """``fn`` wrapped: its exclusive CPU is added to ``label``."""
        clock, inner, seconds = time.thread_time, self._inner, self.seconds

        @functools.wraps(fn)
        def wrapper(*args: Any, **kw: Any) -> Any:
            t0 = clock()
            inner.append(0.0)
            try:
                return fn(*args, **kw)
            finally:
                spent = clock() - t0
                seconds[label] = seconds.get(label, 0.0) + spent - inner.pop()
                if inner:
                    inner[-1] += spent
        return wrapper

    def install(self) -> None:
        import pysat.solvers

        from nonoforge.puzzle import Grid
        from nonoforge.solver import alarm, core, driver, sat

        where = {"core": core, "driver": driver, "sat": sat, "Work": driver.Work,
                 "Encoding": sat.Encoding, "Alarm": alarm.Alarm, "Grid": Grid,
                 "Solver": pysat.solvers.Solver}
        for label, names in STAGES.items():
            for dotted in names:
                owner_name, attr = dotted.split(".")
                owner = where[owner_name]
                fn = owner.__dict__.get(attr)
                if fn is None:  # not in this checkout
                    continue
                self._undo.append((owner, attr, fn))
                setattr(owner, attr, self.timed(label, fn))

    def uninstall(self) -> None:
        for owner, attr, fn in reversed(self._undo):
            setattr(owner, attr, fn)
        self._undo.clear()

    def table(self, name: str, total: float) -> str:
        rows = [f"\nwhere {name}'s {total:.2f} CPU s went (this thread):",
                "| stage | CPU s | share |", "|---|---:|---:|"]
        for label, sec in sorted(self.seconds.items(), key=lambda kv: -kv[1]):
            rows.append(f"| {label} | {sec:.2f} | {100 * sec / max(total, 1e-9):.1f} % |")
        return "\n".join(rows)


#: The stages ``--stages`` times: each a label and the functions whose CPU is its own
#: (``owner.function``; one missing in a checkout is skipped).
STAGES: dict[str, tuple[str, ...]] = {
    "rest of solve (checks, tables, results)": ("core._solve",),
    "engine: arrays": ("Work.__init__",),
    "engine: line logic and root probing": ("Work.run",),
    "engine: effort, root state, solutions": ("Work.effort", "Work.root_state",
                                              "driver.collect"),
    "sat: encode": ("sat.encode",),
    "sat: load MiniSat": ("sat._loaded_encoding",),
    "sat: phase hints": ("sat._set_phases",),
    "sat: search": ("sat._solve_until",),
    "sat: decode and check": ("Encoding.decode", "Encoding._colours", "Encoding._grid",
                              "Encoding.blocking_clause", "Grid.matches"),
    "sat: new and delete solver": ("Solver.__init__", "Solver.delete"),
    "alarms": ("Alarm.arm", "Alarm.cancel"),
}


def run_set(name: str, limit: int | None, timeout: float, budget: int | None,
            stages: Stages | None = None, answers: TextIO | None = None) -> SetResult:
    r0 = time.process_time()
    puzzles = load(name)[:limit]
    reading = time.process_time() - r0
    r = SetResult(name, len(puzzles))
    times: list[tuple[float, int]] = []
    if stages is not None:
        stages.seconds.clear()
        stages.install()
    w0 = time.perf_counter()
    for i, p in enumerate(puzzles, start=1):
        c0 = time.process_time()
        res = solve(p, max_solutions=1, timeout=timeout, budget=budget)
        cpu = time.process_time() - c0
        if answers is not None:
            answers.write(json.dumps({"set": name, "puzzle": i, "status": str(res.status),
                                      "technique": res.technique, "effort": res.effort})
                          + "\n")
        ok = bool(res.solutions) and all(g.matches(p) for g in res.solutions)
        r.checked += ok
        r.timeouts += res.status in ("timeout", "budget")
        if not ok:
            print(f"  {name} ${i}: {res.status}, no checked solution", flush=True)
        times.append((cpu, i))
    r.wall = time.perf_counter() - w0
    r.cpu = sum(t for t, _ in times)
    if stages is not None:
        stages.uninstall()
        print(stages.table(name, r.cpu) + f"\n(reading the set, apart: {reading:.2f} s)\n",
              flush=True)
    r.over1 = sum(t >= 1 for t, _ in times)
    r.over5 = sum(t >= 5 for t, _ in times)
    r.over10 = sum(t >= 10 for t, _ in times)
    r.slowest = sorted(times, reverse=True)[:5]
    return r


def _row(r: SetResult) -> str:
    slow = ", ".join(f"${i} {t:.2f}" for t, i in r.slowest[:3])
    return (f"| {r.name} | {r.checked} / {r.puzzles} | {r.cpu:.1f} | "
            f"{r.slowest[0][0] if r.slowest else 0:.2f} | {r.over1} | {r.over10} | "
            f"{r.timeouts} | {r.wall:.1f} | {slow} |")


HEADER = ("| set | solved & checked | total CPU s | slowest s | over 1 s | over 10 s | "
          "cut off | wall s | slowest three |\n|---|---|---:|---:|---:|---:|---:|---:|---|")


def run_command(name: str, workers: int, limit: int | None) -> tuple[float, float, list]:
    """``nonoforge solve --workers`` on a set: wall s, CPU s (command and workers), answers."""
    path = CORPUS / "question" / f"{name}.txt"
    if limit is not None:  # the first puzzles' blocks ("$N" starts the next one)
        text = path.read_text()
        cut = text.find(f"${limit + 1}\n")
        path = Path(f"/tmp/nonoforge-bench-{name}-{limit}.txt")
        path.write_text(text if cut < 0 else text[:cut])
    cmd = [sys.executable, "-m", "nonoforge", "-q", "solve", "--max-solutions", "1", "--json",
           "--workers", str(workers), str(path)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        sys.exit(f"{name}: solve --workers {workers} exited {done.returncode}: "
                 f"{done.stderr[-500:]}")
    answers = [(a.get("status"), a.get("technique"), a.get("effort"))
               for a in json.loads(done.stdout)]
    return wall, cpu, answers


def main_workers(names: list[str], workers: int, limit: int | None) -> None:
    """Wall and CPU time of ``solve`` with one worker and with ``workers`` on each set."""
    print(f"nonoforge solver {SOLVER_VERSION}; solve --max-solutions 1 --json, one command "
          f"per run (start-up included); {os.cpu_count()} cores; load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    print(f"| set | puzzles | 1 worker wall s | CPU s | {workers} workers wall s | CPU s | "
          "ratio | same answers | load avg |\n|---|---:|---:|---:|---:|---:|---:|---|---:|")
    ratios = []
    for name in names:
        w1, c1, a1 = run_command(name, 1, limit)
        wn, cn, an = run_command(name, workers, limit)
        ratios.append(wn / w1)
        print(f"| {name} | {len(a1)} | {w1:.1f} | {c1:.1f} | {wn:.1f} | {cn:.1f} | "
              f"{wn / w1:.2f} | {'yes' if a1 == an else 'NO'} | "
              f"{os.getloadavg()[0]:.1f} |", flush=True)
    print(f"\nratio of wall times, {workers} workers to 1: "
          f"{min(ratios):.2f} - {max(ratios):.2f} (target with 2: at most 0.55)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", help="which sets (default: every set in the corpus)")
    ap.add_argument("--limit", type=int, default=None, help="first N puzzles of each set")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="wall seconds per puzzle: only a guard, since on a shared machine a "
                         "puzzle of a few CPU seconds can take minutes of wall time")
    ap.add_argument("--budget", type=int, default=None,
                    help="work units per puzzle (deterministic cap; see solve(budget=))")
    ap.add_argument("--stages", action="store_true",
                    help="print where each set's solve CPU went, stage by stage")
    ap.add_argument("--answers", type=Path, default=None,
                    help="write every solve's verdict, technique and effort here (JSONL)")
    ap.add_argument("--workers", type=int, default=None,
                    help="time `nonoforge solve --workers N` against one worker instead")
    args = ap.parse_args()
    known = sets()
    for name in args.sets:
        if name not in known:
            ap.error(f"unknown set {name!r} (choose from {', '.join(known)})")
    if args.workers is not None:
        main_workers(args.sets or known, args.workers, args.limit)
        return
    t0 = time.perf_counter()
    compiled = warmup()
    print(f"nonoforge solver {SOLVER_VERSION}; compile/load of the kernels: "
          f"{compiled:.2f} s (not counted; first import {time.perf_counter() - t0:.2f} s); "
          f"load average {os.getloadavg()[0]:.1f}; CPU seconds per solve", flush=True)
    print(HEADER, flush=True)
    results = []
    stages = Stages() if args.stages else None
    with contextlib.ExitStack() as stack:
        answers = stack.enter_context(args.answers.open("w")) if args.answers else None
        for name in args.sets or known:
            r = run_set(name, args.limit, args.timeout, args.budget, stages, answers)
            results.append(r)
            print(_row(r), flush=True)
    total = SetResult("**all**", sum(r.puzzles for r in results),
                      sum(r.checked for r in results), sum(r.cpu for r in results),
                      sum(r.wall for r in results), sum(r.over1 for r in results),
                      sum(r.over5 for r in results), sum(r.over10 for r in results),
                      sum(r.timeouts for r in results),
                      sorted((s for r in results for s in r.slowest), reverse=True)[:5])
    print(_row(total))
    worst = max(results, key=lambda r: r.cpu)
    slowest = total.slowest[0][0] if total.slowest else 0.0
    print(f"\nslowest set: {worst.name} {worst.cpu:.1f} s CPU; "
          f"sets over 25 s: {sum(r.cpu >= 25 for r in results)}; "
          f"slowest puzzle {slowest:.2f} s; puzzles over 5 s: {total.over5}; "
          f"all sets {total.cpu / 60:.1f} min CPU")
    print("Targets (issue 39): every set < 25 s on one core, slowest puzzle < 2 s.")


if __name__ == "__main__":
    main()
