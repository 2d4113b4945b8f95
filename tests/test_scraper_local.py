"""Local archives: directories, zip and tar.gz, each bad file recorded and the rest read."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import shared_path

from nonoforge.errors import FormatError
from nonoforge.formats import dumps
from nonoforge.formats.base import MAX_FILE_BYTES, read_regular
from nonoforge.puzzle import Grid, Meta, Puzzle
from nonoforge.scraper.local import (
    MAX_NAME,
    archive_kind,
    item_name,
    iter_members,
    unsafe_name,
)


def puzzle(rows: list[str], title: str) -> Puzzle:
    return Puzzle.from_grid(Grid.from_rows(rows), meta=Meta(title=title))


A = puzzle(["#.#", "###", ".#."], "A")
B = puzzle(["##..", ".##.", "..##"], "B")
C = puzzle(["#", "#"], "C")


def text(p: Puzzle, fmt: str) -> bytes:
    out = dumps(p, fmt)
    return out.encode() if isinstance(out, str) else out


def members(path: Path, **kw: int) -> dict[str, tuple[bytes | None, str | None]]:
    root = str(path.resolve())
    return {m.name.replace(root, "ROOT"): (m.data, m.error) for m in iter_members(path, **kw)}


def test_directory_recursively_in_order(tmp_path: Path) -> None:
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "a.non").write_bytes(text(A, "non"))
    (tmp_path / "sub" / "b.xml").write_bytes(text(B, "xml"))
    (tmp_path / "sub" / "deeper" / "c.json").write_bytes(text(C, "json"))
    (tmp_path / ".hidden").write_text("skipped")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x").write_text("skipped")
    os.symlink("/etc/passwd", tmp_path / "link.non")
    got = members(tmp_path)
    assert list(got) == ["ROOT/a.non", "ROOT/link.non", "ROOT/sub/b.xml",
                         "ROOT/sub/deeper/c.json"]
    assert got["ROOT/link.non"] == (
        None, "symbolic link to a file outside the folder: not followed")
    assert got["ROOT/a.non"][0] == text(A, "non")


def test_fifo_in_a_folder_is_recorded_never_opened(tmp_path: Path) -> None:
    (tmp_path / "a.non").write_bytes(text(A, "non"))
    os.mkfifo(tmp_path / "pipe.non")  # opening it for reading would wait for a writer
    os.mkfifo(tmp_path / "pipe.zip")
    got = members(tmp_path)  # returns at once (a hang here is the bug of issue 14.3)
    assert got["ROOT/pipe.non"] == (None, "not a regular file (a FIFO), skipped")
    assert got["ROOT/pipe.zip"][1] == "not a regular file (a FIFO), skipped"
    assert got["ROOT/a.non"][0] == text(A, "non")
    assert members(tmp_path / "pipe.non") == {"ROOT": (None, "not a regular file (a FIFO)")}


def test_symlinks_out_of_the_tree_are_recorded_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.non").write_bytes(text(B, "non"))
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.non").write_bytes(text(A, "non"))
    os.symlink(outside, root / "elsewhere")  # a folder outside the tree
    os.symlink(root / "sub", root / "again")  # a folder inside it
    os.symlink(outside / "secret.non", root / "s.non")
    got = members(root)
    link = "symbolic link to a {} the folder: not followed"
    assert got["ROOT/elsewhere"] == (None, link.format("folder outside"))
    assert got["ROOT/again"] == (None, link.format("folder inside"))
    assert got["ROOT/s.non"] == (None, link.format("file outside"))
    assert not any("secret" in k for k in got) and got["ROOT/sub/a.non"][0] == text(A, "non")


def test_a_single_file_and_a_missing_path(tmp_path: Path) -> None:
    f = tmp_path / "one.non"
    f.write_bytes(text(A, "non"))
    assert [m.data for m in iter_members(f)] == [text(A, "non")]
    [m] = iter_members(tmp_path / "nope")
    assert m.error == "no such file or directory"


def test_zip_guards(tmp_path: Path) -> None:
    z = tmp_path / "set.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("good/a.non", text(A, "non"))
        zf.writestr("../../evil.non", text(B, "non"))
        zf.writestr("/abs.non", text(B, "non"))
        zf.writestr("big.non", b"x" * 5000)
        zf.writestr("bomb.non", b"\0" * (3 * 2**20))
        zf.writestr("dir/", b"")
    got = members(z, max_member=4000)
    assert got["ROOT!good/a.non"] == (text(A, "non"), None)
    assert "escape" in (got["ROOT!../../evil.non"][1] or "")
    assert "escape" in (got["ROOT!/abs.non"][1] or "")
    assert "exceeds the cap" in (got["ROOT!big.non"][1] or "")
    assert "exceeds the cap" in (got["ROOT!bomb.non"][1] or "")
    assert "zip bomb" in (members(z)["ROOT!bomb.non"][1] or "")  # caught by its ratio
    assert not any(k.endswith("dir/") for k in got)


def test_zip_total_cap_stops_the_archive(tmp_path: Path) -> None:
    z = tmp_path / "many.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for i in range(10):
            zf.writestr(f"p{i}.non", text(A, "non"))
    got = list(iter_members(z, max_total=3 * len(text(A, "non"))))
    assert sum(m.data is not None for m in got) == 3
    assert "stopped" in (got[-1].error or "")


def test_tar_gz_guards(tmp_path: Path) -> None:
    t = tmp_path / "set.tar.gz"
    with tarfile.open(t, "w:gz") as tf:
        for name, data in (("a.non", text(A, "non")), ("../up.non", b"x"),
                           ("sub/b.xml", text(B, "xml"))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("link.non")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tf.addfile(link)
    got = members(t)
    assert got["ROOT!a.non"] == (text(A, "non"), None)
    assert got["ROOT!sub/b.xml"][0] == text(B, "xml")
    assert "escape" in (got["ROOT!../up.non"][1] or "")
    assert "not a regular file" in (got["ROOT!link.non"][1] or "")


def test_damaged_archives_are_one_error(tmp_path: Path) -> None:
    z = tmp_path / "broken.zip"
    z.write_bytes(b"PK\x03\x04 not really")
    [m] = iter_members(z)
    assert "zip" in (m.error or "")
    t = tmp_path / "broken.tar.gz"
    good = tmp_path / "good.tar.gz"
    with tarfile.open(good, "w:gz") as tf:
        info = tarfile.TarInfo("a.non")
        data = text(A, "non") * 200
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    t.write_bytes(good.read_bytes()[:200])
    got = list(iter_members(t))
    assert got and all(m.data is None for m in got) and got[-1].error


def test_archive_kind_by_content(tmp_path: Path) -> None:
    z = tmp_path / "noext"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("a.non", "x")
    t = tmp_path / "noext2"
    with tarfile.open(t, "w:gz") as tf:
        tf.addfile(tarfile.TarInfo("empty"), io.BytesIO(b""))
    plain = tmp_path / "p.non"
    plain.write_text("width 1\n")
    assert [archive_kind(p) for p in (z, t, plain)] == ["zip", "tar", None]


@pytest.mark.parametrize(
    ("name", "bad"),
    [("a/b.non", False), ("a/../b", True), ("/etc/x", True), ("C:/x", True), ("a\\..\\b", True),
     ("a..b.non", False)],
)
def test_unsafe_names(name: str, bad: bool) -> None:
    assert (unsafe_name(name) is not None) is bad


def test_item_names_fit_the_fetch_log() -> None:
    long = "/x" * 300 + "/file.non"
    short = item_name(long)
    assert len(short) <= MAX_NAME and short.endswith("/file.non")
    assert item_name(long + "2") != short and item_name("a.non") == "a.non"


def test_one_file_cap_for_every_reader(tmp_path: Path) -> None:
    """``ingest PATH`` capped files at 16 MiB while ``db import`` took 64: ingest refused
    a 26 MB bundle ``convert`` wrote. One cap now, with the same words for both."""
    within, over = tmp_path / "within.non", tmp_path / "over.non"
    for path, size in ((within, 26 * 10**6), (over, MAX_FILE_BYTES + 1)):
        with path.open("wb") as f:
            f.truncate(size)  # sparse: no disk is used
    [m] = iter_members(within)
    # accepted; a file this large is kept by path and streamed when read, never held whole
    assert m.error is None and m.path == str(within)
    raw = m.raw()
    assert raw is not None and len(raw) == 26 * 10**6
    [m] = iter_members(over)
    with pytest.raises(FormatError) as e:
        read_regular(over)
    assert m.error == e.value.reason == "file is larger than 64 MiB"


def test_a_folder_of_tournament_sets_is_read() -> None:
    """The tournament sets are ``.txt`` files: recognised by their content, so ``db
    import`` of the folder reads them (it read nothing and exited 0); their solution
    files beside them are left to the question files they complete."""
    from nonoforge.scraper.local import expand_folders

    sets = shared_path("corpora", "tournament")
    told: list[tuple[str, str]] = []
    questions = list(expand_folders([str(sets / "question")], told.append, told.append))
    assert len(questions) == 27 and told == []
    assert [Path(p).name for p in questions][:2] == ["icga2016.txt", "icga2017.txt"]
    both = list(expand_folders([str(sets)], lambda *a: told.append(a), lambda *a: told.append(a)))
    assert both == questions  # solutions are read with their questions, not as files
    assert told == [(str(sets), "1 file(s) that are not puzzle files (LICENSE)")]
    [m] = iter_members(sets / "solution")
    assert m.error is not None and m.error.startswith("no puzzle file in this folder: 27 file")
    assert str(sets / "question" / "icga2016.txt") in m.error


def test_a_folder_with_nothing_to_read_is_one_error(tmp_path: Path) -> None:
    from nonoforge.scraper.local import expand_folders

    (tmp_path / "notes.txt").write_text("shopping: eggs, milk\n")
    (tmp_path / "README.md").write_text("# my puzzles\n")
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + bytes(200))
    empty: list[tuple[str, str]] = []
    assert list(expand_folders([str(tmp_path)], None, lambda *a: empty.append(a))) == []
    [(folder, why)] = empty
    assert folder == str(tmp_path)
    assert why == ("no puzzle file in this folder: 3 file(s) that are not puzzle files "
                   "(README.md, notes.txt, photo.jpg)")
    [m] = iter_members(tmp_path)
    assert m.error == why


def test_a_zip_as_people_make_it(tmp_path: Path) -> None:
    """A zip of mikix-db as it is published, its README and LICENSE files included: the
    puzzles are read, the README and LICENSE files told once, never failures."""
    db = shared_path("corpora", "mikix-db")
    z = tmp_path / "mikix-db.zip"
    files = sorted(p for p in db.rglob("*") if p.is_file())
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in files:
            zf.write(p, "mikix-db/" + p.relative_to(db).as_posix())
    told: list[tuple[str, list[str]]] = []
    got = list(iter_members(z, on_others=lambda where, names: told.append((where, names))))
    assert all(m.error is None for m in got)
    # FORMAT.md holds an example puzzle in .non lines (the dancer): read by its content
    read = sorted(Path(m.name.split("!")[1]).name for m in got)
    assert read == sorted(p.name for p in files if p.suffix == ".non" or p.name == "FORMAT.md")
    [(where, names)] = told
    assert where == str(z.resolve())
    assert sorted(Path(n).name for n in names) == ["LICENSE"] + ["README.md"] * 5
