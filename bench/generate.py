"""Benchmark of image-to-puzzle generation: share accepted, edits, time per image.

Runs :func:`nonoforge.images.generate` over the 60 Twemoji of ``../shared/images/emoji``
and the picture-like scikit-image samples, at 20x20, 30x30 and 45x45, black-and-white and
up to 6 colours, requiring uniqueness by line logic (the default rung), and prints one row
per configuration. Targets (issue 6): 100 % accepted at ``line``; median edits under 2 % of
cells, worst under 6 %; median time under 1 s per image at 30x30.

    .venv/bin/python bench/generate.py                 # everything (a few minutes)
    .venv/bin/python bench/generate.py --sizes 30 --colors 1 --limit 10
    .venv/bin/python bench/generate.py --textures      # brick/grass/gravel only (stress)

Images run one after another in this process (no parallelism), so times are per image on
one core; the solver is compiled before the clock starts. ``t`` is wall-clock time per
image (load, quantise, repair; no file writing), ``cpu`` the process CPU time, steadier
when other work shares the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import skimage.data

from nonoforge.images.generate import generate
from nonoforge.solver import warmup

EMOJI = Path(__file__).resolve().parents[1].parent / "shared" / "images" / "emoji"
SAMPLES = (
    "camera", "astronaut", "coffee", "chelsea", "rocket", "coins", "moon", "page", "horse",
    "logo", "clock", "immunohistochemistry", "text", "colorwheel",
)  # fmt: skip
TEXTURES = ("brick", "grass", "gravel")


def images(limit: int | None, textures: bool) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    if textures:  # the stress set alone: noise, not pictures
        return [(n, getattr(skimage.data, n)()) for n in TEXTURES]
    if EMOJI.is_dir():
        files = sorted(EMOJI.glob("*.png"))
        out += [(f.name, str(f)) for f in files[:limit]]
    else:
        print(f"note: {EMOJI} is absent; scikit-image samples only", file=sys.stderr)
    out += [(n, getattr(skimage.data, n)()) for n in SAMPLES[:limit]]
    return out


def run(size: int, colors: int, imgs: list[tuple[str, object]], budget: float) -> dict:
    fr, ts, cpu, solves, acc, failed = [], [], [], [], 0, []
    for name, img in imgs:
        c0 = time.process_time()
        g = generate(img, size=(size, size), colors=colors, seed=0, edit_budget=budget)
        cpu.append(time.process_time() - c0)
        fr.append(g.edit_fraction)
        ts.append(g.time_s)
        solves.append(g.repair.solves)
        acc += g.accepted
        if not g.accepted:
            failed.append(name)
    return {
        "config": f"{size}x{size} {'B&W' if colors == 1 else f'<={colors} col'}",
        "n": len(imgs),
        "accepted": acc / len(imgs),
        "edits_median": statistics.median(fr),
        "edits_worst": max(fr),
        "worst3": ", ".join(
            f"{imgs[i][0]} {fr[i]:.1%}" for i in np.argsort(fr)[::-1][:3] if fr[i] > 0
        ),
        "t_median": statistics.median(ts),
        "t_p90": float(np.quantile(ts, 0.9)),
        "t_max": max(ts),
        "cpu_median": statistics.median(cpu),
        "cpu_max": max(cpu),
        "solves_median": statistics.median(solves),
        "failed": failed,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20,30,45")
    ap.add_argument("--colors", default="1,6")
    ap.add_argument("--limit", type=int, default=None, help="at most N emoji and N samples")
    ap.add_argument("--budget", type=float, default=0.06, help="edit budget (fraction)")
    ap.add_argument("--textures", action="store_true",
                    help="run the texture samples (brick, grass, gravel) instead: a stress set")
    args = ap.parse_args()
    imgs = images(args.limit, args.textures)
    warmup()
    print(f"{len(imgs)} images; acceptance at 'line'; edit budget {args.budget:.0%}")
    head = (f"{'config':<16}{'n':>4}{'accepted':>10}{'edits med':>11}{'edits worst':>13}"
            f"{'t med s':>9}{'t p90 s':>9}{'t max s':>9}{'cpu med':>9}{'cpu max':>9}"
            f"{'solves med':>12}  most edited")
    print(head)
    print("-" * len(head))
    t0 = time.perf_counter()
    for size in (int(s) for s in args.sizes.split(",")):
        for colors in (int(c) for c in args.colors.split(",")):
            r = run(size, colors, imgs, args.budget)
            print(f"{r['config']:<16}{r['n']:>4}{r['accepted']:>10.1%}"
                  f"{r['edits_median']:>11.2%}{r['edits_worst']:>13.2%}"
                  f"{r['t_median']:>9.3f}{r['t_p90']:>9.3f}{r['t_max']:>9.3f}"
                  f"{r['cpu_median']:>9.3f}{r['cpu_max']:>9.3f}"
                  f"{r['solves_median']:>12.0f}  {r['worst3']}", flush=True)
            if r["failed"]:
                print(f"   not accepted: {', '.join(r['failed'])}")
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
