"""The corpus schema as SQLAlchemy Core tables: what the store reads and writes.

The tables use only portable types (integers, strings, text, binary, booleans, timestamps
and SQLAlchemy's JSON), so the same schema runs on SQLite and PostgreSQL. Constraint names
follow one naming convention so that migrations can refer to them on every backend.

This module describes the *current* schema; the migrations in
``nonoforge/db/migrations/versions`` are the frozen history that builds it, and
``tests/test_db_models.py`` checks that the two agree.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

#: Names for every constraint and index, the same on every backend.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: The alembic version table; named for us so a shared PostgreSQL database stays tidy.
VERSION_TABLE = "nonoforge_version"

#: The statuses a fetch-log row may have.
FETCH_STATUSES = ("done", "missing", "failed")

metadata = MetaData(naming_convention=NAMING)

sources = Table(
    "sources",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("url", Text),
    Column("licence", Text),
)

puzzles = Table(
    "puzzles",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("key", String(16), nullable=False, unique=True),
    Column("width", Integer, nullable=False),
    Column("height", Integer, nullable=False),
    Column("colors", Integer, nullable=False),
    # the canonical ROFL record of the puzzle without metadata (with its goal, if known)
    Column("rofl", LargeBinary, nullable=False),
    Column("has_goal", Boolean, nullable=False),
    Column("first_seen", DateTime(timezone=True), nullable=False),
    # the puzzle's givens (cells printed solved), which ROFL does not hold: NULL when it
    # has none, else "row,column,colour" triples from 0, space-separated (migration 0006)
    Column("givens", Text),
    # with the id: an exact size is read in id order, a page at a time (migration 0010)
    Index("ix_puzzles_size", "width", "height", "id"),
    Index("ix_puzzles_colors", "colors"),
)

provenance = Table(
    "provenance",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "puzzle_id",
        Integer,
        ForeignKey("puzzles.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    # what the metadata names: a whole catalogue line ("webpbn.com #1611"), "file:NAME"...
    Column("source", String(200), nullable=False, index=True),
    # the site it comes from, short ("webpbn", "file"): what filters and counts use
    # (nonoforge.db.sites; migration 0007 split it out of the source)
    Column("site", String(100), nullable=False, server_default="unknown"),
    # NULLs are distinct in a unique constraint on SQLite and PostgreSQL alike, so the
    # constraint binds exactly the rows whose source_id is set
    Column("source_id", String(200)),
    Column("title", Text),
    Column("author", Text),
    Column("copyright", Text),
    Column("licence", Text),
    Column("note", Text),  # migration 0004
    Column("raw", LargeBinary),
    Column("added", DateTime(timezone=True), nullable=False),
    # what the source says beyond the puzzle (nonograms: difficulty, rating, date, author id)
    Column("extra", JSON),  # migration 0005
    UniqueConstraint("source", "source_id"),
    # a site's distinct puzzles counted from the index alone (migration 0010)
    Index("ix_provenance_site_puzzle", "site", "puzzle_id"),
)

results = Table(
    "results",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "puzzle_id",
        Integer,
        ForeignKey("puzzles.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("solver_version", String(64), nullable=False),
    Column("status", String(32)),
    Column("technique", String(64)),
    Column("effort", JSON),
    Column("time_s", Float),
    Column("times", JSON),
    Column("score", Float),
    Column("grade", Integer),
    Column("rated_at", DateTime(timezone=True), nullable=False),
    # the human difficulty features, score and grade (migration 0009; NULL until rated)
    Column("human", JSON),
    Column("human_score", Float),
    Column("human_grade", Integer),
    UniqueConstraint("puzzle_id", "solver_version"),
    Index("ix_results_version_grade", "solver_version", "grade"),
    # collections are picked in this order (migration 0008)
    Index("ix_results_version_grade_score", "solver_version", "grade", "score", "puzzle_id"),
    # and in this one with --grade-by human (migration 0009)
    Index("ix_results_version_human_grade_score", "solver_version", "human_grade",
          "human_score", "puzzle_id"),
    # the most recently rated version found by seeks (migration 0010)
    Index("ix_results_version_rated", "solver_version", "rated_at"),
)

collections = Table(
    "collections",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("params", JSON),
)

collection_members = Table(
    "collection_members",
    metadata,
    Column(
        "collection_id",
        Integer,
        ForeignKey("collections.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("position", Integer, primary_key=True),
    Column(
        "puzzle_id",
        Integer,
        ForeignKey("puzzles.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
)

fetch_log = Table(
    "fetch_log",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("site", String(100), nullable=False),
    Column("item", String(200), nullable=False),
    Column("status", String(16), nullable=False),
    Column("reason", Text),
    Column("attempts", Integer, nullable=False),
    Column("puzzle_key", String(16)),
    Column("updated", DateTime(timezone=True), nullable=False),
    UniqueConstraint("site", "item"),
    CheckConstraint("status IN ('done', 'missing', 'failed')", name="status"),
    Index("ix_fetch_log_site_status", "site", "status"),
)

#: Fitted difficulty models, one per solver version (added by migration 0002).
difficulty_models = Table(
    "difficulty_models",
    metadata,
    Column("solver_version", String(64), primary_key=True),
    Column("model", JSON, nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False),
)

#: Every table the store owns, in creation order.
TABLES = (
    sources,
    puzzles,
    provenance,
    results,
    collections,
    collection_members,
    fetch_log,
    difficulty_models,
)
