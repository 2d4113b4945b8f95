"""What the studio's requests do (nonoforge/studio/api.py), called as the web layer calls
them: files of every format opened, every writable format downloaded and read back, the
corpus saved to and paged through."""

from __future__ import annotations

from pathlib import Path

import pytest

from nonoforge.db import Corpus
from nonoforge.errors import FormatError, UsageError
from nonoforge.formats import get_format, loads, read_file
from nonoforge.studio.api import (
    CorpusQuery,
    corpus_document,
    corpus_page,
    download_document,
    open_bytes,
    open_example,
    save_document,
    writable_formats,
)

DATA = Path(__file__).parent / "data"
FILES = ["dancer.non", "dancer.xml", "dancer.cwc", "flower.pzl", "heart.sav", "arrow.csv",
         "flags.nonpack", "jwilk-data000.nin", "flag.g"]


@pytest.mark.parametrize("name", FILES)
def test_every_format_we_read_opens(name: str) -> None:
    data = (DATA / name).read_bytes()
    out = open_bytes(data, name)
    first = read_file(DATA / name)[0]
    assert out["count"] == len(read_file(DATA / name))
    assert (out["document"]["width"], out["document"]["height"]) == (first.width, first.height)
    assert out["document"]["key"] == first.key


def test_an_unreadable_or_empty_upload_is_one_line() -> None:
    with pytest.raises(UsageError, match="empty"):
        open_bytes(b"", "x.non")
    with pytest.raises(FormatError):
        open_bytes(b"\x00\x01 nothing like a puzzle", "x.bin")


def test_examples_open_by_name_and_pictures_are_sent_elsewhere() -> None:
    assert open_example("example:dancer")["document"]["width"] == 5
    with pytest.raises(UsageError, match="picture"):
        open_example("koala")


@pytest.mark.parametrize("fmt", [f["name"] for f in writable_formats()])
def test_every_writable_format_downloads_what_reads_back(fmt: str) -> None:
    flags = read_file(DATA / "flags.nonpack")[0]  # a colour puzzle
    dancer = read_file(DATA / "dancer.non")[0]
    for p in (dancer, flags):
        doc = open_bytes((DATA / ("dancer.non" if p is dancer else "flags.nonpack")).read_bytes(),
                         "in.non")["document"]
        if get_format(fmt).refusal(p) is not None:
            with pytest.raises(UsageError):
                download_document({"format": fmt, "document": doc})
            continue
        data, name, _ = download_document({"format": fmt, "document": doc})
        assert name.endswith(get_format(fmt).extensions[0])
        assert next(iter(loads(data, fmt=fmt))).key == p.key


def test_the_corpus_pages_with_thumbnails(tmp_path: Path) -> None:
    with Corpus.open(tmp_path / "c.db") as corpus:
        keys = []
        for name in ("dancer.non", "flags.nonpack", "flower.pzl", "heart.sav"):
            doc = open_bytes((DATA / name).read_bytes(), name)["document"]
            keys.append(save_document(corpus, {"document": doc,
                                               "provenance": {"origin": "file"}})["key"])
        assert save_document(corpus, {"document": open_bytes(
            (DATA / "dancer.non").read_bytes(), "d.non")["document"]})["duplicate"] == 1
        first = corpus_page(corpus, CorpusQuery(page=0, per_page=3))
        second = corpus_page(corpus, CorpusQuery(page=1, per_page=3))
        assert first["more"] and not second["more"]
        assert [i["key"] for i in first["items"] + second["items"]] == list(dict.fromkeys(keys))
        item = first["items"][0]
        assert len(item["thumb"]) == item["width"] * item["height"]
        assert item["source"] == "nonoforge studio"
        colour = corpus_page(corpus, CorpusQuery(colours="2.."))["items"]
        assert colour and all(i["colors"] >= 2 for i in colour)
        dancer = corpus_page(corpus, CorpusQuery(text="DAN"))["items"]
        assert [i["title"] for i in dancer] == ["Dancer"]  # the title of webpbn #1's file
        assert corpus_page(corpus, CorpusQuery(text="dancer nothing"))["items"] == []
        # by words of the author (webpbn's "by" line), alone or with the title's
        wolter = corpus_page(corpus, CorpusQuery(author="wolter JAN"))["items"]
        assert [(i["title"], i["author"]) for i in wolter] == [("Dancer", "Jan Wolter")]
        assert corpus_page(corpus, CorpusQuery(text="dancer", author="wolter"))["items"]
        assert corpus_page(corpus, CorpusQuery(text="flower", author="wolter"))["items"] == []
        # case folded beyond ASCII, '%' and '_' plain characters
        assert corpus_page(corpus, CorpusQuery(text="d%"))["items"] == []
        stored = corpus.provenance(keys[0])[0]
        assert '"origin":"file"' in stored["note"]
        assert corpus_document(corpus, keys[0])["document"]["key"] == keys[0]


def test_deep_pages_are_the_same_puzzles_as_the_stream(tmp_path: Path) -> None:
    import numpy as np

    from nonoforge.puzzle import Grid, Puzzle

    rng = np.random.default_rng(3)
    with Corpus.open(tmp_path / "c.db") as corpus:
        corpus.add(Puzzle.from_grid(Grid((rng.random((6, 6)) < 0.5).astype(int)))
                   for _ in range(260))
        every = [p.key for p in corpus.query()]
        per = 25
        seen = []
        for page in range(len(every) // per + 1):
            out = corpus_page(corpus, CorpusQuery(page=page, per_page=per))
            seen += [i["key"] for i in out["items"]]
            assert out["more"] == (len(seen) < len(every))
        assert seen == every  # every page read by keys, then its puzzles in one batch


def test_a_title_search_finds_matches_anywhere_and_pages_through_them(tmp_path: Path) -> None:
    import numpy as np

    from nonoforge.puzzle import Grid, Meta, Puzzle

    rng = np.random.default_rng(4)
    with Corpus.open(tmp_path / "c.db") as corpus:
        titles = [f"Étude {i}" if i % 97 == 96 else f"plain {i}" for i in range(600)]
        corpus.add(Puzzle.from_grid(Grid((rng.random((6, 6)) < 0.5).astype(int)),
                                    meta=Meta(title=t, author="Zoë Ünal"))
                   for t in titles)
        want = [k for k, t in zip([p.key for p in corpus.query()], titles, strict=True)
                if t.startswith("Étude")]
        assert len(want) == 6  # the last one is the 582nd puzzle
        seen: list[str] = []
        for page in range(3):
            out = corpus_page(corpus, CorpusQuery(page=page, per_page=2, text="éTUDE"))
            seen += [i["key"] for i in out["items"]]
            assert out["more"] == (page < 2)
        assert seen == want
        assert len(corpus_page(corpus, CorpusQuery(author="zoË ünal"))["items"]) == 50
