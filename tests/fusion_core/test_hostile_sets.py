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

from fusion_core import Presenter, success_structured, to_json, to_plain, tool_error, toon_success
from fusion_core._schema import Mask


class Size(Enum):
    """An enum member is ordered by its value, as it is written."""

    SMALL = "s"
    LARGE = 10


# name: (members, the JSON values in the documented order)
HOSTILE_SETS: dict[str, tuple[Any, list[Any]]] = {
    "frozensets": (
        {frozenset({1, 2}), frozenset({3}), frozenset({2, 5}), frozenset()},
        [[], [1, 2], [2, 5], [3]],
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
