"""Keep a puzzle's note (a file's description, a site's difficulty line) in its provenance.

Every other metadata field was stored; the note was dropped on import, so ``db export``
gave back less than ``convert`` reads.

Revision ID: 0004
Revises: 0003 (provenance.extra), or 0002 where 0003 is not there yet
Create Date: 2026-11-23
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0004"
# 0003 (provenance.extra) was written on another branch at the same time as this one; the
# chain stays linear whichever is merged first. Once both are merged this is just "0003".
down_revision = (
    "0003" if any(Path(__file__).parent.glob("0003_*.py")) else "0002"
)
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("provenance") as batch:
        batch.add_column(sa.Column("note", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("provenance") as batch:
        batch.drop_column("note")
