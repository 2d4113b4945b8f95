"""Tests of the belief-propagation phase hints (nonoforge.solver.phases): the line messages
are the exact weighted placement counts, every CNF variable gets one phase, and phases
never change what the SAT back-end answers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import random_bw_puzzle, tournament_set

from nonoforge.puzzle import Palette, Puzzle
from nonoforge.solver import phases, sat, solve
from nonoforge.solver.phases import _line_messages, cell_beliefs, phase_literals
from nonoforge.solver.tables import Tables


def _runs(x: tuple[int, ...]) -> list[int]:
    out, c = [], 0
    for v in x:
        if v:
            c += 1
        elif c:
            out.append(c)
            c = 0
    return out + [c] if c else out


def test_line_messages_are_the_weighted_placement_counts() -> None:
    """Against enumeration of every picture of the line: each open cell's extrinsic black
    odds (its own weight left out) and each block's start distribution (all weights in)."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 11))
        pic = rng.random(n) < 0.5
        clue = _runs(tuple(int(v) for v in pic))
        allow = rng.choice([1, 2, 3, 3, 3], size=n)
        allow[pic & (allow == 1)] = 3
        allow[~pic & (allow == 2)] = 3
        prior = rng.random(n)
        e = np.zeros((n, 2))
        st = np.zeros((max(1, len(clue)), n))
        total = 0.0
        for x in itertools.product([0, 1], repeat=n):
            if _runs(x) != clue or any(not (allow[i] >> x[i]) & 1 for i in range(n)):
                continue
            w = [prior[i] if x[i] else 1 - prior[i] for i in range(n)]
            full = float(np.prod(w))
            total += full
            for i in range(n):
                e[i, x[i]] += float(np.prod(w[:i] + w[i + 1:]))
            starts = [i for i in range(n) if x[i] and (i == 0 or not x[i - 1])]
            for j, s in enumerate(starts):
                st[j, s] += full
        out = np.full(n, 0.5)
        got = np.zeros((max(1, len(clue)), n))
        blen = np.array(clue + [0], dtype=np.int64)
        lines = np.array([[0, 1, n, 0, len(clue)]], dtype=np.int64)
        allow64 = allow.astype(np.int64)
        coff, stay, adv, flo, fhi, blo, bhi, _, smax = phases._plan(allow64, lines, blen)
        scratch = np.zeros((n + 1, smax + 1))
        _line_messages(0, 1, n, blen, 0, len(clue), stay, adv, allow64, prior, out,
                       scratch, scratch.copy(), got, flo[0], fhi[0], blo[0], bhi[0])
        open_ = allow == 3
        want = np.clip(e[:, 1] / e.sum(axis=1), phases.EPS, 1 - phases.EPS)
        assert np.allclose(out[open_], want[open_], atol=1e-9)
        if clue:
            assert np.allclose(got[: len(clue)], st[: len(clue)] / total, atol=1e-9)


def test_every_variable_gets_one_phase_and_decided_cells_are_certain() -> None:
    for seed in range(12):
        p = random_bw_puzzle(seed, 15, 12, 0.55)
        root = solve(p, max_solutions=1, strategy="line").state
        enc = sat.encode(p, root)
        if enc.unsat or enc.nvars == 0:
            continue
        lits = phase_literals(Tables.of(p), root, enc)
        assert sorted(abs(x) for x in lits) == list(range(1, enc.nvars + 1))
        b = cell_beliefs(Tables.of(p), root)
        flat = np.asarray(root).ravel()
        assert (b[flat == 1] == 0).all() and (b[flat == 2] == 1).all()
        assert ((b >= 0) & (b <= 1)).all()


def test_cell_beliefs_combine_row_and_column_messages_as_independent_odds() -> None:
    """The formula (one home: phases._belief) against numpy's own spelling of it, on the
    settled messages of random line-solved states: the same floats, bit for bit."""
    for seed in range(6):
        p = random_bw_puzzle(seed, 14, 11, 0.5)
        t = Tables.of(p)
        root = solve(p, max_solutions=1, strategy="line").state
        allow, row, col, _ = phases._settle(t, root, phases.ROUNDS, phases.DAMPING,
                                            np.zeros(1, dtype=np.int64))
        assert cell_beliefs(t, root).tobytes() == _numpy_beliefs(allow, row, col).tobytes()


def _numpy_beliefs(allow: np.ndarray, row: np.ndarray, col: np.ndarray) -> np.ndarray:
    """The beliefs as numpy spells the formula (the test's own reference, apart from the
    kernels): the row's and column's odds combined, settled cells 0 or 1."""
    odds1 = row * col
    odds0 = (1.0 - row) * (1.0 - col)
    belief = odds1 / (odds1 + odds0)
    belief[allow == 1] = 0.0
    belief[allow == 2] = 1.0
    return belief


def test_no_hints_for_colour_puzzles_or_past_the_work_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pal = Palette.of(("white", "#fff"), ("red", "#f00"), ("blue", "#00f"))
    p = Puzzle.from_clues([[(1, 1), (1, 2)]], [[(1, 1)], [(1, 2)]], palette=pal)
    enc = sat.encode(p)
    assert phase_literals(Tables.of(p), np.full((1, 2), 7, dtype=np.uint64), enc) == []
    q = random_bw_puzzle(1, 10, 10, 0.5)
    enc = sat.encode(q)
    full = np.full((10, 10), 3, dtype=np.uint64)
    assert phase_literals(Tables.of(q), full, enc)
    monkeypatch.setattr(phases, "MAX_WORK", 10)
    assert phase_literals(Tables.of(q), full, enc) == []


@pytest.mark.parametrize("name", ["minisat22", "minisat-gh", "cadical195"])
def test_phases_change_no_verdict(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """With the hints on, the SAT back-end gives the same verdicts (and, counting to two,
    the same number of solutions), every solution reproducing the clues."""
    for seed in range(10):
        p = random_bw_puzzle(100 + seed, 12, 12, 0.5)
        monkeypatch.setattr(sat, "SOLVER_NAME", name)
        monkeypatch.setattr(sat, "ONE_SOLUTION_SOLVER", name)
        monkeypatch.setattr(sat, "PROOF_PHASES", False)
        monkeypatch.setattr(sat, "ONE_SOLUTION_PHASES", False)
        plain = [sat.solve_sat(p, max_solutions=m) for m in (1, 2)]
        monkeypatch.setattr(sat, "PROOF_PHASES", True)
        monkeypatch.setattr(sat, "ONE_SOLUTION_PHASES", True)
        hinted = [sat.solve_sat(p, max_solutions=m) for m in (1, 2)]
        for a, b in zip(plain, hinted, strict=True):
            assert a.status == b.status
            assert len(a.solutions) == len(b.solutions)
            assert all(g.matches(p) for g in b.solutions)
        if hinted[1].status == "unique":
            assert hinted[1].solutions == plain[1].solutions


def test_warmup_loads_the_phase_kernels() -> None:
    # A one-solution hand-over computes phase hints; warmup must compile (or load) their
    # kernels, or the first tournament puzzle to reach SAT pays it inside its own time and
    # timeout (a cold compile took ~4 s: bench/tournament.py's $1 of a fresh checkout).
    from nonoforge.solver import phases, warmup

    warmup()
    assert phases._hint_signs.signatures  # phase_literals' one kernel


def test_phases_of_a_line_solvable_unique_puzzle_are_its_solution() -> None:
    """Where the clues leave one picture and line logic finds it, the settled messages
    point every variable at it: each cell's and each "block starts at or after p"
    literal is in the CNF's one model. A start numbered one place off, or a sign turned,
    would put literals outside it (the count test above cannot see either)."""
    from pysat.solvers import Solver

    checked = 0
    for seed in range(8):
        p = random_bw_puzzle(seed, 10, 10, 0.6)
        if solve(p, max_solutions=2, strategy="line").status != "unique":
            continue
        enc = sat.encode(p)
        blank = np.full((10, 10), 3, dtype=np.uint64)
        lits = phase_literals(Tables.of(p), blank, enc)
        assert len(lits) == enc.nvars
        with Solver(name="minisat22", bootstrap_with=enc.clauses) as s:
            assert s.solve()
            model = set(s.get_model())
        assert all(lit in model for lit in lits), seed
        checked += 1
    assert checked >= 2


def test_a_set_stop_flag_or_a_large_start_table_cuts_the_hints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A deadline's stop flag ends the work with no hints; past MAX_START_TABLE entries
    only the cells get hints, the same ones as with the starts."""
    q = random_bw_puzzle(3, 12, 12, 0.5)
    enc = sat.encode(q)
    full = np.full((12, 12), 3, dtype=np.uint64)
    t = Tables.of(q)
    both = phase_literals(t, full, enc)
    assert phase_literals(t, full, enc, stop=np.ones(1, dtype=np.int64)) == []
    monkeypatch.setattr(phases, "MAX_START_TABLE", 0)
    cells = phase_literals(t, full, enc)
    assert 0 < len(cells) < len(both) and cells == both[: len(cells)]


def _rounds_and_phases(t: Tables, allow: np.ndarray, rounds: int, patience: int,
                       settled: float = 0.0) -> tuple[int, np.ndarray]:
    row = np.full(allow.shape[0], 0.5)
    col = np.full(allow.shape[0], 0.5)
    done = phases._propagate_beliefs(allow, t.lines, t.blen, t.height, rounds, phases.DAMPING,
                                     settled, row, col, np.zeros(1, dtype=np.int64), patience)
    return done, row + col > 1.0


@pytest.mark.parametrize("patience", [1, 3, 5])
def test_the_rounds_stop_once_no_phase_changed_for_patience_rounds(patience: int) -> None:
    """With ``patience`` k the messages stop after the first k rounds in a row that turned
    no open cell's phase: the phases at the stop are those k rounds before it, and with
    no patience the same rounds run to the cap. Rounds are a count, so this is as
    deterministic as the messages."""
    stopped = 0
    for seed in range(10):
        p = random_bw_puzzle(200 + seed, 20, 20, 0.5)
        t = Tables.of(p)
        allow = np.full(400, 3, dtype=np.int64)
        done, ph = _rounds_and_phases(t, allow, 60, patience)
        assert 1 <= done <= 60
        assert _rounds_and_phases(t, allow, 60, 0)[0] == 60  # settled=0: never settles
        if done < 60:
            stopped += 1
            assert done >= patience
            for back in range(patience + 1):
                assert (_rounds_and_phases(t, allow, done - back, 0)[1] == ph).all()
            if done > patience:  # the round before the quiet ones turned a phase
                earlier = _rounds_and_phases(t, allow, done - patience - 1, 0)[1]
                assert (earlier != ph).any()
    assert stopped >= 5


def test_phase_literals_take_a_patience() -> None:
    """``patience`` passes through to the rounds (the bench's second arms use it): the
    default is :data:`phases.PATIENCE`, and another patience is a valid set of phases."""
    p = random_bw_puzzle(201, 20, 20, 0.5)
    t = Tables.of(p)
    full = np.full((20, 20), 3, dtype=np.uint64)
    enc = sat.encode(p)
    default = phase_literals(t, full, enc)
    assert phase_literals(t, full, enc, patience=phases.PATIENCE) == default
    for patience in (0, 1, 4):
        lits = phase_literals(t, full, enc, patience=patience)
        assert sorted(abs(x) for x in lits) == list(range(1, enc.nvars + 1))


def _full_line_messages(n: int, clue: list[int], allow: np.ndarray, prior: np.ndarray,
                        out: np.ndarray) -> None:
    """The line messages as solver 1.4 first computed them: every state of the chain at
    every cell, in plain Python (the same operations in the same order)."""
    stay, adv = [True], [-1]
    for b in clue:
        adv[-1] = 1
        stay += [False] * b
        adv += [1] * (b - 1) + [0]
        stay.append(True)
        adv.append(-1)
    s_n = len(stay)

    def weights(c: int) -> tuple[float, float]:
        return ((1.0 - prior[c]) if allow[c] & 1 else 0.0), (prior[c] if allow[c] & 2 else 0.0)

    alpha = [[0.0] * s_n for _ in range(n + 1)]
    beta = [[0.0] * (s_n + 1) for _ in range(n + 1)]
    alpha[0][0] = 1.0
    for i in range(n):
        w0, w1 = weights(i)
        for s in range(s_n):
            v = 0.0
            if stay[s]:
                v += alpha[i][s] * w0
            if s > 0 and adv[s - 1] >= 0:
                v += alpha[i][s - 1] * (w1 if adv[s - 1] == 1 else w0)
            alpha[i + 1][s] = v
        tot = sum(alpha[i + 1], 0.0)
        if tot <= 0.0:
            return
        alpha[i + 1] = [x / tot for x in alpha[i + 1]]
    beta[n][s_n - 1] = 1.0
    if clue:
        beta[n][s_n - 2] = 1.0
    for i in range(n - 1, -1, -1):
        w0, w1 = weights(i)
        for s in range(s_n):
            v = 0.0
            if stay[s]:
                v += w0 * beta[i + 1][s]
            if adv[s] >= 0:
                v += (w1 if adv[s] == 1 else w0) * beta[i + 1][s + 1]
            beta[i][s] = v
        tot = sum(beta[i][:s_n], 0.0)
        if tot <= 0.0:
            return
        beta[i][:s_n] = [x / tot for x in beta[i][:s_n]]
    for i in range(n):
        e0 = e1 = 0.0
        for s in range(s_n):
            a_s = alpha[i][s]
            if stay[s]:
                e0 += a_s * beta[i + 1][s]
            if adv[s] == 0:
                e0 += a_s * beta[i + 1][s + 1]
            elif adv[s] == 1:
                e1 += a_s * beta[i + 1][s + 1]
        m = e1 / (e0 + e1) if e0 + e1 > 0.0 else 0.5
        out[i] = min(max(m, phases.EPS), 1.0 - phases.EPS)


def test_banded_messages_are_bitwise_those_of_every_state() -> None:
    """The kernel computes only inside each line's reachable bands (and both passes in one
    loop): every message must be bit for bit what the pass over every state gave, or the
    phases, and so the SAT back-end's conflict counts, could move."""
    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(1, 31))
        pic = rng.random(n) < rng.uniform(0.2, 0.8)
        clue = _runs(tuple(int(v) for v in pic))
        allow = rng.choice([1, 2, 3, 3, 3, 3], size=n).astype(np.int64)
        allow[pic & (allow == 1)] = 3
        allow[~pic & (allow == 2)] = 3
        prior = rng.uniform(phases.EPS, 1 - phases.EPS, size=n)
        want = np.full(n, 0.5)
        _full_line_messages(n, clue, allow, prior, want)
        blen = np.array(clue + [0], dtype=np.int64)
        lines = np.array([[0, 1, n, 0, len(clue)]], dtype=np.int64)
        coff, stay, adv, flo, fhi, blo, bhi, _, smax = phases._plan(allow, lines, blen)
        got = np.full(n, 0.5)
        scratch = np.full((n + 1, smax + 1), 0.25)  # stale values from other lines
        _line_messages(0, 1, n, blen, 0, len(clue), stay, adv, allow, prior, got, scratch,
                       scratch.copy(), np.zeros((0, 1)), flo[0], fhi[0], blo[0], bhi[0])
        assert got.tobytes() == want.tobytes(), (clue, allow.tolist())


def _numpy_literals(t: Tables, st: np.ndarray, enc: sat.Encoding) -> list[int]:
    """The literals as phase_literals made them, one numpy step each, before its one kernel
    (:func:`phases._hint_signs`): the beliefs from the settled messages, the cells by
    ``np.where``, the start probabilities summed from the right by ``cumsum``."""
    from nonoforge.solver import cnf

    allow, row, col, _ = phases._settle(t, st, phases.ROUNDS, phases.DAMPING,
                                        np.zeros(1, dtype=np.int64))
    belief = _numpy_beliefs(allow, row, col)
    black = enc._lits[:, 1]
    free = (black != cnf.TRUE) & (black != cnf.FALSE)
    out: list[int] = np.where(belief[free] > 0.5, black[free], -black[free]).tolist()
    assert enc._starts is not None
    slo, shi = enc._starts
    width = max(t.height, t.width)
    order = np.concatenate([np.arange(t.lines[li, 3], t.lines[li, 3] + t.lines[li, 4])
                            for li in range(t.lines.shape[0])])
    assert len(out) + int((shi - slo)[order].sum()) == enc.nvars
    prob = np.zeros((len(t.blen), width))
    phases._start_odds(allow, t.lines, t.blen, t.height, row, col, prob,
                       *phases._plan(allow, t.lines, t.blen))
    ge = np.cumsum(prob[:, ::-1], axis=1)[:, ::-1]
    pos = np.arange(width)
    keep = (pos[None, :] > slo[order, None]) & (pos[None, :] <= shi[order, None])
    var = np.arange(len(out) + 1, enc.nvars + 1)
    return out + np.where(ge[order][keep] >= 0.5, var, -var).tolist()


def test_the_one_kernel_gives_the_numpy_steps_literals_on_tournament_hand_overs() -> None:
    """phase_literals computes beliefs, start odds and both literal lists in one kernel:
    on the root states of real tournament puzzles (TAAI 2011 #501-#530, as ``auto``
    hands them to SAT) its literals are those of the numpy steps it replaced, in order
    (the phases are MiniSat's search: one literal's sign moves its conflict counts)."""
    puzzles = tournament_set("taai2011")[500:530]
    opened = 0
    for p in puzzles:
        st = solve(p, max_solutions=1, strategy="probe").state
        t = Tables.of(p)
        enc = sat.encode(p, st, tables=t)
        if enc.unsat or not enc._free.any():
            continue
        opened += 1
        assert phase_literals(t, st, enc) == _numpy_literals(t, st, enc)
    assert opened >= 10
