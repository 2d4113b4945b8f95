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
