"""The technique ladders, in one place: the engine's rungs and the human step solver's.

Two ladders describe how hard a puzzle is. The engine's (:mod:`nonoforge.solver`) is how a
machine climbs: ``trivial`` lines, simple ``overlap``, complete ``line`` logic, ``probe``
(try each colour of a cell) and ``search``; a solve's technique is its highest rung. The
human ladder (:mod:`nonoforge.solver.human`) is how a person climbs, one easy deduction at
a time; each of its steps weighs something in the human-effort score
(:mod:`nonoforge.pipeline.difficulty`), and the playable page's hint
(``pipeline/play/play.js``) walks the same rungs in the same order.

Every reader takes the rungs from here: :data:`nonoforge.solving.TECHNIQUES` (the engine's
names, which the compiled engine and the plain-Python line logic index by), the human
solver's order, which rungs look at one line and which are trials, the human weights, and
the ladder the page embeds as JSON (:func:`ladder_json`). A rung is a :class:`Rung`
record in a registry; :func:`register` adds one (a new human rung also needs its code in
``solver/human.py`` and ``play.js``: CONTRIBUTING.md, "Add a technique").

It imports nothing of ours, so the lowest modules can read it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Ladder", "Rung", "engine_names", "human_weights", "ladder", "ladder_json",
           "names", "register", "rung", "unregister"]


class Ladder(enum.StrEnum):
    """Which ladder a rung stands on."""

    ENGINE = "engine"
    """The solver's rungs: what a solve's ``technique`` names."""
    HUMAN = "human"
    """The human step solver's rungs: what a step's ``technique`` names."""


@dataclass(frozen=True)
class Rung:
    """One rung of a ladder.

    ``order`` places it (easiest first; gaps leave room for new rungs), ``engine`` names
    the engine rung that decides at least what it decides (itself, for an engine rung),
    ``weight`` is what one human step on it weighs in the human-effort score (engine
    rungs have none), ``trial`` says whether it tries a colour in one cell and follows it
    through the lines (rather than reading one line alone), ``label`` is its name in a
    player's words and ``description`` one sentence on what it does.
    """

    name: str
    ladder: Ladder
    order: int
    engine: str
    label: str
    description: str
    weight: float | None = None
    trial: bool = False


_RUNGS: dict[tuple[Ladder, str], Rung] = {}


def register(r: Rung) -> Rung:
    """Add ``r`` to its ladder; refuses a name or an order its ladder already has, an
    engine rung the engine ladder lacks, and a human rung without a weight.

    >>> register(Rung("glue", Ladder.HUMAN, 40, "line", "glue", "again"))
    Traceback (most recent call last):
    ...
    ValueError: the human ladder already has a rung 'glue'
    """
    key = (r.ladder, r.name)
    if key in _RUNGS:
        raise ValueError(f"the {r.ladder} ladder already has a rung {r.name!r}")
    if any(o.ladder is r.ladder and o.order == r.order for o in _RUNGS.values()):
        raise ValueError(f"the {r.ladder} ladder already has a rung at order {r.order}")
    if r.ladder is Ladder.ENGINE and r.engine != r.name:
        raise ValueError(f"engine rung {r.name!r} must belong to itself, not {r.engine!r}")
    if r.ladder is Ladder.HUMAN:
        if (Ladder.ENGINE, r.engine) not in _RUNGS:
            raise ValueError(f"human rung {r.name!r}: no engine rung {r.engine!r}")
        if r.weight is None:
            raise ValueError(f"human rung {r.name!r} needs a weight")
    _RUNGS[key] = r
    return r


def unregister(name: str, which: Ladder = Ladder.HUMAN) -> None:
    """Take rung ``name`` off ladder ``which`` (tests that register a toy rung)."""
    del _RUNGS[(which, name)]


def ladder(which: Ladder) -> tuple[Rung, ...]:
    """The rungs of ladder ``which``, easiest first.

    >>> [r.name for r in ladder(Ladder.ENGINE)]
    ['trivial', 'overlap', 'line', 'probe', 'search']
    """
    return tuple(sorted((r for r in _RUNGS.values() if r.ladder is which),
                        key=lambda r: r.order))


def names(which: Ladder) -> tuple[str, ...]:
    """The names of ladder ``which``'s rungs, easiest first."""
    return tuple(r.name for r in ladder(which))


def engine_names() -> tuple[str, ...]:
    """The engine's ladder as names: what :data:`nonoforge.solving.TECHNIQUES` holds."""
    return names(Ladder.ENGINE)


def rung(name: str, which: Ladder = Ladder.HUMAN) -> Rung:
    """The rung ``name`` of ladder ``which`` (``KeyError`` when it has none)."""
    return _RUNGS[(which, name)]


def human_weights() -> dict[str, float]:
    """What one step on each human rung weighs, easiest rung first.

    >>> human_weights()["simple_boxes"], human_weights()["contradiction"]
    (1.0, 8.0)
    """
    return {r.name: float(r.weight or 0.0) for r in ladder(Ladder.HUMAN)}


def ladder_json() -> list[dict[str, object]]:
    """The human ladder as the playable page embeds it: each rung's name, label and
    whether it is a trial, easiest first (``play.js`` walks its line rungs in this order).

    >>> ladder_json()[0]
    {'name': 'simple_boxes', 'label': 'simple boxes', 'trial': False}
    """
    return [{"name": r.name, "label": r.label, "trial": r.trial}
            for r in ladder(Ladder.HUMAN)]


# -- the engine's ladder -----------------------------------------------------------------
# The compiled engine and solver/quick.py number these 0..4 in this order: a new engine
# rung needs the engine's code, not only a record here.
for _order, (_name, _label, _what) in enumerate((
    ("trivial", "trivial lines",
     "lines settled by their clue alone: an empty clue, or one that fills the line"),
    ("overlap", "simple overlap",
     "on an empty line, the cells the leftmost and rightmost packings agree on"),
    ("line", "line logic",
     "complete line logic on every line, repeated until nothing changes"),
    ("probe", "probing",
     "try each colour of a cell and run line logic; a colour that breaks a line is ruled out"),
    ("search", "search", "guessing: branch on a cell and backtrack"),
)):
    register(Rung(_name, Ladder.ENGINE, 10 * _order, _name, _label, _what))

# -- the human ladder (solver/human.py; docs/difficulty.md explains each rung) -------------
# Weights: the overlap a beginner sees at a glance is 1; each rung that needs more of the
# line in mind (reaching from an edge, gluing blocks, counting) weighs more; complete line
# deduction, a person's cleverest single-line tricks, 4; a trial (holding a cell in mind
# while working lines through) 8. two_line weighs as a contradiction for now (the proposal
# is 6: it is a shorter trial).
for _order, (_name, _engine, _weight, _trial, _label, _what) in enumerate((
    ("simple_boxes", "overlap", 1.0, False, "simple boxes",
     "slide every block as far left and as far right as it goes: cells a block covers both "
     "ways are its colour"),
    ("simple_spaces", "overlap", 1.0, False, "simple spaces",
     "the same two placements: a cell no block can reach is empty"),
    ("forcing", "line", 2.0, False, "forcing",
     "a filled cell only the first (or last) block can reach pins that block"),
    ("glue", "line", 3.0, False, "glue",
     "filled cells only one block can reach belong to it: it covers the cells between them "
     "and its reach shrinks"),
    ("completing", "line", 2.0, False, "completing",
     "counting: every cell of a colour the clue needs is found, so the rest are not; or "
     "exactly as many can still take it, so they all do"),
    ("line", "line", 4.0, False, "line deduction",
     "every placement of the blocks consistent with what is known: what all agree on"),
    ("two_line", "probe", 8.0, True, "two lines together",
     "assume a colour in a cell, work one line through it and the lines crossing it; a "
     "parallel line that can then hold no placement rules the colour out"),
    ("contradiction", "probe", 8.0, True, "contradiction",
     "assume a colour in a cell and run line deduction over the grid; a line that can then "
     "hold no placement rules the colour out"),
)):
    register(Rung(_name, Ladder.HUMAN, 10 * _order, _engine, _label, _what, _weight, _trial))
del _order, _name, _label, _what, _engine, _weight, _trial
