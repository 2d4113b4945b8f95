"""One grammar for counts, ranges and sizes on every command line.

=================  ==============================================================
text               meaning
=================  ==============================================================
``3``              exactly 3                                   (:class:`Span`)
``1..3``, ``1-3``  from 1 to 3, both included
``2..``            2 or more
``..5``            at most 5
``30x20``          30 wide, 20 high                            (:class:`Size`)
``10x10..30x30``   at least 10x10 and at most 30x30, side by side (:class:`SizeSpan`)
``15..25``         each side from 15 to 25 (a bare number bounds both sides)
``20x20``, ``20``  exactly 20x20
``..30``           no side above 30
=================  ==============================================================

``..`` is the canonical separator and what ``str()`` writes; ``-`` is accepted as well
(``1-3``), so ``parse(str(x)) == x`` for every value. Numbers are non-negative decimal
integers; space around them is ignored, ``X`` and ``×`` work as ``x``.

The parsers raise :class:`~nonoforge.errors.UsageError` with the option's name, so a
typo becomes one clear line, never a traceback. The values are plain named tuples, so
they compare equal to (and unpack like) the ``(low, high)`` / ``(width, height)`` pairs
the library took before.

This module imports nothing of ours but :mod:`nonoforge.errors`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from nonoforge.errors import UsageError

__all__ = ["Size", "SizeSpan", "Span", "parse_size", "parse_size_span", "parse_span"]

_NUM = r"\d{1,9}"
_SEP = re.compile(r"\s*(?:\.\.|-)\s*")
_SIZE = re.compile(rf"\s*({_NUM})\s*[xX×]\s*({_NUM})\s*")


def _span_text(lo: object, hi: object) -> str:
    """A range as the grammar writes it: one value when both ends are the same, else
    ``lo..hi`` with an open end left empty (shared by :class:`Span` and :class:`SizeSpan`)."""
    if lo is not None and lo == hi:
        return str(lo)
    return f"{'' if lo is None else lo}..{'' if hi is None else hi}"


class Span(NamedTuple):
    """An inclusive range of integers; ``None`` leaves that end open.

    >>> Span.parse("2..")
    Span(lo=2, hi=None)
    >>> 7 in Span(2, None), 1 in Span(2, None)
    (True, False)
    >>> str(Span(1, 3)), str(Span(4, 4)), str(Span(None, 5)), str(Span())
    ('1..3', '4', '..5', '..')
    """

    lo: int | None = None
    hi: int | None = None

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        return (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi)

    def __str__(self) -> str:
        return _span_text(self.lo, self.hi)

    @classmethod
    def parse(cls, text: str, what: str = "range", within: Span | None = None) -> Span:
        """``3``, ``1..3``, ``1-3``, ``2..``, ``..5`` (or ``..``: anything).

        ``within`` bounds both ends: ``Span.parse("0..9", "--grade", Span(1, 5))`` fails.
        """
        return parse_span(text, what, within)


class Size(NamedTuple):
    """A grid size, ``width`` by ``height``.

    >>> Size.parse("30x20")
    Size(width=30, height=20)
    >>> str(Size(30, 20))
    '30x20'
    """

    width: int
    height: int

    def __str__(self) -> str:
        return f"{self.width}x{self.height}"

    @classmethod
    def parse(cls, text: str, what: str = "size") -> Size:
        """``WxH`` (``30x20``); sides must be at least 1."""
        return parse_size(text, what)


class SizeSpan(NamedTuple):
    """Grid sizes from ``lo`` to ``hi``, compared side by side; ``None`` is open.

    >>> s = SizeSpan.parse("15..25")
    >>> s
    SizeSpan(lo=Size(width=15, height=15), hi=Size(width=25, height=25))
    >>> s.admits(20, 25), s.admits(30, 20), str(s)
    (True, False, '15x15..25x25')
    """

    lo: Size | None = None
    hi: Size | None = None

    def admits(self, width: int, height: int) -> bool:
        """Whether a ``width`` x ``height`` grid lies within the span on both sides."""
        lo, hi = self.lo, self.hi
        return (lo is None or (width >= lo.width and height >= lo.height)) and (
            hi is None or (width <= hi.width and height <= hi.height)
        )

    def __str__(self) -> str:
        return _span_text(self.lo, self.hi)

    @classmethod
    def parse(cls, text: str, what: str = "size") -> SizeSpan:
        """``10x10..30x30``, ``15..25``, ``20x20``, ``20``, ``..30``, ``10x8..``."""
        return parse_size_span(text, what)


def _halves(text: str, what: str) -> tuple[str, str] | None:
    """``text`` split at its one range separator, or None when it has none.

    Only ``..`` may leave an end open: ``-3`` would read as a negative number and ``3-``
    as a typo, so both are refused rather than guessed.
    """
    m = _SEP.search(text.strip())
    if m is None:
        return None
    t = text.strip()
    a, b = t[: m.start()], t[m.end() :]
    if _SEP.search(b) or ("-" in m.group() and not (a.strip() and b.strip())):
        raise UsageError(f"{what}: expected a number or a range like 1..3, 2.. or ..5, "
                         f"got {text!r}")
    return a, b


def parse_span(text: str, what: str = "range", within: Span | None = None) -> Span:
    """``text`` as a :class:`Span` (see the module's table); ``what`` names the option.

    >>> parse_span("1-3"), parse_span(" 4 "), parse_span("..5")
    (Span(lo=1, hi=3), Span(lo=4, hi=4), Span(lo=None, hi=5))
    """

    def num(s: str) -> int | None:
        s = s.strip()
        if not s:
            return None
        if not re.fullmatch(_NUM, s):
            raise UsageError(
                f"{what}: expected a number or a range like 1..3, 2.. or ..5, got {text!r}"
            )
        return int(s)

    halves = _halves(text, what)
    if halves is None:
        n = num(text)
        if n is None:
            raise UsageError(f"{what}: expected a number or a range like 1..3, got {text!r}")
        span = Span(n, n)
    else:
        span = Span(num(halves[0]), num(halves[1]))
    if span.lo is not None and span.hi is not None and span.lo > span.hi:
        raise UsageError(f"{what}: the range {text!r} is empty (it runs from high to low)")
    if within is not None:
        for end in span:
            if end is not None and end not in within:
                raise UsageError(f"{what}: {text!r} must lie within {within}")
    return span


def parse_size(text: str, what: str = "size") -> Size:
    """``WxH`` as a :class:`Size`, each side at least 1.

    >>> parse_size("30 x 20")
    Size(width=30, height=20)
    """
    m = _SIZE.fullmatch(text)
    if not m:
        raise UsageError(f"{what}: expected WIDTHxHEIGHT, like 30x20, got {text!r}")
    size = Size(int(m.group(1)), int(m.group(2)))
    if size.width < 1 or size.height < 1:
        raise UsageError(f"{what}: a side must be at least 1, got {text!r}")
    return size


#: The smallest side of a puzzle made from a picture (``generate --size``, ``--width``):
#: fewer cells show no picture (``--size 2x2`` made a 1x1 puzzle).
MIN_PICTURE_SIDE = 5


def check_picture_size(text: str, what: str = "--size") -> Size:
    """``text`` (``WxH``, or ``W`` for a width) as the largest grid of a puzzle made from a
    picture: each side given must be at least :data:`MIN_PICTURE_SIDE`.

    >>> check_picture_size("30x20")
    Size(width=30, height=20)
    >>> check_picture_size("2x2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    nonoforge.errors.UsageError: --size 2x2: a puzzle made from a picture needs at least 5 ...
    """
    t = text.strip()
    size = Size(int(t), int(t)) if re.fullmatch(_NUM, t) else parse_size(t, what)
    if min(size) < MIN_PICTURE_SIDE:
        raise UsageError(f"{what} {t}: a puzzle made from a picture needs at least "
                         f"{MIN_PICTURE_SIDE} cells a side")
    return size


def parse_size_span(text: str, what: str = "size") -> SizeSpan:
    """``text`` as a :class:`SizeSpan` (see the module's table).

    >>> parse_size_span("10x10..30x30")
    SizeSpan(lo=Size(width=10, height=10), hi=Size(width=30, height=30))
    >>> parse_size_span("..30")
    SizeSpan(lo=None, hi=Size(width=30, height=30))
    """

    def bound(s: str) -> Size | None:
        s = s.strip()
        if not s:
            return None
        if re.fullmatch(_NUM, s):
            return Size(int(s), int(s))
        if _SIZE.fullmatch(s):
            return parse_size(s, what)
        raise UsageError(
            f"{what}: expected WxH, N, or a range like 10x10..30x30, 15..25, ..30; got {text!r}"
        )

    halves = _halves(text, what)
    if halves is None:
        exact = bound(text)
        if exact is None:
            raise UsageError(f"{what}: expected a size like 20x20 or a range, got {text!r}")
        return SizeSpan(exact, exact)
    span = SizeSpan(bound(halves[0]), bound(halves[1]))
    lo, hi = span
    if lo is not None and hi is not None and (lo.width > hi.width or lo.height > hi.height):
        raise UsageError(f"{what}: the range {text!r} is empty (it runs from large to small)")
    return span
