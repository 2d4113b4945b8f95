"""The corpus schema (nonoforge/db/models.py): the tables the migrations build are the
tables the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from dbfixtures import url

from nonoforge.db import Corpus
from nonoforge.db import models as m

__all__ = ["url"]  # the corpus fixtures, from dbfixtures


def test_schema_of_migrations_matches_the_models(url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    with Corpus.open(url) as c, c.engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"version_table": m.VERSION_TABLE})
        diff = [d for d in compare_metadata(ctx, m.metadata) if d[0] != "remove_table"]
    assert diff == []
