"""Benchmark: ``nonoforge solve --workers N`` against one worker on tournament sets (issue 39).

Issue 39's target: with ``--workers 2`` a set's wall time is at most 0.55 of one worker's.
Each round runs the command (one process, as a user runs it, start-up included) on a set
with one worker, then with N, back to back, so that both meet the same load; rounds are
repeated and the medians printed. Beside the wall seconds it prints the CPU seconds of the
command's own process (reading the set, handing out puzzles, printing) and of its workers
apart: the machine is shared, and CPU is what the others' load does not hide. Each run's
answers (every field but ``time_s``) are compared with the first one-worker run's.

    .venv/bin/python bench/solve_workers.py taai2011 tcga2016 --rounds 3
    .venv/bin/python bench/solve_workers.py tcga2022 --workers 2 --limit 200

Run it with ``nice`` on a quiet machine; the load average is printed beside each round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "tournament" / "question"

#: The command, run so that it reports its own CPU and its workers' on stderr as it ends
#: (its atexit hooks run after the pool has reaped the workers).
WRAPPER = """
import atexit, resource, sys
def _report():
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write(f"\\nBENCH-CPU {s.ru_utime + s.ru_stime} {c.ru_utime + c.ru_stime}\\n")
atexit.register(_report)
sys.argv = ["nonoforge", *sys.argv[1:]]
from nonoforge.cli import main
main()
"""


def set_path(name: str, limit: int | None) -> Path:
    """The set's file, or a file of its first ``limit`` puzzles ("$N" starts puzzle N)."""
    path = CORPUS / f"{name}.txt"
    if limit is None:
        return path
    text = path.read_text()
    cut = text.find(f"${limit + 1}\n")
    out = Path(tempfile.gettempdir()) / f"nonoforge-bench-{name}-{limit}.txt"
    out.write_text(text if cut < 0 else text[:cut])
    return out


def run(path: Path, workers: int) -> tuple[float, float, float, list]:
    """One ``solve --max-solutions 1 --json`` run: wall s, the command's CPU s, its
    workers' CPU s, and the answers without their times."""
    cmd = [sys.executable, "-c", WRAPPER, "-q", "solve", "--max-solutions", "1", "--json",
           "--workers", str(workers), str(path)]
    w0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - w0
    if done.returncode != 0:
        sys.exit(f"{path.name}: solve --workers {workers} exited {done.returncode}: "
                 f"{done.stderr[-500:]}")
    line = [x for x in done.stderr.splitlines() if x.startswith("BENCH-CPU ")][-1]
    own, children = (float(x) for x in line.split()[1:])
    answers = [{k: v for k, v in a.items() if k != "time_s"} for a in json.loads(done.stdout)]
    return wall, own, children, answers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", help="tournament sets, e.g. taai2011 tcga2016")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3, help="one-worker/N-worker pairs per set")
    ap.add_argument("--limit", type=int, default=None, help="first N puzzles of each set")
    args = ap.parse_args()
    n = args.workers
    print(f"solve --max-solutions 1 --json, {os.cpu_count()} cores; wall s, CPU s of the "
          f"command and of its workers; medians of {args.rounds} interleaved rounds")
    print(f"| set | 1 worker wall | CPU | {n} workers wall | command CPU | workers CPU | "
          "ratio (median, range) | same answers | load avg |")
    print("|---|---:|---:|---:|---:|---:|---|---|---|")
    for name in args.sets:
        path = set_path(name, args.limit)
        one: list[tuple[float, float]] = []
        many: list[tuple[float, float, float]] = []
        ratios: list[float] = []
        loads: list[float] = []
        same = True
        reference = None
        for _ in range(args.rounds):
            w1, c1, _, a1 = run(path, 1)
            wn, cn, kn, an = run(path, n)
            reference = a1 if reference is None else reference
            same = same and a1 == reference and an == reference
            one.append((w1, c1))
            many.append((wn, cn, kn))
            ratios.append(wn / w1)
            loads.append(os.getloadavg()[0])
            print(f"  {name}: 1 worker {w1:.2f} s wall ({c1:.2f} CPU), {n} workers {wn:.2f} s "
                  f"wall ({cn:.2f} + {kn:.2f} CPU), ratio {wn / w1:.3f}, load "
                  f"{loads[-1]:.1f}", file=sys.stderr, flush=True)

        def med(xs: list[float]) -> float:
            return statistics.median(xs)

        print(f"| {name} | {med([w for w, _ in one]):.2f} | {med([c for _, c in one]):.2f} | "
              f"{med([w for w, _, _ in many]):.2f} | {med([c for _, c, _ in many]):.2f} | "
              f"{med([k for _, _, k in many]):.2f} | {med(ratios):.3f} ({min(ratios):.3f}-"
              f"{max(ratios):.3f}) | {'yes' if same else 'NO'} | "
              f"{min(loads):.1f}-{max(loads):.1f} |", flush=True)


if __name__ == "__main__":
    main()
