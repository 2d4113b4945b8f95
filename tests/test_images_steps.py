"""Pictures of a human-like path: the step's line framed, its cells marked, one frame each."""

from __future__ import annotations

import io

from PIL import Image

from nonoforge.images.render import MARK
from nonoforge.images.steps import LINE_FRAME, path_gif, step_png, write_path
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver.human import explain_path


def _puzzle() -> Puzzle:
    return Puzzle.from_grid(Grid.from_rows(["...#######", "#.#.#.#.#."]))


def test_a_step_frames_its_line_and_marks_its_cells() -> None:
    p = _puzzle()
    path = explain_path(p)
    first = path.steps[0]
    assert first.kind.value == "row" and first.index == 0
    st = path.start.copy()
    for ch in first.cells:
        st[ch.row, ch.col] = ch.after
    im = step_png(p, st, first, scale=16)
    assert im.size == (10 * 16 + 1, 2 * 16 + 1)
    assert im.getpixel((0, 0)) == LINE_FRAME  # row 1 framed
    c = first.cells[0]
    x, y = c.col * 16 + 3, c.row * 16 + 3
    assert im.getpixel((x, y)) == MARK  # its first cell outlined


def test_a_path_is_one_frame_per_step(tmp_path: object) -> None:
    p = _puzzle()
    path = explain_path(p)
    gif = Image.open(io.BytesIO(path_gif(p, path, path.start)))
    assert gif.n_frames == len(path.steps) + 1
    written = write_path(p, path, str(tmp_path), "two")
    assert written["gif"].endswith("two-steps.gif")
