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

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from nonoforge.errors import FAILED_EXIT, FormatError, NonoforgeError
from nonoforge.puzzle import Puzzle
from nonoforge.util import first_line


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
