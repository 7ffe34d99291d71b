"""The response type: exactly the MCP wire dict, with a view no serializer sees."""

from __future__ import annotations

import copy
import datetime
import enum
import json
import pickle
from typing import Any

import pydantic
import pytest
from mcp.types import CallToolResult
from mcp.types.jsonrpc import JSONRPCResponse, jsonrpc_message_adapter

from fusion_core import (
    ResponseView,
    Suggestion,
    ToolResponse,
    error,
    response,
    success,
    success_structured,
    tool_error,
    ui,
    view_of,
)

MARKER = "VIEW_ONLY_MARKER_5c1e"


class Status(enum.Enum):
    VIEW_ONLY_MARKER_5c1e = "paid"


class Invoice(pydantic.BaseModel):
    id: int
    status: Status
    note: str = pydantic.Field(default=MARKER, exclude=True)


def _responses() -> list[ToolResponse]:
    """Responses whose view holds MARKER while their bytes never do."""
    data = {"invoice": Invoice(id=1, status=Status.VIEW_ONLY_MARKER_5c1e), "n": 1.0}
    return [
        response(data)
        .ui_block(ui.summary("one"))
        .raw_block("<embedded/>")
        .llm_hint("hint")
        .system_rules(["rule"])
        .system_hint([("invoices.get", "details")])
        .build(),
        success(data),
        success_structured(data),
        tool_error("E", "m", severity="warning"),
        error("boom"),
    ]


RESPONSES = _responses()
IDS = ["builder", "success", "structured", "warning", "error"]


def _wire(result: ToolResponse) -> dict[str, Any]:
    """The MCP wire dict as plain, freshly built data."""
    wire: dict[str, Any] = {"content": [{"type": "text", "text": text} for text in result.texts]}
    if "isError" in result:
        wire["isError"] = result["isError"]
    if "structuredContent" in result:
        wire["structuredContent"] = result["structuredContent"]
    return wire


def test_marker_is_only_in_the_view() -> None:
    """The marker really is in every data-bearing view (so its absence below means something)."""
    for result in RESPONSES[:3]:
        assert MARKER in repr(view_of(result).data)
        assert MARKER not in json.dumps(dict(result))


@pytest.mark.parametrize("result", RESPONSES, ids=IDS)
def test_invisible_to_json_dumps(result: ToolResponse) -> None:
    """json.dumps gives exactly the MCP wire dict, keys in wire order."""
    text = json.dumps(result)
    assert MARKER not in text
    assert text == json.dumps(_wire(result))
    assert json.loads(text) == dict(result)
    assert list(json.loads(text)) == list(_wire(result))


@pytest.mark.parametrize("result", RESPONSES, ids=IDS)
def test_invisible_to_pydantic_type_adapter(result: ToolResponse) -> None:
    """TypeAdapter(ToolResponse) dumps the plain wire dict and nothing else."""
    adapter = pydantic.TypeAdapter(ToolResponse)
    dumped = adapter.dump_python(result)
    assert type(dumped) is dict
    assert dumped == _wire(result)
    assert adapter.dump_python(result, mode="json") == _wire(result)
    text = adapter.dump_json(result)
    assert MARKER.encode() not in text
    assert json.loads(text) == _wire(result)


class Envelope(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(arbitrary_types_allowed=True)

    result: ToolResponse
    at: datetime.date = datetime.date(2024, 1, 1)


@pytest.mark.parametrize("result", RESPONSES, ids=IDS)
def test_invisible_to_a_model_holding_a_response(result: ToolResponse) -> None:
    """A pydantic model with a ToolResponse field dumps the wire dict for it."""
    model = Envelope(result=result)
    assert model.model_dump() == {"result": _wire(result), "at": datetime.date(2024, 1, 1)}
    assert model.model_dump(mode="json")["result"] == _wire(result)
    text = model.model_dump_json()
    assert MARKER not in text
    assert json.loads(text) == {"result": _wire(result), "at": "2024-01-01"}
    assert view_of(model.result) is view_of(result)


@pytest.mark.parametrize("result", RESPONSES, ids=IDS)
def test_to_mcp_is_the_sdk_result(result: ToolResponse) -> None:
    """to_mcp() is a CallToolResult with exactly these blocks and no view."""
    mcp_result = result.to_mcp()
    assert isinstance(mcp_result, CallToolResult)
    dumped = mcp_result.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert [block["text"] for block in dumped["content"]] == result.texts
    assert [block["type"] for block in dumped["content"]] == ["text"] * len(result.texts)
    assert dumped["isError"] is result.is_error
    assert dumped.get("structuredContent") == result.get("structuredContent")
    assert MARKER not in repr(dumped)
    text = mcp_result.model_dump_json(by_alias=True, exclude_none=True)
    assert MARKER not in text
    assert json.loads(text) == dumped


def _rpc_texts(result: ToolResponse) -> list[str]:
    """The JSON-RPC lines the SDK would write for this result, several ways."""
    as_model = result.to_mcp().model_dump(by_alias=True, mode="json", exclude_none=True)
    messages = [
        JSONRPCResponse(jsonrpc="2.0", id=1, result=as_model),
        JSONRPCResponse(jsonrpc="2.0", id=1, result=dict(result)),
        JSONRPCResponse(jsonrpc="2.0", id=1, result=result),
    ]
    texts = [message.model_dump_json(by_alias=True, exclude_unset=True) for message in messages]
    texts.extend(jsonrpc_message_adapter.dump_json(message).decode() for message in messages)
    return texts


@pytest.mark.parametrize("result", RESPONSES, ids=IDS)
def test_invisible_to_the_sdk_json_rpc_serialization(result: ToolResponse) -> None:
    """The SDK's JSON-RPC response message carries the wire dict only."""
    for text in _rpc_texts(result):
        assert MARKER not in text
        message = json.loads(text)
        assert message["jsonrpc"] == "2.0"
        assert message["id"] == 1
        assert [block["text"] for block in message["result"]["content"]] == result.texts
        assert message["result"].get("structuredContent") == result.get("structuredContent")
        assert message["result"].get("isError", False) is result.is_error
        assert set(message["result"]) <= {"content", "isError", "structuredContent", "resultType"}


def test_wire_dict_exact_keys() -> None:
    """IsError and structuredContent appear only when set, after content."""
    assert list(success("x")) == ["content"]
    assert list(error("x")) == ["content", "isError"]
    assert list(success_structured({"a": 1})) == ["content", "structuredContent"]
    assert list(tool_error("W", "m", severity="warning")) == ["content", "isError"]
    assert json.dumps(success_structured({"a": 1})) == json.dumps(
        {"content": [{"type": "text", "text": '{\n  "a": 1\n}'}], "structuredContent": {"a": 1}}
    )


def test_response_is_a_dict_equal_to_its_wire_form() -> None:
    """A ToolResponse is a dict equal to the wire dict; texts and is_error read it."""
    result = response("a").system_rules(["r"]).build()
    assert isinstance(result, dict)
    assert result == _wire(result)
    assert result.texts == ["a", "<domain_rules>\n- r\n</domain_rules>"]
    assert result.is_error is False
    assert repr(result).startswith("ToolResponse({'content': [")
    assert MARKER not in repr(RESPONSES[0])


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.__setitem__("isError", "yes"),
        lambda r: r.__delitem__("content"),
        lambda r: r.update({"isError": True}),
        lambda r: r.update(isError=True),
        lambda r: r.pop("content"),
        lambda r: r.popitem(),
        lambda r: r.setdefault("isError", True),
        lambda r: r.clear(),
        lambda r: r.__ior__({"isError": True}),
    ],
)
def test_response_is_immutable(mutate: Any) -> None:
    """Every dict mutator raises TypeError and leaves the response as it was."""
    result = success("x")
    before = dict(result)
    with pytest.raises(TypeError, match="immutable"):
        mutate(result)
    assert dict(result) == before


def test_augmented_or_raises() -> None:
    """``response |= {...}`` is refused too."""
    result = success("x")
    with pytest.raises(TypeError):
        result |= {"isError": True}
    assert "isError" not in result


@pytest.mark.parametrize("result", RESPONSES, ids=IDS)
def test_pickle_and_copy_keep_the_view(result: ToolResponse) -> None:
    """Pickling and copying keep the wire dict and the view."""
    for clone in (
        pickle.loads(pickle.dumps(result)),
        copy.copy(result),
        copy.deepcopy(result),
    ):
        assert type(clone) is ToolResponse
        assert clone == result
        assert view_of(clone) == view_of(result)


@pytest.mark.parametrize("thing", [{"content": []}, None, "text", CallToolResult(content=[])])
def test_view_of_needs_a_tool_response(thing: Any) -> None:
    """view_of on anything but a ToolResponse is a TypeError that says what to do."""
    with pytest.raises(TypeError, match="parse its bytes"):
        view_of(thing)


def test_view_equality_compares_wire_text() -> None:
    """Data compares by its wire text: 1.0 == 1, a datetime == its ISO string."""
    assert ResponseView(data=1.0) == ResponseView(data=1)
    assert ResponseView(data=[1.0, -0.0]) == ResponseView(data=[1, 0])
    moment = datetime.datetime(2024, 5, 1, 12, 0)
    assert ResponseView(data={"at": moment}) == ResponseView(data={"at": moment.isoformat()})
    assert ResponseView(data=[Status.VIEW_ONLY_MARKER_5c1e]) == ResponseView(data=["paid"])
    assert ResponseView(data=Status.VIEW_ONLY_MARKER_5c1e) != ResponseView(data="paid")
    assert ResponseView(data="") == ResponseView(data="OK")
    assert ResponseView(data=1) != ResponseView(data=2)
    assert ResponseView(data=1, rules=("a",)) != ResponseView(data=1, rules=("b",))
    assert ResponseView(suggestions=(Suggestion("t", "r"),)) != ResponseView()
    assert ResponseView(structured_content={"a": 1.0}) == ResponseView(structured_content={"a": 1})
    assert ResponseView() != "not a view"


def test_view_is_unhashable_and_frozen() -> None:
    """A view compares by meaning, so it is unhashable; it cannot be changed."""
    view = view_of(success("x"))
    with pytest.raises(TypeError):
        hash(view)
    with pytest.raises(AttributeError):
        view.data = "y"  # type: ignore[misc]
