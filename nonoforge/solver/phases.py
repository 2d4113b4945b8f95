"""Phase hints for the SAT hand-over: loopy belief propagation over the lines.

Each line is a factor over its cells: the uniform distribution over the placements of its
clue that the state allows. Counting the placements forward and backward along the line
(the clue as a chain automaton: the gap before the first block, each block's cells, the gap
after each block), weighted by what the crossing lines say about each cell, gives every
cell's odds of being black *from this line's point of view* (the extrinsic message: the
cell's own incoming weight left out). Rows and columns exchange these messages until they
settle (damped, a fixed number of rounds at most, fewer once no phase turns); a cell's
belief is the product of its row's and its column's message. nonosolve
(hyouv/FastNonogramSolver) names such "belief-propagation phase hints" among its
techniques; :func:`cell_beliefs` is ours.

Black-and-white puzzles only (what the hint is for: the tournament's and the survey's
hard puzzles); deterministic (fixed rounds and damping, no clocks, no randomness).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from nonoforge.solver import cnf
from nonoforge.solver.cnf import start_bases, start_var
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
#: The messages also stop after this many rounds in a row that turned no open cell's phase
#: (0: no such stop): the solver reads only the phases, so rounds that turn none are
#: wasted. Since solver 1.5. On 2,903 saved hand-overs (TAAI 2011, TCGA 2016, TCGA 2022,
#: bench/handovers.py --schedules) hints + search CPU 64.5 -> 46.5 s, the hints' mean
#: rounds 84 -> 26.5, MiniSat's conflicts 1,562,544 -> 1,505,037; patience 3, 5 and 10,
#: a cap of 10, 20 or 30 rounds, SETTLED 1e-3 or 1e-2 all did less well (see
#: docs/notes/solver-benchmarks.md).
PATIENCE = 2


@njit(cache=True, nogil=True)
def _chains(lines, blen):
    """Every line's clue as a chain automaton, flat: line ``li``'s states are
    ``coff[li] .. coff[li + 1] - 1``. States: the gap before block 0, then per block its
    cells and the gap after it. ``stay[s]``: the state may stay on white (a gap);
    ``adv[s]``: it advances to ``s + 1`` on that colour (1 black, 0 white; -1 never).
    Accepting: the last gap, or the last block's last cell. Built once per puzzle (it was
    built again for every line of every round)."""
    nl = lines.shape[0]
    coff = np.zeros(nl + 1, dtype=np.int64)
    for li in range(nl):
        s_n = 1 + lines[li, 4]
        for j in range(lines[li, 4]):
            s_n += blen[lines[li, 3] + j]
        coff[li + 1] = coff[li] + s_n
    stay = np.zeros(coff[nl], dtype=np.bool_)
    adv = np.full(coff[nl], -1, dtype=np.int64)
    for li in range(nl):
        s = coff[li]
        b0 = lines[li, 3]
        stay[s] = True
        for j in range(lines[li, 4]):
            adv[s] = 1
            s += 1
            bl = blen[b0 + j]
            for t in range(bl - 1):
                adv[s + t] = 1
            s += bl - 1
            adv[s] = 0
            s += 1
            stay[s] = True
    return coff, stay, adv


@njit(cache=True, nogil=True)
def _bands(allow, lines, coff, stay, adv, flo, fhi, blo, bhi):
    """Where each line's forward and backward weights can be non-zero: before cell ``i``
    the states ``flo[li, i] .. fhi[li, i]`` are reachable from the start (``blo``,
    ``bhi``: can still reach an accepting state), reading only colours ``allow`` permits.

    The state does not change while the messages are exchanged, and a weight outside
    these bands is exactly zero in every round (every message is inside (0, 1)), so the
    passes skip them: adding or dividing those zeros changed no bit of any result, and on
    the tournament hand-overs the bands hold about a sixth of the states. Each step reads
    its line's own slice of ``stay`` and ``adv`` (from state 0, so no index can be
    negative: numba leaves out the wrap-around test; the plans of icga2018's hand-overs
    0.16 -> 0.14 CPU s)."""
    smax = 1
    for li in range(lines.shape[0]):
        smax = max(smax, coff[li + 1] - coff[li])
    cur = np.zeros(smax + 1, dtype=np.bool_)
    nxt = np.zeros(smax + 1, dtype=np.bool_)
    for li in range(lines.shape[0]):
        first, stride, n, k = lines[li, 0], lines[li, 1], lines[li, 2], lines[li, 4]
        c0 = coff[li]
        s_n = coff[li + 1] - c0
        st = stay[c0:c0 + s_n]
        ad = adv[c0:c0 + s_n]
        cur[:s_n] = False
        cur[0] = True
        flo[li, 0] = 0
        fhi[li, 0] = 0
        for i in range(n):
            lo, hi = _forward_step(allow[first + i * stride], cur, nxt, st, ad, 0, s_n)
            flo[li, i + 1] = lo
            fhi[li, i + 1] = hi
        cur[:s_n] = False
        cur[s_n - 1] = True
        lo = s_n - 1
        if k > 0:
            cur[s_n - 2] = True
            lo = s_n - 2
        blo[li, n] = lo
        bhi[li, n] = s_n - 1
        for i in range(n - 1, -1, -1):
            lo, hi = _backward_step(allow[first + i * stride], cur, nxt, st, ad, 0, s_n)
            blo[li, i] = lo
            bhi[li, i] = hi
    return smax


@njit(cache=True, nogil=True, inline="always")
def _forward_step(a, cur, nxt, stay, adv, c0, s_n):
    """One cell of :func:`_bands`' forward sweep: the states reachable after a cell whose
    colours ``a`` allows, from those in ``cur`` (replaced by them); their lowest and
    highest (``s_n``, -1 when none)."""
    lo = s_n
    hi = -1
    for s in range(s_n):
        r = stay[c0 + s] and cur[s] and (a & 1) != 0
        if not r and s > 0:
            d = adv[c0 + s - 1]
            if d >= 0 and cur[s - 1]:
                r = (a & 2) != 0 if d == 1 else (a & 1) != 0
        nxt[s] = r
        if r:
            if lo > s:
                lo = s
            hi = s
    for s in range(s_n):
        cur[s] = nxt[s]
    return lo, hi


@njit(cache=True, nogil=True, inline="always")
def _backward_step(a, cur, nxt, stay, adv, c0, s_n):
    """One cell of :func:`_bands`' backward sweep: the states from which the states in
    ``cur`` (replaced by them) are reached across a cell ``a`` allows; lowest, highest."""
    lo = s_n
    hi = -1
    for s in range(s_n):
        r = stay[c0 + s] and cur[s] and (a & 1) != 0
        if not r:
            d = adv[c0 + s]
            if d >= 0 and cur[s + 1]:
                r = (a & 2) != 0 if d == 1 else (a & 1) != 0
        nxt[s] = r
        if r:
            if lo > s:
                lo = s
            hi = s
    for s in range(s_n):
        cur[s] = nxt[s]
    return lo, hi


@njit(cache=True, nogil=True)
def _weights(a: int, p: float) -> tuple[float, float]:
    """A cell's weights for white and black: the crossing line's message ``p`` (the
    probability of black), zero for a colour the state rules out (``a``: 1 white only,
    2 black only, 3 both)."""
    w0 = (1.0 - p) if a & 1 else 0.0
    w1 = p if a & 2 else 0.0
    return w0, w1


@njit(cache=True, nogil=True, inline="always")
def _ends(n, stay, alpha, beta, blo):
    """The passes' boundary values: before the line's first cell only the start state
    (gap before the first block) is reached, and after its last cell every state the
    backward band keeps accepts (a zero just below it, where a band's edge is read)."""
    alpha[0, 0] = 1.0
    if stay.shape[0] > 1:
        alpha[0, 1] = 0.0
    lo = blo[n]
    beta[n, lo:stay.shape[0]] = 1.0
    if lo > 0:
        beta[n, lo - 1] = 0.0


@njit(cache=True, nogil=True, inline="always")
def _passes(first, stride, n, stay, adv, allow, prior, alpha, beta, flo, fhi, blo, bhi):
    """The forward weights ``alpha[i, s]`` (reaching state ``s`` after the first ``i``
    cells) and the backward ones ``beta[i, s]`` (accepting from ``s`` before cell ``i``),
    each normalised per cell, computed only inside the line's bands (plus a zero on each
    side, which is all the next cell reads outside them); False when no placement fits.
    The two passes are independent and run in one loop (forward at cell ``i``, backward
    at ``n - 1 - i``); each does the very operations, in the same order, as a pass over
    every state would.

    The states are counted with unsigned indices into each cell's row of ``alpha`` and
    ``beta``: numba then leaves out the wrap-around test a signed index gets (is it
    negative?) on every load and store, which kept the loops from being tight; the same
    loads, products, sums and divisions in the same order (on icga2018's hand-overs the
    rounds 2.97 -> 2.23 CPU s with :func:`_line_messages`' loop, every message the
    same to the bit)."""
    s_n = stay.shape[0]
    _ends(n, stay, alpha, beta, blo)
    for i in range(n):
        # forward, cell i
        c = first + i * stride
        w0, w1 = _weights(allow[c], prior[c])
        lo = flo[i + 1]
        hi = fhi[i + 1]
        # backward, cell j
        j = n - 1 - i
        cb = first + j * stride
        u0, u1 = _weights(allow[cb], prior[cb])
        lob = blo[j]
        hib = bhi[j]
        tot = 0.0
        totb = 0.0
        one = np.uint64(1)
        ai = alpha[i]
        ao = alpha[i + 1]
        for s in range(np.uint64(lo), np.uint64(hi + 1)):
            v = 0.0
            if stay[s]:
                v += ai[s] * w0
            if s > 0:
                d = adv[s - one]
                if d >= 0:
                    v += ai[s - one] * (w1 if d == 1 else w0)
            ao[s] = v
            tot += v
        bi = beta[j + 1]
        bo = beta[j]
        for s in range(np.uint64(lob), np.uint64(hib + 1)):
            v = 0.0
            if stay[s]:
                v += u0 * bi[s]
            d = adv[s]
            if d >= 0:
                v += (u1 if d == 1 else u0) * bi[s + one]
            bo[s] = v
            totb += v
        if tot <= 0.0 or totb <= 0.0:
            return False
        for s in range(np.uint64(lo), np.uint64(hi + 1)):
            ao[s] /= tot
        if lo > 0:
            alpha[i + 1, lo - 1] = 0.0
        if hi + 1 < s_n:
            alpha[i + 1, hi + 1] = 0.0
        for s in range(np.uint64(lob), np.uint64(hib + 1)):
            bo[s] /= totb
        if lob > 0:
            beta[j, lob - 1] = 0.0
        if hib + 1 < s_n:
            beta[j, hib + 1] = 0.0
    return True


@njit(cache=True, nogil=True, inline="always")
def _at(row, s, lo, hi):
    """``row[s]`` inside the band ``lo .. hi``, else the zero it would hold."""
    return row[s] if lo <= s <= hi else 0.0


@njit(cache=True, nogil=True, inline="always")
def _line_messages(first, stride, n, blen, b0, k, stay, adv, allow, prior, out, alpha, beta,
                   starts, flo, fhi, blo, bhi):
    """One line's extrinsic black odds for each of its cells, written to ``out`` (flat,
    by cell); returns the largest change. ``allow[cell]``: 1 white only, 2 black only, 3
    both; ``prior[cell]``: the crossing line's message (probability of black); ``stay``,
    ``adv``: the line's chain (:func:`_chains`); ``flo`` .. ``bhi``: its bands
    (:func:`_bands`). When ``starts`` has rows, ``starts[b0 + j, p]`` receives the
    probability that block ``j`` starts at ``p`` (the line's posterior: the crossing
    messages as cell weights). The states are counted unsigned, as in :func:`_passes`.
    Inlined into its callers, as :func:`_passes` is into it (numba's inlining: the same
    operations, without a call of a dozen array arguments per line and round; the rounds
    2.24 -> 2.09 CPU s on icga2018's hand-overs)."""
    if not _passes(first, stride, n, stay, adv, allow, prior, alpha, beta, flo, fhi, blo, bhi):
        return -1.0
    change = 0.0
    one = np.uint64(1)
    for i in range(n):
        c = first + i * stride
        e0 = 0.0
        e1 = 0.0
        lo = max(flo[i], blo[i + 1] - 1)
        hi = min(fhi[i], bhi[i + 1])
        ai = alpha[i]
        bi = beta[i + 1]
        for s in range(np.uint64(lo), np.uint64(hi + 1)):
            a_s = ai[s]
            if a_s == 0.0:
                continue
            if stay[s]:
                e0 += a_s * bi[s]
            d = adv[s]
            if d == 0:
                e0 += a_s * bi[s + one]
            elif d == 1:
                e1 += a_s * bi[s + one]
        tot = e0 + e1
        if starts.shape[0] > 0:
            w0, w1 = _weights(allow[c], prior[c])
            z = e0 * w0 + e1 * w1
            g = 0
            for j in range(k):
                starts[b0 + j, i] = (_at(alpha[i], g, flo[i], fhi[i]) * w1
                                     * _at(beta[i + 1], g + 1, blo[i + 1], bhi[i + 1]) / z
                                     if z > 0.0 else 0.0)
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
def _plan(allow, lines, blen):
    """The chains (:func:`_chains`) and bands (:func:`_bands`) of every line on ``allow``,
    the longest line and the longest chain."""
    coff, stay, adv = _chains(lines, blen)
    nl = lines.shape[0]
    maxn = 1
    for li in range(nl):
        maxn = max(maxn, lines[li, 2])
    flo = np.zeros((nl, maxn + 1), dtype=np.int64)
    fhi = np.zeros((nl, maxn + 1), dtype=np.int64)
    blo = np.zeros((nl, maxn + 1), dtype=np.int64)
    bhi = np.zeros((nl, maxn + 1), dtype=np.int64)
    smax = _bands(allow, lines, coff, stay, adv, flo, fhi, blo, bhi)
    return coff, stay, adv, flo, fhi, blo, bhi, maxn, smax


@njit(cache=True, nogil=True)
def _propagate_beliefs(allow, lines, blen, height, rounds, damping, settled, row_msg, col_msg,
                       stop, patience=0):
    """Loopy belief propagation: rows read the columns' messages, then columns the rows',
    ``rounds`` times at most; returns the rounds run, or -1 when ``stop[0]`` was set (a
    deadline, from another thread; looked at before every round). With ``patience`` > 0
    the rounds also end once no open cell's phase (black when ``row + col > 1``, the sign
    of its belief) has changed for ``patience`` rounds in a row."""
    coff, stay, adv, flo, fhi, blo, bhi, maxn, smax = _plan(allow, lines, blen)
    return _rounds(allow, lines, blen, height, rounds, damping, settled, row_msg, col_msg,
                   stop, patience, coff, stay, adv, flo, fhi, blo, bhi, maxn, smax)


@njit(cache=True, nogil=True)
def _rounds(allow, lines, blen, height, rounds, damping, settled, row_msg, col_msg, stop,
            patience, coff, stay, adv, flo, fhi, blo, bhi, maxn, smax):
    """:func:`_propagate_beliefs` on the plan (:func:`_plan`) of ``allow`` made already."""
    ncells = allow.shape[0]
    alpha = np.zeros((maxn + 1, smax + 1))
    beta = np.zeros((maxn + 1, smax + 1))
    fresh = np.empty(ncells)
    nostarts = np.zeros((0, 1))
    phase = np.zeros(ncells, dtype=np.bool_)
    for c in range(ncells):
        phase[c] = row_msg[c] + col_msg[c] > 1.0
    quiet = 0
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
                               lines[li, 4], stay[coff[li]:coff[li + 1]],
                               adv[coff[li]:coff[li + 1]], allow, prior, fresh, alpha, beta,
                               nostarts, flo[li], fhi[li], blo[li], bhi[li])
            for c in range(ncells):
                m = damping * msg[c] + (1.0 - damping) * fresh[c]
                d = abs(m - msg[c])
                if d > change:
                    change = d
                msg[c] = m
        if change < settled:
            break
        if patience > 0:
            flipped = False
            for c in range(ncells):
                if allow[c] == 3:
                    b = row_msg[c] + col_msg[c] > 1.0
                    if b != phase[c]:
                        phase[c] = b
                        flipped = True
            quiet = 0 if flipped else quiet + 1
            if quiet >= patience:
                break
    return done


@njit(cache=True, nogil=True)
def _start_odds(allow, lines, blen, height, row_msg, col_msg, starts, coff, stay, adv, flo,
                fhi, blo, bhi, maxn, smax):
    """Every block's start distribution on its line, the crossing messages as weights
    (``coff`` .. ``smax``: the plan of ``allow``, :func:`_plan`)."""
    alpha = np.zeros((maxn + 1, smax + 1))
    beta = np.zeros((maxn + 1, smax + 1))
    scratch = np.empty(allow.shape[0])
    for li in range(lines.shape[0]):
        prior = col_msg if li < height else row_msg
        _line_messages(lines[li, 0], lines[li, 1], lines[li, 2], blen, lines[li, 3],
                       lines[li, 4], stay[coff[li]:coff[li + 1]], adv[coff[li]:coff[li + 1]],
                       allow, prior, scratch, alpha, beta, starts, flo[li], fhi[li], blo[li],
                       bhi[li])


@njit(cache=True, nogil=True)
def _work_per_round(lines, blen):
    """Cell-state steps of one round: each line's length times its chain's states (the
    gap before the first block, the blocks' cells, a gap after each block)."""
    work = 0
    for li in range(lines.shape[0]):
        states = 1 + lines[li, 4]
        for j in range(lines[li, 4]):
            states += blen[lines[li, 3] + j]
        work += lines[li, 2] * states
    return work


@njit(cache=True, nogil=True, inline="always")
def _belief(a, r, c):
    """A cell's belief of being black: 0 or 1 where its allowed colours ``a`` settle it,
    else its row's message ``r`` and its column's ``c`` combined as independent odds,
    ``r * c / (r * c + (1 - r) * (1 - c))``. The one home of that formula: the phase
    hints (:func:`_hint_signs`) and :func:`cell_beliefs` (:func:`_beliefs`) both call it."""
    if a == 1:
        return 0.0
    if a == 2:
        return 1.0
    odds1 = r * c
    odds0 = (1.0 - r) * (1.0 - c)
    return odds1 / (odds1 + odds0)


@njit(cache=True, nogil=True)
def _beliefs(allow, row, col):
    """:func:`_belief` of every cell the messages ``row`` and ``col`` cover (none when
    they are empty: the work was stopped)."""
    out = np.empty(row.shape[0])
    for c in range(row.shape[0]):
        out[c] = _belief(allow[c], row[c], col[c])
    return out


@njit(cache=True, nogil=True)
def _hint_signs(allow, lines, blen, height, rounds, damping, settled, stop, patience,
                max_work, free, cells, starts, slo, shi, width, nvars):
    """:func:`phase_literals`' work in one call: the messages (:func:`_propagate_beliefs`,
    the plan made once for them and for the start odds), then the likelier literal of
    each free cell (``free``: the cells, ``cells``: their "black" literals) and, with
    ``starts``, of every start variable ``nvars`` leaves room for (numbered after the
    ``len(cells)`` cell variables as the encoder numbers them, :func:`cnf.start_bases`);
    only the cells' when those do not add up to ``nvars``. Empty when the
    rounds are cut to none by ``max_work`` (:data:`MAX_WORK`, an argument so that it is
    read when called, not when compiled) or ``stop`` was set.

    The numbers are those of the numpy steps this replaces (one Python step and one array
    per step before): a belief (:func:`_belief`), black above one half, and "block
    starts at or after p" from the start probabilities summed from the right, one after
    another, at least one half."""
    none = np.zeros(0, dtype=np.int64)
    rounds = min(rounds, max_work // max(1, 3 * _work_per_round(lines, blen)))
    if rounds < 1:
        return none
    ncells = allow.shape[0]
    row = np.full(ncells, 0.5)
    col = np.full(ncells, 0.5)
    coff, stay, adv, flo, fhi, blo, bhi, maxn, smax = _plan(allow, lines, blen)
    if _rounds(allow, lines, blen, height, rounds, damping, settled, row, col, stop,
               patience, coff, stay, adv, flo, fhi, blo, bhi, maxn, smax) < 0:
        return none
    nv = cells.shape[0]
    extra = 0
    base = np.empty(slo.shape[0], dtype=np.int64)
    if starts and start_bases(lines, slo, shi, nv, base) == nvars:
        extra = nvars - nv
    out = np.empty(nv + extra, dtype=np.int64)
    for f in range(nv):
        c = free[f]
        out[f] = cells[f] if _belief(allow[c], row[c], col[c]) > 0.5 else -cells[f]
    if extra == 0:
        return out
    prob = np.zeros((blen.shape[0], width))
    _start_odds(allow, lines, blen, height, row, col, prob, coff, stay, adv, flo, fhi, blo,
                bhi, maxn, smax)
    ge = np.empty(width)
    for li in range(lines.shape[0]):
        for b in range(lines[li, 3], lines[li, 3] + lines[li, 4]):
            acc = prob[b, width - 1]
            ge[width - 1] = acc
            for p in range(width - 2, -1, -1):
                acc += prob[b, p]
                ge[p] = acc
            for p in range(slo[b] + 1, shi[b] + 1):
                v = start_var(base, slo, b, p)
                out[v - 1] = v if ge[p] >= 0.5 else -v
    return out


def cell_beliefs(
    tables: Tables, state: np.ndarray, rounds: int = ROUNDS, damping: float = DAMPING,
) -> np.ndarray:
    """Each cell's belief of being black, ``(height * width,)`` floats in (0, 1), from
    ``rounds`` rounds of loopy belief propagation over the lines on the state ``state``
    (colour masks, bit 0 white, bit 1 black), stopping earlier as :data:`PATIENCE` says.
    ``rounds=1`` is one pass of rows then
    columns: the single-pass counting tried before (rows' odds times columns' odds)."""
    if tables.ncolors != 1:
        raise ValueError("belief propagation hints are for black-and-white puzzles")
    allow, row, col, _ = _settle(tables, state, rounds, damping, np.zeros(1, dtype=np.int64))
    return _beliefs(allow, row, col)


def allowed(state: np.ndarray) -> np.ndarray:
    """The colours ``state`` (colour masks, bit 0 white, bit 1 black) allows each cell,
    flat, as the hints' kernels read them: 1 white, 2 black, 3 both."""
    return (np.asarray(state).astype(np.uint64).ravel() & np.uint64(3)).astype(np.int64)


def _settle(
    tables: Tables, state: np.ndarray, rounds: int, damping: float, stop: np.ndarray,
    patience: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The colours ``state`` allows each cell (:func:`allowed`), the row and column
    messages after ``rounds`` rounds at most (fewer as ``patience``, by default
    :data:`PATIENCE`, says) and the rounds run; empty messages when ``stop`` was set."""
    allow = allowed(state)
    row = np.full(allow.shape[0], 0.5)
    col = np.full(allow.shape[0], 0.5)
    ran = int(_propagate_beliefs(allow, tables.lines, tables.blen, tables.height, rounds,
                                 damping, SETTLED, row, col, stop,
                                 PATIENCE if patience is None else patience))
    if ran < 0:
        return allow, row[:0], col[:0], ran
    return allow, row, col, ran


def phase_literals(
    tables: Tables, state: np.ndarray, enc: Encoding,
    rounds: int | None = None, damping: float | None = None, starts: bool = True,
    stop: np.ndarray | None = None, patience: int | None = None,
) -> list[int]:
    """The likelier literal of every variable of ``enc``, the order-encoding CNF of
    ``state``: each open cell's colour by its belief, and (``starts``) each "block j
    starts at or after p" by its line's start distribution under the crossing lines'
    messages.

    The cell variables come first, numbered by cell (``enc._lits``); the start variables
    follow line by line, block by block, one for each position past the block's first
    feasible start (``enc._starts``), as :func:`cnf.start_bases` numbers them for the
    encoder. If that numbering does not account for exactly ``enc.nvars`` variables
    (another encoding), or the start table would be over :data:`MAX_START_TABLE`
    entries, only the cells get phases. Ties
    are fixed: a belief of exactly one half gives a cell white, a start probability of
    exactly one half "at or after p". ``stop`` (an int64 array of one, set by a deadline)
    ends the work early with no phases. ``patience``: the rounds in a row that turn no
    phase after which the messages stop (default :data:`PATIENCE`; 0: never stop early).
    Phases never change what is a solution.
    """
    if tables.ncolors != 1:
        return []
    t = tables
    black = enc._lits[:, 1]
    free = np.flatnonzero((black != cnf.TRUE) & (black != cnf.FALSE))
    width = max(t.height, t.width)
    with_starts = (starts and enc._starts is not None
                   and len(t.blen) * width <= MAX_START_TABLE)
    slo, shi = enc._starts if with_starts and enc._starts is not None else (free, free)
    out: list[int] = _hint_signs(
        allowed(state), t.lines, t.blen, t.height, ROUNDS if rounds is None else rounds,
        DAMPING if damping is None else damping, SETTLED,
        np.zeros(1, dtype=np.int64) if stop is None else stop,
        PATIENCE if patience is None else patience, MAX_WORK, free, black[free], with_starts,
        slo, shi, width, enc.nvars).tolist()
    return out


__all__ = ["DAMPING", "PATIENCE", "ROUNDS", "cell_beliefs", "phase_literals"]
