"""The solver's deadline alarm: armed on demand, fires once past the deadline, cancelled."""

from __future__ import annotations

import threading
import time

from nonoforge.solver.alarm import Alarm


def test_an_unarmed_alarm_never_fires() -> None:
    fired = threading.Event()
    with Alarm(time.monotonic() - 1, fired.set):
        pass
    assert not fired.wait(0.2)


def test_an_armed_alarm_past_its_deadline_fires_with_its_arguments() -> None:
    got: list[int] = []
    done = threading.Event()

    def record(x: int) -> None:
        got.append(x)
        done.set()

    with Alarm(time.monotonic() - 1, record, 7) as alarm:
        alarm.arm()
        alarm.arm()  # a second arm starts no second timer
        assert done.wait(30)  # a hang guard: it fires at once, later on a loaded machine
    time.sleep(0.05)
    assert got == [7]


def test_no_deadline_means_no_alarm_and_leaving_cancels() -> None:
    fired = threading.Event()
    with Alarm(None, fired.set) as alarm:
        alarm.arm()
        assert not alarm.armed  # no deadline: nothing waits
    # A deadline far off, so that a paused test (a loaded CI machine) cannot pass it before
    # the block is left; leaving must cancel it without calling fn.
    with Alarm(time.monotonic() + 600, fired.set) as alarm:
        alarm.arm()
        assert alarm.armed
    assert not alarm.armed
    assert not fired.wait(0.2)


def test_an_alarm_armed_after_a_later_one_still_fires_first() -> None:
    """One watcher thread serves every alarm: a nearer deadline armed while it waits for
    a far one wakes it."""
    far = threading.Event()
    near = threading.Event()
    with Alarm(time.monotonic() + 600, far.set).arm(), \
            Alarm(time.monotonic() + 0.05, near.set).arm():
        assert near.wait(30)  # a hang guard only
    assert not far.is_set()


def test_many_cancelled_alarms_neither_fire_nor_pile_up() -> None:
    from nonoforge.solver import alarm as A  # noqa: N812

    fired = threading.Event()
    for _ in range(1000):
        with Alarm(time.monotonic() + 600, fired.set) as a:
            a.arm()
    assert len(A._watcher._heap) < 300  # pruned as they are cancelled
    last = threading.Event()
    with Alarm(time.monotonic() - 1, last.set).arm():
        assert last.wait(30)
    assert not fired.is_set()


def test_a_cancelled_alarm_never_fires_after_cancel_returns() -> None:
    """fn runs holding the watcher's lock, so once cancel() has returned it is over."""
    calls: list[int] = []
    for i in range(200):
        a = Alarm(time.monotonic(), calls.append, i).arm()
        a.cancel()
        n = len(calls)
        time.sleep(0.0005)
        assert len(calls) == n
