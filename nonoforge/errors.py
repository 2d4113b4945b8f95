"""The one exception hierarchy of nonoforge.

Every error that a user can cause (a bad file, a bad argument, an unreachable site, a
corrupt corpus) is a :class:`NonoforgeError`. The CLI turns these into one line on stderr
and the exit code each class carries; anything else is a bug and keeps its traceback.
This module is the bottom layer of the package: it imports nothing of ours.
"""

from __future__ import annotations


class NonoforgeError(Exception):
    """Base class of every error nonoforge reports to its user."""

    exit_code: int = 1


class UsageError(NonoforgeError):
    """A command was called with arguments that make no sense together."""

    exit_code = 2


class PuzzleError(NonoforgeError, ValueError):
    """A puzzle is inconsistent: clues that cannot fit, totals that differ, bad colours."""

    exit_code = 2


class FormatError(NonoforgeError, ValueError):
    """A file could not be read: says which file, which line and why.

    ``str(err)`` is ``path:line: reason`` (or ``path: reason`` when no line applies).
    """

    exit_code = 2

    def __init__(self, reason: str, path: str | None = None, line: int | None = None) -> None:
        self.reason = reason
        self.path = path
        self.line = line
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.reason}"

    def elsewhere(self, path: str | None) -> bool:
        """Whether this error is in another file than ``path``, the file being read (a file
        it brings along: a tournament question file's ``../solution/`` file). Never when
        the file read has no name (``path`` None)."""
        return path is not None and self.path is not None and self.path != path

    def reason_in(self, path: str | None = None) -> str:
        """The reason as a batch reports it under an item that names the file read at
        ``path``: ``line N: reason``, or ``OTHER:N: reason`` when the error is in another
        file (:meth:`elsewhere`)."""
        if self.elsewhere(path):
            return str(self)
        return self.reason if self.line is None else f"line {self.line}: {self.reason}"

    def place(self, name: str, path: str | None) -> str:
        """Where the error is, for a batch that names it as ``FILE:LINE``: ``name`` (what
        the user called the file read at ``path``) or the other file the error is in."""
        where = str(self.path) if self.elsewhere(path) else name
        return where if self.line is None else f"{where}:{self.line}"

    def located(self, path: str | None = None, line: int | None = None) -> FormatError:
        """The same error with a file (and line, if none was known) filled in."""
        return type(self)(
            self.reason,
            path if self.path is None else self.path,
            line if self.line is None else self.line,
        )


#: The exit code of a batch (convert, rate, ingest...) in which items failed: that of a
#: bad file. One home for every batch command and importer, so they agree.
FAILED_EXIT = FormatError.exit_code


class RoflError(FormatError):
    """A ROFL file or record is corrupt, truncated, or of an unknown version."""


class SolverError(NonoforgeError):
    """The solver was asked for something it cannot do."""

    exit_code = 3


class ImageError(NonoforgeError):
    """An image could not be read or turned into a puzzle."""

    exit_code = 2


class CorpusError(NonoforgeError):
    """The corpus database could not be opened, migrated or queried."""

    exit_code = 4


class FetchError(NonoforgeError):
    """A remote archive could not be reached or answered with something unusable."""

    exit_code = 5


__all__ = [
    "CorpusError",
    "FetchError",
    "FormatError",
    "ImageError",
    "NonoforgeError",
    "PuzzleError",
    "RoflError",
    "SolverError",
    "UsageError",
]
