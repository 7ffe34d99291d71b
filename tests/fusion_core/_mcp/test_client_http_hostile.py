"""A hostile streamable HTTP server's answers: each one a plain, named error, never a group.

The server here is a raw ASGI app that completes the handshake properly and
then answers every ``tools/call`` with one hostile body (the class of answers
a server written without fusion_core can send). The client must end each
call with one exception that says what was wrong (the SDK's ``MCPError`` for
what it cannot parse, ``ServerLimitError`` for what never comes or is too
large), and keep serving the next call.
"""

from __future__ import annotations

import pytest

from fusion_core import FusionClient, ServerLimitError
from tests._support.hostile_http import HOSTILE, hostile_asgi_app
from tests._support.servers import serving_asgi

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("case", HOSTILE)
async def test_a_hostile_answer_ends_its_call_with_one_named_error(case: str) -> None:
    """One exception naming the problem, then the next call is answered."""
    from mcp import MCPError  # noqa: PLC0415

    body_of, kind = HOSTILE[case]
    async with (
        serving_asgi(hostile_asgi_app(body_of)) as url,
        FusionClient.http(url, mode="legacy", timeout=2, max_response_bytes=1 << 20) as client,
    ):
        with pytest.raises((MCPError, ServerLimitError)) as info:
            await client.call("hostile", {})
        after = await client.call("ok", {})
    error = info.value
    if kind == "parse":
        assert isinstance(error, MCPError)
        assert "Failed to parse JSON response" in str(error)
    else:
        assert isinstance(error, ServerLimitError)
        assert error.kind == kind
    assert [block["text"] for block in after["content"]] == ["x"]
