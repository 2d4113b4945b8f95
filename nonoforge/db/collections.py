"""Named, ordered collections of the corpus's puzzles (part of the Corpus)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, func, select

from nonoforge.db import models as m
from nonoforge.db.records import chunks, decode_record, first_meta, isoformat, utcnow, with_meta
from nonoforge.db.session import Session
from nonoforge.errors import CorpusError
from nonoforge.puzzle import Puzzle


class Collections(Session):
    """Collections: a name, how they were built, and their puzzles in order."""

    # -- collections --------------------------------------------------------------------

    def create_collection(
        self, name: str, keys_in_order: Iterable[str], params: dict[str, Any] | None = None
    ) -> None:
        """Create (or replace) a named, ordered collection of puzzles.

        ``params`` records how it was built (filters, seed) as JSON data. Every key must be
        in the corpus; a key may not appear twice.
        """
        keys = list(keys_in_order)
        if len(set(keys)) != len(keys):
            raise CorpusError(f"collection {name!r} lists a puzzle twice")
        c, cm, p = m.collections, m.collection_members, m.puzzles
        with self._write() as conn:
            ids: dict[str, int] = {}
            for chunk in chunks(keys):
                ids.update(conn.execute(select(p.c.key, p.c.id).where(p.c.key.in_(chunk))).all())
            missing = [k for k in keys if k not in ids]
            if missing:
                raise CorpusError(f"no puzzle with key {missing[0]!r} in the corpus")
            conn.execute(delete(c).where(c.c.name == name))
            inserted = conn.execute(
                c.insert().values(name=name, created=utcnow(), params=params or {})
            ).inserted_primary_key
            assert inserted is not None  # an INSERT of one row always has its key
            cid = inserted[0]
            # members first go away with the collection (ON DELETE CASCADE, or by hand where
            # a backend does not enforce it)
            conn.execute(delete(cm).where(cm.c.collection_id == cid))
            if keys:
                conn.execute(
                    cm.insert(),
                    [{"collection_id": cid, "position": i, "puzzle_id": ids[k]}
                     for i, k in enumerate(keys, start=1)],
                )

    def collection(self, name: str) -> list[Puzzle]:
        """The puzzles of a collection, in its order, with their metadata."""
        c, cm, p = m.collections, m.collection_members, m.puzzles
        with self._read() as conn:
            cid = conn.scalar(select(c.c.id).where(c.c.name == name))
            if cid is None:
                raise CorpusError(f"no collection named {name!r}")
            rows = conn.execute(
                select(p.c.id, p.c.key, p.c.rofl, p.c.givens)
                .join(cm, cm.c.puzzle_id == p.c.id)
                .where(cm.c.collection_id == cid)
                .order_by(cm.c.position)
            ).all()
            metas = first_meta(conn, [r.id for r in rows])
        return [with_meta(decode_record(r.rofl, r.key, r.givens), metas.get(r.id))
                for r in rows]

    def collections(self) -> list[dict[str, Any]]:
        """Every collection: name, created, params and size."""
        c, cm = m.collections, m.collection_members
        sizes = (
            select(cm.c.collection_id, func.count().label("size"))
            .group_by(cm.c.collection_id)
            .subquery()
        )
        q = (  # JSON columns cannot be grouped on PostgreSQL: count apart, then join
            select(c.c.name, c.c.created, c.c.params, func.coalesce(sizes.c.size, 0))
            .outerjoin(sizes, sizes.c.collection_id == c.c.id)
            .order_by(c.c.name)
        )
        with self._read() as conn:
            rows = conn.execute(q).all()
        return [
            {"name": n, "created": isoformat(t), "params": pr, "size": s} for n, t, pr, s in rows
        ]
