"""Safe image loading: every mode comes out as float RGBA; bad inputs give a clear ImageError."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from nonoforge.errors import ImageError
from nonoforge.images.load import (
    MAX_PIXELS,
    MEMORY_BUDGET,
    WORK_SIDE,
    array_to_rgba,
    as_rgba,
    decoded_cost,
    load_image,
)


def png_header(width: int, height: int) -> bytes:
    """A PNG that claims ``width x height`` pixels but carries no image data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def test_rgb_png_loads_as_float_rgba(tmp_path: Path) -> None:
    p = tmp_path / "a.png"
    Image.new("RGB", (4, 3), (255, 0, 0)).save(p)
    a = load_image(p)
    assert a.shape == (3, 4, 4)
    assert a.dtype == np.float64
    assert np.allclose(a[0, 0], [1, 0, 0, 1])


@pytest.mark.parametrize("mode", ["L", "LA", "P", "CMYK", "1", "I;16", "I", "RGBA"])
def test_every_mode_is_converted(tmp_path: Path, mode: str) -> None:
    im = Image.new("L", (5, 5), 0)
    im.putpixel((2, 2), 255)
    if mode == "I;16":
        im = Image.new("I;16", (5, 5), 0)
        im.putpixel((2, 2), 65535)
    else:
        im = im.convert(mode)
    ext = "tiff" if mode in ("CMYK", "I") else "png"
    p = tmp_path / f"m.{ext}"
    im.save(p)
    a = load_image(p)
    assert a.shape == (5, 5, 4)
    assert a.min() >= 0.0 and a.max() <= 1.0
    assert a[2, 2, :3].mean() > a[0, 0, :3].mean()


def test_palette_transparency_becomes_alpha(tmp_path: Path) -> None:
    im = Image.new("P", (4, 4), 0)
    im.putpalette([255, 255, 255, 200, 0, 0] + [0] * 762)
    im.putpixel((1, 1), 1)
    p = tmp_path / "t.png"
    im.save(p, transparency=0)
    a = load_image(p)
    assert a[0, 0, 3] == 0.0 and a[1, 1, 3] == 1.0


def test_decompression_bomb_header_is_refused_before_decoding(tmp_path: Path) -> None:
    p = tmp_path / "bomb.png"
    p.write_bytes(png_header(20000, 20000))
    with pytest.raises(ImageError, match="decompression bomb"):
        load_image(p)


def test_canvas_over_our_limit_is_refused(tmp_path: Path) -> None:
    side = int(MAX_PIXELS**0.5) + 10  # under Pillow's own bomb limit, over ours
    p = tmp_path / "big.png"
    p.write_bytes(png_header(side, side))
    with pytest.raises(ImageError, match="pixel limit"):
        load_image(p)


def test_one_pixel_image_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "dot.png"
    Image.new("RGB", (1, 1)).save(p)
    with pytest.raises(ImageError, match="too small"):
        load_image(p)


def test_non_image_file(tmp_path: Path) -> None:
    p = tmp_path / "notes.png"
    p.write_text("this is not a picture\n")
    with pytest.raises(ImageError, match="not an image"):
        load_image(p)


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nowhere.png")


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="directory"):
        load_image(tmp_path)


def test_path_through_a_file_is_unreadable(tmp_path: Path) -> None:
    f = tmp_path / "plain.txt"
    f.write_text("x")
    with pytest.raises(ImageError, match="cannot read"):
        load_image(f / "inside.png")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(tmp_path: Path) -> None:
    p = tmp_path / "locked.png"
    Image.new("RGB", (4, 4)).save(p)
    p.chmod(0)
    try:
        with pytest.raises(ImageError, match="permission denied"):
            load_image(p)
    finally:
        p.chmod(0o644)


def test_truncated_png(tmp_path: Path) -> None:
    p = tmp_path / "cut.png"
    Image.new("RGB", (64, 64), (1, 2, 3)).save(p)
    p.write_bytes(p.read_bytes()[:60])
    with pytest.raises(ImageError):
        load_image(p)


def test_arrays_of_every_shape() -> None:
    assert array_to_rgba(np.zeros((3, 4), dtype=np.uint8)).shape == (3, 4, 4)
    assert array_to_rgba(np.ones((3, 4, 3))).shape == (3, 4, 4)
    assert array_to_rgba(np.zeros((3, 4), dtype=bool)).shape == (3, 4, 4)
    assert np.allclose(array_to_rgba(np.full((2, 2), 65535, dtype=np.uint16))[..., :3], 1.0)
    with pytest.raises(ImageError):
        array_to_rgba(np.zeros((3, 4, 2)))
    with pytest.raises(ImageError, match="too small"):
        as_rgba(np.zeros((1, 1, 3)))


def test_pillow_image_source() -> None:
    a = as_rgba(Image.new("LA", (3, 2), (10, 128)))
    assert a.shape == (2, 3, 4)
    assert np.allclose(a[..., 3], 128 / 255)


def gif_screen_bomb(side: int = 6324) -> bytes:
    """A 39-byte GIF: a 7x1 frame on a ``side x side`` logical screen (issue 14, item 4).

    The frame's LZW data is seven (clear, 0) pairs and (clear, end), three bits each.
    """
    codes = [4, 0] * 7 + [4, 5]
    data = sum(c << (3 * i) for i, c in enumerate(codes)).to_bytes(6, "little")
    head = b"GIF89a" + struct.pack("<HHBBB", side, side, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    frame = b"\x2c" + struct.pack("<HHHHB", 0, 0, 7, 1, 0) + b"\x02" + bytes([len(data)]) + data
    return head + frame + b"\x00\x3b"


def test_gif_with_huge_logical_screen_is_refused_by_decoded_cost(tmp_path: Path) -> None:
    import time

    p = tmp_path / "screen.gif"
    p.write_bytes(gif_screen_bomb())
    assert len(p.read_bytes()) == 39
    assert MAX_PIXELS > 6324 * 6324  # under the pixel cap: the cost check is what refuses it
    t0 = time.process_time()
    with pytest.raises(ImageError, match="MB budget") as e:
        load_image(p)
    assert time.process_time() - t0 < 0.5  # refused from the header, nothing decoded
    assert "\n" not in str(e.value) and str(e.value).startswith(str(p))
    assert decoded_cost(6324, 6324, "P") > MEMORY_BUDGET


def test_gif_screen_bomb_through_the_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from nonoforge.cli import app

    p = tmp_path / "screen.gif"
    p.write_bytes(gif_screen_bomb())
    r = CliRunner().invoke(app, ["generate", str(p), "--size", "20x20", "--out", str(tmp_path)])
    assert r.exit_code == 2
    assert "MB budget" in r.output and "Traceback" not in r.output


def test_small_gif_uses_its_first_frame(tmp_path: Path) -> None:
    p = tmp_path / "anim.gif"
    a = Image.new("P", (8, 8), 0)
    a.putpalette([0, 0, 0, 255, 255, 255] + [0] * 762)
    b = a.copy()
    b.paste(1, (0, 0, 8, 8))
    a.save(p, save_all=True, append_images=[b], duration=100)
    assert np.allclose(load_image(p)[..., :3], 0.0)


def test_large_images_are_shrunk_in_linear_light(tmp_path: Path) -> None:
    side = WORK_SIDE * 2
    stripes = np.zeros((side, side), dtype=np.uint8)
    stripes[:, ::2] = 255
    p = tmp_path / "stripes.png"
    Image.fromarray(stripes).save(p)
    a = load_image(p)
    assert max(a.shape[:2]) <= WORK_SIDE
    # half black, half white averages to mid grey in linear light: sRGB 0.735, not 0.5
    assert abs(float(np.median(a[..., 0])) - 0.735) < 0.02


def test_large_jpeg_is_decoded_at_reduced_scale(tmp_path: Path) -> None:
    p = tmp_path / "big.jpg"
    Image.new("RGB", (5000, 3000), (200, 30, 40)).save(p, quality=90)
    a = load_image(p)
    assert max(a.shape[:2]) <= WORK_SIDE
    assert a.shape[1] > a.shape[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_fifo_is_refused_at_once_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)  # nobody writes to it: a plain open() would block forever
    with pytest.raises(ImageError, match="not a regular file"):
        load_image(fifo)


# -- embedded colour profiles -----------------------------------------------------------------
#
# Checked locally on real files (not committed: their licences are not ours to pass on):
# libvips's test-suite ``sample.jpg`` (Adobe RGB, "Artifex Software A98 ICC Profile") and
# ``sample-xyb.jpg`` (the same picture in jpegli's XYB colour space: read as sRGB it is a
# green field with a purple man, converted it is the A98 picture to 1.9/255 on average);
# Pillow's ``xmp_test.jpg`` (Adobe RGB (1998), 2000x1072: 0.05 s to convert),
# ``xmp_tags_orientation.png`` (ColorMatch RGB, RGBA: alpha kept), ``icc_profile_big.jpg``
# (a 400 KB profile), and the broken ones -- ``icc-after-SOF.jpg`` (a 7-byte profile) and
# the fuzzer's ``crash-*.tif`` -- which load as if they had none. The fixtures below are
# written by hand after them: a matrix profile with Adobe RGB's primaries, a truncated
# profile, one named sRGB.

#: Adobe RGB (1998)'s primaries adapted to D50 (the PCS), as its published profile has them.
ADOBE_RGB_D50 = ((0.60974, 0.31111, 0.01947), (0.20528, 0.62567, 0.06087),
                 (0.14919, 0.06322, 0.74457))
#: The sRGB primaries adapted to D50 (lcms's built-in sRGB profile).
SRGB_D50 = ((0.4360747, 0.2225045, 0.0139322), (0.3850649, 0.7168786, 0.0971045),
            (0.1430804, 0.0606169, 0.7141733))


def matrix_profile(primaries: tuple[tuple[float, float, float], ...], gamma: float,
                   name: str) -> bytes:
    """An ICC v2 display profile: three primaries (XYZ, D50) and one gamma curve."""

    def s15(v: float) -> bytes:
        return struct.pack(">i", round(v * 65536))

    def xyz(x: float, y: float, z: float) -> bytes:
        return b"XYZ " + bytes(4) + s15(x) + s15(y) + s15(z)

    ascii_name = name.encode() + b"\0"
    desc = (b"desc" + bytes(4) + struct.pack(">I", len(ascii_name)) + ascii_name
            + bytes(4) + bytes(4) + bytes(2) + bytes(1) + bytes(67))
    curve = b"curv" + bytes(4) + struct.pack(">IH", 1, round(gamma * 256)) + bytes(2)
    tags = [(b"desc", desc), (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
            (b"rXYZ", xyz(*primaries[0])), (b"gXYZ", xyz(*primaries[1])),
            (b"bXYZ", xyz(*primaries[2])),
            (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve)]
    offset = 128 + 4 + 12 * len(tags)
    table, body = b"", b""
    for sig, data in tags:
        data += bytes(-len(data) % 4)
        table += sig + struct.pack(">II", offset + len(body), len(data))
        body += data
    size = offset + len(body)
    header = (struct.pack(">I", size) + bytes(4) + struct.pack(">I", 0x02100000)
              + b"mntrRGB XYZ " + bytes(12) + b"acsp" + bytes(24) + struct.pack(">I", 0)
              + s15(0.9642) + s15(1.0) + s15(0.8249) + bytes(48))
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + body


def adobe_to_srgb(rgb8: np.ndarray) -> np.ndarray:
    """Adobe RGB (gamma 563/256) values to sRGB in 0..1, by the matrices: the known answer."""
    linear = (rgb8 / 255.0) ** (563 / 256)
    xyz = linear @ np.array(ADOBE_RGB_D50)
    srgb_linear = np.clip(xyz @ np.linalg.inv(np.array(SRGB_D50)), 0.0, 1.0)
    return np.where(srgb_linear <= 0.0031308, 12.92 * srgb_linear,
                    1.055 * srgb_linear ** (1 / 2.4) - 0.055)


SWATCH = np.array([[[180, 90, 60], [60, 140, 90], [70, 80, 170]],
                   [[128, 128, 128], [230, 200, 120], [20, 40, 30]]], dtype=np.uint8)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "TIFF"])
def test_a_picture_in_adobe_rgb_is_read_in_srgb(tmp_path: Path, fmt: str) -> None:
    """A camera's Adobe RGB picture read as if sRGB comes out dull; converted through its
    profile it matches the matrices' answer. A lossy JPEG is compared on flat blocks."""
    big = np.kron(SWATCH, np.ones((16, 16, 1), dtype=np.uint8))
    path = tmp_path / f"adobe.{fmt.lower()}"
    Image.fromarray(big).save(path, fmt, icc_profile=matrix_profile(
        ADOBE_RGB_D50, 563 / 256, "Adobe RGB (1998) by hand"), quality=100)
    got = load_image(path)[8::16, 8::16, :3]
    want = adobe_to_srgb(np.asarray(Image.open(path).convert("RGB"))[8::16, 8::16])
    assert np.abs(got - want).max() < 2.5 / 255
    raw = np.asarray(Image.open(path).convert("RGB"))[8::16, 8::16] / 255.0
    assert np.abs(raw - want).max() > 10 / 255  # what reading it as sRGB got wrong


def test_alpha_is_kept_through_a_profile(tmp_path: Path) -> None:
    rgba = np.dstack([SWATCH, np.array([[255, 128, 0], [255, 255, 64]], dtype=np.uint8)])
    path = tmp_path / "icon.png"
    Image.fromarray(rgba, "RGBA").save(
        path, icc_profile=matrix_profile(ADOBE_RGB_D50, 563 / 256, "wide"))
    got = load_image(path)
    np.testing.assert_allclose(got[..., 3], rgba[..., 3] / 255.0, atol=1e-6)
    np.testing.assert_allclose(got[..., :3], adobe_to_srgb(SWATCH.astype(float)), atol=2.5 / 255)


def test_srgb_broken_and_grey_profiles_leave_the_values_as_they_are(tmp_path: Path) -> None:
    """A profile named sRGB is what we read anyway (no transform: values exact); a broken
    one (Pillow's icc-after-SOF.jpg carries 7 bytes) is ignored, as browsers do; a grey
    picture keeps its values whatever its profile says."""
    rgba8 = np.asarray(Image.fromarray(SWATCH).convert("RGBA"))
    expect = (rgba8.astype(np.float32) / np.float32(255.0)).astype(np.float64)  # as read
    srgb = matrix_profile(SRGB_D50, 2.2, "sRGB IEC61966-2.1")
    for n, icc in enumerate([srgb, b"\x00\x00\x00\x07abc", srgb[:200], b"garbage" * 40]):
        path = tmp_path / f"p{n}.png"
        Image.fromarray(SWATCH).save(path, icc_profile=icc)
        np.testing.assert_array_equal(load_image(path), expect)
    grey = tmp_path / "grey.png"
    Image.fromarray(SWATCH[..., 0]).save(
        grey, icc_profile=matrix_profile(ADOBE_RGB_D50, 1.0, "linear"))
    np.testing.assert_allclose(load_image(grey)[..., 0], SWATCH[..., 0] / 255.0)


def test_a_callers_image_is_not_changed_by_its_profile() -> None:
    """``as_rgba`` of a Pillow image converts a copy: the library user's image keeps its
    pixels and its profile."""
    im = Image.fromarray(SWATCH)
    im.info["icc_profile"] = matrix_profile(ADOBE_RGB_D50, 563 / 256, "wide")
    before = np.asarray(im).copy()
    got = as_rgba(im)
    np.testing.assert_array_equal(np.asarray(im), before)
    np.testing.assert_allclose(got[..., :3], adobe_to_srgb(SWATCH.astype(float)), atol=2.5 / 255)
    assert decoded_cost(10, 10, "RGB", profiled=True) == decoded_cost(10, 10, "RGB") + 400
    assert decoded_cost(10, 10, "L", profiled=True) == decoded_cost(10, 10, "L")


def _real_photo() -> Path:
    """scikit-image's rocket.jpg (a real photo, public domain: NASA), in the venv."""
    skdata = pytest.importorskip("skimage.data")
    p = Path(skdata.__file__).parent / "rocket.jpg"
    if not p.is_file():
        pytest.skip(f"{p} is absent")
    return p


@pytest.mark.slow
def test_a_48_megapixel_photo_is_decoded_shrunk(tmp_path: Path) -> None:
    """A phone's 48-megapixel JPEG was refused ("over the 40,000,000 pixel limit") though
    a JPEG decodes shrunk: now libjpeg's scaling reads it within the same decoded cost."""
    with Image.open(_real_photo()) as small:
        small.load()
        big = small.convert("RGB").resize((8400, 5600), Image.Resampling.BILINEAR)
        expected = load_image(_real_photo())
    assert big.width * big.height > MAX_PIXELS
    p = tmp_path / "phone.jpg"
    big.save(p, quality=85)
    del big
    with Image.open(p) as im:  # what is decoded fits the bounds the header check keeps
        im.draft("RGB", (WORK_SIDE, WORK_SIDE * 2 // 3))
        assert im.width * im.height <= MAX_PIXELS
        assert decoded_cost(im.width, im.height, im.mode) <= MEMORY_BUDGET
    a = load_image(p)
    assert max(a.shape[:2]) <= WORK_SIDE and a.shape[1] > a.shape[0]
    # the same picture as the photo read at its own size: their 24x16 thumbnails agree
    def thumb(x: np.ndarray) -> np.ndarray:
        grey = Image.fromarray((x[..., :3].mean(axis=2) * 255).astype(np.uint8))
        return np.asarray(grey.resize((24, 16), Image.Resampling.BOX), dtype=float)

    assert np.corrcoef(thumb(a).ravel(), thumb(expected).ravel())[0, 1] > 0.95


def test_an_oversized_png_says_what_to_do(tmp_path: Path) -> None:
    p = tmp_path / "scan.png"
    p.write_bytes(png_header(8000, 6000))
    with pytest.raises(ImageError) as e:
        load_image(p)
    assert "\n" not in str(e.value)
    assert str(e.value).endswith("shrink it first (a puzzle uses at most 1024 pixels a side), "
                                 "or save it as JPEG, which is decoded shrunk")


def test_pillows_bomb_warning_never_reaches_the_cli(tmp_path: Path) -> None:
    """A 96-megapixel image printed Pillow's DecompressionBombWarning before our error."""
    import warnings

    from typer.testing import CliRunner

    from nonoforge.cli import app

    p = tmp_path / "huge.png"
    p.write_bytes(png_header(12000, 8000))
    assert Image.MAX_IMAGE_PIXELS < 12000 * 8000  # Pillow warns on opening it
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r = CliRunner().invoke(app, ["generate", str(p), "--size", "20x20",
                                     "--out", str(tmp_path / "out")])
    assert r.exit_code == 2, r.output
    assert not [w for w in seen if issubclass(w.category, Image.DecompressionBombWarning)]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "pixel limit" in lines[0], r.stderr


def test_pillows_bomb_warning_never_reaches_the_terminal(tmp_path: Path) -> None:
    """The same, as a user runs it: the process's stderr holds our one line only."""
    import subprocess
    import sys

    p = tmp_path / "huge.png"
    p.write_bytes(png_header(12000, 8000))
    r = subprocess.run(
        [sys.executable, "-W", "default", "-m", "nonoforge", "generate", str(p),
         "--size", "20x20", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert r.returncode == 2, r.stderr
    assert "DecompressionBombWarning" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "pixel limit" in lines[0], r.stderr
