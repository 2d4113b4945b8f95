"""The open font nonoforge embeds in its PDF books: DejaVu Sans (regular and bold).

Shipped with the package (licence in ``LICENSE`` next to the files) so that any title prints
the same everywhere, with every glyph embedded as print services require.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
REGULAR = HERE / "DejaVuSans.ttf"
BOLD = HERE / "DejaVuSans-Bold.ttf"
