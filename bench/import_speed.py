"""``db import`` speed through the CLI, the whole process timed: puzzles/s by CPU and wall.

    nice .venv/bin/python bench/import_speed.py              # shared sets, 12 MB files
    nice .venv/bin/python bench/import_speed.py --mb 30 --only sets.txt
    nice .venv/bin/python bench/import_speed.py --code ../other-worktree   # before/after

Cases, each a fresh SQLite corpus and a fresh ``nonoforge db import FILES --db x.db``
process: the shared tournament folder (questions with their solutions: goals), a
tournament-like ``.txt`` of about ``--mb`` MB (the shared sets renumbered, no solutions)
and a ``.non`` bundle of as many distinct puzzles (the shared sets' puzzles with their
goals, as ``convert`` writes a bundle). Printed per case: puzzles in the corpus, CPU
seconds (the process and its children), wall seconds, peak RSS, and puzzles/s by CPU and
by wall. On a shared machine quote the CPU figure.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOURNAMENT = ROOT.parent / "shared" / "corpora" / "tournament"


def make_files(folder: Path, mb: float) -> dict[str, Path]:
    """A tournament-like set and a ``.non`` bundle of about ``mb`` MB each."""
    sys.path.insert(0, str(ROOT))
    from nonoforge.formats import dumps, tournament

    target = int(mb * 1e6)
    sets = sorted((TOURNAMENT / "question").glob("*.txt"))
    counter = iter(range(1, 10**9))
    tour = folder / "sets.txt"
    with tour.open("w") as f:
        size = 0
        while size < target:
            for s in sets:
                chunk = re.sub(r"(?m)^\$\d+", lambda _m: f"${next(counter)}", s.read_text())
                f.write(chunk)
                size += len(chunk)
                if size >= target:
                    break
    non = folder / "bundle.non"
    with non.open("w") as f:
        size = 0
        for s in sets:
            for p in tournament.read_with_solutions(s):
                text = ("\n====\n\n" if size else "") + str(dumps(p, "non"))
                f.write(text)
                size += len(text)
                if size >= target:
                    break
            if size >= target:
                break
    return {"sets.txt": tour, "bundle.non": non}


def run(paths: list[Path], db: Path, code: Path) -> dict[str, float]:
    """One ``db import`` process running the code in ``code``: puzzles, CPU s (with
    children), wall s, peak RSS MiB (the largest of this bench's children so far).

    It runs in ``code`` (``python -m`` puts the working directory first on the path,
    before ``PYTHONPATH``: run from another checkout, it would import that one's code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "nonoforge", "db", "import",
                    *map(str, paths), "--db", str(db)], check=True,
                   env={**os.environ, "PYTHONPATH": str(code)}, cwd=code,
                   stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with sqlite3.connect(db) as c:
        n = c.execute("select count(*) from puzzles").fetchone()[0]
    return {"puzzles": n, "cpu": cpu, "wall": wall, "rss": after.ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=12.0, help="size of the generated files, MB")
    ap.add_argument("--only", action="append",
                    help="tournament (the shared folder), sets.txt or bundle.non")
    ap.add_argument("--code", type=Path, default=ROOT,
                    help="the checkout whose code runs (another worktree: before/after)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        cases: dict[str, list[Path]] = {"tournament": [TOURNAMENT]}
        cases.update({k: [v] for k, v in make_files(folder, args.mb).items()})
        print("db import through the CLI, each case a fresh process and corpus")
        for name, paths in cases.items():
            if args.only and name not in args.only:
                continue
            r = run(paths, folder / f"{name}.db", args.code)
            print(f"  {name:11s} {r['puzzles']:7.0f} puzzles  CPU {r['cpu']:6.1f} s  "
                  f"wall {r['wall']:6.1f} s  peak RSS {r['rss']:5.0f} MiB  "
                  f"{r['puzzles'] / r['cpu']:6.0f}/s CPU  {r['puzzles'] / r['wall']:6.0f}/s wall",
                  flush=True)


if __name__ == "__main__":
    main()
