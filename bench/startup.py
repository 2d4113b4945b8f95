"""Benchmark: what one ``nonoforge`` process costs, start to finish, in CPU seconds.

Scripts call the command once per file, so start-up is paid every time (issues 15, 39).
Each command runs as a fresh process ``--repeat`` times; the CPU time (user + system) of
each is read with ``resource.getrusage(RUSAGE_CHILDREN)``, and the minimum and median are
printed (the minimum is the least disturbed by other work on a shared machine). Then
``--files`` small colour puzzles are solved one process each, as a script would, and one
process times the imports piece by piece to show where the rest goes, and which pieces a
``solve`` of a small line-solvable puzzle paid before issue 39 and pays now, and what one
that needs the compiled engine pays now.

The colour puzzles are seeded random pictures (painted cells in runs along the rows, as
pictures have them; :func:`colour_picture`), written as ``.non`` files: 15x15 in 4 colours
(the first seed whose puzzle line logic settles), and ``--files`` of 10x10 to 20x20 in 2 to
5 colours, some line-solvable, some needing probing. Up to 1024 cells all of them are
answered in plain Python (:mod:`nonoforge.solver.plain`, the engine's whole solve; line
logic alone, :mod:`nonoforge.solver.quick`, for larger ones); a puzzle that needs the
compiled engine (mum.non, 34x40, probing) loads numpy, numba and the cached kernels, 0.5-1 s
of CPU, but not SciPy, nor the SAT back-end unless the solve reaches it.

Byte-code is cached under a temporary ``PYTHONPYCACHEPREFIX`` and warmed by one unmeasured
run, as an installed package has its ``.pyc`` files (a checkout run with
``PYTHONDONTWRITEBYTECODE`` would recompile every module each time).

    .venv/bin/python bench/startup.py
    .venv/bin/python bench/startup.py --repeat 9 --files 100
    .venv/bin/python bench/startup.py --code /tmp/old   # another checkout's code, same files

Targets (issue 39): ``solve`` of webpbn-00001 (5x10) < 0.15 s, of a 15x15 4-colour puzzle
< 0.25 s; 100 small colour files, one process each, < 25 s in all (161 s before, 35 s
with the line-solvable ones in plain Python, each one that needs probing about 1 s; now
each costs what a 5x10 does); ``info`` < 0.2 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the functions import nonoforge where they use it
    from nonoforge.puzzle import Puzzle

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "nonoforge" / "examples" / "puzzles"
SHARED = ROOT.parent / "shared" / "corpora" / "survey-free"
sys.path.insert(0, str(ROOT))


def _dancer() -> Path:
    f = SHARED / "webpbn-00001.non"
    return f if f.exists() else EXAMPLES / "dancer.non"


def colour_picture(seed: int, h: int, w: int, ncolors: int, density: float) -> Puzzle:
    """A seeded random colour picture as a puzzle: ``density`` of the cells painted, a
    cell taking its left neighbour's colour with odds 0.6 (patches, as pictures have)."""
    import numpy as np

    from nonoforge.puzzle import Grid, Puzzle

    rng = np.random.default_rng(seed)
    paint = rng.random((h, w)) < density
    colour = rng.integers(1, ncolors + 1, size=(h, w))
    keep = rng.random((h, w)) < 0.6
    for c in range(1, w):
        colour[:, c] = np.where(keep[:, c], colour[:, c - 1], colour[:, c])
    cells = np.where(paint, colour, 0)
    cells[0, 0] = cells[0, 0] or 1
    return Puzzle.from_grid(Grid(cells))


def small_colour_puzzles(count: int) -> list[Puzzle]:
    """The ``count`` small colour puzzles of the 100-file figure (10x10 to 20x20, 2 to 5
    colours, seeded): the tests of :mod:`nonoforge.solver.plain` solve the same."""
    import numpy as np

    rng = np.random.default_rng(39)
    out = []
    for i in range(count):
        h, w = (int(x) for x in rng.integers(10, 21, size=2))
        out.append(colour_picture(1000 + i, h, w, int(rng.integers(2, 6)), 0.8))
    return out


def _line_solvable(p: Puzzle) -> bool:
    from nonoforge.solver import quick

    return quick.solve_by_lines(p, 2, None) is not None


def _colour_files(folder: Path, count: int) -> tuple[Path, list[Path], list[bool]]:
    """The 15x15 4-colour file and ``count`` small colour files; which of those line logic
    settles (answered without the engine)."""
    from nonoforge.formats import write_file

    folder.mkdir(parents=True, exist_ok=True)
    seed = 0
    while not _line_solvable(p15 := colour_picture(seed, 15, 15, 4, 0.8)):
        seed += 1
    big = folder / f"colour-15x15-4c-seed{seed}.non"
    write_file(p15, big)
    files, easy = [], []
    for i, p in enumerate(small_colour_puzzles(count)):
        easy.append(_line_solvable(p))
        f = folder / f"small-{i:03d}.non"
        write_file(p, f)
        files.append(f)
    return big, files, easy


def _cpu(cmd: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=env.get("PYTHONPATH", ROOT), env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


#: Each piece: its label, whether ``solve`` of a small line-solvable puzzle (black and
#: white / colour) paid it before issue 39, whether it does now (a small one that needs
#: probing too), and whether a solve that needs the engine (a larger one, no SAT) pays it.
_ROLES = {
    "interpreter": ("yes", "yes", "yes"),
    "typer (its own click)": ("yes", "yes", "yes"),
    "nonoforge.cli": ("yes", "yes", "yes"),
    "nonoforge.formats (every reader)": ("yes", "yes", "yes"),
    "nonoforge.solver (no numpy, no numba)": ("yes", "yes", "yes"),
    "rich (styled output, a terminal)": ("yes", "only on a terminal", "only on a terminal"),
    "numpy": ("yes", "no", "yes"),
    "numba + the compiled engine's modules, kernels loaded (first solve)":
        ("colour only", "no", "yes"),
    "scipy.linalg (numba's BLAS probe, now kept out)": ("colour only", "no", "no"),
    "the SAT back-end: python-sat, the CNF and phase kernels": ("colour only", "no", "no"),
}

_PIECES = """
import time
t = time.process_time
marks = [("interpreter", t())]
import typer, typer.main
marks.append(("typer (its own click)", t()))
import nonoforge.cli
marks.append(("nonoforge.cli", t()))
import nonoforge.formats
marks.append(("nonoforge.formats (every reader)", t()))
import nonoforge.solver
marks.append(("nonoforge.solver (no numpy, no numba)", t()))
import rich.console, rich.text
marks.append(("rich (styled output, a terminal)", t()))
import numpy
marks.append(("numpy", t()))
from nonoforge.solver import core
if hasattr(core, "_load_engine"):
    core._load_engine()
else:  # before issue 39's last step: one warmup loaded everything, SciPy and SAT included
    core.warmup()
marks.append(("numba + the compiled engine's modules, kernels loaded (first solve)", t()))
import scipy.linalg
marks.append(("scipy.linalg (numba's BLAS probe, now kept out)", t()))
core.warmup()
marks.append(("the SAT back-end: python-sat, the CNF and phase kernels", t()))
prev = 0.0
for name, at in marks:
    print(f"{name}\\t{at - prev:.3f}")
    prev = at
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="processes per command")
    ap.add_argument("--files", type=int, default=100, help="small colour files, a process each")
    ap.add_argument("--code", help="run the nonoforge package in this folder (an older "
                    "checkout: before and after on the same files)")
    args = ap.parse_args()
    py = sys.executable
    dancer = str(_dancer())
    edge = str(EXAMPLES / "edge.non")
    mum = str(EXAMPLES / "mum.non")
    tmp = tempfile.mkdtemp(prefix="nonoforge-startup-")
    big, small, easy = _colour_files(Path(tmp) / "colour", args.files)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
    if args.code:
        env["PYTHONPATH"] = str(Path(args.code).resolve())
    commands = {
        "--help": ["--help"],
        "formats": ["formats"],
        f"info {Path(dancer).name}": ["info", dancer],
        f"show {Path(dancer).name}": ["show", dancer],
        f"convert {Path(dancer).name} -> .xml": ["convert", dancer, str(Path(tmp) / "d.xml")],
        f"solve {Path(dancer).name} (5x10, line logic, plain Python)": ["solve", dancer],
        f"solve {big.name} (line logic, plain Python)": ["solve", str(big)],
        "solve edge.non (10x11, probing, plain Python)": ["solve", edge],
        "solve mum.non (34x40, probing: loads the engine)": ["solve", mum],
    }
    print(f"code: {args.code or ROOT}")
    print(f"CPU seconds per process (user + system), {args.repeat} processes each; "
          f"python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f} "
          "(the machine is shared)")
    print()
    print("| command | min | median |")
    print("|---|---:|---:|")
    for label, argv in commands.items():
        cmd = [py, "-m", "nonoforge", *argv]
        _cpu(cmd, env)  # warm the byte-code cache
        times = [_cpu(cmd, env) for _ in range(args.repeat)]
        print(f"| `nonoforge {label}` | {min(times):.3f} | {statistics.median(times):.3f} |")
    base = [_cpu([py, "-c", "pass"], env) for _ in range(args.repeat)]
    print(f"| `python -c pass` | {min(base):.3f} | {statistics.median(base):.3f} |")
    print()
    if small:
        each = [_cpu([py, "-m", "nonoforge", "solve", str(f)], env) for f in small]
        lines = [t for t, e in zip(each, easy, strict=True) if e]
        probing = [t for t, e in zip(each, easy, strict=True) if not e]
        print(f"{len(small)} small colour files (10x10 to 20x20, 2 to 5 colours), one "
              f"`nonoforge solve` process each: **{sum(each):.1f} s** of CPU in all "
              f"(min {min(each):.3f}, median {statistics.median(each):.3f}, "
              f"max {max(each):.3f} s)")
        for what, ts in (("line-solvable", lines), ("needing probing", probing)):
            if ts:
                print(f"- {len(ts)} {what}: {sum(ts):.1f} s, median "
                      f"{statistics.median(ts):.3f} s a file")
        print()
    print("Where a process's CPU goes (one process, imports in order, each step's own CPU), "
          "what `solve` of a small line-solvable puzzle paid before issue 39 and now (a "
          "small one that needs probing too), and what one that needs the engine pays:")
    print()
    out = subprocess.run([py, "-c", _PIECES], cwd=env.get("PYTHONPATH", ROOT), env=env,
                         capture_output=True, text=True, check=True).stdout
    print("| step | CPU s | solve paid it before | now | a solve needing the engine |")
    print("|---|---:|---|---|---|")
    for line in out.splitlines():
        name, secs = line.split("\t")
        before, now, engine = _ROLES.get(name, ("", "", ""))
        print(f"| {name} | {secs} | {before} | {now} | {engine} |")
    print()
    print("Targets: solve 5x10 < 0.15 s, solve 15x15 4-colour < 0.25 s, 100 small colour "
          "files < 25 s in all, info < 0.2 s.")


if __name__ == "__main__":
    main()
