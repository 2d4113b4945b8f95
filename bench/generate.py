"""Benchmark of image-to-puzzle generation: share accepted, edits, time per image.

Runs :func:`nonoforge.images.generate` over the 60 Twemoji of ``../shared/images/emoji``
and the picture-like scikit-image samples, at 20x20, 30x30 and 45x45, black-and-white and
up to 6 colours, requiring uniqueness by line logic (the default rung), and prints one row
per configuration. Targets (issue 6): 100 % accepted at ``line``; median edits under 2 % of
cells, worst under 6 %; median time under 1 s per image at 30x30.

    .venv/bin/python bench/generate.py                 # everything (a few minutes)
    .venv/bin/python bench/generate.py --sizes 30 --colors 1 --limit 10
    .venv/bin/python bench/generate.py --textures      # brick/grass/gravel only (stress)
    .venv/bin/python bench/generate.py --photos        # the photo set of issue 17
    .venv/bin/python bench/generate.py --photos --montage docs/images-photos.png
    .venv/bin/python bench/generate.py --photos --styles --montage docs/images-styles.png

``--photos --styles`` (issue 35) runs ``--style auto`` on the photo set plus the real photos
of :data:`OTHER_PHOTOS` (other projects' test folders, kept out of this repository: see
below) at 20/30/45 cells, black-and-white, and prints per photo: accepted, the style auto
chose, each style's structure score (docs/images.md, "Styles"), edits, CPU; then per size
the accepted rate and the CPU median. With ``--montage`` it first draws each photo in every
style at 30x30 (source | silhouette | outline | tones | auto) and prints, per style, the
structure measure beside SSIM, and whether the two measures pick the same style. With the
subject model (shipped with nonoforge; docs/images.md, "The subject's shape from a trained
model") auto and silhouette draw a shaped subject cut out of its ground, said as "(the
subject's shape)"; ``NONOFORGE_SUBJECT_MODEL=`` turns it off.

The other projects' photos are read from ``--photo-dir`` (default ``../bench-photos``
beside the checkout, or ``$NONOFORGE_BENCH_PHOTOS``); photos absent there are skipped with
a note. Get them with git from the repositories named in :data:`OTHER_PHOTOS` (file and
commit given); they are never committed here (provenance of the pictures themselves is
not stated by those projects).

``--photos`` runs every picture-like ``skimage.data`` image at 20/30/45, black-and-white
and 4 colours, and prints per image: accepted, edits, likeness (band-passed correlation in
L*, see ``nonoforge/images/measure.py``) and SSIM (the earlier likeness), each beside a plain
resize + Otsu baseline of the same grid size, empty margin lines, specks, painted colours
(and why fewer than asked), the closest ΔE2000 pair and CPU time; then per configuration
the medians. Targets (issue 17):
100 % accepted at ``line``; no empty margin line; N colours delivered or explained; at most
3 specks per 30x30; median CPU time under 1 s at 30x30.

Images run one after another in this process (no parallelism), so times are per image on
one core; the solver is compiled before the clock starts. ``t`` is wall-clock time per
image (load, quantise, repair; no file writing), ``cpu`` the process CPU time, steadier
when other work shares the machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import skimage.data
from PIL import Image, ImageDraw

from nonoforge.images.generate import generate
from nonoforge.images.quantise import ImageSource
from nonoforge.solver import warmup

EMOJI = Path(__file__).resolve().parents[1].parent / "shared" / "images" / "emoji"
SAMPLES = (
    "camera", "astronaut", "coffee", "chelsea", "rocket", "coins", "moon", "page", "horse",
    "logo", "clock", "immunohistochemistry", "text", "colorwheel",
)  # fmt: skip
TEXTURES = ("brick", "grass", "gravel")
#: The photo set: every picture-like image of skimage.data (chelsea is also ``cat``).
PHOTOS = SAMPLES + ("retina", "hubble_deep_field")
#: Real photos from other projects' test folders: (name, repository, path, commit, licence
#: of the repository). darknet's data/ images ship with the YOLO licence ("public domain"),
#: yolov5's with AGPL-3.0; the photos' own authors are not stated, so none is committed.
OTHER_PHOTOS = (
    ("darknet-dog.jpg", "pjreddie/darknet", "data/dog.jpg", "f6afaab", "YOLO (public domain)"),
    ("darknet-eagle.jpg", "pjreddie/darknet", "data/eagle.jpg", "f6afaab", "YOLO (public domain)"),
    ("darknet-giraffe.jpg", "pjreddie/darknet", "data/giraffe.jpg", "f6afaab",
     "YOLO (public domain)"),
    ("darknet-horses.jpg", "pjreddie/darknet", "data/horses.jpg", "f6afaab",
     "YOLO (public domain)"),
    ("darknet-kite.jpg", "pjreddie/darknet", "data/kite.jpg", "f6afaab", "YOLO (public domain)"),
    ("darknet-person.jpg", "pjreddie/darknet", "data/person.jpg", "f6afaab",
     "YOLO (public domain)"),
    ("darknet-scream.jpg", "pjreddie/darknet", "data/scream.jpg", "f6afaab",
     "YOLO (public domain); a photo of Munch's painting"),
    ("yolov5-bus.jpg", "ultralytics/yolov5", "data/images/bus.jpg", "5081342", "AGPL-3.0"),
    ("yolov5-zidane.jpg", "ultralytics/yolov5", "data/images/zidane.jpg", "5081342", "AGPL-3.0"),
)
PHOTO_DIR = Path(os.environ.get(
    "NONOFORGE_BENCH_PHOTOS", Path(__file__).resolve().parents[1].parent / "bench-photos"))
MONTAGE = ("chelsea", "astronaut", "rocket", "coffee", "camera", "horse", "hubble_deep_field")


def images(limit: int | None, textures: bool) -> list[tuple[str, ImageSource]]:
    out: list[tuple[str, ImageSource]] = []
    if textures:  # the stress set alone: noise, not pictures
        return [(n, getattr(skimage.data, n)()) for n in TEXTURES]
    if EMOJI.is_dir():
        files = sorted(EMOJI.glob("*.png"))
        out += [(f.name, str(f)) for f in files[:limit]]
    else:
        print(f"note: {EMOJI} is absent; scikit-image samples only", file=sys.stderr)
    out += [(n, getattr(skimage.data, n)()) for n in SAMPLES[:limit]]
    return out


def run(size: int, colors: int, imgs: list[tuple[str, ImageSource]], budget: float) -> dict:
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


def baseline(img: ImageSource, size: int, colors: int = 1) -> tuple[float, float]:
    """``(likeness, SSIM)`` of the plain pipeline: resize the whole frame, Otsu on
    lightness, ink the side the border is not on (colour: k-means with N+1 clusters in
    Lab); no crop, no photo path, no speck filter, no ΔE floor."""
    from skimage.color import rgb2lab
    from skimage.filters import threshold_otsu

    from nonoforge.images.load import as_rgba
    from nonoforge.images.measure import likeness, ssim
    from nonoforge.images.quantise import area_average, fit_size

    rgba = as_rgba(img)
    w, h = fit_size(rgba.shape[1], rgba.shape[0], (size, size))
    rgb, _ = area_average(rgba, w, h)
    lab = rgb2lab(rgb)
    light = lab[..., 0]
    if colors > 1:
        from nonoforge.images.quantise import kmeans

        _, labels = kmeans(lab.reshape(-1, 3), colors + 1, seed=0)
        cells = labels.reshape(light.shape)
        return likeness(light, cells), ssim(light, cells)
    t = threshold_otsu(light)
    border = np.concatenate([light[0], light[-1], light[:, 0], light[:, -1]])
    ink = light <= t if np.mean(border > t) >= 0.5 else light > t
    return likeness(light, ink.astype(np.int64)), ssim(light, ink.astype(np.int64))


def photos(sizes: list[int], colours: list[int], budget: float) -> None:
    imgs = [(n, getattr(skimage.data, n)()) for n in PHOTOS]
    print(f"{len(imgs)} skimage.data pictures; acceptance at 'line'; edit budget {budget:.0%}; "
          "cpu = process CPU s per image (shared machine)")
    head = (f"{'image':<22}{'config':<10}{'size':>7}{'acc':>5}{'edits':>6}{'like':>7}"
            f"{'base':>7}{'ssim':>7}{'base':>7}{'margins':>8}{'specks':>7}{'colours':>8}"
            f"{'min dE':>7}{'cpu s':>7}  note")
    summary = []
    for size in sizes:
        for colors in colours:
            print(head)
            rows = []
            for name, img in imgs:
                c0 = time.process_time()
                g = generate(img, size=(size, size), colors=colors, seed=0, edit_budget=budget)
                cpu = time.process_time() - c0
                s = g.summary()
                d = s["closest_delta_e"] or 0.0
                base, base_ssim = baseline(img, size, colors)
                rows.append((s, cpu, base, base_ssim))
                config = "B&W" if colors == 1 else f"{colors} col"
                print(f"{name:<22}{config:<10}{s['width']:>3}x{s['height']:<3}"
                      f"{'yes' if s['accepted'] else 'NO':>5}{s['edits']:>6}"
                      f"{s['likeness']:>7.3f}{base:>7.3f}{s['ssim']:>7.3f}{base_ssim:>7.3f}"
                      f"{s['empty_margins']:>8}{s['specks']:>7}"
                      f"{s['colors']:>4}/{colors:<3}{d:>7.1f}{cpu:>7.2f}  {s['colors_note'] or ''}",
                      flush=True)
            like = statistics.median(r[0]["likeness"] for r in rows)
            bases = [r[2] for r in rows if not np.isnan(r[2])]
            ssims = [r[3] for r in rows if not np.isnan(r[3])]
            summary.append((
                f"{size}x{size} {'B&W' if colors == 1 else f'{colors} col'}",
                sum(r[0]["accepted"] for r in rows) / len(rows), like,
                statistics.median(bases) if bases else float("nan"),
                statistics.median(r[0]["ssim"] for r in rows),
                statistics.median(ssims) if ssims else float("nan"),
                sum(r[0]["empty_margins"] > 0 for r in rows), max(r[0]["specks"] for r in rows),
                sum(r[0]["colors"] == colors for r in rows),
                sum(r[0]["colors"] < colors and bool(r[0]["colors_note"]) for r in rows),
                statistics.median(r[1] for r in rows), max(r[1] for r in rows), len(rows),
            ))
    print()
    print(f"{'config':<12}{'accepted':>9}{'like med':>9}{'base med':>9}{'ssim med':>9}"
          f"{'base med':>9}{'w/ margin':>10}"
          f"{'specks max':>11}{'N col':>6}{'explained':>10}{'cpu med':>8}{'cpu max':>8}")
    for c, acc, like, base, sm, sb, mg, sp, full, expl, cmed, cmax, n in summary:
        print(f"{c:<12}{acc:>9.0%}{like:>9.3f}{base:>9.3f}{sm:>9.3f}{sb:>9.3f}{mg:>10}{sp:>11}"
              f"{full:>4}/{n:<2}{expl:>9}{cmed:>8.2f}{cmax:>8.2f}")


def montage(path: str, size: int = 30) -> None:
    """Source vs puzzle (B&W at 20, ``size`` and 45, 4 colours at ``size``) for a few
    photos, as one small PNG."""
    from nonoforge.images.render import solution_png

    rows = []
    for name in MONTAGE:
        img = getattr(skimage.data, name)()
        arr = img if img.dtype == np.uint8 else (np.asarray(img) * 255).astype(np.uint8)
        src = Image.fromarray(arr).convert("RGB")
        src.thumbnail((150, 150))
        tiles = [src]
        for colors, side in ((1, 20), (1, size), (1, 45), (4, size)):
            g = generate(img, size=(side, side), colors=colors, seed=0)
            assert g.puzzle.goal is not None
            tiles.append(solution_png(g.puzzle.goal, g.puzzle.palette, 150 // side))
        row = Image.new("RGB", (sum(t.width for t in tiles) + 8 * len(tiles), 150), "white")
        x = 0
        for t in tiles:
            row.paste(t, (x, (150 - t.height) // 2))
            x += t.width + 8
        rows.append(row)
    out = Image.new("RGB", (max(r.width for r in rows), 158 * len(rows)), "white")
    for i, r in enumerate(rows):
        out.paste(r, (0, 158 * i))
    out = out.quantize(colors=128)
    out.save(path, optimize=True)
    print(f"montage -> {path}")


#: Names of the photos whose source is never committed, not even as a montage's thumbnail.
UNCOMMITTED = frozenset(name.removesuffix(".jpg") for name, *_ in OTHER_PHOTOS)


def source_tile(name: str, rgb: np.ndarray, tile: int) -> Image.Image:
    """A montage's source tile: the photo shrunk to ``tile`` pixels, or, for a photo whose
    licence does not let it be committed (:data:`UNCOMMITTED`), a grey tile naming it: a
    thumbnail is a copy too. The puzzles drawn from it are shown beside it either way."""
    if name in UNCOMMITTED:
        out = Image.new("RGB", (tile, tile), (224, 224, 224))
        draw = ImageDraw.Draw(out)
        for i, text in enumerate((name, "(not committed:", "see the notes)")):
            draw.text((6, 6 + 14 * i), text, fill=(64, 64, 64))
        return out
    src = Image.fromarray(rgb)
    src.thumbnail((tile, tile))
    return src


def style_photos(photo_dir: Path) -> list[tuple[str, ImageSource]]:
    """The photo set and the other projects' photos found in ``photo_dir``."""
    imgs: list[tuple[str, ImageSource]] = [(n, getattr(skimage.data, n)()) for n in PHOTOS]
    missing = []
    for name, *_ in OTHER_PHOTOS:
        path = photo_dir / name
        if path.is_file():
            imgs.append((name.removesuffix(".jpg"), str(path)))
        else:
            missing.append(name)
    if missing:
        print(f"note: {len(missing)} photo(s) absent from {photo_dir}: {', '.join(missing)}",
              file=sys.stderr)
    return imgs


def styles(sizes: list[int], imgs: list[tuple[str, ImageSource]], budget: float) -> None:
    """``--style auto`` on every photo at each size: accepted, auto's choice, each style's
    structure score, edits, CPU; then per size the accepted rate and CPU median."""
    from nonoforge.images.generate import GenerateOptions
    from nonoforge.images.quantise import QuantiseOptions
    from nonoforge.images.styles import Style

    print(f"{len(imgs)} photos; B&W --style auto; acceptance at 'line'; edit budget {budget:.0%}; "
          "scores = structure measure of each style's picture as drawn; cpu = process CPU s")
    head = (f"{'photo':<22}{'size':>7}{'acc':>5}{'auto':>11}{'silh':>7}{'outl':>7}{'tones':>7}"
            f"{'struct':>7}{'ssim':>7}{'edits':>6}{'specks':>7}{'cpu s':>7}")
    summary = []
    for size in sizes:
        print(head)
        rows = []
        for name, img in imgs:
            c0 = time.process_time()
            # auto asked for: the default style is the silhouette (docs/images.md, Styles)
            g = generate(img, GenerateOptions(QuantiseOptions(size=(size, size)),
                                              edit_budget=budget, style=Style.AUTO))
            cpu = time.process_time() - c0
            s = g.summary()
            sc = s["style_scores"]
            rows.append((s, cpu))
            print(f"{name:<22}{s['width']:>3}x{s['height']:<3}{'yes' if s['accepted'] else 'NO':>5}"
                  f"{s['style']:>11}" + "".join(f"{sc.get(k, float('nan')):>7.3f}" for k in
                                                 ("silhouette", "outline", "tones"))
                  + f"{s['structure']:>7.3f}{s['ssim'] or float('nan'):>7.3f}{s['edits']:>6}"
                  f"{s['specks']:>7}{cpu:>7.2f}", flush=True)
        chosen = {k: sum(r[0]["style"] == k for r in rows)
                  for k in ("silhouette", "outline", "tones")}
        summary.append((size, sum(r[0]["accepted"] for r in rows) / len(rows),
                        statistics.median(r[1] for r in rows), max(r[1] for r in rows),
                        statistics.median(100 * r[0]["edit_fraction"] for r in rows), chosen,
                        len(rows)))
    print()
    print(f"{'size':<8}{'accepted':>9}{'cpu med':>8}{'cpu max':>8}{'edits med %':>12}  auto chose")
    for size, acc, cmed, cmax, emed, chosen, n in summary:
        print(f"{size}x{size:<5}{acc:>9.0%}{cmed:>8.2f}{cmax:>8.2f}{emed:>12.1f}  "
              + ", ".join(f"{k} {v}" for k, v in chosen.items()) + f" (of {n})")


def styles_montage(path: str, imgs: list[tuple[str, ImageSource]], size: int = 30) -> None:
    """source | silhouette | outline | tones | auto at ``size`` for every photo, as one PNG;
    prints each style's structure and SSIM (of the repaired puzzle) and where the two
    measures would pick different styles."""
    from nonoforge.images.generate import GenerateOptions
    from nonoforge.images.load import as_rgba
    from nonoforge.images.quantise import QuantiseOptions
    from nonoforge.images.render import solution_png
    from nonoforge.images.styles import Style

    tile = 150
    print(f"{'photo':<22}" + "".join(f"{s:>22}" for s in ("silhouette", "outline", "tones"))
          + f"{'auto':>12}{'by ssim':>12}")
    rows, agree, autos = [], 0, []
    for name, img in imgs:
        rgba = as_rgba(img)
        src = source_tile(name, (rgba[..., :3] * 255).round().astype(np.uint8), tile)
        tiles, cells = [src], []
        figures = {}
        for style in (Style.SILHOUETTE, Style.OUTLINE, Style.TONES, Style.AUTO):
            c0 = time.process_time()
            g = generate(img, GenerateOptions(QuantiseOptions(size=(size, size)), style=style))
            if style is Style.AUTO:
                autos.append((g.accepted, time.process_time() - c0, g.style.value,
                              g.puzzle.width, g.puzzle.height, g.subject_shape))
            assert g.puzzle.goal is not None
            tiles.append(solution_png(g.puzzle.goal, g.puzzle.palette, tile // size))
            s = g.summary()
            figures[style.value] = (s["structure"], s["ssim"] or 0.0, s["accepted"], s["style"])
            cells.append(g)
        by_ssim = max(("silhouette", "outline", "tones"), key=lambda k: figures[k][1])
        by_struct = max(("silhouette", "outline", "tones"), key=lambda k: figures[k][0])
        agree += by_ssim == by_struct
        print(f"{name:<22}" + "".join(
            f"{f'{figures[k][0]:.3f}/{figures[k][1]:.3f}' + ('' if figures[k][2] else ' NO'):>22}"
            for k in ("silhouette", "outline", "tones"))
            + f"{figures['auto'][3]:>12}{by_ssim:>12}"
            + f"  auto {autos[-1][3]}x{autos[-1][4]} cpu {autos[-1][1]:.2f}"
            + ("  (the subject's shape)" if autos[-1][5] else ""), flush=True)
        row = Image.new("RGB", (sum(t.width for t in tiles) + 8 * len(tiles), tile), "white")
        x = 0
        for t in tiles:
            row.paste(t, (x, (tile - t.height) // 2))
            x += t.width + 8
        rows.append(row)
    print(f"(structure/SSIM of each style's repaired puzzle; NO: not accepted) the two measures "
          f"pick the same style for {agree} of {len(imgs)} photos")
    chosen = {k: sum(a[2] == k for a in autos) for k in ("silhouette", "outline", "tones")}
    print(f"auto at {size}x{size}: accepted {sum(a[0] for a in autos)}/{len(autos)}, CPU median "
          f"{statistics.median(a[1] for a in autos):.2f} s, max {max(a[1] for a in autos):.2f} s; "
          "chose " + ", ".join(f"{k} {v}" for k, v in chosen.items()))
    out = Image.new("RGB", (max(r.width for r in rows), (tile + 8) * len(rows)), "white")
    for i, r in enumerate(rows):
        out.paste(r, (0, (tile + 8) * i))
    out = out.quantize(colors=64)
    out.save(path, optimize=True)
    print(f"montage -> {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20,30,45")
    ap.add_argument("--colors", default="1,6")
    ap.add_argument("--limit", type=int, default=None, help="at most N emoji and N samples")
    ap.add_argument("--budget", type=float, default=0.06, help="edit budget (fraction)")
    ap.add_argument("--textures", action="store_true",
                    help="run the texture samples (brick, grass, gravel) instead: a stress set")
    ap.add_argument("--photos", action="store_true",
                    help="the photo set: per-image likeness, margins, specks, colours")
    ap.add_argument("--montage", metavar="PNG", help="with --photos: write the montage")
    ap.add_argument("--styles", action="store_true",
                    help="with --photos: B&W styles (issue 35) on the photos and other projects'")
    ap.add_argument("--photo-dir", type=Path, default=PHOTO_DIR,
                    help="where the other projects' photos are (see OTHER_PHOTOS)")
    ap.add_argument("--only", help="with --styles: these photos only (comma-separated)")
    args = ap.parse_args()
    warmup()
    if args.photos and args.styles:
        imgs = style_photos(args.photo_dir)
        if args.only:
            imgs = [i for i in imgs if i[0] in args.only.split(",")]
        if args.montage:
            styles_montage(args.montage, imgs)
        if args.sizes != "none":
            styles([int(s) for s in args.sizes.split(",")], imgs, args.budget)
        return
    if args.photos:
        if args.montage:
            montage(args.montage)
        colours = [int(c) for c in args.colors.split(",")] if args.colors != "1,6" else [1, 4]
        photos([int(s) for s in args.sizes.split(",")], colours, args.budget)
        return
    imgs = images(args.limit, args.textures)
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
