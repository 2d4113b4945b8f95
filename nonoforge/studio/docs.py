"""The documents the studio's page edits: a puzzle as JSON and back, opened and saved.

A *document* is what the page holds: a picture (``cells``, rows of colour indices, 0 the
background), its palette (``[{"name", "hex"}]``, the background first), its givens (cells
revealed to the solver, printed solved on the sheet: ``[row, column, colour]``, each
showing the picture's colour there), a title and an author, and, when it came from a
picture, the provenance to store with it. The page never
names a path on the server: files come as uploaded bytes, examples by their bundled name.

Library code: no web framework here (the web layer is :mod:`nonoforge.studio.app`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from nonoforge.errors import UsageError
from nonoforge.puzzle import Color, Given, Grid, Meta, Palette, Puzzle, parse_rgb
from nonoforge.util import safe_text

#: The most colours (besides the background) the editor's palette offers.
MAX_EDIT_COLOURS = 16
#: The largest side of a grid the studio edits.
MAX_EDIT_SIDE = 100
#: Work the solver may spend finding the picture of a puzzle opened as clues alone.
OPEN_WORK = 2_000_000
#: What a saved puzzle's provenance names as its source.
SOURCE = "nonoforge studio"


def palette_json(palette: Palette) -> list[dict[str, str]]:
    return [{"name": c.name, "hex": c.hex} for c in palette]


def parse_palette(raw: Any) -> Palette:
    """A palette from the page's ``[{"name", "hex"}]`` (the background first)."""
    if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_EDIT_COLOURS + 1:
        raise UsageError(f"the palette must list 2..{MAX_EDIT_COLOURS + 1} colours, "
                         "the background first")
    colours = []
    for i, c in enumerate(raw):
        if not isinstance(c, dict) or not isinstance(c.get("hex"), str):
            raise UsageError(f"palette colour {i + 1} needs a hex value")
        name = c.get("name") if isinstance(c.get("name"), str) and c.get("name") else f"c{i}"
        try:
            colours.append(Color(safe_text(str(name), 40), parse_rgb(c["hex"])))
        except ValueError as e:
            raise UsageError(f"palette colour {i + 1}: {e}") from None
    if len({c.name for c in colours}) != len(colours):
        raise UsageError("palette colour names must differ")
    return Palette(tuple(colours))


def parse_cells(raw: Any, ncolours: int) -> np.ndarray:
    """The picture from the page's rows of colour indices, checked for shape and colours."""
    if not isinstance(raw, list) or not raw or not all(isinstance(r, list) for r in raw):
        raise UsageError("cells must be a list of rows")
    h, w = len(raw), len(raw[0])
    if not (1 <= h <= MAX_EDIT_SIDE and 1 <= w <= MAX_EDIT_SIDE):
        raise UsageError(f"the grid must be 1..{MAX_EDIT_SIDE} cells a side, got {w}x{h}")
    if any(len(r) != w for r in raw):
        raise UsageError("every row of cells must have the same length")
    try:
        cells = np.array(raw, dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        raise UsageError("cells must be colour indices") from None
    if int(cells.min()) < 0 or int(cells.max()) >= ncolours:
        raise UsageError(f"cells must be colour indices 0..{ncolours - 1}")
    return cells


def parse_givens(raw: Any, cells: np.ndarray) -> tuple[Given, ...]:
    """The givens from the page's ``[[row, column, colour], ...]`` (or ``[row, column]``:
    the picture's colour there), checked: inside the grid, each cell once, and showing the
    colour the picture has (a given reveals the picture's cell, it does not change it).

    >>> parse_givens([[0, 1], [1, 0, 0]], np.array([[0, 1], [0, 0]]))
    ((0, 1, 1), (1, 0, 0))
    """
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > cells.size:
        raise UsageError("givens must be a list of [row, column, colour], each cell once")
    h, w = cells.shape
    out: dict[tuple[int, int], Given] = {}
    for g in raw:
        if not (isinstance(g, list) and len(g) in (2, 3) and all(
                isinstance(v, int) and not isinstance(v, bool) for v in g)):
            raise UsageError("a given is [row, column, colour], whole numbers")
        r, c = g[0], g[1]
        if not (0 <= r < h and 0 <= c < w):
            raise UsageError(f"the given at row {r + 1}, column {c + 1} is outside the "
                             f"{w}x{h} grid")
        k = int(cells[r, c])
        if len(g) == 3 and g[2] != k:
            raise UsageError(f"the given at row {r + 1}, column {c + 1} shows colour {g[2]}, "
                             f"the picture has {k} there")
        if (r, c) in out:
            raise UsageError(f"the cell at row {r + 1}, column {c + 1} is given twice")
        out[r, c] = (r, c, k)
    return tuple(sorted(out.values()))


def _text(raw: Any, limit: int = 200) -> str | None:
    return safe_text(raw, limit) if isinstance(raw, str) and raw.strip() else None


@dataclass(frozen=True)
class Document:
    """A picture being edited: cells, palette, givens and what to say about it."""

    cells: np.ndarray
    palette: Palette
    title: str | None = None
    author: str | None = None
    #: cells revealed to the solver (:func:`parse_givens`), sorted
    givens: tuple[Given, ...] = ()

    @classmethod
    def parse(cls, raw: Any) -> Document:
        """The document the page sent (a JSON object), checked."""
        if not isinstance(raw, dict):
            raise UsageError("expected a JSON object")
        palette = parse_palette(raw.get("palette"))
        cells = parse_cells(raw.get("cells"), len(palette))
        return cls(cells, palette, _text(raw.get("title")), _text(raw.get("author")),
                   parse_givens(raw.get("givens"), cells))

    def puzzle(self, meta: Meta | None = None) -> Puzzle:
        """The puzzle whose goal this picture is, with the document's givens."""
        m = meta or Meta(title=self.title, author=self.author)
        p = Puzzle.from_grid(Grid(self.cells), self.palette, m)
        return p.replace(givens=self.givens) if self.givens else p


def document_of(p: Puzzle) -> dict[str, Any]:
    """A puzzle as the page's document. A puzzle without its picture (clues only) gets the
    solver's first solution (``solved`` says so), or a blank grid when it has none."""
    if max(p.width, p.height) > MAX_EDIT_SIDE or p.ncolors > MAX_EDIT_COLOURS:
        raise UsageError(f"the studio edits grids of up to {MAX_EDIT_SIDE} cells a side in up "
                         f"to {MAX_EDIT_COLOURS} colours; this one is {p.width}x{p.height} in "
                         f"{p.ncolors}")
    note = None
    if p.goal is not None:
        cells = p.goal.cells
    else:
        from nonoforge.solver import solve

        res = solve(p, max_solutions=2, budget=OPEN_WORK)
        if res.solutions:
            cells = res.solutions[0].cells
            note = f"clues only: the picture is the solver's first solution ({res.status})"
        else:
            cells = np.zeros((p.height, p.width), dtype=np.int64)
            note = f"clues only, and the solver found no picture ({res.status})"
    return {
        "title": p.meta.title, "author": p.meta.author,
        "width": p.width, "height": p.height,
        "palette": palette_json(p.palette),
        "cells": np.asarray(cells).astype(int).tolist(),
        "givens": [list(g) for g in p.givens],
        "key": p.key, "note": note,
    }


def provenance_note(raw: Any) -> str | None:
    """The provenance the page sends with a save (source image digest, settings, edits), as
    the one-line JSON note stored with the puzzle; None when there is none."""
    if not isinstance(raw, dict):
        return None
    keep: dict[str, Any] = {"made_with": SOURCE}
    digest = raw.get("image_sha256")
    if isinstance(digest, str) and len(digest) == 64 and all(
            ch in "0123456789abcdef" for ch in digest):
        keep["image_sha256"] = digest
    if isinstance(raw.get("image_name"), str):
        keep["image_name"] = safe_text(raw["image_name"], 200)
    if isinstance(raw.get("settings"), dict):
        keep["settings"] = {safe_text(str(k), 40): v for k, v in raw["settings"].items()
                            if isinstance(v, int | float | str | bool) and len(str(v)) < 100}
    edits = raw.get("edits")
    if isinstance(edits, list):
        keep["edits"] = [e for e in edits[:10_000] if isinstance(e, list) and len(e) == 3
                         and all(isinstance(v, int) for v in e)]
    if isinstance(raw.get("origin"), str):
        keep["origin"] = safe_text(raw["origin"], 200)
    return json.dumps(keep, separators=(",", ":"), sort_keys=True)


def digest(data: bytes) -> str:
    """The SHA-256 of an uploaded source, as the provenance names it."""
    return hashlib.sha256(data).hexdigest()
