"""The subject model's mask as the saliency of the outline (styles6, issue 35): a probe.

Draws, for the bench photos named, four pictures from the trained model's mask
(:func:`nonoforge.images.segment.find_shape`) at ``--size``, each repaired as ``generate``
repairs a style (line logic, edit budget 6 %), and prints accepted, edits, the structure
score after repair and CPU; ``--montage`` writes the tiles (source | mask | A | B | C | D):

* **A, mask outline**: the grid cropped to the mask's box (4 % margin), the mask's contour
  one cell wide, and inside it the strongest 35 % of the boundaries between the crop's
  regions (the outline style's regions: 3 colours, smoothed hard), the ground left empty;
* **B, mask and dark details**: the contour, and inside it the cells darker than their
  surroundings (lightness 6 or more under a Gaussian mean of 1.5 cells, and in the
  darkest 15 % of such differences: eyes, a mouth, windows);
* **C, shape with inner lines**: the mask filled, the inner boundaries of A cut out of it
  as paper lines one cell wide;
* **D, contour and dark masses**: the contour, and inside it the darkest region colour
  filled (the next darkest too while its L* is under 40 and the filled stay under half the
  subject): the tones style within the mask, so a light face is paper inside a line.

Not a style of ``generate``: docs/notes/images-styles-photos.md (styles6) says what the
tiles showed and why none of them became one.

    .venv/bin/python bench/styles_mask.py --only astronaut,chelsea,yolov5-bus \
        --montage /tmp/mask.png
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import PHOTO_DIR, source_tile, style_photos  # noqa: E402  (the bench's photo set)

from nonoforge.images import segment  # noqa: E402
from nonoforge.images.generate import (  # noqa: E402
    GenerateOptions,
    Repair,
    _regions_in,
    _repair,
    _trim_edges,
    picture_structure,
)
from nonoforge.images.light import area_weights  # noqa: E402
from nonoforge.images.load import as_rgba  # noqa: E402
from nonoforge.images.quantise import BW_LAB, Quantised, QuantiseOptions, equalised_lab  # noqa: E402
from nonoforge.images.styles import _clean  # noqa: E402
from nonoforge.images.subject import find_subject  # noqa: E402
from nonoforge.puzzle import Grid, Palette  # noqa: E402
from nonoforge.solver import warmup  # noqa: E402

#: Share of the inner boundaries drawn (as the outline style's first level).
SHARE = 0.35
#: Margin of the mask's box, share of its long side.
MARGIN = 0.04


def mask_box(mask: np.ndarray, margin: float, rounded: bool = False) -> tuple[int, int, int, int]:
    """The box (top, bottom, left, right) of ``mask``'s pixels, grown by ``margin`` of its
    long side a side (the margin truncated, or rounded with ``rounded``: the one-subject
    probe's figures were made so) and clipped to the mask."""
    ys, xs = np.nonzero(mask)
    t, b, l_, r = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    side = margin * max(b - t, r - l_)
    m = int(round(side)) if rounded else int(side)
    h, w = mask.shape
    return max(0, t - m), min(h, b + m), max(0, l_ - m), min(w, r + m)


def contour(mask: np.ndarray) -> np.ndarray:
    """The cells of ``mask`` with a 4-neighbour outside it (the grid's edge is outside)."""
    pad = np.pad(mask, 1)
    return mask & ~(pad[:-2, 1:-1] & pad[2:, 1:-1] & pad[1:-1, :-2] & pad[1:-1, 2:])


def inner_lines(lab: np.ndarray, palette_lab: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The strongest SHARE of the boundaries between regions ``lab`` within ``inside``,
    on each boundary's darker cell."""
    h, w = lab.shape
    st, iy, ix = [], [], []
    for dy, dx in ((0, 1), (1, 0)):
        a, b = lab[: h - dy, : w - dx], lab[dy:, dx:]
        ok = (a != b) & inside[: h - dy, : w - dx] & inside[dy:, dx:]
        ay, ax = np.nonzero(ok)
        by, bx = ay + dy, ax + dx
        la, lb = lab[ay, ax], lab[by, bx]
        pick_b = palette_lab[lb, 0] < palette_lab[la, 0]
        st.append(np.sqrt(((palette_lab[la] - palette_lab[lb]) ** 2).sum(-1)))
        iy.append(np.where(pick_b, by, ay))
        ix.append(np.where(pick_b, bx, ax))
    s, y, x = np.concatenate(st), np.concatenate(iy), np.concatenate(ix)
    out = np.zeros(lab.shape, dtype=bool)
    if len(s):
        keep = s >= np.quantile(s, 1.0 - SHARE)
        out[y[keep], x[keep]] = True
    return out


def _dark(lab: np.ndarray, palette_lab: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The cells of the darkest region colour painted inside the subject, and the next
    darkest while the filled stay under half of the subject (the tones style's rule)."""
    painted = sorted({int(c) for c in lab[inside]}, key=lambda c: float(palette_lab[c, 0]))
    filled = np.zeros(lab.shape, dtype=bool)
    for i, c in enumerate(painted):
        more = filled | (lab == c)
        if i and (float(palette_lab[c, 0]) >= 40.0 or (more & inside).sum() > 0.5 * inside.sum()):
            break
        filled = more
    return filled


def pictures(rgba: np.ndarray, opts: GenerateOptions) -> tuple[dict[str, np.ndarray], Quantised]:
    """The mask at the grid and the four pictures (module doc), with the crop's regions."""
    from scipy.ndimage import binary_erosion, gaussian_filter

    found = segment.find_shape(rgba)
    assert found is not None
    mask = found[1]
    box = mask_box(mask, MARGIN)
    q, _ = _regions_in(rgba, box, opts, False)
    lab = q.grid.cells
    gh, gw = lab.shape
    ry, rx = area_weights(box[1] - box[0], gh), area_weights(box[3] - box[2], gw)
    subj = ry @ mask[box[0]:box[1], box[2]:box[3]].astype(float) @ rx.T >= 0.5
    rim = contour(subj)
    inside = binary_erosion(subj)
    lines = inner_lines(lab, q.palette_lab, inside)
    light = ry @ equalised_lab(rgba[box[0]:box[1], box[2]:box[3]])[..., 0] @ rx.T
    darker = gaussian_filter(light, 1.5, mode="nearest") - light
    cut = max(6.0, float(np.quantile(darker[inside], 0.85))) if inside.any() else 6.0
    return {
        "mask": subj,
        "A": _clean(rim | lines, 3),
        "B": _clean(rim | (inside & (darker >= cut)), 3),
        "C": subj & ~lines,
        "D": _clean(rim | (inside & _dark(lab, q.palette_lab, inside)), 3),
    }, q


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", required=True, help="photos (comma-separated)")
    ap.add_argument("--size", type=int, default=30)
    ap.add_argument("--montage", metavar="PNG")
    args = ap.parse_args()
    warmup()
    imgs = dict(style_photos(PHOTO_DIR))
    opts = GenerateOptions(QuantiseOptions(size=(args.size, args.size)))
    rows = []
    print(f"{'photo':<22}" + "".join(f"{k:>26}" for k in "ABCD")
          + "   (size acc edits structure cpu)")
    for name in args.only.split(","):
        rgba = as_rgba(imgs[name])
        c0 = time.process_time()
        drawn, q = pictures(rgba, opts)
        ground = find_subject(rgba).ground
        base = time.process_time() - c0
        cells = {"mask": drawn["mask"].astype(np.int64)}
        line = f"{name:<22}"
        for k in "ABCD":
            c1 = time.process_time()
            p = replace(q, grid=Grid(drawn[k].astype(np.int64)), palette=Palette.bw(),
                        palette_lab=BW_LAB, wanted_colors=1, colors_note=None)
            p, _ = _trim_edges(p, Repair(p.grid, True, "", None, 0, 0, 0, False))
            rep = _repair(p, opts, None, None)
            p, rep = _trim_edges(p, rep)
            s = picture_structure(p, rep.grid.cells, ground)
            cpu = base + time.process_time() - c1
            cells[k] = rep.grid.cells
            h, w = rep.grid.cells.shape
            line += (f"{f'{w}x{h}':>8}{'yes' if rep.accepted else 'NO':>4}{rep.edits:>4}"
                     f"{s:>6.3f}{cpu:>5.1f}")
        print(line, flush=True)
        rows.append((name, rgba, cells))
    if args.montage:
        montage(args.montage, rows)


def montage(path: str, rows: list[tuple[str, np.ndarray, dict[str, np.ndarray]]]) -> None:
    """source | mask | A | B | C | D, 6 pixels a cell."""
    from PIL import Image

    from nonoforge.images.render import solution_png

    tile, px = 190, 6
    out = Image.new("RGB", (6 * (tile + 8), (tile + 8) * len(rows)), "white")
    for i, (name, rgba, cells) in enumerate(rows):
        src = source_tile(name, (rgba[..., :3] * 255).round().astype(np.uint8), tile)
        tiles = [src] + [solution_png(Grid(cells[k]), Palette.bw(), px)
                         for k in ("mask", "A", "B", "C", "D")]
        for j, t in enumerate(tiles):
            out.paste(t, (j * (tile + 8), i * (tile + 8)))
    out.quantize(colors=64).save(path, optimize=True)
    print(f"montage -> {path}")


if __name__ == "__main__":
    main()
