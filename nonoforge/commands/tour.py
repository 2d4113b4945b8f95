"""The commands of the first hour: ``examples`` and ``demo``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nonoforge.cliapp import (
    err,
    is_quiet,
    out,
    print_json,
)

if TYPE_CHECKING:

    pass
from nonoforge.commands.base import (
    _status,
    app,
)


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
