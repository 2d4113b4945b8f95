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


def test_no_deadline_means_no_timer_and_leaving_cancels() -> None:
    fired = threading.Event()
    with Alarm(None, fired.set) as alarm:
        alarm.arm()
        assert alarm._timer is None  # no deadline: no thread at all
    # A deadline far off, so that a paused test (a loaded CI machine) cannot pass it before
    # the block is left; leaving must end the timer's thread without calling fn.
    with Alarm(time.monotonic() + 600, fired.set) as alarm:
        alarm.arm()
        timer = alarm._timer
        assert timer is not None and timer.is_alive()
    timer.join(30)
    assert not timer.is_alive() and not fired.is_set()  # left before the deadline: cancelled
