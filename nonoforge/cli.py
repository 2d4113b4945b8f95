"""The ``nonoforge`` command: parses arguments, calls the library, prints results.

No logic lives here. Errors of the :class:`~nonoforge.errors.NonoforgeError` family become
one line on stderr and the exit code their class carries (see :func:`_report`); ``--debug``
shows the traceback instead. Data goes to stdout, progress and messages to stderr.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup
from typer.exceptions import TyperException

from nonoforge.errors import FormatError, NonoforgeError, UsageError
from nonoforge.puzzle import Puzzle, cell_chars

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

_state: dict[str, bool] = {"debug": False, "quiet": False}


def _report(e: BaseException) -> int:
    """The one place where errors become messages and exit codes."""
    if _state["debug"]:
        traceback.print_exception(e, file=sys.stderr)
    if isinstance(e, NonoforgeError):
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        err.print(Text(f"error: {msg}", style="red"))
        return e.exit_code
    if isinstance(e, KeyboardInterrupt):
        err.print("interrupted")
        return 130
    if isinstance(e, BrokenPipeError):
        return 0
    if isinstance(e, MemoryError):
        err.print(Text("error: out of memory", style="red"))
        return 1
    err.print(Text(f"internal error: {type(e).__name__}: {e} (run with --debug)", style="red"))
    return 1


class _Group(TyperGroup):
    """A command group that reports our errors in one line instead of a traceback."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException):
            raise
        except (NonoforgeError, KeyboardInterrupt, BrokenPipeError, MemoryError) as e:
            raise typer.Exit(_report(e)) from None
        except Exception as e:  # a bug: say so in one line, keep the trace for --debug
            raise typer.Exit(_report(e)) from None


def make_app(help_text: str) -> typer.Typer:
    """A typer app (or sub-app) that maps our errors in one place."""
    return typer.Typer(
        cls=_Group,
        help=help_text,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )


app = make_app(
    "nonoforge: nonograms (paint-by-number puzzles) in black-and-white and colour.\n\n"
    "Read and convert every common puzzle format, solve and prove uniqueness, turn images "
    "into puzzles, build a rated corpus and export graded collections."
)


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bars or messages on stderr.")
    ] = False,
) -> None:
    _state["debug"] = debug or bool(os.environ.get("NONOFORGE_DEBUG"))
    _state["quiet"] = quiet


def is_quiet() -> bool:
    return _state["quiet"]


def main() -> None:
    """Console-script entry point."""
    try:
        rv = app(prog_name="nonoforge", standalone_mode=False)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except TyperException as e:  # usage errors: typer's own message and exit code
        show = getattr(e, "show", None)
        if show:
            show()
        else:
            err.print(f"error: {e.format_message()}")
        sys.exit(e.exit_code)
    except typer.Abort:
        err.print("aborted")
        sys.exit(130)
    except BaseException as e:  # noqa: BLE001 - the last line of defence
        if isinstance(e, SystemExit):
            raise
        sys.exit(_report(e))
    sys.exit(rv if isinstance(rv, int) else 0)


# ---------------------------------------------------------------------------------------
# shared argument handling


def read_inputs(paths: list[str], fmt: str | None = None) -> Iterator[tuple[str, Puzzle]]:
    """``(path, puzzle)`` for every puzzle in the named files (``example:NAME`` too)."""
    from nonoforge.formats import iter_file

    for path in paths:
        real = resolve_input(path)
        n = 0
        for p in iter_file(real, fmt):
            n += 1
            yield path, p
        if n == 0:
            raise FormatError("no puzzle in file", path=path)


def resolve_input(path: str) -> str:
    """A path as given, or the bundled file an ``example:NAME`` names."""
    if path.startswith("example:"):
        from nonoforge.examples import example_path

        return str(example_path(path.removeprefix("example:")))
    return path


def print_json(data: Any) -> None:
    """Machine-readable output on stdout."""
    sys.stdout.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def styled_drawing(p: Puzzle, grid: Any = None) -> Text:
    """The puzzle's text drawing with each painted cell and colour clue in its colour."""
    from nonoforge.puzzle import draw

    text = draw(p, grid)
    if p.is_bw or grid is None and p.goal is None:
        return Text(text)
    chars = cell_chars(p.ncolors)
    rich = Text()
    prev = ""
    for ch in text:
        i = chars.find(ch)
        if ch.isalpha() and 0 < i < len(p.palette):
            # a letter after a digit belongs to a clue: keep it, in its colour
            rich.append(ch if prev.isdigit() else "█", style=p.palette[i].hex)
        else:
            rich.append(ch)
        prev = ch
    return rich


# ---------------------------------------------------------------------------------------
# foundation commands: show, info, convert, formats


@app.command()
def show(
    files: Annotated[list[str], typer.Argument(help="Puzzle files (any format we read).")],
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="Input format.")] = None,
) -> None:
    """Draw puzzles in the terminal: clues, and the goal picture when the file has one.

    Example: nonoforge show tests/data/dancer.non
    """
    for path, p in read_inputs(files, fmt):
        title = p.meta.title or os.path.basename(path)
        out.print(Text(f"{title}  ({p.width}x{p.height}, {p.ncolors} colour"
                       f"{'s' if p.ncolors != 1 else ''}, key {p.key})", style="bold"))
        out.print(styled_drawing(p, p.goal))
        out.print()


def puzzle_info(path: str, p: Puzzle) -> dict[str, Any]:
    """Size, colours and clue statistics of one puzzle."""
    blocks = [len(c) for _, _, c in p.lines()]
    return {
        "file": path,
        "key": p.key,
        "title": p.meta.title,
        "author": p.meta.author,
        "width": p.width,
        "height": p.height,
        "colors": p.ncolors,
        "palette": [c.hex for c in p.palette],
        "blocks": sum(blocks),
        "max_blocks_per_line": max(blocks),
        "filled": sum(b.length for r in p.rows for b in r),
        "has_goal": p.goal is not None,
        "licence": p.meta.licence,
    }


@app.command()
def info(
    files: Annotated[list[str], typer.Argument(help="Puzzle files (any format we read).")],
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="Input format.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per puzzle.")] = False,
) -> None:
    """Size, colours, clue statistics and the stable key of each puzzle.

    Example: nonoforge info --json puzzles/*.non
    """
    rows = [puzzle_info(path, p) for path, p in read_inputs(files, fmt)]
    if as_json:
        print_json(rows)
        return
    for r in rows:
        title = f" {r['title']!r}" if r["title"] else ""
        out.print(
            f"{r['file']}{title}: {r['width']}x{r['height']}, {r['colors']} colour(s), "
            f"{r['blocks']} blocks, {r['filled']} cells filled, key {r['key']}"
            + (", goal" if r["has_goal"] else "")
        )


@app.command()
def convert(
    source: Annotated[str, typer.Argument(help="Input puzzle file.")],
    dest: Annotated[str, typer.Argument(help="Output file, or a directory for one file each.")],
    to: Annotated[str | None, typer.Option("--to", "-t", help="Output format name.")] = None,
    fmt: Annotated[str | None, typer.Option("--from", help="Input format name.")] = None,
) -> None:
    """Convert puzzles between formats; the output format follows --to or DEST's extension.

    Example: nonoforge convert webpbn-1.xml dancer.non
    """
    from nonoforge.formats import get_format, write_file

    puzzles = [p for _, p in read_inputs([source], fmt)]
    target = Path(dest)
    if target.is_dir():
        if to is None:
            raise UsageError("name the output format with --to when DEST is a directory")
        f = get_format(to)
        stem = Path(source).stem
        for i, p in enumerate(puzzles, start=1):
            name = stem if len(puzzles) == 1 else f"{stem}-{i:04d}"
            write_file(p, target / f"{name}{f.extensions[0]}", f.name)
        err.print(f"wrote {len(puzzles)} file(s) to {dest}") if not is_quiet() else None
        return
    f = write_file(puzzles, dest, to)
    if not is_quiet():
        err.print(f"wrote {len(puzzles)} puzzle(s) to {dest} ({f.name})")


@app.command("formats")
def list_formats() -> None:
    """List the file formats nonoforge reads and writes.

    Example: nonoforge formats
    """
    from nonoforge.formats import FORMATS

    for f in FORMATS.values():
        caps = ["read"] + (["write"] if f.write else []) + (["colour"] if f.color else [])
        caps += ["many per file"] if f.multi else []
        out.print(f"{f.name:<11} {' '.join(f.extensions):<18} {', '.join(caps):<34} "
                  f"{f.description}")


# ---------------------------------------------------------------------------------------
# Later issues register their commands below, each in its own section.
# --- solve ---
# --- db ---
# --- ingest ---
# --- images ---
# --- pipeline ---

DbOption = Annotated[
    str | None,
    typer.Option("--db", envvar="NONOFORGE_DB", help="Corpus: a path or SQLAlchemy URL "
                 "[default: nonoforge.db]."),
]


def _progress_bar(total_label: str):  # noqa: ANN202 - a rich Progress or a null context
    from contextlib import nullcontext

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if is_quiet():
        return nullcontext(None)
    return Progress(
        TextColumn(f"[bold]{total_label}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=err, transient=False,
    )


def _print_summary(s: dict[str, Any], console: Console) -> None:
    def fmt(t: float | None) -> str:
        return "-" if t is None else f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"

    console.print(
        f"rated {s['rated']} puzzle(s), skipped {s['skipped']} already rated; time: average "
        f"{fmt(s['time_avg_s'])}, median {fmt(s['time_median_s'])}, max {fmt(s['time_max_s'])}"
    )
    for label in ("verdicts", "techniques", "grades"):
        if s[label]:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(s[label].items()))
            console.print(f"{label}: {counts}")
    if s["heaviest"]:
        console.print("heaviest: " + "; ".join(
            f"{h['title'] or h['key']} {fmt(h['time_s'])}" for h in s["heaviest"]))
    fitd = s.get("model_fit") or {}
    if "spearman_held_out" in fitd:
        console.print(f"score model: Spearman rho {fitd['spearman_held_out']:.3f} on "
                      f"{fitd.get('n_held_out')} held-out puzzles")
    elif "note" in fitd:
        console.print(fitd["note"])


@app.command()
def rate(
    files: Annotated[
        list[str] | None, typer.Argument(help="Puzzle files; without them, the whole corpus.")
    ] = None,
    db: DbOption = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", help="Worker processes [default: all cores].")
    ] = None,
    timeout: Annotated[float, typer.Option(help="Seconds allowed per puzzle.")] = 10.0,
    runs: Annotated[int, typer.Option(help="Timed runs per puzzle (the median is kept).")] = 3,
    executor: Annotated[str, typer.Option(help="local (process pool) or dask.")] = "local",
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address, e.g. tcp://host:8786.")
    ] = None,
    refit: Annotated[bool, typer.Option(help="Fit a new score model on this corpus.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per puzzle.")] = False,
) -> None:
    """Rate difficulty: verdict, technique, effort, solve time, score and grade.

    Without FILEs, rates every puzzle of the corpus not yet rated by this solver version
    (resumable) and grades them all; with FILEs and no --db, rates those files only.

    Example: nonoforge rate --db corpus.db --workers 2 --json
    """
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.rate import RateOptions

    if runs < 1 or timeout <= 0:
        raise UsageError("--runs must be at least 1 and --timeout positive")
    opts = RateOptions(timeout=timeout, runs=runs)
    ex = jobs.make_executor(executor, workers, scheduler)
    bar = _progress_bar("rating")
    with bar as progress:
        task = progress.add_task("rate", total=None, info="") if progress else None

        def on(ev: dict[str, Any]) -> None:
            if progress is None or task is None:
                return
            if ev["event"] == "start":
                progress.update(task, total=ev["total"], info=f"{ev['skipped']} already rated")
            else:
                r = ev["row"]
                progress.update(task, advance=1, info=f"{r['status']} {r['time_s']:.3f}s")

        try:
            if files and db is None:
                puzzles = [p for _, p in read_inputs(files)]
                rows, summary = jobs.rate_puzzles(puzzles, executor=ex, opts=opts, progress=on)
            else:
                from nonoforge.db import Corpus

                with Corpus.open(db) as corpus:
                    keys = None
                    if files:
                        puzzles = [p for _, p in read_inputs(files)]
                        corpus.add(puzzles)
                        keys = [p.key for p in puzzles]
                    summary = jobs.rate_corpus(
                        corpus, executor=ex, opts=opts, refit=refit, keys=keys, progress=on
                    )
                    wanted = set(keys) if keys is not None else None
                    rows = [r for r in corpus.results(jobs.solver_version())
                            if wanted is None or r["key"] in wanted]
        finally:
            if hasattr(ex, "close"):
                ex.close()
    if as_json:
        print_json([
            {k: r.get(k) for k in ("key", "title", "width", "height", "colors", "status",
                                   "technique", "score", "grade", "time_s", "effort")}
            for r in rows
        ])
        if not is_quiet():
            _print_summary(summary.to_dict(), err)
    else:
        _print_summary(summary.to_dict(), out)


collection_app = make_app("Build graded collections from the rated corpus and export them.")
app.add_typer(collection_app, name="collection")


@collection_app.command("build")
def collection_build(
    name: Annotated[str, typer.Argument(help="Name of the collection (replaced if it exists).")],
    count: Annotated[int, typer.Option(help="How many puzzles.")] = 100,
    grades: Annotated[str, typer.Option(help="Grade range, e.g. 1-3.")] = "1-5",
    size: Annotated[
        str | None, typer.Option(help="Size range WxH..WxH, e.g. 10x10..30x30.")
    ] = None,
    colors: Annotated[str, typer.Option(help="Colour-count range, e.g. 1..4.")] = "1..1000",
    source: Annotated[str | None, typer.Option(help="Only puzzles from this source.")] = None,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="The selection as JSON.")] = False,
) -> None:
    """Pick a balanced, deduplicated selection of rated puzzles, ordered easy to hard.

    Example: nonoforge collection build starter --count 20 --grades 1-3 --size 5x5..30x30
    """
    from nonoforge.db import Corpus
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.collection import Filters, parse_range, parse_size_range

    if count < 1:
        raise UsageError("--count must be at least 1")
    lo, hi = parse_size_range(size) if size else ((1, 1), (10_000, 10_000))
    filters = Filters(
        count=count, grades=parse_range(grades, "--grades", 1, 5), min_size=lo, max_size=hi,
        colors=parse_range(colors, "--colors"), source=source,
    )
    with Corpus.open(db) as corpus:
        chosen = jobs.build_collection(corpus, name, filters)
    if as_json:
        print_json([{"position": i, "key": c.puzzle.key, "title": c.puzzle.meta.title,
                     "grade": c.grade, "score": c.score, "width": c.puzzle.width,
                     "height": c.puzzle.height, "colors": c.puzzle.ncolors}
                    for i, c in enumerate(chosen, start=1)])
        return
    for i, c in enumerate(chosen, start=1):
        p = c.puzzle
        out.print(f"{i:3d}. grade {c.grade}  {p.width}x{p.height}  {p.ncolors} colour(s)  "
                  f"{p.meta.title or p.key}")
    if not is_quiet():
        err.print(f"collection {name!r}: {len(chosen)} puzzle(s)")


@collection_app.command("export")
def collection_export(
    name: Annotated[str, typer.Argument(help="The collection's name.")],
    to: Annotated[str, typer.Option("--to", help="A folder, FILE.rofl or FILE.pdf.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="File format in a folder.")] = "non",
    db: DbOption = None,
) -> None:
    """Export a collection: files in a folder, one ROFL file, or a printable PDF book.

    Example: nonoforge collection export starter --to starter.pdf
    """
    from nonoforge.db import Corpus
    from nonoforge.pipeline import jobs

    with Corpus.open(db) as corpus:
        done = jobs.export_collection(corpus, name, to, fmt)
    if not is_quiet():
        err.print(f"wrote {done.count} puzzle(s) to {done.path} ({done.kind})")


@app.command()
def examples(
    as_json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
) -> None:
    """List the bundled example puzzles and images (use them as example:NAME).

    Example: nonoforge solve example:dancer
    """
    from nonoforge.examples import list_examples

    found = list_examples()
    if as_json:
        print_json([{"name": e.name, "kind": e.kind, "path": str(e.path)} for e in found])
        return
    for e in found:
        out.print(f"example:{e.name:<10} {e.kind:<7} {e.path.name}")
