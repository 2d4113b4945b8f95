"""Exporting a stored collection: a folder of files, one ROFL file, a print-ready PDF book,
a playable HTML page or a JSON-lines dataset, chosen by the target's name.

The kinds are a registry (:data:`KINDS`, :func:`register_kind`): each
:class:`ExportKind` names the suffixes it answers to and how it writes, and a target is
matched by its suffix -- a folder when it has none (or is an existing folder), and a suffix
no kind claims is refused in one line naming the known ones (``book.txt`` once became a
folder of that name). A new kind is one registration.

Exports never mix: a target file that exists, or a folder that holds anything, is refused
unless ``overwrite`` is set, and then only the files a folder export writes (``NNN-gG-*``
in a puzzle format) are removed, so the folder ends up holding exactly the collection plus
whatever else the user kept there.

Every puzzle leaves with its answer: the stored goal, or the solver's solution when no goal
is stored (``.nin`` and most site puzzles). A puzzle without a proven unique solution is
left out of every export (books, pages, datasets, ROFL, folders alike, so that a collection
counts the same in each) unless ``include_ambiguous`` is set -- by the export, or by
``collection build --include-ambiguous``, which the collection remembers -- and then marked. Given
cells (cells printed solved) leave with every puzzle: books and pages print them, the
dataset lists them, and a file format that cannot hold them (ROFL, most folder formats)
leaves that puzzle out with a warning (:func:`writable`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonoforge.errors import UsageError
from nonoforge.pipeline.item import ExportItem
from nonoforge.util import write_atomic

if TYPE_CHECKING:
    from nonoforge.pipeline.pdf import BookOptions

Warn = Callable[[str], None]

#: Seconds the solver may spend on a puzzle whose answer is not stored.
SOLVE_TIMEOUT = 30.0
#: The names a folder export gives its files (what ``overwrite`` may remove).
OUR_FILE = re.compile(r"\d{3,}-g\d+-[a-z0-9-]+(\.[a-z0-9]+)+")


@dataclass(frozen=True)
class ExportOptions:
    """How to export: folder format, the book's trim, ink, puzzles a page, paper and
    cover, overwriting, dataset traces."""

    fmt: str = "non"
    page: str = "a4"
    greyscale: bool = False
    overwrite: bool = False
    steps: bool = False
    include_ambiguous: bool = False
    per_page: int = 4
    paper: str = "white"
    #: Also write the matching full-wrap cover, ``NAME-cover.pdf`` beside the book.
    cover: bool = False

    def book(self) -> BookOptions:
        """The book's own options (:class:`nonoforge.pipeline.pdf.BookOptions`)."""
        from nonoforge.pipeline.pdf import BookOptions

        return BookOptions(self.page, self.greyscale, self.per_page, self.paper)


@dataclass(frozen=True)
class Exported:
    path: str
    kind: str  # the ExportKind's name: "dir", "rofl", "pdf", "html", "jsonl", ...
    count: int
    skipped: int = 0
    #: Puzzles the target's format cannot hold (given cells in ROFL, colour in a
    #: black-and-white format), left out with a warning each: the exit code tells.
    refused: int = 0
    #: Other files written with it (a book's cover).
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExportJob:
    """What an export kind's writer is given: the items to write (already narrowed to
    what the kind holds), the target, the collection's name, the options, the warner."""

    items: Sequence[ExportItem]
    target: Path
    title: str
    opts: ExportOptions
    warn: Warn | None = None


@dataclass(frozen=True)
class ExportKind:
    """One kind of export, found by the target's suffix (:func:`kind_of`).

    ``write`` writes ``job.items`` to ``job.target``. The other fields say what the common
    path (:func:`export_collection`) does first, so that a writer only writes:
    ``puzzle_format`` (given the options) is the puzzle file format the kind writes, whose
    refusals leave puzzles out with a warning; ``answers`` has every item solved for its
    answer and verdict; ``playable`` is kept for older registrations: every kind now keeps
    only the puzzles with a proven unique solution (all of them, marked, with
    ``include_ambiguous``), so that a collection counts the same in each; ``check``
    refuses bad options before anything is written or removed. The one ``folder`` kind
    writes into a directory (a target without a suffix); every other kind writes one file.
    """

    name: str
    suffixes: tuple[str, ...]
    description: str
    write: Callable[[ExportJob], None]
    puzzle_format: Callable[[ExportOptions], str] | None = None
    answers: bool = False
    playable: bool = False
    check: Callable[[ExportOptions], None] | None = None
    folder: bool = False


#: The export kinds by name, in the order they are listed; see :func:`register_kind`.
KINDS: dict[str, ExportKind] = {}


def register_kind(kind: ExportKind) -> ExportKind:
    """Add (or replace, by name) an export kind. A suffix belongs to one kind, lower case
    with its dot (``.pdf``); the folder kind has none."""
    for other in KINDS.values():
        taken = set(other.suffixes) & set(kind.suffixes)
        if other.name != kind.name and (taken or (kind.folder and other.folder)):
            raise ValueError(f"export kind {kind.name!r} clashes with {other.name!r}")
    if kind.folder == bool(kind.suffixes) or any(
            not x.startswith(".") or x != x.lower() for x in kind.suffixes):
        raise ValueError(f"export kind {kind.name!r}: a folder has no suffix, a file "
                         "kind lower-case ones like '.pdf'")
    KINDS[kind.name] = kind
    return kind


def known_kinds() -> str:
    """The registered kinds in one phrase, for help and errors."""
    return ", ".join(f"a folder ({k.description})" if k.folder else
                     f"{'/'.join(k.suffixes)} ({k.description})" for k in KINDS.values())


def items_of(corpus: Any, name: str) -> list[ExportItem]:
    """The collection's puzzles in order, with their stored ratings (no answers yet) and
    the titles the collection gives them."""
    from nonoforge.solver import SOLVER_VERSION

    puzzles = corpus.collection(name)
    results = {r["key"]: r for r in corpus.results(SOLVER_VERSION)}
    titles = params_of(corpus, name).get("titles") or {}
    return [ExportItem(p, i, dict(results.get(p.key, {})), None,
                       results.get(p.key, {}).get("status"), titles.get(p.key))
            for i, p in enumerate(puzzles, start=1)]


def params_of(corpus: Any, name: str) -> dict[str, Any]:
    """How the collection was built (``collection build``'s options), {} if unknown."""
    for c in corpus.collections():
        if c["name"] == name:
            return dict(c.get("params") or {})
    return {}


def solve_items(items: Sequence[ExportItem], warn: Warn | None = None) -> None:
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


def playable(
    items: Sequence[ExportItem], include_ambiguous: bool, warn: Warn | None,
    answers: bool = True,
) -> list[ExportItem]:
    """The items an export holds: unique ones, others only when asked (marked); with
    ``answers`` (books, pages, datasets) only those whose answer is known. Every kind
    keeps the same ones, so a collection counts the same in each (issue 37)."""
    keep = [it for it in items if (it.answer is not None or not answers)
            and (it.unique or include_ambiguous)]
    left = len(items) - len(keep)
    if left and warn:
        why = "without a known solution" if include_ambiguous else \
            "without a proven unique solution (--include-ambiguous puts them in, marked)"
        warn(f"left out {left} puzzle(s) {why}")
    return keep


# -- targets --------------------------------------------------------------------------------


def kind_of(to: str) -> ExportKind:
    """The kind a target names: the folder kind for a name without a suffix, one ending
    in a slash or an existing folder; else the kind its suffix is registered to. A suffix
    no kind claims is refused (UsageError) with the known kinds."""
    target = Path(to)
    folder = next(k for k in KINDS.values() if k.folder)
    suffix = target.suffix.lower()
    if not suffix or to.endswith(("/", os.sep)) or target.is_dir():
        return folder
    for kind in KINDS.values():
        if suffix in kind.suffixes:
            return kind
    raise UsageError(f"{to}: no export writes {suffix} files (known: {known_kinds()})")


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
    """Write a stored collection to ``to``; its suffix picks the kind (:func:`kind_of`)."""
    opts = opts or ExportOptions()
    target = Path(to)
    kind = kind_of(to)
    # everything that can refuse the export is checked before --overwrite removes anything
    items = items_of(corpus, name)
    if not items:
        raise UsageError(f"collection {name!r} is empty or does not exist")
    refused = 0
    if kind.puzzle_format is not None:  # a file format: the puzzles it cannot hold stay out
        fmt = kind.puzzle_format(opts)
        items, refused = writable(items, fmt, warn)
        if not items:
            raise UsageError(f"collection {name!r}: no puzzle can be written as "
                             f"{fmt if kind.folder else kind.description} (see the warnings)")
    if kind.check is not None:
        kind.check(opts)
    if kind.folder:
        claim_dir(target, opts.overwrite)
    else:
        claim_file(target, opts.overwrite)
        target.parent.mkdir(parents=True, exist_ok=True)
    if kind.answers:
        solve_items(items, warn)
    else:  # verdicts only, for the puzzles that have none stored
        solve_items([it for it in items if it.verdict is None], warn)
    params = params_of(corpus, name)
    ambiguous = opts.include_ambiguous or bool(params.get("include_ambiguous"))
    chosen = playable(items, ambiguous, warn, answers=kind.answers)
    if not chosen:
        raise UsageError(f"collection {name!r}: no puzzle with a known unique solution")
    chosen = book_order(chosen)
    for n, it in enumerate(chosen, start=1):  # numbered alike in every kind
        it.number = n
    title = str(params.get("title") or name)
    kind.write(ExportJob(chosen, target, title, opts, warn))
    also = (str(cover_path(target)),) if kind.name == "pdf" and opts.cover else ()
    return Exported(str(target) if kind.folder else to, kind.name, len(chosen),
                    len(items) - len(chosen), refused, also)


def book_order(items: Sequence[ExportItem]) -> list[ExportItem]:
    """The collection's order grouped by size, as a book's sections are
    (:func:`nonoforge.pipeline.pdf.section_of`), the collection's order (easiest first)
    kept within each: every kind numbers the puzzles in this order, so that puzzle 12 is
    the same puzzle in the book, the page, the dataset and the folder."""
    from nonoforge.pipeline.pdf import section_of

    return sorted(items, key=lambda it: section_of(it.puzzle))


def cover_path(target: Path) -> Path:
    """Where a book's cover goes: ``book.pdf`` -> ``book-cover.pdf``."""
    return target.with_name(f"{target.stem}-cover{target.suffix}")


def writable(
    items: Sequence[ExportItem], fmt: str, warn: Warn | None
) -> tuple[list[ExportItem], int]:
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


# -- the kinds ------------------------------------------------------------------------------


def _write_dir(job: ExportJob) -> None:
    from nonoforge.formats import get_format, write_file

    f = get_format(job.opts.fmt)
    job.target.mkdir(parents=True, exist_ok=True)
    for it in job.items:
        g = it.grade
        stem = f"{it.number:03d}-g{g if g is not None else 0}-{slug(it.title)}"
        write_file(it.puzzle, job.target / f"{stem}{f.extensions[0]}", f.name)


def _write_rofl(job: ExportJob) -> None:
    from nonoforge.formats import write_file

    write_file([it.puzzle for it in job.items], job.target, "rofl")


def _check_pdf(opts: ExportOptions) -> None:
    opts.book().check()


def _write_pdf(job: ExportJob) -> None:
    """The book, and with ``cover`` its cover, whose spine fits the book's page count."""
    from nonoforge.pipeline.pdf import BookEntry, Layout, book, cover

    bo = job.opts.book()
    entries = [BookEntry(it.puzzle, it.number, it.title, it.grade, it.answer, it.note)
               for it in job.items]
    if job.opts.cover:
        claim_file(cover_path(job.target), job.opts.overwrite)
    write_atomic(job.target, book(entries, title=job.title, opts=bo, warn=job.warn))
    if job.opts.cover:
        pages = Layout.of(entries, bo.size, bo.per_page).pages
        write_atomic(cover_path(job.target), cover(entries, job.title, pages, bo, job.warn))


def _write_html(job: ExportJob) -> None:
    from nonoforge.pipeline.html import page

    write_atomic(job.target, page(job.items, title=job.title).encode("utf-8"))


def _write_jsonl(job: ExportJob) -> None:
    from nonoforge.pipeline.dataset import records, write_jsonl

    write_jsonl(job.target, records(job.items, steps=job.opts.steps))


register_kind(ExportKind("dir", (), "puzzle files in --format", _write_dir,
                         puzzle_format=lambda o: o.fmt, folder=True))
register_kind(ExportKind("rofl", (".rofl",), "ROFL", _write_rofl,
                         puzzle_format=lambda o: "rofl"))
register_kind(ExportKind("pdf", (".pdf",), "print-ready book", _write_pdf, answers=True,
                         playable=True, check=_check_pdf))
register_kind(ExportKind("html", (".html", ".htm"), "playable page", _write_html,
                         answers=True, playable=True))
register_kind(ExportKind("jsonl", (".jsonl",), "dataset", _write_jsonl, answers=True))
