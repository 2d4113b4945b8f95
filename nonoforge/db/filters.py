"""Query filters: size, colours, site, title and author, and rating conditions as SQL on
``puzzles``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

from sqlalchemy import ColumnElement, Text, and_, exists, or_, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import GenericFunction

from nonoforge.db import models as m
from nonoforge.db.sites import site_filter
from nonoforge.errors import CorpusError
from nonoforge.ranges import SizeSpan, Span

#: A count or an inclusive (low, high) range, either end None for open.
Range = int | tuple[int | None, int | None]
#: A side for both dimensions, or (width, height).
Size = int | tuple[int, int]


#: Size bands by the larger dimension: (label, upper bound).
SIZE_BANDS: tuple[tuple[str, int], ...] = (
    ("1-10", 10),
    ("11-15", 15),
    ("16-20", 20),
    ("21-30", 30),
    ("31-50", 50),
    ("51-100", 100),
    ("101+", 1 << 30),
)


def size_band(width: int, height: int) -> str:
    """The band (``"11-15"``) a puzzle's larger dimension falls in."""
    side = max(width, height)
    for label, top in SIZE_BANDS:
        if side <= top:
            return label
    return SIZE_BANDS[-1][0]  # pragma: no cover


@dataclass(frozen=True)
class Filters:
    """Which puzzles a command means, as typed values (``None``: no condition).

    One selection for every command that picks puzzles (``db query``, ``db export``,
    ``collection build``); the command line parses its options into one of these with
    :mod:`nonoforge.ranges`, and the library takes it as it is.

    >>> from nonoforge.ranges import SizeSpan, Span
    >>> f = Filters(size=SizeSpan.parse("10x10..30x30"), grade=Span.parse("2.."))
    >>> f.admits(width=20, height=15, colors=1, grade=3), f.to_dict()
    (True, {'size': '10x10..30x30', 'grade': '2..'})
    """

    width: int | None = None
    height: int | None = None
    size: SizeSpan | None = None
    colors: Span | None = None
    source: str | None = None
    status: str | None = None
    technique: str | None = None
    grade: Span | None = None
    solver_version: str | None = None
    limit: int | None = None
    #: words a provenance's title must hold, each (case does not matter)
    title: str | None = None
    #: words the same provenance's author must hold, each
    author: str | None = None

    def query_kwargs(self) -> dict[str, Any]:
        """The keywords :meth:`Corpus.query <nonoforge.db.Corpus.query>` and ``keys`` take."""
        size = self.size or SizeSpan()
        return {
            "width": self.width, "height": self.height,
            "min_size": size.lo, "max_size": size.hi, "colors": self.colors,
            "source": self.source, "status": self.status, "technique": self.technique,
            "grade": self.grade, "solver_version": self.solver_version, "limit": self.limit,
            "title": self.title, "author": self.author,
        }

    def admits(
        self, *, width: int, height: int, colors: int, grade: int | None = None,
        source: str | None = None,
    ) -> bool:
        """Whether a puzzle with these properties passes the size, colour, grade and source
        filters (the ones known without the corpus; ``status``, ``technique``,
        ``solver_version``, ``title``, ``author`` and ``limit`` are the query's)."""
        return (
            (self.width is None or width == self.width)
            and (self.height is None or height == self.height)
            and (self.size is None or self.size.admits(width, height))
            and (self.colors is None or colors in self.colors)
            and (self.grade is None or (grade is not None and grade in self.grade))
            and (self.source is None or source == self.source)
        )

    def to_dict(self) -> dict[str, Any]:
        """The filters that are set, ranges written in the option grammar (JSON-ready)."""
        out: dict[str, Any] = {}
        for k, v in self.__dict__.items():
            if v is not None:
                out[k] = str(v) if isinstance(v, tuple) else v
        return out


def bounds(value: Range | None, what: str) -> tuple[int | None, int | None]:
    if value is None:
        return None, None
    if isinstance(value, int):
        return value, value
    try:
        lo, hi = value
    except (TypeError, ValueError):
        raise CorpusError(f"{what} must be a number or a (low, high) pair") from None
    return lo, hi


def size_bounds(value: Size | None, what: str) -> tuple[int | None, int | None]:
    if value is None:
        return None, None
    if isinstance(value, int):
        return value, value
    try:
        w, h = value
    except (TypeError, ValueError):
        raise CorpusError(f"{what} must be a number or a (width, height) pair") from None
    return w, h


class QueryFilters(TypedDict, total=False):
    """The filters :meth:`Corpus.query` and :meth:`Corpus.keys` take, every one optional
    (absent or None: any), as :meth:`Filters.query_kwargs` gives them; their meaning is
    documented on :meth:`Corpus.query`."""

    width: int | None
    height: int | None
    min_size: Size | None
    max_size: Size | None
    colors: Range | None
    source: str | None
    status: str | None
    technique: str | None
    grade: Range | None
    solver_version: str | None
    title: str | None
    author: str | None


#: The names of the query filters.
QUERY_FILTERS = frozenset(QueryFilters.__annotations__)


def _between(
    col: ColumnElement[int], lo: int | None, hi: int | None
) -> list[ColumnElement[bool]]:
    """``lo <= col <= hi`` (either end None: open), as an equality when the two ends meet:
    an index then gives its rows in id order (``ix_puzzles_size`` holds the id), so a page
    of ``db query --size 25x25`` is read from a seek instead of every puzzle of that size
    being read and sorted (a range would be)."""
    if lo is not None and lo == hi:
        return [col == lo]
    return [c for c in (None if lo is None else col >= lo,
                        None if hi is None else col <= hi) if c is not None]


class fold(GenericFunction[str]):  # noqa: N801 - an SQL function's name
    """``lower(x)``: text folded for matching without regard to case. On SQLite it is
    ``nonoforge_fold`` (:func:`fold_text`, registered on every connection by
    :func:`nonoforge.db.connect.sqlite_setup`), as SQLite's own ``lower`` folds ASCII only;
    PostgreSQL's folds as the database's locale does."""

    type = Text()
    name = "lower"
    identifier = "nonoforge_fold"
    inherit_cache = True


class ascii_fold(GenericFunction[str]):  # noqa: N801 - an SQL function's name
    """:class:`fold` for matching words of ASCII letters only: on SQLite the text as it is,
    since its ``LIKE`` already ignores the case of ASCII letters (and no other letter can
    match one), which spares a Python call a row (the search then reads 100,000 titles in
    about 10 ms of CPU, not 50); ``lower(x)`` elsewhere."""

    type = Text()
    name = "lower"
    identifier = "nonoforge_ascii_fold"
    inherit_cache = True


#: The SQLite function :class:`fold` calls.
SQLITE_FOLD = "nonoforge_fold"


@compiles(fold, "sqlite")
def _fold_on_sqlite(element: fold, compiler: SQLCompiler, **kw: Any) -> str:
    return f"{SQLITE_FOLD}({compiler.process(element.clauses, **kw)})"


@compiles(ascii_fold, "sqlite")
def _ascii_fold_on_sqlite(element: ascii_fold, compiler: SQLCompiler, **kw: Any) -> str:
    return str(compiler.process(element.clauses, **kw))


def fold_text(text: str | None) -> str | None:
    """Text as :class:`fold` matches it (lower case).

    >>> fold_text("Émile's CAT"), fold_text(None)
    ("émile's cat", None)
    """
    return None if text is None else text.lower()


def words(text: str | None) -> list[str]:
    """The words a title or author filter asks for (split on white space, folded).

    >>> words("  Big   CAT "), words(None)
    (['big', 'cat'], [])
    """
    return (fold_text(text) or "").split()


def text_conditions(title: str | None, author: str | None) -> list[ColumnElement[bool]]:
    """A provenance of the puzzle whose title holds every word of ``title`` and whose
    author every word of ``author`` (as substrings, case folded; ``%`` and ``_`` are
    plain characters): none when neither asks for a word.

    The matching puzzles' ids are one subquery (``id IN (SELECT puzzle_id ...)``): the
    database reads the provenance once, then pages through the puzzles in id order; a
    correlated ``EXISTS`` per puzzle cost SQLite nine times as much on 100,000 puzzles
    when nothing matched."""
    t, p = m.provenance, m.puzzles

    def holds(col: Any, word: str) -> ColumnElement[bool]:
        folded = ascii_fold(col) if word.isascii() else fold(col)
        return folded.contains(word, autoescape=True)

    want = [holds(t.c.title, w) for w in words(title)]
    want += [holds(t.c.author, w) for w in words(author)]
    if not want:
        return []
    return [p.c.id.in_(select(t.c.puzzle_id).where(*want))]


def conditions(**filters: Unpack[QueryFilters]) -> list[ColumnElement[bool]]:
    """SQL conditions on ``puzzles`` for the query filters."""
    unknown = filters.keys() - QUERY_FILTERS
    if unknown:
        raise TypeError(f"unknown filter(s): {', '.join(sorted(unknown))}")
    width, height = filters.get("width"), filters.get("height")
    min_size, max_size = filters.get("min_size"), filters.get("max_size")
    colors, source = filters.get("colors"), filters.get("source")
    status, technique = filters.get("status"), filters.get("technique")
    grade, solver_version = filters.get("grade"), filters.get("solver_version")
    title, author = filters.get("title"), filters.get("author")
    p, t, r = m.puzzles, m.provenance, m.results
    where: list[ColumnElement[bool]] = []
    if width is not None:
        where.append(p.c.width == width)
    if height is not None:
        where.append(p.c.height == height)
    lo_w, lo_h = size_bounds(min_size, "min_size")
    hi_w, hi_h = size_bounds(max_size, "max_size")
    c_lo, c_hi = bounds(colors, "colors")
    for col, lo, hi in ((p.c.width, lo_w, hi_w), (p.c.height, lo_h, hi_h),
                        (p.c.colors, c_lo, c_hi)):
        where += _between(col, lo, hi)
    if source is not None:  # the site (webpbn), or a whole catalogue line as stored
        where.append(exists().where(
            t.c.puzzle_id == p.c.id, or_(t.c.site == site_filter(source), t.c.source == source)
        ))
    where += text_conditions(title, author)
    cond: list[ColumnElement[bool]] = []
    if solver_version is not None:
        cond.append(r.c.solver_version == solver_version)
    if status is not None:
        cond.append(r.c.status == status)
    if technique is not None:
        cond.append(r.c.technique == technique)
    g_lo, g_hi = bounds(grade, "grade")
    if g_lo is not None:
        cond.append(r.c.grade >= g_lo)
    if g_hi is not None:
        cond.append(r.c.grade <= g_hi)
    if cond:
        where.append(exists().where(r.c.puzzle_id == p.c.id, and_(*cond)))
    return where
