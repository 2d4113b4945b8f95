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
import os
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from bs4 import BeautifulSoup, Tag

from nonoforge.errors import FetchError, FormatError, PuzzleError
from nonoforge.puzzle import RGB, WHITE, Color, Grid, Meta, Palette, Puzzle
from nonoforge.scraper.http import Http, usable_charset
from nonoforge.scraper.site import DONE, Fetched, one_line

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
_SIZE = re.compile(r"(\d{1,12})\s*[x×хX]\s*(\d{1,12})")
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


@dataclass(frozen=True)
class PageInfo:
    """What a puzzle page says about its puzzle besides the picture."""

    title: str | None = None
    author: str | None = None
    size: tuple[int, int] | None = None  # (width, height) as the page states it
    difficulty: str | None = None
    rating: str | None = None
    date: str | None = None


_LABELS = {
    "size": ("size", "размер"),
    "difficulty": ("difficulty", "сложность"),
    "author": ("author", "автор"),
    "rating": ("rating", "рейтинг"),
    "date": ("added", "date", "добавлен", "дата"),
}


def _clean(text: str | None, limit: int = MAX_TITLE) -> str | None:
    if text is None:
        return None
    s = one_line(_CONTROL.sub(" ", text), limit)
    return s or None


def _label_of(text: str) -> str | None:
    low = text.strip().lower().rstrip(":").strip()
    for field, names in _LABELS.items():
        if any(n in low for n in names):
            return field
    return None


def _value_text(cell: Tag) -> str:
    img = cell.find("img", title=True)
    text = cell.get_text(" ", strip=True)
    if not text and isinstance(img, Tag):
        return str(img.get("title"))
    return text


def _info(soup: BeautifulSoup) -> tuple[dict[str, str], list[Tag]]:
    """Label -> value from the information table rows, and the tables they came from."""
    found: dict[str, str] = {}
    tables: list[Tag] = []
    for tr in soup.find_all("tr"):
        cells = tr.find_all(["td", "th"], recursive=False)
        if not cells:
            continue
        field = _label_of(cells[0].get_text(" ", strip=True))
        if field is None or field in found:
            continue
        if len(cells) >= 2:
            value = _value_text(cells[1])
        else:  # "Size: 20x20" in one cell
            value = cells[0].get_text(" ", strip=True).partition(":")[2].strip()
        found[field] = value
        table = tr.find_parent("table")
        if isinstance(table, Tag) and all(table is not t for t in tables):
            tables.append(table)
    return found, tables


def decode_html(data: bytes, encoding: str | None = None) -> str:
    """Page bytes as text: the server's charset, else the page's ``<meta charset>``, else UTF-8."""
    m = _META_CHARSET.search(data[:4096])
    meta = m.group(1).decode("ascii") if m else None
    for name in (usable_charset(encoding), usable_charset(meta), "utf-8"):
        if name:
            try:
                return data.decode(name, errors="replace")
            except (LookupError, UnicodeError):
                continue
    return data.decode("utf-8", errors="replace")  # pragma: no cover


def parse_page(
    html: str | bytes, encoding: str | None = None
) -> tuple[list[list[int]], PageInfo, str]:
    """The ``var d`` array, the page's information and a trimmed copy of the page.

    ``html`` may be bytes (see :func:`decode_html`). The trimmed copy (title,
    information table, the ``var d`` line) is what we keep as the raw source: enough to
    parse again, a fraction of the page. FormatError when the page is not a puzzle page
    we can trust.
    """
    if len(html) > MAX_PAGE_CHARS:
        raise FormatError(f"page is larger than {MAX_PAGE_CHARS} characters")
    if isinstance(html, bytes):
        html = decode_html(html, encoding)
    soup = BeautifulSoup(html, "html.parser")
    title_el = soup.find(id="nonogram_title")
    if isinstance(title_el, Tag) and title_el.find(True) is not None:
        inner = title_el.find(True)
        name = inner.name if isinstance(inner, Tag) else "?"
        raise FormatError(f"the title holds markup (<{name}>): refusing a possibly hostile page")
    title = _clean(title_el.get_text(" ", strip=True)) if isinstance(title_el, Tag) else None

    scripts = [s for s in soup.find_all("script") if not s.get("src")]
    hits = [(s, m) for s in scripts for m in _VAR_D.finditer(s.string or "")]
    if not hits:
        raise FormatError("no `var d` puzzle array on the page")
    if len(hits) > 1:
        raise FormatError("more than one `var d` on the page")
    script, m = hits[0]
    text = script.string or ""
    match = _ARRAY.match(text, m.start())
    if not match:
        raise FormatError("`var d` is not an array of rows of four non-negative integers")
    d = json.loads(match.group(1))

    fields, tables = _info(soup)
    size = None
    if "size" in fields:
        sm = _SIZE.search(fields["size"])
        if not sm:
            raise FormatError(f"cannot read the stated size {one_line(fields['size'], 40)!r}")
        size = (int(sm.group(1)), int(sm.group(2)))
    info = PageInfo(
        title=title,
        author=_clean(fields.get("author")),
        size=size,
        difficulty=_clean(fields.get("difficulty"), 80),
        rating=_clean(fields.get("rating"), 80),
        date=_clean(fields.get("date"), 40),
    )
    parts = [str(title_el)] if isinstance(title_el, Tag) else []
    parts += [str(t) for t in tables]
    parts.append(f"<script>{match.group(0)}</script>")
    trimmed = "<html><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    return d, info, trimmed


def puzzle_from_page(
    html: str | bytes, *, site: str, item: str, encoding: str | None = None
) -> tuple[Puzzle, str]:
    """The puzzle a page carries (clues derived from its picture) and the trimmed page."""
    d, info, trimmed = parse_page(html, encoding)
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
    return puzzle, trimmed


# -- the site ---------------------------------------------------------------------------


class Nonograms:
    """nonograms.ru or nonograms.org: black-and-white page first, the colour page on 404."""

    PATHS = ("/nonograms/i/{id}", "/nonograms2/i/{id}")

    def __init__(self, http: Http, base_url: str | None = None, name: str | None = None):
        self.http = http
        self.base_url = (base_url or os.environ.get(ENV_URL) or DEFAULT_URL).rstrip("/")
        http.allow_redirects_to(*HOSTS)
        org = "nonograms.org" in self.base_url
        self.name = name or ("nonograms.org" if org else "nonograms.ru")

    def urls(self, item: int) -> list[str]:
        return [self.base_url + p.format(id=item) for p in self.PATHS]

    def fetch(self, item: int) -> Fetched:
        key = str(item)
        for url in self.urls(item):
            try:
                resp = self.http.get(url)
            except FetchError as e:
                return Fetched.failed(key, str(e), url)
            if resp.status in (404, 410):
                continue
            if not resp.ok:
                return Fetched.failed(key, f"HTTP {resp.status}: {url}", url)
            try:
                puzzle, trimmed = puzzle_from_page(
                    resp.body, site=self.name, item=key, encoding=resp.charset
                )
            except FormatError as e:
                return Fetched.failed(key, f"{e.reason}: {url}", url)
            return Fetched(key, DONE, puzzle, raw=trimmed.encode(), url=url)
        return Fetched.missing(key, "no black-and-white or colour page (404)", self.urls(item)[0])
