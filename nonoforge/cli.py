"""The ``nonoforge`` command: parses arguments, calls the library, prints results.

No logic lives here. Errors of the :class:`~nonoforge.errors.NonoforgeError` family become
one line on stderr and the exit code their class carries (see
:func:`nonoforge.cliapp._report`); ``--debug`` shows the traceback instead. Data goes to
stdout, progress and messages to stderr. The start-up machinery every command shares
(consoles, error mapping, the command's clock, building only the command that runs) is in
:mod:`nonoforge.cliapp`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonoforge.cliapp import (  # noqa: F401 - _Console, _clock: for tests/test_startup.py
    Text,
    _clock,
    _Console,
    _Group,
    app_for,
    command_start,
    echo,
    err,
    escape_markup,
    is_debug,
    is_quiet,
    make_app,
    out,
    print_json,
    print_line,
    printed_whole,
    run,
    say_error,
    start_command,
)
from nonoforge.errors import FAILED_EXIT, FormatError, UsageError
from nonoforge.puzzle import Puzzle, cell_chars
from nonoforge.util import first_line, terminal_text, unique_stem

if TYPE_CHECKING:
    from rich.console import Console

    from nonoforge.db.filters import Filters

app = make_app(
    "nonoforge: nonograms (paint-by-number puzzles) in black-and-white and colour.\n\n"
    "Read and convert every common puzzle format, solve and prove uniqueness, turn images "
    "into puzzles, build a rated corpus and export graded collections."
)


def _version(value: bool) -> None:
    if value:
        from nonoforge import __version__

        echo(f"nonoforge {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True,
                           help="Show the version and exit.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bars or messages on stderr.")
    ] = False,
) -> None:
    start_command(debug, quiet)


def _app_for(args: list[str]) -> typer.Typer:
    """The app that runs ``nonoforge ARGS``: :data:`app` with only that command built."""
    return app_for(app, args)


def main() -> None:
    """Console-script entry point."""
    run(app)

# ---------------------------------------------------------------------------------------
# shared argument handling


def resolve_input(path: str) -> str:
    """A path as given, or the bundled file an ``example:NAME`` names."""
    from nonoforge.examples import resolve

    return resolve(path)


def batch_inputs(paths: list[str], fmt: str | None = None) -> Any:
    """The per-file loop of batch commands (:class:`nonoforge.pipeline.batch.Batch`): each
    bad file gives one line on stderr and an item with its error; see :func:`end_batch`."""
    from nonoforge.pipeline.batch import Batch
    def say(file: str, reason: str) -> None:
        say_error(f"{file}: {reason}")

    return Batch(paths, fmt, resolve=resolve_input, on_error=say, reraise=is_debug())


def end_batch(batch: Any) -> None:
    """Exit with the batch's code (2) when one of its files failed."""
    if batch.exit_code:
        raise typer.Exit(batch.exit_code)


def styled_drawing(p: Puzzle, grid: Any = None) -> Text:
    """The puzzle's text drawing with each painted cell and colour clue in its colour;
    given cells (printed solved) drawn apart: ``▣`` filled (in its colour), ``×`` empty."""
    from nonoforge.puzzle import draw, drawn_cell

    text = draw(p, grid)
    given = {drawn_cell(p, r, c): k for r, c, k in p.givens}
    plain = p.is_bw or grid is None and p.goal is None
    if plain and not given:
        return Text(text)
    chars = cell_chars(p.ncolors)
    rich = Text()
    prev = ""
    for pos, ch in enumerate(text):
        i = chars.find(ch)
        if pos in given:
            k = given[pos]
            rich.append("×" if k == 0 else "▣", style=None if k == 0 else p.palette[k].hex)
        elif not plain and ch.isalpha() and 0 < i < len(p.palette):
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

    Example: nonoforge show example:dancer
    """
    batch = batch_inputs(files, fmt)
    for it in batch:
        if it.puzzle is None:
            continue
        path, p = it.file, it.puzzle
        title = terminal_text(p.meta.title or os.path.basename(path))
        given = f", {len(p.givens)} given (▣ ×)" if p.givens else ""
        out.print(Text(f"{title}  ({p.width}x{p.height}, {p.ncolors} colour"
                       f"{'s' if p.ncolors != 1 else ''}{given}, key {p.key})", style="bold"))
        out.print(styled_drawing(p, p.goal))
        out.print()
    end_batch(batch)


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
        "givens": len(p.givens),  # cells printed solved, part of the puzzle
    }


@app.command()
def info(
    files: Annotated[list[str], typer.Argument(help="Puzzle files (any format we read).")],
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="Input format.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per puzzle.")] = False,
) -> None:
    """Size, colours, clue statistics and the stable key of each puzzle.

    A file that cannot be read is reported (with --json, as {"file", "error"} in its place)
    and the others are answered; the exit code is then 2.

    Example: nonoforge info --json example:dancer example:petro
    """
    batch = batch_inputs(files, fmt)
    rows = [it.as_error() if it.error else puzzle_info(it.file, it.puzzle) for it in batch]
    if as_json:
        print_json(rows)
        end_batch(batch)
        return
    for r in rows:
        if "error" in r:
            continue
        title = f" {r['title']!r}" if r["title"] else ""
        echo(
            f"{terminal_text(r['file'])}{title}: {r['width']}x{r['height']}, "
            f"{r['colors']} colour(s), {r['blocks']} blocks, {r['filled']} cells filled, "
            f"key {r['key']}" + (", goal" if r["has_goal"] else "")
            + (f", {r['givens']} given cell(s)" if r["givens"] else "")
        )
    end_batch(batch)


def _convert_paths(paths: list[str]) -> tuple[list[str], str]:
    """``convert``'s sources and destination, or one line saying what is missing in the
    user's terms (typer said ``Missing argument 'sources'`` for a missing destination)."""
    if not paths:
        raise UsageError("convert needs a source and a destination: nonoforge convert IN OUT")
    if len(paths) == 1:
        raise UsageError(f"convert needs a destination after {paths[0]}: "
                         "nonoforge convert IN OUT (OUT a file, or a directory with --to)")
    return paths[:-1], paths[-1]


@app.command()
def convert(
    paths: Annotated[list[str] | None, typer.Argument(
        metavar="SOURCES... DEST", show_default=False,
        help="Input puzzle files, then DEST: the output file, or a directory for one file "
             "each.")] = None,
    to: Annotated[str | None, typer.Option("--to", "-t", help="Output format name.")] = None,
    fmt: Annotated[str | None, typer.Option("--from", help="Input format name.")] = None,
) -> None:
    """Convert puzzles between formats; the output format follows --to or DEST's extension.

    With several SOURCES (or a file of several puzzles in a one-puzzle format), DEST is a
    directory; a source that cannot be read is reported and the others converted (exit 2).

    Example: nonoforge convert example:dancer dancer.xml
    """
    from nonoforge.examples import stem as stem_of
    from nonoforge.formats import get_format, write_file

    sources, dest = _convert_paths(paths or [])
    target = Path(dest)
    if len(sources) > 1 and not target.is_dir():
        raise UsageError("DEST must be an existing directory when converting several files")
    if target.is_dir() and to is None:
        raise UsageError("name the output format with --to when DEST is a directory")
    batch = batch_inputs(sources, fmt)
    by_file: dict[str, list[Puzzle]] = {}
    for it in batch:
        if it.puzzle is not None:
            by_file.setdefault(it.file, []).append(it.puzzle)
    if target.is_dir():
        assert to is not None
        f = get_format(to)
        n = 0
        taken: set[str] = set()
        for source, puzzles in by_file.items():
            stem = unique_stem(stem_of(source), taken)  # a/x.non and b/x.non: x, x-2
            for i, p in enumerate(puzzles, start=1):
                name = stem if len(puzzles) == 1 else f"{stem}-{i:04d}"
                try:
                    write_file(p, target / f"{name}{f.extensions[0]}", f.name)
                    n += 1
                except FormatError as e:
                    batch.fail(source, e)
        if n and not is_quiet():
            err.print(f"wrote {n} file(s) to {dest}")
        end_batch(batch)
        return
    puzzles = [p for ps in by_file.values() for p in ps]
    if puzzles:
        f = write_file(puzzles, dest, to)
        if not is_quiet():
            err.print(f"wrote {len(puzzles)} puzzle(s) to {dest} ({f.name})")
    end_batch(batch)


@app.command("formats")
def list_formats() -> None:
    """List the file formats nonoforge reads and writes.

    Example: nonoforge formats
    """
    from nonoforge.formats import FORMATS

    for f in FORMATS.values():
        caps = ["read"] + (["write"] if f.write else []) + (["colour"] if f.color else [])
        caps += ["many per file"] if f.multi else []
        caps += ["givens"] if f.givens else []  # cells printed solved (issue 17)
        echo(f"{f.name:<11} {' '.join(f.extensions):<18} {', '.join(caps):<42} "
             f"{f.description}")


# ---------------------------------------------------------------------------------------
# Later issues register their commands below, each in its own section.
# --- solve ---


@app.command("solve")
def solve_cmd(
    files: Annotated[list[str], typer.Argument(help="Puzzle files (any format we read).")],
    max_solutions: Annotated[
        int, typer.Option("--max-solutions", "-n", help="Stop after this many solutions (2 "
                          "proves uniqueness; 1 just finds one: verdict 'found').", min=1)
    ] = 2,
    timeout: Annotated[
        float | None, typer.Option("--timeout", "-t", help="Seconds per puzzle.", min=0.001)
    ] = None,
    strategy: Annotated[
        str, typer.Option("--strategy", "-s", help="auto | line | probe | search | sat")
    ] = "auto",
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="Input format.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="A JSON list, one per puzzle.")] = False,
    steps: Annotated[
        bool, typer.Option("--steps", help="Show the state after each sweep of line logic.")
    ] = False,
    budget: Annotated[
        int | None, typer.Option("--budget", help="Work units per puzzle (deterministic: the "
                                 "same verdict on every machine; see effort 'work').", min=0)
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1, help="Worker processes for many puzzles "
                          "(never more than the puzzles); answers stay in input order, "
                          "verdicts and effort the same. With more than one, each --timeout "
                          "counts from when a worker takes the puzzle.")
    ] = 1,
) -> None:
    """Solve puzzles, prove uniqueness, and report the technique needed and the effort.

    The verdict is unique, multiple or none (proven), found (--max-solutions 1 found one
    solution; uniqueness not checked), timeout, budget (the --budget of work ran out) or
    unsolved (a limited strategy stopped with cells undecided); it is data, so the exit
    code is 0 whatever it is. Every solution shown reproduces the clues. --timeout counts
    from the start of the command for the first puzzle (reading it included), from the
    start of reading its file for each next one.

    Example: nonoforge solve --timeout 10 example:dancer example:petro
    """
    from nonoforge.pipeline.batch import SolveOptions, solve_batch
    from nonoforge.solver import STRATEGIES, state_rows

    if strategy not in STRATEGIES:
        raise UsageError(f"unknown strategy {strategy!r} (choose from {', '.join(STRATEGIES)})")
    opts = SolveOptions(max_solutions=max_solutions, timeout=timeout, strategy=strategy,
                        record_steps=steps, budget=budget, workers=workers)
    results = []
    batch = batch_inputs(files, fmt)
    for answer in solve_batch(batch, opts, start=command_start()):
        if answer.result is None or answer.puzzle is None:
            results.append(answer.as_error())
            continue
        path, p, res = answer.file, answer.puzzle, answer.result
        chars = cell_chars(p.ncolors)
        if as_json:
            item: dict[str, Any] = {
                "file": path,
                "key": p.key,
                "givens": len(p.givens),  # the verdict is for the clues plus these
                "status": res.status,
                "solutions": [g.to_rows(chars) for g in res.solutions],
                "technique": res.technique,
                "effort": res.effort,
                "time_s": round(res.time_s, 6),
            }
            if steps:
                item["steps"] = [state_rows(s, p.ncolors) for s in res.steps]
            results.append(item)
            continue
        title = terminal_text(p.meta.title or os.path.basename(path))
        given = f" with {len(p.givens)} given cell(s)" if p.givens else ""  # part of it
        with printed_whole():  # an interrupt now waits for the answer's last line
            out.print(Text(f"{title}  ({p.width}x{p.height}){given}: {res.status}, technique "
                           f"{res.technique}, {res.time_s:.3f} s", style="bold"))
            if steps:
                for i, s in enumerate(res.steps):
                    out.print(f"-- sweep {i}")
                    out.print("\n".join(state_rows(s, p.ncolors)))
            for i, g in enumerate(res.solutions):
                if len(res.solutions) > 1:
                    out.print(f"-- solution {i + 1}")
                out.print(styled_drawing(p, g))
            if not res.solutions and res.status.cut_short:  # how far logic got
                out.print("\n".join(state_rows(res.state, p.ncolors)))
            out.print("effort: " + ", ".join(f"{k} {v}" for k, v in res.effort.items() if v))
            out.print()
    if as_json:
        print_json(results)
    end_batch(batch)

# --- db ---

db_app = make_app(
    "The corpus: one deduplicated database of puzzles, their provenance, ratings and "
    "collections (SQLite file by default, or any SQLAlchemy URL)."
)
app.add_typer(db_app, name="db")

CorpusOption = Annotated[
    str | None,
    typer.Option("--db", envvar="NONOFORGE_DB", help="Corpus: a SQLite path or a SQLAlchemy "
                 "URL (postgresql+psycopg://...) [default: nonoforge.db]."),
]
_F = "Filters"
WidthOpt = Annotated[int | None, typer.Option(help="Exact width.", rich_help_panel=_F)]
HeightOpt = Annotated[int | None, typer.Option(help="Exact height.", rich_help_panel=_F)]
SizeOpt = Annotated[
    str | None,
    typer.Option(help="Size range: 10x10..30x30, 15..25 (both sides), 20x20 (exact), "
             "..30 (at most).", rich_help_panel=_F),
]
ColorsOpt = Annotated[
    str | None, typer.Option("--colors", help="Colour count or range: 1, 2..4, 2..",
                             rich_help_panel=_F),
]
SourceOpt = Annotated[str | None, typer.Option(
    help="Only puzzles from this site (webpbn, nonograms, tournament, file, generated, ...; "
         "db stats lists them) or with this whole catalogue line.", rich_help_panel=_F)]
StatusOpt = Annotated[str | None, typer.Option(help="Solver verdict (unique, multiple, ...).",
                                                rich_help_panel=_F)]
TechniqueOpt = Annotated[str | None, typer.Option(help="Hardest technique needed.",
                                                   rich_help_panel=_F)]
GradeOpt = Annotated[str | None, typer.Option(help="Grade or range: 3, 1-3, 2..5.",
                                               rich_help_panel=_F)]
VersionOpt = Annotated[
    str | None, typer.Option("--solver-version", help="Results of this solver version only.",
                             rich_help_panel=_F),
]
LimitOpt = Annotated[int | None, typer.Option(help="At most this many puzzles.",
                                               rich_help_panel=_F)]


def _filters(width: int | None = None, height: int | None = None, size: str | None = None,
             colors: str | None = None, source: str | None = None, status: str | None = None,
             technique: str | None = None, grade: str | None = None,
             solver_version: str | None = None, limit: int | None = None) -> Filters:
    """The filter options, parsed with the one grammar of :mod:`nonoforge.ranges`."""
    from nonoforge.db.filters import Filters
    from nonoforge.ranges import SizeSpan, Span

    return Filters(
        width=width, height=height,
        size=None if size is None else SizeSpan.parse(size, "--size"),
        colors=None if colors is None else Span.parse(colors, "--colors"),
        source=source, status=status, technique=technique,
        grade=None if grade is None else Span.parse(grade, "--grade"),
        solver_version=solver_version, limit=limit,
    )


def corpus_target(db: str | None, *, create: bool = False) -> str:
    """The corpus ``--db`` names. Only ``db init``, ``db import`` and ``ingest`` create one
    (``create``); for the others a SQLite file that does not exist is an error (a typo in
    --db), not a new empty corpus."""
    from nonoforge.db import DEFAULT_PATH
    from nonoforge.errors import CorpusError

    target = db or DEFAULT_PATH
    if not create and "://" not in target and not Path(target).exists():
        raise CorpusError(f"no corpus at {target} (create one with: nonoforge db init "
                          f"--db {target}, or db import, or ingest)")
    return target


def open_corpus(db: str | None, *, create: bool = False, write: bool = False) -> Any:
    """The one place the CLI opens the corpus (see :func:`corpus_target`). A command that
    writes (``create`` or ``write``) has a damaged corpus refused before it reads input."""
    from nonoforge.db import Corpus

    return Corpus.open(corpus_target(db, create=create), check=create or write)


@db_app.command("init")
def db_init(db: CorpusOption = None) -> None:
    """Create the corpus (or bring an old one's schema up to date) and say where it is.

    Example: nonoforge db init --db corpus.db
    """

    with open_corpus(db, create=True) as c:
        n = len(c)
        where = c.engine.url.render_as_string(hide_password=True)
    out.print(f"corpus ready: {where} ({n} puzzle{'s' if n != 1 else ''})")


@db_app.command("stats")
def db_stats(
    db: CorpusOption = None,
    solver_version: Annotated[
        str | None, typer.Option("--solver-version", help="Grades of this solver version "
                                 "[default: the most recently rated].")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="As one JSON object.")] = False,
) -> None:
    """Count the corpus: puzzles by site, size band, colours and grade; the fetch log.

    Example: nonoforge db stats --json
    """

    with open_corpus(db) as c:
        s = c.stats(solver_version)
    if as_json:
        print_json(s)
        return
    out.print(Text(f"{s['puzzles']} puzzle(s)", style="bold"))

    def show(label: str, counts: dict[str, Any]) -> None:
        if counts:
            out.print(f"{label}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))

    show("by site", s["by_site"])
    show("by size (larger side)", s["by_size"])
    show("by colours", s["by_colors"])
    if s["solver_version"]:
        show(f"by grade ({s['solver_version']})", s["by_grade"])
    for site, counts in s["fetch_log"].items():
        show(f"fetch log {site}", counts)
    if s["collections"]:
        out.print(f"collections: {s['collections']}")


@db_app.command("import")
def db_import(
    files: Annotated[list[str], typer.Argument(help="ROFL files and puzzle files in any "
                                               "format nonoforge reads.")],
    db: CorpusOption = None,
) -> None:
    """Add the puzzles of files to the corpus; duplicates merge, re-imports add nothing.

    A folder is read recursively (files of the formats nonoforge reads). A file that
    cannot be read is reported and the others are imported; the exit code is then 2.
    Interrupted imports keep every committed batch: just run them again.

    Example: nonoforge db import --db corpus.db puzzles/ collection.rofl example:dancer
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from nonoforge.scraper.local import expand_folders
    def skipped(name: str, why: str) -> None:
        if not is_quiet():
            err.print(Text(terminal_text(f"skipped {name}: {why}")))

    failed: dict[str, str] = {}
    read: set[str] = set()  # files with a puzzle imported (one may have had errors too)
    empty: list[tuple[str, str]] = []  # folders with no puzzle file: a warning, exit 2
    paths = list(expand_folders([resolve_input(f) for f in files], skipped,
                                lambda folder, why: empty.append((folder, why))))
    if not paths and empty:  # one line, and no corpus created for nothing
        raise FormatError(empty[0][1], path=empty[0][0])
    for folder, why in empty:
        err.print(Text(terminal_text(f"warning: {folder}: {why}"), style="yellow"))

    def on_error(path: str, e: Exception) -> None:
        failed.setdefault(path, str(e))
        say_error(first_line(e))

    with open_corpus(db, create=True) as c:
        if is_quiet():
            stats = c.import_files(paths, on_error=on_error)
        else:
            with Progress(TextColumn("[bold]importing"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[name]}"), console=err) as bar:
                task = bar.add_task("import", total=len(paths), name="")

                def on_file(path: str, n: int) -> None:
                    if n:
                        read.add(path)
                    name = escape_markup(terminal_text(os.path.basename(path)))
                    bar.update(task, advance=1, name=f"{name}: {n}")

                stats = c.import_files(paths, on_error=on_error, on_file=on_file)
    if not is_quiet():
        err.print(f"{stats.new} new, {stats.duplicate} duplicate, {stats.merged} merged "
                  f"from {len(read)} file(s)"
                  + (f"; {len(failed)} file(s) had errors" if failed else ""))
    if failed or empty:
        raise typer.Exit(FAILED_EXIT)


@db_app.command("export")
def db_export(
    dest: Annotated[str, typer.Argument(help="The ROFL file to write.")],
    db: CorpusOption = None,
    width: WidthOpt = None, height: HeightOpt = None, size: SizeOpt = None,
    colors: ColorsOpt = None, source: SourceOpt = None, status: StatusOpt = None,
    technique: TechniqueOpt = None, grade: GradeOpt = None, solver_version: VersionOpt = None,
    limit: LimitOpt = None,
) -> None:
    """Write the selected puzzles, with their metadata and goals, to one ROFL file.

    Example: nonoforge db export easy.rofl --grade 1-2 --size ..15 --colors 1
    """

    filters = _filters(width, height, size, colors, source, status, technique, grade,
                       solver_version, limit)
    refused: list[str] = []

    def on_refused(key: str, why: str) -> None:  # one refused puzzle costs only itself
        refused.append(key)
        say_error(f"puzzle {key} left out: {why}")

    with open_corpus(db) as c:
        n = c.export_rofl(dest, on_refused=on_refused, **filters.query_kwargs())
    if not is_quiet():
        err.print(f"wrote {n} puzzle(s) to {dest}"
                  + (f"; {len(refused)} left out" if refused else ""))
        if refused:  # this command writes ROFL only: name the one that keeps givens
            err.print("db export writes ROFL only; puzzles with givens keep them in a "
                      "collection: collection export --to DIR --format non (or json)")
    if refused:
        raise typer.Exit(FAILED_EXIT)


@db_app.command("query")
def db_query(
    db: CorpusOption = None,
    width: WidthOpt = None, height: HeightOpt = None, size: SizeOpt = None,
    colors: ColorsOpt = None, source: SourceOpt = None, status: StatusOpt = None,
    technique: TechniqueOpt = None, grade: GradeOpt = None, solver_version: VersionOpt = None,
    limit: LimitOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="As a JSON list (streamed).")] = False,
) -> None:
    """List the puzzles matching the filters: key, size, colours, site and title.

    Example: nonoforge db query --size 20x20..30x30 --source webpbn --limit 10
    """

    filters = _filters(width, height, size, colors, source, status, technique, grade,
                       solver_version, limit)
    n = 0
    with open_corpus(db) as c:  # streamed: a page of rows at a time, whatever the corpus
        rows = c.listing(**filters.query_kwargs())
        if as_json:
            sys.stdout.write("[")
        for r in rows:
            if as_json:
                sys.stdout.write(("," if n else "") + "\n" + json.dumps(r, ensure_ascii=False))
            else:
                sys.stdout.write(terminal_text(
                    f"{r['key']}  {r['width']}x{r['height']}  {r['colors']} colour(s)  "
                    f"{r['site'] or '-'}  {r['title'] or ''}".rstrip()) + "\n")
            n += 1
        if as_json:
            sys.stdout.write("\n]\n")
    if not is_quiet() and not as_json:
        err.print(f"{n} puzzle(s)")


# --- ingest ---


class _IngestGroup(_Group):
    """``nonoforge ingest``: a command for each site of the registry
    (:func:`nonoforge.scraper.site.sites`, built when asked for), then ``path``;
    ``nonoforge ingest PATH`` is short for ``nonoforge ingest path PATH``."""

    def list_commands(self, ctx: Any) -> list[str]:
        from nonoforge.scraper.site import sites

        own = super().list_commands(ctx)
        return [*(n for n in sites() if n not in own), *own]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        from nonoforge.scraper.site import is_site, site_kind

        cmd = super().get_command(ctx, cmd_name)
        if cmd is None and is_site(cmd_name):
            return _site_command(site_kind(cmd_name))
        return cmd

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            return "path", self.get_command(ctx, "path"), args
        return super().resolve_command(ctx, args)


ingest_app = make_app(
    "Fetch puzzles into the corpus from the sites below or local archives, politely "
    "(paced, cached, robots.txt) and resumably (a re-run skips what is done and retries "
    "what failed).\n\n"
    "Examples: nonoforge ingest webpbn 1-500,733 | nonoforge ingest nonograms 100-200 | "
    "nonoforge ingest puzzles.zip (short for: nonoforge ingest path puzzles.zip)"
)
ingest_app.info.cls = _IngestGroup
app.add_typer(ingest_app, name="ingest")

_NET = "Network"
IdsArg = Annotated[str, typer.Argument(help="Ids and ranges, e.g. 1-500,733.")]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option("--base-url", help="The site's address (a mirror, a test server).",
                 rich_help_panel=_NET),
]
RateOpt = Annotated[
    float, typer.Option("--rate", min=0.001, help="Requests per second per host.",
                        rich_help_panel=_NET),
]
CacheDirOpt = Annotated[
    str | None,
    typer.Option("--cache-dir", help="Cache of raw responses [default: the user cache dir, "
                 "e.g. ~/.cache/nonoforge/http].", rich_help_panel=_NET),
]
NoCacheOpt = Annotated[
    bool, typer.Option("--no-cache", help="Neither read nor write the response cache.",
                       rich_help_panel=_NET),
]
TimeoutOpt = Annotated[
    float, typer.Option("--timeout", min=0.01, help="Read timeout in seconds.",
                        rich_help_panel=_NET),
]
RetriesOpt = Annotated[
    int, typer.Option("--retries", min=0, max=20, help="Retries of a failing request.",
                      rich_help_panel=_NET),
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Fetch and parse, write nothing to the corpus."),
]
SummaryJsonOpt = Annotated[bool, typer.Option("--json", help="The summary as JSON on stdout.")]


def _ingest_http(rate: float, cache_dir: str | None, no_cache: bool, timeout: float,
                 retries: int) -> Any:
    from nonoforge.scraper.http import Http, default_cache_dir

    where = None if no_cache else (cache_dir or default_cache_dir())
    return Http(rate=rate, cache_dir=where, read_timeout=timeout, retries=retries)


def _ingest_corpus(db: str | None, dry_run: bool) -> Any:
    """The corpus to write to; for a dry run, only one that already exists (or None)."""
    from nonoforge.errors import CorpusError

    if dry_run:
        try:
            corpus_target(db)  # the one existence check
        except CorpusError:
            return None
    return open_corpus(db, create=True)


def _ingest_report(summary: Any, as_json: bool) -> None:
    if as_json:
        print_json(summary.as_dict())
    else:
        out.print(Text(terminal_text(summary.line())))
        for line in summary.failure_lines():
            out.print(Text(terminal_text(line)))
    stop = summary.stop_line()
    if stop is not None:  # the site could not be reached: one line, exit 5
        say_error(stop)
    if summary.exit_code:  # stopped, or every item tried failed: 5 for the network, else 2
        raise typer.Exit(summary.exit_code)


def _site_options(
    ids: IdsArg,
    db: CorpusOption = None,
    base_url: BaseUrlOpt = None,
    rate: RateOpt = 1.0,
    cache_dir: CacheDirOpt = None,
    no_cache: NoCacheOpt = False,
    timeout: TimeoutOpt = 30.0,
    retries: RetriesOpt = 4,
    dry_run: DryRunOpt = False,
    as_json: SummaryJsonOpt = False,
) -> None:
    """The options every site's command has (never called: its signature is the template
    :func:`_site_command` adds a site's own settings to)."""


def _site_command(kind: Any) -> Any:
    """The command ``ingest NAME IDS`` of the registered site ``kind``
    (:class:`~nonoforge.scraper.site.SiteKind`): the common options, then one ``--NAME``
    option for each of the site's settings, and :func:`ingest_site_ids` as its body."""
    import inspect

    from typer.main import get_command

    common = list(inspect.signature(_site_options, eval_str=True).parameters.values())
    own = [inspect.Parameter(c.name, inspect.Parameter.KEYWORD_ONLY, default=c.default,
                             annotation=Annotated[str, typer.Option(f"--{c.name}", help=c.help)])
           for c in kind.choices]
    params = [*common[:-2], *(p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD)
                              for p in own), *common[-2:]]

    def command(**given: Any) -> None:
        own = {c.name: given.pop(c.name) for c in kind.choices}
        ingest_site_ids(kind.name, SiteArgs(**given), own)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    one = typer.Typer(add_completion=False, rich_markup_mode=None)
    one.command(kind.name, help=kind.help())(command)
    return get_command(one)


@dataclass(frozen=True)
class SiteArgs:
    """The common options of ``ingest SITE IDS``, as the command line gave them."""

    ids: str
    db: str | None
    base_url: str | None
    rate: float
    cache_dir: str | None
    no_cache: bool
    timeout: float
    retries: int
    dry_run: bool
    as_json: bool


def ingest_site_ids(site: str, args: SiteArgs, own: dict[str, str | None]) -> None:
    """``ingest SITE IDS``, one path for every site of the registry: ``args`` the common
    options, ``own`` the site's own settings by name (checked before any work)."""
    from contextlib import nullcontext

    from nonoforge.scraper.ingest import ingest_ids
    from nonoforge.scraper.site import site_kind

    kind = site_kind(site)
    settings = kind.settings(own)
    items = kind.ids(args.ids)
    corpus = _ingest_corpus(args.db, args.dry_run)
    http = _ingest_http(args.rate, args.cache_dir, args.no_cache, args.timeout, args.retries)
    with corpus or nullcontext(), http as h:
        summary = ingest_ids(corpus, site, items, http=h, base_url=args.base_url,
                             settings=settings, dry_run=args.dry_run, progress=not is_quiet())
    _ingest_report(summary, args.as_json)


@ingest_app.command("path")
def ingest_path_cmd(
    path: Annotated[str, typer.Argument(help="A puzzle file, a directory, a .zip or a .tar.gz.")],
    db: CorpusOption = None,
    dry_run: DryRunOpt = False,
    as_json: SummaryJsonOpt = False,
) -> None:
    """Every puzzle file under PATH, in any format nonoforge reads; a bad file is recorded
    (with its reason, in the fetch log) and the rest are ingested.

    Example: nonoforge ingest path puzzles.tar.gz (or just: nonoforge ingest puzzles.tar.gz)
    """
    from contextlib import nullcontext

    from nonoforge.scraper.ingest import check_source, ingest_path

    path = resolve_input(path)
    check_source(path)  # before a corpus is created for nothing
    corpus = _ingest_corpus(db, dry_run)
    with corpus or nullcontext():
        summary = ingest_path(corpus, path, dry_run=dry_run, progress=not is_quiet())
    _ingest_report(summary, as_json)


# --- images ---


@app.command()
def generate(
    images: Annotated[list[str], typer.Argument(help="Image files (PNG, JPEG, GIF, ...).")],
    out_dir: Annotated[str, typer.Option("--out", "-o", help="Output directory.")] = ".",
    size: Annotated[
        str | None, typer.Option("--size", "-s", help="Largest grid WxH (aspect kept), e.g. 30x30.")
    ] = None,
    width: Annotated[
        int | None, typer.Option("--width", "-w", help="Grid width; height keeps the aspect.")
    ] = None,
    colors: Annotated[
        int, typer.Option("--colors", "-c", help="Most painted colours (1: black-and-white).")
    ] = 1,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Puzzle file format.")] = "non",
    max_technique: Annotated[
        str, typer.Option("--max-technique", help="Hardest rung allowed: line or probe.")
    ] = "line",
    seed: Annotated[int, typer.Option("--seed", help="Seed of k-means and tie-breaks.")] = 0,
    edit_budget: Annotated[
        float, typer.Option("--edit-budget", help="Most cells a repair may change (fraction).")
    ] = 0.06,
    fill: Annotated[
        float | None, typer.Option("--fill", help="B&W: ink this fraction of cells (no Otsu).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per image.")] = False,
    no_crop: Annotated[
        bool, typer.Option("--no-crop", help="Keep the whole frame (no border trimming).")
    ] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="Write NAME-explain.png/.gif: where solutions differ.")
    ] = False,
    repair_with: Annotated[
        str, typer.Option("--repair", help="edits (change cells) or givens (print cells solved).")
    ] = "edits",
    grade: Annotated[
        int | None, typer.Option("--grade", help="Aim at difficulty grade 1..5 (size <= --size).")
    ] = None,
    title: Annotated[str | None, typer.Option(
        "--title", help="The puzzle's title [default: the image's name made readable, "
        "e.g. koala-20x20.png -> Koala, 1f354.png -> Hamburger].")] = None,
    style: Annotated[str, typer.Option(
        "--style", help="B&W drawing: auto, silhouette, outline or tones (auto: the one "
        "whose edges best match the photo's; see docs/images.md).")] = "auto",
) -> None:
    """Turn images into puzzles the solver proves unique, repairing them with few edits.

    Writes NAME.non (or --format), NAME-sheet.png/.svg, NAME-solution.png and
    NAME-edits.png (edited cells framed) for each image into --out; --size is a maximum
    (the aspect is kept, borders trimmed unless --no-crop). --explain (and any picture
    that is not accepted) adds NAME-explain.png, and NAME-explain.gif animating each
    ambiguity when two solutions differ; --repair givens prints solved cells
    instead of editing the picture.

    Example: nonoforge generate example:koala --size 30x30 --colors 4 --out puzzles/
    """
    from nonoforge.examples import stem as example_stem
    from nonoforge.images.explain import summary_line
    from nonoforge.images.generate import GenerateOptions
    from nonoforge.images.generate import generate as make
    from nonoforge.images.output import write_explain, write_generated
    from nonoforge.images.quantise import parse_size
    from nonoforge.images.render import preview
    from nonoforge.images.styles import Style
    from nonoforge.ranges import check_picture_size

    if size is None and width is None and grade is None:
        raise UsageError("give the grid size with --size WxH or --width W")
    if grade is not None and width is not None:
        raise UsageError("--grade takes --size (the largest grid), not --width")
    for text, what in ((size, "--size"), (width, "--width")):
        if text is not None:  # under 5 cells a side: refused (2x2 made a 1x1 puzzle)
            check_picture_size(str(text), what)
    grid_size = parse_size(size, "--size") if size is not None else None
    taken: set[str] = set()
    rows = []
    options = GenerateOptions(
        size=grid_size, width=width, colors=colors, seed=seed, fill=fill,
        max_technique=max_technique, edit_budget=edit_budget, crop=not no_crop,
        repair_with=repair_with, style=Style.parse(style)).checked()
    for image in images:
        opts: dict[str, Any] = {"options": options}
        if title is not None:
            opts["title"] = title
        aimed: dict[str, Any] = {}
        with _status(f"{image}: starting") as tell:
            if tell is not None:  # where a long repair is, on a terminal's stderr
                opts["progress"] = lambda line, image=image: tell(f"{image}: {line}")
            if grade is None:
                g = make(resolve_input(image), **opts)
            else:
                from nonoforge.pipeline.aim import generate_for_grade

                g, got, note = generate_for_grade(resolve_input(image), grade,
                                                  size=grid_size, **opts)
                aimed = {"grade": got, "grade_wanted": grade, "grade_note": note}
        for note in (g.colors_note, aimed.get("grade_note")):
            if note:
                err.print(f"note: {image}: {note}", markup=False, highlight=False)
        stem = unique_stem(example_stem(image), taken)
        paths = write_generated(g, out_dir, stem, fmt)
        row = {"image": image, **g.summary(), **aimed, "puzzle": paths.pop("puzzle"),
               "files": paths}
        if explain or not g.accepted:  # a refused picture is always explained
            row["explain"] = write_explain(g, out_dir, stem)
            paths["explain"] = row["explain"]["file"]
            if "animation" in row["explain"]:
                paths["explain_gif"] = row["explain"]["animation"]
        rows.append(row)
        if as_json or is_quiet():
            continue
        verdict = "accepted" if g.accepted else f"NOT accepted ({g.repair.refusal})"
        verdict += f" with {len(g.givens)} given(s)" if g.givens else ""
        like = "-" if row["likeness"] is None else f"{row['likeness']:.2f}"  # computed once
        drawn = f" ({g.style.value})" if g.puzzle.ncolors == 1 else ""
        out.print(f"{image}: {g.puzzle.width}x{g.puzzle.height}, {g.puzzle.ncolors} colour(s)"
                  f"{drawn}, "
                  f"{verdict}, {g.edits} edit(s) ({100 * g.edit_fraction:.1f} %), "
                  f"likeness {like}, "
                  f"{g.time_s:.2f} s -> {row['puzzle']}")
        if g.puzzle.goal is not None:  # a generated puzzle always carries its picture
            picture = preview(g.puzzle.goal, g.puzzle.palette, color=out.is_terminal)
            out.print(Text.from_ansi(picture) if out.is_terminal else picture)
        if "explain" in row:
            out.print(summary_line(row["explain"]), markup=False, highlight=False)
    if as_json:
        print_json(rows)
    elif not all(r["accepted"] for r in rows):
        err.print(Text("warning: some puzzles are not unique at the requested rung; "
                       "raise --edit-budget or lower the size", style="yellow"))


@app.command()
def render(
    files: Annotated[list[str], typer.Argument(help="Puzzle files (any format we read).")],
    out_dir: Annotated[str, typer.Option("--out", "-o", help="Output directory.")] = ".",
    png: Annotated[bool, typer.Option("--png/--no-png", help="Sheet and solution PNG.")] = True,
    svg: Annotated[bool, typer.Option("--svg/--no-svg", help="Sheet as SVG.")] = True,
    gif: Annotated[bool, typer.Option("--gif", help="Animated GIF of the solve.")] = False,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="Input format.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The files written, as JSON.")] = False,
) -> None:
    """Draw puzzle sheets (PNG, SVG), solution pictures and solve animations (GIF).

    Example: nonoforge render example:dancer --out sheets/ --gif
    """
    from nonoforge.examples import stem as example_stem
    from nonoforge.images.output import render_puzzle

    taken: set[str] = set()
    rows: list[dict[str, Any]] = []
    batch = batch_inputs(files, fmt)
    for it in batch:
        if it.puzzle is None:
            rows.append(it.as_error())
            continue
        path, p = it.file, it.puzzle
        stem = unique_stem(example_stem(path), taken)
        written = render_puzzle(p, out_dir, stem, png=png, svg=svg, gif=gif)
        rows.append({"file": path, "key": p.key, **written})
        if not as_json and not is_quiet():
            names = ", ".join(v for k, v in written.items() if k != "status")
            out.print(terminal_text(f"{path}: {names or 'nothing to write'}"))
    if as_json:
        print_json(rows)
    end_batch(batch)


@app.command()
def explain(
    file: Annotated[str, typer.Argument(help="A puzzle file (the first puzzle in it).")],
    state: Annotated[str | None, typer.Option(
        "--state", help="A partly solved grid (text: one line per row, '#' filled, '.' empty, "
        "'?' unknown; colour puzzles use the colour letters 'a', 'b', ... as `show` draws "
        "them; lines starting with ';' skipped): give the next step from there.")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Each step and a summary as JSON.")] = False,
    out_dir: Annotated[str | None, typer.Option(
        "--out", "-o", help="Write NAME-steps.gif (one frame per step) or, for one step, "
        "NAME-hint.png: the step's line framed, its cells marked.")] = None,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="Input format.")] = None,
) -> None:
    """Solve like a person: the easiest deduction anywhere, step by step, each named and said
    in a sentence (simple boxes, simple spaces, forcing, glue, completing, line deduction,
    contradiction; docs/difficulty.md). Ends with the steps per technique, the hardest one,
    the footholds (lines with a deduction on the empty grid) and the bottleneck (fewest
    lines with one at any point). With --state, the next step from a partly solved grid
    (a hint); a cell that differs from the solution is reported instead.

    Example: nonoforge explain example:petro

    Example: nonoforge explain example:dancer --state my-grid.txt --out hints/
    """
    from nonoforge.examples import stem as example_stem
    from nonoforge.formats import read_file
    from nonoforge.solver.human import explain as explain_puzzle
    from nonoforge.solver.human import path_rows, path_text

    path_in = resolve_input(file)
    puzzles = read_file(path_in, fmt)
    if not puzzles:
        raise FormatError("no puzzle in the file", path=file)
    p = puzzles[0]
    state_text = None
    if state is not None:
        try:
            state_text = Path(state).read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            raise UsageError(f"{state}: {e.strerror or e}") from None
    path = explain_puzzle(p, state_text)
    written: dict[str, str] = {}
    if out_dir is not None:
        from nonoforge.images.steps import write_path

        written = write_path(p, path, out_dir, example_stem(file))
    if as_json:
        print_json({"file": file, "key": p.key, "steps": path_rows(path),
                    "summary": path.summary(), **written})
        return
    for line in path_text(path):
        out.print(terminal_text(line), markup=False, highlight=False)
    for f in written.values():
        echo(f"wrote {f}")


# --- pipeline ---

@contextmanager
def _status(first: str) -> Iterator[Callable[[str], None] | None]:
    """A line on stderr that says what a long step is doing, replaced as it goes and gone
    when it ends (a terminal only; nothing with --quiet or when stderr is not a terminal):
    yields the function that sets the line, or None."""
    if is_quiet() or not err.is_terminal:
        yield None
        return
    from rich.text import Text

    # Text, not str: a spinner reads a str as markup ("x[/b].png" would fail)
    with err.status(Text(terminal_text(first))) as status:
        yield lambda line: status.update(Text(terminal_text(line)))


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
                r = ev["row"]
                progress.update(task, advance=1, info=f"{r['status']} {r['time_s']:.3f}s")

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


collection_app = make_app("Build graded collections from the rated corpus and export them.")
app.add_typer(collection_app, name="collection")


@collection_app.command("build")
def collection_build(
    name: Annotated[str, typer.Argument(help="Name of the collection (replaced if it exists).")],
    count: Annotated[int, typer.Option(help="How many puzzles.")] = 100,
    grade: GradeOpt = None,
    size: SizeOpt = None,
    colors: ColorsOpt = None,
    source: SourceOpt = None,
    grades: Annotated[str | None, typer.Option("--grades", hidden=True)] = None,
    include_ambiguous: Annotated[bool, typer.Option(
        "--include-ambiguous", help="Let in puzzles without a proven unique solution "
        "(marked in every export); by default only proven-unique ones qualify.")] = False,
    title: Annotated[str | None, typer.Option(
        "--title", help="The collection's title, printed on the book's cover and page.")
    ] = None,
    titles: Annotated[str | None, typer.Option(
        "--titles", help="A file giving puzzles titles: JSON {\"KEY-OR-FILE-NAME\": "
        "\"Title\"} or one KEY-OR-FILE-NAME<TAB>Title a line (# comments); a key may be "
        "its first 6+ characters, a file name the one it was imported from.")] = None,
    db: CorpusOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="The selection as JSON.")] = False,
    grade_by: Annotated[
        str, typer.Option("--grade-by", help="Grade by the time-calibrated score (time) or "
                          "the human-effort score (human; docs/difficulty.md).")
    ] = "time",
) -> None:
    """Pick a balanced, deduplicated selection of rated puzzles, ordered easy to hard.

    Only puzzles proven to have one solution qualify (--include-ambiguous for the rest);
    when fewer qualify than --count asks, one line says how many do.

    Example: nonoforge collection build starter --count 20 --grade 1-3 --title "Starter"
    """
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.collection import BuildOptions, titles_for
    from nonoforge.titles import read_titles, title_of

    if count < 1:
        raise UsageError("--count must be at least 1")
    if grades is not None and grade is not None:
        raise UsageError("give --grade once (--grades is its old name)")
    filters = _filters(size=size, colors=colors, source=source, grade=grade or grades)
    opts = BuildOptions(include_ambiguous, title, read_titles(titles) if titles else {},
                        grade_by)
    with open_corpus(db, write=True) as corpus:
        chosen = jobs.build_collection(corpus, name, filters, count, opts,
                                       warn=lambda m: err.print(f"warning: {m}", markup=False))
    if as_json:
        print_json([{"position": i, "key": c.puzzle.key, "title": c.puzzle.meta.title,
                     "grade": c.grade, "score": c.score, "width": c.puzzle.width,
                     "height": c.puzzle.height, "colors": c.puzzle.ncolors}
                    for i, c in enumerate(chosen, start=1)])
        return
    given = titles_for((c.puzzle for c in chosen), opts.titles)
    for i, c in enumerate(chosen, start=1):
        p = c.puzzle
        out.print(Text(terminal_text(
            f"{i:3d}. grade {c.grade}  {p.width}x{p.height}  {p.ncolors} colour(s)  "
            f"{given.get(p.key) or title_of(p.meta.title, p.meta.source, i)}")))
    if not is_quiet():
        err.print(f"collection {name!r}: {len(chosen)} puzzle(s)")


@collection_app.command("export")
def collection_export(
    name: Annotated[str, typer.Argument(help="The collection's name.")],
    to: Annotated[str, typer.Option(
        "--to", help="A folder, or FILE.pdf (book), .html (playable page), .jsonl (dataset), "
        ".rofl; any other suffix is refused.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="File format in a folder.")] = "non",
    page: Annotated[str, typer.Option(help="PDF page size: a4, letter or 6x9.")] = "a4",
    greyscale: Annotated[bool, typer.Option(
        "--greyscale", help="PDF for black-and-white printing: colours as named greys.")] = False,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Replace an existing file, or the nonoforge files in a folder.")
    ] = False,
    steps: Annotated[bool, typer.Option(
        "--steps", help="JSONL: add the solver's line-by-line deductions.")] = False,
    include_ambiguous: Annotated[bool, typer.Option(
        "--include-ambiguous", help="PDF/HTML: keep puzzles without a proven unique "
        "solution, marked.")] = False,
    db: CorpusOption = None,
) -> None:
    """Export a collection: files in a folder, ROFL, a PDF book, an HTML page or a dataset.

    Example: nonoforge collection export starter --to starter.pdf --page letter
    """
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.export import ExportOptions

    opts = ExportOptions(fmt, page, greyscale, overwrite, steps, include_ambiguous)
    with open_corpus(db) as corpus:
        done = jobs.export_collection(corpus, name, to, opts=opts,
                                      warn=lambda m: err.print(f"warning: {m}", markup=False))
    if not is_quiet():
        err.print(f"wrote {done.count} puzzle(s) to {done.path} ({done.kind})"
                  + (f"; {done.refused} left out" if done.refused else ""))
    if done.refused:  # puzzles the format cannot hold, each named in a warning
        raise typer.Exit(FAILED_EXIT)


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


@app.command()
def demo(
    out_dir: Annotated[
        str, typer.Option("--out", help="Where everything goes.")
    ] = "nonoforge-demo",
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", help="Worker processes [default: all cores].")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Where everything went, as JSON.")
    ] = False,
) -> None:
    """The main job on bundled inputs: generate, ingest, rate, grade, export a PDF book.

    Makes a fresh SQLite corpus in OUT, generates puzzles from the bundled images, ingests the
    bundled archive of redistributable puzzles, rates and grades everything, builds the graded
    collection 'demo' and exports it as a PDF, an HTML page, a folder of .non files and ROFL.

    Example: nonoforge demo --out nonoforge-demo
    """
    from nonoforge.pipeline.demo import run_demo

    say = (lambda _msg: None) if is_quiet() or as_json else (lambda msg: err.print(msg))
    with _status("demo: starting") as status:  # a terminal's line: the step and its seconds
        report = run_demo(out_dir, say, workers, None if as_json else status)
    if as_json:
        print_json(report)
