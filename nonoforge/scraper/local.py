"""Local archives: a puzzle file, a directory (recursively), a ``.zip`` or a ``.tar.gz``.

:func:`iter_members` yields every file inside as a :class:`Member` (a name and its bytes,
or a reason it was not read), never extracting anything to disk. Only puzzle files are
taken from folders and archives (:func:`nonoforge.formats.recognise`: a puzzle format's
extension, or content a format recognises); the others (a README, a LICENSE, photos) are
told once per folder or archive, never counted as failed puzzles, and a folder or archive
with no puzzle file in it is one error saying so. Archives are read with
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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePosixPath

from nonoforge.errors import FormatError
from nonoforge.formats.base import (
    MAX_FILE_BYTES,
    STREAM_BYTES,
    file_kind,
    open_regular,
    read_regular,
    size_text,
)

#: Largest total we read out of one archive.
MAX_TOTAL_BYTES = 1024 * 2**20
MAX_MEMBERS = 200_000
#: Uncompressed/compressed ratio above which a large member is taken for a zip bomb.
MAX_RATIO = 200
#: Longest item name the fetch log keeps.
MAX_NAME = 200

_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


class Found(Enum):
    """What a file met in a folder or an archive is, to a folder walk."""

    PUZZLE = "puzzle"  #: a puzzle file: read it
    COMPANION = "companion"  #: read with the file it completes (a tournament solution)
    OTHER = "other"  #: not a puzzle file (a README, a LICENSE, a photo): told, not read


@dataclass(frozen=True)
class Member:
    """One file of an archive: its name and bytes, or why it was not read."""

    name: str
    data: bytes | None = None
    error: str | None = None
    #: what the file is: only puzzle files leave :func:`iter_members` (the others are
    #: told once per folder or archive; companions are read with the files they complete)
    found: Found = Found.PUZZLE
    #: a plain file larger than :data:`~nonoforge.formats.base.STREAM_BYTES`: its path,
    #: read when its puzzles are (``iter_file``: a large bundle is streamed, never held);
    #: ``data`` is then None
    path: str | None = None

    def raw(self) -> bytes | None:
        """The file's bytes (read now for a file read by ``path``: kept for re-parsing when
        it holds one puzzle)."""
        if self.path is None:
            return self.data
        return read_regular(self.path)


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


#: Told the files of one folder or archive that are not puzzle files (never read as
#: puzzles): ``on_others(folder_or_archive, names)``, once, after its puzzle files.
OnOthers = Callable[[str, list[str]], None]


def classify(name: str, head: bytes | Callable[[], bytes], path: str | None = None) -> Found:
    """What the file ``name`` is: by its extension, else by ``head`` (its first bytes, or
    how to read them: only files with no puzzle extension are opened); ``path``, for a file
    on disk, lets a companion be told (it is left to the file it completes)."""
    from nonoforge.formats import SNIFF_BYTES, companion_of, recognise

    if path is not None and companion_of(path) is not None:
        return Found.COMPANION
    if recognise(name, b"") is not None:  # by extension alone
        return Found.PUZZLE
    data = head() if callable(head) else head
    return Found.PUZZLE if recognise(name, data[:SNIFF_BYTES]) is not None else Found.OTHER


def _head(p: Path) -> bytes:
    """The first bytes of the regular file ``p``, for sniffing (opened without blocking:
    a FIFO put in its place since the walk is never waited on); empty when unreadable."""
    from nonoforge.formats import SNIFF_BYTES

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(p, flags)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, SNIFF_BYTES)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _classify_path(p: Path, name: str) -> Found:
    """:func:`classify` for a regular file on disk; a file that cannot be opened is taken
    (reading it then reports why: permission denied is not "not a puzzle file")."""
    if not os.access(p, os.R_OK):
        return Found.PUZZLE
    return classify(name, lambda: _head(p), str(p))


def others_text(names: Sequence[str], shown: int = 3) -> str:
    """``N file(s) that are not puzzle files (a, b, c, ...)``, for messages."""
    tail = ", ".join(os.path.basename(n.rstrip("/")) or n for n in names[:shown])
    more = ", ..." if len(names) > shown else ""
    return f"{len(names)} file(s) that are not puzzle files ({tail}{more})"


def nothing_to_read(
    names: Sequence[str], what: str = "folder", companions: Sequence[str] = ()
) -> str:
    """The one line for a folder or archive with no puzzle file in it."""
    why = f"no puzzle file in this {what}"
    if companions:
        why += (f": {len(companions)} file(s) completing puzzle files elsewhere, read with "
                f"them (such as {companion_of_name(companions[0])})")
    return why + (f"; {others_text(names)}" if companions and names else
                  f": {others_text(names)}" if names else "")


def companion_of_name(path: str) -> str:
    """The file a companion completes, for messages."""
    from nonoforge.formats import companion_of

    return companion_of(path) or path


def iter_members(
    path: str | os.PathLike[str],
    *,
    max_member: int = MAX_FILE_BYTES,
    max_total: int = MAX_TOTAL_BYTES,
    on_others: OnOthers | None = None,
) -> Iterator[Member]:
    """Every puzzle file under ``path`` (a file, a directory, a zip or a tar), in a
    stable order. Files that are not puzzle files go to ``on_others``, once per folder or
    archive; a folder or archive with no puzzle file is one error member saying so. A
    file named by ``path`` itself is always read."""
    root = Path(path)
    shown = str(root.resolve()) if root.exists() else str(root)
    if root.is_symlink() and root.is_dir():
        root = root.resolve()
    tell = on_others or (lambda _where, _names: None)
    if root.is_dir():
        yield from _directory(root, shown, max_member, max_total, tell)
    elif root.exists():
        yield from _file(root, shown, max_member, max_total, tell)
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
    paths: Iterable[str],
    on_skip: Callable[[str, str], None] | None = None,
    on_empty: Callable[[str, str], None] | None = None,
) -> Iterator[str]:
    """``paths`` with each folder replaced by the puzzle files under it (``db import DIR``).

    Folders are walked by :func:`walk` (hidden entries, links and non-regular files
    skipped, each skip told to ``on_skip(name, why)``); the puzzle files are taken, in
    sorted order: a format's extension, or content a format recognises (a tournament
    set's ``.txt``; see :func:`classify`). The files that are not puzzle files are told
    once per folder, to ``on_skip(folder, "N file(s) that are not puzzle files (...)")``;
    a folder with no puzzle file at all goes to ``on_empty(folder, why)`` instead (the
    caller then exits non-zero). Other paths pass unchanged.
    """
    for path in paths:
        root = Path(path)
        if not root.is_dir():
            yield path
            continue
        shown = path.rstrip("/") or "/"
        taken = 0
        others: list[str] = []
        companions: list[str] = []
        for p, name, why in walk(root, shown):
            if why is not None:
                if on_skip is not None:
                    on_skip(name, why)
                continue
            found = _classify_path(p, name)
            if found is Found.PUZZLE:
                taken += 1
                yield str(p)
            else:
                (others if found is Found.OTHER else companions).append(str(p))
        if not taken:
            if on_empty is not None:
                on_empty(shown, nothing_to_read(others, "folder", companions))
        elif others and on_skip is not None:
            on_skip(shown, others_text(others))


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


def _directory(
    root: Path, shown: str, max_member: int, max_total: int, tell: OnOthers
) -> Iterator[Member]:
    def members() -> Iterator[Member]:
        for p, name, why in walk(root, shown):
            if why is not None:
                yield Member(name, error=why)
                continue
            found = Found.PUZZLE if archive_kind(p) else _classify_path(p, name)
            if found is Found.PUZZLE:
                yield from _file(p, name, max_member, max_total, tell)
            else:
                yield Member(name, found=found)

    yield from _gathered(members(), shown, "folder", tell)


def _file(
    p: Path, name: str, max_member: int, max_total: int, tell: OnOthers
) -> Iterator[Member]:
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
        yield from _gathered(_zip(p, name, max_member, max_total), name, "archive", tell)
    elif kind == "tar":
        yield from _gathered(_tar(p, name, max_member, max_total), name, "archive", tell)
    else:
        yield _plain(p, name, max_member)


def _plain(p: Path, name: str, cap: int) -> Member:
    try:
        if p.stat().st_size > STREAM_BYTES:  # checked now, read when its puzzles are
            fd, _ = open_regular(str(p), cap)
            os.close(fd)
            return Member(name, path=name)  # (a plain file's name is its absolute path)
        return Member(name, read_regular(p, cap))
    except OSError as e:
        return Member(name, error=e.strerror or str(e))
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
            yield Member(name, data, found=classify(info.filename, data))


def _gathered(members: Iterator[Member], shown: str, what: str, tell: OnOthers
              ) -> Iterator[Member]:
    """The puzzle files of a folder or archive (and its members that failed): the files
    that are not puzzle files are told once, at the end; when nothing else was there, the
    folder or archive is one error saying so."""
    taken = 0
    others: list[str] = []
    companions: list[str] = []
    for m in members:
        if m.found is Found.OTHER:
            others.append(m.name)
        elif m.found is Found.COMPANION:
            companions.append(m.name)
        else:
            taken += 1
            yield m
    if not taken:
        yield Member(shown, error=nothing_to_read(others, what, companions))
    elif others:
        tell(shown, others)


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
                yield Member(name, data, found=classify(info.name, data))
        except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
            yield Member(shown, error=f"archive is damaged ({e}); stopped")
