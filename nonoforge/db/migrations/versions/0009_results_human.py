"""Keep the human difficulty features of a rating (issue 36) beside the time-based ones.

``human`` (JSON: steps, stop, hardest technique, steps per technique, footholds,
bottleneck), ``human_score`` and ``human_grade``: NULL for every rating made before this
revision, filled by the next ``rate --db`` (which computes them for the ratings that lack
them, without timing anything again). An index on ``(solver_version, human_grade,
human_score, puzzle_id)`` serves ``collection build --grade-by human`` as 0008's serves
the time grades.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("human", sa.JSON, nullable=True))
        batch.add_column(sa.Column("human_score", sa.Float, nullable=True))
        batch.add_column(sa.Column("human_grade", sa.Integer, nullable=True))
    op.create_index(
        "ix_results_version_human_grade_score", "results",
        ["solver_version", "human_grade", "human_score", "puzzle_id"],
    )


def downgrade() -> None:
    op.drop_index("ix_results_version_human_grade_score", table_name="results")
    with op.batch_alter_table("results") as batch:
        batch.drop_column("human_grade")
        batch.drop_column("human_score")
        batch.drop_column("human")
