"""webpbn.com: puzzles by id through ``XMLpuz.cgi`` or ``export.cgi``, read as webpbn XML.

The XML itself is read by :mod:`nonoforge.formats.xml` (which never fetches the DTD it
names); this module only knows the endpoints, tells a missing id from a broken answer,
and adds provenance and the licence note to each puzzle.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from nonoforge.errors import FetchError, FormatError
from nonoforge.puzzle import Meta, Puzzle
from nonoforge.scraper.site import DONE, Fetched, SiteChoice, SiteKind, register_site

if TYPE_CHECKING:  # only its type: ingest webpbn --help does not load requests
    from nonoforge.scraper.http import Http

DEFAULT_URL = "https://webpbn.com"
ENV_URL = "NONOFORGE_WEBPBN_URL"
#: The site's names: redirects may lead from one to another (see Http.allow_redirects_to).
HOSTS = ("webpbn.com", "www.webpbn.com")
SITE = "webpbn"
METHODS = ("xml", "export")

LICENCE = (
    "Copyright of the designer. webpbn.com allows downloading for personal use only; "
    "do not redistribute unless the designer has allowed it."
)

#: A document that names a puzzle element: anything else is webpbn's answer for "no such id".
_HAS_PUZZLE = re.compile(rb"<\s*puzzle[\s>]")


def with_provenance(p: Puzzle, item: str) -> Puzzle:
    """``p`` with webpbn provenance and the licence note in its metadata."""
    m = p.meta
    return p.replace(
        meta=Meta(
            title=m.title,
            author=m.author,
            copyright=m.copyright or (f"Copyright {m.author}" if m.author else None),
            licence=LICENCE,
            source=SITE,
            source_id=item,
            note=m.note,
        )
    )


def parse_xml(body: bytes, item: str) -> Puzzle | None:
    """The puzzle in a webpbn XML answer, None when the answer holds no puzzle.

    FormatError when it names a puzzle but cannot be read.
    """
    from nonoforge.formats import loads

    if not _HAS_PUZZLE.search(body[:1_000_000]):
        return None
    puzzles = list(loads(body, "xml", path=f"webpbn #{item}"))
    if not puzzles:
        return None
    return with_provenance(puzzles[0], item)


class Webpbn:
    """webpbn.com, or a mirror of it at another base URL."""

    name = SITE

    def __init__(self, http: Http, base_url: str | None = None, method: str = "xml") -> None:
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}")
        self.http = http
        http.allow_redirects_to(*HOSTS)
        self.base_url = KIND.base_url(base_url)
        self.method = method

    @classmethod
    def open(cls, http: Http, base_url: str | None, settings: Mapping[str, str]) -> Webpbn:
        """The site as the registry opens it (:class:`SiteKind`)."""
        return cls(http, base_url, settings.get("method", "xml"))

    def url(self, item: int) -> str:
        if self.method == "xml":
            return f"{self.base_url}/XMLpuz.cgi?id={item}"
        return f"{self.base_url}/export.cgi"

    def fetch(self, item: int) -> Fetched:
        key = str(item)
        url = self.url(item)
        try:
            if self.method == "xml":
                resp = self.http.get(url)
            else:
                form = {"id": key, "fmt": "xml", "go": "1", "xml_soln": "on"}
                resp = self.http.post(url, form)
        except FetchError as e:
            return Fetched.failed(key, str(e), url, network=True)
        if resp.status in (404, 410):
            return Fetched.missing(key, f"HTTP {resp.status}", url)
        if not resp.ok:
            return Fetched.failed(key, f"HTTP {resp.status}: {url}", url, network=True)
        try:
            puzzle = parse_xml(resp.body, key)
        except FormatError as e:
            return Fetched.failed(key, e.reason if e.line is None else str(e), url)
        if puzzle is None:
            return Fetched.missing(key, "webpbn has no puzzle with this id", url)
        return Fetched(key, DONE, puzzle, raw=resp.body, url=url)


KIND = register_site(SiteKind(
    name=SITE,
    description="Puzzles from webpbn.com by id, black-and-white and colour, with their "
                "solutions.",
    env_url=ENV_URL,
    default_url=DEFAULT_URL,
    open=Webpbn.open,
    licence=LICENCE,
    example="1-500,733",
    choices=(SiteChoice("method", "xml (XMLpuz.cgi) or export (POST export.cgi).", METHODS,
                        "xml"),),
))
