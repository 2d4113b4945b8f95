"""Shared fixtures and helpers: test data, the optional shared corpora, SAT enumeration,
a throw-away PostgreSQL server (one per test run, for every file that asks for it)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

#: Hypothesis's per-example deadline (200 ms) is a wall-clock assertion: on a loaded machine
#: a plain example that takes 0.02 ms can take 0.7 s (seen: test_ranges), so no test has one.
#: How fast belongs in bench/; a hang is still caught by the tests' own guards.
settings.register_profile("nonoforge", deadline=None)
settings.load_profile("nonoforge")

#: A command started with ``&`` from a non-interactive shell (a CI script, ``make test &``)
#: begins with Ctrl-C ignored (POSIX), and every process it starts inherits that: the tests
#: that press Ctrl-C on a command would then see it ignored and wait for the run's end.
#: A user's terminal delivers it, so the tests run as a terminal would: Python's own handler
#: here, which every child process gets back as the default on exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

if TYPE_CHECKING:
    from nonoforge.puzzle import Puzzle

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
#: The workplace's shared corpora sit beside the project; a user's clone has none.
#: ``NONOFORGE_SHARED`` points elsewhere (a CI cache, another checkout's corpora).
SHARED = Path(os.environ.get("NONOFORGE_SHARED") or ROOT.parent / "shared")


#: Tests that take many seconds (measured with ``--durations``): subprocesses killed and
#: resumed, process pools started and stopped, whole shared corpora, megabyte inputs. They
#: stay in ``make test`` (CI); ``make test-fast`` (``-m "not slow"``) leaves them out. Kept
#: here as node-id prefixes rather than decorators so that owners' files need no edit;
#: a test file may also use ``@pytest.mark.slow`` itself.
SLOW = (
    "tests/test_formats.py::test_shared_file_reads_and_converts_everywhere[corpora/tournament/",
    "tests/test_formats_xml.py::test_ten_megabyte_line",
    "tests/test_pipeline_jobs.py::test_a_worker_that_dies_costs_one_puzzle_not_the_batch",
    "tests/test_pipeline_jobs.py::test_dask_executor_gives_the_local_results",
    "tests/test_pipeline_jobs.py::test_rating_is_deterministic_across_runs_and_worker_counts",
    "tests/test_pipeline_jobs.py::test_demo_runs_end_to_end",
    "tests/test_pipeline_rate.py::test_a_started_pool_is_closed_by_the_map_and_can_start_again",
    "tests/test_pipeline_rate.py::test_the_pool_completes_deferred_rows_with_every_run",
    "tests/test_rofl.py::test_kernels_match_plain_python",
    "tests/test_scraper_ingest.py::test_sigkilled_ingest_resumes_with_every_puzzle_exactly_once",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Compile the numba kernels once per test run, before any test's clock starts.

    Kernels are cached on disk (``cache=True``; in ``__pycache__`` beside the sources, or
    ``NUMBA_CACHE_DIR`` when set, which CLI subprocesses inherit). Every xdist worker
    gets here; a file lock lets the first compile and write the cache while the others
    wait and then load it, so a cold run compiles once, not once per worker or per test.
    Runs only when the collected tests imported the solver or ROFL.
    """
    wants_solver = "nonoforge.solver" in sys.modules
    wants_rofl = "nonoforge.formats.rofl" in sys.modules
    if not (wants_solver or wants_rofl) or not session.items:
        return
    import fcntl

    lock_dir = Path(os.environ.get("NUMBA_CACHE_DIR") or ROOT / ".pytest_cache")
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / "numba-warmup.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if wants_solver:
                from nonoforge.solver import warmup

                warmup()
            if wants_rofl:
                from nonoforge.formats import dumps, loads
                from nonoforge.puzzle import Grid, Puzzle

                for grid in ([[1, 0], [0, 1]], [[1, 2], [2, 0]]):
                    list(loads(dumps(Puzzle.from_grid(Grid(grid)), "rofl"), "rofl"))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def bench_module(name: str) -> ModuleType:
    """The script ``bench/<name>.py`` loaded as a module, for tests of its parts."""
    spec = importlib.util.spec_from_file_location(f"nonoforge_bench_{name}",
                                                  ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def random_bw_puzzle(seed: int, h: int, w: int, density: float) -> Puzzle:
    """A seeded random black-and-white picture of ``h`` x ``w`` cells at ``density`` as a
    puzzle; its top-left cell is black, so no picture is blank."""
    import numpy as np

    from nonoforge.puzzle import Grid, Puzzle

    cells = (np.random.default_rng(seed).random((h, w)) < density).astype(np.uint8)
    cells[0, 0] = 1
    return Puzzle.from_grid(Grid(cells))


def fresh_python(
    code: str, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """``code`` run by a fresh interpreter (``args`` its ``sys.argv[1:]``), its output
    captured as text: for what a process imports, loads or leaves behind from a clean
    start, which this test process did long ago. The test fails with the end of the
    interpreter's stderr when it exits non-zero."""
    r = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r


def shared_path(*parts: str) -> Path:
    """A path under ``../shared``, or skip the test with the reason when it is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is absent: the shared corpora sit beside the project only in CI")
    return p


def tournament_set(name: str) -> list[Any]:
    """The puzzles of a shared tournament set (``taai2011``, ...), each with its solution
    file's picture, or skip the test with the reason when the corpora are absent."""
    from nonoforge.formats.tournament import read_with_solutions

    folder = shared_path("corpora", "tournament")
    return read_with_solutions(folder / "question" / f"{name}.txt",
                               folder / "solution" / f"{name}.txt")


@pytest.fixture
def data_dir() -> Path:
    return DATA


def all_solutions(puzzle: Any, lines: str = "order", state: Any = None) -> set[Any]:
    """Every solution, by enumerating the SAT encoding with blocking clauses (small puzzles)."""
    from pysat.solvers import Solver

    from nonoforge.solver.sat import SOLVER_NAME, encode

    enc = encode(puzzle, state, lines=lines)
    found: set[Any] = set()
    if enc.unsat:
        return found
    with Solver(name=SOLVER_NAME, bootstrap_with=enc.clauses) as s:
        while s.solve():
            model = s.get_model()
            found.add(enc.decode(model))
            block = enc.blocking_clause(model)
            if not block:
                break
            s.add_clause(block)
    return found


# -- PostgreSQL ---------------------------------------------------------------------------


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for d in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (d / name).exists():
            return str(d / name)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def pg_server() -> Iterator[dict[str, str]]:
    """A throw-away PostgreSQL server on a local socket, or a skip saying why not.

    initdb refuses to run as root, so as root the server runs as the ``postgres`` user
    (created by the Debian ``postgresql`` package). CI needs ``apt-get install -y
    postgresql`` and ``pip install psycopg[binary]``.
    """
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("PostgreSQL tests need the psycopg driver (pip install 'psycopg[binary]')")
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL tests need a server (apt-get install -y postgresql)")
    prefix: list[str] = []
    user = None
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run the server")
        if not runuser:
            pytest.skip("running as root and runuser is missing")
        user = "postgres"
        prefix = [runuser, "-u", user, "--"]
    base = Path(tempfile.mkdtemp(prefix="nonoforge-pg-"))
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    if user:
        shutil.chown(base, user)
        shutil.chown(sock, user)
    port = _free_port()
    log = base / "log"
    try:
        subprocess.run(
            [*prefix, initdb, "-D", str(data), "-A", "trust", "-U", "postgres",
             "--no-sync", "-E", "UTF8"],
            check=True, capture_output=True, timeout=120,
        )
        opts = f"-k {sock} -p {port} -h '' -F"
        subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-o", opts, "-l", str(log), "-w", "-t", "60",
             "start"],
            check=True, capture_output=True, timeout=90,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
        shutil.rmtree(base, ignore_errors=True)
        detail = getattr(e, "stderr", b"") or b""
        pytest.skip(f"could not start a PostgreSQL server: {e} {detail[-300:]!r}")
    try:
        yield {"host": str(sock), "port": str(port)}
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)
