"""The plain-Python line logic that answers small puzzles before numba is loaded.

It must give exactly what the compiled engine gives -- verdict, technique, every effort
count, the solution and the state -- so the process a puzzle lands in never shows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, fresh_python, random_bw_puzzle, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.formats import read_file
from nonoforge.puzzle import Grid, Puzzle
from nonoforge.solver import core, quick, solve_line


def _engine(p: Puzzle, max_solutions: int, budget: int | None, strategy: str = "auto"):
    return core._solve(p, max_solutions, None, strategy, None, False, budget)


def _same_as_engine(p: Puzzle, max_solutions: int, budget: int | None) -> bool:
    """Whether the plain-Python answer (if it answers) is the engine's, field by field."""
    q = quick.solve_by_lines(p, max_solutions, budget)
    if q is None:
        return False
    r = _engine(p, max_solutions, budget)
    assert (q.status, q.technique, q.effort) == (r.status, r.technique, r.effort)
    assert q.solutions == r.solutions
    assert q.state == r.state.reshape(-1).tolist()
    return True


def random_colour_puzzle(seed: int, h: int, w: int, ncolors: int, density: float) -> Puzzle:
    """A seeded random picture of ``h`` x ``w`` cells, ``density`` of them painted in one of
    ``ncolors`` colours (patches of a colour run along rows, as pictures have them)."""
    rng = np.random.default_rng(seed)
    paint = rng.random((h, w)) < density
    colour = rng.integers(1, ncolors + 1, size=(h, w))
    keep = rng.random((h, w)) < 0.6  # a cell often takes its left neighbour's colour
    for c in range(1, w):
        colour[:, c] = np.where(keep[:, c], colour[:, c - 1], colour[:, c])
    cells = np.where(paint, colour, 0)
    cells[0, 0] = cells[0, 0] or 1
    return Puzzle.from_grid(Grid(cells))


@pytest.mark.parametrize("seed", range(30))
def test_random_puzzles_match_the_engine(seed: int) -> None:
    rng = np.random.default_rng(seed)
    h, w = (int(x) for x in rng.integers(1, 30, size=2))
    p = random_bw_puzzle(seed, h, w, (0.55, 0.7, 0.85)[seed % 3])
    answered = 0
    for ms in (1, 2):
        for budget in (None, 0, 20, 10**9):
            answered += _same_as_engine(p, ms, budget)
    assert answered in (0, 8)


def test_contradictions_match_the_engine() -> None:
    # rows of one picture, columns of the same picture with its rows shuffled: the totals
    # agree (the model insists), the clues mostly do not
    nones = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        g = (rng.random((6, 7)) < 0.7).astype(np.uint8)
        shuffled = g[rng.permutation(6)]
        p = Puzzle.from_clues([[b.length for b in c] for c in Puzzle.from_grid(Grid(g)).rows],
                              [[b.length for b in c] for c in
                               Puzzle.from_grid(Grid(shuffled)).columns])
        for budget in (None, 0, 10**9):
            _same_as_engine(p, 2, budget)
        q = quick.solve_by_lines(p, 2, None)
        nones += q is not None and q.status == "none"
    assert nones > 10


def test_survey_and_example_puzzles_match_the_engine() -> None:
    files = sorted(shared_path("corpora", "survey-free").glob("*.non"))
    files += sorted((ROOT / "nonoforge" / "examples" / "puzzles").glob("*.non"))
    answered = 0
    for f in files:
        for p in read_file(f):
            for ms in (1, 2):
                answered += _same_as_engine(p, ms, None)
    assert answered >= 10  # dancer, cat, knot, skid, swing... are line-solvable


@pytest.mark.parametrize("seed", range(40))
def test_random_colour_puzzles_match_the_engine(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    h, w = (int(x) for x in rng.integers(1, 25, size=2))
    ncolors = 2 + seed % 4
    p = random_colour_puzzle(1000 + seed, h, w, ncolors, (0.6, 0.75, 0.9)[seed % 3])
    answered = 0
    for ms in (1, 2):
        for budget in (None, 0, 20, 10**9):
            answered += _same_as_engine(p, ms, budget)
    assert answered in (0, 8)


def test_most_random_colour_puzzles_are_answered_in_python() -> None:
    """The colour path does answer: most dense random colour pictures are line-solvable."""
    answered = sum(_same_as_engine(random_colour_puzzle(seed, 15, 15, 4, 0.8), 2, None)
                   for seed in range(30))
    assert answered >= 15


def colour_contradiction(seed: int) -> Puzzle | None:
    """A 6x7 puzzle in 3 colours whose rows are one random picture's and columns those of
    the same cells shuffled (the same colour totals), so often no solution; None when the
    model refuses the pair of clues."""
    rng = np.random.default_rng(seed)
    a = random_colour_puzzle(seed, 6, 7, 3, 0.8)
    assert a.goal is not None
    flat = a.goal.cells.reshape(-1).copy()
    rng.shuffle(flat)
    b = Puzzle.from_grid(Grid(flat.reshape(6, 7)))
    try:
        return Puzzle.from_clues([[(x.length, x.color) for x in c] for c in a.rows],
                                 [[(x.length, x.color) for x in c] for c in b.columns],
                                 palette=a.palette)
    except Exception:  # the model refuses clues whose totals disagree
        return None


def draw_lengths(n: int, data: st.DataObject) -> list[int]:
    """Block lengths that fit a line of ``n`` cells, drawn by Hypothesis."""
    lens: list[int] = []
    room = n
    while room > 0 and data.draw(st.booleans()):
        ln = data.draw(st.integers(1, room))
        lens.append(ln)
        room -= ln + 1
    return lens


def test_colour_contradictions_match_the_engine() -> None:
    nones = 0
    for seed in range(40):
        p = colour_contradiction(500 + seed)
        if p is None:
            continue
        for budget in (None, 0, 10**9):
            _same_as_engine(p, 2, budget)
        q = quick.solve_by_lines(p, 2, None)
        nones += q is not None and q.status == "none"
    assert nones > 5


def test_colour_samples_match_the_engine(data_dir: Path) -> None:
    """The colour files in tests/data (flags, Olšák's format, izaron's .pzl, givens)."""
    answered = 0
    for name in ("flags.nonpack", "flag.g", "flower.pzl", "givens.nonpack"):
        for p in read_file(data_dir / name):
            for ms in (1, 2):
                for budget in (None, 0, 10**9):
                    answered += _same_as_engine(p, ms, budget)
    assert answered >= 6 * 6


def test_gives_up_on_what_needs_probing() -> None:
    edge = read_file(ROOT / "nonoforge" / "examples" / "puzzles" / "edge.non")[0]
    assert quick.solve_by_lines(edge, 2, None) is None  # needs probing
    colour = Puzzle.from_grid(Grid([[1, 0, 2], [0, 1, 2]]))  # the 1s may swap: two solutions
    assert quick.solve_by_lines(colour, 2, None) is None
    assert core.solve(colour).status == "multiple"


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_colour_line_logic_matches_the_compiled_kernel(data: st.DataObject) -> None:
    from nonoforge.puzzle import Block

    ncol = data.draw(st.integers(1, 4))
    masks = data.draw(st.lists(st.integers(0, (1 << (ncol + 1)) - 1), min_size=1, max_size=20))
    n = len(masks)
    blocks: list[Block] = []
    room = n
    while room > 0 and data.draw(st.booleans()):
        ln = data.draw(st.integers(1, room))
        c = data.draw(st.integers(1, ncol))
        gap = 1 if blocks and blocks[-1].color == c else 0
        if ln + gap > room:
            break
        blocks.append(Block(ln, c))
        room -= ln + gap
    ours = quick.colour_line_logic(masks, [b.length for b in blocks], [b.color for b in blocks])
    for kernel in ("dp", "auto"):
        theirs = solve_line(tuple(blocks), masks, kernel=kernel)
        if theirs is None:
            assert ours is None
        else:
            assert ours == theirs.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=20), st.data())
def test_line_logic_matches_the_compiled_kernel(masks: list[int], data: st.DataObject) -> None:
    from nonoforge.puzzle import Block

    lens = draw_lengths(len(masks), data)
    ours = quick.line_logic(masks, lens)
    theirs = solve_line(tuple(Block(ln, 1) for ln in lens), masks, kernel="dp")
    if theirs is None:
        assert ours is None
    else:
        assert ours == theirs.tolist()


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=140), st.data())
def test_bits_line_logic_matches_the_compiled_kernel(
    masks: list[int], data: st.DataObject,
) -> None:
    """The bitset solver (Python's unbounded ints) against the engine's dynamic programme,
    on lines past one and two 64-bit words, blocks long and short, and the
    plain-Python solver it replaces in the human path."""
    from nonoforge.puzzle import Block

    lens = draw_lengths(len(masks), data)
    ours = quick.bits_line_logic(masks, lens)
    assert ours == quick.line_logic(masks, lens)
    theirs = solve_line(tuple(Block(ln, 1) for ln in lens), masks, kernel="dp")
    assert ours == (None if theirs is None else theirs.tolist())


def _modules_after(args: list[str]) -> set[str]:
    """The modules a CLI command leaves imported, run in a fresh interpreter."""
    code = (
        "import sys\n"
        f"sys.argv = ['nonoforge', *{args!r}]\n"
        "from nonoforge.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)) + '\\n')\n"
    )
    line = fresh_python(code, cwd=ROOT, timeout=120).stderr.rsplit("MODULES ", 1)[-1]
    return set(line.split())


DANCER = str(ROOT / "nonoforge" / "examples" / "puzzles" / "dancer.non")


@pytest.mark.parametrize("args", [
    ["info", DANCER],
    ["show", DANCER],
    ["formats"],
    ["--help"],
    ["solve", "--help"],
    ["solve", DANCER],  # line-solvable and small: answered in plain Python
    ["solve", str(ROOT / "tests" / "data" / "flower.pzl")],  # colour, line-solvable
    ["solve", "--json", str(ROOT / "tests" / "data" / "flags.nonpack")],
    # probing and parity summing, small: the engine's whole solve in plain Python
    ["solve", str(ROOT / "nonoforge" / "examples" / "puzzles" / "edge.non")],
])
def test_commands_that_do_not_need_the_engine_never_import_numba(args: list[str]) -> None:
    mods = _modules_after(args)
    assert "nonoforge.cli" in mods  # the command did run
    assert "numba" not in mods and "nonoforge.solver.engine" not in mods


def test_convert_does_not_import_numba(tmp_path: Path) -> None:
    mods = _modules_after(["convert", DANCER, str(tmp_path / "d.xml")])
    assert (tmp_path / "d.xml").exists()
    assert "numba" not in mods


def test_solve_loads_the_engine_when_logic_needs_probing() -> None:
    """mum (34x40) needs probing and is larger than the plain-Python solve takes."""
    mum = str(ROOT / "nonoforge" / "examples" / "puzzles" / "mum.non")
    assert "nonoforge.solver.engine" in _modules_after(["solve", mum])


@pytest.mark.parametrize("seed", range(20))
def test_puzzles_with_givens_match_the_engine(seed: int) -> None:
    """Both start from the givens (cells printed solved): the same verdict, technique,
    effort and state; a given that contradicts the picture's clues gives none in both."""
    rng = np.random.default_rng(100 + seed)
    h, w = (int(x) for x in rng.integers(2, 16, size=2))
    p = random_bw_puzzle(100 + seed, h, w, 0.55)
    assert p.goal is not None
    cells = p.goal.cells
    picks = {(int(r), int(c)) for r, c in zip(rng.integers(0, h, 3), rng.integers(0, w, 3),
                                               strict=True)}
    given = p.replace(givens=[(r, c, int(cells[r, c])) for r, c in picks])
    answered = 0
    for ms in (1, 2):
        for budget in (None, 0, 10**9):
            answered += _same_as_engine(given, ms, budget)
    r, c = sorted(picks)[0]
    wrong = [(r, c, 1 - int(cells[r, c]))]
    try:
        bad = p.replace(goal=None, givens=wrong)
    except Exception:  # a filled given in an empty line: the model refuses it
        return
    _same_as_engine(bad, 2, None)
