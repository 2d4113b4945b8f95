"""Benchmark the studio as a page uses it: a running ``nonoforge studio`` driven over HTTP.

    nice .venv/bin/python bench/studio.py [--size 100000] [--work DIR] [--strokes 40]

Starts ``nonoforge studio`` (a subprocess, on a free port) on a corpus of ``--size``
seeded tournament-like puzzles (random 25x25 pictures, made once with ``bench/corpus.py``'s
generator and imported with ``nonoforge db import``; kept in ``--work`` for the next run)
and prints percentiles (wall time of each request as the page makes it, keep-alive, one at
a time) of:

* **first load**: the page, its script and style sheet, the examples and formats lists and
  the first check of a blank 20x20 grid, right after start (cold, once) and again (warm);
* **stroke to verdict**: ``/api/check`` after a stroke of 1-3 cells on a picture made by
  ``/api/picture`` from the bundled koala at 30x30 black-and-white and at 45x45 in 4
  colours: strokes of random cells in a random other colour, each kept, the picture reset
  to the generated one every :data:`RESET` strokes (so the checks see it unique, then
  ambiguous and stuck, with differing cells and suggestions to find);
* **corpus page**: ``/api/corpus`` pages of 50 puzzles with thumbnails, the first pages,
  pages deep in the corpus, filtered by size, and searched by title: ``g9-99`` (its
  matches are in the last file's puzzles), a word no title holds (every title read), and
  a word with an accent (case folded by a function call a row on SQLite).

Each line also gives the studio process's CPU time per request (from /proc, on Linux): on a
shared machine that, not the wall time, is what the studio itself costs. Targets (issue
34): stroke p95 < 150 ms at 30x30 B&W, < 400 ms at 45x45 in 4 colours; a
corpus page of 50 < 300 ms at 100,000 puzzles; first load < 1 s. Figures are wall time on
whatever machine runs it: run on a quiet one (a shared machine's load shows in the tail).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import requests

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import _generated  # noqa: E402  (the seeded corpus generator: one home)

#: Strokes after which the bench's picture is reset to the generated one.
RESET = 8


def percentiles(xs: list[float]) -> str:
    a = np.array(xs) * 1000
    return (f"n={len(a):3d}  p50 {np.percentile(a, 50):7.1f} ms  p95 {np.percentile(a, 95):7.1f}"
            f" ms  max {a.max():7.1f} ms")


def corpus_db(work: Path, size: int) -> Path:
    """A corpus of ``size`` seeded puzzles, made once in ``work``."""
    db = work / f"studio-{size}.db"
    if db.exists():
        return db
    files = _generated(work, size)
    need, picked = size, []
    for f in files:  # files of 10,000: the last may hold more than asked; fine for a bench
        picked.append(f)
        need -= 10_000
        if need <= 0:
            break
    print(f"building a corpus of {size:,} puzzles in {db} (once) ...", file=sys.stderr)
    tmp = db.with_suffix(".part")
    subprocess.run([sys.executable, "-m", "nonoforge", "-q", "db", "import", "--db", str(tmp),
                    *picked], check=True)
    tmp.rename(db)
    return db


class Studio:
    """A running ``nonoforge studio`` and a keep-alive session with its token."""

    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "nonoforge", "studio", "--db", str(db)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("nonoforge studio: "):
            raise SystemExit(f"the studio did not start: {line!r}")
        self.url = line.split()[2].rstrip("/")
        self.http = requests.Session()
        self.token = ""

    def cpu(self) -> float:
        """CPU seconds the studio's process has used so far (Linux: /proc), or nan."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)

    def get(self, path: str) -> requests.Response:
        r = self.http.get(self.url + path, timeout=120)
        r.raise_for_status()
        return r

    def post(self, path: str, **kw: Any) -> requests.Response:
        headers = {"X-Studio-Token": self.token, "Origin": self.url}
        r = self.http.post(self.url + path, headers=headers, timeout=300, **kw)
        if r.status_code != 200:
            raise SystemExit(f"{path}: {r.status_code} {r.text}")
        return r

    def first_load(self) -> float:
        t0 = time.perf_counter()
        page = self.get("/").text
        m = re.search(r'name="studio-token" content="([^"]+)"', page)
        assert m, "no token in the page"
        self.token = m.group(1)
        for path in ("/static/studio.js", "/static/studio.css", "/api/examples",
                     "/api/formats"):
            self.get(path)
        blank = {"seq": 1, "palette": [{"name": "white", "hex": "#ffffff"},
                                       {"name": "black", "hex": "#000000"}],
                 "cells": [[0] * 20 for _ in range(20)]}
        self.post("/api/check", json=blank)
        return time.perf_counter() - t0


def picture(studio: Studio, size: int, colours: int) -> dict[str, Any]:
    """The document ``/api/picture`` makes of the bundled koala at ``size``."""
    out = studio.post(f"/api/picture?example=koala&width={size}&height={size}"
                      f"&colours={colours}").json()
    doc = out["document"]
    print(f"  koala {doc['width']}x{doc['height']}, {len(doc['palette']) - 1} colour(s): "
          f"{out['summary']['status']}, {out['summary']['technique']}", file=sys.stderr)
    return dict(doc)


def strokes(studio: Studio, doc: dict[str, Any], n: int, seed: int) -> list[float]:
    """Seconds from each stroke's check request to its answer, on the picture ``doc``."""
    base = np.array(doc["cells"])
    h, w = base.shape
    ncol = len(doc["palette"])
    rng = np.random.default_rng(seed)
    times: list[float] = []
    verdicts: dict[str, int] = {}
    cells = base.copy()
    for k in range(n):
        if k % RESET == 0:
            cells = base.copy()
        y, x = int(rng.integers(h)), int(rng.integers(w))
        colour = int((cells[y, x] + rng.integers(1, ncol)) % ncol)
        for dx in range(int(rng.integers(1, 4))):  # a stroke of 1-3 cells along a row
            cells[y, min(w - 1, x + dx)] = colour
        body = {"seq": k, "palette": doc["palette"], "cells": cells.tolist()}
        t0 = time.perf_counter()
        got = studio.post("/api/check", json=body).json()
        times.append(time.perf_counter() - t0)
        verdicts[got["verdict"]] = verdicts.get(got["verdict"], 0) + 1
    print(f"  verdicts: {verdicts}", file=sys.stderr)
    return times


def pages(studio: Studio, size: int, n: int, query: str = "", deep: bool = False) -> list[float]:
    last = max(0, size // 50 - 1)
    times = []
    rng = np.random.default_rng(5)
    for k in range(n):
        page = int(rng.integers(last + 1)) if deep else k % 3
        t0 = time.perf_counter()
        items = studio.get(f"/api/corpus?page={page}&per_page=50{query}").json()["items"]
        times.append(time.perf_counter() - t0)
        assert items or query, f"page {page} is empty"
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=100_000, help="puzzles in the corpus")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "nonoforge-bench"),
                    help="where the corpus is made and kept")
    ap.add_argument("--strokes", type=int, default=40, help="strokes per picture")
    ap.add_argument("--pages", type=int, default=20, help="corpus pages per kind")
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    db = corpus_db(work, args.size)
    studio = Studio(db)
    try:
        cold = studio.first_load()
        print(f"first load, cold (just started)      {cold * 1000:7.1f} ms")
        bw, colour = picture(studio, 30, 1), picture(studio, 45, 4)
        phases: list[tuple[str, Any]] = [
            ("first load, again                   ", lambda: [studio.first_load()
                                                              for _ in range(10)]),
            ("stroke -> verdict, 30x30 B&W        ", lambda: strokes(studio, bw, args.strokes,
                                                                     1)),
            ("stroke -> verdict, 45x45 4 colours  ", lambda: strokes(studio, colour,
                                                                     args.strokes, 2)),
            ("corpus page of 50, first pages      ", lambda: pages(studio, args.size,
                                                                   args.pages)),
            ("corpus page of 50, anywhere         ", lambda: pages(studio, args.size,
                                                                   args.pages, deep=True)),
            ("corpus page of 50, size filter      ", lambda: pages(studio, args.size,
                                                                   args.pages, "&size=25x25")),
            ("corpus page, title search g9-99     ", lambda: pages(studio, args.size,
                                                                   args.pages, "&text=g9-99")),
            ("corpus page, title search, no match ", lambda: pages(studio, args.size,
                                                                   args.pages, "&text=zzzz")),
            ("corpus page, title search, accented ", lambda: pages(studio, args.size,
                                                                   args.pages, "&text=%C3%A9t")),
        ]
        for name, run in phases:
            cpu0 = studio.cpu()
            times = run()
            cpu = (studio.cpu() - cpu0) / len(times) * 1000
            print(f"{name} {percentiles(times)}   server CPU {cpu:6.1f} ms each")
    finally:
        studio.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
