"""ROFL v3 sizes and speed: bytes per puzzle against .non text, gzip -9 and xz -9, and throughput.

Run from the project root: ``.venv/bin/python bench/rofl.py`` (needs ../shared/corpora).
Prints one table per corpus, a comparison of integer coders on the clue numbers, the size of
a corpus export, encode/decode throughput (CPU time of this process, best of several rounds,
kernels compiled and warm), and the targets of issue 19 met or not. Figures go into
docs/rofl.md.
"""

from __future__ import annotations

import gc
import gzip
import io
import lzma
import math
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.formats import dumps as fmt_dumps  # noqa: E402
from nonoforge.formats import read_file, rofl  # noqa: E402
from nonoforge.formats.base import strip_meta  # noqa: E402
from nonoforge.formats.rofl.container import _frame  # noqa: E402
from nonoforge.formats.rofl.kernels import _kernels  # noqa: E402
from nonoforge.puzzle import Puzzle  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"


def load_tournament(path: Path) -> list[Puzzle]:
    """The tournament reader when it is there, else an inline parser of the same format."""
    try:
        return [strip_meta(p) for p in read_file(path, "tournament")]
    except Exception:  # the reader is written concurrently: fall back to parsing here
        out: list[list[list[int]]] = []
        cur: list[list[int]] | None = None
        for line in path.read_text().splitlines():
            if line.startswith("$"):
                cur = []
                out.append(cur)
            elif cur is not None:
                cur.append([int(x) for x in line.split("\t") if x.strip()])
        return [Puzzle.from_clues(rows=c[25:], columns=c[:25]) for c in out]


def entropy_bytes(values: list[int], n: int) -> float:
    """Order-0 entropy of ``values``, in bytes per puzzle over ``n`` puzzles."""
    c = Counter(values)
    total = len(values)
    return -sum(v * math.log2(v / total) for v in c.values()) / 8 / n


def sizes(name: str, puzzles: list[Puzzle], non_texts: list[bytes]) -> dict[str, float]:
    n = len(puzzles)
    whole = b"".join(non_texts)
    payloads = [rofl.encode(p) for p in puzzles]
    records = [_frame(b) for b in payloads]
    numbers = [b.length for p in puzzles for _, _, c in p.lines() for b in c]
    counts = [len(c) for p in puzzles for _, _, c in p.lines()]
    row = {
        ".non text": len(whole) / n,
        "gzip -9 (whole corpus)": len(gzip.compress(whole, 9)) / n,
        "xz -9e (whole corpus)": len(lzma.compress(whole, preset=9 | lzma.PRESET_EXTREME)) / n,
        "order-0 entropy: clue numbers": entropy_bytes(numbers, n),
        "order-0 entropy: numbers + blocks a line": entropy_bytes(numbers, n)
        + entropy_bytes(counts, n),
        "ROFL payload (encode)": sum(map(len, payloads)) / n,
        "ROFL record (framed)": sum(map(len, records)) / n,
        "ROFL container, no index": len(rofl.dumps(puzzles, index=False)) / n,
        "ROFL container, indexed": len(rofl.dumps(puzzles)) / n,
    }
    print(f"\n{name}: {n} puzzles, bytes per puzzle")
    for k, v in row.items():
        print(f"  {k:<42} {v:8.1f}")
    return row


def model_bits(p: Puzzle) -> float:
    """Bits of a puzzle's clues under ROFL v3's model without rounding: each line
    ``-log2(C(n-s+1, k) q^s (1-q)^(n-s))``, ``q`` the puzzle's density in 32nds (5 bits)."""
    cells = p.width * p.height
    painted = sum(b.length for c in p.rows for b in c)
    q = min(max((64 * painted + cells) // (2 * cells), 1), 31) / 32
    bits = math.log2(31)
    for kind, _, c in p.lines():
        n = p.width if kind == "row" else p.height
        s, k = sum(b.length for b in c), len(c)
        bits -= math.log2(math.comb(n - s + 1, k)) + s * math.log2(q) + (n - s) * math.log2(1 - q)
    return bits


def coder_costs(name: str, puzzles: list[Puzzle]) -> None:
    """Bits the clue numbers would take under other integer coders (lengths and counts)."""
    n = len(puzzles)

    def gamma(x: int) -> int:
        return 2 * x.bit_length() - 1

    def rice_best(vals: list[int]) -> int:
        return min(sum((v >> k) + 1 + k for v in vals) for k in range(16))

    tot: dict[str, float] = defaultdict(float)  # bits, in order of first mention
    for p in puzzles:
        lines = [c for _, _, c in p.lines()]
        lens = [b.length - 1 for c in lines for b in c]
        cnts = [len(c) for c in lines]
        width = max(lens, default=0).bit_length()
        tot["lengths: Elias-gamma"] += sum(gamma(v + 1) for v in lens)
        tot["lengths: adaptive fixed width"] += 5 + width * len(lens)
        tot["lengths: Rice, best k a puzzle (ROFL v2)"] += 4 + rice_best(lens)
        tot["counts: Elias-gamma(count+1)"] += sum(gamma(c + 1) for c in cnts)
        tot["counts: Rice, best k"] += 4 + rice_best(cnts)
        med = sorted(cnts)[(len(cnts) - 1) // 2]
        zz = [2 * (c - med) if c >= med else 2 * (med - c) - 1 for c in cnts]
        tot["counts: Rice of zigzag(count - median) (ROFL v2)"] += (
            4 + gamma(med + 1) + rice_best(zz)
        )
        tot["lines under the random-picture model, ideal (ROFL v3)"] += model_bits(p)
    print(f"\n{name}: integer coders, bytes per puzzle")
    for k, v in tot.items():
        print(f"  {k:<46} {v / 8 / n:8.1f}")


def best_rate(fn: Callable[[], object], n: int, rounds: int = 5) -> float:
    best = math.inf
    for _ in range(rounds):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return n / best


def throughput(name: str, puzzles: list[Puzzle]) -> tuple[float, float]:
    _kernels(jit=True)
    rofl.decode(rofl.encode(puzzles[0]))
    n = len(puzzles)
    payloads = [rofl.encode(p) for p in puzzles]
    data = rofl.dumps(puzzles)
    enc = best_rate(lambda: [rofl.encode(p) for p in puzzles], n)
    dec = best_rate(lambda: [None for b in payloads if rofl.decode(b) is None], n)
    dec_list = best_rate(lambda: [rofl.decode(b) for b in payloads], n)
    dump = best_rate(lambda: rofl.dump(puzzles, io.BytesIO()), n)
    load = best_rate(lambda: [None for p in rofl.iter_load(data) if p is None], n)
    gc.collect()
    print(f"\n{name}: throughput, puzzles per second (CPU time, best of 5)")
    print(f"  encode                          {enc:10.0f}")
    print(f"  decode (each puzzle dropped)    {dec:10.0f}")
    print(f"  decode into a list              {dec_list:10.0f}")
    print(f"  dump (container)                {dump:10.0f}")
    print(f"  iter_load (container, checked)  {load:10.0f}")
    return enc, dec


def corpus_export(question: Path) -> float:
    """Bytes per puzzle of ``db export`` after ``db import`` of a tournament file (its goals
    come from ../solution/, its provenance is ``file:NAME`` and the puzzle's number)."""
    from nonoforge.db import Corpus

    with tempfile.TemporaryDirectory() as tmp, Corpus.open(Path(tmp) / "c.db") as c:
        c.import_files([question])
        out = Path(tmp) / "export.rofl"
        n = c.export_rofl(out)
        ps = list(rofl.iter_load(out.read_bytes()))
        goals = sum(p.goal is not None for p in ps)
        size = out.stat().st_size
    print(f"\ndb import + db export of {question.name}: {n} puzzles, {goals} goals, "
          f"{size} bytes = {size / n:.1f} bytes per puzzle (metadata and goals)")
    return size / n


def main() -> None:
    if not CORPORA.exists():
        sys.exit(f"{CORPORA} is absent")
    taai = CORPORA / "tournament" / "question" / "taai2011.txt"
    export = corpus_export(taai)
    tsets = {}
    for stem in ("taai2011", "tcga2016"):
        ps = load_tournament(CORPORA / "tournament" / "question" / f"{stem}.txt")
        tsets[stem] = ps
        texts = [str(fmt_dumps(p, "non")).encode() for p in ps]
        sizes(f"tournament {stem}", ps, texts)
        coder_costs(f"tournament {stem}", ps)
    full = read_file(taai)  # by path: goals from ../solution/, $N as the source id
    sizes("tournament taai2011 (goals and ids kept)", full,
          [str(fmt_dumps(p, "non")).encode() for p in full])
    files = sorted((CORPORA / "survey-free").glob("*.non"))
    survey = [p for f in files for p in read_file(f)]
    texts = [f.read_bytes() for f in files]
    sizes("survey-free (metadata and goal kept)", survey, texts)
    bare = [strip_meta(p) for p in survey]
    sizes(
        "survey-free (clues only)", bare, [str(fmt_dumps(p, "non")).encode() for p in bare]
    )
    coder_costs("survey-free", bare)
    clues = sum(len(rofl.encode(p)) for p in tsets["taai2011"]) / len(tsets["taai2011"])
    enc, dec = throughput("tournament taai2011", tsets["taai2011"])
    throughput("survey-free (goal mode)", survey)
    big = Puzzle.from_grid(np.random.default_rng(1).integers(0, 2, (200, 200)))
    throughput("one random 200x200 (clues only)", [big.replace(goal=None)] * 200)
    print("\nissue 19 targets (TAAI 2011; CPU time on a shared 2-core machine):")
    for what, value, ok in (
        ("clues only, payload bytes per puzzle <= 85", f"{clues:.1f}", clues <= 85),
        ("db export (metadata, goals), bytes per puzzle <= 100", f"{export:.1f}", export <= 100),
        ("encode >= 30,000 puzzles/s", f"{enc:,.0f}", enc >= 30_000),
        ("decode >= 30,000 puzzles/s", f"{dec:,.0f}", dec >= 30_000),
    ):
        print(f"  {what:<54} {value:>10}  {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
