"""Index the results in the order collections are picked in: (version, grade, score, puzzle).

``collection build`` numbers each grade's rated puzzles in score order in the database
(a window function) and fetches only the ones it picks. With this index SQLite and
PostgreSQL read them in that order from the index alone instead of sorting every rated
puzzle: 0.09 s -> 0.03 s for 60,000 candidates, the part of a build that grows with the
corpus.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_results_version_grade_score", "results",
        ["solver_version", "grade", "score", "puzzle_id"],
    )


def downgrade() -> None:
    op.drop_index("ix_results_version_grade_score", table_name="results")
