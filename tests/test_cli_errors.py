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


def test_db_import_of_a_folder_with_nothing_to_read(tmp_path: Path) -> None:
    """It read nothing and exited 0 ("0 new ... from 0 file(s)"): now one line, exit 2,
    and no corpus is created for nothing."""
    folder = tmp_path / "stuff"
    folder.mkdir()
    (folder / "notes.txt").write_text("shopping: eggs, milk\n")
    (folder / "README.md").write_text("# my puzzles\n")
    db = tmp_path / "c.db"
    r = runner.invoke(app, ["db", "import", "--db", str(db), str(folder)])
    assert r.exit_code == 2, r.output
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert lines == [f"error: {folder}: no puzzle file in this folder: 2 file(s) that are "
                     "not puzzle files (README.md, notes.txt)"], r.output
    assert not db.exists()
    # beside a file that is read: a warning, the import, and exit 2 at the end
    r = runner.invoke(app, ["db", "import", "--db", str(db), str(folder),
                            str(DATA / "dancer.non")])
    assert r.exit_code == 2, r.output
    assert f"warning: {folder}: no puzzle file in this folder" in r.output
    assert "1 new" in r.output


def test_ingest_of_a_zip_does_not_count_its_readme_as_failed(tmp_path: Path) -> None:
    import zipfile

    z = tmp_path / "puzzles.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.write(DATA / "dancer.non", "puzzles/dancer.non")
        zf.writestr("puzzles/README.md", "# Puzzles\n\nDrawn by me; CC-BY 4.0.\n")
        zf.writestr("puzzles/LICENSE", "Creative Commons Attribution 4.0\n")
    for _ in range(2):  # every run alike
        r = runner.invoke(app, ["ingest", "path", str(z), "--db", str(tmp_path / "c.db")])
        assert r.exit_code == 0, r.output
        assert "failed 0" in r.output and "2 not puzzle file(s), not read" in r.output
