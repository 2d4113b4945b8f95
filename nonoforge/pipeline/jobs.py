"""The batch jobs users run: rate a corpus, build and export graded collections.

Each job takes an open :class:`~nonoforge.db.Corpus` and plain options and reports progress
through an optional callback, so the CLI, the demo and the tests drive the same code.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nonoforge.errors import UsageError
from nonoforge.pipeline.batch import Batch, Item
from nonoforge.pipeline.collection import Candidate, Filters, pick
from nonoforge.pipeline.difficulty import Model, fit
from nonoforge.pipeline.rate import (
    MIN_FIT,
    DaskExecutor,
    LocalExecutor,
    RateOptions,
    Summary,
    bundled_model,
    rate_all,
    sample_of,
    score_rows,
    site_difficulty,
)
from nonoforge.puzzle import Puzzle

if TYPE_CHECKING:
    from nonoforge.db import Corpus

#: Where rating runs: worker processes here, or a Dask cluster.
Executor = LocalExecutor | DaskExecutor

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
    results: list[dict[str, Any]] | None = None,
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
        if corpus is not None:
            stored = corpus.get_model(version)
            if stored:
                return Model.from_dict(stored)
        shipped = bundled_model(version)
        if shipped is not None:
            return shipped
    if corpus is None:
        return None
    if results is None:
        results = corpus.results(version)
    rows = [r for r in results if r["status"] in ("unique", "multiple")]
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

    Resumable: results are committed every :data:`BATCH` puzzles and rated puzzles skipped.
    """
    return _rate_corpus(corpus, executor, opts, refit, keys, progress).summary


@dataclass
class _Graded:
    """What rating a corpus read back: the summary, every scored result of this solver
    version, and the corpus's listing when grading needed it (None: not read)."""

    summary: Summary
    rows: list[dict[str, Any]]
    info: list[dict[str, Any]] | None


def _rate_corpus(
    corpus: Corpus, executor: Executor, opts: RateOptions, refit: bool,
    keys: Iterable[str] | None, progress: Progress | None,
) -> _Graded:
    executor.start()  # local workers warm up while the corpus is read
    version = solver_version()
    done = corpus.rated_keys(version)
    wanted = set(keys) if keys is not None else None
    todo = [
        p for p in corpus.query()
        if p.key not in done and (wanted is None or p.key in wanted)
    ]
    summary = Summary(skipped=len(done if wanted is None else done & wanted))
    if progress:
        progress({"event": "start", "total": len(todo), "skipped": summary.skipped})
    pending: list[dict[str, Any]] = []
    for row in rate_all(todo, executor, opts):
        summary.add(row)
        pending.append(row)
        if len(pending) >= BATCH:
            corpus.save_results(pending, version)
            pending = []
        if progress:
            progress({"event": "rated", "row": row})
    if pending:
        corpus.save_results(pending, version)
    rows, info = grade_corpus(corpus, version, summary, refit)
    return _Graded(summary, rows, info)


def grade_corpus(
    corpus: Corpus, version: str, summary: Summary, refit: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """Score and grade every result of this solver version with one model.

    Returns those results (scored when there is a model) and the corpus's listing
    (:meth:`Corpus.info`) when it was read for the site's difficulties, so that callers
    reporting them need not read either again.
    """
    rows = corpus.results(version)
    model = model_for(corpus, version, refit, rows)
    if model is None:
        summary.model_fit = {"note": f"no model shipped for solver {version} (bench/"
                             f"fit_model.py) and fewer than {MIN_FIT} rated: no scores yet"}
        return rows, None
    score_rows(rows, model)
    corpus.save_results(rows, version)
    summary.model_fit = fit_report(model)
    summary.count_grades(rows)
    info = corpus.info()
    site = {i["key"]: site_difficulty(i.get("extra")) for i in info}
    summary.compare_site([
        (r["grade"], d) for r in rows
        if r["grade"] is not None and (d := site.get(r["key"])) is not None
    ])
    return rows, info


def rate_puzzles(
    puzzles: list[Puzzle], *, executor: Executor, opts: RateOptions,
    progress: Progress | None = None,
) -> tuple[list[dict[str, Any]], Summary]:
    """Rate puzzles outside any corpus, rows in input order (scored by the shipped model)."""
    summary = Summary()
    rows = []
    if progress:
        progress({"event": "start", "total": len(puzzles), "skipped": 0})
    for row in rate_all(puzzles, executor, opts):
        summary.add(row)
        rows.append(row)
        if progress:
            progress({"event": "rated", "row": row})
    order: dict[str, int] = {}
    for i, p in enumerate(puzzles):
        order.setdefault(p.key, i)
    rows.sort(key=lambda r: order[r["key"]])  # input order, whatever the workers did
    model = bundled_model(solver_version())
    if model is not None:
        score_rows(rows, model)
        summary.model_fit = fit_report(model)
        summary.count_grades(rows)
    else:
        summary.model_fit = {"note": f"no model shipped for solver {solver_version()}: "
                             "no scores (bench/fit_model.py fits one)"}
        for r in rows:
            r["score"] = r["grade"] = None
    return rows, summary


#: The fields of a rating that ``rate --json`` shows, in this order.
ROW_FIELDS = ("key", "title", "width", "height", "colors", "status", "technique", "score",
              "grade", "time_s", "effort")


@dataclass
class RateRun:
    """What ``nonoforge rate`` reports: one entry per input item, in input order.

    An entry is a rating (``ROW_FIELDS``, plus ``file`` when rated from files and
    ``error`` when its status is ``error``) or, for a file that could not be read,
    ``{"file": ..., "error": ...}``.
    """

    entries: list[dict[str, Any]]
    summary: Summary

    @property
    def failed(self) -> int:
        """Items that could not be rated: unreadable files and puzzles the solver refused."""
        return sum(1 for e in self.entries if "error" in e)


def _entry(row: dict[str, Any], file: str | None = None) -> dict[str, Any]:
    out = {k: row.get(k) for k in ROW_FIELDS}
    if file is not None:
        out = {"file": file, **out}
    if row.get("status") == "error":
        out["error"] = row.get("error") or (row.get("effort") or {}).get("error")
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
) -> RateRun:
    """The ``rate`` command: rate files, a corpus, or files added to a corpus.

    With ``files`` and no ``db``: rate those files (scored by the shipped model). With
    ``db``: add the files' puzzles to the corpus (if any are given), rate what the corpus
    has not rated with this solver version, grade, and report the files' puzzles (or the
    whole corpus). An unreadable file or a puzzle the solver refuses costs only itself:
    it is an entry with its error and the rest are rated. Closes ``executor``.

    ``resolve`` maps a file name as given to the file to read (``example:NAME``). The
    corpus is opened (and created when missing) with :meth:`Corpus.open`; the CLI refuses
    a ``--db`` that does not exist before calling, unless files are added.
    """
    items = list(Batch(files, fmt, resolve=resolve)) if files else None
    try:
        if items is not None and db is None:
            return _rate_files(items, executor, opts, progress)
        from nonoforge.db import Corpus

        with Corpus.open(db) as corpus:
            return _rate_in_corpus(items, corpus, executor, opts, refit, progress)
    finally:
        executor.close()


def _rate_files(
    items: list[Item], executor: Executor, opts: RateOptions, progress: Progress | None,
) -> RateRun:
    puzzles = [it.puzzle for it in items if it.puzzle is not None]
    rows, summary = rate_puzzles(puzzles, executor=executor, opts=opts, progress=progress)
    summary.unreadable = sum(1 for it in items if it.puzzle is None)
    by_key = {r["key"]: r for r in rows}
    entries = [
        it.as_error() if it.puzzle is None else _entry(by_key[it.puzzle.key], it.file)
        for it in items
    ]
    return RateRun(entries, summary)


def _rate_in_corpus(
    items: list[Item] | None, corpus: Corpus, executor: Executor, opts: RateOptions,
    refit: bool,
    progress: Progress | None,
) -> RateRun:
    keys = None
    if items is not None:
        puzzles = [it.puzzle for it in items if it.puzzle is not None]
        corpus.add(puzzles)
        keys = [p.key for p in puzzles]
    graded = _rate_corpus(corpus, executor, opts, refit, keys, progress)
    summary = graded.summary
    by_key = {r["key"]: r for r in graded.rows}
    if items is None:
        info = graded.info if graded.info is not None else corpus.info()
        return RateRun(
            [_entry({**by_key[i["key"]], "title": i["title"]})
             for i in info if i["key"] in by_key],
            summary,
        )
    summary.unreadable = sum(1 for it in items if it.puzzle is None)
    entries = [
        it.as_error() if it.puzzle is None
        else _entry({**by_key[it.puzzle.key], "title": it.puzzle.meta.title}, it.file)
        for it in items
    ]
    return RateRun(entries, summary)


# -- collections ----------------------------------------------------------------------------


def build_collection(
    corpus: Corpus, name: str, filters: Filters, count: int = 100
) -> list[Candidate]:
    """Select ``count`` puzzles from the rated corpus and store them under ``name``."""
    chosen = pick(corpus, solver_version(), filters, count)  # in the database
    if not chosen and not corpus.rated_supply(solver_version()):
        raise UsageError("the corpus has no rated puzzles: run `nonoforge rate` first")
    if not chosen:
        raise UsageError("no rated puzzle matches those filters")
    corpus.create_collection(
        name, [c.puzzle.key for c in chosen], {"count": count, **filters.to_dict()}
    )
    return chosen


def export_collection(
    corpus: Any, name: str, to: str, fmt: str = "non", opts: Any = None, warn: Any = None
) -> Any:
    """Write a stored collection: see :func:`nonoforge.pipeline.export.export_collection`."""
    from nonoforge.pipeline.export import ExportOptions
    from nonoforge.pipeline.export import export_collection as run

    return run(corpus, name, to, opts or ExportOptions(fmt=fmt), warn)
