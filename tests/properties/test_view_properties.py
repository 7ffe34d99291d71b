"""The view is invisible: every serializer sees a response as its plain wire dict.

A :class:`fusion_core.ToolResponse` is a ``dict`` whose structured view lives
in a slot. For any response, ``json.dumps``, pydantic (``model_dump``,
``model_dump(mode="json")``, ``model_dump_json``, a ``TypeAdapter``) and the
``mcp`` SDK (``CallToolResult`` as its server dumps it, the JSON-RPC message
it writes) give exactly what they give for a plain copy (``dict`` and
``list`` all the way down): the same bytes, or the same error.

Found while writing this: ``success_structured`` kept a lone surrogate raw in
``structuredContent``, which UTF-8 serializers (the SDK's transports) refuse;
main now refuses it when the response is built.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st
from mcp.types import CallToolResult, JSONRPCMessage, JSONRPCResponse
from pydantic import BaseModel, TypeAdapter

import fusion_core as fc
from fusion_core import ToolResponse, ui
from pytest_mcpfusion.strategies import json_values, responses


class Holder(BaseModel):
    """A user's model holding a response, as an app's own result types do."""

    response: ToolResponse
    many: list[ToolResponse] = []


class PlainHolder(BaseModel):
    """The same model with plain dicts: what the first must serialize like."""

    response: dict[str, Any]
    many: list[dict[str, Any]] = []


_MESSAGE: TypeAdapter[Any] = TypeAdapter(JSONRPCMessage)
_RESPONSE: TypeAdapter[ToolResponse] = TypeAdapter(ToolResponse)


def _plain(value: Any) -> Any:
    """A deep copy made of plain ``dict`` and ``list`` (no slots, no subclasses)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in dict.items(value)}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _outcome(function: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """What a serializer gives: its result, or the type of its error."""
    try:
        return ("ok", function(*args, **kwargs))
    except (ValueError, TypeError) as exc:  # pydantic's errors are ValueErrors
        return ("error", type(exc).__name__)


def _sdk_bytes(result: Any) -> bytes:
    """What the SDK's server writes for a tool result (as mcp.server.runner does)."""
    dumped = CallToolResult.model_validate(result).model_dump(
        by_alias=True, mode="json", exclude_none=True
    )
    message = JSONRPCResponse(jsonrpc="2.0", id=7, result=dumped)
    return _MESSAGE.dump_json(message, by_alias=True, exclude_unset=True)


def _message_bytes(result: Any) -> bytes:
    """A JSON-RPC response holding the result dict itself."""
    message = JSONRPCResponse(jsonrpc="2.0", id=7, result=result)
    return _MESSAGE.dump_json(message, by_alias=True, exclude_none=True)


_TOON = st.builds(
    fc.toon_success,
    json_values(),
    delimiter=st.sampled_from([",", "|", "\t"]),
    version=st.sampled_from([3, 4]),
)
_RESPONSES = responses() | _TOON


@given(_RESPONSES)
@example(fc.response({"k": 1}).ui_block(ui.json({"a": [1]}, title="t")).llm_hint("h").build())
@example(fc.tool_error("E", "m", details={"n": 10**30}, retry_after=1.5))
@example(fc.toon_success([{"a": 1}, {"a": 2}]))
def test_json_dumps_sees_the_plain_wire_dict(response: ToolResponse) -> None:
    """``json.dumps`` writes a response exactly as its plain copy, with or without indent."""
    plain = _plain(response)
    assert json.dumps(response) == json.dumps(plain)
    assert json.dumps(response, indent=2, ensure_ascii=False) == json.dumps(
        plain, indent=2, ensure_ascii=False
    )
    assert set(json.loads(json.dumps(response))) <= {"content", "isError", "structuredContent"}


@given(_RESPONSES, st.lists(_RESPONSES, max_size=2))
@example(fc.error("bad", "E"), [fc.success(1), fc.success_structured([1.5])])
def test_pydantic_sees_the_plain_wire_dict(
    response: ToolResponse, many: list[ToolResponse]
) -> None:
    """A model holding responses dumps (python, json mode, JSON text) as one holding dicts."""
    held = Holder(response=response, many=many)
    plain = PlainHolder(response=_plain(response), many=[_plain(m) for m in many])
    assert held.model_dump() == plain.model_dump()
    assert type(held.model_dump()["response"]) is dict
    assert _outcome(held.model_dump, mode="json") == _outcome(plain.model_dump, mode="json")
    assert _outcome(held.model_dump_json) == _outcome(plain.model_dump_json)
    assert _RESPONSE.dump_python(response) == _plain(response)
    assert _outcome(_RESPONSE.dump_json, response) == _outcome(
        TypeAdapter(dict[str, Any]).dump_json, _plain(response)
    )


@given(_RESPONSES)
@example(fc.error("x"))
@example(fc.success_structured(None))
def test_the_sdk_sees_the_plain_wire_dict(response: ToolResponse) -> None:
    """CallToolResult (``to_mcp()`` and validated) and the JSON-RPC bytes match the plain copy."""
    plain = _plain(response)
    assert response.to_mcp() == CallToolResult.model_validate(plain)
    assert _outcome(_sdk_bytes, response) == _outcome(_sdk_bytes, plain)
    assert _outcome(_message_bytes, response) == _outcome(_message_bytes, plain)


def test_plain_copy_drops_the_subclasses() -> None:
    """The helper really makes plain containers (else the comparisons prove nothing)."""
    response = fc.response({"a": [1]}).llm_hint("h").build()
    plain = _plain(response)
    assert type(plain) is dict
    assert type(plain["content"]) is list
    assert all(type(block) is dict for block in plain["content"])
    assert type(response["content"]) is not list
