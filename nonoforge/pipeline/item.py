"""One puzzle of a collection export, with all we know of it, and its clues as JSON.

Every export kind (:mod:`nonoforge.pipeline.export`) writes these: the book, the page
(:mod:`~nonoforge.pipeline.html`) and the dataset (:mod:`~nonoforge.pipeline.dataset`).
The type lives here, below all three, so that none of them imports another for it (they
once formed a circle through type-only imports: issue 40).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nonoforge.puzzle import Clue, Grid, Puzzle
from nonoforge.results import Verdict
from nonoforge.titles import difficulty, title_of


@dataclass
class ExportItem:
    """One puzzle of an export: its place, stored rating, answer and verdict.

    ``verdict`` is the stored rating's status (a :class:`~nonoforge.results.Verdict`
    value, or the rating's own ``timeout_wall`` / ``error``), else the export's own solve's;
    None until known. ``answer`` is the stored goal or the solver's solution.
    """

    puzzle: Puzzle
    number: int
    result: dict[str, Any] = field(default_factory=dict)
    answer: Grid | None = None
    verdict: str | None = None
    #: The title the collection gives it (``collection build --titles``), over its own.
    given_title: str | None = None

    @property
    def grade(self) -> int | None:
        return self.result.get("grade")

    @property
    def title(self) -> str:
        """What the reader sees: the collection's title for it, else its own or its file's
        name made readable, else ``No. N`` (:func:`nonoforge.titles.title_of`)."""
        if self.given_title:
            return self.given_title
        meta = self.puzzle.meta
        return title_of(meta.title, meta.source, self.number)

    @property
    def difficulty(self) -> str | None:
        """The grade in words with its number (``Hard (grade 3)``), None when ungraded."""
        return difficulty(self.grade)

    @property
    def unique(self) -> bool:
        """Whether the puzzle is proven to have exactly one solution."""
        return self.verdict == Verdict.UNIQUE

    @property
    def note(self) -> str | None:
        """What a book or page prints beside a puzzle not proven unique."""
        if self.unique:
            return None
        if self.verdict == Verdict.MULTIPLE:
            return "not unique: one of several solutions"
        return "uniqueness not proven"  # found, budget, timeout, timeout_wall, error


def clues_json(clues: Sequence[Clue], bw: bool) -> list[list[Any]]:
    """Clues as lists: plain lengths for black-and-white, ``[length, colour]`` pairs else.

    >>> from nonoforge.puzzle import Block
    >>> clues_json([(Block(2, 1), Block(1, 1)), ()], bw=True)
    [[2, 1], []]
    >>> clues_json([(Block(2, 3),)], bw=False)
    [[[2, 3]]]
    """
    if bw:
        return [[b.length for b in c] for c in clues]
    return [[[b.length, b.color] for b in c] for c in clues]
