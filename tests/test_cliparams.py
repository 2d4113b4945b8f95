"""Plain conversion of simple command-line values (nonoforge/cliparams.py).

The contract: a value converts to exactly what typer would give, and anything not plain
is left to typer (:data:`TYPER`), so its messages and exit codes stay typer's.
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from nonoforge.cliparams import TYPER, plain

ANY = SimpleNamespace(min=None, max=None)


def test_plain_values_convert() -> None:
    assert plain(int, ANY, "42") == 42 and plain(int, ANY, "-3") == -3
    assert plain(float, ANY, "2.5") == 2.5 and plain(float, ANY, 3) == 3.0
    assert plain(str, ANY, "x") == "x" and plain(bool, ANY, True) is True
    assert plain(list[int], ANY, ["1", "2"]) == [1, 2]


def test_anything_unusual_is_typers_to_judge() -> None:
    for annotation, value in [(int, "+5"), (int, "0x10"), (float, "1e3"), (int, "2.0"),
                              (int, "a"), (str, 5), (list[int], ["1", "x"]), (dict, {})]:
        assert plain(annotation, ANY, value) is TYPER, (annotation, value)


def test_out_of_range_goes_to_typer_for_its_message() -> None:
    bounded = SimpleNamespace(min=1, max=10)
    assert plain(int, bounded, "5") == 5
    assert plain(int, bounded, "0") is TYPER and plain(int, bounded, "11") is TYPER


@given(st.integers(min_value=-10**17, max_value=10**17))
def test_integers_round_trip(n: int) -> None:
    assert plain(int, ANY, str(n)) == n
    assert plain(float, ANY, str(n)) == float(n)
