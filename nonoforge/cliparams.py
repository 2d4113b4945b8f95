"""Plain conversion of the command line's simple values, so that typer needs no pydantic.

typer (0.2x) converts every option and argument through a pydantic ``TypeAdapter``: the
first value parsed imports pydantic and builds adapters, about 0.1 s of CPU, a third of
what ``nonoforge info`` may spend in all (issue 15). Our options are plain strings, integers,
floats and flags: :func:`plain` converts those in a few lines of Python and says
:data:`TYPER` for anything else, which the CLI then hands, every error included, to typer's
own converter; so a value converts to exactly what typer would give, and a bad value gets
typer's own message and exit code. The grammar stays typer's. The hook into typer (its
private ``_coercion`` layer) lives in :mod:`nonoforge.cli`, the one module that knows typer.
"""

from __future__ import annotations

import re
from typing import Any, get_args, get_origin

#: Values converted here; anything else (``+5``, ``1e3``, ``0x10``) is typer's to judge.
_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?[0-9]{1,18}(?:\.[0-9]{1,18})?")
TYPER = object()  # "not converted here: ask typer"


def _in_range(v: float, info: Any) -> bool:
    return (info.min is None or v >= info.min) and (info.max is None or v <= info.max)


def plain(annotation: Any, info: Any, value: Any) -> Any:
    """``value`` converted as typer would, or :data:`TYPER` when it is not plain.

    ``info`` is typer's parameter info (``min``, ``max``)."""
    if annotation is str or annotation is bool:
        return value if isinstance(value, annotation) else TYPER
    if annotation is int or annotation is float:
        number = type(value) is annotation or (annotation is float and type(value) is int)
        text = isinstance(value, str) and (_INT if annotation is int else _FLOAT).fullmatch(value)
        if not (number or text):
            return TYPER
        v = annotation(value)
        return v if _in_range(v, info) else TYPER  # out of range: typer's message or clamp
    if get_origin(annotation) is list and isinstance(value, list | tuple):
        (item,) = get_args(annotation)
        out = [plain(item, info, v) for v in value]
        return TYPER if any(v is TYPER for v in out) else out
    return TYPER
