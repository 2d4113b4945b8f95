"""Collection selection: filters, balance over grades, symmetry dedup, easy-to-hard order."""

from __future__ import annotations

import numpy as np

from nonoforge.pipeline.collection import Candidate, Filters, select, shape_key
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.ranges import SizeSpan, Span


def rand_puzzle(seed: int, w: int = 10, h: int = 10, colors: int = 1) -> Puzzle:
    g = np.random.default_rng(seed).integers(0, colors + 1, (h, w))
    g[0, 0] = 1
    return Puzzle.from_grid(Grid(g))


def pool() -> list[Candidate]:
    out = []
    for i in range(100):
        size = 5 + (i % 5) * 5
        p = rand_puzzle(i, size, size, 1 + i % 3)
        out.append(Candidate(p, grade=1 + i % 5, score=i / 10, source=("a", "b")[i % 2]))
    return out


def test_filters_are_honoured_and_order_is_easy_to_hard() -> None:
    f = Filters(grade=Span(1, 3), size=SizeSpan.parse("10x10..20x20"), colors=Span(1, 2))
    chosen = select(pool(), f, 12)
    assert len(chosen) == 12
    for c in chosen:
        assert 1 <= c.grade <= 3
        assert 10 <= c.puzzle.width <= 20 and 10 <= c.puzzle.height <= 20
        assert 1 <= c.puzzle.ncolors <= 2
    order = [(c.grade, c.score) for c in chosen]
    assert order == sorted(order)


def test_grades_are_balanced() -> None:
    chosen = select(pool(), Filters(grade=Span(1, 5)), 15)
    counts = [sum(1 for c in chosen if c.grade == g) for g in range(1, 6)]
    assert counts == [3, 3, 3, 3, 3]


def test_source_filter_and_short_supply() -> None:
    chosen = select(pool(), Filters(source="a"), 1000)
    assert chosen and all(c.source == "a" for c in chosen)
    assert len(chosen) == 50


def test_mirror_images_and_transposes_count_once() -> None:
    p = rand_puzzle(3, 6, 4)
    g = p.goal.cells
    variants = [np.fliplr(g), np.flipud(g), g.T, np.rot90(g)]
    keys = {shape_key(Puzzle.from_grid(Grid(v))) for v in variants}
    assert keys == {shape_key(p)}
    cands = [Candidate(Puzzle.from_grid(Grid(v)), 1, float(i)) for i, v in enumerate(variants)]
    assert len(select(cands, Filters(), 10)) == 1


def test_ungraded_puzzles_never_enter() -> None:
    assert select([Candidate(rand_puzzle(1), None, 0.0)], Filters(), 10) == []


def test_filters_admit_open_and_exact_ranges() -> None:
    p = rand_puzzle(1, 12, 8, 2)
    cand = Candidate(p, grade=4, score=1.0, source="b")
    for f, admitted in (
        (Filters(), True),
        (Filters(size=SizeSpan.parse("..12")), True),
        (Filters(size=SizeSpan.parse("..10")), False),  # width 12 is too wide
        (Filters(size=SizeSpan.parse("12x8")), True),
        (Filters(grade=Span(None, 3)), False),
        (Filters(grade=Span(4, None), colors=Span(2, 2), source="b"), True),
        (Filters(width=12, height=9), False),
    ):
        assert (select([cand], f, 1) == [cand]) is admitted, f
