"""Writing what generate and render produce (nonoforge/images/output.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from nonoforge.errors import ImageError
from nonoforge.examples import example_path
from nonoforge.formats import read_file
from nonoforge.images.generate import generate
from nonoforge.images.output import out_dir, render_puzzle, write_generated


def test_render_writes_sheets_and_the_solution_of_a_bundled_puzzle(tmp_path: Path) -> None:
    (p,) = read_file(example_path("dancer"))
    paths = render_puzzle(p, tmp_path / "out", "dancer", gif=True)
    assert set(paths) >= {"sheet_png", "sheet_svg", "solution", "gif"}
    for role in ("sheet_png", "solution", "gif"):
        with Image.open(paths[role]) as im:
            assert im.width > 0 and im.height > 0
    assert Path(paths["sheet_svg"]).read_text().lstrip().startswith("<")
    assert sorted(x.name for x in (tmp_path / "out").iterdir()) == [
        "dancer-sheet.png", "dancer-sheet.svg", "dancer-solution.png", "dancer-solve.gif"]


def test_generated_files_follow_the_image_name(tmp_path: Path) -> None:
    gen = generate(example_path("pear"), size=(10, 10))
    paths = write_generated(gen, tmp_path, "pear")
    assert Path(paths["puzzle"]).name == "pear.non"
    (back,) = read_file(paths["puzzle"])
    assert back.rows == gen.puzzle.rows and back.columns == gen.puzzle.columns
    assert not list(tmp_path.glob("*.tmp*"))  # written whole: no temporary left


def test_an_output_path_that_is_a_file_is_refused_in_one_line(tmp_path: Path) -> None:
    f = tmp_path / "taken"
    f.write_text("x")
    with pytest.raises(ImageError, match="not a directory|cannot create"):
        out_dir(f)
    with pytest.raises(ImageError, match="cannot create"):
        out_dir(f / "below")
