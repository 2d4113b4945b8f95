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
from nonoforge.images.load import MAX_PIXELS, array_to_rgba, as_rgba, load_image


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
