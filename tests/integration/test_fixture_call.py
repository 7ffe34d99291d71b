"""``fusion_call`` and the result object, in a downstream project (in process)."""

from __future__ import annotations

import sys

import pytest

from tests._support.pytester_app import CALL_TESTS


def test_fusion_call_in_process(shop: pytest.Pytester) -> None:
    """With --fusion-app, fusion_call reads the hidden view in process."""
    shop.makepyfile(test_shop=CALL_TESTS)
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)


ECHO_APP = """
from fusion_core import FusionApp, Tool

tool = Tool("echo", description="Says what it got.")


@tool.action("show", description="The argument's type and value.")
async def show(x: object = None) -> dict:
    return {"type": type(x).__name__, "value": repr(x)}


app = FusionApp([tool])
"""
ECHO_TESTS = """
import math

import pytest


def test_a_set_arrives_as_the_list_a_server_reads(fusion_call):
    assert fusion_call("echo", "show", x={2, 1}).data == {"type": "list", "value": "[1, 2]"}


def test_an_int_key_arrives_as_a_str(fusion_call):
    assert fusion_call("echo", "show", x={1: "a"}).data == {"type": "dict", "value": "{'1': 'a'}"}


def test_a_nan_is_refused(fusion_call):
    fusion_call("echo", "show", x=[0.5, math.nan])
"""


@pytest.mark.parametrize(
    "where",
    ["--fusion-app=echo:app", f"--fusion-server={sys.executable} -m fusion_core serve echo:app"],
    ids=["in-process", "stdio"],
)
def test_fusion_call_sends_the_same_arguments_on_every_transport(
    pytester: pytest.Pytester, where: str
) -> None:
    """Python values go as the wire carries them, in process too; a NaN fails naming its place."""
    pytester.makepyfile(echo=ECHO_APP, test_echo=ECHO_TESTS)
    result = pytester.runpytest_subprocess(where, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    assert (
        "fusion_call('echo'): arguments['x'][1] is nan: NaN and the infinities are not "
        "JSON (the wire would carry null)"
    ) in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


HOOKED = """
from fusion_core.{module} import use_fusion
from helpdesk import make_server as plain


def make_server():
    return use_fusion(plain())
"""
FUSION_UNKNOWN_TESTS = """
def test_unknown(fusion_call):
    result = fusion_call("nope")
    assert result.is_error
    assert result.data is None
    assert result.error.code == "UNKNOWN_TOOL"
    assert result.error.message == 'Tool "nope" does not exist.'


def test_another_case(fusion_call):
    assert fusion_call("Open_Ticket").error.code == "UNKNOWN_TOOL"
"""
PLAIN_UNKNOWN_TESTS = """
def test_unknown(fusion_call):
    assert fusion_call("nope").error.code == "UNKNOWN_TOOL"
"""


@pytest.mark.parametrize("kind", ["FusionApp", "MCPServer", "FastMCP"])
def test_an_unknown_tool_is_an_unknown_tool_envelope(pytester: pytest.Pytester, kind: str) -> None:
    """A name the server has no tool by: ``.error`` is the ``UNKNOWN_TOOL`` envelope.

    On a FusionApp and on a framework's server under ``use_fusion`` alike.
    """
    pytest.importorskip("fastmcp")
    from tests._support.frameworks import FRAMEWORK_SOURCES  # noqa: PLC0415

    if kind == "FusionApp":
        pytester.makepyfile(echo=ECHO_APP)
        spec = "echo:app"
    else:
        module = "mcpserver" if kind == "MCPServer" else "fastmcp"
        pytester.makepyfile(helpdesk=FRAMEWORK_SOURCES[kind], hooked=HOOKED.format(module=module))
        spec = "hooked:make_server"
    pytester.makepyfile(test_unknown=FUSION_UNKNOWN_TESTS)
    pytester.syspathinsert()
    result = pytester.runpytest(f"--fusion-app={spec}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize(
    ("kind", "text"),
    [("MCPServer", "'Unknown tool: nope'"), ("FastMCP", "\"Unknown tool: 'nope'\"")],
)
def test_a_plain_servers_unknown_tool_fails_naming_the_tool_and_the_listed_ones(
    pytester: pytest.Pytester, kind: str, text: str
) -> None:
    """Without ``use_fusion`` the answer is bare text: ``.error`` fails at once, saying so.

    Not ``None`` (and an AttributeError on ``.code`` later): a ``WireFormatError``
    naming the tool, quoting the text and listing the tools the server lists.
    """
    pytest.importorskip("fastmcp")
    from tests._support.frameworks import FRAMEWORK_SOURCES  # noqa: PLC0415

    pytester.makepyfile(helpdesk=FRAMEWORK_SOURCES[kind], test_unknown=PLAIN_UNKNOWN_TESTS)
    pytester.syspathinsert()
    result = pytester.runpytest("--fusion-app=helpdesk:make_server", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    expected = (
        "E   *WireFormatError: block 0: the call of 'nope' was answered with an "
        f"error without an envelope (isError is true; plain text, {text}), so it has no "
        ".data, .error or .validation: read its text in .content. The server has no tool "
        "'nope': tools/list names 'list_tickets', 'open_ticket'"
    )
    result.stdout.fnmatch_lines([expected])
    assert "AttributeError" not in result.stdout.str()
