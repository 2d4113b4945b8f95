"""A 100-puzzle book built as a user would, then checked as a printer's preflight would.

Run from the project root: ``nice .venv/bin/python bench/book.py`` (needs ../shared). Into a
fresh SQLite corpus it generates puzzles from the shared emoji images, ingests the shared
mikix-db, survey-free and jwilk-nin corpora, rates everything (one run each), builds the
collection ``book`` of ``--count`` puzzles and exports it as a US-letter and a 6x9 book, each
with its KDP cover, plus the playable page and the dataset. Then, on each PDF, read back with
pdfium and poppler (never from our own layout records):

- pages: the count, even, and at least KDP's 24;
- numbering: every puzzle's heading in front and its solution's at the back, the same
  numbers 1..N with the same titles, and the same count as the page and the dataset;
- digits: the smallest clue digit in points (pdfium's font size of every digit on the
  puzzle pages; page numbers and headings are larger or equal);
- centring: on each puzzle page, the ink's horizontal centre against the printable box's
  (gutter and outside margin by the page's side), worst case, in millimetres;
- margins: per page, the ink's distance from the inside and outside edges against KDP's
  gutter for the page count and 0.25 in;
- fonts embedded (pdffonts), and no transparency (no soft mask, blend or opacity below 1);
- the cover: its size against 2 x trim + spine + 2 x 0.125 in, the spine from the page count.

``--png DIR`` renders chosen pages (pdftoppm) for docs/export.md. It prints figures; it
never passes or fails.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared"
HEAD = re.compile(r"^(\d+)\. (.+?)(?:, part \d+ of \d+: rows .*)?"
                  r"(?: \u00b7 (?:Easy|Medium|Hard|Very hard|Expert) \(grade \d\).*)?$")
#: What each emoji becomes: (size, colours), in turn.
SHAPES = (((15, 15), 1), ((20, 20), 3), ((25, 25), 1), ((12, 12), 2))


def build(out: Path, count: int, emoji: int) -> dict[str, Any]:
    """The corpus and the collection; what was made and how long it took."""
    from nonoforge.db import Corpus
    from nonoforge.images import generate
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.collection import BuildOptions, Filters
    from nonoforge.pipeline.rate import RateOptions
    from nonoforge.scraper.ingest import ingest_path

    out.mkdir(parents=True, exist_ok=True)
    db = out / "corpus.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    report: dict[str, Any] = {}
    with Corpus.open(str(db)) as corpus:
        t = time.process_time()
        images = sorted((SHARED / "images" / "emoji").glob("*.png"))[:emoji]
        made = []
        for k, image in enumerate(images):
            size, colours = SHAPES[k % len(SHAPES)]
            g = generate(str(image), size=size, colors=colours, seed=0)
            if g.accepted:
                made.append(g.puzzle)
        corpus.add(made)
        report["generated"] = f"{len(made)} of {len(images)} ({time.process_time() - t:.0f} s CPU)"
        for name in ("mikix-db", "survey-free", "jwilk-nin"):
            ingest_path(corpus, str(SHARED / "corpora" / name))
        t = time.process_time()
        ex = jobs.make_executor("local", 1, None)
        rated = jobs.rate_corpus(corpus, executor=ex, opts=RateOptions(runs=1))
        report["rated"] = f"{rated.to_dict()['rated']} ({time.process_time() - t:.0f} s CPU here)"
        warnings: list[str] = []
        chosen = jobs.build_collection(corpus, "book", Filters(), count=count,
                                       opts=BuildOptions(title="Picture Logic: 100 Puzzles"),
                                       warn=warnings.append)
        report["collection"] = len(chosen)
        report["warnings"] = warnings
    return report


def export(out: Path) -> dict[str, Any]:
    """The collection as a letter and a 6x9 book with their covers, a page and a dataset."""
    from nonoforge.db import Corpus
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.export import ExportOptions

    report: dict[str, Any] = {}
    warnings: list[str] = []
    with Corpus.open(str(out / "corpus.db")) as corpus:
        for to, page in (("book-letter.pdf", "letter"), ("book-6x9.pdf", "6x9"),
                         ("book.html", "a4"), ("book.jsonl", "a4")):
            t = time.process_time()
            done = jobs.export_collection(
                corpus, "book", str(out / to),
                opts=ExportOptions(page=page, overwrite=True, cover=to.endswith(".pdf")),
                warn=warnings.append)
            report[to] = {"count": done.count, "cpu_s": round(time.process_time() - t, 1),
                          "also": list(done.also)}
    report["warnings"] = warnings
    return report


# -- checks ---------------------------------------------------------------------------------


def texts(doc: Any) -> list[str]:
    return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]


def headings(page: Any) -> list[tuple[int, str]]:
    """(number, title) of every puzzle heading on a page, one text object each (a page's
    text lines would run the headings of one row of puzzles together)."""
    import pypdfium2 as pdfium

    out = []
    for obj in page.get_objects(textpage=page.get_textpage()):
        if isinstance(obj, pdfium.PdfTextObj):
            m = HEAD.match(obj.extract().strip())
            if m:
                out.append((int(m.group(1)), m.group(2).strip()))
    return out


def same_title(front: str, back: str | None) -> bool:
    """A title at the back matches the one in front, or is it cut to fit (``…``)."""
    if back is None:
        return False
    front = front.split(" \u00b7 ")[0]  # a difficulty cut short by the ellipsis
    a, b = front.rstrip("\u2026").rstrip(), back.rstrip("\u2026").rstrip()
    return a == b or (front.endswith("\u2026") and b.startswith(a)) or (
        back.endswith("\u2026") and a.startswith(b))


def digit_sizes(page: Any) -> list[float]:
    """pdfium's font size (points) of every digit on a page."""
    import pypdfium2.raw as raw

    tp = page.get_textpage()
    sizes = []
    for i in range(tp.count_chars()):
        ch = raw.FPDFText_GetUnicode(tp, i)
        if 48 <= ch <= 57:
            sizes.append(raw.FPDFText_GetFontSize(tp, i))
    return sizes


def ink_columns(doc: Any, i: int, scale: float) -> tuple[float, float] | None:
    """The leftmost and rightmost inked column (mm from the left edge), footer aside."""
    import numpy as np

    img = np.asarray(doc[i].render(scale=scale).to_pil().convert("L"))
    h = img.shape[0]
    body = img[: int(h - 14 / 25.4 * 72 * scale), :]  # above the bottom margin: no footer
    cols = np.nonzero((body < 200).any(axis=0))[0]
    if not cols.size:
        return None
    mm = 25.4 / 72 / scale
    return cols[0] * mm, (img.shape[1] - 1 - cols[-1]) * mm


def transparency(data: bytes) -> list[str]:
    """Signs of transparency in a PDF's objects and (inflated) streams."""
    found = []
    chunks = [data]
    for m in re.finditer(rb"stream\r?\n", data):
        end = data.find(b"endstream", m.end())
        try:
            chunks.append(zlib.decompress(data[m.end():end]))
        except zlib.error:
            continue
    for c in chunks:
        for pat in (rb"/SMask\s*/", rb"/S\s*/Transparency", rb"/BM\s*/(?!Normal)",
                    rb"/(?:CA|ca)\s+0?\.\d"):
            if re.search(pat, c):
                found.append(pat.decode())
    return sorted(set(found))


def check_pdf(path: Path, trim: str, count: int) -> dict[str, Any]:
    import pypdfium2 as pdfium

    from nonoforge.pipeline.pdf import INCH, OUTSIDE, TRIMS, gutter

    doc = pdfium.PdfDocument(str(path))
    pages = len(doc)
    txt = texts(doc)
    divider = next(i for i, t in enumerate(txt) if t.split()[:1] == ["Solutions"])
    heads = [headings(doc[i]) for i in range(pages)]
    fronts = [h for hs in heads[:divider] for h in hs]
    backs = [h for hs in heads[divider + 1:] for h in hs]
    front_n = dict(fronts)  # parts repeat a number: one title each
    back_n = dict(backs)
    puzzle_pages = [i for i in range(divider) if heads[i]]
    digits = [s for i in puzzle_pages for s in digit_sizes(doc[i])]
    need_in, need_out = gutter(pages), 0.25 * INCH
    worst_in = worst_out = 99.0
    bad_margins = []
    centring, centring_one = [], []
    scale = 0.7
    for i in range(pages):
        cols = ink_columns(doc, i, scale)
        if cols is None:
            continue
        left, right = cols
        right_hand = (i + 1) % 2 == 1
        inside, outside = (left, right) if right_hand else (right, left)
        worst_in, worst_out = min(worst_in, inside), min(worst_out, outside)
        if inside < need_in - 0.3 or outside < need_out - 0.3:
            bad_margins.append(i + 1)
        if i in puzzle_pages:
            w = TRIMS[trim][0]
            fl = gutter(pages) if right_hand else OUTSIDE
            fr = OUTSIDE if right_hand else gutter(pages)
            frame_mid = fl + (w - fl - fr) / 2
            ink_mid = left + (w - left - right) / 2
            centring.append(abs(ink_mid - frame_mid))
            if len(heads[i]) == 1:
                centring_one.append(abs(ink_mid - frame_mid))
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True).stdout
    rows = [ln.split() for ln in fonts.splitlines()[2:] if ln.strip()]
    embedded = all("yes" in r[-5:-2] for r in rows) if rows else False
    data = path.read_bytes()
    return {
        "pages": pages, "even": pages % 2 == 0, "at_least_24": pages >= 24,
        "puzzle_pages": len(puzzle_pages), "solution_pages": pages - divider - 1,
        "numbers_front": sorted(front_n) == list(range(1, count + 1)),
        "numbers_back": sorted(back_n) == list(range(1, count + 1)),
        "titles_alike": all(same_title(front_n[n], back_n.get(n)) for n in front_n),
        "headings_front_back": (len(fronts), len(backs)),
        "smallest_clue_digit_pt": round(min(digits), 2) if digits else None,
        "centring_worst_mm": round(max(centring), 2) if centring else None,
        "centring_worst_one_a_page_mm": round(max(centring_one), 2) if centring_one else None,
        "centring_median_mm": round(sorted(centring)[len(centring) // 2], 2) if centring else None,
        "gutter_in": round(need_in / INCH, 3),
        "inside_min_in": round(worst_in / INCH, 3), "outside_min_in": round(worst_out / INCH, 3),
        "pages_breaking_margins": bad_margins,
        "fonts": len(rows), "fonts_embedded": embedded,
        "transparency": transparency(data) or "none",
        "bytes": len(data),
    }


def check_cover(path: Path, trim: str, pages: int) -> dict[str, Any]:
    import pypdfium2 as pdfium

    from nonoforge.pipeline.pdf import INCH, PAPERS, TRIMS

    doc = pdfium.PdfDocument(str(path))
    w, h = doc[0].get_size()
    tw, th = (v / INCH for v in TRIMS[trim])
    spine = pages * PAPERS["white"]
    want = (2 * tw + spine + 0.25, th + 0.25)
    return {"size_in": (round(w / 72, 3), round(h / 72, 3)),
            "kdp_in": (round(want[0], 3), round(want[1], 3)),
            "spine_in": round(spine, 4), "transparency": transparency(path.read_bytes()) or "none"}


def render(pdf: Path, pages: list[int], stem: str, into: Path, dpi: int) -> list[str]:
    out = []
    for p in pages:
        target = into / f"{stem}-p{p:03d}"
        subprocess.run(["pdftoppm", "-png", "-r", str(dpi), "-f", str(p), "-l", str(p),
                        "-singlefile", str(pdf), str(target)], check=True)
        out.append(f"{target.name}.png")
    return out


def pick_pages(path: Path) -> list[int]:
    """Pages worth showing: title, contents, how to solve, the first puzzle page of each
    slot grid (4, 2 and 1 a page, a part), the divider's next page (solutions)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    txt = texts(doc)
    divider = next(i for i, t in enumerate(txt) if t.split()[:1] == ["Solutions"])
    shown = [1, 2]
    how = next(i for i, t in enumerate(txt) if t.startswith("How to solve"))
    shown.append(how + 1)
    seen: set[str] = set()
    for i in range(how + 1, divider):
        n = len(headings(doc[i]))
        kind = "part" if " part " in txt[i].split("\n")[0] else str(n)
        if n and kind not in seen:
            seen.add(kind)
            shown.append(i + 1)
    shown.append(divider + 2)
    return shown


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "nonoforge-book"))
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--emoji", type=int, default=40, help="images to generate from")
    ap.add_argument("--png", help="render chosen pages into this folder (docs/)")
    ap.add_argument("--skip-build", action="store_true",
                    help="export and check the collection --out holds")
    args = ap.parse_args()
    out = Path(args.out)
    if not args.skip_build:
        print(json.dumps(build(out, args.count, args.emoji), indent=1))
    print(json.dumps(export(out), indent=1))
    counts = {}
    for line in (out / "book.jsonl").read_text(encoding="utf-8").splitlines():
        counts[json.loads(line)["position"]] = json.loads(line)["display_title"]
    count = len(counts)
    html = (out / "book.html").read_text(encoding="utf-8")
    print(f"dataset {count} puzzles; page {html.count('<li value=')} links")
    for trim in ("letter", "6x9"):
        pdf = out / f"book-{trim}.pdf"
        res = check_pdf(pdf, trim, count)
        print(f"\n{pdf.name}:")
        for k, v in res.items():
            print(f"  {k:<24} {v}")
        cov = check_cover(out / f"book-{trim}-cover.pdf", trim, res["pages"])
        print(f"  cover {cov}")
        if args.png:
            into = Path(args.png)
            shown = render(pdf, pick_pages(pdf), f"book-{trim}", into, 45)
            shown += render(out / f"book-{trim}-cover.pdf", [1], f"book-{trim}-cover", into, 30)
            print(f"  rendered: {', '.join(shown)}")


if __name__ == "__main__":
    main()
