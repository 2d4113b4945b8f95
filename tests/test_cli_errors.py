"""Bad arguments give one line and exit code 2, never an internal error (issue 20.7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nonoforge.cli import app

DATA = Path(__file__).resolve().parent / "data"
runner = CliRunner()


@pytest.mark.parametrize("address", ["tcp://host:notaport", "::::", "tcp://[::1:8786"])
def test_a_malformed_dask_scheduler_address_is_one_line(address: str) -> None:
    pytest.importorskip("dask.distributed")
    r = runner.invoke(app, ["rate", str(DATA / "dancer.non"), "--executor", "dask",
                            "--scheduler", address])
    assert r.exit_code == 2, r.output
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert lines[-1].startswith("error: malformed Dask scheduler address"), r.output
    assert "internal error" not in r.output and "Traceback" not in r.output


def test_typer_errors_show_themselves_through_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """main() lets typer's usage errors print themselves (show()), with typer's exit code.
    Every exception typer raises is a ClickException, and each has show(), so main()'s
    fallback for a TyperException without one (say_error) is not reached from typer."""
    import sys

    import typer._click.exceptions as click_errors
    from typer.exceptions import TyperException

    from nonoforge.cli import main

    def every(cls: type) -> list[type]:
        return [cls] + [s for sub in cls.__subclasses__() for s in every(sub)]

    raised = [c for c in every(TyperException) if c is not TyperException]
    assert click_errors.UsageError in raised and click_errors.BadParameter in raised
    assert all(callable(getattr(c, "show", None)) for c in raised)

    monkeypatch.setattr(sys, "argv", ["nonoforge", "--no-such-option"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    assert "No such option" in capsys.readouterr().err
