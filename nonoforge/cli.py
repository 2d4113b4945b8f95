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
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from nonoforge.images.generate import Generated, GenerateOptions

from nonoforge.cliapp import (  # noqa: F401 - _Console, _clock: for tests/test_startup.py
    Text,
    _clock,
    _Console,
    app_for,
    err,
    escape_markup,
    is_quiet,
    make_app,
    out,
    print_json,
    run,
    say_error,
)
from nonoforge.commands.base import (
    AuthorOpt,
    ColorsOpt,
    CorpusOption,
    GradeOpt,
    HeightOpt,
    LimitOpt,
    SizeOpt,
    SourceOpt,
    StatusOpt,
    TechniqueOpt,
    TitleOpt,
    VersionOpt,
    WidthOpt,
    _filters,
    _status,
    app,
    open_corpus,
    resolve_input,
)
from nonoforge.errors import FAILED_EXIT, FormatError, UsageError
from nonoforge.util import first_line, terminal_text, unique_stem


def _app_for(args: list[str]) -> typer.Typer:
    """The app that runs ``nonoforge ARGS``: :data:`app` with only that command built."""
    return app_for(app, args)


def main() -> None:
    """Console-script entry point."""
    run(app)


import nonoforge.commands.puzzles  # noqa: E402,F401 - registers show, info, convert, formats, solve

# --- db ---

db_app = make_app(
    "The corpus: one deduplicated database of puzzles, their provenance, ratings and "
    "collections (SQLite file by default, or any SQLAlchemy URL)."
)
app.add_typer(db_app, name="db")


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
    limit: LimitOpt = None, title: TitleOpt = None, author: AuthorOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="As a JSON list (streamed).")] = False,
) -> None:
    """List the puzzles matching the filters: key, size, colours, site and title.

    Example: nonoforge db query --size 20x20..30x30 --source webpbn --title cat --limit 10
    """

    filters = _filters(width, height, size, colors, source, status, technique, grade,
                       solver_version, limit, title, author)
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


import nonoforge.commands.ingest  # noqa: E402,F401 - registers the ingest group

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
    grade_by: Annotated[str, typer.Option(
        "--grade-by", help="time: the time grade; human: the human grade, made harder on "
        "purpose with a few edits when the size alone falls short.")] = "time",
    title: Annotated[str | None, typer.Option(
        "--title", help="The puzzle's title [default: the image's name made readable, "
        "e.g. koala-20x20.png -> Koala, 1f354.png -> Hamburger].")] = None,
    style: Annotated[str, typer.Option(
        "--style", help="B&W drawing: silhouette, outline, tones or auto (auto: the one "
        "whose edges best match the photo's; see docs/images.md).")] = "silhouette",
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
    from nonoforge.images.generate import GenerateOptions
    from nonoforge.images.quantise import QuantiseOptions
    from nonoforge.images.styles import Style

    grid_size = _checked_grid_size(size, width, grade)
    taken: set[str] = set()
    rows = []
    options = GenerateOptions(
        QuantiseOptions(size=grid_size, width=width, colors=colors, seed=seed, fill=fill,
                        crop=not no_crop),
        max_technique=max_technique, edit_budget=edit_budget, repair_with=repair_with,
        style=Style.parse(style))
    for image in images:
        g, row = _generate_one(image, options, title, grade, grade_by)
        row = _write_generated(image, g, row, out_dir, fmt, explain, taken)
        rows.append(row)
        if not (as_json or is_quiet()):
            _print_generated(image, g, row)
    if as_json:
        print_json(rows)
    elif not all(r["accepted"] for r in rows):
        err.print(Text("warning: some puzzles are not unique at the requested rung; "
                       "raise --edit-budget or lower the size", style="yellow"))


def _checked_grid_size(size: str | None, width: int | None,
                       grade: int | None) -> tuple[int, int] | None:
    """Refuse a missing or too small grid size in one line; --size as (w, h), if given."""
    from nonoforge.images.quantise import parse_size
    from nonoforge.ranges import check_picture_size

    if size is None and width is None and grade is None:
        raise UsageError("give the grid size with --size WxH or --width W")
    if grade is not None and width is not None:
        raise UsageError("--grade takes --size (the largest grid), not --width")
    for text, what in ((size, "--size"), (width, "--width")):
        if text is not None:  # under 5 cells a side: refused (2x2 made a 1x1 puzzle)
            check_picture_size(str(text), what)
    return parse_size(size, "--size") if size is not None else None


def _generate_one(
    image: str, options: GenerateOptions, title: str | None, grade: int | None,
    grade_by: str,
) -> tuple[Generated, dict[str, Any]]:
    """Make one image's puzzle (aimed at ``grade`` when given), printing its notes.

    Returns the ``Generated`` and the aim's fields for its JSON row (empty without a grade).
    """
    from nonoforge.pipeline.aim import aim

    with _status(f"{image}: starting") as tell:
        # where a long repair is, on a terminal's stderr
        progress = None if tell is None else (lambda line: tell(f"{image}: {line}"))
        made = aim(resolve_input(image), grade, options, by=grade_by, title=title,
                   progress=progress)
    g = made.generated
    for note in (g.colors_note, *made.notes()):
        if note:
            err.print(f"note: {image}: {note}", markup=False, highlight=False)
    return g, made.fields()


def _write_generated(image: str, g: Generated, aimed: dict[str, Any], out_dir: str, fmt: str,
                     explain: bool, taken: set[str]) -> dict[str, Any]:
    """Write one puzzle's files (and its explanation when asked or refused); its JSON row."""
    from nonoforge.examples import stem as example_stem
    from nonoforge.images.output import write_explain, write_generated

    stem = unique_stem(example_stem(image), taken)
    paths = write_generated(g, out_dir, stem, fmt)
    row = {"image": image, **g.summary(), **aimed, "puzzle": paths.pop("puzzle"),
           "files": paths}
    if explain or not g.accepted:  # a refused picture is always explained
        row["explain"] = write_explain(g, out_dir, stem)
        paths["explain"] = row["explain"]["file"]
        if "animation" in row["explain"]:
            paths["explain_gif"] = row["explain"]["animation"]
    return row


def _print_generated(image: str, g: Generated, row: dict[str, Any]) -> None:
    """One image's outcome for a reader: the verdict line, the picture, the explanation."""
    from nonoforge.images.explain import summary_line
    from nonoforge.images.render import preview

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


import nonoforge.commands.pictures  # noqa: E402,F401 - registers render, explain
import nonoforge.commands.rate  # noqa: E402,F401 - registers rate

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
    page: Annotated[str, typer.Option(
        "--page", "--trim", help="PDF trim: a4, letter, 6x9 or 7x10.")] = "a4",
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
    per_page: Annotated[int, typer.Option(
        "--per-page", help="PDF: the most puzzles a page holds (1, 2 or 4).")] = 4,
    cover: Annotated[bool, typer.Option(
        "--cover", help="PDF: also write NAME-cover.pdf, the full-wrap cover (KDP).")] = False,
    paper: Annotated[str, typer.Option(
        help="PDF cover: the paper, which sets the spine: white, cream or colour.")] = "white",
    db: CorpusOption = None,
) -> None:
    """Export a collection: files in a folder, ROFL, a PDF book, an HTML page or a dataset.

    Example: nonoforge collection export starter --to starter.pdf --page 6x9 --cover
    """
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.export import ExportOptions

    opts = ExportOptions(fmt, page, greyscale, overwrite, steps, include_ambiguous,
                         per_page, paper, cover)
    with open_corpus(db) as corpus:
        done = jobs.export_collection(corpus, name, to, opts=opts,
                                      warn=lambda m: err.print(f"warning: {m}", markup=False))
    if not is_quiet():
        err.print(f"wrote {done.count} puzzle(s) to {done.path} ({done.kind})"
                  + (f"; {done.refused} left out" if done.refused else "")
                  + "".join(f"; and {p}" for p in done.also))
    if done.refused:  # puzzles the format cannot hold, each named in a warning
        raise typer.Exit(FAILED_EXIT)

import nonoforge.commands.tour  # noqa: E402,F401 - registers examples, demo


@app.command()
def studio(
    db: CorpusOption = None,
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on; keep 127.0.0.1 unless others must reach it.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(
        "--port", help="Port to listen on (0: any free one).")] = 0,
    open_browser: Annotated[bool, typer.Option(
        "--open", help="Open the studio in the web browser.")] = False,
) -> None:
    """The designer's workbench in the browser: draw, check every stroke, fix, save.

    Prints the studio's address and serves it until interrupted (Ctrl-C). Paint a grid
    and the solver checks it after every stroke (verdict, undecided cells, where two
    solutions differ, one-cell fixes); start from a blank grid, a puzzle file, an
    example or a picture; save to the corpus and download any writable format. Needs
    pip install 'nonoforge[studio]'; docs/studio.md has the tour.

    Example: nonoforge studio --db corpus.db --open
    """
    from nonoforge.cliapp import print_line
    from nonoforge.commands.base import corpus_target
    from nonoforge.studio.server import StudioOptions, serve

    opts = StudioOptions(db=corpus_target(db, create=True), host=host, port=port,
                         open_browser=open_browser)
    serve(opts, lambda url: print_line(f"nonoforge studio: {url}  (Ctrl-C stops it)"))
