"""Probe: phase hints from ONE mode (Viterbi lines), against the shipped hints.

The shipped hints (:func:`nonoforge.solver.phases.phase_literals`) give each open cell its
likelier colour under loopy sum-product belief propagation. On issue 39's tail (icga2018
#558, tcga2020 #538: dozens of solutions, almost every cell open after root probing) those
marginals average over many solutions, so the phase vector may mix pieces of different
ones. Decimation (``bench/decimate.py``) pulled it towards one solution at 3.5x the hints'
cost. This probe measures cheaper ways to take the phases from one mode. (Max-product BP,
cold and warm-started from the shipped messages, was measured too, as ``max`` and
``maxw``: cold it is degenerate, every message stays one half and every phase white;
warm it does not settle and costs the tail 83 % more conflicts. Its kernels copied the
shipped rounds with max for sum, so they left this file once measured; they are at commit
bb169d6, where ``--tail 8 --settings shipped,max,maxw`` re-runs them as measured.)

``vrow``
    Viterbi rows on the shipped beliefs: the shipped sum-product rounds (the very kernel,
    :func:`phases._rounds`), then each row takes its single most probable placement under
    the column messages (a max pass over the row's chain, :func:`phases._plan`'s bands,
    then a trace back), so the cell phases are row-consistent: every row a valid line.
    Every column takes its own most probable placement under the row messages too; each
    line's start variables come from its own placement.
``vcol``
    the same with the cells from the columns' placements.
``vagree``
    the cells where the row's and the column's placement agree from them, the others by
    the shipped belief; starts as ``vrow``.

Deterministic: no randomness, no clock decides anything; ties go to the background colour
(white) and to the lower start (the trace back prefers staying in a gap).

Each hand-over is loaded as ``sat.solve_sat`` loads it (``sat.encode``,
``sat._loaded_encoding``), given the hints, searched for one solution (checked against the
clues); per setting the conflicts, hints CPU and search CPU, interleaved hand-over by
hand-over with the shipped hints (``shipped``: ``phase_literals`` itself, which reproduces
``bench/.cache/tail-1.5.json``'s conflicts).

    nice .venv/bin/python bench/mapphases.py --tail 8 --settings shipped,vrow,vcol,vagree
    nice .venv/bin/python bench/mapphases.py --tail 174 --settings shipped,vrow
    nice .venv/bin/python bench/handovers.py --sets icga2018:1-1000 tcga2022:1-1000 \\
        --save /tmp/ho.pkl --backends minisat-gh+bp
    nice .venv/bin/python bench/mapphases.py --load /tmp/ho.pkl --settings shipped,vrow

``--tail N``, ``--specs`` and ``--load`` take hand-overs as ``bench/decimate.py`` does;
``--lines`` prints instead how many rows and columns each setting's phase picture violates
(``--tail 8 --lines --settings shipped,vrow,vcol``).
See docs/notes/solver-benchmarks.md, "Phases from one mode: max-product and Viterbi,
measured".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from decimate import (  # noqa: E402
    SLOW,
    Hints,
    Row,
    add_item_args,
    interleaved,
    load_items,
    timed_solve,
)
from handovers import Item  # noqa: E402

from nonoforge.puzzle import Block, Puzzle, clue_of  # noqa: E402
from nonoforge.solver import cnf, phases, sat, warmup  # noqa: E402
from nonoforge.solver.tables import Tables  # noqa: E402

#: The settings, as the kernel's ``mode`` numbers them.
MODES = {"vrow": 1, "vcol": 2, "vagree": 3}
#: Conflicts above which a search counts as slow in the summary too (about 1.3 s).
SLOWISH = 30_000


@njit(cache=True, nogil=True)
def _max_passes(first, stride, n, stay, adv, allow, prior, alpha, beta, flo, fhi, blo, bhi):
    """:func:`phases._passes` with max in place of sum: ``alpha[i, s]`` the weight of the
    best way to reach state ``s`` after ``i`` cells, ``beta[i, s]`` of the best way to
    accept from ``s`` before cell ``i``, each scaled by its cell's largest; inside the
    line's bands, a zero on each side. False when no placement fits."""
    s_n = stay.shape[0]
    phases._ends(n, stay, alpha, beta, blo)
    for i in range(n):
        w0, w1 = phases._weights(allow[first + i * stride], prior[first + i * stride])
        lo = flo[i + 1]
        hi = fhi[i + 1]
        top = 0.0
        for s in range(lo, hi + 1):
            v = alpha[i, s] * w0 if stay[s] else 0.0
            if s > 0 and adv[s - 1] >= 0:
                u = alpha[i, s - 1] * (w1 if adv[s - 1] == 1 else w0)
                if u > v:
                    v = u
            alpha[i + 1, s] = v
            if v > top:
                top = v
        if top <= 0.0:
            return False
        for s in range(lo, hi + 1):
            alpha[i + 1, s] /= top
        if lo > 0:
            alpha[i + 1, lo - 1] = 0.0
        if hi + 1 < s_n:
            alpha[i + 1, hi + 1] = 0.0
    for j in range(n - 1, -1, -1):
        u0, u1 = phases._weights(allow[first + j * stride], prior[first + j * stride])
        lo = blo[j]
        hi = bhi[j]
        top = 0.0
        for s in range(lo, hi + 1):
            v = u0 * beta[j + 1, s] if stay[s] else 0.0
            if adv[s] >= 0:
                u = (u1 if adv[s] == 1 else u0) * beta[j + 1, s + 1]
                if u > v:
                    v = u
            beta[j, s] = v
            if v > top:
                top = v
        if top <= 0.0:
            return False
        for s in range(lo, hi + 1):
            beta[j, s] /= top
        if lo > 0:
            beta[j, lo - 1] = 0.0
        if hi + 1 < s_n:
            beta[j, hi + 1] = 0.0
    return True


@njit(cache=True, nogil=True)
def _viterbi(first, stride, n, blen, b0, k, stay, adv, allow, prior, alpha, beta, flo, fhi,
             blo, bhi, cells, spos):
    """The line's most probable placement under the crossing messages ``prior``: its
    cells' colours to ``cells`` (flat, 1 black) and its blocks' starts to ``spos[b0 + j]``.
    A max pass (:func:`_max_passes`), then a trace back from the better accepting state;
    every tie to white (staying in a gap), which puts each block at its lower start."""
    if not _max_passes(first, stride, n, stay, adv, allow, prior, alpha, beta, flo, fhi,
                       blo, bhi):
        return False
    s_n = stay.shape[0]
    s = s_n - 1
    if k > 0 and alpha[n, s_n - 2] > alpha[n, s_n - 1]:
        s = s_n - 2
    j = k - 1
    for i in range(n - 1, -1, -1):
        c = first + i * stride
        w0, w1 = phases._weights(allow[c], prior[c])
        keep = alpha[i, s] * w0 if stay[s] else -1.0
        step = -1.0
        if s > 0 and adv[s - 1] >= 0:
            step = alpha[i, s - 1] * (w1 if adv[s - 1] == 1 else w0)
        if keep >= step:
            cells[c] = 0
        else:
            cells[c] = adv[s - 1]
            if adv[s - 1] == 1 and stay[s - 1]:  # a gap to a block's first cell
                spos[b0 + j] = i
                j -= 1
            s -= 1
    return True


@njit(cache=True, nogil=True)
def _map_signs(mode, allow, lines, blen, height, rounds, damping, settled, patience, max_work,
               free, cells, starts, slo, shi, width, nvars):
    """:func:`phases._hint_signs` for a ``mode`` of :data:`MODES`: the same work cap, the
    plan made once, the same numbering of the literals (the cells, then the start variables
    line by line, block by block, position by position past ``slo``)."""
    none = np.zeros(0, dtype=np.int64)
    rounds = min(rounds, max_work // max(1, 3 * phases._work_per_round(lines, blen)))
    if rounds < 1:
        return none
    ncells = allow.shape[0]
    nblocks = blen.shape[0]
    row = np.full(ncells, 0.5)
    col = np.full(ncells, 0.5)
    coff, stay, adv, flo, fhi, blo, bhi, maxn, smax = phases._plan(allow, lines, blen)
    alpha = np.zeros((maxn + 1, smax + 1))
    beta = np.zeros((maxn + 1, smax + 1))
    # ``at[b, p]``: block b's start at or after p (1), before it (0)
    at = np.zeros((nblocks, width + 1), dtype=np.int8)
    stop = np.zeros(1, dtype=np.int64)
    phases._rounds(allow, lines, blen, height, rounds, damping, settled, row, col, stop,
                   patience, coff, stay, adv, flo, fhi, blo, bhi, maxn, smax)
    vrow = np.zeros(ncells, dtype=np.int64)
    vcol = np.zeros(ncells, dtype=np.int64)
    spos = np.zeros(nblocks, dtype=np.int64)
    for li in range(lines.shape[0]):
        _viterbi(lines[li, 0], lines[li, 1], lines[li, 2], blen, lines[li, 3],
                 lines[li, 4], stay[coff[li]:coff[li + 1]], adv[coff[li]:coff[li + 1]],
                 allow, col if li < height else row, alpha, beta, flo[li], fhi[li],
                 blo[li], bhi[li], vrow if li < height else vcol, spos)
    for b in range(nblocks):
        for p in range(width + 1):
            at[b, p] = 1 if spos[b] >= p else 0
    if mode == 1:
        black = vrow == 1
    elif mode == 2:
        black = vcol == 1
    else:
        black = row * col > (1.0 - row) * (1.0 - col)
        for c in range(ncells):
            if vrow[c] == vcol[c]:
                black[c] = vrow[c] == 1
    nv = cells.shape[0]
    extra = 0
    base = np.empty(slo.shape[0], dtype=np.int64)
    if starts and cnf.start_bases(lines, slo, shi, nv, base) == nvars:
        extra = nvars - nv
    out = np.empty(nv + extra, dtype=np.int64)
    for f in range(nv):
        c = free[f]
        dark = allow[c] == 2 or (allow[c] == 3 and black[c])
        out[f] = cells[f] if dark else -cells[f]
    if extra == 0:
        return out
    for li in range(lines.shape[0]):
        for b in range(lines[li, 3], lines[li, 3] + lines[li, 4]):
            for p in range(slo[b] + 1, shi[b] + 1):
                v = cnf.start_var(base, slo, b, p)
                out[v - 1] = v if at[b, p] else -v
    return out


def map_literals(t: Tables, st: np.ndarray, enc: sat.Encoding, setting: str) -> list[int]:
    """The phase literals of ``setting`` (a key of :data:`MODES`) for ``enc``, the order
    CNF of the hand-over ``st``, numbered and bounded as ``phases.phase_literals`` does."""
    black = enc._lits[:, 1]
    free = np.flatnonzero((black != cnf.TRUE) & (black != cnf.FALSE))
    width = max(t.height, t.width)
    with_starts = (enc._starts is not None
                   and len(t.blen) * width <= phases.MAX_START_TABLE)
    slo, shi = enc._starts if with_starts and enc._starts is not None else (free, free)
    out: list[int] = _map_signs(
        MODES[setting], phases.allowed(st), t.lines, t.blen, t.height, phases.ROUNDS,
        phases.DAMPING, phases.SETTLED, phases.PATIENCE, phases.MAX_WORK, free, black[free],
        with_starts, slo, shi, width, enc.nvars).tolist()
    return out


def hints_of(setting: str) -> Hints:
    """The hint function of a setting: ``shipped`` is ``phases.phase_literals`` itself."""
    if setting == "shipped":
        return phases.phase_literals
    if setting not in MODES:
        raise SystemExit(f"unknown setting {setting!r}: shipped or one of {', '.join(MODES)}")
    return lambda t, st, enc: map_literals(t, st, enc, setting)


def phase_grid(p: Puzzle, st: np.ndarray, setting: str) -> np.ndarray:
    """The picture a setting's cell phases draw on the hand-over ``st`` (True: black),
    decided cells as the state has them."""
    t = Tables.of(p)
    enc = sat.encode(p, st, tables=t)
    lits = hints_of(setting)(t, st, enc)
    black = enc._lits[:, 1]
    free = np.flatnonzero((black != cnf.TRUE) & (black != cnf.FALSE))
    flat = phases.allowed(st) == 2
    flat[free] = np.asarray(lits[:len(free)]) > 0
    return flat.reshape(p.height, p.width)


def bad_lines(lines: np.ndarray, clues: list[tuple[Block, ...]]) -> int:
    """How many of the picture's ``lines`` do not spell their clue."""
    return sum(clue_of(line) != clue for line, clue in zip(lines, clues, strict=True))


def lines_report(items: list[Item], specs: list[str]) -> None:
    """Per hand-over and setting: the open cells whose phase differs from the shipped
    hints' and the rows and columns the phase picture violates (how far each vector is
    from a solution, line by line)."""
    for set_name, i, p, st in items:
        shipped = phase_grid(p, st, "shipped")
        parts = []
        for s in specs:
            g = shipped if s == "shipped" else phase_grid(p, st, s)
            parts.append(f"{s}: differ {int((g != shipped).sum())}, bad rows "
                         f"{bad_lines(g, list(p.rows))}, columns {bad_lines(g.T, list(p.columns))}")
        n_open = int((phases.allowed(st) == 3).sum())
        print(f"{set_name}#{i} open {n_open} | " + " | ".join(parts), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_item_args(ap)
    ap.add_argument("--settings", default="shipped,vrow",
                    help="comma-separated: shipped or " + ", ".join(MODES))
    ap.add_argument("--each", action="store_true", help="print every hand-over's row")
    ap.add_argument("--check", type=int, default=0,
                    help="first check that vrow/vcol phases spell the clues on N hand-overs")
    ap.add_argument("--table", type=Path, help="write every hand-over's figures (JSON)")
    ap.add_argument("--lines", action="store_true",
                    help="instead: how many rows and columns each setting's phases violate")
    args = ap.parse_args()
    warmup()
    items, known = load_items(args)
    specs = args.settings.split(",")
    hints = {s: hints_of(s) for s in specs}
    if args.lines:
        lines_report(items, specs)
        return
    for s in ("vrow", "vcol"):
        if args.check and s in specs:
            bad = 0
            for _, _, p, st in items[:args.check]:
                g = phase_grid(p, st, s)
                bad += (bad_lines(g, list(p.rows)) if s == "vrow"
                        else bad_lines(g.T, list(p.columns)))
            print(f"{s}: {bad} lines of {min(args.check, len(items))} hand-overs "
                  f"do not spell their clue", flush=True)
    res = interleaved(items, specs, lambda p, st, s: timed_solve(p, st, hints[s]), known,
                      args.each)
    if args.table:
        args.table.write_text(json.dumps({s: {f"{k[0]}#{k[1]}": [x.conflicts, x.hints_s,
                                                                 x.search_s]
                                              for k, x in r.items()}
                                          for s, r in res.items()}))
    summarise(items, res, known)


def summarise(items: list[Item], res: dict[str, dict[tuple[str, int], Row]],
              known: dict[tuple[str, int], int]) -> None:
    """Per setting: conflicts in all, hints and search CPU, how many over 30,000 and
    45,000 conflicts, the median, the slowest three; and, for the tail, how many hand-overs
    the setting gives fewer conflicts than the shipped hints."""
    print(f"{len(items)} hand-overs"
          + (f"; shipped reproduces the tail file: "
             f"{all(res['shipped'][k].conflicts == n for k, n in known.items())}"
             if known and "shipped" in res else ""))
    print(f"{'setting':<8} {'conflicts':>11} {'hints s':>8} {'search s':>8} {'sum s':>8} "
          f"{'>30k':>5} {'>45k':>5} {'median':>7} {'fewer':>5}  slowest")
    base = res.get("shipped")
    for s, r in res.items():
        confl = [x.conflicts for x in r.values()]
        hints = sum(x.hints_s for x in r.values())
        search = sum(x.search_s for x in r.values())
        fewer = (sum(x.conflicts < base[k].conflicts for k, x in r.items())
                 if base is not None else 0)
        slow = sorted(((x.conflicts, k) for k, x in r.items()), reverse=True)[:3]
        slow_s = ", ".join(f"{k[0]}#{k[1]} {n:,}" for n, k in slow)
        print(f"{s:<8} {sum(confl):>11,} {hints:8.2f} {search:8.2f} {hints + search:8.2f} "
              f"{sum(n > SLOWISH for n in confl):>5} {sum(n > SLOW for n in confl):>5} "
              f"{statistics.median(confl):>7,.0f} {fewer:>5}  {slow_s}", flush=True)


if __name__ == "__main__":
    main()
