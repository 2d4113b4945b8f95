"""The studio's documents (nonoforge/studio/docs.py): the page's picture as JSON and back."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nonoforge.errors import UsageError
from nonoforge.formats import read_file
from nonoforge.puzzle import Grid, Palette, Puzzle
from nonoforge.studio.docs import Document, document_of, palette_json, provenance_note

DATA = Path(__file__).parent / "data"
PAL = [{"name": "white", "hex": "#ffffff"}, {"name": "red", "hex": "#d03030"},
       {"name": "navy", "hex": "#102060"}]


@settings(max_examples=50, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(1, 9), st.integers(1, 9)),
              elements=st.integers(0, 2)))
def test_a_document_round_trips(cells: np.ndarray) -> None:
    p = Puzzle.from_grid(Grid(cells), Palette.of(*((c["name"], c["hex"]) for c in PAL)))
    doc = json.loads(json.dumps(document_of(p)))  # as the page gets it and sends it back
    back = Document.parse(doc).puzzle()
    assert back.key == p.key and back.goal == p.goal


def test_a_file_puzzle_keeps_its_title_and_author() -> None:
    dancer = read_file(DATA / "dancer.non")[0]  # mikix/nonogram-db's webpbn #1, with its goal
    doc = document_of(dancer)
    assert (doc["title"], doc["author"], doc["width"], doc["height"]) == (
        dancer.meta.title, dancer.meta.author, 5, 10)
    assert doc["note"] is None and doc["cells"] == dancer.goal.cells.tolist()


def test_clues_only_open_with_the_solvers_picture() -> None:
    dancer = read_file(DATA / "dancer.xml")[0]  # webpbn's XML export: clues, no picture
    assert dancer.goal is None
    doc = document_of(dancer)
    assert "solver" in doc["note"]
    assert Document.parse(doc).puzzle().key == dancer.key


@pytest.mark.parametrize("raw, says", [
    ({"palette": PAL[:1], "cells": [[0]]}, "palette must list"),
    ({"palette": [PAL[0], {"name": "x", "hex": "nope"}], "cells": [[0]]}, "palette colour 2"),
    ({"palette": [PAL[0], {"name": "white", "hex": "#000"}], "cells": [[0]]}, "must differ"),
    ({"palette": PAL, "cells": [[0, 1], [1]]}, "same length"),
    ({"palette": PAL, "cells": [[0, 3]]}, "colour indices 0..2"),
    ({"palette": PAL, "cells": [["a"]]}, "colour indices"),
    ({"palette": PAL, "cells": []}, "list of rows"),
    ({"palette": PAL, "cells": [[0] * 101]}, "1..100 cells a side"),
    ([1, 2], "JSON object"),
])
def test_bad_documents_are_refused_in_one_line(raw: object, says: str) -> None:
    with pytest.raises(UsageError, match=says) as e:
        Document.parse(raw)
    assert "\n" not in str(e.value)


def test_titles_are_stored_as_text() -> None:
    doc = Document.parse({"palette": PAL, "cells": [[1]], "title": "a\x00b <i>c</i>",
                          "author": "  "})
    assert doc.title == "a\ufffdb <i>c</i>" and doc.author is None


def test_provenance_keeps_what_it_knows_and_drops_the_rest() -> None:
    note = provenance_note({
        "image_sha256": "ab" * 32, "image_name": "cat.png", "origin": "picture",
        "settings": {"size": "30x30", "colors": 4, "nested": {"x": 1}},
        "edits": [[1, 2, 0], [1, "x", 0], "junk"], "path": "/etc/passwd",
    })
    assert note is not None
    assert json.loads(note) == {
        "made_with": "nonoforge studio", "image_sha256": "ab" * 32, "image_name": "cat.png",
        "origin": "picture", "settings": {"size": "30x30", "colors": 4},
        "edits": [[1, 2, 0]]}
    assert provenance_note("nothing") is None
    assert json.loads(provenance_note({"image_sha256": "not hex"}) or "{}") == {
        "made_with": "nonoforge studio"}


def test_palette_json_is_what_parse_reads() -> None:
    pal = Palette.of(("white", "#ffffff"), ("red", "#d03030"))
    assert Document.parse({"palette": palette_json(pal), "cells": [[1]]}).palette == pal


def test_what_the_editor_cannot_hold_is_said() -> None:
    big = Puzzle.from_grid(Grid(np.zeros((3, 101), dtype=int) + 1))
    with pytest.raises(UsageError, match="up to 100 cells a side"):
        document_of(big)


def test_a_puzzle_with_givens_keeps_them_through_the_page() -> None:
    (switch, colour) = read_file(DATA / "givens.nonpack")  # one given each
    for p in (switch, colour):
        doc = json.loads(json.dumps(document_of(p)))
        assert doc["givens"] == [list(g) for g in p.givens] and doc["note"] is None
        back = Document.parse(doc).puzzle()
        assert back.key == p.key and back.givens == p.givens
        # a given may come as [row, column]: it shows the picture's colour there
        bare = {**doc, "givens": [g[:2] for g in doc["givens"]]}
        assert Document.parse(bare).givens == p.givens
        assert Document.parse({**doc, "givens": []}).puzzle().givens == ()


@pytest.mark.parametrize(("givens", "says"), [
    ([[0, 0, 1]], "the picture has 0"),
    ([[0, 0], [0, 0]], "given twice"),
    ([[5, 0]], "outside"),
    ([[0, True]], "whole numbers"),
    ("0,0", "list"),
])
def test_bad_givens_are_one_line(givens: object, says: str) -> None:
    doc = {"palette": PAL, "cells": [[0, 1], [1, 0]], "givens": givens}
    with pytest.raises(UsageError, match=says):
        Document.parse(doc)
