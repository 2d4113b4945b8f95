"""The HTTP layer against a real local server: retries, pacing, robots.txt, caps and cache."""

from __future__ import annotations

import gzip
import socket
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sitefixtures import (
    Reply,
    SiteServer,
    closed_port,
    http_date,
    no_such_name,  # noqa: F401 - a fixture
    offline,  # noqa: F401 - a fixture, used by pytestmark
)

from nonoforge import __version__
from nonoforge.errors import FetchError
from nonoforge.scraper import http as http_module
from nonoforge.scraper.http import USER_AGENT, Http, _Start, parse_retry_after

pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture
def site() -> Iterator[SiteServer]:
    with SiteServer() as s:
        yield s


def fast(**kw: object) -> Http:
    """A client for tests: high rate, short timeouts, tiny backoff."""
    opts: dict[str, object] = dict(
        rate=1000.0, connect_timeout=2.0, read_timeout=0.5, retries=2, backoff=0.01,
        max_backoff=0.05,
    )
    opts.update(kw)
    return Http(**opts)  # type: ignore[arg-type]


def test_get_sends_our_user_agent(site: SiteServer) -> None:
    site.page("/a", "hello", **{"Content-Type": "text/plain; charset=utf-8"})
    with fast() as http:
        r = http.get(site.url + "/a")
    assert (r.status, r.text, r.from_cache) == (200, "hello", False)
    ua = site.hits("/a")[0].user_agent
    assert ua == USER_AGENT and f"nonoforge/{__version__}" in ua and "http" in ua


def test_404_is_an_answer_not_an_error(site: SiteServer) -> None:
    with fast() as http:
        r = http.get(site.url + "/nothing")
    assert r.status == 404
    assert len(site.hits("/nothing")) == 1  # a final answer: not retried


def test_500_then_success(site: SiteServer) -> None:
    site.add("/flaky", Reply(500, "oops"), Reply(502, "oops"), Reply(200, "fine"))
    with fast() as http:
        r = http.get(site.url + "/flaky")
        assert r.text == "fine" and http.stats.retries == 2
    assert len(site.hits("/flaky")) == 3


def test_500_forever_fails_with_a_reason(site: SiteServer) -> None:
    site.add("/down", Reply(503, "down"))
    with fast() as http, pytest.raises(FetchError, match=r"HTTP 503 \(after 3 attempts\)"):
        http.get(site.url + "/down")
    assert len(site.hits("/down")) == 3


@pytest.mark.parametrize("header", ["1", "date"])
def test_429_honours_retry_after(site: SiteServer, header: str) -> None:
    value = "1" if header == "1" else http_date(1.5)
    site.add("/busy", Reply(429, "slow down", {"Retry-After": value}), Reply(200, "ok"))
    with fast() as http:
        t0 = time.monotonic()
        assert http.get(site.url + "/busy").text == "ok"
        sent = [t for _, t in http.sent][-2:]  # the two tries (robots.txt's was first)
    hits = site.hits("/busy")
    assert len(hits) == 2
    # when we sent the retry: never before the wait (an HTTP date has one-second
    # resolution: it may mean as little as ~0.5 s from now); the server saw the first try
    # before we sent the second, whatever the load
    assert sent[1] - sent[0] >= (0.999 if header == "1" else 0.45)
    assert sent[0] <= hits[0].at <= sent[1] <= hits[1].at
    assert time.monotonic() - t0 < 60  # a hang guard


def test_429_with_a_retry_after_past_the_cap_fails_at_once(site: SiteServer) -> None:
    site.add("/busy", Reply(429, "", {"Retry-After": "3600"}))
    with fast(max_retry_after=10) as http, pytest.raises(FetchError, match="more than the cap"):
        http.get(site.url + "/busy")
    assert len(site.hits("/busy")) == 1


def test_slow_answer_past_the_read_timeout_is_retried_then_fails(site: SiteServer) -> None:
    site.add("/slow", Reply(200, "late", delay=0.6))
    with fast(read_timeout=0.2, retries=1) as http, pytest.raises(FetchError, match="timed out"):
        http.get(site.url + "/slow")
    assert len(site.hits("/slow")) == 2


def test_slow_once_then_quick_succeeds(site: SiteServer) -> None:
    site.add("/slow", Reply(200, "late", delay=0.6), Reply(200, "now"))
    with fast(read_timeout=0.2) as http:
        assert http.get(site.url + "/slow").text == "now"


def test_truncated_body_is_retried_then_recorded(site: SiteServer) -> None:
    site.add("/cut", Reply(200, "x" * 5000, truncate=1000))
    with fast() as http, pytest.raises(FetchError, match="truncated"):
        http.get(site.url + "/cut")
    assert len(site.hits("/cut")) == 3
    site.add("/cut2", Reply(200, "y" * 5000, truncate=10), Reply(200, "y" * 5000))
    with fast() as http:
        assert http.get(site.url + "/cut2").body == b"y" * 5000


def test_50_mb_body_stops_at_the_cap_with_bounded_memory(site: SiteServer) -> None:
    site.add("/huge", Reply(200, stream_bytes=50 * 2**20))
    cap = 4 * 2**20
    with fast(max_bytes=cap) as http:
        tracemalloc.start()
        try:
            with pytest.raises(FetchError, match="exceeds the cap"):
                http.get(site.url + "/huge")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert http.stats.bytes <= cap + 2**17  # stopped reading just past the cap
    assert peak < 3 * cap
    assert len(site.hits("/huge")) == 1  # too large is final: not retried


def test_gzip_bomb_stops_at_the_cap(site: SiteServer) -> None:
    bomb = gzip.compress(b"\0" * (50 * 2**20), compresslevel=9)
    site.add("/bomb", Reply(200, bomb, {"Content-Encoding": "gzip"}))
    cap = 4 * 2**20
    with fast(max_bytes=cap) as http:
        tracemalloc.start()
        try:
            with pytest.raises(FetchError, match="exceeds the cap"):
                http.get(site.url + "/bomb")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 3 * cap + len(bomb)


def test_declared_length_past_the_cap_fails_before_reading(site: SiteServer) -> None:
    site.add("/big", Reply(200, b"z" * 300_000))
    with fast(max_bytes=100_000) as http, pytest.raises(FetchError, match="300000 bytes"):
        http.get(site.url + "/big")
    assert http.stats.bytes < 100  # robots.txt's 404 only


def test_robots_disallow_is_recorded_and_not_fetched(site: SiteServer) -> None:
    site.page("/robots.txt", "User-agent: *\nDisallow: /private/\n")
    site.page("/private/x", "secret")
    site.page("/public", "hi")
    with fast() as http:
        with pytest.raises(FetchError, match="disallowed by robots.txt"):
            http.get(site.url + "/private/x")
        assert http.get(site.url + "/public").text == "hi"
        assert http.get(site.url + "/public?again=1").status == 404
        assert http.stats.disallowed == 1
    assert site.hits("/private/x") == []
    assert len(site.hits("/robots.txt")) == 1  # once per host


def test_robots_naming_us_applies_and_crawl_delay_paces(site: SiteServer) -> None:
    site.page("/robots.txt", "User-agent: nonoforge\nCrawl-delay: 1\nDisallow: /no\n\n"
                             "User-agent: *\nDisallow: /\n")
    for i in range(2):
        site.page(f"/p{i}", "x")
    with fast() as http:
        for i in range(2):
            http.get(f"{site.url}/p{i}")
        with pytest.raises(FetchError):
            http.get(site.url + "/no")
        sent = [t for _, t in http.sent][1:]  # the first was robots.txt; /no is not sent
    assert len(sent) == 2 and sent[1] - sent[0] >= 0.999  # never early
    times = [h.at for h in site.hits() if h.path.startswith("/p")]
    assert sent[0] <= times[0] <= sent[1] <= times[1]  # one at a time, as paced


def test_robots_forbidden_disallows_everything(site: SiteServer) -> None:
    site.page("/robots.txt", "no", status=403)
    site.page("/a", "x")
    with fast() as http, pytest.raises(FetchError, match="forbidden"):
        http.get(site.url + "/a")
    assert site.hits("/a") == []


def test_pacing_holds_at_five_requests_a_second(site: SiteServer) -> None:
    for i in range(8):
        site.page(f"/p{i}", "x")
    with fast(rate=5.0) as http:
        for i in range(8):
            http.get(f"{site.url}/p{i}")
        sent = [t for _, t in http.sent][1:]  # the first was robots.txt
    # when we sent: the pacing itself, never early (a sleep never ends before its time;
    # how late it ends is the machine's load, so no upper bound is asserted)
    assert len(sent) == 8 and min(np.diff(sent)) >= 0.199
    arrived = [h.at for h in site.hits() if h.path.startswith("/p")]
    # the server saw each request after we sent it and before we sent the next: one at a
    # time, in order, so it saw the paced sequence (however late each arrived under load)
    assert len(arrived) == 8
    assert all(s <= a for s, a in zip(sent, arrived, strict=True))
    assert all(a <= s for a, s in zip(arrived, sent[1:], strict=False))
    assert arrived[-1] - arrived[0] >= 6 * 0.199


def test_the_cache_makes_a_rerun_fetch_nothing(site: SiteServer, tmp_path: Path) -> None:
    site.page("/robots.txt", "User-agent: *\nAllow: /\n")
    site.page("/a", "one")
    site.add("/form", Reply(200, "posted"), method="POST")
    with fast(cache_dir=tmp_path) as http:
        assert http.get(site.url + "/a").text == "one"
        assert http.get(site.url + "/missing").status == 404
        assert http.post(site.url + "/form", {"id": 1}).text == "posted"
    before = len(site.log)
    with fast(cache_dir=tmp_path) as http:
        r = http.get(site.url + "/a")
        assert (r.text, r.from_cache) == ("one", True)
        assert http.get(site.url + "/missing").status == 404
        assert http.post(site.url + "/form", {"id": 1}).text == "posted"
        assert http.stats.requests == 0 and http.stats.cache_hits == 3
    assert len(site.log) == before
    with fast(cache_dir=tmp_path) as http:  # another body is another request
        http.post(site.url + "/form", {"id": 2})
        assert http.stats.requests == 1


def test_errors_are_not_cached(site: SiteServer, tmp_path: Path) -> None:
    site.add("/e", Reply(500, "x"))
    with fast(cache_dir=tmp_path, retries=0) as http, pytest.raises(FetchError):
        http.get(site.url + "/e")
    site.add("/e", Reply(200, "back"))
    with fast(cache_dir=tmp_path) as http:
        assert http.get(site.url + "/e").text == "back"


def test_a_damaged_cache_entry_is_fetched_again(site: SiteServer, tmp_path: Path) -> None:
    site.page("/a", "good")
    with fast(cache_dir=tmp_path) as http:
        http.get(site.url + "/a")
    for f in tmp_path.rglob("*.resp"):
        f.write_bytes(f.read_bytes()[:-2])
    with fast(cache_dir=tmp_path) as http:
        r = http.get(site.url + "/a")
        assert (r.text, r.from_cache) == ("good", False)


def test_redirects_are_followed_and_paced(site: SiteServer) -> None:
    site.page("/old", "", status=302, Location="/new")
    site.page("/new", "moved here")
    site.page("/loop", "", status=301, Location="/loop")
    with fast() as http:
        assert http.get(site.url + "/old").text == "moved here"
        with pytest.raises(FetchError, match="redirects"):
            http.get(site.url + "/loop")


def test_connection_refused_fails_with_a_reason() -> None:
    with SiteServer() as s:
        url = s.url
    with fast(retries=1) as http, pytest.raises(FetchError, match="robots.txt unreachable"):
        http.get(url + "/a")
    with fast(retries=1, robots=False) as http, pytest.raises(FetchError, match="connection"):
        http.get(url + "/a")


# -- a host that gives no answer at all, said plainly (issue 38) ------------------------------


@pytest.mark.usefixtures("no_such_name")
def test_a_name_that_does_not_resolve_is_said_plainly() -> None:
    with fast(retries=1, robots=False) as http:
        with pytest.raises(FetchError) as e:
            http.get("http://nonexistent.invalid/a")
        down = http.unreachable
    assert down is not None and down.cause is http_module.Cause.NO_NAME
    assert down.line() == ("cannot reach nonexistent.invalid: its name does not resolve "
                           "(no network, or a wrong address)")
    assert str(e.value).startswith(down.line()) and "NameResolutionError" not in str(e.value)


def test_refused_connections_are_said_plainly_and_an_answer_clears_them(site: SiteServer) -> None:
    url, holder = closed_port()
    try:
        with fast(retries=0) as http:
            with pytest.raises(FetchError, match="robots.txt unreachable") as e:
                http.get(url + "/a")
            down = http.unreachable
            assert down is not None and down.cause is http_module.Cause.REFUSED
            assert "the connection was refused (nothing is listening there)" in str(e.value)
            site.page("/b", "here")
            assert http.get(site.url + "/b").text == "here"
            assert http.unreachable is None  # an answer: the host (any host) is there
    finally:
        holder.close()
    # a server that answered, then stopped: refused too
    with SiteServer() as s:
        s.page("/c", "up")
        with fast(retries=0, robots=False) as http:
            assert http.get(s.url + "/c").text == "up"
            stopped = s.url
    with fast(retries=0, robots=False) as http, pytest.raises(FetchError):
        http.get(stopped + "/c")
    assert http.unreachable is not None and http.unreachable.cause is http_module.Cause.REFUSED


def test_a_connect_timeout_is_said_plainly() -> None:
    """A listener whose accept queue is full drops further SYNs: the connect times out."""
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(0)
    fill = []
    try:
        for _ in range(4):  # fill the accept queue (its length varies by kernel)
            c = socket.socket()
            c.setblocking(False)
            c.connect_ex(lst.getsockname())
            fill.append(c)
        host, port = lst.getsockname()[:2]
        with fast(retries=0, robots=False, connect_timeout=0.3) as http:
            with pytest.raises(FetchError):
                http.get(f"http://{host}:{port}/a")
            down = http.unreachable
    finally:
        for c in fill:
            c.close()
        lst.close()
    assert down is not None and down.cause is http_module.Cause.TIMEOUT
    assert down.line() == (f"cannot reach {host}:{port}: no answer to the connection within "
                           "0.3 s (connect timeout)")


def test_an_unreachable_proxy_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    proxy, holder = closed_port()
    for name in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(name, proxy)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    try:
        with fast(retries=0, robots=False) as http, pytest.raises(FetchError) as e:
            http.get("http://puzzles.invalid/a")  # the proxy would look the name up
    finally:
        holder.close()
    down = http.unreachable
    assert down is not None and down.cause is http_module.Cause.REFUSED
    assert str(e.value).startswith("cannot reach puzzles.invalid (through the proxy the "
                                   "environment names): the connection was refused")


def test_a_broken_answer_is_not_unreachable(site: SiteServer) -> None:
    site.add("/t", Reply(200, "x" * 1000, truncate=10))
    with fast(retries=0, robots=False) as http, pytest.raises(FetchError, match="truncated"):
        http.get(site.url + "/t")
    assert http.unreachable is None  # the host answered: only that answer was bad


def test_parse_retry_after() -> None:
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert 58 <= parse_retry_after(http_date(60)) <= 61  # type: ignore[operator]
    assert parse_retry_after("9" * 40) == 10.0**9


# -- issue 20: deadlines that hold, charsets, redirects that stay home, encodings --------


@pytest.mark.parametrize(
    "how", ["declared", "chunked", "headers"], ids=["content-length", "chunked", "slow-headers"]
)
def test_one_byte_a_second_is_cut_at_the_deadline(site: SiteServer, how: str) -> None:
    """The whole-answer limit holds while bytes trickle in, each well inside the read timeout."""
    body = "x" * 30  # 30 s at one byte a second
    site.page("/robots.txt", "User-agent: *\nAllow: /\n")
    site.add("/slow", Reply(200, body, drip=1.0, chunked=how == "chunked",
                            drip_headers=how == "headers"))
    with fast(read_timeout=5.0, total_timeout=1.0, retries=0) as http:
        t0 = time.monotonic()
        with pytest.raises(FetchError, match="longer than 1 s"):
            http.get(site.url + "/slow")
        took = time.monotonic() - t0
    # cut, not read to its end (30 s); how soon after the deadline is bench material
    assert took < 15, took


def test_the_deadline_covers_every_attempt_and_a_quick_answer_still_passes(
    site: SiteServer,
) -> None:
    site.page("/robots.txt", "User-agent: *\nAllow: /\n")
    site.add("/s", Reply(200, "abcdefghij", drip=1.0), Reply(200, "quick"))
    with fast(read_timeout=5.0, total_timeout=0.8, retries=1) as http:
        t0 = time.monotonic()
        assert http.get(site.url + "/s").text == "quick"
        assert time.monotonic() - t0 < 8  # the first answer was cut (read whole: 10 s)
        assert http.stats.retries == 1
        assert http.get(site.url + "/s").text == "quick"  # the pool still works after a cut


@pytest.mark.parametrize("charset", ["undefined", "idna", "no-such-charset", "rot13"])
def test_a_bogus_charset_falls_back_to_utf8(site: SiteServer, charset: str) -> None:
    site.page("/p", "caf\u00e9 \xff".encode("utf-8")[:-2] + b"\xff",
              **{"Content-Type": f"text/html; charset={charset}"})
    with fast() as http:
        assert http.get(site.url + "/p").text == "caf\u00e9 \ufffd"


def test_robots_with_a_bogus_charset_still_parses_and_is_cached_only_when_read(
    site: SiteServer, tmp_path: Path
) -> None:
    site.page("/robots.txt", "User-agent: *\nDisallow: /no\n",
              **{"Content-Type": "text/plain; charset=undefined"})
    site.page("/yes", "fine")
    with fast(cache_dir=tmp_path) as http:
        assert http.get(site.url + "/yes").text == "fine"
        with pytest.raises(FetchError, match="disallowed by robots.txt"):
            http.get(site.url + "/no")


def test_robots_that_cannot_be_parsed_allows_all_for_the_run_and_is_not_cached(
    site: SiteServer, tmp_path: Path
) -> None:
    # "²".isdigit() is true, int("²") is not: the standard library's parser raises on it
    site.page("/robots.txt", "User-agent: *\nCrawl-delay: \u00b2\nDisallow: /no\n")
    site.page("/a", "fine")
    with fast(cache_dir=tmp_path) as http:
        assert http.get(site.url + "/a").text == "fine"
        assert http.get(site.url + "/a?2").status == 404
    assert len(site.hits("/robots.txt")) == 1
    with fast(cache_dir=tmp_path) as http:  # not cached: asked again on the next run
        assert http.get(site.url + "/b").status == 404
        assert "ValueError" in next(iter(http.robots_notes.values()))
    assert len(site.hits("/robots.txt")) == 2


def test_a_redirect_to_another_port_is_refused_and_recorded(site: SiteServer) -> None:
    with SiteServer() as other:
        other.page("/x", "elsewhere")
        site.page("/go", "", status=302, Location=other.url + "/x")
        with fast() as http:
            with pytest.raises(FetchError, match=r"redirect refused \(another site"):
                http.get(site.url + "/go")
            assert http.stats.refused_redirects == 1
            assert http.refused[0][1] == other.url + "/x"
        assert other.hits() == []


def test_a_redirect_to_another_host_is_refused(site: SiteServer) -> None:
    port = site.url.rsplit(":", 1)[1]
    site.page("/go", "", status=301, Location=f"http://localhost:{port}/x")
    site.page("/x", "same server, another name")
    with fast() as http, pytest.raises(FetchError, match="another site"):
        http.get(site.url + "/go")
    assert site.hits("/x") == []


def test_a_redirect_to_a_listed_host_is_followed(site: SiteServer) -> None:
    port = site.url.rsplit(":", 1)[1]
    site.page("/go", "", status=301, Location=f"http://localhost:{port}/x")
    site.page("/x", "the site's other name")
    with fast() as http:
        http.allow_redirects_to(f"localhost:{port}")
        assert http.get(site.url + "/go").text == "the site's other name"


def test_a_redirect_to_a_private_address_is_refused_before_any_request(
    site: SiteServer,
) -> None:
    """The probe's case: a redirect to the cloud metadata address made a real request."""
    site.page("/go", "", status=302, Location="http://169.254.169.254/latest/meta-data/")
    with fast() as http:
        with pytest.raises(FetchError, match="redirect refused"):
            http.get(site.url + "/go")
        assert http.stats.requests == 2  # robots.txt and /go: nothing for 169.254.169.254
        # From a public base (judged here without a request: tests never leave 127.0.0.1)
        # the address decides, even for a host the site lists.
        http.allow_redirects_to("169.254.169.254", "10.0.0.1", "::1", "0.0.0.0")
        public = _Start("http://8.8.8.8/a")
        for target, addr in (("http://169.254.169.254/x", "169.254.169.254"),
                             ("http://10.0.0.1/", "10.0.0.1"), ("http://[::1]/", "::1"),
                             ("http://0.0.0.0/", "0.0.0.0"),
                             ("http://[::ffff:127.0.0.1]/", "127.0.0.1")):
            assert http._redirect_refusal(public, target) == f"private address {addr}"
        assert http._redirect_refusal(public, "http://8.8.8.8/b") is None
        # the same host upgraded to https is home; another port or a downgrade is not
        assert http._redirect_refusal(public, "https://8.8.8.8/b") is None
        assert http._redirect_refusal(_Start("https://8.8.8.8/a"), "http://8.8.8.8/b") is not None
        assert http._redirect_refusal(public, "https://8.8.8.8:8443/") is not None


def test_the_start_of_a_fetch_is_looked_up_once_for_all_its_redirects(
    site: SiteServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether the first URL is a private address is asked once per fetch, however many
    hops follow (each hop used to resolve the base host's name again)."""
    port = site.url.rsplit(":", 1)[1]
    for a, b in (("/r1", "/r2"), ("/r2", "/r3"), ("/r3", "/end")):
        site.page(a, "", status=302, Location=b)
    site.page("/end", "arrived")
    asked: list[str] = []
    real = http_module._address_refusal

    def counted(host: str, port: int) -> str | None:
        asked.append(host)
        return real(host, port)

    monkeypatch.setattr(http_module, "_address_refusal", counted)
    with fast() as http:
        assert http.get(f"http://localhost:{port}/r1").text == "arrived"
        assert asked == ["localhost"]  # private: the targets need no look-up of their own
        assert http.get(f"http://localhost:{port}/r2").text == "arrived"
    assert asked == ["localhost"] * 2  # once per fetch
    assert len(site.hits("/end")) == 2


def test_a_redirect_to_another_scheme_is_refused(site: SiteServer) -> None:
    site.page("/go", "", status=302, Location="file:///etc/passwd")
    site.page("/g2", "", status=302, Location="gopher://127.0.0.1:70/")
    with fast() as http:
        for path in ("/go", "/g2"):
            with pytest.raises(FetchError, match="redirect refused"):
                http.get(site.url + path)


def test_robots_redirected_off_site_disallows_and_is_recorded(site: SiteServer) -> None:
    with SiteServer() as other:
        other.page("/robots.txt", "User-agent: *\nAllow: /\n")
        site.page("/robots.txt", "", status=301, Location=other.url + "/robots.txt")
        site.page("/a", "x")
        with fast() as http, pytest.raises(FetchError, match="redirect refused"):
            http.get(site.url + "/a")
        assert other.hits() == [] and site.hits("/a") == []


@pytest.mark.parametrize("encoding", ["gzip, gzip", "x-unknown", "br, zz", "gzip"])
def test_repeated_unknown_or_broken_encodings_are_a_retried_failure(
    site: SiteServer, encoding: str
) -> None:
    # "gzip, gzip" over a body compressed once: what a misconfigured server sends
    body = b"not gzip at all" if encoding == "gzip" else gzip.compress(b"x")
    site.add("/e", Reply(200, body, {"Content-Encoding": encoding}))
    with fast(retries=1) as http, pytest.raises(FetchError, match="after 2 attempts"):
        http.get(site.url + "/e")
    assert len(site.hits("/e")) == 2


@pytest.mark.parametrize("server, meta", [("idna", "utf-8"), ("undefined", "undefined"),
                                          (None, "idna")])
def test_a_nonograms_page_in_a_bogus_charset_is_read_as_utf8(
    site: SiteServer, server: str | None, meta: str
) -> None:
    from sitefixtures import nonograms_page

    from nonoforge.scraper.nonograms import Nonograms

    html = nonograms_page(np.array([[1, 0], [1, 1]]), [(0, 0, 0)], title="Кошка")
    html = html.replace('<meta charset="utf-8">', f'<meta charset="{meta}">')
    ctype = "text/html" + (f"; charset={server}" if server else "")
    site.page("/nonograms/i/7", html.encode(), **{"Content-Type": ctype})
    with fast() as http:
        got = Nonograms(http, site.url).fetch(7)
    assert got.status == "done", got.reason
    assert got.puzzle is not None and got.puzzle.meta.title == "Кошка"


def test_a_refused_redirect_is_recorded_in_the_fetch_log(site: SiteServer, tmp_path: Path) -> None:
    from nonoforge.db import Corpus
    from nonoforge.scraper.ingest import ingest_ids

    site.page("/XMLpuz.cgi?id=1", "", status=302, Location="http://169.254.169.254/x")
    with Corpus.open(tmp_path / "c.db") as c, fast() as http:
        summary = ingest_ids(c, "webpbn", [1], http=http, base_url=site.url)
        log = c.fetch_log("webpbn")
    assert summary.failed == 1
    assert len(log) == 1 and log[0]["status"] == "failed"
    assert "redirect refused (another site 169.254.169.254:80)" in log[0]["reason"]


def test_the_deadline_holds_over_tls(
    site: SiteServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watchdog shuts the TLS socket's descriptor down under the blocked read too."""
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    site.httpd.socket = ctx.wrap_socket(site.httpd.socket, server_side=True)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert))  # requests prefers it to verify=
    url = site.url.replace("http://", "https://")
    site.page("/robots.txt", "User-agent: *\nAllow: /\n")
    site.page("/ok", "fine")
    site.add("/slow", Reply(200, "x" * 30, drip=1.0))
    with fast(read_timeout=5.0, total_timeout=1.0, retries=0) as http:
        assert http.get(url + "/ok").text == "fine"
        t0 = time.monotonic()
        with pytest.raises(FetchError, match="longer than 1 s"):
            http.get(url + "/slow")
        assert time.monotonic() - t0 < 15  # cut, not read to its end (30 s)
        assert http.get(url + "/ok?again").status == 404  # the pool recovers


def test_robots_as_found_in_the_wild(site: SiteServer) -> None:
    """Shapes seen in real robots.txt files (written by hand here): a UTF-8 byte-order
    mark, CRLF line ends, lower-case field names, a ``;`` comment line, an empty
    ``disallow:`` for one agent and a fractional Crawl-delay."""
    site.page("/robots.txt", b"\xef\xbb\xbfuser-agent: *\r\n; robots text file\r\n"
              b"disallow: /cgi-bin\r\nDisallow: /z\r\nCrawl-delay: 0.5\r\n\r\n"
              b"user-agent: other\r\ndisallow:\r\n",
              **{"Content-Type": "text/plain"})
    site.page("/a", "fine")
    with fast() as http:
        assert http.get(site.url + "/a").text == "fine"
        for path in ("/cgi-bin/x", "/z"):
            with pytest.raises(FetchError, match="disallowed"):
                http.get(site.url + path)


@pytest.mark.parametrize("raw", [
    b"HTTP/1.1 302 Found\r\nLocation: \xa9x\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 302 Found\r\nLocation: http://[::1\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 2\xb2\r\n\r\nhi",  # latin-1 "2²"
], ids=["location-not-utf8", "location-bad-ipv6", "length-superscript-digit"])
def test_a_malformed_answer_is_a_fetch_error(site: SiteServer, raw: bytes) -> None:
    """Found by fuzzing the HTTP layer with a raw local server (bench-style, not committed)."""
    site.add("/m", Reply(raw=raw))
    with fast(retries=0) as http:
        try:
            r = http.get(site.url + "/m")
        except FetchError:
            return
    assert r.status == 200 and r.body == b"hi"  # an unreadable length is no length at all
