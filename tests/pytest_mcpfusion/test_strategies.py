"""The public strategies keep their promises: valid is accepted, invalid is refused."""

from __future__ import annotations

import ast
import enum
import importlib
import importlib.util
import inspect
import json
import re
import types
from datetime import date, datetime, time, timedelta
from functools import partial
from ipaddress import IPv4Address
from typing import Annotated, Any, Literal
from uuid import UUID

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from pydantic import UUID4, AnyUrl, BaseModel, ConfigDict, Field, ValidationError

import fusion_core as fc
from fusion_core import FusionApp, Tool
from pytest_mcpfusion import _jsonschema, _patterns, strategies
from pytest_mcpfusion.strategies import (
    action_arguments,
    arguments,
    hostile_text,
    invalid_arguments,
    json_values,
    responses,
    tool_calls,
    ui_blocks,
)

FAST = settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow], deadline=None)
_JSONSCHEMA: Any = (
    importlib.import_module("jsonschema") if importlib.util.find_spec("jsonschema") else None
)


def _schema_accepts(schema: dict[str, Any], value: Any) -> bool | None:
    """What jsonschema (when installed) says of ``value``; None without it."""
    if _JSONSCHEMA is None:
        return None
    validator = _JSONSCHEMA.Draft202012Validator
    return bool(validator(schema, format_checker=validator.FORMAT_CHECKER).is_valid(value))


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Scalars(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int = Field(ge=0, lt=100)
    ratio: float = Field(gt=-1.5, le=2.5)
    step: float = Field(multiple_of=0.25, ge=-10, le=10)
    even: int = Field(multiple_of=2, gt=-7)
    name: str = Field(min_length=2, max_length=8)
    code: Annotated[str, Field(pattern=r"^[A-Z]{2}-\d{3}$")]
    mode: Literal["fast", "slow"] = "fast"
    color: Color
    flag: bool
    note: str | None = None
    level: int | None = Field(default=None, ge=1, le=5)


class Formats(BaseModel):
    model_config = ConfigDict(extra="forbid")
    day: date
    at: datetime
    clock: time | None = None
    wait: timedelta | None = None
    ident: UUID
    token: UUID4 | None = None
    home: AnyUrl | None = None
    ip: IPv4Address | None = None


class Collections(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ids: list[int] = Field(min_length=1, max_length=4)
    tags: set[str] = Field(default_factory=set, max_length=3)
    pair: tuple[int, str]
    many: tuple[float, ...] = ()
    scores: dict[str, float] = Field(default_factory=dict)
    anything: Any = None


class Node(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: int
    children: list[Node] = Field(default_factory=list, max_length=2)


class Cat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["cat"]
    lives: int = Field(ge=1, le=9)


class Dog(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["dog"]
    good: bool = True


class Nested(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]
    tree: Node | None = None
    owner: Cat | Dog | None = None


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: int


MODELS = [Scalars, Formats, Collections, Node, Nested]


@pytest.mark.parametrize("model", [*MODELS, Open], ids=lambda m: m.__name__)
@FAST
@given(data=st.data())
def test_arguments_validate(model: type[BaseModel], data: st.DataObject) -> None:
    """Valid arguments pass the pydantic model and the JSON Schema it produced."""
    schema = model.model_json_schema()
    args = data.draw(arguments(schema))
    model.model_validate(args)
    assert _schema_accepts(schema, args) in (True, None)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
@FAST
@given(data=st.data())
def test_invalid_arguments_are_rejected(model: type[BaseModel], data: st.DataObject) -> None:
    """Invalid arguments fail the pydantic model (extra="forbid") and its JSON Schema."""
    schema = model.model_json_schema()
    args = data.draw(invalid_arguments(schema))
    with pytest.raises(ValidationError):
        model.model_validate(args)
    assert _schema_accepts(schema, args) in (False, None)


def test_invalid_arguments_break_each_rule() -> None:
    """Missing, mistyped, out-of-bounds and unknown keys are all drawn."""
    schema = Scalars.model_json_schema()
    strategy = invalid_arguments(schema)
    fast = settings(max_examples=2000, database=None, phases=[Phase.generate])
    assert "count" not in find(strategy, lambda a: "count" not in a, settings=fast)
    # Mistyped: any value but a string for the string field (pinning one such
    # value, an empty list, failed now and then under xdist's module set).
    mistyped = find(strategy, lambda a: not isinstance(a.get("name", ""), str), settings=fast)
    assert not isinstance(mistyped["name"], str)
    high = find(
        strategy, lambda a: isinstance(a.get("count"), int) and a["count"] > 99, settings=fast
    )
    assert high["count"] >= 100
    assert set(find(strategy, lambda a: bool(set(a) - set(schema["properties"])), settings=fast))


@given(st.data())
def test_what_a_violation_drops_or_replaces_is_never_drawn(data: st.DataObject) -> None:
    """A required property nothing satisfies still has its invalid calls: missing, mistyped.

    Its value was drawn and then thrown away, which no draw can (``enum: []``),
    so no invalid argument could be drawn at all; an extra key is never the
    dropped name, and the replaced name comes first (a mistyped or unlisted value).
    """
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "enum": []}, "b": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": {"type": "integer"},
    }
    args = data.draw(invalid_arguments(schema))
    assert _schema_accepts(schema, args) in (False, None)
    if "a" in args:
        assert next(iter(args)) == "a"


def test_optional_and_extra_keys_are_drawn() -> None:
    """Optional properties appear, and extra keys where additionalProperties allows them."""
    fast = settings(max_examples=2000, database=None, phases=[Phase.generate])
    scalars = arguments(Scalars.model_json_schema())
    assert "note" in find(scalars, lambda a: "note" in a, settings=fast)
    extra = find(arguments(Open.model_json_schema()), lambda a: len(a) > 1, settings=fast)
    assert set(extra) - {"id"}


def _nested(leaf: dict[str, Any], depth: int) -> dict[str, Any]:
    for _ in range(depth):
        leaf = {"type": "object", "properties": {"a": leaf}}
    return leaf


def _listed(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "object", "properties": {"x": {"not": {}}}}, "'not' at #/properties/x"),
        ({"type": "object", "patternProperties": {"^a": {}}}, "'patternProperties' at #"),
        ({"type": "object", "properties": {"x": {"$ref": "#/$defs/Gone"}}}, "points to nothing"),
        ({"type": "object", "properties": {"x": {"$ref": "http://x/y"}}}, "only local references"),
        ({"type": "object", "properties": {"x": {"type": "file"}}}, "unknown JSON type 'file'"),
        ({"type": "array"}, "tool arguments are an object"),
        # Hostile shapes a server's tools/list may carry: each was a RecursionError.
        (_nested({"type": "string"}, 3000), "the schema nests more than 64 levels deep"),
        (
            {"type": "object", "properties": {"x": {"enum": [_listed(1, 3000)]}}},
            "#/properties/x/enum: a value nested more than 64 levels deep",
        ),
        (
            {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}},
            "'#/$defs/A' refers back to itself through $ref and allOf alone",
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}},
             "$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}}},
            "'#/$defs/A' refers back to itself",
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}},
             "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}},
            "refers back to itself",
        ),
    ],
)  # fmt: skip
def test_unsupported_schemas_raise(schema: dict[str, Any], message: str) -> None:
    """A schema outside the subset raises ValueError naming the keyword and place.

    For valid and invalid arguments alike, and never with a pointer longer
    than a line: a 3000-deep schema's pointer is cut.
    """
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        arguments(schema)
    assert len(str(raised.value)) < 300
    if message != "tool arguments are an object":
        with pytest.raises(ValueError, match=re.escape(message)):
            action_arguments({"name": "t", "inputSchema": schema}, None, valid=False)


def test_a_recursive_model_is_not_a_cycle() -> None:
    """A model that contains itself through a property draws (its $ref is deferred)."""
    schema = {
        "type": "object", "required": ["n"], "properties": {"n": {"$ref": "#/$defs/N"}},
        "$defs": {"N": {"type": "object", "properties": {
            "kids": {"type": "array", "items": {"$ref": "#/$defs/N"}}}}},
    }  # fmt: skip
    drawn = find(arguments(schema), lambda a: bool(a["n"].get("kids")))
    assert isinstance(drawn["n"]["kids"], list)


def test_invalid_arguments_need_something_to_break() -> None:
    """A schema that accepts every object has no invalid arguments."""
    with pytest.raises(ValueError, match="accepts every object"):
        invalid_arguments({"type": "object", "properties": {"x": {}}})


def test_harmless_keywords_are_ignored() -> None:
    """Annotations and unknown vendor keywords do not stop generation."""
    integer = {"type": "integer", "examples": [1], "deprecated": True}
    schema = {"type": "object", "x-vendor": 1, "properties": {"a": integer}, "required": ["a"]}
    assert isinstance(find(arguments(schema), lambda a: True)["a"], int)


# ----------------------------------------------------------------- tool calls


class Common(BaseModel):
    tenant: str = Field(min_length=1)


class Filters(BaseModel):
    status: Literal["open", "paid"] | None = None
    limit: int = Field(10, ge=1, le=100)


class NewInvoice(BaseModel):
    customer: str = Field(min_length=1, max_length=20)
    amount: float = Field(gt=0)
    lines: list[str] = Field(default_factory=list, max_length=3)


def _create(params: NewInvoice) -> dict[str, Any]:
    return {"created": params.customer}


def _nothing() -> list[Any]:
    return []


def _invoices(name: str = "invoices", discriminator: str = "action") -> Tool:
    tool = Tool(name, "Invoices", common=Common, discriminator=discriminator).enable_select()

    def get(number: int, expand: bool = False) -> dict[str, Any]:
        return {"number": number, "expand": expand}

    def void(number: int, reason: str = "") -> dict[str, Any]:
        return {"voided": number, "reason": reason}

    tool.action("list", lambda p: {"filters": p.model_dump()}, params=Filters, read_only=True)
    tool.action("get", get, read_only=True)
    tool.action("create", _create, params=NewInvoice)
    tool.action("void", void, destructive=True)
    return tool


def _users() -> Tool:
    tool = Tool("admin", "Administration", discriminator="op").toon_description()
    users = tool.group("users")

    def invite(email: str, role: Literal["member", "admin"] = "member") -> dict[str, str]:
        return {"email": email, "role": role}

    users.action("list", _nothing)
    users.action("invite", invite)
    return tool


APP = FusionApp([_invoices(), _users()])
DEFINITIONS = {definition["name"]: definition for definition in APP.definitions()}


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
@FAST
@given(data=st.data())
def test_valid_tool_calls_succeed(name: str, data: st.DataObject) -> None:
    """Valid calls pass the app's own validation and reach the handler."""
    tool, args = data.draw(tool_calls(DEFINITIONS[name]))
    assert tool == name
    response = APP.call_sync(tool, args)
    assert not response.is_error, response.texts


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
@FAST
@given(data=st.data())
def test_invalid_tool_calls_get_an_envelope(name: str, data: st.DataObject) -> None:
    """Invalid calls are refused with an error envelope, never run."""
    tool, args = data.draw(tool_calls(DEFINITIONS[name], valid=False))
    response = APP.call_sync(tool, args)
    assert response.is_error, args
    assert fc.parse(response).view.error is not None or "validation_error" in response.texts[0]


def _is_action(key: str, call: tuple[str, dict[str, Any]]) -> bool:
    return bool(call[1]["action"] == key)


def test_tool_calls_draw_every_action_first() -> None:
    """Every action is drawn, and the discriminator comes first."""
    strategy = tool_calls(DEFINITIONS["invoices"])
    fast = settings(database=None, phases=[Phase.generate])
    for key in ("list", "get", "create", "void"):
        _, args = find(strategy, partial(_is_action, key), settings=fast)
        assert next(iter(args)) == "action"
    _, args = find(tool_calls(DEFINITIONS["admin"]), lambda call: call[1]["op"] == "users.invite")
    assert "email" in args


def _without_notes(definition: dict[str, Any]) -> dict[str, Any]:
    """The definition with every property's ``Required for:``/``For:`` note removed."""
    copied = json.loads(json.dumps(definition))
    for prop in copied["inputSchema"]["properties"].values():
        prop.pop("description", None)
    return dict(copied)


@FAST
@given(data=st.data())
def test_workflow_lines_are_the_fallback(data: st.DataObject) -> None:
    """Without property notes, the description's Requires: lines place the parameters."""
    tool = Tool("orders", "Orders")
    tool.action("get", lambda order_id: order_id)
    tool.action("ship", lambda carrier, weight: carrier)
    app = FusionApp([tool])
    definition = _without_notes(app.definitions()[0])
    assert "Requires: order_id" in definition["description"]
    name, args = data.draw(tool_calls(definition))
    assert not app.call_sync(name, args).is_error


@FAST
@given(data=st.data())
def test_tools_without_discriminator_use_the_whole_schema(data: st.DataObject) -> None:
    """A plain MCP tool's arguments come from its inputSchema as a whole."""
    definition = {"name": "plain", "inputSchema": NewInvoice.model_json_schema()}
    name, args = data.draw(tool_calls(definition))
    assert name == "plain"
    NewInvoice.model_validate(args)
    _, bad = data.draw(tool_calls(definition, valid=False))
    with pytest.raises(ValidationError):
        NewInvoice.model_validate(bad)


# ------------------------------------------------------------------ responses


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(responses())
def test_responses_are_valid_wire(response: fc.ToolResponse) -> None:
    """Every response passes check() and parses back to its view."""
    assert fc.check(response) == []
    assert fc.parse(response).view == fc.view_of(response)


@FAST
@given(ui_blocks())
def test_ui_blocks_round_trip(block: fc.UiBlock) -> None:
    """Every UI block goes on the wire and reads back unchanged."""
    response = fc.response({"ok": True}).ui_block(block).build()
    assert fc.parse(response).view.ui_blocks == (block,)


@FAST
@given(json_values(surrogates=True))
def test_json_values_are_json(value: Any) -> None:
    """JSON values survive a JSON round trip."""
    assert json.loads(json.dumps(value)) == value


@FAST
@given(hostile_text())
def test_hostile_text_is_valid_unicode_by_default(text: str) -> None:
    """Without surrogates=True, hostile text can be verbatim wire text."""
    assert text.encode("utf-8").decode("utf-8") == text


def _imports_of(module: types.ModuleType) -> set[str]:
    """The modules a module's source imports (absolute names; relative ones start with a dot)."""
    nodes = list(ast.walk(ast.parse(inspect.getsource(module))))
    imported = {a.name for node in nodes if isinstance(node, ast.Import) for a in node.names}
    imported |= {
        "." * node.level + (node.module or "") for node in nodes if isinstance(node, ast.ImportFrom)
    }
    return imported


def test_strategies_never_import_pytest() -> None:
    """The strategies module and its JSON Schema engine import neither pytest nor the plugin.

    Only the engine itself (``_jsonschema``) may be imported from the plugin's package,
    and the engine only its pattern strings (``_patterns``), which import nothing of ours.
    """
    imported = _imports_of(strategies)
    assert {"hypothesis", "fusion_core"} <= {name.split(".")[0] for name in imported}
    plugin_side = {name for name in imported if "pytest" in name or name.startswith(".")}
    assert plugin_side == {"pytest_mcpfusion._jsonschema"}
    engine_side = {name for name in _imports_of(_jsonschema) if "pytest" in name or name[:1] == "."}
    # its one way back, for json_values; and its pattern strings
    assert engine_side <= {"pytest_mcpfusion.strategies", "pytest_mcpfusion._patterns"}
    assert not {name for name in _imports_of(_patterns) if "pytest" in name or name[:1] == "."}


@given(
    data=st.data(),
    schema=st.sampled_from(
        [
            {"type": "integer"},
            {"type": "number"},
            {"type": "string"},
            {"type": "integer", "minimum": 5},
            {"type": "integer", "exclusiveMaximum": -(10**9)},
            {"type": "integer", "multipleOf": 7},
            {"type": "string", "minLength": 3},
            {"type": "array", "items": {"type": "integer"}},
        ]
    ),
    valid=st.booleans(),
)
def test_unbounded_schemas_draw_sizes_a_server_can_answer(
    data: st.DataObject, schema: dict[str, Any], valid: bool
) -> None:
    """Where a schema sets no bound, numbers and strings stay small (valid or not)."""
    from pytest_mcpfusion._jsonschema import SIZE_BOUND, TEXT_BOUND  # noqa: PLC0415

    definition = {"type": "object", "properties": {"n": schema}, "required": ["n"]}
    draw = strategies.arguments if valid else strategies.invalid_arguments
    strategy = draw(definition)
    value = data.draw(strategy).get("n")
    # Below an exclusive maximum E the highest integer is E - 1, and the strategy
    # draws within 2 * SIZE_BOUND of that: |E| + 1 + 2 * SIZE_BOUND at most.
    floor = abs(schema.get("exclusiveMaximum", 0)) + 1 + 2 * SIZE_BOUND
    for leaf in value if isinstance(value, list) else [value]:
        if isinstance(leaf, (int, float)) and not isinstance(leaf, bool):
            assert abs(leaf) <= max(floor, 7 * SIZE_BOUND + 1)
        if isinstance(leaf, str):
            assert len(leaf) <= TEXT_BOUND + schema.get("minLength", 0)
