"""``Schema.admits``: the id check of reused ids agrees with ``jsonschema`` on every id schema."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from pytest_mcpfusion._jsonschema import Outside, Schema, violations

# Parameter schemas ids meet, as pydantic writes them and as hand-written servers do.
ID_SCHEMAS: list[dict[str, Any]] = [
    {"type": "string"},
    {"type": "string", "pattern": "^INV-\\d{3,}$"},
    {"type": "string", "pattern": "C-"},  # a search, not a full match
    {"type": "string", "minLength": 3, "maxLength": 6},
    {"type": "string", "enum": ["INV-001", "INV-002"]},
    {"const": "INV-001"},
    {"enum": [1, "1", True]},
    {"anyOf": [{"type": "string", "pattern": "^C-"}, {"type": "null"}], "default": None},
    {"oneOf": [{"type": "string", "pattern": "^A"}, {"type": "string", "pattern": "B$"}]},
    {"allOf": [{"type": "string"}, {"maxLength": 5}]},
    {"$ref": "#/$defs/InvoiceId"},
    {"type": "integer", "minimum": 1, "maximum": 500},
    {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
    {"type": "number", "multipleOf": 0.5},
    {"type": "integer", "multipleOf": 3},
    {"type": ["string", "integer"]},
    {"format": "uuid"},  # an annotation, as jsonschema's default reads it
    {},
    {"type": "boolean"},
]
DEFS = {"InvoiceId": {"type": "string", "pattern": "^INV-[0-9]+$"}}

ids = st.one_of(
    st.integers(-20, 600),
    st.sampled_from(["INV-001", "INV-002", "INV-12", "C-1", "AB", "A", "B", "1", "", "xC-9"]),
    st.text(max_size=8),
)


@pytest.mark.parametrize("prop", ID_SCHEMAS, ids=lambda prop: str(prop)[:40])
@given(value=ids)
def test_admits_agrees_with_jsonschema(prop: dict[str, Any], value: str | int) -> None:
    """Whatever the id, the answer is jsonschema's for the same parameter schema."""
    root = {"type": "object", "properties": {"p": prop}, "$defs": DEFS}
    expected = Draft202012Validator({**prop, "$defs": DEFS}).is_valid(value)
    assert Schema(root).admits(value, prop) is expected


@pytest.mark.parametrize(
    "prop",
    [
        {"not": {"type": "string"}},
        {"type": "string", "if": {"minLength": 1}, "then": {"pattern": "^x"}},
        {"type": "string", "pattern": "("},  # a pattern that does not compile
        {"type": "integer", "minimum": "one"},  # a bound that is not a number
    ],
)
def test_what_it_cannot_read_refuses(prop: dict[str, Any]) -> None:
    """Keywords outside the subset, broken patterns and bounds: no id is offered."""
    assert Schema({"type": "object"}).admits("x", prop) is False
    assert Schema({"type": "object"}).admits(1, prop) is False


@given(st.data())
def test_outside_keeps_what_is_outside_and_moves_what_is_not(data: st.DataObject) -> None:
    """``Outside(taken)``: a value outside is kept; one inside becomes a near miss outside."""
    taken = data.draw(st.sets(st.text(max_size=2) | st.integers(-3, 3), max_size=6))
    value = data.draw(st.text(max_size=2) | st.integers(-3, 3) | st.sampled_from([*taken, ""]))
    moved = Outside(taken)(value)
    assert moved not in taken
    if value not in taken:
        assert moved == value
    elif isinstance(value, str):
        assert moved.startswith(value)
        assert set(moved[len(value) :]) == {"_"}
    else:
        assert moved > value


def test_no_predicate_is_read_as_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hypothesis reads no source for what the schema reader draws through: a map, a filter object.

    A ``FilteredStrategy`` is validated again at each draw (its re-initialization
    drops its "validated" mark, hypothesis 6.170.17), so a lambda's source was
    read and parsed for every draw of an unknown key.
    """
    import types  # noqa: PLC0415

    from hypothesis.internal import filtering  # noqa: PLC0415

    read: list[object] = []

    def no_source(predicate: object) -> str:
        read.append(predicate)  # hypothesis swallows what its readers raise
        raise OSError("no source")

    # Only the filter analysis's own readers (hypothesis reads the test's source too).
    monkeypatch.setattr(filtering, "inspect", types.SimpleNamespace(getsource=no_source))
    monkeypatch.setattr(filtering, "lambda_description", no_source)
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "exclusiveMinimum": 0}, "e": {"enum": ["a", "b"]}},
        "additionalProperties": False,
    }
    root = Schema(schema)
    calls = st.one_of(violations(root, schema)) | root.objects(schema, "#")

    @given(calls)
    def draw(arguments: dict[str, Any]) -> None:
        assert isinstance(arguments, dict)

    draw()
    assert read == []
