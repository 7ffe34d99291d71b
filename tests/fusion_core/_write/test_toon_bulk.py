"""The fast paths of the TOON encoder against its straightforward forms (differential).

``_toon_tokens`` encodes a column of one type (or of one type and ``None``) in bulk
and checks a column of strings for quoting in a few scans of the joined
column; ``toon_success`` skips the ``to_plain`` copy for plain data. Each
fast path has a plain oracle here: the token of each value on its own
(``_Encoder.scalar``) and ``encode_toon(to_plain(data))``.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import sys
from collections import defaultdict
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fusion_core import toon_success
from fusion_core._errors import FusionError, SerializationError
from fusion_core._write._json import to_plain
from fusion_core._write._numbers import MAX_INT_DIGITS
from fusion_core._write._toon import ToonOptions, _Encoder, encode_toon, encode_toon_data

DELIMITERS = st.sampled_from([",", "|", "\t"])

# Strings built from the characters that decide quoting: structure, every
# kind of space at either end, hyphens, digits and the literals' letters.
HOSTILE_CHARS = st.sampled_from(
    [*'ab -+.:"\\[]{},|\t\r\n#eE0123456789', "\xa0", "\u2003", "\ufeff", "\x0b", "é"]
)
HOSTILE_TEXT = (
    st.text(HOSTILE_CHARS, max_size=8)
    | st.sampled_from(["true", "false", "null", "1", "-1", "007", "1.5e+3", "1.e5", "", " "])
    | st.text(max_size=6).filter(lambda text: not any("\ud800" <= c <= "\udfff" for c in text))
)
FLOATS = st.floats() | st.sampled_from(
    [0.0, -0.0, 1.0, -4500.0, 0.1, 1e16, 1e21, 1.5e-6, 1e-7, 123456789.0, float("nan")]
)
INTS = st.integers() | st.sampled_from([0, -1, 2**63, -(2**64)])


def column_of(leaf: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    """Columns of one kind, of that kind and None, or mixed with booleans."""
    return (
        st.lists(leaf, min_size=1, max_size=12)
        | st.lists(leaf | st.none(), min_size=1, max_size=12)
        | st.lists(leaf | st.none() | st.booleans(), min_size=1, max_size=12)
    )


def encoder_for(delimiter: str) -> _Encoder:
    """An encoder with the default indent and no key folding."""
    return _Encoder(delimiter, 2, fold=False, flatten=float("inf"))


COLUMNS = (
    column_of(HOSTILE_TEXT)
    | column_of(FLOATS)
    | column_of(INTS)
    | column_of(st.booleans())
    | st.lists(st.none(), min_size=1, max_size=4)
)


@settings(max_examples=400, deadline=None)
@given(values=COLUMNS, delimiter=DELIMITERS)
@example(values=["a", None, "null", None], delimiter=",")
@example(values=[1.0, None, -0.0, -0.0, 2.5], delimiter=",")
@example(values=["2026-01-05", "10", "1.5"], delimiter="|")
@example(values=["ok ", "x"], delimiter=",")
@example(values=["a", ""], delimiter=",")
def test_column_tokens_equal_the_tokens_of_each_value(values: list[Any], delimiter: str) -> None:
    """A column converted in bulk gives exactly the token of each value on its own."""
    encoder = encoder_for(delimiter)
    expected = [encoder.scalar(value) for value in values]
    tokens = encoder.column(values, "$")
    assert tokens is not None
    assert list(tokens) == expected


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.fixed_dictionaries(
            {"id": HOSTILE_TEXT, "n": INTS, "x": FLOATS, "note": HOSTILE_TEXT | st.none()}
        ),
        min_size=1,
        max_size=8,
    ),
    delimiter=DELIMITERS,
)
def test_table_rows_equal_the_rows_cell_by_cell(rows: list[dict[str, Any]], delimiter: str) -> None:
    """A table's row lines are its cells' own tokens (fields in the first row's order)."""
    encoder = encoder_for(delimiter)
    table = encoder.table(rows, "$", "  ")
    assert table is not None
    # A quoted cell may hold an escaped line break, never a raw one.
    assert table[1].split("\n") == [
        "  " + delimiter.join(str(encoder.scalar(row[name])) for name in rows[0]) for row in rows
    ]


def test_rows_of_one_size_with_other_keys_are_list_items() -> None:
    """Rows of equal size but different keys are no table (the lookups are the check)."""
    rows = [{"a": 1, "b": 2}, {"a": 1, "c": 2}]
    assert encode_toon(rows) == "[2]:\n  - a: 1\n    b: 2\n  - a: 1\n    c: 2"


def test_dict_subclass_rows_are_not_changed_by_the_table_check() -> None:
    """A defaultdict row missing a field is not a table row, and gains no key."""
    first: defaultdict[str, int] = defaultdict(int, {"a": 1, "b": 2})
    second: defaultdict[str, int] = defaultdict(int, {"a": 1, "c": 2})
    assert encode_toon([first, second]).startswith("[2]:\n  - a: 1")
    assert dict(second) == {"a": 1, "c": 2}


def test_an_error_in_rows_that_are_no_table_is_found_in_document_order() -> None:
    """The first bad value in document order is reported, as before the table check."""
    rows = [{"a": 1, "b": object()}, {"a": object(), "c": 1}]
    with pytest.raises(SerializationError) as caught:
        encode_toon(rows)
    assert caught.value.path == "$[0].b"


# -- toon_success: no to_plain copy for plain data -----------------------------


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    LOW = 1


@dataclasses.dataclass
class Point:
    x: int
    y: float


PYTHON_LEAVES = (
    st.none()
    | st.booleans()
    | INTS
    | FLOATS
    | HOSTILE_TEXT
    | st.sampled_from(
        [
            Colour.RED,
            Level.LOW,
            Point(1, 2.0),
            datetime.date(2026, 1, 5),
            Decimal("1.10"),
            frozenset({2, 1}),
            b"\x00\xff",
            ("a", 1),
            object(),
            "\ud800",
        ]
    )
    # An int beyond the wire's digits (built: its repr would fail in a report).
    | st.builds(pow, st.just(10), st.just(MAX_INT_DIGITS + 1))
)
PYTHON_KEYS = HOSTILE_TEXT | st.sampled_from([1, Colour.RED, Level.LOW])
PYTHON_DATA = st.recursive(
    PYTHON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(PYTHON_KEYS, inner, max_size=4)
        | st.lists(st.fixed_dictionaries({"a": inner, "b": inner}), min_size=1, max_size=4)
    ),
    max_leaves=20,
)


def outcome(encode: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """("ok", text) or ("error", (type, message, path)) of one encoding."""
    try:
        return "ok", encode(*args, **kwargs)
    except FusionError as exc:
        return "error", (type(exc), str(exc), getattr(exc, "path", None))


def reference(data: Any, **options: Any) -> tuple[str, Any]:
    """The straightforward definition: ``encode_toon(to_plain(data))``."""
    try:
        plain = to_plain(data)
    except FusionError as exc:
        return "error", (type(exc), str(exc), getattr(exc, "path", None))
    return outcome(encode_toon, plain, ToonOptions(**options))


@settings(max_examples=300, deadline=None)
@given(data=PYTHON_DATA, delimiter=DELIMITERS, folding=st.sampled_from(["off", "safe"]))
@example(data={"when": datetime.date(2026, 1, 5), "n": 1}, delimiter="|", folding="off")
@example(data=[{"a": 1, "b": "\ud800"}], delimiter="|", folding="off")
@example(data={"a": {1: "x"}}, delimiter=",", folding="safe")
def test_encode_toon_data_equals_encode_toon_of_to_plain(
    data: Any, delimiter: str, folding: Any
) -> None:
    """Text and error (type, message, path) are those of encode_toon(to_plain(data))."""
    options = {"delimiter": delimiter, "key_folding": folding}
    assert outcome(encode_toon_data, data, ToonOptions(**options)) == reference(data, **options)


def test_toon_success_converts_what_is_not_plain() -> None:
    """Models, dates and int keys still encode through the conversion."""
    data = {"point": Point(1, 2.0), "on": datetime.date(2026, 1, 5), "by_id": {7: "x"}}
    text = toon_success(data).texts[0]
    assert text == 'point:\n  x: 1\n  y: 2\non: 2026-01-05\nby_id:\n  "7": x'


def test_the_wire_int_limit_holds_where_the_process_reads_longer_ints() -> None:
    """With a raised int_max_str_digits, an int beyond MAX_INT_DIGITS is still refused."""
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        with pytest.raises(SerializationError, match="digits") as caught:
            toon_success({"n": [1, 10**MAX_INT_DIGITS]})
    finally:
        sys.set_int_max_str_digits(previous)
    assert caught.value.path == "$.n[1]"
