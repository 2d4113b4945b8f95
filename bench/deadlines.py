"""How promptly the solver stops at a wall-clock timeout: overshoot past the deadline.

Unit tests only check that a timeout is never early (and that nothing hangs); the
precision belongs here, where a busy machine can be seen for what it is. Prints, per
timeout, the overshoot of each run (wall) and the process CPU time it used.

    python bench/deadlines.py --runs 5
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from nonoforge.puzzle import Grid, Puzzle  # noqa: E402
from nonoforge.solver import solve, warmup  # noqa: E402
from nonoforge.solver.sat import solve_sat  # noqa: E402


def endless(n: int = 14) -> Puzzle:
    """One cell in every row and column: n! solutions, so counting them never ends."""
    return Puzzle.from_clues([[1]] * n, [[1]] * n)


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--timeouts", type=float, nargs="+", default=[0.3, 1.0])
    args = ap.parse_args()
    warmup()
    print("machine shared with other work: wall figures are noisy, CPU time is the guide")
    for timeout in args.timeouts:
        over, used = [], []
        for _ in range(args.runs):
            t0, c0 = time.monotonic(), cpu()
            res = solve(endless(), timeout=timeout, strategy="search", max_solutions=10**9)
            over.append(time.monotonic() - t0 - timeout)
            used.append(cpu() - c0)
            assert res.status == "timeout"
        print(f"solve timeout {timeout:.2f} s: overshoot median {statistics.median(over)*1e3:.1f}"
              f" ms, max {max(over)*1e3:.1f} ms ({100*max(over)/timeout:.1f} %); "
              f"CPU {statistics.median(used):.2f} s")
    hard = Puzzle.from_grid(Grid((np.random.default_rng(0).random((40, 40)) < 0.4).astype(int)))
    over = []
    for _ in range(args.runs):
        t0 = time.monotonic()
        solve_sat(hard, deadline=t0 + 1.0)
        over.append(time.monotonic() - t0 - 1.0)
    print(f"SAT deadline 1.00 s: overshoot median {statistics.median(over)*1e3:.1f} ms, "
          f"max {max(over)*1e3:.1f} ms")


if __name__ == "__main__":
    main()
