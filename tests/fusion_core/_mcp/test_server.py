"""The MCP server: a real SDK client sees exactly what the app builds in process.

The SDK's own ``mcp.Client`` talks to ``build_server(app)`` in memory (both the
direct 2026-07-28 path and JSON-RPC messages), to ``python -m fusion_core serve``
over stdio, and to the same command with ``--http``.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

import anyio
import pytest

import fusion_core
from fusion_core import FusionApp, Tool, ToolResponse, success, success_structured
from fusion_core.__main__ import main
from fusion_core._mcp._server import AppLoadError, ToolApp, build_server, load_app
from tests._support.fake_app import CALLS, ROOT, SERVE_STDIO, FakeApp, OneToolApp, app, http_server
from tests._support.hostile_results import HOSTILE_RESULTS, hostile_app
from tests._support.servers import http_connection, ipv6_loopback, post_initialize, serving
from tests._support.servers import serve_http as serve_command

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


def _raising_app() -> OneToolApp:
    """An app whose pipeline itself raises on its first call (a bug): the server must survive."""
    calls = 0

    async def answer(_arguments: Mapping[str, Any] | None, _ctx: Any) -> ToolResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            msg = "secret detail <in> the exception"
            raise RuntimeError(msg)
        return success("recovered")

    return OneToolApp("boom", answer)


async def test_an_app_that_raises_gets_an_internal_error_envelope(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """No exception text on the wire, the exception is logged, the server keeps serving."""
    from mcp import Client  # noqa: PLC0415

    with caplog.at_level(logging.ERROR, logger="fusion_core.server"):
        async with Client(build_server(_raising_app())) as client:
            failed = await client.call_tool("boom", {})
            recovered = await client.call_tool("boom", {})
    text = _seen(failed)["texts"][0]
    assert failed.is_error
    assert text.startswith('<tool_error code="INTERNAL_ERROR" severity="error">')
    assert "[boom]" in text
    assert "secret" not in text
    assert _seen(recovered)["texts"] == ["recovered"]
    assert "secret detail" in caplog.text


async def _echo_ctx(_arguments: Mapping[str, Any] | None, ctx: Any) -> ToolResponse:
    """Echoes the ``ctx`` the server hands the app."""
    return success({"ctx": ctx})


async def test_without_a_context_factory_the_app_gets_none() -> None:
    """The default ``ctx`` is ``None``, as for an in-process ``await app.call(...)``."""
    from mcp import Client  # noqa: PLC0415

    async with Client(build_server(OneToolApp("whoami", _echo_ctx))) as client:
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

    server = build_server(
        OneToolApp("whoami", _echo_ctx), context_factory=async_factory if is_async else factory
    )
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("whoami", {})
    assert _seen(result)["texts"] == ['{\n  "ctx": "tools/call via 2025-11-25"\n}']


async def _list_structured(_arguments: Mapping[str, Any] | None, _ctx: Any) -> ToolResponse:
    """``structuredContent`` that is not a JSON object."""
    return success_structured([1, 2])


async def test_non_object_structured_content_needs_protocol_2026() -> None:
    """Pinned SDK behaviour: before 2026-07-28 only an object may be structuredContent."""
    from mcp import Client, MCPError  # noqa: PLC0415

    async with Client(build_server(OneToolApp("rows", _list_structured))) as client:
        assert (await client.call_tool("rows", {})).structured_content == [1, 2]
    async with Client(build_server(OneToolApp("rows", _list_structured)), mode="legacy") as client:
        with pytest.raises(MCPError, match="invalid result"):
            await client.call_tool("rows", {})


async def test_server_info_defaults_to_the_app_name_and_package_version() -> None:
    """``serverInfo`` is the app's ``name`` and this package's version, not ``fusion``/empty."""
    from mcp import Client  # noqa: PLC0415

    named = FusionApp([Tool("t").action("a", lambda: "a")], name="billing")
    for served, expected in ((named, "billing"), (app, "fusion")):
        async with Client(build_server(served), mode="legacy") as client:
            assert client.server_info is not None
            info = (client.server_info.name, client.server_info.version)
            assert info == (expected, fusion_core.__version__)


def test_a_server_name_that_cannot_be_sent_is_refused_at_build() -> None:
    """A lone surrogate in the server's name would break ``initialize``: refused up front."""
    with pytest.raises(ValueError, match="lone surrogate"):
        build_server(app, name="bad\ud800name")


def test_a_fusion_app_answers_schema_lookups_without_a_definitions_rebuild() -> None:
    """The SDK's ``Mcp-Param-*`` check gets the app's cached schema lookup."""
    tool = Tool("t").action("a", lambda n=1: n)
    served = FusionApp([tool])
    server = build_server(served)
    assert server.get_tool_input_schema is not None
    assert server.get_tool_input_schema("t") == served.definitions()[0]["inputSchema"]
    assert server.get_tool_input_schema("nope") is None
    scanned = build_server(app).get_tool_input_schema  # an app without its own lookup
    assert scanned is not None
    assert scanned("echo") == app.definitions()[3]["inputSchema"]


async def test_a_result_the_sdk_cannot_encode_is_an_envelope(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Lone surrogates or objects anywhere in a result: INTERNAL_ERROR, logged, serving goes on."""
    from mcp import Client  # noqa: PLC0415

    with caplog.at_level(logging.CRITICAL, logger="fusion_core.server"):
        async with Client(build_server(hostile_app)) as client:
            for name in HOSTILE_RESULTS:
                result = await client.call_tool(name, {})
                text = _seen(result)["texts"][0]
                if name == "fine":
                    assert text == "still serving ✓"
                    continue
                assert result.is_error, name
                assert text.startswith('<tool_error code="INTERNAL_ERROR"'), name
                assert f"[{name}] the server could not encode" in text
                # Not "retry": the same call gives the same unsendable result.
                assert "<recovery>The result cannot be sent; the same call will most" in text
                assert result.structured_content is None


async def test_a_stdio_server_survives_results_it_cannot_encode() -> None:
    """Over a real stdio pipe: a result with a lone surrogate, then calls that still work.

    Before the fix the SDK raised while writing the message and the process
    died ("Connection closed") for every later call.
    """
    from mcp import Client, StdioServerParameters  # noqa: PLC0415

    command = [*SERVE_STDIO[:-1], "tests._support.hostile_results:hostile_app"]
    parameters = StdioServerParameters(command=command[0], args=command[1:], cwd=ROOT)
    async with Client(parameters, read_timeout_seconds=15) as client:
        for name in [*HOSTILE_RESULTS, *HOSTILE_RESULTS]:
            result = await client.call_tool(name, {})
            assert result.is_error is (name != "fine"), name


# --- over real transports ------------------------------------------------------------


async def test_stdio_subprocess_serves_exactly_the_app() -> None:
    """``python -m fusion_core serve module:app`` over stdio, with the SDK's client."""
    from mcp import Client, StdioServerParameters  # noqa: PLC0415

    parameters = StdioServerParameters(command=SERVE_STDIO[0], args=SERVE_STDIO[1:], cwd=ROOT)
    async with Client(parameters, read_timeout_seconds=15) as client:
        await _assert_serves_app(client)


def _frozen_objects() -> str:
    import gc  # noqa: PLC0415

    return str(gc.get_freeze_count())


heap_app: Final = FusionApp(
    [Tool("heap", "The collector's state").action("frozen", _frozen_objects)]
)
"""Served over stdio by ``test_the_start_up_heap_is_frozen_before_serving``."""


async def test_the_start_up_heap_is_frozen_before_serving() -> None:
    """The app, its models and the SDK are frozen (``gc.freeze``): full collections skip them."""
    from mcp import Client, StdioServerParameters  # noqa: PLC0415

    command = [*SERVE_STDIO[:-1], f"{__name__}:heap_app"]
    parameters = StdioServerParameters(command=command[0], args=command[1:], cwd=ROOT)
    async with Client(parameters, read_timeout_seconds=15) as client:
        result = await client.call_tool("heap", {"action": "frozen"})
    assert int(_seen(result)["texts"][0]) > 20_000


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
    loaded = load_app("tests._support.fake_app:app")
    assert loaded is app
    assert isinstance(loaded, FakeApp)
    assert isinstance(loaded, ToolApp)


def test_load_app_follows_dotted_attributes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``module:holder.attr`` walks attributes."""
    (tmp_path / "holder_module.py").write_text(
        "from tests._support.fake_app import app\n\nclass Holder:\n    app = app\n"
    )
    monkeypatch.syspath_prepend(tmp_path)
    assert load_app("holder_module:Holder.app") is app


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("tests._support.fake_app", "must look like 'package.module:app'"),
        (":app", "must look like 'package.module:app'"),
        ("tests._support.fake_app:", "must look like 'package.module:app'"),
        ("no_such_module_xyz:app", "no module named 'no_such_module_xyz'"),
        ("tests.no_such_module:app", "no module named 'tests.no_such_module'"),
        ("tests._support.fake_app:nope", "has no attribute 'nope'"),
        ("tests._support.fake_app:app.nope", "has no attribute 'app.nope'"),
        ("json:dumps", "names a function, not an app: it has no definitions() or call()"),
        ("tests._support.fake_app:CALLS", "names a dict, not an app"),
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
    """``--help`` prints usage under the command's one name, ``fusion``, and exits 0."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
    assert f"usage: fusion {argv[0] if argv[0] == 'serve' else ''}".strip() in (
        capsys.readouterr().out
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "the following arguments are required: COMMAND"),
        (["serve"], "the following arguments are required: MODULE:APP"),
        (["serve", "json:dumps"], "not an app"),
        (["serve", "nope"], "must look like 'package.module:app'"),
        (["serve", "tests._support.fake_app:app", "--port", "9"], "need --http"),
        (["serve", "tests._support.fake_app:app", "--host", "::1"], "need --http"),
        (["serve", "tests._support.fake_app:app", "--http", "--port", "70000"], "65535"),
        (["serve", "tests._support.fake_app:app", "--port", "x"], "invalid int value"),
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
        import fusion_core, fusion_core._mcp._server, fusion_core._mcp._client, fusion_core.__main__
        heavy = {"mcp", "mcp_types", "uvicorn", "starlette"}
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
        assert not loaded, loaded
        """
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=30)


def test_cli_says_what_it_serves_over_stdio() -> None:
    """``serve`` names the app, the version and the transport on stderr; stdout stays clean."""
    done = subprocess.run(
        SERVE_STDIO,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == ""
    assert f"serving fusion {fusion_core.__version__} over stdio" in done.stderr


@contextlib.contextmanager
def _cli_http(*options: str, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """``serve --http --port 0``: the URL it prints on stderr; stopped (and waited for) on exit."""
    command = [*SERVE_STDIO, "--http", "--port", "0", *options]
    with serve_command(command, cwd=ROOT, env=env) as url:
        yield url


def _post(url: str, headers: Mapping[str, str]) -> int:
    """POST ``initialize`` to ``url`` with ``headers`` (``Host`` may be forged); the status."""
    with http_connection(url) as connection:
        return post_initialize(connection, urlsplit(url).path, headers)[0]


def test_cli_http_prints_its_url_and_serves_there() -> None:
    """``--port 0``: the printed URL is where the SDK's client finds the app."""
    from mcp import Client  # noqa: PLC0415

    async def check(url: str) -> None:
        async with Client(url, read_timeout_seconds=15) as client:
            listed = await client.list_tools()
            assert listed.tools[0].name == "invoices_list"

    with _cli_http() as url:
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/mcp")
        anyio.run(check, url)


def test_cli_bearer_token_comes_from_the_environment() -> None:
    """With the token variable set, requests need ``Authorization: Bearer <token>``."""
    with _cli_http("--token-env", "PROBE_TOKEN", env={"PROBE_TOKEN": "s3cret-token"}) as url:
        assert _post(url, {}) == 401
        assert _post(url, {"Authorization": "Bearer wrong"}) == 401
        assert _post(url, {"Authorization": "Bearer s3cret-token"}) == 200


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["--token-env", "UNSET_PROBE_TOKEN"], {}, "UNSET_PROBE_TOKEN is not set"),
        (["--token-env", "BLANK_PROBE"], {"BLANK_PROBE": "  "}, "BLANK_PROBE is set but blank"),
        ([], {"FUSION_SERVE_TOKEN": ""}, "FUSION_SERVE_TOKEN is set but blank"),
        (["--token", "abc"], {}, "unrecognized arguments: --token"),
    ],
)
def test_cli_refuses_a_missing_blank_or_command_line_token(
    argv: list[str],
    env: dict[str, str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A token variable named but unset, set but blank, or a token on the command line: exit 2."""
    monkeypatch.delenv("UNSET_PROBE_TOKEN", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SystemExit) as info:
        main(["serve", "tests._support.fake_app:app", "--http", *argv])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


# --- HTTP security: every loopback address, named hosts, the bearer token -----------------


LOOPBACK_BINDS: Final = ["127.0.0.1", "127.0.0.2", "127.1", "2130706434", "localhost", "::1"]


@pytest.mark.parametrize("host", LOOPBACK_BINDS)
async def test_every_loopback_bind_checks_host_and_origin(host: str) -> None:
    """DNS rebinding: a forged Host gets 421 and a foreign Origin 403, on any loopback spelling."""
    if ":" in host and not ipv6_loopback():
        pytest.skip("this machine has no IPv6 loopback")
    async with serving(app, host) as url:
        netloc = urlsplit(url).netloc
        port = urlsplit(url).port

        def statuses() -> list[int]:
            return [
                _post(url, {}),
                _post(url, {"Host": netloc}),
                _post(url, {"Host": f"localhost:{port}"}),
                _post(url, {"Host": f"attacker.example:{port}"}),
                _post(url, {"Host": "attacker.example"}),
                _post(url, {"Origin": "http://attacker.example"}),
                _post(url, {"Origin": f"http://{netloc}"}),
                _post(url, {"Origin": "http://localhost:5173"}),
            ]

        assert await anyio.to_thread.run_sync(statuses) == [200, 200, 200, 421, 421, 403, 200, 200]


async def test_allowed_hosts_and_origins_extend_the_checks() -> None:
    """``allowed_hosts``/``allowed_origins`` add names; everything else is still refused."""
    options = {"allowed_hosts": ["mcp.test"], "allowed_origins": ["https://app.test"]}
    async with serving(app, "127.0.0.3", **options) as url:
        port = urlsplit(url).port

        def statuses() -> list[int]:
            return [
                _post(url, {"Host": f"mcp.test:{port}"}),
                _post(url, {"Host": "mcp.test"}),
                _post(url, {"Host": f"other.test:{port}"}),
                _post(url, {"Origin": "https://app.test"}),
                _post(url, {"Origin": "https://mcp.test"}),
                _post(url, {"Origin": "https://evil.test"}),
            ]

        assert await anyio.to_thread.run_sync(statuses) == [200, 200, 421, 200, 200, 403]


async def test_a_bearer_token_guards_every_request() -> None:
    """Without the exact ``Authorization: Bearer <token>`` header: 401, whatever else is right."""
    async with serving(app, "127.0.0.1", bearer_token="t0ken") as url:

        def statuses() -> list[int]:
            return [
                _post(url, {}),
                _post(url, {"Authorization": "Bearer t0ke"}),
                _post(url, {"Authorization": "bearer t0ken"}),
                _post(url, {"Authorization": "Basic t0ken"}),
                _post(url, {"Authorization": "Bearer t0ken"}),
            ]

        assert await anyio.to_thread.run_sync(statuses) == [401, 401, 401, 401, 200]


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.255.255.254", True),
        ("127.1", True),
        ("0x7f.1", True),
        ("2130706433", True),
        ("::1", True),
        ("[::1]", True),
        ("0:0:0:0:0:0:0:1", True),
        ("::ffff:127.0.0.1", True),
        ("LocalHost.", True),
        ("0.0.0.0", False),
        ("::", False),
        ("128.0.0.1", False),
        ("10.0.0.1", False),
        ("::ffff:10.0.0.1", False),
        ("localhost.attacker.example", False),
        ("", False),
    ],
)
def test_loopback_is_read_as_an_address_not_a_string(host: str, loopback: bool) -> None:
    """Every spelling of 127.0.0.0/8 and ::1 is loopback; nothing else is."""
    from fusion_core._mcp._server_http_guard import is_loopback, transport_security  # noqa: PLC0415

    assert is_loopback(host) is loopback
    assert transport_security(host).enable_dns_rebinding_protection is loopback


def test_a_tool_result_reaches_the_sdk_as_plain_dicts_and_lists() -> None:
    """The read-only content of a ToolResponse is handed over as plain containers, same items.

    The SDK validates plain dicts in C and subclasses through Python; the
    bytes it writes are the same, only cheaper to get.
    """
    from fusion_core._mcp._server import _wire  # noqa: PLC0415 - the one private helper tested

    response = success_structured({"n": 1})
    wire = _wire(response)
    assert wire == {**response, "resultType": "complete"}
    assert list(wire) == [*response, "resultType"]
    assert type(wire["content"]) is list
    assert all(type(block) is dict for block in wire["content"])
    foreign = {"content": [{"type": "text", "text": "x"}, "odd"], "resultType": "partial"}
    assert _wire(foreign) == {**foreign, "resultType": "complete"}
