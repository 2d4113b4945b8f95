"""Reading images safely: one guarded entry point for every picture nonoforge turns into a puzzle.

The header is checked before any pixel is decoded, so a decompression bomb (a small file that
claims a huge canvas) is refused without allocating it: the *decoded cost* -- frames x width
x height x bytes per pixel, where the bytes are those of the decoded mode plus the RGBA and
float copies this loader makes -- must fit :data:`MEMORY_BUDGET`. Only the first frame of an
animated image is decoded. JPEGs are decoded at a reduced scale (libjpeg's DCT scaling) when
they are much larger than needed, and every picture is then shrunk in linear light to at most
:data:`WORK_SIDE` pixels a side: a puzzle is at most 200 cells a side. Every mode Pillow reads
(palette, LA, 16-bit grey, CMYK, ...) comes out as one float RGBA array in 0..1,
sRGB-encoded, so the quantiser sees a single representation. A colour picture that embeds
a colour profile (a camera's Adobe RGB, a phone's Display P3, a print CMYK) is converted
from it to sRGB first, as browsers and image editors show it; read as if it were sRGB its
colours come out dull or shifted. A profile that cannot be read is ignored, as browsers do.
"""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageMode, ImageOps, UnidentifiedImageError

from nonoforge.errors import FormatError, ImageError
from nonoforge.formats.base import MAX_FILE_BYTES, read_regular
from nonoforge.images.light import block_reduce_linear

if TYPE_CHECKING:
    from PIL import ImageCms

#: Largest canvas we decode (pixels). A 45x45 puzzle needs nothing near this.
MAX_PIXELS = 40_000_000
#: Most memory decoding one image may take (bytes), checked before decoding.
MEMORY_BUDGET = 256 * 2**20
#: Bytes per pixel the loader adds to the decoded image: an RGBA copy (4) and a float32
#: RGBA working copy (16) that is shrunk to :data:`WORK_SIDE` in strips.
LOADER_BYTES = 4 + 16
#: Modes whose embedded colour profile is applied, into a new image (4 bytes a pixel more:
#: the caller's image is never changed). Grey pictures keep their values: a grey profile's
#: curve differs from sRGB's by a little, and bilevel scans not at all.
PROFILED_MODES = ("RGB", "RGBA", "CMYK")

#: Longest side of the working image (pixels); larger pictures are shrunk to it.
WORK_SIDE = 1024
#: Smallest width and height that still carry a picture.
MIN_SIDE = 2

_SIXTEEN_BIT = {"I;16", "I;16L", "I;16B", "I;16N"}


#: What to do with a picture too large to decode, said with every such refusal.
SHRINK_IT = (f"shrink it first (a puzzle uses at most {WORK_SIDE} pixels a side), or save "
             "it as JPEG, which is decoded shrunk")


def check_size(width: int, height: int) -> None:
    """Refuse canvases that are too small to be a picture or big enough to be a bomb."""
    if width * height > MAX_PIXELS:
        raise ImageError(
            f"image claims {width}x{height} pixels, over the {MAX_PIXELS:,} pixel limit "
            f"(possible decompression bomb): {SHRINK_IT}"
        )
    if min(width, height) < MIN_SIDE:
        raise ImageError(f"image is {width}x{height} pixels: too small to make a puzzle of")


def mode_bytes(mode: str) -> int:
    """Bytes per pixel Pillow holds for an image of ``mode`` (1 for bilevel and palette)."""
    if mode in _SIXTEEN_BIT:
        return 2
    if mode in ("I", "F"):
        return 4
    try:
        return len(ImageMode.getmode(mode).bands)
    except KeyError:
        return 4


def decoded_cost(
    width: int, height: int, mode: str, frames: int = 1, profiled: bool = False
) -> int:
    """Bytes decoding ``frames`` frames of a ``width x height`` image of ``mode`` takes here
    (``profiled``: with an embedded colour profile to apply)."""
    extra = 4 if profiled and mode in PROFILED_MODES else 0
    return frames * width * height * (mode_bytes(mode) + LOADER_BYTES + extra)


def check_cost(
    width: int, height: int, mode: str, frames: int = 1, profiled: bool = False
) -> None:
    """Refuse an image whose decoded cost is over :data:`MEMORY_BUDGET`."""
    cost = decoded_cost(width, height, mode, frames, profiled)
    if cost > MEMORY_BUDGET:
        raise ImageError(
            f"image is {width}x{height} {mode}: decoding it takes {cost / 2**20:,.0f} MB, over "
            f"the {MEMORY_BUDGET // 2**20} MB budget (possible decompression bomb; "
            "scale it down first)"
        )


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """The image at ``path`` as a ``(H, W, 4)`` float64 sRGB+alpha array in 0..1.

    Raises :class:`ImageError` for an unreadable path, a file that is not an image, a
    canvas over :data:`MAX_PIXELS` (checked from the header, before decoding; for a JPEG,
    on the reduced scale it is decoded at, so a 48-megapixel photo is read) or under 2x2.
    """
    p = str(path)
    try:  # a regular file under the cap only: a FIFO or a device is refused, never waited on
        fp = io.BytesIO(read_regular(p, MAX_FILE_BYTES))
    except FormatError as e:
        reason = e.reason.replace("a puzzle file", "an image")
        if not reason.startswith(("no such file", "permission denied", "is a directory")):
            reason = f"cannot read ({reason})"
        raise ImageError(f"{p}: {reason}") from None
    try:
        # Image.open reads the header only; the checks run before any decoding. Only the
        # first frame of an animation is decoded (Pillow opens on it and we never seek).
        # Our checks are Pillow's bomb check made exact, so its warning (printed on the
        # terminal, before our one line) is silenced.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with fp, Image.open(fp) as im:
                _draft(im)
                check_size(*im.size)
                check_cost(im.width, im.height, im.mode,
                           profiled=bool(im.info.get("icc_profile")))
                im.load()
                return image_to_rgba(im)
    except ImageError as e:
        raise ImageError(f"{p}: {e}") from None
    except Image.DecompressionBombError:
        raise ImageError(f"{p}: image is too large to open (possible decompression bomb): "
                         f"{SHRINK_IT}") from None
    except UnidentifiedImageError:
        raise ImageError(f"{p}: not an image file Pillow can read") from None
    except (OSError, ValueError, SyntaxError, EOFError) as e:
        raise ImageError(f"{p}: cannot decode image ({e})") from None


def _draft(im: Image.Image) -> None:
    """A JPEG much larger than needed set to decode shrunk (libjpeg's DCT scaling, 1/2 to
    1/8: nothing is decoded yet): a 48-megapixel photo reads as a 3-megapixel one, so the
    pixel limit and the decoded cost apply to what is decoded, not to the camera's size."""
    long = max(im.size)
    if im.format == "JPEG" and long > 2 * WORK_SIDE:
        scale = WORK_SIDE / long
        im.draft(im.mode, (int(im.width * scale) or 1, int(im.height * scale) or 1))


def image_to_rgba(im: Image.Image) -> np.ndarray:
    """A Pillow image (any mode) as a ``(H, W, 4)`` float64 array in 0..1, upright,
    shrunk to at most :data:`WORK_SIDE` pixels a side."""
    check_size(*im.size)
    im = ImageOps.exif_transpose(im) if im.getexif() else im
    im = to_srgb(im)
    if im.mode in _SIXTEEN_BIT or im.mode in ("I", "F"):
        grey = np.asarray(im, dtype=np.float32)
        top = 65535.0 if im.mode in _SIXTEEN_BIT else max(float(grey.max()), 1.0)
        if im.mode == "I" and grey.max() <= 255:
            top = 255.0
        grey = np.clip(grey / top, 0.0, 1.0)
        rgba = np.empty((*grey.shape, 4), dtype=np.float32)
        rgba[..., :3] = grey[..., None]
        rgba[..., 3] = 1.0
        return to_work_size(rgba)
    rgba8 = np.asarray(im.convert("RGBA"))
    return to_work_size(rgba8.astype(np.float32) / np.float32(255.0))


def to_srgb(im: Image.Image) -> Image.Image:
    """``im`` converted from its embedded colour profile to sRGB (perceptual intent), or
    ``im`` itself when it has none, is not in :data:`PROFILED_MODES`, or its profile cannot
    be read or applied."""
    icc = im.info.get("icc_profile")
    if not icc or im.mode not in PROFILED_MODES:
        return im
    try:
        from PIL import ImageCms
    except ImportError:  # a Pillow built without lcms: read as sRGB, as before
        return im
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        if im.mode != "CMYK" and _is_srgb(source):
            return im  # already what we read: no transform, values exact
        out_mode = "RGB" if im.mode == "CMYK" else im.mode
        converted = ImageCms.profileToProfile(
            im, source, ImageCms.createProfile("sRGB"), outputMode=out_mode)
        return converted if converted is not None else im
    except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
        return im


def _is_srgb(profile: ImageCms.ImageCmsProfile) -> bool:
    """Whether ``profile`` (an ImageCms profile) describes sRGB by name: the IEC 61966-2.1
    profile every camera and editor embeds is named so."""
    from PIL import ImageCms

    try:
        name = ImageCms.getProfileDescription(profile)
    except ImageCms.PyCMSError:
        return False
    return name.strip().lower().startswith("srgb")


def to_work_size(rgba: np.ndarray, side: int = WORK_SIDE) -> np.ndarray:
    """``rgba`` as float64, shrunk by an integer factor (linear light) to at most ``side``."""
    k = -(-max(rgba.shape[:2]) // side)
    if k <= 1:
        return rgba.astype(np.float64)
    return block_reduce_linear(rgba, k)


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
    return to_work_size(f)


def as_rgba(image: str | os.PathLike[str] | np.ndarray | Image.Image) -> np.ndarray:
    """Any image source (path, array, Pillow image) as float RGBA."""
    if isinstance(image, str | Path | os.PathLike):
        return load_image(image)
    if isinstance(image, Image.Image):
        return image_to_rgba(image)
    return array_to_rgba(image)
