"""An ordered pool of worker processes: results in input order, one lost worker costs one item.

``solve --workers N`` hands its puzzles to :class:`OrderedPool`, which keeps
:data:`IN_HAND` items in each worker's hands (one worked on, the next waiting in its own
queue, so that a worker never idles while this process, on a loaded machine, waits to be
scheduled) and yields the results in the order the items came, as soon as the next one in
order is in. A worker does its items strictly in turn, which keeps that safe:

- a worker that dies (killed, out of memory, a crash in compiled code) was working on the
  oldest item it had not answered, which gets :attr:`OrderedPool.on_death`'s result; the
  items waiting behind it go to the other workers, a fresh worker takes its place, and
  the rest go on;
- never more workers than items: the pool reads ahead up to ``workers`` items before it
  starts any process, and with a single item it starts none (the item is done here);
- interrupt-safe: workers ignore SIGINT (a Ctrl-C reaches the whole process group, and only
  this process decides what to do), die with this process however it ends
  (:func:`die_with_parent`), and leaving the pool's ``with`` block
  early (an exception, KeyboardInterrupt) kills and reaps every worker at once.

The items are read lazily, at most :attr:`OrderedPool.window` ahead of the first result
not yet yielded, so a long batch is never held whole in memory. Items and results must
pickle, and the work function must be a module-level function. An exception it raises is
raised here, as with one worker.

How workers start (issue 39): on Linux, while this process runs a single thread, they are
``fork``-ed, after :attr:`OrderedPool.prepare` has run here once: what every worker needs
(``solve``: the compiled engine, 0.6 s of CPU to load) is then loaded once and shared
copy-on-write, and a worker answers its first item at once, instead of each paying the
load (0.75-0.8 s of CPU each, two at once) after a fresh interpreter's start and imports.
Elsewhere, or with other threads running (a forked copy would hold their locks), they are
``spawn``-ed and ``prepare`` is not run (each worker loads what it needs itself). A forked
worker closes the pipes of its elder siblings it inherited and, like a spawned one, takes
nothing else from this process: it never writes to stdout (this process flushes its own
before each fork, so nothing buffered is written twice) and ends with ``os._exit``.

>>> with OrderedPool(2) as pool:                                  # doctest: +SKIP
...     list(pool.imap(abs, [-3, 1, -2]))
[3, 1, 2]
"""

from __future__ import annotations

import itertools
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from nonoforge.util import quick_exit

T = TypeVar("T")
R = TypeVar("R")

#: How many items the pool reads ahead of the first unanswered one, per worker: enough to
#: keep every worker busy behind one slow item, small enough to bound memory.
WINDOW_PER_WORKER = 64
#: Items a worker has in hand at once: the one it works on and the next.
IN_HAND = 2


def die_with_parent(parent: int) -> None:
    """End this process when ``parent`` (the process that started it) ends, however it ends.

    On Linux the kernel sends SIGKILL the moment the parent dies (``PR_SET_PDEATHSIG``),
    even while compiled solver code holds the interpreter lock. Everywhere, a daemon thread
    also checks once a second whether the parent is gone (this process re-parented). So a
    ``kill -9`` of the command leaves no worker running. ``solve``'s pool and ``rate``'s
    workers both call it.
    """
    import threading
    import time

    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _worker(conn: Any, parent: int, fn: Callable[[Any], Any], inherited: tuple[Any, ...] = (),
            ) -> None:
    """A worker's life: die with the parent, ignore Ctrl-C, answer items until told to stop.

    ``inherited``: the parent's ends of its siblings' pipes, which a forked worker holds
    copies of and closes (a sibling's pipe then ends when the parent closes it).

    Each message is ``(index, item)``; the answer is ``(index, True, result)`` or, when
    ``fn`` raised, ``(index, False, exception)``, in the order the items came. ``None`` (or
    the pipe closing) ends it. A thread takes the messages off the pipe as they come, so the
    parent's sends never wait for this worker's sends (no deadlock on large items).
    """
    import queue
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked one may inherit a handler
    for c in inherited:
        c.close()
    die_with_parent(parent)
    quick_exit()
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def receive() -> None:
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                msg = None
            inbox.put(msg)
            if msg is None:
                return

    threading.Thread(target=receive, name="inbox", daemon=True).start()
    while (msg := inbox.get()) is not None:
        index, item = msg
        try:
            answer = (index, True, fn(item))
        except Exception as e:  # noqa: BLE001 - handed to the parent, which raises it
            answer = (index, False, e)
        try:
            conn.send(answer)
        except Exception as e:  # noqa: BLE001 - e.g. a result or exception that won't pickle
            conn.send((index, False, RuntimeError(f"{type(e).__name__}: {e}")))


def _start_method() -> str:
    """``fork`` on Linux while this process runs one thread, else ``spawn`` (see the
    module's notes)."""
    import threading

    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


@dataclass
class _Proc:
    """One worker process, its end of the pipe, and the items in its hands, oldest first
    (the one it works on)."""

    process: Any
    conn: Any
    hand: deque[tuple[int, Any]] = field(default_factory=deque)
    #: its pipe broke when an item was handed to it: it died since it last answered
    broken: bool = False


class OrderedPool(Generic[T, R]):
    """Map a function over items in ``workers`` processes, results in input order.

    ``on_death(item)`` is the result for an item whose worker died while on it (default:
    raise :class:`RuntimeError`). ``prepare()``, when given, runs in this process before
    the first worker is forked (see the module's notes; not run when the workers are
    spawned, nor when no worker is needed). Use as a context manager: leaving the block
    stops the workers (killed if the block ends early). With ``workers`` 1, or a single
    item, no process is started and the function runs here.
    """

    def __init__(self, workers: int, on_death: Callable[[T], R] | None = None,
                 prepare: Callable[[], object] | None = None) -> None:
        self.workers = max(1, workers)
        self.on_death = on_death
        self.prepare = prepare
        self.window = WINDOW_PER_WORKER * self.workers
        self._procs: list[_Proc] = []
        #: how many processes this pool has started (a test reads it: never more than items)
        self.started = 0

    def __enter__(self) -> OrderedPool[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(kill=exc[0] is not None)  # an interrupt, an error: stop at once

    # -- the map ----------------------------------------------------------------------------

    def imap(
        self, fn: Callable[[T], R], items: Iterable[T],
        local: Callable[[T], bool] | None = None,
    ) -> Iterator[R]:
        """``fn(item)`` for each item, in order, computed by the workers.

        Items for which ``local(item)`` is true (e.g. a file that could not be read: nothing
        to compute) are done in this process, in their turn, and count as no work.
        """
        it = iter(items)
        if self.workers == 1:
            yield from map(fn, it)
            return
        here = local or (lambda _: False)
        head: list[T] = []
        work = 0
        for item in it:  # read ahead: never more workers than items of work
            head.append(item)
            work += not here(item)
            if work > self.workers:
                break
        if work <= 1:  # the whole input, with one item of work at most: no process
            yield from map(fn, head)
            return
        if self.prepare is not None and _start_method() == "fork":
            self.prepare()
        for _ in range(min(self.workers, work)):
            self._spawn(fn)
        yield from self._run(fn, itertools.chain(head, it), here)

    def _run(
        self, fn: Callable[[T], R], it: Iterator[T], here: Callable[[T], bool],
    ) -> Iterator[R]:
        from multiprocessing.connection import wait

        queue: deque[tuple[int, T]] = deque()  # read, not yet handed out
        done: dict[int, R] = {}
        read = 0  # items read so far (the next one's index)
        next_out = 0  # the index of the next result to yield
        exhausted = False
        while True:
            room = sum(IN_HAND - len(p.hand) for p in self._procs)
            while not exhausted and read - next_out < self.window and len(queue) < room:
                try:
                    item = next(it)
                except StopIteration:
                    exhausted = True
                    break
                if here(item):
                    done[read] = fn(item)
                else:
                    queue.append((read, item))
                read += 1
            self._hand_out(queue, fn, exhausted)
            while next_out in done:
                yield done.pop(next_out)
                next_out += 1
            busy = [p for p in self._procs if p.hand]
            if not busy:
                if exhausted and not queue:
                    return
                continue  # the window was full of finished items: read on
            ready = set(wait([p.conn for p in busy] + [p.process.sentinel for p in busy]))
            for p in busy:
                if p.conn in ready:
                    try:
                        index, ok, value = p.conn.recv()
                    except (EOFError, OSError):
                        self._lost(p, done, queue, fn)
                        continue
                    if not ok:
                        raise value
                    assert index == p.hand[0][0], "a worker answers its items in turn"
                    p.hand.popleft()
                    done[index] = value
                elif p.process.sentinel in ready:
                    self._lost(p, done, queue, fn)

    def _hand_out(
        self, queue: deque[tuple[int, T]], fn: Callable[[T], R], exhausted: bool = False,
    ) -> None:
        """Items from ``queue`` into the workers' hands, one to every idle worker first.

        At the end of the input (``exhausted``, fewer items left than the hands hold) only
        idle workers get one: the last items go to whichever worker frees first, so that
        the workers end together (no item waits behind another's in a busy worker's hand
        while the other worker idles).
        """
        deepest = IN_HAND
        if exhausted and len(queue) < IN_HAND * len(self._procs):
            deepest = 1
        for depth in range(1, deepest + 1):
            for p in self._procs:
                if queue and len(p.hand) < depth and not p.broken:
                    p.hand.append(queue.popleft())
                    try:
                        p.conn.send(p.hand[-1])
                    except OSError:  # it died since it last answered: the item never
                        queue.appendleft(p.hand.pop())  # reached it, and is not charged
                        p.broken = True
        for p in [p for p in self._procs if p.broken and not p.hand]:
            self._replace(p, fn)  # died idle: it cost no item (a busy one is found by _run)

    def _lost(
        self, p: _Proc, done: dict[int, R], queue: deque[tuple[int, T]], fn: Callable[[T], R],
    ) -> None:
        """``p`` died: the item it worked on (its oldest) gets ``on_death``, the ones waiting
        behind it go back to the front of the queue, and a new worker takes its place."""
        index, item = p.hand.popleft()
        if self.on_death is None:
            raise RuntimeError(f"a worker process died (exit code {p.process.exitcode})")
        done[index] = self.on_death(item)
        queue.extendleft(reversed(p.hand))
        p.hand.clear()
        self._replace(p, fn)

    def _replace(self, p: _Proc, fn: Callable[[T], R]) -> None:
        """A new worker in place of ``p``, which is reaped."""
        self._procs.remove(p)
        self._stop(p, kill=True)
        self._spawn(fn)

    # -- processes --------------------------------------------------------------------------

    def _spawn(self, fn: Callable[[T], R]) -> None:
        from multiprocessing import get_context

        method = _start_method()
        ctx = get_context("fork") if method == "fork" else get_context("spawn")
        mine, theirs = ctx.Pipe()
        inherited: tuple[Any, ...] = ()
        if method == "fork":
            inherited = tuple(p.conn for p in self._procs)
            for stream in (sys.stdout, sys.stderr):  # nothing buffered is copied
                if stream is not None:
                    stream.flush()
        process = ctx.Process(target=_worker, args=(theirs, os.getpid(), fn, inherited),
                              daemon=True, name="nonoforge-worker")
        # born ignoring SIGINT (a disposition exec keeps, and Python then leaves alone): a
        # Ctrl-C while it imports gives no traceback; this process ignores it for the
        # few milliseconds of the start
        import signal
        import threading

        here = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGINT, signal.SIG_IGN) if here else None
        try:
            process.start()
        finally:
            if here:
                signal.signal(signal.SIGINT, before)
        theirs.close()
        self._procs.append(_Proc(process, mine))
        self.started += 1

    @staticmethod
    def _stop(p: _Proc, kill: bool) -> None:
        if not kill:
            try:
                p.conn.send(None)
            except OSError:
                kill = True
        if kill and p.process.is_alive():
            p.process.kill()
        p.process.join(None if kill else 10)
        if p.process.is_alive():  # would not stop when asked
            p.process.kill()
            p.process.join()
        p.conn.close()

    def close(self, kill: bool = False) -> None:
        """Stop every worker and reap it: an idle one is asked to finish, a busy one (its
        answer no longer wanted) or, with ``kill``, every one is killed at once."""
        procs, self._procs = self._procs, []
        doomed = [p for p in procs if kill or p.hand]
        for p in doomed:  # kill all first, then reap: no worker waits for another's turn
            if p.process.is_alive():
                p.process.kill()
        for p in procs:
            self._stop(p, kill=p in doomed)
