"""What a solve can conclude, as a type every layer above the solver imports downward.

A verdict used to be a bare string passed from the solver through ratings, the corpus,
exports and JSON (issue 40: "a typed spine"). :class:`Verdict` is a :class:`str` enum, so
each member *is* its old string: JSON output, database values and comparisons with the
strings stored before it existed are unchanged (``Verdict.UNIQUE == "unique"``), and code
that still writes the literal keeps working. This module imports nothing of ours, like
:mod:`nonoforge.puzzle`, so the solver, the pipeline and the CLI can all build on it.

>>> Verdict("found") is Verdict.FOUND, f"{Verdict.UNIQUE}", Verdict.MULTIPLE == "multiple"
(True, 'unique', True)
>>> Verdict.UNSOLVED.cut_short, Verdict.FOUND.cut_short, Verdict.NONE.proven
(True, False, True)
"""

from __future__ import annotations

import enum


class Verdict(enum.StrEnum):
    """The outcome of a solve: what it proved, found, or why it stopped first.

    Every solution a solve returns reproduces the clues, whatever the verdict; the verdict
    says what is known *beyond* those solutions.
    """

    UNIQUE = "unique"
    """Proven: exactly one picture satisfies the clues (and givens), and it is returned --
    logic forced every cell, or a search that looked for a second one was exhausted."""
    MULTIPLE = "multiple"
    """Proven: at least two different pictures satisfy the clues; two are returned."""
    NONE = "none"
    """Proven: no picture satisfies the clues."""
    FOUND = "found"
    """One solution was asked for (``max_solutions=1``) and one was found before logic
    alone had forced every cell (by search, or a probe that ran into it); whether it is the
    only one was not checked. (Before this member existed such a solve
    said ``unsolved``; stored rows may still hold that.)"""
    TIMEOUT = "timeout"
    """The wall clock ran out first: nothing is proven, ``solutions`` holds what was found
    by then. The only verdict that can differ between two runs of the same solve."""
    BUDGET = "budget"
    """The deterministic work budget (or the search's node budget) ran out first: nothing
    is proven, ``solutions`` holds what was found; the same on every run and machine."""
    UNSOLVED = "unsolved"
    """A limited strategy (``line``, ``probe``) used up what it may do with cells still
    undecided: nothing is proven (a stored result from before :attr:`FOUND` existed may
    also mean "one solution found, uniqueness not checked")."""

    @property
    def proven(self) -> bool:
        """Whether the verdict is a proof about the puzzle (unique, multiple or none)."""
        return self in _PROVEN

    @property
    def cut_short(self) -> bool:
        """Whether the solve stopped before answering what it was asked (a clock, a
        budget or a strategy's limit): its ``state`` shows how far logic got."""
        return self in _CUT_SHORT


_PROVEN = frozenset({Verdict.UNIQUE, Verdict.MULTIPLE, Verdict.NONE})
_CUT_SHORT = frozenset({Verdict.TIMEOUT, Verdict.BUDGET, Verdict.UNSOLVED})
