"""Benchmark: the designer's view (``generate --explain``) on the photo set of bench/generate.py.

For every picture-like ``skimage.data`` image at the given sizes, black-and-white and in
colour, the picture is generated as ``generate`` does and its quantised picture (before
repair) explained: kind, how many regions (independent ambiguities) and flipping cells,
whether the search for ambiguities was complete within its deterministic budget (else
what stopped it: rounds, budget, or the time guard), the largest region, and the CPU
seconds of :func:`~nonoforge.images.explain.explain` alone (this process, the machine is
shared; compile time is paid up front by ``warmup`` and not counted).

    .venv/bin/python bench/explain.py                  # 30x30, B&W and 4 col
    .venv/bin/python bench/explain.py --sizes 20 45 --colours 1

``--scale`` asks what ends the search as pictures grow, up to the largest grid: a random
picture (half ink, seeded), astronaut in black and white and hubble_deep_field in 4
colours (quantised only: the picture as drawn), at 30, 45, 80, 150 and 200 cells a side
(``--sizes``), each ``--repeat`` times: kind, status, what stopped it, regions and cells,
a digest of the result (equal digests: the same regions, verdict and ``stopped``), CPU
and wall seconds against the 30 s guard. ``--hog`` runs a busy loop beside it (a second
process, ended at the end) to show the result does not depend on the load.

    .venv/bin/python bench/explain.py --scale --repeat 2
    .venv/bin/python bench/explain.py --scale --hog --sizes 150 200
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))  # the sibling benches, as the others import them
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import skimage.data  # noqa: E402
from generate import PHOTOS  # noqa: E402

from nonoforge.images.explain import EXPLAIN_TIMEOUT, explain  # noqa: E402
from nonoforge.images.generate import generate  # noqa: E402
from nonoforge.images.quantise import MAX_SIDE, quantise  # noqa: E402
from nonoforge.puzzle import Grid, Palette  # noqa: E402
from nonoforge.solver import warmup  # noqa: E402

#: The pictures of ``--scale``: (name, colours); ``random`` is half ink, seed 1.
SCALE = (("random", 1), ("astronaut", 1), ("hubble_deep_field", 4))


def _picture(name: str, colors: int, size: int) -> tuple[Grid, Palette]:
    if name == "random":
        rng = np.random.default_rng(1)
        return Grid((rng.random((size, size)) < 0.5).astype(np.uint8)), Palette.bw()
    q = quantise(getattr(skimage.data, name)(), size=(size, size), colors=colors)
    return q.grid, q.palette


def scale(sizes: list[int], repeat: int, hog: bool) -> None:
    """The ``--scale`` table (see the module doc)."""
    busy = subprocess.Popen([sys.executable, "-c", "while 1: pass"]) if hog else None
    try:
        print(f"guard {EXPLAIN_TIMEOUT:.0f} s; largest grid {MAX_SIDE}; "
              f"{'beside a busy loop' if hog else 'no extra load'} (shared machine)")
        print(f"{'picture':<22}{'size':>8}{'run':>4}{'kind':>10}{'status':>9}{'stopped':>9}"
              f"{'regions':>8}{'cells':>6}{'digest':>10}{'cpu s':>7}{'wall s':>7}")
        for size in sizes:
            for name, colors in SCALE:
                grid, palette = _picture(name, colors, size)
                label = f"{name} {'B&W' if colors == 1 else f'{colors} col'}"
                for run in range(1, repeat + 1):
                    c0, t0 = time.process_time(), time.monotonic()
                    e = explain(grid, palette)
                    cpu, wall = time.process_time() - c0, time.monotonic() - t0
                    facts = repr((e.kind, e.status, e.stopped, e.regions, e.cells, e.minimal))
                    digest = hashlib.sha256(facts.encode()).hexdigest()[:8]
                    print(f"{label:<22}{grid.width:>4}x{grid.height:<3}{run:>4}{e.kind:>10}"
                          f"{e.status:>9}{e.stopped or '-':>9}{len(e.regions):>8}"
                          f"{len(e.cells):>6}{digest:>10}{cpu:>7.1f}{wall:>7.1f}", flush=True)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=None)
    ap.add_argument("--colours", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--scale", action="store_true", help="what ends the search, by size")
    ap.add_argument("--repeat", type=int, default=1, help="with --scale: runs a picture")
    ap.add_argument("--hog", action="store_true", help="with --scale: a busy loop beside")
    args = ap.parse_args()
    warmup()
    if args.scale:
        scale(args.sizes or [30, 45, 80, 150, MAX_SIDE], args.repeat, args.hog)
        return
    args.sizes = args.sizes or [30]
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
