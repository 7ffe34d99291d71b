"""Hostile sets: members Python's ``<`` cannot order, written in the one documented order.

``<`` is "is a proper subset" on frozensets, false both ways for NaN, and
raises for mixed types and for ``Decimal("NaN")``; sorting by it gave hash-
dependent bytes (a set of frozensets) or an error (a set holding a Decimal
NaN). Every row here is written in the set order of ``docs/wire-format.md``
on every path a set reaches the wire by: ``to_json``, ``to_plain``, TOON,
``structuredContent``, error details, and a Presenter's declared set fields,
``Any`` fields and ``extra="allow"`` extras on both mask paths. The same
class is in the determinism property (other hash seeds, other processes).
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from collections.abc import Callable
from decimal import Decimal
from enum import Enum
from typing import Annotated, Any

import pytest
import toon_format
from pydantic import BaseModel, ConfigDict, PlainSerializer

from fusion_core import (
    CycleError,
    Presenter,
    SerializationError,
    success_structured,
    to_json,
    to_plain,
    tool_error,
    toon_success,
)
from fusion_core._present._mask import Mask


class Size(Enum):
    """An enum member is ordered by its value, as it is written."""

    SMALL = "s"
    LARGE = 10


class Name(str):
    """A str subclass: ordered as the string it is."""


class Count(int):
    """An int subclass: ordered as the number it is."""


class Letter(Enum):
    """An enum object key is written as its value."""

    B = "b"


@dataclasses.dataclass(frozen=True)
class Frozen:
    """A hashable member written as a JSON object."""

    x: int


@dataclasses.dataclass(eq=False)
class Box:
    """Hashable by identity, holding a dict whose keys are written as text."""

    data: Any


# name: (members, the JSON values in the documented order)
HOSTILE_SETS: dict[str, tuple[Any, list[Any]]] = {
    # {1, 8} and {2, 9} iterate as [8, 1] and [9, 2] in CPython (int hashes are
    # the ints): a member's own list is sorted, not only the outer one.
    "frozensets": (
        {frozenset({1, 8}), frozenset({3}), frozenset({2, 9}), frozenset()},
        [[], [1, 8], [2, 9], [3]],
    ),
    "nested-frozensets": (
        frozenset({frozenset({frozenset({2}), frozenset({1})}), frozenset({frozenset()})}),
        [[[]], [[1], [2]]],
    ),
    "nan-and-infinity": (
        {float("nan"), 2.5, -1, float("inf"), float("-inf")},
        [None] * 3 + [-1, 2.5],
    ),
    "decimal-nan": ({Decimal("NaN"), Decimal("9"), Decimal("10")}, ["10", "9", "NaN"]),
    "mixed-types": (
        {None, True, 3, "3", (3,), frozenset({"3"}), 2.5},
        [None, True, 2.5, 3, "3", [3], ["3"]],
    ),
    "tuples-of-frozensets": (
        {(frozenset({2}), 1), (frozenset({1, 2}), 0), (frozenset({1, 2}),)},
        [[[1, 2]], [[1, 2], 0], [[2], 1]],
    ),
    "enums": ({Size.LARGE, Size.SMALL, 9, "r"}, [9, 10, "r", "s"]),
    "big-ints-and-floats": ({2**70, 1e21, -(2**70), 0.5}, [-(2**70), 0.5, 1e21, 2**70]),
    "bools-before-numbers": ({True, False, -5, 0.5}, [False, True, -5, 0.5]),
    "str-and-int-subclasses": ({Name("b"), Count(3), (1,), "a"}, [3, "a", "b", [1]]),
    "prefix-arrays": ({(1, 2), (1,), (), (0, 5)}, [[], [0, 5], [1], [1, 2]]),
    "tuples-holding-decimals": ({(Decimal("10"),), (Decimal("9"),)}, [["10"], ["9"]]),
    "arrays-before-objects": ({(1,), Frozen(x=1), "a"}, ["a", [1], {"x": 1}]),
    "objects-by-written-keys": (
        {Box({10: "a"}), Box({"9": "b"}), Box({Letter.B: 1}), Box({"a": 2})},
        [{"data": {"10": "a"}}, {"data": {"9": "b"}}, {"data": {"a": 2}}, {"data": {"b": 1}}],
    ),
}
IDS = list(HOSTILE_SETS)
ROWS = list(HOSTILE_SETS.values())


def _detail(value: Any) -> Any:
    """The JSON of an error detail, read back from the envelope."""
    text = tool_error("E", "m", details={"v": value}).texts[0]
    found = re.search(r'<detail key="v">(.*?)</detail>', text, re.DOTALL)
    assert found is not None, text
    return json.loads(html.unescape(found.group(1)))


WRITERS: dict[str, Callable[[Any], Any]] = {
    "to_json": lambda value: json.loads(to_json(value)),
    "to_plain": to_plain,
    "structured": lambda value: success_structured({"v": value})["structuredContent"]["v"],
    "toon": lambda value: toon_format.decode(toon_success({"v": value}).texts[0])["v"],
    "error-details": _detail,
}


@pytest.mark.parametrize("writer", WRITERS.values(), ids=WRITERS)
@pytest.mark.parametrize(("members", "expected"), ROWS, ids=IDS)
def test_the_writer_orders_any_hashable_members(
    writer: Callable[[Any], Any], members: Any, expected: list[Any]
) -> None:
    """Each path writes the members in the documented order (and never refuses them)."""
    assert writer(members) == expected


class Declared(BaseModel):
    """A declared ``set[Any]`` field, an ``Any`` field and extras (the fast path)."""

    model_config = ConfigDict(extra="allow")

    declared: set[Any] = set()
    anything: Any = None


class SlowDeclared(Declared):
    """The same fields on the model path."""

    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


@pytest.mark.parametrize(("schema", "fast"), [(Declared, True), (SlowDeclared, False)])
@pytest.mark.parametrize(("members", "expected"), ROWS, ids=IDS)
def test_presenters_order_sets_in_fields_any_values_and_extras(
    schema: type[BaseModel], fast: bool, members: Any, expected: list[Any]
) -> None:
    """A declared set, a set in an ``Any`` field, a list of them, and an extra key: sorted."""
    assert Mask(schema).fast is fast
    row = {"declared": members, "anything": [members, {"k": members}], "more": members}
    out = json.loads(Presenter("P", schema).make(row).build().texts[0])
    assert out["declared"] == out["more"] == expected
    assert out["anything"] == [expected, {"k": expected}]


class Tagged(BaseModel, frozen=True):
    """A model that lands inside an ``Any`` value: written by its own schema."""

    tags: frozenset[frozenset[int]]


@dataclasses.dataclass(frozen=True)
class Point:
    """A dataclass inside an ``Any`` value: pydantic writes its fields by inference."""

    labels: frozenset[Any]


@pytest.mark.parametrize(("schema", "fast"), [(Declared, True), (SlowDeclared, False)])
def test_models_and_dataclasses_inside_any_values_have_their_sets_sorted(
    schema: type[BaseModel], fast: bool
) -> None:
    """A model's declared sets and a dataclass's inferred ones, found inside ``Any``."""
    members, expected = HOSTILE_SETS["frozensets"]
    row = {"anything": {"m": Tagged(tags=members), "d": Point(frozenset(members))}}
    out = json.loads(Presenter("P", schema).make(row).build().texts[0])
    assert out["anything"] == {"m": {"tags": expected}, "d": {"labels": expected}}


class TypedSetExtras(BaseModel):
    """Extra keys whose schema is a set: sorted by that schema's own set node."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, set[frozenset[int]]]

    name: str = ""


class SlowTypedSetExtras(TypedSetExtras):
    """The same extras on the model path."""

    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


@pytest.mark.parametrize(("schema", "fast"), [(TypedSetExtras, True), (SlowTypedSetExtras, False)])
def test_extras_with_a_set_schema_are_sorted_with_their_members(
    schema: type[BaseModel], fast: bool
) -> None:
    """Typed extras: the set and each frozenset member come out sorted."""
    assert Mask(schema).fast is fast
    members, expected = HOSTILE_SETS["frozensets"]
    out = json.loads(Presenter("P", schema).make({"more": members}).build().texts[0])
    assert out["more"] == expected


class OwnOrderExtras(BaseModel):
    """Extra keys written by a serializer of the user's own: its order is kept."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[
        str, Annotated[frozenset[int], PlainSerializer(lambda v: sorted(v, reverse=True))]
    ]


def test_a_serializer_of_your_own_in_extras_keeps_its_order() -> None:
    """The user's serializer returns a descending list: written as it comes, not re-sorted."""
    out = json.loads(Presenter("P", OwnOrderExtras).make({"more": {1, 8, 3}}).build().texts[0])
    assert out == {"more": [8, 3, 1]}


class DeclaredWithExtras(BaseModel):
    """A declared set of tuples and frozensets next to extras written by inference."""

    model_config = ConfigDict(extra="allow")

    declared: set[Any] = set()


def test_declared_fields_are_not_reread_as_extras() -> None:
    """A tuple's items keep their order: only the extra keys are sorted by inference."""
    members = {(9, 2), (8, 1), (7, 0), frozenset({1, 3}), frozenset({5, 4}), frozenset({6, 2})}
    row = {"declared": members, "more": members}
    out = json.loads(Presenter("P", DeclaredWithExtras).make(row).build().texts[0])
    expected = [[1, 3], [2, 6], [4, 5], [7, 0], [8, 1], [9, 2]]
    assert out == {"declared": expected, "more": expected}


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = (value,)
    return value


def test_members_nested_up_to_the_limit_are_ordered_and_deeper_ones_are_a_clear_error() -> None:
    """512 levels inside a member: ordered by the innermost value; 10,000: an error at the path."""
    shallow = {_nested(512, 2), _nested(512, 1)}
    assert to_json({"k": shallow}) == to_json({"k": [_nested(512, 1), _nested(512, 2)]})
    message = r"more than 512 levels deep: its place in the set order cannot be decided"
    for depth in (513, 10_000):
        with pytest.raises(SerializationError, match=rf"{message} \(at \$\.k\)"):
            to_json({"k": {_nested(depth, 2), _nested(depth, 1)}})


def test_members_that_contain_themselves_are_a_cycle_error() -> None:
    """A member reaching itself through a list or a dict: ordering ends, the writer says where."""
    looped, keyed = Box([]), Box({})
    looped.data.append(looped)
    keyed.data["self"] = keyed
    for member in (looped, keyed):
        with pytest.raises(CycleError):
            to_json({"k": {member, Box({"a": 1})}})


class Twig(BaseModel, frozen=True):
    """A recursive model (its plan holds a reference) that lands in ``Any`` and in extras."""

    tags: frozenset[int]
    kids: tuple[Twig, ...] = ()


class TwigExtras(BaseModel):
    """Extras typed as the recursive model, on the model path."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Twig]

    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


class MixedSetExtras(BaseModel):
    """Extras typed as a set of tuples and frozensets (the fast path)."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, set[Any]]


def test_recursive_models_in_any_values_and_extras_have_their_sets_sorted() -> None:
    """References resolve inside ``Any`` values and typed extras; typed extras are sorted once."""
    twig = Twig(tags=frozenset({1, 8}), kids=(Twig(tags=frozenset({2, 9})),))
    expected = {"tags": [1, 8], "kids": [{"tags": [2, 9], "kids": []}]}
    for schema in (Declared, SlowDeclared):
        out = json.loads(Presenter("P", schema).make({"anything": twig}).build().texts[0])
        assert out["anything"] == expected
    out = json.loads(Presenter("T", TwigExtras).make({"more": twig}).build().texts[0])
    assert out["more"] == expected
    members = {(9, 2), (8, 1), (7, 0), frozenset({1, 3}), frozenset({5, 4}), frozenset({6, 2})}
    assert Mask(MixedSetExtras).fast
    out = json.loads(Presenter("M", MixedSetExtras).make({"more": members}).build().texts[0])
    assert out["more"] == [[1, 3], [2, 6], [4, 5], [7, 0], [8, 1], [9, 2]]
