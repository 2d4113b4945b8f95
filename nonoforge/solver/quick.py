"""Line logic in plain Python, for answering small puzzles before the engine is loaded.

A process that solves one small puzzle would spend nearly all its time importing numba and
loading the compiled kernels (0.7-1.6 s of CPU) to do a few dozen line solves. Most
puzzles people make are settled by line logic alone, so :func:`solve_by_lines` runs the
engine's root rungs -- trivial lines, simple overlap, then complete line logic propagated to
a fixpoint -- here, in plain Python, for black-and-white and colour puzzles up to
:data:`QUICK_MAX_CELLS` cells. It copies the engine's schedule exactly (the same order of
lines: most-changed first, in generations; the same counters), so a puzzle it answers gets
the very verdict, technique and effort counts the engine gives it (a test compares them on
many puzzles, black-and-white and colour). When line logic leaves cells undecided, or the
puzzle is too big, it answers ``None`` and the caller runs the engine from the start.

It imports neither numpy nor numba: a state is a flat list of ints (bit 0 background, bit
``c`` colour ``c``), the solution a :class:`~nonoforge.puzzle.Grid` made from bytes.

The line solvers are the textbook O(k*n) dynamic programme (prefixes that hold the first
``j`` blocks, suffixes that hold the rest; colour blocks of different colours may touch);
complete line logic has one answer, so they narrow exactly as the engine's bit-parallel
kernels do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solving import TECHNIQUES, start_masks

#: Puzzles with more cells go straight to the compiled engine.
QUICK_MAX_CELLS = 10_000
#: Line-solver work (cells times blocks + 1, summed over line solves; a colour line's
#: counted :data:`COLOUR_OPS` times) after which the plain-Python path gives up and hands
#: the puzzle to the engine: about 0.1 s of CPU.
QUICK_MAX_OPS = 400_000
#: How much dearer a colour line's work is than a black-and-white one's, per cell and block.
COLOUR_OPS = 3

# the engine's root rungs, indexed as the engine indexes them (the engine ladder of
# nonoforge.techniques): the rungs this path climbs
_T_TRIVIAL, _T_OVERLAP, _T_LINE = (TECHNIQUES.index(t) for t in ("trivial", "overlap", "line"))


@dataclass
class QuickOutcome:
    """What the plain-Python line logic decided (the fields of a ``SolveResult``)."""

    status: str
    technique: str
    effort: dict[str, int]
    state: list[int]  # the masks, row by row
    solutions: list[Grid] = field(default_factory=list)


def line_logic(masks: list[int], lens: list[int]) -> list[int] | None:
    """Complete line logic for a black-and-white line: the masks (1 white, 2 black, 3
    either) every placement of blocks ``lens`` consistent with ``masks`` allows, or None.

    >>> line_logic([3, 3, 3, 3], [3])
    [3, 2, 2, 3]
    """
    n, k = len(masks), len(lens)
    canw = [m & 1 != 0 for m in masks]
    # nb[i]: cells before i that cannot be black; a block fits [s, e) iff nb[e] == nb[s]
    nb = [0] * (n + 1)
    for i in range(n):
        nb[i + 1] = nb[i] + (masks[i] & 2 == 0)
    F = _fits_before(canw, nb, lens)  # noqa: N806
    if not F[k][n]:
        return None
    B = _fits_after(canw, nb, lens)  # noqa: N806
    out = [0] * n
    for i in range(n):
        if canw[i]:
            for j in range(k + 1):
                if F[j][i] and B[j][i + 1]:
                    out[i] = 1
                    break
    cover = _block_cover(canw, nb, lens, F, B)
    run = 0
    for i in range(n):
        run += cover[i]
        if run:
            out[i] |= 2
    return out


def _fits_before(canw: list[bool], nb: list[int], lens: list[int]) -> list[list[bool]]:
    """``F[j][i]``: blocks ``0..j-1`` fit in cells ``[0, i)``, the other cells there white."""
    n, k = len(canw), len(lens)
    F = [[False] * (n + 1) for _ in range(k + 1)]  # noqa: N806
    f0 = F[0]
    f0[0] = True
    for i in range(1, n + 1):
        f0[i] = f0[i - 1] and canw[i - 1]
    for j in range(1, k + 1):
        ln, fj, fp = lens[j - 1], F[j], F[j - 1]
        for i in range(ln, n + 1):
            if fj[i - 1] and canw[i - 1]:
                fj[i] = True
                continue
            s = i - ln
            if nb[i] == nb[s]:
                fj[i] = fp[s] if j == 1 else (s >= 1 and canw[s - 1] and fp[s - 1])
    return F


def _fits_after(canw: list[bool], nb: list[int], lens: list[int]) -> list[list[bool]]:
    """``B[j][i]``: blocks ``j..k-1`` fit in cells ``[i, n)``, the other cells there white."""
    n, k = len(canw), len(lens)
    B = [[False] * (n + 1) for _ in range(k + 1)]  # noqa: N806
    bk = B[k]
    bk[n] = True
    for i in range(n - 1, -1, -1):
        bk[i] = bk[i + 1] and canw[i]
    for j in range(k - 1, -1, -1):
        ln, bj, bn = lens[j], B[j], B[j + 1]
        for i in range(n - ln, -1, -1):
            if bj[i + 1] and canw[i]:
                bj[i] = True
                continue
            e = i + ln
            if nb[e] == nb[i]:
                bj[i] = bn[e] if j == k - 1 else (e < n and canw[e] and bn[e + 1])
    return B


def _block_cover(
    canw: list[bool], nb: list[int], lens: list[int], F: list[list[bool]],  # noqa: N803
    B: list[list[bool]],  # noqa: N803
) -> list[int]:
    """Where valid placements of blocks start (+1) and end (-1): a cell may be black where
    the running sum is positive."""
    n, k = len(canw), len(lens)
    f0 = F[0]
    cover = [0] * (n + 1)
    for j in range(k):
        ln = lens[j]
        fj, bn = F[j], B[j + 1]
        for s in range(n - ln + 1):
            e = s + ln
            if nb[e] != nb[s]:
                continue
            if not (f0[s] if j == 0 else (s >= 1 and canw[s - 1] and fj[s - 1])):
                continue
            if bn[e] if j == k - 1 else (e < n and canw[e] and bn[e + 1]):
                cover[s] += 1
                cover[e] -= 1
    return cover


def fit_starts(cells: int, ln: int) -> int:
    """The positions ``s`` (bits of an int) where a run of ``ln`` cells all in ``cells``
    (bits of an int) starts: ``s .. s+ln-1`` all set. By halving: runs of ``2·sh`` from two
    of ``sh``, then one shift for the rest, a few int operations for any length.

    >>> bin(fit_starts(0b0111011, 2))
    '0b11001'
    """
    t, sh = cells, 1
    while sh * 2 <= ln:
        t &= t >> sh
        sh *= 2
    return t & (t >> (ln - sh)) if sh < ln else t


def bits_line_logic(masks: list[int], lens: list[int]) -> list[int] | None:
    """:func:`line_logic` on bitsets, one Python int for each set of positions: the same
    answers (complete line logic has one), 2-4 times as fast on lines of 20-60 cells.

    The engine's ``bw_bits`` kernel (:mod:`nonoforge.solver.line`) done with Python's
    unbounded ints, so any length: each row of the dynamic programme (``F[j]``: where
    blocks before ``j`` can end, ``B``: where the rest can start) is one int over the
    positions ``0..n``; moving through cells that may be white is a doubling fill, "block
    fits here" a run test on the cells that may be black. A few dozen int operations per
    block instead of a loop over every cell and block. The human path's two-line and
    contradiction rungs are nearly all line deduction (:func:`nonoforge.solver.human.line_logic`).

    >>> bits_line_logic([3, 3, 3, 3], [3])
    [3, 2, 2, 3]
    >>> bits_line_logic([3, 1, 3], [2]) is None
    True
    """
    n, k = len(masks), len(lens)
    w = kb = 0
    bit = 1
    for m in masks:
        if m & 1:
            w |= bit
        if m & 2:
            kb |= bit
        bit <<= 1
    pm = (1 << (n + 1)) - 1
    wr = w << 1  # position j + 1 is reached from j when cell j may be white

    def fill_right(g: int) -> int:
        p, sh = wr, 1
        while sh <= n:
            g |= p & (g << sh)
            p &= p << sh
            sh <<= 1
        return g & pm

    def fill_left(g: int) -> int:
        p, sh = w, 1
        while sh <= n:
            g |= p & (g >> sh)
            p &= p >> sh
            sh <<= 1
        return g

    def smear(v: int, ln: int) -> int:  # cells s .. s+ln-1 for every s in v
        c, sh = v, 1
        while sh * 2 <= ln:
            c |= c << sh
            sh *= 2
        return c | (c << (ln - sh)) if sh < ln else c

    fits = [fit_starts(kb, ln) for ln in lens]  # where each block may start, all black
    f = fill_right(1)
    ends = [f]  # ends[j]: F[j]
    starts = []
    for b in range(k):
        s = (f if b == 0 else (f & w) << 1) & fits[b]
        starts.append(s)
        f = fill_right(s << lens[b])
        ends.append(f)
    if not f >> n & 1:
        return None
    bb = fill_left(1 << n)
    white = f & (bb >> 1) & w
    black = 0
    for b in range(k - 1, -1, -1):
        ln = lens[b]
        e = bb if b == k - 1 else (bb >> 1) & w
        s = (e >> ln) & fits[b]
        black |= smear(s & starts[b], ln)
        bb = fill_left(s)
        white |= ends[b] & (bb >> 1) & w
    black <<= 1
    return [(white >> j & 1) | (black >> j & 2) for j in range(n)]


def colour_line_logic(masks: list[int], lens: list[int], cols: list[int]) -> list[int] | None:
    """Complete line logic for a colour line: the masks (bit 0 background, bit ``c``
    colour ``c``) every placement of blocks ``lens`` of colours ``cols`` consistent with
    ``masks`` allows, or None. Blocks of one colour need a background cell between them,
    blocks of different colours may touch (the engine's ``dp_line``).

    >>> colour_line_logic([7, 7, 7], [1, 2], [1, 2])
    [2, 4, 4]
    >>> colour_line_logic([7, 7, 7, 7, 7], [2, 2], [1, 1])  # one colour: a gap between
    [2, 2, 1, 2, 2]
    >>> colour_line_logic([7, 7, 7, 7], [2, 2], [1, 2])  # two colours: they may touch
    [2, 2, 4, 4]
    """
    n, k = len(masks), len(lens)
    canw = [m & 1 != 0 for m in masks]
    F = _colour_fits_before(masks, canw, lens, cols)  # noqa: N806
    if not F[k][n]:
        return None
    B = _colour_fits_after(masks, canw, lens, cols)  # noqa: N806
    out = [0] * n
    for i in range(n):
        if canw[i]:
            for j in range(k + 1):
                if F[j][i] and B[j][i + 1]:
                    out[i] = 1
                    break
    for b in range(k):
        _colour_block_cells(masks, canw, lens, cols, b, F[b], B[b + 1], out)
    return out


def _colour_block_cells(masks: list[int], canw: list[bool], lens: list[int], cols: list[int],
                        b: int, fb: list[bool], bn: list[bool], out: list[int]) -> None:
    """Add block ``b``'s colour to the cells of ``out`` that one of its placements
    consistent with ``masks`` covers, where the blocks before it fit before it (``fb``,
    :func:`_colour_fits_before`'s row ``b``) and those after it after it (``bn``,
    :func:`_colour_fits_after`'s row ``b + 1``); a neighbour of the same colour needs a
    background cell between."""
    n, k = len(masks), len(lens)
    ln, c = lens[b], cols[b]
    cb = 1 << c
    same_l = b > 0 and cols[b - 1] == c
    same_r = b + 1 < k and cols[b + 1] == c
    run = 0  # cells from s on that allow the colour: counted from the right
    runs = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        run = run + 1 if masks[i] & cb else 0
        runs[i] = run
    reach = 0
    for s in range(n - ln + 1):
        if runs[s] < ln:
            continue
        if same_l:
            if s < 1 or not canw[s - 1] or not fb[s - 1]:
                continue
        elif not fb[s]:
            continue
        e = s + ln
        if same_r:
            if e >= n or not canw[e] or not bn[e + 1]:
                continue
        elif not bn[e]:
            continue
        for i in range(max(s, reach), e):
            out[i] |= cb
        reach = e


def _colour_fits_before(masks: list[int], canw: list[bool], lens: list[int],
                        cols: list[int]) -> list[list[bool]]:
    """``F[j][i]``: colour blocks ``0..j-1`` fit in cells ``[0, i)``, the rest there
    background."""
    n, k = len(masks), len(lens)
    F = [[False] * (n + 1) for _ in range(k + 1)]  # noqa: N806
    f0 = F[0]
    f0[0] = True
    for i in range(1, n + 1):
        f0[i] = f0[i - 1] and canw[i - 1]
    for j in range(1, k + 1):
        ln, c = lens[j - 1], cols[j - 1]
        cb = 1 << c
        same = j >= 2 and cols[j - 2] == c
        fj, fp = F[j], F[j - 1]
        r = 0
        for i in range(1, n + 1):
            r = r + 1 if masks[i - 1] & cb else 0
            if fj[i - 1] and canw[i - 1]:
                fj[i] = True
            elif r >= ln:
                s = i - ln
                fj[i] = (s >= 1 and canw[s - 1] and fp[s - 1]) if same else fp[s]
    return F


def _colour_fits_after(masks: list[int], canw: list[bool], lens: list[int],
                       cols: list[int]) -> list[list[bool]]:
    """``B[j][i]``: colour blocks ``j..k-1`` fit in cells ``[i, n)``, the rest there
    background."""
    n, k = len(masks), len(lens)
    B = [[False] * (n + 1) for _ in range(k + 1)]  # noqa: N806
    bk = B[k]
    bk[n] = True
    for i in range(n - 1, -1, -1):
        bk[i] = bk[i + 1] and canw[i]
    for j in range(k - 1, -1, -1):
        ln, c = lens[j], cols[j]
        cb = 1 << c
        same = j + 1 < k and cols[j + 1] == c
        bj, bn = B[j], B[j + 1]
        r = 0
        for i in range(n - 1, -1, -1):
            r = r + 1 if masks[i] & cb else 0
            if bj[i + 1] and canw[i]:
                bj[i] = True
            elif r >= ln:
                e = i + ln
                bj[i] = (e < n and canw[e] and bn[e + 1]) if same else bn[e]
    return B


def _is_trivial(n: int, lens: list[int], cols: list[int]) -> bool:
    """Whether a clue fills its line exactly (or is empty): the engine's trivial rule."""
    total = sum(lens) + sum(1 for b in range(1, len(lens)) if cols[b] == cols[b - 1])
    return not lens or total == n


def _overlap(n: int, lens: list[int], cols: list[int], full: int) -> list[int]:
    """Simple overlap on an empty line (the engine's ``overlap_line``): what the leftmost
    and rightmost packings agree on, and only the colours of blocks that reach a cell."""
    k = len(lens)
    out = [1] * n
    if k == 0:
        return out
    gaps = [b > 0 and cols[b] == cols[b - 1] for b in range(k)]
    slack = n - (sum(lens) + sum(gaps))
    pos = 0
    for b, ln in enumerate(lens):
        if gaps[b]:
            pos += 1
        cb = 1 << cols[b]
        for j in range(pos, pos + ln + slack):
            out[j] |= cb
        pos += ln
    pos = 0
    for b, ln in enumerate(lens):
        if gaps[b]:
            if slack == 0:
                out[pos] = 1
            pos += 1
        cb = 1 << cols[b]
        for j in range(pos + slack, pos + ln):
            out[j] = cb
        pos += ln
    return [m & full for m in out]


def solve_by_lines(puzzle: Puzzle, max_solutions: int, budget: int | None) -> QuickOutcome | None:
    """The engine's root line logic, in Python: the outcome when it decides the puzzle
    (solved, or a contradiction), else None (the engine must run: probing, search).
    It starts where the engine does (:func:`~nonoforge.solving.start_masks`: the givens
    fixed, nothing else decided)."""
    h, w = puzzle.height, puzzle.width
    if h * w > QUICK_MAX_CELLS or h * w == 0:
        return None
    ncell = h * w
    mono = puzzle.ncolors == 1
    full = (1 << (puzzle.ncolors + 1)) - 1
    cells = [list(range(r * w, r * w + w)) for r in range(h)]
    cells += [list(range(c, ncell, w)) for c in range(w)]
    clues = (*puzzle.rows, *puzzle.columns)
    lens = [[b.length for b in clue] for clue in clues]
    cols = [[b.color for b in clue] for clue in clues]
    cnt = dict.fromkeys(("lines", "trivial", "overlap", "sweeps", "linechg", "ops"), 0)
    st = start_masks(puzzle)
    ok, tech = _init_state(st, cells, lens, cols, full, cnt)
    undec = sum(1 for m in st if m & (m - 1))
    solved = False
    propagated = ok
    if ok:
        done = _propagate(st, h, cells, lens, None if mono else cols, undec, cnt)
        if done is None:
            return None  # more work than the plain-Python path is worth
        ok, undec, changed_any = done
        if changed_any:
            tech = _T_LINE
        solved = ok and undec == 0
        if ok and not solved:
            return None  # probing or search needed: the engine's job
    work = cnt["lines"]
    effort = _effort(cnt)
    if not solved:
        # a contradiction: the engine notes it and checks its work limit once more
        status = _after_limit("none", work, budget, propagated)
        return QuickOutcome(status, TECHNIQUES[tech], effort, st)
    grid = Grid.from_bytes(bytes(m.bit_length() - 1 for m in st), h, w)
    effort["work"] = work + 1 + 4 * ncell  # the engine charges storing a solution so
    if max_solutions >= 2:
        status = _after_limit("unique", effort["work"], budget, True)
    else:
        status = "unique"  # the engine stops at the solution asked for, proven by logic
    return QuickOutcome(status, TECHNIQUES[tech], effort, st, [grid])



def _init_state(st: list[int], cells: list[list[int]], lens: list[list[int]],
                cols: list[list[int]], full: int, cnt: dict[str, int]) -> tuple[bool, int]:
    """The engine's ``init_state`` on the masks ``st``: trivial lines first, then simple
    overlap on the others. Returns (no contradiction, the technique rung it reached)."""
    tech = _T_TRIVIAL
    ok = True
    for kind in (0, 1):
        changed = 0
        for line in range(len(cells)):
            idx = cells[line]
            n = len(idx)
            if _is_trivial(n, lens[line], cols[line]) != (kind == 0):
                continue
            cnt["trivial" if kind == 0 else "overlap"] += 1
            for j, o in enumerate(_overlap(n, lens[line], cols[line], full)):
                c = idx[j]
                nm = st[c] & o
                if nm != st[c]:
                    st[c] = nm
                    changed += 1
                    if nm == 0:
                        ok = False
        if changed:
            tech = max(tech, kind)
    return ok, tech


def _effort(cnt: dict[str, int]) -> dict[str, int]:
    """The engine's effort counts for a root that line logic alone decided."""
    return {
        "line_solves": cnt["lines"], "cache_hits": 0, "trivial_lines": cnt["trivial"],
        "overlap_lines": cnt["overlap"], "sweeps": cnt["sweeps"],
        "cells_by_line": cnt["linechg"], "probes": 0, "probe_assumptions": 0,
        "probe_contradictions": 0, "cells_by_probe": 0, "nodes": 0, "backtracks": 0,
        "max_depth": 0, "work": cnt["lines"],
    }


def _after_limit(status: str, work: int, budget: int | None, propagated: bool) -> str:
    """The engine looks at its work limit once more before it reports the end."""
    if propagated and budget is not None and work > budget:
        return "budget"
    return status


def pop_best(cur: list[int], score: list[int]) -> int:
    """Take from ``cur`` the line with the highest score (the first of equals) and return
    it: the engine's schedule, most-changed line first; the last line takes its place in
    ``cur``, as in the engine, so the order of equals is the engine's too."""
    bi, bs = 0, score[cur[0]]
    for i in range(1, len(cur)):
        if score[cur[i]] > bs:
            bs, bi = score[cur[i]], i
    line = cur[bi]
    cur[bi] = cur[-1]
    cur.pop()
    return line


def _propagate(
    st: list[int], h: int, cells: list[list[int]], lens: list[list[int]],
    cols: list[list[int]] | None, undec: int, cnt: dict[str, int],
) -> tuple[bool, int, bool] | None:
    """The engine's ``propagate`` at the root: ``(no contradiction, undecided, changed)``,
    or None past :data:`QUICK_MAX_OPS`. ``cols``: the blocks' colours, None for a
    black-and-white puzzle."""
    nl = len(cells)
    gen = [-1] * nl  # the generation a line waits in, -1 when it does not wait
    score = [0] * nl
    cur = list(range(nl))
    nxt: list[int] = []
    g = 0
    for line in cur:
        gen[line], score[line] = g, 1
    changed_any = False
    while True:
        if not cur:
            cnt["sweeps"] += 1
            g += 1
            if not nxt:
                return True, undec, changed_any
            cur, nxt = nxt, []
            continue
        line = pop_best(cur, score)
        gen[line], score[line] = -1, 0
        idx = cells[line]
        lm = [st[c] for c in idx]
        cnt["lines"] += 1
        ops = len(lm) * (len(lens[line]) + 1)
        cnt["ops"] += ops if cols is None else COLOUR_OPS * ops
        if cnt["ops"] > QUICK_MAX_OPS:
            return None
        if cols is None:
            out = line_logic(lm, lens[line])
        else:
            out = colour_line_logic(lm, lens[line], cols[line])
        if out is None:
            return False, undec, changed_any
        if out == lm:
            continue
        changed_any = True
        cross0 = 0 if line >= h else h
        for j, o in enumerate(out):
            if o == lm[j]:
                continue
            st[idx[j]] = o
            if not o & (o - 1):  # one colour left (never none: the line had a placement)
                undec -= 1
            cnt["linechg"] += 1
            x = cross0 + j
            if gen[x] == -1:
                gen[x], score[x] = g + 1, 1
                nxt.append(x)
            else:
                score[x] += 1
