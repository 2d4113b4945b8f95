"""Titles a person reads: emoji image names, file stems, numbered defaults, --titles files."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from nonoforge.errors import UsageError
from nonoforge.titles import read_titles, readable, title_of

EMOJI = Path(__file__).resolve().parents[1].parent / "shared" / "images" / "emoji"


def test_emoji_image_names_become_words_never_hex() -> None:
    """The shared emoji images (Twemoji's, named by code point, INDEX.tsv their short
    names): each title is words, never the hex stem a book once printed (``1f354``)."""
    if not (EMOJI / "INDEX.tsv").exists():
        pytest.skip("the shared emoji images are not there")
    with open(EMOJI / "INDEX.tsv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert len(rows) > 20
    named = 0
    for row in rows:
        stem = row["file"].rsplit(".", 1)[0]
        t = readable(row["file"])
        assert t != stem and (t is None or stem not in t.lower()), row
        named += t is not None
        first = row["short_name"].split("_")[0]
        if t is not None and first in ("koala", "cat", "pear", "ox", "sheep", "pie"):
            assert first in t.lower(), (row, t)
    assert named >= len(rows) - 3  # only code points newer than this Python go unnamed


@pytest.mark.parametrize(("name", "want"), [
    ("koala-20x20.png", "Koala"), ("emoji_u1f436.png", "Dog face"),
    ("1f468-200d-1f373", "Man cooking"), ("IMG_2034.jpg", "IMG 2034"),
    ("05bb2a7e91c3d4f0", None), ("123", None), ("", None),
])
def test_file_names_made_readable(name: str, want: str | None) -> None:
    assert readable(name) == want


def test_titles_fall_back_in_order() -> None:
    assert title_of("Кошка на крыше", "file:x.non", 1) == "Кошка на крыше"
    assert title_of("red_barn", None, 2) == "Red barn"  # a bare stem as title
    assert title_of(None, "file:koala.non", 3) == "Koala"
    assert title_of("05bb2a7e91", "file:1f4a3.non", 4) == "Bomb"  # a key is no title
    assert title_of(None, "webpbn", 12) == "No. 12"


def test_titles_file_tsv_and_json(tmp_path) -> None:
    tsv = tmp_path / "t.tsv"
    tsv.write_text("# key or file name, tab, title\n\n05bb2a\tThe switch\n"
                   "koala.non\tA koala, resting\n", encoding="utf-8")
    assert read_titles(str(tsv)) == {"05bb2a": "The switch", "koala.non": "A koala, resting"}
    js = tmp_path / "t.json"
    js.write_text('{"koala": "Koala \u00e0 l\'ombre"}', encoding="utf-8")
    assert read_titles(str(js)) == {"koala": "Koala \u00e0 l'ombre"}


@pytest.mark.parametrize("text", ["koala.non The koala\n", '{"a": 3}', "{not json"])
def test_a_bad_titles_file_is_one_line(tmp_path, text: str) -> None:
    f = tmp_path / "bad.txt"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as e:
        read_titles(str(f))
    assert "--titles" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(UsageError):
        read_titles(str(tmp_path / "missing.tsv"))
