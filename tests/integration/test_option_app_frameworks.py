"""``--fusion-app``, the ini key and the ``fusion_app`` fixture with another framework's server.

``MCPServer``, ``FastMCP`` and the SDK's ``Server``, as their authors write
them (``tests/_support/frameworks.py``), driven in process through their own
in-memory client.
"""

from __future__ import annotations

import sys

import pytest

from tests._support.frameworks import FRAMEWORK_SOURCES

# Loaded before any in-process pytester run, which would drop what it imported
# (see this folder's conftest): every run shares one copy of each framework.
pytest.importorskip("mcp.server.mcpserver")
pytest.importorskip("fastmcp")

KINDS = sorted(FRAMEWORK_SOURCES)

USER_TESTS = """
def test_open(fusion_call):
    result = fusion_call("open_ticket", title="printer")
    assert result.content == ["#1 printer" + ("" if KIND == "Server" else " (p1)")]


def test_listed(fusion_app):
    assert fusion_app is not None
"""


@pytest.fixture(params=KINDS)
def helpdesk(request: pytest.FixtureRequest, pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory with the framework's ``helpdesk`` module and the user's tests."""
    kind: str = request.param
    pytester.makepyfile(helpdesk=FRAMEWORK_SOURCES[kind])
    pytester.makepyfile(test_user=f"KIND = {kind!r}\n{USER_TESTS}")
    pytester.syspathinsert()
    return pytester


@pytest.mark.parametrize("attribute", ["mcp", "make_server"])
def test_the_option_names_a_server_or_its_factory(
    helpdesk: pytest.Pytester, attribute: str
) -> None:
    """``--fusion-app=helpdesk:mcp`` (or its factory) serves the user's tests in process."""
    result = helpdesk.runpytest(f"--fusion-app=helpdesk:{attribute}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_the_ini_key_names_a_factory(helpdesk: pytest.Pytester) -> None:
    """``fusion_app = helpdesk:make_server`` in the ini file does the same."""
    helpdesk.makeini("[pytest]\nfusion_app = helpdesk:make_server\n")
    helpdesk.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_a_conftest_may_return_the_server(helpdesk: pytest.Pytester) -> None:
    """A ``fusion_app`` override returning the server (or a factory) is served in process."""
    helpdesk.makeconftest(
        "import pytest, helpdesk\n\n@pytest.fixture(scope='session')\n"
        "def fusion_app():\n    return helpdesk.make_server\n"
    )
    helpdesk.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_an_async_test_awaits_the_server(helpdesk: pytest.Pytester) -> None:
    """``fusion_call_async`` reaches the server from the test's own event loop."""
    helpdesk.makepyfile(
        test_async="""
import pytest

@pytest.mark.anyio
async def test_open_async(fusion_call_async):
    result = await fusion_call_async("open_ticket", title="async")
    assert result.content[0].startswith("#")
"""
    )
    result = helpdesk.runpytest(
        "--fusion-app=helpdesk:make_server", "-p", "no:cacheprovider", "test_async.py"
    )
    result.assert_outcomes(passed=1)


def test_contract_tests_are_collected_for_each_tool(helpdesk: pytest.Pytester) -> None:
    """Under ``--fusion`` every tool gets its valid and invalid contract test."""
    result = helpdesk.runpytest(
        "--fusion", "--fusion-app=helpdesk:mcp", "--collect-only", "-q", "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines(
        [
            "helpdesk.py::fusion-contract::open_ticket[[]valid[]]",
            "helpdesk.py::fusion-contract::open_ticket[[]invalid[]]",
            "helpdesk.py::fusion-contract::list_tickets[[]valid[]]",
            "helpdesk.py::fusion-contract::list_tickets[[]invalid[]]",
        ]
    )


def test_a_framework_spec_over_stdio_says_how(helpdesk: pytest.Pytester) -> None:
    """``--fusion-transport=stdio`` cannot serve a framework's server: the error says what can."""
    result = helpdesk.runpytest(
        "--fusion-app=helpdesk:mcp", "--fusion-transport=stdio", "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines(["*names a*which runs in process*--fusion-server=*"])


SNAPSHOT_TEST = """
def test_wire(fusion_call, fusion_snapshot):
    assert fusion_call("open_ticket", title="printer") == fusion_snapshot
    assert fusion_call("open_ticket", priority="high") == fusion_snapshot
    assert fusion_call("list_tickets") == fusion_snapshot
"""


def test_a_snapshot_recorded_over_stdio_passes_in_process(helpdesk: pytest.Pytester) -> None:
    """Snapshots written against ``python helpdesk.py`` hold, unchanged, in process.

    And a changed answer in process fails them: the comparison is real.
    """
    helpdesk.makepyfile(test_user=SNAPSHOT_TEST)
    server = f"--fusion-server={sys.executable} helpdesk.py"
    recorded = helpdesk.runpytest_subprocess(
        server, "--snapshot-update", "-p", "no:cacheprovider", timeout=300
    )
    recorded.assert_outcomes(passed=1)
    snapshots = sorted(helpdesk.path.rglob("*.wire"))
    assert snapshots
    before = [path.read_bytes() for path in snapshots]
    in_process = helpdesk.runpytest("--fusion-app=helpdesk:make_server", "-p", "no:cacheprovider")
    in_process.assert_outcomes(passed=1)
    assert [path.read_bytes() for path in snapshots] == before
    source = (helpdesk.path / "helpdesk.py").read_text(encoding="utf-8")
    helpdesk.makepyfile(helpdesk=source.replace("#{len", "No.{len"))
    changed = helpdesk.runpytest("--fusion-app=helpdesk:make_server", "-p", "no:cacheprovider")
    changed.assert_outcomes(failed=1)


ADAPTER = """
import pytest


class Adapter:
    def definitions(self):
        return [{"name": "echo", "inputSchema": {"type": "object"}}]

    async def call(self, name, arguments, ctx=None):
        if arguments.get("broken"):
            return ["not", "a", "dict"]
        return {"content": [{"type": "text", "text": '{"a": 1}'}], "isError": False}


@pytest.fixture(scope="session")
def fusion_app():
    return Adapter()
"""


def test_an_app_may_answer_with_a_wire_dict(pytester: pytest.Pytester) -> None:
    """A hand-written ``ToolApp`` returning an MCP wire dict is read from its bytes.

    Anything else is a ``TypeError`` naming both accepted answers.
    """
    pytester.makeconftest(ADAPTER)
    pytester.makepyfile(
        test_adapter="""
import pytest


def test_dict(fusion_call):
    result = fusion_call("echo")
    assert result.content == ['{"a": 1}']
    assert result.wire_dict["isError"] is False


def test_not_a_dict(fusion_call):
    with pytest.raises(TypeError, match="must return a ToolResponse or an MCP tool-result dict"):
        fusion_call("echo", broken=True)
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


UNADAPTED = """
from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer

from fusion_core import response


def make_server():
    server = MCPServer("plain") if KIND == "MCPServer" else FastMCP("plain")
    decorate = server.tool() if KIND == "MCPServer" else server.tool

    @decorate
    def built():
        return response({"id": 1}).build()

    @decorate
    def unbuilt():
        return response({"id": 1})

    @decorate
    def listed():
        return {"first": response({"id": 1}), "second": response({"id": 2})}

    return server
"""


@pytest.mark.parametrize("kind", ["MCPServer", "FastMCP"])
def test_a_response_sent_without_the_integration_fails_naming_it(
    pytester: pytest.Pytester, kind: str
) -> None:
    """Under ``--fusion`` a serialized response or a builder's repr fails, saying what to apply."""
    pytester.makepyfile(plain=f"KIND = {kind!r}\n{UNADAPTED}")
    pytester.makepyfile(
        test_plain="""
import pytest

@pytest.mark.parametrize("tool", ["built", "unbuilt", "listed"])
def test_call(fusion_call, tool):
    fusion_call(tool)
"""
    )
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--fusion",
        "--fusion-app=plain:make_server",
        "-p",
        "no:cacheprovider",
        "-k",
        "test_call",
        "-rA",
    )
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*[[]unadapted[]] block 0 is the JSON of a whole tool result*apply use_fusion(server)*",
            "*[[]unadapted[]] block 0 is the repr of a ResponseBuilder*apply use_fusion(server)*",
            "*[[]unadapted[]] block 0 holds the repr of a ResponseBuilder*use_fusion(server)*",
        ],
        consecutive=False,
    )


CONTEXT_TESTS = """
def test_open(fusion_call):
    fusion_call("open_ticket", title="printer")
"""


@pytest.mark.parametrize(
    "how",
    [
        pytest.param(
            "def pytest_fusion_context(app, request):\n    return {'user': 'ann'}\n", id="hook"
        ),
        pytest.param(
            "import pytest\n\n@pytest.fixture\ndef fusion_context():\n    return {'user': 'ann'}\n",
            id="fixture",
        ),
    ],
)
def test_a_fusion_context_for_a_framework_server_fails_saying_why(
    helpdesk: pytest.Pytester, how: str
) -> None:
    """A context the framework's tools would never see fails the test naming what to do.

    (It was dropped without a word: the tools ran with the framework's own context.)
    """
    helpdesk.makeconftest(how)
    helpdesk.makepyfile(test_user=CONTEXT_TESTS)
    result = helpdesk.runpytest("--fusion-app=helpdesk:make_server", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*the fusion_context (dict) cannot reach make_server(), a server on *own context*factory*"]
    )
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize("argument", ["context={'user': 'ann'}", "merge_context={'user': 'ann'}"])
def test_context_arguments_for_a_framework_server_fail_the_test_saying_why(
    helpdesk: pytest.Pytester, argument: str
) -> None:
    """``context=`` (or ``merge_context=``) fails that test alone, naming the framework's way.

    Like the fixture and hook cases: the message, no traceback, and the next
    tests (sync and async) still run (it was a ``UsageError`` raised through
    the fixture, with its traceback). The message names the framework, not "inproc".
    """
    option = argument.split("=", 1)[0] + "="
    helpdesk.makepyfile(
        test_user=f"""
import pytest


def test_open(fusion_call):
    fusion_call("open_ticket", {argument}, title="printer")


@pytest.mark.anyio
async def test_open_async(fusion_call_async):
    await fusion_call_async("open_ticket", {argument}, title="printer")


def test_after(fusion_call):
    assert not fusion_call("open_ticket", title="lamp").is_error
"""
    )
    result = helpdesk.runpytest("--fusion-app=helpdesk:mcp", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines([f"*{option} cannot reach mcp, a server on *own context*factory*"])
    output = result.stdout.str()
    assert "over inproc" not in output
    assert "Traceback" not in output
    assert "UsageError" not in output
    assert "_session.py" not in output


PICTURES = """
from mcp.server.mcpserver import MCPServer
from mcp.types import ImageContent

mcp = MCPServer("pictures")


@mcp.tool()
def picture() -> ImageContent:
    \"\"\"A picture: an image block, not a Fusion response.\"\"\"
    return ImageContent(type="image", data="aGk=", mimeType="image/png")
"""


def test_a_non_fusion_answer_is_read_only_when_a_test_asks(pytester: pytest.Pytester) -> None:
    """The view of an in-memory answer is parsed on first use, not by ``fusion_call`` itself.

    A test checking the wire of a tool that answers with an image gets its
    result; reading ``data`` raises the reader's ``WireFormatError`` naming
    the block. (Before, ``fusion_call`` itself raised it, so even the wire
    could not be checked.)
    """
    pytester.makepyfile(pictures=PICTURES)
    pytester.makepyfile(
        test_user="""
import pytest

from fusion_core import WireFormatError


def test_the_wire(fusion_call):
    result = fusion_call("picture")
    assert not result.is_error
    assert result.wire_dict["content"][0]["type"] == "image"


def test_the_view(fusion_call):
    result = fusion_call("picture")
    with pytest.raises(WireFormatError, match="every Fusion content block"):
        result.data
"""
    )
    pytester.syspathinsert()
    result = pytester.runpytest("--fusion-app=pictures:mcp", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
