"""The difficulty model: monotone, calibrated in seconds, graded with the rung as a floor."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nonoforge.errors import UsageError
from nonoforge.pipeline.difficulty import LADDER, Model, Sample, features, fit, held_out, spearman


def synthetic(n: int, seed: int = 7) -> list[Sample]:
    """Puzzles whose time is a known non-negative mix of their counts, plus noise."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        lines = rng.randint(10, 5000)
        probes = rng.choice([0, 0, rng.randint(1, 2000)])
        tech = "probe" if probes else rng.choice(["trivial", "overlap", "line"])
        eff = {"line_solves": lines, "probes": probes}
        t = 1e-4 + 2e-6 * lines + 3e-5 * probes
        t *= math.exp(rng.gauss(0, 0.1))
        out.append(Sample(f"k{i:04d}", tech, features(eff, 20, 20, 1), t))
    return out


def test_fit_recovers_a_monotone_model_that_ranks_held_out_puzzles() -> None:
    model = fit(synthetic(400), "test-1")
    assert all(w >= 0 for w in model.weights) and model.intercept >= 0
    assert model.fit["n_held_out"] > 40
    assert model.fit["spearman_held_out"] > 0.9
    # calibrated in seconds: the prediction is near the noise-free time
    f = features({"line_solves": 1000, "probes": 0}, 20, 20, 1)
    assert model.score(f) == pytest.approx(1e-4 + 2e-3, rel=0.3)


def test_more_effort_never_scores_easier() -> None:
    model = fit(synthetic(200), "test-1")
    base = {"line_solves": 100, "probes": 10}
    for k in base:
        more = dict(base, **{k: base[k] * 10})
        assert model.score(features(more, 20, 20, 1)) >= model.score(features(base, 20, 20, 1))


def test_model_round_trips_through_a_dict() -> None:
    model = fit(synthetic(100), "v")
    again = Model.from_dict(model.to_dict())
    f = features({"line_solves": 7, "probes": 3}, 5, 5, 2)
    assert again.score(f) == model.score(f)
    assert again.grade("line", 0.01) == model.grade("line", 0.01)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(LADDER), st.floats(0, 10)), min_size=5, max_size=60),
    st.lists(st.tuples(st.sampled_from(LADDER), st.floats(0, 10)), min_size=2, max_size=20),
)
def test_a_harder_rung_never_grades_easier(calib, probes) -> None:
    ranked = sorted((LADDER.index(t), s) for t, s in calib)
    thresholds = [ranked[(len(ranked) * q) // 5] for q in range(1, 5)]
    model = Model("v", [], [], 0.0, thresholds)
    grades = {(t, s): model.grade(t, s) for t, s in calib + probes}
    for (t1, s1), g1 in grades.items():
        for (t2, _), g2 in grades.items():
            if LADDER.index(t1) > LADDER.index(t2):
                assert g1 >= g2, (t1, s1, t2)
    assert all(1 <= g <= 5 for g in grades.values())


def test_grades_cover_one_to_five_on_the_calibration_corpus() -> None:
    samples = synthetic(300)
    model = fit(samples, "v")
    grades = {model.grade(s.technique, model.score(s.features)) for s in samples}
    assert grades == {1, 2, 3, 4, 5}


def test_spearman_known_values() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 2, 3], [1, 2, 2, 3]) == pytest.approx(1.0)
    assert math.isnan(spearman([1, 2], [1, 2]))


def test_held_out_share_is_stable_and_about_a_fifth() -> None:
    keys = [f"{i:016x}" for i in range(2000)]
    share = sum(map(held_out, keys)) / len(keys)
    assert 0.15 < share < 0.25
    assert [held_out(k) for k in keys[:50]] == [held_out(k) for k in keys[:50]]


def test_too_few_samples_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="at least 5"):
        fit(synthetic(3), "v")
