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

    .venv/bin/python bench/corpus.py --scale [--sizes 10000,100000,1000000] [--pg URL]

builds seeded generated corpora (tournament-like: random 25x25 pictures at 50 % density
kept as their goals -- random pictures, not drawn puzzles, never checked for a unique
solution --
written to ROFL files of 10,000 puzzles with our ROFL writer, their clues found for a whole
file at once with numpy: about 0.1 ms a puzzle; made once per folder and reused) and prints,
per size and backend, what the commands cost as a user runs them (each a ``nonoforge``
process; CPU time and peak memory of that process, start-up included -- ``startup`` is
the cost of ``nonoforge --version`` alone): ``db import`` puzzles/s, database bytes a
puzzle, ``db stats``, a filtered ``db query``, ``collection build --count 100 --grade
1-3``, ``db export`` of 10,000. The ratings a collection needs are seeded grades and
scores saved with ``Corpus.save_results`` (the solver is not run on a million puzzles;
rating has its own bench). Targets at 1M: collection build < 2 s and < 300 MB, filtered
query < 1 s, import >= 3,000 puzzles/s. ``--pg URL`` runs the same on PostgreSQL (an
empty database; its schema is dropped and made anew for each size); ``--pg auto`` starts
a throw-away server for the run; ``--no-sqlite`` leaves SQLite out.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.db import Corpus  # noqa: E402
from nonoforge.formats import iter_file, rofl  # noqa: E402
from nonoforge.puzzle import Block, Grid, Meta, Palette, Puzzle  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpora" / "tournament" / "question"


def _db_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


#: Puzzles a generated ROFL file holds (and the size of the export measured).
PER_FILE = 10_000


def _runs(grids: Any) -> tuple[Any, Any]:
    """Every line's run lengths of a stack of 0/1 grids ``(n, lines, cells)``, found at once:
    the run lengths in line order, and how many runs each of the ``n * lines`` lines has."""
    import numpy as np

    n, lines, cells = grids.shape
    padded = np.zeros((n, lines, cells + 2), np.int8)
    padded[:, :, 1:-1] = grids
    step = np.diff(padded, axis=2).reshape(-1)  # +1 where a run starts, -1 after it ends
    starts = np.flatnonzero(step == 1)  # in line order; each line's runs in order
    ends = np.flatnonzero(step == -1)
    counts = np.bincount(starts // (cells + 1), minlength=n * lines)
    return ends - starts, counts


def _puzzles(grids: Any, seed: int, file_no: int) -> list[Puzzle]:
    """Black-and-white puzzles (with their goals) of a stack of 0/1 grids: the clues come
    from :func:`_runs`, vectorised over the stack, so the puzzles are built without the
    per-puzzle checks of ``Puzzle.from_grid`` (the same puzzles: their ROFL bytes are the
    same)."""
    import numpy as np

    n, height, width = grids.shape
    blocks = np.empty(max(height, width) + 1, dtype=object)
    for i in range(len(blocks)):
        blocks[i] = Block(i, 1)
    bw = Palette.bw()
    clues = []
    for stack in (grids, np.ascontiguousarray(grids.transpose(0, 2, 1))):
        lengths, counts = _runs(stack)
        flat = blocks[lengths].tolist()
        ends = np.cumsum(counts).tolist()
        starts = [0, *ends[:-1]]
        clues.append([tuple(flat[a:b]) for a, b in zip(starts, ends, strict=True)])
    rows, cols = clues
    out = []
    for k in range(n):
        meta = Meta(title=f"g{file_no}-{k}", source="generated",
                    source_id=f"{seed}-{file_no}-{k}")
        goal = Grid.from_bytes(grids[k].tobytes(), height, width)
        out.append(Puzzle.trusted(tuple(rows[k * height:(k + 1) * height]),
                                  tuple(cols[k * width:(k + 1) * width]), bw, meta, goal))
    return out


def _generated(folder: Path, n: int, seed: int = 2026) -> list[str]:
    """ROFL files holding ``n`` seeded tournament-like puzzles (made once, reused).

    The puzzles are random 25x25 pictures at 50 % density (cell (0, 0) painted, so none is
    blank), kept as their goals: random pictures, not puzzles anyone drew, never checked
    for a unique solution -- they stand in for the size and shape of tournament data, not
    for its difficulty. File ``i`` draws its pictures from ``default_rng([seed, i])``, a file at a
    time (memory bounded by one file), and is written with our ROFL writer.
    """
    import numpy as np

    files = []
    for i in range((n + PER_FILE - 1) // PER_FILE):
        f = folder / f"gen-{seed}-{i:04d}.rofl"
        if not f.exists():
            rng = np.random.default_rng([seed, i])
            grids = (rng.random((PER_FILE, 25, 25)) < 0.5).astype(np.uint8)
            grids[:, 0, 0] = 1
            tmp = f.with_suffix(".part")
            with open(tmp, "wb") as fp:
                rofl.dump(_puzzles(grids, seed, i), fp)
            tmp.rename(f)
        files.append(str(f))
    return files


#: Runs ``nonoforge ARGS`` and, at exit, writes the process's peak resident memory
#: (``VmHWM``: of this program alone, unlike ``ru_maxrss``, which keeps what the forking
#: parent held) to the file ``NONOFORGE_BENCH_HWM`` names.
_WRAP = """
import atexit, os, runpy, sys
def _hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            open(os.environ["NONOFORGE_BENCH_HWM"], "w").write(line.split()[1])
atexit.register(_hwm)
sys.argv = ["nonoforge", *sys.argv[1:]]
runpy.run_module("nonoforge", run_name="__main__")
"""


def _measured(args: list[str]) -> tuple[float, float, str]:
    """CPU seconds and peak memory (MB) of one ``nonoforge`` process, and its stdout."""
    import subprocess

    with tempfile.NamedTemporaryFile(prefix="hwm-") as hwm:
        env = {**os.environ, "NONOFORGE_BENCH_HWM": hwm.name}
        proc = subprocess.Popen([sys.executable, "-c", _WRAP, *args], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        out = proc.stdout.read()
        errs = proc.stderr.read()
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"nonoforge {' '.join(args)} failed ({proc.returncode}): "
                             f"{errs.decode()[-400:]}")
        peak_kb = int(Path(hwm.name).read_text() or 0)
    return ru.ru_utime + ru.ru_stime, peak_kb / 1024, out.decode()


def _rate_seeded(db: str, seed: int = 7) -> None:
    """Seeded grades (1-5) and scores for every puzzle, saved as ``rate --db`` saves."""
    import numpy as np

    from nonoforge.solver import SOLVER_VERSION

    rng = np.random.default_rng(seed)
    with Corpus.open(db) as c:
        keys = c.keys()
        scores = rng.random(len(keys)) * 5
        rows = [{"key": k, "status": "unique", "score": float(s), "grade": 1 + int(s)}
                for k, s in zip(keys, scores, strict=True)]
        c.save_results(rows, SOLVER_VERSION)


@contextlib.contextmanager
def _throwaway_pg() -> Iterator[str]:
    """A PostgreSQL server on a local socket for the run (as tests/test_db.py's
    ``pg_server`` fixture starts one: initdb and pg_ctl, as the ``postgres`` user when
    run as root); its URL."""
    import shutil
    import socket
    import subprocess

    bins = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    initdb = shutil.which("initdb") or next((str(b / "initdb") for b in bins), None)
    pg_ctl = shutil.which("pg_ctl") or next((str(b / "pg_ctl") for b in bins), None)
    if not initdb or not pg_ctl:
        raise SystemExit("no PostgreSQL server here (apt-get install -y postgresql)")
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    base = Path(tempfile.mkdtemp(prefix="nonoforge-pg-"))
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    if prefix:
        shutil.chown(base, "postgres")
        shutil.chown(sock, "postgres")
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
    subprocess.run([*prefix, initdb, "-D", str(data), "-A", "trust", "-U", "postgres",
                    "--no-sync", "-E", "UTF8"], check=True, capture_output=True)
    subprocess.run([*prefix, pg_ctl, "-D", str(data), "-o", f"-k {sock} -p {port} -h '' -F",
                    "-l", str(base / "log"), "-w", "start"], check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@/postgres?host={sock}&port={port}"
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "fast", "stop"],
                       capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def _reset_pg(url: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def _pg_bytes(url: str) -> int:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as conn:
        n = int(conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
    engine.dispose()
    return n


def scale(sizes: list[int], pg: str | None, keep: str | None, sqlite: bool = True) -> int:
    """The ``--scale`` figures (see the module's doc)."""
    folder = Path(keep or tempfile.mkdtemp(prefix="nonoforge-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    startup, startup_mb, _ = _measured(["--version"])
    print(f"startup (nonoforge --version): {startup:.2f} s CPU, {startup_mb:.0f} MB")
    backends: list[tuple[str, str | None]] = [("sqlite", None)] if sqlite else []
    if pg:
        backends.append(("postgresql", pg))
    for name, url in backends:
        for n in sizes:
            t = time.process_time()
            files = _generated(folder, n)  # each size's files as it comes (reused)
            print(f"input: {n} puzzles in {len(files)} ROFL file(s) under {folder} "
                  f"({time.process_time() - t:.1f} s CPU to generate what was missing)")
            if url is None:
                db = str(folder / f"scale-{n}.db")
                for f in folder.glob(f"scale-{n}.db*"):
                    f.unlink()
            else:
                _reset_pg(url)
                db = url
            cpu, _, _ = _measured(["-q", "db", "import", "--db", db, *files])
            size = _db_bytes(Path(db)) if url is None else _pg_bytes(url)
            _rate_seeded(db)
            st, _, _ = _measured(["db", "stats", "--db", db])
            qc, _, qout = _measured(["-q", "db", "query", "--db", db, "--grade", "2",
                                     "--size", "25x25", "--source", "generated",
                                     "--limit", "1000"])
            cc, cm, cout = _measured(["-q", "collection", "build", "bench", "--count", "100",
                                      "--grade", "1-3", "--db", db, "--json"])
            with Corpus.open(db) as c:
                t = time.process_time()
                c.check()
                check_s = time.process_time() - t
            out = folder / "export.rofl"
            ec, em, _ = _measured(["-q", "db", "export", str(out), "--db", db,
                                   "--limit", str(PER_FILE)])
            print(f"{name} {n:>9,}: import {n / cpu:6.0f} puzzles/s ({cpu:.1f} s CPU); "
                  f"{size / n:.0f} bytes/puzzle; stats {st:.2f} s; query (1000 of grade 2) "
                  f"{qc:.2f} s, {len(qout.splitlines())} rows; collection build "
                  f"{cc:.2f} s CPU, {cm:.0f} MB peak; export 10k {ec:.2f} s, {em:.0f} MB; "
                  f"the check before a write {check_s:.2f} s")
            sys.stdout.flush()
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="puzzle files (default: the tournament sets)")
    ap.add_argument("--scale", action="store_true", help="the corpus-at-scale figures")
    ap.add_argument("--sizes", default="10000,100000",
                    help="--scale corpus sizes, comma-separated (1000000 for the full run)")
    ap.add_argument("--pg", help="--scale on this PostgreSQL URL too (its schema is dropped), "
                    "or 'auto': a throw-away server started for the run")
    ap.add_argument("--keep", help="--scale: a folder for the generated files and corpora")
    ap.add_argument("--no-sqlite", action="store_true", help="--scale: PostgreSQL only")
    args = ap.parse_args()
    if args.scale:
        sizes = [int(x) for x in args.sizes.split(",")]
        if args.pg == "auto":
            with _throwaway_pg() as url:
                return scale(sizes, url, args.keep, not args.no_sqlite)
        return scale(sizes, args.pg, args.keep, not args.no_sqlite)
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
