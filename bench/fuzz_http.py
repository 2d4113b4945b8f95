"""Fuzz the HTTP layer: mutated raw answers from a local socket server, for a given time.

A server on 127.0.0.1 answers every request with one mutated HTTP response (status
lines, headers and bodies spliced, cut, with odd bytes, huge or non-ASCII numbers, bad
``Location`` and ``Content-Encoding`` values). Each answer is fetched with
:class:`~nonoforge.scraper.http.Http` (no robots.txt, no retries, short limits). An
*escape* is any exception other than :class:`~nonoforge.errors.NonoforgeError`; each
distinct one (type, innermost line) is printed once with the answer that caused it.

    .venv/bin/python bench/fuzz_http.py --seconds 120 --seed 0

The exit code is 1 when anything escaped. Nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import gzip
import random
import socket
import sys
import threading
import time
import traceback
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nonoforge.errors import NonoforgeError  # noqa: E402
from nonoforge.scraper.http import Http  # noqa: E402

_GZ = gzip.compress(b"hi")
ANSWERS = [
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 5\r\n\r\nhello",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    b"HTTP/1.1 302 Found\r\nLocation: /x\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(_GZ) + _GZ,
    b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n\r\n" + zlib.compress(b"hi"),
    b"HTTP/1.1 429 Too Many\r\nRetry-After: 0\r\nContent-Length: 0\r\n\r\n",
]
PIECES = [
    b"\r\n", b"\x00", b"\xff", b": ", b"Content-Length: -1\r\n",
    b"Content-Length: 99999999999999999999\r\n", b"Content-Length: 2\xb2\r\n",
    b"Location: http://[::1\r\n", b"Location: \xa9\r\n", b"Location: //elsewhere/\r\n",
    b"Location: http://169.254.169.254/\r\n", b"Content-Encoding: gzip, gzip\r\n",
    b"Content-Encoding: br\r\n", b"Transfer-Encoding: chunked\r\n",
    b"Retry-After: 99999999999999999999999\r\n", b"Retry-After: Wed, 99 Foo\r\n",
    b"HTTP/1.1 999 X\r\n", b"HTTP/2 200\r\n", b"Content-Type: text/html; charset=\xff\r\n",
    b"Content-Type: text/html; charset=idna\r\n",
]


def mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op, n = rng.randrange(5), len(b)
        if op == 0 and n:
            b[rng.randrange(n)] = rng.randrange(256)
        elif op == 1:
            i = rng.randint(0, n)
            b[i:i] = rng.choice(PIECES)
        elif op == 2 and n:
            i = rng.randrange(n)
            del b[i : i + rng.randint(1, 10)]
        elif op == 3 and n:
            del b[rng.randrange(n) :]
        elif op == 4:
            i = rng.randint(0, n)
            b[i:i] = rng.choice(ANSWERS)
    return bytes(b)


class RawServer:
    """Answers each connection with ``self.answer`` as it is, then closes it."""

    def __init__(self) -> None:
        self.answer = b""
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                try:
                    conn.settimeout(2)
                    conn.recv(65536)
                    conn.sendall(self.answer)
                except OSError:
                    pass


def run(seconds: float, seed: int) -> tuple[int, dict[tuple[str, str], str]]:
    server = RawServer()
    rng = random.Random(seed)
    escapes: dict[tuple[str, str], str] = {}
    n = 0
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        server.answer = mutate(rng, rng.choice(ANSWERS))
        n += 1
        with Http(rate=1e6, robots=False, retries=0, connect_timeout=0.5, read_timeout=0.5,
                  total_timeout=1.0, max_retry_after=1.0) as http:
            try:
                http.get(server.url + "/p")
            except NonoforgeError:
                pass
            except Exception as e:  # noqa: BLE001 - this is what we look for
                f = traceback.extract_tb(e.__traceback__)[-1]
                key = (type(e).__name__, f"{f.filename}:{f.lineno}")
                escapes.setdefault(key, f"{_one(e)} <- {server.answer[:160]!r}")
    return n, escapes


def _one(e: BaseException) -> str:
    return " ".join(str(e).split())[:160]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    n, escapes = run(args.seconds, args.seed)
    print(f"fuzz_http: {n} answers in {args.seconds:g} s (seed {args.seed}); "
          f"escapes: {len(escapes)}")
    for (kind, where), what in escapes.items():
        print(f"  {kind} at {where}: {what}")
    return 1 if escapes else 0


if __name__ == "__main__":
    sys.exit(main())
