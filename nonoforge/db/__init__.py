"""The corpus store: a deduplicated, provenance-keeping database of puzzles and ratings.

>>> from nonoforge.db import Corpus
>>> with Corpus.open("corpus.db") as c:       # doctest: +SKIP
...     stats = c.add(puzzles)

See :mod:`nonoforge.db.store` (puzzles), ``session``, ``results``, ``collections`` and
``stats`` (one concern each, all on :class:`Corpus`) and ``docs/corpus.md`` for the schema.
"""

from nonoforge.db.store import DEFAULT_PATH, AddStats, Corpus, size_band

__all__ = ["DEFAULT_PATH", "AddStats", "Corpus", "size_band"]
