"""Starting the studio (nonoforge/studio/server.py and the ``studio`` command): the address
printed, what a live server answers over real HTTP, one line when something is missing."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.errors import UsageError
from nonoforge.studio.server import INSTALL_HINT, bind, url_of

runner = CliRunner()


def test_help_has_an_example() -> None:
    r = runner.invoke(app, ["studio", "--help"])
    assert r.exit_code == 0
    assert "Example: nonoforge studio" in r.output and "--port" in r.output


def test_a_missing_web_server_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if the extra were not installed
    r = runner.invoke(app, ["studio", "--db", str(tmp_path / "c.db")])
    assert r.exit_code != 0
    assert INSTALL_HINT in r.output and "Traceback" not in r.output


def test_bad_addresses_are_one_line() -> None:
    with pytest.raises(UsageError, match="--port"):
        bind("127.0.0.1", 70000)
    taken = bind("127.0.0.1", 0)
    try:
        with pytest.raises(UsageError, match="cannot listen"):
            bind("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()


def test_the_default_binds_loopback_on_a_free_port() -> None:
    s = bind("127.0.0.1", 0)
    try:
        host, port = s.getsockname()[:2]
        assert host == "127.0.0.1" and port > 0
        assert url_of(host, port) == f"http://127.0.0.1:{port}/"
    finally:
        s.close()


def get(port: int, path: str, host: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host)
        conn.endheaders()
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


def test_a_live_studio_answers_its_own_address_only(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn", reason="the studio's extra (nonoforge[studio]) not installed")
    proc = subprocess.Popen(
        [sys.executable, "-m", "nonoforge", "studio", "--db", str(tmp_path / "c.db")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("nonoforge studio: http://127.0.0.1:"), line
        port = int(line.split()[2].rstrip("/").rsplit(":", 1)[1])
        status, body = get(port, "/", f"127.0.0.1:{port}")
        assert status == 200 and 'name="studio-token"' in body
        assert get(port, "/", f"localhost:{port}")[0] == 200
        status, body = get(port, "/", f"attacker.example:{port}")
        assert status == 421 and body.count("\n") == 0 and '"error"' in body
        with socket.create_connection(("127.0.0.1", port), timeout=60):
            pass  # listening on loopback, as printed
    finally:
        proc.terminate()
        proc.wait(timeout=30)
