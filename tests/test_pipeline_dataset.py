"""Dataset records (nonoforge.pipeline.dataset) of puzzles with givens (issue 17)."""

from __future__ import annotations

from conftest import DATA

from nonoforge.formats import read_file
from nonoforge.pipeline.dataset import line_trace, record
from nonoforge.pipeline.item import ExportItem


def test_a_record_lists_the_givens_and_its_steps_start_from_them() -> None:
    """The switch is ambiguous as bare clues; with its givens line logic finishes it, and
    the trace starts where a person starts: the given cells already solved."""
    switch = read_file(DATA / "givens.nonpack")[0]
    assert switch.goal is not None
    r = record(ExportItem(switch, 1, answer=switch.goal, verdict="unique"), steps=True)
    assert r["givens"] == [[1, 1, 1], [9, 9, 0]]
    painted = {(y, x) for step in r["steps"] for y, x, _ in step["cells"]}
    assert all(step["line"] is not None for step in r["steps"])  # no search needed
    assert painted.isdisjoint({(1, 1), (9, 9)})  # the givens are not steps
    assert len(painted) == switch.width * switch.height - 2
    for step in r["steps"]:
        for y, x, k in step["cells"]:
            assert switch.goal.cells[y, x] == k
    bare = switch.replace(givens=())
    assert record(ExportItem(bare, 1, answer=switch.goal))["givens"] == []
    assert line_trace(bare, switch.goal)[-1]["by"] == "search"  # stalls without them
