"""Grade histograms per corpus: the grades before issue 37 and now, side by side.

Each puzzle is solved once the way ``nonoforge rate`` solves it (the same work budget and
solution limit; only the wall-clock safety net is shorter, ``--timeout``) and its verdict,
technique and effort are kept in ``--cache`` (default: ``nonoforge-grades-<solver
version>.json`` in the temporary folder, outside the repository, since it holds what the
webpbn puzzles gave), so a second run (another grading rule, more corpora) solves only what
is new. No time is measured: the score and both grades are pure functions of the effort.

- *before*: the rule shipped up to issue 37: the ranking of ``(technique rung, score)``
  cut at the 1.3 model's quintile cut-points (a puzzle that needs one probe outranks every
  puzzle solved line by line) and ``multiple`` graded like ``unique``;
- *now*: :meth:`nonoforge.pipeline.difficulty.Model.grade` of the shipped model.

Corpora (from ../shared/corpora): survey-free, jwilk-nin, mikix-db, the tournament sets
(``--tournament N`` puzzles of each of the 27 sets, chosen by key: 40 each took 80 CPU s,
all 27,000 would take about half an hour), and with ``--webpbn DIR`` the 6,746 webpbn puzzles of
github:Storyyeller/griddler-solver (``oldstuff/python/scraper/results``; local use only,
never committed), ``--webpbn-sample N`` of them (chosen by key) or all.

    nice .venv/bin/python bench/grades.py --tournament 40 \\
        --webpbn /tmp/griddler-solver/oldstuff/python/scraper/results
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from nonoforge.errors import NonoforgeError
from nonoforge.formats import read_file
from nonoforge.pipeline.difficulty import rung
from nonoforge.pipeline.rate import RateOptions, bundled_model, score_rows
from nonoforge.puzzle import Puzzle

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpora"

#: The grade cut-points of the 1.3 model as shipped before issue 37: ``(rung, score s)``,
#: compared lexicographically (rung 2 is ``line``, 3 ``probe``).
BEFORE_CUTS = ((2, 0.0003222526453406543), (2, 0.0004014259671443935),
               (2, 0.000534335518160614), (3, 0.01920032597899526))


def before_grade(row: dict[str, Any]) -> int | None:
    """The grade the rule before issue 37 gave: ``(rung, score)`` against
    :data:`BEFORE_CUTS`, ``unique`` and ``multiple`` alike."""
    if row["status"] not in ("unique", "multiple") or row.get("score") is None:
        return None
    point = (rung(row["technique"]), row["score"])
    return 1 + sum(1 for c in BEFORE_CUTS if point > c)


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def _sample(puzzles: list[Puzzle], n: int | None, salt: str) -> list[Puzzle]:
    if n is None or n >= len(puzzles):
        return puzzles
    return sorted(puzzles, key=lambda p: _hash(salt + p.key))[:n]


def corpora(tournament: int | None, webpbn: Path | None,
            webpbn_sample: int | None) -> dict[str, list[Puzzle]]:
    """The puzzles of each corpus, sampled as asked; unreadable files are skipped."""
    from nonoforge.formats.tournament import read_with_solutions

    def files(paths: Iterable[Path]) -> list[Puzzle]:
        out: list[Puzzle] = []
        for f in paths:
            try:
                out += read_file(f)
            except NonoforgeError as e:
                print(f"  {f.name}: {e}", file=sys.stderr)
        return out

    sets: dict[str, list[Puzzle]] = {
        "survey-free": files(sorted((SHARED / "survey-free").glob("*.non"))),
        "jwilk-nin": files(sorted((SHARED / "jwilk-nin").glob("*.nin"))),
        "mikix-db": files(sorted((SHARED / "mikix-db" / "db").rglob("*.non"))),
    }
    tour: list[Puzzle] = []
    for f in sorted((SHARED / "tournament" / "question").glob("*.txt")):
        tour += _sample(read_with_solutions(f), tournament, "tournament:")
    sets["tournament"] = tour
    if webpbn is not None:
        sets["webpbn"] = _sample(files(sorted(webpbn.glob("*.non"))), webpbn_sample, "webpbn:")
    return sets


def solve_row(p: Puzzle, timeout: float) -> dict[str, Any]:
    """Verdict, technique and effort of one solve the way ``rate`` solves (no timing)."""
    from nonoforge.solver import solve

    opts = RateOptions()
    row: dict[str, Any] = {"key": p.key, "width": p.width, "height": p.height,
                           "colors": p.ncolors, "time_s": 0.0}
    try:
        res = solve(p, max_solutions=opts.max_solutions, timeout=timeout, budget=opts.budget)
    except NonoforgeError as e:
        return {**row, "status": "error", "technique": None, "effort": {"error": str(e)}}
    status = "timeout_wall" if res.status == "timeout" else res.status
    return {**row, "status": status, "technique": res.technique, "effort": dict(res.effort)}


def solved(
    sets: dict[str, list[Puzzle]], timeout: float, path: Path,
) -> dict[str, dict[str, Any]]:
    """Every puzzle's row, from the cache at ``path`` or solved now (saved every 200)."""
    rows: dict[str, dict[str, Any]] = json.loads(path.read_text()) if path.exists() else {}
    todo = [p for ps in sets.values() for p in ps if p.key not in rows]
    # in an order by key, so that an interrupted run has solved a sample of every corpus
    todo = sorted({p.key: p for p in todo}.values(), key=lambda p: _hash("solve:" + p.key))
    t0, cpu0 = time.perf_counter(), time.process_time()
    for i, p in enumerate(todo, 1):
        rows[p.key] = solve_row(p, timeout)
        if i % 200 == 0 or i == len(todo):
            path.write_text(json.dumps(rows))
            print(f"  solved {i} of {len(todo)} ({time.process_time() - cpu0:.0f} CPU s, "
                  f"{time.perf_counter() - t0:.0f} s wall)", file=sys.stderr, flush=True)
    return rows


def histogram(grades: Iterable[int | None]) -> str:
    c = Counter(grades)
    return " / ".join(str(c.get(g, 0)) for g in range(1, 6)) + (
        f" ({c[None]} ungraded)" if c.get(None) else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tournament", type=int, default=40,
                    help="puzzles of each tournament set (by key); 0 for none")
    ap.add_argument("--webpbn", type=Path, default=None,
                    help="a folder of the webpbn .non files (griddler-solver's scraper results)")
    ap.add_argument("--webpbn-sample", type=int, default=None, help="this many of them")
    ap.add_argument("--timeout", type=float, default=20.0,
                    help="the wall-clock safety net per solve (s)")
    ap.add_argument("--only", default=None, help="one corpus")
    ap.add_argument("--cache", type=Path, default=None,
                    help="the solved rows (default: in the temporary folder)")
    args = ap.parse_args()
    from nonoforge.solver import SOLVER_VERSION

    cache = args.cache or Path(tempfile.gettempdir()) / f"nonoforge-grades-{SOLVER_VERSION}.json"

    if not SHARED.exists():
        print(f"{SHARED} is absent", file=sys.stderr)
        return 2
    sets = corpora(args.tournament or None, args.webpbn, args.webpbn_sample)
    if args.only:
        sets = {args.only: sets[args.only]}
    rows = solved(sets, args.timeout, cache)
    model = bundled_model(SOLVER_VERSION)
    if model is None:
        print(f"no model shipped for solver {SOLVER_VERSION}", file=sys.stderr)
        return 2
    print(f"solver {SOLVER_VERSION}; grades 1 / 2 / 3 / 4 / 5")
    print("| corpus | puzzles | unique / multiple / other | before | now | "
          "now, unique only |")
    print("|---|---:|---|---|---|---|")
    for name, ps in sets.items():
        rs = [dict(rows[p.key]) for p in {p.key: p for p in ps}.values()]
        score_rows(rs, model)
        st = Counter(r["status"] for r in rs)
        other = len(rs) - st["unique"] - st["multiple"]
        print(f"| {name} | {len(rs)} | {st['unique']} / {st['multiple']} / {other} | "
              f"{histogram(before_grade(r) for r in rs)} | "
              f"{histogram(r['grade'] for r in rs)} | "
              f"{histogram(r['grade'] for r in rs if r['status'] == 'unique')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
