"""Benchmark: colour puzzles side by side, nonoforge against nonogrid's colour solver.

Sets: seeded random colour puzzles (by default 1,000 of 30x30 at 3 colours and 1,000 at 5:
each cell painted with probability ``--density``, its colour uniform among the colours;
puzzle ``i`` of a set drawn from ``numpy.random.default_rng((ncolors, seed + i))``), and
every colour puzzle found in the shared corpora (``$NONOFORGE_SHARED/corpora``, default
``../shared/corpora``). Each puzzle is solved asking for two solutions, so a verdict is a
proof (unique, none) or two different pictures (multiple):

- nonoforge in this process, ``solve(max_solutions=2, budget=--budget)``: the work budget
  decides, ``--timeout`` only guards; CPU seconds of this process per solve, the compiled
  kernels loaded first and not counted;
- nonogrid (tsionyx/nonogrid 0.7.3, Rust) through bench/nonogrid_driver.rs, one process
  per puzzle: the same solver its CLI runs by default (line propagation, probing,
  backtracking) with ``max_solutions = 2``. Its CPU is taken from the resource usage of
  children (process start included, about a millisecond) and, separately, as the driver
  reports it (the solve alone, comparable with nonoforge's in-process figure).

Every answer of both is checked here against the clues (``answer_matches``: the runs of
each line of the answer, recomputed in plain Python); a unique verdict on a random puzzle
must also give back the drawn picture, and a multiple verdict two different pictures.

Build nonogrid first (offline, outside this repository, from the GitHub snapshots under
/work/.mirror; see the recipe's header):

    sh bench/build_nonogrid.sh /work/nonogrid-build
    nice .venv/bin/python bench/colour_vs_nonogrid.py \\
        --nonogrid /work/nonogrid-build/driver/target/release/nonogrid-driver
    # or NONOGRID=/path/to/nonogrid-driver; --count 200 for a shorter run

Targets (issue 39): every random colour puzzle decided, slowest < 2 s, total ahead of
nonogrid on the same puzzles.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.puzzle import Grid, Puzzle  # noqa: E402

SHARED = Path(os.environ.get("NONOFORGE_SHARED") or ROOT.parent / "shared")
#: Deterministic work units per nonoforge solve (the rating pipeline's default budget).
DEFAULT_WORK_BUDGET = 20_000_000
#: Verdicts that decide a puzzle (proof of one, of none, or two different pictures).
DECIDED = ("unique", "multiple", "none")


# -- the random sets ------------------------------------------------------------------------

def random_colour_puzzle(seed: int, size: int, ncolors: int, density: float) -> Puzzle:
    """Puzzle ``seed`` of a set: ``density`` of the cells painted, colours uniform, every
    colour of the palette used at least once (so the puzzle has ``ncolors`` colours)."""
    rng = np.random.default_rng((ncolors, seed))
    paint = rng.random((size, size)) < density
    cells = np.where(paint, rng.integers(1, ncolors + 1, size=(size, size)), 0)
    for c in range(1, ncolors + 1):
        if not (cells == c).any():
            cells.flat[c - 1] = c
    return Puzzle.from_grid(Grid(cells))


# -- talking to nonogrid ------------------------------------------------------------------

def driver_input(p: Puzzle) -> str:
    """The clues of ``p`` in the driver's plain format: ``H W``, then one line per row and
    per column, blocks ``LENGTH,COLOUR`` separated by spaces, ``0`` for an empty line."""
    def line(clue: Iterable[tuple[int, int]]) -> str:
        return " ".join(f"{length},{colour}" for length, colour in clue) or "0"

    return "\n".join([f"{p.height} {p.width}", *map(line, p.rows), *map(line, p.columns)]) + "\n"


@dataclass
class DriverAnswer:
    """What the driver printed: its solutions (rows of colour indexes) and its CPU time."""

    solutions: list[list[list[int]]] = field(default_factory=list)
    cpu: float = 0.0


class DriverOutputError(ValueError):
    """The driver's output is not what ``parse_driver_output`` expects."""


def parse_driver_output(text: str) -> DriverAnswer:
    """Read the driver's answer: ``solutions N``, N grids each closed by a blank line, and
    ``cpu SECONDS``."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("solutions "):
        raise DriverOutputError(f"no 'solutions' line in {text[:80]!r}")
    count = int(lines[0].split()[1])
    answer = DriverAnswer()
    grid: list[list[int]] = []
    for ln in lines[1:]:
        if ln.startswith("cpu "):
            answer.cpu = float(ln.split()[1])
        elif ln.strip():
            grid.append([int(v) for v in ln.split()])
        elif grid:
            answer.solutions.append(grid)
            grid = []
    if grid:
        answer.solutions.append(grid)
    if len(answer.solutions) != count:
        raise DriverOutputError(f"said {count} solutions, printed {len(answer.solutions)}")
    return answer


def runs(line: Sequence[int]) -> list[tuple[int, int]]:
    """The clue of a line of colour indexes (0 background): ``(length, colour)`` of each
    run of one colour, left to right. Written here, apart from nonoforge, to check answers."""
    out: list[tuple[int, int]] = []
    prev = 0
    for v in map(int, line):
        if v and v == prev:
            out[-1] = (out[-1][0] + 1, v)
        elif v:
            out.append((1, v))
        prev = v
    return out


def answer_matches(p: Puzzle, grid: Sequence[Sequence[int]]) -> bool:
    """Whether ``grid`` (rows of colour indexes) has exactly the clues of ``p``."""
    if len(grid) != p.height or any(len(r) != p.width for r in grid):
        return False
    want_rows = [[(b.length, b.color) for b in clue] for clue in p.rows]
    want_cols = [[(b.length, b.color) for b in clue] for clue in p.columns]
    return ([runs(r) for r in grid] == want_rows
            and [runs(c) for c in zip(*grid, strict=True)] == want_cols)


@dataclass
class Outcome:
    """One solver's result on one puzzle."""

    verdict: str
    cpu: float
    ok: bool
    solve_cpu: float | None = None  # nonogrid: the driver's own figure


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_nonogrid(binary: str, p: Puzzle, timeout: float) -> Outcome:
    """Solve ``p`` with the nonogrid driver in a process of its own and check its answer."""
    c0 = children_cpu()
    try:
        done = subprocess.run([binary], input=driver_input(p), capture_output=True,
                              text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Outcome("timeout", children_cpu() - c0, True)
    cpu = children_cpu() - c0
    if done.returncode != 0:
        return Outcome("error", cpu, False)
    try:
        ans = parse_driver_output(done.stdout)
    except (DriverOutputError, ValueError):
        return Outcome("error", cpu, False)
    verdict = {0: "none", 1: "unique"}.get(len(ans.solutions), "multiple")
    ok = all(answer_matches(p, g) for g in ans.solutions)
    ok = ok and _expected(p, verdict, [np.array(g) for g in ans.solutions])
    return Outcome(verdict, cpu, ok, ans.cpu)


def _expected(p: Puzzle, verdict: str, grids: list[np.ndarray]) -> bool:
    """A verdict's own claims: a unique answer is the drawn picture (when known), a
    multiple one two different pictures, none impossible when a picture was drawn."""
    if verdict == "unique":
        return p.goal is None or bool(np.array_equal(grids[0], p.goal.cells))
    if verdict == "multiple":
        return len(grids) == 2 and not np.array_equal(grids[0], grids[1])
    if verdict == "none":
        return p.goal is None
    return True


def run_nonoforge(p: Puzzle, budget: int, timeout: float) -> Outcome:
    """Solve ``p`` in this process (CPU seconds of the solve) and check the answer."""
    from nonoforge.solver import solve

    c0 = time.process_time()
    res = solve(p, max_solutions=2, budget=budget, timeout=timeout)
    cpu = time.process_time() - c0
    grids = [np.asarray(g.cells) for g in res.solutions]
    verdict = str(res.status)
    ok = all(answer_matches(p, g.tolist()) for g in grids) and _expected(p, verdict, grids)
    return Outcome(verdict, cpu, ok)


# -- the corpora --------------------------------------------------------------------------

def corpus_colour_puzzles(folder: Path, seen: Counter[str]) -> Iterator[tuple[str, Puzzle]]:
    """Every colour puzzle (more than one ink) in the files under ``folder`` that nonoforge
    reads; ``seen`` counts the files read, the files passed over and the puzzles read."""
    from nonoforge.errors import NonoforgeError
    from nonoforge.formats import read_file

    for f in sorted(folder.rglob("*")):
        if not f.is_file() or f.suffix.lower() in ("", ".md") or f.name.isupper():
            continue
        try:
            puzzles = read_file(f)
        except (NonoforgeError, OSError, UnicodeDecodeError):
            seen["files passed over"] += 1
            continue
        seen["files"] += 1
        seen["puzzles"] += len(puzzles)
        for i, p in enumerate(puzzles):
            if p.palette.ncolors > 1:
                yield (f"{f.relative_to(folder)}#{i + 1}" if len(puzzles) > 1
                       else str(f.relative_to(folder))), p


# -- the report ---------------------------------------------------------------------------

@dataclass
class SetFigures:
    """Both solvers' outcomes over one set, by puzzle name."""

    name: str
    forge: dict[str, Outcome] = field(default_factory=dict)
    grid: dict[str, Outcome] = field(default_factory=dict)

    def lines(self) -> list[str]:
        n = len(self.forge)
        if not n:
            return [f"{self.name}: no puzzles"]
        out = [f"{self.name}: {n} puzzles"]
        agree = sum(self.forge[k].verdict == self.grid[k].verdict for k in self.forge)
        for label, res, solve_cpu in (("nonoforge", self.forge, False),
                                      ("nonogrid ", self.grid, False),
                                      ("nonogrid (solve only, driver's figure)",
                                       self.grid, True)):
            if solve_cpu:
                cpus = [o.solve_cpu or 0.0 for o in res.values()]
            else:
                cpus = [o.cpu for o in res.values()]
            if solve_cpu:
                out.append(f"  {label}: total {sum(cpus):.2f} s, median "
                           f"{statistics.median(cpus) * 1000:.1f} ms, slowest {max(cpus):.3f} s")
                continue
            verdicts = Counter(o.verdict for o in res.values())
            decided = sum(verdicts[v] for v in DECIDED)
            checked = sum(o.ok for o in res.values())
            worst = max(res, key=lambda k: res[k].cpu)
            out.append(
                f"  {label}: decided {decided}/{n} {dict(sorted(verdicts.items()))}; "
                f"answers checked {checked}/{n}; total {sum(cpus):.2f} s CPU, median "
                f"{statistics.median(cpus) * 1000:.1f} ms, slowest {max(cpus):.3f} s "
                f"({worst})")
        out.append(f"  verdicts agree on {agree}/{n}")
        return out


def solve_set(fig: SetFigures, puzzles: Iterable[tuple[str, Puzzle]], binary: str,
              args: argparse.Namespace) -> None:
    for k, (name, p) in enumerate(puzzles, 1):
        fig.forge[name] = f = run_nonoforge(p, args.budget, args.timeout)
        fig.grid[name] = g = run_nonogrid(binary, p, args.timeout)
        for who, o in (("nonoforge", f), ("nonogrid", g)):
            if not o.ok or o.verdict not in DECIDED:
                print(f"  {fig.name} {name}: {who} {o.verdict}"
                      f"{'' if o.ok else ' WRONG ANSWER'}", file=sys.stderr, flush=True)
        if k % 100 == 0:
            print(f"  {fig.name}: {k} done", file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nonogrid", default=os.environ.get("NONOGRID"),
                    help="the built nonogrid driver (default: $NONOGRID)")
    ap.add_argument("--count", type=int, default=1000, help="puzzles per random set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=30)
    ap.add_argument("--colours", type=int, nargs="*", default=[3, 5])
    ap.add_argument("--density", type=float, default=0.5)
    ap.add_argument("--budget", type=int, default=DEFAULT_WORK_BUDGET,
                    help="nonoforge work units per puzzle (deterministic)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="guard, seconds per puzzle, for both solvers")
    ap.add_argument("--corpora", type=Path, default=SHARED / "corpora")
    args = ap.parse_args()
    if not args.nonogrid or not os.access(args.nonogrid, os.X_OK):
        ap.error("give the nonogrid driver with --nonogrid or NONOGRID "
                 "(build it with: sh bench/build_nonogrid.sh)")

    from nonoforge.solver import SOLVER_VERSION, warmup

    compiled = warmup()
    print(f"nonoforge solver {SOLVER_VERSION} (kernels loaded in {compiled:.2f} s, not "
          f"counted), budget {args.budget:,} work units; nonogrid: {args.nonogrid}; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for nc in args.colours:
        fig = SetFigures(f"random {args.size}x{args.size}, {nc} colours, density "
                         f"{args.density}, seeds {args.seed}..{args.seed + args.count - 1}")
        gen = ((f"seed {i}", random_colour_puzzle(i, args.size, nc, args.density))
               for i in range(args.seed, args.seed + args.count))
        solve_set(fig, gen, args.nonogrid, args)
        print("\n".join(fig.lines()), flush=True)
    if args.corpora.is_dir():
        seen: Counter[str] = Counter()
        fig = SetFigures(f"colour puzzles of {args.corpora}")
        solve_set(fig, corpus_colour_puzzles(args.corpora, seen), args.nonogrid, args)
        print(f"{args.corpora}: read {seen['files']} files ({seen['puzzles']} puzzles), "
              f"passed over {seen['files passed over']} nonoforge does not read")
        print("\n".join(fig.lines()), flush=True)
    else:
        print(f"no corpora at {args.corpora} (set NONOFORGE_SHARED)")
    print("Targets: every random colour puzzle decided, slowest < 2 s, total ahead of "
          "nonogrid.")


if __name__ == "__main__":
    main()
