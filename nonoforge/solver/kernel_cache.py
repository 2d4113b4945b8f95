"""Numba's disk cache of the solver's kernels, stamped with every source they are built from.

Numba stamps each cached kernel with a hash of its own file only. But the engine's kernels
inline the line solvers of ``line.py``, and kernels bake in the constants of ``tables.py``
when compiled: after a checkout that changed ``line.py`` under an unchanged ``engine.py``,
numba loaded engine kernels compiled from the old line solvers. Here every kernel defined
in the solver's folder is stamped with a hash of all of :data:`SOURCES` as well, so a change
to any of them makes numba find each solver kernel's cache index stale: it compiles afresh
and writes over the old entries, wherever it keeps them (``__pycache__``,
``NUMBA_CACHE_DIR`` or the user-wide cache). Nothing is deleted, so processes running side
by side (a worker pool, another checkout) never lose a cache they are reading, and a
process still running old code writes entries stamped as old, which new code never loads.

The stamp is the hash of a few files (about 70 kB), taken once per process when the first
kernel is defined: numba is being imported then anyway, so start-up does not notice.

It works through numba's list of cache locators (``numba.core.caching``, not a public API;
``CacheImpl``, ``_CacheImpl`` in older numba). With a numba that lacks it, or with
``NUMBA_CACHE_LOCATOR_CLASSES`` set, kernels are cached as numba does by itself, and
tests/test_solver_kernel_cache.py fails to say so.

The first run after an install (or after a change to the sources) compiles the kernels:
a minute or more of CPU during which nothing else happens. :func:`announce_if_cold` says
so on stderr, once per process, when the cache holds no kernel for these sources, and
says nothing when it does (issue 38); :func:`set_notice` silences it (``--quiet``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nonoforge.util import without_scipy  # noqa: F401 - its home is util (the ROFL kernels use it too)

HERE = Path(__file__).resolve().parent
#: The files the solver's kernels are compiled from: those that define kernels and the
#: solver modules whose names the kernels use (tests/test_solver_kernel_cache.py keeps it whole).
SOURCES = ("cnf.py", "engine.py", "line.py", "phases.py", "tables.py")

#: The stamp of each folder whose kernels are stamped (its real path, as numba sees files).
_stamps: dict[str, str] = {}


def sources_stamp(folder: Path, names: Sequence[str]) -> str:
    """A hash of the files ``names`` in ``folder``: their names and their contents."""
    h = hashlib.sha256()
    for name in sorted(names):
        data = (folder / name).read_bytes()
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def install(folder: Path = HERE, names: Sequence[str] = SOURCES) -> bool:
    """Stamp the cache of every kernel later defined in a file of ``folder`` with
    :func:`sources_stamp` of ``names``; False when this numba offers no way to."""
    try:
        from numba.core import caching as numba_caching

        caching: Any = numba_caching
        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # older numba
        classes: list[Any] = impl._locator_classes
        base: Any = caching._CacheLocator
    except (ImportError, AttributeError):  # pragma: no cover - another numba
        return False
    try:
        stamp = sources_stamp(folder, names)
    except OSError:  # sources not readable as files (e.g. imported from a zip archive)
        return False
    _stamps[_real(str(folder))] = stamp
    if not any(getattr(c, "nonoforge_stamped", False) for c in classes):
        classes.insert(0, _stamped_locator(base, classes))
    return True


@functools.cache
def _installed() -> bool:
    return install()


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit``, with the solver's kernels stamped first (see the module's text)."""
    _installed()
    import numba

    return numba.njit(*args, **kwargs)


@functools.lru_cache(maxsize=64)
def _real(path: str) -> str:
    """A folder as the key of :data:`_stamps`: its real path (symbolic links followed)."""
    return os.path.normcase(os.path.realpath(path))


def _stamped_locator(base: Any, classes: list[Any]) -> Any:
    """A locator class put first in numba's list: for a file of a stamped folder it takes
    the locator numba would have chosen and joins the folder's stamp to that one's."""

    class Stamped(base):
        nonoforge_stamped = True

        def __init__(self, inner: Any, stamp: str, py_file: str) -> None:
            self._inner, self._stamp, self._py_file = inner, stamp, py_file

        def ensure_cache_path(self) -> None:
            self._inner.ensure_cache_path()

        def get_cache_path(self) -> Any:
            return self._inner.get_cache_path()

        def get_source_stamp(self) -> Any:
            return self._inner.get_source_stamp(), self._stamp

        def get_disambiguator(self) -> Any:
            return self._inner.get_disambiguator()

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            stamp = _stamps.get(_real(os.path.dirname(os.path.abspath(py_file))))
            if stamp is None:
                return None
            for other in classes:
                if other is not cls:
                    inner = other.from_function(py_func, py_file)
                    if inner is not None:
                        return cls(inner, stamp, py_file)
            return None

    return Stamped


#: What a process that is about to compile the kernels says on stderr (issue 38).
COMPILE_NOTICE = ("nonoforge: compiling the solver's kernels, once (about 1-3 minutes); "
                  "later runs load them from the cache")


def say_on_stderr(text: str) -> None:
    """One line on stderr, at once (the default of :func:`set_notice`)."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


#: Where :func:`announce_if_cold` says it (None: nowhere), and whether it has.
_notice: dict[str, Any] = {"say": say_on_stderr, "said": False}


def set_notice(say: Callable[[str], None] | None) -> None:
    """Where the compile notice goes: a function taking the line, or None for nowhere
    (the CLI's ``--quiet``). By default it is one line on stderr."""
    _notice["say"] = say


def is_cold(kernel: Any) -> bool:
    """Whether numba's disk cache holds no compiled code of ``kernel`` (a dispatcher with
    ``cache=True``) for its current sources: calling it will compile. False when this
    numba keeps its cache some other way (nothing is announced then)."""
    try:
        index = kernel._cache._cache_file._load_index()  # numba's own reading of its index
    except (AttributeError, OSError, EOFError, ValueError, TypeError):  # pragma: no cover
        return False
    except Exception:  # noqa: BLE001 - an unreadable index: numba recompiles, so do we
        return True
    return not index


def announce_if_cold(kernel: Any) -> bool:
    """Say :data:`COMPILE_NOTICE` (once per process) when ``kernel`` is not in the disk
    cache; whether it was said now."""
    say = _notice["say"]
    if _notice["said"] or not is_cold(kernel):
        return False
    _notice["said"] = True
    if say is not None:
        say(COMPILE_NOTICE)
    return True
