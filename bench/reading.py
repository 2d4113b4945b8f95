"""Peak memory of reading one big multi-puzzle file, as each command reads it.

    nice .venv/bin/python bench/reading.py             # 60 MB files
    nice .venv/bin/python bench/reading.py --mb 20

Builds (seeded, from the shared tournament sets) a tournament-format file and a ``.non``
bundle (``====``-separated, as ``convert`` writes it) of about ``--mb`` megabytes each,
then reads each in a fresh process: the reader alone (``iter_file``), ``ingest PATH`` and
``db import`` into a new SQLite corpus. Printed per case: puzzles read, CPU seconds, the
process's peak RSS in MiB, the RSS of the same process before reading (interpreter and
imports, after the same command on a small file) and their difference as a multiple of
the file's size: what reading costs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT.parent / "shared" / "corpora" / "tournament" / "question"


def _rss_mib(field: str) -> float:
    """This process's VmHWM (peak) or VmRSS (now) in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def make_files(folder: Path, mb: float) -> dict[str, Path]:
    """A tournament file and a .non bundle of about ``mb`` MB each, numbered afresh."""
    from nonoforge.formats import dumps, loads

    target = int(mb * 1e6)
    sets = [p.read_text() for p in sorted(QUESTIONS.glob("*.txt"))]
    tour, non = folder / "sets.txt", folder / "bundle.nonpack"
    counter = iter(range(1, 10**9))
    with tour.open("w") as f:
        size = 0
        while size < target:
            for s in sets:
                chunk = re.sub(r"(?m)^\$\d+", lambda _m: f"${next(counter)}", s)
                f.write(chunk)
                size += len(chunk)
                if size >= target:
                    break
    puzzles = list(loads(sets[0].encode(), "tournament"))
    with non.open("w") as f:
        size, i = 0, 0
        while size < target:
            text = ("\n====\n\n" if i else "") + str(dumps(puzzles[i % len(puzzles)], "non"))
            f.write(text)
            size += len(text)
            i += 1
    return {"tournament": tour, "non": non}


def case(how: str, path: str) -> dict[str, float]:
    """Read ``path`` as ``how`` says, in this process: puzzles, CPU s, RSS before and peak."""
    from nonoforge.db import Corpus
    from nonoforge.formats import iter_file
    from nonoforge.scraper.ingest import ingest_path

    with tempfile.TemporaryDirectory() as d:
        # the same command on the file's first puzzles first: what it imports lazily
        # (SQLAlchemy, numba for the clue checks...) is in "before", not in the reading
        small = Path(d) / ("small" + Path(path).suffix)
        with open(path, "rb") as f:
            head = f.read(20_000)
        small.write_bytes(head[: head.rfind(b"\n$" if path.endswith(".txt") else b"\n====")])
        warm = Corpus.open(Path(d) / "warm.db")
        if how == "read":
            sum(1 for _ in iter_file(small))
        elif how == "ingest":
            ingest_path(warm, str(small))
        else:
            warm.import_files([str(small)])
        warm.close()
        corpus = None if how == "read" else Corpus.open(Path(d) / "c.db")
        before = _rss_mib("VmRSS")
        t0 = time.process_time()
        if how == "read":
            n = sum(1 for _ in iter_file(path))
        elif how == "ingest":
            assert corpus is not None
            s = ingest_path(corpus, path)
            n = s.new + s.duplicate
        else:
            assert corpus is not None
            st = corpus.import_files([path])
            n = st.new + st.duplicate + st.merged
        cpu = time.process_time() - t0
        peak = _rss_mib("VmHWM")
        if corpus is not None:
            corpus.close()
    return {"puzzles": n, "cpu": cpu, "before": before, "peak": peak}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=60.0, help="size of each file, MB")
    ap.add_argument("--only", choices=("read", "ingest", "import"), action="append")
    ap.add_argument("--format", choices=("tournament", "non"), action="append")
    ap.add_argument("--case", nargs=2, metavar=("HOW", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(case(*args.case)))
        return
    with tempfile.TemporaryDirectory() as d:
        files = make_files(Path(d), args.mb)
        print("peak RSS of reading one file, each case in a fresh process")
        for fmt, path in files.items():
            if args.format and fmt not in args.format:
                continue
            mib = path.stat().st_size / 2**20
            for how in args.only or ("read", "ingest", "import"):
                out = subprocess.run(
                    [sys.executable, __file__, "--case", how, str(path)],
                    capture_output=True, text=True,
                    env={**os.environ, "PYTHONPATH": str(ROOT)},
                )
                if out.returncode:
                    print(f"  {how:6s} {fmt:10s} {mib:5.1f} MiB  failed: "
                          f"{out.stderr.strip().splitlines()[-1:]}", flush=True)
                    continue
                r = json.loads(out.stdout)
                extra = r["peak"] - r["before"]
                print(f"  {how:6s} {fmt:10s} {mib:5.1f} MiB {r['puzzles']:7.0f} puzzles  "
                      f"CPU {r['cpu']:6.1f} s  RSS before {r['before']:5.0f} MiB  "
                      f"peak {r['peak']:5.0f} MiB  reading +{extra:5.0f} MiB "
                      f"= {extra / mib:4.1f}x the file", flush=True)


if __name__ == "__main__":
    main()
