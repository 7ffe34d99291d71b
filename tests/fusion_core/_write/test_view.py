"""Result shapes: one shape for validation fields and error details, wherever they come from."""

from __future__ import annotations

import copy
import pickle

import pytest

from fusion_core import (
    ErrorDetails,
    ErrorEnvelope,
    ValidationFailure,
    ValidationField,
    check,
    parse,
    tool_error,
    view_of,
)
from fusion_core._tools._pipeline import validation_error


def test_details_are_the_same_mapping_from_the_view_and_the_parser() -> None:
    """view_of() and parse() both give an ErrorDetails equal to the dict that was given."""
    built = tool_error("NOT_FOUND", "gone", details={"invoice_id": "INV-9", "n": 3})
    for envelope in (view_of(built).error, parse(built).view.error):
        assert envelope is not None
        assert isinstance(envelope.details, ErrorDetails)
        assert envelope.details == {"invoice_id": "INV-9", "n": "3"}
        assert envelope.details["invoice_id"] == "INV-9"
        assert list(envelope.details) == ["invoice_id", "n"]


def test_details_are_read_only() -> None:
    """No item or attribute of ErrorDetails can be changed."""
    details = ErrorDetails({"k": "v"})
    with pytest.raises(TypeError):
        details["k"] = "w"  # type: ignore[index]
    with pytest.raises(AttributeError):
        details.pairs = ()


@pytest.mark.parametrize(
    "given",
    [{"k": 1}, [("k",)], [(1, "v")], "kv"],
    ids=["int-value", "not-a-pair", "int-key", "str"],
)
def test_details_refuse_what_is_not_str_pairs(given: object) -> None:
    """A value that is not a str→str mapping or str pairs is a TypeError naming it."""
    with pytest.raises(TypeError, match="str keys with str values"):
        ErrorDetails(given)  # type: ignore[arg-type]


def test_envelope_accepts_pairs_and_mappings_alike() -> None:
    """ErrorEnvelope(details=pairs or mapping) stores one ErrorDetails; equal either way."""
    from_pairs = ErrorEnvelope("m", details=(("a", "1"),))  # type: ignore[arg-type]
    from_map = ErrorEnvelope("m", details={"a": "1"})  # type: ignore[arg-type]
    assert from_pairs == from_map
    assert isinstance(from_pairs.details, ErrorDetails)
    assert hash(from_pairs) == hash(from_map)


def test_details_survive_pickle_and_copy() -> None:
    """Pickling or copying keeps every pair, in order."""
    details = ErrorDetails([("b", "2"), ("a", "1")])
    for clone in (pickle.loads(pickle.dumps(details)), copy.deepcopy(details)):
        assert clone.pairs == details.pairs


def test_a_repeated_detail_key_loses_nothing_and_is_reported() -> None:
    """A foreign envelope repeating a key keeps both pairs; check() names the key."""
    text = (
        '<tool_error code="E">\n<message>m</message>\n<details>\n'
        '  <detail key="id">1</detail>\n  <detail key="id">2</detail>\n</details>\n</tool_error>'
    )
    wire = {"content": [{"type": "text", "text": text}], "isError": True}
    envelope = parse(wire).view.error
    assert envelope is not None
    assert envelope.details.pairs == (("id", "1"), ("id", "2"))
    assert envelope.details == {"id": "2"}
    assert [(v.rule, "'id'" in v.message) for v in check(wire)] == [("duplicate-detail", True)]


def test_validation_fields_are_objects_from_the_view_and_the_parser() -> None:
    """Both readings give ValidationField objects with .name and .message."""
    built = validation_error("billing/get", [("id", "Field required")])
    for failure in (view_of(built).validation, parse(built).view.validation):
        assert failure is not None
        assert failure.fields == (ValidationField("id", "Field required"),)
        assert failure.fields[0].name == "id"


def test_validation_failure_converts_pairs() -> None:
    """ValidationFailure(fields=pairs) holds ValidationField objects."""
    failure = ValidationFailure("a", (("x", "bad"),))  # type: ignore[arg-type]
    assert failure.fields == (ValidationField("x", "bad"),)
