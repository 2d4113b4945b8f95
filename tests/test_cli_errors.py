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
