"""The verdict type every layer above the solver shares (nonoforge/results.py)."""

from __future__ import annotations

import json

import pytest

from nonoforge.results import Verdict


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
