"""The site a puzzle comes from, told apart from the catalogue line that names it.

A provenance row keeps two things: ``source``, what the puzzle's metadata (or the channel
it came by) says -- a whole catalogue line like ``"webpbn.com #1611"``, a file's
``"file:NAME"``, a site's ``"webpbn"`` -- and ``site``, the short name every filter and
count uses: ``webpbn``, ``nonograms``, ``tournament``, ``file``, ``generated``... A corpus of
6,723 webpbn puzzles has 6,723 catalogue lines and one site.

>>> site_of("webpbn.com #1611"), site_of("nonograms.org"), site_of("file:2011.txt")
('webpbn', 'nonograms', 'file')
>>> site_of("gnonograms 42.gno"), site_of("gen"), site_of(None, "tournament")
('file', 'gen', 'tournament')
>>> site_of("Jan's book", "webpbn"), site_of(None)
('webpbn', 'unknown')
"""

from __future__ import annotations

import re
from typing import Any

#: Longest site name stored (``provenance.site``).
MAX_SITE = 100

#: Catalogue lines and source names that name a known site, whatever the channel.
KNOWN: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bwebpbn\b", re.I), "webpbn"),
    (re.compile(r"^nonograms(\.(ru|org|com))?$|\bnonograms\.(ru|org|com)\b", re.I), "nonograms"),
    (re.compile(r"^(tournament|taai|tcga|icga)\b", re.I), "tournament"),
    (re.compile(r"^generated\b", re.I), "generated"),
    (re.compile(r"^file:", re.I), "file"),
    (re.compile(r"^local$", re.I), "file"),
)
#: A plain name a library caller may give as its source (``"gen"``): kept as the site.
_WORD = re.compile(r"^[a-z0-9][a-z0-9._-]*$", re.I)


def site_of(source: str | None, channel: str | None = None) -> str:
    """The site of a puzzle whose provenance names ``source``, come by ``channel``.

    A known site named by the source wins (a ``.non`` file's ``catalogue "webpbn.com
    #1"`` is webpbn's puzzle); else a plain one-word source is its own site (``"gen"``);
    else the channel (``file``, ``tournament`` for a tournament set, a fetched site's
    name); else the source is a catalogue line, which only files carry: ``file``.
    """
    text = (source or "").strip()
    for name in (text, (channel or "").strip()):
        if name:
            for pattern, site in KNOWN:
                if pattern.search(name):
                    return site
            if _WORD.match(name):
                return name.lower()[:MAX_SITE]
    return "file" if text else "unknown"


def site_filter(name: str) -> str:
    """The site name a ``--source`` option means (``WebPBN`` is ``webpbn``)."""
    return name.strip().lower()


#: Formats that are one site's own: what a file of them holds comes from that site.
FORMAT_SITES = {"tournament": "tournament"}


def format_site(fmt: Any) -> str:
    """The channel of a puzzle read from a file of format ``fmt`` (a ``Format`` or None):
    ``tournament`` for a tournament set, else ``file``."""
    return FORMAT_SITES.get(getattr(fmt, "name", None) or "", "file")
