"""One deadline alarm for the solver's long-running parts.

The compiled engine, the CNF encoder and MiniSat run without the GIL and check no clock, so
a deadline is enforced from outside: a daemon timer thread calls a stop function once the
deadline passes. Starting a thread costs about a quarter of a millisecond, as much as a
whole solve of a small puzzle, so an :class:`Alarm` is armed on demand: callers that may
finish within their first slice of work arm it only when they go on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class Alarm:
    """Calls ``fn(*args)`` once ``deadline`` (a :func:`time.monotonic` value) has passed,
    from the moment :meth:`arm` is first called; never when ``deadline`` is None. Use it as
    a context manager so that the timer is cancelled however the work ends."""

    __slots__ = ("_args", "_fn", "_timer", "deadline")

    def __init__(self, deadline: float | None, fn: Callable[..., Any], *args: Any) -> None:
        self.deadline = deadline
        self._fn = fn
        self._args = args
        self._timer: threading.Timer | None = None

    def arm(self) -> Alarm:
        """Start the timer (once; later calls do nothing)."""
        if self.deadline is not None and self._timer is None:
            self._timer = threading.Timer(
                max(0.0, self.deadline - time.monotonic()), self._fn, self._args
            )
            self._timer.daemon = True
            self._timer.start()
        return self

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def __enter__(self) -> Alarm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()
