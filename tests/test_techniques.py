"""The technique ladders' one home: every reader takes its rungs from the registry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from nonoforge import techniques
from nonoforge.formats import read_file
from nonoforge.pipeline import difficulty, html
from nonoforge.pipeline.item import ExportItem
from nonoforge.solver import TECHNIQUES, human, solve
from nonoforge.techniques import Ladder, Rung

EXAMPLES = Path(__file__).parent.parent / "nonoforge" / "examples" / "puzzles"


def test_the_engine_ladder_is_what_the_solver_names() -> None:
    assert techniques.engine_names() == TECHNIQUES
    assert TECHNIQUES == ("trivial", "overlap", "line", "probe", "search")
    assert difficulty.LADDER == TECHNIQUES


def test_the_human_ladder_is_what_the_human_solver_implements() -> None:
    # every registered human rung has its code in solver/human.py, and no more: a rung
    # registered without code (or code without a rung) fails here
    assert techniques.names(Ladder.HUMAN) == tuple(t.value for t in human.LADDER)
    assert set(techniques.names(Ladder.HUMAN)) == {t.value for t in human.Technique}
    assert human.LINE_RUNGS + human.TRIAL_RUNGS == human.LADDER
    assert [t.value for t in human.TRIAL_RUNGS] == ["two_line", "contradiction"]


def test_every_human_rung_belongs_to_an_engine_rung_no_easier_than_it() -> None:
    engine = techniques.engine_names()
    order = [engine.index(r.engine) for r in techniques.ladder(Ladder.HUMAN)]
    assert order == sorted(order)
    assert all(r.label and r.description for r in techniques.ladder(Ladder.HUMAN))


def test_the_weights_are_the_ones_the_scores_were_made_with() -> None:
    assert dict(difficulty.HUMAN_WEIGHTS) == {
        "simple_boxes": 1.0, "simple_spaces": 1.0, "forcing": 2.0, "glue": 3.0,
        "completing": 2.0, "line": 4.0, "two_line": 8.0, "contradiction": 8.0}


@pytest.mark.parametrize("bad", [
    Rung("glue", Ladder.HUMAN, 99, "line", "glue", "twice", 1.0),  # a name taken
    Rung("toy", Ladder.HUMAN, 30, "line", "toy", "an order taken", 1.0),
    Rung("toy", Ladder.HUMAN, 99, "magic", "toy", "no such engine rung", 1.0),
    Rung("toy", Ladder.HUMAN, 99, "line", "toy", "no weight"),
    Rung("toy", Ladder.ENGINE, 99, "line", "toy", "an engine rung of another"),
])
def test_register_refuses_a_rung_that_does_not_fit(bad: Rung) -> None:
    before = techniques.ladder(bad.ladder)
    with pytest.raises(ValueError):
        techniques.register(bad)
    assert techniques.ladder(bad.ladder) == before


def _page() -> str:
    p = read_file(EXAMPLES / "dancer.non")[0]
    return html.page([ExportItem(p, 1, {"grade": 1}, solve(p).solutions[0], "unique")])


@pytest.fixture
def toy() -> Iterator[Rung]:
    """A toy human rung between ``glue`` and ``completing``, taken off afterwards."""
    r = techniques.register(Rung("toy_rung", Ladder.HUMAN, 35, "line", "toy rung",
                                 "a rung registered by a test", weight=2.5))
    try:
        yield r
    finally:
        techniques.unregister("toy_rung")


def test_a_toy_rung_appears_everywhere_the_ladder_is_listed(toy: Rung) -> None:
    names = techniques.names(Ladder.HUMAN)
    assert names.index("glue") < names.index("toy_rung") < names.index("completing")
    assert techniques.rung("toy_rung") is toy
    # the human score weighs its steps
    assert difficulty.HUMAN_WEIGHTS["toy_rung"] == 2.5 and "toy_rung" in difficulty.HUMAN_WEIGHTS
    assert difficulty.human_score({"per_technique": {"toy_rung": 2}, "footholds": 10**9,
                                   "bottleneck": 10**9}) == pytest.approx(5.0, abs=0.01)
    # the page embeds it, in order, for its hint to walk
    page = _page()
    book = json.loads(page.split('id="nf-data">')[1].split("</script>")[0])
    got = [r["name"] for r in book["ladder"]]
    assert got == list(names) and {"name": "toy_rung", "label": "toy rung",
                                   "trial": False} in book["ladder"]
    # the engine's ladder is untouched
    assert techniques.engine_names() == TECHNIQUES


def test_the_toy_rung_is_gone_afterwards() -> None:
    assert "toy_rung" not in techniques.names(Ladder.HUMAN)
    assert "toy_rung" not in difficulty.HUMAN_WEIGHTS


def test_the_page_embeds_the_human_ladder() -> None:
    page = _page()
    book = json.loads(page.split('id="nf-data">')[1].split("</script>")[0])
    assert book["ladder"] == techniques.ladder_json()
    assert [r["name"] for r in book["ladder"] if not r["trial"]] == [
        t.value for t in human.LINE_RUNGS]
