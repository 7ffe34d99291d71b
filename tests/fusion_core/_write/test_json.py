"""JSON exactly as ``JSON.stringify(value, null, 2)``, and Python types mapped."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid
from decimal import Decimal
from typing import Any

import pydantic
import pytest

from fusion_core import (
    MAX_DEPTH,
    CycleError,
    FusionError,
    NestingError,
    SerializationError,
    to_json,
    to_plain,
)


class Color(enum.Enum):
    RED = "red"
    BLUE = 2


class Level(enum.IntEnum):
    LOW = 1


class Invoice(pydantic.BaseModel):
    id: int
    amount: Decimal
    issued: datetime.date


@dataclasses.dataclass
class Point:
    x: float
    y: float


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": 1, "b": [1, 2]}, '{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}'),
        ([], "[]"),
        ({}, "{}"),
        ({"a": [], "b": {}}, '{\n  "a": [],\n  "b": {}\n}'),
        ([[[]]], "[\n  [\n    []\n  ]\n]"),
        ("héllo ✓ 😀", '"héllo ✓ 😀"'),
        ("\x00\x01\x1f", '"\\u0000\\u0001\\u001f"'),
        ("\b\f\n\r\t", '"\\b\\f\\n\\r\\t"'),
        ('q"b\\', '"q\\"b\\\\"'),
        ("\x7f", '"\x7f"'),
        ("\u2028\u2029", '"\u2028\u2029"'),
        ("\ud800", '"\\ud800"'),
        ("a\udfffb", '"a\\udfffb"'),
        ("\udbff\udc00", '"\\udbff\\udc00"'),
        (float("nan"), "null"),
        ([float("inf"), float("-inf")], "[\n  null,\n  null\n]"),
        (10**400, "1" + "0" * 400),
        (-(2**64), "-18446744073709551616"),
        (2**53 + 1, "9007199254740993"),
        ("</script>", '"</script>"'),
        (None, "null"),
        (True, "true"),
        ([False, None], "[\n  false,\n  null\n]"),
        (1.0, "1"),
        (-0.0, "0"),
        (
            {"x": 1e21, "y": 1e-7, "z": 1.5e-6},
            '{\n  "x": 1e+21,\n  "y": 1e-7,\n  "z": 0.0000015\n}',
        ),
        ([1e16, 0.1], "[\n  10000000000000000,\n  0.1\n]"),
        ("", '""'),
        ("/", '"/"'),
    ],
)
def test_to_json_matches_json_stringify(value: Any, expected: str) -> None:
    """to_json gives JSON.stringify(value, null, 2)'s bytes."""
    assert to_json(value) == expected


def test_key_order_is_insertion_order() -> None:
    """Keys keep insertion order; integer-like keys are not hoisted."""
    assert to_json({"b": 1, "10": 2, "a": 3}) == '{\n  "b": 1,\n  "10": 2,\n  "a": 3\n}'


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            Invoice(id=1, amount=Decimal("9.50"), issued=datetime.date(2024, 1, 31)),
            '{\n  "id": 1,\n  "amount": "9.50",\n  "issued": "2024-01-31"\n}',
        ),
        (Point(1.0, 2.5), '{\n  "x": 1,\n  "y": 2.5\n}'),
        (datetime.datetime(2024, 1, 31, 12, 30, 5), '"2024-01-31T12:30:05"'),
        (
            datetime.datetime(2024, 1, 31, 12, 0, tzinfo=datetime.UTC),
            '"2024-01-31T12:00:00+00:00"',
        ),
        (datetime.date(2024, 2, 29), '"2024-02-29"'),
        (datetime.time(8, 15, 0, 250), '"08:15:00.000250"'),
        (Decimal("1.10"), '"1.10"'),
        (Decimal("1E+3"), '"1E+3"'),
        (
            uuid.UUID("12345678-1234-5678-1234-567812345678"),
            '"12345678-1234-5678-1234-567812345678"',
        ),
        (Color.RED, '"red"'),
        (Color.BLUE, "2"),
        (Level.LOW, "1"),
        ((1, "a"), '[\n  1,\n  "a"\n]'),
        ((), "[]"),
        ({3, 1, 2}, "[\n  1,\n  2,\n  3\n]"),
        (frozenset({"b", "a"}), '[\n  "a",\n  "b"\n]'),
        (set(), "[]"),
        ({1, "a", None}, '[\n  null,\n  1,\n  "a"\n]'),
        (b"hi", '"aGk="'),
        (bytearray(b"\x00\xff"), '"AP8="'),
        ([Point(0.5, -0.0)], '[\n  {\n    "x": 0.5,\n    "y": 0\n  }\n]'),
    ],
)
def test_python_types(value: Any, expected: str) -> None:
    """Python values a user would pass serialize as documented."""
    assert to_json(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({1: "a", -2: "b"}, '{\n  "1": "a",\n  "-2": "b"\n}'),
        ({Color.RED: 1, Color.BLUE: 2}, '{\n  "red": 1,\n  "2": 2\n}'),
        ({Level.LOW: True}, '{\n  "1": true\n}'),
        ({10**30: 0}, '{\n  "1000000000000000000000000000000": 0\n}'),
    ],
)
def test_int_and_enum_keys(value: Any, expected: str) -> None:
    """Int keys print in decimal, Enum keys by their value."""
    assert to_json(value) == expected


@pytest.mark.parametrize("key", [(1, 2), 1.5, None, True, b"k"])
def test_bad_key_names_its_path(key: Any) -> None:
    """A key that is not str or int is a SerializationError naming where it sits."""
    with pytest.raises(SerializationError) as caught:
        to_json({"rows": [{key: 1}]})
    assert caught.value.path == "$.rows[0]"
    assert "$.rows[0]" in str(caught.value)
    assert caught.value.value == key


def test_unserializable_value_names_its_path() -> None:
    """An object with no JSON form fails with its JSON path in the message."""
    rows: list[dict[str, Any]] = [{"amount": index} for index in range(5)]
    rows[3]["amount"] = object()
    with pytest.raises(SerializationError) as caught:
        to_json({"rows": rows})
    assert caught.value.path == "$.rows[3].amount"
    assert "$.rows[3].amount" in str(caught.value)
    assert "object" in str(caught.value)
    assert isinstance(caught.value, TypeError)
    assert isinstance(caught.value, FusionError)


def test_path_quotes_keys_that_are_not_identifiers() -> None:
    """Keys that are not identifiers appear as quoted subscripts in the path."""
    with pytest.raises(SerializationError) as caught:
        to_json({"a b": {"x-y": [object()]}})
    assert caught.value.path == '$["a b"]["x-y"][0]'


def test_failing_conversion_names_its_path() -> None:
    """A model whose dump fails becomes a SerializationError at its path."""

    class Broken(pydantic.BaseModel):
        @pydantic.field_serializer("*")
        def _boom(self, value: Any) -> Any:
            raise RuntimeError("boom")

        x: int = 1

    with pytest.raises(SerializationError) as caught:
        to_json({"m": Broken()})
    assert caught.value.path == "$.m"


def test_cycle_names_its_path() -> None:
    """A container that contains itself is a CycleError at the repeated container."""
    data: dict[str, Any] = {"items": [1, 2]}
    data["items"].append(data)
    with pytest.raises(CycleError) as caught:
        to_json(data)
    assert caught.value.path == "$.items[2]"
    assert isinstance(caught.value, SerializationError)


def test_list_cycle() -> None:
    """A list inside itself is a CycleError."""
    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(CycleError, match=r"\$\[0\]"):
        to_json(looped)


def test_shared_references_are_not_cycles() -> None:
    """The same container twice (a DAG, not a cycle) serializes twice."""
    shared = [1]
    assert to_json([shared, shared]) == "[\n  [\n    1\n  ],\n  [\n    1\n  ]\n]"


def _nested_lists(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def _nested_dicts(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("nest", [_nested_lists, _nested_dicts])
def test_exactly_max_depth_is_accepted(nest: Any) -> None:
    """MAX_DEPTH levels of containers serialize."""
    text = to_json(nest(MAX_DEPTH))
    assert text.count("\n") == 2 * MAX_DEPTH
    assert to_plain(nest(MAX_DEPTH)) == nest(MAX_DEPTH)


@pytest.mark.parametrize("nest", [_nested_lists, _nested_dicts])
def test_deeper_than_max_depth_is_a_nesting_error(nest: Any) -> None:
    """One level beyond MAX_DEPTH is a NestingError naming the limit."""
    with pytest.raises(NestingError) as caught:
        to_json(nest(MAX_DEPTH + 1))
    assert caught.value.limit == MAX_DEPTH
    assert caught.value.path.startswith("$")
    with pytest.raises(NestingError):
        to_plain(nest(MAX_DEPTH + 1))


def _nested_empty(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_empty_innermost_container_counts_as_a_level() -> None:
    """MAX_DEPTH + 1 array levels are refused even when the innermost is empty."""
    with pytest.raises(NestingError):
        to_plain(_nested_empty(MAX_DEPTH + 1))
    with pytest.raises(NestingError):
        to_json(_nested_empty(MAX_DEPTH + 1))


def test_max_depth_levels_with_empty_innermost_are_accepted() -> None:
    """MAX_DEPTH array levels, the innermost empty, pass both encoders."""
    value = _nested_empty(MAX_DEPTH)
    assert to_json(to_plain(value)) == to_json(value)


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1.0, -0.0, float("nan")], "b": (1, 2)},
        Invoice(id=2, amount=Decimal("0.1"), issued=datetime.date(2020, 1, 1)),
        {"when": datetime.datetime(2020, 1, 1), "id": uuid.UUID(int=5), "c": Color.RED},
        {1: {3, 2}, Color.BLUE: frozenset({"x"})},
        [Point(1.0, 2.0), b"\x00"],
        {"big": 10**40, "s": "\u2028\U0001f600"},
    ],
)
def test_to_plain_has_the_same_json(value: Any) -> None:
    """to_plain gives plain data whose JSON is the original's JSON."""
    plain = to_plain(value)
    assert to_json(plain) == to_json(value)
    _assert_plain(plain)


def _assert_plain(value: Any) -> None:
    if isinstance(value, dict):
        assert type(value) is dict
        for key, item in value.items():
            assert type(key) is str
            _assert_plain(item)
    elif isinstance(value, list):
        assert type(value) is list
        for item in value:
            _assert_plain(item)
    else:
        assert value is None or type(value) in (str, int, float, bool)


def test_to_plain_errors_name_paths() -> None:
    """to_plain raises the same errors, with paths, as to_json."""
    with pytest.raises(SerializationError) as caught:
        to_plain({"rows": [0, {"x": object()}]})
    assert caught.value.path == "$.rows[1].x"


FLOAT_FREE_VALUES = {
    "rows": [{"id": "INV-1", "amount": 120000, "paid": True, "note": None}] * 3,
    "nested": {"a": [{"b": [1, 2, {"c": "d"}]}], "e": {}},
    "an int beyond 64 bits": {"big": 2**70, "small": -(2**65)},
    "a lone surrogate": ["ok", "\ud800"],
    "non-ASCII": {"名前": "✅ paid", "emoji": "🧾"},
    "empty containers": [[], {}, [[]]],
}


@pytest.mark.parametrize("name", list(FLOAT_FREE_VALUES))
def test_float_free_json_is_to_json(name: str) -> None:
    """Without the float scan, data holding no float is written exactly as to_json writes it."""
    from fusion_core._write._json import write_json  # noqa: PLC0415 - private helper

    value = FLOAT_FREE_VALUES[name]
    try:
        expected = to_json(value)
    except SerializationError as exc:
        expected = f"error: {exc}"
    try:
        written = write_json(value, floats=False)[0]
    except SerializationError as exc:
        written = f"error: {exc}"
    assert written == expected
