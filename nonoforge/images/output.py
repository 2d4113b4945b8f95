"""Writing what ``nonoforge generate`` and ``nonoforge render`` produce.

The file names follow the image (or puzzle file) name: ``cat.non``, ``cat-sheet.png``,
``cat-sheet.svg``, ``cat-solution.png``, ``cat-edits.png``, ``cat-solve.gif``,
``cat-explain.png`` and ``cat-explain.gif``. Files are
written whole (to a temporary name, then renamed) so an interrupted run leaves no torn file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nonoforge.errors import FormatError, ImageError
from nonoforge.images.generate import Generated, Solver, default_solver
from nonoforge.images.render import (
    edits_png,
    explain_gif,
    explain_png,
    png_bytes,
    sheet_png,
    sheet_svg,
    solution_png,
    solve_gif,
)
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.util import write_atomic


def _write(path: Path, data: bytes | str) -> str:
    try:
        write_atomic(path, data)
    except OSError as e:
        raise ImageError(f"{path}: {e.strerror or e}") from None
    return str(path)


def out_dir(path: str | os.PathLike[str]) -> Path:
    """The output directory, created when missing."""
    d = Path(path)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ImageError(f"{d}: cannot create output directory ({e.strerror or e})") from None
    if not d.is_dir():
        raise ImageError(f"{d}: not a directory")
    return d


def write_generated(
    gen: Generated, directory: str | os.PathLike[str], stem: str, fmt: str = "non"
) -> dict[str, str]:
    """Write a generated puzzle, its sheet (PNG and SVG), solution and edits pictures.

    Returns the paths written, by role: ``puzzle``, ``sheet_png``, ``sheet_svg``,
    ``solution``, ``edits``. Givens are part of the puzzle: they go on the sheets and into
    the puzzle file, and a format that cannot hold them is refused (by the formats'
    one check, :meth:`~nonoforge.formats.Format.refusal`) before anything is written.
    """
    from nonoforge.formats import dumps, get_format

    f = get_format(fmt)
    p = gen.puzzle
    target = Path(directory) / f"{stem}{f.extensions[0]}"
    try:
        data = dumps(p, f)  # refuses here, before the output directory is touched
    except FormatError as e:
        raise e.located(str(target)) from None
    d = out_dir(directory)
    paths = {"puzzle": _write(d / target.name, data)}
    paths["sheet_png"] = _write(d / f"{stem}-sheet.png", png_bytes(sheet_png(p)))
    paths["sheet_svg"] = _write(d / f"{stem}-sheet.svg", sheet_svg(p))
    assert p.goal is not None
    scale = _scale(p)
    paths["solution"] = _write(
        d / f"{stem}-solution.png", png_bytes(solution_png(p.goal, p.palette, scale))
    )
    before = gen.quantised
    paths["edits"] = _write(
        d / f"{stem}-edits.png",
        png_bytes(edits_png(before.grid, gen.repair.grid, before.palette, scale)),
    )
    return paths


def render_puzzle(
    puzzle: Puzzle,
    directory: str | os.PathLike[str],
    stem: str,
    png: bool = True,
    svg: bool = True,
    gif: bool = False,
    solver: Solver | None = None,
) -> dict[str, Any]:
    """Render any puzzle: sheet (PNG/SVG), the solution picture when the goal is known (or
    the solver finds the unique one), and with ``gif`` an animation of the solve."""
    d = out_dir(directory)
    paths: dict[str, Any] = {}
    if png:
        paths["sheet_png"] = _write(d / f"{stem}-sheet.png", png_bytes(sheet_png(puzzle)))
    if svg:
        paths["sheet_svg"] = _write(d / f"{stem}-sheet.svg", sheet_svg(puzzle))
    goal = puzzle.goal
    res = None
    if gif or goal is None:
        res = (solver or default_solver())(
            puzzle, strategy="auto", max_solutions=2, record_steps=gif
        )
        paths["status"] = res.status
        if goal is None and res.status == "unique" and res.solutions:
            sol = res.solutions[0]
            goal = sol if isinstance(sol, Grid) else Grid(sol)
    if goal is not None and png:
        picture = solution_png(goal, puzzle.palette, _scale(puzzle))
        paths["solution"] = _write(d / f"{stem}-solution.png", png_bytes(picture))
    if gif and res is not None and res.steps:
        paths["gif"] = _write(d / f"{stem}-solve.gif", solve_gif(puzzle, res.steps))
    return paths


def _scale(p: Puzzle) -> int:
    """A solution-picture scale that makes the picture about 400 pixels wide."""
    return max(4, min(20, 400 // max(p.width, p.height)))


def write_explain(
    gen: Generated, directory: str | os.PathLike[str], stem: str
) -> dict[str, Any]:
    """Explain the quantised picture's ambiguity (:func:`~nonoforge.images.explain.explain`)
    and write ``STEM-explain.png`` (regions numbered), and for two solutions that differ
    ``STEM-explain.gif`` (each region flipping); returns the JSON facts with the files
    under ``file`` and ``animation``."""
    from nonoforge.images.explain import explain

    q = gen.quantised
    e = explain(q.grid, q.palette)
    facts = e.as_json()
    scale = _scale(gen.puzzle)
    picture = explain_png(q.grid, q.palette, e.cells, scale, regions=e.regions,
                          area=e.kind == "undecided")
    d = out_dir(directory)
    facts["file"] = _write(d / f"{stem}-explain.png", png_bytes(picture))
    if e.alternatives:  # drawn at a readable cell size, at least 12 pixels
        gif = explain_gif(q.grid, q.palette, e.alternatives, max(12, scale))
        facts["animation"] = _write(d / f"{stem}-explain.gif", gif)
    return facts
