"""Benchmark of the SAT fallback on the survey's free puzzles (Knotty and Faase included).

For each ``.non`` file of ``../shared/corpora/survey-free`` (or the folder given), solve with
:func:`nonoforge.solver.sat.solve_sat` asking for two solutions (the uniqueness proof), with a
60 s deadline each, and print the verdict, whether the solution is the goal picture, the CNF
size, conflicts, decisions, encode and solve time. These are the benchmark's moonshots.

    .venv/bin/python bench/sat.py [FOLDER] [--timeout S] [--solver NAME] [--files a.non,...]

``--solver`` swaps the python-sat back end (``cadical153``, ``cadical195``, ``glucose4``, ...)
for comparison; the library uses :data:`nonoforge.solver.sat.SOLVER_NAME`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.puzzle import Grid, Puzzle  # noqa: E402
from nonoforge.solver import sat  # noqa: E402

SURVEY = ROOT.parent / "shared" / "corpora" / "survey-free"


def read_non(path: Path) -> Puzzle:
    """A black-and-white ``.non`` file: the project's reader when it has one, else a minimal one."""
    try:
        from nonoforge.formats import FORMATS, read_file

        if "non" in FORMATS:
            return next(iter(read_file(str(path))))
    except ImportError:  # pragma: no cover - formats package half-written
        pass
    return parse_non(path.read_text())


def parse_non(text: str) -> Puzzle:
    """The clues (and goal, if any) of a simple ``.non`` file; enough for the survey set."""
    rows: list[list[int]] = []
    cols: list[list[int]] = []
    target: list[list[int]] | None = None
    goal = None
    for raw in text.splitlines():
        line = raw.strip()
        word = line.split(maxsplit=1)[0].lower() if line else ""
        if word == "rows":
            target = rows
        elif word == "columns":
            target = cols
        elif word == "goal":
            goal = line.split(maxsplit=1)[1].strip().strip('"')
            target = None
        elif target is not None and line and (line[0].isdigit()):
            target.append([int(x) for x in line.replace(" ", ",").split(",") if int(x)])
        elif target is not None and word:
            target = None
    grid = None
    if goal:
        w = len(cols)
        grid = Grid([[int(ch) for ch in goal[i : i + w]] for i in range(0, len(goal), w)])
    return Puzzle.from_clues(rows, cols, goal=grid)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", type=Path, default=SURVEY)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--solver", default=sat.SOLVER_NAME)
    ap.add_argument("--files", default="", help="comma-separated file names to run only")
    args = ap.parse_args()
    if not args.folder.is_dir():
        sys.exit(f"{args.folder} is absent")
    sat.SOLVER_NAME = args.solver
    files = sorted(args.folder.glob("*.non"))
    if args.files:
        wanted = set(args.files.split(","))
        files = [f for f in files if f.name in wanted]
    print(f"solver {args.solver}, deadline {args.timeout:g} s, max_solutions 2")
    head = (
        f"{'puzzle':<18} {'size':>6} {'verdict':>8} {'goal':>4} {'vars':>7} {'clauses':>8} "
        f"{'conflicts':>10} {'decisions':>10} {'encode_s':>8} {'solve_s':>8}"
    )
    print(head)
    print("-" * len(head))
    total = 0.0
    for f in files:
        p = read_non(f)
        t0 = time.perf_counter()
        out = sat.solve_sat(p, max_solutions=2, deadline=time.monotonic() + args.timeout)
        total += time.perf_counter() - t0
        ok = (
            "-"
            if p.goal is None or not out.solutions
            else ("yes" if out.solutions[0] == p.goal else "no")
        )
        print(
            f"{f.stem:<18} {f'{p.width}x{p.height}':>6} {out.status:>8} {ok:>4} "
            f"{out.variables:>7} {out.clauses:>8} {out.conflicts:>10} {out.decisions:>10} "
            f"{out.encode_s:>8.3f} {out.solve_s:>8.3f}",
            flush=True,
        )
    print(f"total wall time {total:.2f} s for {len(files)} puzzles")


if __name__ == "__main__":
    main()
