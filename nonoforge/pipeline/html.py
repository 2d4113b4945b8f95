"""A collection as one playable HTML page: self-contained, offline, no external anything.

The page carries the puzzles as JSON (clues, palette, title, given cells), the human
ladder its hint walks (:func:`nonoforge.techniques.ladder_json`), and our own
small script and style sheet (``play/play.js``, ``play/play.css``, inlined). Solutions are
in the page only so that "check" can point at mistakes, and are encoded (XOR with a seeded
keystream, then base64) so that they cannot be read from the source at a glance. Solving is
judged by the clues, so any picture that satisfies them counts.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonoforge.pipeline.item import ExportItem, clues_json
from nonoforge.techniques import ladder_json
from nonoforge.util import safe_text, xml_text

if TYPE_CHECKING:
    from nonoforge.puzzle import Grid

ASSETS = Path(__file__).resolve().parent / "play"


def encode(cells: Grid, seed: int) -> str:
    """The solution's cells XOR a 32-bit LCG keystream, base64 (decoded by play.js)."""
    s = seed
    out = bytearray()
    for v in cells.cells.ravel().tolist():
        s = (s * 1103515245 + 12345) & 0xFFFFFFFF
        out.append((int(v) ^ (s >> 16)) & 0xFF)
    return base64.b64encode(bytes(out)).decode("ascii")


def decode(text: str, seed: int) -> list[int]:
    """The inverse of :func:`encode`, as a flat list of cells (for tests and tools)."""
    s = seed
    out = []
    for b in base64.b64decode(text):
        s = (s * 1103515245 + 12345) & 0xFFFFFFFF
        out.append((b ^ (s >> 16)) & 0xFF)
    return out


def seed_of(key: str) -> int:
    return int(hashlib.sha256(f"nonoforge-play:{key}".encode()).hexdigest()[:8], 16)


def puzzle_json(it: ExportItem) -> dict[str, Any]:
    from nonoforge.images.render import text_color

    p = it.puzzle
    assert it.answer is not None
    seed = seed_of(p.key)
    return {
        "key": p.key,
        "title": safe_text(it.title, 200),
        "w": p.width,
        "h": p.height,
        "grade": it.grade,
        "difficulty": it.difficulty,  # the grade in words, as the book prints it
        "note": it.note,
        "bw": p.is_bw,
        "colors": [c.hex for c in p.palette],
        "ink": ["#{:02x}{:02x}{:02x}".format(*text_color(c.rgb)) for c in p.palette],
        "names": [safe_text(c.name, 40) for c in p.palette],
        "rows": clues_json(p.rows, bw=False),  # the page reads [length, colour] pairs
        "cols": clues_json(p.columns, bw=False),
        "givens": [list(g) for g in p.givens],  # [row, column, colour]: printed solved
        "seed": seed,
        "sol": encode(it.answer, seed),
    }


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no ``<``, ``>`` or ``&`` can end it early."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def links(items: Sequence[ExportItem]) -> str:
    """One link per puzzle, ``#n`` (numbered as the book is), with its title, size and
    difficulty: a link opens that puzzle, and can be shared or bookmarked."""
    out = []
    for n, it in enumerate(items, start=1):
        p = it.puzzle
        meta = f"{p.width}\u00d7{p.height}" + (f", {it.difficulty}" if it.difficulty else "")
        out.append(f'<li value="{n}"><a href="#{n}">{xml_text(safe_text(it.title, 200))}</a> '
                   f'<span class="meta">{xml_text(meta)}</span></li>')
    return "\n".join(out)


def page(items: Sequence[ExportItem], title: str = "nonoforge puzzles") -> str:
    """The whole page as text."""
    keys = [it.puzzle.key for it in items]
    book = {
        "id": hashlib.sha256("\n".join([title, *keys]).encode()).hexdigest()[:12],
        "puzzles": [puzzle_json(it) for it in items],
        "ladder": ladder_json(),  # the hint's rungs, in order (nonoforge.techniques)
    }
    css = (ASSETS / "play.css").read_text(encoding="utf-8")
    js = (ASSETS / "play.js").read_text(encoding="utf-8")
    t = xml_text(safe_text(title, 200))
    given_help = ("\nCells with a dot or a black \u00d7 are given: part of the solution, they "
                  "cannot be changed." if any(it.puzzle.givens for it in items) else "")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="nonoforge">
<title>{t}</title>
<style>
{css}</style>
</head>
<body>
<header><h1>{t}</h1>
<nav aria-label="puzzles">
<button type="button" id="prev" aria-label="previous puzzle">\u25c0</button>
<select id="pick" aria-label="choose a puzzle"></select>
<button type="button" id="next" aria-label="next puzzle">\u25b6</button></nav></header>
<details id="list"><summary>All {len(items)} puzzles</summary>
<ol>
{links(items)}
</ol></details>
<h2 id="title"></h2><div id="info"></div>
<div class="tools">
<span id="palette" aria-label="colours"></span>
<button type="button" id="mode" aria-pressed="false">Mode: fill</button>
<button type="button" id="undo" title="Ctrl+Z">Undo</button>
<button type="button" id="redo" title="Ctrl+Y">Redo</button>
<button type="button" id="check">Check</button>
<button type="button" id="hint" title="the next step, as a person would take it">Hint</button>
<button type="button" id="reset">Clear</button>
<span id="timer" aria-label="time">0:00</span>
</div>
<div id="status" role="status" aria-live="polite"></div>
<table id="board" tabindex="0" aria-label="puzzle grid: arrows move, space fills, x marks \
empty, 1-9 pick a colour, m switches mode, ctrl+z undoes" data-solved="no"></table>
<p class="help">Click or drag to fill; right-click (or switch the mode) to mark a cell empty.
Keys: arrows move, space fills, x marks, delete clears, 1\u20139 choose a colour, m switches
mode, h (or Hint) shows the next step and why, Ctrl+Z / Ctrl+Y undo and redo.{given_help}
Progress is kept in this browser. Made with nonoforge.</p>
<script type="application/json" id="nf-data">{_script_json(book)}</script>
<script>
{js}</script>
</body>
</html>
"""
