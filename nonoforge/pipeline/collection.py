"""Graded collections: a balanced, deduplicated selection ordered from easy to hard.

Selection is a pure function of the rated candidates, so the same corpus and the same
filters always give the same collection. Balance: grades in the range share the count as
evenly as their supply allows, and within a grade the picks are spread over the grade's
score range rather than bunched at one end. Dedup goes beyond the key: a puzzle
and its mirror image, rotation or transpose are one puzzle for a reader of the book.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from nonoforge.db.filters import Filters
from nonoforge.formats.rofl.kernels import small_job
from nonoforge.puzzle import Puzzle

if TYPE_CHECKING:
    from nonoforge.db import Corpus
    from nonoforge.db.collections import Rated

__all__ = ["Candidate", "Filters", "eligible", "pick", "select", "shape_key"]

#: Up to this many candidates (this many times the count asked for), the whole supply is
#: read and :func:`select` runs on it exactly; above, the database picks (see :func:`pick`);
#: likewise for one grade and its quota (see :func:`_pick_grade`).
SMALL_SUPPLY = 4
#: Neighbours in score order read after a pick whose shape is taken, to stand in for it.
OVERSAMPLE = 3


@dataclass(frozen=True)
class Candidate:
    """A rated puzzle that may enter a collection."""

    puzzle: Puzzle
    grade: int | None
    score: float
    source: str | None = None


#: The rating status a puzzle needs to enter a collection by default: a proven unique
#: solution. A puzzle with several solutions (or none proven) is a broken puzzle for a
#: reader, however hard it rates (issue 37: the builder once made them the grade-5 picks).
UNIQUE = "unique"


def eligible(filters: Filters, include_ambiguous: bool = False) -> Filters:
    """The filters a collection is picked with: ``filters`` narrowed to puzzles proven
    unique, unless ``include_ambiguous`` (or the filters name a status themselves).

    >>> eligible(Filters()).status, eligible(Filters(), include_ambiguous=True).status
    ('unique', None)
    """
    if include_ambiguous or filters.status is not None:
        return filters
    return replace(filters, status=UNIQUE)


@dataclass(frozen=True)
class BuildOptions:
    """How ``collection build`` picks and names: puzzles without a proven unique solution
    too (``include_ambiguous``), the collection's ``title`` (its cover), ``titles``
    (key or file name -> a puzzle's title, as :func:`nonoforge.titles.read_titles` reads),
    and which score grades it (``grade_by``)."""

    include_ambiguous: bool = False
    title: str | None = None
    titles: Mapping[str, str] = field(default_factory=dict)
    #: grade by the time-calibrated score (``time``) or the human-effort one (``human``)
    grade_by: str = "time"


def titles_for(puzzles: Iterable[Puzzle], titles: Mapping[str, str]) -> dict[str, str]:
    """The titles ``titles`` gives to ``puzzles``, by key: a mapping's entry names a
    puzzle by its key (or the key's first 6+ characters), or by the file it was imported
    from (``koala.non`` or ``koala``)."""
    out: dict[str, str] = {}
    if not titles:
        return out
    for p in puzzles:
        names = {p.key}
        src = p.meta.source or ""
        if src.startswith("file:"):
            fname = src[len("file:"):].replace("\\", "/").rsplit("/", 1)[-1]
            names |= {fname, fname.rsplit(".", 1)[0]}
        for k, t in titles.items():
            if k in names or (len(k) >= 6 and p.key.startswith(k)):
                out[p.key] = t
                break
    return out


def shape_key(p: Puzzle) -> str:
    """The same for a puzzle and its mirror images, rotations and transposes."""
    rows = [tuple(b for b in c) for c in p.rows]
    cols = [tuple(b for b in c) for c in p.columns]
    variants = []
    for r, c in ((rows, cols), (cols, rows)):  # identity and transpose
        for flip_r in (False, True):  # mirror left-right: reverse each row clue, column order
            for flip_c in (False, True):  # mirror top-bottom
                rr = [tuple(reversed(x)) if flip_r else x for x in r]
                cc = [tuple(reversed(x)) if flip_c else x for x in c]
                rr = rr[::-1] if flip_c else rr
                cc = cc[::-1] if flip_r else cc
                variants.append(repr((rr, cc)))
    return min(variants)


def select(candidates: Iterable[Candidate], filters: Filters, count: int) -> list[Candidate]:
    """Pick ``count`` graded candidates that ``filters`` admit, balanced over grades,
    ordered easy to hard."""
    seen: set[str] = set()
    by_grade: dict[int, list[Candidate]] = defaultdict(list)
    for c in sorted(candidates, key=lambda c: (c.score, c.puzzle.key)):
        p = c.puzzle
        if c.grade is None or not filters.admits(
            width=p.width, height=p.height, colors=p.ncolors, grade=c.grade, source=c.source
        ):
            continue
        sk = shape_key(c.puzzle)
        if sk in seen:
            continue
        seen.add(sk)
        assert c.grade is not None
        by_grade[c.grade].append(c)
    quotas = _quotas({g: len(v) for g, v in by_grade.items()}, count)
    chosen: list[Candidate] = []
    for g, n in quotas.items():
        chosen += _spread(by_grade[g], n)
    return sorted(chosen, key=lambda c: (c.grade, c.score, c.puzzle.key))


def pick(
    corpus: Corpus, version: str, filters: Filters, count: int, grade_by: str = "time"
) -> list[Candidate]:
    """:func:`select` on the corpus's puzzles rated by solver ``version``, at a cost that
    grows with ``count``, not with the corpus. ``grade_by`` ``time`` (the default) grades
    and orders them by the time-calibrated grade and score, ``human`` by the human-effort
    ones (``human_grade``, ``human_score``: see docs/difficulty.md).

    The database counts each grade's supply only up to what the choice depends on
    (:data:`SMALL_SUPPLY` times ``count``, plus one), so the quotas are those of the whole
    supply. When the supply is that small, every candidate is read and :func:`select`
    decides exactly. Otherwise each grade is picked by seeks in its (score, puzzle id)
    order (:func:`_pick_grade`): only the picks, and the neighbours that stand in for a
    taken shape, are decoded and shape-keyed (in plain Python: a hundred records cost less
    than loading numba's kernels). The same corpus and filters give the same collection,
    on SQLite and PostgreSQL alike.
    """
    cap = SMALL_SUPPLY * count + 1
    supply = corpus.rated_supply(version, filters, grade_by, cap=cap)
    total = sum(supply.values())
    if total == 0:
        return []
    if total <= SMALL_SUPPLY * count:
        with small_job(total):  # a few hundred records: plain Python beats loading numba
            every = [x for g in sorted(supply)
                     for x in corpus.rated_from(version, filters, g, by=grade_by)]
        cands = [Candidate(x.puzzle, x.grade, x.score) for x in every]
        return select(cands, replace(filters, source=None), count)
    seen: set[str] = set()
    chosen: list[Candidate] = []
    with small_job(count):
        for g, n in sorted(_quotas(supply, count).items()):
            if n:
                chosen += _pick_grade(corpus, _Grade(version, filters, g, grade_by),
                                      n, supply[g], seen)
    return sorted(chosen, key=lambda c: (c.grade, c.score, c.puzzle.key))


@dataclass(frozen=True)
class _Grade:
    """One grade of one solver version's ratings, as :func:`pick` reads it."""

    version: str
    filters: Filters
    grade: int
    by: str

    def read(self, corpus: Corpus, *, at_least: float | None = None,
             after: tuple[float, int] | None = None, limit: int | None = None) -> list[Rated]:
        """This grade's puzzles from the corpus, as :meth:`Corpus.rated_from` reads them
        (``at_least``, ``after``, ``limit``: its seek)."""
        return corpus.rated_from(self.version, self.filters, self.grade, by=self.by,
                                 at_least=at_least, after=after, limit=limit)


def _pick_grade(
    corpus: Corpus, grade: _Grade, n: int, supply: int, seen: set[str]
) -> list[Candidate]:
    """``n`` puzzles of one grade whose shapes are not in ``seen`` (which gains theirs),
    spread over the grade's score range.

    A grade of at most :data:`SMALL_SUPPLY` times ``n`` puzzles (``supply`` is its count,
    capped above that) is read whole and spread by rank, as :func:`select` does. A larger
    one is read by seeks: the lowest and highest score, then for each of ``n`` evenly
    spaced scores between them the first puzzle at or above it that comes after the
    previous pick; a puzzle whose shape is taken gives way to the next one in score order
    (up to :data:`OVERSAMPLE` of them). Should the seeks run off the top of the grade (its
    scores bunched low under a few high ones), the rest are the first unpicked puzzles
    from the bottom. About ``n`` short range reads, each a few rows.
    """
    if supply <= SMALL_SUPPLY * n:
        shapes: dict[str, Candidate] = {}  # the grade's first of each fresh shape
        for r in grade.read(corpus):
            sk = shape_key(r.puzzle)
            if sk not in seen and sk not in shapes:
                shapes[sk] = Candidate(r.puzzle, r.grade, r.score)
        chosen = _spread(list(shapes.values()), n)
        kept = {id(c) for c in chosen}
        seen.update(sk for sk, c in shapes.items() if id(c) in kept)
        return chosen
    span = corpus.rated_bounds(grade.version, grade.filters, grade.grade, grade.by)
    if span is None:  # pragma: no cover - the supply said there were some
        return []
    lo, hi = span
    out: list[Candidate] = []
    taken: set[int] = set()
    prev: tuple[float, int] | None = None
    for i in range(n):
        target = lo + (hi - lo) * (2 * i + 1) / (2 * n)
        x = _first_fresh(corpus, grade, seen, taken, at_least=target, after=prev)
        if x is None:
            break
        out.append(Candidate(x.puzzle, x.grade, x.score))
        prev = (x.score, x.id)
    prev = None
    while len(out) < n:  # off the top: fill from the bottom
        x = _first_fresh(corpus, grade, seen, taken, after=prev, tries=None)
        if x is None:
            break
        out.append(Candidate(x.puzzle, x.grade, x.score))
        prev = (x.score, x.id)
    return out


def _first_fresh(
    corpus: Corpus, grade: _Grade, seen: set[str], taken: set[int], *,
    at_least: float | None = None, after: tuple[float, int] | None = None,
    tries: int | None = OVERSAMPLE + 1,
) -> Rated | None:
    """The first puzzle of ``grade`` from a seek (scoring ``at_least``, after ``after``)
    that is not ``taken`` and whose shape is not in ``seen``, looking at ``tries`` puzzles
    at most (None: until the grade ends); it joins both sets."""
    looked = 0
    while tries is None or looked < tries:
        got = grade.read(corpus, at_least=at_least, after=after, limit=1)
        if not got:
            return None
        x = got[0]
        looked += 1
        after = (x.score, x.id)
        if x.id in taken:
            continue
        sk = shape_key(x.puzzle)
        if sk in seen:
            continue
        seen.add(sk)
        taken.add(x.id)
        return x
    return None


def _quotas(supply: dict[int, int], count: int) -> dict[int, int]:
    """Share ``count`` as evenly as possible over grades, each capped by its supply."""
    quotas = {g: 0 for g in supply}
    left = min(count, sum(supply.values()))
    while left > 0:
        open_ = [g for g in sorted(supply) if quotas[g] < supply[g]]
        share = max(1, left // len(open_))
        for g in open_:
            take = min(share, supply[g] - quotas[g], left)
            quotas[g] += take
            left -= take
            if left == 0:
                break
    return quotas


def _spread(items: Sequence[Candidate], n: int) -> list[Candidate]:
    """``n`` items evenly spaced over a score-ordered list: the whole range of the grade."""
    if n >= len(items):
        return list(items)
    return [items[(2 * i + 1) * len(items) // (2 * n)] for i in range(n)]
