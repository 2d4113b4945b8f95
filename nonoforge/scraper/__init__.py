"""Ingestion: polite, resumable fetching from webpbn and nonograms.ru/.org, and local archives.

- :mod:`nonoforge.scraper.http`: the one HTTP layer (pacing, retries, robots.txt, caps, cache);
- :mod:`nonoforge.scraper.webpbn`, :mod:`nonoforge.scraper.nonograms`: one class per site;
- :mod:`nonoforge.scraper.local`: directories, ``.zip`` and ``.tar.gz`` archives;
- :mod:`nonoforge.scraper.ingest`: the loops that put it all into the corpus.
"""
