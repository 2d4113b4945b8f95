"""Opening a corpus database: URLs and paths, SQLite settings, and schema migrations.

A path is a SQLite file (WAL journal, foreign keys on, a busy timeout, writers beginning
``BEGIN IMMEDIATE``); anything with ``://`` is a SQLAlchemy URL. :func:`open_engine` hands
back an engine whose database is at the head revision of the bundled alembic migrations.
"""

from __future__ import annotations

import contextlib
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from nonoforge.db import models as m
from nonoforge.db.filters import SQLITE_FOLD, fold_text
from nonoforge.errors import CorpusError
from nonoforge.util import first_line

#: The corpus a command uses when none is named.
DEFAULT_PATH = "nonoforge.db"
#: How long a writer waits for another one to finish (SQLite), in seconds.
BUSY_TIMEOUT_S = 60.0


@lru_cache(maxsize=1)
def script_info() -> tuple[str, frozenset[str]]:
    """The head revision of the bundled migrations and every revision they know."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config())
    head = script.get_current_head()
    if head is None:  # pragma: no cover - the package ships its migrations
        raise CorpusError("the corpus migrations are missing from this installation")
    return head, frozenset(r.revision for r in script.walk_revisions())


def alembic_config(connection: Connection | None = None) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def one_line(e: BaseException) -> str:
    return first_line(getattr(e, "orig", None) or e)


def describe(target: str) -> str:
    """A URL or path fit for a message: never shows a password."""
    if "://" in target:
        with contextlib.suppress(Exception):
            return make_url(target).render_as_string(hide_password=True)
    return target


def url_for(target: str | os.PathLike[str] | None) -> URL:
    """The SQLAlchemy URL a path or URL names; paths become SQLite files."""
    raw = DEFAULT_PATH if target is None else os.fspath(target)
    if "://" in raw:
        try:
            return make_url(raw)
        except ArgumentError:
            raise CorpusError(f"not a database URL: {describe(raw)!r}") from None
    path = Path(raw).expanduser()
    if path.is_dir():
        raise CorpusError(f"{raw}: is a directory, not a corpus file")
    if not path.parent.is_dir():
        raise CorpusError(f"{raw}: the directory {str(path.parent)!r} does not exist")
    return URL.create("sqlite+pysqlite", database=str(path.resolve()))


def sqlite_setup(engine: Engine) -> None:
    """Pragmas on every new connection, and explicit transactions we control.

    pysqlite's own transaction handling is switched off so that writers can begin with
    ``BEGIN IMMEDIATE``: a deferred writer that read first could fail with "database is
    locked" at once instead of waiting its turn.
    """

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        # the title and author filters' case folding (nonoforge.db.filters.fold)
        dbapi_conn.create_function(SQLITE_FOLD, 1, fold_text, deterministic=True)
        cur = dbapi_conn.cursor()
        try:
            cur.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            cur.execute("PRAGMA foreign_keys = ON")
            cur.execute("PRAGMA journal_mode = WAL")
            # with WAL, NORMAL loses no committed transaction when a process is killed
            cur.execute("PRAGMA synchronous = NORMAL")
        finally:
            cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("nonoforge_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def open_engine(target: str | os.PathLike[str] | None) -> Engine:
    """An engine for the corpus at ``target`` (a path, a URL, or None for the default),
    its schema created or upgraded; every failure is a one-line :class:`CorpusError`."""
    url = url_for(target)
    shown = describe(os.fspath(target) if target is not None else DEFAULT_PATH)
    sqlite = url.get_backend_name() == "sqlite"
    try:
        kwargs: dict[str, Any] = {}
        if sqlite:
            kwargs["connect_args"] = {"timeout": BUSY_TIMEOUT_S}
        else:
            kwargs["pool_pre_ping"] = True
        engine = create_engine(url, **kwargs)
    except (ArgumentError, NoSuchModuleError, ImportError, ValueError) as e:
        raise CorpusError(f"cannot use database {shown}: {one_line(e)}") from None
    if sqlite:
        sqlite_setup(engine)
    try:
        migrate(engine, shown)
    except CorpusError:
        engine.dispose()
        raise
    except (DBAPIError, SQLAlchemyError, OSError) as e:
        engine.dispose()
        msg = one_line(e)
        if "not a database" in msg or "file is encrypted" in msg:
            raise CorpusError(f"{shown}: not a nonoforge database ({msg})") from None
        raise CorpusError(f"cannot open corpus {shown}: {msg}") from None
    return engine


#: How many of ``PRAGMA quick_check``'s findings a refusal names.
CHECK_SHOWN = 1


def check_intact(engine: Engine, shown: str | None = None) -> None:
    """Refuse (one-line :class:`CorpusError`, exit 4) a corpus whose database is damaged,
    before anything is written into it.

    SQLite: ``PRAGMA quick_check`` (every page's structure, O(file size) but no index
    cross-check), which finds pages overwritten with garbage that opening the file and
    reading its schema do not notice -- without it ``db import`` would write into such a
    file. PostgreSQL keeps its own pages whole; a cheap query through the version table and
    the puzzles' primary key index checks that the schema answers.
    """
    if shown is None:
        url = engine.url
        sqlite = url.get_backend_name() == "sqlite"
        shown = str(url.database) if sqlite else url.render_as_string(hide_password=True)
    try:
        with engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                found = [str(r[0]) for r in conn.exec_driver_sql("PRAGMA quick_check")]
                if found != ["ok"]:
                    raise CorpusError(
                        f"{shown}: the corpus file is damaged ({'; '.join(found[:CHECK_SHOWN])}"
                        f"{'; ...' if len(found) > CHECK_SHOWN else ''}); nothing was written: "
                        "restore it from a backup"
                    )
            else:
                conn.execute(text(f"SELECT count(*) FROM {m.VERSION_TABLE}")).scalar()
                conn.execute(text("SELECT max(id) FROM puzzles")).scalar()
            conn.rollback()
    except CorpusError:
        raise
    except (DBAPIError, SQLAlchemyError) as e:
        raise CorpusError(
            f"{shown}: the corpus database is damaged ({one_line(e)}); nothing was written"
        ) from None


#: The head revision of the bundled migrations, known without importing alembic (0.4 s of
#: every command's start-up): a corpus already there is opened without it.
#: ``tests/test_db_connect.py`` holds it to :func:`script_info`; a new revision updates it.
HEAD_REVISION = "0010"


def _stored_revision(engine: Engine) -> str | None:
    """The corpus's revision read with plain SQL (None when it has no version table yet,
    or the table cannot be read: alembic then decides)."""
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table(m.VERSION_TABLE):
                conn.rollback()
                return None
            rows = conn.execute(text(f"SELECT version_num FROM {m.VERSION_TABLE}")).all()
            conn.rollback()
    except (DBAPIError, SQLAlchemyError):
        return None
    return str(rows[0][0]) if len(rows) == 1 else None


#: The schema the migrations build on a new SQLite file, as SQLite stores it: its
#: ``CREATE`` statements, one a paragraph (:func:`head_schema`). A new SQLite corpus is
#: created from them, without alembic (0.3 s of CPU, a twentieth of importing the 27
#: shared tournament sets into it; issue 38). ``tests/test_db_connect.py`` holds the file
#: to what the migrations build; a new revision writes it again with
#: :func:`write_head_schema`.
HEAD_SCHEMA = Path(__file__).with_name("migrations") / f"head-{HEAD_REVISION}.sqlite.sql"


def head_schema(conn: Connection) -> str:
    """The schema of a SQLite database as :data:`HEAD_SCHEMA` holds it: its tables'
    ``CREATE`` statements, then its indexes' (each in the order SQLite lists them),
    paragraphs of their text as stored, SQLite's own objects left out."""
    rows = conn.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY type <> 'table', rowid"
    ).all()
    return "".join(f"{r[0]};\n\n" for r in rows)


def write_head_schema() -> Path:
    """Write :data:`HEAD_SCHEMA` from a fresh file the migrations build (after adding a
    revision: ``python -c 'from nonoforge.db.connect import write_head_schema as w; w()'``)."""
    import tempfile

    from alembic import command

    with tempfile.TemporaryDirectory() as d:
        engine = create_engine(f"sqlite:///{d}/head.db")
        try:
            with engine.begin() as conn:
                command.upgrade(alembic_config(conn), "head")
            with engine.connect() as conn:
                text_ = head_schema(conn)
        finally:
            engine.dispose()
    HEAD_SCHEMA.write_text(text_)
    return HEAD_SCHEMA


def _create_at_head(engine: Engine) -> bool:
    """Create the head schema in an empty SQLite file from :data:`HEAD_SCHEMA`, in one
    write transaction; False (nothing done) when the file has anything in it by then (a
    corpus another process just made, a foreign database: the migrations decide), when
    the database is not SQLite, or when the file is missing from this installation."""
    if engine.dialect.name != "sqlite" or not HEAD_SCHEMA.is_file():
        return False
    statements = [s for s in HEAD_SCHEMA.read_text().split(";\n\n") if s.strip()]
    with engine.execution_options(nonoforge_write=True).connect() as conn, conn.begin():
        if conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar():
            return False
        for statement in statements:
            conn.exec_driver_sql(statement)
        conn.exec_driver_sql(
            f"INSERT INTO {m.VERSION_TABLE} (version_num) VALUES (?)", (HEAD_REVISION,)
        )
    return True


def migrate(engine: Engine, shown: str) -> None:
    """Bring the schema to the bundled head revision, refusing foreign or newer ones."""
    revision = _stored_revision(engine)
    if revision == HEAD_REVISION:
        return
    if revision is None and _create_at_head(engine):
        return
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    head, known = script_info()

    def current(conn: Connection) -> str | None:
        ctx = MigrationContext.configure(conn, opts={"version_table": m.VERSION_TABLE})
        return ctx.get_current_revision()

    with engine.connect() as conn:
        rev = current(conn)
        conn.rollback()
    if rev == head:
        return
    if rev is not None:  # an existing corpus: refuse to migrate (write) a damaged one
        check_intact(engine, shown)
    with engine.execution_options(nonoforge_write=True).connect() as conn, conn.begin():
        if conn.dialect.name == "postgresql":  # one migrator at a time
            conn.execute(text("SELECT pg_advisory_xact_lock(726165430)"))
        rev = current(conn)  # another process may have migrated meanwhile
        if rev is not None and rev not in known:
            raise CorpusError(
                f"{shown}: the corpus schema (revision {rev}) is newer than this "
                "nonoforge; upgrade nonoforge to use it"
            )
        if rev is None:
            names = set(inspect(conn).get_table_names())
            ours = {t.name for t in m.TABLES}
            if names & ours or (conn.dialect.name == "sqlite" and names):
                raise CorpusError(
                    f"{shown}: not a nonoforge database (it has tables but no "
                    f"{m.VERSION_TABLE})"
                )
        if rev != head:
            command.upgrade(alembic_config(conn), "head")
