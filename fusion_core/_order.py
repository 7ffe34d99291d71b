"""The one order a set's members are written in, on every path and in every process.

A set has no order of its own: it iterates in an order that
``PYTHONHASHSEED`` (and, for NaN, object identity) decides. Python's ``<``
cannot fix one either: it is partial on frozensets (``<`` is "is a proper
subset"), on floats with NaN, and on tuples holding either; it raises for
mixed types and for ``Decimal("NaN")``. So members are ordered by the *JSON
value written for them*, in an order that is total on JSON values:

1. ``null`` (also NaN and ±Infinity, which are written ``null``), then
   ``false``, then ``true``;
2. numbers, by numeric value (ints and floats compared exactly);
3. strings, by code point;
4. arrays (lists, tuples, and sets as their own sorted arrays), element by
   element in this same order, a prefix first;
5. objects, by their (key, value) pairs in written order, keys by code point;
6. last, values the writer refuses (it then raises, naming where they are).

Two members tie only when their JSON values are equal, and equal JSON values
are written as the same bytes, so the bytes never depend on the order sets
iterate in. ``docs/wire-format.md`` documents this order.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["MAX_KEY_DEPTH", "order_key", "sorted_plain"]

MAX_KEY_DEPTH: Final = 512
"""Levels of nesting the key looks into; deeper, the writer refuses the value anyway."""

_NULL: Final = (0,)
_REFUSED: Final = (6,)


def _no_conversion(_value: Any) -> Any:
    return NotImplemented


def order_key(
    value: Any, convert: Callable[[Any], Any] = _no_conversion, depth: int = 0
) -> tuple[Any, ...]:
    """Where ``value``'s JSON form sorts (see the module docstring).

    ``convert`` is the writer's one step from a Python value to JSON-able
    data (``NotImplemented`` for a value it refuses): the key is the key of
    what the writer writes.
    """
    if depth > MAX_KEY_DEPTH:
        return _REFUSED
    if value is None:
        return _NULL
    if isinstance(value, enum.Enum):
        return order_key(value.value, convert, depth + 1)
    if isinstance(value, bool):
        return (1, value)
    if isinstance(value, int):
        return (2, int(value))
    if isinstance(value, float):
        return (2, float(value)) if math.isfinite(value) else _NULL
    if isinstance(value, str):
        return (3, str(value))
    if isinstance(value, list | tuple):
        return (4, tuple([_plain_key(item, convert, depth + 1) for item in value]))
    if isinstance(value, set | frozenset):
        return (4, tuple(sorted(order_key(item, convert, depth + 1) for item in value)))
    if isinstance(value, Mapping):
        pairs = (
            (_key_text(key), order_key(item, convert, depth + 1)) for key, item in value.items()
        )
        return (5, tuple(pairs))
    converted = convert(value)
    if converted is NotImplemented:
        return _REFUSED
    return order_key(converted, convert, depth + 1)


def _str_key(value: str) -> tuple[Any, ...]:
    return (3, value)


def _int_key(value: int) -> tuple[Any, ...]:
    return (2, value)


# The keys of the commonest leaves, without the chain of checks above.
_LEAF_KEYS: Final[dict[type, Callable[[Any], tuple[Any, ...]]]] = {str: _str_key, int: _int_key}


def _plain_key(value: Any, convert: Callable[[Any], Any], depth: int) -> tuple[Any, ...]:
    leaf = _LEAF_KEYS.get(type(value))
    return leaf(value) if leaf is not None else order_key(value, convert, depth)


def _key_text(key: Any) -> str:
    """An object key as the writer writes it (str, int in decimal, Enum by its value)."""
    if isinstance(key, enum.Enum):
        key = key.value
    return key if isinstance(key, str) else str(key)


def _natural(members: Any) -> bool:
    """Whether ``<`` already is the order: only str, or only ints and finite floats."""
    kinds = set(map(type, members))
    if kinds <= {str}:
        return True
    if float in kinds:
        return kinds <= {int, float} and all(
            math.isfinite(member) for member in members if type(member) is float
        )
    return kinds <= {int}


def sorted_plain(members: Any, convert: Callable[[Any], Any] = _no_conversion) -> list[Any]:
    """``members`` (any iterable of values) in the order of their JSON values."""
    items = list(members)
    if _natural(items):
        return sorted(items)  # the same order, without a key per member
    return sorted(items, key=lambda member: _plain_key(member, convert, 0))
