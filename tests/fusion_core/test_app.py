"""The pipeline: dispatch, envelopes, the wrap rule, contexts, async handlers."""

from __future__ import annotations

import logging
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from fusion_core._app import FusionApp
from fusion_core._builder import response
from fusion_core._helpers import success_structured
from fusion_core._presenter import Presenter
from fusion_core._response import view_of
from fusion_core._tool import Tool


class Create(BaseModel):
    name: str = Field(min_length=3)
    color: Literal["red", "green"] | None = None
    size: int | None = Field(default=None, ge=1, le=10)


class Out(BaseModel):
    t: int


def app() -> FusionApp:
    """An app with one tool covering the pipeline paths."""
    tool = Tool("projects")
    tool.action("create", lambda args: args.model_dump(exclude_none=True), params=Create)
    tool.action("boom", lambda: 1 / 0)
    tool.action("none", lambda: None)
    tool.action("structured", lambda t: success_structured({"t": t}))
    tool.with_output_schema(Out)
    return FusionApp([tool])


def texts(name: str, args: dict[str, Any] | None) -> list[str]:
    """The block texts of one call."""
    return app().call_sync(name, args).texts


def test_unknown_tool() -> None:
    """An unknown tool name gets the UNKNOWN_TOOL envelope."""
    expected = (
        '<tool_error code="UNKNOWN_TOOL" severity="error">\n<message>Tool "nope" does not exist.'
        "</message>\n<recovery>Check the available tools via tools/list and call a valid one."
        "</recovery>\n</tool_error>"
    )
    assert texts("nope", {}) == [expected]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (None, "MISSING_DISCRIMINATOR"),
        ({"action": ""}, "MISSING_DISCRIMINATOR"),
        ({"action": None}, "INVALID_DISCRIMINATOR"),
        ({"action": 3}, "INVALID_DISCRIMINATOR"),
        ({"action": "<x>"}, "UNKNOWN_ACTION"),
    ],
)
def test_discriminator_envelopes(args: dict[str, Any] | None, code: str) -> None:
    """Missing, non-string and unknown discriminators each get their envelope."""
    response = app().call_sync("projects", args)
    assert response.is_error
    assert response.texts[0].startswith(f'<tool_error code="{code}">\n<message>')
    assert (
        "<available_actions>create, boom, none, structured</available_actions>"
        in (response.texts[0])
    )
    assert "<x>" not in response.texts[0]


def test_validation_envelope_lists_fields_in_order() -> None:
    """One ``<field>`` per problem, schema order, unknown keys last as ``(root)``."""
    text = texts("projects", {"action": "create", "name": "ab", "size": 11, "x": 1})[0]
    lines = text.split("\n")
    assert lines[0] == '<validation_error action="projects/create">'
    assert [line.split('"')[1] for line in lines[1:-2]] == ["name", "size", "(root)"]
    assert "You sent: 'ab'." in lines[1]
    assert lines[-2] == (
        "<recovery>Fix the fields above and call the tool again. "
        "Do not explain the error.</recovery>"
    )


def test_handler_gets_validated_model() -> None:
    """``params=Model`` handlers receive the validated instance."""
    assert texts("projects", {"action": "create", "name": "abc"}) == ['{\n  "name": "abc"\n}']


def test_handler_exception_is_logged_not_leaked(caplog: pytest.LogCaptureFixture) -> None:
    """INTERNAL_ERROR with the message only; the traceback goes to the log."""
    with caplog.at_level(logging.ERROR, logger="fusion_core"):
        text = texts("projects", {"action": "boom"})[0]
    assert text == (
        '<tool_error code="INTERNAL_ERROR" severity="error">\n'
        "<message>[projects/boom] division by zero</message>\n"
        "<recovery>This may be a transient error. Retry the same call with identical parameters."
        "</recovery>\n</tool_error>"
    )
    assert "Traceback" not in text
    assert caplog.records[0].exc_info is not None


def test_none_becomes_ok() -> None:
    """A handler returning None answers ``OK``."""
    assert texts("projects", {"action": "none"}) == ["OK"]


def test_output_schema_is_enforced() -> None:
    """A structured result must match the declared output schema."""
    assert app().call_sync("projects", {"action": "structured", "t": 1})["structuredContent"] == {
        "t": 1
    }
    bad = app().call_sync("projects", {"action": "structured", "t": "x"})
    assert bad.is_error
    assert "does not match the output schema" in bad.texts[0]


def test_async_handler_and_context_factory() -> None:
    """Async handlers are awaited; ``context_factory`` builds the missing ctx."""

    async def whoami(ctx: dict[str, str]) -> str:
        return ctx["user"]

    async def factory() -> dict[str, str]:
        return {"user": "ana"}

    tool = Tool("me").action("get", whoami)
    fusion = FusionApp([tool], context_factory=factory)
    assert fusion.call_sync("me", {"action": "get"}).texts == ["ana"]
    assert fusion.call_sync("me", {"action": "get"}, {"user": "bo"}).texts == ["bo"]


def test_definitions_and_duplicates() -> None:
    """``definitions()`` lists every tool; names are unique."""
    fusion = app()
    assert [d["name"] for d in fusion.definitions()] == ["projects"]
    with pytest.raises(ValueError, match="already registered"):
        fusion.add(Tool("projects"))


def test_select_validation() -> None:
    """``_select`` values outside the enum are a validation error."""

    class Row(BaseModel):
        id: str
        name: str

    tool = Tool("rows").enable_select()
    tool.action("get", lambda: {"id": "1", "name": "n"}, returns=Presenter("Row", Row))
    fusion = FusionApp([tool])
    assert fusion.call_sync("rows", {"action": "get", "_select": ["name"]}).texts == [
        '{\n  "name": "n"\n}'
    ]
    bad = fusion.call_sync("rows", {"action": "get", "_select": ["name", "secret"]})
    assert bad.texts[0].split("\n")[1].startswith('<field name="_select.1">')
    assert view_of(bad).data is None


def test_builder_without_presenter_is_built() -> None:
    """A returned builder is built; no presenter means no masking."""
    tool = Tool("t").action("run", lambda: response({"a": 1}).llm_hint("h"))
    assert FusionApp([tool]).call_sync("t", {"action": "run"}).texts == [
        '{\n  "a": 1\n}',
        "<llm_directives>\n- h\n</llm_directives>",
    ]
