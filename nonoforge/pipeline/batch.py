"""Batches that keep going: read many files, each one its own unit.

A batch command (``rate``, ``solve``, ``info``, ``convert``, ``db import``) reads every file
it is given; a file that cannot be read (missing, a directory, not a puzzle, too big, no
puzzle in it) becomes one :class:`Item` carrying its reason instead of stopping the batch.
The command answers the good files, reports each bad one in one line (and, with ``--json``,
as ``{"file": ..., "error": ...}`` in its place) and exits 2 at the end if any failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from nonoforge.errors import FormatError, NonoforgeError
from nonoforge.puzzle import Puzzle


@dataclass(frozen=True)
class Item:
    """One puzzle read from ``file``, or the reason ``file`` gave none (``puzzle`` None)."""

    file: str
    puzzle: Puzzle | None = None
    error: str | None = None

    def as_error(self) -> dict[str, str]:
        """The ``--json`` entry of a file that could not be read."""
        return {"file": self.file, "error": self.error or ""}


def resolve_input(path: str) -> str:
    """A path as given, or the bundled file an ``example:NAME`` names."""
    if path.startswith("example:"):
        from nonoforge.examples import example_path

        return str(example_path(path.removeprefix("example:")))
    return path


def reason(e: BaseException) -> str:
    """The one line that says why an item failed (without the file, which the item names)."""
    if isinstance(e, FormatError):
        return f"line {e.line}: {e.reason}" if e.line is not None else e.reason
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def read_each(paths: Iterable[str], fmt: str | None = None) -> Iterator[Item]:
    """Every puzzle of every file, in order; a file that fails gives one error item.

    A file is one unit: if reading it fails part-way, its puzzles are not used and the
    error item stands for the whole file.
    """
    from nonoforge.formats import iter_file

    for path in paths:
        try:
            puzzles = list(iter_file(resolve_input(path), fmt))
            if not puzzles:
                raise FormatError("no puzzle in file", path=path)
        except (NonoforgeError, OSError, MemoryError, RecursionError) as e:
            yield Item(path, error=reason(e))
            continue
        for p in puzzles:
            yield Item(path, p)
