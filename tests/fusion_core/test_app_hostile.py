"""Bad input to the pipeline: each case gets its documented envelope, and serving goes on."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from fusion_core import FusionApp, Presenter, Tool, build_server, ui


class Row(BaseModel):
    id: int
    name: str


def _raise_in_rules(item: Any, ctx: Any) -> list[str]:
    raise RuntimeError("rules callback failed")


def _raise_in_ui(items: Any, ctx: Any) -> list[Any]:
    raise RuntimeError("ui callback failed")


ROWS = Presenter("Row", schema=Row, agent_limit=50)
BAD_RULES = Presenter("Row", schema=Row, rules=_raise_in_rules)
BAD_UI = Presenter("Row", schema=Row, collection_ui=_raise_in_ui)


def _get(id: int) -> dict[str, Any]:  # noqa: A002 - the tool's parameter name
    return {"id": id, "name": "a", "secret": "x"}


def _many(n: int) -> list[dict[str, Any]]:
    return [{"id": i, "name": "r"} for i in range(n)]


def _app() -> FusionApp:
    tool = Tool("rows")
    tool.action("get", _get, returns=ROWS)
    tool.action("many", _many, returns=ROWS)
    tool.action("object", lambda: {"when": object()})
    tool.action("wrong_shape", lambda: {"id": "not-an-int"}, returns=ROWS)
    tool.action("bad_rules", lambda: {"id": 1, "name": "a"}, returns=BAD_RULES)
    tool.action("bad_ui", lambda: [{"id": 1, "name": "a"}], returns=BAD_UI)
    tool.action("summary", lambda: ui.summary("fine"))
    return FusionApp([tool])


CASES: dict[str, tuple[dict[str, Any], Callable[[list[str]], bool]]] = {
    "wrong-typed argument": (
        {"action": "get", "id": "seven"},
        lambda texts: texts[0].startswith('<validation_error action="rows/get">'),
    ),
    "unknown key": (
        {"action": "get", "id": 1, "surprise": True},
        lambda texts: '<field name="(root)">Unrecognized key' in texts[0],
    ),
    "huge list, truncated by the agent limit": (
        {"action": "many", "n": 100_000},
        lambda texts: "50 shown, 99950 hidden" in texts[1] and texts[0].count('"id"') == 50,
    ),
    "unserializable return value": (
        {"action": "object"},
        lambda texts: texts[0].startswith('<tool_error code="INTERNAL_ERROR"'),
    ),
    "data the Presenter rejects": (
        {"action": "wrong_shape"},
        lambda texts: texts[0].startswith('<tool_error code="INTERNAL_ERROR"')
        and "[Row Presenter] Validation failed" in texts[0],
    ),
    "rules callback raises": (
        {"action": "bad_rules"},
        lambda texts: texts[0].startswith('<tool_error code="INTERNAL_ERROR"'),
    ),
    "collection UI callback raises": (
        {"action": "bad_ui"},
        lambda texts: texts[0].startswith('<tool_error code="INTERNAL_ERROR"'),
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_each_bad_input_gets_its_envelope(case: str, caplog: pytest.LogCaptureFixture) -> None:
    """The documented envelope, no traceback text on the wire, no leaked secret."""
    arguments, expected = CASES[case]
    with caplog.at_level(logging.ERROR, logger="fusion_core"):
        result = _app().call_sync("rows", arguments)
    assert expected(result.texts), result.texts
    wire = "".join(result.texts)
    assert "Traceback" not in wire
    assert "secret" not in wire


@pytest.mark.anyio
async def test_the_server_keeps_serving_after_every_bad_call() -> None:
    """Over the SDK's in-memory client: every bad call answered, then a good one."""
    from mcp import Client  # noqa: PLC0415 - mcp is slow to import

    app = _app()
    async with Client(build_server(app)) as client:
        for arguments, _ in CASES.values():
            result = await client.call_tool("rows", arguments)
            assert result.is_error is True or arguments["action"] == "many"
        good = await client.call_tool("rows", {"action": "get", "id": 3})
        assert good.is_error is not True
        assert '"id": 3' in good.content[0].text  # type: ignore[union-attr]


@pytest.fixture
def anyio_backend() -> str:
    """The SDK runs on asyncio."""
    return "asyncio"
