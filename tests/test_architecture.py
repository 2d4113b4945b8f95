"""Checks on the shape of the package anyone can run: imports, layers, complexity.

The import graph is read from the source (``ast``), not by importing, so a module that
imports another only inside a function counts too: a cycle there is still a design cycle
(issue 18's ``solver.core`` <-> ``solver.sat`` was one, hidden in a function body).
Imports under ``if TYPE_CHECKING:`` count too: they never run, but a type one module
needs from another is a dependency all the same (issue 40 found the circle
``pipeline.dataset`` -> ``export`` -> ``html`` -> ``dataset`` made of them).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nonoforge"


def _modules() -> dict[str, Path]:
    mods = {}
    for p in PACKAGE.rglob("*.py"):
        if "migrations" in p.parts:
            continue
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    return mods


MODULES = _modules()


def _resolve(target: str) -> str | None:
    """The module of ours ``target`` names (a submodule, or the package defining it)."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def imports_of(name: str) -> set[str]:
    """Modules of ours that ``name`` imports anywhere, ``TYPE_CHECKING`` blocks included."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*up, *([child.module] if child.module else [])])
                # ``from pkg import sub`` depends on the submodule; the package's own
                # __init__ runs for any submodule import, dotted or not, so it is not an edge
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                    for a in child.names
                ]
            for t in targets:
                mod = _resolve(t) if t.startswith("nonoforge") else None
                if mod and mod != name:
                    found.add(mod)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph)))

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_and_relative_imports() -> None:
    assert "nonoforge.puzzle" in GRAPH["nonoforge.formats.base"]
    assert "nonoforge.db" in GRAPH["nonoforge.commands.base"]  # imported inside functions
    # only for types, under TYPE_CHECKING: still an edge
    assert "nonoforge.puzzle" in GRAPH["nonoforge.pipeline.html"]


def test_no_import_cycles() -> None:
    assert cycles(GRAPH) == []


#: What the bottom layers may import of ours (issue 18, BRIEF: dependencies point one way).
BOTTOM = {
    "nonoforge.errors": set(),
    "nonoforge.util": set(),
    "nonoforge.solving": {"nonoforge.puzzle", "nonoforge.techniques"},  # puzzle: types only
    "nonoforge.techniques": set(),
    "nonoforge.results": set(),
    "nonoforge.colournames": set(),
    "nonoforge.ranges": {"nonoforge.errors"},
    "nonoforge.puzzle": {"nonoforge.errors", "nonoforge.util"},
}
#: The packages formats and solver may build on, besides their own modules.
BASE = {"nonoforge.errors", "nonoforge.util", "nonoforge.solving", "nonoforge.ranges",
        "nonoforge.puzzle", "nonoforge.results", "nonoforge.techniques"}


@pytest.mark.parametrize("name", sorted(BOTTOM))
def test_bottom_modules_import_nothing_above_them(name: str) -> None:
    assert GRAPH[name] <= BOTTOM[name]


@pytest.mark.parametrize("layer", ["nonoforge.formats", "nonoforge.solver"])
def test_formats_and_solver_build_only_on_the_model(layer: str) -> None:
    for name, deps in GRAPH.items():
        if name == layer or name.startswith(layer + "."):
            outside = {d for d in deps if not (d == layer or d.startswith(layer + "."))}
            assert outside <= BASE, f"{name} imports {sorted(outside - BASE)}"


FACES = ("nonoforge.cli", "nonoforge.cliapp", "nonoforge.cliparams", "nonoforge.commands",
         "nonoforge.studio", "nonoforge.__main__")


def _is_face(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FACES)


def test_nothing_below_the_faces_imports_them() -> None:
    for name, deps in GRAPH.items():
        if not _is_face(name):
            assert not {d for d in deps if _is_face(d)}, name


def test_only_the_cli_imports_typer() -> None:
    """typer stays in the command layer: cli.py, its commands (``nonoforge/commands/``)
    and its start-up machinery, cliapp.py."""
    for name, path in MODULES.items():
        if name in ("nonoforge.cli", "nonoforge.cliapp", "nonoforge.__main__") or (
                name.startswith("nonoforge.commands")):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                    node.module or ""]
                assert not any(m.split(".")[0] == "typer" for m in mods), name


#: The complexity ceiling (radon): functions above it are split into named helpers.
CEILING = 25
#: The engine's two hot kernels stay whole above the ceiling, at most at the old one (30):
#: numba counts a reference each time a helper reads an array, which cost up to 18 % on
#: the tournament sets (the note atop ``solver/engine.py``); a split of them lands with
#: its ``bench/tournament.py`` figures.
ENGINE_KERNELS = {"nonoforge/solver/engine.py propagate", "nonoforge/solver/engine.py _probe_cell"}


def test_no_function_above_complexity_25() -> None:
    pytest.importorskip("radon")
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from complexity import over
    finally:
        sys.path.remove(str(ROOT / "bench"))
    found = over(CEILING)  # (complexity, "path:line name")
    left = [(cc, where) for cc, where in found
            if cc > 30 or f"{where.split(':')[0]} {where.split()[-1]}" not in ENGINE_KERNELS]
    assert left == []


#: Modules whose tests still live in a shared file, with the file that holds them. The
#: rule is one test file per module (``nonoforge/x/y.py`` -> ``tests/test_x_y.py``); this
#: list may only shrink: a module added to the package gets its own file.
SHARED_TESTS = {
    "nonoforge/commands/base.py": "test_cli.py",
    "nonoforge/commands/ingest.py": "test_scraper_ingest.py",
    "nonoforge/commands/pictures.py": "test_images_cli.py",
    "nonoforge/commands/puzzles.py": "test_cli.py",
    "nonoforge/commands/rate.py": "test_pipeline_rate.py",
    "nonoforge/commands/tour.py": "test_pipeline_demo.py",
    "nonoforge/formats/base.py": "test_formats.py",
    "nonoforge/formats/json.py": "test_formats.py",
    "nonoforge/formats/rofl/container.py": "test_rofl.py",
    "nonoforge/formats/rofl/kernels.py": "test_rofl.py",
    "nonoforge/formats/rofl/record.py": "test_rofl.py",
    "nonoforge/solver/core.py": "test_solver.py",
    "nonoforge/solver/driver.py": "test_solver.py",
    "nonoforge/solver/engine.py": "test_solver.py",
}


def _own_test_file(path: Path) -> Path:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ROOT / "tests" / ("test_" + "_".join(parts) + ".py")


def test_every_module_with_logic_has_its_own_test_file() -> None:
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" in path.parts or path.name in ("__init__.py", "__main__.py"):
            continue
        rel = str(path.relative_to(ROOT))
        if _own_test_file(path).exists():
            assert rel not in SHARED_TESTS, f"{rel} has its own test file: drop it from the list"
        elif rel not in SHARED_TESTS:
            missing.append(f"{rel} -> {_own_test_file(path).relative_to(ROOT)}")
    assert missing == []
    for rel, shared in SHARED_TESTS.items():
        assert (ROOT / "tests" / shared).exists(), (rel, shared)
