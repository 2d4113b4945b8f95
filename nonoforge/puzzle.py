"""The puzzle model every part of nonoforge shares.

A :class:`Puzzle` is immutable: its row and column clues, a :class:`Palette` (index 0 is
the background, indices 1.. are the painted colours), optional :class:`Meta` data and an
optional goal :class:`Grid`, and optional *givens*: cells printed already solved on the
sheet, part of the puzzle as much as its clues (issue 17's ``--repair givens``).
Black-and-white is simply the one-colour case. Construction validates everything a solver
or a file writer would otherwise trip over, and :attr:`Puzzle.key` identifies a puzzle by
its clues (and givens, when it has any) alone, whatever file it came from.

This module imports nothing of ours but :mod:`nonoforge.errors`, the bottom layer, and
imports numpy only when an array is first needed: reading a small puzzle file and printing
its facts (``nonoforge info``) never pays for numpy's import (issue 15).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import operator
import string
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from nonoforge.errors import PuzzleError

if TYPE_CHECKING:
    import numpy as np

RGB = tuple[int, int, int]

#: Characters for cells in text drawings and JSON output: background first.
BW_CHARS = ".#"
COLOR_CHARS = "." + string.ascii_lowercase + string.ascii_uppercase + string.digits


def cell_chars(ncolors: int) -> str:
    """The drawing characters for a puzzle with ``ncolors`` painted colours.

    Black-and-white puzzles draw ``.`` and ``#``; colour puzzles ``.`` then ``a``, ``b``, ...
    """
    if ncolors <= 1:
        return BW_CHARS
    if ncolors >= len(COLOR_CHARS):
        raise PuzzleError(f"cannot draw {ncolors} colours with one character each")
    return COLOR_CHARS


def parse_rgb(text: str) -> RGB:
    """``#rrggbb``, ``rrggbb`` or ``#rgb`` as an RGB triple."""
    s = text.strip().lstrip("#")
    if len(s) == 3:
        s = "".join(ch * 2 for ch in s)
    if len(s) != 6 or any(ch not in string.hexdigits for ch in s):
        raise PuzzleError(f"not an RGB colour: {text!r}")
    return (int(s[0:2], 16), int(s[2:4], 16), int(s[4:6], 16))


@dataclass(frozen=True, slots=True)
class Color:
    """A named colour. The name is what files call it (``black``, ``a``, ``red``)."""

    name: str
    rgb: RGB

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise PuzzleError("a colour needs a non-empty name")
        rgb = tuple(int(v) for v in self.rgb)
        if len(rgb) != 3 or any(not 0 <= v <= 255 for v in rgb):
            raise PuzzleError(f"colour {self.name!r}: RGB must be three values 0..255")
        object.__setattr__(self, "rgb", rgb)

    @property
    def hex(self) -> str:
        """The colour as ``#rrggbb``."""
        return "#{:02x}{:02x}{:02x}".format(*self.rgb)


WHITE = Color("white", (255, 255, 255))
BLACK = Color("black", (0, 0, 0))


@dataclass(frozen=True, slots=True)
class Palette:
    """The background (index 0) and the painted colours (indices 1..)."""

    colors: tuple[Color, ...]

    def __post_init__(self) -> None:
        colors = tuple(self.colors)
        if len(colors) < 2:
            raise PuzzleError("a palette needs a background and at least one colour")
        names = [c.name for c in colors]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise PuzzleError(f"palette names colour {sorted(dup)[0]!r} twice")
        object.__setattr__(self, "colors", colors)

    @classmethod
    def bw(cls) -> Palette:
        """White background, black ink: the palette of every black-and-white puzzle."""
        return _BW

    @classmethod
    def of(cls, *colors: tuple[str, str | RGB]) -> Palette:
        """A palette from ``(name, colour)`` pairs, background first.

        >>> Palette.of(("white", "#fff"), ("red", "#ff0000")).ncolors
        1
        """
        return cls(
            tuple(Color(n, parse_rgb(c) if isinstance(c, str) else c) for n, c in colors)
        )

    @property
    def background(self) -> Color:
        return self.colors[0]

    @property
    def ncolors(self) -> int:
        """How many painted colours (the background not counted)."""
        return len(self.colors) - 1

    @property
    def is_bw(self) -> bool:
        return len(self.colors) == 2

    def index(self, name: str) -> int:
        """The index of the colour called ``name``."""
        for i, c in enumerate(self.colors):
            if c.name == name:
                return i
        raise PuzzleError(f"unknown colour {name!r}")

    def __len__(self) -> int:
        return len(self.colors)

    def __getitem__(self, i: int) -> Color:
        return self.colors[i]

    def __iter__(self) -> Iterator[Color]:
        return iter(self.colors)

    def __repr__(self) -> str:
        if self == _BW:
            return "Palette.bw()"
        pairs = ", ".join(f"({c.name!r}, {c.hex!r})" for c in self.colors)
        return f"Palette.of({pairs})"


_BW = Palette((WHITE, BLACK))


class Block(NamedTuple):
    """One block of a clue: ``length`` cells of palette colour ``color`` (1 for black)."""

    length: int
    color: int = 1


Clue = tuple[Block, ...]
#: A cell printed solved on the sheet: ``(row, column, colour)``, 0-based, colour 0 for a
#: cell given empty (crossed).
Given = tuple[int, int, int]


def clue_of(cells: Iterable[int]) -> Clue:
    """The clue of a line of cells (colour indices, 0 for background)."""
    blocks: list[Block] = []
    prev = 0
    run = 0
    for v in cells:
        v = int(v)
        if v == prev:
            if v:
                run += 1
            continue
        if prev:
            blocks.append(Block(run, prev))
        prev, run = v, 1
    if prev:
        blocks.append(Block(run, prev))
    return tuple(blocks)


#: The value that ends each line in :func:`_runs_match`'s flat layout (no colour has it).
_LINE_END = -1


def _runs_match(cells: np.ndarray, wanted: np.ndarray) -> bool:
    """Whether ``cells`` has exactly the runs ``wanted`` (:meth:`Puzzle.runs_wanted`).

    Every row and then every column is laid end to end in one flat array, each line
    followed by a :data:`_LINE_END` cell; a run is a maximal stretch of one non-zero value,
    so each line end is a run of its own and the flat list of (length, colour) of all runs
    is the lines' clues, each closed by ``(1, _LINE_END)``: one comparison checks every
    block of every line and which line it is in. A dozen array operations for the whole
    grid (the solver checks every solution it returns this way).
    """
    import numpy as np

    h, w = cells.shape
    n_rows = h * (w + 1)
    flat = np.full(n_rows + w * (h + 1) + 2, _LINE_END, dtype=np.int16)
    flat[0] = flat[-1] = 0  # background around it all: the first run starts, the last ends
    flat[1:1 + n_rows].reshape(h, w + 1)[:, :w] = cells
    flat[1 + n_rows:-1].reshape(w, h + 1)[:, :h] = cells.T
    prev, cur = flat[:-1], flat[1:]
    change = prev != cur
    starts = np.flatnonzero(change & (cur != 0))  # cur[i]: a run's first cell
    ends = np.flatnonzero(change & (prev != 0))  # prev[i]: a run's last cell
    if len(starts) != len(wanted) // 2:
        return False
    got = np.empty(2 * len(starts), np.int64)
    got[0::2] = ends - starts
    got[1::2] = cur[starts]
    return bool(np.array_equal(got, wanted))


_chain = itertools.chain.from_iterable
_LENGTH, _COLOR = operator.itemgetter(0), operator.itemgetter(1)  # of a Block, at C speed


def min_length(clue: Clue) -> int:
    """The fewest cells a clue fits in: its blocks, plus a gap between same-colour neighbours."""
    colors = list(map(_COLOR, clue))
    return sum(map(_LENGTH, clue)) + sum(map(operator.eq, colors, colors[1:]))


def key_of(canonical_text: str) -> str:
    """The :attr:`Puzzle.key` of a puzzle whose :meth:`Puzzle.canonical_text` this is."""
    return hashlib.sha256(canonical_text.encode()).hexdigest()[:16]


def _clues_text(head: str, columns: Iterable[str], rows: Iterable[str]) -> str:
    """:meth:`Puzzle.canonical_text` without givens: the head, then the columns' and the
    rows' texts."""
    return f"{head};{'/'.join(columns)};{'/'.join(rows)}"


def bw_key(width: int, height: int, columns: Iterable[str], rows: Iterable[str]) -> str:
    """The :attr:`Puzzle.key` of a black-and-white puzzle without givens, from its lines'
    texts (each clue's lengths joined by dots, as :meth:`Puzzle.canonical_text` writes
    them): for readers that have the texts already, so the blocks are not read again.

    >>> p = Puzzle.from_clues([[1], [1]], [[2]])
    >>> bw_key(1, 2, ["2"], ["1", "1"]) == p.key
    True
    """
    return key_of(_clues_text(f"{width}x{height}", columns, rows))


def _mono_text(clue: Clue) -> str:
    """A one-colour clue in :meth:`Puzzle.canonical_text`: its lengths joined by dots
    (mapped at C speed: a key is computed for every puzzle imported)."""
    return ".".join(map(str, map(_LENGTH, clue)))


def _is_np_integer(x: Any) -> bool:
    """Whether ``x`` is a numpy integer; without importing numpy (none exists before it is)."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.integer)


def _as_givens(raw: Any) -> tuple[Given, ...]:
    """Givens as a sorted tuple of ``(row, column, colour)`` int triples (a cell listed
    twice stays twice, so that validation names it rather than merging it unseen)."""
    try:
        out = [(int(r), int(c), int(k)) for r, c, k in raw]
    except (TypeError, ValueError) as e:
        raise PuzzleError(f"givens must be (row, column, colour) triples: {e}") from None
    return tuple(sorted(out))


def _as_clue(raw: Any, what: str) -> Clue:
    """Accept a clue as blocks, ``(length, colour)`` pairs or bare lengths (colour 1)."""
    if type(raw) is tuple and set(map(type, raw)) <= {Block}:
        return raw  # already a clue (files, grids): the common case, checked at C speed
    blocks = []
    try:
        items = list(raw)
    except TypeError:
        raise PuzzleError(f"{what}: a clue must be a sequence of blocks") from None
    for item in items:
        if isinstance(item, Block):
            blocks.append(item)
        elif isinstance(item, int) or _is_np_integer(item):
            blocks.append(Block(int(item), 1))
        else:
            try:
                length, color = item
                blocks.append(Block(int(length), int(color)))
            except (TypeError, ValueError, OverflowError):  # 1e999 in JSON is float('inf')
                raise PuzzleError(f"{what}: not a block: {repr(item)[:40]}") from None
    return tuple(blocks)


@dataclass(frozen=True, slots=True)
class Meta:
    """What a file says about a puzzle besides its clues. Never part of its key."""

    title: str | None = None
    author: str | None = None
    copyright: str | None = None
    licence: str | None = None
    source: str | None = None
    source_id: str | None = None
    note: str | None = None

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in dataclasses.fields(self))

    def merged(self, other: Meta) -> Meta:
        """This metadata with the gaps filled from ``other``."""
        return Meta(
            **{
                f.name: getattr(self, f.name) or getattr(other, f.name)
                for f in dataclasses.fields(self)
            }
        )


#: Grids up to this many cells that were never made into an array are checked against
#: clues in plain Python: cheaper than importing numpy for one small puzzle.
_PLAIN_CELLS = 10_000


class Grid:
    """An immutable picture: a ``height x width`` array of colour indices (0 = background).

    A grid read from a file may hold its cells as bytes (:meth:`from_bytes`) until someone
    asks for :attr:`cells`, so that reading and checking a small puzzle needs no numpy.
    """

    __slots__ = ("_cells", "_raw", "_shape")

    def __init__(self, cells: Any) -> None:
        import numpy as np

        arr = np.array(cells, dtype=np.int64, copy=True)
        if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
            raise PuzzleError(f"a grid must be a non-empty 2-D array, got shape {arr.shape}")
        if arr.min() < 0 or arr.max() > 255:
            raise PuzzleError("grid cells must be colour indices 0..255")
        out = arr.astype(np.uint8)
        out.setflags(write=False)
        self._cells: np.ndarray | None = out
        self._raw: bytes | None = None
        self._shape = (int(out.shape[0]), int(out.shape[1]))

    @classmethod
    def from_bytes(cls, data: bytes, height: int, width: int) -> Grid:
        """A grid from its cells row by row, one byte (colour index) each.

        >>> Grid.from_bytes(bytes([0, 1, 1, 0]), 2, 2).to_rows()
        ['.#', '#.']
        """
        if height < 1 or width < 1 or len(data) != height * width:
            raise PuzzleError(
                f"a grid must be a non-empty 2-D array, got {len(data)} cells for "
                f"{height}x{width}"
            )
        g = cls.__new__(cls)
        g._cells = None
        g._raw = bytes(data)
        g._shape = (height, width)
        return g

    @classmethod
    def from_rows(cls, rows: Sequence[str], chars: str = BW_CHARS) -> Grid:
        """A grid drawn as strings, ``chars[i]`` standing for colour ``i``.

        >>> Grid.from_rows([".#", "#."]).cells.tolist()
        [[0, 1], [1, 0]]
        """
        lookup = {ch: i for i, ch in enumerate(chars)}
        try:
            return cls([[lookup[ch] for ch in row] for row in rows])
        except KeyError as e:
            raise PuzzleError(f"unknown cell character {e.args[0]!r}") from None

    @property
    def cells(self) -> np.ndarray:
        """The read-only ``uint8`` array of colour indices."""
        if self._cells is None:
            import numpy as np

            assert self._raw is not None
            # an array over immutable bytes is read-only
            self._cells = np.frombuffer(self._raw, dtype=np.uint8).reshape(self._shape)
        return self._cells

    def _bytes(self) -> bytes:
        """The cells row by row, one byte each."""
        if self._raw is None:
            assert self._cells is not None
            self._raw = self._cells.tobytes()
        return self._raw

    def _rows(self) -> list[bytes]:
        """The rows, top to bottom, each as bytes."""
        data, (h, w) = self._bytes(), self._shape
        return [data[i * w:(i + 1) * w] for i in range(h)]

    def _columns(self) -> list[bytes]:
        """The columns, left to right, each as bytes (built only when asked for)."""
        data, w = self._bytes(), self._shape[1]
        return [data[j::w] for j in range(w)]

    @property
    def height(self) -> int:
        return self._shape[0]

    @property
    def width(self) -> int:
        return self._shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        return self._shape

    def row_clues(self) -> tuple[Clue, ...]:
        return tuple(map(clue_of, self._rows()))

    def column_clues(self) -> tuple[Clue, ...]:
        return tuple(map(clue_of, self._columns()))

    def matches(self, puzzle: Puzzle) -> bool:
        """Whether this picture reproduces every clue of ``puzzle``.

        Compared as arrays (every line's runs found at once), not by building the picture's
        clues: checking a goal is the dearest part of reading a puzzle with its solution.
        A small grid not yet in an array compares its clues, without importing numpy.
        """
        if self.shape != (puzzle.height, puzzle.width):
            return False
        if self._cells is None and self.height * self.width <= _PLAIN_CELLS:
            return (self.row_clues() == puzzle.rows
                    and self.column_clues() == puzzle.columns)
        return _runs_match(self.cells, puzzle.runs_wanted())

    def max_color(self) -> int:
        """The largest colour index in the picture."""
        return max(self._bytes())

    def to_rows(self, chars: str = BW_CHARS) -> list[str]:
        """The picture as strings, one a row, ``chars[i]`` for colour ``i``."""
        top = self.max_color()
        if top >= len(chars):
            raise PuzzleError(f"grid has colour {top}, too many to draw")
        text = self._bytes().decode("latin-1").translate(dict(enumerate(chars[:top + 1])))
        w = self.width
        return [text[i:i + w] for i in range(0, len(text), w)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return self.shape == other.shape and self._bytes() == other._bytes()

    def __hash__(self) -> int:
        return hash((self.shape, self._bytes()))

    def __reduce__(self) -> tuple[Any, ...]:  # pickled as its bytes alone (worker pools)
        return (Grid.from_bytes, (self._bytes(), *self._shape))

    def __repr__(self) -> str:
        return f"Grid({[list(row) for row in self._rows()]!r})"

    def __str__(self) -> str:
        return "\n".join(self.to_rows(cell_chars(self.max_color())))


@dataclass(frozen=True)
class Puzzle:
    """A nonogram: row clues (top to bottom), column clues (left to right) and a palette.

    Build one from clues (:meth:`from_clues`) or from a picture (:meth:`from_grid`); file
    formats live in :mod:`nonoforge.formats`. Equality compares everything, metadata and
    goal included; :attr:`key` compares clues and colours only.
    """

    rows: tuple[Clue, ...]
    columns: tuple[Clue, ...]
    palette: Palette = field(default_factory=Palette.bw)
    meta: Meta = field(default_factory=Meta)
    goal: Grid | None = None
    #: Cells printed solved (:data:`Given`), sorted; the clues *plus* these are the puzzle.
    givens: tuple[Given, ...] = ()

    def __post_init__(self) -> None:
        rows = tuple(_as_clue(r, f"row {i + 1}") for i, r in enumerate(self.rows))
        cols = tuple(_as_clue(c, f"column {i + 1}") for i, c in enumerate(self.columns))
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "columns", cols)
        object.__setattr__(self, "givens", _as_givens(self.givens))
        if not isinstance(self.palette, Palette):
            raise PuzzleError("palette must be a Palette")
        if self.meta is None:
            object.__setattr__(self, "meta", Meta())
        if self.goal is not None and not isinstance(self.goal, Grid):
            object.__setattr__(self, "goal", Grid(self.goal))
        self._validate()

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_clues(
        cls,
        rows: Iterable[Iterable[Any]],
        columns: Iterable[Iterable[Any]],
        palette: Palette | None = None,
        meta: Meta | None = None,
        goal: Grid | None = None,
        givens: Iterable[Iterable[int]] = (),
    ) -> Puzzle:
        """A puzzle from clues given as lengths (colour 1) or ``(length, colour)`` pairs.

        >>> Puzzle.from_clues(rows=[[1], [1]], columns=[[2], []]).width
        2
        >>> Puzzle.from_clues(rows=[[1], [1]], columns=[[2], []], givens=[(1, 1, 0)]).givens
        ((1, 1, 0),)
        """
        return cls(
            tuple(tuple(r) for r in rows),
            tuple(tuple(c) for c in columns),
            palette or Palette.bw(),
            meta or Meta(),
            goal,
            tuple(tuple(g) for g in givens),  # type: ignore[misc]
        )

    @classmethod
    def from_grid(
        cls,
        grid: Grid | Any,
        palette: Palette | None = None,
        meta: Meta | None = None,
    ) -> Puzzle:
        """The puzzle whose solution is ``grid``; the grid is kept as the goal."""
        g = grid if isinstance(grid, Grid) else Grid(grid)
        if palette is None:
            n = g.max_color()
            palette = Palette.bw() if n <= 1 else _default_palette(n)
        return cls(g.row_clues(), g.column_clues(), palette, meta or Meta(), g)

    @classmethod
    def trusted(
        cls,
        rows: tuple[Clue, ...],
        columns: tuple[Clue, ...],
        palette: Palette,
        meta: Meta | None = None,
        goal: Grid | None = None,
        givens: tuple[Given, ...] = (),
        key: str | None = None,
    ) -> Puzzle:
        """A puzzle from parts already checked, built without validating them again.

        Only for data that has been checked against every rule the constructor enforces:
        clues as tuples of :class:`Block`, lengths positive, colours in the palette, each
        clue fitting its line, rows and columns painting the same cells of each colour, a
        goal whose clues are these. The ROFL decoder checks all of that while decoding, and
        the corpus re-reads what the decoder produced; validating again would cost several
        times the decoding. Anything else (files, user input) goes through the constructor.
        ``key``: the puzzle's :attr:`key`, when the caller has it from the same clues (a
        reader that knows each line's canonical text: hashing it is cheaper than the
        clues' text built again from the blocks); it is kept, not checked.

        >>> p = Puzzle.from_clues(rows=[[1]], columns=[[1]])
        >>> Puzzle.trusted(p.rows, p.columns, p.palette, Meta(title="t")).meta.title
        't'
        """
        p = object.__new__(cls)
        object.__setattr__(p, "rows", rows)
        object.__setattr__(p, "columns", columns)
        object.__setattr__(p, "palette", palette)
        object.__setattr__(p, "meta", meta if meta is not None else Meta())
        object.__setattr__(p, "goal", goal)
        object.__setattr__(p, "givens", givens)
        if key is not None:
            object.__setattr__(p, "_key", key)
        return p

    def with_meta(self, meta: Meta) -> Puzzle:
        """This (already valid) puzzle with other metadata; the clues are not re-validated."""
        return Puzzle.trusted(self.rows, self.columns, self.palette, meta, self.goal,
                              self.givens, self.__dict__.get("_key"))

    def replace(self, **changes: Any) -> Puzzle:
        """A copy with some fields changed (``meta=...``, ``goal=None``, ...)."""
        return dataclasses.replace(self, **changes)

    # -- properties ---------------------------------------------------------------------

    @property
    def width(self) -> int:
        return len(self.columns)

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def ncolors(self) -> int:
        """How many painted colours the palette has (1 for black-and-white)."""
        return self.palette.ncolors

    @property
    def is_bw(self) -> bool:
        return self.palette.is_bw

    def lines(self) -> Iterator[tuple[str, int, Clue]]:
        """Every line as ``("row"|"column", index, clue)``, rows first."""
        for i, c in enumerate(self.rows):
            yield "row", i, c
        for i, c in enumerate(self.columns):
            yield "column", i, c

    def runs_wanted(self) -> np.ndarray:
        """Every line's blocks as one ``int64`` array, rows then columns: each block's
        length and colour, and each line closed by ``(1, -1)``: what a picture that solves
        the puzzle shows (:meth:`Grid.matches`). Made once per puzzle and kept (not a
        field: equality, hashing and :meth:`replace` ignore it), as the solver checks
        every solution it returns against it."""
        wanted = self.__dict__.get("_runs_wanted")
        if wanted is None:
            import numpy as np

            flat: list[int] = []
            for clue in self.rows + self.columns:
                flat.extend(_chain(clue))
                flat += (1, _LINE_END)
            wanted = np.array(flat, dtype=np.int64)
            wanted.flags.writeable = False
            object.__setattr__(self, "_runs_wanted", wanted)
        return wanted

    # -- identity -----------------------------------------------------------------------

    def used_colors(self) -> list[int]:
        """Palette indices that some clue uses, in order of first use (rows, then columns)."""
        if len(self.palette) <= 2:  # black and white: colour 1 is the only one a block has
            return [1] if any(self.rows) else []
        seen: dict[int, None] = {}
        for clue in self.rows + self.columns:
            for b in clue:
                seen.setdefault(b.color, None)
        return list(seen)

    def canonical_text(self) -> str:
        """A text form of the clues, colours and givens, equal for equal puzzles.

        Colours are renumbered by first use and unused ones dropped; a puzzle with one
        colour in use is black-and-white whatever that colour is, so the same puzzle read
        from a ``.non`` file and from webpbn XML gets the same text.
        """
        used = self.used_colors()
        remap = {c: i + 1 for i, c in enumerate(used)}
        mono = len(used) <= 1

        def colored(clue: Clue) -> str:
            return ".".join(f"{b.length}:{remap[b.color]}" for b in clue)

        line = _mono_text if mono else colored

        head = f"{self.width}x{self.height}"
        if not mono:
            head += ";" + ",".join(self.palette[c].hex for c in used)
        text = _clues_text(head, map(line, self.columns), map(line, self.rows))
        if self.givens:  # a puzzle without givens keeps the key it always had
            text += ";g=" + " ".join(f"{r},{c},{remap.get(k, 0)}" for r, c, k in self.givens)
        return text

    @property
    def key(self) -> str:
        """A stable 16-hex-digit id of the clues, colours and givens (not of metadata or format)."""
        known: str | None = self.__dict__.get("_key")  # given by the reader (see trusted)
        if known is not None:
            return known
        return key_of(self.canonical_text())

    def canonical(self) -> Puzzle:
        """This puzzle with colours renumbered by first use, unused ones dropped.

        One-colour puzzles get the standard black-and-white palette. Metadata and goal are
        kept (with the goal renumbered to match).
        """
        used = self.used_colors()
        if len(used) <= 1:
            palette = Palette.bw()
            remap = {c: 1 for c in used}
        else:
            palette = Palette((self.palette.background, *(self.palette[c] for c in used)))
            remap = {c: i + 1 for i, c in enumerate(used)}
        rows = tuple(tuple(Block(b.length, remap[b.color]) for b in r) for r in self.rows)
        cols = tuple(tuple(Block(b.length, remap[b.color]) for b in c) for c in self.columns)
        goal = None
        if self.goal is not None:
            import numpy as np

            table = np.zeros(max(len(self.palette), 256), dtype=np.uint8)
            for old, new in remap.items():
                table[old] = new
            goal = Grid(table[self.goal.cells])
        givens = tuple((r, c, remap.get(k, 0)) for r, c, k in self.givens)
        return Puzzle(rows, cols, palette, self.meta, goal, givens)

    # -- validation ---------------------------------------------------------------------

    def _validate(self) -> None:
        if not self.rows or not self.columns:
            raise PuzzleError("a puzzle needs at least one row and one column")
        ncol = len(self.palette) - 1
        totals: dict[str, dict[int, int]] = {"row": {}, "column": {}}
        for kind, i, clue in self.lines():
            n = self.width if kind == "row" else self.height
            t = totals[kind]
            colors = set(map(_COLOR, clue))
            if len(colors) == 1 and 1 <= min(colors) <= ncol and min(map(_LENGTH, clue)) >= 1:
                c = min(colors)  # a one-colour clue of good blocks, summed at C speed
                t[c] = t.get(c, 0) + sum(map(_LENGTH, clue))
                colors.clear()
            for b in clue if colors else ():
                if b.length < 1:
                    raise PuzzleError(
                        f"{kind} {i + 1}: block length must be positive, got {b.length}"
                    )
                if not 1 <= b.color <= ncol:
                    raise PuzzleError(
                        f"{kind} {i + 1}: unknown colour {b.color} "
                        f"(the palette has colours 1..{ncol})"
                    )
                t[b.color] = t.get(b.color, 0) + b.length
            need = min_length(clue)
            if need > n:
                raise PuzzleError(
                    f"{kind} {i + 1}: clue {format_clue(clue, self.ncolors)} needs {need} "
                    f"cells but the line has {n}"
                )
        for c in sorted(set(totals["row"]) | set(totals["column"])):
            r, k = totals["row"].get(c, 0), totals["column"].get(c, 0)
            if r != k:
                name = self.palette[c].name
                raise PuzzleError(
                    f"colour {name!r}: rows paint {r} cells but columns paint {k}"
                )
        if self.goal is not None:
            if self.goal.shape != (self.height, self.width):
                raise PuzzleError(
                    f"goal is {self.goal.width}x{self.goal.height}, "
                    f"puzzle is {self.width}x{self.height}"
                )
            if self.goal.max_color() > ncol:
                raise PuzzleError("goal uses a colour the palette does not have")
            if not self.goal.matches(self):
                raise PuzzleError("goal picture does not match the clues")
        self._validate_givens(ncol)

    def _validate_givens(self, ncol: int) -> None:
        seen: set[tuple[int, int]] = set()
        for r, c, k in self.givens:
            where = f"given cell (row {r + 1}, column {c + 1})"
            if not (0 <= r < self.height and 0 <= c < self.width):
                raise PuzzleError(f"{where} is outside the {self.width}x{self.height} grid")
            if not 0 <= k <= ncol:
                raise PuzzleError(f"{where}: unknown colour {k} (the palette has 0..{ncol})")
            if (r, c) in seen:
                raise PuzzleError(f"{where} is given twice")
            seen.add((r, c))
            if k and not (
                any(b.color == k for b in self.rows[r])
                and any(b.color == k for b in self.columns[c])
            ):
                raise PuzzleError(f"{where}: its row or column has no block of colour {k}")
            if self.goal is not None and int(self.goal.cells[r, c]) != k:
                raise PuzzleError(f"{where} disagrees with the goal picture")

    # -- text ---------------------------------------------------------------------------

    def __repr__(self) -> str:
        def clue(c: Clue) -> str:
            return "[" + ", ".join(
                str(b.length) if b.color == 1 else f"({b.length}, {b.color})" for b in c
            ) + "]"

        parts = [
            f"rows=[{', '.join(map(clue, self.rows))}]",
            f"columns=[{', '.join(map(clue, self.columns))}]",
        ]
        if self.palette != Palette.bw():
            parts.append(f"palette={self.palette!r}")
        if self.meta:
            parts.append(f"meta={self.meta!r}")
        if self.goal is not None:
            parts.append(f"goal={self.goal!r}")
        if self.givens:
            parts.append(f"givens={list(self.givens)!r}")
        return f"Puzzle.from_clues({', '.join(parts)})"

    def __str__(self) -> str:
        return draw(self, self.goal)


def _default_palette(n: int) -> Palette:
    """A palette of ``n`` distinct, nameable colours for pictures that bring none."""
    base = [
        "#000000", "#e6194b", "#3cb44b", "#4363d8", "#ffe119", "#f58231", "#911eb4",
        "#46f0f0", "#f032e6", "#bcf60c", "#fabebe", "#008080", "#9a6324", "#800000",
        "#808000", "#000075", "#808080", "#aaffc3", "#e6beff", "#ffd8b1",
    ]  # fmt: skip
    colors = [WHITE]
    for i in range(n):
        rgb = parse_rgb(base[i]) if i < len(base) else (i * 97 % 256, i * 57 % 256, i * 31 % 256)
        colors.append(Color(COLOR_CHARS[i + 1], rgb))
    return Palette(tuple(colors))


def format_clue(clue: Clue, ncolors: int = 1) -> str:
    """A clue as people write it: ``3 1 2``, or ``3a 1b`` when colours matter."""
    if not clue:
        return "0"
    if ncolors <= 1:
        return " ".join(str(b.length) for b in clue)
    chars = cell_chars(ncolors)
    return " ".join(f"{b.length}{chars[b.color]}" for b in clue)


def _draw_layout(puzzle: Puzzle) -> tuple[list[str], list[list[str]], int, int, int]:
    """How :func:`draw` lays a puzzle out: row clue texts, column clue tokens, the row clues'
    width, the column clues' depth and a cell's width."""
    row_texts = [format_clue(r, puzzle.ncolors) for r in puzzle.rows]
    left = max(len(t) for t in row_texts)
    col_tokens = [format_clue(c, puzzle.ncolors).split() for c in puzzle.columns]
    depth = max(len(t) for t in col_tokens)
    cw = max(len(tok) for toks in col_tokens for tok in toks)
    return row_texts, col_tokens, left, depth, cw


def draw(puzzle: Puzzle, grid: Grid | None = None) -> str:
    """The puzzle as text: column clues stacked above, row clues to the left, the grid."""
    chars = cell_chars(puzzle.ncolors)
    row_texts, col_tokens, left, depth, cw = _draw_layout(puzzle)
    out = []
    for k in range(depth):
        cells = []
        for toks in col_tokens:
            pad = depth - len(toks)
            cells.append(toks[k - pad].rjust(cw) if k >= pad else " " * cw)
        out.append(" " * (left + 3) + " ".join(cells))
    body = grid.to_rows(chars) if grid is not None else None
    for i, t in enumerate(row_texts):
        line = "?" * puzzle.width if body is None else body[i]
        out.append(t.rjust(left) + " | " + " ".join(ch.rjust(cw) for ch in line))
    return "\n".join(out)


def drawn_cell(puzzle: Puzzle, row: int, column: int) -> int:
    """Where cell ``(row, column)`` stands in :func:`draw`'s text (an offset into it), so a
    caller can style single cells (the given ones) without parsing the drawing back."""
    _, _, left, depth, cw = _draw_layout(puzzle)
    header = depth * (left + 3 + puzzle.width * (cw + 1))  # each header line and its newline
    line = left + 3 + puzzle.width * (cw + 1)  # a grid line and its newline
    return header + row * line + left + 3 + column * (cw + 1) + cw - 1


__all__ = [
    "BLACK",
    "BW_CHARS",
    "COLOR_CHARS",
    "WHITE",
    "Block",
    "Clue",
    "Color",
    "Grid",
    "Meta",
    "Palette",
    "Puzzle",
    "bw_key",
    "cell_chars",
    "clue_of",
    "draw",
    "drawn_cell",
    "format_clue",
    "key_of",
    "min_length",
    "parse_rgb",
]
