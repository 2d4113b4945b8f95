"""Counts over the whole corpus (nonoforge/db/stats.py), on SQLite and PostgreSQL."""

from __future__ import annotations

from dbfixtures import corpus, mixed, puzzles, url

from nonoforge.db import Corpus
from nonoforge.puzzle import Puzzle

__all__ = ["corpus", "mixed", "url"]  # the corpus fixtures, from dbfixtures


def test_stats_counts_everything(mixed: tuple[Corpus, dict[str, list[Puzzle]]]) -> None:
    c, _ = mixed
    c.add_fetched("webpbn", "1", None, "missing", "404")
    s = c.stats()
    assert s["puzzles"] == 14
    assert s["by_site"] == {"a": 8, "b": 4, "c": 2}
    assert s["by_size"] == {"1-10": 8, "11-15": 4, "21-30": 2}
    assert s["by_colors"] == {"1": 11, "2": 3}
    assert s["solver_version"] == "s2"
    assert s["by_grade"] == {"2": 1, "unrated": 13}
    assert c.stats("s1")["by_grade"] == {"1": 5, "4": 2, "unrated": 7}
    assert s["fetch_log"] == {"webpbn": {"missing": 1}}


def test_stats_default_to_the_version_rated_last(url: str) -> None:
    with Corpus.open(url) as c:
        ps = puzzles(3, 48)
        c.add(ps)
        c.save_results([{"key": ps[0].key, "grade": 2, "rated_at": "2026-03-01T00:00:00+00:00"}],
                       "b-older")
        c.save_results([{"key": p.key, "grade": 1, "rated_at": "2026-01-01T00:00:00+00:00"}
                        for p in ps], "a-newer")
        c.save_results([{"key": ps[1].key, "grade": 4, "rated_at": "2026-05-01T00:00:00+00:00"}],
                       "a-newer")
        assert c.stats()["solver_version"] == "a-newer"
        assert c.stats()["by_grade"] == {"1": 2, "4": 1}
        assert c.stats("b-older")["by_grade"] == {"2": 1, "unrated": 2}
