"""``solve --timeout T`` counts from the start of the command (issue 14).

Start-up, reading the file and loading the compiled engine all count against T, so the
command answers within T plus one stop of the engine. How close to T it lands is measured by
``bench/deadlines.py`` (on a 1000x1000 puzzle, wall and CPU); these tests pin the mechanism
without reading a clock: a deadline that has already passed when the engine starts lets it
do at most one slice of work (work units are deterministic), where a clock started later
would have let it run on for a while.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import fresh_python

from nonoforge.formats import write_file
from nonoforge.puzzle import Puzzle
from nonoforge.solver import solve

ROOT = Path(__file__).resolve().parents[1]
#: The engine checks the clock after each slice of 2,000 work units when a deadline is set
#: (the last unit may end a little past it): one slice, with room to spare.
SLICE = 4_000


def _python(*args: str) -> Any:
    """What a fresh ``python ARGS...`` process prints as JSON (run from the project root)."""
    r = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=300, check=True)
    return json.loads(r.stdout)


def endless(n: int = 14) -> Puzzle:
    """One cell in every row and column: n! solutions, so counting them never ends."""
    return Puzzle.from_clues([[1]] * n, [[1]] * n)


def test_a_timeout_counts_from_started_not_from_the_call() -> None:
    # the caller's clock started 10 s ago: a 5 s timeout is already over
    res = solve(endless(), timeout=5.0, started=time.monotonic() - 10.0,
                max_solutions=10**9, strategy="search")
    assert res.status == "timeout"
    assert res.effort["work"] <= SLICE


def test_a_timeout_that_is_not_over_lets_the_engine_work() -> None:
    # the same puzzle with time left does far more than one slice: the bound above means
    # something. A work budget, not the clock, stops it here, so what it did is the same
    # under any load: a deadline that has not passed takes nothing away
    res = solve(endless(), timeout=600.0, budget=10 * SLICE, max_solutions=10**9,
                strategy="search")
    assert res.status == "budget"
    assert res.effort["work"] > 10 * SLICE


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["search", "sat"])
def test_solve_counts_start_up_reading_and_engine_loading(tmp_path: Path,
                                                          strategy: str) -> None:
    # a fresh process spends far more than 0.05 s of CPU (so of wall time) importing numpy
    # and numba, reading and loading the compiled engine before it solves (0.7 s and more
    # on our machine; the margin is for much faster ones): with the clock started at the
    # command's start, the deadline has passed by then (the engine is not even loaded, or
    # stops after one slice)
    f = tmp_path / "endless.non"
    write_file(endless(), f)
    (item,) = _python("-m", "nonoforge", "solve", "--json", "--timeout", "0.05",
                      "-n", "1000000000", "--strategy", strategy, str(f))
    assert item["status"] == "timeout"
    assert item["effort"]["work"] <= SLICE


@pytest.mark.slow
def test_a_script_that_calls_main_late_gets_its_whole_timeout() -> None:
    """The command's clock starts at the process's start only when the process runs just
    this command (``nonoforge``, ``python -m nonoforge``): a script that has lived a while
    before calling main() gets its whole ``--timeout`` from the call, where the process's
    age used to spend it before any work (a ``timeout`` reported with no work done).

    Checked on the clock the command starts, which must not be before the call (with the
    age counted it is about a second before it): that holds under any load, where a solve
    that must finish within the timeout does not."""
    script = (
        "import json, sys, time\n"
        "time.sleep(1)\n"
        "from nonoforge import cli\n"
        "sys.argv = ['wrapper', 'solve', '--json', '--timeout', '600', 'example:petro']\n"
        "called = time.monotonic()\n"
        "try:\n"
        "    cli.main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(cli._clock['command'] - called), file=sys.stderr)\n"
    )
    r = fresh_python(script, cwd=ROOT, timeout=300)
    (item,) = json.loads(r.stdout)
    assert item["status"] == "unique", item
    assert float(r.stderr.strip().splitlines()[-1]) >= 0.0, r.stderr


@pytest.mark.slow
def test_a_library_timeout_does_not_count_loading_the_engine() -> None:
    """solve(timeout=T) without ``started`` gives the puzzle its T: loading the compiled
    engine (compiling it, the first run after an install) is not the puzzle's time, and a
    0.3 s timeout in a fresh process used to be spent in loading, leaving one slice.

    Checked as "never early", which no load can break: the puzzle's own time (``time_s``,
    loading excluded) is at least the timeout when it fires; with loading counted it was
    about nothing."""
    script = (
        "import json, sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from test_cli_deadline import endless\n"
        "from nonoforge.solver import solve\n"
        "r = solve(endless(), timeout=0.3, max_solutions=10**9, strategy='search')\n"
        "print(json.dumps([r.status, r.time_s]))\n"
    )
    status, time_s = _python("-c", script)
    assert status == "timeout" and time_s >= 0.3 - 1e-6, (status, time_s)
