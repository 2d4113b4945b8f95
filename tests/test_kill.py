"""``kill -9`` at random points of ``db import`` and ``ingest DIR`` loses nothing (issue 14).

Each scenario runs the real command in its own process session, kills it with SIGKILL at
seeded points (one early, during start-up and schema creation, then when the corpus has
reached a seeded number of puzzles), and checks after every kill that the database is
intact (``PRAGMA integrity_check``) and that no process of the killed run is left. A last
run of the same command then completes, and every puzzle is present exactly once, with
one provenance row (and, for ``ingest``, one ``done`` fetch-log row) per puzzle.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from nonoforge.formats import dumps, rofl
from nonoforge.puzzle import Grid, Meta, Puzzle

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds a session's processes in /proc"),
]


def _puzzles(n: int, seed: int, side: int = 8) -> list[Puzzle]:
    rng = np.random.default_rng(seed)
    out: dict[str, Puzzle] = {}
    while len(out) < n:
        p = Puzzle.from_grid(Grid(rng.integers(0, 2, size=(side, side))))
        out.setdefault(p.key, p.replace(meta=Meta(title=f"kill test {len(out)}")))
    return list(out.values())


def _count(db: Path, sql: str = "SELECT count(*) FROM puzzles") -> int:
    """A reading of the corpus while another process may be writing it (0 if not yet)."""
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
        try:
            return int(con.execute(sql).fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _session_left(sid: int) -> list[int]:
    """Processes still in the killed run's session."""
    left = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.getsid(int(name)) == sid:
                left.append(int(name))
        except (ProcessLookupError, PermissionError):
            continue
    return left


def _start(args: list[str]) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "nonoforge", "-q", *args], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )


def _kill_at(args: list[str], db: Path, point: tuple[str, float], n: int) -> str:
    """Run the command and SIGKILL it at ``point``: ("time", seconds), or ("rows", f) when
    a fraction ``f`` of the puzzles still missing at its start has been committed."""
    start = _count(db)
    proc = _start(args)
    kind, value = point
    if kind == "rows":
        value = start + max(1, round(value * (n - start)))
    t0 = time.monotonic()
    while proc.poll() is None:
        if kind == "time" and time.monotonic() - t0 >= value:
            break
        if kind == "rows" and _count(db) >= value:
            break
        time.sleep(0.01)
    finished = proc.poll() is not None
    if not finished:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    if proc.stderr is not None:
        proc.stderr.close()
    deadline = time.monotonic() + 30  # a guard: a loaded machine reaps slowly
    while _session_left(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _session_left(proc.pid) == [], f"processes of the killed run left after {point}"
    if db.exists():
        con = sqlite3.connect(db)
        try:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            con.close()
    return "finished first" if finished else f"killed at {_count(db)} puzzles"


def _run(args: list[str]) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "nonoforge", "-q", *args], cwd=ROOT, env=env,
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()[-2000:]


def _points(rng: random.Random) -> list[tuple[str, float]]:
    """One kill during start-up (imports, schema creation), then two part-way through."""
    return [("time", rng.uniform(0.2, 1.2)), ("rows", rng.uniform(0.1, 0.6)),
            ("rows", rng.uniform(0.2, 0.9))]


def _check(db: Path, n: int, ingest: bool) -> None:
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("SELECT count(*), count(DISTINCT key) FROM puzzles").fetchone() == (
            n, n)
        per = con.execute("SELECT puzzle_id, count(*) FROM provenance GROUP BY puzzle_id "
                          "HAVING count(*) <> 1").fetchall()
        assert per == [], "puzzles with more or fewer than one provenance row"
        assert con.execute("SELECT count(DISTINCT puzzle_id) FROM provenance").fetchone()[0] == n
        if ingest:
            rows = con.execute("SELECT status, count(*), count(DISTINCT item) FROM fetch_log "
                               "GROUP BY status").fetchall()
            assert rows == [("done", n, n)], rows
    finally:
        con.close()


@pytest.mark.parametrize("seed", [1])
def test_kill_9_during_db_import_loses_nothing(tmp_path: Path, seed: int) -> None:
    """One ROFL file of 700 puzzles (committed in batches of 500) and 20 puzzle files."""
    rng = random.Random(seed)
    puzzles = _puzzles(720, seed)
    (tmp_path / "bulk.rofl").write_bytes(rofl.dumps(puzzles[:700]))
    files = [str(tmp_path / "bulk.rofl")]
    for i, p in enumerate(puzzles[700:]):
        f = tmp_path / f"p{i:02d}.non"
        f.write_text(str(dumps(p, "non")))
        files.append(str(f))
    db = tmp_path / "corpus.db"
    args = ["db", "import", "--db", str(db), *files]
    outcomes = [_kill_at(args, db, point, len(puzzles)) for point in _points(rng)]
    _run(args)
    _check(db, len(puzzles), ingest=False)
    assert sum(o != "killed at 0 puzzles" and o.startswith("killed") for o in outcomes) >= 1, \
        outcomes


@pytest.mark.parametrize("seed", [1])
def test_kill_9_during_ingest_dir_loses_nothing(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    puzzles = _puzzles(80, seed + 100)
    folder = tmp_path / "puzzles"
    (folder / "sub").mkdir(parents=True)
    for i, p in enumerate(puzzles):
        where = folder / "sub" if i % 3 == 0 else folder
        (where / f"p{i:03d}.non").write_text(str(dumps(p, "non")))
    db = tmp_path / "corpus.db"
    args = ["ingest", "path", str(folder), "--db", str(db)]
    outcomes = [_kill_at(args, db, point, len(puzzles)) for point in _points(rng)]
    _run(args)
    _check(db, len(puzzles), ingest=True)
    assert sum(o.startswith("killed at") for o in outcomes) >= 2, outcomes
