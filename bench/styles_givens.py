"""The styles kept exact with givens (issue 35, givens10): a probe.

The styles' line drawings do not survive the edit repair at 30 cells (its 20-50 pixel edits
break one-cell lines, and the styles retry with fewer lines while it refuses), so what ships
is thinner than what was drawn. ``--repair givens`` keeps a picture exactly as drawn and
prints a few cells solved so that line logic proves it unique
(:mod:`nonoforge.images.givens`). This probe measures what that does to the styles.

For each bench photo (:func:`generate.style_photos`: skimage.data's and the other projects'
photos of ``bench/generate.py``) at ``--size`` (seed 0, generate's own crop and subject
model) it runs ``generate`` itself five times and prints one row each:

* **today**: ``--style auto`` with the edit repair (what ships today);
* **silhouette, outline, tones**: that style with ``repair_with="givens"``. Under givens
  ``generate`` draws each style once, at its FIRST level (the richest: the silhouette's
  first crumb, the outline's and the tones' detail 0): the retries run only while an
  *edit* repair refuses (``_silhouette_attempts`` and ``_style_attempts`` stop after one
  attempt when ``repair_with`` is not ``edits``), and the edit repair is given a budget of
  0, so the picture is not changed and the givens are found for it as drawn. The
  silhouette asked alone goes through the subject model as auto does (its shape when it
  has one);
* **auto+givens**: ``--style auto`` with ``repair_with="givens"``: the subject's shape when
  the model finds one (as today), else each style's first drawing scored, and -- since the
  zero-budget repair accepts none but a drawing unique as it stands -- the best scored as
  drawn, unless another drawing is unique without givens (then that one: auto keeps an
  accepted picture over one not accepted). The probe prints whether the pick is the best
  scored;
* **outline+edits, tones+edits** (table only, not in the montage): that style with the
  edit repair and its retries, what ``--style outline``/``tones`` ships today, to set the
  exact drawings' ink beside it.

Per row: the puzzle's size, accepted (the printed puzzle: clues plus givens, proven by the
solver), edits (today) or givens (count and share of the puzzle's cells), the structure
score of the picture shipped (auto's recognisability measure, docs/images.md "Styles",
against the subject's ground colours for every style alike, so the silhouette asked alone
is scored as auto scores it) and the process CPU of that ``generate`` call. Then per run
the givens' median and max (count and % of cells, and the share of them filled rather than
crossed), the ink (filled cells) and its 8-connected pieces (a line kept whole is one
piece, broken into dashes many), and for outline and tones the ink drawn against the ink
the edit repair ships.

``--montage`` writes source | today's auto | silhouette | outline | tones (each exact, its
givens marked: an orange dot in the cell, on black or on paper) | auto+givens, 7 pixels a
cell; the source of a photo not committed here is a grey tile naming it
(:func:`generate.source_tile`). ``--json`` keeps the rows for the notes' tables.

    nice .venv/bin/python bench/styles_givens.py --montage docs/images-styles-givens.png \\
        --json /tmp/givens10.json
    nice .venv/bin/python bench/styles_givens.py --only camera,astronaut

What the tiles showed: docs/notes/images-styles-photos.md ("The styles kept exact with
givens").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import PHOTO_DIR, source_tile, style_photos  # noqa: E402  (the bench's photo set)

from nonoforge.images.generate import (  # noqa: E402
    Generated,
    GenerateOptions,
    generate,
    picture_structure,
)
from nonoforge.images.load import as_rgba  # noqa: E402
from nonoforge.images.quantise import ImageSource, QuantiseOptions  # noqa: E402
from nonoforge.images.styles import Style  # noqa: E402
from nonoforge.images.subject import find_subject  # noqa: E402
from nonoforge.solver import warmup  # noqa: E402

#: The runs of each photo: (column name, style, repair).
RUNS = (
    ("today", Style.AUTO, "edits"),
    ("silhouette", Style.SILHOUETTE, "givens"),
    ("outline", Style.OUTLINE, "givens"),
    ("tones", Style.TONES, "givens"),
    ("auto+givens", Style.AUTO, "givens"),
    ("outline+edits", Style.OUTLINE, "edits"),
    ("tones+edits", Style.TONES, "edits"),
)
#: The runs drawn in the montage (the last two are for the table: what the edit repair
#: and the styles' retries ship of the same drawings).
SHOWN = 5
#: Pixels a cell in the montage, and the given's dot (pixels a side, centred).
PX, DOT = 7, 3
#: The given's mark: orange reads on black and on paper alike.
DOT_RGB = (255, 140, 0)


def run(img: ImageSource, rgba: np.ndarray, size: int, style: Style, repair_with: str
        ) -> tuple[Generated, dict[str, Any]]:
    """One ``generate`` call and its row: size, accepted, edits, givens, structure (against
    the subject's ground, as auto scores), style drawn and why, CPU."""
    opts = GenerateOptions(QuantiseOptions(size=(size, size), seed=0), style=style,
                           repair_with=repair_with)
    c0 = time.process_time()
    g = generate(img, opts)
    cpu = time.process_time() - c0
    ground = g.ground if g.ground is not None else find_subject(rgba).ground
    cells = g.repair.grid.cells
    h, w = cells.shape
    if repair_with == "givens":  # the picture is shipped as drawn
        assert g.edits == 0, "a givens repair edited the picture"
    return g, {
        "size": f"{w}x{h}", "cells": w * h, "accepted": g.accepted, "edits": g.edits,
        "givens": len(g.givens), "givens_pct": 100.0 * len(g.givens) / (w * h),
        "structure": picture_structure(g.quantised, cells, ground),
        "ink": int((cells != 0).sum()), "pieces": pieces(cells),
        "filled_givens": sum(c != 0 for *_, c in g.givens),
        "style": g.style.value, "by": g.style_by.value,
        "scores": dict(g.style_scores), "cpu": cpu,
    }


def pieces(cells: np.ndarray) -> int:
    """The ink's 8-connected pieces: a line drawn whole is one, broken into dashes many."""
    from scipy.ndimage import label

    return int(label(cells != 0, structure=np.ones((3, 3), dtype=int))[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="these photos only (comma-separated)")
    ap.add_argument("--size", type=int, default=30)
    ap.add_argument("--photo-dir", type=Path, default=PHOTO_DIR)
    ap.add_argument("--montage", metavar="PNG")
    ap.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    args = ap.parse_args()
    warmup()
    imgs = style_photos(args.photo_dir)
    if args.only:
        imgs = [i for i in imgs if i[0] in args.only.split(",")]
    print(f"{len(imgs)} photos at {args.size}; structure = auto's measure of the picture "
          "shipped; g = givens (count, % of cells); cpu = process CPU s")
    print(f"{'photo':<19}{'today (edits)':>30}" + "".join(f"{k:>24}" for k, *_ in RUNS[1:4])
          + f"{'auto+givens':>38}")
    rows, tiles = [], []
    for name, img in imgs:
        rgba = as_rgba(img)
        row: dict[str, Any] = {"photo": name}
        made: dict[str, Generated] = {}
        for key, style, repair_with in RUNS:
            made[key], row[key] = run(img, rgba, args.size, style, repair_with)
        auto = row["auto+givens"]
        exact = {k: row[k]["structure"] for k in ("silhouette", "outline", "tones")}
        row["best_scored"] = max(exact, key=lambda k: exact[k])
        t = row["today"]
        line = (f"{name:<19}{t['style'][:5]:>7}{t['size']:>6}{'' if t['accepted'] else ' NO':>3}"
                f"{t['edits']:>4}e{t['structure']:>6.3f}{t['cpu']:>5.1f}")
        for k in ("silhouette", "outline", "tones"):
            r = row[k]
            line += (f"{r['size']:>7}{'' if r['accepted'] else ' NO':>3}{r['givens']:>4}"
                     f"g{r['givens_pct']:>4.1f}%{r['structure']:>6.3f}{r['cpu']:>4.1f}")
        line += (f"{auto['style'][:5]:>7} {auto['by'][:9]:<9}{auto['size']:>6}"
                 f"{'' if auto['accepted'] else ' NO':>3}{auto['givens']:>4}g"
                 f"{auto['givens_pct']:>4.1f}%{auto['structure']:>6.3f}{auto['cpu']:>4.1f}")
        print(line, flush=True)
        rows.append(row)
        if args.montage:
            tiles.append((name, rgba, made))
    summary(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.montage:
        montage(args.montage, tiles)


def summary(rows: list[dict[str, Any]]) -> None:
    """Per run: accepted, givens median and max (count, % of cells; the share of them
    filled), structure, ink and pieces medians, CPU; auto+givens' picks; and, for outline
    and tones, what the edit repair (with the styles' retries) ships of the drawing."""
    print(f"\n{'run':<14}{'accepted':>9}{'givens med':>11}{'max':>5}{'% med':>7}{'% max':>7}"
          f"{'filled':>7}{'struct med':>11}{'ink med':>8}{'pieces med':>11}{'cpu med':>8}"
          f"{'cpu max':>8}")
    for key, *_ in RUNS:
        rs = [r[key] for r in rows]
        g = [r["givens"] for r in rs]
        p = [r["givens_pct"] for r in rs]
        filled = sum(r["filled_givens"] for r in rs) / max(1, sum(g))
        print(f"{key:<14}{sum(r['accepted'] for r in rs):>6}/{len(rs):<2}"
              f"{statistics.median(g):>11.1f}{max(g):>5}{statistics.median(p):>7.1f}"
              f"{max(p):>7.1f}{filled:>7.0%}{statistics.median(r['structure'] for r in rs):>11.3f}"
              f"{statistics.median(r['ink'] for r in rs):>8.0f}"
              f"{statistics.median(r['pieces'] for r in rs):>11.0f}"
              f"{statistics.median(r['cpu'] for r in rs):>8.2f}{max(r['cpu'] for r in rs):>8.2f}")
    picks = {k: sum(r["auto+givens"]["style"] == k for r in rows)
             for k in ("silhouette", "outline", "tones")}
    shaped = sum(r["auto+givens"]["by"] == "subject_shape" for r in rows)
    other = [r["photo"] for r in rows if r["auto+givens"]["by"] == "scores"
             and r["auto+givens"]["style"] != r["best_scored"]]
    changed = sum(r["auto+givens"]["style"] != r["today"]["style"] for r in rows)
    print("auto+givens chose " + ", ".join(f"{k} {v}" for k, v in picks.items())
          + f" ({shaped} the subject's shape); not the best scored of the exact drawings: "
          + (", ".join(other) or "none") + f"; a style other than today's: {changed}")
    for style in ("outline", "tones"):
        pairs = [(r[style], r[f"{style}+edits"]) for r in rows]
        thinner = sum(e["ink"] < d["ink"] for d, e in pairs)
        print(f"{style}: ink drawn (first level, exact) / shipped with edits, median "
              f"{statistics.median(d['ink'] for d, _ in pairs):.0f} / "
              f"{statistics.median(e['ink'] for _, e in pairs):.0f}; pieces "
              f"{statistics.median(d['pieces'] for d, _ in pairs):.0f} / "
              f"{statistics.median(e['pieces'] for _, e in pairs):.0f}; shipped thinner for "
              f"{thinner} of {len(pairs)}; edits accepted {sum(e['accepted'] for _, e in pairs)}")


def marked(g: Generated) -> Any:
    """The puzzle's picture, its givens marked by an orange dot (:data:`DOT_RGB`)."""
    from PIL import ImageDraw

    from nonoforge.images.render import solution_png

    assert g.puzzle.goal is not None
    im = solution_png(g.puzzle.goal, g.puzzle.palette, PX)
    d = ImageDraw.Draw(im)
    off = (PX - DOT) // 2
    for i, j, _ in g.givens:
        x, y = j * PX + off, i * PX + off
        d.rectangle((x, y, x + DOT - 1, y + DOT - 1), fill=DOT_RGB)
    return im


def montage(path: str, rows: list[tuple[str, np.ndarray, dict[str, Generated]]]) -> None:
    """source | today's auto | silhouette | outline | tones | auto+givens, one row a photo."""
    from PIL import Image, ImageDraw

    tile, gap, head = 32 * PX, 8, 16
    cols = ("source", *(k for k, *_ in RUNS[:SHOWN]))
    out = Image.new("RGB", (len(cols) * (tile + gap), head + (tile + gap) * len(rows)), "white")
    d = ImageDraw.Draw(out)
    for j, c in enumerate(cols):
        d.text((j * (tile + gap) + 4, 2), c + (" (edits)" if c == "today" else ""),
               fill=(0, 0, 0))
    for i, (name, rgba, made) in enumerate(rows):
        y = head + i * (tile + gap)
        ims = [source_tile(name, (rgba[..., :3] * 255).round().astype(np.uint8), tile)]
        ims += [marked(made[k]) for k, *_ in RUNS[:SHOWN]]
        for j, im in enumerate(ims):
            out.paste(im, (j * (tile + gap) + (tile - im.width) // 2, y + (tile - im.height) // 2))
    out.quantize(colors=64).save(path, optimize=True)
    print(f"montage -> {path}")


if __name__ == "__main__":
    main()
