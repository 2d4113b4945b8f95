"""Rating throughput and score fit over the tournament sets and survey-free.

Prints puzzles per second with 1 and 2 workers (each the best of ``--repeat`` runs, the
two counts alternating, so that noise from the rest of the machine hits both alike), the
Spearman rho of the fitted score against measured time on held-out puzzles, and the grade
histogram. Reads ../shared.

    .venv/bin/python bench/rate.py [--limit N] [--timeout S] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from nonoforge.db import Corpus
from nonoforge.formats import read_file
from nonoforge.formats.tournament import read_with_solutions
from nonoforge.pipeline import jobs
from nonoforge.pipeline.rate import LocalExecutor, RateOptions

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"


def corpus(limit: int | None) -> list:
    puzzles = []
    for name in ("taai2011.txt", "tcga2016.txt"):
        puzzles += read_with_solutions(SHARED / "tournament" / "question" / name)[:limit]
    for f in sorted((SHARED / "survey-free").glob("*.non")):
        if f.stem not in ("knotty", "faase"):
            puzzles += read_file(f)
    return puzzles


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=int, default=None,
                    help="first N puzzles of each tournament set (default: all 1000)")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=1, help="runs per worker count (best kept)")
    args = ap.parse_args()
    if not SHARED.exists():
        print(f"{SHARED} is absent", file=sys.stderr)
        return 2
    puzzles = corpus(args.limit)
    print(f"{len(puzzles)} puzzles ({args.limit or 'all'} per tournament set + survey-free), "
          f"timeout {args.timeout} s, 3 timed runs each")
    speed = {1: 0.0, 2: 0.0}
    for run in range(1, max(1, args.repeat) + 1):
        for workers in (1, 2):
            with tempfile.TemporaryDirectory() as d, Corpus.open(os.path.join(d, "c.db")) as c:
                c.add(puzzles)
                t0 = time.perf_counter()
                s = jobs.rate_corpus(c, executor=LocalExecutor(workers),
                                     opts=RateOptions(timeout=args.timeout))
                dt = time.perf_counter() - t0
                speed[workers] = max(speed[workers], len(puzzles) / dt)
                summary = s.to_dict()
            print(f"run {run}, {workers} worker(s): {dt:.1f} s, "
                  f"{len(puzzles) / dt:.2f} puzzles/s")
    print(f"best: 1 worker {speed[1]:.2f} puzzles/s, 2 workers {speed[2]:.2f} puzzles/s")
    print(f"speed-up with 2 workers: {speed[2] / speed[1]:.2f}x (target >= 1.8x)")
    fit = summary["model_fit"]
    print(f"score fit: Spearman rho {fit.get('spearman_held_out', float('nan')):.3f} on "
          f"{fit.get('n_held_out')} held-out puzzles (train {fit.get('spearman_train', 0):.3f};"
          " target >= 0.9)")
    print(f"verdicts: {summary['verdicts']}")
    print(f"techniques: {summary['techniques']}")
    print("grades: " + ", ".join(f"{g}: {n}" for g, n in sorted(summary["grades"].items())))
    print(f"time: average {summary['time_avg_s']:.4f} s, median {summary['time_median_s']:.4f} s,"
          f" max {summary['time_max_s']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
