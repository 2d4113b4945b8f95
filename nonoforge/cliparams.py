"""Plain conversion of the command line's simple values, so that typer needs no pydantic.

typer (0.2x) converts every option and argument through a pydantic ``TypeAdapter``: the
first value parsed imports pydantic and builds adapters, about 0.1 s of CPU, a third of
what ``nonoforge info`` may spend in all (issue 15). Our options are plain strings, integers
and floats, so after :func:`install` each parameter gets a converter that handles those in
a few lines of Python and hands anything else, every error included, to typer's own
converter: a value converts to exactly what typer would give, and a bad value gets
typer's own message and exit code. The grammar stays typer's.

:func:`install` replaces typer's factory of converters (``typer.core.build_runtime_param``)
once per process, so every parameter is covered, help options and sub-groups included.

This leans on typer's private ``_coercion`` module; where it is missing (another typer
version), :func:`install` does nothing and typer converts as it always did.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, get_args, get_origin

try:  # typer's private coercion layer (typer >= 0.2x); absent: typer converts alone
    import typer.core as _typer_core
    from typer._coercion import RuntimeParam, build_runtime_param
except ImportError:  # pragma: no cover - depends on the installed typer
    RuntimeParam = None  # type: ignore[assignment,misc]

#: Values converted here; anything else (``+5``, ``1e3``, ``0x10``) is typer's to judge.
_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?[0-9]{1,18}(?:\.[0-9]{1,18})?")
_TYPER = object()  # "not converted here: ask typer"


def _in_range(v: float, info: Any) -> bool:
    return (info.min is None or v >= info.min) and (info.max is None or v <= info.max)


def _plain(annotation: Any, info: Any, value: Any) -> Any:
    """``value`` converted as typer would, or :data:`_TYPER` when it is not plain."""
    if annotation is str or annotation is bool:
        return value if isinstance(value, annotation) else _TYPER
    if annotation is int or annotation is float:
        number = type(value) is annotation or (annotation is float and type(value) is int)
        text = isinstance(value, str) and (_INT if annotation is int else _FLOAT).fullmatch(value)
        if not (number or text):
            return _TYPER
        v = annotation(value)
        return v if _in_range(v, info) else _TYPER  # out of range: typer's message or clamp
    if get_origin(annotation) is list and isinstance(value, list | tuple):
        (item,) = get_args(annotation)
        out = [_plain(item, info, v) for v in value]
        return _TYPER if any(v is _TYPER for v in out) else out
    return _TYPER


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class _PlainParam(RuntimeParam):
        """Plain values converted here, the rest by the converter typer would build."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            got = _plain(self.annotation, self.parameter_info, value)
            if got is not _TYPER:
                return got
            typer_own = build_runtime_param(param.type_descriptor)
            return typer_own._coerce_value(value, param=param, ctx=ctx)

    def _build(descriptor: Any) -> Any:
        """typer's factory of converters, plain ones first."""
        if descriptor.file_annotation is not None or descriptor.parameter_info.parser:
            return build_runtime_param(descriptor)
        try:
            return _PlainParam(parameter_info=descriptor.parameter_info,
                               annotation=descriptor.annotation)
        except TypeError:  # pragma: no cover - a typer whose converters take more fields
            return build_runtime_param(descriptor)


def install() -> None:
    """Have typer convert plain values here from now on, in this process."""
    if RuntimeParam is not None:
        _typer_core.build_runtime_param = _build
