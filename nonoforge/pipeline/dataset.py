"""A collection as a dataset: one JSON object per line, for people who build and evaluate
programs on nonograms (seeded, verified, graded puzzles, optionally with their reasoning).

Each record holds the puzzle (size, palette, row and column clues, given cells), its
solution grid, the rating (verdict, hardest technique, deterministic effort, score, grade)
and where it came from (source, licence). ``steps`` adds a line-by-line trace: which row
or column, given what was known, decided which cells; see :func:`line_trace`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from nonoforge.pipeline.item import ExportItem, clues_json
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solving import start_state
from nonoforge.sweeps import line_sweeps
from nonoforge.titles import DIFFICULTY
from nonoforge.util import safe_text

#: The version of the record layout (bumped when a field changes meaning).
SCHEMA = 1


def record(it: ExportItem, steps: bool = False) -> dict[str, Any]:
    """The JSON object of one exported puzzle."""
    p = it.puzzle
    r = it.result
    meta = p.meta

    def text(s: str | None) -> str | None:
        return None if s is None else safe_text(s, 500)

    out: dict[str, Any] = {
        "schema": SCHEMA,
        "key": p.key,
        "position": it.number,
        "title": text(meta.title),
        # what the book and page call it: the collection's title for it, its own, its
        # file's name made readable, or "No. N" (nonoforge.titles.title_of)
        "display_title": text(it.title),
        "width": p.width,
        "height": p.height,
        "palette": [{"name": text(c.name), "rgb": c.hex} for c in p.palette],
        "rows": clues_json(p.rows, p.is_bw),
        "columns": clues_json(p.columns, p.is_bw),
        # cells printed solved, part of the puzzle: [row, column, colour], 0-based, 0 = empty
        "givens": [list(g) for g in p.givens],
        "solution": None if it.answer is None else it.answer.cells.tolist(),
        "verdict": it.verdict,
        "technique": r.get("technique"),
        "effort": r.get("effort"),
        "score": r.get("score"),
        "grade": r.get("grade"),
        "difficulty": DIFFICULTY.get(r.get("grade")),  # type: ignore[arg-type]
        "solver_version": r.get("solver_version"),
        "source": text(meta.source),
        "source_id": text(meta.source_id),
        "author": text(meta.author),
        "copyright": text(meta.copyright),
        "licence": text(meta.licence),
    }
    if steps:
        out["steps"] = line_trace(p, it.answer)
    return out


def records(items: Iterable[ExportItem], steps: bool = False) -> Iterator[dict[str, Any]]:
    for it in items:
        yield record(it, steps)


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    """Write one compact JSON object per line (UTF-8), whole or not at all."""
    from nonoforge.util import open_atomic

    n = 0
    with open_atomic(path) as f:
        for row in rows:
            text = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
            # U+2028/2029 are line breaks to str.splitlines and some readers: escape them
            text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
            f.write((text + "\n").encode("utf-8"))
            n += 1
    return n


def line_trace(p: Puzzle, answer: Grid | None = None) -> list[dict[str, Any]]:
    """The solve as a list of line deductions, in the order a person could make them.

    Complete line logic is applied, from the puzzle's givens (cells printed solved, never a
    step of their own), to rows then columns, sweep after sweep, until nothing changes
    (:func:`nonoforge.sweeps.line_sweeps`); every application that decides new cells is one
    step ``{"line": "row"|"column", "index": i, "cells": [[r, c, colour], ...]}`` (cells
    decided by that line given everything decided before). If line logic stops short, a
    last step ``{"line": None, "by": "search", "cells": [...]}`` holds the cells only
    probing or search decides (taken from ``answer``). Deterministic.
    """
    state = start_state(p)  # the givens (cells printed solved) are where a person starts
    out: list[dict[str, Any]] = []
    for kind, i, changed in line_sweeps(p, state):
        if changed is None:  # contradiction: cannot happen for a solvable puzzle
            return out + [{"line": kind, "index": i, "cells": [], "contradiction": True}]
        view = state[i, :] if kind == "row" else state[:, i]
        decided = []
        for pos in changed.tolist():
            m = int(view[pos])
            if m & (m - 1) == 0:
                r, c = (i, pos) if kind == "row" else (pos, i)
                decided.append([r, c, m.bit_length() - 1])
        if decided:
            out.append({"line": kind, "index": i, "cells": decided})
    open_ = np.argwhere(np.bitwise_and(state, state - np.uint64(1)) != 0)
    if open_.size:
        cells = answer.cells if answer is not None else None
        out.append({"line": None, "by": "search", "cells": [
            [int(r), int(c), None if cells is None else int(cells[r, c])]
            for r, c in open_.tolist()]})
    return out
