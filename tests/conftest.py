"""Shared fixtures: where the bundled test data and the optional shared corpora live."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
#: The workplace's shared corpora sit beside the project; a user's clone has none.
SHARED = ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ``../shared``, or skip the test with the reason when it is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is absent: the shared corpora sit beside the project only in CI")
    return p


@pytest.fixture
def data_dir() -> Path:
    return DATA
