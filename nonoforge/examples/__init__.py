"""Bundled, freely redistributable example puzzles and images (see ATTRIBUTION.md).

Any command that takes a file accepts ``example:NAME`` for one of these, e.g.
``nonoforge solve example:dancer``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nonoforge.errors import UsageError

HERE = Path(__file__).resolve().parent
PUZZLES = HERE / "puzzles"
IMAGES = HERE / "images"


@dataclass(frozen=True)
class Example:
    name: str
    kind: str  # "puzzle" or "image"
    path: Path


def list_examples() -> list[Example]:
    """Every bundled example, puzzles first, by name."""
    found = [Example(p.stem, "puzzle", p) for p in sorted(PUZZLES.glob("*.non"))]
    found += [Example(p.stem, "image", p) for p in sorted(IMAGES.glob("*.png"))]
    return found


def example_path(name: str) -> Path:
    """The file of the example called ``name`` (``dancer``, ``koala``, ...)."""
    for ex in list_examples():
        if name in (ex.name, ex.path.name):
            return ex.path
    known = ", ".join(ex.name for ex in list_examples())
    raise UsageError(f"no bundled example {name!r} (known: {known})")


#: How a command line names a bundled example: ``example:dancer``.
PREFIX = "example:"


def resolve(path: str) -> str:
    """A path as given, or the bundled file an ``example:NAME`` names (UsageError if none)."""
    if path.startswith(PREFIX):
        return str(example_path(path.removeprefix(PREFIX)))
    return path


def stem(path: str) -> str:
    """The name to give files written for ``path``: ``example:koala`` gives ``koala``."""
    return Path(path.removeprefix(PREFIX)).stem
