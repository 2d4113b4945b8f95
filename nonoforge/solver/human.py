"""A human-like step solver: the easiest deduction anywhere, one line at a time (issue 36).

The engine (:mod:`nonoforge.solver.core`) solves like a machine: complete line logic on
every line, then probing and search. A person works differently -- they look for the
easiest thing they can see anywhere on the grid, write it in, and look again. This module
walks that path. At each step it tries the rungs of :data:`LADDER` in order, easiest
first, over the lines in order (rows before columns, lower index first), and takes the
first deduction it finds: one technique on one line (or, on the last rung, one cell).

The ladder (each rung is a pure function of one line's clue and known cells; colour
puzzles use the same rungs, with "filled" meaning "of the block's colour"):

``simple_boxes``
    Slide every block as far left and as far right as the known empty cells allow
    (ignoring filled cells): the cells a block covers in both places are its colour.
``simple_spaces``
    The same two placements: a cell no block can reach is empty (in colour puzzles a
    colour no block of that colour can reach is struck from the cell).
``forcing``
    Reaching from the edges: a filled cell that only the first (or last) block can reach
    pins that block, so it covers the cells between and cannot reach past it.
``glue``
    Joining and splitting: the same for any block -- filled cells that only one block can
    reach belong to it, so it covers everything between them (joining) and its range
    shrinks (splitting the line into what it can and cannot reach).
``completing``
    Counting: when every cell of a colour the clue needs is found, the rest cannot be that
    colour; when exactly as many cells can still take it as the clue needs, they all do.
``line``
    Line deduction: every placement of the blocks consistent with what is known, the
    complete line solver; what all placements agree on. A catch-all for the cleverer
    single-line tricks people use without naming them.
``two_line``
    Two lines together: try a colour in an undecided cell, work line deduction on one line
    through it (its row, else its column), then on the lines crossing that one where they
    gained a cell; when a line parallel to the first can then take no placement, the cell
    cannot have that colour. Two lines read side by side, the crossing lines carrying
    the cells between them: the smallest trial that can fail (on a grid line deduction
    has finished, a single line, or a line and one crossing line, can always take any
    colour its cells allow, so no deduction from a crossing pair alone exists there).
``contradiction``
    Try a colour in an undecided cell and run line deduction over the grid; when some
    line can then take no placement, the cell cannot have that colour.

Every rung is sound: it only decides what complete line logic on that line also decides
(a test checks this with Hypothesis), so the path agrees with the engine -- when line
logic solves a puzzle, the path ends on the engine's unique solution; when the ladder runs
out (the engine would need probing beyond one cell or search), the path stops with
:attr:`Stop.STALLED`. A state whose cells break a line's clue stops at once with
:attr:`Stop.CONTRADICTION`, naming the line, so a player's wrong cell never produces a
misleading hint.

Black-and-white masks are the solver's (:mod:`nonoforge.solving`): bit 0 background, bit
``c`` colour ``c``; a cell is decided when one bit is left. Line and cell indices in the
records are 0-based; the sentences count from 1, as players do.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from nonoforge import techniques
from nonoforge.errors import PuzzleError
from nonoforge.puzzle import Clue, Puzzle, cell_chars
from nonoforge.solver.quick import fit_starts
from nonoforge.solving import start_state

__all__ = [
    "LADDER",
    "CellChange",
    "HumanOptions",
    "HumanPath",
    "LineKind",
    "Step",
    "Stop",
    "TRIAL_RUNGS",
    "Technique",
    "explain",
    "explain_path",
    "path_rows",
    "path_text",
    "line_logic",
    "next_step",
    "parse_state",
    "rung",
    "wrong_cells",
]


class Technique(enum.StrEnum):
    """A rung of the ladder this module implements: its order, weight and words for
    people are the human ladder's in :mod:`nonoforge.techniques` (a test checks that the
    two name the same rungs)."""

    SIMPLE_BOXES = "simple_boxes"
    SIMPLE_SPACES = "simple_spaces"
    FORCING = "forcing"
    GLUE = "glue"
    COMPLETING = "completing"
    LINE = "line"
    TWO_LINE = "two_line"
    CONTRADICTION = "contradiction"

    @property
    def rank(self) -> int:
        """Position on the ladder, 0 for the easiest."""
        return LADDER.index(self)


#: The ladder, easiest first: the human ladder of :mod:`nonoforge.techniques`.
LADDER: tuple[Technique, ...] = tuple(
    Technique(r.name) for r in techniques.ladder(techniques.Ladder.HUMAN))
#: The rungs that look at one line alone.
LINE_RUNGS: tuple[Technique, ...] = tuple(t for t in LADDER if not techniques.rung(t).trial)
#: The rungs that try a colour in one cell and follow it through the lines (trials).
TRIAL_RUNGS: tuple[Technique, ...] = tuple(t for t in LADDER if techniques.rung(t).trial)


class LineKind(enum.StrEnum):
    ROW = "row"
    COLUMN = "column"


class Stop(enum.StrEnum):
    """Why a path ended."""

    SOLVED = "solved"
    """Every cell is decided."""
    STALLED = "stalled"
    """No rung applies anywhere: the engine needs probing deeper than one cell, or search
    (or the puzzle has several solutions)."""
    WRONG = "wrong"
    """The state has cells that differ from the solution the caller passed (a player's
    mistake): they are listed in :attr:`HumanPath.wrong`, and no hint is given."""
    CONTRADICTION = "contradiction"
    """The state breaks a line's clue: some cell is wrong (a player's mistake in
    ``--state``); no hint is given from it."""
    BUDGET = "budget"
    """The contradiction rung used up :attr:`HumanOptions.max_probe_lines`."""
    LIMIT = "limit"
    """:attr:`HumanOptions.max_steps` steps were taken (``next_step`` asks for one)."""


@dataclass(frozen=True)
class CellChange:
    """One cell a step narrowed: its masks before and after (bit 0 background)."""

    row: int
    col: int
    before: int
    after: int


@dataclass(frozen=True)
class Step:
    """One deduction: a technique on one line (``kind``, ``index``) and what it decided.

    A trial step (``two_line``, ``contradiction``) decides one cell; its line is the one
    where the trial fails (the line a hint frames), ``assumed`` the colour mask tried in
    the cell and ``via`` (``two_line`` only) the line through the cell the trial started
    from, the failing line's partner."""

    technique: Technique
    kind: LineKind
    index: int
    cells: tuple[CellChange, ...]
    sentence: str
    #: lines where some deduction was available before this step (a measure of footholds)
    available: int
    #: the colour mask assumed in the cell (trial steps)
    assumed: int | None = None
    #: the line through the assumed cell the two-line trial worked first
    via: tuple[LineKind, int] | None = None


@dataclass(frozen=True)
class HumanOptions:
    """Limits of a path; deterministic work counts, no clocks."""

    #: steps to take at most (1 for "the next step")
    max_steps: int = 1_000_000
    #: line solves the contradiction rung may spend over the whole path (a line already
    #: solved with the same contents costs nothing)
    max_probe_lines: int = 200_000


@dataclass
class HumanPath:
    """A path: its steps, why it stopped, the final state and the human features."""

    steps: list[Step]
    stop: Stop
    state: np.ndarray
    #: lines with a deduction available on the starting state
    footholds: int
    #: fewest lines with a deduction available at any point on the path
    bottleneck: int
    #: the line the state contradicts (``Stop.CONTRADICTION``), as ("row", index)
    broken: tuple[LineKind, int] | None = None
    probe_lines: int = field(default=0)
    #: cells of the starting state that differ from the solution passed (``Stop.WRONG``)
    wrong: tuple[tuple[int, int], ...] = ()
    #: the state the path started from
    start: np.ndarray | None = None

    @property
    def hardest(self) -> Technique | None:
        """The hardest technique the path needed (None for no step)."""
        return max((s.technique for s in self.steps), key=lambda t: t.rank, default=None)

    def per_technique(self) -> dict[str, int]:
        """Steps per technique, ladder order, only those used."""
        counts = {t.value: 0 for t in LADDER}
        for s in self.steps:
            counts[s.technique.value] += 1
        return {k: v for k, v in counts.items() if v}

    def summary(self) -> dict[str, object]:
        """The human difficulty features as a JSON-ready dict."""
        h = self.hardest
        return {
            "steps": len(self.steps), "stop": self.stop.value,
            "hardest": h.value if h else None, "per_technique": self.per_technique(),
            "footholds": self.footholds, "bottleneck": self.bottleneck,
            "broken": None if self.broken is None else
            {"line": self.broken[0].value, "index": self.broken[1]},
            "wrong": [{"row": r, "col": c} for r, c in self.wrong],
        }


# --- line logic: every placement, for black-and-white and colour lines ---

Blocks = Sequence[tuple[int, int]]  # (length, colour)


def _blocks(clue: Clue) -> list[tuple[int, int]]:
    return [(b.length, b.color) for b in clue]


def line_logic(masks: Sequence[int], blocks: Blocks) -> list[int] | None:
    """Complete line logic: each cell's mask narrowed to the colours some placement of
    ``blocks`` consistent with ``masks`` gives it; None when no placement fits.

    >>> line_logic([3] * 4, [(3, 1)])
    [3, 2, 2, 3]
    >>> line_logic([7, 7, 7], [(1, 1), (1, 2)])  # red before blue, touching or not
    [3, 7, 5]
    >>> line_logic([3, 3], [(1, 1), (1, 1)]) is None
    True

    The plain-Python solvers of :mod:`nonoforge.solver.quick` give the same answers about
    ten times (black and white, on bitsets: :func:`~nonoforge.solver.quick.bits_line_logic`)
    and twice (colour) as fast as that programme, and the two-line
    and contradiction rungs are nearly all line deduction, so they do the work (tests hold
    them to each other).
    """
    from nonoforge.solver.quick import bits_line_logic, colour_line_logic

    lens = [ln for ln, _ in blocks]
    if all(c == 1 for _, c in blocks) and all(m <= 3 for m in masks):
        return bits_line_logic(list(masks), lens)
    return colour_line_logic(list(masks), lens, [c for _, c in blocks])


def _dp_line_logic(masks: Sequence[int], blocks: Blocks) -> list[int] | None:
    """:func:`line_logic` on the step solver's own dynamic programme (the rungs' helpers):
    the reference the tests hold the faster solvers to."""
    d = _Dp(masks, blocks)
    F = d.prefixes()  # noqa: N806 - prefixes hold blocks < j
    n, k = d.n, d.k
    if not F[k][n]:
        return None
    B = d.suffixes()  # noqa: N806 - suffixes hold blocks >= j
    out = [0] * n
    for i in range(n):
        if d.canbg[i] and any(F[j][i] and B[j][i + 1] for j in range(k + 1)):
            out[i] = 1
    for j in range(k):
        ln, c = blocks[j]
        cover = [0] * (n + 1)
        for s in range(n - ln + 1):
            if d.fits(j, s) and _left_ok(F, d.canbg, j, s, d.gap) and \
                    _right_ok(B, d.canbg, j, s + ln, k, n, d.gap):
                cover[s] += 1
                cover[s + ln] -= 1
        run = 0
        for i in range(n):
            run += cover[i]
            if run:
                out[i] |= 1 << c
    return out


class _Dp:
    """The dynamic programme of :func:`line_logic` for one line."""

    def __init__(self, masks: Sequence[int], blocks: Blocks) -> None:
        self.blocks = blocks
        self.n = n = len(masks)
        self.k = len(blocks)
        self.canbg = [m & 1 != 0 for m in masks]
        # bad[c][i]: cells before i that cannot take colour c
        self.bad: dict[int, list[int]] = {}
        for c in sorted({c for _, c in blocks}):
            acc = [0] * (n + 1)
            bit = 1 << c
            for i in range(n):
                acc[i + 1] = acc[i] + (masks[i] & bit == 0)
            self.bad[c] = acc

    def fits(self, j: int, s: int) -> bool:
        ln, c = self.blocks[j]
        return s >= 0 and s + ln <= self.n and self.bad[c][s + ln] == self.bad[c][s]

    def gap(self, j: int) -> int:
        """1 when a background cell is needed between block j and j + 1 (same colour)."""
        return 1 if self.blocks[j][1] == self.blocks[j + 1][1] else 0

    def prefixes(self) -> list[list[bool]]:
        """``F[j][i]``: blocks before ``j`` fit in cells ``[0, i)``, the rest background."""
        n, k, canbg = self.n, self.k, self.canbg
        F = [[False] * (n + 1) for _ in range(k + 1)]  # noqa: N806
        F[0][0] = True
        for i in range(1, n + 1):
            F[0][i] = F[0][i - 1] and canbg[i - 1]
        for j in range(1, k + 1):
            ln = self.blocks[j - 1][0]
            for i in range(1, n + 1):
                if F[j][i - 1] and canbg[i - 1]:
                    F[j][i] = True
                    continue
                s = i - ln
                if s >= 0 and self.fits(j - 1, s):
                    F[j][i] = _left_ok(F, canbg, j - 1, s, self.gap)
        return F

    def suffixes(self) -> list[list[bool]]:
        """``B[j][i]``: blocks from ``j`` on fit in cells ``[i, n)``, the rest background."""
        n, k, canbg = self.n, self.k, self.canbg
        B = [[False] * (n + 1) for _ in range(k + 1)]  # noqa: N806
        B[k][n] = True
        for i in range(n - 1, -1, -1):
            B[k][i] = B[k][i + 1] and canbg[i]
        for j in range(k - 1, -1, -1):
            ln = self.blocks[j][0]
            for i in range(n - 1, -1, -1):
                if B[j][i + 1] and canbg[i]:
                    B[j][i] = True
                    continue
                if self.fits(j, i):
                    B[j][i] = _right_ok(B, canbg, j, i + ln, k, n, self.gap)
        return B


def _left_ok(F: list[list[bool]], canbg: list[bool], j: int, s: int, gap: object) -> bool:  # noqa: N803
    """Blocks before ``j`` fit left of a block ``j`` starting at ``s``."""
    if j == 0:
        return F[0][s]
    if gap(j - 1):  # type: ignore[operator]
        return s >= 1 and canbg[s - 1] and F[j][s - 1]
    return F[j][s]


def _right_ok(
    B: list[list[bool]], canbg: list[bool], j: int, e: int, k: int, n: int, gap: object,  # noqa: N803
) -> bool:
    """Blocks after ``j`` fit right of a block ``j`` ending before ``e``."""
    if j == k - 1:
        return B[k][e]
    if gap(j):  # type: ignore[operator]
        return e < n and canbg[e] and B[j + 1][e + 1]
    return B[j + 1][e]


# --- the rungs ---


def _ranges(masks: Sequence[int], blocks: Blocks) -> tuple[list[int], list[int]] | None:
    """Each block's leftmost and rightmost start when blocks are slid as far as they go,
    honouring only cells that cannot take their colour (known empty or another colour):
    bounds on where the block can start in any solution. None when they do not fit.

    On bitsets (one Python int of positions): for each block the starts where it fits
    (:func:`_starts`), then the lowest one at or after the place the blocks before it
    leave, the highest one at or before the place the blocks after it leave.
    """
    n, k = len(masks), len(blocks)
    starts: dict[tuple[int, int], int] = {}
    fit = [_starts(masks, ln, c, starts) for ln, c in blocks]
    left: list[int] = []
    pos = 0
    for j in range(k):
        ln = blocks[j][0]
        after = fit[j] >> pos
        if not after:
            return None
        pos += (after & -after).bit_length() - 1
        left.append(pos)
        pos += ln + (1 if j + 1 < k and blocks[j + 1][1] == blocks[j][1] else 0)
    right = [0] * k
    end = n
    for j in range(k - 1, -1, -1):
        ln = blocks[j][0]
        s = end - ln
        if s < 0:
            return None
        before = fit[j] & ((2 << s) - 1)
        if not before:
            return None
        s = right[j] = before.bit_length() - 1
        end = s - (1 if j > 0 and blocks[j - 1][1] == blocks[j][1] else 0)
    if any(left[j] > right[j] for j in range(k)):
        return None
    return left, right


def _starts(masks: Sequence[int], ln: int, c: int, known: dict[tuple[int, int], int]) -> int:
    """The positions ``s`` (bits of an int) where a block of ``ln`` cells of colour ``c``
    fits: every cell ``s .. s+ln-1`` can take the colour. Kept in ``known`` by (ln, c)."""
    got = known.get((ln, c))
    if got is None:
        ok = known.get((-1, c))
        if ok is None:
            ok = sum(1 << i for i, m in enumerate(masks) if m >> c & 1)
            known[(-1, c)] = ok
        got = known[(ln, c)] = fit_starts(ok, ln)
    return got


def _reach(n: int, blocks: Blocks, left: list[int], right: list[int]) -> list[int]:
    """Each cell's mask of colours some block can reach (background always)."""
    out = [1] * n
    for j, (ln, c) in enumerate(blocks):
        for i in range(left[j], right[j] + ln):
            out[i] |= 1 << c
    return out


def _pins(masks: Sequence[int], blocks: Blocks, left: list[int], right: list[int],
          only_ends: bool) -> list[int] | None:
    """Forcing and glue: filled cells that only one block can reach pin it."""
    n, k = len(masks), len(blocks)
    lo, hi = list(left), list(right)
    pinned = False
    for p in range(n):
        m = masks[p]
        if m & 1 or m & (m - 1):  # background possible, or colour open
            continue
        who = [j for j, (ln, c) in enumerate(blocks)
               if m >> c & 1 and left[j] <= p < right[j] + ln]
        if len(who) != 1:
            continue
        j = who[0]
        if only_ends and j not in (0, k - 1):
            continue
        ln = blocks[j][0]
        lo[j], hi[j] = max(lo[j], p - ln + 1), min(hi[j], p)
        pinned = True
    if not pinned or any(lo[j] > hi[j] for j in range(k)):
        return None
    out = list(_reach(n, blocks, lo, hi))
    for j, (ln, c) in enumerate(blocks):
        for i in range(hi[j], lo[j] + ln):
            out[i] = 1 << c
    return [m & o for m, o in zip(masks, out, strict=True)]


def _completing(masks: Sequence[int], blocks: Blocks) -> list[int]:
    out = list(masks)
    for c in sorted({c for _, c in blocks}):
        need = sum(ln for ln, cc in blocks if cc == c)
        bit = 1 << c
        known = sum(1 for m in masks if m == bit)
        can = [i for i, m in enumerate(masks) if m & bit]
        if known == need:
            out = [o & ~bit if o != bit else o for o in out]
        elif len(can) == need:
            for i in can:
                out[i] = bit
    return out


def rung(technique: Technique, masks: Sequence[int], blocks: Blocks) -> list[int] | None:
    """One line-local rung on one line: the narrowed masks (equal to ``masks`` when it
    finds nothing), or None when it does not apply (or the line cannot be solved: complete
    line logic answers that). Sound: never narrows beyond :func:`line_logic`.

    >>> rung(Technique.SIMPLE_BOXES, [3] * 10, [(7, 1)])
    [3, 3, 3, 2, 2, 2, 2, 3, 3, 3]
    >>> rung(Technique.SIMPLE_SPACES, [3, 1, 3, 3, 1, 3], [(2, 1)])
    [1, 1, 3, 3, 1, 1]
    """
    n = len(masks)
    if technique is Technique.LINE:
        return line_logic(masks, blocks)
    if technique is Technique.COMPLETING:
        return _completing(masks, blocks)
    if not blocks:
        return [m & 1 for m in masks] if technique is Technique.SIMPLE_SPACES else None
    rr = _ranges(masks, blocks)
    if rr is None:
        return None
    left, right = rr
    if technique is Technique.SIMPLE_BOXES:
        out = list(masks)
        for j, (ln, c) in enumerate(blocks):
            for i in range(right[j], left[j] + ln):
                out[i] &= 1 << c
        return out
    if technique is Technique.SIMPLE_SPACES:
        return [m & r for m, r in zip(masks, _reach(n, blocks, left, right), strict=True)]
    if technique in (Technique.FORCING, Technique.GLUE):
        return _pins(masks, blocks, left, right, technique is Technique.FORCING)
    raise ValueError(f"{technique} is not a line rung")


# --- the walk ---


@dataclass
class _Board:
    """The puzzle's lines and a cache of rung results per line content."""

    puzzle: Puzzle
    blocks: list[list[tuple[int, int]]]
    cache: dict[tuple[int, int, tuple[int, ...]], list[int] | None]
    #: the path's current line contents, and each line's rung results for them
    cur: list[tuple[int, ...]] = field(default_factory=list)
    memo: list[dict[Technique, list[int] | None]] = field(default_factory=list)
    #: the cell (reading-order index) the contradiction rung starts from
    probe_from: int = 0
    #: the same for the two-line rung
    pair_from: int = 0
    #: per line, the cells line deduction narrows when one cell is narrowed (position,
    #: mask) as the path stands: the two-line rung's trials, kept until the line changes
    implied: list[dict[tuple[int, int], dict[int, int] | bool]] = field(default_factory=list)
    #: the cells a line solve in :attr:`cache` narrows (position -> mask), False when the
    #: line breaks: the two-line trials ask it of one line content again and again
    narrowed: dict[tuple[int, int, tuple[int, ...]], dict[int, int] | bool] = \
        field(default_factory=dict)
    #: per line, whether each rung narrows it as the path stands (after :meth:`sync`)
    moves: list[dict[Technique, bool]] = field(default_factory=list)

    @classmethod
    def of(cls, puzzle: Puzzle) -> _Board:
        return cls(puzzle, [_blocks(c) for c in (*puzzle.rows, *puzzle.columns)], {})

    def sync(self, st: np.ndarray, lines: Sequence[int] | None = None) -> None:
        """Take the contents of ``lines`` (all if None) from ``st``, dropping their memo."""
        if lines is None:
            lines = range(len(self.blocks))
            self.cur = [()] * len(self.blocks)
            self.memo = [{} for _ in self.blocks]
            self.implied = [{} for _ in self.blocks]
            self.moves = [{} for _ in self.blocks]
        for li in lines:
            self.cur[li] = self.line(st, li)
            self.memo[li] = {}
            self.implied[li] = {}
            self.moves[li] = {}

    def get(self, t: Technique, li: int) -> list[int] | None:
        """Rung ``t`` on line ``li`` as the path stands (after :meth:`sync`)."""
        memo = self.memo[li]
        if t not in memo:
            memo[t] = rung(t, self.cur[li], self.blocks[li])
        return memo[t]

    def narrows(self, t: Technique, li: int) -> bool:
        """Whether rung ``t`` applies to line ``li`` and narrows it, as the path stands:
        each step asks it of every rung and line, and most lines have not changed."""
        moves = self.moves[li]
        got = moves.get(t)
        if got is None:
            out = self.get(t, li)
            got = moves[t] = out is not None and list(self.cur[li]) != out
        return got

    def line(self, st: np.ndarray, li: int) -> tuple[int, ...]:
        h = self.puzzle.height
        v = st[li] if li < h else st[:, li - h]
        return tuple(v.tolist())  # Python ints, as int(x) of each gives, at C speed

    def apply(self, t: Technique, st: np.ndarray, li: int) -> list[int] | None:
        masks = self.line(st, li)
        key = (t.rank, li, masks)
        if key not in self.cache:
            self.cache[key] = rung(t, masks, self.blocks[li])
        return self.cache[key]

    def cells(self, li: int, j: int) -> tuple[int, int]:
        h = self.puzzle.height
        return (li, j) if li < h else (j, li - h)


def _where(board: _Board, li: int) -> tuple[LineKind, int]:
    h = board.puzzle.height
    return (LineKind.ROW, li) if li < h else (LineKind.COLUMN, li - h)


def _propagate(board: _Board, st: np.ndarray, start: list[int], budget: list[int]) -> int | None:
    """Line logic to a fixpoint in place, from the lines ``start`` (the others are at a
    fixpoint already): the line that breaks, -1 for none, None when the budget of line
    solves (``budget[0]``) is spent."""
    dirty = list(start)
    queued = set(dirty)
    while dirty:
        dirty.sort()
        li = dirty.pop(0)
        queued.discard(li)
        masks = board.line(st, li)
        if (Technique.LINE.rank, li, masks) not in board.cache:  # only new lines cost
            if budget[0] <= 0:
                return None
            budget[0] -= 1
        out = board.apply(Technique.LINE, st, li)
        if out is None:
            return li
        for j, (a, b) in enumerate(zip(masks, out, strict=True)):
            if a != b:
                r, c = board.cells(li, j)
                st[r, c] = b
                x = board.puzzle.height + c if li < board.puzzle.height else r
                if x not in queued:
                    queued.add(x)
                    dirty.append(x)
    return -1


def _available(board: _Board, st: np.ndarray) -> tuple[int, int | None]:
    """How many lines line logic would narrow, and the first line it finds broken."""
    n = 0
    for li in range(len(board.blocks)):
        if board.narrows(Technique.LINE, li):
            n += 1
        elif board.get(Technique.LINE, li) is None:
            return n, li
    return n, None


def parse_state(text: str, puzzle: Puzzle) -> np.ndarray:
    """A partly solved grid in the ``--state`` text format: one line per row, one
    character per cell -- ``?`` unknown, ``.`` empty, ``#`` filled (colour puzzles: the
    colour's drawing character ``a``, ``b``, ... as ``nonoforge show`` prints them).
    Blank lines and lines starting with ``;`` are skipped. Givens are kept.

    >>> from nonoforge.puzzle import Puzzle
    >>> p = Puzzle.from_clues([[1], [1]], [[1], [1]])
    >>> parse_state("#?\\n?.", p).tolist()
    [[2, 3], [3, 1]]
    """
    chars = cell_chars(puzzle.ncolors)
    rows = [ln.rstrip() for ln in text.splitlines()]
    rows = [ln for ln in rows if ln and not ln.startswith(";")]
    if len(rows) != puzzle.height:
        raise PuzzleError(f"state has {len(rows)} rows, the puzzle {puzzle.height}")
    st = start_state(puzzle)
    for r, ln in enumerate(rows):
        if len(ln) != puzzle.width:
            raise PuzzleError(f"state row {r + 1} has {len(ln)} cells, the puzzle {puzzle.width}")
        for c, ch in enumerate(ln):
            if ch == "?":
                continue
            k = chars.find(ch)
            if k < 0 or k > puzzle.ncolors:
                raise PuzzleError(f"state row {r + 1}, cell {c + 1}: {ch!r} is not one of "
                                  f"'?' {chars[:puzzle.ncolors + 1]!r}")
            st[r, c] = np.uint64(1 << k) if int(st[r, c]) >> k & 1 else np.uint64(0)
    return st


def _solved(st: np.ndarray) -> bool:
    return bool((np.bitwise_count(st) == 1).all())


def wrong_cells(state: np.ndarray, solution: np.ndarray) -> tuple[tuple[int, int], ...]:
    """Cells of ``state`` that rule out their colour in ``solution`` (colour indices), in
    reading order: a player's mistakes.

    >>> wrong_cells(np.array([[2, 3], [1, 2]], dtype=np.uint64), np.array([[1, 0], [1, 1]]))
    ((1, 0),)
    """
    bits = np.left_shift(np.uint64(1), np.asarray(solution, dtype=np.uint64))
    bad = (np.asarray(state, dtype=np.uint64) & bits) == 0
    return tuple((int(r), int(c)) for r, c in zip(*np.nonzero(bad), strict=True))


def explain_path(
    puzzle: Puzzle, state: np.ndarray | None = None, options: HumanOptions | None = None,
    solution: np.ndarray | None = None,
) -> HumanPath:
    """The human-like path from ``state`` (the puzzle's start if None) until solved, stuck,
    contradicted or ``options.max_steps`` steps. Deterministic. With ``solution`` (the
    engine's unique one, colour indices), cells of ``state`` that differ from it stop the
    path at once (:attr:`Stop.WRONG`): a mistake the clues alone cannot show yet would
    otherwise lead line deduction on from a false premise.

    >>> from nonoforge.puzzle import Grid, Puzzle
    >>> p = Puzzle.from_grid(Grid.from_rows([".#.", "###", ".#."]))
    >>> path = explain_path(p)
    >>> path.stop.value, path.steps[0].sentence
    ('solved', 'Row 2: the block of 3 fills its 3 cells.')
    """
    opts = options or HumanOptions()
    board = _Board.of(puzzle)
    st = (start_state(puzzle) if state is None else np.array(state, dtype=np.uint64)).copy()
    steps: list[Step] = []
    budget = [opts.max_probe_lines]
    footholds: int | None = None
    bottleneck: int | None = None
    stop = Stop.LIMIT
    broken: tuple[LineKind, int] | None = None
    if solution is not None:
        wrong = wrong_cells(st, solution)
        if wrong:
            return HumanPath([], Stop.WRONG, st, 0, 0, None, 0, wrong, st.copy())
    board.sync(st)
    first = st.copy()
    h = puzzle.height
    while True:
        avail, bad = _available(board, st)
        if bad is not None:
            stop, broken = Stop.CONTRADICTION, _where(board, bad)
            break
        footholds = avail if footholds is None else footholds
        if _solved(st):
            stop = Stop.SOLVED
            break
        bottleneck = avail if bottleneck is None else min(bottleneck, avail)
        if len(steps) >= opts.max_steps:
            break
        step = _line_step(board, st, avail) if avail else None
        if step is None:
            probed = _pair_step(board, st, budget)
            if probed is None:
                probed = _probe_step(board, st, budget)
            if probed is None or isinstance(probed, Stop):
                stop = probed or Stop.STALLED
                break
            step = probed
        touched: set[int] = set()
        for ch in step.cells:
            st[ch.row, ch.col] = ch.after
            touched |= {ch.row, h + ch.col}
        board.sync(st, sorted(touched))
        steps.append(step)
    return HumanPath(steps, stop, st, footholds or 0, bottleneck or 0, broken,
                     opts.max_probe_lines - budget[0], (), first)


def next_step(
    puzzle: Puzzle, state: np.ndarray | None = None, solution: np.ndarray | None = None,
) -> HumanPath:
    """The next step from ``state`` (a hint): a path of at most one step; with
    ``solution``, a wrong cell is reported instead (:attr:`Stop.WRONG`)."""
    return explain_path(puzzle, state, HumanOptions(max_steps=1), solution)


def _line_step(board: _Board, st: np.ndarray, avail: int) -> Step | None:
    for t in LINE_RUNGS:
        for li in range(len(board.blocks)):
            if not board.narrows(t, li):
                continue
            masks = board.cur[li]
            out = board.get(t, li)
            assert out is not None
            cells = tuple(CellChange(*board.cells(li, j), a, b)
                          for j, (a, b) in enumerate(zip(masks, out, strict=True)) if a != b)
            kind, idx = _where(board, li)
            return Step(t, kind, idx, cells, _sentence(board, t, li, masks, out), avail)
    return None


def _undecided(st: np.ndarray, start: int) -> Iterator[tuple[int, int, int, int]]:
    """``(row, col, mask, colour)`` for each colour of each undecided cell, reading order
    from cell ``start`` round to the cell before it."""
    h, w = st.shape
    for at in range(h * w):
        r, c = divmod((start + at) % (h * w), w)
        m = int(st[r, c])
        if m & (m - 1) == 0:
            continue
        for k in range(m.bit_length()):
            if m >> k & 1:
                yield r, c, m, k


def _implied(board: _Board, li: int, changes: dict[int, int],
             budget: list[int]) -> dict[int, int] | bool | None:
    """Line deduction on line ``li`` as the path stands with the cells ``changes`` (position
    in the line -> mask) narrowed: the positions it narrows further and to what (False
    when the line breaks, None when the budget is spent). One cell's implications are kept
    until the line changes; only a line content not solved before costs a line solve."""
    one = next(iter(changes.items())) if len(changes) == 1 else None
    memo = board.implied[li]
    if one is not None and one in memo:
        return memo[one]
    masks = list(board.cur[li])
    for j, m in changes.items():
        masks[j] = m
    key = (Technique.LINE.rank, li, tuple(masks))
    if key not in board.cache:
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        board.cache[key] = rung(Technique.LINE, masks, board.blocks[li])
    out = board.cache[key]
    got = board.narrowed.get(key)
    if got is None:  # what the line solve narrows, kept with it: one line, many trials
        got = False if out is None else \
            {j: o for j, (m, o) in enumerate(zip(masks, out, strict=True)) if m != o}
        board.narrowed[key] = got
    if one is not None:
        memo[one] = got
    return got


_Cells = dict[tuple[int, int], int]


def _pair_trial(board: _Board, r: int, c: int, k: int, first: int, budget: list[int],
                ) -> tuple[int, _Cells, _Cells] | int | None:
    """The two-line trial of colour ``k`` in cell (r, c), starting from line ``first`` (the
    cell's row or column): ``(failing line, cells the first line decided, cells the
    crossing lines gave the failing one)``; -1 when no line parallel to ``first`` fails;
    None when the budget is spent. Works on the path's line contents (:attr:`_Board.cur`),
    which are at a line-deduction fixpoint: a line that gains one narrowed cell can
    always hold it, so only the lines parallel to ``first`` that gain two or more are
    solved."""
    h = board.puzzle.height
    is_row = first < h
    pos = c if is_row else r
    got = _implied(board, first, {pos: 1 << k}, budget)
    if not isinstance(got, dict):
        return None if got is None else first
    decided = {pos: 1 << k, **got}
    at = first if is_row else first - h  # the first line's place in the crossing lines
    # the crossing lines, each with its one new cell; what they give the parallel lines
    carried: dict[int, dict[int, int]] = {}
    for j in sorted(decided):
        cross = h + j if is_row else j
        more = _implied(board, cross, {at: decided[j]}, budget)
        if not isinstance(more, dict):
            return None if more is None else cross
        for i, m in more.items():
            carried.setdefault(i if is_row else h + i, {})[j] = m
    for li in sorted(carried):
        if li == first or len(carried[li]) < 2:
            continue
        res = _implied(board, li, carried[li], budget)
        if res is None:
            return None
        if res is False:
            cells = (lambda i, j: (i, j)) if is_row else (lambda i, j: (j, i - h))
            return (li, {cells(first, j): m for j, m in decided.items()},
                    {cells(li, j): m for j, m in carried[li].items()})
    return -1


def _pair_step(board: _Board, st: np.ndarray, budget: list[int]) -> Step | Stop | None:
    """The first two-line step from the cell the last one came from (None: none)."""
    h, w = st.shape
    for r, c, m, k in _undecided(st, board.pair_from):
        for first in (r, h + c):
            hit = _pair_trial(board, r, c, k, first, budget)
            if hit is None:
                return Stop.BUDGET
            if isinstance(hit, int):
                if hit < 0:
                    continue
                empty: _Cells = {}
                fails, decided, carried = hit, empty, empty
            else:
                fails, decided, carried = hit
            board.pair_from = r * w + c
            after = m & ~(1 << k)
            kind, idx = _where(board, fails)
            return Step(Technique.TWO_LINE, kind, idx, (CellChange(r, c, m, after),),
                        _pair_sentence(board, (r, c, k, after), first, fails, decided, carried),
                        0, 1 << k, _where(board, first))
    return None


def _probe_step(board: _Board, st: np.ndarray, budget: list[int]) -> Step | Stop | None:
    h = board.puzzle.height
    w = board.puzzle.width
    # reading order, continuing from the cell the last contradiction came from: cells that
    # gave nothing are tried again only after every other one has been
    for r, c, m, k in _undecided(st, board.probe_from):
        trial = st.copy()
        trial[r, c] = np.uint64(1 << k)
        hit = _propagate(board, trial, [r, h + c], budget)
        if hit is None:
            return Stop.BUDGET
        if hit < 0:
            continue
        after = m & ~(1 << k)
        board.probe_from = r * w + c
        kind, idx = _where(board, hit)
        what = _colour_word(board.puzzle, 1 << k)
        rest = _colour_word(board.puzzle, after)
        sentence = (f"Cell at row {r + 1}, column {c + 1}: if it were {what}, line "
                    f"deduction would break {kind.value} {idx + 1} (clue "
                    f"{_clue_text(board.blocks[hit])}), so it is {rest}.")
        return Step(Technique.CONTRADICTION, kind, idx, (CellChange(r, c, m, after),),
                    sentence, 0, 1 << k)
    return None


def explain(puzzle: Puzzle, state_text: str | None = None,
            options: HumanOptions | None = None) -> HumanPath:
    """What ``nonoforge explain`` shows: the whole path from the puzzle's start, or with
    ``state_text`` (:func:`parse_state`) the next step from there. For a state the engine
    is asked for the puzzle's solution first; when it proves one, cells of the state that
    differ from it are reported (:attr:`Stop.WRONG`) instead of a step."""
    if state_text is None:
        return explain_path(puzzle, None, options)
    from nonoforge.solver.core import solve

    state = parse_state(state_text, puzzle)
    res = solve(puzzle)
    solution = res.solutions[0].cells if res.status.value == "unique" else None
    opts = options or HumanOptions()
    return explain_path(puzzle, state, HumanOptions(1, opts.max_probe_lines), solution)


_STOPS = {
    Stop.SOLVED: "solved",
    Stop.STALLED: "stuck: no technique on the ladder applies here; the rest needs guessing "
                  "(search), or the puzzle has more than one solution",
    Stop.CONTRADICTION: "the grid breaks the clue of {broken}: a cell is wrong",
    Stop.WRONG: "{nwrong} cell(s) differ from the solution: {wrong}",
    Stop.BUDGET: "stopped: the contradiction rung used up its budget of line solves",
    Stop.LIMIT: "",
}


def path_text(path: HumanPath) -> list[str]:
    """The path as numbered lines for a person, then how it ended and the features."""
    lines = [f"{i:>4}. [{s.technique.value}] {s.sentence}" for i, s in enumerate(path.steps, 1)]
    broken = "" if path.broken is None else f"{path.broken[0].value} {path.broken[1] + 1}"
    wrong = ", ".join(f"row {r + 1} column {c + 1}" for r, c in path.wrong[:10])
    end = _STOPS[path.stop].format(broken=broken, wrong=wrong, nwrong=len(path.wrong))
    if end:
        lines.append(end[0].upper() + end[1:] + ".")
    if path.stop is not Stop.LIMIT and path.stop is not Stop.WRONG:
        h = path.hardest
        per = ", ".join(f"{k} {v}" for k, v in path.per_technique().items())
        lines.append(f"{len(path.steps)} step(s); hardest: {h.value if h else '-'}; "
                     f"{per or 'no steps'}; footholds {path.footholds}, "
                     f"bottleneck {path.bottleneck}")
    return lines


# --- a player's words ---


def _colour_word(puzzle: Puzzle, mask: int) -> str:
    if mask == 1:
        return "empty"
    names = [("filled" if puzzle.ncolors == 1 else puzzle.palette[k].name)
             for k in range(1, puzzle.ncolors + 1) if mask >> k & 1]
    if mask & (mask - 1) == 0:
        return names[0]
    if mask & 1:
        return "not " + " or ".join(puzzle.palette[k].name for k in range(1, puzzle.ncolors + 1)
                                    if not mask >> k & 1)
    return " or ".join(names)


def _spans(idx: Sequence[int]) -> str:
    """1-based cell numbers as ranges: ``cells 4-7 and 9``."""
    parts: list[str] = []
    s = sorted(idx)
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[j] + 1:
            j += 1
        parts.append(f"{s[i] + 1}" if i == j else f"{s[i] + 1}-{s[j] + 1}")
        i = j + 1
    word = "cell" if len(s) == 1 else "cells"
    return f"{word} {', '.join(parts[:-1]) + ' and ' + parts[-1] if len(parts) > 1 else parts[0]}"


def _block_name(board: _Board, blocks: Blocks, j: int) -> str:
    ln, c = blocks[j]
    colour = "" if board.puzzle.ncolors == 1 else f"{board.puzzle.palette[c].name} "
    return f"the {colour}block of {ln}"


def _boxes_sentence(board: _Board, head: str, blocks: Blocks, masks: Sequence[int],
                    filled: list[int], result: str) -> str:
    """The simple-boxes sentence: which block must cover which cells."""
    n = len(masks)
    clue = " ".join(str(ln) for ln, _ in blocks)
    if len(blocks) == 1 and blocks[0][0] == sum(1 for m in masks if m & ~1) and \
            len(filled) == blocks[0][0]:
        return f"{head}: {_block_name(board, blocks, 0)} fills its {blocks[0][0]} cells."
    if len(blocks) == 1:
        return (f"{head}: {_block_name(board, blocks, 0)} in {n} cells must cover "
                f"{_spans(filled)} whichever way it sits.")
    rr = _ranges(masks, blocks)
    parts = []
    if rr is not None:
        for j, (ln, _) in enumerate(blocks):
            mine = [i for i in filled if rr[1][j] <= i < rr[0][j] + ln]
            if mine:
                parts.append(f"{_block_name(board, blocks, j)} must cover {_spans(mine)}")
    if parts:
        return (f"{head}: sliding the blocks {clue} as far left and as far right as they "
                f"go, {' and '.join(parts)} whichever way they sit.")
    return (f"{head}: sliding the blocks {clue} as far left and as far right as they go, "
            f"{result} whichever way they sit.")


def _sentence(board: _Board, t: Technique, li: int, masks: Sequence[int],
              out: Sequence[int]) -> str:
    kind, idx = _where(board, li)
    head = f"{kind.value.capitalize()} {idx + 1}"
    blocks = board.blocks[li]
    n = len(masks)
    changed = [j for j in range(n) if masks[j] != out[j]]
    empties = [j for j in changed if out[j] == 1]
    filled = [j for j in changed if out[j] != 1]
    clue = " ".join(str(ln) for ln, _ in blocks) or "0"

    def result() -> str:
        bits = []
        if filled:
            groups: dict[int, list[int]] = {}
            for j in filled:
                groups.setdefault(out[j], []).append(j)
            bits += [f"{_spans(v)} {_colour_word(board.puzzle, m)}" for m, v in groups.items()]
        if empties:
            bits.append(f"{_spans(empties)} empty")
        return " and ".join(bits)

    if t is Technique.SIMPLE_BOXES:
        return _boxes_sentence(board, head, blocks, masks, filled, result())
    if t is Technique.SIMPLE_SPACES:
        if not blocks:
            return f"{head}: the clue is 0, so every cell is empty."
        if empties and not filled:
            return f"{head}: no block of {clue} can reach {_spans(empties)}, so they are empty."
        return f"{head}: no block of {clue} can reach there: {result()}."
    if t is Technique.FORCING:
        return (f"{head}: a filled cell near the edge can only belong to the first or last "
                f"block of {clue}, which pins it: {result()}.")
    if t is Technique.GLUE:
        return (f"{head}: filled cells that only one block of {clue} can reach belong to it, "
                f"so it is joined up and cut short: {result()}.")
    if t is Technique.COMPLETING:
        if empties and not filled:
            return f"{head}: all blocks of {clue} are placed, so {_spans(empties)} are empty."
        return f"{head}: counting what {clue} needs against what is left: {result()}."
    return (f"{head}: trying every way the blocks {clue} can sit in what is known, they all "
            f"agree on {result()}.")


def _clue_text(blocks: Blocks) -> str:
    return " ".join(str(ln) for ln, _ in blocks) or "0"


def _cells_text(board: _Board, li: int, got: dict[tuple[int, int], int]) -> str:
    """Cells of line ``li`` and their colours, as a player reads them: ``cells 4-6 filled
    and cell 8 empty``."""
    h = board.puzzle.height
    groups: dict[int, list[int]] = {}
    for (r, c), m in sorted(got.items()):
        if (r if li < h else h + c) == li:
            groups.setdefault(m, []).append(c if li < h else r)
    parts = [f"{_spans(v)} {_colour_word(board.puzzle, m)}"
             for m, v in sorted(groups.items(), key=lambda kv: min(kv[1]))]
    return " and ".join(parts) or "nothing new"


def _pair_sentence(board: _Board, cell: tuple[int, int, int, int], first: int, fails: int,
                   decided: dict[tuple[int, int], int],
                   carried: dict[tuple[int, int], int]) -> str:
    """The two-line sentence: the two lines, the trial, what the first line then needs and
    what the crossing lines leave the second, which its clue cannot hold."""
    r, c, k, after = cell
    (k1, i1), (k2, i2) = _where(board, first), _where(board, fails)
    what = _colour_word(board.puzzle, 1 << k)
    rest = _colour_word(board.puzzle, after)
    plural = f"{k1.value.capitalize()}s {i1 + 1} and {i2 + 1}" if k1 is k2 else \
        f"{k1.value.capitalize()} {i1 + 1} and {k2.value} {i2 + 1}"
    others = {rc: m for rc, m in decided.items() if rc != (r, c)}
    if fails == first or not carried:
        return (f"{plural} together: if the cell at row {r + 1}, column {c + 1} were {what}, "
                f"{k2.value} {i2 + 1} could not hold its clue {_clue_text(board.blocks[fails])}; "
                f"so it is {rest}.")
    cross = "columns" if k1 is LineKind.ROW else "rows"
    return (f"{plural} together: if the cell at row {r + 1}, column {c + 1} were {what}, "
            f"{k1.value} {i1 + 1} would need {_cells_text(board, first, others)}; the {cross} "
            f"through them then give {k2.value} {i2 + 1} {_cells_text(board, fails, carried)}, "
            f"which its clue {_clue_text(board.blocks[fails])} cannot hold; so it is {rest}.")


def path_rows(path: HumanPath) -> list[dict[str, object]]:
    """Each step as a JSON-ready dict (0-based line and cells, masks as colour indices
    where decided)."""
    rows: list[dict[str, object]] = []
    for i, s in enumerate(path.steps, 1):
        rows.append({
            "step": i, "technique": s.technique.value, "line": s.kind.value, "index": s.index,
            "cells": [{"row": c.row, "col": c.col,
                       "value": (c.after.bit_length() - 1) if c.after & (c.after - 1) == 0
                       else None, "mask": c.after} for c in s.cells],
            "sentence": s.sentence, "available": s.available,
            **({} if s.assumed is None else {"assumed": s.assumed.bit_length() - 1}),
            **({} if s.via is None else {"via": {"line": s.via[0].value, "index": s.via[1]}}),
        })
    return rows
