"""nonoforge: nonograms in black-and-white and colour, from images and archives to collections."""

from nonoforge.errors import NonoforgeError
from nonoforge.puzzle import Block, Color, Grid, Meta, Palette, Puzzle

__version__ = "0.1.0"

__all__ = ["Block", "Color", "Grid", "Meta", "NonoforgeError", "Palette", "Puzzle", "__version__"]
