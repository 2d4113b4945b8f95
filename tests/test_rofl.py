"""ROFL v1: round trips, canonical bytes, corruption and salvage, random access, limits."""

from __future__ import annotations

import contextlib
import io
import random
import re
import string
import zlib

import numpy as np
import pytest
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import RoflError
from nonoforge.formats import read_file, rofl, write_file
from nonoforge.formats.base import strip_meta
from nonoforge.formats.rofl.kernels import _kernels
from nonoforge.formats.rofl.record import _varint
from nonoforge.puzzle import Color, Meta, Palette, Puzzle

FAST = settings(max_examples=60, deadline=None)

meta_text = st.none() | st.text(max_size=12)
metas = st.builds(
    Meta,
    title=meta_text,
    author=meta_text,
    copyright=meta_text,
    licence=meta_text,
    source=meta_text,
    source_id=meta_text,
    note=meta_text,
)


def _palette(rng: np.random.Generator, ncolors: int, style: int) -> Palette:
    """A palette of ``ncolors`` painted colours: standard names, or odd ones."""
    if ncolors == 1 and style == 0:
        return Palette.bw()
    colors = []
    for i in range(ncolors + 1):
        rgb = tuple(int(v) for v in rng.integers(0, 256, 3))
        if style == 0 and i < len(string.ascii_letters):
            name = "white" if i == 0 else ("black" if ncolors == 1 else "-abcdefghij"[i % 11])
            name = name if ncolors == 1 or i == 0 else f"c{i}" if i > 10 else name
        else:
            name = f"colour {i} ✓"
        colors.append(Color(name, rgb))
    return Palette(tuple(colors))


@st.composite
def puzzles(draw: st.DrawFn, max_side: int = 24, max_colors: int = 64) -> Puzzle:
    """Random pictures (so the clues are consistent), with or without goal and metadata."""
    seed = draw(st.integers(0, 2**32 - 1))
    h = draw(st.integers(1, max_side))
    w = draw(st.integers(1, max_side))
    ncolors = draw(st.sampled_from([1, 1, 1, 2, 3, 5, max_colors]))
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.8, 1.0]))
    rng = np.random.default_rng(seed)
    painted = rng.random((h, w)) < density
    cells = np.where(painted, rng.integers(1, ncolors + 1, (h, w)), 0)
    palette = _palette(rng, ncolors, draw(st.integers(0, 1)))
    p = Puzzle.from_grid(cells, palette, draw(metas))
    return p if draw(st.booleans()) else p.replace(goal=None)


def small_container() -> tuple[list[Puzzle], bytes]:
    """Five varied puzzles in one indexed container."""
    rng = np.random.default_rng(7)
    out = []
    for i, (h, w, c) in enumerate([(5, 7, 1), (9, 4, 3), (1, 1, 1), (12, 10, 2), (6, 6, 1)]):
        cells = np.where(rng.random((h, w)) < 0.5, rng.integers(1, c + 1, (h, w)), 0)
        p = Puzzle.from_grid(cells, _palette(rng, c, i % 2), Meta(title=f"p{i}"))
        out.append(p if i % 2 else p.replace(goal=None))
    return out, rofl.dumps(out)


def record_spans(data: bytes) -> list[tuple[int, int]]:
    """``(start, end)`` of every record, from the index."""
    offs = rofl.offsets(data)
    assert offs is not None
    end_block = int.from_bytes(data[-12:-4], "little")
    return list(zip(offs, offs[1:] + [end_block], strict=True))


# -- round trips ----------------------------------------------------------------------


@FAST
@given(puzzles())
def test_round_trip(p: Puzzle) -> None:
    b = rofl.encode(p)
    assert rofl.decode(b) == p
    assert rofl.encode(rofl.decode(b)) == b


@settings(max_examples=6, deadline=None)
@given(puzzles(max_side=200, max_colors=64))
def test_round_trip_large(p: Puzzle) -> None:
    assert rofl.decode(rofl.encode(p)) == p


@pytest.mark.parametrize("ncolors", [1, 64])
@pytest.mark.parametrize("goal", [True, False])
def test_round_trip_200x200(ncolors: int, goal: bool) -> None:
    rng = np.random.default_rng(ncolors)
    cells = np.where(rng.random((200, 200)) < 0.6, rng.integers(1, ncolors + 1, (200, 200)), 0)
    p = Puzzle.from_grid(cells, _palette(rng, ncolors, 1))
    p = p if goal else p.replace(goal=None)
    assert rofl.decode(rofl.encode(p)) == p


@FAST
@given(st.lists(puzzles(max_side=10), max_size=6), st.booleans())
def test_container_round_trip(ps: list[Puzzle], index: bool) -> None:
    buf = io.BytesIO()
    assert rofl.dump(ps, buf, index=index) == len(ps)
    data = buf.getvalue()
    assert list(rofl.iter_load(data)) == ps
    assert list(rofl.iter_load(io.BytesIO(data))) == ps
    assert rofl.load_salvage(data) == (ps, [])
    assert (rofl.offsets(data) is not None) == index


def test_streaming_reader_small_chunks() -> None:
    ps, data = small_container()

    class Trickle(io.RawIOBase):
        """A file that hands out at most 3 bytes a read."""

        def __init__(self) -> None:
            self.pos = 0

        def readable(self) -> bool:
            return True

        def read(self, n: int = -1) -> bytes:
            chunk = data[self.pos : self.pos + min(3, n if n >= 0 else 3)]
            self.pos += len(chunk)
            return chunk

    assert list(rofl.iter_load(Trickle())) == ps


def test_kernels_match_plain_python() -> None:
    """The compiled kernels and their Python source give the same bits."""
    k = _kernels(jit=True)
    p = Puzzle.from_grid(np.random.default_rng(3).integers(0, 4, (7, 9)))
    lines = p.rows + p.columns
    counts = np.array([len(c) for c in lines], np.int64)
    lengths = np.array([b.length for c in lines for b in c], np.int64)
    colors = np.array([b.color for c in lines for b in c], np.int64)
    fn = k["_enc_clues"]
    plain = getattr(fn, "py_func", fn)
    assert bytes(plain(counts, lengths, colors, 2)) == bytes(fn(counts, lengths, colors, 2))
    cells = np.ascontiguousarray(p.goal.cells.reshape(-1))
    fn = k["_enc_goal"]
    plain = getattr(fn, "py_func", fn)
    assert bytes(plain(cells, 3)) == bytes(fn(cells, 3))


# -- canonical bytes ------------------------------------------------------------------


def test_equal_puzzles_equal_bytes() -> None:
    rng = np.random.default_rng(11)
    cells = (rng.random((8, 11)) < 0.5).astype(int)
    a = Puzzle.from_grid(cells).replace(goal=None)
    b = Puzzle.from_clues(
        [[blk.length for blk in r] for r in a.rows], [[blk.length for blk in c] for c in a.columns]
    )
    assert a == b and a is not b
    assert rofl.encode(a) == rofl.encode(b)
    assert rofl.encode(a) != rofl.encode(a.replace(meta=Meta(title="x")))
    assert rofl.encode(a.replace(meta=Meta(title=""))) != rofl.encode(a)


def test_same_puzzle_from_non_and_xml() -> None:
    a = read_file(DATA / "dancer.non")[0]
    b = read_file(DATA / "dancer.xml")[0]
    assert rofl.encode(strip_meta(a).canonical()) == rofl.encode(strip_meta(b).canonical())


def test_bw_puzzle_is_small() -> None:
    p = Puzzle.from_clues([[1], [1]], [[1], [1]])
    b = rofl.encode(p)
    assert b.hex() == "020200005fe0"
    assert rofl.decode(b) == p


# -- corruption -----------------------------------------------------------------------


def test_every_truncation_is_detected_and_salvaged() -> None:
    ps, data = small_container()
    spans = record_spans(data)
    for cut in range(len(data)):
        with pytest.raises(RoflError):
            list(rofl.iter_load(data[:cut]))
        got, errors = rofl.load_salvage(data[:cut])
        intact = [p for p, (_, end) in zip(ps, spans, strict=True) if end <= cut]
        assert got == intact, cut
        assert errors


@pytest.mark.parametrize("mode", ["invert", "random"])
def test_every_flipped_byte_is_detected_and_salvaged(mode: str) -> None:
    ps, data = small_container()
    spans = record_spans(data)
    rng = random.Random(5)
    for pos in range(len(data)):
        bad = bytearray(data)
        bad[pos] ^= 0xFF if mode == "invert" else rng.randrange(1, 256)
        with pytest.raises(RoflError) as ei:
            list(rofl.iter_load(bytes(bad)))
        assert "\n" not in str(ei.value)
        got, errors = rofl.load_salvage(bytes(bad))
        intact = [p for p, (s, e) in zip(ps, spans, strict=True) if not s <= pos < e]
        assert got == intact, pos
        assert errors


def test_error_names_the_record() -> None:
    ps, data = small_container()
    start, end = record_spans(data)[2]
    bad = bytearray(data)
    bad[end - 6] ^= 0x10  # a payload byte of record 2
    with pytest.raises(RoflError, match=rf"^<input>: record 2 \(offset {start}\): checksum"):
        list(rofl.iter_load(bytes(bad)))
    got, errors = rofl.load_salvage(bytes(bad))
    assert got == ps[:2] + ps[3:]
    assert [re.sub(r".*: record (\d+).*", r"\1", str(e)) for e in errors] == ["2"]


def test_skip_mode_drops_errors() -> None:
    ps, data = small_container()
    bad = bytearray(data)
    bad[record_spans(data)[0][0] + 5] ^= 1
    reader = rofl.iter_load(bytes(bad), on_error="skip")
    assert list(reader) == ps[1:]
    assert reader.errors == []


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_garbage_never_crashes(blob: bytes) -> None:
    for data in (blob, rofl.HEADER + blob, rofl.HEADER + b"\xc5R" + blob):
        with pytest.raises(RoflError):
            list(rofl.iter_load(data))
        rofl.load_salvage(data)
    with contextlib.suppress(RoflError):
        rofl.decode(blob)


def test_decode_rejects_non_canonical_and_trailing_bytes() -> None:
    good = rofl.encode(Puzzle.from_clues([[1], [1]], [[1], [1]]))
    for bad in (good + b"\x00", good[:-1] + b"\x8d", b"\x82\x00" + good[1:], good[:2] + b"\x08"):
        with pytest.raises(RoflError):
            rofl.decode(bad)


# -- random access and the registry --------------------------------------------------


def test_read_at_through_the_index(tmp_path) -> None:
    ps, data = small_container()
    path = tmp_path / "x.rofl"
    path.write_bytes(data)
    with open(path, "rb") as fp:
        for i in (3, 0, 4, 1):
            assert rofl.read_at(fp, i) == ps[i]
        with pytest.raises(RoflError, match="no such record"):
            rofl.read_at(fp, 5)
    plain = rofl.dumps(ps, index=False)
    assert rofl.offsets(plain) is None
    assert rofl.read_at(plain, 2) == ps[2]


def test_registered_format(tmp_path) -> None:
    ps, _ = small_container()
    path = tmp_path / "set.rofl"
    write_file(ps, path)
    assert read_file(path) == ps
    (tmp_path / "noext").write_bytes(path.read_bytes())
    assert read_file(tmp_path / "noext") == ps
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(RoflError, match=r"set\.rofl: "):
        read_file(path)


# -- limits ---------------------------------------------------------------------------


def test_huge_claims_are_errors_not_allocations() -> None:
    side = _varint(31623)  # 31623^2 is about 10^9 cells
    for flags in (0, rofl.FLAG_GOAL):
        with pytest.raises(RoflError, match="too large|cannot fit"):
            rofl.decode(side + side + bytes([flags]) + b"\x00" * 64)
    with pytest.raises(RoflError):
        rofl.decode(_varint(1000) * 2 + b"\x01" + b"\xff" * 100)
    frame = rofl.REC_SYNC + _varint(10**9)
    head = frame + bytes([zlib.crc32(frame) & 0xFF])
    with pytest.raises(RoflError, match="too large"):
        list(rofl.iter_load(rofl.HEADER + head + b"\x00" * 100))


def test_unknown_version_is_named() -> None:
    _, data = small_container()
    with pytest.raises(RoflError, match="unsupported ROFL version 2"):
        list(rofl.iter_load(data[:4] + b"\x02" + data[5:]))


# -- start-up -----------------------------------------------------------------------------


def test_numba_is_imported_only_for_bulk_rofl_work() -> None:
    """``info x.non`` and a few ROFL conversions never import numba (start-up counts)."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    env = {k: v for k, v in os.environ.items() if k != "NONOFORGE_ROFL_JIT"}
    env["PYTHONPATH"] = str(ROOT)
    info = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "nonoforge", "info", str(DATA / "dancer.non")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert info.returncode == 0, info.stderr[-2000:]
    imported = [ln.rsplit("|", 1)[-1].strip() for ln in info.stderr.splitlines() if "|" in ln]
    assert not [m for m in imported if m.split(".")[0] in ("numba", "llvmlite")]
    code = (
        "import sys\n"
        "from nonoforge.formats import read_file, rofl\n"
        f"ps = read_file({str(DATA / 'dancer.non')!r}) * 10\n"
        "assert rofl.load_salvage(rofl.dumps(ps))[0] == ps\n"
        "print('numba' in sys.modules)\n"
    )
    few = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert few.returncode == 0, few.stderr[-2000:]
    assert few.stdout.strip() == "False"
