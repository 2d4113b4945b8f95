"""bench/fit_model.py's timing bookkeeping: what the reference fit takes as a puzzle's time."""

from __future__ import annotations

from conftest import bench_module

from nonoforge.pipeline.rate import RateOptions, rate_puzzle
from nonoforge.puzzle import Grid, Puzzle

fit_model = bench_module("fit_model")


def test_quick_puzzles_timed_again_alone_keep_one_consistent_time() -> None:
    """The pooled time of a quick puzzle gives way to its solo times; when no solo pass
    times it, the pooled times stay, ``cpu_s`` with them (it was left stale beside an
    emptied list of times)."""
    p = Puzzle.from_grid(Grid.from_rows(["##.", "#.#", ".##"]))
    pooled = rate_puzzle(p, RateOptions(runs=1))
    pooled["times"], pooled["cpu_times"], pooled["cpu_s"] = [99.0], [99.0], 99.0
    best = {p.key: pooled}
    fit_model.measure(best, [p], 0, 1, 0.0, "quick:", afresh=True)  # no pass times it
    assert (best[p.key]["cpu_times"], best[p.key]["cpu_s"]) == ([99.0], 99.0)
    fit_model.measure(best, [p], 2, 1, 0.0, "quick:", afresh=True)
    row = best[p.key]
    assert 99.0 not in row["cpu_times"] and 99.0 not in row["times"]
    assert len(row["cpu_times"]) == len(row["times"]) >= 2
    assert row["cpu_s"] == min(row["cpu_times"]) < 99.0
    n = len(row["cpu_times"])
    fit_model.measure(best, [p], 1, 1, 0.0, "tiny:")  # a later pass adds to them
    assert len(row["cpu_times"]) > n and row["cpu_s"] == min(row["cpu_times"])


def test_rerate_changed_keeps_only_rows_whose_solve_is_the_same(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """``--rerate-changed``: a puzzle solved again with the same status, technique and
    effort keeps its saved row (times included); one whose effort moved, or that has no
    saved row, is handed back to be rated again."""
    import json

    same = Puzzle.from_grid(Grid.from_rows(["##.", "#.#", ".##"]))
    moved = Puzzle.from_grid(Grid.from_rows(["#.#", ".#.", "#.#"]))
    new = Puzzle.from_grid(Grid.from_rows(["###", "...", "#.#"]))
    rows = [rate_puzzle(p, RateOptions(runs=1)) for p in (same, moved)]
    rows[0]["cpu_s"] = 42.0
    rows[1]["effort"] = {**rows[1]["effort"], "sat_conflicts": 7}
    monkeypatch.setattr(fit_model, "CACHE", tmp_path)
    (tmp_path / "fit-rows-9.9.json").write_text(json.dumps(rows))
    best: dict[str, dict] = {}
    ref = [("a", same), ("b", moved), ("c", new)]
    assert fit_model.changed(ref, "9.9", best) == ref[1:]
    assert list(best) == [same.key] and best[same.key]["cpu_s"] == 42.0
