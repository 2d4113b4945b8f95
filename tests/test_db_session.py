"""The corpus's session (nonoforge/db/session.py): a closed corpus refuses work, writers in
other processes wait their turn, and a damaged file is refused before the first write."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from dbfixtures import CLI, ENV, _overwrite_middle_pages, _write_json_files, count, puzzles
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import Corpus
from nonoforge.errors import CorpusError

ROOT = Path(__file__).resolve().parents[1]


def test_a_closed_corpus_refuses_work(tmp_path: Path) -> None:
    c = Corpus.open(tmp_path / "c.db")
    c.close()
    with pytest.raises(CorpusError, match="closed"):
        c.add(puzzles(1, 27))


@pytest.mark.slow  # subprocesses killed and re-run
def test_concurrent_writers_wait_for_each_other(tmp_path: Path) -> None:
    ps = puzzles(600, 23, size=(5, 5))
    paths = _write_json_files(tmp_path, [ps[:400], ps[200:]])
    db = tmp_path / "c.db"
    Corpus.open(db).close()
    procs = [
        subprocess.Popen([*CLI, "-q", "db", "import", "--db", str(db), p], cwd=ROOT, env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for p in paths
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    with Corpus.open(db) as c:
        assert len(c) == 600
        assert count(c, "provenance") == 600  # the same (source, id) from both files: once


def test_a_corpus_with_pages_overwritten_is_refused_before_a_write(tmp_path: Path) -> None:
    db = tmp_path / "damaged.db"
    with Corpus.open(db) as c:
        c.add(puzzles(3000, 41, size=(10, 10)))
    assert not (tmp_path / "damaged.db-wal").exists()  # all in the file: checkpointed
    _overwrite_middle_pages(db, 42)
    before = db.read_bytes()
    ps = puzzles(5, 43, size=(7, 7), source=None)
    files = _write_json_files(tmp_path, [ps])
    runner = CliRunner()
    for args in (["db", "import", *files], ["db", "init"], ["ingest", "path", files[0]],
                 ["collection", "build", "c"]):
        r = runner.invoke(app, [*args, "--db", str(db)])
        assert r.exit_code == 4, (args, r.output)
        lines = [x for x in r.output.splitlines() if x.strip()]
        assert len(lines) == 1 and "damaged" in lines[0] and str(db) in lines[0], r.output
    assert db.read_bytes() == before  # nothing was written
    with Corpus.open(db) as c, pytest.raises(CorpusError, match="damaged"):
        c.add(ps)
