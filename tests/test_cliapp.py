"""The command's start-up machinery (``nonoforge.cliapp``), on toy apps of its own: errors
to one line and an exit code, the one-command app, the command's clock, plain printing."""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import pytest
import typer
from typer.testing import CliRunner

from nonoforge import cliapp
from nonoforge.errors import FetchError, FormatError


def _toy() -> typer.Typer:
    app = cliapp.make_app("A toy.")

    @app.callback()
    def _main(quiet: bool = typer.Option(False, "--quiet", "-q")) -> None:
        cliapp.start_command(False, quiet)

    @app.command()
    def fine() -> None:
        cliapp.echo("fine")

    @app.command()
    def bad(kind: str) -> None:
        errors: dict[str, BaseException] = {
            "format": FormatError("no clues here", path="x.non"),
            "fetch": FetchError("no route"),
            "bug": ZeroDivisionError("division by zero"),
            "pipe": BrokenPipeError(),
            "ctrl-c": KeyboardInterrupt(),
        }
        raise errors[kind]

    sub = cliapp.make_app("A group.")
    app.add_typer(sub, name="grp")

    @sub.command()
    def inner() -> None:
        cliapp.echo("inner")

    return app


@pytest.mark.parametrize(("kind", "code", "says"), [
    ("format", FormatError.exit_code, "error: x.non: no clues here"),
    ("fetch", FetchError.exit_code, "error: no route"),
    ("bug", 1, "internal error: ZeroDivisionError: division by zero (run with --debug)"),
    ("pipe", 0, ""),
    ("ctrl-c", 130, "interrupted"),
])
def test_errors_become_one_line_and_their_code(kind: str, code: int, says: str) -> None:
    r = CliRunner().invoke(_toy(), ["bad", kind])
    assert r.exit_code == code
    assert r.stderr.strip() == says
    assert "Traceback" not in r.output


def test_say_error_escapes_control_characters(capsys: pytest.CaptureFixture[str]) -> None:
    cliapp.say_error("bad\x1b[31mname\nsecond")
    got = capsys.readouterr().err
    assert got.startswith("error: ") and "\x1b" not in got and got.count("\n") == 1


def test_echo_writes_a_plain_line(capsys: pytest.CaptureFixture[str]) -> None:
    cliapp.echo("a [b] line")
    assert capsys.readouterr().out == "a [b] line\n"


def test_app_for_builds_only_the_named_command() -> None:
    app = _toy()
    assert [c.callback.__name__ for c in cliapp.app_for(app, ["-q", "fine"]).registered_commands
            if c.callback] == ["fine"]
    assert [g.name for g in cliapp.app_for(app, ["grp", "inner"]).registered_groups] == ["grp"]
    for whole in (["--help"], [], ["nosuch"], ["--version"]):
        assert cliapp.app_for(app, whole) is app


def test_run_exits_with_the_commands_code(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    app = _toy()
    for argv, code in ((["fine"], 0), (["bad", "format"], FormatError.exit_code),
                       (["grp", "inner"], 0), (["nosuch"], 2), (["bad", "bug"], 1)):
        monkeypatch.setattr(sys, "argv", ["nonoforge", *argv])
        with pytest.raises(SystemExit) as e:
            cliapp.run(app)
        assert e.value.code == code, argv
    out = capsys.readouterr()
    assert out.out.split() == ["fine", "inner"]
    assert "No such command 'nosuch'" in out.err


def test_start_command_sets_the_flags_and_the_clock() -> None:
    before = time.monotonic()
    cliapp.start_command(debug=False, quiet=True)
    start = cliapp.command_start()
    assert cliapp.is_quiet() and start is not None and start >= before
    cliapp.start_command(debug=True, quiet=False)
    assert cliapp.is_debug() and not cliapp.is_quiet()
    cliapp.start_command(debug=False, quiet=False)


def test_the_process_age_is_a_duration() -> None:
    age = cliapp._process_age()
    assert isinstance(age, float) and 0.0 <= age < 3600.0


def test_a_test_process_is_not_this_command() -> None:
    # pytest is __main__ here: its command starts at main()'s call, not at the process's
    assert not cliapp._process_is_this_command()


def test_console_proxies_make_rich_only_when_needed(capsys: pytest.CaptureFixture[str]) -> None:
    console = cliapp._Console(stderr=False)
    console.print(cliapp.Text("plain ").append("styled", style="bold"))
    assert console._obj is None  # no terminal: written without rich's Console
    assert capsys.readouterr().out == "plain styled\n"
    console.print("tab\there")  # rich expands tabs: rich prints it
    assert console._obj is not None
    assert capsys.readouterr().out.startswith("tab")


def test_an_interrupt_inside_printed_whole_waits_for_its_end(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(KeyboardInterrupt), cliapp.printed_whole():
        cliapp.print_line("first")
        os.kill(os.getpid(), signal.SIGINT)
        cliapp.print_line("second")  # still printed: the interrupt waits
    assert capsys.readouterr().out == "first\nsecond\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_print_json_is_json(capsys: pytest.CaptureFixture[str]) -> None:
    cliapp.print_json({"title": "Été", "n": [1, 2]})
    got = capsys.readouterr().out
    assert json.loads(got) == {"title": "Été", "n": [1, 2]} and "Été" in got
