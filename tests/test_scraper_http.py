"""The HTTP layer against a real local server: retries, pacing, robots.txt, caps and cache."""

from __future__ import annotations

import gzip
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sitefixtures import (
    Reply,
    SiteServer,
    http_date,
    offline,  # noqa: F401 - a fixture, used by pytestmark
)

from nonoforge import __version__
from nonoforge.errors import FetchError
from nonoforge.scraper.http import USER_AGENT, Http, parse_retry_after

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
    hits = site.hits("/busy")
    assert len(hits) == 2
    # an HTTP date has one-second resolution: it may mean as little as ~0.5 s from now
    assert hits[1].at - hits[0].at >= (0.95 if header == "1" else 0.45)
    assert time.monotonic() - t0 < 5


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
    times = [h.at for h in site.hits() if h.path.startswith("/p")]
    assert times[1] - times[0] >= 0.98


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
    assert min(np.diff(sent)) >= 0.199  # when we sent: the pacing itself
    arrived = [h.at for h in site.hits() if h.path.startswith("/p")]
    gaps = np.diff(arrived)  # when the server saw them: scheduling jitter included
    assert gaps.min() >= 0.15 and abs(gaps.mean() - 0.2) < 0.02, gaps
    assert 7 * 0.2 - 0.02 <= arrived[-1] - arrived[0] < 7 * 0.2 + 1.0


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


def test_parse_retry_after() -> None:
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert 58 <= parse_retry_after(http_date(60)) <= 61  # type: ignore[operator]
    assert parse_retry_after("9" * 40) == 10.0**9
