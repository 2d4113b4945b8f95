"""The per-file loop of every batch command: one bad file costs only itself.

``solve``, ``info``, ``convert``, ``rate`` and ``db import`` take many files. A
:class:`Batch` reads them in the order given and yields one :class:`Item` per puzzle;
a file that cannot be read (missing, not a regular file, too big, not a puzzle, no
puzzle in it, broken half-way) yields one item carrying its error instead, so the
caller puts ``{"file": ..., "error": ...}`` in its place and goes on. In a file of
several puzzles a malformed one costs only itself (``loads(..., on_error="collect")``):
it is an error item of its own, named ``file:line``, between its neighbours. Errors met while
*processing* a puzzle (the solver refusing it) are recorded with :meth:`Batch.fail`.
At the end :attr:`Batch.exit_code` is 2 if anything failed, else 0.

>>> batch = Batch(["a.non", "missing.non"])                 # doctest: +SKIP
>>> [i.as_error() if i.error else i.puzzle.key for i in batch]  # doctest: +SKIP
['0e3322cff357ef8b', {'file': 'missing.non', 'error': 'no such file'}]
>>> batch.exit_code                                         # doctest: +SKIP
2
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nonoforge.errors import FAILED_EXIT, FormatError, NonoforgeError
from nonoforge.puzzle import Puzzle
from nonoforge.util import first_line

if TYPE_CHECKING:
    from nonoforge.solver.result import SolveResult


def reason_of(e: BaseException, path: str | None = None) -> str:
    """The one-line reason of an error, without the file name (the item names the file
    read at ``path``; an error in another file, that file's solutions, names it)."""
    if isinstance(e, FormatError):
        return first_line(e.reason_in(path))
    return first_line(e)


@dataclass(frozen=True)
class Item:
    """One puzzle of a batch (``puzzle``), or a file that failed (``error``)."""

    file: str  # as the user gave it (``example:dancer`` stays so)
    puzzle: Puzzle | None = None
    error: str | None = None

    def as_error(self) -> dict[str, Any]:
        """What stands in a ``--json`` list in place of the file's answers."""
        return {"file": self.file, "error": self.error}


@dataclass
class Batch:
    """Iterate the puzzles of ``paths`` in order; bad files are items with an error.

    ``resolve`` maps a name as given to the file to read (``example:NAME``);
    ``on_error(file, reason)`` is told of each failure as it happens (the CLI prints one
    line on stderr). Iterate once.
    """

    paths: Iterable[str]
    fmt: str | None = None
    resolve: Callable[[str], str] | None = None
    on_error: Callable[[str, str], None] | None = None
    #: let the first error propagate (``--debug``: its traceback is what is wanted)
    reraise: bool = False
    failed: list[dict[str, Any]] = field(default_factory=list)

    def __iter__(self) -> Iterator[Item]:
        from nonoforge.formats import iter_file

        for path in self.paths:
            n = 0
            real = path
            try:
                real = self.resolve(path) if self.resolve is not None else path
                for r in iter_file(
                    real, self.fmt, on_error="raise" if self.reraise else "collect"
                ).records():
                    if isinstance(r, FormatError):  # one bad puzzle of several
                        yield self._failed(r.place(path, real), first_line(r.reason))
                        continue
                    n += 1
                    yield Item(path, r)
                if n == 0:
                    raise FormatError("no puzzle in file")
            except NonoforgeError as e:
                if self.reraise:
                    raise
                yield self._failed(path, reason_of(e, real))
            except RecursionError:
                if self.reraise:
                    raise
                yield self._failed(path, "nesting too deep")

    def _failed(self, file: str, reason: str) -> Item:
        self.failed.append({"file": file, "error": reason})
        if self.on_error is not None:
            self.on_error(file, reason)
        return Item(file, error=reason)

    def fail(self, file: str, error: BaseException | str) -> dict[str, Any]:
        """Record that processing an item of ``file`` failed; returns its JSON object."""
        reason = error if isinstance(error, str) else reason_of(error)
        return self._failed(file, reason).as_error()

    @property
    def exit_code(self) -> int:
        """0 when every file was answered, else :data:`FAILED_EXIT` (2)."""
        return FAILED_EXIT if self.failed else 0


# -- solve: the loop of ``nonoforge solve`` ------------------------------------------------


@dataclass(frozen=True)
class SolveOptions:
    """How ``solve`` solves each puzzle of a batch (see :func:`nonoforge.solver.solve`).

    ``workers``: how many processes solve (1: this one, in turn; more: an
    :class:`~nonoforge.pipeline.pool.OrderedPool`, never more processes than puzzles).
    """

    max_solutions: int = 2
    timeout: float | None = None
    strategy: str = "auto"
    record_steps: bool = False
    budget: int | None = None
    workers: int = 1


@dataclass(frozen=True)
class Answer:
    """One item of :func:`solve_batch`: a puzzle and its result, or the item's error (the
    file could not be read, or the solver refused the puzzle)."""

    file: str
    puzzle: Puzzle | None = None
    result: SolveResult | None = None
    error: str | None = None

    def as_error(self) -> dict[str, Any]:
        """What stands in a ``--json`` list in place of the item's answer."""
        return {"file": self.file, "error": self.error}


#: A puzzle to solve: the item, the options, and the :func:`time.monotonic` value its
#: timeout counts from (None: from the solve's call).
Job = tuple[Item, SolveOptions, "float | None"]

#: What a worker answers for a puzzle whose process died under it.
DIED = "the solver process died on this puzzle"


def solve_item(job: Job) -> SolveResult | str:
    """Solve one item (a worker's task, or this process's): its result, or the one-line
    reason the solver refused it. ``job`` is the item, the options and the
    :func:`time.monotonic` value its timeout counts from (None: from this call)."""
    from nonoforge.solver import solve

    item, opts, started = job
    assert item.puzzle is not None
    try:
        return solve(item.puzzle, max_solutions=opts.max_solutions, timeout=opts.timeout,
                     strategy=opts.strategy, record_steps=opts.record_steps,
                     budget=opts.budget, started=started)
    except NonoforgeError as e:  # the solver refuses this one: the others go on
        return reason_of(e)


def _unread(job: Job) -> bool:
    return job[0].error is not None


def _solve_or_skip(job: Job) -> SolveResult | str | None:
    """:func:`solve_item`, or None for an item that is already an error (nothing to do)."""
    return None if _unread(job) else solve_item(job)


def _died(job: Job) -> str:
    return DIED


def _load_solver() -> None:
    """Load the solver's compiled engine and SAT back-end here, before the workers are
    forked: loaded once (0.6 s of CPU) and shared, not once per worker (issue 39)."""
    from nonoforge.solver import warmup

    warmup()


def solve_batch(batch: Batch, opts: SolveOptions, start: float | None = None) -> Iterator[Answer]:
    """Solve every puzzle of ``batch``: one :class:`Answer` per item, in input order.

    With one worker each puzzle's timeout counts from ``start`` (a :func:`time.monotonic`
    value: the command's start) for the first item, from the moment its file begins to be
    read for each next one, so reading counts against it (issue 14). With several workers
    the puzzles are read here and solved in worker processes (on Linux forked once the
    solver is loaded here, so that they share it; see
    :class:`~nonoforge.pipeline.pool.OrderedPool`), and each timeout counts from when its
    worker takes the puzzle. Verdicts and effort counts are the same either way (they are
    the solver's, deterministic); only ``time_s`` differs.

    An item that fails (unreadable, refused by the solver, its worker process killed) is an
    answer with its ``error``, recorded in ``batch`` (its ``on_error`` told in the item's
    turn, so the error lines come in input order however far ahead the reading is); the
    others go on.
    """
    say, batch.on_error = batch.on_error, None  # told below, in each item's turn
    try:
        for item, result in _solved(batch, opts, start):
            if item.error is not None:
                if say is not None:
                    say(item.file, item.error)
                yield Answer(item.file, error=item.error)
            elif isinstance(result, str):  # refused by the solver, or its process died
                batch.fail(item.file, result)
                if say is not None:
                    say(item.file, result)
                yield Answer(item.file, item.puzzle, error=result)
            else:
                yield Answer(item.file, item.puzzle, result)
    finally:
        batch.on_error = say


def _solved(
    batch: Batch, opts: SolveOptions, start: float | None,
) -> Iterator[tuple[Item, SolveResult | str | None]]:
    """Each item of ``batch`` with its result (None for an unreadable item), in order."""
    import time

    if opts.workers <= 1:
        started = start if start is not None else time.monotonic()
        for item in batch:
            yield item, _solve_or_skip((item, opts, started))
            started = time.monotonic()  # the next item's clock: before its file is read
        return
    from nonoforge.pipeline.pool import OrderedPool

    read: deque[Item] = deque()  # items handed to the pool, not yet answered

    def jobs() -> Iterator[Job]:
        for item in batch:
            read.append(item)
            yield item, opts, None

    pool: OrderedPool[Job, SolveResult | str | None] = OrderedPool(
        opts.workers, _died, prepare=_load_solver)
    with pool:
        for result in pool.imap(_solve_or_skip, jobs(), local=_unread):
            yield read.popleft(), result
