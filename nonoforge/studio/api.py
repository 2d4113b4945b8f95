"""What each of the studio's requests does, as plain functions over plain data.

The web layer (:mod:`nonoforge.studio.app`) parses a request into these functions'
arguments and answers what they return as JSON; the functions call the library (the
solver, ``generate``, the formats registry, the corpus's public query functions) and
raise our error family for bad input. No web framework here, so the tests and the bench
can reason about them, and other faces could call them.
"""

from __future__ import annotations

import base64
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nonoforge.errors import UsageError
from nonoforge.puzzle import Meta
from nonoforge.studio.check import CHECK_WORK, THOROUGH_WORK, Superseded, check
from nonoforge.studio.docs import (
    SOURCE,
    Document,
    digest,
    document_of,
    provenance_note,
)
from nonoforge.util import safe_text

if TYPE_CHECKING:
    from nonoforge.db import Corpus

#: The most puzzles an opened file shows in the picker (the first one is opened).
MAX_LISTED = 200


# -- the editor ---------------------------------------------------------------------------


def check_document(raw: Any, stale: Callable[[], bool] | None = None) -> dict[str, Any]:
    """The solver's view of the page's picture and its givens
    (:func:`nonoforge.studio.check.check`), the verdict under
    :data:`~nonoforge.studio.check.CHECK_WORK`, or ``THOROUGH_WORK`` when the page asks for
    a thorough check. ``stale`` says when a newer stroke's check has started
    (:class:`~nonoforge.studio.check.Superseded`)."""
    doc = Document.parse(raw)
    thorough = isinstance(raw, dict) and raw.get("thorough") is True
    work = THOROUGH_WORK if thorough else CHECK_WORK
    return check(doc.puzzle(), work=work, stale=stale).to_dict()


def still_wanted(stale: Callable[[], bool] | None) -> Callable[[], None] | None:
    """What a long search calls between two candidates: raises
    :class:`~nonoforge.studio.check.Superseded` once ``stale`` says a newer stroke came."""
    if stale is None:
        return None

    def wanted() -> None:
        if stale():
            raise Superseded("superseded by a newer stroke")

    return wanted


#: The largest share of cells the editor's "fix with fewest edits" may change.
REPAIR_BUDGET = 0.1


def repair_document(raw: Any) -> dict[str, Any]:
    """The page's picture repaired as ``generate`` repairs one (the same function,
    :func:`nonoforge.images.generate.repair`: one cell a round, fewest edits, until line
    logic finishes it or :data:`REPAIR_BUDGET` of the cells, or two, are spent). Without a source
    picture every colour is as far from every cell's source, so only the shape terms rank
    the edits. The picture comes back with the cells it changed."""
    from nonoforge.images.generate import repair
    from nonoforge.puzzle import Grid

    doc = Document.parse(raw)
    fid = np.zeros((*doc.cells.shape, len(doc.palette)))
    budget = max(REPAIR_BUDGET, min(1.0, 2 / doc.cells.size))  # a small grid: 2 edits
    rep = repair(Grid(doc.cells), doc.palette, fid, budget=budget)
    after = rep.grid.cells.astype(np.int64)
    ys, xs = np.nonzero(after != doc.cells)
    return {"accepted": rep.accepted, "status": str(rep.status), "technique": rep.technique,
            "refusal": rep.refusal, "cells": after.tolist(),
            "changed": [[int(y), int(x), int(after[y, x])] for y, x in zip(ys, xs, strict=True)]}


def grade_document(raw: Any) -> dict[str, Any]:
    """How hard the page's picture is as a puzzle for a person: the human-effort score and
    grade 1..5 of the rating (:func:`nonoforge.pipeline.rate.human_fields`), with the
    solver's verdict and technique."""
    from nonoforge.pipeline.rate import human_fields
    from nonoforge.solver import solve

    doc = Document.parse(raw)
    p = doc.puzzle()
    res = solve(p, max_solutions=2, budget=20_000_000)
    fields = human_fields(p, str(res.status.value))
    human = fields.get("human") or {}
    return {"status": str(res.status.value), "technique": res.technique,
            "grade": fields.get("human_grade"), "score": fields.get("human_score"),
            "steps": human.get("steps"), "hardest": human.get("hardest")}


#: What the page's "harder" and "easier" ask for.
DIRECTIONS = ("harder", "easier")


def regrade_document(raw: Any, stale: Callable[[], bool] | None = None) -> dict[str, Any]:
    """The page's picture moved toward the target human grade it names (``target`` 1..5),
    ``harder`` by :func:`nonoforge.pipeline.harden.harden` (``generate --grade``'s search:
    few edits, the ones that take the most footholds away first) or ``easier`` by
    :func:`nonoforge.studio.grade.easier` (its mirror: edits that give footholds), every
    step proven unique by the engine. The answer names the edits (applied by the page as
    one undoable change, with the givens as they then are), the grade and score before and
    after, and why it stopped short. ``stale`` says when a newer stroke has come: the
    search then stops between two candidates with
    :class:`~nonoforge.studio.check.Superseded` (its answer would be for a grid the page no
    longer holds)."""
    from nonoforge.studio.grade import easier

    if not isinstance(raw, dict):
        raise UsageError("expected a JSON object")
    direction, target = raw.get("direction"), raw.get("target")
    if direction not in DIRECTIONS:
        raise UsageError(f"say which way: one of {', '.join(DIRECTIONS)}")
    if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= 5:
        raise UsageError("the target grade must be a whole number 1..5")
    doc = Document.parse(raw)
    p = doc.puzzle()
    if direction == "easier":
        out = easier(p, target, still_wanted=still_wanted(stale)).to_dict()
        return {"direction": direction, **out, "givens": [list(g) for g in p.givens],
                "ungiven": []}
    return {"direction": direction, **_harder(p, target, still_wanted(stale))}


def _harder(p: Any, target: int, wanted: Callable[[], None] | None) -> dict[str, Any]:
    """:func:`~nonoforge.pipeline.harden.harden` toward ``target``, answered as
    :meth:`~nonoforge.studio.grade.Regraded.to_dict` answers, with the givens it took away
    (``ungiven``: harden removes a given before it edits a cell) and those left."""
    from nonoforge.pipeline.harden import HardenOptions, harden

    h = harden(p, HardenOptions(grade=target), still_wanted=wanted)
    cells = h.puzzle.goal.cells if h.puzzle.goal is not None else p.goal.cells
    return {"changed": [[c.row, c.col, c.after] for c in h.changes if c.kind == "edit"],
            "ungiven": [[c.row, c.col] for c in h.changes if c.kind == "given"],
            "givens": [list(g) for g in h.puzzle.givens],
            "cells": np.asarray(cells).astype(int).tolist(), "grade_wanted": target,
            "grade_before": h.grade_before, "grade_after": h.grade_after,
            "score_before": round(h.score_before, 1), "score_after": round(h.score_after, 1),
            "reached": h.grade_after >= target, "note": h.note}


def writable_formats() -> list[dict[str, Any]]:
    """Every format the registry can write: name, first extension, colour, description."""
    from nonoforge.formats import FORMATS

    return [{"name": f.name, "extension": f.extensions[0] if f.extensions else "",
             "color": f.color, "description": f.description}
            for f in FORMATS.values() if f.write is not None]


def download_document(raw: Any) -> tuple[bytes, str, str]:
    """The page's picture as a file in the format it names: (content, file name, type)."""
    from nonoforge.formats import dumps, get_format

    if not isinstance(raw, dict) or not isinstance(raw.get("format"), str):
        raise UsageError("name the format to download")
    fmt = get_format(raw["format"])
    doc = Document.parse(raw.get("document"))
    p = doc.puzzle()
    refusal = fmt.refusal(p)
    if refusal is not None:
        raise UsageError(refusal)
    data = dumps(p, fmt)
    content = data.encode("utf-8") if isinstance(data, str) else data
    name = f"{file_stem(doc.title)}{fmt.extensions[0] if fmt.extensions else ''}"
    media = "application/octet-stream" if fmt.binary else "text/plain; charset=utf-8"
    return content, name, media


def file_stem(title: str | None) -> str:
    """A download's file name from a title: ASCII letters, digits and dashes only (a
    hostile title cannot reach the Content-Disposition header or a path).

    >>> file_stem('<b>My "cat"</b>'), file_stem(None)
    ('b-my-cat-b', 'puzzle')
    """
    stem = re.sub(r"[^a-z0-9]+", "-", (title or "").lower()).strip("-")[:60]
    return stem or "puzzle"


# -- opening ------------------------------------------------------------------------------


def open_bytes(data: bytes, name: str) -> dict[str, Any]:
    """The puzzles of an uploaded file, in any format nonoforge reads (recognised by content,
    then by the name's extension); the first is opened."""
    from nonoforge.formats import loads

    if not data:
        raise UsageError("the file is empty")
    shown = name[-100:] or "upload"
    puzzles = []
    for p in loads(data, path=shown):
        puzzles.append(p)
        if len(puzzles) >= MAX_LISTED:
            break
    if not puzzles:
        raise UsageError(f"{shown}: no puzzle in the file")
    return {"document": document_of(puzzles[0]), "count": len(puzzles), "name": shown}


def open_example(name: str) -> dict[str, Any]:
    """A bundled example puzzle, by name (``dancer``): never a path on the server."""
    from nonoforge.examples import example_path

    path = example_path(name.removeprefix("example:"))
    if path.suffix != ".non":
        raise UsageError(f"example {name!r} is a picture: open it from the picture tab")
    return open_bytes(path.read_bytes(), path.name)


# -- from a picture -----------------------------------------------------------------------


@dataclass(frozen=True)
class PictureSettings:
    """What the picture tab sets: the largest size, colours, rung, crop to the subject, the
    black-and-white style, and the rectangle of the source drawn on it (``box``: left, top,
    right, bottom as fractions of its width and height, None for all of it)."""

    width: int = 30
    height: int = 30
    colours: int = 1
    max_technique: str = "line"
    crop: bool = True
    box: tuple[float, float, float, float] | None = None
    #: how a black-and-white picture is drawn (:mod:`nonoforge.images.styles`)
    style: str = "silhouette"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"size": f"{self.width}x{self.height}", "colors": self.colours,
                               "max_technique": self.max_technique, "crop": self.crop,
                               "style": self.style}
        if self.box is not None:
            out["box"] = ",".join(f"{v:.4f}" for v in self.box)
        return out


def parse_box(text: str) -> tuple[float, float, float, float]:
    """A crop rectangle from the page: ``left,top,right,bottom``, fractions 0..1 of the
    source's width and height, left < right and top < bottom.

    >>> parse_box("0.1,0,0.9,0.5")
    (0.1, 0.0, 0.9, 0.5)
    """
    parts = text.split(",")
    try:
        vals = [float(v) for v in parts]
    except ValueError:
        vals = []
    if len(vals) != 4 or not all(0.0 <= v <= 1.0 for v in vals) or not (
            vals[0] < vals[2] and vals[1] < vals[3]):
        raise UsageError("the crop must be left,top,right,bottom: fractions 0..1 of the "
                         "picture, left < right and top < bottom")
    return vals[0], vals[1], vals[2], vals[3]


def cropped(rgba: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """The part of a decoded picture (``(H, W, 4)``) inside ``box`` (:func:`parse_box`),
    at least one pixel each way; a part under 2x2 pixels is refused as ``generate``
    refuses such a picture.

    >>> cropped(np.zeros((10, 20, 4)), (0.5, 0.0, 1.0, 0.35)).shape
    (4, 10, 4)
    """
    import math

    h, w = rgba.shape[:2]
    x0, y0 = min(w - 1, math.floor(box[0] * w)), min(h - 1, math.floor(box[1] * h))
    x1, y1 = max(x0 + 1, math.ceil(box[2] * w)), max(y0 + 1, math.ceil(box[3] * h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        raise UsageError(f"the crop is {x1 - x0}x{y1 - y0} pixels: draw a larger rectangle")
    return rgba[y0:y1, x0:x1]


def from_picture(path: str, data: bytes, name: str, opts: PictureSettings) -> dict[str, Any]:
    """Generate a puzzle from a picture as ``generate`` does (same function, same checks on
    the image: :func:`nonoforge.images.load.load_image`), cut to ``opts.box`` first when
    the page drew one, with what the page shows beside it: the sheet, the verdict, the
    grade, the likeness and the edited cells."""
    from nonoforge.images.generate import GenerateOptions, generate
    from nonoforge.images.quantise import QuantiseOptions
    from nonoforge.images.render import png_bytes, sheet_png
    from nonoforge.images.styles import Style
    from nonoforge.pipeline.rate import human_fields
    from nonoforge.titles import readable

    source: Any = path
    if opts.box is not None:
        from nonoforge.images.load import load_image

        source = cropped(load_image(path), opts.box)  # read with every check, then cut
    options = GenerateOptions(QuantiseOptions(size=(opts.width, opts.height),
                                              colors=opts.colours, crop=opts.crop),
                              max_technique=opts.max_technique, style=Style.parse(opts.style))
    g = generate(source, options, title=readable(name.removeprefix("example:")))
    p = g.puzzle
    summary = g.summary()
    grade = human_fields(p, str(summary.get("status", "")))
    sheet = base64.b64encode(png_bytes(sheet_png(p, cell=12))).decode("ascii")
    doc = document_of(p)
    ys, xs = np.nonzero(g.edited)
    return {
        "document": doc,
        "summary": {k: summary.get(k) for k in (
            "accepted", "status", "technique", "edits", "edit_fraction", "likeness",
            "time_s", "key", "style")},
        "grade": grade.get("human_grade"), "score": grade.get("human_score"),
        "edited": [[int(y), int(x)] for y, x in zip(ys, xs, strict=True)],
        "sheet": f"data:image/png;base64,{sheet}",
        "provenance": {"image_sha256": digest(data), "image_name": name[-200:],
                       "settings": opts.to_dict(), "origin": "picture"},
    }


# -- the corpus ---------------------------------------------------------------------------


def save_document(corpus: Corpus, raw: Any) -> dict[str, Any]:
    """Store the page's picture in the corpus with its provenance (the source image's
    digest, the settings, the edits) as its note, under the source ``nonoforge studio``."""
    if not isinstance(raw, dict):
        raise UsageError("expected a JSON object")
    doc = Document.parse(raw.get("document"))
    meta = Meta(title=doc.title, author=doc.author, source=SOURCE,
                note=provenance_note(raw.get("provenance")))
    p = doc.puzzle(meta)
    stats = corpus.add([p])
    return {"key": p.key, "new": stats.new, "duplicate": stats.duplicate,
            "merged": stats.merged}


@dataclass(frozen=True)
class CorpusQuery:
    """A page of the corpus browser: which page, how many, and the filters (in the command
    line's grammar: ``size`` ``10x10..30x30``, ``colours`` and ``grade`` ``2..4``)."""

    page: int = 0
    per_page: int = 50
    size: str | None = None
    colours: str | None = None
    grade: str | None = None
    source: str | None = None
    status: str | None = None
    #: words the title must hold (case does not matter)
    text: str | None = None
    #: words the author (of the same source as the title) must hold
    author: str | None = None

    def filters(self) -> Any:
        from nonoforge.db.filters import Filters
        from nonoforge.ranges import SizeSpan, Span

        return Filters(
            size=SizeSpan.parse(self.size) if self.size else None,
            colors=Span.parse(self.colours) if self.colours else None,
            grade=Span.parse(self.grade) if self.grade else None,
            source=self.source, status=self.status, title=self.text, author=self.author,
        )


def corpus_page(corpus: Corpus, q: CorpusQuery) -> dict[str, Any]:
    """One page of puzzles matching the filters, oldest first, each with its thumbnail (the
    picture as one character a cell, ``"0"`` the background, and its palette), through
    the corpus's public query functions: the page's keys (:meth:`~nonoforge.db.Corpus.keys`
    from an offset, every filter in the database, the title and author words too:
    :func:`nonoforge.db.filters.text_conditions`), then its puzzles in one batch
    (:meth:`~nonoforge.db.Corpus.get_many`) and their listing rows
    (:meth:`~nonoforge.db.Corpus.info`): a page deep in the corpus costs about what the
    first one does."""
    f = q.filters()
    kwargs = f.query_kwargs()
    kwargs.pop("limit", None)
    keys = corpus.keys(offset=q.page * q.per_page, limit=q.per_page + 1, **kwargs)
    more = len(keys) > q.per_page
    keys = keys[:q.per_page]
    puzzles = corpus.get_many(keys)  # a puzzle gone since its key was read is left out
    infos = {i["key"]: i for i in corpus.info(keys)}
    rows = []
    for p in puzzles:
        info = infos.get(p.key, {})
        rows.append({
            "key": p.key, "width": p.width, "height": p.height, "colors": p.ncolors,
            "title": info.get("title"), "author": info.get("author"),
            "site": info.get("site"),
            "source": info.get("source"),
            "palette": [c.hex for c in p.palette],
            "thumb": thumbnail(p.goal.cells) if p.goal is not None else None,
        })
    return {"page": q.page, "per_page": q.per_page, "more": more, "items": rows,
            "filters": f.to_dict()}


def thumbnail(cells: np.ndarray) -> str:
    """A picture as the page's thumbnail text: one character a cell, row by row, ``"0"``
    plus its colour index.

    >>> thumbnail(np.array([[0, 1], [2, 0]]))
    '0120'
    """
    return (np.asarray(cells, dtype=np.uint8).ravel() + 48).tobytes().decode("latin-1")


def play_page(corpus: Corpus, key: str) -> str:
    """A corpus puzzle as the playable page ``collection export --to F.html`` writes
    (:func:`nonoforge.pipeline.html.page`), for one puzzle: its answer the stored goal or
    the solver's solution, its verdict the solver's."""
    from nonoforge.pipeline.html import page
    from nonoforge.pipeline.item import ExportItem
    from nonoforge.solver import solve

    if len(key) > 200:
        raise UsageError("not a puzzle key")
    p = corpus.get(key)
    res = solve(p, max_solutions=2, budget=20_000_000)
    answer = p.goal if p.goal is not None else res.solution
    if answer is None:
        raise UsageError(f"puzzle {key} has no solution to play towards ({res.status})")
    item = ExportItem(p, 1, {}, answer, str(res.status.value))
    return page([item], item.title)


#: What a selection may be exported as, by the export kind's suffix (pipeline/export.py).
EXPORTS = {"pdf": ".pdf", "html": ".html", "jsonl": ".jsonl", "rofl": ".rofl"}
#: The most puzzles one export from the page may hold.
MAX_EXPORT = 500


def export_selection(corpus: Corpus, raw: Any) -> tuple[bytes, str, str]:
    """Store the page's selection as a named collection of the corpus and export it as
    ``collection export`` does (:func:`nonoforge.pipeline.export.export_collection`: a
    PDF book, the playable page, a JSONL dataset or ROFL), as (content, file name, type)."""
    from nonoforge.pipeline.export import ExportOptions, export_collection

    if not isinstance(raw, dict):
        raise UsageError("expected a JSON object")
    keys = raw.get("keys")
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        raise UsageError("select the puzzles to export")
    if len(keys) > MAX_EXPORT:
        raise UsageError(f"export at most {MAX_EXPORT} puzzles at once")
    kind = raw.get("to")
    if kind not in EXPORTS:
        raise UsageError(f"export as one of {', '.join(EXPORTS)}")
    name = safe_text(raw["name"], 80).strip() if isinstance(raw.get("name"), str) else ""
    name = name or "studio selection"
    corpus.create_collection(name, list(dict.fromkeys(keys)),
                             {"title": name, "made_with": SOURCE})
    with tempfile.TemporaryDirectory(prefix="nonoforge-studio-") as tmp:
        target = os.path.join(tmp, f"{file_stem(name)}{EXPORTS[kind]}")
        export_collection(corpus, name, target, ExportOptions(include_ambiguous=False))
        with open(target, "rb") as f:
            data = f.read()
    media = {"pdf": "application/pdf", "html": "text/html; charset=utf-8",
             "jsonl": "application/jsonl", "rofl": "application/octet-stream"}[kind]
    return data, os.path.basename(target), media


def corpus_document(corpus: Corpus, key: str) -> dict[str, Any]:
    """A corpus puzzle as the page's document (opened in the editor)."""
    if len(key) > 200:
        raise UsageError("not a puzzle key")
    return {"document": document_of(corpus.get(key))}
