"""Benchmark: what ``nonoforge demo`` costs, run after run (the README's demo table).

Runs the demo (``.venv/bin/nonoforge demo``, as ``make demo`` does) ``--runs`` times into
one folder and prints, per run, the CPU seconds of the command and of every process it
started (the rating's workers), from ``getrusage(RUSAGE_CHILDREN)``, which counts a
process once it has been reaped; the wall seconds; and the load average before it, since
the machine is shared and the wall clock says more about the other work than about ours.
The first run into a fresh clone is the README's "first run"; the later ones its "later
run". The rating step's workers (``--workers``, default all cores) are part of the cost.

    nice .venv/bin/python bench/demo.py [--runs 2] [--workers N] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_once(out: Path, workers: int | None) -> tuple[float, float, float]:
    """One demo: (CPU seconds, the command and its processes, wall seconds, load)."""
    exe = Path(sys.executable).with_name("nonoforge")
    cmd = [str(exe) if exe.exists() else sys.executable, *([] if exe.exists() else
                                                          ["-m", "nonoforge"])]
    cmd += ["demo", "--out", str(out), *(["--workers", str(workers)] if workers else [])]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, load


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", type=Path, default=None,
                    help="the demo's folder [default: a fresh temporary one]")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="nonoforge-demo-") as tmp:
        out = args.out or Path(tmp) / "demo"
        print(f"nonoforge demo --out {out}"
              f"{f' --workers {args.workers}' if args.workers else ''}, {os.cpu_count()} cores")
        print("run  CPU s (with workers)  wall s  load before")
        for i in range(args.runs):
            cpu, wall, load = run_once(out, args.workers)
            print(f"{i + 1:>3}  {cpu:>20.1f}  {wall:>6.1f}  {load:>11.2f}", flush=True)


if __name__ == "__main__":
    main()
