"""Benchmark: Wolter's survey puzzles (the freely redistributable part, ``survey-free/``).

Each puzzle is solved with the default ``auto`` strategy and ``max_solutions=2`` (find a
solution *and* prove it unique, or find a second one, as the survey asks), checked against
the clues, its verdict against the known one (:data:`EXPECTED`) and its goal picture,
and printed with its verdict, technique, the main effort counts and its time, beside the
published figures (``../shared/ANCHORS.md``: seconds on the survey's machine, and CPU
seconds of pbnsolve / nonogrid on a machine of our kind).

    .venv/bin/python bench/survey.py [--timeout 60] [--repeat 3] [--only faase,knotty]

Times are CPU seconds of this process (``time.process_time``: the machine is shared, and
wall time would count the others' work), the best of ``--repeat`` runs (the effort counts
are identical every run).
Knotty and Faase, which no surveyed solver finished, get ``--timeout`` seconds.
Compile time is printed separately and never counted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.formats import read_file  # noqa: E402
from nonoforge.solver import SOLVER_VERSION, solve, warmup  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "survey-free"

#: webpbn id -> (name, Wu, JSolver, pbnsolve, Olšák, Tamura) seconds from the survey table
#: ("+" = did not finish), then (pbnsolve 1.10, nonogrid 0.7.3) CPU seconds on our kind
#: of machine. From ../shared/ANCHORS.md.
PUBLISHED: dict[str, tuple[str, str, str]] = {
    "webpbn-00001": ("Dancer", "0 / 0 / 0 / 0 / 0.92", "0.00 / 0.00"),
    "webpbn-00006": ("Cat", "0 / 0 / 0 / 0 / 4.0", "0.00 / 0.00"),
    "webpbn-00016": ("Knot", "0 / 0 / 0 / 0 / 9.7", "0.00 / 0.00"),
    "webpbn-00021": ("Skid", "0 / 0 / 0 / 0 / 4.1", "0.00 / 0.00"),
    "webpbn-00023": ("Edge", "0 / 0 / 0 / 0 / 1.3", "0.00 / 0.00"),
    "webpbn-00027": ("Bucks", "0 / 0 / 0 / 0 / 6.2", "0.00 / 0.00"),
    "webpbn-00065": ("Mum", "0 / 0.01 / 0.01 / 0 / 9.5", "0.00 / 0.00"),
    "webpbn-00436": ("Petro", "0.01 / 0.04 / 0.06 / 15.2 / 8.3", "0.02 / 0.00"),
    "webpbn-00529": ("Swing", "0 / 0 / 0 / 0 / 10.3", "0.00 / 0.00"),
    "webpbn-00803": ("Light", "0.20 / 0.19 / 0.38 / + / 8.4", "0.08 / 0.01"),
    "webpbn-01611": ("Merka", "0.02 / 0.01 / 0.01 / 0.01 / 15.5", "0.00 / 0.00"),
    "webpbn-06574": ("Forever", "0.34 / 13.9 / 3.7 / 2.0 / 6.4", "0.89 / 1.98"),
    "knotty": ("Knotty", "+ / + / + / + / +", "timeout / timeout"),
    "faase": ("Faase", "+ / + / + / + / +", "timeout / timeout"),
}


#: The verdict each puzzle must get: every one is unique but Knotty and Faase, which have
#: several solutions. Checked against our clues with nonosolve's published solution files
#: (hyouv/FastNonogramSolver, solutions/): knotty-2.txt fits Knotty's clues and differs
#: from its goal in 14 cells; faase-1.txt fits Faase's and differs from its goal in 1,188
#: cells (faase-2.txt, 4 cells from faase-1.txt, is a third). nonosolve's own results
#: (results/webpbn.csv) say MULTIPLE for both.
EXPECTED = {"knotty": "multiple", "faase": "multiple"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds for Knotty, Faase")
    ap.add_argument("--repeat", type=int, default=3, help="best time of this many runs")
    ap.add_argument("--only", default="", help="file stems to run, comma-separated "
                    "(e.g. faase,knotty); all by default")
    ap.add_argument("--no-proof-phases", action="store_true",
                    help="no belief-propagation phases for the SAT hand-over of two-solution "
                    "solves (sat.PROOF_PHASES, on since solver 1.3): how solver 1.2's hints "
                    "left Knotty and Faase")
    args = ap.parse_args()
    if args.no_proof_phases:
        from nonoforge.solver import sat

        sat.PROOF_PHASES = False
    only = {x for x in args.only.split(",") if x}
    if not CORPUS.exists():
        sys.exit(f"{CORPUS} is absent")
    t0 = time.perf_counter()
    compiled = warmup()
    print(f"nonoforge solver {SOLVER_VERSION}; compile/load of the kernels {compiled:.2f} s "
          f"(not counted; import + load {time.perf_counter() - t0:.2f} s)")
    head = (f"{'puzzle':<14}{'size':>7}  {'verdict':<8} {'goal':<4} {'technique':<9} "
            f"{'CPU s':>8} {'lines':>9} {'hits':>9} {'probes':>8} {'nodes':>6} {'sat confl':>9}"
            f"  | survey: Wu / JSolver / pbnsolve / Olšák / Tamura | pbnsolve / nonogrid")
    print(head)
    worst = 0.0
    for path in sorted(CORPUS.glob("*.non")):
        if only and path.stem not in only:
            continue
        p = read_file(path)[0]
        hard = path.stem in ("knotty", "faase")
        best = float("inf")
        res = None
        for _ in range(1 if hard else args.repeat):
            c0 = time.process_time()
            res = solve(p, timeout=args.timeout if hard else 60.0)
            best = min(best, time.process_time() - c0)
            if res.solutions and not all(g.matches(p) for g in res.solutions):
                sys.exit(f"{path.name}: a solution breaks the clues")
        assert res is not None
        goal = "ok" if p.goal is not None and p.goal in res.solutions else "-"
        if res.status in ("unique", "multiple", "none") and \
                res.status != EXPECTED.get(path.stem, "unique"):
            sys.exit(f"{path.name}: verdict {res.status}, expected "
                     f"{EXPECTED.get(path.stem, 'unique')}")
        if not hard:
            worst = max(worst, best)
        e = res.effort
        name, survey, ours = PUBLISHED.get(path.stem, (path.stem, "", ""))
        print(f"{name:<14}{p.width:>3}x{p.height:<3}  {res.status:<8} {goal:<4} "
              f"{res.technique:<9} {best:>8.4f} {e.get('line_solves', 0):>9} "
              f"{e.get('cache_hits', 0):>9} {e.get('probes', 0):>8} {e.get('nodes', 0):>6} "
              f"{e.get('sat_conflicts', 0):>9}  | {survey} | {ours}", flush=True)
    print(f"slowest of the survey set without Knotty and Faase: {worst:.4f} s CPU "
          "(target < 0.1 s; Knotty < 10 s, Faase < 30 s: both have several solutions)")


if __name__ == "__main__":
    main()
