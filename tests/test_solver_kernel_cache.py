"""The solver's numba cache is keyed to every source its kernels are built from."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nonoforge.solver import kernel_cache
from nonoforge.solver.kernel_cache import HERE, SOURCES, sources_stamp

ROOT = Path(__file__).resolve().parents[1]


def test_the_stamp_follows_every_source_and_nothing_else(tmp_path: Path) -> None:
    for name in SOURCES:
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "driver.py").write_text("# not a kernel source\n")
    first = sources_stamp(tmp_path, SOURCES)
    assert first == sources_stamp(HERE, SOURCES) == sources_stamp(tmp_path, SOURCES[::-1])
    (tmp_path / "driver.py").write_text("# changed\n")
    assert sources_stamp(tmp_path, SOURCES) == first
    for name in SOURCES:
        kept = (tmp_path / name).read_bytes()
        (tmp_path / name).write_bytes(kept + b"\n")
        assert sources_stamp(tmp_path, SOURCES) != first, name
        (tmp_path / name).write_bytes(kept)
    assert sources_stamp(tmp_path, SOURCES) == first


def _solver_imports(path: Path) -> set[str]:
    """The solver modules (file names) that the module at ``path`` imports names from."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("nonoforge.solver."):
                found.add(node.module.rsplit(".", 1)[1] + ".py")
            elif node.module == "nonoforge.solver":
                found |= {a.name + ".py" for a in node.names}
    return found - {"kernel_cache.py"}


def test_every_kernel_source_is_stamped() -> None:
    """Each solver module that defines kernels is a source, and so is every solver module
    a kernel source takes names from (kernels bake in the constants they read)."""
    kernels = {p.name for p in HERE.glob("*.py") if "@njit" in p.read_text()}
    assert kernels <= set(SOURCES), kernels - set(SOURCES)
    for name in SOURCES:
        assert _solver_imports(HERE / name) <= set(SOURCES), name


def test_the_solver_kernels_carry_the_stamp() -> None:
    from nonoforge.solver import cnf, engine, line

    stamp = sources_stamp(HERE, SOURCES)
    kernels: list[Any] = [engine.propagate, line.line_solve, cnf.emit]
    for kernel in kernels:
        locator = kernel._cache._impl.locator  # numba's own objects: what it stamps with
        assert locator.get_source_stamp()[1] == stamp, kernel


HELPER = "from numba import njit\n\n\n@njit(cache=True)\ndef value():\n    return {}\n"
KERNEL = """from numba import njit

from helper import value


@njit(cache=True)
def run():
    return value() * 10
"""
RUN = """import sys
from pathlib import Path

folder = Path(sys.argv[1])
sys.path.insert(0, str(folder))
if sys.argv[2] == "stamped":
    from nonoforge.solver.kernel_cache import install

    assert install(folder, ("helper.py", "kernel.py"))
from kernel import run

print(run())
"""


def test_a_kernel_is_compiled_again_when_only_a_file_it_inlines_changed(tmp_path: Path) -> None:
    """Numba alone checks a kernel's own file: ``run`` in kernel.py, cached, kept the old
    ``value`` of helper.py after helper.py changed. Stamped, it is compiled afresh."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "kernel.py").write_text(KERNEL)
    (tmp_path / "run.py").write_text(RUN)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(ROOT)

    def run() -> str:
        out = subprocess.run([sys.executable, str(tmp_path / "run.py"), str(pkg), "stamped"],
                             capture_output=True, text=True, env=env, check=True, timeout=300)
        return out.stdout.strip()

    (pkg / "helper.py").write_text(HELPER.format(1))
    assert run() == "10"
    assert list((pkg / "__pycache__").glob("kernel.run-*.nbi"))  # cached on disk
    (pkg / "helper.py").write_text(HELPER.format(2))
    assert run() == "20"
    assert run() == "20"


def test_installing_twice_adds_one_locator(tmp_path: Path) -> None:
    from numba.core import caching as numba_caching

    caching: Any = numba_caching
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    for name in SOURCES:
        shutil.copy(HERE / name, tmp_path / name)
    assert kernel_cache.install() and kernel_cache.install(tmp_path, SOURCES)
    assert sum(getattr(c, "nonoforge_stamped", False) for c in impl._locator_classes) == 1


def test_every_kernel_module_takes_the_stamped_njit() -> None:
    """engine.py imported numba's own njit and was stamped only because it imports line.py
    first; each kernel module takes njit from kernel_cache, whatever the import order."""
    for name in SOURCES:
        text = (HERE / name).read_text()
        if "@njit" in text:
            assert "from numba import njit" not in text, name
            assert "from nonoforge.solver.kernel_cache import njit" in text, name


def test_sources_that_cannot_be_read_leave_numba_as_it_is(tmp_path: Path) -> None:
    """Installed from a zip archive the solver's folder is no folder: importing must still
    work (kernels then cached the way numba does by itself), not raise."""
    archive = tmp_path / "solver.zip"
    archive.write_bytes(b"")
    assert kernel_cache.install(archive / "nonoforge" / "solver", SOURCES) is False
    assert kernel_cache.install(tmp_path / "missing", SOURCES) is False


# ---------------------------------------------------------------------------------------
# the first run says that it compiles (issue 38)

EDGE = str(ROOT / "nonoforge" / "examples" / "puzzles" / "mum.non")  # needs the engine


def _solve_edge(cache_dir: Path | None, *options: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    return subprocess.run([sys.executable, "-m", "nonoforge", *options, "solve", EDGE],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200,
                          check=True)


@pytest.mark.slow
def test_a_cold_cache_is_announced_once_and_a_warm_one_not(tmp_path: Path) -> None:
    cold = _solve_edge(tmp_path)
    assert cold.stderr.count(kernel_cache.COMPILE_NOTICE) == 1
    assert "unique, technique probe" in cold.stdout  # the notice is not on stdout
    assert kernel_cache.COMPILE_NOTICE not in cold.stdout
    warm = _solve_edge(tmp_path)
    assert warm.stderr == ""
    assert warm.stdout.split(",")[:2] == cold.stdout.split(",")[:2]


def test_a_warm_cache_says_nothing() -> None:
    """The kernels of this test run are compiled (conftest warms them): nothing on stderr."""
    r = _solve_edge(None)
    assert "technique probe" in r.stdout and r.stderr == ""


def _uncompiled_kernel(tmp_path: Path) -> Any:
    """A real numba kernel in a fresh folder, never called: nothing of it in any cache."""
    (tmp_path / "fresh_kernel.py").write_text(HELPER.format(7))
    sys.path.insert(0, str(tmp_path))
    try:
        import fresh_kernel  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("fresh_kernel", None)
    return fresh_kernel.value


def test_the_notice_is_said_once_and_quiet_silences_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from nonoforge.cli import app

    kernel = _uncompiled_kernel(tmp_path)
    assert kernel_cache.is_cold(kernel)
    monkeypatch.setitem(kernel_cache._notice, "said", False)
    monkeypatch.setitem(kernel_cache._notice, "say", kernel_cache.say_on_stderr)
    assert kernel_cache.announce_if_cold(kernel)
    assert not kernel_cache.announce_if_cold(kernel)  # once per process
    assert capsys.readouterr().err == kernel_cache.COMPILE_NOTICE + "\n"
    assert CliRunner().invoke(app, ["--quiet", "formats"]).exit_code == 0
    monkeypatch.setitem(kernel_cache._notice, "said", False)
    assert kernel_cache.announce_if_cold(kernel)
    assert capsys.readouterr().err == ""
    assert CliRunner().invoke(app, ["formats"]).exit_code == 0  # not quiet: said again
    monkeypatch.setitem(kernel_cache._notice, "said", False)
    assert kernel_cache.announce_if_cold(kernel)
    assert kernel_cache.COMPILE_NOTICE in capsys.readouterr().err
    assert kernel() == 7
    assert not kernel_cache.is_cold(kernel)  # compiled and cached now
