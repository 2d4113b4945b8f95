"""Titles a person reads: a puzzle's own title, else its image's or file's name made
readable, else a numbered default -- never a hex key.

Generated puzzles once carried their image's stem as title (``1f354`` twice in one book,
``koala-20x20``), and untitled ones ``Puzzle 74fc1d``: issue 37. One home for the rule, so
that ``generate``, the books, pages and datasets say the same.
"""

from __future__ import annotations

import re
import unicodedata

from nonoforge.util import safe_text

__all__ = ["DIFFICULTY", "difficulty", "numbered", "readable", "title_of"]

#: What a grade means to a reader, grade 1 to 5.
DIFFICULTY = {1: "Easy", 2: "Medium", 3: "Hard", 4: "Very hard", 5: "Expert"}

#: One code point written in hex, as emoji sets name their images (``1f354``, ``u1f354``).
_CODEPOINT = re.compile(r"(?:u\+?)?([0-9a-f]{4,6})", re.IGNORECASE)
#: Prefixes emoji sets put before the code points (``emoji_u1f354`` in Noto).
_EMOJI_PREFIX = re.compile(r"^(?:emoji_?u?|u)(?=[0-9a-f]{4,6}\b)", re.IGNORECASE)
#: A size the file name carries (``koala-20x20``), not part of the name.
_SIZE = re.compile(r"(?:^|[-_ .])\d+x\d+(?=$|[-_ .])", re.IGNORECASE)
#: Code points that join or modify an emoji and name nothing by themselves.
_SILENT = {0x200D, 0xFE0E, 0xFE0F, *range(0x1F3FB, 0x1F400), 0x20E3}


def difficulty(grade: int | None) -> str | None:
    """A grade in words with its number (``Hard (grade 3)``); None when ungraded.

    >>> difficulty(3), difficulty(5), difficulty(None)
    ('Hard (grade 3)', 'Expert (grade 5)', None)
    """
    if grade is None:
        return None
    return f"{DIFFICULTY.get(grade, 'Grade')} (grade {grade})"


def numbered(number: int) -> str:
    """The title of a puzzle with nothing better: its number in the collection.

    >>> numbered(12)
    'No. 12'
    """
    return f"No. {number}"


def _emoji_name(stem: str) -> str | None:
    """``1f354`` -> ``Hamburger``; ``1f468-200d-1f373`` -> ``Man cooking``; None when
    the stem is not a run of named code points."""
    parts = [x for x in re.split(r"[-_ ]", _EMOJI_PREFIX.sub("", stem)) if x]
    if not parts:
        return None
    words = []
    for part in parts:
        m = _CODEPOINT.fullmatch(part)
        if m is None or not re.search(r"\d", part):  # ``cafe`` is a word, not U+CAFE
            return None
        cp = int(m.group(1), 16)
        if cp > 0x10FFFF:
            return None
        if cp in _SILENT or 0xE0020 <= cp <= 0xE007F:  # joiners, skin tones, tag letters
            continue
        name = unicodedata.name(chr(cp), "")
        if not name or cp < 0x2000:  # a word of hex letters (``cafe``) is not an emoji
            return None
        words.append(name.lower())
    if not words:
        return None
    text = " ".join(words)
    return text[0].upper() + text[1:]


def _is_codepoints(stem: str) -> bool:
    """Whether ``stem`` is written like an emoji image's name (``1faad``, ``1f468-200d``):
    hex runs of 4 to 6 digits, each with a digit in it."""
    parts = [x for x in re.split(r"[-_ ]", _EMOJI_PREFIX.sub("", stem)) if x]
    return bool(parts) and all(_CODEPOINT.fullmatch(x) and re.search(r"\d", x)
                               for x in parts)


def _is_key(text: str) -> bool:
    """Whether ``text`` is a hex digest (a puzzle key or a prefix of one): never a title."""
    return len(text) >= 6 and re.fullmatch(r"[0-9a-f]+", text, re.IGNORECASE) is not None \
        and not text.isdigit()


def readable(name: str | None) -> str | None:
    """A file's or image's name as a person reads it, or None when it says nothing.

    The folder and extension go; an emoji's code points become its name; a size
    (``20x20``) goes; ``-`` and ``_`` become spaces; the first letter is a capital.
    A hex key, or a name of digits only, says nothing.

    >>> readable("1f354"), readable("emoji_u1f436.png"), readable("koala-20x20")
    ('Hamburger', 'Dog face', 'Koala')
    >>> readable("photos/red_barn.jpg"), readable("74fc1d9a0b"), readable("0042")
    ('Red barn', None, None)
    >>> readable("10ffff.png"), readable("cafe")  # no name known; a word of hex letters
    (None, 'Cafe')
    """
    if not name:
        return None
    stem = re.split(r"[\\/]", safe_text(name, 300).strip())[-1]
    stem = re.sub(r"\.[A-Za-z0-9]{1,5}$", "", stem).strip()
    if not stem:
        return None
    emoji = _emoji_name(stem)
    if emoji is not None:
        return emoji
    if _is_key(stem) or _is_codepoints(stem):  # a code point this Python cannot name
        return None
    text = _SIZE.sub(" ", stem)
    text = re.sub(r"[-_.]+", " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    if not text or text.isdigit() or _is_key(text.replace(" ", "")):
        return None
    return text[0].upper() + text[1:]


def _looks_like_a_file_name(title: str) -> bool:
    """A title that is a bare stem (no space; ``_`` or ``-`` between words, a hex run)
    rather than words someone wrote."""
    return " " not in title.strip() and (
        bool(re.search(r"[-_]", title)) or _emoji_name(title) is not None
        or _is_key(title) or bool(_SIZE.search(title)))


def title_of(title: str | None, source: str | None, number: int) -> str:
    """What a book, page or dataset calls a puzzle: its own title (a bare file stem made
    readable), else the name of the file it came from (a ``file:NAME`` source) made
    readable, else ``No. N``.

    >>> title_of("Dancer", None, 1), title_of("1f354", None, 2), title_of(None, None, 12)
    ('Dancer', 'Hamburger', 'No. 12')
    >>> title_of(None, "file:koala-20x20.non", 3), title_of("74fc1d9a", None, 4)
    ('Koala', 'No. 4')
    """
    if title and title.strip():
        if not _looks_like_a_file_name(title):
            return title.strip()
        made = readable(title)
        if made:
            return made
    if source and source.startswith("file:"):
        made = readable(source[len("file:"):])
        if made:
            return made
    return numbered(number)


def read_titles(path: str) -> dict[str, str]:
    """A ``--titles`` file: which puzzle gets which title.

    Either JSON, one object ``{"KEY-OR-FILE-NAME": "Title", ...}``, or plain text with one
    ``KEY-OR-FILE-NAME<TAB>Title`` a line (blank lines and lines starting with ``#``
    skipped). A key may be shortened to its first 6 or more characters; a file name is the
    name the puzzle was imported from (``koala.non`` or ``koala``). Bad input is one
    :class:`~nonoforge.errors.UsageError` naming the line.
    """
    import json

    from nonoforge.errors import UsageError

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(1 << 22)
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"--titles {path}: cannot read it ({e})") from None
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise UsageError(f"--titles {path}: not valid JSON ({e.msg}, line {e.lineno})") \
                from None
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise UsageError(f"--titles {path}: every value must be a title in quotes")
        pairs = list(data.items())
    else:
        pairs = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, sep, title = line.partition("\t")
            if not sep or not name.strip() or not title.strip():
                raise UsageError(f"--titles {path}, line {n}: expected KEY-OR-FILE-NAME, a "
                                 "tab, then the title")
            pairs.append((name, title))
    return {k.strip(): safe_text(v, 200).strip() for k, v in pairs if v.strip()}
