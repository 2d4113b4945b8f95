"""The commands that draw puzzles: ``render`` and ``explain``. (``generate`` is in
:mod:`nonoforge.cli`.)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonoforge.cliapp import (
    echo,
    is_quiet,
    out,
    print_json,
)
from nonoforge.errors import FormatError, UsageError
from nonoforge.util import terminal_text, unique_stem

if TYPE_CHECKING:

    pass
from nonoforge.commands.base import (
    app,
    batch_inputs,
    end_batch,
    resolve_input,
)


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
    two lines together, contradiction; docs/difficulty.md). Ends with the steps per
    technique, the hardest one, the footholds (lines with a deduction on the empty grid)
    and the bottleneck (fewest lines with one at any point). With --state, the next step
    from a partly solved grid (a hint); a cell that differs from the solution is reported instead.

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
