"""The commands on puzzle files: ``show``, ``info``, ``convert``, ``formats`` and ``solve``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonoforge.cliapp import (
    Text,
    command_start,
    echo,
    err,
    is_quiet,
    out,
    print_json,
    printed_whole,
)
from nonoforge.errors import FormatError, UsageError
from nonoforge.puzzle import Puzzle, cell_chars
from nonoforge.util import terminal_text, unique_stem

if TYPE_CHECKING:

    pass
from nonoforge.commands.base import (
    app,
    batch_inputs,
    end_batch,
)


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
