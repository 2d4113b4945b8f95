"""Colour names a reader knows, from RGB: ``light blue``, ``dark red``, ``grey``.

A colour puzzle's palette names its colours as its source did -- ``a``, ``c2``, ``#a6d388``
or nothing useful -- and a printed key that reads ``a b c d`` beside its swatches tells a
reader little (issue 37). The key says the nearest name from a small palette of everyday
colour words, each in a light, plain and dark shade, compared in CIELAB (distance in Lab is
close to how far apart people see two colours). Two colours of one key never get the same
name: a second ``green`` becomes ``green 2``.

Pure: no imports of ours, no numpy, so any layer may use it.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["colour_name", "colour_names"]

RGB = tuple[int, int, int]

#: Everyday colour words and a typical sRGB of each.
_BASE: dict[str, RGB] = {
    "red": (215, 35, 35), "orange": (240, 135, 30), "yellow": (245, 215, 40),
    "green": (55, 160, 60), "teal": (20, 140, 140), "cyan": (60, 200, 225),
    "blue": (40, 90, 210), "purple": (130, 60, 170), "pink": (240, 130, 185),
    "brown": (135, 85, 40), "olive": (128, 128, 30), "beige": (225, 205, 160),
}  # fmt: skip
#: Names that have no light or dark shade of their own.
_PLAIN: dict[str, RGB] = {
    "black": (0, 0, 0), "white": (255, 255, 255), "grey": (128, 128, 128),
    "light grey": (200, 200, 200), "dark grey": (70, 70, 70), "navy": (20, 30, 90),
    "maroon": (110, 20, 30), "cream": (250, 240, 210), "gold": (215, 170, 40),
}  # fmt: skip


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
            round(a[2] + (b[2] - a[2]) * t))


def _lab(rgb: RGB) -> tuple[float, float, float]:
    """sRGB (0-255) to CIELAB (D65)."""

    def lin(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(v) for v in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _palette() -> list[tuple[str, tuple[float, float, float]]]:
    out = [(name, _lab(rgb)) for name, rgb in _PLAIN.items()]
    for name, rgb in _BASE.items():
        out.append((name, _lab(rgb)))
        out.append((f"light {name}", _lab(_mix(rgb, (255, 255, 255), 0.45))))
        out.append((f"dark {name}", _lab(_mix(rgb, (0, 0, 0), 0.45))))
    return out


_NAMED = _palette()


def colour_name(rgb: RGB) -> str:
    """The nearest everyday name of an sRGB colour.

    >>> colour_name((250, 0, 0)), colour_name((166, 211, 136)), colour_name((16, 16, 96))
    ('red', 'light green', 'navy')
    >>> colour_name((255, 255, 255)), colour_name((0, 0, 0))
    ('white', 'black')
    """
    lab = _lab(rgb)
    return min(_NAMED, key=lambda nl: sum((p - q) ** 2 for p, q in zip(nl[1], lab,
                                                                      strict=True)))[0]


def colour_names(rgbs: Sequence[RGB]) -> list[str]:
    """Names for the colours of one key, distinct: a repeated name gets a number.

    >>> colour_names([(200, 30, 30), (220, 40, 40), (30, 60, 200)])
    ['red', 'red 2', 'blue']
    """
    out: list[str] = []
    for rgb in rgbs:
        base = colour_name(rgb)
        name, k = base, 2
        while name in out:
            name, k = f"{base} {k}", k + 1
        out.append(name)
    return out
