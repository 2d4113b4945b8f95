"""Small helpers with one home: text made safe, files written whole, error lines.

This module imports nothing of ours (it sits at the bottom of the layering, beside
``puzzle``), so every layer may use it.

Text from the outside world (a site's page, a file someone made, a database row) passes
through one of three functions depending on where it goes:

* :func:`safe_text` when it is *stored* (a title, an author): lone surrogates and control
  characters are replaced, line breaks normalised, the length capped;
* :func:`terminal_text` when it is *shown* on a terminal: every control character becomes a
  visible escape, so a title cannot move the cursor, recolour the screen or hide text;
* :func:`xml_text` when it is *written* into XML, SVG or HTML: markup characters are
  escaped and characters XML 1.0 forbids are dropped.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "REPLACEMENT",
    "first_line",
    "open_atomic",
    "safe_text",
    "terminal_text",
    "write_atomic",
    "xml_chars",
    "xml_text",
    "quick_exit",
    "without_scipy",
]

#: What a character we cannot keep is replaced with (U+FFFD REPLACEMENT CHARACTER).
REPLACEMENT = "\ufffd"

# C0 controls but tab and line feed, DEL, C1 controls, and lone surrogates (a ``str`` may
# hold them after ``surrogateescape``/``surrogatepass`` decoding; they cannot be encoded).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_NEWLINES = re.compile("\r\n?")


def safe_text(s: str, limit: int = 1000) -> str:
    """``s`` made fit to store: valid UTF-8, no control characters, at most ``limit`` long.

    Decisions, so every reader behaves alike:

    * tab and line feed are kept (notes and descriptions have several lines); ``\\r\\n``
      and a lone ``\\r`` become ``\\n``;
    * every other C0 control, DEL, every C1 control (U+0080..U+009F) and every lone
      surrogate is *replaced* by U+FFFD, not silently dropped, so a reader can see that
      something was there;
    * no other change: surrounding space is not stripped and nothing is normalised
      (that is the reader's choice);
    * a longer result is cut to ``limit - 1`` characters followed by ``…``, so the result
      is never longer than ``limit`` characters.

    >>> safe_text("Cat\\x1b[31m red")
    'Cat\\ufffd[31m red'
    >>> safe_text("two\\r\\nlines\\r")
    'two\\nlines\\n'
    >>> safe_text("bad \\udc80 byte")
    'bad \\ufffd byte'
    >>> safe_text("abcdefgh", limit=5)
    'abcd…'
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    out = _UNSAFE.sub(REPLACEMENT, _NEWLINES.sub("\n", s))
    if len(out) > limit:
        out = out[: limit - 1] + "…"
    return out


# Everything a terminal may act on: C0, DEL, C1, lone surrogates, and the Unicode
# controls that reorder or hide text (bidi embeddings/overrides/isolates, line and
# paragraph separators), which can make a title display as something it is not.
_TERMINAL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape_char(m: re.Match[str]) -> str:
    ch = m.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(s: str) -> str:
    """``s`` fit to print on a terminal: every control character shown as an escape.

    Tab, line feed and carriage return appear as ``\\t``, ``\\n``, ``\\r``; other C0/C1
    controls and DEL as ``\\xNN``; lone surrogates and the bidirectional / separator
    controls U+2028, U+2029, U+202A..U+202E, U+2066..U+2069 as ``\\uNNNN``. Everything
    else (including backslashes) is unchanged, so plain text reads as it is.

    >>> terminal_text("evil\\x1b]0;title\\x07 name")
    'evil\\\\x1b]0;title\\\\x07 name'
    >>> print(terminal_text("a\\tb\\nc\\u202ed"))
    a\\tb\\nc\\u202ed
    """
    return _TERMINAL.sub(_escape_char, s)


# Characters XML 1.0 does not allow anywhere, even as character references.
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_XML_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "\r": "&#13;"}
)


def xml_text(s: str) -> str:
    """``s`` fit for XML (and so SVG and HTML) text or a quoted attribute value.

    ``& < > " '`` are escaped; the characters XML 1.0 forbids (C0 controls but tab, line
    feed and carriage return; lone surrogates; U+FFFE, U+FFFF) are dropped; a carriage
    return is written ``&#13;`` so a parser does not turn it into a line feed.

    >>> xml_text('Tom & "Jerry" <3\\x00')
    'Tom &amp; &quot;Jerry&quot; &lt;3'
    """
    return xml_chars(s).translate(_XML_ESCAPES)


def xml_chars(s: str) -> str:
    """``s`` without the characters XML 1.0 forbids (the ones :func:`xml_text` drops), not
    yet escaped: what a value becomes once written into XML and read back.

    >>> xml_chars("a\\x00b\\ufffe")
    'ab'
    """
    return _XML_FORBIDDEN.sub("", s)


def first_line(error: BaseException | str) -> str:
    """The first non-blank line of an error (or message), stripped: what a one-line report
    shows. Falls back to the exception's class name when its message is empty.

    >>> first_line(ValueError("bad clue\\n  at row 3"))
    'bad clue'
    >>> first_line(KeyError())
    'KeyError'
    """
    text = error if isinstance(error, str) else str(error)
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "" if isinstance(error, str) else type(error).__name__


@contextmanager
def open_atomic(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write that appears at ``path`` only when the block ends cleanly.

    It is a temporary file beside ``path`` (same directory, so the final rename is
    atomic; named ``<name>.<random>.part``, unique per writer, so threads and processes
    writing the same path do not clobber each other's half-written copies). On a clean
    exit it is flushed and renamed over ``path``; on any exception (a full disk, a
    Ctrl-C) it is removed and ``path`` keeps its old content. A reader, or a run killed
    half-way, sees the old file or the new one, never half of one.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with open_atomic(d / "out.bin") as f:
    ...     _ = f.write(b"whole")
    >>> (d / "out.bin").read_bytes(), sorted(p.name for p in d.iterdir())
    (b'whole', ['out.bin'])
    """
    target = Path(path)
    # Not mkstemp: its files are private (0600); this one gets the usual umask-based mode.
    tmp = target.with_name(f"{target.name}.{uuid.uuid4().hex[:12]}.part")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (``str`` as UTF-8) to ``path`` whole or not at all (see
    :func:`open_atomic`). ``OSError`` propagates for the caller to word; no temporary file
    is left behind."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with open_atomic(path) as f:
        f.write(raw)


def unique_stem(stem: str, taken: set[str]) -> str:
    """``stem``, or ``stem-2``, ``stem-3``... when an earlier input had the same name."""
    name, k = stem, 2
    while name in taken:
        name, k = f"{stem}-{k}", k + 1
    taken.add(name)
    return name


def quick_exit() -> None:
    """Let this process exit without a last garbage collection of its objects.

    At exit Python sweeps every object still alive; a process that has loaded the compiled
    solver holds hundreds of thousands of them (numba's, LLVM's), and the sweep costs
    0.2-0.3 s of CPU for nothing: in a worker after the pool asked it to stop (its
    parent's join waits for it), in the command itself after its answer is printed.
    Freezing them at exit (``gc.freeze``, from an ``atexit`` hook; hooks run last-in
    first-out, so one registered at start runs after every later one, and all of them
    before that sweep) skips it. Objects still reachable are torn down as before; only
    unreachable cycles are left to the operating system, so whatever must be written is
    closed by its owner (every file and corpus here is, in a ``with``). ``run`` (the
    console script), ``solve``'s pool and ``rate``'s workers call it.
    """
    import atexit
    import gc

    if not _quick_exit_on:
        atexit.register(gc.freeze)
        _quick_exit_on.append(True)


_quick_exit_on: list[bool] = []  # registered once a process, however often it is asked


@contextmanager
def without_scipy() -> Iterator[bool]:
    """Load numba, and its registries on the first kernel call, without importing SciPy;
    yields whether SciPy is kept out (the solver's engine and the ROFL codec's kernels).

    When SciPy is installed (scikit-image brings it), numba imports it to check its version
    and, on its first kernel load, ``scipy.linalg`` to see whether BLAS is there for
    ``np.dot`` (``numba.np.arraymath._check_blas``): about 0.2 s of CPU, a fifth of what a
    process that loads the engine spends, for linear algebra no kernel of ours does. Inside
    this block ``import scipy`` fails (``sys.modules["scipy"] = None``, Python's documented
    way to make an import fail), so numba goes without; ``np.dot`` in a kernel compiled
    later still works (numba checks BLAS again when one is typed), only ``np.convolve``-like
    helpers keep a plain loop. SciPy imports normally after the block.

    Kept out only when that cannot hurt anyone: SciPy and numba's array functions are not
    imported yet, and this is the only thread (another one, e.g. the studio's image work,
    could be importing SciPy meanwhile).
    """
    block = ("scipy" not in sys.modules and "numba.np.arraymath" not in sys.modules
             and threading.active_count() == 1)
    if block:
        sys.modules["scipy"] = None  # type: ignore[assignment]
    try:
        yield block
    finally:
        if block and "scipy" in sys.modules and sys.modules["scipy"] is None:
            del sys.modules["scipy"]
