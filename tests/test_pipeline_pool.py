"""The ordered worker pool (``solve --workers``): input order, one lost worker costs one item."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from nonoforge.pipeline.pool import OrderedPool


def slow_square(x: int) -> int:
    """Later items finish first: the pool must still answer in input order."""
    time.sleep(0.01 * (5 - x % 5))
    return x * x


def square_or_die(x: int) -> int:
    if x == 3:  # a crash in compiled code, the kernel's OOM killer: the process is gone
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x


def square_or_raise(x: int) -> int:
    if x == 2:
        raise ValueError("two is refused")
    return x * x


def square_or_none(x: int) -> int:
    time.sleep(0.002)
    return x * x


def pid_of(_: int) -> int:
    return os.getpid()


def test_results_come_in_input_order() -> None:
    with OrderedPool(2) as pool:
        assert list(pool.imap(slow_square, range(12))) == [x * x for x in range(12)]
        assert pool.started == 2


def test_never_more_processes_than_items_of_work() -> None:
    with OrderedPool(4) as pool:
        assert list(pool.imap(slow_square, [1, 2])) == [1, 4]
        assert pool.started == 2
    with OrderedPool(4) as pool:  # one item: done here, no process at all
        assert list(pool.imap(pid_of, [7])) == [os.getpid()]
        assert pool.started == 0
    with OrderedPool(3) as pool:  # items done here (local) are no work for a process
        out = list(pool.imap(slow_square, [-1, 2, -3, -4, 5], local=lambda x: x < 0))
        assert out == [1, 4, 9, 16, 25] and pool.started == 2


def test_the_work_runs_in_other_processes() -> None:
    with OrderedPool(2) as pool:
        pids = list(pool.imap(pid_of, range(6)))
    assert os.getpid() not in pids and 1 <= len(set(pids)) <= 2


def test_a_worker_that_dies_costs_only_its_item() -> None:
    with OrderedPool(2, on_death=lambda x: -x) as pool:
        assert list(pool.imap(square_or_die, range(7))) == [0, 1, 4, -3, 16, 25, 36]
        assert pool.started == 3  # the dead worker's successor


def test_workers_killed_from_outside_cost_at_most_the_items_they_held() -> None:
    """Workers killed between answers, busy or idle: an item handed to a dead one (its pipe
    broken: the race CI met) goes to another worker uncharged; only the item a worker was
    on is lost, and every item is answered once, in order."""
    for _ in range(3):
        pool: OrderedPool[int, int] = OrderedPool(2, on_death=lambda x: -x)

        def kill_all(x: int, pool: OrderedPool[int, int] = pool) -> bool:
            if x % 10 == 5:  # read in its turn, here: the workers die meanwhile
                for p in list(pool._procs):
                    p.process.kill()
                    p.process.join()
            return False

        with pool:
            out = list(pool.imap(square_or_none, range(40), local=kill_all))
        assert len(out) == 40
        assert all(v in (x * x, -x) for x, v in enumerate(out)), out
        assert sum(v < 0 for v in out) <= 2 * 4  # at most the item each dead worker was on


def test_an_exception_in_the_work_is_raised_here_and_stops_the_workers() -> None:
    pool: OrderedPool[int, int] = OrderedPool(2)
    with pytest.raises(ValueError, match="two is refused"), pool:
        list(pool.imap(square_or_raise, range(6)))
    assert pool._procs == []


def test_leaving_early_kills_and_reaps_every_worker() -> None:
    pool: OrderedPool[int, int] = OrderedPool(2)
    with pool:
        answers = pool.imap(slow_square, range(100))
        assert next(answers) == 0
        processes = [p.process for p in pool._procs]
    assert processes and not any(p.is_alive() for p in processes)
    assert all(p.exitcode is not None for p in processes)  # reaped, no zombie



def test_a_finished_pool_reaps_its_workers_after_a_clean_exit() -> None:
    with OrderedPool(2) as pool:
        assert list(pool.imap(square_or_none, range(4))) == [0, 1, 4, 9]
        processes = [p.process for p in pool._procs]
    assert len(processes) == 2 and all(p.exitcode == 0 for p in processes)
    if os.path.isdir("/proc/self"):  # not even a zombie is left
        assert not any(os.path.exists(f"/proc/{p.pid}") for p in processes)


def _marker_or_pid(x: tuple[int, str]) -> int:
    """Item 0 waits until item 2 is done (its marker file is there); item 2 leaves it."""
    index, marker = x
    if index == 0:
        for _ in range(3000):  # 30 s: reached only if item 2 waits behind this one
            if os.path.exists(marker):
                break
            time.sleep(0.01)
    elif index == 2:
        with open(marker, "w"):
            pass
    return os.getpid()


def test_the_last_items_go_to_the_worker_that_frees_first(tmp_path) -> None:
    """At the end of the input no item waits in a busy worker's hand while another idles:
    item 2 goes to the worker that answered item 1, not behind item 0 (which waits for
    item 2 to be done: held behind it, item 2 would wait out the guard, and run in item
    0's worker). No timing is relied on: the order of events decides."""
    marker = str(tmp_path / "two-done")
    with OrderedPool(2) as pool:
        pids = list(pool.imap(_marker_or_pid, [(0, marker), (1, marker), (2, marker)]))
    assert pids[0] != pids[1] and pids[2] == pids[1]


_PREPARED: list[int] = []


def _prepared_here(_: int) -> int:
    """What ``prepare`` left in this process: the pid of the process that ran it, or 0."""
    return _PREPARED[0] if _PREPARED else 0


def test_forked_workers_get_what_prepare_loaded() -> None:
    """``prepare`` runs here once, before the workers are forked (Linux, one thread):
    they start with what it loaded; spawned ones (elsewhere) load for themselves."""
    try:
        with OrderedPool(2, prepare=lambda: _PREPARED.append(os.getpid())) as pool:
            out = list(pool.imap(_prepared_here, range(4)))
        if sys.platform.startswith("linux") and threading.active_count() == 1:
            assert [os.getpid()] == _PREPARED and out == [os.getpid()] * 4
        else:
            assert _PREPARED == [] and out == [0] * 4
    finally:
        _PREPARED.clear()
    with OrderedPool(2, prepare=lambda: _PREPARED.append(1)) as pool:  # no worker needed:
        assert list(pool.imap(_prepared_here, [5])) == [0]  # nothing prepared
    assert _PREPARED == []
