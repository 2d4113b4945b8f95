"""Benchmark: line solves per second of the compiled line solver.

For lines of 25, 50, 63, 80, 100, 126, 150, 200 and 400 cells, black-and-white and 5 colours, a
seeded set of random lines (a random picture line, its clue, and a partial state the
picture satisfies: each cell known with probability 0.3) is solved over and over:

* in a compiled loop, with the kernel the propagation uses for such a line: ``bw_bits``
  for black-and-white lines up to 62 cells, and beyond them the library's own dispatch,
  :func:`line_solve` (``bw_bits2`` for black-and-white lines up to 126, ``bits_line``
  for colour lines up to 62, ``bits_linew`` beyond both up to 1022; masks turned into
  bitsets and back included, the engine's line cache left out); and the array
  ``dp_line`` on every line for reference;
* one call at a time from Python through :func:`nonoforge.solver.solve_line` (the per-call
  cost a Python caller pays: argument conversion and scratch allocation included).

    .venv/bin/python bench/lines.py [--seconds 1.0]

Rates are per CPU second of this process (``time.process_time``: on a shared machine wall
time would count the others' work). Compile time is printed separately and never counted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nonoforge.puzzle import Block, Clue, clue_of  # noqa: E402
from nonoforge.solver import solve_line  # noqa: E402
from nonoforge.solver.line import (  # noqa: E402
    BITS,
    MAX_BITS_LINE,
    U0,
    U1,
    bitsw_scratch,
    bw_bits,
    dp_line,
    line_solve,
)


class Lines(NamedTuple):
    """Random lines as the kernels take them, and their clues for :func:`solve_line`."""

    states: np.ndarray  # (count, n) cell masks
    blen: np.ndarray  # the blocks' lengths, every line's in turn, then a 0
    bcol: np.ndarray  # their colours, the same way
    offs: np.ndarray  # where each line's blocks start in blen and bcol
    ks: np.ndarray  # how many blocks each line has
    clues: list[Clue]


#: ``_loop``'s scratch (F, B, run, sc, out, bits) and its kind (0 propagation, 1 array DP).
Kind = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]


def make_lines(n: int, ncol: int, count: int, seed: int = 1) -> Lines:
    """``count`` random lines: states (count, n), flat clues, offsets, block counts."""
    rng = np.random.default_rng(seed)
    full = (1 << (ncol + 1)) - 1
    states = np.zeros((count, n), dtype=np.uint64)
    blen: list[int] = []
    bcol: list[int] = []
    offs = np.zeros(count, dtype=np.int64)
    ks = np.zeros(count, dtype=np.int64)
    clues = []
    for i in range(count):
        cells = rng.integers(1, ncol + 1, size=n) * (rng.random(n) < 0.55)
        clue = clue_of(cells)
        clues.append(clue)
        offs[i] = len(blen)
        ks[i] = len(clue)
        blen += [b.length for b in clue]
        bcol += [b.color for b in clue]
        known = rng.random(n) < 0.3
        states[i] = np.where(known, 1 << cells.astype(np.uint64), full)
    blen.append(0)
    bcol.append(0)
    return Lines(states, np.array(blen, dtype=np.int64), np.array(bcol, dtype=np.int64), offs,
                 ks, clues)


@njit  # not cached: numba would stamp it with this file alone and keep the line solvers
def _loop(states, blen, bcol, offs, ks, reps, F, B, run, sc, out, bits, kind):  # noqa: N803
    """Solve every line ``reps`` times: kind 0 as propagation does, 1 the array DP."""
    n = states.shape[1]
    ok = 0
    mono = True
    for b in range(blen.shape[0] - 1):
        if bcol[b] != 1:
            mono = False
    for _ in range(reps):
        for i in range(states.shape[0]):
            lm = states[i]
            if kind == 1:
                good = dp_line(lm, n, blen, bcol, offs[i], ks[i], F, B, run, out, bits)
            elif mono and n <= MAX_BITS_LINE:
                w = U0
                k = U0
                for j in range(n):
                    if (lm[j] & U1) != U0:
                        w |= U1 << np.uint64(j)
                    if (lm[j] & np.uint64(2)) != U0:
                        k |= U1 << np.uint64(j)
                good, ow, ob = bw_bits(w, k, n, blen, offs[i], ks[i], sc)
                for j in range(n):
                    sj = np.uint64(j)
                    out[j] = ((ow >> sj) & U1) | (((ob >> sj) & U1) << U1)
            else:
                good = line_solve(lm, n, blen, bcol, offs[i], ks[i], F, B, run, sc, out, bits)
            if good:
                ok += 1
    return ok


def _rate(states: np.ndarray, args: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
          kind: Kind, seconds: float) -> float:
    reps = 1
    while True:
        t0 = time.process_time()
        _loop(states, *args, reps, *kind)
        dt = time.process_time() - t0
        if dt > seconds / 6 or reps > 1 << 20:
            return reps * states.shape[0] / dt
        reps *= 2


def bench(n: int, ncol: int, seconds: float) -> tuple[float, float, float]:
    states, blen, bcol, offs, ks, clues = make_lines(n, ncol, 2000)
    kmax = int(ks.max())
    F = np.zeros((kmax + 1) * (n + 2), dtype=np.uint8)  # noqa: N806
    B = np.zeros_like(F)  # noqa: N806
    run = np.zeros(n + 1, dtype=np.int64)
    sc = np.zeros(max(4 * (kmax + 1) + 128, bitsw_scratch(kmax, n)), dtype=np.uint64)
    out = np.zeros(n, dtype=np.uint64)
    args = (blen, bcol, offs, ks)
    scratch = (F, B, run, sc, out, BITS)
    used = _rate(states, args, (*scratch, 0), seconds)
    dp = _rate(states, args, (*scratch, 1), seconds)
    t0 = time.process_time()
    calls = 0
    while time.process_time() - t0 < seconds / 3:
        for i in range(200):
            solve_line(clues[i], states[i])
        calls += 200
    python_rate = calls / (time.process_time() - t0)
    return used, dp, python_rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--lengths", default="25,50,63,80,100,126,150,200,400",
                    help="line lengths, comma-separated")
    ap.add_argument("--colours", default="1,5", help="colour counts, comma-separated")
    args = ap.parse_args()
    t0 = time.perf_counter()
    solve_line((Block(1, 1),), [3])
    tiny = make_lines(5, 1, 1)
    for kind in (0, 1):
        _loop(*tiny[:5], 1, np.zeros(64, np.uint8), np.zeros(64, np.uint8),
              np.zeros(8, np.int64), np.zeros(256, np.uint64), np.zeros(8, np.uint64), BITS, kind)
    print(f"compile/load: {time.perf_counter() - t0:.2f} s (not counted)")
    print(f"{'cells':>5} {'colours':>7} {'propagation kernel /s':>22} {'array DP /s':>12} "
          f"{'from Python /s':>15}")
    for ncol in (int(c) for c in args.colours.split(",")):
        for n in (int(x) for x in args.lengths.split(",")):
            used, dp, py = bench(n, ncol, args.seconds)
            print(f"{n:>5} {ncol:>7} {used:>22,.0f} {dp:>12,.0f} {py:>15,.0f}")


if __name__ == "__main__":
    main()
