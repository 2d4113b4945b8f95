"""How reading a multi-puzzle file as batches do (``loads(..., on_error="collect")``)
scales: CPU seconds on files made only of malformed records, per format, at two sizes
(linear work doubles, a rescan per record quadruples), and the first puzzle of a
1000-puzzle file (the stream stays lazy: CPU and peak memory before the first puzzle).

    .venv/bin/python bench/items.py            # 0.5 and 1 MiB
    .venv/bin/python bench/items.py --mib 2
    .venv/bin/python bench/items.py --ingest   # ingest PATH, db import

``--ingest`` measures the importers on big multi-puzzle files instead: ``ingest PATH`` and
``db import`` of 4000 tournament puzzles (four of the shared sets, concatenated), a .non
bundle and a ROFL file of as many, into a new SQLite corpus. Each case runs in a fresh
process: CPU seconds and peak RSS in one run, tracemalloc's peak (Python's allocations,
which a file's records held in a list would make grow with the file) in another.

Every file starts with one good puzzle, so the stream yields each error in its place
(a file where nothing can be read is one failure). Figures are CPU seconds
(``time.process_time``), so a shared machine changes them little; peak memory is
tracemalloc's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from nonoforge.formats import dumps, loads, read_file

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
TOURNAMENT = SHARED / "corpora/tournament/question/icga2016.txt"

# one malformed record of each format, repeated to fill the file
_BAD = {
    "tournament": "$x\n1\n",
    "non": "width abc\n====\n",
    "tatham": "4y4:1/1\n",
    "xml": '<puzzle type="grid"><clues type="x"><line/></clues></puzzle>\n',
    "json": '{"format":"nonoforge","version":1},\n',
}


def _good(fmt: str) -> str:
    """One small puzzle in ``fmt``, as the start of a file of that format."""
    [p] = read_file(TOURNAMENT)[:1]
    text = dumps([p], fmt)
    assert isinstance(text, str)
    if fmt == "json":
        return "[" + (text.strip()[1:-1] if text.lstrip().startswith("[") else text) + ",\n"
    if fmt == "xml":
        return text[: text.index("</puzzleset>")]
    if fmt == "non":
        return text + "\n====\n"
    return text


def bad_file(fmt: str, size: int) -> bytes:
    """About ``size`` bytes: one good puzzle, then malformed records only."""
    if fmt == "rofl":
        # a big container with a byte spoiled every 97 bytes after the header
        ps = read_file(TOURNAMENT)
        data = bytearray()
        while len(data) < size:
            blob = dumps(ps * 20, "rofl")
            assert isinstance(blob, bytes)  # rofl is the binary format
            data += blob
        rng = random.Random(14)
        for at in range(64, len(data), 97):
            data[at] ^= 1 << rng.randrange(8)
        return bytes(data[:size])
    head = _good(fmt)
    unit = _BAD[fmt]
    body = unit * ((size - len(head)) // len(unit))
    if fmt == "json":
        return (head + body.rstrip(",\n") + "]").encode()
    if fmt == "xml":
        return (head + body + "</puzzleset>\n").encode()
    return (head + body).encode()


def collect_cpu(fmt: str, data: bytes) -> tuple[float, int, int]:
    """CPU seconds to read every record; how many puzzles and errors."""
    t0 = time.process_time()
    reading = loads(data, fmt, on_error="collect")
    puzzles = sum(1 for _ in reading)
    return time.process_time() - t0, puzzles, reading.error_count


def first_puzzle(fmt: str, n: int = 1000) -> tuple[float, float, float, float]:
    """(CPU to the first puzzle, its peak MiB, CPU for all, peak MiB) of ``n`` puzzles."""
    ps = read_file(TOURNAMENT)
    data = dumps((ps * (n // len(ps) + 1))[:n], fmt)
    raw = data.encode() if isinstance(data, str) else data
    tracemalloc.start()
    t0 = time.process_time()
    it = loads(raw, fmt)
    next(it)
    t1, m1 = time.process_time(), tracemalloc.get_traced_memory()[1]
    for _ in it:
        pass
    t2, m2 = time.process_time(), tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return t1 - t0, m1 / 2**20, t2 - t0, m2 / 2**20


#: the shared tournament sets concatenated into the big file of --ingest
SETS = ("taai2011", "tcga2012", "taai2013", "icga2016")


def big_files(folder: Path, n: int = 4000) -> dict[str, Path]:
    """The files --ingest reads: ``n`` tournament puzzles (whole sets, as they are, one
    after the other; no ../solution/ beside them), and a .non bundle and a ROFL file of
    the same puzzles."""
    question = SHARED / "corpora/tournament/question"
    text = b"".join((question / f"{s}.txt").read_bytes() for s in SETS)
    out = {"tournament": folder / "sets.txt", "non": folder / "bundle.non",
           "rofl": folder / "bundle.rofl"}
    out["tournament"].write_bytes(text)
    ps = list(loads(text, "tournament"))[:n]
    for fmt in ("non", "rofl"):
        data = dumps(ps, fmt)
        out[fmt].write_bytes(data.encode() if isinstance(data, str) else data)
    return out


def _hwm_mib() -> float:
    """This process's peak RSS in MiB (VmHWM: ru_maxrss would carry the parent's peak over
    fork and exec on Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ingest_case(how: str, path: str, mem: bool) -> dict[str, float]:
    """Import ``path`` into a new corpus (``ingest`` PATH or ``db import``), in this process."""
    from nonoforge.db import Corpus
    from nonoforge.scraper.ingest import ingest_path

    with tempfile.TemporaryDirectory() as d, Corpus.open(Path(d) / "c.db") as corpus:
        if mem:
            tracemalloc.start()
        t0 = time.process_time()
        if how == "ingest":
            s = ingest_path(corpus, path)
            n = s.new + s.duplicate
        else:
            st = corpus.import_files([path])
            n = st.new + st.duplicate + st.merged
        cpu = time.process_time() - t0
        peak = tracemalloc.get_traced_memory()[1] / 2**20 if mem else 0.0
        rss = _hwm_mib()
    return {"puzzles": n, "cpu": cpu, "peak": peak, "rss": rss}


def run_ingest() -> None:
    print("importing big files into a new SQLite corpus: CPU s and peak RSS MiB (one run), "
          "tracemalloc peak MiB (another run); each in a fresh process")
    with tempfile.TemporaryDirectory() as d:
        files = big_files(Path(d))
        for fmt, path in files.items():
            size = path.stat().st_size / 2**20
            for how in ("ingest", "import"):
                res = []
                for mem in (False, True):
                    cmd = [sys.executable, __file__, "--case", how, str(path)]
                    out = subprocess.run(cmd + (["--mem"] if mem else []), check=True,
                                         capture_output=True, text=True,
                                         env={**os.environ, "PYTHONPATH": str(ROOT)})
                    res.append(json.loads(out.stdout))
                print(f"  {how:6s} {fmt:10s} {size:5.1f} MiB {res[0]['puzzles']:5.0f} puzzles "
                      f"CPU {res[0]['cpu']:6.2f} s  RSS {res[0]['rss']:6.1f} MiB  "
                      f"peak {res[1]['peak']:6.1f} MiB", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=float, default=1.0, help="the larger size (the other is half)")
    ap.add_argument("--ingest", action="store_true", help="measure ingest PATH and db import")
    ap.add_argument("--case", nargs=2, metavar=("HOW", "PATH"), help=argparse.SUPPRESS)
    ap.add_argument("--mem", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(ingest_case(args.case[0], args.case[1], args.mem)))
        return
    if args.ingest:
        run_ingest()
        return
    big = int(args.mib * 2**20)
    print(f"malformed records, on_error='collect', CPU s at {args.mib / 2:g} and {args.mib:g} MiB")
    for fmt in (*_BAD, "rofl"):
        (a, _, _), (b, good, bad) = (collect_cpu(fmt, bad_file(fmt, s)) for s in (big // 2, big))
        print(f"  {fmt:10s} {a:7.3f} {b:7.3f}  x{b / max(a, 1e-6):4.1f}  "
              f"({good} puzzle(s), {bad} errors)", flush=True)
    print("1000 puzzles, strict: CPU s and peak MiB to the first puzzle, then for all")
    for fmt in ("tournament", "non", "tatham", "json", "xml", "rofl"):
        t1, m1, t2, m2 = first_puzzle(fmt)
        print(f"  {fmt:10s} first {t1:6.3f} s {m1:6.1f} MiB   all {t2:6.3f} s {m2:6.1f} MiB",
              flush=True)


if __name__ == "__main__":
    main()
