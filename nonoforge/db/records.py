"""How puzzles sit in the database: canonical ROFL records, and metadata from provenance.

A stored record is the canonical ROFL encoding of a puzzle's clues and goal without its
metadata; the metadata comes back from the puzzle's first provenance row. A puzzle's
givens (cells printed solved), which ROFL does not hold, sit beside the record in the
``givens`` column (:func:`givens_text`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, select

from nonoforge.db import models as m
from nonoforge.errors import CorpusError, FormatError, PuzzleError
from nonoforge.puzzle import Given, Meta, Palette, Puzzle

#: The source recorded for puzzles whose metadata names none.
UNKNOWN_SOURCE = "unknown"
#: Rows per ``IN (...)`` list: well under every backend's parameter limit.
CHUNK = 500


def utcnow() -> datetime:
    """Now, with its time zone (UTC): every timestamp the store writes."""
    return datetime.now(UTC)


def isoformat(value: datetime | None) -> str | None:
    """A stored timestamp as ISO 8601 text with its zone (UTC when the backend dropped it)."""
    if value is None:
        return None
    if value.tzinfo is None:  # SQLite hands timestamps back without their zone
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def chunks(seq: Sequence[Any], n: int = CHUNK) -> Iterator[Sequence[Any]]:
    """``seq`` in slices of ``n``: the ``IN (...)`` lists of one query each."""
    for i in range(0, len(seq), n):
        yield seq[i : i + n]


def codec() -> Any:
    """The ROFL codec module (imported late: the formats package is heavier than we are)."""
    from nonoforge.formats import rofl

    return rofl


def encode_record(p: Puzzle, used: list[int] | None = None) -> bytes:
    """The stored form of a puzzle: canonical ROFL of its clues and goal, no metadata
    (its givens go to their own column: :func:`givens_text`). ``used``: its
    :meth:`~Puzzle.used_colors`, when the caller has them."""
    b = bare(p, used)
    if b.givens:
        b = Puzzle.trusted(b.rows, b.columns, b.palette, b.meta, b.goal)
    return bytes(codec().encode(b))


def givens_text(p: Puzzle) -> str | None:
    """The ``givens`` column of ``p``: its givens in canonical colours, as
    ``row,column,colour`` triples from 0 (None when it has none)."""
    if not p.givens:
        return None
    return " ".join(f"{r},{c},{k}" for r, c, k in bare(p).givens)


def parse_givens(text: str | None, key: str) -> tuple[Given, ...]:
    """The givens a ``givens`` column holds (see :func:`givens_text`)."""
    if not text:
        return ()
    try:
        out = tuple(tuple(int(v) for v in t.split(",")) for t in text.split())
    except ValueError:
        out = ()
    if not out or any(len(g) != 3 for g in out):
        raise CorpusError(f"puzzle {key}: stored givens are corrupt ({text[:40]!r})")
    return out  # type: ignore[return-value]


def bare(p: Puzzle, used: list[int] | None = None) -> Puzzle:
    """``p`` in canonical colours without metadata, skipping re-validation where possible.

    Building a Puzzle validates it again (goal against clues included), which costs more
    than everything else an import does; a puzzle already canonical is copied instead.
    """
    if used is None:
        used = p.used_colors()
    if len(used) <= 1:
        canonical = p.palette == Palette.bw()
    else:
        canonical = used == list(range(1, len(used) + 1)) and len(p.palette) == len(used) + 1
    if not canonical:
        return p.canonical().with_meta(Meta())
    if not p.meta:
        return p
    return p.with_meta(Meta())  # already validated: only the metadata changes


def decode_record(data: bytes, key: str, givens: str | None = None) -> Puzzle:
    """The puzzle a stored record (and ``givens`` column) holds."""
    try:
        p = codec().decode(bytes(data))
    except FormatError as e:
        raise CorpusError(f"puzzle {key}: stored record is corrupt ({e.reason})") from None
    if givens is None:
        return p
    try:
        return p.replace(givens=parse_givens(givens, key))  # checked against the clues
    except PuzzleError as e:
        raise CorpusError(f"puzzle {key}: stored givens do not fit it ({e})") from None


def with_meta(p: Puzzle, meta: Meta | None) -> Puzzle:
    """``p`` (just decoded, so valid) carrying ``meta``, without validating it again."""
    if not meta:
        return p
    return p.with_meta(meta)


def puzzle_row(key: str, p: Puzzle, now: datetime) -> dict[str, Any]:
    """The ``puzzles`` row of a puzzle new to the corpus."""
    used = p.used_colors()
    return {
        "key": key,
        "width": p.width,
        "height": p.height,
        "colors": max(1, len(used)),
        "rofl": encode_record(p, used),
        "has_goal": p.goal is not None,
        "first_seen": now,
        "givens": givens_text(p),
    }


def first_meta(conn: Connection, ids: list[int]) -> dict[int, Meta]:
    """The metadata of each puzzle's first provenance row."""
    t = m.provenance
    out: dict[int, Meta] = {}
    for chunk in chunks(ids):
        q = (
            select(t.c.puzzle_id, t.c.source, t.c.source_id, t.c.title, t.c.author,
                   t.c.copyright, t.c.licence, t.c.note)
            .where(t.c.puzzle_id.in_(chunk))
            .order_by(t.c.id)
        )
        for row in conn.execute(q):
            if row.puzzle_id not in out:
                out[row.puzzle_id] = Meta(
                    title=row.title, author=row.author, copyright=row.copyright,
                    licence=row.licence,
                    source=None if row.source == UNKNOWN_SOURCE else row.source,
                    source_id=row.source_id, note=row.note,
                )
    return out
