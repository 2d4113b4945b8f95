"""The site a puzzle comes from, apart from its catalogue line (nonoforge/db/sites.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nonoforge.db.sites import MAX_SITE, format_site, site_filter, site_of
from nonoforge.formats import get_format


def test_catalogue_lines_of_real_files_name_their_site() -> None:
    # as the curated .non database and nonograms.org pages write them
    assert site_of("webpbn.com #1611") == "webpbn"
    assert site_of("http://webpbn.com/1611") == "webpbn"
    assert site_of("nonograms.ru") == site_of("www.nonograms.org/nonograms/i/2") == "nonograms"
    assert site_of("TAAI 2011 #3") == "tournament"


def test_the_channel_names_what_the_source_does_not() -> None:
    assert site_of("Jan's book", "webpbn") == "webpbn"
    assert site_of(None, "tournament") == "tournament"
    assert site_of("some title with spaces", None) == "file"
    assert site_of(None) == site_of("  ") == "unknown"


def test_site_names_are_short_and_lower_case() -> None:
    assert site_of("MySite") == "mysite"
    assert len(site_of("a" * 500)) == MAX_SITE
    assert site_filter(" WebPBN ") == "webpbn"


def test_a_tournament_file_is_the_tournament_site() -> None:
    assert format_site(get_format("tournament")) == "tournament"
    assert format_site(get_format("non")) == "file" and format_site(None) == "file"


@given(st.text(max_size=200), st.one_of(st.none(), st.text(max_size=50)))
def test_every_source_has_a_site(source: str, channel: str | None) -> None:
    site = site_of(source, channel)
    assert site and len(site) <= MAX_SITE and site == site.lower()
