"""The merged input schema: grown one action at a time, equal to the full merge.

A tool checks each new action against a :class:`PropertyMerge` of the actions
so far instead of merging every action again (that was quadratic). The oracle
here is the full merge as it was written before: a tool grown action by action,
with refused actions, groups, merged tools and a reassigned ``common`` between
them, must publish exactly its result and refuse with exactly its messages.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field, create_model

from fusion_core import FusionApp, SchemaConflictError
from fusion_core._tools import _input_schema
from fusion_core._tools._definitions import usage_note
from fusion_core._tools._input_schema import compatible, model_schema
from fusion_core._tools._tool import Group, Tool


def _full_merge(
    common: type[BaseModel] | None, actions: Sequence[tuple[str, type[BaseModel] | None]], tool: str
) -> tuple[dict[str, Any], list[str]]:
    """``merge_properties`` before ``PropertyMerge``, verbatim: every action, every time."""
    owner = f"tool {tool!r}: " if tool else ""
    keys = [key for key, _ in actions]
    properties: dict[str, Any] = {}
    used: dict[str, tuple[list[str], list[str]]] = {}
    common_required: set[str] = set()
    always: list[str] = []
    if common is not None:
        schema = model_schema(common, f"{owner}common parameters")
        common_required = set(schema.get("required", ()))
        for name, prop in schema.get("properties", {}).items():
            properties[name] = prop
            if name in common_required:
                always.append(name)
            used[name] = (list(keys), list(keys) if name in common_required else [])
    for key, params in actions:
        if params is None:
            continue
        schema = model_schema(params, f"{owner}action {key!r}")
        required = set(schema.get("required", ()))
        for name, prop in schema.get("properties", {}).items():
            existing = properties.get(name)
            properties[name] = prop if existing is None else compatible(existing, prop, name, key)
            users, required_in = used.setdefault(name, ([], []))
            users.append(key)
            if name in required:
                required_in.append(key)
    for name, (users, required_in) in used.items():
        always_required = name in common_required and len(users) == len(keys)
        note = usage_note(users, required_in, always=always_required)
        prop = properties[name] = dict(properties[name])
        prop["description"] = f"{prop['description']}. {note}" if prop.get("description") else note
    return properties, always


class _Address(BaseModel):
    city: str
    zip: str | None = None


class _Common(BaseModel):
    tenant: str = Field(description="The tenant")
    verbose: bool = False
    limit: int = 20


class _OtherCommon(BaseModel):
    region: Literal["eu", "us"]


# Field specs a generated action draws from: shared names with agreeing and
# conflicting types, enums that merge, an enum meeting a plain string, a nested model.
_SPECS: dict[str, list[tuple[Any, Any]]] = {
    "id": [(str, ...), (str, Field(..., description="The id")), (int, ...)],
    "status": [
        (Literal["open", "closed"], ...),
        (Literal["closed", "draft"] | None, None),
        (str, ""),
    ],
    "limit": [(int, 10), (int | None, None), (str, ...)],
    "tenant": [(str, ...), (bool, False)],
    "address": [(_Address, ...), (_Address | None, None), (list[str], [])],
    "tags": [(list[str], []), (list[str] | None, ...)],
    "note": [(str, Field("", description="A note")), (str | None, ...)],
}


def _params(rng: random.Random, index: int) -> type[BaseModel]:
    names = rng.sample(sorted(_SPECS), rng.randint(0, 4))
    fields = {name: rng.choice(_SPECS[name]) for name in names}
    model: type[BaseModel] = create_model(f"P{index}", **fields)  # type: ignore[call-overload]
    return model


def _pairs(tool: Tool) -> list[tuple[str, type[BaseModel] | None]]:
    return [(a.key, a.fields_model) for a in tool.actions.values()]


def _full_schema(tool: Tool) -> dict[str, Any]:
    """The input schema the full merge of ``tool``'s actions gives."""
    properties, always = _full_merge(tool.common, _pairs(tool), tool.name)
    discriminator = tool.input_schema()["properties"][tool.discriminator]
    return {
        "type": "object",
        "properties": {tool.discriminator: discriminator, **properties},
        "required": [tool.discriminator, *always],
    }


def _refusal(
    common: type[BaseModel] | None, pairs: Sequence[tuple[str, type[BaseModel] | None]]
) -> tuple[str, str | None, str | None] | None:
    """The full merge's conflict for ``pairs`` (message, parameter, action), if any."""
    try:
        _full_merge(common, pairs, "t")
    except SchemaConflictError as conflict:
        return str(conflict), conflict.parameter, conflict.action
    return None


def _grow(
    tool: Tool, targets: Sequence[Tool | Group], rng: random.Random, count: int, prefix: str
) -> int:
    """Add ``count`` generated actions; each refusal must be the full merge's. Returns refusals."""
    refused = 0
    for index in range(count):
        target = rng.choice(targets)
        params = _params(rng, index)
        name = f"{prefix}{index}"
        key = f"{target.name}.{name}" if isinstance(target, Group) else name
        expected = _refusal(tool.common, [*_pairs(tool), (key, params)])
        if expected is None:
            target.action(name, lambda p: p, params=params)
            continue
        with pytest.raises(SchemaConflictError) as raised:
            target.action(name, lambda p: p, params=params)
        assert (str(raised.value), raised.value.parameter, raised.value.action) == expected
        refused += 1
    return refused


def _same(tool: Tool) -> None:
    """``tool`` publishes the full merge, byte for byte, directly and through an app."""
    expected = json.dumps(_full_schema(tool))
    assert json.dumps(tool.definition()["inputSchema"]) == expected
    (served,) = FusionApp([tool]).definitions()
    assert json.dumps(served["inputSchema"]) == expected


class _Page(BaseModel):
    page: int = 1
    mode: Literal["x", "y"]


class _PageToo(BaseModel):
    mode: Literal["y", "z"] | None = None


class _PageAsText(BaseModel):
    page: str


def _mergeable(grouped: bool, common: type[BaseModel] | None, name: str) -> Tool:
    """A tool named ``t`` to merge: ``fits`` adds compatible actions, ``clashes`` a conflict."""
    other = Tool("t", common=common)
    target: Tool | Group = other.group("g3") if grouped else other
    target.action(f"{name}_ok", lambda p: p, params=_PageToo)
    if name == "fits":
        target.action("paged", lambda p: p, params=_Page)
        target.action("signed", lambda page=1, mode=None: page)  # parameters from a signature
    else:
        target.action("text", lambda p: p, params=_PageAsText)
    return other


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("common", [None, _Common])
@pytest.mark.parametrize("grouped", [False, True], ids=["flat", "groups"])
def test_a_tool_grown_action_by_action_publishes_the_full_merge(
    seed: int, common: type[BaseModel] | None, grouped: bool
) -> None:
    """Generated actions, some refused: each refusal and the final schema are the full merge's."""
    rng = random.Random(seed)
    tool = Tool("t", "Things", common=common)
    targets: list[Tool | Group] = [tool.group("g1"), tool.group("g2")] if grouped else [tool]
    refused = _grow(tool, targets, rng, 40, "a")
    assert refused  # both paths were taken
    assert len(tool.actions) > 10
    _same(tool)
    # Another tool merged in (no description inherited): first one whose parameters
    # fit (an enum union, an action from a signature), then one refused part-way.
    fits, clashes = _mergeable(grouped, common, "fits"), _mergeable(grouped, common, "clashes")
    assert _refusal(tool.common, [*_pairs(tool), *_pairs(fits)]) is None
    tool.merge(fits)
    _same(tool)
    expected = _refusal(tool.common, [*_pairs(tool), *_pairs(clashes)])
    assert expected is not None
    before = dict(tool.actions)
    with pytest.raises(SchemaConflictError, match=re.escape(expected[0])):
        tool.merge(clashes)  # all or nothing: the actions before the refused one go too
    assert f"{'g3.' if grouped else ''}clashes_ok" not in tool.actions
    assert tool.actions == before
    _same(tool)
    _grow(tool, targets, rng, 10, "b")  # and the merge keeps growing after
    _same(tool)


def test_a_reassigned_common_rebuilds_the_merge() -> None:
    """``tool.common = Model`` after actions: published and checked against the new common."""
    rng = random.Random(7)
    tool = Tool("t", common=_Common)
    _grow(tool, [tool], rng, 20, "a")
    _same(tool)
    tool.common = _OtherCommon
    _same(tool)
    _grow(tool, [tool], rng, 20, "b")
    _same(tool)
    tool.common = None
    _same(tool)


def test_a_reassigned_common_that_conflicts_is_refused_as_before() -> None:
    """A common clashing with an action: the next definition and the next action say so."""

    class Params(BaseModel):
        region: int

    tool = Tool("t").action("a", lambda p: p, params=Params)
    tool.common = _OtherCommon
    expected = "parameter 'region' of action 'a' is a number, but an earlier action declares it"
    with pytest.raises(SchemaConflictError, match=expected):
        tool.definition()
    with pytest.raises(SchemaConflictError, match=expected):
        tool.action("b", lambda: None)
    tool.common = None
    tool.action("b", lambda: None)
    _same(tool)


def test_a_definition_changed_by_its_reader_leaves_the_tool_as_it_was() -> None:
    """The published schema is a copy: editing it (nested too) changes no later definition."""

    class Params(BaseModel):
        status: Literal["open", "closed"]
        address: _Address

    tool = Tool("t", common=_Common).action("a", lambda p: p, params=Params)
    before = json.dumps(tool.definition())
    properties = tool.definition()["inputSchema"]["properties"]
    properties["status"]["enum"].append("hacked")
    properties["address"]["properties"]["city"]["type"] = "integer"
    properties["tenant"]["description"] = "hacked"
    assert json.dumps(tool.definition()) == before


def test_registering_200_actions_builds_each_schema_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each action's schema is built once, refused ones too: the quadratic re-merge stays gone."""
    built: Counter[type[BaseModel]] = Counter()
    build = _input_schema.model_schema

    def counted(model: type[BaseModel], where: str = "parameters") -> dict[str, Any]:
        built[model] += 1
        return build(model, where)

    monkeypatch.setattr(_input_schema, "model_schema", counted)
    tool = Tool("t", common=_Common)
    models = [
        create_model(f"P{i}", id=(str, ...), **{f"own{i}": (int, 0)})  # type: ignore[call-overload]
        for i in range(200)
    ]
    for index, model in enumerate(models):
        tool.action(f"a{index}", lambda p: p, params=model)
    clash = create_model("Clash", id=(int, ...))
    with pytest.raises(SchemaConflictError):
        tool.action("clash", lambda p: p, params=clash)
    tool.definition()
    tool.definition()
    assert len(tool.actions) == 200
    assert built[_Common] == 1
    assert built[clash] == 1
    assert max(built[model] for model in models) == 1
