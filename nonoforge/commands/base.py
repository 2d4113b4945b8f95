"""What every command of the ``nonoforge`` CLI shares: the app, its global options, the
per-file batch loop, the corpus options and how the corpus is opened.

The commands themselves live in the modules beside this one and in :mod:`nonoforge.cli`,
which assembles them; the start-up machinery is :mod:`nonoforge.cliapp`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonoforge.cliapp import (
    echo,
    err,
    is_debug,
    is_quiet,
    make_app,
    say_error,
    start_command,
)
from nonoforge.util import terminal_text

if TYPE_CHECKING:

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
TitleOpt = Annotated[str | None, typer.Option(
    help="Words the title must hold, each anywhere in it, case aside.", rich_help_panel=_F)]
AuthorOpt = Annotated[str | None, typer.Option(
    help="Words the author (of the same source as the title) must hold.",
    rich_help_panel=_F)]


def _filters(width: int | None = None, height: int | None = None, size: str | None = None,
             colors: str | None = None, source: str | None = None, status: str | None = None,
             technique: str | None = None, grade: str | None = None,
             solver_version: str | None = None, limit: int | None = None,
             title: str | None = None, author: str | None = None) -> Filters:
    """The filter options, parsed with the one grammar of :mod:`nonoforge.ranges`."""
    from nonoforge.db.filters import Filters
    from nonoforge.ranges import SizeSpan, Span

    return Filters(
        width=width, height=height,
        size=None if size is None else SizeSpan.parse(size, "--size"),
        colors=None if colors is None else Span.parse(colors, "--colors"),
        source=source, status=status, technique=technique,
        grade=None if grade is None else Span.parse(grade, "--grade"),
        solver_version=solver_version, limit=limit, title=title, author=author,
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
