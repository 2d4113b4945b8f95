"""The one HTTP layer every site goes through: polite, bounded and cached.

:class:`Http` wraps a :class:`requests.Session` and adds what a well-behaved archive
client needs, so that no site class has to think about it:

- a User-Agent that names nonoforge, its version and where to find it;
- connect and read timeouts, and one wall-clock deadline per attempt that covers
  connect, headers and the whole body (a watchdog cuts the connection when it passes, so
  a server that trickles one byte a second cannot hold a fetch);
- pacing per host (one request a second by default; a robots.txt ``Crawl-delay`` is
  honoured when it asks for more);
- retries with exponential backoff and seeded jitter on connection errors, timeouts,
  truncated bodies and 5xx answers; ``429`` waits for its ``Retry-After`` (seconds or an
  HTTP date) unless that is longer than a cap, which makes the request fail instead;
- robots.txt, fetched once per host through the same session (and kept on disk for a
  day): a disallowed URL is never fetched, the request fails with a reason;
- a cap on the size of a response, enforced while streaming so memory stays bounded;
- redirects followed by hand (at most five), each hop paced and checked against robots,
  and only within the site: the scheme, host and port of the first URL, or a host the site
  class lists (:meth:`Http.allow_redirects_to`); never to a loopback, link-local or private
  address unless the first URL is one itself. A refused redirect fails with its reason;
- charsets the server names are used only when they are real text encodings for the web
  (``undefined``, ``idna``, ``utf-7``, unknown names: UTF-8 with replacement instead);
- content encodings: one of gzip/deflate/identity; a repeated, unknown or corrupt coding
  is a failed attempt (retried, then recorded), never an internal error;
- an on-disk cache of raw final answers (2xx, 404, 410) keyed by method, URL and body,
  so that a re-run fetches nothing it already has.

Failures raise :class:`~nonoforge.errors.FetchError` with a one-line reason; any other
status (404, 403, ...) comes back as a :class:`Response` for the caller to judge. When
the host gave no answer at all (its name does not resolve, the connection is refused or
times out), :attr:`Http.unreachable` says so plainly until an answer arrives again, so that
a caller with many requests to make can stop instead of failing each one the same way.
"""

from __future__ import annotations

import contextlib
import email.utils
import errno
import hashlib
import ipaddress
import json
import os
import random
import socket
import sys
import threading
import time
import urllib.robotparser
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

import requests
import urllib3.connection
import urllib3.connectionpool
import urllib3.exceptions

from nonoforge import __version__
from nonoforge.errors import FetchError
from nonoforge.formats.base import text_codec
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
#: Content codings we decode; anything else, or more than one, is refused.
ENCODINGS = frozenset({"gzip", "x-gzip", "deflate"})
#: Codec names Python knows that are no charset a web page may use (``utf-7`` smuggles
#: markup past filters; the others are not byte-to-text encodings of documents at all).
def decode_text(body: bytes, charset: str | None) -> str:
    """``body`` as text in ``charset`` when usable, else UTF-8; bad bytes replaced. A UTF-8
    byte-order mark is dropped (else a robots.txt's first ``User-agent`` goes unseen)."""
    codec = text_codec(charset) or "utf-8"
    if codec == "utf-8":
        codec = "utf-8-sig"
    try:
        return body.decode(codec, errors="replace")
    except (LookupError, UnicodeError, ValueError, TypeError):
        return body.decode("utf-8", errors="replace")


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
        """The body as text: the charset the server named if usable, else UTF-8 (bad bytes
        replaced)."""
        return decode_text(self.body, self.charset)


@dataclass
class HttpStats:
    """What the client did: network requests, cache hits, retries, bytes read."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    bytes: int = 0
    disallowed: int = 0
    refused_redirects: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


class Cause(Enum):
    """Why a host gave no answer at all: the connection itself could not be made."""

    NO_NAME = "its name does not resolve (no network, or a wrong address)"
    REFUSED = "the connection was refused (nothing is listening there)"
    TIMEOUT = "no answer to the connection"
    NO_ROUTE = "no route to it (the network is down, or blocks it)"
    OTHER = "the connection could not be made"


#: connect errors that mean the network itself, not the host, is in the way
_NO_ROUTE = frozenset({errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN})


@dataclass(frozen=True)
class Unreachable:
    """A host that could not be reached: where, why (:class:`Cause`) and the system's own
    words for it (kept for the curious, left out of :meth:`line`)."""

    host: str
    cause: Cause
    detail: str = ""
    #: the connect timeout, for :attr:`Cause.TIMEOUT`
    seconds: float | None = None

    def line(self) -> str:
        """``cannot reach HOST: WHY``, in plain words."""
        why = self.cause.value
        if self.cause is Cause.TIMEOUT and self.seconds is not None:
            why += f" within {self.seconds:g} s (connect timeout)"
        elif self.cause is Cause.OTHER and self.detail:
            why += f" ({self.detail})"
        return f"cannot reach {self.host}: {why}"


def _chain(e: BaseException) -> Iterator[BaseException]:
    """``e`` and the exceptions it wraps: causes, contexts, and what requests and urllib3
    carry in ``args`` and ``reason`` (a bounded walk; each once)."""
    todo, seen = [e], set[int]()
    while todo and len(seen) < 32:
        x = todo.pop(0)
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        inner = [*x.args, getattr(x, "reason", None), x.__cause__, x.__context__]
        todo.extend(i for i in inner if isinstance(i, BaseException))


def connect_failure(e: BaseException, host: str, connect_timeout: float | None = None
                    ) -> Unreachable | None:
    """How ``e`` (raised by requests) says that ``host`` could not be reached at all, or
    None when the host was reached (a reset, a broken or slow answer: not this). When a
    proxy stood in the way, the host is named as reached through it."""
    if isinstance(e, requests.exceptions.ProxyError):
        host = f"{host} (through the proxy the environment names)"
    chain = list(_chain(e))
    for x in chain:
        if isinstance(x, socket.gaierror | urllib3.exceptions.NameResolutionError):
            return Unreachable(host, Cause.NO_NAME, _short(x))
    for x in chain:
        if isinstance(x, ConnectionRefusedError):
            return Unreachable(host, Cause.REFUSED, _short(x))
        if isinstance(x, OSError) and x.errno in _NO_ROUTE:
            return Unreachable(host, Cause.NO_ROUTE, _short(x))
    if isinstance(e, requests.exceptions.ConnectTimeout):
        return Unreachable(host, Cause.TIMEOUT, _short(e), connect_timeout)
    for x in chain:
        if isinstance(x, urllib3.exceptions.NewConnectionError):
            why = x.__cause__ or x.__context__ or x
            return Unreachable(host, Cause.OTHER, _short(why))
    return None


class _Retry(Exception):
    """One attempt failed in a way worth another try (internal)."""

    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait


class _Deadline:
    """The wall-clock limit of one attempt, enforced by a timer that cuts the connection.

    Socket timeouts bound each read, not their sum: a server that sends one byte a second
    stays inside any read timeout forever. When the deadline passes, the timer shuts the
    attempt's socket down (the blocked read then returns at once) and marks the attempt
    expired, so the caller reports the deadline, not the broken connection it caused.
    The connection is attached by :class:`_WatchedConnection` as the request goes out.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._conn: Any = None
        self._sock: Any = None
        self._done = False
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> _Deadline:
        _current.deadline = self
        self._arm(self.seconds)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._done = True
            if self._timer is not None:
                self._timer.cancel()
        _current.deadline = None

    def _arm(self, delay: float) -> None:
        if not delay < 1e7:  # no limit worth a timer
            return
        t = threading.Timer(delay, self._expire)
        t.daemon = True
        with self._lock:
            if self._done:
                return
            self._timer = t
        t.start()

    def attach(self, conn: Any) -> None:
        with self._lock:
            self._conn = conn
            late = self.expired and not self._done
        if late:
            _cut(getattr(conn, "sock", None))

    def hold(self, sock: Any) -> None:
        """Keep the socket itself: http.client lets go of it once a response will close."""
        with self._lock:
            self._sock = sock
            late = self.expired and not self._done
        if late:
            _cut(sock)

    def _expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
            conn, sock = self._conn, self._sock
        if not (_cut(getattr(conn, "sock", None)) or _cut(sock)):
            self._arm(0.05)  # still connecting (bounded by the connect timeout): look again


def _cut(sock: Any) -> bool:
    """Shut a socket down under a blocked reader; False when there is none yet."""
    if sock is None:
        return False
    # the plain socket's shutdown, also for TLS: the blocked reader then sees end of stream
    with contextlib.suppress(OSError, TypeError, ValueError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    return True


_current = threading.local()


class _Watched:
    """Mixed into urllib3's connections: gives the connection, then its socket, to the
    running attempt's deadline (a thread-local), whether the connection is new or reused."""

    sock: Any

    def request(self, *args: Any, **kwargs: Any) -> None:
        deadline = getattr(_current, "deadline", None)
        if deadline is not None:
            deadline.attach(self)
        super().request(*args, **kwargs)  # type: ignore[misc]

    def getresponse(self, *args: Any, **kwargs: Any) -> Any:
        deadline = getattr(_current, "deadline", None)
        if deadline is not None:
            deadline.hold(self.sock)
        return super().getresponse(*args, **kwargs)  # type: ignore[misc]


class _WatchedConnection(_Watched, urllib3.connection.HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, urllib3.connection.HTTPSConnection):
    pass


class _WatchedPool(urllib3.connectionpool.HTTPConnectionPool):
    ConnectionCls = _WatchedConnection


class _WatchedHTTPSPool(urllib3.connectionpool.HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


class _Adapter(requests.adapters.HTTPAdapter):
    """The transport adapter whose pools make watched connections."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _WatchedPool, "https": _WatchedHTTPSPool}

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        manager.pool_classes_by_scheme = {"http": _WatchedPool, "https": _WatchedHTTPSPool}
        return manager


def _address_refusal(host: str, port: int) -> str | None:
    """Why ``host`` is an address a redirect must not lead to (loopback, link-local,
    private, reserved), or None. Names are resolved; a name that does not resolve is left
    to fail at connect."""
    try:
        ips = [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError, ValueError):
            return None
        ips = []
        for info in infos:
            try:
                ips.append(ipaddress.ip_address(str(info[4][0]).split("%")[0]))
            except ValueError:
                continue
    for ip in ips:
        mapped = getattr(ip, "ipv4_mapped", None)
        real = mapped or ip
        if not real.is_global or real.is_multicast:
            return f"private address {real}"
    return None


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host (lower case) and port (default filled in) of ``url``."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port is None:
        port = {"http": 80, "https": 443}.get(scheme)
    return scheme, (parts.hostname or "").lower(), port


class _Start:
    """Where a fetch began: its origin, and whether its address is public, looked up once
    (on its first redirect) for every hop of that fetch, not again at each hop."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.scheme, self.host, self.port = _origin(url)
        self._public: bool | None = None

    @property
    def public(self) -> bool:
        """Whether the start is a public address (a redirect from it may not lead inside)."""
        if self._public is None:
            self._public = _address_refusal(self.host, self.port or 80) is None
        return self._public


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
        self._site_hosts: set[str] = set()
        #: ``(from, to, reason)`` of every redirect refused, latest last.
        self.refused: deque[tuple[str, str, str]] = deque(maxlen=1000)
        #: Why a host's robots.txt was set aside for this run (unparseable), by origin.
        self.robots_notes: dict[str, str] = {}
        self.session = requests.Session()
        self.session.headers["User-Agent"] = user_agent
        self.session.headers["Accept-Encoding"] = "gzip, deflate"
        adapter = _Adapter(max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        #: ``(host, clock())`` of the latest network requests: for measuring the pacing.
        self.sent: deque[tuple[str, float]] = deque(maxlen=10_000)
        #: Set when the latest network attempt could not reach its host at all (no answer
        #: of any kind); cleared by the next answer. A run of many requests stops on it.
        self.unreachable: Unreachable | None = None

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

    def allow_redirects_to(self, *hosts: str) -> None:
        """Let redirects lead to these hosts too (``host`` on the default port of http or
        https, or ``host:port``): a site class lists its other names here. The address
        rule still applies: no private address unless the first URL is one."""
        self._site_hosts.update(h.strip().lower() for h in hosts if h.strip())

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> Http:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- redirects, robots, pacing --------------------------------------------------------

    def _follow(self, method: str, url: str, body: str) -> Response:
        base = _Start(url)
        for _hop in range(MAX_REDIRECTS + 1):
            self._check_robots(url)
            resp, location = self._with_retries(method, url, body, self.max_bytes)
            if location is None:
                return resp
            url = self._redirect(base, url, location)
            if resp.status == 303 or (resp.status in (301, 302) and method == "POST"):
                method, body = "GET", ""
        raise FetchError(f"more than {MAX_REDIRECTS} redirects: {url}")

    def _redirect(self, base: _Start, url: str, location: str) -> str:
        """Where a redirect from ``url`` leads, when the site policy allows it; else the
        refusal is recorded and raised as a FetchError with its reason."""
        try:
            target = urljoin(url, location.strip())
            why = self._redirect_refusal(base, target)
        except ValueError:
            target, why = location[:200], "unreadable Location"
        if why is None:
            return target
        self.stats.refused_redirects += 1
        self.refused.append((url, target, why))
        raise FetchError(f"redirect refused ({why}): {url} -> {target}")

    def _redirect_refusal(self, base: _Start, target: str) -> str | None:
        """Why a redirect from a request that started at ``base`` may not go to ``target``.

        Allowed: http(s) on the scheme, host and port of ``base`` (or its upgrade from
        http on port 80 to https on 443), or a listed host; and never a loopback,
        link-local or private address unless ``base`` is one itself.
        """
        scheme, host, port = _origin(target)
        if scheme not in ("http", "https") or not host or port is None or port < 0:
            return f"not an http(s) address: {scheme or 'no scheme'}"
        bscheme, bhost, bport = base.scheme, base.host, base.port
        listed = f"{host}:{port}" in self._site_hosts or (
            host in self._site_hosts and port in (80, 443)
        )
        upgrade = (bscheme, bport, scheme, port) == ("http", 80, "https", 443) and host == bhost
        home = (scheme, host, port) == (bscheme, bhost, bport) or listed or upgrade
        if not home and not _is_ip(host):  # judged without a name lookup for the target
            return f"another site {host}:{port}"
        if base.public:  # a public base: no way inside
            inside = _address_refusal(host, port)
            if inside is not None:
                return inside
        return None if home else f"another site {host}:{port}"

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
        fresh = resp is None
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
        rp = urllib.robotparser.RobotFileParser(url)
        keep = resp.status < 500
        if resp.status in (401, 403):
            rules = "robots.txt is forbidden (everything disallowed)"
        elif resp.status >= 500:
            rules = f"robots.txt answered HTTP {resp.status}"
        else:
            rules = rp
            try:
                extra = self._read_robots(rp, resp)
            except Exception as e:  # noqa: BLE001 - the stdlib parser on hostile text
                # Unreadable is not unreachable: allow all for this run, keep nothing, so
                # the next run reads it again (a fixed file, or a fixed parser, then counts).
                rp = urllib.robotparser.RobotFileParser(url)
                rp.allow_all = True  # type: ignore[attr-defined]
                rules, keep, extra = rp, False, 0.0
                self.robots_notes[origin] = (
                    f"robots.txt unreadable ({type(e).__name__}): everything allowed this run"
                )
            if extra > 0:
                self._delay[urlsplit(origin).netloc] = min(extra, 120.0)
        if fresh and keep:
            self._cache_write(key, resp)
        with self._lock:
            self._robots[origin] = rules
        return rules

    @staticmethod
    def _read_robots(rp: urllib.robotparser.RobotFileParser, resp: Response) -> float:
        """Parse robots.txt into ``rp``; the extra delay between requests it asks for."""
        if not resp.ok:
            rp.allow_all = True  # type: ignore[attr-defined]
            return 0.0
        rp.parse(resp.text.splitlines())
        delay = rp.crawl_delay(ROBOTS_AGENT)
        rr = rp.request_rate(ROBOTS_AGENT)
        extra = float(delay) if delay else 0.0
        if rr and rr.requests:
            extra = max(extra, rr.seconds / rr.requests)
        return extra

    def _robots_fetch(self, url: str) -> Response:
        """robots.txt itself, following redirects within the site (http to https is common)."""
        base = _Start(url)
        for _hop in range(MAX_REDIRECTS + 1):
            resp, location = self._with_retries("GET", url, "", ROBOTS_MAX_BYTES)
            if location is None:
                return resp
            url = self._redirect(base, url, location)
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
        with _Deadline(self.total_timeout) as deadline:
            try:
                answer = self._exchange(method, url, body, cap)
            except (_Retry, FetchError):
                if deadline.expired:  # the watchdog cut the connection: say so
                    raise self._late() from None
                raise
            if deadline.expired:  # a close-delimited body ends quietly when cut
                raise self._late()
        return answer

    def _late(self) -> _Retry:
        return _Retry(f"response took longer than {self.total_timeout:g} s")

    def _exchange(
        self, method: str, url: str, body: str, cap: int
    ) -> tuple[Response, str | None]:
        """Send one request and read its answer (within the running attempt's deadline)."""
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if body else None
        connect, read = self.timeout
        try:
            r = self.session.request(
                method,
                url,
                data=body.encode() if body else None,
                headers=headers,
                timeout=(min(connect, self.total_timeout), read),
                stream=True,
                allow_redirects=False,
            )
        except (requests.exceptions.Timeout, requests.exceptions.ConnectionError) as e:
            down = connect_failure(e, urlsplit(url).netloc, min(connect, self.total_timeout))
            if down is not None:  # no answer of any kind: said plainly, kept for the caller
                self.unreachable = down
                raise _Retry(down.line()) from None
            if isinstance(e, requests.exceptions.Timeout):
                raise _Retry(f"timed out ({type(e).__name__})") from None
            raise _Retry(f"connection failed ({_short(e)})") from None
        except requests.exceptions.RequestException as e:
            raise FetchError(f"bad request ({_short(e)}): {url}") from None
        except ValueError as e:  # requests reads a redirect's Location early: bad bytes, "[::1"
            raise FetchError(f"unusable answer ({type(e).__name__}: {_short(e)}): {url}") from None
        self.unreachable = None  # an answer: the host is there
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
        """The body, streamed: too large fails at once; truncated, too slow or badly encoded
        is retried."""
        declared = hdrs.get("content-length", "").strip()
        ok = declared.isascii() and declared.isdigit() and len(declared) < 19  # not "2²"
        length = int(declared) if ok else None
        if length is not None and length > cap:
            raise FetchError(f"response of {length} bytes exceeds the cap of {cap} bytes: {url}")
        coding = hdrs.get("content-encoding", "")
        codings = [c.strip().lower() for c in coding.split(",")]
        codings = [c for c in codings if c and c != "identity"]
        if len(codings) > 1 or (codings and codings[0] not in ENCODINGS):
            raise _Retry(f"unsupported Content-Encoding {' '.join(coding.split())[:60]!r}")
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
        except requests.exceptions.ContentDecodingError:
            raise _Retry(f"body does not decode as its Content-Encoding {coding!r}") from None
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
