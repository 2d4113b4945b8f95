"""Fit the shipped difficulty model of this solver version on the reference set.

The reference set (from ../shared and the bundled images):

- ``tournament``: both tournament sets of bench/rate.py (TAAI 2011, TCGA 2016; 25x25)
- ``survey``: survey-free (Jan Wolter's redistributable survey puzzles)
- ``mikix``: mikix-db
- ``wilk``: Jakub Wilk's ``.nin`` test puzzles
- ``generated-bw`` / ``generated-colour``: puzzles made by nonoforge.images from the bundled
  and the shared (emoji) images at 15x15, 25x25 and 35x35, in black-and-white and in 3 colours

Each puzzle is rated like ``nonoforge rate`` does (work budget, 3 timed runs, quick puzzles
repeated until their runs add up to 20 ms), in ``--passes`` passes of different orders over
a pool of ``--workers``; the fastest run's CPU time is the puzzle's time (on a shared
machine the least disturbed). The puzzles under 20 ms, whose times differ by less than the
noise of a pool, are then timed again alone, in ``--quick-passes`` passes (see
:func:`measure`). The model is fitted with every source weighing the same and written into
``nonoforge/pipeline/models.json`` under the solver version (other versions' models are
kept). Prints Spearman rho of score against time per source, each puzzle scored by a model
fitted without it (5-fold cross-validation, the same folds for every source; target >= 0.9
on every source). The grades cut the grading effort (the score times the search factor)
at the fixed cut-points of ``difficulty.GRADE_CUTS``, written with the model (``cuts``,
``grading``); the script prints each source's grade histogram.

    # after a solver change (effort counts or speed): about 20 min on 2 shared cores
    .venv/bin/python bench/fit_model.py --workers 2 --sample 400
    .venv/bin/python bench/fit_model.py --workers 2 --sample 400 --requick  # re-time
    .venv/bin/python bench/fit_model.py --reuse                     # refit saved ratings
    .venv/bin/python bench/fit_model.py --reuse --sample 400 --measured-under 1.1
    # a change that moves only some puzzles' effort: re-rate those, keep the others' times
    .venv/bin/python bench/fit_model.py --workers 2 --sample 400 --rerate-changed 1.1
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from nonoforge.examples import IMAGES
from nonoforge.formats import read_file
from nonoforge.formats.tournament import read_with_solutions
from nonoforge.pipeline.difficulty import GRADING, fit
from nonoforge.pipeline.rate import LocalExecutor, RateOptions, add_runs, rate_one, sample_of
from nonoforge.puzzle import Puzzle
from nonoforge.results import Rating

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
MODELS = ROOT / "nonoforge" / "pipeline" / "models.json"
CACHE = ROOT / "bench" / ".cache"
SIZES = ((15, 15), (25, 25), (35, 35))


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def _kept(key: str, sample: int | None, n: int) -> bool:
    """A stable subsample of about ``sample`` of ``n`` puzzles (by key)."""
    return sample is None or sample >= n or _hash("sample:" + key) / 2**32 < sample / n


def reference(sample: int | None) -> list[tuple[str, Puzzle]]:
    """``(source, puzzle)`` for the reference set; each source subsampled to ~``sample``."""
    c = SHARED / "corpora"
    sources: dict[str, list[Puzzle]] = {"tournament": [], "survey": [], "mikix": [], "wilk": []}
    for name in ("taai2011.txt", "tcga2016.txt"):
        sources["tournament"] += read_with_solutions(c / "tournament" / "question" / name)
    for f in sorted((c / "survey-free").glob("*.non")):
        sources["survey"] += read_file(f)
    for f in sorted((c / "mikix-db" / "db").rglob("*.non")):
        sources["mikix"] += read_file(f)
    for f in sorted((c / "jwilk-nin").glob("*.nin")):
        sources["wilk"] += read_file(f)
    sources.update(generated())
    out: list[tuple[str, Puzzle]] = []
    seen: set[str] = set()
    for src, puzzles in sources.items():
        for p in puzzles:
            if p.key not in seen and _kept(p.key, sample, len(puzzles)):
                seen.add(p.key)
                out.append((src, p))
    return out


def generated() -> dict[str, list[Puzzle]]:
    """Puzzles made from the bundled and shared images (accepted ones only)."""
    from nonoforge.images import generate

    images = sorted(IMAGES.glob("*.png")) + sorted((SHARED / "images" / "emoji").glob("*.png"))
    out: dict[str, list[Puzzle]] = {"generated-bw": [], "generated-colour": []}
    for image in images:
        for size in SIZES:
            for colors, src in ((1, "generated-bw"), (3, "generated-colour")):
                try:
                    g = generate(str(image), size=size, colors=colors, seed=0)
                except Exception as e:  # noqa: BLE001 - one image must not stop the fit
                    print(f"  {image.name} {size} {colors}c: {e}", file=sys.stderr)
                    continue
                if g.accepted:
                    out[src].append(g.puzzle)
    return out


#: Puzzles quicker than this (CPU s) are measured again in ``--quick-passes`` more passes.
QUICK_S = 0.02
#: Puzzles quicker than this are timed in ``--tiny-passes`` passes more: their differences
#: are tens of microseconds (a few %), and a pass over all of them costs about a second.
TINY_S = 0.001


def measure(
    best: dict[str, dict], puzzles: list[Puzzle], passes: int, workers: int, min_time_s: float,
    salt: str, afresh: bool = False,
) -> None:
    """Rate ``puzzles`` ``passes`` times, each pass in another order, into ``best``: per
    key the first row, its times merged with every later pass's (``cpu_s``: the least,
    ``time_s``: the median, as :func:`~nonoforge.pipeline.rate.add_runs` keeps them).
    With ``afresh``, a puzzle's earlier times give way to the first pass that times it; a
    puzzle no pass times keeps its earlier times, and ``cpu_s`` always is their least.

    The quick puzzles (under :data:`QUICK_S`) are timed apart, with ``workers`` 1: in this
    process alone, each pass solving each puzzle 3 times back to back, their least CPU
    time over all passes kept. Timed in a pool of two workers instead, a millisecond
    puzzle's CPU time depends on what the other worker runs beside it on the shared cores
    (cache, memory bandwidth): two fits timed that way ranked the 34 mikix-db puzzles
    alike only at rho 0.84, so no model could rank them better than that. Timed alone,
    two runs agree at rho 0.97.
    """
    stale = {p.key for p in puzzles} if afresh else set()
    for n in range(passes):
        order = sorted(puzzles, key=lambda p: _hash(f"{salt}{n}:{p.key}"))
        # the human features are computed once, by the pass that makes a puzzle's row:
        # they cost about as much as the solve and later passes merge only times
        opts = RateOptions(min_time_s=min_time_s, human=any(p.key not in best for p in order))
        for rating in LocalExecutor(workers).map_unordered(rate_one, order, opts):
            row = rating.to_json()  # the cache keeps rows as JSON
            was = best.setdefault(row["key"], row)
            if was is row or not row["cpu_times"]:
                continue
            if row["key"] in stale:
                stale.discard(row["key"])
                was["times"], was["cpu_times"] = [], []
            add_runs(was, list(zip(row["times"], row["cpu_times"], strict=True)))


def changed(
    ref: list[tuple[str, Puzzle]], version: str, best: dict[str, dict],
) -> list[tuple[str, Puzzle]]:
    """The puzzles of ``ref`` whose verdict, technique or effort differs from the ratings
    saved under solver ``version`` (one solve each, the way ``rate`` solves), and every
    puzzle that reaches SAT (work outside the counts, such as the phase hints, may have
    changed under the same counts). The saved rows of the others go into ``best`` as they
    are: their solve is the same, so are their times.
    """
    from nonoforge.solver import solve

    saved = {r["key"]: r for r in json.loads((CACHE / f"fit-rows-{version}.json").read_text())}
    opts = RateOptions()
    out = []
    moved: dict[str, int] = {}
    for src, p in ref:
        was = saved.get(p.key)
        res = solve(p, max_solutions=opts.max_solutions, timeout=opts.timeout,
                    budget=opts.budget)
        status = "timeout_wall" if res.status == "timeout" else res.status
        # a SAT hand-over may cost more than its counts say (the phase hints): rate again
        sat = any(res.effort.get(k, 0) for k in ("sat_conflicts", "sat_decisions"))
        if was is not None and not sat and (was["status"], was["technique"], was["effort"]) == (
                status, res.technique, dict(res.effort)):
            best[p.key] = dict(was)
        else:
            out.append((src, p))
            moved[src] = moved.get(src, 0) + 1
    print(f"{len(out)} of {len(ref)} puzzles differ from the ratings saved under {version} "
          f"and are rated again ({moved}); the others keep their saved rows", flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sample", type=int, default=None,
                    help="about this many puzzles per source (stable by key); default all")
    ap.add_argument("--passes", type=int, default=2,
                    help="rate the set this many times, each puzzle's fastest pass kept")
    ap.add_argument("--tiny-passes", type=int, default=60,
                    help=f"more passes over the puzzles under {TINY_S * 1e3:.0f} ms")
    ap.add_argument("--quick-passes", type=int, default=21,
                    help=f"passes that time the puzzles under {QUICK_S * 1e3:.0f} ms CPU "
                    "again, in this process alone (cheap; see measure)")
    ap.add_argument("--requick", action="store_true",
                    help="keep the saved ratings, time the quick puzzles again, refit")
    ap.add_argument("--reuse", action="store_true",
                    help="refit the ratings saved by the last run instead of rating again")
    ap.add_argument("--measured-under", metavar="VERSION", default=None,
                    help="with --reuse: refit the ratings saved under another solver version "
                    "(when the new version leaves every reference puzzle's effort as it was)")
    ap.add_argument("--rerate-changed", metavar="VERSION", default=None,
                    help="solve every reference puzzle once and compare it with the ratings "
                    "saved under VERSION: puzzles whose status, technique or any effort count "
                    "differs, or that reach SAT, are rated again (all passes), the others keep "
                    "their saved measurements (the same code path, so the same effort and time)")
    ap.add_argument("--out", default=str(MODELS), help="the models file to update")
    args = ap.parse_args()
    from nonoforge.solver import SOLVER_VERSION

    if not (SHARED / "corpora").exists():
        print(f"{SHARED / 'corpora'} is absent", file=sys.stderr)
        return 2
    measured_under = args.measured_under or SOLVER_VERSION
    if measured_under != SOLVER_VERSION and not args.reuse:
        print("--measured-under goes with --reuse", file=sys.stderr)
        return 2
    saved = CACHE / f"fit-rows-{measured_under}.json"
    t0 = time.perf_counter()
    if args.reuse:
        if not saved.exists():
            print(f"{saved} is absent: rate the reference set first (without --reuse)",
                  file=sys.stderr)
            return 2
        rows = json.loads(saved.read_text())
    else:
        ref = reference(args.sample)
        source = {p.key: s for s, p in ref}
        counts: dict[str, int] = {}
        for s, _ in ref:
            counts[s] = counts.get(s, 0) + 1
        print(f"reference set: {len(ref)} puzzles: "
              + ", ".join(f"{s} {n}" for s, n in counts.items())
              + f" ({time.perf_counter() - t0:.0f} s to read and generate)", flush=True)
        best: dict[str, dict] = {}
        if args.rerate_changed:
            ref = changed(ref, args.rerate_changed, best)
        if args.requick:  # the slow puzzles' saved ratings stand; the quick ones are re-timed
            best = {r["key"]: r for r in json.loads(saved.read_text()) if r["key"] in source}
            ref = [(s, p) for s, p in ref if p.key in best]
        else:
            measure(best, [p for _, p in ref], args.passes, args.workers, 0.02, "")
        t1 = time.perf_counter()
        quick = [p for _, p in ref if best[p.key]["status"] in ("unique", "multiple")
                 and best[p.key]["cpu_s"] < QUICK_S]
        measure(best, quick, args.quick_passes, 1, 0.0, "quick:", afresh=True)  # alone
        tiny = [p for p in quick if best[p.key]["cpu_s"] < TINY_S]
        measure(best, tiny, args.tiny_passes, 1, 0.0, "tiny:")
        rows = list(best.values())
        for row in rows:
            row["source"] = source[row["key"]]
        print(f"rated ({args.passes} passes{' saved' if args.requick else ''}; then "
              f"{args.quick_passes} passes over the {len(quick)} puzzles under "
              f"{QUICK_S * 1e3:.0f} ms and {args.tiny_passes} more over the {len(tiny)} under "
              f"{TINY_S * 1e3:.0f} ms, {time.perf_counter() - t1:.0f} s) in "
              f"{time.perf_counter() - t0:.0f} s wall, {args.workers} worker(s), on a machine "
              "shared with other jobs", flush=True)
        CACHE.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(rows))
    usable = [r for r in rows if r["status"] in ("unique", "multiple")]
    cut: dict[str, int] = {}  # the statuses left out, and how many of each
    for r in rows:
        if r["status"] not in ("unique", "multiple"):
            cut[r["status"]] = cut.get(r["status"], 0) + 1
    samples = []
    statuses = {r["key"]: r["status"] for r in usable}
    for r in usable:
        sample = sample_of(Rating.from_json(r))
        sample.source = r["source"]
        sample.time_s = r["cpu_s"]  # the least disturbed measurement on a shared machine
        samples.append(sample)
    model = fit(samples, SOLVER_VERSION, balance=True)
    model.fit["kind"] = "reference"
    model.fit["fitted"] = time.strftime("%Y-%m-%d", time.gmtime())
    model.fit["sample"] = args.sample
    if measured_under != SOLVER_VERSION:
        model.fit["measured_under"] = measured_under
    out = Path(args.out)
    models = json.loads(out.read_text()) if out.exists() else {}
    models[SOLVER_VERSION] = model.to_dict()
    out.write_text(json.dumps(models, indent=1, sort_keys=True) + "\n")
    print(f"solver {SOLVER_VERSION}: fitted on {len(samples)} puzzles"
          + (f" (not used: {cut})" if cut else "") + f"; written to {out}")
    print("| source | puzzles | held out | Spearman rho (held out, 5-fold) |")
    print("|---|---:|---:|---:|")
    for src, f in model.fit["sources"].items():
        print(f"| {src} | {f['n']} | {f['n_held_out']} | {f['spearman_held_out']:.3f} |")
    print(f"| all | {len(samples)} | {model.fit['n_held_out']} | "
          f"{model.fit['spearman_held_out']:.3f} |")
    print(f"grading rule {GRADING}: cut-points of the grading effort (s): "
          + ", ".join(f"{c:g}" for c in model.cuts))
    print("grades of the reference set (1 / 2 / 3 / 4 / 5), unique and several solutions:")
    for src in sorted({r["source"] for r in usable}):
        hist = [0] * 5
        for sample in samples:
            if sample.source == src:
                unique = statuses[sample.key] == "unique"
                hist[model.grade(sample.technique, model.score(sample.features), sample.features,
                                 unique) - 1] += 1
        print(f"  {src}: " + " / ".join(map(str, hist)))
    weights = sorted(zip(model.names, model.weights, strict=True), key=lambda x: -x[1])
    print("weights: " + ", ".join(f"{n} {w:.3g}" for n, w in weights if w > 0)
          + f"; intercept {model.intercept:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
