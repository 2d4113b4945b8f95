"""Benchmark: the computer-nonogram tournament sets (TAAI 2011, TCGA 2016).

Each set is 1000 random 25x25 puzzles. Tournaments ask for one solution, so every puzzle
is solved with ``max_solutions=1`` and the solution is checked against the clues (a set's
solution file holds one picture per puzzle; a puzzle may have others, so a different but
valid picture counts as solved). Prints the total time, a histogram and the 10 slowest.

    .venv/bin/python bench/tournament.py                 # both sets
    .venv/bin/python bench/tournament.py taai2011 --limit 100 --timeout 20

Compile time (numba, first call) is measured and printed separately, never counted.
Run on one core: the solver itself is single-threaded.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.puzzle import Grid, Puzzle  # noqa: E402
from nonoforge.solver import SOLVER_VERSION, solve, warmup  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "tournament"
SETS = ("taai2011", "tcga2016")


def _inline_read(question: Path, solution: Path) -> list[Puzzle]:
    """The simple tournament layout, read here when the format module is unavailable."""

    def blocks(text: str) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        cur: list[str] = []
        for line in text.splitlines():
            m = re.match(r"\s*\$\s*(\d+)", line)
            if m:
                cur = out.setdefault(int(m.group(1)), [])
            else:
                cur.append(line)
        return out

    qs, ss = blocks(question.read_text()), blocks(solution.read_text())
    puzzles = []
    for n, body in sorted(qs.items()):
        lines = body[:50]
        clue = [[int(t) for t in ln.split() if t != "0"] for ln in lines]
        goal = Grid([[int(t) for t in ln.split()] for ln in ss[n] if ln.strip()])
        puzzles.append(Puzzle.from_clues(clue[25:], clue[:25], goal=goal))
    return puzzles


def load(name: str) -> list[Puzzle]:
    q, s = CORPUS / "question" / f"{name}.txt", CORPUS / "solution" / f"{name}.txt"
    try:
        from nonoforge.formats.tournament import read_with_solutions

        return read_with_solutions(q, s)
    except ImportError:
        return _inline_read(q, s)


def run_set(name: str, limit: int | None, timeout: float) -> dict[str, float]:
    puzzles = load(name)[:limit]
    times: list[tuple[float, int, str, int]] = []
    failed = 0
    t_all = time.perf_counter()
    for i, p in enumerate(puzzles, start=1):
        res = solve(p, max_solutions=1, timeout=timeout)
        ok = bool(res.solutions) and res.solutions[0].matches(p)
        failed += not ok
        times.append((res.time_s, i, res.status if ok else f"FAILED {res.status}",
                      res.effort["nodes"]))
    total = time.perf_counter() - t_all
    solve_total = sum(t for t, *_ in times)
    buckets = [0.01, 0.1, 1.0, 10.0, float("inf")]
    counts = [0] * len(buckets)
    for t, *_ in times:
        counts[next(i for i, b in enumerate(buckets) if t < b)] += 1
    print(f"\n== {name}: {len(puzzles)} puzzles, {len(puzzles) - failed} solved and checked, "
          f"{failed} failed")
    print(f"total {total:.2f} s wall (solve time {solve_total:.2f} s), "
          f"mean {solve_total / max(len(puzzles), 1) * 1000:.1f} ms")
    print("histogram: " + ", ".join(
        f"< {b:g} s: {c}" if b != float("inf") else f">= 10 s: {c}"
        for b, c in zip(buckets, counts, strict=True)))
    print("10 slowest (seconds, puzzle number, verdict, search nodes):")
    for t, i, status, nodes in sorted(times, reverse=True)[:10]:
        print(f"  ${i:<5} {t:8.3f} s  {status:<10} {nodes:>8} nodes")
    return {"total": total, "failed": failed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", help=f"which sets (default: {' '.join(SETS)})")
    ap.add_argument("--limit", type=int, default=None, help="first N puzzles of each set")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per puzzle")
    args = ap.parse_args()
    for name in args.sets:
        if name not in SETS:
            ap.error(f"unknown set {name!r} (choose from {', '.join(SETS)})")
    t0 = time.perf_counter()
    compiled = warmup()
    print(f"nonoforge solver {SOLVER_VERSION}; compile/load of the kernels: "
          f"{compiled:.2f} s (not counted; first import {time.perf_counter() - t0:.2f} s)")
    for name in args.sets or SETS:
        run_set(name, args.limit, args.timeout)


if __name__ == "__main__":
    main()
