"""Store the site a puzzle comes from beside its catalogue line: provenance.site.

Until now ``provenance.source`` held whatever the metadata said, so a corpus of webpbn
puzzles read from ``.non`` files had one "source" per puzzle (``webpbn.com #1``,
``webpbn.com #6``, ...) and ``--source webpbn`` matched none of them. The catalogue line
stays in ``source`` (it is part of the deduplication key); the new ``site`` column holds
the short name filters and counts use. Existing rows are split here, one UPDATE per
distinct source, by the rule of :mod:`nonoforge.db.sites` as it was at this revision
(copied below: a migration is frozen history). Rows whose channel is unknown now (an
imported file's ``file:NAME``, an ingested file's ``local``) become ``file``.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28
"""

from __future__ import annotations

import re

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_KNOWN = (
    (re.compile(r"\bwebpbn\b", re.I), "webpbn"),
    (re.compile(r"^nonograms(\.(ru|org|com))?$|\bnonograms\.(ru|org|com)\b", re.I), "nonograms"),
    (re.compile(r"^(tournament|taai|tcga|icga)\b", re.I), "tournament"),
    (re.compile(r"^generated\b", re.I), "generated"),
    (re.compile(r"^file:", re.I), "file"),
    (re.compile(r"^local$", re.I), "file"),
)
_WORD = re.compile(r"^[a-z0-9][a-z0-9._-]*$", re.I)


def _site(source: str | None) -> str:
    text = (source or "").strip()
    if not text:
        return "unknown"
    for pattern, site in _KNOWN:
        if pattern.search(text):
            return site
    return text.lower()[:100] if _WORD.match(text) else "file"


def upgrade() -> None:
    with op.batch_alter_table("provenance") as batch:
        batch.add_column(
            sa.Column("site", sa.String(100), nullable=False, server_default="unknown")
        )
        batch.create_index("ix_provenance_site", ["site"])
    conn = op.get_bind()
    prov = sa.table("provenance", sa.column("source", sa.String), sa.column("site", sa.String))
    sources = list(conn.execute(sa.select(prov.c.source).distinct()).scalars())
    rows = [{"s": s, "to": _site(s)} for s in sources]
    rows = [r for r in rows if r["to"] != "unknown"]
    if rows:
        conn.execute(
            sa.update(prov).where(prov.c.source == sa.bindparam("s"))
            .values(site=sa.bindparam("to")),
            rows,
        )


def downgrade() -> None:
    with op.batch_alter_table("provenance") as batch:
        batch.drop_index("ix_provenance_site")
        batch.drop_column("site")
