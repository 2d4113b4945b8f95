"""Benchmark of the SAT fallback on the survey's free puzzles (Knotty and Faase included).

For each ``.non`` file of ``../shared/corpora/survey-free`` (or the folder given), solve with
:func:`nonoforge.solver.sat.solve_sat` asking for two solutions (the uniqueness proof), with a
60 s deadline each, and print the verdict, whether the solution is the goal picture, the CNF
size, conflicts, decisions, encode and solve time. These are the benchmark's moonshots.

    .venv/bin/python bench/sat.py [FOLDER] [--timeout S] [--solver NAME] [--lines order|regular]
                                  [--files a.non,...] [--random N]

``--solver`` swaps the python-sat back end (``cadical153``, ``cadical195``, ``glucose4``, ...)
and ``--lines`` the line encoding, for comparison; the library uses
:data:`nonoforge.solver.sat.SOLVER_NAME` and the order encoding. After the survey it prints
the encode time of big seeded random puzzles (99x59 black-and-white like Gettys, 50x50 with
5 colours) and, with ``--random N``, the CPU time of N seeded random 45x45 puzzles (half
black), which are harder for SAT than the survey's easy set and separate the back ends.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

import numpy as np

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
    ap.add_argument("--lines", default="order", choices=["order", "regular"])
    ap.add_argument("--files", default="", help="comma-separated file names to run only")
    ap.add_argument("--random", type=int, default=0, help="also solve N random 45x45 puzzles")
    args = ap.parse_args()
    if not args.folder.is_dir():
        sys.exit(f"{args.folder} is absent")
    sat.SOLVER_NAME = args.solver
    if args.lines != "order":
        # every argument solve_sat passes (stop=, tables=) goes through; only lines= is ours
        sat.encode = functools.partial(sat.encode, lines=args.lines)
    files = sorted(args.folder.glob("*.non"))
    if args.files:
        wanted = set(args.files.split(","))
        files = [f for f in files if f.name in wanted]
    print(f"solver {args.solver}, {args.lines} encoding, deadline {args.timeout:g} s, 2 solutions")
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
    encode_speed()
    if args.random:
        random_set(args.random, args.timeout)


def random_grid(seed: int, h: int, w: int, ncolors: int, density: float = 0.5) -> Grid:
    """A seeded random picture: ``density`` of the cells painted, colours uniform."""
    rng = np.random.default_rng(seed)
    paint = rng.random((h, w)) < density
    return Grid(np.where(paint, rng.integers(1, ncolors + 1, size=(h, w)), 0))


def encode_speed() -> None:
    """Encode time of puzzles as big as the survey's biggest (best of 3, no state)."""
    print()
    print(f"{'encode':<24} {'vars':>7} {'clauses':>8} {'best_s':>7}")
    for name, h, w, nc in (("99x59 black-and-white", 59, 99, 1), ("50x50 5 colours", 50, 50, 5)):
        p = Puzzle.from_grid(random_grid(1, h, w, nc))
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            enc = sat.encode(p)
            best = min(best, time.perf_counter() - t0)
        print(f"{name:<24} {enc.nvars:>7} {len(enc.clauses):>8} {best:>7.3f}")


def random_set(n: int, timeout: float) -> None:
    """CPU seconds and conflicts over ``n`` seeded random 45x45 puzzles (two solutions each)."""
    cpu = 0.0
    conflicts = 0
    verdicts: dict[str, int] = {}
    for seed in range(n):
        p = Puzzle.from_grid(random_grid(seed, 45, 45, 1))
        t0 = time.process_time()
        out = sat.solve_sat(p, deadline=time.monotonic() + timeout)
        cpu += time.process_time() - t0
        conflicts += out.conflicts
        verdicts[out.status] = verdicts.get(out.status, 0) + 1
    print()
    print(f"{n} random 45x45: {cpu:.2f} CPU s, {conflicts} conflicts, verdicts {verdicts}")


if __name__ == "__main__":
    main()
