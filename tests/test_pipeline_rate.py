"""The rating executors: a real process pool, repeats of slow puzzles spread over it."""

from __future__ import annotations

import statistics

import pytest
from conftest import fresh_python

from nonoforge.examples import PUZZLES
from nonoforge.formats import read_file
from nonoforge.pipeline.rate import LocalExecutor, RateOptions, rate_one
from nonoforge.puzzle import Puzzle
from nonoforge.results import Rating


def examples() -> list[Puzzle]:
    return [read_file(PUZZLES / f"{n}.non")[0] for n in ("dancer", "cat", "skid", "edge")]


def test_a_deferred_puzzle_comes_back_after_its_first_run() -> None:
    p = examples()[0]
    row = rate_one(p, RateOptions(runs=3, defer_after=0.0))
    assert row.repeats == 2 and len(row.times) == 1
    whole = rate_one(p, RateOptions(runs=3))
    assert whole.repeats is None and len(whole.times) == 3
    assert whole.effort == row.effort


def test_the_pool_completes_deferred_rows_with_every_run() -> None:
    puzzles = examples()
    # every first run counts as slow: all repeats go through the pool as separate tasks
    opts = RateOptions(runs=3, defer_after=0.0)
    ex = LocalExecutor(2)
    rows = {r.key: r for r in ex.map_unordered(rate_one, puzzles, opts)}
    alone = {r.key: r for r in LocalExecutor(1).map_unordered(rate_one, puzzles, opts)}
    assert set(rows) == {p.key for p in puzzles} == set(alone)
    for key, r in rows.items():
        assert r.repeats is None and alone[key].repeats is None
        assert len(r.times) == len(alone[key].times) == 3
        assert r.time_s == statistics.median(r.times)
        assert r.effort == alone[key].effort


def test_a_started_pool_is_closed_by_the_map_and_can_start_again() -> None:
    ex = LocalExecutor(2)
    ex.start()
    assert len(list(ex.map_unordered(rate_one, examples()[:2], RateOptions(runs=1)))) == 2
    assert ex._pool is None
    assert len(list(ex.map_unordered(rate_one, examples()[2:], RateOptions(runs=1)))) == 2
    ex.close()  # closing a closed executor is harmless


FAULTS = """
import resource
import numpy as np
from nonoforge.pipeline.rate import roomy_malloc

def faults():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(100):
        a = np.ones(1 << 17)  # 1 MiB, above the fixed 128 KiB mmap threshold
        del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

outside = faults()
with roomy_malloc():
    inside = faults()
after = faults()
print(outside, inside, after)
"""


def test_roomy_malloc_undoes_dasks_fixed_thresholds_for_the_block_only() -> None:
    """A Dask nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536: every 1 MiB array is
    a fresh mmap, faulted in page by page. Inside roomy_malloc the memory is reused; after
    it, the worker is back to what its environment asked for. Counted in page faults."""
    import os
    import sys
    from pathlib import Path

    import pytest

    if not sys.platform.startswith("linux") or not hasattr(os, "confstr") \
            or "glibc" not in (os.confstr("CS_GNU_LIBC_VERSION") or ""):
        pytest.skip("glibc malloc only")
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "MALLOC_TRIM_THRESHOLD_": "65536"}
    out = fresh_python(FAULTS, env=env).stdout
    outside, inside, after = map(int, out.split())
    assert outside > 100 * 200  # ~256 faults per array, 100 arrays
    assert inside < outside / 10
    assert after > 100 * 200


def test_roomy_malloc_restores_when_the_last_of_several_threads_leaves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Dask worker with several threads runs several chunks at once: the thresholds are
    the process's, so the first block to enter sets them and only the last to leave
    restores them (and trims). Recorded through a stand-in for glibc's two calls."""
    import threading

    from nonoforge.pipeline import rate

    calls: list[tuple[str, int, int]] = []

    class Libc:
        def mallopt(self, param: int, value: int) -> int:
            calls.append(("mallopt", param, value))
            return 1

        def malloc_trim(self, pad: int) -> int:
            calls.append(("trim", pad, 0))
            return 1

    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "0x10000")
    monkeypatch.setattr(rate, "_glibc", Libc)
    inside, leave = threading.Barrier(3), threading.Event()

    def chunk() -> None:
        with rate.roomy_malloc():
            inside.wait()
            leave.wait()

    threads = [threading.Thread(target=chunk) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    set_calls = list(calls)
    assert [c[0] for c in set_calls] == ["mallopt", "mallopt"]  # set once, for both
    leave.set()
    for t in threads:
        t.join()
    restored = calls[len(set_calls):]
    assert ("mallopt", rate._M_TRIM_THRESHOLD, 0x10000) in restored  # glibc reads hex
    assert [c[0] for c in restored] == ["mallopt", "mallopt", "trim"]  # restored once


def test_a_puzzle_with_givens_is_rated_as_printed() -> None:
    """Givens (cells printed solved) are part of the puzzle: rating proves it unique with
    them, in this process and in the pool's; the bare clues are another puzzle (another
    key) with several solutions."""
    from pathlib import Path

    switch, steps = read_file(Path(__file__).parent / "data" / "givens.nonpack")
    opts = RateOptions(runs=1)
    for p in (switch, steps):
        row = rate_one(p, opts)
        assert (row.key, row.status, row.technique) == (p.key, "unique", "line")
        bare = rate_one(p.replace(givens=()), opts)
        assert bare.status == "multiple" and bare.key != p.key
    rows = list(LocalExecutor(1).map_unordered(rate_one, [switch, steps], opts))
    assert sorted(r.status for r in rows) == ["unique", "unique"]


def test_the_pool_never_starts_more_processes_than_puzzles() -> None:
    """Each worker costs about a second of CPU to start: `--workers 64` for one puzzle
    started 64 of them. The pool has one process a puzzle at most, none for no work."""
    opts = RateOptions(runs=1)
    for workers, puzzles in ((8, examples()[:1]), (8, examples()[:3]), (2, examples())):
        ex = LocalExecutor(workers)
        it = ex.map_unordered(rate_one, puzzles, opts)
        first = next(it)
        assert ex._pool is not None
        assert ex.size == min(workers, len(puzzles)) >= len(ex._pool._processes)
        assert [first.key, *(r.key for r in it)] != []
        assert ex._pool is None and ex.size == 0
    ex = LocalExecutor(8)
    ex.start(0)
    assert ex._pool is None
    assert list(ex.map_unordered(rate_one, [], opts)) == [] and ex._pool is None
    ex.start(2)
    assert ex.size == 2
    ex.close()


def _gone(pid: int) -> bool:
    """No such process, not even one that has exited and waits to be reaped (Linux)."""
    import os

    return not os.path.exists(f"/proc/{pid}")


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="needs /proc")
def test_the_map_returns_with_every_worker_reaped() -> None:
    """A rating followed by an export must not share the machine with its workers: they
    used to be left to stop on their own, sweeping their objects while the exports ran.
    When the map returns, every worker has exited and been reaped (no process left, not
    even a zombie), and it exited cleanly."""
    ex = LocalExecutor(2)
    it = ex.map_unordered(rate_one, examples(), RateOptions(runs=1))
    rows = [next(it)]
    assert ex._pool is not None
    workers = list(ex._pool._processes.values())
    assert len(workers) == 2 and all(w.is_alive() for w in workers)
    rows += list(it)
    assert len(rows) == 4 and ex._pool is None
    assert all(w.exitcode == 0 for w in workers)
    assert all(_gone(w.pid) for w in workers)


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="needs /proc")
def test_a_map_left_early_kills_and_reaps_its_busy_workers() -> None:
    """Leaving the map early (Ctrl-C, an error) stops workers still on a puzzle at once:
    nothing of the pool stays behind to finish work no one wants."""
    ex = LocalExecutor(2)
    it = ex.map_unordered(rate_one, examples() * 3, RateOptions(runs=3))
    next(it)
    assert ex._pool is not None
    workers = list(ex._pool._processes.values())
    it.close()  # what an exception in the caller's loop does to the generator
    assert ex._pool is None and ex.size == 0
    assert all(not w.is_alive() and _gone(w.pid) for w in workers)


def die_on_boom(p: Puzzle, opts: RateOptions) -> Rating:
    """The real rating, except that the worker process dies outright on one puzzle."""
    import os

    if p.meta.title == "boom":
        os._exit(9)
    return rate_one(p, opts)


def test_one_puzzle_in_a_pool_of_its_own_still_costs_only_itself() -> None:
    """Capped at one process for one puzzle, the pool still isolates it: the worker it
    kills makes an error row, not a dead command."""
    from nonoforge.puzzle import Meta

    boom = examples()[0].replace(meta=Meta(title="boom"))
    rows = list(LocalExecutor(4).map_unordered(die_on_boom, [boom], RateOptions(runs=1)))
    assert len(rows) == 1 and rows[0].status == "error"
    assert rows[0].error == "the solver process died on this puzzle"


# -- the human difficulty features (issue 36) -----------------------------------------------


def test_a_rating_carries_the_step_solvers_own_features_and_score() -> None:
    """Known answers: the human-like step solver's summary of each bundled puzzle (its
    own documented output), and the score and grade its documented formula gives."""
    from nonoforge.pipeline.difficulty import human_grade, human_score
    from nonoforge.pipeline.rate import HUMAN_KEYS, HUMAN_PROBE_LINES
    from nonoforge.solver.human import HumanOptions, explain_path

    for p in examples():
        row = rate_one(p, RateOptions(runs=1))
        path = explain_path(p, options=HumanOptions(max_probe_lines=HUMAN_PROBE_LINES))
        want = {k: path.summary()[k] for k in HUMAN_KEYS}
        assert row.human == want, p.meta.title
        assert want["stop"] == "solved" and want["steps"] == len(path.steps) > 0
        assert row.human_score == human_score(want) > 0  # solved: no stall penalty
        assert row.human_grade == human_grade(row.human_score)


def test_a_stalled_path_scores_its_steps_plus_the_penalty_per_undecided_cell() -> None:
    """A puzzle with two solutions: the path stalls, the score adds the stated penalty for
    each cell left, and the verdict ``multiple`` gets a human grade as it gets a time one."""
    from nonoforge.pipeline.difficulty import HUMAN_STALL_PENALTY, human_score

    p = Puzzle.from_clues([[1], [1]], [[1], [1]])
    row = rate_one(p, RateOptions(runs=1))
    assert row.status == "multiple" and row.human is not None
    assert row.human["stop"] == "stalled" and row.human["steps"] == 0
    assert row.human_score == human_score(row.human) + 4 * HUMAN_STALL_PENALTY
    assert row.human_grade is not None


def test_the_human_score_never_falls_as_a_path_gets_harder() -> None:
    from nonoforge.pipeline.difficulty import human_score

    base = {"per_technique": {"simple_boxes": 10, "line": 2}, "footholds": 4,
            "bottleneck": 2}
    s = human_score(base)
    assert human_score({**base, "per_technique": {"simple_boxes": 11, "line": 2}}) > s
    assert human_score({**base, "footholds": 3}) > s
    assert human_score({**base, "bottleneck": 1}) > s
    assert human_score(base, undecided=1) > s
    assert human_score(base) == s  # deterministic


def test_rate_json_gives_the_human_fields_after_the_existing_ones() -> None:
    import json

    from typer.testing import CliRunner

    from nonoforge.cli import app
    from nonoforge.pipeline.jobs import ROW_FIELDS

    r = CliRunner().invoke(app, ["-q", "rate", "example:dancer", "--json", "--workers", "1",
                                 "--runs", "1"])
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout.splitlines()[0])
    assert list(row)[:12] == ["file", "key", "title", "width", "height", "colors", "status",
                              "technique", "score", "grade", "time_s", "effort"]
    assert list(row)[12:] == ["human", "human_score", "human_grade"] == list(ROW_FIELDS[11:])
    assert row["human"]["stop"] == "solved" and row["human"]["footholds"] > 0
    assert isinstance(row["human_score"], float) and 1 <= row["human_grade"] <= 5
