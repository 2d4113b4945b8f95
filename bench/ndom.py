"""Benchmark: Wolter's n-Dom family, puzzles built to defeat backtracking solvers.

Jan Wolter used a puzzle by Josh Greifer, 9-Dom (webpbn #8098, in his survey), and its
siblings to test solvers (https://webpbn.com/survey/dom.html). n-Dom is a (2n+1)-square
staircase of n "dominoes", each a horizontal bar of three cells in row 2k (columns
2n-2-2k .. 2n-2k) whose right end touches a vertical bar of three cells in column 2n-2k
(rows 2k .. 2k+2), for k = 0 .. n-1. Its clues are tiny and regular::

    rows     [3], then [3, 1] and [1] alternately, the last [1]
    columns  [1], then [1] and [1, 3] alternately, the last [3]

Line logic decides almost nothing (every line has room to slide), and every probe of a
cell settles only its neighbourhood, so a solver that guesses cell by cell meets about
2^n branches, and CDCL too (the proof is a count, a pigeonhole). Since solver 1.4 the
parity-summing rung decides them with no search (``by sum``: the cells it narrowed;
docs/notes/ndom.md).
:func:`ndom` writes the puzzle for any n (our own construction from that description; its
clues match the 4-Dom and 9-Dom files of paulstansifer/number-loom's ``examples/dom``), with
its picture as the goal.

Prints, for each n, the verdict, the technique, the effort counts, and the CPU seconds of
the solve (``time.process_time``; the machine is shared), against the issue-39 targets.
A solve is capped by a deterministic work ``--budget`` (status ``budget``) and a wall
``--timeout`` guard, so the large n end in bounded time whatever the solver does.

    .venv/bin/python bench/ndom.py                     # n = 9, 12, 15, 20, 30, 50
    .venv/bin/python bench/ndom.py 9 10 11 12 --budget 0
    .venv/bin/python bench/ndom.py 20 --write 20-dom.non   # the puzzle as a file
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.puzzle import Grid, Meta, Puzzle  # noqa: E402

#: Issue 39's targets, CPU seconds, each solve proving uniqueness.
TARGETS = {20: 1.0, 30: 5.0, 50: 60.0}


def ndom_grid(n: int) -> Grid:
    """n-Dom's picture: the staircase of n dominoes on a (2n+1)-square grid."""
    if n < 1:
        raise ValueError("n-Dom needs n >= 1")
    side = 2 * n + 1
    cells = [[0] * side for _ in range(side)]
    for k in range(n):
        for c in range(2 * n - 2 - 2 * k, 2 * n - 2 * k + 1):  # the horizontal bar
            cells[2 * k][c] = 1
        for r in range(2 * k, 2 * k + 3):  # the vertical bar it touches
            cells[r][2 * n - 2 * k] = 1
    return Grid(cells)


def ndom(n: int) -> Puzzle:
    """Wolter's n-Dom as a puzzle (goal included), checked against its closed-form clues."""
    p = Puzzle.from_grid(ndom_grid(n), meta=Meta(title=f"{n}-Dom"))
    side = 2 * n + 1
    rows = [[3]] + [[3, 1] if i % 2 == 0 else [1] for i in range(1, side - 1)] + [[1]]
    cols = [[1]] + [[1, 3] if j % 2 == 0 else [1] for j in range(1, side - 1)] + [[3]]
    assert [[b.length for b in c] for c in p.rows] == rows, "row clues off the pattern"
    assert [[b.length for b in c] for c in p.columns] == cols, "column clues off the pattern"
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[9, 12, 15, 20, 30, 50],
                    help="which n (default: 9 12 15 20 30 50)")
    ap.add_argument("--budget", type=int, default=200_000_000,
                    help="work units per solve (deterministic cap; 0 for none) "
                         "[default: 200000000: 1-2 minutes on n-Dom]")
    ap.add_argument("--timeout", type=float, default=900.0,
                    help="wall seconds per solve: only a guard on a shared machine")
    ap.add_argument("--strategy", default="auto", help="solver strategy (default auto)")
    ap.add_argument("--write", metavar="FILE", help="write the (last) puzzle to FILE and stop")
    args = ap.parse_args()
    if args.write:
        from nonoforge.formats import write_file

        write_file([ndom(args.sizes[-1])], args.write)
        print(f"wrote {args.sizes[-1]}-Dom to {args.write}")
        return
    from nonoforge.solver import SOLVER_VERSION, solve, warmup

    t0 = time.perf_counter()
    compiled = warmup()
    print(f"nonoforge solver {SOLVER_VERSION}; compile/load of the kernels {compiled:.2f} s "
          f"(not counted; import + load {time.perf_counter() - t0:.2f} s); load average "
          f"{os.getloadavg()[0]:.1f}; CPU seconds per solve, max_solutions=2")
    print(f"{'n':>3} {'size':>7}  {'verdict':<8} {'goal':<4} {'technique':<9} {'CPU s':>8} "
          f"{'work':>11} {'lines':>10} {'probes':>9} {'nodes':>7} {'sat confl':>9} "
          f"{'by sum':>7}  target")
    for n in args.sizes:
        p = ndom(n)
        c0 = time.process_time()
        res = solve(p, max_solutions=2, timeout=args.timeout, strategy=args.strategy,
                    budget=args.budget or None)
        cpu = time.process_time() - c0
        if res.solutions and not all(g.matches(p) for g in res.solutions):
            sys.exit(f"{n}-Dom: a solution breaks the clues")
        goal = "ok" if p.goal in res.solutions else "-"
        e = res.effort
        target = TARGETS.get(n)
        met = "" if target is None else (
            f"< {target:g} s: {'met' if res.status == 'unique' and cpu < target else 'missed'}")
        print(f"{n:>3} {p.width:>3}x{p.height:<3}  {res.status:<8} {goal:<4} "
              f"{res.technique:<9} {cpu:>8.3f} {e.get('work', 0):>11} "
              f"{e.get('line_solves', 0):>10} {e.get('probes', 0):>9} {e.get('nodes', 0):>7} "
              f"{e.get('sat_conflicts', 0):>9} {e.get('cells_by_sum', 0):>7}  {met}", flush=True)


if __name__ == "__main__":
    main()
