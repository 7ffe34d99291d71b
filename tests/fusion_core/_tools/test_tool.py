"""Tool definitions: description layout, input schema, annotations, params."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from fusion_core._errors import SchemaConflictError
from fusion_core._present._presenter import Presenter
from fusion_core._tools._tool import Tool


class GetParams(BaseModel):
    project_id: str


class ListParams(BaseModel):
    status: Literal["active", "archived"] | None = None


class Project(BaseModel):
    id: str
    name: str


def projects() -> Tool:
    """A flat two-action tool."""
    tool = Tool("projects", "Manage workspace projects")
    tool.action("list", list, description="List projects", params=ListParams, read_only=True)
    tool.action("get", dict, description="Get a project", params=GetParams, read_only=True)
    return tool


def test_markdown_description() -> None:
    """Summary line, ``Actions:`` and one ``Workflow:`` line per action."""
    assert projects().definition()["description"] == (
        "Manage workspace projects. Select operation via the `action` parameter. Actions: list, get"
        "\n\nWorkflow:\n- 'list': List projects\n- 'get': Get a project. Requires: project_id"
    )


def test_toon_description() -> None:
    """``toon_description()`` renders the actions as a TOON table."""
    assert projects().toon_description().definition()["description"] == (
        "Manage workspace projects. Select operation via the `action` parameter.\n\n"
        '[2|]{action|desc|required}:\n  list|List projects|""\n  get|Get a project|project_id'
    )


def test_input_schema_and_annotations() -> None:
    """One flat schema; each property says which actions use it."""
    definition = projects().definition()
    schema = definition["inputSchema"]
    assert schema["required"] == ["action"]
    assert schema["properties"]["action"]["enum"] == ["list", "get"]
    assert schema["properties"]["project_id"] == {
        "type": "string",
        "description": "Required for: get",
    }
    assert schema["properties"]["status"]["description"] == "For: list"
    assert definition["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": False,
    }


def test_groups_and_signature_params() -> None:
    """Groups key actions ``group.action``; params can come from the signature."""
    tool = Tool("platform", "Platform admin")
    users = tool.group("users")

    @users.action("invite", destructive=True)
    def invite(
        email: str, ctx: object = None, note: str = Field(default="", description="Why")
    ) -> str:
        return email

    schema = tool.definition()["inputSchema"]
    assert schema["properties"]["action"]["enum"] == ["users.invite"]
    assert schema["properties"]["email"]["description"] == "Required for: users.invite"
    assert schema["properties"]["note"]["description"] == "Why. For: users.invite"
    assert "Modules: users (invite)" in tool.definition()["description"]
    assert tool.definition()["annotations"]["destructiveHint"] is True


def test_select_enum_and_common_params() -> None:
    """``_select`` lists the sorted root keys; common params are always required."""

    class Common(BaseModel):
        workspace_id: str = Field(description="Workspace identifier")

    tool = Tool("p", common=Common).enable_select()
    tool.action("get", lambda: None, returns=Presenter("Project", Project))
    schema = tool.definition()["inputSchema"]
    assert schema["properties"]["_select"]["items"]["enum"] == ["id", "name"]
    assert schema["properties"]["workspace_id"]["description"] == (
        "Workspace identifier. (always required)"
    )
    assert schema["required"] == ["action", "workspace_id"]


def test_output_schema_is_declared() -> None:
    """``with_output_schema`` adds ``outputSchema``."""
    definition = projects().with_output_schema(Project).definition()
    assert definition["outputSchema"]["properties"]["id"] == {"type": "string"}


def test_definition_errors() -> None:
    """Duplicate actions, mixed flat/group actions and bad handlers are refused."""
    tool = projects()
    with pytest.raises(ValueError, match="twice"):
        tool.action("get", lambda: None)
    with pytest.raises(ValueError, match="not both"):
        tool.group("g").action("x", lambda: None)
    with pytest.raises(TypeError, match="callable"):
        Tool("t").action("x", 42)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="params instance"):
        Tool("t").action("x", lambda a, b: None, params=GetParams)


@pytest.mark.parametrize(
    "name", ["", " ", "list, delete", "a|b", "g (x)", "it's", "a<b", "a&b", "a.b", "tab\there"]
)
def test_names_the_description_lists_inline_are_refused(name: str) -> None:
    """An action or group name that would make an inline list ambiguous is refused."""
    with pytest.raises(ValueError, match="tool 't'"):
        Tool("t").action(name, lambda: None)
    with pytest.raises(ValueError, match="tool 't'"):
        Tool("t").group(name)


def test_conflicting_parameter_types_are_refused_at_registration() -> None:
    """Two actions giving one parameter different types cannot share one schema."""

    class AsStr(BaseModel):
        ref: str

    class AsBool(BaseModel):
        ref: bool

    class Nullable(BaseModel):
        ref: str | None

    tool = Tool("t").action("a", lambda p: p, params=AsStr)
    with pytest.raises(TypeError, match="'ref' of action 'b' is a boolean"):
        tool.action("b", lambda p: p, params=AsBool)
    with pytest.raises(TypeError, match="nullable"):
        tool.action("c", lambda p: p, params=Nullable)
    assert list(tool.actions) == ["a"]
    tool.action("d", lambda ref=None: ref)  # ``X | None = None`` is Python's optional


def test_input_schema_is_inline_as_the_reference_writes_it() -> None:
    """Nested models inline with additionalProperties, one-value enums stay enums."""

    class Address(BaseModel):
        city: str

    class Params(BaseModel):
        kind: Literal["home"]
        address: Address
        limit: int = 10
        page: int = Field(1, json_schema_extra={"x-required": True})

    tool = Tool("t").enable_select().action("a", lambda p: p, params=Params)
    schema = tool.definition()["inputSchema"]
    assert "$defs" not in schema
    assert schema["properties"]["kind"] == {
        "type": "string",
        "enum": ["home"],
        "description": "Required for: a",
    }
    assert schema["properties"]["address"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
        "description": "Required for: a",
    }
    assert schema["properties"]["limit"]["description"] == "For: a"
    assert schema["properties"]["page"] == {
        "type": "integer",
        "default": 1,
        "description": "Required for: a",
    }
    assert "_select" not in schema["properties"]  # no Presenter: nothing to select


class _Item(BaseModel):
    title: float
    const: str = "c"


class _ValuesParams(BaseModel):
    item: _Item = Field({"title": 1398, "const": "x"})  # type: ignore[assignment]
    kind: str = Field("a", examples=[{"title": "t", "enum": "r"}])


def test_schema_values_are_written_as_declared() -> None:
    """A default's or an example's keys are data: a "title" or "enum" key is kept, not a schema."""
    schema = Tool("t").action("a", lambda p: p, params=_ValuesParams).definition()["inputSchema"]
    item, kind = schema["properties"]["item"], schema["properties"]["kind"]
    assert item["default"] == {"title": 1398, "const": "x"}
    assert item["properties"] == {
        "title": {"type": "number"},
        "const": {"default": "c", "type": "string"},
    }
    assert kind["examples"] == [{"title": "t", "enum": "r"}]


class _Aliased(BaseModel):
    alias1_id: str = Field(alias="_id")
    name: str = Field(validation_alias="full_name")
    plain: int


@pytest.mark.parametrize("toon", [False, True])
def test_required_fields_are_listed_by_their_wire_names(toon: bool) -> None:
    """The description names a required aliased field as the agent sends it, as the schema does."""
    tool = Tool("t").toon_description() if toon else Tool("t")
    tool.action("a", lambda p: p, params=_Aliased, description="d").action("b", lambda: 1)
    definition = tool.definition()
    assert "alias1_id" not in definition["description"]
    assert "_id" in definition["description"]
    assert "full_name" in definition["description"]
    assert list(definition["inputSchema"]["properties"]) == ["action", "_id", "full_name", "plain"]
    if not toon:
        assert "Requires: _id, full_name, plain" in definition["description"]


def test_workflow_lines_as_the_reference_writes_them() -> None:
    """Groups always list their actions; a destructive action without text keeps the space."""
    tool = Tool("ops")
    tool.group("jobs").action("purge", lambda: None, destructive=True)
    assert tool.definition()["description"] == (
        "ops. Select operation via the `action` parameter. Modules: jobs (purge)"
        "\n\nWorkflow:\n- 'jobs.purge':  [DESTRUCTIVE]"
    )
    assert tool.definition()["inputSchema"]["properties"]["action"]["description"] == (
        "Module and operation (module.action format)"
    )
    flat = Tool("one", "One thing").action("go", lambda: None)
    assert flat.definition()["description"] == (
        "One thing. Select operation via the `action` parameter. Actions: go"
    )


def test_merge_keeps_each_actions_description_and_the_first_tools_settings() -> None:
    """Builders of one namespace become one tool; later ones do not inherit its text."""
    first = Tool("users", "Users", instructions="Be brief").action("list", list)
    second = Tool("users").action("get", dict)
    merged = first.merge(second)
    description = merged.definition()["description"]
    assert description.startswith("[INSTRUCTIONS] Be brief\n\nUsers. Select operation")
    assert "- 'list': [INSTRUCTIONS] Be brief\n\nUsers" in description
    assert "'get'" not in description
    with pytest.raises(ValueError, match="twice"):
        merged.merge(Tool("users").action("get", dict))


def _limit(limit: int) -> None:
    """A ``limit`` that is an int."""


def _limit_text(limit: str) -> None:
    """A ``limit`` that is a str: it cannot share the published parameter."""


def _grouped() -> Tool:
    tool = Tool("users")
    tool.group("admin").action("get", dict)
    return tool


def _middleware(ctx: object, args: object) -> None:
    """Middleware that lets every call through."""


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(
            lambda: Tool("users").use(_middleware).action("new", dict).action("list", dict),
            id="defined-twice",
        ),
        pytest.param(
            lambda: Tool("users").action("new", dict).action("page", _limit_text),
            id="a-parameter-published-differently",
        ),
        pytest.param(_grouped, id="groups-into-flat"),
    ],
)
def test_a_merge_that_fails_leaves_the_tool_as_it_was(other: object) -> None:
    """All or nothing: the actions before the failing one are not kept either."""
    from fusion_core import FusionApp  # noqa: PLC0415 - the app serves the tool after the merge

    tool = Tool("users", "Users").action("list", list).action("find", _limit)
    app = FusionApp([tool])
    before = (tool.definition(), list(tool.actions), app.definitions())
    assert callable(other)
    with pytest.raises((ValueError, SchemaConflictError), match=r"twice|limit|flat actions or"):
        tool.merge(other())
    assert (tool.definition(), list(tool.actions), app.definitions()) == before
    assert app.call_sync("users", {"action": "new"}).is_error  # never added
    assert app.call_sync("users", {"action": "find", "limit": 3}).is_error is False
    tool.merge(Tool("users").action("new", dict))  # the tool still takes a good merge
    assert list(tool.actions) == ["list", "find", "new"]


def test_explicit_annotations_win_over_derived_hints() -> None:
    """``annotations=`` are copied; the hints are derived unless given."""
    tool = Tool("t", annotations={"title": "T", "readOnlyHint": False})
    tool.action("a", lambda: None, read_only=True)
    assert tool.definition()["annotations"] == {
        "title": "T",
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
    }
