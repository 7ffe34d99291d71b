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
"""Levels of nesting inside a set member the order looks into (``ValueError`` beyond)."""

# A key is a flat tuple of tokens, so comparing two keys never recurses: a
# leaf is one token (rank, value); an array is _OPEN_ARRAY, its items' tokens
# (a set's in sorted order), _CLOSE; an object is _OPEN_OBJECT, then each
# key's (3, text) token and its value's tokens, then _CLOSE. _CLOSE sorts
# before every token that starts a value, so an array or object that is a
# prefix of another comes first; a value's tokens are balanced, so no value's
# tokens are a proper prefix of another's.
_NULL: Final = ((0,),)
_REFUSED: Final = ((6,),)
_OPEN_ARRAY: Final = (4,)
_OPEN_OBJECT: Final = (5,)
_CLOSE: Final = (-1,)
_ARRAY: Final = 0
_SET: Final = 1
_OBJECT: Final = 2


def _no_conversion(_value: Any) -> Any:
    return NotImplemented


def order_key(value: Any, convert: Callable[[Any], Any] = _no_conversion) -> tuple[Any, ...]:
    """Where ``value``'s JSON form sorts (see the module docstring).

    ``convert`` is the writer's one step from a Python value to JSON-able
    data (``NotImplemented`` for a value it refuses): the key is the key of
    what the writer writes. Iterative, and flat: nesting costs no Python
    stack, in building keys or in comparing them. A container inside itself
    sorts last (the writer then raises ``CycleError``).
    """
    stack: list[_Frame] = []
    item: Any = value
    while True:
        key = _leaf_or_open(item, convert, stack)
        if key is None:
            frame = stack[-1]  # just opened: read its first item
        elif not stack:
            return key
        else:
            frame = stack[-1]
            frame.keys.append(key)
        while (item := next(frame.items, _END)) is _END:
            stack.pop()
            key = frame.close()
            if not stack:
                return key
            frame = stack[-1]
            frame.keys.append(key)


_END: Final = object()


class _Frame:
    """An open array, set or object: its items still to read, the keys of those read."""

    __slots__ = ("identity", "items", "keys", "names", "rank")

    def __init__(self, rank: int, container: Any, items: Any, names: tuple[str, ...] = ()) -> None:
        self.rank = rank  # _ARRAY, _SET or _OBJECT
        self.identity = id(container)
        self.items = iter(items)
        self.keys: list[tuple[Any, ...]] = []
        self.names = names

    def close(self) -> tuple[Any, ...]:
        tokens: list[tuple[Any, ...]]
        if self.rank == _OBJECT:
            tokens = [_OPEN_OBJECT]
            for name, key in zip(self.names, self.keys, strict=True):
                tokens.append((3, name))
                tokens.extend(key)
        else:
            tokens = [_OPEN_ARRAY]
            for key in sorted(self.keys) if self.rank == _SET else self.keys:
                tokens.extend(key)
        tokens.append(_CLOSE)
        return tuple(tokens)


def _leaf_or_open(
    item: Any, convert: Callable[[Any], Any], stack: list[_Frame]
) -> tuple[Any, ...] | None:
    """The key of a leaf; ``None`` after opening a frame for a container on ``stack``."""
    while True:
        rank = _LEAF_RANKS.get(type(item))
        if rank is not None:
            return ((rank, item),)
        if item is None:
            return _NULL
        if isinstance(item, enum.Enum):
            item = item.value
            continue
        if isinstance(item, bool):
            return ((1, item),)
        if isinstance(item, int):
            return ((2, int(item)),)
        if isinstance(item, float):
            return ((2, float(item)),) if math.isfinite(item) else _NULL
        if isinstance(item, str):
            return ((3, str(item)),)
        if isinstance(item, list | tuple | set | frozenset | Mapping):
            if len(stack) >= MAX_KEY_DEPTH:
                msg = (
                    f"a set member is nested more than {MAX_KEY_DEPTH} levels deep: "
                    "its place in the set order cannot be decided"
                )
                raise ValueError(msg)
            if any(frame.identity == id(item) for frame in stack):
                return _REFUSED
            if isinstance(item, Mapping):
                names = tuple(map(_key_text, item))
                stack.append(_Frame(_OBJECT, item, item.values(), names))
            else:
                rank = _SET if isinstance(item, set | frozenset) else _ARRAY
                stack.append(_Frame(rank, item, item))
            return None
        item = convert(item)
        if item is NotImplemented:
            return _REFUSED


# The ranks of the commonest leaves, without the chain of checks above.
_LEAF_RANKS: Final[dict[type, int]] = {str: 3, int: 2}


def _member_key(member: Any, convert: Callable[[Any], Any]) -> tuple[Any, ...]:
    """:func:`order_key`, faster for a str, an int or a tuple of those."""
    rank = _LEAF_RANKS.get(type(member))
    if rank is not None:
        return ((rank, member),)
    if type(member) is tuple:
        tokens: list[tuple[Any, ...]] = [_OPEN_ARRAY]
        for item in member:
            rank = _LEAF_RANKS.get(type(item))
            if rank is None:
                return order_key(member, convert)
            tokens.append((rank, item))
        tokens.append(_CLOSE)
        return tuple(tokens)
    return order_key(member, convert)


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
    return sorted(items, key=lambda member: _member_key(member, convert))
