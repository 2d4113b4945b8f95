"""Ingestion figures, against the test suite's local server (nothing leaves the machine).

Prints: the cost of decoding and parsing one nonograms.ru page (by size), end-to-end ingest
throughput into a fresh corpus (network, then from the response cache), and how closely
the pacing holds a requested rate.

    .venv/bin/python bench/bench_ingest.py [--pages 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's nonoforge

from sitefixtures import Reply, SiteServer, nonograms_page, random_picture  # noqa: E402

from nonoforge.db import Corpus  # noqa: E402
from nonoforge.scraper.http import Http  # noqa: E402
from nonoforge.scraper.ingest import ingest_ids  # noqa: E402
from nonoforge.scraper.nonograms import read_page  # noqa: E402


def page_cost(rng: np.random.Generator) -> None:
    print("page parse + var d decode + clues (median of 30):")
    for side, ncolors in ((15, 1), (30, 1), (50, 4), (100, 6)):
        colors = [(0, 0, 0)] if ncolors == 1 else [(40 * i, 80, 200 - 30 * i)
                                                  for i in range(ncolors)]
        html = nonograms_page(random_picture(rng, side, side, ncolors), colors).encode()
        times = []
        for _ in range(30):
            t = time.perf_counter()
            read_page(html, site="nonograms.ru", item="1")
            times.append(time.perf_counter() - t)
        print(f"  {side:>3}x{side:<3} {ncolors} colour(s), {len(html) / 1024:6.1f} KiB page: "
              f"{statistics.median(times) * 1000:7.2f} ms")


def throughput(rng: np.random.Generator, n: int) -> None:
    with SiteServer() as site, tempfile.TemporaryDirectory() as tmp:
        for i in range(1, n + 1):
            site.page(f"/nonograms/i/{i}", nonograms_page(random_picture(rng, 20, 20, 1),
                                                          [(0, 0, 0)], seed=i))
        cache = Path(tmp) / "cache"
        for label, db in (("network", "a.db"), ("cache", "b.db")):
            with Corpus.open(Path(tmp) / db) as c, Http(rate=10_000, cache_dir=cache) as http:
                if label == "network":  # pay the one-off costs (imports, JIT) outside the clock
                    ingest_ids(c, "nonograms", [1], http=http, base_url=site.url)
                t = time.perf_counter()
                cpu = time.process_time()  # the server's threads count too: same process
                s = ingest_ids(c, "nonograms", range(2, n + 1), http=http, base_url=site.url)
                dt = time.perf_counter() - t
                cpu = time.process_time() - cpu
            print(f"ingest {n - 1} 20x20 pages from {label:<7}: {dt:6.2f} s, "
                  f"{(n - 1) / dt:7.1f} pages/s, {cpu * 1000 / (n - 1):5.1f} ms CPU a page "
                  f"({s.counts}; {http.stats.requests} requests)")


def pacing(rate: float, n: int = 11) -> None:
    with SiteServer() as site:
        for i in range(n):
            site.page(f"/p{i}", "x")
        with Http(rate=rate) as http:
            for i in range(n):
                http.get(f"{site.url}/p{i}")
        at = [h.at for h in site.hits() if h.path.startswith("/p")]
    gaps = np.diff(at)
    print(f"pacing at {rate:g} req/s: gap min {gaps.min() * 1000:.1f} ms, mean "
          f"{gaps.mean() * 1000:.1f} ms, max {gaps.max() * 1000:.1f} ms "
          f"(target {1000 / rate:.1f} ms)")


def retries(n: int = 20) -> None:
    """Each page answers 503 twice, then 200: the retries made and the backoff gaps."""
    with SiteServer() as site:
        for i in range(n):
            site.add(f"/r{i}", Reply(503, "busy"), Reply(503, "busy"), Reply(200, "ok"))
        cpu = time.process_time()
        t = time.perf_counter()
        with Http(rate=10_000, backoff=0.05, max_backoff=1.0, seed=0) as http:
            for i in range(n):
                http.get(f"{site.url}/r{i}")
            stats = http.stats
        dt = time.perf_counter() - t
        cpu = time.process_time() - cpu
        gaps = np.concatenate([np.diff([h.at for h in site.hits(f"/r{i}")]) for i in range(n)])
    print(f"retries: {n} pages, {stats.requests} requests, {stats.retries} retries in {dt:.2f} s "
          f"({cpu:.2f} s CPU); backoff gaps min {gaps.min() * 1000:.1f} ms, mean "
          f"{gaps.mean() * 1000:.1f} ms, max {gaps.max() * 1000:.1f} ms (base 50/100 ms x 0.5-1)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=200)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    page_cost(rng)
    throughput(rng, args.pages)
    retries()
    pacing(5.0)
    pacing(1.0, n=4)


if __name__ == "__main__":
    main()
