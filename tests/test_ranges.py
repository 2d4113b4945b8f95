"""nonoforge.ranges: one grammar for counts, ranges and sizes, on every command."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.errors import UsageError
from nonoforge.ranges import Size, SizeSpan, Span, parse_size, parse_size_span, parse_span

ends = st.none() | st.integers(min_value=0, max_value=10**6)
sides = st.integers(min_value=1, max_value=10**4)
sizes = st.builds(Size, sides, sides)


@given(ends, ends)
def test_span_round_trips_through_its_text(lo: int | None, hi: int | None) -> None:
    assume(lo is None or hi is None or lo <= hi)
    span = Span(lo, hi)
    assert parse_span(str(span)) == span


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=10**6))
def test_dash_and_dots_mean_the_same(a: int, b: int) -> None:
    assume(a <= b)
    assert parse_span(f"{a}-{b}") == parse_span(f"{a}..{b}") == parse_span(f" {a} .. {b} ")


@given(ends, ends, st.integers(min_value=0, max_value=10**6))
def test_membership_matches_the_bounds(lo: int | None, hi: int | None, n: int) -> None:
    assume(lo is None or hi is None or lo <= hi)
    assert (n in Span(lo, hi)) == ((lo is None or n >= lo) and (hi is None or n <= hi))


@given(sizes)
def test_size_round_trips(size: Size) -> None:
    assert parse_size(str(size)) == size
    assert parse_size(f"{size.width} X {size.height}") == size


@given(st.none() | sizes, st.none() | sizes)
def test_size_span_round_trips(lo: Size | None, hi: Size | None) -> None:
    assume(lo is None or hi is None or (lo.width <= hi.width and lo.height <= hi.height))
    span = SizeSpan(lo, hi)
    assert parse_size_span(str(span)) == span


@given(sides, sides, sides, sides)
def test_a_bare_number_bounds_both_sides(a: int, b: int, w: int, h: int) -> None:
    assume(a <= b)
    span = parse_size_span(f"{a}..{b}")
    assert span == SizeSpan(Size(a, a), Size(b, b))
    assert span.admits(w, h) == (a <= w <= b and a <= h <= b)


def test_the_grammar_table() -> None:
    assert parse_span("3") == Span(3, 3) == (3, 3)
    assert parse_span("1-3") == parse_span("1..3") == Span(1, 3)
    assert parse_span("2..") == Span(2, None)
    assert parse_span("..5") == Span(None, 5)
    assert parse_span("..") == Span() == (None, None)
    assert parse_size("30x20") == (30, 20)
    assert parse_size_span("10x10..30x30") == ((10, 10), (30, 30))
    assert parse_size_span("20") == parse_size_span("20x20") == SizeSpan(Size(20, 20), Size(20, 20))
    assert parse_size_span("..30") == SizeSpan(None, Size(30, 30))
    assert parse_size_span("12x8..") == SizeSpan(Size(12, 8), None)
    # str() writes what parse reads: one value when both ends are equal, open ends empty
    assert [str(parse_span(t)) for t in ("3", "1-3", "2..", "..5", "..")] == [
        "3", "1..3", "2..", "..5", ".."]
    assert [str(parse_size_span(t)) for t in ("20", "..30", "12x8..", "10x10..30x30")] == [
        "20x20", "..30x30", "12x8..", "10x10..30x30"]


@pytest.mark.parametrize("bad", ["", "a", "3..1", "1..2..3", "-3", "3-", "-", "1.5", "1e3"])
def test_bad_spans_name_the_option(bad: str) -> None:
    with pytest.raises(UsageError, match="--grade"):
        parse_span(bad, "--grade")


def test_within_bounds_the_ends() -> None:
    assert parse_span("2..4", "--grade", Span(1, 5)) == Span(2, 4)
    with pytest.raises(UsageError, match="within 1..5"):
        parse_span("0..4", "--grade", Span(1, 5))


@pytest.mark.parametrize("bad", ["", "big", "0x5", "30", "30x", "x30", "3x4x5"])
def test_bad_sizes(bad: str) -> None:
    with pytest.raises(UsageError, match="--size"):
        parse_size(bad, "--size")


@pytest.mark.parametrize("bad", ["", "big", "30x30..10x10", "10x40..20x20", "0x5", "5..3"])
def test_bad_size_spans(bad: str) -> None:
    with pytest.raises(UsageError, match="--size"):
        parse_size_span(bad, "--size")


# -- the same grammar on every command -------------------------------------------------------

runner = CliRunner()


@pytest.mark.parametrize(
    "args",
    [
        ["db", "query", "--size", "30x30..10x10"],
        ["db", "query", "--grade", "3..1"],
        ["db", "query", "--colors", "two"],
        ["db", "export", "x.rofl", "--size", "big"],
        ["collection", "build", "c", "--grade", "5-1"],
        ["collection", "build", "c", "--grades", "5-1"],
        ["collection", "build", "c", "--size", "..0x5"],
        ["generate", "cat.png", "--size", "30"],
    ],
)
def test_every_command_refuses_a_bad_range_in_one_line(args: list[str], tmp_path) -> None:
    res = runner.invoke(app, [*args, "--db", str(tmp_path / "c.db")] if args[0] != "generate"
                        else args)
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: --"), res.output


def test_collection_build_takes_grade_and_hides_the_old_name() -> None:
    res = runner.invoke(app, ["collection", "build", "--help"], env={"COLUMNS": "200"})
    assert "--grade " in res.output and "--grades" not in res.output


def test_grade_and_grades_together_are_refused(tmp_path) -> None:
    res = runner.invoke(app, ["collection", "build", "c", "--grade", "1", "--grades", "2",
                              "--db", str(tmp_path / "c.db")])
    assert res.exit_code == 2 and "--grade once" in res.output
