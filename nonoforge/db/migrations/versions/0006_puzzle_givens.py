"""Keep a puzzle's givens (cells printed solved, issue 17) beside its ROFL record.

A puzzle with givens is unique only with them, so the corpus must keep them; ROFL is a
shared specification without givens and is not extended silently. They live in their
own column: NULL for the puzzles that have none (every puzzle before this revision),
else ``row,column,colour`` triples counted from 0, space-separated, in the record's
(canonical) colours -- the same text the puzzle's key is computed from.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("puzzles") as batch:
        batch.add_column(sa.Column("givens", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("puzzles") as batch:
        batch.drop_column("givens")
