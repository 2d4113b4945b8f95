"""ROFL v3 (and v1, v2 read): round trips, canonical bytes, the table, range-coded clues,
corruption and salvage, random access, limits, start-up."""

from __future__ import annotations

import contextlib
import io
import random
import re
import string
import zlib

import numpy as np
import pytest
from conftest import DATA, fresh_python
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import RoflError
from nonoforge.formats import loads, read_file, rofl, write_file
from nonoforge.formats.base import strip_meta
from nonoforge.formats.rofl.kernels import _kernels
from nonoforge.formats.rofl.record import _varint
from nonoforge.puzzle import Color, Meta, Palette, Puzzle, key_of

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



SMALL_JOB_SCRIPT = """
import sys
import numpy as np
from nonoforge.formats import rofl
from nonoforge.formats.rofl import kernels
from nonoforge.puzzle import Puzzle
rng = np.random.default_rng(5)
ps = [Puzzle.from_grid((rng.random((9, 12)) < 0.5).astype(int)) for _ in range(200)]
ps += [p.replace(goal=None) for p in ps]
with kernels.small_job(len(ps)):
    data = [rofl.encode(p) for p in ps]
    assert [rofl.decode(d) for d in data] == ps
print("numba" in sys.modules, bool(kernels._compiled))
big = [rofl.decode(d) for d in data]
print("numba" in sys.modules, bool(kernels._compiled))
"""


def test_a_small_job_codes_in_plain_python_and_bulk_work_compiles() -> None:
    """Inside ``small_job`` hundreds of records are coded without loading numba (a
    collection build's picks); outside, as many compile the kernels. A fresh process, as
    the test process has compiled them already."""

    out = fresh_python(SMALL_JOB_SCRIPT).stdout.split()
    assert out == ["False", "False", "True", "True"]


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
    assert b.hex() == "02024080"  # v3: range-coded (docs/rofl.md §5)
    assert rofl.decode(b) == p
    assert rofl.decode(bytes.fromhex("020200005fe0")) == p  # the same puzzle as v2 wrote it


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
    with pytest.raises(RoflError, match="unsupported ROFL version 4"):
        list(rofl.iter_load(data[:4] + b"\x04" + data[5:]))


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
    few = fresh_python(code, cwd=ROOT, env=env, timeout=120)
    assert few.stdout.strip() == "False"


def test_bulk_rofl_work_loads_numba_without_scipy() -> None:
    """Compiled kernels (``NONOFORGE_ROFL_JIT=1``) load numba's registries with SciPy kept
    out (``util.without_scipy``: 0.15-0.2 s of every importing process), write the bytes
    the plain kernels write, and leave SciPy importable afterwards."""
    import os

    from conftest import ROOT

    code = (
        "import sys\n"
        "from nonoforge.formats import read_file, rofl\n"
        "from nonoforge.formats.rofl import kernels\n"
        f"ps = read_file({str(DATA / 'dancer.non')!r})\n"
        "print(rofl.dumps(ps).hex())\n"
        "print(bool(kernels._compiled), 'scipy' in sys.modules)\n"
        "import scipy\n"
        "print(scipy.__name__)\n"
    )
    out = {}
    for jit in ("1", "0"):
        env = {**os.environ, "NONOFORGE_ROFL_JIT": jit, "PYTHONPATH": str(ROOT)}
        out[jit] = fresh_python(code, cwd=ROOT, env=env, timeout=600).stdout.split("\n")[:3]
    assert out["1"][1:] == ["True False", "scipy"]
    assert out["0"][1:] == ["False False", "scipy"]
    assert out["1"][0] == out["0"][0]  # the same bytes, compiled or not


# -- version 2: the file's table, raw goals, numbers; version 1 still read ----------------

V1_EXAMPLE = bytes.fromhex(  # docs/rofl.md, the 2x2 example as version 1 wrote it
    "524f464c01" "c552065a020200005fe02bf0e31b" "c5450101" "00cf63c453"
    "1300000000000000" "4c464f52"
)


V2_EXAMPLE = bytes.fromhex(  # docs/rofl.md §5, the 2x2 example as version 2 wrote it
    "524f464c02" "c552065a020200005fe02bf0e31b" "c545010100" "00cff48ad9"
    "1300000000000000" "4c464f52"
)
V3_EXAMPLE = bytes.fromhex(  # docs/rofl.md §5, the same in version 3
    "524f464c03" "c5520476020240" "80dc0f0895" "c545010100" "00cff48ad9"
    "1100000000000000" "4c464f52"
)


def test_version_2_files_are_still_read_and_version_3_is_the_documented_one() -> None:
    p = Puzzle.from_clues([[1], [1]], [[1], [1]])
    assert list(rofl.iter_load(V2_EXAMPLE)) == [p]
    assert rofl.read_at(V2_EXAMPLE, 0) == p
    assert rofl.dumps([p]) == V3_EXAMPLE
    assert list(rofl.iter_load(V3_EXAMPLE)) == [p]


def test_version_1_files_and_payloads_are_still_read() -> None:
    assert list(rofl.iter_load(V1_EXAMPLE)) == [Puzzle.from_clues([[1], [1]], [[1], [1]])]
    assert rofl.offsets(V1_EXAMPLE) == [5]
    assert rofl.read_at(V1_EXAMPLE, 0).width == 2
    # a v1 payload with metadata: plain length-prefixed strings, no tags
    v1 = bytes.fromhex("020202005fe0") + bytes([0b10001]) + b"\x02Hi" + b"\x03abc"
    assert rofl.decode(v1).meta == Meta(title="Hi", source="abc")


def test_repeated_values_are_stored_once_in_the_table() -> None:
    pal = Palette.of(("white", "#fff"), ("red", "#f00"), ("blue", "#00f"))
    rng = np.random.default_rng(5)
    ps = [
        Puzzle.from_grid(rng.integers(0, 3, (6, 7)), pal, Meta(
            title=f"t{i}", source="file:a-rather-long-source-name.txt", source_id=str(i + 1),
            author="Some Author", licence="CC BY-SA 4.0"))
        for i in range(300)
    ]
    data = rofl.dumps(ps)
    assert data.count(b"a-rather-long-source-name") == 1
    assert data.count(b"CC BY-SA") == 1 and data.count(b"blue") == 1
    assert data.count(rofl.TABLE_SYNC) >= 1
    assert list(rofl.iter_load(data)) == ps
    assert rofl.read_at(data, 299) == ps[299]
    # a record that refers to the table cannot be read without it
    with pytest.raises(RoflError, match="table"):
        rofl.decode(data[rofl.offsets(data)[0] + 4 : rofl.offsets(data)[1] - 4])
    # standalone payloads refer to nothing
    assert rofl.decode(rofl.encode(ps[0])) == ps[0]
    # a damaged table block costs the records that refer to it, and is named
    t = data.index(rofl.TABLE_SYNC)
    bad = bytearray(data)
    bad[t + 8] ^= 0xFF
    got, errors = rofl.load_salvage(bytes(bad))
    assert any("table block" in str(e) for e in errors)
    assert all(p in ps for p in got)
    # every record that referred to it is reported, by number
    assert len(got) + sum("no string" in str(e) or "no palette" in str(e) for e in errors) == 300


def test_ids_that_are_numbers_are_stored_as_numbers() -> None:
    p = Puzzle.from_clues([[1]], [[1]])
    for sid in ("7", "1000", "0", "007", "12a", "1" * 19, "١٢"):
        q = p.replace(meta=Meta(source_id=sid))
        assert rofl.decode(rofl.encode(q)) == q
    assert len(rofl.encode(p.replace(meta=Meta(source_id="1000")))) == len(rofl.encode(p)) + 3


def test_a_dense_goal_is_stored_cell_by_cell_when_that_is_smaller() -> None:
    rng = np.random.default_rng(8)
    dense = Puzzle.from_grid((rng.random((25, 25)) < 0.5).astype(int))
    blob = Puzzle.from_grid(np.pad(np.ones((10, 10), int), 7))
    colour = Puzzle.from_grid(rng.integers(0, 4, (9, 11)))
    for p in (dense, blob, colour):
        data = rofl.encode(p)
        assert rofl.decode(data) == p
    assert rofl.encode(dense)[2] & rofl.FLAG_RAW_GOAL
    assert len(rofl.encode(dense)) == 3 + (625 + 7) // 8
    assert not rofl.encode(blob)[2] & rofl.FLAG_RAW_GOAL


# -- salvage in linear time (issue 14) ----------------------------------------------------


def _false_headers(size: int, aimed: bool) -> bytes:
    """A container whose first half is back-to-back record headers that each pass the
    header check, then zeros, then one intact record and the end: the crafted file of
    issue 14. Each header claims half the file; ``aimed`` headers claim exactly what ends
    on the intact record's marker, so that each costs a checksum of half the file."""
    good = rofl.dumps([Puzzle.from_clues([[1]], [[1]])])
    target = size - len(good) + 5  # where the intact record starts
    out = bytearray(good[:5])
    while len(out) < size // 2:
        claim = size // 2
        for _ in range(3):  # the header's own length depends on the claim's varint
            frame = rofl.REC_SYNC + _varint(claim)
            if aimed:
                claim = target - (len(out) + len(frame) + 1) - 4
        frame = rofl.REC_SYNC + _varint(claim)
        out += frame + bytes([zlib.crc32(frame) & 0xFF])
    out += b"\0" * (target - len(out))
    return bytes(out) + good[5:]


@pytest.mark.parametrize("size", [256 * 1024, 4 * 1024 * 1024])
def test_salvage_of_false_headers_is_linear(size: int) -> None:
    """Issue 14: resynchronising over crafted headers examines a bounded number of bytes
    per byte of input (counted, so the bound holds on any machine), not quadratic work."""
    from nonoforge.formats.rofl.container import WORK_FLOOR, WORK_PER_BYTE

    plain = _false_headers(size, aimed=False)
    reader = rofl.iter_load(plain, on_error="collect")
    assert len(list(reader)) == 1  # refused in constant time each: the record is found
    assert reader.work <= 4 * len(plain)
    aimed = _false_headers(size, aimed=True)
    assert len(aimed) == len(plain)
    reader = rofl.iter_load(aimed, on_error="collect")
    list(reader)
    # without the cap: (size / 2) / 5 candidates x size / 2 bytes each (over 10^11 at 4 MiB)
    assert reader.work <= (WORK_PER_BYTE + 1) * len(aimed) + WORK_FLOOR
    assert any("salvage stopped" in str(e) for e in reader.errors)


def test_salvage_scans_each_byte_once_between_markers() -> None:
    """Many false end and record markers whose header check fails: found and refused in
    one pass, every intact record still read."""
    ps = [Puzzle.from_clues([[1]], [[1]])] * 3
    good = rofl.dumps(ps)
    junk = (b"\xc5E\xff" + b"\xc5R\x05\x00") * 50_000
    data = good[:5] + junk + good[5:]
    reader = rofl.iter_load(data, on_error="collect")
    assert list(reader) == ps
    assert reader.work <= 4 * len(data)


# -- version 3: black-and-white clues range-coded under a random-picture model -------------


def _bw(cells: np.ndarray, palette: Palette | None = None, meta: Meta | None = None) -> Puzzle:
    return Puzzle.from_grid(cells, palette or Palette.bw(), meta or Meta()).replace(goal=None)


@st.composite
def bw_pictures(draw: st.DrawFn, max_side: int = 64) -> np.ndarray:
    """Black-and-white pictures of every size the model codes (and just past it), any density,
    with empty and full lines, single rows and columns."""
    h = draw(st.sampled_from([1, 2, 3, 25, 63, 64, 65]) | st.integers(1, max_side))
    w = draw(st.sampled_from([1, 2, 3, 25, 63, 64, 65]) | st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.03, 0.2, 0.5, 0.8, 0.97, 1.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cells = (rng.random((h, w)) < density).astype(int)
    for _ in range(draw(st.integers(0, 3))):  # whole empty or full lines
        if draw(st.booleans()):
            cells[draw(st.integers(0, h - 1)), :] = draw(st.integers(0, 1))
        else:
            cells[:, draw(st.integers(0, w - 1))] = draw(st.integers(0, 1))
    return cells


@settings(max_examples=150, deadline=None)
@given(bw_pictures(), metas, st.booleans())
def test_model_round_trip(cells: np.ndarray, meta: Meta, odd_palette: bool) -> None:
    pal = Palette.of(("paper", "#fffff0"), ("ink", "#102030")) if odd_palette else None
    p = _bw(cells, pal, meta)
    b = rofl.encode(p)
    assert rofl.decode(b) == p
    assert rofl.decode(b).key == key_of(p.canonical_text())  # odd palettes too
    assert rofl.encode(rofl.decode(b)) == b
    if max(p.height, p.width) > 64:
        assert not b[2] & rofl.FLAG_MODEL  # sides up to 65 take one byte each
    data = rofl.dumps([p, p])
    assert list(rofl.iter_load(data)) == [p, p]


@FAST
@given(puzzles(max_side=30, max_colors=5))
def test_model_is_only_for_one_painted_colour(p: Puzzle) -> None:
    b = rofl.encode(p)
    flags = b[len(_varint(p.width)) + len(_varint(p.height))]
    if flags & rofl.FLAG_MODEL:
        assert len(p.palette) == 2 and p.goal is None
    assert rofl.decode(b) == p


def test_model_is_used_when_shorter_and_rice_otherwise() -> None:
    rng = np.random.default_rng(19)
    random25 = _bw((rng.random((25, 25)) < 0.45).astype(int))
    b = rofl.encode(random25)
    assert b[2] & rofl.FLAG_MODEL
    # a drawn picture: long runs, which Rice codes in fewer bytes than the random model
    drawn = np.zeros((30, 30), int)
    drawn[5:25, 3:27] = 1
    drawn[10:20, 8:22] = 0
    b = rofl.encode(_bw(drawn))
    assert not b[2] & rofl.FLAG_MODEL
    assert rofl.decode(b) == _bw(drawn)
    # its range code is a valid code of the same clues, but not the one code: refused
    from nonoforge.formats.rofl.kernels import model_tables

    p = _bw(drawn)
    lines = p.rows + p.columns
    counts = np.array([len(c) for c in lines], np.int64)
    lengths = np.array([blk.length for c in lines for blk in c], np.int64)
    code, shorter = _kernels()["_enc_model"](counts, lengths, 30, 30, *model_tables(30, 30))
    assert not shorter
    with pytest.raises(RoflError, match="not canonical"):
        rofl.decode(b[:2] + bytes([rofl.FLAG_MODEL]) + bytes(code))


def test_taai_2011_clues_take_under_85_bytes() -> None:
    """Issue 19's figure, as a size (not a time): TAAI 2011 without goals, bytes a payload."""
    from conftest import ROOT

    path = ROOT.parent / "shared" / "corpora" / "tournament" / "question" / "taai2011.txt"
    if not path.exists():
        pytest.skip("shared corpora absent")
    ps = [strip_meta(p).replace(goal=None) for p in read_file(path, "tournament")]
    payloads = [rofl.encode(p) for p in ps]
    assert len(ps) == 1000
    assert sum(map(len, payloads)) / len(ps) <= 85  # the set grows sparser: all of it counts
    assert [rofl.decode(b) for b in payloads[::7]] == ps[::7]


def test_model_edge_cases() -> None:
    for cells in (
        np.zeros((1, 1), int), np.ones((1, 1), int), np.zeros((64, 64), int),
        np.ones((64, 64), int), np.ones((1, 64), int), np.zeros((64, 1), int),
        np.indices((64, 64)).sum(axis=0) % 2,  # the most blocks a line can hold
        np.eye(64, dtype=int),
    ):
        p = _bw(cells)
        assert rofl.decode(rofl.encode(p)) == p


def test_model_rejects_what_a_writer_never_makes() -> None:
    p = _bw((np.random.default_rng(2).random((9, 7)) < 0.5).astype(int))
    good = rofl.encode(p)
    assert good[2] == rofl.FLAG_MODEL
    head, section = good[:3], good[3:]
    for bad, why in (
        (good + b"\x00", "not canonical"),  # a trailing zero byte
        (good + b"\x01", "not canonical"),  # bytes past the code
        (head + section[:-1] + bytes([section[-1] ^ 1]), "not canonical|colour|corrupt"),
        (head[:2] + bytes([rofl.FLAG_MODEL | rofl.FLAG_GOAL]) + section, "unknown flags"),
    ):
        with pytest.raises(RoflError, match=why):
            rofl.decode(bad)
    # the same clues under a colour palette: the model is for one painted colour
    pal = Palette.of(("white", "#fff"), ("red", "#f00"), ("blue", "#00f"))
    with pytest.raises(RoflError, match="one painted colour"):
        rofl.decode(head[:2] + bytes([rofl.FLAG_MODEL | rofl.FLAG_PALETTE]) + bytes(
            rofl.record.palette_bytes(pal)) + section)
    wide = _varint(65) + _varint(1) + bytes([rofl.FLAG_MODEL]) + section
    with pytest.raises(RoflError, match="too large"):
        rofl.decode(wide)
    # with metadata the section comes after it and runs to the end of the payload
    titled = rofl.encode(p.replace(meta=Meta(title="t")))
    assert titled == head[:2] + bytes([head[2] | 18]) + b"\x01\x04t" + section
    # a range code has no redundancy to spare: a cut section is mostly another valid puzzle
    # (the container's CRC-32 tells them apart), never the same one
    with contextlib.suppress(RoflError):
        assert rofl.decode(titled[:-1]) != p.replace(meta=Meta(title="t"))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=60), st.integers(1, 70), st.integers(1, 70), st.booleans())
def test_model_garbage_never_crashes(blob: bytes, w: int, h: int, meta: bool) -> None:
    flags = rofl.FLAG_MODEL | (rofl.FLAG_META | rofl.FLAG_TAGGED if meta else 0)
    data = _varint(w) + _varint(h) + bytes([flags]) + blob
    with contextlib.suppress(RoflError):
        p = rofl.decode(data)
        assert rofl.encode(p) == data  # whatever reads is canonical


def test_model_kernels_match_plain_python() -> None:
    from nonoforge.formats.rofl.kernels import (
        model_binomials,
        model_last,
        model_table,
    )

    k = _kernels(jit=True)
    p = _bw((np.random.default_rng(4).random((13, 21)) < 0.4).astype(int))
    lines = p.rows + p.columns
    counts = np.array([len(c) for c in lines], np.int64)
    lengths = np.array([b.length for c in lines for b in c], np.int64)
    tables = model_table(21), model_table(13), model_last(13), model_binomials()
    fn = k["_enc_model"]
    plain = getattr(fn, "py_func", fn)
    section, shorter = fn(counts, lengths, 13, 21, *tables)
    section2, shorter2 = plain(counts, lengths, 13, 21, *tables)
    assert bytes(section) == bytes(section2) and shorter == shorter2
    arr = np.frombuffer(bytes(section), np.uint8)
    fn = k["_dec_model"]
    plain = getattr(fn, "py_func", fn)
    for dec in (fn, plain):
        err, _, c2, l2, nb = dec(arr, 0, len(arr), 13, 21, *tables)
        assert err == 0 and list(c2) == list(counts) and list(l2[:nb]) == list(lengths)


def test_a_range_coded_record_in_a_v2_file_is_refused() -> None:
    """Range-coded clues (FLAG_MODEL) came with v3: no v2 writer made such a record, so a
    v2 header over one is damage, refused for that record (salvage keeps going)."""
    from nonoforge.puzzle import Grid

    rng = np.random.default_rng(1)
    drawn = Puzzle.from_grid(Grid(rng.integers(0, 2, (25, 25))))
    p = Puzzle.from_clues(drawn.rows, drawn.columns)
    data = bytearray(rofl.dumps([p]))
    assert data[4] == 3 and list(rofl.iter_load(bytes(data))) == [p]
    data[4] = 2
    with pytest.raises(RoflError, match="unknown flags 0x40"):
        list(rofl.iter_load(bytes(data)))
    kept, errors = rofl.load_salvage(bytes(data))
    assert kept == [] and len(errors) == 1
    # through the index too: the record's flags are judged by the file's version
    assert rofl.offsets(bytes(data)) == [5]
    with pytest.raises(RoflError, match=r"record 0 \(offset 5\): unknown flags 0x40"):
        rofl.read_at(bytes(data), 0)
    with pytest.raises(RoflError, match="unknown flags 0x40"):
        rofl.read_at(io.BytesIO(bytes(data)), 0)


def test_loads_collects_a_damaged_record_as_the_salvage_reader_does() -> None:
    """ROFL goes through the one mechanism of multi-puzzle files: ``loads(on_error=
    "collect")`` yields every intact record, the damaged one's error in its place; the
    strict reading still stops there."""
    ps, data = small_container()
    start, end = record_spans(data)[2]
    bad = bytearray(data)
    bad[end - 6] ^= 0x10
    reading = loads(bytes(bad), path="c.rofl", on_error="collect")
    kinds = [r if isinstance(r, RoflError) else None for r in reading.records()]
    assert kinds.count(None) == len(ps) - 1 and kinds[2] is not None
    salvaged = rofl.load_salvage(bytes(bad))[1]
    assert [str(e) for e in reading.errors] == [f"c.rofl: {e.reason}" for e in salvaged]
    with pytest.raises(RoflError, match=r"^c.rofl: record 2 "):
        list(loads(bytes(bad), path="c.rofl"))


def test_the_record_encoder_refuses_givens_in_the_registry_s_words() -> None:
    """ROFL has no place for givens: its encoder refuses them rather than drop them, with
    the one message every format gives (``Format.refusal``), naming those that hold them."""
    from nonoforge.errors import FormatError
    from nonoforge.formats.rofl.record import encode
    from nonoforge.puzzle import Grid

    p = Puzzle.from_grid(Grid.from_rows(["#.", ".#"])).replace(givens=((0, 0, 1),))
    said = "format 'rofl' cannot hold given cells .*has 1.*: use non"
    with pytest.raises(FormatError, match=said):
        encode(p)


# -- keys: a decoded one-colour puzzle carries its key ------------------------------------


@given(puzzles())
def test_a_decoded_puzzle_carries_the_key_its_clues_give(p: Puzzle) -> None:
    """The decoder hashes a one-colour puzzle's key from its lengths' texts (issue 38):
    it is the key :meth:`Puzzle.canonical_text` gives, with a goal or without, and the
    encoded puzzle's."""
    for q in (p, p.replace(goal=None)):
        back = rofl.decode(rofl.encode(q))
        assert back.key == key_of(back.canonical_text()) == q.key


def test_decoded_keys_are_the_keys_of_a_shared_set() -> None:
    """A shared tournament set (keys from its lines' texts) through ROFL, with its goals
    (run-coded) and without (range-coded): every key as it was."""
    from conftest import shared_path

    from nonoforge.formats import tournament

    ps = tournament.read_with_solutions(
        shared_path("corpora", "tournament", "question", "icga2017.txt"))
    for batch in (ps, [p.replace(goal=None) for p in ps]):
        back = list(rofl.iter_load(rofl.dumps(batch)))
        assert [q.key for q in back] == [p.key for p in batch]
        assert all(q.key == key_of(q.canonical_text()) for q in back[:50])
