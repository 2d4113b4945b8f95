"""The SAT fallback of the solver: a CNF encoding of the clues, solved by a CDCL solver.

Backtracking with line logic and probing settles nearly every puzzle, but the hardest ones of
Wolter's survey were only ever finished by clause learning (Tamura's Copris). This module
encodes a puzzle -- black-and-white or colour, optionally restricted by the cell masks that
propagation has already narrowed -- into CNF, hands it to Glucose through python-sat, and
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

The same puzzle and state always give the same CNF, and Glucose runs with fixed options and
no random decisions, so the conflict and decision counts repeat from run to run (except when
a deadline cuts a run short).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pysat.solvers import Solver

from nonoforge.errors import SolverError
from nonoforge.puzzle import Clue, Grid, Puzzle

#: The CDCL solver python-sat runs. Glucose 4 beat CaDiCaL 1.5.3 and 1.9.5 on the hard
#: random 45x45 puzzles of ``bench/sat.py`` (about half the CPU time) and, unlike CaDiCaL
#: in python-sat, it can be interrupted, so a deadline holds to a few milliseconds.
SOLVER_NAME = "glucose4"

Status = Literal["unique", "multiple", "none", "timeout"]

# Constant literals: a cell with one possible colour, or an order variable outside its range.
# Kept as ints far above any variable number so that negation works on them as on literals.
_TRUE = 1 << 60
_FALSE = -_TRUE


@dataclass(frozen=True, slots=True)
class SatOutcome:
    """What the SAT fallback found.

    ``status`` is ``"unique"`` (one solution, and the solver proved there is no other),
    ``"multiple"`` (``max_solutions`` different solutions found, ``max_solutions >= 2``),
    ``"none"`` (no solution at all), or ``"timeout"`` (the deadline passed first;
    ``solutions`` holds what was found by then). Each solution has been checked against the
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
    ``unsat`` is set when the encoder already saw a contradiction (a cell with no possible
    colour, a line with an impossible cell); the clauses are then incomplete and must not
    be solved.
    """

    __slots__ = ("height", "width", "nvars", "clauses", "unsat", "_fixed", "_binary", "_onehot")

    def __init__(self, height: int, width: int) -> None:
        self.height = height
        self.width = width
        self.nvars = 0
        self.clauses: list[list[int]] = []
        self.unsat = False
        #: colour of every cell whose colour is already known, -1 for the others.
        self._fixed = np.full(height * width, -1, dtype=np.int64)
        #: cells with two possible colours: (cell, variable, colour if false, colour if true).
        self._binary: list[tuple[int, int, int, int]] = []
        #: cells with three or more: (cell, ((variable, colour), ...)).
        self._onehot: list[tuple[int, tuple[tuple[int, int], ...]]] = []

    def decode(self, model: Sequence[int]) -> Grid:
        """The grid a satisfying assignment (python-sat's model list) describes."""
        cells = self._fixed.copy()
        for cell, var, off, on in self._binary:
            cells[cell] = on if model[var - 1] > 0 else off
        for cell, options in self._onehot:
            for var, colour in options:
                if model[var - 1] > 0:
                    cells[cell] = colour
                    break
        return Grid(cells.reshape(self.height, self.width))

    def blocking_clause(self, model: Sequence[int]) -> list[int]:
        """A clause that every assignment of the cells except this model's satisfies."""
        out = [-model[var - 1] for _, var, _, _ in self._binary]
        for _, options in self._onehot:
            out.extend(-var for var, _ in options if model[var - 1] > 0)
        return out

    @property
    def free_cells(self) -> int:
        """How many cells the encoding leaves open (the rest are fixed constants)."""
        return len(self._binary) + len(self._onehot)


def _clue_ranges(clue: Clue, n: int) -> tuple[list[int], list[int], list[int], int]:
    """Leftmost starts, block lengths, required distance to the next start, and the slack.

    Every block can start anywhere from its leftmost-packing start to that plus the slack.
    """
    lo: list[int] = []
    dist: list[int] = []
    pos = 0
    for j, b in enumerate(clue):
        lo.append(pos)
        gap = 1 if j + 1 < len(clue) and clue[j + 1].color == b.color else 0
        dist.append(b.length + gap)
        pos += b.length + gap
    used = lo[-1] + clue[-1].length if clue else 0
    return lo, [b.length for b in clue], dist, n - used


def _line_options(clue: Clue, n: int, out: list[int]) -> None:
    """AND into ``out`` (bitmasks, one per cell) the colours the line can place there.

    Uses the packing ranges alone (every block anywhere from its leftmost to its rightmost
    start): exact when no cell is restricted yet, and cheap.
    """
    if not clue:
        for c in range(n):
            out[c] &= 1
        return
    lo, _, _, slack = _clue_ranges(clue, n)
    _options_from_starts(clue, [range(a, a + slack + 1) for a in lo], out)


def _options_from_starts(clue: Clue, starts: Sequence[Sequence[int]], out: list[int]) -> None:
    """AND into ``out`` the colours blocks starting at ``starts[j]`` can give each cell.

    A cell that some block covers wherever it starts cannot be background.
    """
    n = len(out)
    can = [0] * n
    forced = [False] * n
    for b, st in zip(clue, starts, strict=True):
        bit = 1 << b.color
        for p in st:
            for c in range(p, p + b.length):
                can[c] |= bit
        for c in range(st[-1], st[0] + b.length):
            forced[c] = True
    for c in range(n):
        out[c] &= can[c] | (0 if forced[c] else 1)


def _feasible_starts(clue: Clue, allow: Sequence[int]) -> list[list[int]] | None:
    """Every start of every block that some placement of the whole clue allows.

    ``allow[c]`` is the bitmask of colours cell ``c`` may take. A start is feasible when the
    block fits on cells that allow its colour and the blocks before and after it can be
    placed too, with only background-allowed cells between them: a forward and a backward
    pass over the line, O(k*n). ``None`` when the clue cannot be placed at all.
    """
    n, k = len(allow), len(clue)
    # lastbad[p]: the last cell before p that cannot be background (-1 if none);
    # nextbad[p]: the first cell at or after p that cannot be background (n if none).
    lastbad = [-1] * (n + 1)
    for p in range(1, n + 1):
        lastbad[p] = p - 1 if not allow[p - 1] & 1 else lastbad[p - 1]
    nextbad = [n] * (n + 1)
    for p in range(n - 1, -1, -1):
        nextbad[p] = p if not allow[p] & 1 else nextbad[p + 1]
    fits: list[list[bool]] = []
    for b in clue:
        bit = 1 << b.color
        run = 0
        ok = [False] * n
        for c in range(n - 1, -1, -1):
            run = run + 1 if allow[c] & bit else 0
            ok[c] = run >= b.length
        fits.append(ok)
    gaps = [1 if clue[j + 1].color == clue[j].color else 0 for j in range(k - 1)]
    fwd: list[list[bool]] = []
    for j in range(k):
        ok = fits[j]
        if j == 0:
            f = [ok[p] and lastbad[p] == -1 for p in range(n)]
        else:
            # ends of block j-1 (prefix counts): some end e in [lastbad[p]+1, p-gap]
            ln, g = clue[j - 1].length, gaps[j - 1]
            cnt = [0] * (n + 2)
            prev = fwd[j - 1]
            for e in range(n + 1):
                cnt[e + 1] = cnt[e] + (1 if e - ln >= 0 and prev[e - ln] else 0)
            f = [
                ok[p] and p - g >= lastbad[p] + 1 and cnt[p - g + 1] > cnt[lastbad[p] + 1]
                for p in range(n)
            ]
        if not any(f):
            return None
        fwd.append(f)
    out: list[list[int]] = [[] for _ in range(k)]
    nxt: list[bool] = []
    for j in range(k - 1, -1, -1):
        ln = clue[j].length
        f = fwd[j]
        if j == k - 1:
            bk = [f[p] and p + ln <= n and nextbad[p + ln] == n for p in range(n)]
        else:
            # some start q of block j+1 in [p+len+gap, nextbad[p+len]] (suffix counts)
            g = gaps[j]
            suf = [0] * (n + 2)
            for q in range(n - 1, -1, -1):
                suf[q] = suf[q + 1] + (1 if nxt[q] else 0)
            bk = []
            for p in range(n):
                e = p + ln
                ok = f[p] and e + g <= n
                if ok:
                    hi = min(nextbad[e], n - 1)
                    ok = hi >= e + g and suf[e + g] > suf[hi + 1]
                bk.append(ok)
        out[j] = [p for p in range(n) if bk[p]]
        if not out[j]:
            return None
        nxt = bk
    return out


def encode(puzzle: Puzzle, state: np.ndarray | None = None, lines: str = "order") -> Encoding:
    """The CNF of ``puzzle``, restricted to the colours ``state`` still allows.

    ``state`` is an ``(height, width)`` array of colour bitmasks (bit ``c`` set: colour ``c``
    still possible, bit 0 is the background), such as propagation leaves behind. Colours it
    rules out are never given a variable, so a mostly solved state makes a small CNF.
    """
    h, w = puzzle.height, puzzle.width
    enc = Encoding(h, w)
    full = (1 << (puzzle.ncolors + 1)) - 1
    if state is not None:
        st = np.asarray(state)
        if st.shape != (h, w):
            raise SolverError(f"state has shape {st.shape}, the puzzle is {h}x{w}")
        masks = [int(v) & full for v in st.astype(np.uint64).ravel().tolist()]
    else:
        masks = [full] * (h * w)

    # Which colours every cell can take, from its row, its column and the state.
    for r, clue in enumerate(puzzle.rows):
        line = masks[r * w : (r + 1) * w]
        _line_options(clue, w, line)
        masks[r * w : (r + 1) * w] = line
    for c, clue in enumerate(puzzle.columns):
        line = masks[c::w]
        _line_options(clue, h, line)
        masks[c::w] = line
    # With a state, the blocks' feasible starts shrink too: one pass of each line over the
    # cells' colours (not a fixpoint: propagation is the caller's job) prunes variables.
    starts: list[list[list[int]] | None] | None = None
    if state is not None:
        starts = []
        for kind in ("row", "column"):
            for i, clue in enumerate(puzzle.rows if kind == "row" else puzzle.columns):
                sl = slice(i * w, (i + 1) * w) if kind == "row" else slice(i, None, w)
                line = masks[sl]
                if not clue:
                    starts.append([])
                    continue
                st_ = _feasible_starts(clue, line)
                if st_ is None:
                    enc.unsat = True
                    return enc
                _options_from_starts(clue, st_, line)
                masks[sl] = line
                starts.append(st_)

    # Cell literals: lits[cell][colour] for every colour 0..ncolors (constants where decided).
    ncol = puzzle.ncolors + 1
    lits: list[list[int]] = []
    clauses = enc.clauses
    nv = 0
    for cell, m in enumerate(masks):
        opts = [k for k in range(ncol) if m >> k & 1]
        row = [_FALSE] * ncol
        if not opts:
            enc.unsat = True
            return enc
        if len(opts) == 1:
            row[opts[0]] = _TRUE
            enc._fixed[cell] = opts[0]
        elif len(opts) == 2:
            nv += 1
            row[opts[0]], row[opts[1]] = -nv, nv
            enc._binary.append((cell, nv, opts[0], opts[1]))
        else:
            vs = list(range(nv + 1, nv + 1 + len(opts)))
            nv += len(opts)
            for v, k in zip(vs, opts, strict=True):
                row[k] = v
            clauses.append(vs)
            clauses.extend([-a, -b] for i, a in enumerate(vs) for b in vs[i + 1 :])
            enc._onehot.append((cell, tuple(zip(vs, opts, strict=True))))
        lits.append(row)

    line_encoder = _LINE_ENCODERS[lines]
    cells_of = [lits[r * w : (r + 1) * w] for r in range(h)] + [lits[c::w] for c in range(w)]
    for i, clue in enumerate(puzzle.rows + puzzle.columns):
        if starts is not None and lines == "order" and clue:
            nv = _encode_line_starts(clue, cells_of[i], starts[i], nv, clauses)
        else:
            nv = line_encoder(clue, cells_of[i], nv, clauses)
    enc.nvars = nv
    if lines != "order" or starts is not None:
        # Drop satisfied clauses and false literals (the plain order encoder never emits them).
        clauses = [
            [x for x in cl if x != _FALSE] if _FALSE in cl else cl
            for cl in clauses
            if _TRUE not in cl
        ]
    # An empty clause: some line cannot be completed from the cells' possible colours.
    enc.unsat = not all(clauses)
    enc.clauses = clauses
    return enc


def _encode_line(clue: Clue, cells: list[list[int]], nv: int, out: list[list[int]]) -> int:
    """Append the clauses of one line to ``out``; return the new highest variable number.

    ``cells[i][k]`` is the literal "cell ``i`` has colour ``k``" (or a constant). Block ``j``
    owns variables ``b_j + t - 1`` meaning ``start_j >= lo_j + t`` (``t`` in ``1..slack``);
    ``start_j >= p`` is constant true for ``p <= lo_j`` and false beyond ``lo_j + slack``,
    and the ranges below leave those constant literals out.
    """
    n = len(cells)
    if not clue:
        out.extend([x] if x != _FALSE else [] for x in (c[0] for c in cells) if x != _TRUE)
        return nv
    lo, lengths, _, s = _clue_ranges(clue, n)
    k = len(clue)
    base = nv + 1
    if s:
        idx = np.arange(base, base + k * s, dtype=np.int64).reshape(k, s)
        # monotone: start_j >= p+1  ->  start_j >= p
        out.extend(np.stack([idx[:, :-1], -idx[:, 1:]], axis=-1).reshape(-1, 2).tolist())
        # order: start_j >= lo_j + t  ->  start_{j+1} >= lo_{j+1} + t
        out.extend(np.stack([-idx[:-1], idx[1:]], axis=-1).reshape(-1, 2).tolist())
    # Offsets u = c - lo_j: "start_j >= c + 1" is variable b0 + u while u < s (else false);
    # "start_j >= c - len + 1" is variable b0 + u - len while u >= len (else true).
    for j in range(k):
        ln, col, l0 = lengths[j], clue[j].color, lo[j]
        b0 = base + j * s
        # covered: c - len < start_j <= c  ->  cell c has the block's colour
        for u in range(s + ln):
            x = cells[l0 + u][col]
            if x == _TRUE:
                continue
            cl = [-(b0 + u - ln)] if u >= ln else []
            if u < s:
                cl.append(b0 + u)
            if x != _FALSE:
                cl.append(x)
            out.append(cl)
        # after block j (and before block j+1, if any): background
        nxt = base + (j + 1) * s - (lo[j + 1] if j + 1 < k else 0)
        end = lo[j + 1] + s if j + 1 < k else n
        for c in range(l0 + ln, end):
            x = cells[c][0]
            if x == _TRUE:
                continue
            u = c - l0
            cl = [b0 + u - ln] if u - ln < s else []
            # start_{j+1} >= c + 1 (a variable while c + 1 <= lo_{j+1} + s; end keeps it so)
            if j + 1 < k and c + 1 > lo[j + 1]:
                cl.append(-(nxt + c))
            if x != _FALSE:
                cl.append(x)
            out.append(cl)
    # before the first block: background
    for c in range(s):
        x = cells[c][0]
        if x != _TRUE:
            out.append([-(base + c), x] if x != _FALSE else [-(base + c)])
    return nv + k * s


def _encode_line_starts(
    clue: Clue, cells: list[list[int]], starts: list[list[int]], nv: int, out: list[list[int]]
) -> int:
    """The order encoding of one line with each block's own feasible starts.

    As :func:`_encode_line`, but block ``j`` ranges over ``starts[j]`` (from
    :func:`_feasible_starts`): ``lo_j``/``hi_j`` are its first and last feasible start, and
    each infeasible start between them is excluded by a binary clause. Constant literals
    are left in the clauses for :func:`encode` to simplify.
    """
    n, k = len(cells), len(clue)
    lo = [st[0] for st in starts]
    hi = [st[-1] for st in starts]
    base = []
    for j in range(k):
        base.append(nv + 1)
        nv += hi[j] - lo[j]

    def ge(j: int, p: int) -> int:
        if p <= lo[j]:
            return _TRUE
        if p > hi[j]:
            return _FALSE
        return base[j] + p - lo[j] - 1

    for j, b in enumerate(clue):
        ln, col = b.length, b.color
        for p in range(lo[j] + 2, hi[j] + 1):
            out.append([-ge(j, p), ge(j, p - 1)])
        feasible = set(starts[j])
        for p in range(lo[j] + 1, hi[j]):
            if p not in feasible:
                out.append([-ge(j, p), ge(j, p + 1)])
        if j + 1 < k:
            d = ln + (1 if clue[j + 1].color == col else 0)
            for p in range(lo[j] + 1, hi[j] + 1):
                out.append([-ge(j, p), ge(j + 1, p + d)])
        for c in range(lo[j], hi[j] + ln):
            out.append([-ge(j, c - ln + 1), ge(j, c + 1), cells[c][col]])
        if j + 1 < k:
            for c in range(lo[j] + ln, hi[j + 1]):
                out.append([ge(j, c - ln + 1), -ge(j + 1, c + 1), cells[c][0]])
        else:
            for c in range(lo[j] + ln, n):
                out.append([ge(j, c - ln + 1), cells[c][0]])
    for c in range(hi[0]):
        out.append([-ge(0, c + 1), cells[c][0]])
    return nv


def _encode_line_regular(clue: Clue, cells: list[list[int]], nv: int, out: list[list[int]]) -> int:
    """The line as an automaton over its cells, unrolled: one variable per reachable state.

    States: ``gap(-1)`` (before the first block), ``blk(j, t)`` (``t`` cells of block ``j``
    read), ``gap(j)`` (background read after block ``j``). Every state is entered by one
    colour only, so "state after cell ``i`` is ``q``" implies the colour of cell ``i``, and
    a cell's colour implies one of the states that colour enters.
    """
    n = len(cells)
    k = len(clue)
    # label[q], and successors succ[q] = {colour: q'}
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
    allowed = [[a for a in range(len(cells[i])) if cells[i][a] != _FALSE] for i in range(n)]
    # forward reachable, then backward co-reachable
    fwd = [set() for _ in range(n + 1)]
    fwd[0].add(0)
    for i in range(n):
        nxt = fwd[i + 1]
        for q in fwd[i]:
            for a in allowed[i]:
                q2 = succ[q].get(a)
                if q2 is not None:
                    nxt.add(q2)
    live = [set() for _ in range(n + 1)]
    live[n] = fwd[n] & accept
    for i in range(n - 1, -1, -1):
        for q in fwd[i]:
            if any(succ[q].get(a) in live[i + 1] for a in allowed[i]):
                live[i].add(q)
    if not live[0]:
        out.append([_FALSE])
        return nv
    var: list[dict[int, int]] = [dict() for _ in range(n + 1)]
    var[0][0] = _TRUE
    for i in range(1, n + 1):
        if len(live[i]) == 1:
            var[i][next(iter(live[i]))] = _TRUE
            continue
        for q in sorted(live[i]):
            nv += 1
            var[i][q] = nv
    for i in range(1, n + 1):
        out.append(list(var[i].values()))  # some state
    for i in range(n):
        here, there = var[i], var[i + 1]
        preds: dict[int, list[int]] = {q: [] for q in there}
        for q, v in here.items():
            succs = []
            for a in range(len(cells[i])):
                x = cells[i][a]
                if x == _FALSE:
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
            out.append([-v2, cells[i][label[q2]]])
            out.append([-v2, *preds[q2]])
            by_label.setdefault(label[q2], []).append(v2)
        for a in range(len(cells[i])):
            x = cells[i][a]
            if x != _FALSE:
                out.append([-x, *by_label.get(a, [])])
    return nv


_LINE_ENCODERS = {"order": _encode_line, "regular": _encode_line_regular}


def solve_sat(
    puzzle: Puzzle,
    state: np.ndarray | None = None,
    max_solutions: int = 2,
    deadline: float | None = None,
) -> SatOutcome:
    """Solve ``puzzle`` with a CDCL solver, counting solutions up to ``max_solutions``.

    ``state`` restricts the cells (see :func:`encode`); ``deadline`` is a
    :func:`time.monotonic` value after which the solver is interrupted and the outcome is
    ``"timeout"`` with the counts so far. Each further solution is sought after a clause
    blocking the previous ones, so ``"unique"`` carries the proof that no second one exists
    -- except with ``max_solutions=1``, which asks for one solution and no proof: the first
    one found is returned as ``"unique"`` (proven only if every cell was already decided).
    """
    if max_solutions < 1:
        raise SolverError(f"max_solutions must be at least 1, got {max_solutions}")
    t0 = time.perf_counter()
    enc = encode(puzzle, state)
    t1 = time.perf_counter()
    base = {"variables": enc.nvars, "clauses": len(enc.clauses), "encode_s": t1 - t0}
    if enc.unsat:
        return SatOutcome("none", **base)
    solutions: list[Grid] = []
    status: Status | None = None
    with Solver(name=SOLVER_NAME, bootstrap_with=enc.clauses) as solver:
        while status is None:
            result = _solve_until(solver, deadline)
            if result is None:
                status = "timeout"
            elif not result:
                status = "unique" if solutions else "none"
            else:
                model = solver.get_model()
                grid = enc.decode(model)
                if not grid.matches(puzzle):  # pragma: no cover - an encoder bug
                    raise SolverError("SAT model does not reproduce the clues (encoder bug)")
                solutions.append(grid)
                blocking = enc.blocking_clause(model)
                if not blocking:
                    status = "unique"  # every cell was fixed: there is nothing else
                elif len(solutions) >= max_solutions:
                    # max_solutions == 1 asks for one solution, not for a proof.
                    status = "multiple" if len(solutions) >= 2 else "unique"
                else:
                    solver.add_clause(blocking)
        stats = solver.accum_stats()
    return SatOutcome(
        status,
        solutions,
        conflicts=int(stats.get("conflicts", 0)),
        decisions=int(stats.get("decisions", 0)),
        solve_s=time.perf_counter() - t1,
        **base,
    )


#: Conflict budgets of successive CaDiCaL calls when a deadline is set: python-sat cannot
#: interrupt CaDiCaL, so the search runs in slices and the deadline is checked in between.
#: A fixed schedule keeps the counts deterministic; slices stay short enough (a few tenths
#: of a second on the survey's largest puzzles) for the deadline to hold within that.
_SLICES = (500, 1000, 2000, 4000)


def _solve_until(solver: Solver, deadline: float | None) -> bool | None:
    """One solver call; ``None`` when the deadline interrupted it (or had already passed)."""
    if deadline is None:
        return solver.solve()
    if time.monotonic() >= deadline:
        return None
    if SOLVER_NAME.startswith("cadical"):
        i = 0
        while True:
            solver.conf_budget(_SLICES[min(i, len(_SLICES) - 1)])
            result = solver.solve_limited()
            if result is not None:
                return result
            if time.monotonic() >= deadline:
                return None
            i += 1
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), solver.interrupt)
    timer.start()
    try:
        result = solver.solve_limited(expect_interrupt=True)
    finally:
        timer.cancel()
        solver.clear_interrupt()
    return result


__all__ = ["SOLVER_NAME", "Encoding", "SatOutcome", "encode", "solve_sat"]
