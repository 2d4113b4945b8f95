"""Reading images safely: one guarded entry point for every picture nonoforge turns into a puzzle.

The header is checked before any pixel is decoded, so a decompression bomb (a small file that
claims a huge canvas) is refused without allocating it. Every mode Pillow reads (palette, LA,
16-bit grey, CMYK, ...) comes out as one float RGBA array in 0..1, sRGB-encoded, so the
quantiser sees a single representation.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from nonoforge.errors import ImageError

#: Largest canvas we decode (pixels). A 45x45 puzzle needs nothing near this.
MAX_PIXELS = 40_000_000
#: Smallest width and height that still carry a picture.
MIN_SIDE = 2

_SIXTEEN_BIT = {"I;16", "I;16L", "I;16B", "I;16N"}


def check_size(width: int, height: int) -> None:
    """Refuse canvases that are too small to be a picture or big enough to be a bomb."""
    if width * height > MAX_PIXELS:
        raise ImageError(
            f"image claims {width}x{height} pixels, over the {MAX_PIXELS:,} pixel limit "
            "(possible decompression bomb)"
        )
    if min(width, height) < MIN_SIDE:
        raise ImageError(f"image is {width}x{height} pixels: too small to make a puzzle of")


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """The image at ``path`` as a ``(H, W, 4)`` float64 sRGB+alpha array in 0..1.

    Raises :class:`ImageError` for an unreadable path, a file that is not an image, a
    canvas over :data:`MAX_PIXELS` (checked from the header, before decoding) or under 2x2.
    """
    p = str(path)
    try:
        fp = open(p, "rb")  # noqa: SIM115 - closed below; errors here are about the path
    except FileNotFoundError:
        raise ImageError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ImageError(f"{p}: is a directory, not an image") from None
    except PermissionError:
        raise ImageError(f"{p}: permission denied") from None
    except OSError as e:
        raise ImageError(f"{p}: cannot read ({e.strerror or e})") from None
    try:
        # Image.open reads the header only; the size check runs before any decoding.
        with fp, Image.open(fp) as im:
            check_size(*im.size)
            im.load()
            return image_to_rgba(im)
    except ImageError as e:
        raise ImageError(f"{p}: {e}") from None
    except Image.DecompressionBombError:
        raise ImageError(f"{p}: image is too large (possible decompression bomb)") from None
    except UnidentifiedImageError:
        raise ImageError(f"{p}: not an image file Pillow can read") from None
    except (OSError, ValueError, SyntaxError, EOFError) as e:
        raise ImageError(f"{p}: cannot decode image ({e})") from None


def image_to_rgba(im: Image.Image) -> np.ndarray:
    """A Pillow image (any mode) as a ``(H, W, 4)`` float64 array in 0..1, upright."""
    check_size(*im.size)
    im = ImageOps.exif_transpose(im) if im.getexif() else im
    if im.mode in _SIXTEEN_BIT or im.mode in ("I", "F"):
        grey = np.asarray(im, dtype=np.float64)
        top = 65535.0 if im.mode in _SIXTEEN_BIT else max(float(grey.max()), 1.0)
        if im.mode == "I" and grey.max() <= 255:
            top = 255.0
        grey = np.clip(grey / top, 0.0, 1.0)
        rgba = np.empty((*grey.shape, 4))
        rgba[..., :3] = grey[..., None]
        rgba[..., 3] = 1.0
        return rgba
    if im.mode == "P" and "transparency" in im.info:
        im = im.convert("RGBA")
    return np.asarray(im.convert("RGBA"), dtype=np.float64) / 255.0


def array_to_rgba(arr: np.ndarray) -> np.ndarray:
    """An image given as an array (grey, RGB or RGBA; uint8 or float in 0..1) as float RGBA."""
    a = np.asarray(arr)
    if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] not in (1, 3, 4)):
        raise ImageError(f"not an image array: shape {a.shape}")
    check_size(a.shape[1], a.shape[0])
    if np.issubdtype(a.dtype, np.integer):
        top = 65535.0 if a.max(initial=0) > 255 else 255.0
        f = a.astype(np.float64) / top
    else:
        f = np.clip(a.astype(np.float64), 0.0, 1.0)
    if f.ndim == 2:
        f = f[..., None]
    if f.shape[2] == 1:
        f = np.repeat(f, 3, axis=2)
    if f.shape[2] == 3:
        f = np.concatenate([f, np.ones((*f.shape[:2], 1))], axis=2)
    return f


def as_rgba(image: str | os.PathLike[str] | np.ndarray | Image.Image) -> np.ndarray:
    """Any image source (path, array, Pillow image) as float RGBA."""
    if isinstance(image, str | Path | os.PathLike):
        return load_image(image)
    if isinstance(image, Image.Image):
        return image_to_rgba(image)
    return array_to_rgba(image)
