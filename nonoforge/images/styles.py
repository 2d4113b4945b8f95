"""Black-and-white styles: silhouette, outline, tones, and ``auto``, the one that reads best.

A pixel artist does not threshold a photo. They choose the subject, draw its outline and
the few inner lines that carry it, and fill only where a filled mass reads. The styles:

* ``silhouette``: the quantiser's black-and-white path (shape filled, details cut out, or
  its sketch; :func:`~nonoforge.images.quantise.quantise`), unchanged;
* ``outline``: line art drawn **at the grid's scale**. The subject's crop
  (:func:`~nonoforge.images.subject.find_subject`) is quantised in REGION_COLOURS colours
  as the colour path would (so its regions are the shapes a colour puzzle of it shows, the
  specks and crumbs already gone), and the boundaries between regions become lines one
  cell wide: each boundary inks the cell on the subject's side (not the background
  cluster's), or the darker one between two subject regions. Region boundaries are closed
  curves, so the contour closes where the regions do. The contour (subject against
  background) is kept where the cells are salient; inner boundaries only the strongest
  (the INNER_SHARES share of largest ΔE between the regions' colours, fewer at each
  retry); boundaries in cells of low saliency (under QUIET) are the background's texture
  and dropped;
* ``tones``: the darkest regions filled (the darkest painted colour, and the next while it
  is dark, under TONES_DARK, and the filled cells stay under TONES_FILL) plus the outline
  where the other regions meet; a dark piece of the background (mean saliency under
  QUIET) is not filled;
* **refitted to what is drawn**: outline and tones ink only part of the subject's crop
  (the salient boundaries), and the empty edge lines are trimmed; so the crop is fitted
  again to the drawn box (:func:`drawn_box`, up to REFIT_ROUNDS times) until the drawing
  fills the grid within REFIT_SLACK cells: the subject is drawn at the full size asked.
  The drawn box's edge is the subject's edge (its outermost ink is on the subject's side),
  so its regions are found with a RING of one cell of what lies around it (the ground stays
  the ground), drawn, and the ring cut off; of the rounds the one drawing the largest box is
  kept (a round can draw less: a boundary no longer salient at the new scale).
  A drawn strip (longer than STRIP_ASPECT times its width: horses far off, a beach) is
  fitted to its stretch of that aspect holding the most ink;
* ``auto``: each style's picture scored by the structure measure
  (:func:`~nonoforge.images.structure.structure`), repaired best first; the first accepted
  is the puzzle.

Every style's picture goes through the same repair: unique by line logic (or the rung
allowed) with the fewest edits, specks cleared, empty edge lines trimmed.
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np

from nonoforge.errors import UsageError


class Style(StrEnum):
    """How a black-and-white picture is drawn (module doc)."""

    AUTO = "auto"
    SILHOUETTE = "silhouette"
    OUTLINE = "outline"
    TONES = "tones"

    @classmethod
    def parse(cls, text: str | Style) -> Style:
        """``text`` as a style, or a one-line UsageError naming the styles."""
        if isinstance(text, Style):
            return text
        try:
            return cls(text.strip().lower())
        except ValueError:
            names = ", ".join(s.value for s in cls)
            raise UsageError(f"style must be one of {names}, got {text!r}") from None


class StyleReason(StrEnum):
    """Why a picture was drawn in the style it was (``generate --json``'s ``style_by``)."""

    #: the style the options asked for
    ASKED = "asked"
    #: ``auto``: the accepted picture of the best structure score (``style_scores``)
    SCORES = "scores"
    #: ``auto`` or ``silhouette`` on a black-and-white photo: the trained model found a
    #: subject whose shape says what it is, drawn alone as a silhouette (``subject_shape``)
    SUBJECT_SHAPE = "subject_shape"
    #: ``auto`` on a picture that is no black-and-white photo (colours, a fill, an icon):
    #: the silhouette, the one style such pictures are drawn in
    NOT_A_BW_PHOTO = "not_a_bw_photo"
    #: the style asked for draws nothing of this picture: the silhouette instead
    NOTHING_DRAWN = "nothing_drawn"


#: The styles ``auto`` chooses among, in the order ties go.
DRAWN = (Style.SILHOUETTE, Style.TONES, Style.OUTLINE)
#: Colours the subject is quantised in to find its regions.
REGION_COLOURS = 3
#: Total-variation weight of the picture regions are found in (Lab scaled to 0..1): as the
#: sketches' (quantise.SKETCH_TV), so fur, grass and grain are flat at a cell's scale.
REGION_TV = 0.9
#: Cells whose saliency is below this draw no boundary (the background goes quiet).
QUIET = 0.3
#: Share of the inner boundaries (between two subject regions) drawn, strongest first, at
#: each level of detail: a retry after a failed repair draws fewer.
INNER_SHARES = (0.35, 0.2, 0.1, 0.0)
#: Ink pieces smaller than this (8-connected) are dropped at each level of detail.
DETAIL_CRUMBS = (3, 3, 4, 6)
#: Tones: most share of the cells filled; a second-darkest colour is filled only while its
#: lightness is under TONES_DARK.
TONES_FILL = 0.45
TONES_DARK = 40.0
#: Times the crop is fitted again to the drawn box (:func:`drawn_box`).
REFIT_ROUNDS = 3
#: A drawing that fills the grid but for this many cells a side is drawn at its full size.
REFIT_SLACK = 1
#: A drawn box longer than this many times its width is a strip (horses far off, a beach):
#: it is fitted to the window of this aspect along it that holds the most ink, so the grid
#: is spent on the subject, not on a band of a few lines.
STRIP_ASPECT = 2.0
#: A drawn box is not fitted again when its long side would have fewer pixels a cell than
#: this (the source's detail is gone at that scale: a grid of blur).
REFIT_PIXELS = 2
#: Margin around the drawn box, in cells of the grid it was drawn on: a coarse grid's edge
#: cells are part subject, part ground, and may be drawn as either (the next round, finer,
#: tightens the box again).
REFIT_MARGIN = 0.5
#: Cells of surroundings a crop fitted to the drawn box is drawn with (then cut off).
RING = 1


def drawn_box(
    ink: np.ndarray, box: tuple[int, int, int, int],
) -> tuple[int, int, int, int] | None:
    """The pixel box ``(top, bottom, left, right)`` to fit the grid to again so that
    ``ink`` (a drawing on a grid fitted to the pixel ``box``) fills it; a strip's densest
    stretch of STRIP_ASPECT (module doc). None when the ink already fills the grid but for
    REFIT_SLACK cells a side (or there is none, or the box would have under REFIT_PIXELS
    pixels a cell: no zooming into the blur).

    >>> ink = np.zeros((30, 30), dtype=bool); ink[10:20, 5:15] = True
    >>> drawn_box(ink, (0, 300, 0, 300))
    (95, 205, 45, 155)
    """
    if not ink.any():
        return None
    gh, gw = ink.shape
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    t, b, l_, r = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
    if b - t >= gh - REFIT_SLACK and r - l_ >= gw - REFIT_SLACK:
        return None
    if r - l_ > STRIP_ASPECT * (b - t):
        l_, r = _densest(ink[t:b].sum(axis=0), l_, r, round(STRIP_ASPECT * (b - t)))
    elif b - t > STRIP_ASPECT * (r - l_):
        t, b = _densest(ink[:, l_:r].sum(axis=1), t, b, round(STRIP_ASPECT * (r - l_)))
    top, bottom, left, right = box
    ch, cw = (bottom - top) / gh, (right - left) / gw
    m = REFIT_MARGIN
    new = (max(top, int(top + (t - m) * ch)), min(bottom, int(np.ceil(top + (b + m) * ch))),
           max(left, int(left + (l_ - m) * cw)), min(right, int(np.ceil(left + (r + m) * cw))))
    if new == box or max(new[1] - new[0], new[3] - new[2]) < REFIT_PIXELS * max(gh, gw):
        return None
    return new


def _densest(counts: np.ndarray, lo: int, hi: int, span: int) -> tuple[int, int]:
    """The window ``[a, a + span)`` within ``[lo, hi)`` holding the most of ``counts``
    (the one nearest the middle of ties)."""
    span = max(1, span)
    sums = np.convolve(counts[lo:hi], np.ones(span), mode="valid")
    starts = np.flatnonzero(sums >= sums.max() - 1e-9)
    mid = (hi - lo - span) / 2
    a = lo + int(starts[np.argmin(np.abs(starts - mid))])
    return a, a + span


def levels() -> int:
    """How many levels of detail a style is drawn at (a retry draws the next)."""
    return len(INNER_SHARES)


def _boundaries(
    labels: np.ndarray, palette_lab: np.ndarray, sal: np.ndarray, share: float,
    filled: np.ndarray | None = None,
) -> np.ndarray:
    """Ink where regions of ``labels`` meet (module doc): the contour where salient, the
    strongest ``share`` of inner boundaries; none beside a ``filled`` cell."""
    h, w = labels.shape
    light = palette_lab[:, 0]
    pairs = []  # (strength, inner, y, x) of the cell to ink, per boundary
    for dy, dx in ((0, 1), (1, 0)):
        a, b = labels[: h - dy, : w - dx], labels[dy:, dx:]
        diff = a != b
        salient = np.maximum(sal[: h - dy, : w - dx], sal[dy:, dx:]) >= QUIET
        if filled is not None:
            diff &= ~(filled[: h - dy, : w - dx] | filled[dy:, dx:])
        ay, ax = np.nonzero(diff & salient)
        if not len(ay):
            continue
        by, bx = ay + dy, ax + dx
        la, lb = labels[ay, ax], labels[by, bx]
        contour = (la == 0) | (lb == 0)
        # the subject's side of the contour; the darker side of an inner boundary
        pick_b = np.where(contour, la == 0, light[lb] < light[la])
        iy, ix = np.where(pick_b, by, ay), np.where(pick_b, bx, ax)
        strength = np.sqrt(((palette_lab[la] - palette_lab[lb]) ** 2).sum(-1))
        pairs.append((strength, ~contour, iy, ix))
    ink = np.zeros((h, w), dtype=bool)
    if not pairs:
        return ink
    strength = np.concatenate([p[0] for p in pairs])
    inner = np.concatenate([p[1] for p in pairs])
    iy = np.concatenate([p[2] for p in pairs])
    ix = np.concatenate([p[3] for p in pairs])
    keep = ~inner
    if inner.any() and share > 0:
        t = float(np.quantile(strength[inner], 1.0 - share))
        keep |= inner & (strength >= t)
    ink[iy[keep], ix[keep]] = True
    return ink


#: The four ways two ink cells can face each other across one paper cell (as ``(dy, dx)``
#: of one side; the other is the opposite).
_ACROSS = ((0, 1), (1, 0), (1, 1), (1, -1))


def bridge(ink: np.ndarray) -> np.ndarray:
    """``ink`` with its one-cell gaps closed, where the eye closes them: a paper cell is
    inked when two ink cells of different pieces (8-connected) face each other across it
    (left and right, above and below, or diagonally) and at least one of them ends a stroke
    pointing at it (its one ink 8-neighbour lies behind it, seen from the gap; or it is a
    lone cell). A dashed contour becomes a line and a broken loop closes; the ends of two
    parallel lines are not joined (each end points along its own line, not at the other).

    >>> ink = np.array([[1, 1, 0, 1, 1]], dtype=bool)
    >>> bridge(ink).astype(int).tolist()
    [[1, 1, 1, 1, 1]]
    """
    from scipy.ndimage import correlate, label

    parts, n = label(ink, structure=np.ones((3, 3)))
    if n < 2:
        return ink
    h, w = ink.shape
    grid = ink.astype(np.int64)
    offsets = np.arange(-1, 2)
    count = correlate(grid, np.ones((3, 3), dtype=np.int64), mode="constant") - grid
    # the offset of a cell's one neighbour (meaningful where count is 1)
    oy = correlate(grid, np.repeat(offsets[:, None], 3, axis=1), mode="constant")
    ox = correlate(grid, np.repeat(offsets[None, :], 3, axis=0), mode="constant")
    pad_p = np.pad(parts, 1)

    def pointing(dy: int, dx: int) -> np.ndarray:
        """Ink cells ending a stroke that points along ``(dy, dx)``."""
        return np.pad(ink & ((count == 0) | ((count == 1) & (oy * dy + ox * dx < 0))), 1)

    out = ink.copy()
    for dy, dx in _ACROSS:
        pa = pad_p[1 - dy: 1 - dy + h, 1 - dx: 1 - dx + w]  # the cell at -d, pointing +d
        pb = pad_p[1 + dy: 1 + dy + h, 1 + dx: 1 + dx + w]  # the cell at +d, pointing -d
        ea = pointing(dy, dx)[1 - dy: 1 - dy + h, 1 - dx: 1 - dx + w]
        eb = pointing(-dy, -dx)[1 + dy: 1 + dy + h, 1 + dx: 1 + dx + w]
        out |= ~ink & (pa > 0) & (pb > 0) & (pa != pb) & (ea | eb)
    return out


def _clean(ink: np.ndarray, crumb: int) -> np.ndarray:
    """Ink as a puzzle draws it: one-cell gaps bridged (:func:`bridge`), then ink pieces
    under ``crumb`` cells dropped (holes kept: a loop's inside is the picture), lone specks
    gone."""
    from scipy.ndimage import label

    ink = bridge(ink)
    parts, n = label(ink, structure=np.ones((3, 3)))
    if n:
        sizes = np.bincount(parts.ravel())
        small = (sizes < crumb) & (np.arange(n + 1) > 0)
        ink = ink & ~small[parts]
    return ink


def outline(labels: np.ndarray, palette_lab: np.ndarray, sal: np.ndarray,
            detail: int = 0) -> np.ndarray:
    """The outline picture (0/1 labels) of the region grid ``labels`` (colours
    ``palette_lab``, background 0) at level of ``detail`` (module doc)."""
    ink = _boundaries(labels, palette_lab, sal, INNER_SHARES[detail])
    return _clean(ink, DETAIL_CRUMBS[detail]).astype(np.int64)


def _salient_pieces(mask: np.ndarray, sal: np.ndarray) -> np.ndarray:
    """The pieces of ``mask`` (8-connected) whose mean saliency is QUIET or more: a dark
    mass of the background is not filled."""
    from scipy.ndimage import label

    parts, n = label(mask, structure=np.ones((3, 3)))
    if not n:
        return mask
    mean = np.bincount(parts.ravel(), weights=sal.ravel()) / np.bincount(parts.ravel())
    keep = mean >= QUIET
    keep[0] = False
    return keep[parts]


def dark_masses(labels: np.ndarray, palette_lab: np.ndarray, sal: np.ndarray) -> np.ndarray:
    """The cells the tones style fills (bool): the darkest region colour, then the next
    while its L* is under TONES_DARK and the filled stay under TONES_FILL of the grid;
    pieces of low saliency (the ground's dark masses) left out."""
    painted = [c for c in range(1, len(palette_lab)) if (labels == c).any()]
    painted.sort(key=lambda c: float(palette_lab[c, 0]))
    filled = np.zeros(labels.shape, dtype=bool)
    for i, c in enumerate(painted):
        more = filled | _salient_pieces(labels == c, sal)
        if i and (float(palette_lab[c, 0]) >= TONES_DARK or more.mean() > TONES_FILL):
            break
        filled = more
    return filled


def tones(labels: np.ndarray, palette_lab: np.ndarray, sal: np.ndarray,
          detail: int = 0) -> np.ndarray:
    """The tones picture (0/1 labels): the darkest regions filled, outline where the others
    meet (module doc)."""
    filled = dark_masses(labels, palette_lab, sal)
    ink = filled | _boundaries(labels, palette_lab, sal, INNER_SHARES[detail], filled)
    return _clean(ink, DETAIL_CRUMBS[detail]).astype(np.int64)
