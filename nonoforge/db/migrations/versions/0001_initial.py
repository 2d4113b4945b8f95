"""The first corpus schema: puzzles, provenance, sources, results, collections, fetch log.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "sources",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("url", sa.Text),
        sa.Column("licence", sa.Text),
        sa.PrimaryKeyConstraint("id", name="pk_sources"),
        sa.UniqueConstraint("name", name="uq_sources_name"),
    )
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("key", sa.String(16), nullable=False),
        sa.Column("width", sa.Integer, nullable=False),
        sa.Column("height", sa.Integer, nullable=False),
        sa.Column("colors", sa.Integer, nullable=False),
        sa.Column("rofl", sa.LargeBinary, nullable=False),
        sa.Column("has_goal", sa.Boolean, nullable=False),
        sa.Column("first_seen", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_puzzles"),
        sa.UniqueConstraint("key", name="uq_puzzles_key"),
    )
    op.create_index("ix_puzzles_size", "puzzles", ["width", "height"])
    op.create_index("ix_puzzles_colors", "puzzles", ["colors"])
    op.create_table(
        "provenance",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("puzzle_id", sa.Integer, nullable=False),
        sa.Column("source", sa.String(200), nullable=False),
        sa.Column("source_id", sa.String(200)),
        sa.Column("title", sa.Text),
        sa.Column("author", sa.Text),
        sa.Column("copyright", sa.Text),
        sa.Column("licence", sa.Text),
        sa.Column("raw", sa.LargeBinary),
        sa.Column("added", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_provenance"),
        sa.ForeignKeyConstraint(
            ["puzzle_id"], ["puzzles.id"], name="fk_provenance_puzzle_id_puzzles",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("source", "source_id", name="uq_provenance_source_source_id"),
    )
    op.create_index("ix_provenance_puzzle_id", "provenance", ["puzzle_id"])
    op.create_index("ix_provenance_source", "provenance", ["source"])
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("puzzle_id", sa.Integer, nullable=False),
        sa.Column("solver_version", sa.String(64), nullable=False),
        sa.Column("status", sa.String(32)),
        sa.Column("technique", sa.String(64)),
        sa.Column("effort", sa.JSON),
        sa.Column("time_s", sa.Float),
        sa.Column("times", sa.JSON),
        sa.Column("score", sa.Float),
        sa.Column("grade", sa.Integer),
        sa.Column("rated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_results"),
        sa.ForeignKeyConstraint(
            ["puzzle_id"], ["puzzles.id"], name="fk_results_puzzle_id_puzzles",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint(
            "puzzle_id", "solver_version", name="uq_results_puzzle_id_solver_version"
        ),
    )
    op.create_index("ix_results_version_grade", "results", ["solver_version", "grade"])
    op.create_table(
        "collections",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created", TS, nullable=False),
        sa.Column("params", sa.JSON),
        sa.PrimaryKeyConstraint("id", name="pk_collections"),
        sa.UniqueConstraint("name", name="uq_collections_name"),
    )
    op.create_table(
        "collection_members",
        sa.Column("collection_id", sa.Integer, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("puzzle_id", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("collection_id", "position", name="pk_collection_members"),
        sa.ForeignKeyConstraint(
            ["collection_id"], ["collections.id"],
            name="fk_collection_members_collection_id_collections", ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["puzzle_id"], ["puzzles.id"],
            name="fk_collection_members_puzzle_id_puzzles", ondelete="CASCADE",
        ),
    )
    op.create_index(
        "ix_collection_members_puzzle_id", "collection_members", ["puzzle_id"]
    )
    op.create_table(
        "fetch_log",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("site", sa.String(100), nullable=False),
        sa.Column("item", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("puzzle_key", sa.String(16)),
        sa.Column("updated", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_fetch_log"),
        sa.UniqueConstraint("site", "item", name="uq_fetch_log_site_item"),
        sa.CheckConstraint(
            "status IN ('done', 'missing', 'failed')", name="ck_fetch_log_status"
        ),
    )
    op.create_index("ix_fetch_log_site_status", "fetch_log", ["site", "status"])


def downgrade() -> None:
    for table in (
        "fetch_log", "collection_members", "collections", "results", "provenance",
        "puzzles", "sources",
    ):
        op.drop_table(table)
