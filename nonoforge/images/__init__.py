"""Images to puzzles: quantise a picture, prove its puzzle unique, repair it, render it.

>>> from nonoforge.images import GenerateOptions, QuantiseOptions, generate
>>> opts = GenerateOptions(QuantiseOptions(size=(30, 30), colors=4))
>>> g = generate("cat.png", opts)                     # doctest: +SKIP
>>> g.accepted, g.edits, g.puzzle.key                 # doctest: +SKIP

:mod:`~nonoforge.images.load` reads images safely, :mod:`~nonoforge.images.quantise` turns
them into small grids, :mod:`~nonoforge.images.generate` accepts and repairs them and
:mod:`~nonoforge.images.render` draws sheets, solutions, edits and solve animations.
"""

from __future__ import annotations

from nonoforge.images.generate import (
    Generated,
    GenerateOptions,
    Repair,
    accept,
    generate,
    is_accepted,
    repair,
)
from nonoforge.images.load import load_image
from nonoforge.images.quantise import (
    Quantised,
    QuantiseOptions,
    fit_size,
    parse_size,
    quantise,
)

__all__ = [
    "GenerateOptions",
    "Generated",
    "QuantiseOptions",
    "Quantised",
    "Repair",
    "accept",
    "fit_size",
    "generate",
    "is_accepted",
    "load_image",
    "parse_size",
    "quantise",
    "repair",
]
