"""Benchmark the corpus store: import the tournament puzzles into a fresh SQLite corpus.

    .venv/bin/python bench/corpus.py [FILES...]

Without FILES it uses every tournament set of ``../shared/corpora/tournament/question/*.txt``
(27 sets, 27,000 puzzles, each read with its ``../solution/`` goals; the target: the import
at the rate of 2000 puzzles in under 10 s, i.e. 200 puzzles/s). It prints, for a fresh
corpus in a temporary folder: the time to parse the files alone, to import them (parse +
store), to store the parsed puzzles alone (``Corpus.add``, fresh corpus, opening
included), to import them again (everything a duplicate), to stream every puzzle back, to
export them to ROFL and to import that file into a second fresh corpus, with the sizes of
the database and the ROFL file. Numba kernels of the ROFL codec are compiled (or loaded
from cache) before timing starts.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.db import Corpus  # noqa: E402
from nonoforge.formats import iter_file, rofl  # noqa: E402
from nonoforge.puzzle import Puzzle  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpora" / "tournament" / "question"


def _db_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="puzzle files (default: the tournament sets)")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(str(DEFAULT / "*.txt")))
    if not files:
        print(f"no input: {DEFAULT} is absent (the shared corpora sit beside the project)")
        return 1

    # warm up the codec (numba compilation or cache load) so it is not timed
    warm = Puzzle.from_grid([[1, 0], [1, 1]])
    for p in (warm, warm.replace(goal=None)):  # the goal and the clue kernels
        rofl.decode(rofl.encode(p))

    t = time.perf_counter()
    parsed = [p for f in files for p in iter_file(f)]
    parse_s = time.perf_counter() - t
    n = len(parsed)

    with tempfile.TemporaryDirectory(prefix="nonoforge-bench-") as tmp:
        db = Path(tmp) / "corpus.db"
        t = time.perf_counter()
        with Corpus.open(db) as c:
            first = c.import_files(files)
        import_s = time.perf_counter() - t

        with Corpus.open(db) as c:
            t = time.perf_counter()
            again = c.import_files(files)
            again_s = time.perf_counter() - t
            t = time.perf_counter()
            streamed = sum(1 for _ in c.query())
            query_s = time.perf_counter() - t
            out = Path(tmp) / "all.rofl"
            t = time.perf_counter()
            exported = c.export_rofl(out)
            export_s = time.perf_counter() - t
        db_size = _db_bytes(db)

        t = time.perf_counter()
        with Corpus.open(Path(tmp) / "store-only.db") as c3:
            c3.add(parsed)
        store_s = time.perf_counter() - t

        t = time.perf_counter()
        with Corpus.open(Path(tmp) / "second.db") as c2:
            back = c2.import_files([out])
        reimport_s = time.perf_counter() - t
        rofl_size = out.stat().st_size

    print(f"files: {len(files)} ({', '.join(os.path.basename(f) for f in files[:4])}"
          f"{', ...' if len(files) > 4 else ''}); puzzles: {n}")
    print(f"parse only:                 {parse_s:6.2f} s  ({n / parse_s:8.0f} puzzles/s)")
    print(f"import into fresh corpus:   {import_s:6.2f} s  ({n / import_s:8.0f} puzzles/s)  "
          f"{first}  target >= 200 puzzles/s (2000 in 10 s): "
          f"{'met' if n / import_s >= 200 else 'MISSED'} (wall clock; the machine may be shared)")
    print(f"store only (add parsed):    {store_s:6.2f} s  ({n / store_s:8.0f} puzzles/s, "
          f"{store_s / n * 1e3:.2f} ms a puzzle)")
    print(f"import again (duplicates):  {again_s:6.2f} s  {again}")
    print(f"stream all back (query):    {query_s:6.2f} s  ({streamed / query_s:8.0f} puzzles/s)")
    print(f"export to ROFL:             {export_s:6.2f} s  {exported} puzzles, "
          f"{rofl_size} bytes ({rofl_size / max(exported, 1):.1f} a puzzle)")
    print(f"import the ROFL file:       {reimport_s:6.2f} s  {back} (fresh corpus)")
    print(f"database size:              {db_size} bytes ({db_size / max(n, 1):.0f} a puzzle, "
          "WAL included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
