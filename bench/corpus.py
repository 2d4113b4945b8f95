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
        [--keep DIR] [--reuse] [--bulk-from N [--jobs J]] [--build-only] [--no-sqlite]

builds seeded generated corpora (tournament-like: random 25x25 pictures at 50 % density
kept as their goals -- random pictures, not drawn puzzles, never checked for a unique
solution --
written to ROFL files of 10,000 puzzles with our ROFL writer, their clues found for a whole
file at once with numpy: about 0.1 ms a puzzle; made once per folder and reused) and prints,
per size and backend, what the commands cost as a user runs them (each a ``nonoforge``
process; CPU time, wall time and peak memory of that process, start-up included --
``startup`` is the cost of ``nonoforge --version`` alone): ``db import`` puzzles/s,
database bytes a puzzle, ``db stats``, a filtered ``db query``, ``collection build --count
100 --grade 1-3``, ``db export`` of 10,000, and the check before a write in one process.
On SQLite, ``collection build`` is timed twice: with the stamp the commands before it left
(``NAME.db-checked``: the whole-file check skipped, ``nonoforge/db/stamp.py``) and with
the stamp removed (``PRAGMA quick_check`` paid again); the check in one process likewise,
in full and against the stamp.
The ratings a collection needs are seeded grades and scores saved with
``Corpus.save_results`` (the solver is not run on a million puzzles; rating has its own
bench). Targets at 1M: collection build < 2 s and < 300 MB, filtered query < 1 s, import
>= 3,000 puzzles/s.

``--pg URL`` runs the same on PostgreSQL: URL names a server (any database on it); each size
gets its own database ``nonoforge_scale_N``, VACUUM ANALYZEd before it is measured (as
autovacuum leaves it). ``--pg auto`` starts a throw-away server for the run;
``--no-sqlite`` leaves SQLite out. ``--keep DIR`` keeps the input and the corpora (with each
one's build figures in ``scale-BACKEND-N.json``); ``--reuse`` then measures a corpus
already built there instead of building it again, quoting the import figure measured when
it was built; ``--build-only`` builds and stops.

``--bulk-from N``: corpora of N puzzles and more are built by the bulk path, when one
importing process is too slow on a shared machine: on SQLite, shards of 100,000 puzzles
each imported by ``db import`` (the real path) in ``--jobs`` processes at a time, then
merged by SQL in order; on PostgreSQL, the SQLite corpus of the same size (built first)
copied with COPY. Either way the import figure printed is then ``db import`` of 10,000
more generated puzzles into the built corpus, timed alone (its rows deleted again after).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.db import Corpus  # noqa: E402
from nonoforge.db.connect import check_intact  # noqa: E402
from nonoforge.db.stamp import drop_stamp  # noqa: E402
from nonoforge.formats import iter_file, rofl  # noqa: E402
from nonoforge.puzzle import Block, Grid, Meta, Palette, Puzzle  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpora" / "tournament" / "question"


def _db_bytes(path: Path) -> int:
    """A SQLite corpus's bytes once its WAL is checkpointed into the file (a WAL left by
    the last write is not the corpus's size)."""
    import sqlite3

    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
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


class Run(NamedTuple):
    """One ``nonoforge`` process: its CPU seconds, peak memory (MB), stdout and wall
    seconds (on PostgreSQL the server's work shows in the wall time only)."""

    cpu: float
    mb: float
    out: str
    wall: float


def _measured(args: list[str]) -> Run:
    """Run ``nonoforge ARGS`` and measure it (:class:`Run`)."""
    import subprocess

    with tempfile.NamedTemporaryFile(prefix="hwm-") as hwm:
        env = {**os.environ, "NONOFORGE_BENCH_HWM": hwm.name}
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _WRAP, *args], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        out = proc.stdout.read()
        errs = proc.stderr.read()
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"nonoforge {' '.join(args)} failed ({proc.returncode}): "
                             f"{errs.decode()[-400:]}")
        peak_kb = int(Path(hwm.name).read_text() or 0)
    return Run(ru.ru_utime + ru.ru_stime, peak_kb / 1024, out.decode(), wall)


def _rate_seeded(db: str, seed: int = 7) -> None:
    """Seeded grades (1-5) and scores for every puzzle, saved as ``rate --db`` saves, a
    slice of keys at a time (the same seeded stream as one draw for all: memory bounded)."""
    import numpy as np

    from nonoforge.solver import SOLVER_VERSION

    rng = np.random.default_rng(seed)
    with Corpus.open(db) as c:
        keys = c.keys()
        for a in range(0, len(keys), 50_000):
            part = keys[a:a + 50_000]
            scores = rng.random(len(part)) * 5
            c.save_results([{"key": k, "status": "unique", "score": float(s),
                             "grade": 1 + int(s)} for k, s in zip(part, scores, strict=True)],
                           SOLVER_VERSION)


@contextlib.contextmanager
def _throwaway_pg() -> Iterator[str]:
    """A PostgreSQL server on a local socket for the run (as tests/conftest.py's
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


def _pg_database(server: str, n: int, fresh: bool) -> str:
    """The URL of the database ``nonoforge_scale_N`` on the server ``server`` names (made
    anew when ``fresh``, else made only when missing): one database a size, so the sizes'
    corpora can be kept side by side and measured again (``--reuse``)."""
    from sqlalchemy import create_engine, make_url, text

    name = f"nonoforge_scale_{n}"
    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        there = conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :d"),
                             {"d": name}).first() is not None
        if there and fresh:
            conn.execute(text(f"DROP DATABASE {name}"))
        if fresh or not there:
            conn.execute(text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return make_url(server).set(database=name).render_as_string(hide_password=False)


def _pg_bytes(url: str) -> int:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as conn:
        n = int(conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
    engine.dispose()
    return n


def _count(db: str) -> tuple[int, int]:
    """Puzzles and ratings in a corpus (0, 0 when there is none), read without opening it
    as a corpus (which would migrate an older one before the migration is timed)."""
    from sqlalchemy import create_engine, text

    if "://" not in db and not Path(db).exists():
        return 0, 0
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        with engine.connect() as conn:
            puzzles, ratings = (int(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one())
                                for t in ("puzzles", "results"))
            return puzzles, ratings
    except Exception:  # noqa: BLE001 - no corpus there yet: build one
        return 0, 0
    finally:
        engine.dispose()


def build(db: str, files: list[str], n: int, record: Path) -> dict[str, Any]:
    """Import ``files`` into the empty corpus ``db`` with ``nonoforge db import`` (the real
    path, one process: its CPU time is the import figure), rate it with seeded grades, and
    keep the figures in ``record`` (JSON) so a later ``--reuse`` run can quote them."""

    run = _measured(["-q", "db", "import", "--db", db, *files])
    _rate_seeded(db)
    figures = {"puzzles": n, "import_cpu_s": run.cpu, "import_mb": run.mb,
               "import_wall_s": run.wall,
               "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    record.write_text(json.dumps(figures))
    return figures


def _fig(r: Run) -> str:
    return f"{r.cpu:.2f} s CPU ({r.wall:.2f} s wall), {r.mb:.0f} MB"


def _cell(r: Run) -> str:
    """A table cell: CPU seconds (wall), peak MB."""
    return f"{r.cpu:.2f} s ({r.wall:.2f}), {r.mb:.0f} MB"


def _vacuum(url: str) -> None:
    """VACUUM ANALYZE a PostgreSQL corpus, as autovacuum leaves a database some time after
    a bulk write (index-only scans need its visibility map)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("VACUUM ANALYZE"))
    engine.dispose()


def _copy_to_pg(sqlite_db: str, url: str) -> None:
    """The bulk path: copy every row of the SQLite corpus ``sqlite_db`` into the fresh
    PostgreSQL corpus at ``url`` (made at the current schema by opening it) with COPY, a
    table at a time, then set the id sequences past the copied ids. The same
    puzzles, records, keys, provenance and ratings as ``db import`` and the seeded rating
    made there, at a fraction of the cost."""
    import psycopg
    from sqlalchemy import create_engine, make_url, select

    from nonoforge.db import models as m

    Corpus.open(url).close()  # the schema, at head
    src = create_engine(f"sqlite:///{sqlite_db}")
    u = make_url(url)
    q = u.query
    conn = psycopg.connect(dbname=u.database, user=u.username, host=str(q["host"]),
                           port=str(q["port"]))
    try:
        with conn.cursor() as cur, src.connect() as sconn:
            for table in m.TABLES:
                cols = [c.name for c in table.columns]
                json_cols = {i for i, c in enumerate(table.columns)
                             if c.type.__class__.__name__ == "JSON"}
                rows = sconn.execute(select(*table.columns).order_by(*table.primary_key))
                names = ", ".join(f'"{c}"' for c in cols)
                with cur.copy(f"COPY {table.name} ({names}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row([json.dumps(v) if i in json_cols and v is not None
                                        else v for i, v in enumerate(row)])
                if "id" in cols and table.c.id.primary_key:
                    cur.execute(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                f"GREATEST((SELECT max(id) FROM {table.name}), 1))")
        conn.commit()
    finally:
        conn.close()
        src.dispose()


#: Puzzles a shard of a sharded build holds (see :func:`_sharded_build`).
SHARD = 100_000


def _sharded_build(folder: Path, files: list[str], db: str, jobs: int) -> float:
    """The bulk path for SQLite: ``db import`` (the real path, each a ``nonoforge``
    process) of the input in shards of :data:`SHARD` puzzles into shard corpora, ``jobs``
    processes at a time, then the shards' rows appended to ``db`` in order by SQL
    (``ATTACH``; ids offset, so they come out as one import would number them). The sum of
    the shards' CPU seconds is returned. A shard already there with its puzzles and its
    figures (``shard-K.json``) is kept, so an interrupted build resumes."""
    from concurrent.futures import ThreadPoolExecutor

    per = SHARD // PER_FILE
    groups = [files[i:i + per] for i in range(0, len(files), per)]

    def one(k: int) -> float:
        shard, note = folder / f"shard-{k}.db", folder / f"shard-{k}.json"
        want = sum(1 for _ in groups[k]) * PER_FILE
        if note.exists() and _count(str(shard))[0] == want:
            return float(json.loads(note.read_text())["cpu"])
        for f in folder.glob(f"shard-{k}.db*"):
            f.unlink()
        run = _measured(["-q", "db", "import", "--db", str(shard), *groups[k]])
        note.write_text(json.dumps({"cpu": run.cpu, "wall": run.wall, "mb": run.mb}))
        return run.cpu

    with ThreadPoolExecutor(jobs) as pool:
        cpu = sum(pool.map(one, range(len(groups))))
    import sqlite3

    Corpus.open(db).close()  # the schema, at head
    con = sqlite3.connect(db)
    try:
        for k in range(len(groups)):
            con.execute("ATTACH DATABASE ? AS shard", (str(folder / f"shard-{k}.db"),))
            with con:
                pid = con.execute("SELECT coalesce(max(id), 0) FROM puzzles").fetchone()[0]
                vid = con.execute("SELECT coalesce(max(id), 0) FROM provenance").fetchone()[0]
                con.execute("INSERT OR IGNORE INTO sources (name, url, licence) "
                            "SELECT name, url, licence FROM shard.sources ORDER BY id")
                con.execute("INSERT INTO puzzles (id, key, width, height, colors, rofl, "
                            "has_goal, first_seen, givens) SELECT id + ?, key, width, height, "
                            "colors, rofl, has_goal, first_seen, givens FROM shard.puzzles "
                            "ORDER BY id", (pid,))
                con.execute("INSERT INTO provenance (id, puzzle_id, source, site, source_id, "
                            "title, author, copyright, licence, note, raw, added, extra) "
                            "SELECT id + ?, puzzle_id + ?, source, site, source_id, title, "
                            "author, copyright, licence, note, raw, added, extra "
                            "FROM shard.provenance ORDER BY id", (vid, pid))
            con.execute("DETACH DATABASE shard")
    finally:
        con.close()
    return cpu


def _sample_import(db: str, folder: Path, n: int) -> Run:
    """The import figure of a corpus built by the bulk path: ``db import`` (the real path,
    one process) of one more generated file of :data:`PER_FILE` new puzzles into it, timed;
    the sample's rows are then deleted again, so the corpus is what it was."""
    from sqlalchemy import create_engine, text

    extra = _generated(folder, n + PER_FILE)[-1]
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    with engine.connect() as conn:
        last = int(conn.execute(text("SELECT max(id) FROM puzzles")).scalar_one())
    run = _measured(["-q", "db", "import", "--db", db, extra])
    with engine.begin() as conn:
        for table in ("results", "provenance", "collection_members"):
            conn.execute(text(f"DELETE FROM {table} WHERE puzzle_id > :l"), {"l": last})
        conn.execute(text("DELETE FROM puzzles WHERE id > :l"), {"l": last})
    engine.dispose()
    return run


def scale(sizes: list[int], pg: str | None, keep: str | None, sqlite: bool = True,
          reuse: bool = False, build_only: bool = False, bulk: int | None = None,
          jobs: int = 2) -> int:
    """The ``--scale`` figures (see the module's doc)."""

    folder = Path(keep or tempfile.mkdtemp(prefix="nonoforge-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    start = _measured(["--version"])
    print(f"startup (nonoforge --version): {start.cpu:.2f} s CPU, {start.mb:.0f} MB")
    backends: list[tuple[str, str | None]] = [("sqlite", None)] if sqlite else []
    if pg:
        backends.append(("postgresql", pg))
    for name, server in backends:
        for n in sizes:
            t = time.process_time()
            files = _generated(folder, n)  # each size's files as it comes (reused)
            print(f"input: {n} puzzles in {len(files)} ROFL file(s) under {folder} "
                  f"({time.process_time() - t:.1f} s CPU to generate what was missing)")
            record = folder / f"scale-{name}-{n}.json"
            if server is None:
                db = str(folder / f"scale-{n}.db")
            else:
                db = _pg_database(server, n, fresh=False)
            if reuse and record.exists() and _count(db) == (n, n):
                figures = json.loads(record.read_text())
                print(f"reusing {db} (built and imported {figures['measured']})")
            else:
                if server is None:
                    for f in folder.glob(f"scale-{n}.db*"):
                        f.unlink()
                else:
                    db = _pg_database(server, n, fresh=True)
                if server is None and bulk is not None and n >= bulk:
                    cpu_all = _sharded_build(folder, files, db, jobs)
                    _rate_seeded(db)
                    run = _sample_import(db, folder, n)
                    figures = {"puzzles": n, "import_cpu_s": run.cpu * n / PER_FILE,
                               "import_mb": run.mb, "import_wall_s": run.wall * n / PER_FILE,
                               "shards_cpu_s": cpu_all,
                               "bulk": f"{n // SHARD} shards of {SHARD:,} imported by "
                                       f"`db import`, {jobs} at a time ({n / cpu_all:,.0f} "
                                       f"puzzles/s), merged by SQL; import timed on "
                                       f"{PER_FILE:,} more",
                               "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
                    record.write_text(json.dumps(figures))
                elif server is not None and bulk is not None and n >= bulk:
                    _copy_to_pg(str(folder / f"scale-{n}.db"), db)
                    run = _sample_import(db, folder, n)
                    figures = {"puzzles": n, "import_cpu_s": run.cpu * n / PER_FILE,
                               "import_mb": run.mb, "import_wall_s": run.wall * n / PER_FILE,
                               "bulk": f"copied from scale-{n}.db; import timed on "
                                       f"{PER_FILE:,} more",
                               "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
                    record.write_text(json.dumps(figures))
                else:
                    figures = build(db, files, n, record)
            cpu = figures["import_cpu_s"]
            if "bulk" in figures:
                print(f"{name} {n:,}: built by the bulk path ({figures['bulk']})")
            if build_only:
                print(f"{name} {n:>9,}: built, import {n / cpu:.0f} puzzles/s ({cpu:.1f} s CPU)")
                continue
            if server is not None:
                _vacuum(db)
            # open once: an older corpus is migrated here, not inside the first command timed
            mig = _measured(["db", "init", "--db", db])
            size = _db_bytes(Path(db)) if server is None else _pg_bytes(db)
            st = _measured(["db", "stats", "--db", db])
            qr = _measured(["-q", "db", "query", "--db", db, "--grade", "2", "--size", "25x25",
                            "--source", "generated", "--limit", "1000"])
            build_args = ["-q", "collection", "build", "bench", "--count", "100",
                          "--grade", "1-3", "--db", db, "--json"]
            cb = _measured(build_args)  # SQLite: `db init` left a stamp, the check skipped
            cb_full = None
            if server is None:
                drop_stamp(Path(db))
                cb_full = _measured(build_args)  # no stamp: the whole-file check again
            with Corpus.open(db) as c:
                t = time.process_time()
                check_intact(c.engine)  # the whole check, stamp or none
                check_s = time.process_time() - t
                t = time.process_time()
                how = c.check()  # as a command does: against the stamp on SQLite
                stamped_s = time.process_time() - t
            ex = _measured(["-q", "db", "export", str(folder / "export.rofl"), "--db", db,
                            "--limit", str(PER_FILE)])
            print(f"{name} {n:>9,}: import {n / cpu:6.0f} puzzles/s ({cpu:.1f} s CPU); "
                  f"{size / n:.0f} bytes/puzzle; open (migrating an older corpus) "
                  f"{mig.cpu:.2f} s CPU, {mig.wall:.2f} s wall; stats {_fig(st)}; "
                  f"query (1000 of grade 2) {_fig(qr)}, {len(qr.out.splitlines())} rows; "
                  f"collection build {_fig(cb)}"
                  + ("" if cb_full is None else f" (without a stamp {_fig(cb_full)})")
                  + f"; export 10k {_fig(ex)}; the check before a write {check_s:.2f} s CPU "
                  f"in full, {stamped_s:.4f} s as a command does ({how.value})")
            print(f"| {name} {n:,} | {n / cpu:,.0f}/s | {size / n:,.0f} | {_cell(st)} "
                  f"| {_cell(qr)} | {_cell(cb)} | {_cell(ex)} | {check_s:.2f} s "
                  f"({stamped_s:.3f} s {how.value}) |")
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
    ap.add_argument("--reuse", action="store_true",
                    help="--scale: measure the corpora --keep holds from an earlier run "
                    "(their import figures as measured then) instead of building them again")
    ap.add_argument("--bulk-from", type=int, metavar="N",
                    help="--scale: build corpora of N puzzles and more by the bulk path: on "
                    "SQLite shards of 100,000 imported by `db import` in --jobs processes and "
                    "merged by SQL, on PostgreSQL a COPY of the SQLite corpus of that size "
                    "(built first); the import figure is then `db import` of 10,000 more "
                    "puzzles into the built corpus, timed alone")
    ap.add_argument("--jobs", type=int, default=2, help="--scale: shard imports at a time")
    ap.add_argument("--build-only", action="store_true",
                    help="--scale: build the corpora (import, rate) and stop")
    args = ap.parse_args()
    if args.scale:
        sizes = [int(x) for x in args.sizes.split(",")]
        if args.pg == "auto":
            with _throwaway_pg() as url:
                return scale(sizes, url, args.keep, not args.no_sqlite, args.reuse,
                         args.build_only, args.bulk_from, args.jobs)
        return scale(sizes, args.pg, args.keep, not args.no_sqlite, args.reuse,
                         args.build_only, args.bulk_from, args.jobs)
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
