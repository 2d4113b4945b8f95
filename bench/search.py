"""Benchmark: the engine's search options against each other, interleaved puzzle by puzzle.

Each puzzle is solved once under every configuration (in a rotating order, so that a
change in the machine's load falls on all of them alike) and every solution is checked
against the clues; CPU seconds per configuration are summed. A configuration sets how
``auto`` searches (``core.SEARCH_ONE`` / ``core.SEARCH_MANY``: probe records, score,
order) and how many nodes it searches before the SAT hand-over.

    .venv/bin/python bench/search.py tcga2022 --first 401 --count 150 \\
        --configs base,incr,incr-n50
    .venv/bin/python bench/search.py random30 --count 200 -n 2 \\
        --configs base,incr

Sets: a tournament set's name (``max_solutions`` 1 by default), ``random30`` (the seeded
puzzles of bench/random30.py), ``survey`` (survey-free, Knotty and Faase excluded).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.formats import read_file  # noqa: E402
from nonoforge.formats.tournament import read_with_solutions  # noqa: E402
from nonoforge.puzzle import Puzzle  # noqa: E402
from nonoforge.solver import core, solve, warmup  # noqa: E402
from nonoforge.solver.options import SearchOptions  # noqa: E402

TOURNAMENT = ROOT.parent / "shared" / "corpora" / "tournament"
SURVEY = ROOT.parent / "shared" / "corpora" / "survey-free"

#: name -> (engine options, nodes before SAT: None = the default rule)
CONFIGS: dict[str, tuple[dict[str, Any], int | None]] = {
    "base": ({}, None),
    "incr": ({"incremental": True}, None),
    "lala": ({"incremental": True, "score": 4, "order": 0}, None),
}
for _n in (10, 20, 50, 100, 200, 500, 1000, 3000, 10**9):
    _n_name = "inf" if _n == 10**9 else _n
    CONFIGS[f"incr-n{_n_name}"] = ({"incremental": True}, _n)
    CONFIGS[f"lala-n{_n_name}"] = ({"incremental": True, "score": 4, "order": 0}, _n)


def puzzles(name: str, first: int, count: int, size: int = 30) -> list[tuple[str, Puzzle]]:
    if name == "random30":
        sys.path.insert(0, str(ROOT / "bench"))
        from random30 import puzzle

        return [(f"#{i}", puzzle(i, size, 0.5)) for i in range(first, first + count)]
    if name == "survey":
        files = sorted(SURVEY.glob("*.non"))
        return [(f.stem, read_file(f)[0]) for f in files if f.stem not in ("knotty", "faase")]
    if name in ("knotty", "faase"):
        return [(name, read_file(SURVEY / f"{name}.non")[0])]
    ps = read_with_solutions(TOURNAMENT / "question" / f"{name}.txt",
                             TOURNAMENT / "solution" / f"{name}.txt")
    return [(f"${i}", ps[i - 1]) for i in range(first, min(first + count, len(ps) + 1))]


def configure(name: str, ms: int) -> None:
    options, nodes = CONFIGS[name]
    core.SEARCH_ONE = SearchOptions(**options) if ms == 1 else SearchOptions(incremental=True)
    core.SEARCH_MANY = SearchOptions(**options) if ms >= 2 else SearchOptions()
    core.AUTO_FIRST_NODES = nodes if nodes is not None and ms == 1 else 0
    core.AUTO_MIN_NODES = nodes if nodes is not None and ms >= 2 else 50
    core.AUTO_NODE_WORK = 0 if nodes is not None else 30_000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--size", type=int, default=30, help="side of the random puzzles")
    ap.add_argument("--only", default=None, help="comma-separated puzzle numbers of the set")
    ap.add_argument("-n", "--max-solutions", type=int, default=None)
    ap.add_argument("--configs", default="base,incr")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    ms = args.max_solutions or (1 if args.set not in ("random30", "survey", "knotty",
                                                     "faase") else 2)
    names = args.configs.split(",")
    for n in names:
        if n not in CONFIGS:
            ap.error(f"unknown config {n!r}")
    warmup()
    todo = puzzles(args.set, args.first, args.count, args.size)
    if args.only:
        keep = {f"${i}" for i in args.only.split(",")} | {f"#{i}" for i in args.only.split(",")}
        todo = [t for t in todo if t[0] in keep]
    print(f"{args.set}: {len(todo)} puzzles, max_solutions={ms}, load average "
          f"{os.getloadavg()[0]:.1f}; CPU seconds", flush=True)
    cpu = {n: 0.0 for n in names}
    worst = {n: (0.0, "") for n in names}
    verdicts: dict[str, dict[str, int]] = {n: {} for n in names}
    effort: dict[str, dict[str, int]] = {n: {} for n in names}
    for k, (label, p) in enumerate(todo):
        order = names[k % len(names):] + names[:k % len(names)]
        seen = {}
        for n in order:
            configure(n, ms)
            c0 = time.process_time()
            res = solve(p, max_solutions=ms, timeout=args.timeout)
            t = time.process_time() - c0
            if not all(g.matches(p) for g in res.solutions):
                sys.exit(f"{label} {n}: a solution breaks the clues")
            cpu[n] += t
            if t > worst[n][0]:
                worst[n] = (t, label)
            verdicts[n][res.status] = verdicts[n].get(res.status, 0) + 1
            for key in ("nodes", "probes", "line_solves", "cache_hits", "sat_conflicts",
                        "work"):
                effort[n][key] = effort[n].get(key, 0) + res.effort.get(key, 0)
            seen[n] = (res.status, t, res.effort.get("nodes", 0),
                       res.effort.get("sat_conflicts", 0))
        stat = {s for s, _, _, _ in seen.values() if s not in ("timeout", "unsolved", "found")}
        if len(stat) > 1:
            print(f"  {label}: VERDICTS DIFFER {seen}", flush=True)
        if args.verbose:
            print(f"  {label}: " + "  ".join(f"{n} {s} {t:.3f}s n{nd} c{c}"
                                             for n, (s, t, nd, c) in seen.items()), flush=True)
    for n in names:
        e = effort[n]
        print(f"{n:>18}: {cpu[n]:8.2f} s  slowest {worst[n][0]:.2f} {worst[n][1]:<6} "
              f"{verdicts[n]}  nodes {e.get('nodes', 0)} probes {e.get('probes', 0)} "
              f"lines {e.get('line_solves', 0)} hits {e.get('cache_hits', 0)} "
              f"confl {e.get('sat_conflicts', 0)}", flush=True)


if __name__ == "__main__":
    main()
