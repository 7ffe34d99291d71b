"""What a client's limits need of one call: its name in a message, its answer's size.

Shared by :class:`~fusion_core.FusionClient` (stdio, HTTP, in memory) and the
pytest plugin's in-process transport, which bound calls the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["describe_call", "json_size_over"]

_SHOWN_ARGUMENTS: Final = 200  # characters of the arguments an error message repeats


def describe_call(name: str, arguments: Mapping[str, Any] | None) -> str:
    """``tools/call 'grow' {"n": 5}``: a call as error messages name it (arguments trimmed)."""
    shown = json.dumps(dict(arguments or {}), ensure_ascii=False, default=repr)
    if len(shown) > _SHOWN_ARGUMENTS:
        shown = shown[: _SHOWN_ARGUMENTS - 1] + "…"
    return f"tools/call {name!r} {shown}"


def json_size_over(value: object, limit: int) -> int | None:
    """The size of ``value`` as JSON text in UTF-8 when it is over ``limit``, else ``None``.

    The size is that of ``json.dumps(value, ensure_ascii=False)``. orjson's
    compact dump first, as a bound: the text ``json`` writes is at most 3x as
    long (a space after each separator, ``-Infinity`` for orjson's ``null``),
    so an answer under a third of the limit is never dumped twice. An
    in-process app's answer may hold what JSON cannot (a set, an object):
    such a value counts as its ``repr``; one JSON cannot measure at all (a
    cycle, too deep) is not refused here.
    """
    import orjson  # noqa: PLC0415 - with the connected path only

    try:
        if 3 * len(orjson.dumps(value)) <= limit:
            return None
    except (TypeError, orjson.JSONEncodeError):  # a huge int, a lone surrogate: dump it exactly
        pass
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > limit else None
