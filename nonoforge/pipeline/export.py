"""Exporting a stored collection: a folder of files, one ROFL file, a print-ready PDF book,
a playable HTML page or a JSON-lines dataset, chosen by the target's name.

Exports never mix: a target file that exists, or a folder that holds anything, is refused
unless ``overwrite`` is set, and then only the files a folder export writes (``NNN-gG-*``
in a puzzle format) are removed, so the folder ends up holding exactly the collection plus
whatever else the user kept there.

Every puzzle leaves with its answer: the stored goal, or the solver's solution when no goal
is stored (``.nin`` and most site puzzles). A puzzle without a proven unique solution is
left out of books and pages unless ``include_ambiguous`` is set, and then marked. Given
cells (cells printed solved) leave with every puzzle: books and pages print them, the
dataset lists them, and a file format that cannot hold them (ROFL, most folder formats)
leaves that puzzle out with a warning (:func:`writable`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nonoforge.errors import UsageError
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.results import Verdict
from nonoforge.util import write_atomic

Warn = Callable[[str], None]

#: Seconds the solver may spend on a puzzle whose answer is not stored.
SOLVE_TIMEOUT = 30.0
#: The names a folder export gives its files (what ``overwrite`` may remove).
OUR_FILE = re.compile(r"\d{3,}-g\d+-[a-z0-9-]+(\.[a-z0-9]+)+")
#: The kinds of single-file exports, by file suffix.
SUFFIXES = {".rofl": "rofl", ".pdf": "pdf", ".html": "html", ".htm": "html",
            ".jsonl": "jsonl"}


@dataclass(frozen=True)
class ExportOptions:
    """How to export: folder format, book page and ink, overwriting, dataset traces."""

    fmt: str = "non"
    page: str = "a4"
    greyscale: bool = False
    overwrite: bool = False
    steps: bool = False
    include_ambiguous: bool = False


@dataclass(frozen=True)
class Exported:
    path: str
    kind: str  # "dir", "rofl", "pdf", "html" or "jsonl"
    count: int
    skipped: int = 0
    #: Puzzles the target's format cannot hold (given cells in ROFL, colour in a
    #: black-and-white format), left out with a warning each: the exit code tells.
    refused: int = 0


@dataclass
class Item:
    """One puzzle of an export with all we know of it."""

    puzzle: Puzzle
    number: int
    result: dict[str, Any] = field(default_factory=dict)
    answer: Grid | None = None
    verdict: str | None = None

    @property
    def grade(self) -> int | None:
        return self.result.get("grade")

    @property
    def title(self) -> str:
        return self.puzzle.meta.title or f"Puzzle {self.puzzle.key[:6]}"

    @property
    def unique(self) -> bool:
        return self.verdict == Verdict.UNIQUE

    @property
    def note(self) -> str | None:
        if self.unique:
            return None
        if self.verdict == Verdict.MULTIPLE:
            return "not unique: one of several solutions"
        return "uniqueness not proven"  # budget, timeout, timeout_wall, error


def items_of(corpus: Any, name: str) -> list[Item]:
    """The collection's puzzles in order, with their stored ratings (no answers yet)."""
    from nonoforge.solver import SOLVER_VERSION

    puzzles = corpus.collection(name)
    results = {r["key"]: r for r in corpus.results(SOLVER_VERSION)}
    return [Item(p, i, dict(results.get(p.key, {})), None, results.get(p.key, {}).get("status"))
            for i, p in enumerate(puzzles, start=1)]


def solve_items(items: Sequence[Item], warn: Warn | None = None) -> None:
    """Fill in each item's answer (goal or solver's) and verdict (stored or solver's)."""
    from nonoforge.errors import NonoforgeError
    from nonoforge.solver import solve

    for it in items:
        it.answer = it.puzzle.goal
        if it.answer is not None and it.verdict is not None:
            continue
        try:
            # a stored verdict needs only a solution; otherwise prove uniqueness too
            res = solve(it.puzzle, max_solutions=1 if it.verdict else 2, timeout=SOLVE_TIMEOUT)
        except NonoforgeError as e:  # e.g. too many colours: this puzzle only
            if warn:
                warn(f"puzzle {it.number} ({it.puzzle.key[:12]}): not solved: {e}")
            it.verdict = it.verdict or "error"
            continue
        it.verdict = it.verdict or res.status
        if not it.result:  # not rated: the solve's own verdict, technique and effort
            from nonoforge.solver import SOLVER_VERSION

            it.result = {"status": res.status, "technique": res.technique,
                         "effort": dict(res.effort), "solver_version": SOLVER_VERSION}
        if it.answer is None and res.solution is not None:
            it.answer = res.solution


def playable(items: Sequence[Item], include_ambiguous: bool, warn: Warn | None) -> list[Item]:
    """The items a book or page may hold: unique ones, others only when asked (marked)."""
    keep = [it for it in items if it.answer is not None
            and (it.unique or include_ambiguous)]
    left = len(items) - len(keep)
    if left and warn:
        why = "without a known solution" if include_ambiguous else \
            "without a proven unique solution (--include-ambiguous puts them in, marked)"
        warn(f"left out {left} puzzle(s) {why}")
    return keep


# -- targets --------------------------------------------------------------------------------


def kind_of(to: str) -> str:
    """``dir`` or the single-file kind the target's suffix names."""
    return SUFFIXES.get(Path(to).suffix.lower(), "dir")


def claim_file(target: Path, overwrite: bool) -> None:
    """Refuse to write over an existing file unless ``overwrite``."""
    if target.is_dir():
        raise UsageError(f"{target} is a folder, not a file")
    if target.exists() and not overwrite:
        raise UsageError(f"{target} exists: use --overwrite to replace it")


def claim_dir(target: Path, overwrite: bool) -> None:
    """Refuse a non-empty folder unless ``overwrite``; then remove only our export files."""
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} exists and is not a folder")
    if not target.is_dir():
        return
    present = sorted(target.iterdir())
    if not present:
        return
    if not overwrite:
        raise UsageError(f"{target} is not empty ({len(present)} entries): "
                         "use --overwrite to replace the nonoforge files in it")
    for f in present:
        if OUR_FILE.fullmatch(f.name) and f.is_file() and not f.is_symlink():
            f.unlink()


def slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return s[:40] or "puzzle"


def export_collection(
    corpus: Any, name: str, to: str, opts: ExportOptions | None = None,
    warn: Warn | None = None,
) -> Exported:
    """Write a stored collection to ``to``: its suffix picks the kind (a folder otherwise)."""
    opts = opts or ExportOptions()
    target = Path(to)
    kind = kind_of(to)
    # everything that can refuse the export is checked before --overwrite removes anything
    items = items_of(corpus, name)
    if not items:
        raise UsageError(f"collection {name!r} is empty or does not exist")
    refused = 0
    if kind in ("dir", "rofl"):  # a file format: the puzzles it cannot hold stay out
        items, refused = writable(items, opts.fmt if kind == "dir" else "rofl", warn)
        if not items:
            raise UsageError(f"collection {name!r}: no puzzle can be written as "
                             f"{opts.fmt if kind == 'dir' else 'ROFL'} (see the warnings)")
    if kind == "dir":
        claim_dir(target, opts.overwrite)
    else:
        if kind == "pdf":
            from nonoforge.pipeline.pdf import page_size

            page_size(opts.page)
        claim_file(target, opts.overwrite)
        target.parent.mkdir(parents=True, exist_ok=True)
    if kind == "rofl":
        from nonoforge.formats import write_file

        write_file([it.puzzle for it in items], target, "rofl")
        return Exported(to, kind, len(items), refused=refused)
    if kind == "dir":
        return replace(_export_dir(items, target, opts.fmt), refused=refused)
    solve_items(items, warn)
    if kind == "jsonl":
        from nonoforge.pipeline.dataset import records, write_jsonl

        write_jsonl(target, records(items, steps=opts.steps))
        return Exported(to, kind, len(items))
    chosen = playable(items, opts.include_ambiguous, warn)
    if not chosen:
        raise UsageError(f"collection {name!r}: no puzzle with a known unique solution")
    if kind == "pdf":
        from nonoforge.pipeline.pdf import BookEntry, book

        entries = [BookEntry(it.puzzle, n, it.title, it.grade, it.answer, it.note)
                   for n, it in enumerate(chosen, start=1)]
        write_atomic(target, book(entries, title=name, page=opts.page,
                                  greyscale=opts.greyscale, warn=warn))
    else:
        from nonoforge.pipeline.html import page

        write_atomic(target, page(chosen, title=name).encode("utf-8"))
    return Exported(to, kind, len(chosen), len(items) - len(chosen))


def writable(items: Sequence[Item], fmt: str, warn: Warn | None) -> tuple[list[Item], int]:
    """The items the format can hold, and how many it cannot (each named in a warning, with
    the format's one-line reason: :meth:`~nonoforge.formats.Format.refusal`)."""
    from nonoforge.formats import get_format

    f = get_format(fmt)
    keep = []
    for it in items:
        why = f.refusal(it.puzzle)
        if why is None:
            keep.append(it)
        elif warn:
            warn(f"puzzle {it.number} ({it.puzzle.key[:12]}) left out: {why}")
    return keep, len(items) - len(keep)


def _export_dir(items: Sequence[Item], target: Path, fmt: str) -> Exported:
    from nonoforge.formats import get_format, write_file

    f = get_format(fmt)
    target.mkdir(parents=True, exist_ok=True)
    for it in items:
        g = it.grade
        stem = f"{it.number:03d}-g{g if g is not None else 0}-{slug(it.title)}"
        write_file(it.puzzle, target / f"{stem}{f.extensions[0]}", f.name)
    return Exported(str(target), "dir", len(items))
