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
#: read and :func:`select` runs on it exactly; above, the database picks (see :func:`pick`).
SMALL_SUPPLY = 4
#: Neighbours in score order read beside each pick, to stand in for a shape duplicate.
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

    The database counts the supply of each grade and hands back only the puzzles at the
    evenly spread positions :func:`_spread` takes; only those are decoded and shape-keyed
    (in plain Python: a hundred records cost less than loading numba's kernels). A pick
    whose shape was taken already gives way to its next neighbour in score order (up to
    :data:`OVERSAMPLE`), fetched in a second round only then. When the supply is small (at most
    :data:`SMALL_SUPPLY` times ``count``) every candidate is read and :func:`select`
    decides exactly: on a large corpus the two differ only where shape duplicates would
    have shrunk a grade's supply before the quotas were shared.
    """
    supply = corpus.rated_supply(version, filters, grade_by)
    total = sum(supply.values())
    if total == 0:
        return []
    if total <= SMALL_SUPPLY * count:
        with small_job(total):  # a few hundred records: plain Python beats loading numba
            every = corpus.rated_at(version, filters,
                                    {g: range(n) for g, n in supply.items()}, grade_by)
        cands = [Candidate(x.puzzle, x.grade, x.score) for x in every]
        return select(cands, replace(filters, source=None), count)
    quotas = _quotas(supply, count)
    want = {g: [(2 * i + 1) * supply[g] // (2 * n) for i in range(n)]
            for g, n in quotas.items() if n}
    # the picks first; a pick's neighbours only once it has to give way (rarely): about
    # ``count`` records decoded, not ``count * (OVERSAMPLE + 1)``
    need = {(g, q) for g, ps in want.items() for q in ps}
    got: dict[tuple[int, int], Rated] = {}
    fetched: set[tuple[int, int]] = set()
    chosen: list[Candidate] = []
    while need - fetched:
        ask: dict[int, list[int]] = defaultdict(list)
        for g, q in sorted(need - fetched):
            ask[g].append(q)
        with small_job(len(need - fetched)):
            got.update(((x.grade, x.position), x)
                       for x in corpus.rated_at(version, filters, ask, grade_by))
        fetched |= need
        chosen, unknown = _give_way(want, got, fetched, supply)
        need |= unknown
    return sorted(chosen, key=lambda c: (c.grade, c.score, c.puzzle.key))


def _give_way(
    want: dict[int, list[int]],
    got: dict[tuple[int, int], Rated],
    fetched: set[tuple[int, int]],
    supply: dict[int, int],
) -> tuple[list[Candidate], set[tuple[int, int]]]:
    """Each pick, or the first of its :data:`OVERSAMPLE` neighbours in score order whose
    shape is not taken yet; and the neighbours this needed that are not ``fetched`` yet
    (when there are any, the choice is not final: fetch them and ask again)."""
    seen: set[str] = set()
    taken: set[tuple[int, int]] = set()
    chosen: list[Candidate] = []
    unknown: set[tuple[int, int]] = set()
    for g in sorted(want):
        for q in want[g]:
            for k in range(OVERSAMPLE + 1):
                if q + k >= supply[g]:
                    continue
                if (g, q + k) not in fetched:
                    unknown |= {(g, q + j) for j in range(k, OVERSAMPLE + 1)
                                if q + j < supply[g]}
                    break
                x = got.get((g, q + k))
                if x is None or (g, q + k) in taken:
                    continue
                sk = shape_key(x.puzzle)
                if sk in seen:
                    continue
                seen.add(sk)
                taken.add((g, q + k))
                chosen.append(Candidate(x.puzzle, x.grade, x.score))
                break
    return chosen, unknown


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
