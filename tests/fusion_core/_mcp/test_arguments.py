"""A call's arguments as the wire carries them, in process as over stdio.

The same test passing a set, a tuple, bytes, a date or an int key got the
objects themselves from a server in this process and their JSON from one
over stdio (a NaN became ``null`` there, silently). Every transport now
sends the JSON values, and a NaN or an infinity is refused naming its place.
"""

from __future__ import annotations

import datetime
import math
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, RootModel
from pydantic.dataclasses import dataclass as pydantic_dataclass

from fusion_core import FusionApp, Tool
from fusion_core._mcp._arguments import check_arguments, wire_arguments
from fusion_core._mcp._client_blocking import BlockingFusionClient

AS_THE_WIRE_CARRIES = [
    pytest.param({1, 2}, [1, 2], id="set"),
    pytest.param((1, "a"), [1, "a"], id="tuple"),
    pytest.param(b"ab", "ab", id="bytes"),
    pytest.param({1: "a"}, {"1": "a"}, id="int-key"),
    pytest.param(datetime.date(2024, 1, 2), "2024-01-02", id="date"),
    pytest.param(10**30, 10**30, id="big-int"),
    pytest.param(0.1, 0.1, id="float"),
]


@pytest.mark.parametrize(("value", "wire"), AS_THE_WIRE_CARRIES)
def test_arguments_are_the_values_a_server_reads(value: object, wire: object) -> None:
    """In process, through an in-memory SDK session, over the SDK's JSON: the same values."""
    assert wire_arguments({"x": value}) == {"x": wire}
    seen: list[Any] = []
    tool = Tool("t")

    @tool.action("echo")
    async def echo(x: object) -> dict[str, str]:
        seen.append(x)
        return {"ok": "yes"}

    with BlockingFusionClient.in_memory(FusionApp([tool])) as client:
        client.call("t", {"action": "echo", "x": value})
    assert seen == [wire]


class Point(BaseModel):
    x: float
    tags: list[float] = []


@pydantic_dataclass
class Span:
    width: float


class Weights(RootModel[list[float]]):
    pass


@pytest.mark.parametrize(
    ("arguments", "place"),
    [
        ({"x": math.nan}, "arguments['x']"),
        ({"x": [1, -math.inf]}, "arguments['x'][1]"),
        ({"x": {"y": {"z": math.inf}}}, "arguments['x']['y']['z']"),
        # pydantic writes a model's NaN as null whatever the call asks (ser_json_inf_nan):
        pytest.param({"p": Point(x=math.nan)}, "arguments['p']['x']", id="model"),
        pytest.param(
            {"p": [Point(x=1), Point(x=1, tags=[2, math.inf])]},
            "arguments['p'][1]['tags'][1]",
            id="model-in-a-list",
        ),
        pytest.param({"s": (Span(width=-math.inf),)}, "arguments['s'][0]['width']", id="dataclass"),
        pytest.param({"w": Weights([1.0, math.nan])}, "arguments['w'][1]", id="root-model"),
    ],
)
def test_a_nan_or_an_infinity_is_refused_naming_its_place(
    arguments: dict[str, Any], place: str
) -> None:
    """The wire writes them as null: refused by every path, with the place named."""
    for check in (wire_arguments, check_arguments):
        with pytest.raises(ValueError, match="NaN and the infinities are not JSON") as caught:
            check(arguments)
        assert str(caught.value).startswith(f"{place} is ")
    with (
        BlockingFusionClient.in_memory(FusionApp([Tool("t").action("a", dict)])) as client,
        pytest.raises(ValueError, match=re.escape(place)),
    ):
        client.call("t", arguments)


def test_a_value_json_cannot_hold_is_refused_naming_its_type() -> None:
    """An object pydantic cannot write, bytes that are not UTF-8: one clear error."""
    with pytest.raises(ValueError, match=r"the arguments are not JSON: .*object"):
        wire_arguments({"x": object()})
    with pytest.raises(ValueError, match=r"the arguments are not JSON: .*utf-8"):
        check_arguments({"x": b"\xff"})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


@given(st.dictionaries(st.text() | st.just("NaN"), JSON | st.just("-Infinity"), max_size=4))
def test_json_arguments_pass_unchanged_unless_infinite(arguments: dict[str, Any]) -> None:
    """JSON values are read back as they are; a string saying "NaN" is only a string."""
    if any(isinstance(leaf, float) and math.isinf(leaf) for leaf in _leaves(arguments)):
        with pytest.raises(ValueError, match="infinities"):
            wire_arguments(arguments)
        return
    assert wire_arguments(arguments) == arguments
    check_arguments(arguments)


@given(st.floats(), st.lists(st.floats(), max_size=4), st.booleans())
def test_a_model_is_refused_exactly_when_it_holds_a_nan_or_an_infinity(
    x: float, tags: list[float], listed: bool
) -> None:
    """Whatever floats a model holds, and wherever it sits, the check sees what JSON hid."""
    point = Point(x=x, tags=tags)
    arguments: dict[str, Any] = {"p": [None, point] if listed else point}
    if all(math.isfinite(value) for value in (x, *tags)):
        assert wire_arguments(arguments)["p"] == (
            [None, point.model_dump()] if listed else point.model_dump()
        )
        check_arguments(arguments)
        return
    for check in (wire_arguments, check_arguments):
        with pytest.raises(ValueError, match="NaN and the infinities are not JSON"):
            check(arguments)
