"""What the corpus tests (``tests/test_db_*.py``) share: seeded random puzzles, a new
corpus on each backend (SQLite in tmp_path, and PostgreSQL through the ``pg_server``
fixture in ``conftest.py``), files to import, the ``db`` commands' JSON.

A test file imports what it uses; the fixtures it imports (``corpus``, ``url``, ``mixed``)
it also names in ``__all__``, which tells ruff they are used (by name, as test arguments).
``pg_server`` lives in ``conftest.py`` so that one server serves the whole run: a
session fixture imported into several modules would start one server per module.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import Corpus
from nonoforge.formats import dumps
from nonoforge.puzzle import Meta, Puzzle

ROOT = Path(__file__).resolve().parents[1]


def puzzles(
    n: int,
    seed: int,
    size: tuple[int, int] = (6, 5),
    ncolors: int = 1,
    source: str | None = "gen",
    goal: bool = True,
) -> list[Puzzle]:
    """``n`` random puzzles (distinct keys) with source ids ``0..n-1``."""
    rng = np.random.default_rng(seed)
    w, h = size
    out: list[Puzzle] = []
    keys: set[str] = set()
    while len(out) < n:
        cells = rng.integers(0, ncolors + 1, size=(h, w)) * (rng.random((h, w)) < 0.6)
        cells[0, 0] = 1  # at least colour 1, so the palette is never empty
        if ncolors > 1:
            cells[0, 1] = ncolors
        meta = Meta(title=f"p{len(out)}", source=source,
                    source_id=None if source is None else str(len(out)))
        p = Puzzle.from_grid(cells, meta=meta)
        if not goal:
            p = p.replace(goal=None)
        if p.key not in keys:
            keys.add(p.key)
            out.append(p)
    return out


def count(c: Corpus, table: str) -> int:
    with c.engine.connect() as conn:
        return int(conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one())


def _pg_url(server: dict[str, str]) -> str:
    """The test database, emptied: one database for the session, its schema made anew
    for each test (cheaper than a database each)."""
    url = f"postgresql+psycopg://postgres@/postgres?host={server['host']}&port={server['port']}"
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty corpus location on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "corpus.db")
    return _pg_url(request.getfixturevalue("pg_server"))


@pytest.fixture
def corpus(url: str) -> Iterator[Corpus]:
    with Corpus.open(url) as c:
        yield c


@pytest.fixture
def mixed(corpus: Corpus) -> tuple[Corpus, dict[str, list[Puzzle]]]:
    groups = {
        "small": puzzles(5, 10, size=(5, 5), source="a"),
        "wide": puzzles(4, 11, size=(12, 6), source="b"),
        "colour": puzzles(3, 12, size=(8, 8), ncolors=2, source="a"),
        "big": puzzles(2, 13, size=(20, 25), source="c"),
    }
    for ps in groups.values():
        corpus.add(ps)
    corpus.save_results(
        [{"key": p.key, "status": "unique", "technique": "line", "grade": 1}
         for p in groups["small"]]
        + [{"key": p.key, "status": "multiple", "technique": "probe", "grade": 4}
           for p in groups["big"]],
        "s1",
    )
    corpus.save_results([{"key": groups["wide"][0].key, "status": "unique", "grade": 2}], "s2")
    return corpus, groups


def _write_json_files(folder: Path, groups: list[list[Puzzle]]) -> list[str]:
    paths = []
    for i, ps in enumerate(groups):
        f = folder / f"set{i:03d}.json"
        data = dumps(ps, "json")
        f.write_text(data if isinstance(data, str) else data.decode())
        paths.append(str(f))
    return paths


CLI = [sys.executable, "-c", "from nonoforge.cli import main; main()"]
#: Subprocesses use the ROFL codec's plain-Python kernels (``NONOFORGE_ROFL_JIT=0``, the
#: codec's documented switch): each would otherwise import numba and load or compile its
#: kernels before its 65th record, which these tests do not need. They import this checkout.
ENV = {
    **os.environ,
    "NONOFORGE_ROFL_JIT": "0",
    "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
}


#: Puzzles with givens (issue 17: cells printed solved, kept beside the ROFL record).
GIVENS = ROOT / "tests" / "data" / "givens.nonpack"
#: The bundled examples: mikix/nonogram-db files, most with a ``catalogue "webpbn.com #N"``.
EXAMPLES = ROOT / "nonoforge" / "examples" / "puzzles"


def _cli_json(runner: CliRunner, *args: str) -> object:
    import json

    r = runner.invoke(app, ["-q", *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _overwrite_middle_pages(path: Path, seed: int) -> None:
    """Garbage over a run of pages in the middle of a SQLite file (its header and schema,
    at the start, stay whole: opening it and reading its schema still work)."""
    with sqlite3.connect(path) as conn:
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    rng = np.random.default_rng(seed)
    with open(path, "r+b") as f:
        for n in range(pages * 2 // 5, pages * 3 // 5):
            f.seek(n * page)
            f.write(rng.integers(0, 256, page, dtype=np.uint8).tobytes())
