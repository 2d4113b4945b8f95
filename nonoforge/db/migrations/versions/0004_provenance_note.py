"""Keep a puzzle's note (a file's description, a site's difficulty line) in its provenance.

Every other metadata field was stored; the note was dropped on import, so ``db export``
gave back less than ``convert`` reads.

Revision ID: 0004
Revises: 0002 (provenance.extra, written at the same time, became 0005 and follows this)
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("provenance") as batch:
        batch.add_column(sa.Column("note", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("provenance") as batch:
        batch.drop_column("note")
