"""Benchmark: what the human features add to ``rate``, and how their scores spread.

For the bundled examples and an evenly spread sample of the tournament sets (TAAI 2011,
TCGA 2016, ``../shared/corpora/tournament``), each puzzle is solved once by the engine (as
one timed run of ``rate`` does) and given its human features
(:func:`nonoforge.pipeline.rate.human_fields`, bounded by ``HUMAN_PROBE_LINES``). Printed:
the CPU seconds of each per puzzle (median, mean, max), the added share, how the paths
ended, and the human-effort scores and grades (the figures docs/difficulty.md quotes).

    nice .venv/bin/python bench/human_rate.py [--sample 40]

CPU time of this thread (``time.thread_time``): the machine is shared.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.examples import example_path, list_examples  # noqa: E402
from nonoforge.formats import read_file  # noqa: E402
from nonoforge.pipeline.rate import human_fields  # noqa: E402
from nonoforge.puzzle import Puzzle  # noqa: E402
from nonoforge.solver import solve, warmup  # noqa: E402

TOURNAMENT = ROOT.parent / "shared" / "corpora" / "tournament" / "question"


def examples() -> list[tuple[str, Puzzle]]:
    out = []
    for e in list_examples():
        if e.kind == "image":
            continue
        out += [(e.name, p) for p in read_file(example_path(e.name))]
    return out


def tournament(most: int) -> list[tuple[str, Puzzle]]:
    found = [(f.name, p) for f in sorted(TOURNAMENT.glob("*.txt")) for p in read_file(f)]
    step = max(1, len(found) // most)
    return found[::step][:most]


def measure(name: str, items: list[tuple[str, Puzzle]]) -> None:
    solve_s: list[float] = []
    human_s: list[float] = []
    stops: Counter[str | None] = Counter()  # how the paths ended (None: no path)
    grades: Counter[int | None] = Counter()  # None: no human grade
    scores: list[float] = []
    for _, p in items:
        t0 = time.thread_time()
        res = solve(p, max_solutions=2, budget=20_000_000)
        t1 = time.thread_time()
        h = human_fields(p, res.status.value)
        t2 = time.thread_time()
        solve_s.append(t1 - t0)
        human_s.append(t2 - t1)
        stops[(h["human"] or {}).get("stop")] += 1
        grades[h["human_grade"]] += 1
        if h["human_score"] is not None:
            scores.append(h["human_score"])
    print(f"\n{name}: {len(items)} puzzles")
    for label, xs in (("engine solve (one run)", solve_s), ("human features", human_s)):
        print(f"  {label:24s} CPU s: median {statistics.median(xs):.4f}  "
              f"mean {statistics.fmean(xs):.4f}  max {max(xs):.3f}")
    print(f"  human / one solve, summed: {sum(human_s) / max(sum(solve_s), 1e-9):.2f}x")
    print(f"  stops: {dict(stops)}")
    if scores:
        q = statistics.quantiles(scores, n=5) if len(scores) >= 5 else scores
        print(f"  human scores: min {min(scores):.1f}  quintile cuts "
              f"{', '.join(f'{x:.1f}' for x in q)}  max {max(scores):.1f}")
    print(f"  human grades: {dict(sorted(grades.items(), key=lambda kv: str(kv[0])))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=40, help="tournament puzzles")
    args = ap.parse_args()
    warmup()
    measure("bundled examples", examples())
    if TOURNAMENT.is_dir():
        measure("tournament sample", tournament(args.sample))
    else:
        print(f"\n(no tournament sets at {TOURNAMENT})")


if __name__ == "__main__":
    main()
