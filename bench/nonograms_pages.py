"""Ingest a folder of saved nonograms.org/.ru pages through a local HTTP server.

Each ``*.html`` file of the folder (sorted by name) becomes puzzle id 1, 2, ... of a
local site on 127.0.0.1: a page whose ``<title>`` says it is a colour puzzle ("Color",
"Цветной") is served at ``/nonograms2/i/ID`` only (the black-and-white path answers
404, as on the sites), every other page at ``/nonograms/i/ID``. The pages go through the
real pipeline (HTTP client, page parser, decoder, corpus) into a fresh SQLite corpus, and
the fields parsed from each page are printed, with the outcome, the CPU time and the
provenance ``extra`` the corpus keeps.

    python bench/nonograms_pages.py [FOLDER]    # default: tests/data/nonograms

Nothing leaves the machine. Pages of the real sites are theirs: keep your saved copies
out of the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.db import Corpus  # noqa: E402
from nonoforge.scraper.http import Http  # noqa: E402
from nonoforge.scraper.ingest import ingest_site  # noqa: E402
from nonoforge.scraper.nonograms import Nonograms  # noqa: E402

_COLOUR = re.compile(rb"<title>[^<]*(colou?r|\xd0\xa6\xd0\xb2\xd0\xb5\xd1\x82\xd0\xbd)", re.I)


def routes_for(folder: Path) -> tuple[dict[str, bytes], list[Path]]:
    """URL path -> page bytes, and the pages in id order."""
    pages = sorted(folder.glob("*.html"))
    routes: dict[str, bytes] = {}
    for i, page in enumerate(pages, start=1):
        data = page.read_bytes()
        kind = "nonograms2" if _COLOUR.search(data[:4096]) else "nonograms"
        routes[f"/{kind}/i/{i}"] = data
    return routes, pages


def serve(routes: dict[str, bytes]) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            body = routes.get(self.path)
            status = 200 if body is not None else 404
            body = body if body is not None else b"not found"
            self.send_response(status)
            self.send_header("Content-Type", "text/html" if status == 200 else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    return httpd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", nargs="?", default=str(ROOT / "tests" / "data" / "nonograms"))
    args = ap.parse_args()
    routes, pages = routes_for(Path(args.folder))
    if not pages:
        print(f"no *.html pages in {args.folder}")
        return 2
    httpd = serve(routes)
    base = f"http://127.0.0.1:{httpd.server_port}"  # the address serve binds
    outcomes: list[tuple[str, str | None]] = []
    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, Corpus.open(Path(tmp) / "pages.db") as corpus:
        with Http(rate=1000, cache_dir=None, retries=0) as http:
            site = Nonograms(http, base, name="nonograms.org")
            summary = ingest_site(
                corpus, site, range(1, len(pages) + 1),
                on_item=lambda f, outcome: outcomes.append((outcome, f.reason)),
            )
        cpu = time.process_time() - cpu0
        wall = time.perf_counter() - wall0
        for i, (page, (outcome, reason)) in enumerate(zip(pages, outcomes, strict=True), 1):
            print(f"[{i}] {page.name}: {outcome}" + (f" ({reason})" if reason else ""))
            key = next((r["puzzle_key"] for r in corpus.fetch_log(site.name)
                        if r["item"] == str(i)), None)
            if not key:
                continue
            p = corpus.get(key)
            prov = [r for r in corpus.provenance(key) if r["source_id"] == str(i)] or \
                corpus.provenance(key)
            print(f"    title {p.meta.title!r}, {p.width}x{p.height}, {p.ncolors} colour(s), "
                  f"goal kept: {p.goal is not None}")
            print("    extra " + json.dumps(prov[0]["extra"], ensure_ascii=False))
    httpd.shutdown()
    httpd.server_close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{summary.line()}")
    print(f"CPU {cpu:.2f} s, wall {wall:.2f} s for {len(pages)} page(s) "
          f"(shared 2-core machine), peak RSS {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
