"""``nonoforge generate`` and ``nonoforge render`` through typer's CliRunner."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import click
import defusedxml.ElementTree as ET
import numpy as np
import pytest
from PIL import Image, ImageDraw
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.formats import read_file, write_file
from nonoforge.puzzle import Grid, Puzzle

runner = CliRunner()


def run(*args: str) -> click.testing.Result:
    return runner.invoke(app, list(args))


def assert_clean_error(result: click.testing.Result, code: int = 2) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    """A small transparent sticker: a red heart-ish blob with a dark eye."""
    im = Image.new("RGBA", (80, 60), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.ellipse((5, 5, 45, 55), fill=(210, 30, 40, 255))
    d.ellipse((35, 5, 75, 55), fill=(210, 30, 40, 255))
    d.rectangle((30, 20, 40, 30), fill=(20, 20, 20, 255))
    p = tmp_path / "heart.png"
    im.save(p)
    return p


def test_generate_json_writes_puzzle_sheets_and_pictures(tmp_path: Path, picture: Path) -> None:
    out = tmp_path / "out"
    r = run("generate", str(picture), "--width", "16", "--colors", "2", "--out", str(out),
            "--format", "json", "--json", "--seed", "3")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert len(rows) == 1
    row = rows[0]
    for key in ("image", "accepted", "edits", "edit_fraction", "puzzle", "time_s", "width",
                "height", "colors", "technique"):
        assert key in row
    assert row["image"] == str(picture) and row["accepted"] is True
    # the transparent margins are trimmed: 70x50 pixels of heart at 16 cells wide
    assert (row["width"], row["height"]) == (16, 11)
    [p] = read_file(row["puzzle"])
    assert p.key == row["key"] and p.goal is not None and p.goal.matches(p)
    for role in ("sheet_png", "solution", "edits"):
        Image.open(row["files"][role]).verify()
    ET.parse(row["files"]["sheet_svg"])


def test_generate_style_is_passed_and_reported(tmp_path: Path, picture: Path) -> None:
    for style in ("outline", "tones", "silhouette"):
        r = run("generate", str(picture), "--size", "20x20", "--style", style, "--json",
                "--out", str(tmp_path / style))
        assert r.exit_code == 0, r.output
        [row] = json.loads(r.stdout)
        assert row["style"] == style and row["style_scores"] == {}
        assert row["style_by"] == "asked" and row["subject_shape"] is None  # not a photo
        assert 0.0 <= row["structure"] <= 1.0
    r = run("generate", str(picture), "--size", "20x20", "--out", str(tmp_path / "text"))
    assert "(silhouette)" in r.stdout  # auto on a picture that is no photo


def _generate_photo(tmp_path: Path, name: str, *args: str) -> tuple[Any, dict[str, Any]]:
    """``generate --json`` of scikit-image's photo ``name`` (saved as ``name.png`` in
    ``tmp_path``) with ``args``: the run and its one row."""
    import skimage.data

    src = tmp_path / f"{name}.png"
    Image.fromarray(getattr(skimage.data, name)()).save(src)
    r = run("generate", str(src), *args, "--json", "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    return r, row


def test_generate_json_says_why_a_photo_is_drawn_as_its_subjects_shape(
        tmp_path: Path) -> None:
    """The camera man's shape (the subject model, shipped with nonoforge) decides auto's
    style: --json says it is a photo, drawn as a silhouette because of the subject's shape,
    and gives the facts the rule held against its limits."""
    _, row = _generate_photo(tmp_path, "camera", "--size", "20x20", "--style", "auto")
    assert row["photo"] is True and row["style"] == "silhouette"
    assert row["style_by"] == "subject_shape" and row["style_scores"] == {}
    shape = row["subject_shape"]
    assert shape["shaped"] is True and shape["solidity"] <= shape["max_solidity"]


def test_generate_default_non_file(tmp_path: Path, picture: Path) -> None:
    r = run("generate", str(picture), "--size", "12x10", "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert "accepted" in r.stdout
    [p] = read_file(tmp_path / "heart.non")
    assert (p.width, p.height) == (12, 9) and p.is_bw  # 12x10 at most, the heart's aspect
    assert p.meta.title == "Heart"  # the image's name made readable (issue 37)


def test_generate_title_is_the_puzzles_and_a_size_in_the_name_is_dropped(
        tmp_path: Path, picture: Path) -> None:
    r = run("generate", str(picture), "--size", "12x10", "--title", "Le cœur", "--out",
            str(tmp_path / "a"))
    assert r.exit_code == 0, r.output
    assert read_file(tmp_path / "a" / "heart.non")[0].meta.title == "Le cœur"
    sized = picture.rename(picture.with_name("big_heart-80x60.png"))
    assert run("generate", str(sized), "--size", "12x10", "--out", str(tmp_path / "b")
               ).exit_code == 0
    assert read_file(tmp_path / "b" / "big_heart-80x60.non")[0].meta.title == "Big heart"


def test_generate_colour_non_file(tmp_path: Path, picture: Path) -> None:
    r = run("generate", str(picture), "--size", "14x10", "--colors", "3", "--out",
            str(tmp_path), "--json")
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout)[0]
    [p] = read_file(row["puzzle"])
    assert row["puzzle"].endswith(".non") and p.ncolors == row["colors"] >= 2


def test_generate_two_images_with_one_name(tmp_path: Path, picture: Path) -> None:
    other = tmp_path / "b"
    other.mkdir()
    twin = other / "heart.png"
    twin.write_bytes(picture.read_bytes())
    r = run("generate", str(picture), str(twin), "--size", "10x10", "--out", str(tmp_path),
            "--json", "--format", "json")
    assert r.exit_code == 0, r.output
    names = sorted(Path(row["puzzle"]).name for row in json.loads(r.stdout))
    assert names == ["heart-2.json", "heart.json"]


def bomb(path: Path) -> Path:
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        return struct.pack(">I", len(data)) + kind + data + crc

    ihdr = struct.pack(">IIBBBBB", 20000, 20000, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b""))
    return path


@pytest.mark.parametrize("kind", ["bomb", "dot", "text", "missing", "flat"])
def test_generate_bad_images_fail_in_one_line(tmp_path: Path, kind: str) -> None:
    p = tmp_path / f"{kind}.png"
    if kind == "bomb":
        bomb(p)
    elif kind == "dot":
        Image.new("RGB", (1, 1)).save(p)
    elif kind == "text":
        p.write_text("hello\n")
    elif kind == "flat":
        Image.new("RGB", (8, 8), (9, 9, 9)).save(p)
    r = run("generate", str(p), "--size", "10x10", "--out", str(tmp_path / "o"))
    assert_clean_error(r)
    assert str(p) in r.stderr or kind == "flat"


@pytest.mark.parametrize(
    "args",
    [[], ["--size", "10"], ["--size", "10x10", "--max-technique", "search"],
     ["--size", "10x10", "--colors", "0"], ["--size", "10x10", "--edit-budget", "3"],
     ["--size", "10x10", "--style", "pencil"],
     ["--size", "10x10", "--style", "outline", "-c", "3"]],
)
def test_generate_bad_arguments(tmp_path: Path, picture: Path, args: list[str]) -> None:
    assert_clean_error(run("generate", str(picture), "--out", str(tmp_path), *args))


def test_render_any_puzzle_file(tmp_path: Path) -> None:
    g = Grid.from_rows([".##.", "####", "####", ".##."])
    src = tmp_path / "blob.non"
    write_file(Puzzle.from_grid(g).replace(goal=None), src)
    out = tmp_path / "r"
    r = run("render", str(src), "--out", str(out), "--gif", "--json")
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    assert row["status"] == "unique"
    sol = Image.open(row["solution"]).convert("RGB")
    assert np.asarray(sol)[:, :, 0].min() == 0  # the solver's picture, drawn in black
    gif = Image.open(row["gif"])
    assert gif.format == "GIF" and gif.n_frames >= 1
    ET.parse(row["sheet_svg"])
    Image.open(row["sheet_png"]).verify()


def test_render_svg_only(tmp_path: Path) -> None:
    src = tmp_path / "p.json"
    write_file(Puzzle.from_grid(Grid.from_rows(["#.", "##"])), src)
    r = run("render", str(src), "--out", str(tmp_path), "--no-png")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "p-sheet.svg").exists() and not (tmp_path / "p-sheet.png").exists()


def test_render_missing_file(tmp_path: Path) -> None:
    assert_clean_error(run("render", str(tmp_path / "none.non"), "--out", str(tmp_path)))


def test_render_answers_the_good_files_of_a_batch_with_a_bad_one(tmp_path: Path) -> None:
    bad = tmp_path / "bad.non"
    bad.write_bytes(b"\x00\x01 not a puzzle")
    r = run("render", "example:dancer", str(bad), "--out", str(tmp_path), "--no-png", "--json")
    assert r.exit_code == 2
    rows = json.loads(r.stdout)
    assert [row["file"] for row in rows] == ["example:dancer", str(bad)]
    assert "error" in rows[1] and "error" not in rows[0]
    assert (tmp_path / "dancer-sheet.svg").exists()


def test_generate_json_reports_likeness_margins_specks_and_colours(tmp_path: Path) -> None:
    r, row = _generate_photo(tmp_path, "coffee", "--size", "20x20", "--colors", "4")
    assert row["photo"] is True and 0.0 < row["likeness"] <= 1.0
    assert row["empty_margins"] == 0 and row["specks"] <= 3
    assert row["colors_wanted"] == 4
    assert row["colors"] == 4 or (row["colors_note"] and "note:" in r.stderr)
    assert row["closest_delta_e"] >= 15.0


def test_generate_explain_writes_the_flipping_cells(tmp_path: Path) -> None:
    """Two 2x2 blocks on a diagonal have the clues of the other diagonal too: ambiguous
    before repair. --explain draws and lists the cells that flip between two solutions."""
    cells = np.zeros((12, 12), dtype=np.uint8)
    cells[2:4, 2:4] = 1
    cells[4:6, 4:6] = 1
    cells[8:11, 1:11] = 1  # a bar that is not ambiguous
    im = Image.fromarray(np.where(cells, 0, 255).astype(np.uint8)).resize((120, 120),
                                                                         Image.Resampling.NEAREST)
    src = tmp_path / "switch.png"
    im.save(src)
    r = run("generate", str(src), "--size", "12x12", "--explain", "--json", "--no-crop",
            "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    ex = row["explain"]
    assert ex["kind"] == "flip" and ex["status"] == "multiple"
    assert sorted(map(tuple, ex["cells"])) == [(y, x) for y in range(2, 6) for x in range(2, 6)]
    assert Image.open(ex["file"]).size == Image.open(row["files"]["solution"]).size
    assert row["accepted"] is True  # the repair still fixed it


def test_a_refused_picture_is_always_explained(tmp_path: Path) -> None:
    cells = np.zeros((12, 12), dtype=np.uint8)
    cells[2:4, 2:4] = 1
    cells[4:6, 4:6] = 1
    cells[8:11, 1:11] = 1
    src = tmp_path / "switch.png"
    Image.fromarray(np.where(cells, 0, 255).astype(np.uint8)).save(src)
    r = run("generate", str(src), "--size", "12x12", "--no-crop", "--edit-budget", "0",
            "--json", "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    assert row["accepted"] is False
    assert row["explain"]["kind"] == "flip" and len(row["explain"]["cells"]) == 16
    assert Path(row["files"]["explain"]).is_file()
    assert Image.open(row["files"]["explain_gif"]).n_frames == 2  # one region, animated


def test_generate_grade_aims_with_the_shipped_model(tmp_path: Path) -> None:
    _, row = _generate_photo(tmp_path, "astronaut", "--grade", "1")
    assert row["grade_wanted"] == 1 and row["grade"] == 1 and row["grade_note"] is None
    assert row["accepted"] and max(row["width"], row["height"]) <= 45
    r = run("generate", str(tmp_path / "astronaut.png"), "--grade", "9", "--out", str(tmp_path))
    assert_clean_error(r)


def test_render_a_non_file_with_givens(tmp_path: Path) -> None:
    """A .non file's givens line (written here by hand, as the format's documented
    extension) reaches the sheets, and the solver starts from it: two 2x2 blocks on either
    diagonal have the same clues; a given top-left cell makes the picture unique."""
    src = tmp_path / "switch.non"
    src.write_text("width 4\nheight 4\n\nrows\n2\n2\n2\n2\n\ncolumns\n2\n2\n2\n2\n"
                   "\ngivens 1,1,1 1,4,0\n", encoding="utf-8")
    r = run("render", str(src), "--out", str(tmp_path / "r"), "--json")
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)
    assert row["status"] == "unique"
    sol = np.asarray(Image.open(row["solution"]).convert("L"))
    h, w = sol.shape
    assert sol[h // 8, w // 8] == 0 and sol[h // 8, w - w // 8] == 255  # the given diagonal
    root = ET.parse(row["sheet_svg"]).getroot()
    given = [e for e in root.iter() if e.get("class") == "given"]
    assert sorted(e.tag.split("}")[1] for e in given) == ["path", "rect"]  # filled, crossed


def test_generate_says_where_it_is_on_a_terminal_only(
    tmp_path: Path, picture: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal's stderr a status line follows the work (attempt, repair round) and
    is cleared at the end; not with --quiet, and nothing when stderr is not a terminal
    (the runner's): the results are the same."""
    import io

    from rich.console import Console

    import nonoforge.cli as cli
    import nonoforge.commands.base as base

    plain = run("generate", str(picture), "--size", "14x10", "--colors", "3", "--out",
                str(tmp_path / "a"), "--json")
    assert plain.exit_code == 0, plain.output
    assert "quantising" not in plain.stderr and "preparing" not in plain.stderr
    screen = io.StringIO()
    tty = Console(file=screen, force_terminal=True, width=400, markup=False, highlight=False)
    monkeypatch.setattr(cli, "err", tty)
    monkeypatch.setattr(base, "err", tty)  # the status line's home (commands/base.py)
    shown = run("generate", str(picture), "--size", "14x10", "--colors", "3", "--out",
                str(tmp_path / "b"), "--json")
    assert shown.exit_code == 0, shown.output
    assert f"{picture}: attempt 1/4: quantising" in screen.getvalue()
    first, second = json.loads(plain.stdout)[0], json.loads(shown.stdout)[0]
    assert first["key"] == second["key"]
    screen.truncate(0)
    quiet = run("-q", "generate", str(picture), "--size", "14x10", "--out", str(tmp_path / "c"))
    assert quiet.exit_code == 0 and "quantising" not in screen.getvalue()


def test_generate_flags_default_to_the_options_defaults() -> None:
    """``generate``'s flags default to what the library's options records default to, so
    the CLI and the library make the same puzzle unless told otherwise."""
    import typer.main

    from nonoforge.images.generate import GenerateOptions

    command = typer.main.get_command(app).commands["generate"]  # type: ignore[attr-defined]
    flags = {p.name: p.default for p in command.params}
    o = GenerateOptions()
    q = o.quantise
    assert (flags["colors"], flags["seed"], flags["fill"], flags["no_crop"]) == (
        q.colors, q.seed, q.fill, not q.crop)
    assert (flags["max_technique"], flags["edit_budget"], flags["repair_with"],
            flags["style"]) == (o.max_technique, o.edit_budget, o.repair_with, o.style.value)


def test_generate_refuses_a_negative_seed_in_one_line(tmp_path: Path) -> None:
    """--seed -1 was an internal error from NumPy; the options record refuses it."""
    r = run("generate", "example:pear", "--size", "10x10", "--seed", "-1", "--out",
            str(tmp_path))
    assert_clean_error(r)
    assert "seed" in r.stderr
