"""Benchmark: the designer's view (``generate --explain``) on the photo set of bench/generate.py.

For every picture-like ``skimage.data`` image at the given sizes, black-and-white and in
colour, the picture is generated as ``generate`` does and its quantised picture (before
repair) explained: kind, how many regions (independent ambiguities) and flipping cells,
whether the search for ambiguities was complete within its deterministic budget (else
what stopped it: rounds, budget, or the time guard), the largest region, and the CPU
seconds of :func:`~nonoforge.images.explain.explain` alone (this process, the machine is
shared; compile time is paid up front by ``warmup`` and not counted).

    PYTHONPATH=. /work/venv/bin/python bench/explain.py                  # 30x30, B&W and 4 col
    PYTHONPATH=. /work/venv/bin/python bench/explain.py --sizes 20 45 --colours 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import skimage.data  # noqa: E402

from bench.generate import PHOTOS  # noqa: E402
from nonoforge.images.explain import explain  # noqa: E402
from nonoforge.images.generate import generate  # noqa: E402
from nonoforge.solver import warmup  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[30])
    ap.add_argument("--colours", type=int, nargs="+", default=[1, 4])
    args = ap.parse_args()
    warmup()
    print(f"{'image':<22}{'config':<8}{'size':>7}{'kind':>10}{'regions':>8}{'cells':>6}"
          f"{'largest':>8}{'complete':>9}{'cpu s':>7}")
    cpus, flips, complete = [], 0, 0
    for size in args.sizes:
        for colors in args.colours:
            for name in PHOTOS:
                g = generate(getattr(skimage.data, name)(), size=(size, size), colors=colors)
                q = g.quantised
                c0 = time.process_time()
                e = explain(q.grid, q.palette)
                cpu = time.process_time() - c0
                cpus.append(cpu)
                flips += e.kind == "flip"
                complete += e.kind == "flip" and e.complete
                largest = max((len(r) for r in e.regions), default=0)
                config = "B&W" if colors == 1 else f"{colors} col"
                done = (e.stopped or "yes") if e.kind == "flip" else "-"
                print(f"{name:<22}{config:<8}{q.grid.width:>3}x{q.grid.height:<3}{e.kind:>10}"
                      f"{len(e.regions):>8}{len(e.cells):>6}{largest:>8}{done:>9}{cpu:>7.2f}",
                      flush=True)
    print(f"\n{len(cpus)} pictures: {flips} ambiguous ({complete} explained completely); "
          f"explain cpu median {statistics.median(cpus):.2f} s, max {max(cpus):.2f} s, "
          f"total {sum(cpus):.1f} s")


if __name__ == "__main__":
    main()
