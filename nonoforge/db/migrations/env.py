"""Alembic environment of the corpus: runs migrations on the connection the store hands over.

At run time :mod:`nonoforge.db.connect` builds a programmatic ``Config`` and passes its open
connection in ``config.attributes["connection"]``; no ``alembic.ini`` is needed. A developer
drafting a new revision with the ``alembic`` command instead gives a database URL, as
``sqlalchemy.url`` in a config file or as ``-x url=sqlite:///dev.db``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from nonoforge.db.models import VERSION_TABLE, metadata

config = context.config


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        render_as_batch=True,  # SQLite can only ALTER tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()
else:
    conn = config.attributes.get("connection")
    if conn is not None:
        _run(conn)
    else:
        url = config.get_main_option("sqlalchemy.url") or context.get_x_argument(
            as_dictionary=True
        ).get("url")
        if not url:
            raise SystemExit("set sqlalchemy.url (or -x url=...) to run migrations by hand")
        engine = create_engine(url)
        with engine.connect() as c:
            _run(c)
            c.commit()
