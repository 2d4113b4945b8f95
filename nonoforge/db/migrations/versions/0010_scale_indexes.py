"""Indexes that keep the corpus's reads proportional to what is asked at a million puzzles.

- ``ix_puzzles_size`` becomes (width, height, id): an exact size (``db query --size 25x25``)
  is then read in id order from the index, a page at a time, instead of every puzzle of that
  size being read and sorted for each page (SQLite's index held the id already; PostgreSQL's
  did not).
- ``ix_provenance_site`` becomes (site, puzzle_id): ``db stats`` counts each site's
  distinct puzzles from the index alone, in order, without a table lookup per row and a
  sort; filters on the site seek it as before.
- ``ix_results_version_rated`` (solver_version, rated_at): the most recently rated solver
  version (``db stats``'s default) is found by seeks, not by reading every rating.

Data is unchanged; building the indexes reads each table once (about a minute for a
million puzzles on a loaded machine).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_puzzles_size", table_name="puzzles")
    op.create_index("ix_puzzles_size", "puzzles", ["width", "height", "id"])
    op.drop_index("ix_provenance_site", table_name="provenance")
    op.create_index("ix_provenance_site_puzzle", "provenance", ["site", "puzzle_id"])
    op.create_index("ix_results_version_rated", "results", ["solver_version", "rated_at"])


def downgrade() -> None:
    op.drop_index("ix_results_version_rated", table_name="results")
    op.drop_index("ix_provenance_site_puzzle", table_name="provenance")
    op.create_index("ix_provenance_site", "provenance", ["site"])
    op.drop_index("ix_puzzles_size", table_name="puzzles")
    op.create_index("ix_puzzles_size", "puzzles", ["width", "height"])
