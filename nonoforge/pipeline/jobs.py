"""The batch jobs users run: rate a corpus, build and export graded collections.

Each job takes an open :class:`~nonoforge.db.Corpus` and plain options and reports progress
through an optional callback, so the CLI, the demo and the tests drive the same code.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from nonoforge.errors import UsageError
from nonoforge.pipeline.batch import Batch, Item
from nonoforge.pipeline.collection import (
    BuildOptions,
    Candidate,
    Filters,
    eligible,
    pick,
    titles_for,
)
from nonoforge.pipeline.difficulty import Model, fit
from nonoforge.pipeline.rate import (
    MIN_FIT,
    DaskExecutor,
    LocalExecutor,
    RateOptions,
    Summary,
    bundled_model,
    human_rating,
    rate_all,
    sample_of,
    scored,
    site_difficulty,
)
from nonoforge.puzzle import Puzzle
from nonoforge.results import Rating

if TYPE_CHECKING:
    from nonoforge.db import Corpus

#: Where rating runs: worker processes here, or a Dask cluster.
Executor = LocalExecutor | DaskExecutor

#: Told of a run's progress: ``{"event": "start", "total": N, "skipped": N}``, then
#: ``{"event": "rated", "row": Rating}`` as each rating finishes (scored).
Progress = Callable[[dict[str, Any]], None]

#: Results are written to the corpus this many at a time.
BATCH = 25


def solver_version() -> str:
    from nonoforge.solver import SOLVER_VERSION

    return SOLVER_VERSION


def make_executor(kind: str, workers: int | None, scheduler: str | None):  # noqa: ANN201
    """A local process pool (default: all cores) or a Dask cluster client."""
    if kind == "local":
        return LocalExecutor(workers or os.cpu_count() or 1)
    if kind == "dask":
        if not scheduler:
            raise UsageError("--executor dask needs --scheduler ADDRESS (tcp://host:8786)")
        return DaskExecutor(scheduler)
    raise UsageError(f"unknown executor {kind!r} (local or dask)")


def model_for(
    corpus: Corpus | None, version: str, refit: bool = False,
    results: list[Rating] | None = None,
) -> Model | None:
    """The difficulty model for this solver version: the corpus's own, or the shipped one.

    A corpus uses the reference model shipped with nonoforge (``pipeline/models.json``,
    fitted by bench/fit_model.py), so a grade is a property of the puzzle and the solver
    version, whatever else the corpus holds. ``refit`` fits the corpus's own model on its
    measurements and stores it; later runs use it (``model_fit.kind`` says which one). With
    no shipped model for this solver version, a corpus of at least :data:`MIN_FIT` rated
    puzzles fits its own. ``results``: the corpus's results of this version, when the
    caller has read them already.
    """
    if not refit:
        known = known_model(corpus, version)
        if known is not None:
            return known
    if corpus is None:
        return None
    if results is None:
        results = corpus.ratings(version)
    rows = [r for r in results if r.graded]
    if len(rows) < MIN_FIT:
        return None
    model = fit([sample_of(r) for r in rows], version)
    model.fit["kind"] = "corpus"
    corpus.set_model(version, model.to_dict())
    return model


def fit_report(model: Model) -> dict[str, Any]:
    """What the summary says about the model that scored a run."""
    return {**model.fit, "kind": model.fit.get("kind", "corpus"),
            "solver_version": model.solver_version}


def rate_corpus(
    corpus: Corpus,
    *,
    executor: Executor,
    opts: RateOptions,
    refit: bool = False,
    keys: Iterable[str] | None = None,
    progress: Progress | None = None,
) -> Summary:
    """Rate every puzzle of the corpus not yet rated by this solver version, then grade all.

    Resumable: each rating is scored as it finishes and saved within :data:`SAVE_S`
    seconds (or :data:`BATCH` puzzles), so an interrupted run keeps what it finished,
    graded, and the next run rates only the rest.
    """
    return _rate_corpus(corpus, executor, opts, refit, keys, progress).summary


@dataclass
class _Graded:
    """What rating a corpus read back: the summary, every scored result of this solver
    version, the corpus's listing when grading needed it (None: not read), the keys this
    run rated (in the order they finished) and those the final grading changed."""

    summary: Summary
    rows: list[Rating]
    info: list[dict[str, Any]] | None
    rated: list[str]
    regraded: set[str]


#: A rating is saved at most this many seconds after it finishes (or with :data:`BATCH`
#: others, whichever comes first): a kill loses at most this much work.
SAVE_S = 1.0


def known_model(corpus: Corpus | None, version: str) -> Model | None:
    """The model a run can score with before it starts: the corpus's stored one, else
    the one shipped for this solver version; None when a fit has to wait for the ratings
    (see :func:`model_for`)."""
    if corpus is not None:
        stored = corpus.get_model(version)
        if stored:
            return Model.from_dict(stored)
    return bundled_model(version)


def _rate_corpus(
    corpus: Corpus, executor: Executor, opts: RateOptions, refit: bool,
    keys: Iterable[str] | None, progress: Progress | None,
    on_row: Callable[[Rating], None] | None = None,
) -> _Graded:
    """Rate what the corpus lacks (of ``keys``), each rating scored by the model known at
    the start and saved as it finishes; then :func:`grade_corpus`. ``on_row`` is told of
    each new rating, scored, as it finishes."""
    version = solver_version()
    wanted = list(dict.fromkeys(keys)) if keys is not None else None
    total = corpus.unrated_count(version, wanted)  # the database picks them: no decoding
    summary = Summary(skipped=corpus.rated_count(version, wanted))
    executor.start(total)  # local workers (at most one a puzzle) warm up while we read
    model = None if refit else known_model(corpus, version)
    if progress:
        progress({"event": "start", "total": total, "skipped": summary.skipped})
    rated: list[str] = []
    pending: list[Rating] = []
    saved_at = time.monotonic()
    try:
        for raw in rate_all(corpus.unrated(version, wanted), executor, opts):
            row = scored(raw, model)
            summary.add(row)
            rated.append(row.key)
            pending.append(row)
            if len(pending) >= BATCH or time.monotonic() - saved_at >= SAVE_S:
                corpus.save_results(pending, version)
                pending = []
                saved_at = time.monotonic()
            if progress:
                progress({"event": "rated", "row": row})
            if on_row:
                on_row(row)
    finally:  # an interrupt (Ctrl-C, SIGTERM) keeps every rating finished so far
        if pending:
            corpus.save_results(pending, version)
    add_human(corpus, version, wanted)
    rows, info, regraded = grade_corpus(corpus, version, summary, refit)
    return _Graded(summary, rows, info, rated, regraded)


def add_human(corpus: Corpus, version: str, keys: Sequence[str] | None = None) -> int:
    """Give the ratings of this solver version that lack them (made before migration
    0009) their human features, score and grade; returns how many were added.

    Nothing is timed or solved again: the step solver's path is a pure function of the
    puzzle, computed here in this process (about 0.1 s a tournament puzzle, see
    docs/difficulty.md) and saved every :data:`BATCH` puzzles, so an interrupted pass
    keeps what it did and the next run does the rest.
    """
    pending: list[dict[str, Any]] = []
    added = 0
    try:
        for p, rating in corpus.lacking_human(version, keys):
            human = human_rating(p, rating["status"])
            if human.score is None:
                continue  # the step solver refuses it: nothing to keep
            pending.append({"key": p.key, "rated_at": rating["rated_at"], **human.to_json()})
            if len(pending) >= BATCH:
                added += corpus.save_results(pending, version)
                pending = []
    finally:
        if pending:
            added += corpus.save_results(pending, version)
    return added


def grade_corpus(
    corpus: Corpus, version: str, summary: Summary, refit: bool = False
) -> tuple[list[Rating], list[dict[str, Any]] | None, set[str]]:
    """Score and grade every result of this solver version with one model; save only
    the results whose score or grade that changes.

    Returns those results (scored when there is a model), the corpus's listing
    (:meth:`Corpus.info`) when it was read for the site's difficulties, so that callers
    reporting them need not read either again, and the keys whose score or grade changed.
    """
    stored = corpus.ratings(version)
    model = model_for(corpus, version, refit, stored)
    if model is None:
        summary.model_fit = {"note": f"no model shipped for solver {version} (bench/"
                             f"fit_model.py) and fewer than {MIN_FIT} rated: no scores yet"}
        return stored, None, set()
    rows = [scored(r, model) for r in stored]
    changed = [new for old, new in zip(stored, rows, strict=True)
               if (old.score, old.grade) != (new.score, new.grade)]
    corpus.save_results(
        [{"key": r.key, "score": r.score, "grade": r.grade, "rated_at": r.rated_at}
         for r in changed],
        version,
    )
    summary.model_fit = fit_report(model)
    summary.count_grades(rows)
    info = corpus.info()
    site = {i["key"]: site_difficulty(i.get("extra")) for i in info}
    summary.compare_site([
        (r.grade, d) for r in rows
        if r.grade is not None and (d := site.get(r.key)) is not None
    ])
    return rows, info, {r.key for r in changed}


def rate_puzzles(
    puzzles: list[Puzzle], *, executor: Executor, opts: RateOptions,
    progress: Progress | None = None,
) -> tuple[list[Rating], Summary]:
    """Rate puzzles outside any corpus, in input order (scored by the shipped model)."""
    summary = Summary()
    rows = list(_rate_stream(puzzles, len(puzzles), executor, opts, summary, progress))
    order: dict[str, int] = {}
    for i, p in enumerate(puzzles):
        order.setdefault(p.key, i)
    rows.sort(key=lambda r: order[r.key])  # input order, whatever the workers did
    return rows, summary


def _rate_stream(
    puzzles: Iterable[Puzzle], total: int, executor: Executor, opts: RateOptions,
    summary: Summary, progress: Progress | None,
) -> Iterator[Rating]:
    """Rate ``total`` puzzles outside any corpus, yielding each rating scored (by the shipped
    model) as it finishes; the summary counts them, and its grades once all are in."""
    version = solver_version()
    model = bundled_model(version)
    if progress:
        progress({"event": "start", "total": total, "skipped": 0})
    executor.start(total)
    rows = []
    for raw in rate_all(puzzles, executor, opts):
        row = scored(raw, model)
        summary.add(row)
        rows.append(row)
        if progress:
            progress({"event": "rated", "row": row})
        yield row
    if model is not None:
        summary.model_fit = fit_report(model)
        summary.count_grades(rows)
    else:
        summary.model_fit = {"note": f"no model shipped for solver {version}: "
                             "no scores (bench/fit_model.py fits one)"}


#: The fields of a rating that ``rate --json`` shows, in this order.
ROW_FIELDS = ("key", "title", "width", "height", "colors", "status", "technique", "score",
              "grade", "time_s", "effort", "human", "human_score", "human_grade")

#: Told of each entry of a rating run as it is known (``rate --json`` prints it).
Emit = Callable[[dict[str, Any]], None]


@dataclass
class RateRun:
    """What ``nonoforge rate`` reports: one entry per input item, in input order.

    An entry is a rating (``ROW_FIELDS``, plus ``file`` when rated from files and
    ``error`` when its status is ``error``) or, for a file that could not be read,
    ``{"file": ..., "error": ...}``. Rating a whole corpus, the entries are its ratings of
    this solver version in corpus order.
    """

    entries: list[dict[str, Any]]
    summary: Summary

    @property
    def failed(self) -> int:
        """Items that could not be rated: unreadable files and puzzles the solver refused."""
        return sum(1 for e in self.entries if "error" in e)


@dataclass
class _Entries:
    """A run's entries: each handed to ``emit`` the moment it is known (a rating as it
    finishes, a bad file as it is read), and kept by position for the report's order.
    An entry given again for a position (a final grading that changed it) replaces it."""

    emit: Emit | None
    kept: dict[int, dict[str, Any]] = field(default_factory=dict)

    def put(self, pos: int, entry: dict[str, Any]) -> None:
        self.kept[pos] = entry
        if self.emit is not None:
            self.emit(entry)

    def ordered(self) -> list[dict[str, Any]]:
        return [self.kept[i] for i in sorted(self.kept)]


def _entry(rating: Rating, file: str | None = None) -> dict[str, Any]:
    """A rating as ``rate --json`` prints it: :data:`ROW_FIELDS` of its dict face, after
    ``file`` when rated from one, with ``error`` when it failed."""
    row = rating.to_json()
    out = {k: row.get(k) for k in ROW_FIELDS}
    if file is not None:
        out = {"file": file, **out}
    if rating.status == "error":
        out["error"] = rating.error
    return out


def rate_inputs(
    files: Sequence[str] | None,
    db: str | None,
    *,
    executor: Executor,
    opts: RateOptions,
    refit: bool = False,
    progress: Progress | None = None,
    fmt: str | None = None,
    resolve: Callable[[str], str] | None = None,
    emit: Emit | None = None,
    on_skip: Callable[[str, str], None] | None = None,
) -> RateRun:
    """The ``rate`` command: rate files, a corpus, or files added to a corpus.

    With ``files`` and no ``db``: rate those files (scored by the shipped model). With
    ``db``: add the files' puzzles to the corpus (if any are given), rate what the corpus
    has not rated with this solver version, grade, and report the files' puzzles (or the
    whole corpus). A folder among ``files`` stands for the puzzle files under it, found
    as ``db import`` finds them (:func:`~nonoforge.scraper.local.expand_folders`; each
    entry it skips is told to ``on_skip(name, why)``). An unreadable file or a puzzle the
    solver refuses costs only itself: it is an entry with its error and the rest are
    rated. Closes ``executor``.

    ``emit`` is given each entry as soon as it is known, so that an interrupted run has
    already handed over every rating it finished: a bad file when it is read, a new
    rating when it finishes (scored by the model known at the start), then, at the end,
    the entries of puzzles already rated before the run and of any whose score or grade
    the final grading changed (a refit, a first fit: such a key comes twice, the later
    entry is the one that holds). The returned :class:`RateRun` has them in input order.

    ``resolve`` maps a file name as given to the file to read (``example:NAME``). The
    corpus is opened (and created when missing) with :meth:`Corpus.open`; the CLI refuses
    a ``--db`` that does not exist before calling, unless files are added.
    """
    try:
        items = _read_items(files, fmt, resolve, on_skip) if files else None
        out = _Entries(emit)
        if items is not None and db is None:
            return _rate_files(items, executor, opts, progress, out)
        from nonoforge.db import Corpus

        with Corpus.open(db) as corpus:
            return _rate_in_corpus(items, corpus, executor, opts, refit, progress, out)
    finally:
        executor.close()


def _read_items(
    files: Sequence[str], fmt: str | None, resolve: Callable[[str], str] | None,
    on_skip: Callable[[str, str], None] | None,
) -> list[Item]:
    """The items of ``files``, each folder replaced by the puzzle files under it; a folder
    with none is an error item of its own (it was meant to hold puzzles)."""
    from nonoforge.scraper.local import expand_folders

    items: list[Item] = []
    empty: dict[str, str] = {}  # a folder with nothing to read: why, in the walk's words
    for f in files:
        paths = list(expand_folders([f], on_skip, empty.__setitem__))
        if not paths:
            items.append(Item(f, error=empty.get(f.rstrip("/") or "/",
                                                 "no puzzle file in this folder")))
        else:
            items += Batch(paths, fmt, resolve=resolve)
    return items


def _rate_files(
    items: list[Item], executor: Executor, opts: RateOptions, progress: Progress | None,
    out: _Entries,
) -> RateRun:
    summary = Summary(unreadable=sum(1 for it in items if it.puzzle is None))
    waiting: dict[str, deque[int]] = {}  # a puzzle's positions (one file may repeat another)
    for i, it in enumerate(items):
        if it.puzzle is not None:
            waiting.setdefault(it.puzzle.key, deque()).append(i)

    def feed() -> Iterator[Puzzle]:  # bad files are told in their place as they come
        for i, it in enumerate(items):
            if it.puzzle is None:
                out.put(i, it.as_error())
            else:
                yield it.puzzle

    total = len(items) - summary.unreadable
    for row in _rate_stream(feed(), total, executor, opts, summary, progress):
        i = waiting[row.key].popleft()
        out.put(i, _entry(row, items[i].file))
    for i, it in enumerate(items):  # with a pool, the feed was read before any rating
        if it.puzzle is None and i not in out.kept:
            out.put(i, it.as_error())
    return RateRun(out.ordered(), summary)


def _rate_in_corpus(
    items: list[Item] | None, corpus: Corpus, executor: Executor, opts: RateOptions,
    refit: bool, progress: Progress | None, out: _Entries,
) -> RateRun:
    keys = None
    where: dict[str, list[tuple[int, Item, Puzzle]]] = {}  # key -> its items, by position
    if items is not None:
        puzzles = []
        for i, it in enumerate(items):
            if it.puzzle is None:
                out.put(i, it.as_error())
            else:
                puzzles.append(it.puzzle)
                where.setdefault(it.puzzle.key, []).append((i, it, it.puzzle))
        corpus.add(puzzles)
        keys = [p.key for p in puzzles]

    def on_row(row: Rating) -> None:
        if items is None:  # whole corpus: positions are fixed at the end; tell it now
            if out.emit is not None:
                out.emit(_entry(row))
            return
        for i, it, p in where.get(row.key, []):
            out.put(i, _entry(replace(row, title=p.meta.title), it.file))

    graded = _rate_corpus(corpus, executor, opts, refit, keys, progress, on_row)
    summary = graded.summary
    by_key = {r.key: r for r in graded.rows}
    told = set(graded.rated) - graded.regraded  # already handed over as they finished
    if items is None:
        info = graded.info if graded.info is not None else corpus.info()
        final = _Entries(out.emit)
        for pos, listed in enumerate(info):
            row = by_key.get(listed["key"])
            if row is None:
                continue
            e = _entry(replace(row, title=listed["title"]))
            if listed["key"] in told:
                final.kept[pos] = e
            else:
                final.put(pos, e)
        return RateRun(final.ordered(), summary)
    summary.unreadable = sum(1 for it in items if it.puzzle is None)
    for i, it in enumerate(items):
        if it.puzzle is not None and (it.puzzle.key not in told or i not in out.kept):
            e = _entry(replace(by_key[it.puzzle.key], title=it.puzzle.meta.title), it.file)
            out.put(i, e)
    return RateRun(out.ordered(), summary)


# -- collections ----------------------------------------------------------------------------


#: How ``collection build --grade-by`` grades: the time-calibrated grade, or the human one.
GRADE_BY = ("time", "human")


def build_collection(
    corpus: Corpus, name: str, filters: Filters, count: int = 100,
    opts: BuildOptions | None = None, warn: Callable[[str], None] | None = None,
) -> list[Candidate]:
    """Select ``count`` puzzles from the rated corpus and store them under ``name``.

    Only puzzles proven unique qualify unless ``opts.include_ambiguous``; when fewer than
    ``count`` qualify, the collection holds what does and ``warn`` is told why in one line.
    Grades come from the time-calibrated score, or with ``opts.grade_by`` ``human`` from
    the human-effort one (the collection's params then say so). The options (title,
    titles, whether ambiguous puzzles were let in) are kept with the collection, so that
    every export of it says and holds the same.
    """
    opts = opts or BuildOptions()
    grade_by = opts.grade_by
    if grade_by not in GRADE_BY:
        raise UsageError(f"--grade-by must be one of {', '.join(GRADE_BY)}, not {grade_by!r}")
    wanted = eligible(filters, opts.include_ambiguous)
    chosen = pick(corpus, solver_version(), wanted, count, grade_by)  # in the database
    if not chosen and not corpus.rated_supply(solver_version()):
        raise UsageError("the corpus has no rated puzzles: run `nonoforge rate` first")
    if not chosen and grade_by == "human" and not corpus.rated_supply(solver_version(),
                                                                        by="human"):
        raise UsageError("the corpus's ratings have no human grades yet: run "
                         "`nonoforge rate --db` to add them")
    if not chosen:
        raise UsageError("no rated puzzle matches those filters"
                         + shortfall(corpus, filters, wanted, 0, count))
    if len(chosen) < count and warn is not None:
        warn(f"collection {name!r} holds {len(chosen)} of the {count} puzzles asked for"
             + shortfall(corpus, filters, wanted, len(chosen), count))
    params: dict[str, Any] = {"count": count, **filters.to_dict()}
    if grade_by != "time":  # a time-graded build's params stay as they always were
        params["grade_by"] = grade_by
    if opts.include_ambiguous:
        params["include_ambiguous"] = True
    if opts.title:
        params["title"] = opts.title
    titled = titles_for((c.puzzle for c in chosen), opts.titles)
    if titled:
        params["titles"] = titled
    corpus.create_collection(name, [c.puzzle.key for c in chosen], params)
    return chosen


def shortfall(corpus: Corpus, filters: Filters, wanted: Filters, got: int, count: int) -> str:
    """Why a collection has fewer puzzles than asked, as the tail of one line: how many
    qualify, and how many more were left out for want of a proven unique solution."""
    version = solver_version()
    qualify = sum(corpus.rated_supply(version, wanted).values())
    why = f": {qualify} rated puzzle(s) qualify"
    if qualify > got:
        why += f" ({qualify - got} repeat another's shape)"
    if wanted.status != filters.status:
        other = sum(corpus.rated_supply(version, filters).values()) - qualify
        if other:
            why += (f"; {other} more lack a proven unique solution "
                    "(--include-ambiguous lets them in)")
    return why


def export_collection(
    corpus: Any, name: str, to: str, fmt: str = "non", opts: Any = None, warn: Any = None
) -> Any:
    """Write a stored collection: see :func:`nonoforge.pipeline.export.export_collection`."""
    from nonoforge.pipeline.export import ExportOptions
    from nonoforge.pipeline.export import export_collection as run

    return run(corpus, name, to, opts or ExportOptions(fmt=fmt), warn)
