"""nonograms.ru / nonograms.org: the ``var d`` puzzle array, its decoder and encoder, the page.

A puzzle page carries its solution picture as a script line ``var d=[[a,b,c,m],...];``.
We match that line with a strict pattern and read it with :func:`json.loads`: page script
is never evaluated. :func:`decode` turns the array into a picture and its colours (the
scheme is written out in ``../shared/SITES.md`` and in ``docs/ingest.md``);
:func:`encode` is its inverse, used to build test pages, and ``decode(encode(x)) == x``.

Everything read from a page is bounded before anything is allocated: sizes, colour
counts, run counts and run positions, so a hostile page is a failure with a reason,
never a crash or a huge allocation.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from html import escape
from typing import Any
from urllib.parse import urljoin

import numpy as np
from bs4 import BeautifulSoup, Tag

from nonoforge.errors import FetchError, FormatError, PuzzleError
from nonoforge.formats.base import decode_as
from nonoforge.puzzle import RGB, WHITE, Color, Grid, Meta, Palette, Puzzle
from nonoforge.scraper.http import Http
from nonoforge.scraper.site import DONE, Fetched, SiteKind, one_line, register_site
from nonoforge.util import safe_text

DEFAULT_URL = "https://www.nonograms.ru"
#: The site's names: redirects may lead from one to another (see Http.allow_redirects_to).
HOSTS = ("nonograms.ru", "www.nonograms.ru", "nonograms.org", "www.nonograms.org")
ENV_URL = "NONOFORGE_NONOGRAMS_URL"

#: Largest side we accept (the sites' biggest puzzles are far smaller).
MAX_SIDE = 1000
MAX_COLORS = 60
#: Pages larger than this are not parsed (real ones are a few hundred kilobytes).
MAX_PAGE_CHARS = 4 * 2**20
MAX_TITLE = 200

LICENCE = (
    "Copyright of its author. Published on {site} to be solved there; "
    "downloaded for personal use only, not for redistribution."
)

_VAR_D = re.compile(r"\bvar\s+d\s*=")
_ROW = r"\[\s*\d{1,12}\s*(?:,\s*\d{1,12}\s*){3}\]"
_ARRAY = re.compile(r"var\s+d\s*=\s*(\[\s*" + _ROW + r"(?:\s*,\s*" + _ROW + r")*\s*\])\s*;")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset=["']?([A-Za-z0-9_-]{1,40})""", re.I)


# -- the var d scheme ------------------------------------------------------------------


@dataclass(frozen=True)
class Decoded:
    """A decoded ``var d``: the picture (colour indices, 0 = white) and colours 1..C."""

    grid: np.ndarray
    colors: tuple[RGB, ...]

    @property
    def width(self) -> int:
        return int(self.grid.shape[1])

    @property
    def height(self) -> int:
        return int(self.grid.shape[0])


def _row(d: Sequence[Sequence[int]], i: int, what: str) -> Sequence[int]:
    if i >= len(d):
        raise FormatError(f"var d ends before its {what} (row {i})")
    row = d[i]
    if len(row) != 4:
        raise FormatError(f"var d row {i} ({what}) has {len(row)} numbers, not 4")
    return row


def _f(x: Sequence[int], what: str) -> int:
    if x[3] <= 0:
        raise FormatError(f"var d: the modulus of the {what} is zero")
    m = x[3]
    return x[0] % m + x[1] % m - x[2] % m


def decode(d: Sequence[Sequence[int]]) -> Decoded:
    """The picture and colours a ``var d`` array encodes; FormatError on anything out of bounds.

    Every number is checked before use, so no value in the array can make this allocate
    more than a ``MAX_SIDE x MAX_SIDE`` byte grid.
    """
    if any(not isinstance(v, int) or v < 0 for r in d for v in r):
        raise FormatError("var d holds something other than non-negative integers")
    width = _f(_row(d, 1, "width"), "width")
    height = _f(_row(d, 2, "height"), "height")
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise FormatError(f"var d: absurd size {width}x{height} (limit {MAX_SIDE})")
    ncolors = _f(_row(d, 3, "colour count"), "colour count")
    if not 1 <= ncolors <= MAX_COLORS:
        raise FormatError(f"var d: absurd colour count {ncolors} (limit {MAX_COLORS})")
    key = _row(d, 4, "colour key")
    colors: list[RGB] = []
    for i in range(1, ncolors + 1):
        e = _row(d, 4 + i, f"colour {i}")
        rgb = (e[0] - key[1], e[1] - key[0], e[2] - key[3])
        if any(not 0 <= v <= 255 for v in rgb):
            raise FormatError(f"var d: colour {i} is not an RGB colour {rgb}")
        colors.append(rgb)
    x = _row(d, 5 + ncolors, "run count")
    if x[3] <= 0:
        raise FormatError("var d: the modulus of the run count is zero")
    m = x[3]
    nruns = (x[0] % m) ** 2 + 2 * (x[1] % m) + x[2] % m
    if nruns > width * height:
        raise FormatError(f"var d: {nruns} runs cannot fit a {width}x{height} picture")
    if 7 + ncolors + nruns > len(d):
        raise FormatError(f"var d announces {nruns} runs but has only {len(d)} rows")
    j = _row(d, 6 + ncolors, "run key")
    grid = np.zeros((height, width), dtype=np.uint8)
    for n in range(nruns):
        i = 7 + ncolors + n
        y = _row(d, i, "run")
        col, length, color, row = y[0] - j[0] - 1, y[1] - j[1], y[2] - j[2], y[3] - j[3] - 1
        if not (0 <= row < height and col >= 0 and length >= 1 and col + length <= width):
            raise FormatError(
                f"var d: run {n + 1} (row {row + 1}, column {col + 1}, length {length}) "
                f"lies outside the {width}x{height} picture"
            )
        if not 1 <= color <= ncolors:
            raise FormatError(f"var d: run {n + 1} has colour {color}, not 1..{ncolors}")
        grid[row, col : col + length] = color
    return Decoded(grid, tuple(colors))


def _f_row(value: int, rng: random.Random) -> list[int]:
    """A row ``x`` with ``x0 % x3 + x1 % x3 - x2 % x3 == value``."""
    m = value + rng.randint(2, 40)
    rc = rng.randrange(m)
    ra = rng.randint(max(0, value + rc - m + 1), min(m - 1, value + rc))
    rb = value + rc - ra
    return [ra + rng.randint(0, 9) * m, rb + rng.randint(0, 9) * m, rc + rng.randint(0, 9) * m, m]


def _count_row(n: int, rng: random.Random) -> list[int]:
    """A row ``x`` with ``(x0 % m)**2 + 2 * (x1 % m) + x2 % m == n`` for ``m = x3``."""
    p = math.isqrt(n)
    rest = n - p * p
    q, s = divmod(rest, 2)
    m = max(p, q, s) + rng.randint(2, 30)
    return [p + rng.randint(0, 9) * m, q + rng.randint(0, 9) * m, s + rng.randint(0, 9) * m, m]


def runs_of(grid: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The horizontal runs of a picture as ``(row, column, length, colour)``, row by row."""
    out: list[tuple[int, int, int, int]] = []
    for r, line in enumerate(np.asarray(grid).tolist()):
        c = 0
        while c < len(line):
            v = line[c]
            start = c
            while c < len(line) and line[c] == v:
                c += 1
            if v:
                out.append((r, start, c - start, int(v)))
    return out


def encode(
    grid: np.ndarray | Grid, colors: Sequence[RGB], *, seed: int = 0, trailing: int = 2
) -> list[list[int]]:
    """A ``var d`` array for a picture (0 = white, 1..C = ``colors``), with random keys.

    The inverse of :func:`decode`; the keys and padding come from a seeded RNG so that a
    test page is the same on every run.
    """
    cells = grid.cells if isinstance(grid, Grid) else np.asarray(grid)
    height, width = cells.shape
    if not 1 <= len(colors) <= MAX_COLORS:
        raise ValueError(f"need 1..{MAX_COLORS} colours, got {len(colors)}")
    if int(cells.max(initial=0)) > len(colors):
        raise ValueError("the picture uses a colour that is not given")
    rng = random.Random(seed)

    def noise() -> list[int]:
        return [rng.randint(0, 999) for _ in range(4)]

    d = [noise(), _f_row(width, rng), _f_row(height, rng), _f_row(len(colors), rng)]
    key = noise()
    d.append(key)
    for r, g, b in colors:
        flag = rng.randint(0, 1)
        d.append([r + key[1], g + key[0], b + key[3], flag + r + key[2]])
    runs = runs_of(cells)
    d.append(_count_row(len(runs), rng))
    j = noise()
    d.append(j)
    for row, col, length, color in runs:
        d.append([col + 1 + j[0], length + j[1], color + j[2], row + 1 + j[3]])
    d.extend(noise() for _ in range(trailing))
    return d


def format_d(d: Sequence[Sequence[int]]) -> str:
    """The script line a page carries for ``d``."""
    return "var d=" + json.dumps([list(r) for r in d], separators=(",", ":")) + ";"


def palette_of(colors: Sequence[RGB]) -> Palette:
    """White background and the decoded colours; one black colour is plain black-and-white."""
    if len(colors) == 1 and tuple(colors[0]) == (0, 0, 0):
        return Palette.bw()
    named: list[Color] = [WHITE]
    seen: set[str] = {"white"}
    for rgb in colors:
        name = "{:02x}{:02x}{:02x}".format(*rgb)
        base, n = name, 2
        while name in seen:
            name, n = f"{base}-{n}", n + 1
        seen.add(name)
        named.append(Color(name, rgb))
    return Palette(tuple(named))


# -- the page ---------------------------------------------------------------------------
#
# What a real page looks like (nonograms.org, 2023; nonograms.ru has the same structure
# with Russian labels): the information table is ONE row of cells, each a label and its
# value: ``Size: 15x15`` · ``Picture:<img title="6/10">`` · ``Difficulty:<img
# title="3/10">`` · ``Added:`` · ``22.12.22`` · ``Author: <a id="nonogram_author_name"
# href=".../user/ID">``. The same words appear elsewhere on the page (an outer layout
# table, the menu, the comment form's difficulty <select>), so nothing is looked up by a
# label anywhere on the page: the row is found by its structure (the cell that is exactly
# ``Label: WxH``), and only its cells are read.


class PageMissing(FormatError):
    """The page says the puzzle is gone (a deleted puzzle answers 200 with a red notice)."""


@dataclass(frozen=True)
class PageInfo:
    """What a puzzle page says about its puzzle besides the picture."""

    title: str | None = None
    author: str | None = None
    size: tuple[int, int] | None = None  # (width, height) as the page states it
    difficulty: str | None = None  # the site's difficulty, "3/10"
    rating: str | None = None  # the site's picture rating, "6/10"
    date: str | None = None  # the date added, ISO "2022-12-22" when it reads as a date
    author_id: str | None = None
    stat_url: str | None = None  # the site's picture of solving statistics
    answer_url: str | None = None
    adult: bool = False
    color: bool | None = None  # what the page's <title> says (None: it does not say)

    def extra(self) -> dict[str, Any]:
        """The site's fields kept as provenance ``extra`` (JSON-serialisable)."""
        return {
            "difficulty": self.difficulty,
            "rating": self.rating,
            "added": self.date,
            "author": self.author,
            "author_id": self.author_id,
            "stat_url": self.stat_url,
            "answer_url": self.answer_url,
            "adult": self.adult,
        }


#: Labels of the information row, English and Russian (a label we do not know is read by
#: position: the site's order is size, picture rating, difficulty, date, author).
_LABELS = {
    "size": ("size", "размер"),
    "rating": ("picture", "rating", "рисунок", "рейтинг", "картинка"),
    "difficulty": ("difficulty", "сложность"),
    "date": ("added", "date", "добавлен", "добавлено", "дата"),
    "author": ("author", "автор"),
}
_X = "[x×хХX*]"
_SIZE = re.compile(r"(\d{1,12})\s*" + _X + r"\s*(\d{1,12})")
_SIZE_CELL = re.compile(r"^\s*([^\W\d_][^:\d]{0,30}):\s*(\d{1,12})\s*" + _X + r"\s*(\d{1,12})\s*$")
_SIZE_LABEL = re.compile(r"^\s*(size|размер)\s*:", re.I)
_SCORE = re.compile(r"^\s*(\d{1,3})\s*/\s*(\d{1,3})\s*$")
_DATE = re.compile(
    r"^\s*(\d{1,2})\.(\d{1,2})\.(\d{2}|\d{4})(?:[\s,]+\d{1,2}:\d{2}(?::\d{2})?)?\s*$"
)
_USER_ID = re.compile(r"/user/(\d{1,12})(?:[/?#]|$)")
_NAME_IN_TITLE = re.compile(r"«(.*?)»", re.S)
_RED = re.compile(r"(?<![-\w])color\s*:\s*(red|#f00\b|#ff0000\b)", re.I)
_IDS = ("nonogram_title", "nonogram_author_name", "nonogram_stat", "nonogram_answer")
_COLOR_TITLE = ("color", "colour", "цветной")
_BW_TITLE = ("black", "черно", "чёрно")


def _clean(text: str | None, limit: int = MAX_TITLE) -> str | None:
    if text is None:
        return None
    s = one_line(safe_text(_CONTROL.sub(" ", text), limit * 4), limit)
    return s or None


def _label_field(label: str) -> str | None:
    low = label.strip().lower()
    for field, names in _LABELS.items():
        if low in names:
            return field
    return None


def _iso_date(text: str) -> str | None:
    m = _DATE.match(text)
    if not m:
        return None
    day, month, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if year < 100:
        year += 2000  # the sites opened in the 2000s: "22.12.22" is 2022
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _absolute(href: str | None, base: str | None) -> str | None:
    if not href:
        return None
    href = href.strip()
    if not base:
        return _clean(href, 500)
    return _clean(urljoin(base, href), 500)


_SIZE_TEXT = re.compile(r"\d\s*" + _X + r"\s*\d")


def _info_row(soup: BeautifulSoup) -> Tag | None:
    """The information row: the ``<tr>`` holding a cell that is exactly ``Label: WxH``.

    Only innermost cells count (an outer layout cell holds the whole table's text), and
    among several candidates the one inside ``div.content`` wins. Candidates are found
    from the text nodes that hold a ``WxH`` (not by reading every cell of the page: a big
    puzzle's page has tens of thousands).
    """
    found: list[Tag] = []
    for text in soup.find_all(string=_SIZE_TEXT):
        td = text.find_parent("td")
        if not isinstance(td, Tag) or any(td is f for f in found):
            continue
        if td.find(["td", "table"]) is not None:
            continue
        if _SIZE_CELL.match(td.get_text(" ", strip=True)) and isinstance(td.parent, Tag):
            found.append(td)
    rows = [td.parent for td in found if isinstance(td.parent, Tag)]
    for tr in rows:
        if tr.find_parent("div", class_="content") is not None:
            return tr
    return rows[0] if rows else None


def _score_of(td: Tag) -> str | None:
    """A cell's score picture's text: its title (and, on some pages, its alt)."""
    img = td.find("img")
    mark = (img.get("title") or img.get("alt")) if isinstance(img, Tag) else None
    return str(mark).strip() if mark else None


def _read_row(tr: Tag) -> dict[str, str]:
    """Field -> value from the cells of the information row."""
    out: dict[str, str] = {}
    scores: list[str] = []
    pending: str | None = None  # a label cell whose value is the next cell ("Added:" · date)
    for td in tr.find_all(["td", "th"], recursive=False):
        text = td.get_text(" ", strip=True)
        label, colon, value = text.partition(":")
        field = _label_field(label) if colon else None
        value = value.strip()
        score = _score_of(td)
        if score is not None and field in ("rating", "difficulty"):
            out.setdefault(field, score)
            pending = None
            continue
        if score is not None and _SCORE.match(score):
            scores.append(score)
            pending = None
            continue
        if field == "size":
            out.setdefault("size", value or text)
        elif field in ("date", "author") and value:
            out.setdefault(field, value)
        elif field is not None and not value:
            pending = field
            continue
        elif pending is not None and text:
            out.setdefault(pending, text)
        elif _iso_date(text):
            out.setdefault("date", text)
        pending = None
    # labels we could not name: the site's order is picture rating, then difficulty
    for field in ("rating", "difficulty"):
        if field not in out and scores:
            out[field] = scores.pop(0)
    return out


def _missing_notice(soup: BeautifulSoup) -> str | None:
    """The text of a red notice (how the sites say a puzzle was deleted), or None."""
    for el in soup.find_all(["div", "p", "span", "font"], style=True):
        if _RED.search(str(el.get("style"))):
            text = _clean(el.get_text(" ", strip=True), 200)
            if text:
                return text
    return None


def decode_html(data: bytes, encoding: str | None = None) -> str:
    """Page bytes as text: a BOM, else the server's charset, else ``<meta charset>``, else UTF-8.

    An unknown charset name is skipped, never an error; undecodable bytes are replaced.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    m = _META_CHARSET.search(data[:4096])
    meta = m.group(1).decode("ascii") if m else None
    for name in (encoding, meta):
        text = decode_as(data, name)
        if text is not None:
            return text
    return data.decode("utf-8", errors="replace")


def _by_id(soup: BeautifulSoup) -> dict[str, Tag]:
    """The first element of each id we read, found in one pass over the page."""
    by_id: dict[str, Tag] = {}
    for el in soup.find_all(id=list(_IDS)):
        if isinstance(el, Tag):
            by_id.setdefault(str(el.get("id")), el)
    return by_id


def _title(title_el: Tag | None, head_text: str) -> str | None:
    """The puzzle's name: its title element (refused if it holds markup), else the
    «name» in the page's ``<title>``."""
    if title_el is not None:
        inner = title_el.find(True)
        if inner is not None:
            name = inner.name if isinstance(inner, Tag) else "?"
            raise FormatError(
                f"the title holds markup (<{name}>): refusing a possibly hostile page"
            )
        title = _clean(title_el.get_text(" ", strip=True))
        if title is not None:
            return title
    m_name = _NAME_IN_TITLE.search(head_text)
    return _clean(m_name.group(1)) if m_name else None


def _color_from_title(head_text: str) -> bool | None:
    """What the page's ``<title>`` says: colour (True), black-and-white (False), or None."""
    low = head_text.lower()
    if any(w in low for w in _COLOR_TITLE):
        return True
    return False if any(w in low for w in _BW_TITLE) else None


def _var_d(soup: BeautifulSoup) -> tuple[list[list[int]], str]:
    """The one ``var d`` array of the page's inline scripts, and its statement's text."""
    scripts = [s for s in soup.find_all("script") if not s.get("src")]
    hits = [(s, m) for s in scripts for m in _VAR_D.finditer(s.string or "")]
    if not hits:
        notice = _missing_notice(soup)
        if notice is not None:
            raise PageMissing(f"deleted: the page says \"{notice}\"")
        raise FormatError("no `var d` puzzle array on the page")
    if len(hits) > 1:
        raise FormatError("more than one `var d` on the page")
    script, m = hits[0]
    match = _ARRAY.match(script.string or "", m.start())
    if not match:
        raise FormatError("`var d` is not an array of rows of four non-negative integers")
    return json.loads(match.group(1)), match.group(0)


def _find_info_row(soup: BeautifulSoup) -> Tag | None:
    """:func:`_info_row`, else the slow way ("WxH" split over elements); a size cell we
    cannot read is an error rather than a page without a size."""
    row = _info_row(soup)
    if row is not None:
        return row
    cells = [(td, td.get_text(" ", strip=True)) for td in soup.find_all("td")
             if td.find(["td", "table"]) is None]  # fmt: skip
    row = next((td.parent for td, cell in cells
                if _SIZE_CELL.match(cell) and isinstance(td.parent, Tag)), None)  # fmt: skip
    if row is None:
        for _, cell in cells:
            if _SIZE_LABEL.match(cell) and cell.partition(":")[2].strip():
                raise FormatError(f"cannot read the stated size {one_line(cell, 40)!r}")
    return row


def _stated_size(fields: dict[str, str]) -> tuple[int, int] | None:
    if "size" not in fields:
        return None
    sm = _SIZE.search(fields["size"])
    if not sm:
        raise FormatError(f"cannot read the stated size {one_line(fields['size'], 40)!r}")
    return (int(sm.group(1)), int(sm.group(2)))


def _author(author_el: Tag | None, fields: dict[str, str]) -> tuple[str | None, str | None]:
    """The author's name and site id: from the author link, else the information row."""
    author = author_id = None
    if author_el is not None:
        author = _clean(author_el.get_text(" ", strip=True))
        um = _USER_ID.search(str(author_el.get("href") or ""))
        author_id = um.group(1) if um else None
    if author is None:
        author = _clean(fields.get("author"))
    return author, author_id


def _link(el: Tag | None, url: str | None) -> str | None:
    href = (el.get("href") or el.get("src")) if el is not None else None
    return _absolute(str(href) if href else None, url)


def _trimmed(
    head_text: str, info: PageInfo, by_id: dict[str, Tag], row: Tag | None, statement: str
) -> str:
    """The parts of the page we keep as its raw source: enough to parse it again."""
    parts = [f"<title>{escape(head_text)}</title>"] if head_text else []
    if info.adult:
        parts.append('<div class="nonogram_title_adult"></div>')
    if "nonogram_title" in by_id:
        parts.append(str(by_id["nonogram_title"]))
    if row is not None:
        table = row.find_parent("table")
        parts.append(str(table if isinstance(table, Tag) else row))
    elif "nonogram_author_name" in by_id:
        parts.append(str(by_id["nonogram_author_name"]))
    for key in ("nonogram_answer", "nonogram_stat"):
        link = by_id.get(key)
        if link is not None and link.name in ("a", "img"):
            parts.append(str(link))
    parts.append(f"<script>{statement}</script>")
    return "<html><body>\n" + "\n".join(parts) + "\n</body></html>\n"


def parse_page(
    html: str | bytes, encoding: str | None = None, url: str | None = None
) -> tuple[list[list[int]], PageInfo, str]:
    """The ``var d`` array, the page's information and a trimmed copy of the page.

    ``html`` may be bytes (see :func:`decode_html`); ``url`` (where the page came from)
    makes its links absolute. The trimmed copy (title, information table, links, the
    ``var d`` line) is what we keep as the raw source: enough to parse again, a fraction
    of the page. :class:`PageMissing` when the page says the puzzle was deleted;
    FormatError when the page is not a puzzle page we can trust.
    """
    if len(html) > MAX_PAGE_CHARS:
        raise FormatError(f"page is larger than {MAX_PAGE_CHARS} characters")
    if isinstance(html, bytes):
        html = decode_html(html, encoding)
    soup = BeautifulSoup(html.removeprefix("\ufeff"), "html.parser")
    by_id = _by_id(soup)
    head_title = soup.find("title")
    head_text = head_title.get_text(" ", strip=True) if isinstance(head_title, Tag) else ""
    title = _title(by_id.get("nonogram_title"), head_text)
    d, statement = _var_d(soup)
    row = _find_info_row(soup)
    fields = _read_row(row) if row is not None else {}
    size = _stated_size(fields)
    author, author_id = _author(by_id.get("nonogram_author_name"), fields)
    date_text = fields.get("date")
    info = PageInfo(
        title=title,
        author=author,
        size=size,
        difficulty=_clean(fields.get("difficulty"), 20),
        rating=_clean(fields.get("rating"), 20),
        date=(_iso_date(date_text) or _clean(date_text, 40)) if date_text else None,
        author_id=author_id,
        stat_url=_link(by_id.get("nonogram_stat"), url),
        answer_url=_link(by_id.get("nonogram_answer"), url),
        adult=soup.find(class_="nonogram_title_adult") is not None,
        color=_color_from_title(head_text),
    )
    return d, info, _trimmed(head_text, info, by_id, row, statement)


def read_page(
    html: str | bytes,
    *,
    site: str,
    item: str,
    encoding: str | None = None,
    url: str | None = None,
) -> tuple[Puzzle, str, PageInfo]:
    """The puzzle a page carries, the trimmed page and what the page says about it.

    The decoded picture is the designer's goal: the puzzle carries it, so the corpus
    keeps it. The size the page states must be the decoded picture's.
    """
    d, info, trimmed = parse_page(html, encoding, url)
    dec = decode(d)
    if info.size is not None and info.size != (dec.width, dec.height):
        raise FormatError(
            f"the page says {info.size[0]}x{info.size[1]} but the picture is "
            f"{dec.width}x{dec.height}"
        )
    note = None
    if info.difficulty:
        note = f"{site} difficulty: {info.difficulty}"
    meta = Meta(
        title=info.title,
        author=info.author,
        licence=LICENCE.format(site=site),
        source=site,
        source_id=item,
        note=note,
    )
    try:
        puzzle = Puzzle.from_grid(Grid(dec.grid), palette_of(dec.colors), meta)
    except PuzzleError as e:
        raise FormatError(f"the picture makes no puzzle: {e}") from None
    return puzzle, trimmed, info


# -- the site ---------------------------------------------------------------------------


class Nonograms:
    """nonograms.ru or nonograms.org: black-and-white page first, the colour page on 404."""

    PATHS = ("/nonograms/i/{id}", "/nonograms2/i/{id}")

    def __init__(self, http: Http, base_url: str | None = None, name: str | None = None):
        self.http = http
        self.base_url = KIND.base_url(base_url)
        http.allow_redirects_to(*HOSTS)
        org = "nonograms.org" in self.base_url
        self.name = name or ("nonograms.org" if org else "nonograms.ru")

    @classmethod
    def open(cls, http: Http, base_url: str | None, settings: Mapping[str, str]) -> Nonograms:
        """The site as the registry opens it (:class:`SiteKind`): no settings of its own."""
        return cls(http, base_url)

    def urls(self, item: int) -> list[str]:
        return [self.base_url + p.format(id=item) for p in self.PATHS]

    def fetch(self, item: int) -> Fetched:
        key = str(item)
        for url in self.urls(item):
            try:
                resp = self.http.get(url)
            except FetchError as e:
                return Fetched.failed(key, str(e), url, network=True)
            if resp.status in (404, 410):
                continue
            if not resp.ok:
                return Fetched.failed(key, f"HTTP {resp.status}: {url}", url, network=True)
            try:
                puzzle, trimmed, info = read_page(
                    resp.body, site=self.name, item=key, encoding=resp.charset, url=url
                )
            except PageMissing as e:  # deleted: definite, never retried
                return Fetched.missing(key, f"{e.reason}: {url}", url)
            except FormatError as e:
                return Fetched.failed(key, f"{e.reason}: {url}", url)
            return Fetched(key, DONE, puzzle, raw=trimmed.encode(), url=url, extra=info.extra())
        return Fetched.missing(key, "no black-and-white or colour page (404)", self.urls(item)[0])


KIND = register_site(SiteKind(
    name="nonograms",
    description="Puzzles from nonograms.ru (or .org with --base-url): the black-and-white "
                "page, else the colour one; clues are derived from the solution the page "
                "carries.",
    env_url=ENV_URL,
    default_url=DEFAULT_URL,
    open=Nonograms.open,
    licence=LICENCE,
    example="1-100",
))
