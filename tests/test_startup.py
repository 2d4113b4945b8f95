"""Start-up (issue 15): what a command imports, and the plain value converter behind it.

Timing lives in ``bench/startup.py``; these tests pin the mechanism: which heavy modules a
fast command never loads, and that plain values (:mod:`nonoforge.cliparams`) convert exactly
as with typer's own (pydantic) converter, errors included.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest
import typer
import typer._coercion
import typer.core
from conftest import fresh_python
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import nonoforge.cli  # noqa: F401 - installs the plain converter, as the command does

ROOT = Path(__file__).resolve().parents[1]
DANCER = str(ROOT / "nonoforge" / "examples" / "puzzles" / "dancer.non")
HEAVY = ("numpy", "numba", "pydantic", "rich")


def _imported(args: list[str]) -> set[str]:
    """The modules ``python -m nonoforge ARGS`` imports (``-X importtime`` names each)."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "nonoforge", *args],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()
            if line.startswith("import time:")}


@pytest.mark.parametrize("args", [["info", DANCER], ["info", "--json", DANCER], ["formats"]])
def test_fast_commands_import_no_numpy_pydantic_or_rich(args: list[str]) -> None:
    mods = _imported(args)
    assert "nonoforge.cli" in mods and "nonoforge.formats" in mods  # the command did run
    assert not {m for m in mods if m.split(".")[0] in HEAVY}


def test_convert_to_xml_imports_no_numpy_or_pydantic(tmp_path: Path) -> None:
    mods = _imported(["convert", DANCER, str(tmp_path / "d.xml")])
    assert (tmp_path / "d.xml").exists()
    assert not {m for m in mods if m.split(".")[0] in ("numpy", "numba", "pydantic")}


def test_a_puzzle_read_without_numpy_still_has_its_goal_checked() -> None:
    # the goal is kept as bytes and compared with the clues in plain Python: a goal that
    # disagrees with the clues is still refused
    code = (
        "import sys\n"
        "from nonoforge.formats import loads\n"
        "from nonoforge.errors import FormatError\n"
        "good = open(sys.argv[1]).read()\n"
        "p, = loads(good, 'non')\n"
        "bad = good.replace('goal \"011', 'goal \"101')\n"
        "try:\n    list(loads(bad, 'non'))\nexcept FormatError as e:\n    print('refused:', e)\n"
        "print(p.goal.to_rows()[0], 'numpy' in sys.modules)\n"
    )
    r = fresh_python(code, str(ROOT / "tests" / "data" / "dancer.non"), cwd=ROOT, timeout=120)
    assert "refused: " in r.stdout and "does not match" in r.stdout
    assert r.stdout.splitlines()[-1] == ".##.. False"


# ---------------------------------------------------------------------------------------
# the plain converter gives what typer's own gives

probe = typer.Typer(add_completion=False)


@probe.command()
def _probe(
    names: Annotated[list[str], typer.Argument()],
    count: Annotated[int, typer.Option(min=1)] = 2,
    limit: Annotated[int | None, typer.Option(max=10)] = None,
    seconds: Annotated[float | None, typer.Option(min=0.001)] = None,
    clamped: Annotated[int, typer.Option(min=0, max=5, clamp=True)] = 1,
    label: Annotated[str | None, typer.Option()] = None,
    flag: Annotated[bool, typer.Option("--flag/--no-flag")] = False,
) -> None:
    print(repr((names, count, limit, seconds, clamped, label, flag)))


CASES = [
    ["a", "b"],
    ["a", "--count", "5"], ["a", "--count", "007"], ["a", "--count", "0"],
    ["a", "--count", "-3"], ["a", "--count", "+4"], ["a", "--count", "1e3"],
    ["a", "--count", " 5"], ["a", "--count", "x"], ["a", "--count", "3.0"],
    ["a", "--count", "99999999999999999999999"],
    ["a", "--limit", "10"], ["a", "--limit", "11"], ["a", "--limit", "-5"],
    ["a", "--seconds", "1"], ["a", "--seconds", "0.5"], ["a", "--seconds", "0"],
    ["a", "--seconds", "1e-2"], ["a", "--seconds", "inf"], ["a", "--seconds", "nan"],
    ["a", "--seconds", ".5"], ["a", "--seconds", "-0.0"],
    ["a", "--clamped", "9"], ["a", "--clamped", "-1"], ["a", "--clamped", "3"],
    ["a", "--label", ""], ["a", "--label", "x[/b]"], ["--flag", "a"], ["--no-flag", "a"],
    ["--help"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) or "-" for c in CASES])
def test_plain_conversion_matches_typers_own(args: list[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    ours = runner.invoke(probe, args)
    monkeypatch.setattr(typer.core, "build_runtime_param", typer._coercion.build_runtime_param)
    theirs = runner.invoke(probe, args)
    assert (ours.exit_code, ours.output) == (theirs.exit_code, theirs.output)


def test_the_plain_converter_is_installed() -> None:
    assert typer.core.build_runtime_param is not typer._coercion.build_runtime_param
    r = CliRunner().invoke(probe, ["a", "--count", "4", "--seconds", "2"])
    assert r.output.strip() == "(['a'], 4, None, 2.0, 1, None, False)"


# ---------------------------------------------------------------------------------------
# solve of a small line-solvable puzzle: neither numpy, numba nor rich (issue 39)

FLOWER = str(ROOT / "tests" / "data" / "flower.pzl")  # 5x5, 4 colours
FLAGS = str(ROOT / "tests" / "data" / "flags.nonpack")  # two colour flags


@pytest.mark.parametrize("args", [["solve", DANCER], ["solve", FLOWER],
                                  ["solve", "--json", FLAGS], ["solve", "-n", "1", FLOWER]])
def test_solving_a_line_solvable_puzzle_imports_no_numpy_numba_or_rich(args: list[str]) -> None:
    mods = _imported(args)
    assert "nonoforge.solver.quick" in mods  # the command did solve
    assert not {m for m in mods if m.split(".")[0] in HEAVY}


def test_a_puzzle_that_needs_the_engine_still_loads_it() -> None:
    # mum (34x40) needs probing and is larger than the plain-Python solve takes
    mods = _imported(["solve", str(ROOT / "nonoforge" / "examples" / "puzzles" / "mum.non")])
    assert "numba" in mods and "nonoforge.solver.engine" in mods


# ---------------------------------------------------------------------------------------
# lines printed without rich are the lines rich prints

def _rich_prints(*objects: object) -> str:
    import io

    from rich.console import Console

    f = io.StringIO()  # no terminal: rich shows no style
    Console(file=f, highlight=False, soft_wrap=True, markup=False, emoji=False).print(*objects)
    return f.getvalue()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(), st.sampled_from([None, "bold", "red", "#ff0000"])),
                max_size=4), st.booleans())
def test_plain_printing_is_richs(pieces: list[tuple[str, str | None]], styled: bool) -> None:
    import io

    from rich.text import Text as RichText

    from nonoforge import cli

    light = cli.Text(pieces[0][0] if pieces else "", style="bold" if styled else None)
    rich = RichText(pieces[0][0] if pieces else "", style="bold" if styled else "")
    for text, style in pieces[1:]:
        light.append(text, style=style)
        rich.append(text, style=style)
    plain_str = "".join(t for t, _ in pieces)
    for objects, theirs in (((light,), (rich,)), ((plain_str,), (plain_str,)),
                            ((), ()), ((plain_str, light), (plain_str, rich))):
        buf = io.StringIO()
        console = cli._Console(stderr=False)
        real = sys.stdout
        sys.stdout = buf
        try:
            console.print(*objects)
        finally:
            sys.stdout = real
        assert buf.getvalue() == _rich_prints(*theirs)


# ---------------------------------------------------------------------------------------
# main() builds only the command it runs

TRIM_CASES = [
    ["solve", DANCER], ["solve", "--help"], ["solve"], ["solve", "--bogus", DANCER],
    ["--quiet", "solve", "nonexistent.non"], ["-q", "formats"], ["db", "--help"], ["db"],
    ["collection", "--help"], ["nosuch"], ["sol"], ["--help"], ["--version"], [],
    ["info", "--json", DANCER], ["show"],
]


@pytest.mark.parametrize("args", TRIM_CASES, ids=[" ".join(c) or "-" for c in TRIM_CASES])
def test_the_app_of_one_command_answers_as_the_whole_app(args: list[str]) -> None:
    from nonoforge.cli import _app_for, app

    runner = CliRunner()
    one = runner.invoke(_app_for(args), args)
    whole = runner.invoke(app, args)
    def timeless(out: str) -> str:  # the solve's time is the one thing that may differ
        return re.sub(r"\d+\.\d{3} s\b", "T s", out)

    assert (one.exit_code, timeless(one.output)) == (whole.exit_code, timeless(whole.output))


def test_only_the_named_command_is_built() -> None:
    from nonoforge.cli import _app_for, app

    solve = _app_for(["-q", "solve", DANCER])
    assert [c.name for c in solve.registered_commands] == ["solve"]
    assert not solve.registered_groups and len(app.registered_commands) > 5
    assert [g.name for g in _app_for(["db", "stats"]).registered_groups] == ["db"]
    assert _app_for(["--help"]) is app and _app_for(["nosuch"]) is app
