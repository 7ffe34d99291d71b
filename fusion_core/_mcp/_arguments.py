"""A call's arguments as the wire carries them, whatever the transport.

The MCP SDK writes a call's arguments as pydantic's JSON: a set or a tuple
becomes a list, bytes a str, a date its ISO text, a model its fields, an int
key a str key. In process nothing is written, so a handler got the objects
themselves: the same test passing ``{1, 2}`` saw a set in process and a list
over stdio. :func:`wire_arguments` gives every transport the JSON values, and
refuses what JSON would carry as something else without a word: NaN and the
infinities, which the wire writes as ``null`` — written as such by pydantic's
JSON too for a pydantic model or dataclass (its ``ser_json_inf_nan`` config,
``"null"`` by default, wins over the call's), so where the JSON holds a
``null``, the arguments' models are read again as Python values to find one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fusion_core._errors import ArgumentsError
from fusion_core._write._numbers import read_json

__all__ = ["check_arguments", "wire_arguments"]


def wire_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` as JSON values, as a server reads them; ``ArgumentsError`` naming what is not.

    For a call that writes no JSON (a server in this process). A NaN or an
    infinity is refused naming its place (``arguments['x'][0]``), a value
    pydantic cannot write as JSON (an ``object()``, bytes that are not UTF-8)
    naming its type.
    """
    text = _json(arguments)
    value: dict[str, Any] = _read(text)
    if b"NaN" in text or b"Infinity" in text:  # else no float is one (strings may say so)
        _refuse_non_finite(value)
    _refuse_hidden_non_finite(text, arguments)
    return value


def check_arguments(arguments: Mapping[str, Any]) -> None:
    """``ArgumentsError`` if the SDK would write ``arguments`` as other values: a NaN as ``null``.

    For a call the SDK writes (it writes the rest as :func:`wire_arguments` reads it).
    """
    text = _json(arguments)
    if b"NaN" in text or b"Infinity" in text:
        _refuse_non_finite(_read(text))
    _refuse_hidden_non_finite(text, arguments)


def _json(arguments: Mapping[str, Any]) -> bytes:
    import pydantic_core  # noqa: PLC0415 - with the client, which needs pydantic anyway

    try:
        return pydantic_core.to_json(dict(arguments), inf_nan_mode="constants")
    except pydantic_core.PydanticSerializationError as exc:
        msg = f"the arguments are not JSON: {exc}"
        raise ArgumentsError(msg) from None


def _read(text: bytes) -> Any:
    try:
        return read_json(text)
    except ValueError as exc:  # an int too long for the wire
        msg = f"the arguments are not JSON a server reads: {exc}"
        raise ArgumentsError(msg) from None


def _refuse_hidden_non_finite(text: bytes, arguments: Mapping[str, Any]) -> None:
    """A NaN a model's JSON wrote as ``null`` (its config wins): looked for in the models."""
    if b"null" in text:
        _refuse_non_finite(_models_read(arguments))


def _models_read(value: Any) -> Any:
    """``value`` with each pydantic model or dataclass as the Python values it holds.

    Their own serializer gives those (``to_python``: a float stays a float, a
    NaN a NaN), keyed as their JSON is; containers are walked, other values
    kept. Only for :func:`_refuse_non_finite` to find a NaN the JSON hid.
    """
    if isinstance(value, Mapping):
        return {key: _models_read(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_models_read(item) for item in value]
    serializer = getattr(type(value), "__pydantic_serializer__", None)
    if serializer is not None and not isinstance(value, type):
        try:
            return _models_read(serializer.to_python(value))
        except Exception:  # noqa: BLE001 - its JSON was written: nothing else to find here
            return None
    return value


def _refuse_non_finite(arguments: dict[str, Any]) -> None:
    pending: list[tuple[str, Any]] = [("arguments", arguments)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict):
            pending.extend((f"{path}[{key!r}]", item) for key, item in value.items())
        elif isinstance(value, list):
            pending.extend((f"{path}[{index}]", item) for index, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            msg = (
                f"{path} is {value!r}: NaN and the infinities are not JSON "
                "(the wire would carry null)"
            )
            raise ArgumentsError(msg)
