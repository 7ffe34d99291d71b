"""The MCP server: a real SDK client sees exactly what the app builds in process.

The SDK's own ``mcp.Client`` talks to ``build_server(app)`` in memory (both the
direct 2026-07-28 path and JSON-RPC messages), to ``python -m fusion_core serve``
over stdio, and to the same command with ``--http``.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pytest

from fusion_core import ToolResponse, success, success_structured
from fusion_core.__main__ import main
from fusion_core._server import AppLoadError, ToolApp, build_server, load_app

from ._fake_app import CALLS, ROOT, SERVE_STDIO, FakeApp, app, http_server

if TYPE_CHECKING:
    from pathlib import Path

    from mcp import Client
    from mcp_types import CallToolResult

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]


def _as_seen_by_sdk(response: Mapping[str, Any]) -> dict[str, Any]:
    """What an SDK ``CallToolResult`` must hold for ``response``: texts, isError, structure."""
    return {
        "texts": [block["text"] for block in response["content"]],
        "is_error": bool(response.get("isError", False)),
        "structured": response.get("structuredContent"),
    }


def _seen(result: CallToolResult) -> dict[str, Any]:
    assert all(block.type == "text" for block in result.content)
    return {
        "texts": [block.text for block in result.content if block.type == "text"],
        "is_error": result.is_error,
        "structured": result.structured_content,
    }


async def _assert_serves_app(client: Client) -> None:
    """tools/list is exactly ``app.definitions()``; every call matches the in-process one."""
    listed = await client.list_tools()
    assert [
        tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in listed.tools
    ] == app.definitions()
    for case, (name, arguments) in CALLS.items():
        result = await client.call_tool(name, arguments)
        expected = await app.call(name, arguments)
        assert _seen(result) == _as_seen_by_sdk(expected), case


# --- in memory -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_in_memory_sdk_client_sees_exactly_the_app(mode: str) -> None:
    """The SDK's in-memory client: definitions and every result as built in process."""
    from mcp import Client  # noqa: PLC0415 - keep collection of the suite fast

    async with Client(build_server(app), mode=mode) as client:
        await _assert_serves_app(client)


async def test_server_info_names_the_server() -> None:
    """``name`` and ``version`` reach the client's ``serverInfo``."""
    from mcp import Client  # noqa: PLC0415

    server = build_server(app, name="billing", version="1.2.3")
    async with Client(server, mode="legacy") as client:
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("billing", "1.2.3")


async def test_arguments_reach_the_app_unvalidated() -> None:
    """Arguments that break the input schema get the app's envelope, not an SDK error."""
    from mcp import Client  # noqa: PLC0415

    async with Client(build_server(app)) as client:
        result = await client.call_tool("invoices_delete", {"id": "three", "extra": [1]})
    assert result.is_error
    assert _seen(result)["texts"][0].startswith('<tool_error code="VALIDATION_ERROR"')


class _RaisingApp:
    """An app whose pipeline itself raises (a bug): the server must survive it."""

    def __init__(self) -> None:
        self.calls = 0

    def definitions(self) -> list[dict[str, Any]]:
        return [{"name": "boom", "inputSchema": {"type": "object"}}]

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        self.calls += 1
        if self.calls == 1:
            msg = "secret detail <in> the exception"
            raise RuntimeError(msg)
        return success("recovered")


async def test_an_app_that_raises_gets_an_internal_error_envelope(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """No exception text on the wire, the exception is logged, the server keeps serving."""
    from mcp import Client  # noqa: PLC0415

    with caplog.at_level(logging.ERROR, logger="fusion_core.server"):
        async with Client(build_server(_RaisingApp())) as client:
            failed = await client.call_tool("boom", {})
            recovered = await client.call_tool("boom", {})
    text = _seen(failed)["texts"][0]
    assert failed.is_error
    assert text.startswith('<tool_error code="INTERNAL_ERROR" severity="error">')
    assert "[boom]" in text
    assert "secret" not in text
    assert _seen(recovered)["texts"] == ["recovered"]
    assert "secret detail" in caplog.text


class _ContextApp:
    """Echoes the ``ctx`` the server hands it."""

    def definitions(self) -> list[dict[str, Any]]:
        return [{"name": "whoami", "inputSchema": {"type": "object"}}]

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        return success({"ctx": ctx})


async def test_without_a_context_factory_the_app_gets_none() -> None:
    """The default ``ctx`` is ``None``, as for an in-process ``await app.call(...)``."""
    from mcp import Client  # noqa: PLC0415

    async with Client(build_server(_ContextApp())) as client:
        result = await client.call_tool("whoami", {})
    assert _seen(result)["texts"] == ['{\n  "ctx": null\n}']


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
async def test_the_context_factory_builds_the_app_ctx(is_async: bool) -> None:
    """The factory receives the SDK request context; its (awaited) result is ``ctx``."""
    from mcp import Client  # noqa: PLC0415

    def factory(request: Any) -> Any:
        return f"{request.method} via {request.protocol_version}"

    async def async_factory(request: Any) -> Any:
        return factory(request)

    server = build_server(_ContextApp(), context_factory=async_factory if is_async else factory)
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("whoami", {})
    assert _seen(result)["texts"] == ['{\n  "ctx": "tools/call via 2025-11-25"\n}']


class _ListStructuredApp:
    """``structuredContent`` that is not a JSON object."""

    def definitions(self) -> list[dict[str, Any]]:
        return [{"name": "rows", "inputSchema": {"type": "object"}}]

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        return success_structured([1, 2])


async def test_non_object_structured_content_needs_protocol_2026() -> None:
    """Pinned SDK behaviour: before 2026-07-28 only an object may be structuredContent."""
    from mcp import Client, MCPError  # noqa: PLC0415

    async with Client(build_server(_ListStructuredApp())) as client:
        assert (await client.call_tool("rows", {})).structured_content == [1, 2]
    async with Client(build_server(_ListStructuredApp()), mode="legacy") as client:
        with pytest.raises(MCPError, match="invalid result"):
            await client.call_tool("rows", {})


# --- over real transports ------------------------------------------------------------


async def test_stdio_subprocess_serves_exactly_the_app() -> None:
    """``python -m fusion_core serve module:app`` over stdio, with the SDK's client."""
    from mcp import Client, StdioServerParameters  # noqa: PLC0415

    parameters = StdioServerParameters(command=SERVE_STDIO[0], args=SERVE_STDIO[1:], cwd=ROOT)
    async with Client(parameters, read_timeout_seconds=15) as client:
        await _assert_serves_app(client)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """One ``--http`` server for the module, on a free loopback port."""
    with http_server() as url:
        yield url


@pytest.mark.parametrize("mode", MODES)
async def test_streamable_http_serves_exactly_the_app(http_url: str, mode: str) -> None:
    """``python -m fusion_core serve module:app --http`` with the SDK's client."""
    from mcp import Client  # noqa: PLC0415

    async with Client(http_url, mode=mode, read_timeout_seconds=15) as client:
        await _assert_serves_app(client)


# --- load_app ------------------------------------------------------------------------


def test_load_app_returns_the_named_app() -> None:
    """A ``module:attr`` spec gives the object itself; it satisfies ``ToolApp``."""
    loaded = load_app("tests.fusion_core._fake_app:app")
    assert loaded is app
    assert isinstance(loaded, FakeApp)
    assert isinstance(loaded, ToolApp)


def test_load_app_follows_dotted_attributes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``module:holder.attr`` walks attributes."""
    (tmp_path / "holder_module.py").write_text(
        "from tests.fusion_core._fake_app import app\n\nclass Holder:\n    app = app\n"
    )
    monkeypatch.syspath_prepend(tmp_path)
    assert load_app("holder_module:Holder.app") is app


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("tests.fusion_core._fake_app", "must look like 'package.module:app'"),
        (":app", "must look like 'package.module:app'"),
        ("tests.fusion_core._fake_app:", "must look like 'package.module:app'"),
        ("no_such_module_xyz:app", "no module named 'no_such_module_xyz'"),
        ("tests.no_such_module:app", "no module named 'tests.no_such_module'"),
        ("tests.fusion_core._fake_app:nope", "has no attribute 'nope'"),
        ("tests.fusion_core._fake_app:app.nope", "has no attribute 'app.nope'"),
        ("json:dumps", "names a function, not an app: it has no definitions() or call()"),
        ("tests.fusion_core._fake_app:CALLS", "names a dict, not an app"),
    ],
)
def test_load_app_says_what_is_wrong(spec: str, message: str) -> None:
    """Each wrong spec raises ``AppLoadError`` naming the part that is missing."""
    with pytest.raises(AppLoadError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        load_app(spec)
    assert info.value.spec == spec
    assert isinstance(info.value, ImportError)


def test_load_app_does_not_hide_the_apps_own_import_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module the app itself imports is missing: that error surfaces unchanged."""
    (tmp_path / "broken_app_module.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.syspath_prepend(tmp_path)
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz") as info:
        load_app("broken_app_module:app")
    assert not isinstance(info.value, AppLoadError)


# --- the command line ----------------------------------------------------------------


@pytest.mark.parametrize("argv", [["--help"], ["serve", "--help"]])
def test_cli_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``--help`` prints usage and exits 0."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
    assert "usage: python -m fusion_core" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "the following arguments are required: COMMAND"),
        (["serve"], "the following arguments are required: MODULE:APP"),
        (["serve", "json:dumps"], "not an app"),
        (["serve", "nope"], "must look like 'package.module:app'"),
        (["serve", "tests.fusion_core._fake_app:app", "--port", "9"], "need --http"),
        (["serve", "tests.fusion_core._fake_app:app", "--host", "::1"], "need --http"),
        (["serve", "tests.fusion_core._fake_app:app", "--http", "--port", "70000"], "65535"),
        (["serve", "tests.fusion_core._fake_app:app", "--port", "x"], "invalid int value"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_cli_errors_go_to_stderr_with_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Usage errors and bad specs: a message on stderr, nothing on stdout, exit 2."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_importing_fusion_core_does_not_import_mcp() -> None:
    """The server, client and CLI modules import ``mcp`` only when they run."""
    code = textwrap.dedent(
        """
        import sys
        import fusion_core, fusion_core._server, fusion_core._client, fusion_core.__main__
        heavy = {"mcp", "mcp_types", "uvicorn", "starlette"}
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
        assert not loaded, loaded
        """
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=30)
