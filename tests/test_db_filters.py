"""Query filters (nonoforge/db/filters.py): size, colours, site and rating conditions,
as keywords and as typed :class:`Filters`, on SQLite and PostgreSQL."""

from __future__ import annotations

from dbfixtures import corpus, mixed, puzzles, url

from nonoforge.db import Corpus
from nonoforge.puzzle import Puzzle

__all__ = ["corpus", "mixed", "url"]  # the corpus fixtures, from dbfixtures


def test_query_filters(mixed: tuple[Corpus, dict[str, list[Puzzle]]]) -> None:
    c, g = mixed

    def keys(ps: list[Puzzle]) -> list[str]:
        return [p.key for p in ps]

    everything = keys(g["small"] + g["wide"] + g["colour"] + g["big"])
    assert c.keys() == everything
    assert keys(list(c.query())) == everything
    assert c.keys(width=12) == keys(g["wide"])
    assert c.keys(height=25) == keys(g["big"])
    assert c.keys(min_size=8) == keys(g["colour"] + g["big"])
    assert c.keys(max_size=(12, 6)) == keys(g["small"] + g["wide"])
    assert c.keys(min_size=(7, 7), max_size=(20, 25)) == keys(g["colour"] + g["big"])
    assert c.keys(colors=2) == keys(g["colour"])
    assert c.keys(colors=(1, 1)) == keys(g["small"] + g["wide"] + g["big"])
    assert c.keys(colors=(2, None)) == keys(g["colour"])
    assert c.keys(source="a") == keys(g["small"] + g["colour"])
    assert c.keys(status="multiple") == keys(g["big"])
    assert c.keys(status="unique") == keys(g["small"] + g["wide"][:1])
    assert c.keys(status="unique", solver_version="s1") == keys(g["small"])
    assert c.keys(technique="probe") == keys(g["big"])
    assert c.keys(grade=(1, 2)) == keys(g["small"] + g["wide"][:1])
    assert c.keys(grade=(3, None), source="c") == keys(g["big"])
    assert c.keys(source="a", limit=3) == keys(g["small"][:3])
    assert keys(list(c.query(source="a", limit=3))) == keys(g["small"][:3])
    assert c.keys(source="nowhere") == []
    got = next(c.query(colors=2))
    assert got.meta.source == "a" and got.meta.title == "p0" and got.goal is not None
    info = c.info(keys(g["big"]))
    assert [(r["width"], r["height"], r["source"]) for r in info] == [(20, 25, "c")] * 2


def test_typed_filters_select_what_the_keywords_select(
    mixed: tuple[Corpus, dict[str, list[Puzzle]]],
) -> None:
    from nonoforge.db.filters import Filters
    from nonoforge.ranges import SizeSpan, Span

    c, _ = mixed
    for f, kw in (
        (Filters(size=SizeSpan.parse("8..")), {"min_size": 8}),
        (Filters(size=SizeSpan.parse("..12x6")), {"max_size": (12, 6)}),
        (Filters(size=SizeSpan.parse("7x7..20x25")), {"min_size": (7, 7), "max_size": (20, 25)}),
        (Filters(colors=Span.parse("2..")), {"colors": (2, None)}),
        (Filters(grade=Span.parse("1-2")), {"grade": (1, 2)}),
        (Filters(grade=Span.parse("3.."), source="c"), {"grade": (3, None), "source": "c"}),
        (Filters(source="a", limit=3), {"source": "a", "limit": 3}),
    ):
        assert c.keys(**f.query_kwargs()) == c.keys(**kw), f


def test_an_exact_size_selects_what_the_range_does(url: str) -> None:
    with Corpus.open(url) as c:
        c.add(puzzles(4, 49, size=(6, 5)) + puzzles(3, 50, size=(5, 6)) + puzzles(2, 51))
        got = c.keys(min_size=(6, 5), max_size=(6, 5))
        assert got == c.keys(min_size=(6, 5), max_size=(6, 6)) and len(got) == 6
        assert c.keys(colors=1) == c.keys(colors=(1, 1)) == c.keys()
        assert [r["key"] for r in c.listing(min_size=(6, 5), max_size=(6, 5), limit=4)] == got[:4]
