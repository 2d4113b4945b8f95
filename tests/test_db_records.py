"""How puzzles sit in the database (nonoforge/db/records.py): canonical records in any
palette order, and givens stored beside the ROFL record, on SQLite and PostgreSQL."""

from __future__ import annotations

import numpy as np
from dbfixtures import GIVENS, corpus, puzzles, url
from sqlalchemy import select

from nonoforge.db import AddStats, Corpus
from nonoforge.db import models as m
from nonoforge.puzzle import Meta, Palette, Puzzle

__all__ = ["corpus", "url"]  # the corpus fixtures, from dbfixtures


def test_colour_puzzles_are_stored_canonically(corpus: Corpus) -> None:
    ps = puzzles(6, 6, size=(7, 6), ncolors=3)
    corpus.add(ps)
    for p in ps:
        got = corpus.get(p.key)
        assert got.key == p.key
        assert got == p.canonical()
        assert got.ncolors == 3
    assert corpus.stats()["by_colors"] == {"3": 6}
    # a one-colour puzzle in red is the same puzzle as in black
    red = Palette.of(("white", "#ffffff"), ("red", "#ff0000"))
    bw = puzzles(1, 7, source="bw")[0]
    corpus.add([bw.replace(palette=red, meta=Meta(source="red", source_id="1"))])
    assert corpus.add([bw]) == AddStats(merged=1)


def test_givens_are_stored_read_back_and_told_apart(corpus: Corpus) -> None:
    """``db add`` of a .non with givens keeps them (ROFL has none: their own column); the
    same clues without givens are another puzzle; get, query and collections give them
    back, in the record's canonical colours."""
    from nonoforge.formats import read_file

    switch, steps = read_file(GIVENS)
    plain = switch.replace(givens=(), meta=Meta(title="no givens"))
    assert corpus.add([switch, steps, plain]) == AddStats(new=3)
    assert corpus.add([switch]) == AddStats(duplicate=1)  # dedup by key, givens included
    for p in (switch, steps, plain):
        got = corpus.get(p.key)
        assert got.givens == p.canonical().givens and got.key == p.key
    assert corpus.get(steps.key).givens == ((0, 0, 1), (4, 5, 2), (5, 0, 0))
    assert {p.key: p.givens for p in corpus.query()} == {
        p.key: p.givens for p in (switch, steps, plain)
    }
    corpus.create_collection("printed", [steps.key, switch.key, plain.key])
    assert [p.givens for p in corpus.collection("printed")] == [
        steps.givens, switch.givens, ()
    ]
    with corpus.engine.connect() as conn:
        stored = dict(conn.execute(select(m.puzzles.c.key, m.puzzles.c.givens)).all())
    assert stored == {switch.key: "1,1,1 9,9,0", steps.key: "0,0,1 4,5,2 5,0,0",
                      plain.key: None}


def test_givens_in_a_colour_puzzle_follow_its_canonical_colours(corpus: Corpus) -> None:
    """A palette in another order is the same puzzle: its givens' colours are renumbered
    as its clues are, so the stored puzzle has the same key."""
    from nonoforge.formats import read_file

    steps = read_file(GIVENS)[1]
    pal = steps.palette
    swapped = Palette((pal[0], pal[2], pal[1]))
    table = [0, 2, 1]
    assert steps.goal is not None
    other = Puzzle.from_grid(
        [[table[v] for v in row] for row in steps.goal.cells.tolist()], swapped,
        meta=Meta(source="swapped"),
    ).replace(givens=[(r, c, table[k]) for r, c, k in steps.givens])
    assert other.key == steps.key
    corpus.add([other])
    assert corpus.add([steps]) == AddStats(merged=1)
    assert corpus.get(steps.key).givens == steps.givens


def test_random_givens_round_trip_in_canonical_colours(corpus: Corpus) -> None:
    """Random pictures in 1-3 colours, palettes in any order, a few cells given: every
    puzzle comes back with its givens (renumbered as its colours are), under its key."""
    rng = np.random.default_rng(77)
    ps: list[Puzzle] = []
    for n, ncolors in enumerate([1, 2, 3] * 4):
        base = puzzles(1, 100 + n, size=(6, 5), ncolors=ncolors, source=f"r{n}")[0]
        assert base.goal is not None
        k = int(rng.integers(1, 5))
        cells = {(int(rng.integers(0, 5)), int(rng.integers(0, 6))) for _ in range(k)}
        given = base.replace(givens=[(r, c, int(base.goal.cells[r, c])) for r, c in cells])
        p = given
        if ncolors > 1:  # the same puzzle under a shuffled palette
            order = [0, *(int(i) + 1 for i in rng.permutation(ncolors))]
            inv = {old: new for new, old in enumerate(order)}
            p = Puzzle.from_grid(
                [[inv[v] for v in row] for row in base.goal.cells.tolist()],
                Palette(tuple(base.palette[i] for i in order)), meta=base.meta,
            ).replace(givens=[(r, c, inv[g]) for r, c, g in given.givens])
            assert p.key == given.key
        ps.append(p)
    corpus.add(ps)
    for p in ps:
        got = corpus.get(p.key)
        assert got.givens == p.canonical().givens and got.key == p.key
