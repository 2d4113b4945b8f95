"""Phase hints for the SAT hand-over: loopy belief propagation over the lines.

Each line is a factor over its cells: the uniform distribution over the placements of its
clue that the state allows. Counting the placements forward and backward along the line
(the clue as a chain automaton: the gap before the first block, each block's cells, the gap
after each block), weighted by what the crossing lines say about each cell, gives every
cell's odds of being black *from this line's point of view* (the extrinsic message: the
cell's own incoming weight left out). Rows and columns exchange these messages until they
settle (damped, a fixed number of rounds at most); a cell's belief is the product of its
row's and its column's message. nonosolve (hyouv/FastNonogramSolver) names such
"belief-propagation phase hints" among its techniques; :func:`cell_beliefs` is ours.

Black-and-white puzzles only (what the hint is for: the tournament's and the survey's
hard puzzles); deterministic (fixed rounds and damping, no clocks, no randomness).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from nonoforge.solver.kernel_cache import njit
from nonoforge.solver.tables import Tables


class Encoding(Protocol):
    """What the hints read of :class:`nonoforge.solver.sat.Encoding` (named here without
    importing it: this module's kernels are stamped from its imports, see kernel_cache)."""

    nvars: int
    _lits: np.ndarray
    _starts: tuple[np.ndarray, np.ndarray] | None

#: Rounds of row and column messages at most, and the damping of each update (the share
#: of the old message kept), and the change under which the messages count as settled.
ROUNDS = 100
DAMPING = 0.5
SETTLED = 1e-4
#: The most cell-state steps (line length x chain states, summed over the lines, times
#: rounds) the messages may cost (about 0.2-0.3 s). Past it the rounds are cut
#: (deterministically, by size), and with not even one round affordable there are no hints.
MAX_WORK = 300_000_000
#: The most entries (blocks x the longer side) of the start-probability table; past it only
#: the cells get hints (a random 2000x10 picture would need 167 MB of it, twice).
MAX_START_TABLE = 4_000_000
#: Messages are kept inside [EPS, 1 - EPS] so no cell's weight becomes exactly zero
#: unless the state rules its colour out.
EPS = 1e-9


@njit(cache=True, nogil=True)
def _chain(blen: np.ndarray, b0: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The clue as a chain automaton. States: 0 = the gap before block 0, then per block
    its cells and the gap after it. ``stay[s]``: the state may stay on white (a gap);
    ``adv[s]``: it advances to ``s + 1`` on that colour (1 black, 0 white; -1 never).
    Accepting: the last gap, or the last block's last cell (``k > 0``)."""
    s_n = 1
    for j in range(k):
        s_n += blen[b0 + j] + 1
    stay = np.zeros(s_n, dtype=np.bool_)
    adv = np.full(s_n, -1, dtype=np.int64)
    stay[0] = True
    s = 0
    for j in range(k):
        adv[s] = 1  # gap -> first cell of block j on black
        s += 1
        bl = blen[b0 + j]
        for t in range(bl - 1):
            adv[s + t] = 1
        s += bl - 1
        adv[s] = 0  # last cell of the block -> the gap after it on white
        s += 1
        stay[s] = True
    return stay, adv


@njit(cache=True, nogil=True)
def _weights(a: int, p: float) -> tuple[float, float]:
    """A cell's weights for white and black: the crossing line's message ``p`` (the
    probability of black), zero for a colour the state rules out (``a``: 1 white only,
    2 black only, 3 both)."""
    w0 = (1.0 - p) if a & 1 else 0.0
    w1 = p if a & 2 else 0.0
    return w0, w1


@njit(cache=True, nogil=True)
def _normalise(row: np.ndarray, s_n: int, tot: float) -> bool:
    """Divide the first ``s_n`` weights of a forward or backward row by their sum ``tot``
    (keeping the numbers in range along long lines); False when it is zero (no placement)."""
    if tot <= 0.0:
        return False
    for s in range(s_n):
        row[s] /= tot
    return True


@njit(cache=True, nogil=True)
def _forward(
    first: int, stride: int, n: int, stay: np.ndarray, adv: np.ndarray,
    allow: np.ndarray, prior: np.ndarray, alpha: np.ndarray,
) -> bool:
    """``alpha[i, s]``: the weight of reaching state ``s`` after the first ``i`` cells,
    normalised per cell; False when no placement fits."""
    s_n = stay.shape[0]
    alpha[: n + 1, :s_n] = 0.0
    alpha[0, 0] = 1.0
    for i in range(n):
        c = first + i * stride
        w0, w1 = _weights(allow[c], prior[c])
        tot = 0.0
        for s in range(s_n):
            v = 0.0
            if stay[s]:
                v += alpha[i, s] * w0
            if s > 0 and adv[s - 1] >= 0:
                v += alpha[i, s - 1] * (w1 if adv[s - 1] == 1 else w0)
            alpha[i + 1, s] = v
            tot += v
        if not _normalise(alpha[i + 1], s_n, tot):
            return False
    return True


@njit(cache=True, nogil=True)
def _backward(
    first: int, stride: int, n: int, k: int, stay: np.ndarray, adv: np.ndarray,
    allow: np.ndarray, prior: np.ndarray, beta: np.ndarray,
) -> bool:
    """``beta[i, s]``: the weight of accepting from state ``s`` before cell ``i``,
    normalised per cell; False when no placement fits."""
    s_n = stay.shape[0]
    beta[: n + 1, :s_n] = 0.0
    beta[n, s_n - 1] = 1.0
    if k > 0:
        beta[n, s_n - 2] = 1.0
    for i in range(n - 1, -1, -1):
        c = first + i * stride
        w0, w1 = _weights(allow[c], prior[c])
        tot = 0.0
        for s in range(s_n):
            v = 0.0
            if stay[s]:
                v += w0 * beta[i + 1, s]
            if adv[s] >= 0:
                v += (w1 if adv[s] == 1 else w0) * beta[i + 1, s + 1]
            beta[i, s] = v
            tot += v
        if not _normalise(beta[i], s_n, tot):
            return False
    return True


@njit(cache=True, nogil=True)
def _line_messages(
    first: int, stride: int, n: int, blen: np.ndarray, b0: int, k: int,
    allow: np.ndarray, prior: np.ndarray, out: np.ndarray,
    alpha: np.ndarray, beta: np.ndarray, starts: np.ndarray,
) -> float:
    """One line's extrinsic black odds for each of its cells, written to ``out`` (flat,
    by cell); returns the largest change. ``allow[cell]``: 1 white only, 2 black only, 3
    both; ``prior[cell]``: the crossing line's message (probability of black). When
    ``starts`` has rows, ``starts[b0 + j, p]`` receives the probability that block ``j``
    starts at ``p`` (the line's posterior: the crossing messages as cell weights)."""
    stay, adv = _chain(blen, b0, k)
    s_n = stay.shape[0]
    if not _forward(first, stride, n, stay, adv, allow, prior, alpha):
        return -1.0  # no placement: leave the messages as they are
    if not _backward(first, stride, n, k, stay, adv, allow, prior, beta):
        return -1.0
    change = 0.0
    for i in range(n):
        c = first + i * stride
        e0 = 0.0
        e1 = 0.0
        for s in range(s_n):
            a_s = alpha[i, s]
            if a_s == 0.0:
                continue
            if stay[s]:
                e0 += a_s * beta[i + 1, s]
            if adv[s] == 0:
                e0 += a_s * beta[i + 1, s + 1]
            elif adv[s] == 1:
                e1 += a_s * beta[i + 1, s + 1]
        tot = e0 + e1
        if starts.shape[0] > 0:
            w0, w1 = _weights(allow[c], prior[c])
            z = e0 * w0 + e1 * w1
            g = 0
            for j in range(k):
                # the gap state before block j -> its first cell, on black at cell i
                starts[b0 + j, i] = alpha[i, g] * w1 * beta[i + 1, g + 1] / z if z > 0.0 else 0.0
                g += blen[b0 + j] + 1
        m = e1 / tot if tot > 0.0 else 0.5
        if m < EPS:
            m = EPS
        elif m > 1.0 - EPS:
            m = 1.0 - EPS
        d = abs(m - out[c])
        if d > change:
            change = d
        out[c] = m
    return change


@njit(cache=True, nogil=True)
def _scratch(lines: np.ndarray, blen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The forward and backward tables, sized for the longest line and the longest chain
    automaton of the puzzle (reused by every line)."""
    nmax = 1
    smax = 2
    for li in range(lines.shape[0]):
        n = lines[li, 2]
        if n > nmax:
            nmax = n
        s_n = 1 + lines[li, 4]
        for j in range(lines[li, 4]):
            s_n += blen[lines[li, 3] + j]
        if s_n > smax:
            smax = s_n
    return np.zeros((nmax + 1, smax)), np.zeros((nmax + 1, smax))


@njit(cache=True, nogil=True)
def _propagate_beliefs(
    allow: np.ndarray, lines: np.ndarray, blen: np.ndarray, height: int,
    rounds: int, damping: float, settled: float, row_msg: np.ndarray, col_msg: np.ndarray,
    stop: np.ndarray,
) -> int:
    """Loopy belief propagation: rows read the columns' messages, then columns the rows',
    ``rounds`` times at most; returns the rounds run, or -1 when ``stop[0]`` was set (a
    deadline, from another thread; looked at before every round)."""
    ncells = allow.shape[0]
    alpha, beta = _scratch(lines, blen)
    fresh = np.empty(ncells)
    nostarts = np.zeros((0, 1))
    done = 0
    for _ in range(rounds):
        if stop[0]:
            return -1
        done += 1
        change = 0.0
        for half in range(2):
            lo = 0 if half == 0 else height
            hi = height if half == 0 else lines.shape[0]
            msg = row_msg if half == 0 else col_msg
            prior = col_msg if half == 0 else row_msg
            fresh[:] = msg
            for li in range(lo, hi):
                _line_messages(lines[li, 0], lines[li, 1], lines[li, 2], blen, lines[li, 3],
                               lines[li, 4], allow, prior, fresh, alpha, beta, nostarts)
            for c in range(ncells):
                m = damping * msg[c] + (1.0 - damping) * fresh[c]
                d = abs(m - msg[c])
                if d > change:
                    change = d
                msg[c] = m
        if change < settled:
            break
    return done


@njit(cache=True, nogil=True)
def _start_odds(
    allow: np.ndarray, lines: np.ndarray, blen: np.ndarray, height: int,
    row_msg: np.ndarray, col_msg: np.ndarray, starts: np.ndarray,
) -> None:
    """Every block's start distribution on its line, the crossing messages as weights."""
    alpha, beta = _scratch(lines, blen)
    scratch = np.empty(allow.shape[0])
    for li in range(lines.shape[0]):
        prior = col_msg if li < height else row_msg
        _line_messages(lines[li, 0], lines[li, 1], lines[li, 2], blen, lines[li, 3],
                       lines[li, 4], allow, prior, scratch, alpha, beta, starts)


def cell_beliefs(
    tables: Tables, state: np.ndarray, rounds: int = ROUNDS, damping: float = DAMPING,
) -> np.ndarray:
    """Each cell's belief of being black, ``(height * width,)`` floats in (0, 1), from
    ``rounds`` rounds of loopy belief propagation over the lines on the state ``state``
    (colour masks, bit 0 white, bit 1 black). ``rounds=1`` is one pass of rows then
    columns: the single-pass counting tried before (rows' odds times columns' odds)."""
    if tables.ncolors != 1:
        raise ValueError("belief propagation hints are for black-and-white puzzles")
    allow, row, col = _settle(tables, state, rounds, damping, np.zeros(1, dtype=np.int64))
    return _beliefs(allow, row, col)


def _settle(
    tables: Tables, state: np.ndarray, rounds: int, damping: float, stop: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The colours ``state`` allows each cell (1 white, 2 black, 3 both) and the row and
    column messages after ``rounds`` rounds at most; empty messages when ``stop`` was set."""
    allow = (np.asarray(state).astype(np.uint64).ravel() & np.uint64(3)).astype(np.int64)
    row = np.full(allow.shape[0], 0.5)
    col = np.full(allow.shape[0], 0.5)
    if _propagate_beliefs(allow, tables.lines, tables.blen, tables.height, rounds, damping,
                          SETTLED, row, col, stop) < 0:
        return allow, row[:0], col[:0]
    return allow, row, col


def _beliefs(allow: np.ndarray, row: np.ndarray, col: np.ndarray) -> np.ndarray:
    odds1 = row * col
    odds0 = (1.0 - row) * (1.0 - col)
    belief = odds1 / (odds1 + odds0)
    belief[allow == 1] = 0.0
    belief[allow == 2] = 1.0
    return belief


def _block_cells(t: Tables) -> np.ndarray:
    """The sum of each line's block lengths."""
    sums = np.concatenate([[0], np.cumsum(t.blen)])
    off, k = t.lines[:, 3], t.lines[:, 4]
    return sums[off + k] - sums[off]


def phase_literals(
    tables: Tables, state: np.ndarray, enc: Encoding,
    rounds: int | None = None, damping: float | None = None, starts: bool = True,
    stop: np.ndarray | None = None,
) -> list[int]:
    """The likelier literal of every variable of ``enc``, the order-encoding CNF of
    ``state``: each open cell's colour by its belief, and (``starts``) each "block j
    starts at or after p" by its line's start distribution under the crossing lines'
    messages.

    The cell variables come first, numbered by cell (``enc._lits``); the start variables
    follow line by line, block by block, one for each position past the block's first
    feasible start (``enc._starts``), as :func:`cnf.emit` numbers them. If that numbering
    does not account for exactly ``enc.nvars`` variables (another encoding), or the start
    table would be over :data:`MAX_START_TABLE` entries, only the cells get phases. Ties
    are fixed: a belief of exactly one half gives a cell white, a start probability of
    exactly one half "at or after p". ``stop`` (an int64 array of one, set by a deadline)
    ends the work early with no phases. Phases never change what is a solution.
    """
    if tables.ncolors != 1:
        return []
    from nonoforge.solver import cnf

    stop = np.zeros(1, dtype=np.int64) if stop is None else stop
    rounds = ROUNDS if rounds is None else rounds
    damping = DAMPING if damping is None else damping
    t = tables
    per_round = int((t.lines[:, 2] * (1 + t.lines[:, 4] + _block_cells(t))).sum())
    rounds = min(rounds, MAX_WORK // max(1, 3 * per_round))
    if rounds < 1:
        return []

    allow, row, col = _settle(t, state, rounds, damping, stop)
    if not len(row):
        return []
    belief = _beliefs(allow, row, col)
    black = enc._lits[:, 1]
    free = (black != cnf.TRUE) & (black != cnf.FALSE)
    cells = black[free]
    out: list[int] = np.where(belief[free] > 0.5, cells, -cells).tolist()
    width = max(t.height, t.width)
    if not starts or enc._starts is None or len(t.blen) * width > MAX_START_TABLE:
        return out
    slo, shi = enc._starts
    # blocks in the order cnf.emit numbers their start variables: line by line
    order = np.concatenate([np.arange(t.lines[li, 3], t.lines[li, 3] + t.lines[li, 4])
                            for li in range(t.lines.shape[0])] + [np.zeros(0, np.int64)])
    nv = len(out)
    if nv + int((shi - slo)[order].sum()) != enc.nvars:
        return out
    prob = np.zeros((len(t.blen), width))
    _start_odds(allow, t.lines, t.blen, t.height, row, col, prob)
    # P(start >= p): cumulative from the right
    ge = np.cumsum(prob[:, ::-1], axis=1)[:, ::-1]
    pos = np.arange(width)
    keep = (pos[None, :] > slo[order, None]) & (pos[None, :] <= shi[order, None])
    var = np.arange(nv + 1, enc.nvars + 1)
    out += np.where(ge[order][keep] >= 0.5, var, -var).tolist()
    return out


__all__ = ["DAMPING", "ROUNDS", "cell_beliefs", "phase_literals"]
