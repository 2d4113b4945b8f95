"""One deadline alarm for the solver's long-running parts.

The compiled engine, the CNF encoder and MiniSat run without the GIL and check no clock, so
a deadline is enforced from outside: a daemon thread calls a stop function once the
deadline passes. Starting a thread costs about a tenth of a millisecond of CPU, as much as
a whole solve of a small puzzle, and a tournament solve with a timeout armed three (the
engine's, the encoder's and MiniSat's: 0.3 s of a 1,000-puzzle set). So one watcher thread
per process serves every alarm (started with the first, kept waiting on a condition),
and arming one is a push on its heap; an :class:`Alarm` is also armed on demand: callers
that may finish within their first slice of work arm it only when they go on.
"""

from __future__ import annotations

import heapq
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

#: Cancelled alarms are dropped from the watcher's heap when they are more than this many
#: and half of it (most are cancelled long before their deadline, never reached).
_PRUNE_AT = 64


class Alarm:
    """Calls ``fn(*args)`` once ``deadline`` (a :func:`time.monotonic` value) has passed,
    from the moment :meth:`arm` is first called; never when ``deadline`` is None. Use it as
    a context manager so that the alarm is cancelled however the work ends."""

    __slots__ = ("_args", "_armed", "_cancelled", "_fn", "deadline")

    def __init__(self, deadline: float | None, fn: Callable[..., Any], *args: Any) -> None:
        self.deadline = deadline
        self._fn = fn
        self._args = args
        self._armed = False
        self._cancelled = False

    def arm(self) -> Alarm:
        """Put the alarm on the watcher (once; later calls do nothing)."""
        if self.deadline is not None and not self._armed:
            self._armed = True
            _watcher.add(self)
        return self

    @property
    def armed(self) -> bool:
        """Whether the alarm waits on the watcher (armed, neither fired nor cancelled)."""
        return self._armed and not self._cancelled

    def cancel(self) -> None:
        """Never call ``fn`` from now on (unless it is being called already)."""
        if self._armed and not self._cancelled:
            _watcher.cancel(self)

    def _fire(self) -> None:
        self._fn(*self._args)

    def __enter__(self) -> Alarm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


class _Watcher:
    """The thread that calls the alarms due, earliest deadline first."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.RLock())  # fn may arm another
        self._heap: list[tuple[float, int, Alarm]] = []
        self._order = itertools.count()  # ties: the alarm armed first fires first
        self._cancelled = 0  # cancelled alarms still on the heap
        self._thread: threading.Thread | None = None

    def add(self, alarm: Alarm) -> None:
        assert alarm.deadline is not None
        with self._cond:
            if self._cancelled > _PRUNE_AT and 2 * self._cancelled > len(self._heap):
                self._heap = [e for e in self._heap if not e[2]._cancelled]
                heapq.heapify(self._heap)
                self._cancelled = 0
            heapq.heappush(self._heap, (alarm.deadline, next(self._order), alarm))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="nonoforge-alarm",
                                                daemon=True)
                self._thread.start()
            elif self._heap[0][2] is alarm:  # earlier than what the thread waits for
                self._cond.notify()

    def cancel(self, alarm: Alarm) -> None:
        with self._cond:
            if not alarm._cancelled:
                alarm._cancelled = True
                self._cancelled += 1

    def _run(self) -> None:
        with self._cond:
            while True:
                alarm = self._due()
                # called holding the lock: once cancel() has returned, fn is neither
                # running nor going to run (a timer thread could still be calling it)
                try:
                    alarm._fire()
                except Exception:  # noqa: BLE001 - as a timer thread would: shown, not fatal
                    sys.excepthook(*sys.exc_info())

    def _due(self) -> Alarm:
        """Wait (holding the condition) for the earliest alarm to fall due; take it."""
        while True:
            heap = self._heap
            while heap and heap[0][2]._cancelled:
                heapq.heappop(heap)
                self._cancelled -= 1
            if not heap:
                self._cond.wait()
                continue
            left = heap[0][0] - time.monotonic()
            if left > 0:
                self._cond.wait(left)
                continue
            alarm = heapq.heappop(heap)[2]
            alarm._cancelled = True  # fired: a later cancel has nothing to do
            return alarm


_watcher = _Watcher()


def _after_fork() -> None:
    """A forked child has no watcher thread (and maybe a lock held by the parent's): it
    starts its own, with no alarms, when it first arms one."""
    global _watcher
    _watcher = _Watcher()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
