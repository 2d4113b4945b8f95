"""Store the fitted difficulty model of each solver version.

Revision ID: 0002
Revises: 0001
Create Date: 2025-01-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "difficulty_models",
        sa.Column("solver_version", sa.String(64), nullable=False),
        sa.Column("model", sa.JSON, nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("solver_version", name="pk_difficulty_models"),
    )


def downgrade() -> None:
    op.drop_table("difficulty_models")
