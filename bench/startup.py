"""Benchmark: what one ``nonoforge`` process costs, start to finish, in CPU seconds.

Scripts call the command once per file, so start-up is paid every time (issue 15). Each
command runs as a fresh process ``--repeat`` times; the CPU time (user + system) of each is
read with ``resource.getrusage(RUSAGE_CHILDREN)``, and the minimum and median are printed
(the minimum is the least disturbed by other work on a shared machine). Then one process
times the imports piece by piece to show where the rest goes.

Byte-code is cached under a temporary ``PYTHONPYCACHEPREFIX`` and warmed by one unmeasured
run, as an installed package has its ``.pyc`` files (a checkout run with
``PYTHONDONTWRITEBYTECODE`` would recompile every module each time).

    .venv/bin/python bench/startup.py
    .venv/bin/python bench/startup.py --repeat 9

Targets: ``solve`` of webpbn-00001 (5x10) < 0.35 s, ``info`` < 0.2 s.
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

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "nonoforge" / "examples" / "puzzles"
SHARED = ROOT.parent / "shared" / "corpora" / "survey-free"


def _dancer() -> Path:
    f = SHARED / "webpbn-00001.non"
    return f if f.exists() else EXAMPLES / "dancer.non"


def _cpu(cmd: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


_PIECES = """
import time
t = time.process_time
marks = [("interpreter", t())]
import typer, typer.main
marks.append(("typer (its own click)", t()))
import nonoforge.cli
marks.append(("nonoforge.cli (no rich, no numpy, no pydantic)", t()))
import nonoforge.formats
marks.append(("nonoforge.formats (every reader)", t()))
import rich.console, rich.text
marks.append(("rich (only when something styled is printed)", t()))
import numpy
marks.append(("numpy (a goal array, the solver)", t()))
import nonoforge.solver
marks.append(("nonoforge.solver (no numba)", t()))
import nonoforge.solver.driver
marks.append(("numba + the compiled engine's module", t()))
from nonoforge.solver import warmup
warmup()
marks.append(("loading every cached kernel (warmup)", t()))
import pydantic, typer._adapters
marks.append(("(not on our path any more: typer's pydantic converters)", t()))
prev = 0.0
for name, at in marks:
    print(f"{name}\\t{at - prev:.3f}")
    prev = at
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="processes per command")
    args = ap.parse_args()
    py = sys.executable
    dancer = str(_dancer())
    edge = str(EXAMPLES / "edge.non")
    tmp = tempfile.mkdtemp(prefix="nonoforge-startup-")
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
    commands = {
        "--help": ["--help"],
        "formats": ["formats"],
        f"info {Path(dancer).name}": ["info", dancer],
        f"show {Path(dancer).name}": ["show", dancer],
        f"convert {Path(dancer).name} -> .xml": ["convert", dancer, str(Path(tmp) / "d.xml")],
        f"solve {Path(dancer).name} (line logic, plain Python)": ["solve", dancer],
        "solve edge.non (probing: loads the engine)": ["solve", edge],
    }
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
    print("Where a process's CPU goes (one process, imports in order, cumulative steps):")
    print()
    out = subprocess.run([py, "-c", _PIECES], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True).stdout
    print("| step | CPU s |")
    print("|---|---:|")
    for line in out.splitlines():
        name, secs = line.split("\t")
        print(f"| {name} | {secs} |")
    print()
    print("Targets: solve webpbn-00001 < 0.35 s, info < 0.2 s.")


if __name__ == "__main__":
    main()
