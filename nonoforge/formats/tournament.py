"""The batch format of the computer nonogram tournaments (TAAI, TCGA).

A question file holds many puzzles, each a block::

    $1                 the puzzle's number N (kept as Meta.source_id)
    2<TAB>1<TAB>3      the column clues, left to right, one a line,
    ...                numbers separated by tabs (or spaces)
    1<TAB>1            then the row clues, top to bottom
    ...

An empty clue is a line ``0``; an empty line is read as an empty clue too, except blank
lines at the end of the file, which are ignored (so we write ``0``). A block does not say
its size: it has W + H clue lines, and **we take W == H**, so a block of 2N lines is an
N x N puzzle (the tournament sets are 25 x 25). A block with an odd number of lines is an
error; puzzles that are not square cannot be written.

A solution file has the same ``$N`` blocks, each the H rows of the picture as ``0``/``1``
cells, separated by tabs or not at all. :func:`read_with_solutions` reads a question file
with its solution file (found by :func:`solution_path_for` as ``../solution/<same name>``)
and attaches each picture as the puzzle's goal. A malformed solution block costs only its
puzzle: its error, named by the solution file and its line, stands in the puzzle's place.
The registered reader gets only text, so it reads the questions alone.

What survives a write: the clues and the number (``$N`` from Meta.source_id when that is
a number, else the puzzle's position in the file, from 1).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple, cast

from nonoforge.errors import FormatError
from nonoforge.formats.base import (
    MAX_SIDE,
    Format,
    NumberedLines,
    file_lines,
    numbered_lines,
    parse_int,
    puzzle_or_error,
    puzzles_of,
    record,
    register,
    strict,
)
from nonoforge.puzzle import Block, Clue, Grid, Meta, Palette, Puzzle, bw_key

_BW = Palette.bw()

_HEADER = re.compile(r"\$\s*(\d{1,9})")
_PLAIN = re.compile(r"\d{1,6}(?:[ \t]+\d{1,6})*")


def _blocks(
    lines: Iterable[tuple[int, str]],
) -> Iterator[tuple[int, int, list[tuple[int, str]]] | FormatError]:
    """``(N, header_line, [(line_number, line), ...])`` for every ``$N`` block of a file's
    numbered lines (:func:`~nonoforge.formats.base.numbered_lines`, or a stream of them); a
    block whose header is malformed (or clues before the first header) is a FormatError in
    its place, and reading goes on at the next ``$`` line. Only the block being read is
    held."""
    current: tuple[int, int] | None = None
    skipping = False  # inside a block whose header was bad: its lines belong to it
    body: list[tuple[int, str]] = []
    blanks: list[tuple[int, str]] = []  # blank lines: empty clues, unless the file ends
    for lineno, raw in lines:
        s = raw.strip()
        if s and current is not None and not blanks and s[0] != "$":
            body.append((lineno, s))  # the common line: a clue of the block being read
            continue
        if not s:
            blanks.append((lineno, s))
            continue
        if s.startswith("$"):
            if current is not None:
                yield current[0], current[1], body + blanks
            blanks = []
            m = _HEADER.fullmatch(s)
            current, body, skipping = None, [], m is None
            if m is None:
                yield FormatError(f"expected a puzzle number like $12, got {s[:20]!r}", line=lineno)
            else:
                current = (int(m.group(1)), lineno)
        elif current is None:
            blanks = []
            if not skipping:
                skipping = True
                yield FormatError("expected a $N line before the clues", line=lineno)
        else:
            body += blanks
            blanks = []
            body.append((lineno, s))
    if current is not None:
        yield current[0], current[1], body  # blank lines at the end of the file: ignored


def _clue(line: str, lineno: int, what: str) -> tuple[int, ...]:
    if _PLAIN.fullmatch(line):  # the common case, fast; parse_int explains the rest
        nums = list(map(int, line.split()))
    else:
        nums = [parse_int(t, lineno, f"{what} block length") for t in line.split()]
    if nums == [0]:
        return ()
    if 0 in nums:
        raise FormatError(f"{what}: a block of length 0", line=lineno)
    return tuple(nums)


#: A clue line's clue, with the cells it paints, the fewest cells it fits in, its
#: picture and its text in the puzzle's key, by the line's text: the sets repeat their
#: lines (``0``, ``1``, ``25``...), and a line seen before costs one lookup instead of its
#: parse and its blocks. Only well-formed lines are kept (a bad one raises each time, with
#: its own line number). Bounded by generations: when the current one holds
#: :data:`_CLUES_MAX` lines it becomes the old one (the older is dropped), and a line found
#: only in the old one moves to the current: the lines the sets share stay, however many
#: lines are seen once (clearing the whole cache when full made the 27 shared sets parse
#: 220,000 of their 1,350,000 clue lines; the generations, 96,000 at the same bound).
_Facts = tuple[Clue, int, int, bytes, str]
_CLUE, _PAINTED, _NEED, _KEYED = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(4)
_CLUES: dict[str, _Facts] = {}
_OLD_CLUES: dict[str, _Facts] = {}
#: Lines a generation holds: both hold at most twice this many, a few MB at most (the cache
#: must not become the memory reading costs).
_CLUES_MAX = 20_000


def _clue_facts(line: str, lineno: int, kind: str, index: int) -> _Facts:
    """``(clue, cells painted, fewest cells, picture, key text)`` of the clue line of
    ``kind`` (``row``/``column``) ``index`` from 0 (see :data:`_CLUES`); the picture is
    the clue's blocks as ``1``s separated by spaces (``11 1``), see :func:`_draws`; the
    key text is the clue as :meth:`Puzzle.canonical_text` writes a one-colour clue."""
    global _CLUES, _OLD_CLUES
    found = _CLUES.get(line) or _OLD_CLUES.get(line)
    if found is None:
        nums = _clue(line, lineno, f"{kind} {index + 1}")
        painted = sum(nums)
        shown = b" ".join([b"1" * n for n in nums])
        found = (tuple(map(_BLACK.__getitem__, nums)), painted, painted + len(nums) - 1, shown,
                 ".".join(map(str, nums)))
    _CLUES[line] = found
    if len(_CLUES) >= _CLUES_MAX:
        _OLD_CLUES, _CLUES = _CLUES, {}
    return found


class _BlackBlocks(dict[int, Block]):
    """``n -> Block(n, 1)``, each made once: every puzzle's blocks are shared, not built."""

    def __missing__(self, n: int) -> Block:
        b = self[n] = Block(n, 1)
        return b


_BLACK = _BlackBlocks()


class _Picture(NamedTuple):
    """A solution block's picture, and its cells row by row (one byte each, 0 or 1)."""

    grid: Grid
    cells: bytes


#: Picture cells as text: background a space, black ``1``.
_SHOWN = bytes.maketrans(b"\x00\x01", b" 1")


def _draws(cells: bytes, side: int, facts: list[_Facts]) -> bool:
    """Whether the ``side x side`` picture ``cells`` has these clues (``facts``: the
    columns', then the rows'). Both sides are written as one text, each line's runs as
    ``1``s separated by single spaces, lines by `` | `` (a clue's text is kept with it),
    and compared at once (C speed: checking the goal was the dearest part of reading a set
    with solutions)."""
    shown = cells.translate(_SHOWN)
    lines = [shown[j::side] for j in range(side)]
    lines += [shown[i * side : (i + 1) * side] for i in range(side)]
    got = b" | ".join(lines).split()
    return got == b" | ".join([f[3] for f in facts]).split()


def _puzzle(
    n: int, header: int, body: list[tuple[int, str]], goal: _Picture | None = None
) -> Puzzle:
    if not body or len(body) % 2:
        raise FormatError(
            f"puzzle ${n} has {len(body)} clue lines; a square puzzle needs an even number",
            line=header,
        )
    side = len(body) // 2
    if side > MAX_SIDE:
        raise FormatError(f"puzzle ${n} is too large ({side} x {side})", line=header)
    known = _CLUES.get  # a line seen before: one lookup (its words are built only if not)
    facts: list[_Facts | None] = [known(s) for _, s in body]
    if None in facts:
        for j, f in enumerate(facts):
            if f is None:
                kind, i = ("column", j) if j < side else ("row", j - side)
                facts[j] = _clue_facts(body[j][1], body[j][0], kind, i)
    done = cast(list[_Facts], facts)
    if max(map(_NEED, done)) > side:  # every line parsed first, then every fit
        j = next(j for j, f in enumerate(done) if f[2] > side)
        kind, i = ("column", j) if j < side else ("row", j - side)
        raise FormatError(
            f"{kind} {i + 1}: clue needs more than the {side} cells of the line",
            line=body[j][0],
        )
    cols = tuple(map(_CLUE, done[:side]))
    rows = tuple(map(_CLUE, done[side:]))
    painted_cols = sum(map(_PAINTED, done[:side]))
    painted_rows = sum(map(_PAINTED, done[side:]))
    meta = Meta(source_id=str(n))
    # every block is positive and black, every clue fits its line (checked above): what
    # the constructor would check again is left, and when any of it fails the constructor
    # builds the puzzle, so that its error is the one it always gave
    if painted_rows == painted_cols:
        # the key from the lines' texts (one-colour clues, columns first, as
        # Puzzle.canonical_text writes them), not from the blocks again
        key = bw_key(side, side, map(_KEYED, done[:side]), map(_KEYED, done[side:]))
        if goal is None:
            return Puzzle.trusted(rows, cols, _BW, meta, key=key)
        if goal.grid.shape == (side, side) and _draws(goal.cells, side, done):
            return Puzzle.trusted(rows, cols, _BW, meta, goal.grid, key=key)
    grid = None if goal is None else goal.grid
    return puzzle_or_error(lambda: Puzzle.from_clues(rows, cols, meta=meta, goal=grid), header)


def _looks_like_solution(body: list[tuple[int, str]]) -> bool:
    """Whether a block is rows of 0/1 cells, as many as each row is long (a solution)."""
    n = len(body)
    # lazily, line by line: a question block fails at its first line, almost always
    cells = (s.replace("\t", "").replace(" ", "") for _, s in body)
    return n > 0 and all(len(c) == n and set(c) <= {"0", "1"} for c in cells)


def records(text: str | bytes) -> Iterator[Puzzle | FormatError]:
    """The puzzles of a question file, each with Meta.source_id = its number; a malformed
    block is its FormatError in its place (see :attr:`Format.records`)."""
    if isinstance(text, bytes):
        raise FormatError("a tournament file is text")
    yield from _read(numbered_lines(text), None)


def stream(lines: NumberedLines) -> Iterator[Puzzle | FormatError]:
    """:func:`records` of a question file's numbered lines, read as they come (a large
    file is never held: see :attr:`Format.stream`)."""
    return _read(lines, None)


read = strict(records)


def _read(
    lines: NumberedLines, goals: dict[int, _Picture | FormatError] | None
) -> Iterator[Puzzle | FormatError]:
    """The puzzles of a question file; with ``goals``, each takes (and uses up) its own,
    and a puzzle whose solution block is malformed is that block's error in its place
    (its question's own error, if the question is malformed too)."""
    for block in _blocks(lines):
        if isinstance(block, FormatError):
            yield block
            continue
        n, header, body = block
        goal = None if goals is None else goals.pop(n, None)
        if isinstance(goal, FormatError):
            r = record(partial(_question, n, header, body, None, False))
            yield goal if isinstance(r, Puzzle) else r
        else:
            yield record(partial(_question, n, header, body, goal, goals is not None))


def _question(
    n: int, header: int, body: list[tuple[int, str]], goal: _Picture | None, with_goals: bool
) -> Puzzle:
    """The puzzle of question block ``$n`` (with its ``goal`` when the file's solutions
    were read: ``with_goals``)."""
    if len(body) > 2 and _looks_like_solution(body):
        raise FormatError(
            "this is a tournament solution file (rows of 0/1), not a question file; "
            "read it with tournament.read_with_solutions",
            line=header,
        )
    if with_goals and goal is None:
        raise FormatError(f"puzzle ${n} has no solution", line=header)
    return _puzzle(n, header, body, goal)


#: Solution cells as bytes: ``0`` and ``1`` to colour indices 0 and 1.
_CELL_BYTES = bytes.maketrans(b"01", b"\x00\x01")


def _picture(n: int, header: int, body: list[tuple[int, str]]) -> _Picture:
    """The picture of solution block ``$n``: its rows of 0/1 cells.

    The whole block is checked and converted at once (C speed: a set's solutions were a
    fifth of reading it); a block that fails the check is read row by row again, for the
    error naming its line."""
    text = "\n".join([s for _, s in body]).replace("\t", "").replace(" ", "")
    if text.isascii():
        raw = text.encode("ascii")
        rows = raw.split(b"\n")
        if rows[0] and not raw.translate(None, b"01\n") and len(set(map(len, rows))) == 1:
            data = raw.replace(b"\n", b"").translate(_CELL_BYTES)
            return _Picture(Grid.from_bytes(data, len(rows), len(rows[0])), data)
    return _picture_rows(n, header, body)


def _picture_rows(n: int, header: int, body: list[tuple[int, str]]) -> _Picture:
    """:func:`_picture` row by row: the first row that is not 0s and 1s is the error."""
    rows = []
    for lineno, s in body:
        cells = s.replace("\t", "").replace(" ", "")
        if not cells or cells.strip("01"):  # (what is left is a character other than 0/1)
            raise FormatError(f"solution ${n}: a row must be 0s and 1s", line=lineno)
        rows.append(cells)
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        raise FormatError(f"solution ${n}: rows differ in length or are missing", line=header)
    data = "".join(rows).encode("ascii").translate(_CELL_BYTES)
    return _Picture(Grid.from_bytes(data, len(rows), len(rows[0])), data)


def _goals(
    lines: NumberedLines, path: str | None = None
) -> tuple[dict[int, _Picture | FormatError], list[FormatError]]:
    """The pictures of a solution file by puzzle number, a malformed block (or a number
    given twice) its error in the picture's place, so that it costs only its puzzle; and
    the errors that name no puzzle (malformed ``$N`` lines). Errors are located in
    ``path``, the solution file."""
    goals: dict[int, _Picture | FormatError] = {}
    loose: list[FormatError] = []
    for block in _blocks(lines):
        if isinstance(block, FormatError):
            loose.append(block.located(path))
            continue
        n, header, body = block
        if n in goals:
            if not isinstance(goals[n], FormatError):
                goals[n] = FormatError(f"solution ${n} appears twice", path, header)
            continue
        picture = record(partial(_picture, n, header, body))
        goals[n] = picture.located(path) if isinstance(picture, FormatError) else picture
    return goals, loose


def _first(
    goals: dict[int, _Picture | FormatError], loose: list[FormatError]
) -> FormatError | None:
    """The first error of a solution file, in file order, or None."""
    errors = loose + [g for g in goals.values() if isinstance(g, FormatError)]
    return min(errors, key=lambda e: e.line or 0, default=None)


def read_solutions(text: str) -> dict[int, Grid]:
    """The pictures of a solution file, by puzzle number (its first error raised)."""
    goals, loose = _goals(numbered_lines(text))
    error = _first(goals, loose)
    if error is not None:
        raise error
    return {n: g.grid for n, g in goals.items() if isinstance(g, _Picture)}


def solution_path_for(path: str | os.PathLike[str]) -> Path | None:
    """The solution file of a question file: ``../solution/<same name>``, if it exists."""
    q = Path(path)
    candidate = q.parent.parent / "solution" / q.name
    return candidate if candidate.is_file() else None


def question_path_for(path: str | os.PathLike[str]) -> str | None:
    """The question file a solution file completes: for ``X/solution/NAME``, a
    ``X/<folder>/NAME`` whose :func:`solution_path_for` it is, if one exists; else None."""
    s = Path(path)
    if s.parent.name != "solution":
        return None
    try:
        folders = sorted(d for d in s.parent.parent.iterdir() if d.name != "solution")
    except OSError:
        return None
    for d in folders:
        q = d / s.name
        if q.is_file():
            return str(q)
    return None


def read_with_solutions(
    question_path: str | os.PathLike[str],
    solution_path: str | os.PathLike[str] | None = None,
    *,
    question_text: str | None = None,
) -> list[Puzzle]:
    """The puzzles of a question file, each with its solution picture as the goal.

    ``solution_path`` defaults to :func:`solution_path_for`. ``question_text`` is the
    question file's content when the caller has already read it (it is not read again).
    Every puzzle must have a solution and every solution a puzzle; a picture that does
    not match its clues is an error.
    """
    return list(puzzles_of(
        records_with_solutions(question_path, solution_path, question_text=question_text)
    ))


def records_with_solutions(
    question_path: str | os.PathLike[str],
    solution_path: str | os.PathLike[str] | None = None,
    *,
    question_text: str | NumberedLines | None = None,
) -> Iterator[Puzzle | FormatError]:
    """:func:`read_with_solutions` as records: a malformed question block is its error in
    its place (located in the question file), and reading goes on; so is a malformed
    solution block (located in the solution file, at its line). Solution errors that name
    no puzzle follow the questions. A solution file where nothing can be read fails the
    whole file with its first error."""
    qpath = str(question_path)
    spath = str(solution_path) if solution_path is not None else solution_path_for(qpath)
    if spath is None:
        raise FormatError("no solution file at ../solution/<same name>", path=qpath)
    spath = str(spath)
    if question_text is None:
        questions = file_lines(qpath)
    elif isinstance(question_text, str):
        questions = numbered_lines(question_text)
    else:
        questions = question_text
    goals, loose = _goals(file_lines(spath), spath)
    broken = _first(goals, loose)
    if broken is not None and not any(isinstance(g, _Picture) for g in goals.values()):
        raise broken
    damaged = False
    for r in _read(questions, goals):
        if isinstance(r, FormatError) and not r.elsewhere(qpath):
            damaged = True
            r = r.located(qpath)
        yield r
    yield from loose
    if goals and not damaged:  # (a damaged block, already reported, may be the missing one)
        yield FormatError(f"solution ${min(goals)} has no puzzle", path=spath)


def _number(p: Puzzle, position: int) -> int:
    sid = p.meta.source_id
    return int(sid) if sid is not None and sid.isdigit() and len(sid) <= 9 else position


def write(puzzles: list[Puzzle]) -> str:
    out = []
    for i, p in enumerate(puzzles, start=1):
        out.append(f"${_number(p, i)}")
        for clue in p.columns + p.rows:
            out.append("\t".join(str(b.length) for b in clue) if clue else "0")
    return "\n".join(out) + "\n"


def write_solutions(puzzles: list[Puzzle]) -> str:
    """A solution file for puzzles that have goals (numbered as :func:`write` numbers them)."""
    out = []
    for i, p in enumerate(puzzles, start=1):
        if p.goal is None:
            raise FormatError(f"puzzle {i} has no goal picture to write")
        out.append(f"${_number(p, i)}")
        out += ["\t".join(str(min(v, 1)) for v in row) for row in p.goal.cells.tolist()]
    return "\n".join(out) + "\n"


def holds(p: Puzzle) -> Puzzle:
    """Clues and the number survive; a puzzle alone in a file without a number is ``$1``."""
    return p.replace(meta=Meta(source_id=str(_number(p, 1))), goal=None, palette=Palette.bw())


def can_hold(p: Puzzle) -> bool:
    """Only square puzzles: a block's size is read from its line count (W == H)."""
    return p.width == p.height


def sniff(text: str | bytes) -> bool:
    if not isinstance(text, str):
        return False
    head = text.lstrip()[:64].split("\n", 1)[0].strip()
    return _HEADER.fullmatch(head) is not None


def _with_companions(
    path: str, content: str | bytes | NumberedLines
) -> Iterator[Puzzle | FormatError] | None:
    """The question file at ``path`` (whose text, or numbered lines, ``content`` is) with
    its solutions, if any."""
    solutions = solution_path_for(path)
    if solutions is None or isinstance(content, bytes):
        return None
    return records_with_solutions(path, solutions, question_text=content)


FORMAT = register(
    Format(
        name="tournament",
        extensions=(".tournament",),
        description="computer-tournament batches ($N, column then row clues, TAB-separated)",
        read=read,
        records=records,
        stream=stream,
        write=write,
        sniff=sniff,
        multi=True,
        color=False,
        holds=holds,
        can_hold=can_hold,
        priority=30,
        with_companions=_with_companions,
        companion_of=question_path_for,
    )
)
