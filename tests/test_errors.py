"""The one exception family and its exit codes (nonoforge/errors.py)."""

from __future__ import annotations

import nonoforge.errors as errors
from nonoforge.errors import FAILED_EXIT, FormatError, NonoforgeError, RoflError


def test_every_exported_error_is_one_of_ours_with_an_exit_code() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, NonoforgeError)
        assert 1 <= cls.exit_code <= 5


def test_exit_codes_tell_the_kinds_apart() -> None:
    codes = {name: getattr(errors, name).exit_code for name in errors.__all__}
    assert codes["UsageError"] == codes["FormatError"] == codes["ImageError"] == 2
    assert (codes["SolverError"], codes["CorpusError"], codes["FetchError"]) == (3, 4, 5)
    assert FAILED_EXIT == 2


def test_a_format_error_names_file_and_line() -> None:
    assert str(FormatError("bad clue")) == "<input>: bad clue"
    assert str(FormatError("bad clue", "a.non", 7)) == "a.non:7: bad clue"
    e = FormatError("bad clue", line=3).located("b.non", 9)
    assert (e.path, e.line, str(e)) == ("b.non", 3, "b.non:3: bad clue")  # known line kept


def test_an_error_in_a_brought_along_file_names_that_file() -> None:
    # a tournament question file whose ../solution/ file is bad
    e = FormatError("no such puzzle", "solution/2011.txt", 4)
    assert e.elsewhere("question/2011.txt") and not e.elsewhere(None)
    assert e.reason_in("question/2011.txt") == "solution/2011.txt:4: no such puzzle"
    assert e.place("2011.txt", "question/2011.txt") == "solution/2011.txt:4"
    own = FormatError("no such puzzle", "q.txt", 4)
    assert own.reason_in("q.txt") == "line 4: no such puzzle"
    assert own.place("Q", "q.txt") == "Q:4"


def test_located_keeps_the_subclass() -> None:
    e = RoflError("truncated").located("x.rofl")
    assert type(e) is RoflError and str(e) == "x.rofl: truncated"
