"""``nonoforge rate``: difficulty in batch, with its progress bar and summary.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonoforge.cliapp import (
    Text,
    err,
    is_quiet,
    out,
    print_line,
    say_error,
)
from nonoforge.errors import FAILED_EXIT, UsageError
from nonoforge.util import terminal_text

if TYPE_CHECKING:
    from rich.console import Console

from nonoforge.commands.base import (
    CorpusOption,
    app,
    corpus_target,
    resolve_input,
)


def _progress_bar(  # noqa: ANN202 - a rich Progress or a null context
    total_label: str, redirect_stdout: bool = True,
):
    from contextlib import nullcontext

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if is_quiet():
        return nullcontext(None)
    return Progress(
        TextColumn(f"[bold]{total_label}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=err, transient=False,
        redirect_stdout=redirect_stdout,
    )


def _print_summary(s: dict[str, Any], console: Console) -> None:
    def fmt(t: float | None) -> str:
        return "-" if t is None else f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"

    console.print(
        f"rated {s['rated']} puzzle(s), skipped {s['skipped']} already rated; time: average "
        f"{fmt(s['time_avg_s'])}, median {fmt(s['time_median_s'])}, max {fmt(s['time_max_s'])}"
    )
    for label in ("verdicts", "techniques"):
        if s[label]:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(s[label].items()))
            console.print(f"{label}: {counts}")
    if s["grades"]:
        console.print("grades:")
        top = max(s["grades"].values())
        for g, n in sorted(s["grades"].items()):
            console.print(f"  {g:>4} {'#' * max(1, round(40 * n / top)):<40} {n}")
    site = s.get("site_difficulty") or {}
    if site.get("spearman") is not None:
        console.print(f"grade against the site's difficulty: Spearman rho {site['spearman']:.3f}"
                      f" over {site['n']} puzzles")
    if s["heaviest"]:
        console.print(Text(terminal_text("heaviest: " + "; ".join(
            f"{h['title'] or h['key']} {fmt(h['time_s'])}" for h in s["heaviest"]))))
    fitd = s.get("model_fit") or {}
    if "spearman_held_out" in fitd:
        kind = ("the reference model shipped for solver" if fitd.get("kind") == "reference"
                else "fitted on this corpus, solver")
        console.print(f"score model: {kind} {fitd.get('solver_version')}; Spearman rho "
                      f"{fitd['spearman_held_out']:.3f} on {fitd.get('n_held_out')} held-out "
                      "puzzles")
    elif "note" in fitd:
        console.print(fitd["note"])


@app.command()
def rate(
    files: Annotated[
        list[str] | None, typer.Argument(help="Puzzle files or folders (read as db import "
                                         "reads them); without them, the whole corpus.")
    ] = None,
    db: CorpusOption = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", help="Worker processes, at most one a "
                                 "puzzle [default: all cores].")
    ] = None,
    budget: Annotated[
        int, typer.Option(help="Work allowed per puzzle (the solver's work units, the default "
                          "a few s); decides verdicts the same on every machine.")
    ] = 20_000_000,
    timeout: Annotated[
        float, typer.Option(help="Wall-clock safety net per puzzle, seconds (timeout_wall).")
    ] = 60.0,
    runs: Annotated[int, typer.Option(help="Timed runs per puzzle (the median is kept).")] = 3,
    executor: Annotated[str, typer.Option(help="local (process pool) or dask.")] = "local",
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address, e.g. tcp://host:8786.")
    ] = None,
    refit: Annotated[bool, typer.Option(help="Fit a new score model on this corpus.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines: one object per puzzle, "
                                          "written as each finishes.")] = False,
) -> None:
    """Rate difficulty: verdict, technique, effort, solve time, score and grade.

    Without FILEs, rates every puzzle of the corpus not yet rated by this solver version
    (resumable: each rating is saved as it finishes) and grades them all; with FILEs and
    no --db, rates those files only. --json writes each rating on a line of its own as it
    finishes, so an interrupted run keeps every finished one.

    Example: nonoforge rate --db corpus.db --workers 2 --json > ratings.jsonl
    """
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.rate import RateOptions, sigterm_interrupts

    if runs < 1 or timeout <= 0 or budget < 1:
        raise UsageError("--runs and --budget must be at least 1 and --timeout positive")
    opts = RateOptions(timeout=timeout, runs=runs, budget=budget)
    if not files or db is not None:  # a corpus is read: a --db typo must not make one
        corpus_target(db, create=bool(files))
    ex = jobs.make_executor(executor, workers, scheduler)

    def skipped(name: str, why: str) -> None:
        if not is_quiet():
            err.print(Text(terminal_text(f"skipped {name}: {why}")))

    bar = _progress_bar("rating", redirect_stdout=False)  # lines go out as they come
    with bar as progress, sigterm_interrupts():
        task = progress.add_task("rate", total=None, info="") if progress else None

        def on(ev: dict[str, Any]) -> None:
            if progress is None or task is None:
                return
            if ev["event"] == "start":
                progress.update(task, total=ev["total"], info=f"{ev['skipped']} already rated")
            else:
                r = ev["row"]  # a Rating
                progress.update(task, advance=1, info=f"{r.status} {r.time_s:.3f}s")

        def line(text: str) -> None:
            if progress is not None and sys.stdout.isatty():  # above the bar, not through it
                progress.console.print(Text(text))
            else:
                print_line(text)

        def emit(e: dict[str, Any]) -> None:
            if "error" in e:
                say_error(f"{e.get('file') or e.get('key')}: {e['error']}")
            if as_json:
                line(json.dumps(e, ensure_ascii=False))
            elif files and "error" not in e:
                score = "-" if e["score"] is None else f"{e['score'] * 1000:.2f} ms"
                line(terminal_text(f"{e['file']}: {e['status']}, {e['technique']}, "
                                   f"score {score}, "
                                   f"grade {e['grade'] if e['grade'] is not None else '-'}"))

        run = jobs.rate_inputs(files, db, executor=ex, opts=opts, refit=refit, progress=on,
                               resolve=resolve_input, emit=emit, on_skip=skipped)
    if not as_json or not is_quiet():
        _print_summary(run.summary.to_dict(), err if as_json else out)
    if run.failed:
        raise typer.Exit(FAILED_EXIT)
