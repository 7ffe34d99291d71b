"""Where validated data cannot be written as JSON, said without quoting the data.

A model can accept what ``model_dump(mode="json")`` cannot write: an
``extra="allow"`` key or an ``Any`` field holding an object (a
``SimpleNamespace``, a socket) or a value that contains itself or is nested
too deeply, a serializer that raises. pydantic then raises
``PydanticSerializationError`` (or a plain ``ValueError``) with no location,
and a serializer's own message may quote the value it failed on. A Presenter refuses such data
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

__all__ = ["describe_unwritable", "is_unwritable", "locate_unwritable"]

Loc = tuple[int | str, ...]
Part = tuple[int | str, Any, Callable[[], object]]

_UNKNOWN_TYPE: Final = re.compile(r"^Unable to serialize unknown type: <class '([\w.]+)'>")
_FUNCTION: Final = re.compile(r"^Error calling function `([\w.<>]+)`")
# A value that does not fit its declared type (serialized with warnings="error"):
# an instance changed after validation, or a subclass's field of another type.
_UNEXPECTED: Final = re.compile(
    r"PydanticSerializationUnexpectedValue\(Expected `([^`\n]{1,200})` - serialized value may "
    r"not be as expected(?: \[field_name='([A-Za-z_][A-Za-z0-9_]{0,63})'|)"
)
# Fixed texts of pydantic's serializer (plain ValueErrors): they quote nothing.
_FIXED: Final = {
    "Circular reference detected (id repeated)": "The value contains itself (a circular "
    "reference) and cannot be written as JSON",
    "Maximum serialization depth exceeded": "The value is nested too deeply to be written as JSON",
}
# How far the search descends: deeper data is blamed at this depth, so that
# finding the place costs at most this many serializations of a part.
_MAX_DEPTH: Final = 32


def is_unwritable(exc: ValueError) -> bool:
    """Whether ``exc`` is pydantic's serializer refusing a value (not some other failure)."""
    return isinstance(exc, PydanticSerializationError) or str(exc) in _FIXED


def describe_unwritable(exc: ValueError) -> str:
    """What cannot be written: a type's name, a serializer's name or a fixed text, no value."""
    text = str(exc)
    if text in _FIXED:
        return _FIXED[text]
    unknown = _UNKNOWN_TYPE.match(text)
    if unknown:
        return f"A value of type {unknown.group(1)} cannot be written as JSON"
    unexpected = _UNEXPECTED.search(text)
    if unexpected:
        field = f" in the field {unexpected.group(2)!r}" if unexpected.group(2) else ""
        return (
            f"A value{field} does not fit its declared type {unexpected.group(1)} (a model "
            "instance changed after validation, or a subclass's field of another type)"
        )
    function = _FUNCTION.match(text)
    if function:
        return (
            f"The serializer {function.group(1)} failed (its message is not shown: "
            "it may quote the data)"
        )
    return "The value cannot be written as JSON (the serializer's message is not shown)"


def locate_unwritable(
    model: type[BaseModel], data: Any, *, many: bool
) -> tuple[int | None, Loc, ValueError | None]:
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
        try:  # written as the declared schema writes it (fusion_core._present._mask)
            model.__pydantic_serializer__.to_python(instance, mode="json", warnings="error")
        except ValueError as exc:  # PydanticSerializationError, or a circular or too deep value
            loc, error = _within(instance, (), set()) or ((), exc)
            return (index if many else None), loc, error
    return None, (), None


def _within(value: Any, loc: Loc, seen: set[int]) -> tuple[Loc, ValueError] | None:
    """The deepest part of ``value`` that fails to serialize, or ``None``.

    A part already on the path (a cycle) or the depth limit ends the descent.
    """
    if len(loc) >= _MAX_DEPTH or id(value) in seen:
        return None
    seen.add(id(value))
    for key, child, attempt in _parts(value):
        try:
            attempt()
        except ValueError as exc:
            return _within(child, (*loc, key), seen) or ((*loc, key), exc)
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
    return lambda: model.model_dump(mode="json", include={name}, warnings="error")


def _plain(value: Any) -> Callable[[], object]:
    return lambda: to_jsonable_python(value)
