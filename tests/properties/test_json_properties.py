"""Differential properties: orjson's fast path against the exact encoder."""

from __future__ import annotations

import datetime
import enum
import json
import math
import uuid
from decimal import Decimal
from typing import Any

import orjson
from hypothesis import example, given
from hypothesis import strategies as st

from fusion_core import SerializationError, to_json, to_plain
from fusion_core._write._json import _exact, _fast, _plain, is_canonical_json, write_json


class Tone(enum.Enum):
    LOW = "low"
    ONE = 1
    HALF = 0.5


_texts = st.text(
    st.characters(codec=None, categories=None)
    | st.sampled_from(["\ud800", "\udfff", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", '"', "\\"])
)
_floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [-0.0, 1e16, 1e21, 1e-7, 1.5e-6, 5e-324, 1.7976931348623157e308, 1e20, 1e-6]
)
_ints = (
    st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.sampled_from([2**63, 2**64, -(2**63) - 1, 2**64 - 1, -(2**63)])
)
_leaves = (
    st.none()
    | st.booleans()
    | _ints
    | _floats
    | _texts
    | st.datetimes()
    | st.dates()
    | st.times()
    | st.decimals(allow_nan=False)
    | st.uuids()
    | st.sampled_from(list(Tone))
    | st.frozensets(st.integers(), max_size=4)
    | st.sets(st.text(max_size=3), max_size=4)
)
_keys = _texts | st.integers(min_value=-(10**20), max_value=10**20)
_values = st.recursive(
    _leaves,
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(_keys, children, max_size=4)
    ),
    max_leaves=25,
)


@given(_values)
@example([1.0, -0.0, 1e16, 1e21, 1e-7, float("nan"), float("-inf")])
@example({"a": "\ud800", "b": [10**30]})
@example({"x": "1.0", "y": "1e+16", "z": "-0.0"})
@example(["end.0", "ends with -0", "\n1e+21"])
@example({"k.0": 1.0, "e+5": -0.0})
def test_fast_path_equals_exact_path(value: Any) -> None:
    """Whenever orjson's fast path answers, it gives the exact encoder's bytes."""
    fast = _fast(value)
    if fast is not None:
        assert fast == _exact(value, "$")


@given(_values)
@example([1.0, -0.0, 1e16, 1e21, 1e-7, 5e-324])  # JavaScript's forms read back as ints
@example({"big": 2**64, "small": 1})  # the exact encoder: never vouched for
@example({"a": "\ud800"})
@example("text")
def test_what_orjson_wrote_is_canonical_and_read_exactly(value: Any) -> None:
    """write_json vouches for a text only when the reader's own check would accept it.

    The reader skips its canonical check for a data block orjson wrote
    (``write_json``'s second value): that text must read back, with orjson,
    to a value whose ``to_json`` is the text, and to the value the exact
    reader (the stdlib, exact for any int) gives.
    """
    try:
        text, orjson_wrote = write_json(value)
    except SerializationError:
        return
    assert text == to_json(value)
    if not orjson_wrote:
        return
    read = orjson.loads(text)
    assert to_json(read) == text
    assert is_canonical_json(read, text.encode()) is True
    assert read == json.loads(text)


@given(_values)
def test_to_json_is_valid_json_that_reads_back_as_to_plain(value: Any) -> None:
    """to_json is well-formed JSON whose meaning is to_plain's data (NaN as null).

    to_plain feeds ``structuredContent``, which the MCP SDK must encode: it
    refuses lone surrogates (JSON text escapes them, as ``JSON.stringify``).
    """
    text = to_json(value)
    try:
        plain = to_plain(value)
    except SerializationError:
        assert _has_lone_surrogate(value)
        return
    assert _read(text) == _jsonish(plain)
    assert to_json(plain) == text


def _has_lone_surrogate(value: Any) -> bool:
    """Whether any string (key or value) in ``value`` holds a lone surrogate."""
    if isinstance(value, str):
        return any("\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_has_lone_surrogate(item) for item in value)
    return False


def _read(text: str) -> Any:
    """JSON text as data, every number an exact Decimal."""
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


def _jsonish(value: Any) -> Any:
    """Plain data as :func:`_read` gives it back: non-finite floats are null."""
    if isinstance(value, dict):
        return {key: _jsonish(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_jsonish(item) for item in value]
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    return value


@given(st.floats())
def test_float_token_reads_back(value: float) -> None:
    """A float's JSON token reads back as the float (non-finite as null)."""
    text = to_json([value])
    assert _read(text) == [Decimal(repr(value)) if math.isfinite(value) else None]


def test_supported_leaf_types_cover_the_strategies() -> None:
    """Each documented leaf type serializes to a JSON string or number."""
    samples: list[Any] = [
        datetime.datetime(2020, 1, 1),
        Decimal("1.5"),
        uuid.UUID(int=1),
        Tone.LOW,
        {2, 1},
    ]
    assert [json.loads(to_json(sample)) for sample in samples] == [
        "2020-01-01T00:00:00",
        "1.5",
        "00000000-0000-0000-0000-000000000001",
        "low",
        [1, 2],
    ]


def _plain_outcome(convert: Any, value: Any) -> str:
    """``repr`` of the conversion's result, or of the refusal and the path it names."""
    try:
        return repr(convert(value))
    except SerializationError as error:
        return f"SerializationError at {error.path}"


@given(_values)
@example({"\ud800": None})
@example(["ok", {"k": "\udfff"}])
def test_to_plain_fast_path_equals_the_exact_conversion(value: Any) -> None:
    """The orjson round trip of to_plain gives what the exact conversion gives.

    Both refuse a lone surrogate (in a key or a value) at the same path.
    """
    assert _plain_outcome(to_plain, value) == _plain_outcome(lambda v: _plain(v, "$"), value)
