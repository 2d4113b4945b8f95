"""The types every layer above the solver shares (nonoforge/results.py): the verdict,
the effort counts and the rating."""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nonoforge.results import GRADED, Effort, Mishap, Rating, Verdict, status_of


def test_every_verdict_is_its_old_string() -> None:
    # JSON output and stored rows hold the plain strings; the enum must read them back
    for v in Verdict:
        assert Verdict(v.value) is v
        assert v == v.value and str(v) == v.value and f"{v}" == v.value
    assert json.dumps({"status": Verdict.MULTIPLE}) == '{"status": "multiple"}'


def test_a_verdict_is_either_proven_cut_short_or_a_found_solution() -> None:
    for v in Verdict:
        kinds = [v.proven, v.cut_short, v is Verdict.FOUND]
        assert kinds.count(True) == 1, v
    assert {v for v in Verdict if v.proven} == {Verdict.UNIQUE, Verdict.MULTIPLE, Verdict.NONE}


def test_only_the_clock_is_not_reproducible() -> None:
    # the docs promise: timeout is the only verdict that may differ between two runs
    assert Verdict.TIMEOUT.cut_short and Verdict.BUDGET.cut_short


def test_an_unknown_verdict_is_refused() -> None:
    with pytest.raises(ValueError):
        Verdict("solved")


# -- Effort and Rating: the rating as a record (issue 40) ----------------------------------

#: what the solver counts today, plus names a later solver adds (other branches count
#: ``sum_lines`` and ``cells_by_sum``) and names no version has used yet
NAMES = st.one_of(st.sampled_from(["work", "line_solves", "probes", "nodes", "sum_lines",
                                   "cells_by_sum", "sat_conflicts"]),
                  st.text(min_size=1, max_size=12).filter(lambda k: k != "error"))
COUNTS = st.dictionaries(NAMES, st.integers(min_value=0, max_value=2**62), max_size=8)
STATUSES = st.sampled_from([*Verdict, *Mishap, None])
SECONDS = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                       max_leaves=8)


def ratings() -> st.SearchStrategy[Rating]:
    maybe = st.none
    return st.builds(
        Rating, key=st.text(min_size=1, max_size=20), status=STATUSES,
        technique=maybe() | st.sampled_from(["trivial", "line", "probe", "search", "sat"]),
        effort=COUNTS.map(Effort), time_s=maybe() | SECONDS,
        times=st.lists(SECONDS, max_size=4).map(tuple), score=maybe() | SECONDS,
        grade=maybe() | st.integers(1, 5),
        human=maybe() | st.dictionaries(st.text(max_size=10), JSONISH, max_size=4),
        human_score=maybe() | SECONDS, human_grade=maybe() | st.integers(1, 5),
        title=maybe() | st.text(max_size=20), width=maybe() | st.integers(1, 200),
        height=maybe() | st.integers(1, 200), colors=maybe() | st.integers(2, 64),
        cpu_s=maybe() | SECONDS, cpu_times=maybe() | st.lists(SECONDS, max_size=3).map(tuple),
        error=maybe() | st.text(max_size=30),
        solver_version=maybe() | st.sampled_from(["1.3", "1.4"]),
        rated_at=maybe() | st.just("2026-11-28T10:00:00+00:00"),
        repeats=maybe() | st.integers(1, 49),
    )


#: what ``repr`` needs to be read back
NAMESPACE = {"Rating": Rating, "Effort": Effort, "Verdict": Verdict, "Mishap": Mishap}


@given(COUNTS)
def test_effort_keeps_every_count_in_its_order_through_json_repr_and_pickle(counts) -> None:
    e = Effort(counts)
    assert e.to_json() == counts and list(e.to_json()) == list(counts)  # order: output bytes
    back = Effort.from_json(json.loads(json.dumps(e.to_json())))
    assert back == e and list(back) == list(e) and hash(back) == hash(e)
    assert eval(repr(e), NAMESPACE) == e
    assert pickle.loads(pickle.dumps(e)) == e  # ratings come back from worker processes
    assert e == counts and e.work == counts.get("work", 0)


@pytest.mark.parametrize("bad", [{"work": 1.5}, {"work": "3"}, {"work": True}, {3: 4},
                                 {"error": 2}])
def test_an_effort_holds_only_named_whole_counts(bad) -> None:
    with pytest.raises(ValueError):
        Effort(bad)


def test_an_effort_is_read_only() -> None:
    e = Effort({"work": 5})
    with pytest.raises(AttributeError):
        e.work = 6  # type: ignore[misc]
    with pytest.raises(TypeError):
        e["work"] = 6  # type: ignore[index]


@given(ratings())
def test_a_rating_round_trips_through_its_json_face_and_its_repr(r: Rating) -> None:
    face = r.to_json()
    assert Rating.from_json(json.loads(json.dumps(face))) == r
    assert Rating.from_json(face).to_json() == face
    assert eval(repr(r), NAMESPACE) == r
    assert pickle.loads(pickle.dumps(r)) == r


@given(ratings())
def test_the_json_face_holds_the_columns_always_and_the_context_when_known(r: Rating) -> None:
    face = r.to_json()
    assert list(face)[:11] == ["key", "status", "technique", "effort", "time_s", "times",
                               "score", "grade", "human", "human_score", "human_grade"]
    assert ("title" in face) == (r.title is not None)
    assert ("error" in face) == (r.error is not None) == ("error" in face["effort"])
    assert face["status"] is None or type(face["status"]) is str  # the plain value


def test_a_stored_failure_keeps_its_reason_in_the_effort() -> None:
    """The corpus stores a failed rating's reason as ``effort["error"]`` (no column of its
    own): read back, it is the rating's ``error``, and saved again it goes back there."""
    stored = {"key": "k", "status": "error", "technique": None,
              "effort": {"error": "the solver process died on this puzzle"},
              "time_s": 0.0, "times": []}
    r = Rating.from_json(stored)
    assert r.status is Mishap.ERROR and r.error == "the solver process died on this puzzle"
    assert r.effort == {} and r.to_json()["effort"] == stored["effort"]


def test_statuses_are_verdicts_or_mishaps_and_only_two_are_graded() -> None:
    assert {status_of(v.value) for v in Verdict} == set(Verdict)
    assert {status_of(m.value) for m in Mishap} == set(Mishap)
    assert not {v.value for v in Verdict} & {m.value for m in Mishap}
    assert {Verdict.UNIQUE, Verdict.MULTIPLE} == GRADED
    with pytest.raises(ValueError, match="not a rating status"):
        Rating.from_json({"key": "k", "status": "solved"})
    assert Rating("k", Verdict.MULTIPLE).graded and not Rating("k", Verdict.BUDGET).graded
