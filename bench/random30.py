"""Benchmark: seeded random 30x30 puzzles at 50 % density, each proven unique or shown multiple.

Like the 5,000 random 30x30 puzzles of Wolter's survey: every cell is black with
probability 0.5 (puzzle ``i`` drawn from ``numpy.random.default_rng(seed + i)``), and each
is solved with ``max_solutions=2``, so the verdict carries a proof (unique) or two
different pictures (multiple). Every solution is checked against the clues, and a unique
verdict must give back the drawn picture.

    .venv/bin/python bench/random30.py                 # 1,000 puzzles, seed 0
    .venv/bin/python bench/random30.py --count 200 --size 25 --density 0.4

Times are CPU seconds of this process per solve (the machine is shared). Compile time is
printed separately, never counted. Targets (issue 15): slowest < 2 s, total < 60 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.puzzle import Grid, Puzzle  # noqa: E402
from nonoforge.solver import SOLVER_VERSION, solve, warmup  # noqa: E402


def puzzle(seed: int, size: int, density: float) -> Puzzle:
    """Puzzle ``seed``: a random picture (never an empty one) and its clues."""
    rng = np.random.default_rng(seed)
    cells = (rng.random((size, size)) < density).astype(np.uint8)
    if not cells.any():
        cells[0, 0] = 1
    return Puzzle.from_grid(Grid(cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=30)
    ap.add_argument("--density", type=float, default=0.5)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per puzzle")
    args = ap.parse_args()
    compiled = warmup()
    print(f"nonoforge solver {SOLVER_VERSION}; kernels loaded in {compiled:.2f} s (not "
          f"counted); {args.count} puzzles {args.size}x{args.size} at density "
          f"{args.density}, seeds {args.seed}..{args.seed + args.count - 1}; load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    verdicts: Counter[str] = Counter()
    times: list[tuple[float, int, str]] = []
    bad = 0
    sat = 0
    for i in range(args.seed, args.seed + args.count):
        p = puzzle(i, args.size, args.density)
        c0 = time.process_time()
        res = solve(p, max_solutions=2, timeout=args.timeout)
        cpu = time.process_time() - c0
        ok = all(g.matches(p) for g in res.solutions)
        if res.status == "unique":
            ok = ok and res.solutions == [p.goal]
        elif res.status == "multiple":
            ok = ok and len(res.solutions) == 2 and res.solutions[0] != res.solutions[1]
        else:
            ok = False
        bad += not ok
        if not ok:
            print(f"  seed {i}: {res.status} NOT PROVEN OR WRONG", flush=True)
        verdicts[res.status] += 1
        sat += "sat_conflicts" in res.effort
        times.append((cpu, i, res.status))
    cpus = sorted(t for t, _, _ in times)
    total = sum(cpus)
    print(f"verdicts: {dict(verdicts)}; checked: {len(times) - bad} / {len(times)}; "
          f"reached SAT: {sat}")
    print(f"total {total:.1f} s CPU, mean {total / len(cpus) * 1000:.1f} ms, median "
          f"{cpus[len(cpus) // 2] * 1000:.1f} ms, 99th percentile "
          f"{cpus[int(len(cpus) * 0.99) - 1]:.2f} s, slowest {cpus[-1]:.2f} s")
    over = [sum(t >= x for t in cpus) for x in (0.1, 1, 2)]
    print(f"over 0.1 s: {over[0]}, over 1 s: {over[1]}, over 2 s: {over[2]}")
    print("10 slowest (CPU s, seed, verdict): " + ", ".join(
        f"{t:.2f} #{i} {s}" for t, i, s in sorted(times, reverse=True)[:10]))
    print("Targets: slowest < 2 s, total < 60 s.")


if __name__ == "__main__":
    main()
