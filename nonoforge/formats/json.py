"""The JSON form of the model: lossless, one puzzle or a list of them.

::

    {"format": "nonoforge", "version": 1, "width": 2, "height": 2,
     "palette": [["white", "#ffffff"], ["black", "#000000"]],
     "rows": [[[1, 1]], [[2, 1]]], "columns": [[[2, 1]], [[1, 1]]],
     "meta": {"title": "..."}, "goal": [".#", "##"], "givens": [[0, 1, 1]]}

Blocks are ``[length, colour]`` pairs; the goal uses ``.`` and ``#`` (black-and-white)
or ``.`` ``a`` ``b`` ... (colour). ``givens`` (only when the puzzle has some) lists the
cells printed solved as ``[row, column, colour]``, counted from 0 as in the model, colour 0
for a cell given empty. A file holding several puzzles is a JSON list of these.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from functools import partial
from typing import Any

from nonoforge.errors import FormatError
from nonoforge.formats.base import Format, puzzle_or_error, record, register, strict
from nonoforge.puzzle import Color, Grid, Meta, Palette, Puzzle, cell_chars, parse_rgb
from nonoforge.util import first_line

MARK = "nonoforge"


def to_dict(p: Puzzle) -> dict[str, Any]:
    """The puzzle as plain JSON-able data."""
    d: dict[str, Any] = {
        "format": MARK,
        "version": 1,
        "width": p.width,
        "height": p.height,
        "palette": [[c.name, c.hex] for c in p.palette],
        "rows": [[[b.length, b.color] for b in r] for r in p.rows],
        "columns": [[[b.length, b.color] for b in c] for c in p.columns],
    }
    meta = {k: v for k, v in dataclasses.asdict(p.meta).items() if v is not None}
    if meta:
        d["meta"] = meta
    if p.goal is not None:
        d["goal"] = p.goal.to_rows(cell_chars(p.ncolors))
    if p.givens:
        d["givens"] = [list(g) for g in p.givens]
    return d


def from_dict(d: Any) -> Puzzle:
    """The puzzle described by :func:`to_dict`'s data."""
    if not isinstance(d, dict) or d.get("format") != MARK:
        raise FormatError('not a nonoforge JSON puzzle (no "format": "nonoforge")')
    if d.get("version") != 1:
        raise FormatError(f"unsupported nonoforge JSON version {d.get('version')!r}")

    def build() -> Puzzle:
        try:
            palette = Palette(tuple(Color(str(n), parse_rgb(str(h))) for n, h in d["palette"]))
            meta_fields = {f.name for f in dataclasses.fields(Meta)}
            raw_meta = d.get("meta") or {}
            if not isinstance(raw_meta, dict):
                raise FormatError('"meta" must be an object')
            meta = Meta(**{k: str(v) for k, v in raw_meta.items() if k in meta_fields})
            goal = None
            if "goal" in d:
                goal = Grid.from_rows(d["goal"], cell_chars(len(palette) - 1))
            givens = d.get("givens")
            if givens is None:  # absent or null: the puzzle has none (but not {} or false)
                givens = []
            if not isinstance(givens, list) or not all(
                isinstance(g, list) and len(g) == 3 and all(type(v) is int for v in g)
                for g in givens
            ):
                raise FormatError('"givens" must be a list of [row, column, colour] integers')
            p = Puzzle.from_clues(d["rows"], d["columns"], palette, meta, goal, givens)
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, FormatError):
                raise
            raise FormatError(f"malformed puzzle object ({type(e).__name__}: {e})") from None
        if (p.width, p.height) != (d.get("width", p.width), d.get("height", p.height)):
            raise FormatError("width/height do not match the clues")
        return p

    return puzzle_or_error(build)


_SPACE = " \t\n\r"  # JSON's whitespace


def _invalid(e: ValueError | RecursionError) -> FormatError:
    if isinstance(e, json.JSONDecodeError):
        return FormatError(f"invalid JSON: {e.msg}", line=e.lineno)
    return FormatError(f"invalid JSON: {first_line(e)[:80]}")  # e.g. millions of digits


def _elements(text: str) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` for each element of a top-level JSON list, parsed one at a time so
    that each keeps the line it starts on (a lone object is one element, at line 1). JSON
    syntax is checked as :func:`json.loads` checks it."""
    decoder = json.JSONDecoder()

    def skip(i: int) -> int:
        while i < len(text) and text[i] in _SPACE:
            i += 1
        return i

    def fail(msg: str, i: int) -> FormatError:
        return _invalid(json.JSONDecodeError(msg, text, i))

    i = skip(0)
    if not text.startswith("[", i):
        try:
            yield 1, json.loads(text)
        except (ValueError, RecursionError) as e:
            raise _invalid(e) from None
        return
    i = skip(i + 1)
    line, counted = 1, 0  # line of text[counted]: counted on, never from the start again
    if text.startswith("]", i):
        i += 1
    else:
        while True:
            try:
                value, end = decoder.raw_decode(text, i)
            except (ValueError, RecursionError) as e:
                raise _invalid(e) from None
            line += text.count("\n", counted, i)
            counted = i
            yield line, value
            i = skip(end)
            if text.startswith(",", i):
                i = skip(i + 1)
            elif text.startswith("]", i):
                i += 1
                break
            else:
                raise fail("Expecting ',' delimiter", i)
    if skip(i) != len(text):
        raise fail("Extra data", skip(i))


def records(text: str | bytes) -> Iterator[Puzzle | FormatError]:
    """The puzzle of a JSON object, or each of a JSON list; a malformed puzzle of a list is
    its FormatError (at the line its element starts on) in its place, and reading goes on
    at the next element (see :attr:`Format.records`)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    # the whole document first: broken JSON syntax fails the file as a whole, as always
    for line, item in list(_elements(text)):
        r = record(partial(from_dict, item))
        yield r.located(line=line) if isinstance(r, FormatError) else r


read = strict(records)


def write(puzzles: list[Puzzle]) -> str:
    items = [to_dict(p) for p in puzzles]
    return json.dumps(items[0] if len(items) == 1 else items, indent=1) + "\n"


def sniff(text: str | bytes) -> bool:
    head = text.lstrip()[:200] if isinstance(text, str) else ""
    return head[:1] in ("{", "[") and f'"{MARK}"' in text[:4096]


FORMAT = register(
    Format(
        name="json",
        extensions=(".json",),
        description="nonoforge's JSON form of the model (lossless)",
        read=read,
        records=records,
        write=write,
        sniff=sniff,
        multi=True,
        color=True,
        priority=10,
        givens=True,
    )
)
