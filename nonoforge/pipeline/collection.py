"""Graded collections: a balanced, deduplicated selection ordered from easy to hard.

Selection is a pure function of the rated candidates, so the same corpus and the same
filters always give the same collection. Balance: grades in the range share the count as
evenly as their supply allows, and within a grade the picks are spread over the grade's
score range rather than bunched at one end. Dedup goes beyond the key: a puzzle
and its mirror image, rotation or transpose are one puzzle for a reader of the book.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nonoforge.errors import UsageError
from nonoforge.puzzle import Puzzle


@dataclass(frozen=True)
class Filters:
    """What a collection may contain. Ranges are inclusive."""

    count: int = 100
    grades: tuple[int, int] = (1, 5)
    min_size: tuple[int, int] = (1, 1)
    max_size: tuple[int, int] = (10_000, 10_000)
    colors: tuple[int, int] = (1, 1_000)
    source: str | None = None

    def admits(self, p: Puzzle, grade: int | None, source: str | None) -> bool:
        return (
            grade is not None
            and self.grades[0] <= grade <= self.grades[1]
            and self.min_size[0] <= p.width <= self.max_size[0]
            and self.min_size[1] <= p.height <= self.max_size[1]
            and self.colors[0] <= p.ncolors <= self.colors[1]
            and (self.source is None or source == self.source)
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "count": self.count,
            "grades": list(self.grades),
            "size": [list(self.min_size), list(self.max_size)],
            "colors": list(self.colors),
            "source": self.source,
        }


@dataclass(frozen=True)
class Candidate:
    """A rated puzzle that may enter a collection."""

    puzzle: Puzzle
    grade: int | None
    score: float
    source: str | None = None


def parse_range(text: str, what: str, lo: int = 1, hi: int = 1_000_000) -> tuple[int, int]:
    """``"1-3"``, ``"1..3"`` or ``"2"`` as an inclusive range."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:(?:-|\.\.)\s*(\d+)\s*)?", text)
    if not m:
        raise UsageError(f"{what}: expected N or N..M, got {text!r}")
    a = int(m.group(1))
    b = int(m.group(2)) if m.group(2) else a
    if not lo <= a <= b <= hi:
        raise UsageError(f"{what}: range {text!r} must be within {lo}..{hi}, low to high")
    return a, b


def parse_size_range(text: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """``"10x10..30x30"`` (or ``"20x20"``) as ((min_w, min_h), (max_w, max_h))."""
    m = re.fullmatch(r"\s*(\d+)x(\d+)\s*(?:\.\.\s*(\d+)x(\d+)\s*)?", text)
    if not m:
        raise UsageError(f"--size: expected WxH or WxH..WxH, got {text!r}")
    lo = (int(m.group(1)), int(m.group(2)))
    hi = (int(m.group(3)), int(m.group(4))) if m.group(3) else lo
    if lo[0] > hi[0] or lo[1] > hi[1]:
        raise UsageError(f"--size: {text!r} runs from large to small")
    return lo, hi


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


def select(candidates: Iterable[Candidate], filters: Filters) -> list[Candidate]:
    """Pick ``filters.count`` candidates, balanced over grades, ordered easy to hard."""
    seen: set[str] = set()
    by_grade: dict[int, list[Candidate]] = defaultdict(list)
    for c in sorted(candidates, key=lambda c: (c.score, c.puzzle.key)):
        if not filters.admits(c.puzzle, c.grade, c.source):
            continue
        sk = shape_key(c.puzzle)
        if sk in seen:
            continue
        seen.add(sk)
        assert c.grade is not None
        by_grade[c.grade].append(c)
    quotas = _quotas({g: len(v) for g, v in by_grade.items()}, filters.count)
    chosen: list[Candidate] = []
    for g, n in quotas.items():
        chosen += _spread(by_grade[g], n)
    return sorted(chosen, key=lambda c: (c.grade, c.score, c.puzzle.key))


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
