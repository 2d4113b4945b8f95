"""How the engine searches: its knobs and :class:`SearchOptions`, chosen per solve.

Kept apart from :mod:`nonoforge.solver.driver` (which loads numba) so that
:mod:`nonoforge.solver.core` can hold typed options for its solves without loading the
engine.
"""

from __future__ import annotations

from dataclasses import dataclass

#: What one CDCL conflict of the SAT back-end costs in work units (the ``budget`` of
#: :func:`~nonoforge.solver.core.solve` and the ``work`` effort count). Engine units are
#: line requests (solved or answered by the cache) plus solution bookkeeping; measured on
#: the tournament and survey puzzles a conflict costs about as much time as this many of
#: them (see docs/solver.md).
SAT_CONFLICT_WORK = 200

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


@dataclass(frozen=True)
class WorkCosts:
    """What a deterministic ``budget`` charges per unit, when a caller's work is not the
    solver's ``work`` count (:func:`nonoforge.solver.core.solve`'s ``costs``).

    ``line``: one line solve (``line_solves``; cache hits and bookkeeping stay 1);
    ``conflict``: one SAT conflict (the solver's own count is
    :data:`~nonoforge.solver.core.SAT_CONFLICT_WORK`). Only what the budget stops at
    changes: the effort counts a solve reports are the solver's, whatever the costs.
    ``generate --explain`` weighs a solve of a line longer than the bit-parallel kernels
    take by its length, so that its budget tracks the time such solves take.
    """

    line: int = 1
    conflict: int = SAT_CONFLICT_WORK

    def charged(self, effort: dict[str, int]) -> int:
        """The budget units ``effort`` (a solve's counts) costs at these costs."""
        lines = effort.get("line_solves", 0)
        conflicts = effort.get("sat_conflicts", 0)
        # cache hits and bookkeeping: the rest of the solver's count
        raw = effort.get("work", 0) - lines - SAT_CONFLICT_WORK * conflicts
        return raw + self.line * lines + self.conflict * conflicts
