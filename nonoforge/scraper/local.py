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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from nonoforge.errors import FormatError
from nonoforge.formats.base import MAX_FILE_BYTES, file_kind, read_regular, size_text

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
        self.total = total
        self.left = total

    def spent(self, n: int) -> str | None:
        """Take ``n`` bytes; the reason to stop reading the archive once it is overdrawn."""
        self.left -= n
        return None if self.left >= 0 else f"archive holds more than {self.total} bytes: stopped"


def _refusal(raw_name: str, size: int, cap: int, regular: bool = True) -> str | None:
    """Why an archive member is not read, by what its header says (an unsafe name, not a
    regular file, larger than ``cap``), or None: zip and tar members are judged alike."""
    why = unsafe_name(raw_name)
    if why:
        return why
    if not regular:
        return "not a regular file (link or device), skipped"
    return _too_big(size, cap) if size > cap else None


def iter_members(
    path: str | os.PathLike[str],
    *,
    max_member: int = MAX_FILE_BYTES,
    max_total: int = MAX_TOTAL_BYTES,
) -> Iterator[Member]:
    """Every file under ``path`` (a file, a directory, a zip or a tar), in a stable order."""
    root = Path(path)
    shown = str(root.resolve()) if root.exists() else str(root)
    if root.is_symlink() and root.is_dir():
        root = root.resolve()
    if root.is_dir():
        yield from _directory(root, shown, max_member, max_total)
    elif root.exists():
        yield from _file(root, shown, max_member, max_total)
    else:
        yield Member(shown, error="no such file or directory")


def walk(root: Path, shown: str) -> Iterator[tuple[Path, str, str | None]]:
    """``(path, name, why_skipped)`` for every entry under the folder ``root``, sorted.

    The one folder walk of nonoforge (``ingest DIR``, ``db import DIR``): hidden files
    and folders are skipped; symbolic links (to files or folders) are never followed and
    each is reported with its reason; anything but a regular file (a FIFO, a socket, a
    device) is reported and never opened, so nothing can hang on it. Entries are told
    by ``lstat``, before anything is opened.
    """
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            if d.startswith("."):
                continue
            if (base / d).is_symlink():
                yield from _link(root, base / d, shown, folder=True)
                continue
            keep.append(d)
        dirnames[:] = keep
        for fn in sorted(filenames):
            if fn.startswith("."):
                continue
            p = base / fn
            name = f"{shown}/{p.relative_to(root).as_posix()}"
            try:
                mode = p.lstat().st_mode
            except OSError as e:
                yield p, name, e.strerror or str(e)
                continue
            if stat.S_ISLNK(mode):
                yield from _link(root, p, shown, folder=False)
            elif not stat.S_ISREG(mode):
                yield p, name, f"not a regular file ({file_kind(mode)}), skipped"
            else:
                yield p, name, None


def expand_folders(
    paths: Iterable[str], on_skip: Callable[[str, str], None] | None = None
) -> Iterator[str]:
    """``paths`` with each folder replaced by the puzzle files under it (``db import DIR``).

    Folders are walked by :func:`walk` (hidden entries, links and non-regular files
    skipped, each skip told to ``on_skip(name, why)``); only files with an extension of a
    format nonoforge reads are taken, in sorted order. Other paths pass unchanged.
    """
    from nonoforge.formats import FORMATS

    known = tuple({ext for f in FORMATS.values() for ext in f.extensions})
    for path in paths:
        root = Path(path)
        if not root.is_dir():
            yield path
            continue
        for p, name, why in walk(root, path.rstrip("/") or "/"):
            if why is not None:
                if on_skip is not None:
                    on_skip(name, why)
            elif p.name.lower().endswith(known):
                yield str(p)


def _link(root: Path, p: Path, shown: str, *, folder: bool) -> Iterator[tuple[Path, str, str]]:
    name = f"{shown}/{p.relative_to(root).as_posix()}"
    try:
        target = p.resolve(strict=False)
        inside = target == root.resolve() or root.resolve() in target.parents
    except (OSError, RuntimeError):  # a loop of links
        inside = False
    where = "inside the folder" if inside else "outside the folder"
    what = "folder" if folder else "file"
    yield p, name, f"symbolic link to a {what} {where}: not followed"


def _directory(root: Path, shown: str, max_member: int, max_total: int) -> Iterator[Member]:
    for p, name, why in walk(root, shown):
        if why is not None:
            yield Member(name, error=why)
        else:
            yield from _file(p, name, max_member, max_total)


def _file(p: Path, name: str, max_member: int, max_total: int) -> Iterator[Member]:
    try:
        mode = p.stat().st_mode
    except OSError as e:
        yield Member(name, error=e.strerror or str(e))
        return
    if not stat.S_ISREG(mode):  # checked before anything opens it: a FIFO would block
        yield Member(name, error=f"not a regular file ({file_kind(mode)})")
        return
    kind = archive_kind(p)
    if kind == "zip":
        yield from _zip(p, name, max_member, max_total)
    elif kind == "tar":
        yield from _tar(p, name, max_member, max_total)
    else:
        yield _plain(p, name, max_member)


def _plain(p: Path, name: str, cap: int) -> Member:
    try:
        return Member(name, read_regular(p, cap))
    except FormatError as e:
        return Member(name, error=e.reason)


def _too_big(size: int, cap: int) -> str:
    return f"member of {size} bytes exceeds the cap of {size_text(cap)}"


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
            why = _refusal(info.filename, info.file_size, cap)
            if why:
                yield Member(name, error=why)
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
                yield Member(name, error=f"member exceeds the cap of {size_text(cap)} (size lied)")
                continue
            stop = budget.spent(len(data))
            if stop:
                yield Member(shown, error=stop)
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
                why = _refusal(info.name, info.size, cap, regular=info.isfile())
                if why:
                    yield Member(name, error=why)
                    continue
                f = tf.extractfile(info)
                if f is None:
                    yield Member(name, error="cannot read member")
                    continue
                with f:
                    data = f.read(cap + 1)
                stop = budget.spent(len(data))
                if stop:
                    yield Member(shown, error=stop)
                    return
                yield Member(name, data)
        except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
            yield Member(shown, error=f"archive is damaged ({e}); stopped")
