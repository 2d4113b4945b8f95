"""The printable book: opens in a real PDF renderer, with the expected pages."""

from __future__ import annotations

import numpy as np
import pypdfium2 as pdfium

from nonoforge.pipeline.pdf import BookEntry, book, page_count
from nonoforge.puzzle import Grid, Puzzle


def entries() -> list[BookEntry]:
    rng = np.random.default_rng(5)
    out = []
    for i, (w, h, c) in enumerate([(10, 10, 1), (12, 8, 3), (5, 5, 2), (30, 25, 1), (8, 8, 1)]):
        g = rng.integers(0, c + 1, (h, w))
        g[0, 0] = 1
        p = Puzzle.from_grid(Grid(g))
        if i == 2:
            p = p.replace(goal=None)
        out.append(BookEntry(p, i + 1, f"Puzzle {i + 1}", 1 + i % 5))
    return out


def test_book_renders_with_pdfium_and_has_the_expected_pages(tmp_path) -> None:
    es = entries()
    data = book(es, "Test book")
    assert data[:5] == b"%PDF-"
    path = tmp_path / "book.pdf"
    path.write_bytes(data)
    doc = pdfium.PdfDocument(str(path))
    # title; puzzles 1-3 share a page; 4 alone; 5 alone (it follows a large one);
    # solutions: 1, 2 share; 4; 5 (3 has no goal)
    assert len(doc) == page_count(es) == 1 + 3 + 3
    img = doc[1].render(scale=1).to_pil().convert("L")
    arr = np.asarray(img)
    assert (arr < 128).mean() > 0.005  # something is drawn: grid lines and clues
    text = doc[1].get_textpage().get_text_range()
    assert "Puzzle 1" in text and "grade 1" in text


def test_book_is_deterministic_apart_from_its_timestamp() -> None:
    es = entries()
    assert page_count(es) == page_count(list(es))
    assert len(book(es)) > 1000
