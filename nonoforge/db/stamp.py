"""The check before a write, paid once per change from outside: a stamp of a sound file.

A command that writes into a SQLite corpus first makes sure the file is sound
(:func:`~nonoforge.db.connect.check_intact`: ``PRAGMA quick_check``, which reads every page,
1.3-1.9 s of CPU at a million puzzles). Most of the time nothing but nonoforge has touched
the file since nonoforge last found it sound, so the check need not be paid again. This
module keeps that knowledge in a small sidecar, ``NAME.db-checked``, beside the database:

- a :class:`Stamp` is what ``stat`` says about the files (the main file's size,
  modification and change times and inode; a ``-wal`` that holds pages: its size,
  modification time and inode). Never the database's own bytes: opening and closing the
  file in the process that has it open would drop SQLite's POSIX locks on it (closing any
  descriptor of a file releases all of a process's ``fcntl`` locks on it), and every write
  that could change them changes the change time anyway (in WAL mode the header's change
  counter does not even move on most commits);
- a :class:`Custody` follows one session: it vouches for the files from the moment they
  were found sound (a full check, or a stamp that matches them exactly) through each of
  nonoforge's own write transactions (the files, seen with the write lock held, must be as
  the session left them; after the commit it records them anew), and at close, once the
  engine is disposed (the last connection checkpoints the WAL and removes it), it writes
  the stamp -- only if nothing but the session changed the files meanwhile;
- before a write, a stamp that matches the files exactly skips the check
  (:attr:`Checked.STAMP`); anything else (no sidecar, an unreadable one, another program's
  write, an edit by hand, a crash between a commit and the stamp) means the full check,
  then a new stamp.

What catches an outside write is mostly the inode's change time (``st_ctime``): every
write, and every ``utime`` that puts an old modification time back, sets it to the current
time, and no unprivileged call can set it back. A stamp is only trusted when the sidecar's
own change time is strictly later than every time it records (:func:`read_stamp`): on a
file system with coarse timestamps, a write in the same tick as the stamp would otherwise
leave every time as it was. What it cannot catch: writes that bypass the file system
(a raw block device), the clock set back to the tick of the stamp before a write, a
write by another program in the microseconds between a session's last look and its stamp,
a write into a ``-wal`` left by another connection that puts its modification time back.
``docs/corpus.md`` ("Damage") says the same for users.

PostgreSQL and in-memory databases have no file: :class:`Custody` always runs the full
check there (on PostgreSQL a query through the version table and the puzzles' key, which
costs milliseconds whatever the corpus).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path

from sqlalchemy import Engine

from nonoforge.db.connect import check_intact

#: The sidecar's name is the database file's with this appended.
SUFFIX = "-checked"
#: The sidecar's format; a sidecar of another version is ignored (a full check).
VERSION = 1
#: How often, and how long apart, :func:`write_stamp` touches a sidecar whose change time
#: has not moved past the files' (a file system with coarse timestamps) before giving up.
RACY_TRIES = 5
RACY_WAIT_S = 0.002


class Checked(Enum):
    """How a session found its database sound before its first write."""

    FULL = "full"  # the whole check ran and passed (quick_check; PostgreSQL's query)
    STAMP = "stamp"  # skipped: the files are exactly as they were stamped sound


@dataclass(frozen=True)
class FileState:
    """What ``stat`` says of one file: any write changes ``ctime_ns`` at least.

    ``ctime_ns`` is 0 (not compared) for a ``-wal``: SQLite running as root gives the WAL
    the database's owner each time a process opens it (``fchown``, which sets the change
    time though nothing changed), so the WAL's change time moves with every reader.
    """

    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int

    @classmethod
    def of(cls, st: os.stat_result, ctime: bool = True) -> FileState:
        return cls(st.st_size, st.st_mtime_ns, st.st_ctime_ns if ctime else 0, st.st_ino)


@dataclass(frozen=True)
class Stamp:
    """The state of a SQLite database's files (``wal`` None: no ``-wal`` or an empty one,
    which holds no pages)."""

    db: FileState
    wal: FileState | None

    def newest_ns(self) -> int:
        """The latest time the stamp records (a trusted sidecar is younger than it)."""
        states = [self.db] if self.wal is None else [self.db, self.wal]
        return max(max(s.mtime_ns, s.ctime_ns) for s in states)

    def to_json(self) -> str:
        return json.dumps({"nonoforge-stamp": VERSION, **asdict(self)}, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str | bytes) -> Stamp:
        """The stamp a sidecar holds; ValueError, KeyError or TypeError when it holds none."""
        data = json.loads(raw)
        if data.pop("nonoforge-stamp") != VERSION:
            raise ValueError("another version of the stamp")
        wal = data.pop("wal")
        return cls(db=FileState(**data.pop("db")),
                   wal=None if wal is None else FileState(**wal), **data)


def sidecar(path: Path) -> Path:
    """The stamp's file beside the database at ``path``."""
    return path.with_name(path.name + SUFFIX)


def stamp_of(path: Path) -> Stamp | None:
    """The state of the database at ``path`` and its ``-wal`` now (``stat`` only: the
    database is never opened here, see the module's doc); None when the file cannot be
    seen or is still empty."""
    try:
        st = os.stat(path)
        try:
            wst: os.stat_result | None = os.stat(path.with_name(path.name + "-wal"))
        except FileNotFoundError:
            wst = None
    except OSError:
        return None
    if st.st_size == 0:
        return None
    return Stamp(
        db=FileState.of(st),
        wal=None if wst is None or wst.st_size == 0 else FileState.of(wst, ctime=False),
    )


def read_stamp(path: Path) -> Stamp | None:
    """The stamp the sidecar of ``path`` holds, or None: no sidecar, an unreadable one, or
    one not strictly younger than every time it records (written in the same tick as the
    last write it describes: a later write in that tick would leave every time as it was)."""
    try:
        with open(sidecar(path), "rb") as f:
            st = os.fstat(f.fileno())
            stamp = Stamp.from_json(f.read(4096))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return stamp if st.st_ctime_ns > stamp.newest_ns() else None


def write_stamp(path: Path, stamp: Stamp) -> bool:
    """Record ``stamp`` in the sidecar of ``path``, atomically (a temporary file renamed
    over it). Whether it will be trusted: False when it could not be written, or when the
    file system's clock did not move past the stamp's times within
    ``RACY_TRIES * RACY_WAIT_S`` (then :func:`read_stamp` ignores it: a full check)."""
    side = sidecar(path)
    tmp = side.with_name(f"{side.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(stamp.to_json(), encoding="utf-8")
        os.replace(tmp, side)
        for _ in range(RACY_TRIES):
            if os.stat(side).st_ctime_ns > stamp.newest_ns():
                return True
            time.sleep(RACY_WAIT_S)
            os.utime(side)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return False


def drop_stamp(path: Path) -> None:
    """Remove the sidecar of ``path`` (none is fine)."""
    with contextlib.suppress(OSError):
        sidecar(path).unlink()


def sqlite_file(engine: Engine) -> Path | None:
    """The file of a SQLite engine; None for another backend or an in-memory database."""
    url = engine.url
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


class Custody:
    """One session's knowledge that its SQLite file is sound, from the check before its
    first write to the stamp it leaves at close (see the module's doc).

    ``trusted`` is the state of the files as the session last knew them sound: set by
    :meth:`check`, renewed after each of the session's own write transactions, and None
    (nothing stamped at close) as soon as the files are seen in any other state.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.path = sqlite_file(engine)
        self.trusted: Stamp | None = None
        #: the stamp a match was found in, while the session has written nothing
        self._matched: Stamp | None = None
        self._dropped = False

    def check(self, shown: str | None = None) -> Checked:
        """Skip the check when the files match their stamp; else the full check
        (:func:`check_intact`, a one-line CorpusError for a damaged database)."""
        if self.path is None:
            check_intact(self.engine, shown)
            return Checked.FULL
        before = stamp_of(self.path)
        if before is not None and read_stamp(self.path) == before:
            self.trusted = self._matched = before
            return Checked.STAMP
        check_intact(self.engine, shown)
        # vouch only for a state the check saw from start to end
        self.trusted = before if before is not None and stamp_of(self.path) == before else None
        return Checked.FULL

    def begin_write(self) -> None:
        """In a write transaction, the write lock held, before anything is written: the
        stamp on disk stops describing the files (removed: a crash between the commit and
        the next stamp leaves none), and files changed since the session last saw them
        (by another program, or another process's writes) are no longer vouched for."""
        if self.path is None:
            return
        if not self._dropped:
            drop_stamp(self.path)
            self._dropped = True
            self._matched = None
        if self.trusted is not None and stamp_of(self.path) != self.trusted:
            self.trusted = None

    def end_write(self, committed: bool) -> None:
        """After the transaction: a commit's files are vouched for as they now are; a
        rollback keeps the custody only if it left the files as they were."""
        if self.path is None or self.trusted is None:
            return
        now = stamp_of(self.path)
        if committed:
            self.trusted = now
        elif now != self.trusted:
            self.trusted = None

    def release(self, dispose: Callable[[], None]) -> None:
        """Close the engine (``dispose``) and stamp the files, if the session still
        vouches for them: as it last saw them, then as the close left them (the WAL
        checkpointed into the file and removed, unless another connection holds it)."""
        vouch = (self.path is not None and self.trusted is not None
                 and stamp_of(self.path) == self.trusted)
        dispose()
        if not vouch or self.path is None:
            return
        final = stamp_of(self.path)
        if final is not None and final != self._matched:  # an unchanged match stays as it is
            write_stamp(self.path, final)
