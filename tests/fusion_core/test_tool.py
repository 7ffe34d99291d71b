"""Tool definitions: description layout, input schema, annotations, params."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from fusion_core._presenter import Presenter
from fusion_core._tool import Tool


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
