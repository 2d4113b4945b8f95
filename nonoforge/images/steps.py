"""Pictures of a human-like solving path (:mod:`nonoforge.solver.human`, issue 36).

Each frame shows the grid after one step: decided cells in their colours, undecided ones
grey, the step's line framed and the cells it decided outlined in magenta -- what a player
looks at to follow the hint. :func:`step_png` draws one step (``nonoforge explain --state``
writes it), :func:`path_gif` the whole path, one frame per step. Pure functions returning
images and bytes, like :mod:`nonoforge.images.render`, whose colours and GIF writer they
share.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from nonoforge.images.render import MARK, UNDECIDED, gif_stream
from nonoforge.puzzle import Puzzle
from nonoforge.solver.human import HumanPath, LineKind, Step
from nonoforge.solving import mask_colours

#: The line's frame: a calm blue, distinct from the magenta of the decided cells.
LINE_FRAME = (0, 110, 230)


def step_png(puzzle: Puzzle, state: np.ndarray, step: Step | None, scale: int = 16) -> Image.Image:
    """The grid ``state`` (after ``step``) with the step's line framed and its cells marked;
    with ``step`` None, just the grid."""
    colours = [c.rgb for c in puzzle.palette]
    cells = mask_colours(state, -1)
    h, w = cells.shape
    im = Image.new("RGB", (w * scale + 1, h * scale + 1), (255, 255, 255))
    d = ImageDraw.Draw(im)
    for r in range(h):
        for c in range(w):
            k = int(cells[r, c])
            fill = UNDECIDED if k < 0 else colours[k]
            d.rectangle((c * scale, r * scale, (c + 1) * scale, (r + 1) * scale),
                        fill=fill, outline=(170, 170, 170))
    if step is not None:
        lw = max(2, scale // 6)
        if step.kind is LineKind.ROW:
            box = (0, step.index * scale, w * scale, (step.index + 1) * scale)
        else:
            box = (step.index * scale, 0, (step.index + 1) * scale, h * scale)
        d.rectangle(box, outline=LINE_FRAME, width=lw)
        inset = lw
        for ch in step.cells:
            x, y = ch.col * scale, ch.row * scale
            d.rectangle((x + inset, y + inset, x + scale - inset, y + scale - inset),
                        outline=MARK, width=max(1, scale // 8))
    return im


def path_gif(puzzle: Puzzle, path: HumanPath, start: np.ndarray, scale: int = 12,
             frame_ms: int = 400) -> bytes:
    """An animated GIF of ``path`` from the state ``start``: one frame per step (the
    first shows ``start``, the last lingers)."""
    st = np.array(start, dtype=np.uint64)
    frames = [step_png(puzzle, st, None, scale)]
    for s in path.steps:
        for ch in s.cells:
            st[ch.row, ch.col] = ch.after
        frames.append(step_png(puzzle, st, s, scale))
    # one palette for every frame (the exact colours drawn), so frames share a table
    used = [*(c.rgb for c in puzzle.palette), UNDECIDED, MARK, LINE_FRAME, (170, 170, 170),
            (255, 255, 255)]
    pal = Image.new("P", (1, 1))
    pal.putpalette([v for rgb in used for v in rgb] + [0] * 3 * (256 - len(used)))
    paletted = [f.quantize(palette=pal, dither=Image.Dither.NONE) for f in frames]
    durations = [frame_ms] * (len(paletted) - 1) + [max(frame_ms, 2000)]
    return gif_stream(paletted, durations)


def write_path(puzzle: Puzzle, path: HumanPath, directory: str, stem: str) -> dict[str, str]:
    """Write ``path`` under ``directory``: ``STEM-hint.png`` for a path of one step (or
    none: the grid as it stands), else ``STEM-steps.gif``, one frame per step. Returns
    ``{"png"|"gif": file}``."""
    from nonoforge.errors import ImageError
    from nonoforge.images.output import out_dir
    from nonoforge.images.render import png_bytes
    from nonoforge.util import write_atomic

    folder = out_dir(directory)
    start = path.start if path.start is not None else path.state
    if len(path.steps) <= 1:
        kind, target = "png", folder / f"{stem}-hint.png"
        data = png_bytes(step_png(puzzle, path.state, path.steps[0] if path.steps else None))
    else:
        kind, target = "gif", folder / f"{stem}-steps.gif"
        data = path_gif(puzzle, path, start)
    try:
        write_atomic(target, data)
    except OSError as e:
        raise ImageError(f"{target}: {e.strerror or e}") from None
    return {kind: str(target)}
