"""The ``nonoforge`` command's start-up machinery, apart from its commands (``cli.py``).

What every command shares and what makes a process cheap to start (issues 15, 39):

- the consoles ``out`` and ``err``: rich's, made on first use, and plain lines written as
  rich would write them without importing it (:class:`_Console`, ``Text``, :func:`echo`);
- errors to messages and exit codes in one place (:func:`_report`, :func:`say_error`), and
  the command group that routes every command's errors there (:func:`make_app`);
- the command's clock: a timeout counts from the process's start when the process was
  started for this command (:func:`_process_age`, :func:`start_command`);
- :func:`run`, the console script's body, which builds only the command it runs
  (:func:`app_for`), and a patch of typer's private converter factory that converts plain
  values without pydantic;
- the output every command shares: JSON and JSON Lines on stdout (:func:`print_json`,
  :func:`print_line`), and blocks an interrupt does not cut (:func:`printed_whole`).
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from nonoforge.cliparams import TYPER, plain
from nonoforge.errors import NonoforgeError
from nonoforge.util import first_line, quick_exit, terminal_text

try:  # typer's private coercion layer (typer 0.2x): plain values converted without pydantic
    import typer.core as _typer_core
    from typer._coercion import RuntimeParam, build_runtime_param
except ImportError:  # pragma: no cover - another typer converts as it always did
    pass
else:

    @dataclass(frozen=True)
    class _PlainParam(RuntimeParam):
        """Plain values by :func:`nonoforge.cliparams.plain`, the rest by typer's own
        converter (errors and their messages included): start-up time, issue 15."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            got = plain(self.annotation, self.parameter_info, value)
            if got is not TYPER:
                return got
            typer_own = build_runtime_param(param.type_descriptor)
            return typer_own._coerce_value(value, param=param, ctx=ctx)

    def _converter(descriptor: Any) -> Any:
        """typer's factory of converters, plain ones first."""
        if descriptor.file_annotation is not None or descriptor.parameter_info.parser:
            return build_runtime_param(descriptor)
        return _PlainParam(parameter_info=descriptor.parameter_info,
                           annotation=descriptor.annotation)

    _typer_core.build_runtime_param = _converter  # every parameter, help options included


class _OnFirstUse:
    """Stands for an object made on first use (a call or an attribute). rich costs about
    0.03 s of CPU to import: ``info`` and ``formats`` print plain lines (:func:`echo`) and
    never load it (issue 15)."""

    __slots__ = ("_make", "_obj")

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make, self._obj = make, None

    def _get(self) -> Any:
        if self._obj is None:
            self._obj = self._make()
        return self._obj

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._get()(*args, **kwargs)

    def __enter__(self) -> Any:  # rich's Live and Progress hold their console in `with`
        return self._get().__enter__()

    def __exit__(self, *exc: object) -> Any:
        return self._get().__exit__(*exc)


def _console(stderr: bool) -> Any:
    from rich.console import Console

    # markup=False, emoji=False: text from files, pages and paths ("x[/b]", "a:b:") is
    # printed, never interpreted
    return Console(stderr=stderr, highlight=False, soft_wrap=True, markup=False, emoji=False)


#: Characters rich's Text changes when it prints them (tabs expanded, these control codes
#: dropped): a line holding one is printed by rich itself.
_RICH_CHANGES = frozenset("\t\r\x07\x08\x0b\x0c")
#: Options of ``Console.print`` that, set False, change nothing on our consoles.
_PLAIN_OPTIONS = frozenset(("markup", "highlight", "emoji"))


def _styles_shown(stream: Any) -> bool:
    """Whether rich would style what it prints on ``stream``: its own test
    (``Console.is_terminal``: ``TTY_COMPATIBLE``, ``FORCE_COLOR``, then ``isatty``), and
    any notebook counted as styled."""
    if "IPython" in sys.modules:
        return True
    tty = os.environ.get("TTY_COMPATIBLE", "")
    if tty in ("0", "1"):
        return tty == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _LightText:
    """rich's ``Text`` until rich is needed: a string and the styles of its pieces. Printed
    where no style shows (a pipe, a file) it is its plain string, without importing rich
    (0.03 s of CPU: a large part of ``solve``'s start-up, issue 39); anything else makes it
    a rich ``Text`` (``__rich__``; other attributes are rich's)."""

    __slots__ = ("_parts", "_rich", "_style")

    def __init__(self, text: str = "", style: str | None = None) -> None:
        self._parts: list[tuple[str, str | None]] = [(text, None)] if text else []
        self._style = style
        self._rich: Any = None

    def append(self, text: str, style: str | None = None) -> _LightText:
        if self._rich is not None:
            self._rich.append(text, style=style)
        else:
            self._parts.append((text, style))
        return self

    @property
    def plain(self) -> str:
        if self._rich is not None:
            return str(self._rich.plain)
        return "".join(t for t, _ in self._parts)

    def __str__(self) -> str:
        return self.plain

    def __rich__(self) -> Any:
        if self._rich is None:
            from rich.text import Text as RichText

            rich = RichText(style=self._style or "")
            for text, style in self._parts:
                rich.append(text, style=style)
            self._rich = rich
        return self._rich

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__rich__(), name)


class _TextFactory:
    """``Text(...)``: a :class:`_LightText`; ``Text.from_ansi`` and other class attributes
    are rich's."""

    def __call__(self, text: str = "", style: str | None = None) -> _LightText:
        return _LightText(text, style)

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module("rich.text").Text, name)


class _Console(_OnFirstUse):
    """rich's Console on stdout or stderr, made on first use, except for the plain case:
    lines (str or :class:`_LightText`) printed where rich would show no style are written
    as rich would write them, without importing rich."""

    __slots__ = ("_stderr",)

    def __init__(self, stderr: bool) -> None:
        super().__init__(lambda: _console(stderr=stderr))
        self._stderr = stderr

    def print(self, *objects: Any, **options: Any) -> None:
        stream = sys.stderr if self._stderr else sys.stdout
        plain_options = all(k in _PLAIN_OPTIONS and v is False for k, v in options.items())
        if self._obj is None and plain_options and not _styles_shown(stream):
            texts = [o if isinstance(o, str) else o.plain if isinstance(o, _LightText) else None
                     for o in objects]
            if all(t is not None and _RICH_CHANGES.isdisjoint(t) for t in texts):
                stream.write(" ".join(texts) + "\n")  # type: ignore[arg-type]
                stream.flush()
                return
        self._get().print(*objects, **options)


if TYPE_CHECKING:
    from rich.console import Console
    from rich.markup import escape as escape_markup
    from rich.text import Text

    out: Console
    err: Console
else:
    Text = _TextFactory()
    escape_markup = _OnFirstUse(lambda: importlib.import_module("rich.markup").escape)
    out = _Console(stderr=False)
    err = _Console(stderr=True)


def echo(line: str) -> None:
    """One plain line of data on stdout, as ``out.print(Text(line))`` prints it, without
    loading rich."""
    sys.stdout.write(line + "\n")

_state: dict[str, bool] = {"debug": False, "quiet": False}
_clock: dict[str, float] = {}  # "process": set by main(); "command": when this one started


def say_error(text: str) -> None:
    """One red ``error:`` line on stderr, ``text`` escaped for the terminal: how every
    error the user sees is written (by :func:`_report` and by the batch commands, whose
    bad items each get a line while the rest go on)."""
    err.print(Text(f"error: {terminal_text(text)}", style="red"))


def _report(e: BaseException) -> int:
    """The one place where errors become messages and exit codes."""
    if _state["debug"]:
        traceback.print_exception(e, file=sys.stderr)
    if isinstance(e, NonoforgeError):
        say_error(first_line(e))
        return e.exit_code
    if isinstance(e, KeyboardInterrupt):
        err.print("interrupted")
        return 130
    if isinstance(e, BrokenPipeError):
        return 0
    if isinstance(e, MemoryError):
        say_error("out of memory")
        return 1
    err.print(Text(f"internal error: {type(e).__name__}: {terminal_text(str(e))} "
                   "(run with --debug)", style="red"))
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


def is_quiet() -> bool:
    """Whether ``--quiet`` asked for no progress or messages on stderr."""
    return _state["quiet"]


def is_debug() -> bool:
    """Whether ``--debug`` (or ``NONOFORGE_DEBUG``) asked for tracebacks."""
    return _state["debug"]


def start_command(debug: bool, quiet: bool) -> None:
    """What the main callback does before any command: the global flags, the command's
    start on its clock (the process's start when :func:`run` found it was started for this
    command), and the first-run compile notice unless quiet."""
    _state["debug"] = debug or bool(os.environ.get("NONOFORGE_DEBUG"))
    _state["quiet"] = quiet
    _clock["command"] = _clock.pop("process", 0.0) or time.monotonic()
    from nonoforge.solver import kernel_cache  # no numba: the first-run compile notice

    kernel_cache.set_notice(None if quiet else kernel_cache.say_on_stderr)


def command_start() -> float | None:
    """When the running command started (``time.monotonic``), None outside a command."""
    return _clock.get("command")


def _process_age() -> float:
    """Seconds since this process started (issue 14: a timeout covers the whole command).

    From ``/proc/self/stat`` where there is one (its start in clock ticks since boot), else
    the CPU time used so far, a lower bound (the interpreter and the imports)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            started = int(f.read().rsplit(b")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return time.process_time()
    return age if 0.0 <= age < 3600.0 else time.process_time()


def _process_is_this_command() -> bool:
    """Whether this process was started to run this command (``nonoforge …`` or ``python -m
    nonoforge …``), the first time only: then its start is the command's start. A script or
    notebook that has lived a while before calling :func:`main` is not: its command starts
    at the call, or its age would be spent before any work (a timeout reported early)."""
    if "command" in _clock:  # a command has already run in this process
        return False
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name in ("nonoforge", "nonoforge.__main__"):
        return True
    return os.path.basename(sys.argv[0] if sys.argv else "").startswith("nonoforge")


#: Options of the main callback that take no value (they may come before the command).
_GLOBAL_FLAGS = frozenset(("--debug", "--quiet", "-q"))


def app_for(app: typer.Typer, args: list[str]) -> typer.Typer:
    """The app that runs ``nonoforge ARGS``: ``app`` with only the command (or command
    group) ARGS names when it names one, as typer turns every command's signature into
    options before it runs any (0.02 s of CPU, issue 39); the whole app for ``--help``,
    ``--version``, a name that is no command or no name at all, so that what those print
    is unchanged."""
    i = 0
    while i < len(args) and args[i] in _GLOBAL_FLAGS:
        i += 1
    if i == len(args) or args[i].startswith("-"):
        return app
    from typer.main import get_command_name

    name = args[i]
    commands = [c for c in app.registered_commands
                if (c.name or get_command_name(c.callback.__name__ if c.callback else "")) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if len(commands) + len(groups) != 1:
        return app
    import copy

    only = copy.copy(app)
    only.registered_commands, only.registered_groups = commands, groups
    return only


def run(app: typer.Typer) -> None:
    """The console script's body: run ``app`` on ``sys.argv`` and exit with the code the
    command's outcome (or our error's class) gives."""
    # solve --timeout counts from here: the process's start when it runs just this command
    now = time.monotonic()
    _clock["process"] = now - _process_age() if _process_is_this_command() else now
    quick_exit()  # no last sweep of numba's objects after the answer (0.2 s a solve)
    try:
        rv = app_for(app, sys.argv[1:])(prog_name="nonoforge", standalone_mode=False)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except TyperException as e:  # usage errors: typer's own message and exit code
        show = getattr(e, "show", None)
        if show:
            show()
        else:
            # not reached from typer: it raises only ClickException and its subclasses,
            # which all have show() (test_cli_errors pins this); a bare TyperException
            # (typer's public base class) would still get one escaped line
            say_error(e.format_message())
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
# output every command shares


@contextmanager
def printed_whole() -> Iterator[None]:
    """A block whose printing an interrupt does not cut: Ctrl-C (SIGINT) or SIGTERM that
    arrives inside it takes effect at its end (KeyboardInterrupt, or death by SIGTERM),
    so that every answer a batch command printed is whole. Outside the main thread (no
    signal handlers there) it does nothing."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def later(signum: int, _frame: Any) -> None:
        caught.append(signum)

    before = {sig: signal.signal(sig, later) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        if signal.SIGTERM in caught:  # die as SIGTERM kills, now that the answer is out
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGTERM)
        if signal.SIGINT in caught:
            raise KeyboardInterrupt


def print_json(data: Any) -> None:
    """Machine-readable output on stdout."""
    sys.stdout.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def print_line(text: str) -> None:
    """One line of stdout, flushed at once (``rate --json`` writes JSON Lines with it):
    what a reader has, or a kill leaves, is whole lines."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
