"""Where validated data cannot be written as JSON, said without quoting the data.

A model can accept what ``model_dump(mode="json")`` cannot write: an
``extra="allow"`` key or an ``Any`` field holding an object (a
``SimpleNamespace``, a socket), a serializer that raises. pydantic then
raises ``PydanticSerializationError`` with no location, and a serializer's
own message may quote the value it failed on. A Presenter refuses such data
like data that does not fit its schema (``PresenterValidationError``): this
module finds the first value that cannot be written — by serializing one
field, one extra key, one element at a time, which costs nothing until
masking has already failed — and describes it by its type or by the
serializer's name, never by its text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError, to_jsonable_python

__all__ = ["describe_unwritable", "locate_unwritable"]

Loc = tuple[int | str, ...]
Part = tuple[int | str, Any, Callable[[], object]]

_UNKNOWN_TYPE: Final = re.compile(r"^Unable to serialize unknown type: <class '([\w.]+)'>")
_FUNCTION: Final = re.compile(r"^Error calling function `([\w.<>]+)`")


def describe_unwritable(exc: PydanticSerializationError) -> str:
    """What cannot be written: a type's name or a serializer's name, no value."""
    text = str(exc)
    unknown = _UNKNOWN_TYPE.match(text)
    if unknown:
        return f"A value of type {unknown.group(1)} cannot be written as JSON"
    function = _FUNCTION.match(text)
    if function:
        return (
            f"The serializer {function.group(1)} failed (its message is not shown: "
            "it may quote the data)"
        )
    return "The value cannot be written as JSON (the serializer's message is not shown)"


def locate_unwritable(
    model: type[BaseModel], data: Any, *, many: bool
) -> tuple[int | None, Loc, PydanticSerializationError | None]:
    """The item index, the path and the error of the first value that cannot be written.

    ``data`` is what the Presenter was given (one object, or a list when
    ``many``); it is validated again, item by item. The path is ``()`` (the
    whole object) when no single field can be blamed, e.g. a model-level
    serializer; the error is ``None`` when nothing fails any more.
    """
    items = list(data) if many else [data]
    for index, item in enumerate(items):
        try:
            instance = model.model_validate(item)
        except ValidationError:
            continue
        try:
            instance.model_dump(mode="json")
        except PydanticSerializationError as exc:
            loc, error = _within(instance, ()) or ((), exc)
            return (index if many else None), loc, error
    return None, (), None


def _within(value: Any, loc: Loc) -> tuple[Loc, PydanticSerializationError] | None:
    """The deepest part of ``value`` that fails to serialize, or ``None``."""
    for key, child, attempt in _parts(value):
        try:
            attempt()
        except PydanticSerializationError as exc:
            return _within(child, (*loc, key)) or ((*loc, key), exc)
    return None


def _parts(value: Any) -> list[Part]:
    """``(key, child, serialize-this-child)`` for each part of ``value``."""
    if isinstance(value, BaseModel):
        if type(value).__pydantic_decorators__.model_serializers:
            return []  # the model writes itself: its fields are not the ones to blame
        names = [*type(value).model_fields, *(value.__pydantic_extra__ or {})]
        return [
            (name, getattr(value, name, None), _dump_one(value, name))
            for name in names
            if _has(value, name)
        ]
    if isinstance(value, Mapping):
        return [(str(key), child, _plain(child)) for key, child in value.items()]
    if isinstance(value, list | tuple | set | frozenset):
        return [(index, child, _plain(child)) for index, child in enumerate(value)]
    return []


def _has(model: BaseModel, name: str) -> bool:
    return name in model.__dict__ or name in (model.__pydantic_extra__ or {})


def _dump_one(model: BaseModel, name: str) -> Callable[[], object]:
    return lambda: model.model_dump(mode="json", include={name})


def _plain(value: Any) -> Callable[[], object]:
    return lambda: to_jsonable_python(value)
