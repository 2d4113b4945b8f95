"""Simon Tatham's *Pattern* game IDs (his Portable Puzzle Collection's nonograms).

A game ID is the size, a colon and the clues: the column clues left to right, then the
row clues top to bottom, one clue after another separated by ``/``, the numbers of a clue
separated by ``.``; an empty clue is empty::

    4x4:2/1/2/1/1.1/2/1/1

A square size may be written once (``10:...`` is ``10x10:...``) and a leading ``pattern:``
(the game's name, as some collections write it) is accepted. Newer versions of Pattern may
append ``,`` and run-length coded *clue squares*: cells shown filled or empty from the
start, which the player cannot change and Pattern's own solver starts from (its picture
generator winnows them to a few, as ``generate --repair givens`` does). They are the
puzzle's givens (:attr:`~nonoforge.puzzle.Puzzle.givens`), read and written: cells in
reading order, each letter skipping its distance from ``a`` (``A``) undecided cells and
then giving one cell empty (filled); ``z`` skips 25 cells and gives none. A
*random seed* ID (``10x10#123456``) is not a puzzle but an instruction to Pattern's
generator, so reading one is an error. Pattern's save files (``SAVEFILE:41:Simon
Tatham's Portable Puzzle Collection``) are read too, from their ``PARAMS`` and ``DESC``.

A file holds one game ID per line (blank lines are skipped); the format is black-and-white
and keeps no metadata.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from nonoforge.errors import FormatError
from nonoforge.formats.base import (
    MAX_SIDE,
    Format,
    bw_clues,
    numbered_lines,
    parse_int,
    puzzle_or_error,
    record,
    register,
    strict,
)
from nonoforge.puzzle import Clue, Given, Puzzle

_SIZE = re.compile(r"(\d{1,7})(?:x(\d{1,7}))?")
_SAVE_FIELD = re.compile(r"([A-Z]+) *:(\d{1,9}):")


def _size(text: str, line: int) -> tuple[int, int]:
    m = _SIZE.fullmatch(text)
    if m is None:
        raise FormatError(f"expected a size like 10x15, got {text[:20]!r}", line=line)
    w = int(m.group(1))
    h = int(m.group(2)) if m.group(2) is not None else w
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise FormatError(f"size {w}x{h} is out of range 1..{MAX_SIDE}", line=line)
    return w, h


def _clue_squares(code: str, width: int, cells: int, line: int) -> list[Given]:
    """Pattern's optional clue-square suffix as givens: letters, each a skip and a cell."""
    i = 0
    out: list[Given] = []
    for ch in code:
        if not ("a" <= ch <= "z" or "A" <= ch <= "Z"):
            raise FormatError(f"unrecognised character {ch!r} in the clue squares", line=line)
        if i == cells:  # every cell accounted for: pattern.c reads no further letters
            raise FormatError("too much data in the clue squares", line=line)
        skip = ord(ch.lower()) - ord("a")
        i += skip
        if skip < 25 and i < cells:
            out.append((i // width, i % width, 1 if ch.isupper() else 0))
            i += 1
        if i > cells:
            raise FormatError("too much data in the clue squares", line=line)
    if i < cells:
        raise FormatError("too little data in the clue squares", line=line)
    return out


def clue_squares(p: Puzzle) -> str:
    """``p``'s givens as Pattern's clue-square code (empty when it has none)."""
    if not p.givens:
        return ""
    out: list[str] = []
    pos = 0
    for r, c, k in p.givens:  # sorted: reading order
        at = r * p.width + c
        skip = at - pos
        while skip >= 25:
            out.append("z")
            skip -= 25
        out.append(chr((ord("A") if k else ord("a")) + skip))
        pos = at + 1
    rest = p.width * p.height - pos
    while rest >= 25:  # as Pattern writes it: whole skips, then the remainder
        out.append("z")
        rest -= 25
    if rest:
        out.append(chr(ord("a") + rest))
    return "".join(out)


def parse_id(game_id: str, line: int = 1) -> Puzzle:
    """The puzzle a Pattern game ID describes (``WxH:clues``, see the module docstring)."""
    text = game_id.strip()
    if text.lower().startswith("pattern:"):
        text = text[len("pattern:"):].lstrip()
    if "#" in text.split(":", 1)[0]:
        raise FormatError(
            "a random-seed game ID (WxH#seed) names no puzzle: Pattern generates it; "
            "use the puzzle's full game ID (WxH:clues)",
            line=line,
        )
    if ":" not in text:
        raise FormatError("not a Pattern game ID (expected WxH:clues)", line=line)
    size, desc = text.split(":", 1)
    w, h = _size(size.strip(), line)
    desc, comma, squares = desc.partition(",")
    givens = _clue_squares(squares.strip(), w, w * h, line) if comma else []
    parts = desc.strip().split("/")
    if len(parts) != w + h:
        raise FormatError(
            f"a {w}x{h} puzzle needs {w + h} clues ({w} columns, then {h} rows), "
            f"got {len(parts)}",
            line=line,
        )
    clues: list[Clue] = []
    for k, part in enumerate(parts):
        n, what = (h, f"column {k + 1}") if k < w else (w, f"row {k - w + 1}")
        nums = [parse_int(t, line, f"{what} block length") for t in part.split(".")] if part else []
        if nums == [0]:
            nums = []
        if len(nums) > n:
            raise FormatError(f"{what}: {len(nums)} blocks cannot fit in {n} cells", line=line)
        clues.append(tuple(nums))  # type: ignore[arg-type]
    cols, rows = clues[:w], clues[w:]
    return puzzle_or_error(lambda: Puzzle.from_clues(rows, cols, givens=givens), line)


def _save_fields(text: str) -> dict[str, str]:
    """The ``KEY:len:value`` fields of a Pattern save file (the last of each key wins)."""
    fields: dict[str, str] = {}
    for lineno, raw in numbered_lines(text):
        m = _SAVE_FIELD.match(raw)
        if m is None:
            if raw.strip():
                raise FormatError("not a KEY:length:value line of a save file", line=lineno)
            continue
        value = raw[m.end():]
        if len(value) != int(m.group(2)):
            raise FormatError(f"{m.group(1)}: length {m.group(2)} does not match", line=lineno)
        fields.setdefault(m.group(1), value)
    return fields


def _read_savefile(text: str) -> Puzzle:
    fields = _save_fields(text)
    game = fields.get("GAME", "")
    if game != "Pattern":
        raise FormatError(f"a save file of {game or 'an unknown game'!r}, not of Pattern")
    params, desc = fields.get("PARAMS"), fields.get("DESC")
    if not params or desc is None:
        raise FormatError("the save file has no PARAMS or DESC")
    return parse_id(f"{params}:{desc}")


def records(text: str | bytes) -> Iterator[Puzzle | FormatError]:
    """Every puzzle of a file of game IDs, one per line (or of one save file); a malformed
    ID is its FormatError in its place, and reading goes on at the next line (see
    :attr:`Format.records`)."""
    if isinstance(text, bytes):
        raise FormatError("a Pattern game ID is text")
    if text.startswith("SAVEFILE:"):
        yield _read_savefile(text)
        return
    for lineno, raw in numbered_lines(text):
        if raw.strip():
            yield record(partial(parse_id, raw, lineno))


read = strict(records)


def format_id(p: Puzzle) -> str:
    """The game ID of a black-and-white puzzle: ``WxH:`` then column and row clues (then
    ``,`` and its clue squares when it has givens)."""
    if not p.is_bw:
        raise FormatError("Pattern game IDs are black-and-white only")
    clues = [".".join(str(b.length) for b in c) for c in p.columns + p.rows]
    squares = clue_squares(p)
    return f"{p.width}x{p.height}:" + "/".join(clues) + ("," + squares if squares else "")


def write(puzzles: list[Puzzle]) -> str:
    return "".join(format_id(p) + "\n" for p in puzzles)


_SNIFF = re.compile(r"(?i:pattern:)?\s*\d{1,7}(?:x\d{1,7})?(?::[0-9./]*(?:,[a-zA-Z]*)?|#\S*)")


holds = bw_clues  # what survives: the clues (and givens), in black on white


def sniff(text: str | bytes) -> bool:
    if not isinstance(text, str):
        return False
    if text.startswith("SAVEFILE:"):
        return "\nGAME    :7:Pattern" in text[:2000]
    for raw in text[:65536].splitlines():
        if raw.strip():
            return _SNIFF.fullmatch(raw.strip()) is not None
    return False


FORMAT = register(
    Format(
        name="tatham",
        extensions=(".pattern", ".tatham"),
        description="Simon Tatham's Pattern game IDs (WxH:cols/rows), one per line",
        read=read,
        records=records,
        write=write,
        sniff=sniff,
        multi=True,
        color=False,
        holds=holds,
        priority=20,
        givens=True,
    )
)
