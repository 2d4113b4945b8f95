"""The phase hints of every saved hand-over, digested, to compare two versions of the hints.

A speed-up of :mod:`nonoforge.solver.phases` must leave the literals handed to MiniSat as
they were (one sign that turns moves the search's conflict counts, which are effort): this
writes, per hand-over of a ``bench/handovers.py --save`` pickle, the number of literals and
a SHA-1 of the literals, the settled row and column messages (their bytes) and the rounds
run, from the code in ``--root`` (default: this checkout), and compares two such files:

    .venv/bin/python bench/handovers.py --sets taai2011:1-1000 icga2018:1-1000 \\
        tcga2022:1-1000 --save /tmp/ho.pkl --rounds 0
    .venv/bin/python bench/same_phases.py /tmp/ho.pkl --root ../main --out /tmp/before.txt
    .venv/bin/python bench/same_phases.py /tmp/ho.pkl --out /tmp/after.txt
    .venv/bin/python bench/same_phases.py --compare /tmp/before.txt /tmp/after.txt

It prints the CPU seconds of the hints (``phase_literals`` alone) beside the count.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def digests(items_path: Path) -> tuple[list[str], float]:
    """One line per hand-over: set, puzzle, literal count, digest; and the hints' CPU s."""
    import numpy as np

    from nonoforge.solver import phases, sat, warmup
    from nonoforge.solver.tables import Tables

    warmup()
    items = pickle.loads(items_path.read_bytes())
    stop = np.zeros(1, dtype=np.int64)
    lines, cpu = [], 0.0
    for name, i, p, st in items:
        t = Tables.of(p)
        enc = sat.encode(p, st, tables=t)
        c0 = time.process_time()
        lits = phases.phase_literals(t, st, enc)
        cpu += time.process_time() - c0
        # the messages and the rounds, as the hints settle them (not timed); spelt out with
        # the kernel rather than phases._settle or phases.allowed, which older checkouts
        # (the --root compared against) do not have in this form
        allow = (np.asarray(st).astype(np.uint64).ravel() & np.uint64(3)).astype(np.int64)
        row = np.full(allow.shape[0], 0.5)
        col = np.full(allow.shape[0], 0.5)
        ran = phases._propagate_beliefs(allow, t.lines, t.blen, t.height, phases.ROUNDS,
                                        phases.DAMPING, phases.SETTLED, row, col, stop,
                                        phases.PATIENCE)
        h = hashlib.sha1(np.asarray(lits, dtype=np.int64).tobytes())
        h.update(row.tobytes())
        h.update(col.tobytes())
        h.update(str(int(ran)).encode())
        lines.append(f"{name} {i} {len(lits)} {h.hexdigest()}")
    return lines, cpu


def compare(a: Path, b: Path) -> None:
    la, lb = a.read_text().splitlines(), b.read_text().splitlines()
    differ = [x for x, y in zip(la, lb, strict=False) if x != y]
    print(f"{len(la)} and {len(lb)} hand-overs, {len(differ)} differ")
    for x in differ[:10]:
        print("  " + x)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("items", nargs="?", type=Path, help="a bench/handovers.py --save pickle")
    ap.add_argument("--root", type=Path, default=HERE, help="the checkout whose code hints")
    ap.add_argument("--out", type=Path, help="write the digests here")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    if args.items is None:
        ap.error("name a hand-over pickle (or --compare A B)")
    sys.path.insert(0, str(args.root.resolve()))
    import nonoforge

    print(f"code from {Path(nonoforge.__file__).parent}", flush=True)
    lines, cpu = digests(args.items)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} hand-overs, hints {cpu:.2f} CPU s"
          + (f" -> {args.out}" if args.out else ""))


if __name__ == "__main__":
    main()
