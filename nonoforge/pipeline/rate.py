"""Batch difficulty rating: verdict, technique, effort, measured time, score and grade.

Work is spread over a process pool (or a Dask cluster); each worker compiles the solver
once before its first puzzle, so compile time never enters a measurement. Results are
written in batches and keyed by solver version, so an interrupted run resumes where it
stopped and a puzzle already rated by this solver version is never rated again.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import threading
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Sized
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from importlib import resources
from multiprocessing import get_context
from typing import Any

from nonoforge.errors import NonoforgeError, UsageError
from nonoforge.pipeline.batch import reason_of
from nonoforge.pipeline.difficulty import Model, Sample, features, human_grade, human_score
from nonoforge.pipeline.pool import die_with_parent
from nonoforge.puzzle import Puzzle
from nonoforge.results import GRADED, Effort, Mishap, Rating, Status, Verdict
from nonoforge.util import quick_exit

#: Fewer rated puzzles than this and no stored model: scores wait for a later fit.
MIN_FIT = 10


#: The work (the solver's ``work`` effort count) a rating allows a puzzle: 2-7 s of line
#: work on an idle core of our machine (3-5 million units a second; the hardest tournament
#: puzzle needs 11 million), about 15 s of SAT conflicts. It decides verdicts, so they are
#: the same on every machine and under any load.
DEFAULT_WORK_BUDGET = 20_000_000
#: The wall-clock safety net (seconds): far beyond the budget's time on any sane machine.
DEFAULT_WALL_S = 60.0
#: Statuses after which a rating is final but not a verdict: no repeat runs, no grade.
#: ``budget`` is deterministic (the work budget ran out); ``timeout_wall`` is the safety
#: net (the machine was too slow or too loaded): kept apart, never mixed with ``budget``.
CUT_OFF: tuple[Status, ...] = (Verdict.BUDGET, Mishap.TIMEOUT_WALL)


@dataclass(frozen=True)
class RateOptions:
    """How each puzzle is rated.

    ``budget`` (work units, see :data:`DEFAULT_WORK_BUDGET`) decides when a solve is cut off;
    ``timeout`` (seconds) is only the safety net. ``defer_after`` is for process pools,
    which set it (to :data:`DEFER_S` unless given): a puzzle whose first run takes at least
    that many seconds comes back after that run with its repeats left to the pool (see
    :class:`LocalExecutor`), so that one heavy puzzle cannot keep a worker busy alone
    while the others have finished.
    """

    timeout: float = DEFAULT_WALL_S
    runs: int = 3
    max_solutions: int = 2
    defer_after: float | None = None
    budget: int | None = DEFAULT_WORK_BUDGET
    #: keep repeating a quick puzzle until its runs add up to this many seconds (at most
    #: :data:`MAX_RUNS` runs): a steadier median for puzzles of a millisecond (the fit)
    min_time_s: float = 0.0
    #: compute the human features (:func:`human_fields`, about as dear as the solve on a
    #: tournament puzzle): the fit's re-timing passes merge only times into a first row
    human: bool = True


#: The most timed runs ``min_time_s`` adds.
MAX_RUNS = 50


#: A first run at least this long has its repeats spread over a process pool.
DEFER_S = 0.05


def _warm() -> None:
    from nonoforge.solver import warmup

    warmup()


def _worker_init(parent: int) -> None:
    """A pool worker's start: die with the parent process, exit without a last sweep of its
    objects (:func:`~nonoforge.util.quick_exit`), then compile the solver."""
    die_with_parent(parent)
    quick_exit()
    _warm()


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within the block, SIGTERM interrupts as Ctrl-C does (``KeyboardInterrupt``).

    A rating run then ends as it ends on Ctrl-C: the ratings finished but not yet saved
    are saved, every one already written out stays whole, the workers are stopped. By
    default SIGTERM would end the process between two statements. Outside the main
    thread (where no handler can be set) this does nothing.
    """
    import signal

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        before = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def rate_one(p: Puzzle, opts: RateOptions) -> Rating:
    """Solve one puzzle ``opts.runs`` times; the median time, the (deterministic) effort.

    Each run is timed twice: wall time (``times``; ``time_s`` is their median) and this
    thread's CPU time (``cpu_times``; ``cpu_s`` is their minimum), which a busy machine
    disturbs far less (the reference fit uses it). Runs after the first are skipped when
    the first was cut off (``budget`` or, by the wall-clock safety net, ``timeout_wall``):
    its time says nothing about the puzzle. With ``opts.defer_after`` a slow puzzle's
    rating comes back after its first run, with ``repeats`` saying how many
    :func:`time_once` runs remain to be added by the caller (:meth:`with_runs`).
    """
    import time

    from nonoforge.solver import solve

    try:
        cpu0 = time.thread_time()
        res = solve(p, max_solutions=opts.max_solutions, timeout=opts.timeout,
                    budget=opts.budget)
        cpu = time.thread_time() - cpu0
    except NonoforgeError as e:  # the solver refuses this puzzle (e.g. too many colours)
        return error_row(p, reason_of(e))
    status: Status = Mishap.TIMEOUT_WALL if res.status == Verdict.TIMEOUT else res.status
    runs = [(res.time_s, cpu)]
    repeats = opts.runs - 1 if status not in CUT_OFF else 0
    deferred = opts.defer_after is not None and repeats > 0 and res.time_s >= opts.defer_after
    if not deferred:
        runs += [time_once(p, opts) for _ in range(repeats)]
        while repeats and sum(w for w, _ in runs) < opts.min_time_s and len(runs) < MAX_RUNS:
            runs.append(time_once(p, opts))
    human = human_rating(p, status) if opts.human else None
    rating = Rating(
        key=p.key, title=p.meta.title, width=p.width, height=p.height, colors=p.ncolors,
        status=status, technique=res.technique, effort=Effort(res.effort), cpu_times=(),
        human=human.features if human else None, human_score=human.score if human else None,
        human_grade=human.grade if human else None,
        repeats=repeats if deferred else None,
    )
    return with_runs(rating, runs)


def rate_puzzle(p: Puzzle, opts: RateOptions) -> dict[str, Any]:
    """:func:`rate_one`'s rating as a dict (:meth:`Rating.to_json`), for callers that have
    not moved to :class:`~nonoforge.results.Rating` yet."""
    return rate_one(p, opts).to_json()


#: Line solves the human path's contradiction rung may spend on one puzzle while rating
#: (:attr:`HumanOptions.max_probe_lines`): a work bound, the same on every machine, that
#: keeps the pure-Python path of a big puzzle that needs probing from running for minutes.
#: A path cut by it stops with ``budget`` and is scored as a stalled one.
HUMAN_PROBE_LINES = 20_000
#: The human features a rating keeps (:meth:`HumanPath.summary` without the hint fields).
HUMAN_KEYS = ("steps", "stop", "hardest", "per_technique", "footholds", "bottleneck")

@dataclass(frozen=True)
class HumanRating:
    """The human part of a rating: the step solver's features, its human-effort score
    and human grade (each None where there are none)."""

    features: dict[str, Any] | None = None
    score: float | None = None
    grade: int | None = None

    def to_json(self) -> dict[str, Any]:
        """As a rating's dict face holds them: ``human``, ``human_score``, ``human_grade``."""
        return {"human": self.features, "human_score": self.score, "human_grade": self.grade}


def human_rating(p: Puzzle, status: str) -> HumanRating:
    """The human difficulty features of a puzzle, its human-effort score and human grade
    (:func:`~nonoforge.pipeline.difficulty.human_score`).

    Computed once, outside the timed runs, from the human-like step solver's path with the
    contradiction rung bounded by :data:`HUMAN_PROBE_LINES`. A puzzle the step solver
    refuses (or that could not be rated: ``error``) gets all three None; a status other
    than :data:`~nonoforge.results.GRADED` gets a score but no grade, as with the time
    grade.
    """
    import numpy as np

    from nonoforge.solver.human import HumanOptions, explain_path

    if status == Mishap.ERROR:
        return HumanRating()
    try:
        path = explain_path(p, options=HumanOptions(max_probe_lines=HUMAN_PROBE_LINES))
    except NonoforgeError:
        return HumanRating()
    summary = path.summary()
    human = {k: summary[k] for k in HUMAN_KEYS}
    undecided = int((np.bitwise_count(path.state) != 1).sum())
    score = human_score(human, undecided)
    return HumanRating(human, score, human_grade(score) if status in GRADED else None)


def human_fields(p: Puzzle, status: str) -> dict[str, Any]:
    """:func:`human_rating` as a rating's dict face has it (``human``, ``human_score``,
    ``human_grade``), for the pages and the studio that show it."""
    return human_rating(p, status).to_json()


def with_runs(rating: Rating, runs: list[tuple[float, float]]) -> Rating:
    """The rating with timed runs ``(wall, cpu)`` added, its ``time_s`` and ``cpu_s``
    updated."""
    times = (*rating.times, *(w for w, _ in runs))
    cpu_times = (*(rating.cpu_times or ()), *(c for _, c in runs))
    return replace(rating, times=times, cpu_times=cpu_times,
                   time_s=statistics.median(times), cpu_s=min(cpu_times))


def add_runs(row: dict[str, Any], runs: list[tuple[float, float]]) -> None:
    """:func:`with_runs` on a rating's dict face, in place (for the benches)."""
    row.update(with_runs(Rating.from_json(row), runs).to_json())


def time_once(p: Puzzle, opts: RateOptions) -> tuple[float, float]:
    """One more solve of ``p`` (a repeat run of :func:`rate_puzzle`): ``(wall, cpu)`` s."""
    import time

    from nonoforge.solver import solve

    cpu0 = time.thread_time()
    wall = solve(
        p, max_solutions=opts.max_solutions, timeout=opts.timeout, budget=opts.budget
    ).time_s
    return wall, time.thread_time() - cpu0


# -- executors ------------------------------------------------------------------------------


class LocalExecutor:
    """A pool of worker processes on this machine (one worker: this process).

    The pool isolates puzzles: a worker killed by one (out of memory, a crash in
    compiled code) costs only that puzzle (see :meth:`_pool_run`). It never has more
    processes than puzzles to rate: each one costs about a second of CPU to start (the
    interpreter, loading the compiled solver), so ``--workers 64`` for one puzzle started
    64 of them (78 s on 2 cores) where one does the work.

    The pool lives from :meth:`start` (or the first map) to the end of the map: starting
    it before the caller reads its corpus lets the workers' start-up overlap that read.
    The map returns when every worker has exited and been reaped (:meth:`close`): no
    process of the pool outlives the rating to compete with what the caller does next.
    """

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool: ProcessPoolExecutor | None = None
        #: processes in the running pool (at most ``workers``, at most the work)
        self.size = 0

    def start(self, work: int | None = None) -> None:
        """Start the worker processes now (they warm up while the caller goes on): one
        per puzzle of ``work`` when that is less than ``workers``, none for no work."""
        if self.workers == 1 or self._pool is not None or work == 0:
            return
        self.size = self.workers if work is None else min(self.workers, work)
        self._pool = self._new_pool(self.size)
        for _ in range(self.size):
            self._pool.submit(_warm)  # the pool spawns its processes on a submit

    def close(self, kill: bool = False) -> None:
        """Stop the pool and reap its processes before returning.

        After a map that ran to its end the workers are idle: asked to finish, they exit at
        once (:func:`_worker_init`). Before, the pool was left to stop on its own: its
        workers spent their exit sweeping the solver's objects while the caller went on
        to its exports, on a busy machine competing with them, and lingered past the
        rating. With ``kill`` (a map left early: an interrupt, an error) the workers are
        killed first: the answers they work on are no longer wanted.
        """
        pool, self._pool = self._pool, None
        self.size = 0
        if pool is None:
            return
        if kill:  # the executor has no public way to stop a busy worker
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                if process.is_alive():
                    process.kill()
        pool.shutdown(wait=True, cancel_futures=True)

    @staticmethod
    def _new_pool(workers: int) -> ProcessPoolExecutor:
        # spawn: no forked copies of threads or open database handles
        # each worker ends when this process does, even by SIGKILL (see die_with_parent)
        return ProcessPoolExecutor(
            workers, mp_context=get_context("spawn"), initializer=_worker_init,
            initargs=(os.getpid(),),
        )

    def map_unordered(
        self, fn: Callable[[Puzzle, RateOptions], Rating], items: Iterable[Puzzle],
        opts: RateOptions,
    ) -> Iterator[Rating]:
        if self.workers == 1:
            opts = replace(opts, defer_after=None)
            for p in items:
                _warm()  # before the first puzzle only (then a no-op); none for no work
                yield fn(p, opts)
            return
        todo = list(items)
        finished = False
        try:
            while todo:
                todo = yield from self._pool_run(fn, todo, opts)
            finished = True
        finally:
            self.close(kill=not finished)

    def _pool_run(
        self, fn: Callable[[Puzzle, RateOptions], Rating], todo: list[Puzzle],
        opts: RateOptions,
    ) -> Generator[Rating, None, list[Puzzle]]:
        """Run until done or a worker dies; then isolate the puzzles it was working on.

        Slow puzzles come back after their first run (``defer_after``); their repeat runs
        go to whichever worker is free, and the row is complete when they are all in.
        A worker killed mid-puzzle (out of memory, a crash in compiled code) breaks the whole
        pool. The puzzles in flight are re-run one at a time in a fresh process: the one that
        kills it again is recorded as ``error`` and the batch goes on with the rest.
        """
        self.start(len(todo))
        pool = self._pool
        assert pool is not None
        deferring = opts if opts.defer_after is not None else replace(opts, defer_after=DEFER_S)
        run = _PoolRun(pool, deferring)
        it = iter(todo)
        try:
            for p in it:
                run.submit(fn, p)
                while len(run.inflight) >= 4 * self.size:
                    yield from run.collect()
            while run.inflight:
                yield from run.collect()
            return []
        except BrokenProcessPool:
            suspects = run.unfinished()
            rest = list(it)
        self.close()
        whole = replace(opts, defer_after=None)  # alone, a puzzle does all its runs
        for p in suspects:
            yield self._isolated(fn, p, whole)
        return rest

    @classmethod
    def _isolated(
        cls, fn: Callable[[Puzzle, RateOptions], Rating], p: Puzzle, opts: RateOptions,
    ) -> Rating:
        with cls._new_pool(1) as pool:
            try:
                return pool.submit(fn, p, opts).result()
            except BrokenProcessPool:
                return error_row(p, "the solver process died on this puzzle")


class _PoolRun:
    """The puzzles one pool has in hand: first runs, and the repeats of slow puzzles."""

    def __init__(self, pool: ProcessPoolExecutor, opts: RateOptions) -> None:
        self.pool = pool
        self.opts = opts
        #: future -> (puzzle, None for a first run or the token of the row it repeats)
        self.inflight: dict[Future[Any], tuple[Puzzle, int | None]] = {}
        #: token -> a row waiting for its repeats (complete with ``opts.runs`` times)
        self.partial: dict[int, Rating] = {}
        self.tokens = itertools.count()

    def submit(self, fn: Callable[[Puzzle, RateOptions], Rating], p: Puzzle) -> None:
        self.inflight[self.pool.submit(fn, p, self.opts)] = (p, None)

    def collect(self) -> Iterator[Rating]:
        """Wait for some results; yield the rows they complete."""
        done, _ = wait(self.inflight, return_when=FIRST_COMPLETED)
        for f in done:
            result = f.result()  # BrokenProcessPool propagates to _pool_run
            p, token = self.inflight.pop(f)
            if token is not None:
                rating = self.partial[token] = with_runs(self.partial[token], [result])
                if len(rating.times) == self.opts.runs:
                    del self.partial[token]
                    yield rating
            elif result.repeats:
                token = next(self.tokens)
                self.partial[token] = replace(result, repeats=None)
                for _ in range(result.repeats):
                    self.inflight[self.pool.submit(time_once, p, self.opts)] = (p, token)
            else:
                yield result

    def unfinished(self) -> list[Puzzle]:
        """Every puzzle in hand, once (their partial rows are dropped: they are re-rated)."""
        seen: dict[int, Puzzle] = {}
        for p, _ in self.inflight.values():
            seen.setdefault(id(p), p)
        return list(seen.values())


def error_row(p: Puzzle, why: str) -> Rating:
    """The rating recorded for a puzzle that could not be rated at all: status ``error``
    and the reason (:attr:`Rating.error`; the corpus stores it as ``effort["error"]``,
    ``--json`` shows it as ``error``)."""
    return Rating(
        key=p.key, title=p.meta.title, width=p.width, height=p.height, colors=p.ncolors,
        status=Mishap.ERROR, cpu_s=0.0, cpu_times=(), error=why,
    )


def rate_chunk(
    fn: Callable[[Puzzle, RateOptions], Rating], puzzles: list[Puzzle], opts: RateOptions,
) -> tuple[list[Rating], float]:
    """Rate a chunk of puzzles in one task; the rows and the CPU seconds the task took.

    CPU time, not wall time, sizes the next chunks: on a loaded machine a puzzle's wall
    time grows with the load, its work does not (chunks shrank to a few puzzles each).
    """
    import time

    _warm()  # a no-op once the worker has compiled; a worker that joined late compiles here
    with roomy_malloc():
        t0 = time.thread_time()
        rows = [fn(p, opts) for p in puzzles]
        return rows, time.thread_time() - t0


#: glibc's malloc thresholds while :func:`roomy_malloc` is in force: the ceilings its own
#: dynamic mmap threshold rises to on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX), and twice that.
_ROOMY_MMAP = 32 << 20
_ROOMY_TRIM = 64 << 20
#: mallopt's parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: how many blocks of this process are inside :func:`roomy_malloc` now, under its lock
_ROOMY_LOCK = threading.Lock()
_ROOMY_USERS = [0]


@contextmanager
def roomy_malloc() -> Iterator[None]:
    """glibc malloc tuned as its defaults are, for the time of a block, where the
    environment has fixed it (``MALLOC_TRIM_THRESHOLD_`` or ``MALLOC_MMAP_THRESHOLD_``).

    Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536`` (to hand memory
    back to the system). A fixed threshold also switches off glibc's adaptive mmap
    threshold, which then stays at 128 KiB: every larger array the solver allocates is a
    fresh ``mmap``, faulted in page by page and unmapped when freed. Measured on
    tournament puzzles: 10 times the page faults and 35 % more CPU per solve, the better
    part of what Dask cost over the local pool. Inside the block the thresholds are those
    glibc itself adapts to; after it they go back to the environment's values and the
    free memory is trimmed, so the worker leaves each chunk as its cluster configured it.
    Elsewhere (no such variable, not glibc) this does nothing.
    """
    env = {k: os.environ.get(f"MALLOC_{k}_THRESHOLD_") for k in ("TRIM", "MMAP")}
    libc = _glibc() if any(env.values()) else None
    if libc is None:
        yield
        return
    # The thresholds are the process's, and a worker with several threads runs several
    # chunks at once: the first to enter sets them, the last to leave restores them.
    with _ROOMY_LOCK:
        _ROOMY_USERS[0] += 1
        if _ROOMY_USERS[0] == 1:
            libc.mallopt(_M_MMAP_THRESHOLD, _ROOMY_MMAP)
            libc.mallopt(_M_TRIM_THRESHOLD, _ROOMY_TRIM)
    try:
        yield
    finally:
        with _ROOMY_LOCK:
            _ROOMY_USERS[0] -= 1
            if _ROOMY_USERS[0] == 0:
                libc.mallopt(_M_MMAP_THRESHOLD, _threshold(env["MMAP"]))
                libc.mallopt(_M_TRIM_THRESHOLD, _threshold(env["TRIM"]))
                libc.malloc_trim(0)


def _threshold(value: str | None) -> int:
    """A malloc threshold from the environment, read as glibc reads it (decimal, or hex
    with ``0x``, or octal with ``0``); glibc's default (128 KiB) if unset or bad."""
    try:
        return int(value or "", 0)
    except ValueError:
        return 128 << 10


def _glibc() -> Any:
    """The C library, if it is glibc (it has ``mallopt`` and ``malloc_trim``); else None."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


class DaskExecutor:
    """The same job on a Dask distributed cluster (``tcp://host:8786``).

    Most puzzles take 1-3 ms, far below what a Dask task is worth, so puzzles go out in
    chunks sized to about :data:`CHUNK_S` CPU seconds of work (the size adapts to the times
    that come back; near the end chunks shrink, see :data:`TAPER`), with at most
    :data:`INFLIGHT_PER_WORKER` chunks per worker in flight, and rows are yielded as each
    chunk arrives. A chunk runs under :func:`roomy_malloc` (Dask's workers fix glibc's
    malloc thresholds, which made every solve a third slower). A chunk that fails (a
    worker killed on it) is re-sent one puzzle at a time; a puzzle that fails alone is an
    ``error`` row.
    """

    def __init__(self, scheduler: str) -> None:
        try:
            from dask.distributed import Client
        except ImportError:
            raise UsageError("the Dask executor needs: pip install 'nonoforge[dask]'") from None
        try:  # the address is checked before a Client exists: a Client half made from a
            # malformed one can fail on state an earlier Client left in the process (seen:
            # a bare AssertionError in the test suite) rather than on the address
            from distributed.comm.addressing import parse_address, parse_host_port

            scheme, location = parse_address(scheduler)
            if scheme in ("tcp", "tls"):
                parse_host_port(location)
        except (ValueError, TypeError) as e:
            raise UsageError(f"malformed Dask scheduler address {scheduler!r}: {e}") from None
        try:
            self.client = Client(scheduler, timeout="20s")
        except OSError as e:
            raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
        except (ValueError, TypeError) as e:  # dask parses the address: a malformed one
            raise UsageError(f"malformed Dask scheduler address {scheduler!r}: {e}") from None
        #: chunks sent (for the bench and the tests)
        self.chunks = 0
        self._work: int | None = None

    def start(self, work: int | None = None) -> None:
        """Nothing to start: the cluster's workers are running (the map warms them).
        ``work``, the puzzles the next map will get, sizes its last chunks (see
        :data:`TAPER`) when they come as a stream."""
        self._work = work

    def _workers(self) -> int:
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def map_unordered(
        self, fn: Callable[[Puzzle, RateOptions], Rating], items: Iterable[Puzzle],
        opts: RateOptions,
    ) -> Iterator[Rating]:
        from dask.distributed import as_completed

        self.client.run(_warm)
        opts = replace(opts, defer_after=None)
        left = len(items) if isinstance(items, Sized) else self._work
        self._work = None
        it = iter(items)
        size = 4  # the first chunks are small: they measure what a puzzle costs here
        workers = self._workers()
        limit = INFLIGHT_PER_WORKER * workers
        chunks: dict[Any, list[Puzzle]] = {}
        pending = as_completed()

        def send(n: int) -> bool:
            nonlocal left
            if left is not None:  # taper: the last chunks are small, so workers end together
                n = max(1, min(n, -(-left // (TAPER * workers))))
            chunk = list(itertools.islice(it, n))
            if not chunk:
                return False
            if left is not None:
                left -= len(chunk)
            fut = self.client.submit(rate_chunk, fn, chunk, opts, pure=False)
            chunks[fut] = chunk
            pending.add(fut)
            self.chunks += 1
            return True

        more = True
        while more and len(chunks) < limit:
            more = send(size)
        for fut in pending:
            chunk = chunks.pop(fut)
            try:
                rows, spent = fut.result()
            except Exception:  # noqa: BLE001 - a worker died or the task broke: one by one
                yield from self._one_by_one(fn, chunk, opts)
                rows, spent = [], 0.0
            else:
                yield from rows
                per = spent / len(chunk)
                size = max(1, min(MAX_CHUNK, round(CHUNK_S / per) if per > 0 else MAX_CHUNK))
            while more and len(chunks) < limit:
                more = send(size)
            fut.release()

    def _one_by_one(
        self, fn: Callable[[Puzzle, RateOptions], Rating], chunk: list[Puzzle],
        opts: RateOptions,
    ) -> Iterator[Rating]:
        for p in chunk:
            try:
                rows, _ = self.client.submit(rate_chunk, fn, [p], opts, pure=False).result()
                yield rows[0]
            except Exception as e:  # noqa: BLE001
                yield error_row(p, f"the Dask task failed on this puzzle: {reason_of(e)}")

    def close(self) -> None:
        self.client.close()


#: CPU seconds of work a Dask chunk aims at (Dask's overhead is about 1 ms a task; each
#: chunk also costs the client and the scheduler a few ms of CPU).
CHUNK_S = 0.5
#: Near the end a chunk holds at most 1/(TAPER x workers) of the puzzles left, so that no
#: worker still has a long chunk to go while the others are idle.
TAPER = 2
#: At most this many puzzles a chunk.
MAX_CHUNK = 512
#: Chunks in flight per Dask worker: enough to keep it busy, bounded memory and scheduler.
INFLIGHT_PER_WORKER = 3


# -- scoring --------------------------------------------------------------------------------


def bundled_model(solver_version: str) -> Model | None:
    """The model fitted for this solver version by bench/rate.py and shipped with nonoforge."""
    try:
        text = resources.files("nonoforge.pipeline").joinpath("models.json").read_text()
    except FileNotFoundError:
        return None
    models = json.loads(text)
    d = models.get(solver_version)
    return Model.from_dict(d) if d else None


def sample_of(rating: Rating) -> Sample:
    """A rating as the fit sees it (its effort, size and measured time)."""
    return Sample(
        key=rating.key,
        technique=rating.technique or "search",
        features=features(rating.effort, rating.width or 0, rating.height or 0,
                          rating.colors or 0),
        time_s=float(rating.time_s or 0.0),
    )


#: Statuses whose effort a clock cut (the safety net, or a timed solve of long ago): the
#: effort depends on the machine, so the rating gets neither score nor grade.
CLOCKED: tuple[Status, ...] = (Mishap.ERROR, Mishap.TIMEOUT_WALL, Verdict.TIMEOUT)


def scored(rating: Rating, model: Model | None) -> Rating:
    """The rating with ``model``'s ``score`` (predicted seconds) and ``grade``.

    Puzzles cut off by the work budget and unsolvable puzzles get no grade: a grade
    promises a puzzle to solve; one with several solutions grades at most 4
    (:meth:`~nonoforge.pipeline.difficulty.Model.grade`), its status the marker. Puzzles
    that could not be rated (``error``) or were cut off by the wall clock
    (``timeout_wall``: their effort depends on the machine) get neither, and so does
    every rating when there is no model yet.
    """
    if model is None or rating.status in CLOCKED:
        return rating.scored(None, None)
    s = sample_of(rating)
    score = model.score(s.features)
    grade = (model.grade(s.technique, score, s.features, rating.status == Verdict.UNIQUE)
             if rating.graded else None)
    return rating.scored(score, grade)


def score_rows(rows: list[dict[str, Any]], model: Model) -> None:
    """:func:`scored` on ratings' dict faces: adds ``score`` and ``grade`` to each row, in
    place (for callers not yet on :class:`~nonoforge.results.Rating`)."""
    for row in rows:
        r = scored(Rating.from_json(row), model)
        row["score"], row["grade"] = r.score, r.grade


# -- summaries ------------------------------------------------------------------------------


@dataclass
class Summary:
    """What a rating run found, like the benchmark tables in izaron's article."""

    rated: int = 0
    skipped: int = 0
    #: files given that could not be read (each one an error entry of its own)
    unreadable: int = 0
    times: list[float] = field(default_factory=list)
    heaviest: list[tuple[float, str, str]] = field(default_factory=list)
    verdicts: Counter[str] = field(default_factory=Counter)
    #: by technique (None: ratings that failed, ``error``)
    techniques: Counter[str | None] = field(default_factory=Counter)
    grades: Counter[str] = field(default_factory=Counter)
    model_fit: dict[str, Any] = field(default_factory=dict)
    #: our grade against the site's own difficulty, where ingestion kept it
    site_difficulty: dict[str, Any] = field(default_factory=dict)

    def add(self, rating: Rating) -> None:
        self.rated += 1
        time_s = rating.time_s or 0.0  # a fresh rating always has its time
        self.times.append(time_s)
        self.heaviest.append((time_s, rating.key, rating.title or ""))
        self.heaviest = sorted(self.heaviest, reverse=True)[:10]
        self.verdicts[str(rating.status)] += 1  # a fresh rating always has a status
        self.techniques[rating.technique] += 1

    def count_grades(self, ratings: Iterable[Rating]) -> None:
        """The grade histogram of ``ratings`` (``"none"`` for ungraded), replacing any
        before."""
        self.grades.clear()
        for r in ratings:
            self.grades[str(r.grade) if r.grade is not None else "none"] += 1

    def to_dict(self) -> dict[str, Any]:
        t = self.times
        return {
            "rated": self.rated,
            "skipped": self.skipped,
            "unreadable": self.unreadable,
            "errors": self.verdicts.get("error", 0) + self.unreadable,
            "time_avg_s": statistics.fmean(t) if t else None,
            "time_median_s": statistics.median(t) if t else None,
            "time_max_s": max(t) if t else None,
            "heaviest": [{"time_s": a, "key": b, "title": c} for a, b, c in self.heaviest],
            "verdicts": dict(self.verdicts),
            "techniques": dict(self.techniques),
            "grades": dict(self.grades),
            "model_fit": self.model_fit,
            "site_difficulty": self.site_difficulty,
        }

    def compare_site(self, pairs: list[tuple[int, float]]) -> None:
        """Spearman rho between our grades and the site's difficulty (``(grade, site)``)."""
        from nonoforge.pipeline.difficulty import spearman

        if pairs:
            rho = spearman([g for g, _ in pairs], [d for _, d in pairs])
            self.site_difficulty = {"n": len(pairs), "spearman": None if rho != rho else rho}


def site_difficulty(extra: Any) -> float | None:
    """The site's difficulty kept in a provenance's ``extra`` (nonograms: ``"3/10"``)."""
    if not isinstance(extra, dict):
        return None
    value = extra.get("difficulty")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        head, _, tail = value.partition("/")
        try:
            v = float(head)
            return v / float(tail) * 10 if tail else v
        except (ValueError, ZeroDivisionError):
            return None
    return None


def rate_all(
    puzzles: Iterable[Puzzle],
    executor: LocalExecutor | DaskExecutor,
    opts: RateOptions,
    on_result: Callable[[Rating], None] | None = None,
) -> Iterator[Rating]:
    """Rate puzzles, yielding each raw rating (no score yet) as it completes."""
    for rating in executor.map_unordered(rate_one, puzzles, opts):
        if on_result:
            on_result(rating)
        yield rating
