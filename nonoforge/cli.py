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

import click
import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

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

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except (NonoforgeError, KeyboardInterrupt, BrokenPipeError, MemoryError) as e:
            raise click.exceptions.Exit(_report(e)) from None
        except Exception as e:  # a bug: say so in one line, keep the trace for --debug
            raise click.exceptions.Exit(_report(e)) from None


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
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
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
