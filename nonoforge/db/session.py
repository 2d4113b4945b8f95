"""The corpus's connection to its database: opening, closing, read and write transactions.

:class:`Session` is the base of :class:`~nonoforge.db.store.Corpus`; the modules beside it
(``results``, ``collections``, ``stats``) add the operations on one concern each, and
``store`` the puzzles themselves.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Self, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, SQLAlchemyError

from nonoforge.db.connect import one_line, open_engine
from nonoforge.db.stamp import Checked, Custody
from nonoforge.errors import CorpusError

T = TypeVar("T")
#: Attempts of a write transaction that collides with a concurrent writer's insert.
ATTEMPTS = 3


class Session:
    """One SQLAlchemy engine, its transactions and the errors they may raise."""

    def __init__(self, engine: Engine) -> None:
        """Wrap an engine whose database is already at the current schema (see :meth:`open`)."""
        self.engine = engine
        # writers: on SQLite their transactions begin IMMEDIATE (see sqlite_setup)
        self._writer = engine.execution_options(nonoforge_write=True)
        self._closed = False
        #: whether the database was found intact (checked before the first write)
        self._intact = False
        #: how it was found intact: the full check, or a stamp of the file (None: not yet)
        self.checked: Checked | None = None
        self._custody = Custody(engine)
        self._sources_seen: set[str] = set()
        self._sources_pending: set[str] = set()

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def open(
        cls, url_or_path: str | os.PathLike[str] | None = None, *, check: bool = False
    ) -> Self:
        """Open (creating and migrating as needed) the corpus at a path or SQLAlchemy URL.

        ``None`` means ``nonoforge.db`` in the current directory; a path is a SQLite file;
        anything with ``://`` is a SQLAlchemy URL (``postgresql+psycopg://...``). With
        ``check`` the database is checked at once (:meth:`check`), as a command that
        will write does before reading its input; otherwise the first write checks it.
        """
        self = cls(open_engine(url_or_path))
        if check:
            try:
                self.check()
            except BaseException:
                self.close()
                raise
        return self

    def check(self) -> Checked:
        """Refuse a damaged database (one-line CorpusError, exit 4): see
        :func:`~nonoforge.db.connect.check_intact`. Done once per session, before the
        first write; skipped when a SQLite file is exactly as it was stamped sound
        (:mod:`nonoforge.db.stamp`). Says which of the two it was."""
        if self._closed:
            raise CorpusError("the corpus is closed")
        self.checked = self._custody.check()
        self._intact = True
        return self.checked

    def close(self) -> None:
        """Release the database connections; a SQLite file the session still vouches for
        is stamped sound (:meth:`~nonoforge.db.stamp.Custody.release`)."""
        if not self._closed:
            self._closed = True
            self._custody.release(self.engine.dispose)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        """The database URL, password included (to reopen the corpus in another process)."""
        return self.engine.url.render_as_string(hide_password=False)

    def __repr__(self) -> str:
        return f"Corpus({self.engine.url.render_as_string(hide_password=True)!r})"

    # -- transactions -------------------------------------------------------------------

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        """One write transaction; database errors become one-line CorpusErrors.

        The first write of a session checks the database first (:meth:`check`): a
        damaged corpus is refused before anything is written into it. The session's
        custody of the file sees each transaction begin and end (:class:`Custody`).
        """
        if not self._intact and not self._closed:
            self.check()
        self._sources_pending.clear()
        committed = False
        try:
            with self._errors(), self._writer.begin() as conn:
                self._custody.begin_write()
                yield conn
            committed = True
        finally:
            self._custody.end_write(committed)
            pending, self._sources_pending = self._sources_pending, set()
        self._sources_seen |= pending  # only once the transaction has committed

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._errors(), self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        if self._closed:
            raise CorpusError("the corpus is closed")
        try:
            yield
        except IntegrityError:
            raise
        except (DBAPIError, SQLAlchemyError) as e:
            raise CorpusError(f"corpus database error: {one_line(e)}") from None

    def _retrying(self, work: Callable[[Connection], T]) -> T:
        """``work(conn)`` in one write transaction, redone when a concurrent writer inserted
        the same rows first (an IntegrityError), up to :data:`ATTEMPTS` times."""
        for attempt in range(ATTEMPTS):
            try:
                with self._write() as conn:
                    return work(conn)
            except IntegrityError as e:
                if attempt == ATTEMPTS - 1:
                    raise CorpusError(f"corpus database error: {one_line(e)}") from None
        raise AssertionError("unreachable")  # pragma: no cover
