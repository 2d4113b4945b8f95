"""The demo says what it does as it goes: a line per step, per puzzle and per export, and
"still ..." when a step is quiet for a while (issue 38: a first run was silent for minutes)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nonoforge.cli import app
from nonoforge.pipeline.demo import SHAPES, _Narrator


def test_a_quiet_step_is_said_to_be_going_on_less_and_less_often() -> None:
    lines: list[str] = []
    with _Narrator(lines.append, tick=0.05) as tell:
        tell.doing("compiling", "starting")
        time.sleep(0.6)  # a step that says nothing: "still" after 0.05, 0.15, 0.35, 0.75 s
        tell.say("done")
    assert lines[0] == "starting" and lines[-1] == "done"
    stills = lines[1:-1]
    assert stills and all(s.startswith("  ... still compiling (") for s in stills)
    assert len(stills) <= 4  # every 0.05 s it would have been about 12


def test_on_a_terminal_a_status_line_says_the_step_instead() -> None:
    lines: list[str] = []
    shown: list[str] = []
    with _Narrator(lines.append, tick=0.05, status=shown.append) as tell:
        tell.doing("compiling", "starting")
        time.sleep(0.3)
        tell.doing("rating")
        time.sleep(0.3)
    assert lines == ["starting"]  # no "still" lines: the status line shows it
    assert any(s.startswith("compiling (") for s in shown)
    assert shown[-1].startswith("rating (")


def test_lines_said_keep_the_narrator_quiet() -> None:
    lines: list[str] = []
    with _Narrator(lines.append, tick=60.0) as tell:
        tell.doing("busy", "start")
        for i in range(20):
            tell.say(f"step {i}")
    assert lines == ["start", *(f"step {i}" for i in range(20))]  # nothing "still" added


@pytest.mark.slow
def test_the_demo_says_each_step_puzzle_and_export(tmp_path: Path) -> None:
    out = tmp_path / "d"
    res = CliRunner().invoke(app, ["demo", "--out", str(out), "--workers", "1"])
    assert res.exit_code == 0, res.output
    err = res.stderr.splitlines()
    assert err[0].startswith(f"demo into {out}: ")
    steps = ["generating 8 puzzles from 4 bundled images", "ingesting the bundled archive",
             "rating every puzzle", "building the graded collection 'demo'", "done in "]
    at = [next(i for i, line in enumerate(err) if line.startswith(s)) for s in steps]
    assert at == sorted(at)  # in this order
    generated = [line for line in err[at[0] + 1:at[1]] if not line.startswith("  ... still")]
    assert len(generated) == 4 * len(SHAPES) + 1  # one per puzzle, then the count
    assert all(" accepted, " in line or "not accepted" in line for line in generated[:-1])
    rating = err[at[2] + 1:at[3]]
    assert rating[0].endswith("puzzle(s) to rate on this process ...")  # --workers 1
    assert rating[-1].startswith("  rated ") and "verdicts unique " in rating[-1]
    exports = [line for line in err[at[3] + 1:at[4]] if not line.startswith("  ... still")]
    assert exports[0].startswith("  'demo': ") and len(exports) == 5
    for name, kind in (("demo.pdf", "pdf"), ("demo", "dir"), ("demo.rofl", "rofl"),
                       ("demo.html", "html")):
        assert any(line.startswith(f"  {out / name} ({kind}, ") for line in exports), name


POOLED = """
import json, multiprocessing, sys
from nonoforge.formats.rofl import kernels
from nonoforge.pipeline.demo import run_demo

alive = {}

def say(line):
    if line.startswith("  rated ") and "verdicts " in line:
        alive["rated"] = len(multiprocessing.active_children())
    elif line.startswith("  ") and "(pdf, " in line:
        alive["pdf"] = len(multiprocessing.active_children())

if __name__ == "__main__":
    report = run_demo(sys.argv[1], say, workers=2)
    print(json.dumps({"rated": report["rating"]["rated"], "alive": alive,
                      "rofl_compiled": sorted(kernels._compiled)}))
"""


@pytest.mark.slow
def test_the_exports_wait_on_neither_the_ratings_workers_nor_a_compiler(
    tmp_path: Path,
) -> None:
    """Right after a pooled rating the exports waited: on a first run the ROFL coder
    compiled its kernels in the middle of them (it counts its calls; the demo is a small
    job, so it stays plain Python), and the rating's workers, left to stop on their own,
    still ran beside them. In a process of its own (nothing compiled before): when the
    demo says the rating's result and when the PDF is written no process of ours is
    left, and the ROFL kernels were never compiled."""
    import json
    import subprocess
    import sys

    script = tmp_path / "pooled.py"
    script.write_text(POOLED)
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "d")],
                         capture_output=True, text=True, check=True, timeout=900)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"rated": 20, "alive": {"rated": 0, "pdf": 0}, "rofl_compiled": []}
