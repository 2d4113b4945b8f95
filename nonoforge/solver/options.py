"""How the engine searches: its knobs and :class:`SearchOptions`, chosen per solve.

Kept apart from :mod:`nonoforge.solver.driver` (which loads numba) so that
:mod:`nonoforge.solver.core` can hold typed options for its solves without loading the
engine.
"""

from __future__ import annotations

from dataclasses import dataclass

#: How a probed cell is scored as a branching candidate (engine knob), from the cells its
#: surviving branches settle: 0 the fewest, 1 their sum, 2 their product, 3 fewest then
#: most, 4 LalaFrogKK's (the fewest plus 1.85 ln(1 + the most minus the fewest)). The
#: fewest measured best over uniqueness proofs and tournament puzzles together; one-solution
#: solves use 4 (``core.SEARCH_ONE``; see docs/solver.md).
BRANCH_SCORE = 0
#: Which colour of the branching cell is tried first: 0 lowest index, 1 the branch that
#: settles the fewest cells (least constrained: most likely to hold a solution), 2 the most.
BRANCH_ORDER = 1


@dataclass(frozen=True)
class SearchOptions:
    """How the engine searches (chosen per solve by :mod:`nonoforge.solver.core`).

    ``score``/``order``: the branching score and colour order (``BRANCH_SCORE``,
    ``BRANCH_ORDER``; score 4 is LalaFrogKK's); ``incremental``: skip a probe while no
    line its last probe read has changed (same search, fewer line requests).
    """

    score: int = BRANCH_SCORE
    order: int = BRANCH_ORDER
    incremental: bool = False
