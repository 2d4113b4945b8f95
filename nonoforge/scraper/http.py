"""The one HTTP layer every site goes through: polite, bounded and cached.

:class:`Http` wraps a :class:`requests.Session` and adds what a well-behaved archive
client needs, so that no site class has to think about it:

- a User-Agent that names nonoforge, its version and where to find it;
- connect, read and whole-response timeouts;
- pacing per host (one request a second by default; a robots.txt ``Crawl-delay`` is
  honoured when it asks for more);
- retries with exponential backoff and seeded jitter on connection errors, timeouts,
  truncated bodies and 5xx answers; ``429`` waits for its ``Retry-After`` (seconds or an
  HTTP date) unless that is longer than a cap, which makes the request fail instead;
- robots.txt, fetched once per host through the same session (and kept on disk for a
  day): a disallowed URL is never fetched, the request fails with a reason;
- a cap on the size of a response, enforced while streaming so memory stays bounded;
- redirects followed by hand (at most five), each hop paced and checked against robots;
- an on-disk cache of raw final answers (2xx, 404, 410) keyed by method, URL and body,
  so that a re-run fetches nothing it already has.

Failures raise :class:`~nonoforge.errors.FetchError` with a one-line reason; any other
status (404, 403, ...) comes back as a :class:`Response` for the caller to judge.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import os
import random
import sys
import threading
import time
import urllib.robotparser
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

import requests

from nonoforge import __version__
from nonoforge.errors import FetchError
from nonoforge.util import first_line, open_atomic

#: Where people who see our requests in their logs can read what we are.
PROJECT_URL = "https://github.com/nonoforge/nonoforge"
USER_AGENT = f"nonoforge/{__version__} (+{PROJECT_URL})"
#: The name matched against robots.txt ``User-agent`` lines.
ROBOTS_AGENT = "nonoforge"

DEFAULT_MAX_BYTES = 16 * 2**20
ROBOTS_MAX_BYTES = 512 * 2**10
ROBOTS_TTL = 24 * 3600.0
MAX_REDIRECTS = 5
#: Statuses that are final answers, worth keeping in the cache.
CACHEABLE = frozenset({200, 203, 204, 404, 410})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def default_cache_dir() -> Path:
    """The per-user cache directory for raw responses (``$XDG_CACHE_HOME/nonoforge/http``)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "nonoforge" / "http"


@dataclass(frozen=True)
class Response:
    """A final answer: status, headers (lower-case names) and the raw body."""

    url: str
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    from_cache: bool = False

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def charset(self) -> str | None:
        """The charset the ``Content-Type`` header names, if any."""
        for part in self.headers.get("content-type", "").split(";")[1:]:
            k, _, v = part.strip().partition("=")
            if k.lower() == "charset" and v.strip("\"' "):
                return v.strip("\"' ")
        return None

    @property
    def text(self) -> str:
        """The body as text: the charset the server named, else UTF-8 (bad bytes replaced)."""
        try:
            return self.body.decode(self.charset or "utf-8", errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")


@dataclass
class HttpStats:
    """What the client did: network requests, cache hits, retries, bytes read."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    bytes: int = 0
    disallowed: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


class _Retry(Exception):
    """One attempt failed in a way worth another try (internal)."""

    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if not value:
        return None
    v = value.strip()
    if v.isdigit():
        return float(min(int(v[:12]), 10**9))
    try:
        when = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


class Http:
    """A polite HTTP client: pacing, retries, robots.txt, size cap and a response cache.

    One instance is meant to serve a whole ingest run (it keeps the per-host pacing and
    the robots.txt rules). ``sleep`` and ``clock`` exist so that callers can measure;
    tests use the real ones against a local server.
    """

    def __init__(
        self,
        *,
        rate: float = 1.0,
        connect_timeout: float = 10.0,
        read_timeout: float = 30.0,
        total_timeout: float = 120.0,
        retries: int = 4,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        max_retry_after: float = 300.0,
        max_bytes: int = DEFAULT_MAX_BYTES,
        cache_dir: str | os.PathLike[str] | None = None,
        robots: bool = True,
        seed: int = 0,
        user_agent: str = USER_AGENT,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not rate > 0:
            raise ValueError("rate must be positive (requests per second)")
        self.rate = float(rate)
        self.timeout = (float(connect_timeout), float(read_timeout))
        self.total_timeout = float(total_timeout)
        self.retries = max(0, int(retries))
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_retry_after = float(max_retry_after)
        self.max_bytes = int(max_bytes)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.use_robots = robots
        self.user_agent = user_agent
        self.stats = HttpStats()
        self._rng = random.Random(seed)
        self._sleep = sleep
        self._clock = clock
        self._lock = threading.Lock()
        self._next_at: dict[str, float] = {}
        self._delay: dict[str, float] = {}
        self._robots: dict[str, urllib.robotparser.RobotFileParser | str] = {}
        self.session = requests.Session()
        self.session.headers["User-Agent"] = user_agent
        self.session.headers["Accept-Encoding"] = "gzip, deflate"
        adapter = requests.adapters.HTTPAdapter(max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        #: ``(host, clock())`` of the latest network requests: for measuring the pacing.
        self.sent: deque[tuple[str, float]] = deque(maxlen=10_000)

    # -- public ---------------------------------------------------------------------------

    def get(self, url: str, params: Mapping[str, Any] | None = None) -> Response:
        """GET ``url`` (with ``params`` encoded into the query)."""
        if params:
            url = url + ("&" if "?" in url else "?") + urlencode(params)
        return self.request("GET", url)

    def post(self, url: str, data: Mapping[str, Any]) -> Response:
        """POST a form to ``url``."""
        return self.request("POST", url, data)

    def request(
        self, method: str, url: str, data: Mapping[str, Any] | None = None
    ) -> Response:
        """The final answer to a request: from the cache, else from the network.

        Raises FetchError when no usable answer could be had (after the retries).
        """
        method = method.upper()
        body = urlencode(sorted(data.items())) if data else ""
        key = self._cache_key(method, url, body)
        cached = self._cache_read(key)
        if cached is not None:
            self.stats.cache_hits += 1
            return cached
        resp = self._follow(method, url, body)
        if resp.status in CACHEABLE:
            self._cache_write(key, resp)
        return resp

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> Http:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- redirects, robots, pacing --------------------------------------------------------

    def _follow(self, method: str, url: str, body: str) -> Response:
        for _hop in range(MAX_REDIRECTS + 1):
            self._check_robots(url)
            resp, location = self._with_retries(method, url, body, self.max_bytes)
            if location is None:
                return resp
            url = urljoin(url, location)
            if resp.status == 303 or (resp.status in (301, 302) and method == "POST"):
                method, body = "GET", ""
        raise FetchError(f"more than {MAX_REDIRECTS} redirects: {url}")

    def allowed(self, url: str) -> bool:
        """Whether robots.txt lets us fetch ``url`` (fetching robots.txt when needed)."""
        if not self.use_robots:
            return True
        parts = urlsplit(url)
        if parts.path == "/robots.txt":
            return True
        rules = self._rules(f"{parts.scheme}://{parts.netloc}")
        if isinstance(rules, str):
            return False
        return rules.can_fetch(ROBOTS_AGENT, url)

    def _check_robots(self, url: str) -> None:
        if self.allowed(url):
            return
        self.stats.disallowed += 1
        parts = urlsplit(url)
        rules = self._robots.get(f"{parts.scheme}://{parts.netloc}")
        why = rules if isinstance(rules, str) else "disallowed by robots.txt"
        raise FetchError(f"{why}: {url}")

    def _rules(self, origin: str) -> urllib.robotparser.RobotFileParser | str:
        """The parsed robots.txt of ``origin``, or a reason why everything is disallowed."""
        with self._lock:
            if origin in self._robots:
                return self._robots[origin]
        url = origin + "/robots.txt"
        key = self._cache_key("ROBOTS", url, "")
        resp = self._cache_read(key, max_age=ROBOTS_TTL)
        if resp is None:
            try:
                resp = self._robots_fetch(url)
            except FetchError as e:
                # RFC 9309: an unreachable robots.txt means "assume complete disallow".
                rules: urllib.robotparser.RobotFileParser | str = (
                    f"robots.txt unreachable ({e})"
                )
                self._robots[origin] = rules
                return rules
            if resp.status < 500:
                self._cache_write(key, resp)
        rp = urllib.robotparser.RobotFileParser(url)
        if resp.status in (401, 403):
            rules = "robots.txt is forbidden (everything disallowed)"
        elif resp.status >= 500:
            rules = f"robots.txt answered HTTP {resp.status}"
        else:
            if resp.ok:
                rp.parse(resp.text.splitlines())
            else:
                rp.allow_all = True
            rules = rp
            delay = rp.crawl_delay(ROBOTS_AGENT)
            rr = rp.request_rate(ROBOTS_AGENT)
            extra = float(delay) if delay else 0.0
            if rr and rr.requests:
                extra = max(extra, rr.seconds / rr.requests)
            if extra > 0:
                self._delay[urlsplit(origin).netloc] = min(extra, 120.0)
        with self._lock:
            self._robots[origin] = rules
        return rules

    def _robots_fetch(self, url: str) -> Response:
        """robots.txt itself, following redirects (http to https is common)."""
        for _hop in range(MAX_REDIRECTS + 1):
            resp, location = self._with_retries("GET", url, "", ROBOTS_MAX_BYTES)
            if location is None:
                return resp
            url = urljoin(url, location)
        raise FetchError(f"more than {MAX_REDIRECTS} redirects: {url}")

    def _interval(self, host: str) -> float:
        return max(1.0 / self.rate, self._delay.get(host, 0.0))

    def _pace(self, host: str) -> None:
        """Wait until ``host`` may get another request, then book the next slot."""
        with self._lock:
            now = self._clock()
            at = max(now, self._next_at.get(host, now))
            self._next_at[host] = at + self._interval(host)
        if at > now:
            self._sleep(at - now)
        with self._lock:  # a late wake-up must not shorten the gap to the next request
            sent = self._clock()
            self._next_at[host] = max(self._next_at[host], sent + self._interval(host))
            self.sent.append((host, sent))

    # -- one request, retried -------------------------------------------------------------

    def _backoff(self, attempt: int) -> float:
        base = min(self.max_backoff, self.backoff * 2**attempt)
        return base * (0.5 + self._rng.random() / 2)

    def _with_retries(
        self, method: str, url: str, body: str, cap: int
    ) -> tuple[Response, str | None]:
        """One request with retries: the response and the redirect target, if any."""
        last = "no attempt"
        for attempt in range(self.retries + 1):
            if attempt:
                self.stats.retries += 1
            try:
                return self._attempt(method, url, body, cap)
            except _Retry as r:
                last = r.reason
                if attempt == self.retries:
                    break
                wait = self._backoff(attempt)
                if r.wait:  # the server said how long: do as it asks, within the cap
                    if r.wait > self.max_retry_after:
                        raise FetchError(
                            f"{r.reason}; server asks to wait {r.wait:.0f} s, more than "
                            f"the cap of {self.max_retry_after:.0f} s: {url}"
                        ) from None
                    wait = r.wait
                self._sleep(wait)
        tries = self.retries + 1
        raise FetchError(f"{last} (after {tries} attempt{'s' if tries > 1 else ''}): {url}")

    def _attempt(
        self, method: str, url: str, body: str, cap: int
    ) -> tuple[Response, str | None]:
        host = urlsplit(url).netloc
        self._pace(host)
        self.stats.requests += 1
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if body else None
        try:
            r = self.session.request(
                method,
                url,
                data=body.encode() if body else None,
                headers=headers,
                timeout=self.timeout,
                stream=True,
                allow_redirects=False,
            )
        except requests.exceptions.Timeout as e:
            raise _Retry(f"timed out ({type(e).__name__})") from None
        except requests.exceptions.ConnectionError as e:
            raise _Retry(f"connection failed ({_short(e)})") from None
        except requests.exceptions.RequestException as e:
            raise FetchError(f"bad request ({_short(e)}): {url}") from None
        with r:
            status = r.status_code
            hdrs = {k.lower(): v for k, v in r.headers.items()}
            if status == 429:
                wait = parse_retry_after(hdrs.get("retry-after"))
                raise _Retry("HTTP 429 too many requests", 0.0 if wait is None else wait)
            if status >= 500:
                wait = parse_retry_after(hdrs.get("retry-after")) if status == 503 else None
                raise _Retry(f"HTTP {status}", wait)
            if status in _REDIRECTS and hdrs.get("location"):
                return Response(url, status, b"", hdrs), hdrs["location"]
            data = self._read_body(r, hdrs, cap, url)
        return Response(url, status, data, hdrs), None

    def _read_body(
        self, r: requests.Response, hdrs: Mapping[str, str], cap: int, url: str
    ) -> bytes:
        """The body, streamed: too large fails at once, truncated or too slow is retried."""
        declared = hdrs.get("content-length", "").strip()
        length = int(declared) if declared.isdigit() and len(declared) < 19 else None
        if length is not None and length > cap:
            raise FetchError(f"response of {length} bytes exceeds the cap of {cap} bytes: {url}")
        start = self._clock()
        chunks: list[bytes] = []
        total = 0
        try:
            for chunk in r.iter_content(64 * 1024):
                total += len(chunk)
                self.stats.bytes += len(chunk)
                if total > cap:
                    raise FetchError(
                        f"response exceeds the cap of {cap} bytes (stopped reading): {url}"
                    )
                if self._clock() - start > self.total_timeout:
                    raise _Retry(f"response took longer than {self.total_timeout:g} s")
                chunks.append(chunk)
        except requests.exceptions.ChunkedEncodingError:
            raise _Retry("truncated body (connection closed early)") from None
        except requests.exceptions.ConnectionError as e:
            raise _Retry(f"connection broke while reading ({_short(e)})") from None
        except requests.exceptions.Timeout:
            raise _Retry("timed out while reading the body") from None
        data = b"".join(chunks)
        encoded = hdrs.get("content-encoding", "identity").lower() not in ("", "identity")
        if length is not None and not encoded and len(data) != length:
            raise _Retry(f"truncated body ({len(data)} of {length} bytes)")
        return data

    # -- cache ----------------------------------------------------------------------------

    @staticmethod
    def _cache_key(method: str, url: str, body: str) -> str:
        return hashlib.sha256(f"{method}\n{url}\n{body}".encode()).hexdigest()

    def _cache_path(self, key: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / key[:2] / f"{key}.resp"

    def _cache_read(self, key: str, max_age: float | None = None) -> Response | None:
        path = self._cache_path(key)
        if path is None or not path.is_file():
            return None
        try:
            with path.open("rb") as f:
                head = json.loads(f.readline(64 * 1024))
                data = f.read(self.max_bytes + 1)
            if max_age is not None and time.time() - float(head["time"]) > max_age:
                return None
            if len(data) != int(head["size"]):
                return None
            return Response(
                str(head["url"]), int(head["status"]), data, dict(head["headers"]), True
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None  # a damaged entry is simply fetched again

    def _cache_write(self, key: str, resp: Response) -> None:
        path = self._cache_path(key)
        if path is None:
            return
        keep = {k: v for k, v in resp.headers.items() if k in ("content-type", "last-modified")}
        head = {
            "url": resp.url,
            "status": resp.status,
            "headers": keep,
            "size": len(resp.body),
            "time": time.time(),
        }
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open_atomic(path) as f:
                f.write(json.dumps(head).encode() + b"\n")
                f.write(resp.body)
        except OSError:
            pass  # the cache is an optimisation: a read-only disk must not stop an ingest


def _short(e: BaseException) -> str:
    """The first line of an exception's message, shortened."""
    s = first_line(e)
    return s if len(s) <= 160 else s[:157] + "..."
