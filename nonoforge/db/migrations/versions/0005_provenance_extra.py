"""Keep what a site says about a puzzle beyond the puzzle: provenance.extra (JSON).

For nonograms.org/.ru that is the site's difficulty and picture rating (``x/10``), the date
added, the author's id and the statistics link: the largest human difficulty signal there
is, kept beside our own grades.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23

(Agreed as 0003; numbered 0005 because 0004, provenance.note, reached main first and
corpora at 0004 already exist: after 0004 is the one place every corpus can upgrade from.)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("provenance") as batch:
        batch.add_column(sa.Column("extra", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("provenance") as batch:
        batch.drop_column("extra")
