"""The SAT fallback of the solver: a CNF encoding of the clues, solved by a CDCL solver.

Backtracking with line logic and probing settles nearly every puzzle, but the hardest ones of
Wolter's survey were only ever finished by clause learning (Tamura's Copris). This module
encodes a puzzle -- black-and-white or colour, optionally restricted by the cell masks that
propagation has already narrowed -- into CNF, hands it to MiniSat through python-sat, and
counts solutions up to ``max_solutions`` with blocking clauses over the cell variables.

The encoding (see :func:`encode`):

* **cells** -- each cell keeps only the colours it can still take (its row and its column can
  place a block of that colour there, and the state allows it). One possible colour makes
  the cell a constant, two share one variable, more get one-hot variables with exactly-one
  clauses. A black-and-white puzzle therefore has at most one variable per cell.
* **lines** -- every block ``j`` of a line gets an order-encoded start position: variables
  ``start_j >= p`` for ``p`` in its feasible range (leftmost to rightmost packing; with a
  state, the starts one forward and one backward pass over the line's cell masks allow).
  Clauses say the order variables are monotone, each block starts after the previous one
  ends (plus a gap when the colours are equal), a covered cell has the block's colour, and a
  cell between two blocks, before the first or after the last is background. Every clause
  has two or three literals and there are no other auxiliary variables.

The alternative, each line as an unrolled automaton (``encode(..., lines="regular")``: one
variable per reachable state and cell), finds the same solutions (a test checks it) but was
two to six times slower on the tournament sets and on random 45x45 puzzles, so it is kept
for comparison only (``bench/sat.py --lines regular``).

The same puzzle and state always give the same CNF, and MiniSat runs with fixed options and
no random decisions, so the conflict and decision counts repeat from run to run (except when
a deadline cuts a run short). Building the CNF is compiled (:mod:`nonoforge.solver.cnf`):
in Python it took as long as a typical puzzle's CDCL search.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Literal

import numpy as np
import pysolvers  # type: ignore[import-not-found]  # python-sat's C extension
from pysat.solvers import MinisatGH, Solver

from nonoforge.errors import SolverError
from nonoforge.puzzle import Clue, Grid, Puzzle
from nonoforge.solver import cnf
from nonoforge.solver.alarm import Alarm
from nonoforge.solver.cnf import FALSE, TRUE
from nonoforge.solver.result import check_colours, verify_solution
from nonoforge.solver.tables import Tables

#: The CDCL solver python-sat runs. On the CNFs the ``auto`` strategy hands over from the
#: tournament sets (root logic states), MiniSat 2.2 needed 25-45 % less time than Glucose 4
#: (TAAI 2011: 39.8 s against 52.4 s; TCGA 2016 sample: 24.4 s against 43.4 s), and
#: Glucose beat CaDiCaL 1.5.3 and 1.9.5 there and on random 45x45 puzzles. On single hard
#: random 40x40-45x45 proofs either may win (bench/sat.py --random shows it). Unlike
#: CaDiCaL in python-sat, MiniSat can be interrupted, so a deadline holds to milliseconds.
#: Since solver 1.3 proofs use MiniSat's GitHub release too: with the phase hints below, on
#: 1,000 random 30x30 proofs 56,134 conflicts (9.7 s CPU) against MiniSat 2.2's 140,425
#: (12.2 s) without hints and 151,151 (12.7 s) with them; Faase is shown multiple only by it.
SOLVER_NAME = "minisat-gh"
#: The solver when one solution is asked for (``max_solutions=1``: the tournament
#: hand-over, no proof): MiniSat's GitHub release (python-sat ``minisat-gh``), on the same
#: CNF 5-32 % fewer conflicts than MiniSat 2.2 on the tournament hand-overs (see
#: docs/solver.md). Since solver 1.3 uniqueness proofs (:data:`SOLVER_NAME`) use it too;
#: the two names stay apart so either can be measured alone.
ONE_SOLUTION_SOLVER = "minisat-gh"
#: Phase hints (:mod:`nonoforge.solver.phases`: loopy belief propagation over the lines,
#: for cells and block starts) given to the solver before a one-solution search
#: (``max_solutions=1``), and before a search that counts to two (``PROOF_PHASES``, on
#: since solver 1.3, whose difficulty model was fitted with them: Knotty is shown multiple
#: in 3 conflicts, Faase in ~73,000, where neither was found in 200 s without them).
ONE_SOLUTION_PHASES = True
PROOF_PHASES = True
#: Options set on the solver by name (python-sat ``configure``: CaDiCaL's ``set``), for
#: the CaDiCaL back-ends; empty: the solver's defaults.
SOLVER_OPTIONS: dict[str, dict[str, int]] = {}

#: The most clauses a CNF may have: past this the encoding is refused (a SolverError;
#: the ``auto`` strategy then goes on searching). A random 1000x1000 picture would need
#: hundreds of millions; the survey's largest (Faase, 80x95) needs far fewer.
MAX_CLAUSES = 1 << 24
#: Room for clauses at the first try on a big puzzle (it grows to the bound when filled).
FIRST_CLAUSES = 1 << 20
#: Clauses converted and loaded into the solver per step, between looks at the deadline.
_CHUNK = 1 << 17


class Stopped(Exception):
    """The deadline passed while the CNF was being built or loaded."""


class TooLarge(SolverError):
    """The CNF would exceed :data:`MAX_CLAUSES`."""

Status = Literal["unique", "multiple", "none", "timeout", "budget"]


@dataclass(frozen=True, slots=True)
class SatOutcome:
    """What the SAT fallback found.

    ``status`` is ``"unique"`` (one solution, and the solver proved there is no other),
    ``"multiple"`` (``max_solutions`` different solutions found, ``max_solutions >= 2``),
    ``"none"`` (no solution at all), ``"timeout"`` (the deadline passed first;
    ``solutions`` holds what was found by then) or ``"budget"`` (the conflict budget ran
    out first: deterministic, unlike a timeout). Each solution has been checked against the
    clues. The counts are the solver's, summed over every call; ``encode_s`` and ``solve_s``
    are wall-clock seconds (not deterministic, unlike the counts).
    """

    status: Status
    solutions: list[Grid] = field(default_factory=list)
    conflicts: int = 0
    decisions: int = 0
    variables: int = 0
    clauses: int = 0
    encode_s: float = 0.0
    solve_s: float = 0.0


class Encoding:
    """The CNF of one puzzle, and how to read a grid back out of a model.

    ``clauses`` are lists of non-zero ints (DIMACS literals) over variables ``1..nvars``.
    The order encoding keeps them as the compiled encoder wrote them (flat literals and
    each clause's start, ``_csr``) and makes the lists only when ``clauses`` is read: the
    solver is loaded from the arrays (:func:`_loaded_csr`). ``unsat`` is set when the
    encoder already saw a contradiction (a cell with no possible colour, a line that cannot
    be placed); the clauses are then incomplete and must not be solved.
    """

    __slots__ = ("height", "width", "nvars", "unsat", "_clauses", "_csr", "_lits", "_free",
                 "_starts", "_reading")

    def __init__(self, height: int, width: int, lits: np.ndarray) -> None:
        self.height = height
        self.width = width
        self.nvars = 0
        self._clauses: list[list[int]] | None = []
        #: the clauses as flat literals and each clause's start (CSR), when not yet lists.
        self._csr: tuple[np.ndarray, np.ndarray] | None = None
        self.unsat = False
        #: literal "cell has colour" per (cell, colour), TRUE/FALSE where already decided.
        self._lits = lits
        #: the order encoding's block starts: (first, last) feasible start of each block, in
        #: ``Tables.blen`` order (the start variables number the positions past the first,
        #: as :func:`cnf.start_bases` says); None for the regular encoding.
        self._starts: tuple[np.ndarray, np.ndarray] | None = None
        #: cells with two or more possible colours (the others are constants).
        self._free = (lits != FALSE).sum(axis=1) >= 2
        #: how a model is read (:meth:`_reader`), made on the first model.
        self._reading: tuple[np.ndarray, tuple[np.ndarray, ...], list[int], np.ndarray] | None
        self._reading = None

    @property
    def clauses(self) -> list[list[int]]:
        """The clauses as lists of DIMACS literals (made from the arrays when first read)."""
        if self._clauses is None:
            assert self._csr is not None
            self._clauses = _clause_lists(*self._csr, np.zeros(1, dtype=np.int64))
        return self._clauses

    @clauses.setter
    def clauses(self, value: list[list[int]]) -> None:
        self._clauses = value
        self._csr = None

    @property
    def nclauses(self) -> int:
        """How many clauses the CNF has (without making their lists)."""
        if self._clauses is None:
            assert self._csr is not None
            return len(self._csr[1]) - 1
        return len(self._clauses)

    def _reader(self) -> tuple[np.ndarray, tuple[np.ndarray, ...], list[int], np.ndarray]:
        """What reading a model needs, made once per encoding: the (cell, colour) pairs
        already true, where the variable pairs are, the model positions of their variables
        and whether each pair is the variable's positive literal."""
        if self._reading is None:
            lits = self._lits
            var = (lits != TRUE) & (lits != FALSE)
            where = np.nonzero(var)
            vlits = lits[where]
            self._reading = (lits == TRUE, where, (np.abs(vlits) - 1).tolist(), vlits > 0)
        return self._reading

    def _colours(self, model: Sequence[int]) -> np.ndarray:
        """The colour of every cell under ``model`` (python-sat's model: ``model[v - 1]`` is
        ``v`` or ``-v``). Only the cells' variables are read, not the whole model (the
        order encoding's start variables are most of it)."""
        fixed, where, at, positive = self._reader()
        truth = fixed.copy()
        if at:
            values = np.fromiter(map(model.__getitem__, at), dtype=np.int64, count=len(at))
            truth[where] = (values > 0) == positive
        return truth.argmax(axis=1)

    def decode(self, model: Sequence[int]) -> Grid:
        """The grid a satisfying assignment (python-sat's model list) describes."""
        return self._grid(self._colours(model))

    def _grid(self, colours: np.ndarray) -> Grid:
        """The grid of every cell's colour (:meth:`_colours`)."""
        return Grid(colours.reshape(self.height, self.width))

    def blocking_clause(self, model: Sequence[int]) -> list[int]:
        """A clause that every assignment of the cells except this model's satisfies."""
        return self._blocking(self._colours(model))

    def _blocking(self, colours: np.ndarray) -> list[int]:
        """:meth:`blocking_clause` of the model whose cells have ``colours``."""
        free = np.flatnonzero(self._free)
        return (-self._lits[free, colours[free]]).tolist()

    @property
    def free_cells(self) -> int:
        """How many cells the encoding leaves open (the rest are fixed constants)."""
        return int(self._free.sum())


def encode(
    puzzle: Puzzle,
    state: np.ndarray | None = None,
    lines: str = "order",
    stop: np.ndarray | None = None,
    tables: Tables | None = None,
) -> Encoding:
    """The CNF of ``puzzle``, restricted to the colours ``state`` still allows.

    ``state`` is an ``(height, width)`` array of colour bitmasks (bit ``c`` set: colour ``c``
    still possible, bit 0 is the background), such as propagation leaves behind. Colours it
    rules out are never given a variable, so a mostly solved state makes a small CNF.
    ``lines`` is the line encoding: ``"order"`` (the default) or ``"regular"``. ``stop``
    is a one-element int64 array another thread sets to 1 at a deadline; the encoder looks
    at it once a line (and between chunks of clauses) and raises :class:`Stopped`.
    ``tables`` are the puzzle's arrays when the caller has them (and has checked the
    colours). Raises :class:`TooLarge` (a :class:`SolverError`) past :data:`MAX_CLAUSES`.
    """
    if stop is None:
        stop = np.zeros(1, dtype=np.int64)
    if lines not in _LINE_ENCODERS:
        raise SolverError(f"unknown line encoding {lines!r} (order or regular)")
    h, w = puzzle.height, puzzle.width
    if tables is None:
        check_colours(puzzle)
        tables = Tables.of(puzzle)
    t = tables
    ncol = puzzle.ncolors + 1
    masks = np.full(h * w, t.full, dtype=np.uint64)
    if state is not None:
        st = np.asarray(state)
        if st.shape != (h, w):
            raise SolverError(f"state has shape {st.shape}, the puzzle is {h}x{w}")
        masks &= st.astype(np.uint64).ravel()
    lits = np.full((h * w, ncol), FALSE, dtype=np.int64)
    # Which colours every cell can take (row, column, state) and every block's starts.
    feas = np.zeros((len(t.blen), max(h, w)), dtype=np.bool_)
    slo = np.zeros(len(t.blen), dtype=np.int64)
    shi = np.zeros(len(t.blen), dtype=np.int64)
    narrowed = cnf.narrow(masks, t.lines, t.blen, t.bcol, feas, slo, shi, stop)
    if stop[0]:
        raise Stopped
    if not narrowed:
        enc = Encoding(h, w, lits)
        enc.unsat = True
        return enc
    order = lines == "order"
    # room for every clause the order encoding can emit, about (4 k + 1) n per line (a
    # bound far above the need on big puzzles: start lower there, grow when asked)
    bound = 64 + int(((4 * t.lines[:, 4] + 1) * t.lines[:, 2]).sum()) + h * w * ncol * ncol
    size = min(bound, FIRST_CLAUSES)
    while True:
        out = np.zeros(3 * size, dtype=np.int64)
        cstart = np.zeros(size + 1, dtype=np.int64)
        top = np.zeros(4, dtype=np.int64)
        rc = cnf.emit(
            masks, ncol, t.lines, t.blen, t.bcol, feas, slo, shi, order, lits, out, cstart, top,
            stop,
        )
        if rc == cnf.EMIT_STOPPED:
            raise Stopped
        if rc != cnf.EMIT_FULL:
            break
        if size >= MAX_CLAUSES:
            raise TooLarge(
                f"the puzzle is too large for the SAT back-end (over {MAX_CLAUSES:,} clauses)"
            )
        # straight to the bound (it was only estimated low to spare memory): the CNF is
        # built at most twice, not once per fourfold growth
        size = min(max(size * 4, bound), MAX_CLAUSES)
    enc = Encoding(h, w, lits)
    if rc == cnf.EMIT_UNSAT:
        enc.unsat = True
        return enc
    nv = int(top[3])
    if order:
        enc.nvars = nv
        # copies: the buffers were sized for a bound far above the need on big puzzles
        enc._csr = (out[: top[1]].copy(), cstart[: top[0] + 1].copy())
        enc._clauses = None
        enc._starts = (slo, shi)
        return enc
    clauses = _clause_lists(out[: top[1]], cstart[: top[0] + 1], stop)
    # the regular encoding: its lines are added in Python
    cells = lits.tolist()
    cells_of = [cells[r * w : (r + 1) * w] for r in range(h)] + [cells[c::w] for c in range(w)]
    for i, clue in enumerate(puzzle.rows + puzzle.columns):
        nv = _encode_line_regular(clue, cells_of[i], nv, clauses)
    clauses = [
        [x for x in cl if x != FALSE] if FALSE in cl else cl for cl in clauses if TRUE not in cl
    ]
    enc.unsat = not all(clauses)
    enc.nvars = nv
    enc.clauses = clauses
    return enc


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while tens of thousands of clause lists are made.

    Every few hundred new lists trigger a collection that walks the young objects (and,
    in a process holding many objects, the old ones too): that doubled the time to build
    and load a CNF. Clause lists hold only ints, so they can form no cycles.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _clause_lists(lits: np.ndarray, cstart: np.ndarray, stop: np.ndarray) -> list[list[int]]:
    """CSR clauses as python-sat wants them (lists of ints), in their order."""
    sizes = np.diff(cstart)
    clauses: list[list[int]] = [[]] * len(sizes)
    with _gc_paused():
        for size in np.unique(sizes).tolist():
            which_all = np.flatnonzero(sizes == size)
            for c0 in range(0, len(which_all), _CHUNK):
                if stop[0]:
                    raise Stopped
                which = which_all[c0 : c0 + _CHUNK]
                rows = lits[cstart[which][:, None] + np.arange(size)].tolist()
                for i, row in zip(which.tolist(), rows, strict=True):
                    clauses[i] = row
    return clauses


def _encode_line_regular(clue: Clue, cells: list[list[int]], nv: int, out: list[list[int]]) -> int:
    """The line as an automaton over its cells, unrolled: one variable per reachable state.

    States: ``gap(-1)`` (before the first block), ``blk(j, t)`` (``t`` cells of block ``j``
    read), ``gap(j)`` (background read after block ``j``). Every state is entered by one
    colour only, so "state after cell ``i`` is ``q``" implies the colour of cell ``i``, and
    a cell's colour implies one of the states that colour enters.
    """
    n = len(cells)
    label, succ, accept = _line_automaton(clue)
    allowed = [[a for a in range(len(cells[i])) if cells[i][a] != FALSE] for i in range(n)]
    live = _live_states(succ, accept, allowed)
    if not live[0]:
        out.append([FALSE])
        return nv
    var: list[dict[int, int]] = [dict() for _ in range(n + 1)]
    var[0][0] = TRUE
    for i in range(1, n + 1):
        if len(live[i]) == 1:
            var[i][next(iter(live[i]))] = TRUE
            continue
        for q in sorted(live[i]):
            nv += 1
            var[i][q] = nv
    for i in range(1, n + 1):
        out.append(list(var[i].values()))  # some state
    for i in range(n):
        _regular_step(cells[i], label, succ, var[i], var[i + 1], out)
    return nv


def _line_automaton(clue: Clue) -> tuple[list[int], list[dict[int, int]], set[int]]:
    """The automaton of :func:`_encode_line_regular`: each state's colour (``label``), its
    successors (``succ[q] = {colour: q'}``) and the accepting states; state 0 is gap(-1)."""
    k = len(clue)
    label = [0]
    succ: list[dict[int, int]] = [{0: 0}]
    gap_of = [0]  # state index of gap(j), j = -1..k-1
    first = []
    for b in clue:
        q0 = len(label)
        first.append(q0)
        for _ in range(b.length):
            label.append(b.color)
            succ.append({})
        for t in range(b.length - 1):
            succ[q0 + t][b.color] = q0 + t + 1
        g = len(label)
        label.append(0)
        succ.append({0: g})
        gap_of.append(g)
        succ[q0 + b.length - 1][0] = g
    for j, b in enumerate(clue):
        prev_gap = gap_of[j]
        succ[prev_gap][b.color] = first[j]
        if j > 0 and clue[j - 1].color != b.color:
            succ[first[j - 1] + clue[j - 1].length - 1][b.color] = first[j]
    accept = {gap_of[k], first[k - 1] + clue[k - 1].length - 1} if k else {0}
    return label, succ, accept


def _live_states(
    succ: list[dict[int, int]], accept: set[int], allowed: list[list[int]]
) -> list[set[int]]:
    """The states after each cell that are reachable from the start (reading colours the
    cells allow) and can still reach an accepting state at the end."""
    n = len(allowed)
    fwd: list[set[int]] = [set() for _ in range(n + 1)]
    fwd[0].add(0)
    for i in range(n):
        nxt = fwd[i + 1]
        for q in fwd[i]:
            for a in allowed[i]:
                q2 = succ[q].get(a)
                if q2 is not None:
                    nxt.add(q2)
    live: list[set[int]] = [set() for _ in range(n + 1)]
    live[n] = fwd[n] & accept
    for i in range(n - 1, -1, -1):
        for q in fwd[i]:
            if any(succ[q].get(a) in live[i + 1] for a in allowed[i]):
                live[i].add(q)
    return live


def _regular_step(
    cell: list[int], label: list[int], succ: list[dict[int, int]], here: dict[int, int],
    there: dict[int, int], out: list[list[int]],
) -> None:
    """The clauses of one cell: each state before it (variables ``here``) and each colour
    lead to the state after it (``there``), which implies its colour and has a predecessor;
    each colour implies a state it enters."""
    preds: dict[int, list[int]] = {q: [] for q in there}
    for q, v in here.items():
        succs = []
        for a in range(len(cell)):
            x = cell[a]
            if x == FALSE:
                continue
            q2 = succ[q].get(a)
            if q2 is None or q2 not in there:
                out.append([-v, -x])
            else:
                out.append([-v, -x, there[q2]])
                succs.append(there[q2])
                preds[q2].append(v)
        out.append([-v, *succs])
    by_label: dict[int, list[int]] = {}
    for q2, v2 in there.items():
        out.append([-v2, cell[label[q2]]])
        out.append([-v2, *preds[q2]])
        by_label.setdefault(label[q2], []).append(v2)
    for a in range(len(cell)):
        x = cell[a]
        if x != FALSE:
            out.append([-x, *by_label.get(a, [])])


_LINE_ENCODERS = ("order", "regular")


def solve_sat(
    puzzle: Puzzle,
    state: np.ndarray | None = None,
    max_solutions: int = 2,
    deadline: float | None = None,
    conflict_budget: int | None = None,
    tables: Tables | None = None,
) -> SatOutcome:
    """Solve ``puzzle`` with a CDCL solver, counting solutions up to ``max_solutions``.

    ``state`` restricts the cells (see :func:`encode`); ``deadline`` is a
    :func:`time.monotonic` value after which the solver is interrupted and the outcome is
    ``"timeout"`` with the counts so far. Each further solution is sought after a clause
    blocking the previous ones, so ``"unique"`` carries the proof that no second one exists
    -- except with ``max_solutions=1``, which asks for one solution and no proof: the first
    one found is returned as ``"unique"`` (proven only if every cell was already decided).
    ``conflict_budget`` is how many CDCL conflicts the calls may use in all (MiniSat's
    conflict budget: the same CNF stops at the same point on every machine); a search that
    needs more is stopped past it, and the outcome is ``"budget"``: MiniSat looks at its
    budget when a propagation ends without a conflict, so a run of conflicts in a row can
    carry it a few conflicts past (the same few on every machine).
    ``tables``: see :func:`encode`.
    """
    if max_solutions < 1:
        raise SolverError(f"max_solutions must be at least 1, got {max_solutions}")
    t0 = time.perf_counter()
    if tables is None:  # built once, for the encoder and the phase hints
        check_colours(puzzle)
        tables = Tables.of(puzzle)
    stop = np.zeros(1, dtype=np.int64)
    # the encoder's kernels run without the GIL: the alarm stops them from outside
    alarm = Alarm(deadline, stop.fill, 1).arm()
    try:
        enc = encode(puzzle, state, stop=stop, tables=tables)
        t1 = time.perf_counter()
        base: dict[str, Any] = {
            "variables": enc.nvars, "clauses": enc.nclauses, "encode_s": t1 - t0,
        }
        if enc.unsat:
            return SatOutcome("none", **base)
        name = ONE_SOLUTION_SOLVER if max_solutions == 1 else SOLVER_NAME
        solver = _loaded_encoding(enc, stop, name)
        if ONE_SOLUTION_PHASES if max_solutions == 1 else PROOF_PHASES:
            _set_phases(solver, puzzle, state, enc, tables, stop)
    except Stopped:
        return SatOutcome("timeout", encode_s=time.perf_counter() - t0)
    finally:
        alarm.cancel()
    solutions: list[Grid] = []
    status: Status | None = None
    with solver:
        while status is None:
            result = _solve_until(solver, deadline, conflict_budget, name)
            if result is None:
                used = int(solver.accum_stats().get("conflicts", 0))
                spent = conflict_budget is not None and used > conflict_budget
                status = "budget" if spent else "timeout"
            elif not result:
                status = "unique" if solutions else "none"
            else:
                # the cells' colours read once, for the grid and the blocking clause
                colours = enc._colours(solver.get_model())
                # checked here, once: the solver's entry point keeps it as it is
                solutions.append(verify_solution(puzzle, enc._grid(colours)))
                if not enc._free.any():
                    status = "unique"  # every cell was fixed: there is nothing else
                elif len(solutions) >= max_solutions:
                    # max_solutions == 1 asks for one solution, not for a proof.
                    status = "multiple" if len(solutions) >= 2 else "unique"
                else:  # a clause over the free cells (not empty: some cell is free)
                    solver.add_clause(enc._blocking(colours))
        stats = solver.accum_stats()
    return SatOutcome(
        status,
        solutions,
        conflicts=int(stats.get("conflicts", 0)),
        decisions=int(stats.get("decisions", 0)),
        solve_s=time.perf_counter() - t1,
        **base,
    )


def _loaded(clauses: list[list[int]], stop: np.ndarray, name: str) -> Solver:
    """A solver (python-sat ``name``) holding ``clauses``, loaded in chunks so that a
    deadline can stop it."""
    solver = Solver(name=name)
    if SOLVER_OPTIONS.get(name):
        solver.configure(SOLVER_OPTIONS[name])
    add = _clause_adder(solver)
    try:
        with _gc_paused():
            for c0 in range(0, len(clauses), _CHUNK):
                if stop[0]:
                    raise Stopped
                chunk = clauses[c0 : c0 + _CHUNK]
                if add is None:
                    solver.append_formula(chunk)
                elif not add(chunk):
                    solver.solver.status = False  # as python-sat's add_clause records it
    except BaseException:
        solver.delete()
        raise
    return solver


def _loaded_encoding(enc: Encoding, stop: np.ndarray, name: str) -> Solver:
    """A solver (python-sat ``name``) holding the clauses of ``enc``, in their order.

    MiniSat is given the order encoding straight from its arrays: every clause padded to
    the longest one's length by repeating its last literal, all turned into lists by one
    numpy call, a chunk at a time, and each list dropped once MiniSat holds its clause.
    MiniSat's ``addClause`` sorts a clause's literals and drops repeated ones before it
    stores it, so it stores the very clauses, in the same order, as from the unpadded
    lists, and its search (every conflict count) is the same; what goes is the Python
    loop that cut the arrays into clauses of each length and put them back in order (on
    a tournament hand-over, as long as loading them), and the collector's later walk
    over the thousands of lists that stayed alive. Other back-ends get ``enc.clauses``."""
    if enc._csr is None:
        return _loaded(enc.clauses, stop, name)
    lits, cstart = enc._csr
    sizes = np.diff(cstart)
    solver = Solver(name=name)
    add = _clause_adder(solver)
    if (add is None or SOLVER_OPTIONS.get(name) or not len(sizes) or sizes.min() < 1
            or lits.min() < -enc.nvars or lits.max() > enc.nvars):
        solver.delete()
        return _loaded(enc.clauses, stop, name)
    try:
        upto = np.arange(int(sizes.max()))
        # every literal as one of the int objects of this table (-nvars .. nvars), shared
        # by all the clauses: tolist made a new int object for nearly every literal and
        # freed them all after (icga2018's 966 hand-overs: loading about 0.1 CPU s less)
        table = np.arange(-enc.nvars, enc.nvars + 1).astype(object)
        with _gc_paused():
            for c0 in range(0, len(sizes), _CHUNK):
                if stop[0]:
                    raise Stopped
                # a chunk's literal positions, the last one repeated to the common length
                # (made per chunk: for millions of clauses the whole table would be large)
                last = sizes[c0 : c0 + _CHUNK, None] - 1
                at = cstart[c0 : c0 + len(last), None] + np.minimum(upto, last)
                # one flat list, cut into clauses by zip: a 2-D tolist made a row array
                # per clause, three times the time; zip hands MiniSat one tuple, reused
                flat = iter(table[lits[at].ravel() + enc.nvars].tolist())
                if not add(zip(*[flat] * len(upto), strict=False)):
                    solver.solver.status = False  # as python-sat's add_clause records it
                del flat
    except BaseException:
        solver.delete()
        raise
    return solver


def _clause_adder(solver: Solver) -> Callable[[Iterable[Sequence[int]]], bool] | None:
    """A function that adds clauses to ``solver`` in their order through MiniSat's own
    add-clause function, and says whether the solver is still consistent after them; or
    None (another back-end: its ``append_formula`` is used).

    python-sat adds a formula one clause at a time through two Python calls per clause;
    on a tournament hand-over (about 8,000 clauses) that was a third of loading the CNF.
    Mapped straight over the clauses, the same C function gets the same clauses in the
    same order, so the solver's state, and its conflict counts, are those of before.
    The handle goes in by ``repeat`` (not bound by ``partial``, whose call merges its
    arguments each time) and only the last answer is kept (not a list of them): MiniSat
    answers False for a clause exactly when it is then inconsistent, and once it is, for
    every clause after, so the last answer is False exactly when any was. Together about
    a tenth of loading (icga2018's hand-overs: 1.90 -> 1.66 CPU s for 7.9 million
    clauses)."""
    backend = getattr(solver, "solver", None)
    handle = getattr(backend, "minisat", None)
    if not isinstance(backend, MinisatGH) or not handle:
        return None
    add_cl = pysolvers.minisatgh_add_cl

    def add_all(clauses: Iterable[Sequence[int]]) -> bool:
        last = deque(map(add_cl, repeat(handle), clauses), maxlen=1)
        return not last or bool(last[0])

    return add_all


def _set_phases(
    solver: Solver, puzzle: Puzzle, state: np.ndarray | None, enc: Encoding,
    tables: Tables, stop: np.ndarray,
) -> None:
    """Give ``solver`` the belief-propagation phase of every variable of ``enc``
    (black-and-white puzzles; nothing for colour puzzles or past the work cap). Raises
    :class:`Stopped` when the deadline's ``stop`` flag ended the hints' work."""
    from nonoforge.solver.phases import phase_literals

    st = (np.asarray(state) if state is not None
          else np.full((puzzle.height, puzzle.width), tables.full, dtype=np.uint64))
    lits = phase_literals(tables, st, enc, stop=stop)
    if stop[0]:
        raise Stopped
    if lits:
        solver.set_phases(lits)


#: Conflict budgets of successive CaDiCaL calls when a deadline is set: python-sat cannot
#: interrupt CaDiCaL, so the search runs in slices and the deadline is checked in between.
#: A fixed schedule keeps the counts deterministic; slices stay short enough (a few tenths
#: of a second on the survey's largest puzzles) for the deadline to hold within that.
_SLICES = (500, 1000, 2000, 4000)


def _solve_until(
    solver: Solver, deadline: float | None, conflict_budget: int | None = None,
    name: str = SOLVER_NAME,
) -> bool | None:
    """One solver call; ``None`` when the deadline or the conflict budget (the conflicts
    allowed over every call on ``solver``; stopped a few past it, see :func:`solve_sat`)
    stopped it."""
    left = None
    if conflict_budget is not None:
        left = conflict_budget + 1 - int(solver.accum_stats().get("conflicts", 0))
        if left <= 0:
            return None
    if deadline is None and left is None:
        return solver.solve()
    if deadline is not None and time.monotonic() >= deadline:
        return None
    if deadline is None:
        solver.conf_budget(left)
        return solver.solve_limited()
    if name.startswith("cadical"):
        i = 0
        while True:
            step = _SLICES[min(i, len(_SLICES) - 1)]
            if conflict_budget is not None:
                left = conflict_budget + 1 - int(solver.accum_stats().get("conflicts", 0))
                if left <= 0:
                    return None
                step = min(step, left)
            solver.conf_budget(step)
            result = solver.solve_limited()
            if result is not None:
                return result
            if time.monotonic() >= deadline:
                return None
            i += 1
    if left is not None:
        solver.conf_budget(left)
    try:  # the alarm is cancelled before the interrupt flag is cleared
        with Alarm(deadline, solver.interrupt).arm():
            return solver.solve_limited(expect_interrupt=True)
    finally:
        solver.clear_interrupt()


__all__ = ["MAX_CLAUSES", "ONE_SOLUTION_SOLVER", "SOLVER_NAME", "Encoding", "SatOutcome",
           "Stopped", "TooLarge", "encode", "solve_sat"]
