"""The stamp of a sound corpus file that lets a write skip the whole-file check
(nonoforge/db/stamp.py): real SQLite files in tmp_path, real outside writes, a real crash."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import fresh_python
from dbfixtures import _overwrite_middle_pages, _pg_url, _write_json_files, puzzles
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine, event
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import Corpus
from nonoforge.db.stamp import (
    SUFFIX,
    Checked,
    FileState,
    Stamp,
    read_stamp,
    sidecar,
    stamp_of,
    write_stamp,
)
from nonoforge.solver import SOLVER_VERSION

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def checks() -> Iterator[list[str]]:
    """Every ``PRAGMA quick_check`` any engine runs while the test does (SQLAlchemy's own
    statement hook: how the test sees that the check was skipped, not a clock)."""
    seen: list[str] = []

    def hook(_conn: Any, _cur: Any, statement: str, *_: Any) -> None:
        if "quick_check" in statement:
            seen.append(statement)

    event.listen(Engine, "before_cursor_execute", hook)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", hook)


def _stamped(path: Path, n: int = 300, seed: int = 1) -> None:
    """A corpus at ``path`` with ``n`` puzzles, closed: its stamp left beside it."""
    with Corpus.open(path) as c:
        c.add(puzzles(n, seed, size=(10, 10)))
    assert read_stamp(path) == stamp_of(path) is not None


def _checked(path: Path) -> Checked | None:
    with Corpus.open(path, check=True) as c:
        return c.checked


# -- a stamp skips the check ----------------------------------------------------------------


def test_a_stamp_skips_the_check_and_each_write_renews_it(
    tmp_path: Path, checks: list[str]
) -> None:
    db = tmp_path / "c.db"
    with Corpus.open(db, check=True) as c:  # a new file: checked in full
        assert c.checked is Checked.FULL
        c.add(puzzles(40, 2))
        c.add(puzzles(40, 3))  # a second transaction keeps the custody
    assert len(checks) == 1
    assert sidecar(db).name == "c.db" + SUFFIX and read_stamp(db) == stamp_of(db)
    assert not (tmp_path / "c.db-wal").exists()  # checkpointed before the stamp
    for seed in (4, 5):
        with Corpus.open(db, check=True) as c:
            assert c.checked is Checked.STAMP
            c.add(puzzles(40, seed))
        assert read_stamp(db) == stamp_of(db)
    with Corpus.open(db) as c:  # the first write checks: the stamp again
        c.add(puzzles(40, 6))
        assert c.checked is Checked.STAMP
        assert len(c) == 200
    assert len(checks) == 1


def test_commands_that_write_skip_the_check_of_a_stamped_corpus(
    tmp_path: Path, checks: list[str]
) -> None:
    db = str(tmp_path / "c.db")
    files = _write_json_files(tmp_path, [puzzles(20, 7, source=None), puzzles(20, 8, source=None)])
    runner = CliRunner()
    r = runner.invoke(app, ["db", "import", files[0], "--db", db])
    assert r.exit_code == 0, r.output
    assert len(checks) == 1  # the new corpus, checked in full
    with Corpus.open(db) as c:  # rated, as `rate --db` saves: its first write is checked
        keys = c.keys()
        c.save_results([{"key": k, "status": "unique", "score": 1.5, "grade": 2}
                        for k in keys], SOLVER_VERSION)
        assert c.checked is Checked.STAMP
    for args in (["db", "import", files[1]], ["db", "init"], ["collection", "build", "c"]):
        r = runner.invoke(app, [*args, "--db", db])
        assert r.exit_code == 0, (args, r.output)
    assert len(checks) == 1
    r = runner.invoke(app, ["db", "query", "--db", db])  # a reader leaves the stamp valid
    assert r.exit_code == 0 and read_stamp(Path(db)) == stamp_of(Path(db))


# -- anything but nonoforge's own writes means the full check ------------------------------


def test_pages_overwritten_with_the_old_times_put_back_are_caught(
    tmp_path: Path, checks: list[str]
) -> None:
    """Size, inode and modification time all as stamped: the change time (which ``utime``
    itself sets to now) tells the write apart, the check finds the damage, exit 4."""
    db = tmp_path / "c.db"
    _stamped(db, 3000, 9)
    checks.clear()
    was = os.stat(db)
    _overwrite_middle_pages(db, 10)
    os.utime(db, ns=(was.st_atime_ns, was.st_mtime_ns))
    now = os.stat(db)
    assert (now.st_size, now.st_ino, now.st_mtime_ns) == (was.st_size, was.st_ino,
                                                          was.st_mtime_ns)
    assert stamp_of(db) != read_stamp(db)
    before = db.read_bytes()
    files = _write_json_files(tmp_path, [puzzles(5, 11, source=None)])
    for _ in range(2):  # refused, and refused again: a damaged file is never stamped
        r = CliRunner().invoke(app, ["db", "import", *files, "--db", str(db)])
        assert r.exit_code == 4, r.output
        lines = [x for x in r.output.splitlines() if x.strip()]
        assert len(lines) == 1 and "damaged" in lines[0] and str(db) in lines[0], r.output
    assert len(checks) == 2
    assert db.read_bytes() == before
    assert read_stamp(db) != stamp_of(db)


def test_another_programs_write_between_two_transactions_leaves_no_stamp(
    tmp_path: Path,
) -> None:
    db = tmp_path / "c.db"
    _stamped(db)
    with Corpus.open(db) as c:
        c.add(puzzles(5, 12))
        assert not sidecar(db).exists()  # no stamp on disk while the session writes
        with sqlite3.connect(db) as other:  # a sound write, but not ours
            other.execute("PRAGMA user_version = 7")
        other.close()
        c.add(puzzles(5, 13))
    assert not sidecar(db).exists()
    assert _checked(db) is Checked.FULL
    assert _checked(db) is Checked.STAMP  # the full check stamped it again


def test_a_crash_between_a_commit_and_the_stamp_means_the_full_check(tmp_path: Path) -> None:
    """A process killed (``os._exit``) after its commit: no close, no stamp. Even the old
    stamp put back does not match the files the commit left (its WAL, not checkpointed)."""
    db = tmp_path / "c.db"
    _stamped(db)
    old = sidecar(db).read_bytes()
    code = ("import os, sys\n"
            "sys.path.insert(0, 'tests')\n"
            "from dbfixtures import puzzles\n"
            "from nonoforge.db import Corpus\n"
            f"c = Corpus.open({str(db)!r})\n"
            "c.add(puzzles(5, 14))\n"
            "os._exit(0)\n")
    fresh_python(code, cwd=ROOT, timeout=120)
    assert not sidecar(db).exists()
    sidecar(db).write_bytes(old)
    assert stamp_of(db) != read_stamp(db)
    with Corpus.open(db, check=True) as c:
        assert c.checked is Checked.FULL
        assert len(c) == 305
    assert _checked(db) is Checked.STAMP


def test_a_wal_held_open_elsewhere_is_part_of_the_stamp(tmp_path: Path) -> None:
    """Another connection keeps the WAL from being checkpointed at close: the stamp
    records it, a write into it is caught, and its checkpoint later is a change too."""
    db = tmp_path / "c.db"
    _stamped(db)
    reader = sqlite3.connect(db)
    try:
        reader.execute("SELECT count(*) FROM puzzles").fetchone()
        with Corpus.open(db) as c:
            c.add(puzzles(50, 15))
        wal = tmp_path / "c.db-wal"
        stamp = read_stamp(db)
        assert stamp is not None and stamp.wal is not None
        assert stamp.wal == FileState.of(os.stat(wal), ctime=False)
        assert _checked(db) is Checked.STAMP
        with open(wal, "ab") as f:  # bytes past the last frame: no page, but a change
            f.write(b"\0" * 512)
        assert _checked(db) is Checked.FULL
        assert _checked(db) is Checked.STAMP
    finally:
        reader.close()  # the last connection: checkpoints the WAL into the file
    assert _checked(db) is Checked.FULL


def test_a_missing_or_unreadable_sidecar_means_the_full_check(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    _stamped(db)
    good = sidecar(db).read_text()
    for damage in ("", "not json", good.replace('"nonoforge-stamp": 1', '"nonoforge-stamp": 99'),
                   good[: len(good) // 2], '{"nonoforge-stamp": 1}', "[]"):
        sidecar(db).write_text(damage)
        assert read_stamp(db) is None, damage
        assert _checked(db) is Checked.FULL
        assert _checked(db) is Checked.STAMP  # restamped by the check
    sidecar(db).unlink()
    assert _checked(db) is Checked.FULL
    sidecar(db).unlink()
    sidecar(db).mkdir()  # not even a file: still only a full check
    assert _checked(db) is Checked.FULL


def test_a_stamp_not_younger_than_the_files_is_not_trusted(tmp_path: Path) -> None:
    """A file time ahead of the sidecar's (here a modification time in the future; on a
    file system with coarse timestamps, a write in the stamp's own tick) could hide a later
    write in the same tick: such a stamp is ignored."""
    db = tmp_path / "c.db"
    _stamped(db)
    ahead = os.stat(db).st_mtime_ns + 3600 * 10**9
    os.utime(db, ns=(ahead, ahead))
    stamp = stamp_of(db)
    assert stamp is not None
    assert write_stamp(db, stamp) is False and read_stamp(db) is None
    assert _checked(db) is Checked.FULL
    assert read_stamp(db) is None  # the close's stamp is no younger either


def test_a_database_without_a_file_has_no_stamp() -> None:
    with Corpus.open("sqlite://") as c:  # in memory
        assert c.check() is Checked.FULL
        c.add(puzzles(3, 16))
        assert c.check() is Checked.FULL


def test_postgresql_runs_its_check_every_time(pg_server: dict[str, str],
                                               checks: list[str]) -> None:
    url = _pg_url(pg_server)
    for _ in range(2):
        with Corpus.open(url, check=True) as c:
            assert c.checked is Checked.FULL
            c.add(puzzles(3, 17))
    assert checks == []  # no quick_check there: a query through the schema


def test_stamping_keeps_sqlites_locks(tmp_path: Path) -> None:
    """The stamp reads the files with ``stat`` only: a descriptor of the database opened
    and closed in the process that has it open would drop all of SQLite's POSIX locks on
    it (a first version did; a kill-and-resume import test showed its transactions
    unseen). Another process must still find the database in use."""
    db = tmp_path / "c.db"
    _stamped(db)
    journal = ("import sys, sqlite3\n"
               "c = sqlite3.connect(sys.argv[1], timeout=0)\n"
               "try:\n"
               "    print(c.execute('PRAGMA journal_mode=DELETE').fetchone()[0])\n"
               "except sqlite3.OperationalError as e:\n"
               "    print(e)\n")
    with Corpus.open(db, check=True) as c:
        assert c.checked is Checked.STAMP
        c.add(puzzles(20, 19))  # stamp_of before and after the transaction
        out = fresh_python(journal, str(db), timeout=60).stdout
        assert out.strip() == "database is locked"
    assert read_stamp(db) == stamp_of(db)


# -- the sidecar's format ----------------------------------------------------------------


_states = st.builds(FileState, st.integers(0, 2**48), st.integers(0, 2**63), st.integers(0, 2**63),
                    st.integers(0, 2**64))


@given(db=_states, wal=st.none() | _states)
def test_a_stamp_reads_back_as_written(db: FileState, wal: FileState | None) -> None:
    stamp = Stamp(db, wal)
    assert Stamp.from_json(stamp.to_json()) == stamp
