"""A refusal's field paths name what the input schema declares, never a key the caller sent.

pydantic's locations hold a ``dict`` argument's keys as they were sent
(``meta.sk-live-...``): the integrations' ``<validation_error>`` promises no
value sent, so :func:`declared_path` walks the location along the published
input schema and writes every undeclared part as ``*``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError, validate_call

from fusion_core._mcp._field_paths import declared_path
from fusion_core._tools._pipeline import field_problems


class Query(BaseModel):
    status: int


class Arguments(BaseModel):
    meta: dict[str, int] = {}
    nested: list[dict[str, Query]] = []
    maybe: dict[str, int] | None = None


SCHEMA = Arguments.model_json_schema()
DECLARED = {"meta", "nested", "maybe", "status", "[key]"}


def _paths(arguments: dict[str, Any]) -> list[str]:
    try:
        Arguments.model_validate(arguments)
    except ValidationError as exc:
        return [
            name
            for name, _ in field_problems(
                exc, values=False, path=lambda loc: declared_path(loc, SCHEMA)
            )
        ]
    return []


@given(st.text(min_size=1), st.sampled_from(["meta", "nested", "maybe"]))
def test_no_key_sent_is_named_whatever_it_is(key: str, where: str) -> None:
    """Any key, in any mapping of the arguments: the paths hold declared names, positions, ``*``."""
    shapes: dict[str, dict[str, Any]] = {
        "meta": {"meta": {key: "not a number"}},
        "nested": {"nested": [{key: {"status": "x"}}]},
        "maybe": {"maybe": {key: []}},
    }
    arguments = shapes[where]
    paths = _paths(arguments)
    assert paths, arguments
    for path in paths:
        for part in path.split("."):
            assert part in DECLARED or part == "*" or part.isdigit(), (key, path)


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        ((), "(root)"),
        (("meta", "secret"), "meta.*"),
        (("nested", 0, "secret", "status"), "nested.0.*.status"),
        (("maybe", "secret"), "maybe.*"),
        (("unknown",), "*"),
    ],
)
def test_declared_path_table(loc: tuple[int | str, ...], expected: str) -> None:
    """Each construct the walk follows: properties, items, optional, a mapping, undeclared."""
    assert declared_path(loc, SCHEMA) == expected


def test_a_schema_that_cannot_be_walked_shows_positions_only() -> None:
    """No schema, a ``$ref`` cycle, a missing definition: names become ``*``, never an error."""
    cycle = {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}
    all_of = {"$ref": "#/$defs/a", "$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}}
    any_of = {"$ref": "#/$defs/a", "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}}
    missing = {"$ref": "#/$defs/nowhere"}
    shapes = (None, cycle, all_of, any_of, missing, {"properties": "not a mapping"}, {"allOf": 3})
    for schema in shapes:
        assert declared_path(("x", 3, "y"), schema) == "*.3.*"


KEYWORDS = st.sampled_from(
    ["properties", "items", "anyOf", "oneOf", "allOf", "additionalProperties", "$ref", "title"]
)
NAMES = st.text(st.characters(blacklist_characters="."), min_size=1, max_size=4)
SCHEMAS = st.recursive(
    st.none() | st.booleans() | NAMES | st.just("#/$defs/a"),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(KEYWORDS | NAMES, inner, max_size=4)
    ),
    max_leaves=12,
)


@given(SCHEMAS, st.lists(st.integers(-2, 5) | NAMES, max_size=6))
def test_any_schema_and_location_give_a_path_never_an_error(
    schema: Any, loc: list[int | str]
) -> None:
    """Hostile or broken schemas ($ref cycles through any keyword): a path, ``*`` where unsure.

    Each part of the location is in its place: a position as written, a name as
    sent or ``*``.
    """
    document = {"$defs": {"a": schema}, "$ref": "#/$defs/a"} if isinstance(schema, dict) else schema
    path = declared_path(tuple(loc), document)
    if not loc:
        assert path == "(root)"
        return
    parts = path.split(".")
    assert len(parts) == len(loc), (loc, path)
    for part, sent in zip(parts, loc, strict=True):
        assert part == str(sent) if isinstance(sent, int) else part in (sent, "*")


def _lookup(ticket: int, query: Query | None = None) -> None:
    """A tool's function: FastMCP validates its arguments as pydantic's validate_call does."""


_LOOKUP: Any = validate_call(_lookup)
_LOOKUP_SCHEMA = {
    "type": "object",
    "properties": {"ticket": {"type": "integer"}, "query": Query.model_json_schema()},
    "additionalProperties": False,
}


@given(
    st.dictionaries(
        st.text(min_size=1).filter(lambda key: key not in {"ticket", "query"}),
        st.text(),
        min_size=1,
        max_size=4,
    )
)
def test_unknown_arguments_are_named_as_sent_and_their_values_never(extra: dict[str, str]) -> None:
    """An argument name the function lacks is listed as sent, in one ``(root)`` field; no value.

    pydantic's ``unexpected_keyword_argument`` (a function's arguments) as its
    ``extra_forbidden`` (a model's): the caller needs the names to fix the call.
    """
    sent = {"ticket": 1, **{key: f"value-{index}" for index, key in enumerate(extra)}}
    with pytest.raises(ValidationError) as caught:
        _LOOKUP(**sent)
    problems = field_problems(
        caught.value, values=False, path=lambda loc: declared_path(loc, _LOOKUP_SCHEMA)
    )
    names = ", ".join(f'"{key}"' for key in extra)
    plural = "s" if len(extra) > 1 else ""
    expected = f"Unrecognized key{plural}: {names}. Remove them or correct their spelling."
    assert problems == [("(root)", expected)]
    assert not any("value-" in message for _, message in problems)
