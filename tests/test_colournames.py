"""Everyday colour names for printed keys (nonoforge/colournames.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nonoforge.colournames import colour_name, colour_names
from nonoforge.examples import example_path
from nonoforge.formats import read_file

RGBS = st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))


def test_primaries_and_greys_have_their_names() -> None:
    assert colour_name((255, 255, 255)) == "white" and colour_name((0, 0, 0)) == "black"
    assert colour_name((128, 128, 128)) == "grey"
    assert colour_name((40, 90, 210)) == "blue"


def test_a_bundled_colour_puzzles_key_gets_distinct_names() -> None:
    for name in ("knot", "merka", "bucks"):
        (p,) = read_file(example_path(name))
        rgbs = [c.rgb for c in p.palette.colors[1:]]
        names = colour_names(rgbs)
        assert len(set(names)) == len(names) == len(rgbs)


@given(st.lists(RGBS, max_size=12))
def test_names_of_one_key_never_repeat(rgbs: list[tuple[int, int, int]]) -> None:
    names = colour_names(rgbs)
    assert len(set(names)) == len(names)
    assert [n.rsplit(" ", 1)[0] if n[-1].isdigit() else n for n in names] == [
        colour_name(c) for c in rgbs]
