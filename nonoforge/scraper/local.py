"""Local archives: a puzzle file, a directory (recursively), a ``.zip`` or a ``.tar.gz``.

:func:`iter_members` yields every file inside as a :class:`Member` (a name and its bytes,
or a reason it was not read), never extracting anything to disk. Archives are read with
guards: member names that try to leave the archive (``../``, absolute paths) are refused,
member sizes are capped both as declared and as actually read, an implausible
compression ratio is treated as a zip bomb, and the whole archive has a total cap. A
bad member is one recorded error; the rest are read.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: Largest member we read (puzzle files are kilobytes; a big multi-puzzle file a few MiB).
MAX_MEMBER_BYTES = 16 * 2**20
#: Largest total we read out of one archive.
MAX_TOTAL_BYTES = 1024 * 2**20
MAX_MEMBERS = 200_000
#: Uncompressed/compressed ratio above which a large member is taken for a zip bomb.
MAX_RATIO = 200
#: Longest item name the fetch log keeps.
MAX_NAME = 200

_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


@dataclass(frozen=True)
class Member:
    """One file of an archive: its name and bytes, or why it was not read."""

    name: str
    data: bytes | None = None
    error: str | None = None


def item_name(name: str) -> str:
    """``name`` shortened to fit the fetch log: a hash of the whole, then its tail."""
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    return f"{digest}...{name[-(MAX_NAME - 15):]}"


def unsafe_name(name: str) -> str | None:
    """Why an archive member's name is not acceptable, or None."""
    if "\x00" in name:
        return "member name holds a NUL byte"
    norm = name.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        return "absolute member path (refused: it would escape the archive)"
    if ".." in PurePosixPath(norm).parts:
        return "member path with '..' (refused: it would escape the archive)"
    return None


def archive_kind(path: Path) -> str | None:
    """``"zip"``, ``"tar"`` or None for a plain file, by name and then by content."""
    low = path.name.lower()
    if low.endswith(".zip"):
        return "zip"
    if low.endswith(_TAR_SUFFIXES):
        return "tar"
    try:
        with path.open("rb") as f:
            head = f.read(4)
    except OSError:
        return None
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    if head[:2] == b"\x1f\x8b" or head[:3] in (b"BZh", b"\xfd7z"):
        try:
            return "tar" if tarfile.is_tarfile(path) else None
        except (OSError, EOFError, zlib.error):
            return None
    return None


class _Budget:
    """The total an archive may still yield."""

    def __init__(self, total: int) -> None:
        self.left = total

    def take(self, n: int) -> bool:
        self.left -= n
        return self.left >= 0


def iter_members(
    path: str | os.PathLike[str],
    *,
    max_member: int = MAX_MEMBER_BYTES,
    max_total: int = MAX_TOTAL_BYTES,
) -> Iterator[Member]:
    """Every file under ``path`` (a file, a directory, a zip or a tar), in a stable order."""
    root = Path(path)
    shown = str(root.resolve()) if root.exists() else str(root)
    if root.is_symlink() and root.is_dir():
        root = root.resolve()
    if root.is_dir():
        yield from _directory(root, shown, max_member, max_total)
    elif root.is_file():
        yield from _file(root, shown, max_member, max_total)
    elif root.exists():
        yield Member(shown, error="not a regular file or directory")
    else:
        yield Member(shown, error="no such file or directory")


def _directory(root: Path, shown: str, max_member: int, max_total: int) -> Iterator[Member]:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for fn in sorted(filenames):
            if fn.startswith("."):
                continue
            p = Path(dirpath) / fn
            name = f"{shown}/{p.relative_to(root).as_posix()}"
            if p.is_symlink():
                yield Member(name, error="symbolic link, not followed")
                continue
            yield from _file(p, name, max_member, max_total)


def _file(p: Path, name: str, max_member: int, max_total: int) -> Iterator[Member]:
    kind = archive_kind(p)
    if kind == "zip":
        yield from _zip(p, name, max_member, max_total)
    elif kind == "tar":
        yield from _tar(p, name, max_member, max_total)
    else:
        yield _plain(p, name, max_member)


def _plain(p: Path, name: str, cap: int) -> Member:
    try:
        st = p.stat()
        if not stat.S_ISREG(st.st_mode):
            return Member(name, error="not a regular file")
        if st.st_size > cap:
            return Member(name, error=f"file of {st.st_size} bytes exceeds the cap of {cap}")
        with p.open("rb") as f:
            data = f.read(cap + 1)
    except OSError as e:
        return Member(name, error=e.strerror or str(e))
    if len(data) > cap:
        return Member(name, error=f"file exceeds the cap of {cap} bytes")
    return Member(name, data)


def _too_big(size: int, cap: int) -> str:
    return f"member of {size} bytes exceeds the cap of {cap}"


def _zip(p: Path, shown: str, cap: int, max_total: int) -> Iterator[Member]:
    budget = _Budget(max_total)
    try:
        zf = zipfile.ZipFile(p)
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        yield Member(shown, error=f"not a readable zip archive ({e})")
        return
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            yield Member(shown, error=f"{len(infos)} members, more than {MAX_MEMBERS}")
            return
        for info in infos:
            if info.is_dir():
                continue
            name = f"{shown}!{info.filename}"
            why = unsafe_name(info.filename)
            if why:
                yield Member(name, error=why)
                continue
            if info.file_size > cap:
                yield Member(name, error=_too_big(info.file_size, cap))
                continue
            ratio = info.file_size / max(1, info.compress_size)
            if info.file_size > 2**20 and ratio > MAX_RATIO:
                yield Member(name, error=f"compression ratio {ratio:.0f}:1 looks like a zip bomb")
                continue
            try:
                with zf.open(info) as f:
                    data = f.read(cap + 1)
            except (zipfile.BadZipFile, zlib.error, RuntimeError, OSError, EOFError,
                    NotImplementedError, ValueError) as e:
                yield Member(name, error=f"cannot read member ({e})")
                continue
            if len(data) > cap:
                yield Member(name, error=f"member exceeds the cap of {cap} bytes (size lied)")
                continue
            if not budget.take(len(data)):
                yield Member(shown, error=f"archive holds more than {max_total} bytes: stopped")
                return
            yield Member(name, data)


def _tar(p: Path, shown: str, cap: int, max_total: int) -> Iterator[Member]:
    budget = _Budget(max_total)
    count = 0
    try:
        tf = tarfile.open(p, "r:*")  # noqa: SIM115 - closed by the with below
    except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
        yield Member(shown, error=f"not a readable tar archive ({e})")
        return
    with tf:
        try:
            for info in tf:
                count += 1
                if count > MAX_MEMBERS:
                    yield Member(shown, error=f"more than {MAX_MEMBERS} members: stopped")
                    return
                if info.isdir():
                    continue
                name = f"{shown}!{info.name}"
                why = unsafe_name(info.name)
                if why:
                    yield Member(name, error=why)
                    continue
                if not info.isfile():
                    yield Member(name, error="not a regular file (link or device), skipped")
                    continue
                if info.size > cap:
                    yield Member(name, error=_too_big(info.size, cap))
                    continue
                f = tf.extractfile(info)
                if f is None:
                    yield Member(name, error="cannot read member")
                    continue
                with f:
                    data = f.read(cap + 1)
                if not budget.take(len(data)):
                    yield Member(shown, error=f"archive holds more than {max_total} bytes: stopped")
                    return
                yield Member(name, data)
        except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
            yield Member(shown, error=f"archive is damaged ({e}); stopped")
