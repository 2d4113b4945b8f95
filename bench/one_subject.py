"""One subject of a scene (issue 35, onesub8): the grid spent on the model's main object.

A probe, not a style of ``generate``. The trained model's mask
(:func:`nonoforge.images.segment.subject_mask`) can hold several objects of a scene (a man,
his dog and a horse); spread over 30 cells each is a blob. Here the mask is split into its
**pieces** at the model's own scale (connected components, 8-neighbours, after a closing of
:data:`CLOSING` pixels; specks under :data:`SPECK` of the mask dropped), and the **main
object** is the largest piece, the pieces within :data:`TOUCH` pixels of it and those of at
least :data:`PIECE_SHARE` of its area. Only where the mask has several pieces and the
largest holds less than :data:`DOMINANT` of it is anything changed; then the photo is cut
to the object's box with :data:`MARGIN` a side and drawn as ``generate`` draws today:

* **one-object silhouette**: the crop with the object's pieces as its transparency, drawn
  by the silhouette path (the shape path of ``generate``: the subject cut out of its
  ground, but of one object);
* **one-object auto**: that silhouette when the object's own mask has a shape
  (:class:`~nonoforge.images.segment.SubjectShape`'s rule on the object alone), else
  ``--style auto`` on the crop with the model turned off (it has spoken: auto's styles).

``--split R`` (a second question: the pieces of these photos touch) erodes the mask by
``R`` model pixels first, so objects joined by a thin bridge come apart; the object's
pieces are then grown back within the mask (each mask pixel goes to its nearest core), and
only their share counts (they all touch). ``--share`` sets :data:`PIECE_SHARE` (0.7: two
men of a size are no longer one object).

Per photo it prints the pieces (share of the mask, largest first), the chosen object's
share of the mask, whether the rule changed anything, and for today's auto, the one-object
silhouette and the one-object auto: size, accepted, edits, style, CPU. ``--montage`` writes
source | mask pieces (black: the object, grey: the other pieces, the box in red) | today's
auto | one-object silhouette | one-object auto, 6 pixels a cell, at 30x30; the source tile
of a photo not committed here is a grey tile naming it (``bench/generate.py``'s
``source_tile``). What the tiles showed: docs/notes/images-styles-photos.md ("One subject
of a scene, measured").

    .venv/bin/python bench/one_subject.py --montage docs/images-one-subject.png
    .venv/bin/python bench/one_subject.py --only darknet-person,yolov5-zidane --split 6
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage as ndi
from skimage.morphology import disk

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import PHOTO_DIR, source_tile, style_photos  # noqa: E402  (the bench's photo set)
from styles_mask import mask_box  # noqa: E402

from nonoforge.images import segment  # noqa: E402
from nonoforge.images.generate import Generated, GenerateOptions, generate  # noqa: E402
from nonoforge.images.load import as_rgba  # noqa: E402
from nonoforge.images.quantise import QuantiseOptions  # noqa: E402
from nonoforge.images.render import solution_png  # noqa: E402
from nonoforge.images.styles import Style  # noqa: E402
from nonoforge.solver import warmup  # noqa: E402

#: Closing of the mask before its pieces are found, model pixels (of its 320 side): a
#: one-pixel crack in a figure is not two objects.
CLOSING = 1
#: A piece within this many model pixels of the largest belongs to it (a rider, a leash).
TOUCH = 2
#: A piece of at least this share of the largest is part of the object (two men alike).
PIECE_SHARE = 0.5
#: The largest piece holding this share of the mask or more is the object already.
DOMINANT = 0.8
#: Pieces under this share of the mask are specks, not pieces.
SPECK = 0.01
#: The crop's margin a side, share of the object box's long side.
MARGIN = 0.06
#: The pieces tile's cells a side.
PIECES_SIDE = 60


@dataclass
class Pieces:
    """The mask's pieces at the model's scale and the object chosen of them."""

    labels: np.ndarray  # int, 0 ground, 1.. pieces (specks dropped), model scale
    shares: list[float]  # each piece's share of the mask, largest first (label i+1)
    chosen: np.ndarray  # bool, model scale: the main object's pixels
    fires: bool  # several pieces, the largest not dominant: the crop changes

    @property
    def chosen_share(self) -> float:
        """The object's share of the mask."""
        return float(sum(s for i, s in enumerate(self.shares)
                         if (self.labels == i + 1)[self.chosen].any()))


def pieces(small: np.ndarray, split: int = 0, piece_share: float = PIECE_SHARE) -> Pieces:
    """The pieces of the model-scale mask ``small`` and its main object (module doc)."""
    closed = ndi.binary_closing(small, disk(CLOSING), border_value=0) | small
    cores = ndi.binary_erosion(closed, disk(split)) if split else closed
    lab, n = ndi.label(cores, structure=np.ones((3, 3)))
    if split and n:  # grow each core back within the mask: each pixel to its nearest core
        _, (iy, ix) = ndi.distance_transform_edt(lab == 0, return_indices=True)
        lab = np.where(closed, lab[iy, ix], 0)
    areas = np.bincount(lab.ravel(), minlength=n + 1)[1:].astype(float)
    total = max(float(areas.sum()), 1.0)
    order = [i for i in np.argsort(-areas, kind="stable") if areas[i] >= SPECK * total]
    relabel = np.zeros(n + 1, dtype=np.int64)
    for new, old in enumerate(order):
        relabel[old + 1] = new + 1
    lab = relabel[lab]
    shares = [float(areas[i]) / total for i in order]
    if not shares:
        return Pieces(lab, shares, np.zeros_like(small), False)
    largest = lab == 1
    # split pieces all touch (they were one mask): there only their share counts
    near = ndi.binary_dilation(largest, disk(TOUCH + CLOSING)) if not split else largest
    keep = [1] + [i + 1 for i in range(1, len(shares))
                  if shares[i] >= piece_share * shares[0] or (near & (lab == i + 1)).any()]
    fires = len(shares) > 1 and shares[0] < DOMINANT
    return Pieces(lab, shares, np.isin(lab, keep), fires)


def one_object(rgba: np.ndarray, size: int, split: int, piece_share: float) -> tuple[
        Pieces, tuple[int, int, int, int] | None, Generated | None, Generated | None, bool]:
    """The pieces, the crop box (full scale) and the one-object silhouette and auto (None
    when the rule does not fire), and whether the object alone has a shape."""
    prob = segment.subject_mask(rgba)
    assert prob is not None, "the probe needs the subject model"
    k = segment.model_step(prob.shape)
    small = prob[::k, ::k]
    p = pieces(small > segment.THRESHOLD, split, piece_share)
    if not p.fires:
        return p, None, None, None, False
    h, w = rgba.shape[:2]
    grown = ndi.binary_dilation(p.chosen, disk(CLOSING))
    full = np.repeat(np.repeat(grown, k, 0), k, 1)[:h, :w] & (prob > segment.THRESHOLD)
    t, b, l_, r = mask_box(full, MARGIN, rounded=True)
    crop = rgba[t:b, l_:r].copy()
    shaped = segment.shape_of(np.where(p.chosen, small, 0.0)).shaped
    cut = crop.copy()
    cut[..., 3] = np.where(full[t:b, l_:r], crop[..., 3], 0.0)
    opts = QuantiseOptions(size=(size, size))
    sil = generate(cut, GenerateOptions(opts, style=Style.SILHOUETTE))
    if shaped:
        auto = sil
    else:
        before = os.environ.get(segment.MODEL_ENV)
        os.environ[segment.MODEL_ENV] = ""  # the model has spoken: auto's styles on the crop
        try:
            auto = generate(crop, GenerateOptions(opts, style=Style.AUTO))
        finally:
            if before is None:
                del os.environ[segment.MODEL_ENV]
            else:
                os.environ[segment.MODEL_ENV] = before
    return p, (t, b, l_, r), sil, auto, shaped


def _fig(g: Generated) -> str:
    s = g.summary()
    how = s["style"] + ("/shape" if s["style_by"] == "subject_shape" else "")
    return (f"{g.puzzle.width:>2}x{g.puzzle.height:<2} {'yes' if g.accepted else 'NO':>3}"
            f" {s['edits']:>3} {how:<16}")


def pieces_tile(p: Pieces, box_small: tuple[int, int, int, int] | None, tile: int) -> Image.Image:
    """The pieces, black the object, grey the others, the box in red: sampled to
    :data:`PIECES_SIDE` cells a side (a silhouette finer than that would be a copy of a
    photo that is not committed)."""
    step = -(-max(p.labels.shape) // PIECES_SIDE)
    full = np.where(p.chosen, 0, np.where(p.labels > 0, 170, 255)).astype(np.uint8)
    img: np.ndarray = full[step // 2::step, step // 2::step]
    out = Image.fromarray(img).convert("RGB")
    cell = tile // PIECES_SIDE
    gh, gw = img.shape[:2]
    out = out.resize((gw * cell, gh * cell), Image.Resampling.NEAREST)
    if box_small is not None:
        f = out.width / p.labels.shape[1]
        t, b, l_, r = box_small
        ImageDraw.Draw(out).rectangle((l_ * f, t * f, r * f - 1, b * f - 1), outline=(220, 0, 0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="these photos only (comma-separated)")
    ap.add_argument("--size", type=int, default=30)
    ap.add_argument("--split", type=int, default=0, help="erode the mask by R model pixels first")
    ap.add_argument("--share", type=float, default=PIECE_SHARE,
                    help="a piece of this share of the largest or more is part of the object")
    ap.add_argument("--montage", metavar="PNG")
    args = ap.parse_args()
    warmup()
    imgs = style_photos(PHOTO_DIR)
    if args.only:
        imgs = [i for i in imgs if i[0] in args.only.split(",")]
    size, px, tile = args.size, 6, 6 * args.size
    print(f"{len(imgs)} photos at {size}x{size}; closing {CLOSING}, touch {TOUCH}, piece share "
          f"{args.share}, dominant {DOMINANT}, margin {MARGIN}, split {args.split}")
    print(f"{'photo':<22}{'pieces (share of mask)':<30}{'obj':>5} {'fires':<6}"
          f"{'today auto':<28}{'one-object silhouette':<28}{'one-object auto':<28}cpu s")
    rows = []
    for name, img in imgs:
        rgba = as_rgba(img)
        c0 = time.process_time()
        today = generate(img, GenerateOptions(QuantiseOptions(size=(size, size)),
                                              style=Style.AUTO))
        c1 = time.process_time()
        p, box, sil, auto, shaped = one_object(rgba, size, args.split, args.share)
        c2 = time.process_time()
        share = " ".join(f"{s:.2f}" for s in p.shares[:5]) + (" ..." if len(p.shares) > 5 else "")
        line = (f"{name:<22}{f'{len(p.shares)}: {share}':<30}{p.chosen_share:>5.2f} "
                f"{'yes' if p.fires else '-':<6}{_fig(today):<28}")
        if sil is not None and auto is not None:
            line += f"{_fig(sil):<28}{_fig(auto) + (' (obj shaped)' if shaped else ''):<28}"
        else:
            line += f"{'(today: unchanged)':<28}{'(today: unchanged)':<28}"
        print(line + f"{c1 - c0:.2f}/{c2 - c1:.2f}", flush=True)
        k = segment.model_step(rgba.shape)
        box_small = None if box is None else (box[0] // k, box[1] // k, box[2] // k, box[3] // k)
        rows.append((name, rgba, p, box_small, today, sil, auto))
    if args.montage:
        montage(args.montage, rows, px, tile)


def montage(path: str, rows: list, px: int, tile: int) -> None:
    """source | pieces | today auto | one-object silhouette | one-object auto."""
    out = Image.new("RGB", (5 * (tile + 8), (tile + 8) * len(rows)), "white")
    draw = ImageDraw.Draw(out)
    for i, (name, rgba, p, box_small, today, sil, auto) in enumerate(rows):
        y = i * (tile + 8)
        tiles = [source_tile(name, (rgba[..., :3] * 255).round().astype(np.uint8), tile),
                 pieces_tile(p, box_small, tile)]
        for g in (today, sil, auto):
            if g is None:
                continue
            assert g.puzzle.goal is not None
            tiles.append(solution_png(g.puzzle.goal, g.puzzle.palette, px))
        for j, t in enumerate(tiles):
            out.paste(t, (j * (tile + 8), y))
        if sil is None:
            draw.text((3 * (tile + 8) + 6, y + 6), "one piece or a dominant one:\n"
                      "today's crop, unchanged", fill=(64, 64, 64))
    out.quantize(colors=64).save(path, optimize=True)
    print(f"montage -> {path}")


if __name__ == "__main__":
    main()
