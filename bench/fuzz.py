"""Fuzz every reader and the ROFL decoder with mutated real files, for a given time.

Seeds are the shared sample files (``/work/shared/samples/formats/*``), a few corpus files
and the test data, plus each format's own writing of two puzzles (so formats with no
third-party sample, such as JSON and ROFL, are covered too). Each iteration takes a seed
of the target, applies one to four seeded mutations (bit flips, byte runs, splices with
another seed, numbers swapped for awkward ones, control characters, surrogates, repeated
lines), and reads it. An *escape* is any exception outside nonoforge's error family
(:class:`~nonoforge.errors.NonoforgeError`), or an input that takes longer than the
per-input limit. Each distinct escape (target, exception type, innermost nonoforge line)
is kept once, with the input that caused it written to ``--out``.

The ROFL kernels are compiled before the clock starts; ``NONOFORGE_ROFL_JIT=0`` fuzzes
their plain-Python versions instead (what a few conversions use before compiling).

Targets: every registered format read by name (``loads(data, fmt)``, strictly and as
batches read it, ``on_error="collect"``, the first's puzzles a prefix of the second's) and
written back when it reads, detection by content (``detect``), and the ROFL decoder on its own:
one record payload (``rofl-record``) and a damaged container salvaged (``rofl-salvage``).

    .venv/bin/python bench/fuzz.py --seconds 600            # every target, 10 min in all
    .venv/bin/python bench/fuzz.py --seconds 30 --targets non,rofl-salvage --seed 7

The exit code is 1 when anything escaped. Run it niced on a shared machine; the figures
are iterations, not speed claims.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.errors import NonoforgeError  # noqa: E402
from nonoforge.formats import FORMATS, dumps, loads  # noqa: E402
from nonoforge.formats import rofl as rofl_format  # noqa: E402
from nonoforge.puzzle import Grid, Palette, Puzzle  # noqa: E402

SHARED = ROOT.parent / "shared"
MAX_SEED = 64 * 1024  # larger seeds are cut (at a line end for text): iterations stay quick
MAX_INPUT = 256 * 1024
MAX_PUZZLES = 20  # read at most this many puzzles of one input


class Hang(BaseException):
    """An input ran past the per-input limit (raised from SIGALRM; not an Exception, so no
    reader's ``except Exception`` can swallow it)."""


# -- seeds ------------------------------------------------------------------------------


def _cut(data: bytes) -> bytes:
    if len(data) <= MAX_SEED:
        return data
    end = data.rfind(b"\n", 0, MAX_SEED)
    return data[: end + 1 if end > 0 else MAX_SEED]


def _made_puzzles() -> list[Puzzle]:
    """A black-and-white and a colour puzzle with metadata, for formats without samples."""
    bw = Puzzle.from_grid(Grid([[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 1]]))
    colour = Puzzle.from_grid(
        Grid([[1, 2, 0], [2, 2, 1], [0, 1, 3]]),
        Palette.of(("white", "#ffffff"), ("black", "#000000"), ("red", "#ff0000"),
                   ("green", "#00aa00")),
    )
    from nonoforge.puzzle import Meta

    meta = Meta(title="Fuzz «seed»", author="nonoforge", note="two\nlines")
    return [bw.replace(meta=meta), colour.replace(meta=meta)]


def _sample_files() -> dict[str, list[Path]]:
    """Real files by format: the shared samples, test data and a few corpus files."""
    by: dict[str, list[Path]] = {}

    def add(fmt: str, paths: list[Path]) -> None:
        by.setdefault(fmt, []).extend(p for p in paths if p.is_file())

    samples = SHARED / "samples" / "formats"
    if samples.is_dir():
        for d in sorted(samples.iterdir()):
            if d.is_dir():
                add(d.name, sorted(d.iterdir()))
    data = ROOT / "tests" / "data"
    ext = {".csv": "csv", ".cwc": "cwc", ".non": "non", ".nonpack": "non", ".xml": "xml",
           ".g": "olsak", ".pzl": "pzl", ".pattern": "tatham", ".sav": "tatham",
           ".nin": "nin", ".json": "json", ".rofl": "rofl"}
    if data.is_dir():
        for p in sorted(data.iterdir()):
            if p.suffix in ext:
                add(ext[p.suffix], [p])
        add("tournament", sorted((data / "tournament").glob("*/*.txt")))
    corpora = SHARED / "corpora"
    add("non", sorted((corpora / "survey-free").glob("*.non"))[:4])
    add("nin", sorted((corpora / "jwilk-nin").glob("*.nin"))[:4])
    add("non", sorted((corpora / "mikix-db" / "db").glob("*/*.non"))[:4])
    add("tournament", sorted((corpora / "tournament" / "question").glob("*.txt"))[:1])
    return by


def seeds() -> dict[str, list[bytes]]:
    """Seed inputs for every target."""
    files = _sample_files()
    made = _made_puzzles()
    out: dict[str, list[bytes]] = {}
    for name, fmt in FORMATS.items():
        got = [_cut(p.read_bytes()) for p in files.get(name, [])]
        for p in made:
            if fmt.write is not None and fmt.accepts(p):
                try:
                    w = dumps(p, fmt)
                except NonoforgeError:
                    continue
                got.append(w.encode() if isinstance(w, str) else w)
        out[name] = got
    out["detect"] = [s for v in out.values() for s in v]
    container = rofl_format.dumps(made * 3)
    out["rofl"].append(container)
    out["rofl-salvage"] = list(out["rofl"])
    bare = [p.replace(goal=None) for p in made]  # clue-only records: the other decoder path
    out["rofl-record"] = [rofl_format.encode(p) for p in made + bare]
    out["rofl"].append(rofl_format.dumps(bare))
    return out


# -- targets ----------------------------------------------------------------------------


def _read_as(fmt: str) -> Callable[[bytes], None]:
    def run(data: bytes) -> None:
        # read as batches read it (a bad puzzle costs only itself), then strictly: what the
        # strict reading gave before it stopped must be what the batch reading gave first
        strict: list[Puzzle] = []
        try:
            for p in itertools.islice(loads(data, fmt, path="fuzz"), MAX_PUZZLES):
                strict.append(p)
        except NonoforgeError:
            pass
        reading = loads(data, fmt, path="fuzz", on_error="collect")
        puzzles = list(itertools.islice(reading, MAX_PUZZLES))
        if puzzles[: len(strict)] != strict:
            raise AssertionError("collecting lost or changed a puzzle the strict reading read")
        f = FORMATS[fmt]
        for p in puzzles[:2]:  # what was read must write back, or say why not
            if f.write is not None and f.accepts(p):
                dumps(p, f)

    return run


def _detect(data: bytes) -> None:
    list(itertools.islice(loads(data, None, path="fuzz"), MAX_PUZZLES))


def _record_payload(data: bytes) -> None:
    rofl_format.decode(data)


def _salvage(data: bytes) -> None:
    puzzles, _errors = rofl_format.load_salvage(data)
    for p in puzzles[:2]:
        rofl_format.encode(p)


def targets() -> dict[str, Callable[[bytes], None]]:
    t: dict[str, Callable[[bytes], None]] = {name: _read_as(name) for name in sorted(FORMATS)}
    t["detect"] = _detect
    t["rofl-record"] = _record_payload
    t["rofl-salvage"] = _salvage
    return t


# -- mutations --------------------------------------------------------------------------

_NUMBERS = [b"0", b"-1", b"1", b"65", b"1001", b"99999999999999999999", b"4294967296",
            b"1e9", b"1.5", b"", b"\xd9\xa3", b"\xc2\xb2", b"0x10", b"+3", b"NaN"]
_SPECIAL = [b"\x00", b"\x1b[2J", b"\x07", b"\xed\xa0\x80", b"\\ud800", b"\xef\xbb\xbf",
            b"\r", b"\n\n\n", b"\xff\xfe", b"&#0;", b"&lt;", b"<![CDATA[", b"<!ENTITY x",
            b"\"", b"'", b"#", b"=", b",", b":", b"{", b"[", b"]", b"}", b"\t", b" " * 40,
            b"\xe2\x80\xae", b"\xf0\x9f\x98\x80", b"\x80"]


def _digits(data: bytes, rng: random.Random) -> tuple[int, int] | None:
    spots = [i for i in range(len(data)) if 48 <= data[i] <= 57]
    if not spots:
        return None
    i = rng.choice(spots)
    j = i
    while j < len(data) and 48 <= data[j] <= 57:
        j += 1
    while i > 0 and 48 <= data[i - 1] <= 57:
        i -= 1
    return i, j


def mutate(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    """One to four random edits of ``data`` (seeded by ``rng``)."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        n = len(b)
        op = rng.randrange(11)
        if op == 0 and n:  # flip a bit
            i = rng.randrange(n)
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1 and n:  # a random byte
            b[rng.randrange(n)] = rng.randrange(256)
        elif op == 2:  # insert random bytes
            i = rng.randint(0, n)
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 3 and n:  # delete a run
            i = rng.randrange(n)
            del b[i : i + rng.randint(1, max(1, n // 8))]
        elif op == 4 and n:  # duplicate a run
            i = rng.randrange(n)
            j = min(n, i + rng.randint(1, 256))
            k = rng.randint(0, n)
            b[k:k] = b[i:j] * rng.randint(1, 8)
        elif op == 5 and pool:  # splice with another seed
            other = rng.choice(pool)
            if other:
                i, k = rng.randint(0, n), rng.randrange(len(other))
                b[i:] = other[k:]
        elif op == 6:  # an awkward number where a number was
            span = _digits(bytes(b), rng)
            if span:
                b[span[0] : span[1]] = rng.choice(_NUMBERS)
        elif op == 7:  # a special sequence
            i = rng.randint(0, n)
            b[i:i] = rng.choice(_SPECIAL)
        elif op == 8 and n:  # truncate
            del b[rng.randrange(n) :]
        elif op == 9:  # repeat a line many times
            lines = bytes(b).split(b"\n")
            if lines:
                i = rng.randrange(len(lines))
                lines[i:i] = [lines[i]] * rng.randint(2, 200)
                b = bytearray(b"\n".join(lines))
        elif op == 10 and n > 1:  # swap two bytes
            i, j = rng.randrange(n), rng.randrange(n)
            b[i], b[j] = b[j], b[i]
    return bytes(b[:MAX_INPUT])


# -- the loop ---------------------------------------------------------------------------


@dataclass
class Escape:
    target: str
    kind: str
    where: str
    message: str
    input_sha: str
    count: int = 1


@dataclass
class Report:
    iterations: dict[str, int] = field(default_factory=dict)
    escapes: dict[tuple[str, str, str], Escape] = field(default_factory=dict)
    slowest: dict[str, float] = field(default_factory=dict)

    @property
    def total_escapes(self) -> int:
        return len(self.escapes)


def _where(tb: traceback.StackSummary) -> str:
    """The innermost frame inside nonoforge (else the innermost), as ``file:line``."""
    ours = [f for f in tb if "/nonoforge/" in f.filename.replace("\\", "/")]
    frames = ours or list(tb)
    if not frames:
        return "?"
    f = frames[-1]
    name = f.filename.replace("\\", "/")
    name = name[name.rfind("/nonoforge/") + 1 :] if "/nonoforge/" in name else name
    return f"{name}:{f.lineno} ({f.name})"


def _on_alarm(signum: int, frame: object) -> None:
    raise Hang()


def run(
    seconds: float,
    names: list[str] | None = None,
    *,
    seed: int = 0,
    limit: float = 2.0,
    out: Path | None = None,
    progress: bool = False,
) -> Report:
    """Fuzz each target for ``seconds / len(targets)``; the iterations and escapes."""
    all_targets = targets()
    chosen = names or list(all_targets)
    pool = seeds()
    report = Report()
    share = seconds / max(1, len(chosen))
    if os.environ.get("NONOFORGE_ROFL_JIT") != "0":
        # Compile the ROFL kernels now, outside any per-input limit: the decoder switches
        # to them after 64 calls, and an alarm landing inside `import numba` would leave a
        # half-imported module behind. NONOFORGE_ROFL_JIT=0 fuzzes the plain-Python ones.
        _compile_rofl_kernels()
    old = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        for name in chosen:
            fn = all_targets[name]
            own = pool.get(name) or pool["detect"]
            rng = random.Random(f"{seed}:{name}")
            for data in own:  # warm up (imports, JIT-compiled kernels) outside the limit
                try:
                    fn(data)
                except Exception:  # noqa: BLE001, S112 - seeds may be refused; fine here
                    continue
            n = 0
            slowest = 0.0
            stop = time.monotonic() + share
            while time.monotonic() < stop:
                data = mutate(rng.choice(own), rng, own)
                n += 1
                t0 = time.monotonic()
                signal.setitimer(signal.ITIMER_REAL, limit)
                try:
                    fn(data)
                except NonoforgeError:
                    pass
                except (Exception, Hang) as e:  # noqa: BLE001 - this is what we look for
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    if not (isinstance(e, Hang) and _warmup_stall(fn, data, limit)):
                        _record(report, name, e, data, out)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                took = time.monotonic() - t0
                slowest = max(slowest, took)
                if took > limit * 1.5 and not _warmup_stall(fn, data, limit):
                    # stuck inside C code where the alarm could not land
                    _record(report, name, Hang(), data, out, f"took {took:.1f} s")
            report.iterations[name] = n
            report.slowest[name] = slowest
            if progress:
                print(f"  {name:<14} {n:>8} iterations, slowest {slowest * 1000:7.1f} ms",
                      file=sys.stderr, flush=True)
    finally:
        signal.signal(signal.SIGALRM, old)
    return report


def _compile_rofl_kernels() -> None:
    from nonoforge.formats.rofl.kernels import _kernels

    _kernels(jit=True)


def _warmup_stall(fn: Callable[[bytes], None], data: bytes, limit: float) -> bool:
    """Whether a slow input was slow only once: a kernel compiled on first use (numba
    compiles each code path lazily). The input is run again; quick now means no hang."""
    for _ in range(2):  # the first may still be compiling; the second must be quick
        t0 = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, limit * 30)
        try:
            fn(data)
        except (Exception, Hang):  # noqa: BLE001 - only the time matters here
            pass
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return time.monotonic() - t0 < limit / 2


def _record(
    report: Report, name: str, e: BaseException, data: bytes, out: Path | None,
    note: str | None = None,
) -> None:
    tb = traceback.extract_tb(e.__traceback__)
    kind = "hang" if isinstance(e, Hang) else type(e).__name__
    where = _where(tb)
    key = (name, kind, where)
    if key in report.escapes:
        report.escapes[key].count += 1
        return
    sha = hashlib.sha256(data).hexdigest()[:16]
    msg = note or " ".join(str(e).split())[:200]
    report.escapes[key] = Escape(name, kind, where, msg, sha)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{name}-{sha}.bin").write_bytes(data)
        (out / f"{name}-{sha}.txt").write_text(
            "".join(traceback.format_exception(e)) if not isinstance(e, Hang) else msg
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="total time, split evenly")
    ap.add_argument("--targets", help="comma-separated (default: all): " + ", ".join(targets()))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=float, default=2.0, help="seconds allowed per input")
    ap.add_argument("--memory", type=int, default=2048, help="address-space cap in MiB")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "nonoforge-fuzz",
                    help="where escaping inputs and their tracebacks are written")
    args = ap.parse_args()
    names = args.targets.split(",") if args.targets else None
    unknown = set(names or []) - set(targets())
    if unknown:
        ap.error(f"unknown targets: {', '.join(sorted(unknown))}")
    if args.memory:
        cap = args.memory * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    cpu0 = time.process_time()
    t0 = time.monotonic()
    report = run(args.seconds, names, seed=args.seed, limit=args.limit, out=args.out,
                 progress=True)
    wall = time.monotonic() - t0
    total = sum(report.iterations.values())
    print(f"fuzz: {total} iterations in {wall:.0f} s wall, {time.process_time() - cpu0:.0f} s "
          f"CPU (seed {args.seed}, limit {args.limit:g} s per input, pid {os.getpid()})")
    for name, n in report.iterations.items():
        esc = sum(1 for k in report.escapes if k[0] == name)
        print(f"  {name:<14} {n:>8} iterations  {esc} escape(s)  slowest "
              f"{report.slowest[name] * 1000:.0f} ms")
    print(f"escapes: {report.total_escapes}")
    for e in report.escapes.values():
        print(f"  {e.target}: {e.kind} at {e.where} x{e.count}: {e.message} "
              f"[input {args.out}/{e.target}-{e.input_sha}.bin]")
    return 1 if report.escapes else 0


if __name__ == "__main__":
    sys.exit(main())
