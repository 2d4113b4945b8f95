"""A learned edge detector as the outline's source (issue 35, edges9): a probe.

The outline style draws the boundaries between colour regions of a quantised photo, so its
lines follow texture and lighting (fur stripes, shadows). Here the lines come instead from
**PiDiNet** (Su et al., "Pixel Difference Networks for Efficient Edge Detection", ICCV
2021), an edge detector trained on BSDS500's human-drawn contours, run in numpy on the
photo shrunk to at most :data:`SIDE` pixels a side. The weights are NOT part of nonoforge:
give ``--weights PATH`` (``trained_models/table5_pidinet.pth`` or
``table5_pidinet-tiny.pth`` of the hellozhuo/pidinet repository, config ``carv4`` with
``--sa --dil``). Their licence is MIT preceded by "It is just for research purpose, and
commercial use should be contacted with authors first": use them locally, commit nothing
made from them (the montage's edge-map tiles are grey for every photo whose source is not
committed here).

Each photo is drawn at ``--size`` with ``generate``'s crop (the subject model's mask box
where the mask holds 5-80 % of the frame, as the shape path crops; else
:func:`~nonoforge.images.subject.find_subject`'s box, the styles' crop), and pictures are
made from the edge map pooled to that grid (per cell the mean of its strongest
:data:`POOL_TOP` pixels: a line through a cell counts, not its length; outside the subject
model's mask, grown by a cell, edges count :data:`GROUND_WEIGHT`), each repaired as a style
is (``generate``'s own repair and trim: line logic, 6 % budget, fewest edits; retried with
fewer lines while refused, as the styles retry; the first accepted kept):

* **A, learned outline**: the strongest :data:`SHARES` of the grid's cells (over
  :data:`FLOOR`), thinned to one cell (skeleton), cleaned as the styles clean (one-cell
  gaps bridged, crumbs dropped); repaired faithful to the edge map (a cell is cheap to ink
  where an edge runs, not where the photo is dark);
* **B, silhouette with learned inner lines**: the mask filled at the grid, the strongest
  :data:`CUT_SHARES` of its inner cells' edges, thinned, cut out as paper (styles6's "C"
  with learned edges); repaired faithful to the photo, as the silhouette is;
* **C, the mask's contour and learned lines** (chosen after A and B: A's lines break up
  in the repair and wander into the ground, B's cuts read as holes): the mask's contour one
  cell wide, a closed line the repair keeps, and inside it A's lines; repaired faithful to
  the edge map;
* **D** (``--variants``, probed, not in the montage): the tones style with learned lines,
  the darkest region masses filled as the tones style fills them, A's lines elsewhere;
  repaired faithful to the darker of the photo and the edge map.

B and C need the mask (without one: not drawn). Prints per photo: the edge map's CPU,
today's auto (style, size, edits, structure, CPU) and each picture's size, accepted,
edits, structure after repair, the level of detail kept and CPU. ``--montage`` writes
source | today's auto | the edge map at the grid | the variants (6 pixels a cell); the
source and edge-map tiles of a photo not committed here are grey tiles naming it. What
the tiles showed: docs/notes/images-styles-photos.md ("A learned edge detector as the
outline's source, measured"). Set ``OMP_NUM_THREADS=1`` for CPU figures of one core.

    .venv/bin/python bench/learned_edges.py --weights /tmp/table5_pidinet.pth \\
        --only camera,astronaut --edges /tmp/edges.png
    nice .venv/bin/python bench/learned_edges.py --weights /tmp/table5_pidinet.pth \\
        --montage /tmp/learned.png
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import PHOTO_DIR, UNCOMMITTED, source_tile, style_photos  # noqa: E402
from styles_mask import MARGIN, contour, mask_box  # noqa: E402

#: The edge map is computed on the photo shrunk to at most this many pixels a side.
SIDE = 512
#: carv4: the pixel-difference kind of each of the 16 convolutions, in order.
CARV4 = ("cd", "ad", "rd", "cv") * 4
#: The blocks of the network's four stages (stage, blocks in it), after the first block.
STAGES = ((1, 3), (2, 4), (3, 4), (4, 4))
#: The blocks' weight names, in order: the first block, then each stage's.
BLOCKS = tuple(f"block{s}_{b}" for s, n in STAGES for b in range(1, n + 1))


# --- reading a PyTorch checkpoint without torch -------------------------------------------

class _Tensor:
    """A tensor as the pickle describes it: its storage key, offset, size and stride."""

    def __init__(self, storage: tuple, offset: int, size: tuple, stride: tuple, *_: Any) -> None:
        self.key, self.offset, self.size, self.stride = storage[2], offset, size, stride


class _Unpickler(pickle.Unpickler):
    """Unpickles a ``torch.save`` zip's ``data.pkl``: tensors become :class:`_Tensor`,
    storages their persistent ids; nothing else of torch is allowed in."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _Tensor
        if (module, name) == ("collections", "OrderedDict"):
            from collections import OrderedDict
            return OrderedDict
        if module == "torch" and name == "FloatStorage":
            return name
        raise pickle.UnpicklingError(f"not a plain checkpoint: {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        return pid


def load_weights(path: str) -> dict[str, np.ndarray]:
    """The state dict of a PiDiNet checkpoint (``module.`` prefix dropped) as float32
    arrays: the ``archive/data.pkl`` pickle read with :class:`_Unpickler`, each tensor
    a strided view of its little-endian ``archive/data/<key>`` storage."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        root = names[0].split("/")[0]
        with z.open(f"{root}/data.pkl") as f:
            top = _Unpickler(f).load()
        state = top.get("state_dict", top)
        out = {}
        for name, t in state.items():
            raw = np.frombuffer(z.read(f"{root}/data/{t.key}"), dtype="<f4")
            arr = np.lib.stride_tricks.as_strided(
                raw[t.offset:], shape=t.size, strides=tuple(4 * s for s in t.stride))
            out[name.removeprefix("module.")] = np.array(arr, dtype=np.float32)
    return out


# --- pixel-difference convolutions as plain kernels ---------------------------------------

#: ad: each tap minus its clockwise neighbour's weight (the angular difference).
_AD_FROM = (3, 0, 1, 6, 4, 2, 7, 8, 5)
#: rd: the 3x3 ring's eight weights go to the 5x5 kernel's outer ring (+) and inner ring (-).
_RD_OUTER = (0, 2, 4, 10, 14, 20, 22, 24)
_RD_INNER = (6, 7, 8, 11, 13, 16, 17, 18)


def plain_kernel(kind: str, w: np.ndarray) -> np.ndarray:
    """The ordinary kernel that computes pixel-difference convolution ``kind`` with
    weights ``w`` (out, in, 3, 3):

    * cd (central): sum_i w_i (x_i - x_centre): the centre tap less the weights' sum;
    * ad (angular): sum_i w_i (x_i - x_next clockwise): each tap's weight minus that of
      the tap whose clockwise successor it is;
    * rd (radial): sum_i w_i (x_outer_i - x_inner_i) over a 5x5 window: the eight ring
      weights on the outer ring, their negatives on the inner one (the centre unused).
    """
    o, i = w.shape[:2]
    flat = w.reshape(o, i, 9)
    if kind == "cv":
        return w
    if kind == "cd":
        out = flat.copy()
        out[:, :, 4] -= flat.sum(axis=2)
        return out.reshape(w.shape)
    if kind == "ad":
        return (flat - flat[:, :, list(_AD_FROM)]).reshape(w.shape)
    if kind == "rd":
        big = np.zeros((o, i, 25), dtype=w.dtype)
        big[:, :, list(_RD_OUTER)] = flat[:, :, 1:]
        big[:, :, list(_RD_INNER)] = -flat[:, :, 1:]
        return big.reshape(o, i, 5, 5)
    raise ValueError(kind)


def _conv(x: np.ndarray, w: np.ndarray, dil: int = 1, bias: np.ndarray | None = None
          ) -> np.ndarray:
    """Dense convolution, 'same' size (zero padding), stride 1: ``x`` (C, H, W), ``w``
    (O, C, k, k): one matrix product per tap."""
    o, c, k, _ = w.shape
    h, wd = x.shape[1:]
    p = dil * (k // 2)
    xp = np.pad(x, ((0, 0), (p, p), (p, p)))
    out = np.zeros((o, h * wd), dtype=np.float32)
    for ky in range(k):
        for kx in range(k):
            tap = xp[:, ky * dil: ky * dil + h, kx * dil: kx * dil + wd].reshape(c, -1)
            out += w[:, :, ky, kx] @ tap
    if bias is not None:
        out += bias[:, None]
    return out.reshape(o, h, wd)


def _depthwise(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Depthwise convolution, 'same' size: ``w`` (C, 1, k, k), one kernel a channel."""
    k = w.shape[-1]
    h, wd = x.shape[1:]
    p = k // 2
    xp = np.pad(x, ((0, 0), (p, p), (p, p)))
    out = np.zeros_like(x)
    for ky in range(k):
        for kx in range(k):
            out += w[:, 0, ky, kx][:, None, None] * xp[:, ky: ky + h, kx: kx + wd]
    return out


def _pointwise(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    c, h, wd = x.shape
    out = w[:, :, 0, 0] @ x.reshape(c, -1)
    if bias is not None:
        out += bias[:, None]
    return out.reshape(-1, h, wd)


def _maxpool2(x: np.ndarray) -> np.ndarray:
    c, h, w = x.shape
    h2, w2 = h // 2, w // 2
    return x[:, : 2 * h2, : 2 * w2].reshape(c, h2, 2, w2, 2).max(axis=(2, 4))


def _bilinear(n_in: int, n_out: int) -> np.ndarray:
    """(n_out, n_in) bilinear weights, half-pixel centres, edges clamped (PyTorch's
    ``align_corners=False``)."""
    pos = np.clip((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0, None)
    lo = np.minimum(np.floor(pos).astype(int), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    f = pos - lo
    m = np.zeros((n_out, n_in), dtype=np.float32)
    m[np.arange(n_out), lo] += 1.0 - f
    m[np.arange(n_out), hi] += f
    return m


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


@dataclass
class PiDiNet:
    """PiDiNet (carv4, with CSAM and CDCM: ``--sa --dil``) in numpy, its pixel-difference
    convolutions turned into plain kernels (:func:`plain_kernel`) once, at load."""

    w: dict[str, np.ndarray]

    @classmethod
    def load(cls, path: str) -> PiDiNet:
        w = load_weights(path)
        for kind, name in zip(CARV4, ("init_block", *BLOCKS), strict=True):
            key = f"{name}.weight" if name == "init_block" else f"{name}.conv1.weight"
            w[key] = plain_kernel(kind, w[key])
        return cls(w)

    def _block(self, x: np.ndarray, name: str) -> np.ndarray:
        w = self.w
        if f"{name}.shortcut.weight" in w:  # the first block of a stage halves the size
            x = _maxpool2(x)
        y = _pointwise(_relu(_depthwise(x, w[f"{name}.conv1.weight"])), w[f"{name}.conv2.weight"])
        if f"{name}.shortcut.weight" in w:
            x = _pointwise(x, w[f"{name}.shortcut.weight"], w[f"{name}.shortcut.bias"])
        return y + x

    def _side(self, x: np.ndarray, i: int) -> np.ndarray:
        """Stage ``i``'s edge logits: CDCM (four dilated convolutions), CSAM (a spatial
        attention), then a 1x1 reduction to one channel."""
        w = self.w
        d = f"dilations.{i}"
        y = _pointwise(_relu(x), w[f"{d}.conv1.weight"], w[f"{d}.conv1.bias"])
        y = np.sum([_conv(y, w[f"{d}.conv2_{j}.weight"], dil) for j, dil in
                    zip((1, 2, 3, 4), (5, 7, 9, 11), strict=True)], axis=0)
        a = f"attentions.{i}"
        att = _pointwise(_relu(y), w[f"{a}.conv1.weight"], w[f"{a}.conv1.bias"])
        att = _sigmoid(_conv(att, w[f"{a}.conv2.weight"]))
        y = y * att
        r = f"conv_reduces.{i}.conv"
        return _pointwise(y, w[f"{r}.weight"], w[f"{r}.bias"])[0]

    def __call__(self, rgb: np.ndarray) -> np.ndarray:
        """The fused edge probability (H, W) of ``rgb`` (H, W, 3), sRGB 0..1, normalised
        as ImageNet's photos (the subject model's own constants)."""
        from nonoforge.images.segment import MEAN, STD

        h, wd = rgb.shape[:2]
        x = ((rgb.astype(np.float32) - MEAN) / STD).transpose(2, 0, 1).copy()
        x = _conv(x, self.w["init_block.weight"])
        stages = []
        for s, n in STAGES:
            for b in range(1, n + 1):
                x = self._block(x, f"block{s}_{b}")
            stages.append(x)
        sides = []
        for i, xi in enumerate(stages):
            e = self._side(xi, i)
            sides.append(_bilinear(e.shape[0], h) @ e @ _bilinear(e.shape[1], wd).T)
        cw, cb = self.w["classifier.weight"][0, :, 0, 0], self.w["classifier.bias"][0]
        fused = sum(c * e for c, e in zip(cw, sides, strict=True)) + cb
        return _sigmoid(np.asarray(fused, dtype=np.float32))


def edge_map(net: PiDiNet, rgba: np.ndarray) -> np.ndarray:
    """The edge probability of ``rgba`` (float sRGB+alpha) at a scale of at most
    :data:`SIDE` pixels a side (area averages of the quantiser's own weights)."""
    from nonoforge.images.light import area_weights

    h, w = rgba.shape[:2]
    f = min(1.0, SIDE / max(h, w))
    sh, sw = max(1, round(h * f)), max(1, round(w * f))
    rgb = np.clip(rgba[..., :3], 0.0, 1.0)
    if (sh, sw) != (h, w):
        ry, rx = area_weights(h, sh), area_weights(w, sw)
        rgb = np.stack([ry @ rgb[..., c] @ rx.T for c in range(3)], axis=-1)
    return net(rgb)


# --- drawing from the edge map at the grid --------------------------------------------------

#: A cell's edge strength: the mean of its strongest share of pixels (a line through the
#: cell counts as much as a cell full of texture).
POOL_TOP = 0.2
#: Edges outside the subject model's mask (grown by a cell) count this much: the ground
#: goes quiet.
GROUND_WEIGHT = 0.4
#: No cell weaker than this (edge probability) is inked, whatever the share.
FLOOR = 0.25
#: A and C: share of the grid's cells kept, strongest first, at each level of detail (a
#: refused repair retries at the next, as the styles do).
SHARES = (0.3, 0.22, 0.15, 0.1)
#: B: share of the mask's inner cells cut out as paper, at each level.
CUT_SHARES = (0.25, 0.15, 0.08, 0.0)
#: Ink pieces under this many cells are dropped (as the styles' first level).
CRUMB = 3


@dataclass
class Frame:
    """A photo's crop at the grid: the regions picture ``q`` (the repair's template: its
    source is what the structure measure compares with), the pooled edge strength, the
    subject model's mask at the grid (None without one) and the background's colours."""

    q: Any
    edges: np.ndarray
    mask: np.ndarray | None
    ground: np.ndarray | None


def _pool(e: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """``e`` pooled into the cells whose pixel bounds are ``ys``, ``xs`` (edges, len n+1):
    per cell the mean of its POOL_TOP strongest pixels."""
    out = np.zeros((len(ys) - 1, len(xs) - 1))
    for i in range(len(ys) - 1):
        for j in range(len(xs) - 1):
            block = e[ys[i]:max(ys[i + 1], ys[i] + 1), xs[j]:max(xs[j + 1], xs[j] + 1)].ravel()
            k = max(1, int(round(POOL_TOP * block.size)))
            out[i, j] = float(np.partition(block, block.size - k)[block.size - k:].mean())
    return out


def frame(rgba: np.ndarray, e: np.ndarray, opts: Any) -> Frame:
    """The crop ``generate`` spends the grid on (the subject model's mask box, MARGIN a
    side, where the mask holds LEAST_SHARE..MOST_SHARE of the frame, as the shape path
    crops; else :func:`~nonoforge.images.subject.find_subject`'s box, the styles' crop),
    its regions at the grid (``generate``'s own), the edge map ``e`` pooled to it."""
    from nonoforge.images import segment
    from nonoforge.images.generate import _regions_in
    from nonoforge.images.light import area_weights
    from nonoforge.images.subject import find_subject

    h, w = rgba.shape[:2]
    subject = find_subject(rgba)
    found = segment.find_shape(rgba)
    full = None
    box = subject.box
    if found is not None and segment.LEAST_SHARE <= found[0].share <= segment.MOST_SHARE:
        full = found[1]
        box = mask_box(full, MARGIN)
    q, _ = _regions_in(rgba, box, opts, False)
    gh, gw = q.grid.cells.shape
    t, b, l_, r = box
    fy, fx = e.shape[0] / h, e.shape[1] / w
    ys = np.round(np.linspace(t * fy, b * fy, gh + 1)).astype(int)
    xs = np.round(np.linspace(l_ * fx, r * fx, gw + 1)).astype(int)
    edges = _pool(e, ys, xs)
    mask = None
    if full is not None:
        ry, rx = area_weights(b - t, gh), area_weights(r - l_, gw)
        mask = ry @ full[t:b, l_:r].astype(float) @ rx.T >= 0.5
    return Frame(q, edges, mask, subject.ground)


def _strongest(values: np.ndarray, where: np.ndarray, share: float) -> np.ndarray:
    """The cells of ``where`` among its ``share`` largest ``values`` and over FLOOR."""
    out = np.zeros(values.shape, dtype=bool)
    if share <= 0 or not where.any():
        return out
    cut = max(FLOOR, float(np.quantile(values[where], 1.0 - share)))
    return where & (values >= cut)


def _thin(cells: np.ndarray) -> np.ndarray:
    from skimage.morphology import skeletonize

    return np.asarray(skeletonize(cells), dtype=bool)


def dark_masses(f: Frame) -> np.ndarray:
    """The tones style's filled masses of the crop's regions: the darkest region colour,
    and the next while its L* is under TONES_DARK and the filled stay under TONES_FILL;
    pieces of low saliency (the ground's) left out, and with a mask, what lies off it."""
    from scipy.ndimage import binary_dilation

    from nonoforge.images.styles import dark_masses as tones_masses
    from nonoforge.images.subject import saliency

    filled = tones_masses(f.q.grid.cells, f.q.palette_lab, saliency(f.q.source_lab, f.ground))
    if f.mask is not None:
        filled &= binary_dilation(f.mask)
    return filled


def drawings(f: Frame, variant: str, level: int) -> np.ndarray | None:
    """Variant ``variant`` (module doc: A, B, C or D) at level of detail ``level``, as ink
    (bool); None when it cannot be drawn (B and C need the mask)."""
    from scipy.ndimage import binary_dilation, binary_erosion

    from nonoforge.images.styles import _clean

    e = f.edges
    if f.mask is not None:
        near = binary_dilation(f.mask)
        e = np.where(near, e, GROUND_WEIGHT * e)
    if variant == "B":
        if f.mask is None:
            return None
        inside = binary_erosion(f.mask)
        cut = _thin(_strongest(e, inside, CUT_SHARES[level])) & inside
        return f.mask & ~cut
    # A, C and D draw the same lines: the strongest cells anywhere, thinned
    lines = _thin(_strongest(e, np.ones(e.shape, dtype=bool), SHARES[level]))
    if variant == "A":
        return _clean(lines, CRUMB)
    if variant == "D":
        return _clean(dark_masses(f) | lines, CRUMB)
    if f.mask is None:
        return None
    return _clean(contour(f.mask) | (lines & binary_erosion(f.mask)), CRUMB)


@dataclass
class Drawn:
    """A variant repaired: its cells (None: not drawable), accepted, edits, structure
    after repair, the level of detail kept and the CPU seconds it took."""

    cells: np.ndarray | None
    accepted: bool = False
    edits: int = 0
    structure: float = float("nan")
    level: int = 0
    cpu: float = 0.0

    def row(self) -> str:
        if self.cells is None:
            return f"{'-':>27}"
        h, w = self.cells.shape
        return (f"{f'{w}x{h}':>7}{'yes' if self.accepted else 'NO':>4}{self.edits:>4}"
                f"{self.structure:>6.3f}{self.level:>2}{self.cpu:>5.1f}")


def edge_lab(edges: np.ndarray) -> np.ndarray:
    """The pooled edge map as a grey picture in Lab (a strong edge black, none white): the
    source a repair faithful to the edges measures its edits against."""
    lab = np.zeros((*edges.shape, 3))
    lab[..., 0] = 100.0 * (1.0 - np.clip(edges, 0.0, 1.0))
    return lab


def draw(f: Frame, variant: str, opts: Any, fidelity: str = "photo") -> Drawn:
    """``variant`` drawn and repaired as a style is (``generate``'s repair and trim), at
    each level of detail until a repair is accepted; the first accepted, else the first."""
    from nonoforge.images.generate import Repair, _repair, _trim_edges, picture_structure
    from nonoforge.images.quantise import BW_LAB
    from nonoforge.puzzle import Grid, Palette

    c0 = time.process_time()
    tried: list[Drawn] = []
    for level in range(len(SHARES)):
        ink = drawings(f, variant, level)
        if ink is None or not ink.any():
            continue
        p = replace(f.q, grid=Grid(ink.astype(np.int64)), palette=Palette.bw(),
                    palette_lab=BW_LAB, wanted_colors=1, colors_note=None)
        # the repair stays faithful to the photo (as a style's) or to the edge map
        r = p
        if fidelity == "edges":
            r = replace(p, source_lab=edge_lab(f.edges))
        elif fidelity == "mixed":  # ink is faithful where the photo is dark or an edge runs
            lab = edge_lab(f.edges)
            lab[..., 0] = np.minimum(lab[..., 0], p.source_lab[..., 0])
            r = replace(p, source_lab=lab)
        start = Repair(p.grid, True, "", None, 0, 0, 0, False)
        p, _ = _trim_edges(p, start)
        r, _ = _trim_edges(r, start)
        rep = _repair(r, opts, None, None)
        p, rep = _trim_edges(p, rep)
        tried.append(Drawn(rep.grid.cells, rep.accepted, rep.edits,
                           picture_structure(p, rep.grid.cells, f.ground), level))
        if rep.accepted:
            break
    out = next((d for d in tried if d.accepted), tried[0] if tried else Drawn(None))
    out.cpu = time.process_time() - c0
    return out


VARIANTS = ("A", "B", "C")
#: What each variant's repair stays faithful to: a line drawing to the edge map (its
#: lines are where the edges are, not where the photo is dark), the filled silhouette to
#: the photo (as the silhouette style's).
FIDELITY = {"A": "edges", "B": "photo", "C": "edges", "D": "mixed"}


def main() -> None:
    from nonoforge.images.generate import GenerateOptions, generate
    from nonoforge.images.load import as_rgba
    from nonoforge.images.quantise import QuantiseOptions
    from nonoforge.images.styles import Style
    from nonoforge.solver import warmup

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", required=True,
                    help="PiDiNet checkpoint (table5_pidinet.pth; not nonoforge's: module doc)")
    ap.add_argument("--only", help="these photos only (comma-separated)")
    ap.add_argument("--size", type=int, default=30)
    ap.add_argument("--cache", type=Path,
                    help="keep the edge maps here (.npy, local only: derived from the weights)")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="of A, B, C, D")
    ap.add_argument("--montage", metavar="PNG")
    ap.add_argument("--edges", metavar="PNG", help="write the full edge maps (local look only)")
    args = ap.parse_args()
    warmup()
    net = PiDiNet.load(args.weights)
    variants = tuple(args.variants.split(","))
    imgs = style_photos(PHOTO_DIR)
    if args.only:
        imgs = [i for i in imgs if i[0] in args.only.split(",")]
    size = args.size
    opts = GenerateOptions(QuantiseOptions(size=(size, size)))
    print(f"{len(imgs)} photos at {size}x{size}; edge map at <= {SIDE} px; pool top {POOL_TOP}, "
          f"ground {GROUND_WEIGHT}, floor {FLOOR}, shares {SHARES}, cut shares {CUT_SHARES}")
    print(f"{'photo':<22}{'map s':>6}  {'today auto (style size edits struct cpu)':<42}"
          + "".join(f"{v:>27}" for v in variants) + "   (size acc edits struct level cpu)")
    rows, maps = [], []
    for name, img in imgs:
        rgba = as_rgba(img)
        c0 = time.process_time()
        cached = args.cache / f"{name}.npy" if args.cache else None
        if cached is not None and cached.is_file():
            e = np.load(cached)
        else:
            e = edge_map(net, rgba)
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                np.save(cached, e)
        map_cpu = time.process_time() - c0
        maps.append((name, e))
        c1 = time.process_time()
        today = generate(img, replace(opts, style=Style.AUTO))
        today_cpu = time.process_time() - c1
        f = frame(rgba, e, opts)
        drawn = {v: draw(f, v, opts, FIDELITY[v]) for v in variants}
        s = today.summary()
        how = s["style"] + ("/shape" if s["style_by"] == "subject_shape" else "")
        t = (f"{how} {today.puzzle.width}x{today.puzzle.height} {s['edits']} "
             f"{s['structure']:.3f} {today_cpu:.1f}")
        print(f"{name:<22}{map_cpu:>6.1f}  {t:<42}" + "".join(drawn[v].row() for v in variants),
              flush=True)
        rows.append((name, rgba, today, f, drawn))
    if args.montage:
        montage(args.montage, rows, size, variants)
    if args.edges:
        edge_sheet(args.edges, maps)


def montage(path: str, rows: list, size: int, variants: tuple[str, ...]) -> None:
    """source | today's auto | the edge map at the grid | the variants, 6 pixels a cell; the
    source and the edge map of a photo not committed here are grey tiles naming it."""
    from PIL import Image, ImageDraw

    from nonoforge.images.render import solution_png
    from nonoforge.puzzle import Grid, Palette

    px = 6
    tile = px * size
    out = Image.new("RGB", ((3 + len(variants)) * (tile + 8), (tile + 8) * len(rows)), "white")
    draw_ = ImageDraw.Draw(out)
    for i, (name, rgba, today, f, drawn) in enumerate(rows):
        y = i * (tile + 8)
        src = source_tile(name, (rgba[..., :3] * 255).round().astype(np.uint8), tile)
        assert today.puzzle.goal is not None
        tiles: list[Image.Image | None] = [
            src, solution_png(today.puzzle.goal, today.puzzle.palette, px)]
        if name in UNCOMMITTED:  # derived from a photo that is not committed here
            tiles.append(source_tile(name, np.zeros((1, 1, 3), np.uint8), tile))
        else:
            grey = (255 * (1.0 - np.clip(f.edges, 0.0, 1.0))).astype(np.uint8)
            tiles.append(Image.fromarray(grey).resize(
                (grey.shape[1] * px, grey.shape[0] * px), Image.Resampling.NEAREST))
        for v in variants:
            cells = drawn[v].cells
            tiles.append(None if cells is None else solution_png(Grid(cells), Palette.bw(), px))
        for j, t in enumerate(tiles):
            if t is None:
                draw_.text((j * (tile + 8) + 6, y + 6), "no mask:\nnot drawn", fill=(64, 64, 64))
            else:
                out.paste(t, (j * (tile + 8), y))
    out.quantize(colors=64).save(path, optimize=True)
    print(f"montage -> {path}")


def edge_sheet(path: str, maps: list[tuple[str, np.ndarray]]) -> None:
    """The full edge maps, 256 px a side, four a row: to check them by eye (local only)."""
    from PIL import Image

    side = 256
    rows = -(-len(maps) // 4)
    out = Image.new("L", (4 * side, rows * side), 255)
    for i, (_, e) in enumerate(maps):
        img = Image.fromarray((255 * (1.0 - e)).astype(np.uint8))
        img.thumbnail((side, side))
        out.paste(img, ((i % 4) * side, (i // 4) * side))
    out.save(path)
    print(f"edge maps -> {path}")


if __name__ == "__main__":
    main()
