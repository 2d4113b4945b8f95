"""The site registry: a toy site registered here appears in ``ingest --help`` and ingests
end to end through the one generic command, against the local test server."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from sitefixtures import SiteServer, offline  # noqa: F401 - a fixture, used by pytestmark
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.db import Corpus
from nonoforge.errors import FormatError, UsageError
from nonoforge.examples import resolve
from nonoforge.scraper.http import Http
from nonoforge.scraper.ingest import ingest_ids
from nonoforge.scraper.site import (
    RESERVED,
    Fetched,
    SiteChoice,
    SiteKind,
    is_site,
    register_site,
    site_kind,
    sites,
    unregister_site,
)

pytestmark = pytest.mark.usefixtures("offline")

ENV = "NONOFORGE_TOYSITE_URL"


class Toy:
    """A site of .non files at ``/FLAVOUR/ID.non``: fetched, read, a missing one a 404."""

    name = "toysite"

    def __init__(self, http: Http, base_url: str | None, flavour: str) -> None:
        self.http, self.base_url, self.flavour = http, KIND.base_url(base_url), flavour

    @classmethod
    def open(cls, http: Http, base_url: str | None, settings: Mapping[str, str]) -> Toy:
        return cls(http, base_url, settings["flavour"])

    def fetch(self, item: int) -> Fetched:
        from nonoforge.formats import loads

        url = f"{self.base_url}/{self.flavour}/{item}.non"
        resp = self.http.get(url)
        if resp.status == 404:
            return Fetched.missing(str(item), "HTTP 404", url)
        try:
            puzzle = next(iter(loads(resp.body, "non")))
        except FormatError as e:
            return Fetched.failed(str(item), e.reason, url)
        return Fetched(str(item), "done", puzzle, raw=resp.body, url=url)


KIND = SiteKind(
    name="toysite",
    description="Puzzles of the toy site, a .non file each.",
    env_url=ENV,
    default_url="http://toy.invalid",
    open=Toy.open,
    licence="Toy terms of {site}.",
    example="1-3",
    choices=(SiteChoice("flavour", "plain or fancy.", ("plain", "fancy"), "plain"),),
)


@pytest.fixture
def toy() -> Iterator[SiteKind]:
    register_site(KIND)
    try:
        yield KIND
    finally:
        unregister_site(KIND.name)


@pytest.fixture
def served() -> Iterator[SiteServer]:
    with SiteServer() as s:
        for n, name in ((1, "dancer"), (2, "cat"), (4, "dancer")):
            s.page(f"/fancy/{n}.non", Path(resolve(f"example:{name}")).read_bytes())
        s.page("/fancy/3.non", "width 2\nheight x\n")
        yield s


def test_the_builtin_sites_are_registered() -> None:
    known = sites()
    assert list(known)[:2] == ["webpbn", "nonograms"]
    assert known["webpbn"].env_url == "NONOFORGE_WEBPBN_URL"
    assert known["nonograms"].env_url == "NONOFORGE_NONOGRAMS_URL"
    assert [c.name for c in known["webpbn"].choices] == ["method"]


def test_a_toy_site_appears_in_the_help(toy: SiteKind) -> None:
    runner = CliRunner()
    listing = runner.invoke(app, ["ingest", "--help"], terminal_width=200)
    assert listing.exit_code == 0
    names = [line.split()[0] for line in listing.output.splitlines()
             if line.startswith("  ") and line.split()]
    assert {"webpbn", "nonograms", "toysite", "path"} <= set(names)
    assert "Puzzles of the toy site" in listing.output
    own = runner.invoke(app, ["ingest", "toysite", "--help"], terminal_width=200)
    assert own.exit_code == 0
    for words in ("--flavour", "plain or fancy", "--base-url", "--rate", "--dry-run",
                  "--json", f"Base URL also from {ENV}", "nonoforge ingest toysite 1-3"):
        assert words in own.output
    gone = CliRunner().invoke(app, ["ingest", "--help"], terminal_width=200)
    assert "toysite" in gone.output  # still registered within the fixture


def test_a_toy_site_ingests_end_to_end(toy: SiteKind, served: SiteServer,
                                       tmp_path: Path) -> None:
    db = str(tmp_path / "toy.db")
    args = ["ingest", "toysite", "1-5", "--db", db, "--flavour", "fancy", "--no-cache",
            "--rate", "1000", "--json"]
    r = CliRunner().invoke(app, args, env={ENV: served.url})
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert (s["source"], s["new"], s["duplicate"], s["missing"], s["failed"]) == (
        "toysite", 2, 1, 1, 1)
    with Corpus.open(db) as c:
        assert len(c) == 2
        assert [c.fetch_status("toysite", str(i)) for i in range(1, 6)] == [
            "done", "done", "failed", "done", "missing"]
    again = CliRunner().invoke(app, args, env={ENV: served.url})
    assert json.loads(again.stdout)["skipped"] == 4  # done and missing; the failure retried


def test_a_toy_sites_settings_are_checked(toy: SiteKind, served: SiteServer) -> None:
    bad = CliRunner().invoke(app, ["ingest", "toysite", "1", "--flavour", "sour",
                                   "--base-url", served.url, "--dry-run"])
    assert bad.exit_code == UsageError.exit_code
    assert "--flavour must be plain or fancy" in bad.output
    with pytest.raises(UsageError, match="no setting 'colour'"):
        toy.settings({"colour": "red"})
    assert toy.settings({}) == {"flavour": "plain"}
    with Http(rate=1000, retries=0) as http:  # the library path, plain flavour: all 404
        s = ingest_ids(None, "toysite", [1, 2], http=http, base_url=served.url, dry_run=True)
    assert (s.missing, s.failed) == (2, 0)


def test_names_and_unknown_sites() -> None:
    assert is_site("webpbn") and is_site("nonograms") and not is_site("puzzles.zip")
    with pytest.raises(UsageError, match="no site 'nosuch'.*webpbn"):
        site_kind("nosuch")
    for name in (*RESERVED, "", "Toy"):
        with pytest.raises(ValueError):
            register_site(SiteKind(name, "x", "X_URL", "http://x.invalid", Toy.open, "x"))
    with pytest.raises(ValueError, match="not a choice"):
        SiteChoice("m", "help", ("a", "b"), "c")
