"""Benchmark: the human-like path's features on the shared corpora, against the engine.

For a sample of each shared corpus (survey-free, jwilk-nin, mikix-db, the tournament sets)
each puzzle up to ``--max-cells`` cells is walked by :func:`nonoforge.solver.human.explain_path`
and solved by the engine once. Printed per corpus: how the paths ended, the distribution of
steps, hardest technique, trial steps (two-line and contradiction), footholds and bottleneck,
and Spearman's rho of each feature
against the time-calibrated score (the shipped model's predicted seconds from the engine's
deterministic effort, as ``rate`` scores it; no timing needed) and against the engine's
line solves.

    nice .venv/bin/python bench/human.py [--per-corpus 25] [--max-cells 1600]

Times are CPU seconds of this process for the human paths.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Literal, TypedDict

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.errors import NonoforgeError  # noqa: E402
from nonoforge.formats import read_file  # noqa: E402
from nonoforge.pipeline.difficulty import features, human_score, spearman  # noqa: E402
from nonoforge.pipeline.rate import bundled_model  # noqa: E402
from nonoforge.puzzle import Puzzle  # noqa: E402
from nonoforge.solver import SOLVER_VERSION, solve  # noqa: E402
from nonoforge.solver.human import (  # noqa: E402
    LADDER,
    TRIAL_RUNGS,
    HumanOptions,
    explain_path,
)

SHARED = ROOT.parent / "shared" / "corpora"
CORPORA = {
    "survey-free": ("survey-free", "*.non"),
    "jwilk-nin": ("jwilk-nin", "*.nin"),
    "mikix-db": ("mikix-db", "**/*.non"),
    "tournament": ("tournament/question", "*.txt"),
}


def puzzles(name: str, most: int, max_cells: int) -> list[Puzzle]:
    """An evenly spread sample of up to ``most`` puzzles of a corpus, small enough."""
    folder, pattern = CORPORA[name]
    files = sorted((SHARED / folder).glob(pattern))
    found: list[Puzzle] = []
    for f in files:
        try:
            found += [p for p in read_file(f) if p.width * p.height <= max_cells]
        except NonoforgeError:
            continue
    step = max(1, len(found) // most)
    return found[::step][:most]


class Row(TypedDict):
    """One puzzle's human path and engine figures."""

    human_score: float
    trials: int
    stop: str
    steps: int
    hardest: int  # the hardest technique's rank, -1 for none
    hname: str  # its name, "-" for none
    footholds: int
    bottleneck: int
    score: float  # the shipped model's predicted seconds, or the engine's work
    lines: float  # the engine's line solves
    engine: str  # the engine's technique


#: The counts whose distribution is printed, and the features ranked against the engine.
Count = Literal["steps", "trials", "footholds", "bottleneck"]
COUNTS: tuple[Count, ...] = ("steps", "trials", "footholds", "bottleneck")
Ranked = Literal["steps", "hardest", "trials", "footholds", "bottleneck", "human_score"]
RANKED: tuple[Ranked, ...] = ("steps", "hardest", "trials", "footholds", "bottleneck",
                              "human_score")


def dist(values: list[int]) -> str:
    if not values:
        return "-"
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return f"min {min(values)} q1 {q[0]:.0f} median {q[1]:.0f} q3 {q[2]:.0f} max {max(values)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-corpus", type=int, default=25)
    ap.add_argument("--max-cells", type=int, default=1600)
    ap.add_argument("--probe-lines", type=int, default=50_000)
    args = ap.parse_args()
    model = bundled_model(SOLVER_VERSION)
    print(f"solver {SOLVER_VERSION}; score: "
          f"{'shipped model (predicted s)' if model else 'none shipped: effort work only'}")
    opts = HumanOptions(max_probe_lines=args.probe_lines)
    for name in CORPORA:
        if not (SHARED / CORPORA[name][0]).exists():
            print(f"\n{name}: absent")
            continue
        rows: list[Row] = []
        cpu = 0.0
        for p in puzzles(name, args.per_corpus, args.max_cells):
            try:
                res = solve(p)
            except NonoforgeError:
                continue
            t0 = time.process_time()
            path = explain_path(p, options=opts)
            cpu += time.process_time() - t0
            eff = dict(res.effort)
            score = (model.score(features(eff, p.width, p.height, p.ncolors)) if model
                     else float(eff.get("work", 0)))
            h = path.hardest
            undecided = int((np.bitwise_count(path.state) != 1).sum())
            rows.append({
                "human_score": human_score(path.summary(), undecided),
                "trials": sum(1 for s in path.steps if s.technique in TRIAL_RUNGS),
                "stop": path.stop.value, "steps": len(path.steps),
                "hardest": h.rank if h else -1, "hname": h.value if h else "-",
                "footholds": path.footholds, "bottleneck": path.bottleneck,
                "score": score, "lines": float(eff.get("line_solves", 0)),
                "engine": res.technique,
            })
        print(f"\n{name}: {len(rows)} puzzles (<= {args.max_cells} cells), human paths "
              f"{cpu:.1f} s CPU")
        if not rows:
            continue
        print("  ended:", dict(Counter(r["stop"] for r in rows)),
              " engine technique:", dict(Counter(r["engine"] for r in rows)))
        print("  hardest technique:", {t.value: n for t in LADDER
                                       if (n := sum(r["hname"] == t.value for r in rows))})
        for count in COUNTS:
            print(f"  {count:<10} {dist([r[count] for r in rows])}")
        if len(rows) >= 4:
            for feat in RANKED:
                a = [float(r[feat]) for r in rows]
                if len(set(a)) == 1:
                    print(f"  rho({feat}, ...) n/a: {a[0]:g} on every puzzle")
                    continue
                rs = spearman(a, [r["score"] for r in rows])
                rl = spearman(a, [r["lines"] for r in rows])
                print(f"  rho({feat}, score) {rs:+.2f}   rho({feat}, engine line solves) "
                      f"{rl:+.2f}")


if __name__ == "__main__":
    main()
