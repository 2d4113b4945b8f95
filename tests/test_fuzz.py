"""A short run of bench/fuzz.py: mutated real files through every reader and the ROFL
decoder, and nothing escapes nonoforge's error family or hangs."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest
from conftest import bench_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nonoforge.errors import NonoforgeError

fuzz = bench_module("fuzz")


def test_every_format_and_the_rofl_decoder_have_seeds() -> None:
    pool = fuzz.seeds()
    assert set(fuzz.targets()) <= set(pool)
    assert all(pool[name] for name in fuzz.targets()), {k: len(v) for k, v in pool.items()}


def test_a_short_fuzz_run_finds_no_escape(tmp_path: Path) -> None:
    report = fuzz.run(4.0, seed=20, limit=2.0, out=tmp_path)
    assert all(n > 0 for n in report.iterations.values()), report.iterations
    assert not report.escapes, "\n".join(
        f"{e.target}: {e.kind} at {e.where}: {e.message} ({tmp_path})"
        for e in report.escapes.values()
    )


_POOL = fuzz.seeds()
_TARGETS = fuzz.targets()


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_TARGETS)), st.integers(0, 2**32 - 1))
def test_mutated_inputs_raise_only_our_errors(name: str, seed: int) -> None:
    rng = random.Random(seed)
    own = _POOL[name]
    data = fuzz.mutate(rng.choice(own), rng, own)
    with contextlib.suppress(NonoforgeError):
        _TARGETS[name](data)


@pytest.mark.parametrize("seed", range(3))
def test_the_mutator_is_seeded(seed: int) -> None:
    own = _POOL["non"]
    a = fuzz.mutate(own[0], random.Random(seed), own)
    b = fuzz.mutate(own[0], random.Random(seed), own)
    assert a == b
