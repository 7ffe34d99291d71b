"""A server started by command gets the test process's environment (``fusion_server_env``).

The MCP SDK starts a server with a minimal environment (``PATH``, ``HOME``...),
so a variable the user exported for the server (its own configuration) was
missing and the only error was "Connection closed". The plugin passes every
variable; ``fusion_server_env`` lists the ones to pass when not all should go.
"""

from __future__ import annotations

import sys

import pytest

SERVER = '''
import os
import sys

from mcp.server.mcpserver import MCPServer

token = os.environ.get("SHOP_API_TOKEN")
if token is None:
    sys.exit("SHOP_API_TOKEN is not set: the server cannot start")
mcp = MCPServer("configured")


@mcp.tool()
def whoami() -> dict[str, object]:
    """The token, and whether a variable outside the allow-list arrived."""
    return {"token": token, "other": os.environ.get("SHOP_OTHER")}


mcp.run()
'''

TEST = """
def test_whoami(fusion_call):
    assert fusion_call("whoami").data == {EXPECTED}
"""


@pytest.fixture
def configured(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A server script reading its configuration from the environment, which the test sets."""
    monkeypatch.setenv("SHOP_API_TOKEN", "t0k3n")
    monkeypatch.setenv("SHOP_OTHER", "other")
    pytester.makepyfile(server=SERVER)
    return pytester


def test_the_server_gets_the_test_environment(configured: pytest.Pytester) -> None:
    """By default every variable of the test process reaches the server."""
    configured.makepyfile(
        test_env=TEST.replace("{EXPECTED}", '{"token": "t0k3n", "other": "other"}')
    )
    result = configured.runpytest(f"--fusion-server={sys.executable} server.py")
    result.assert_outcomes(passed=1)


def test_the_ini_key_restricts_it(configured: pytest.Pytester) -> None:
    """``fusion_server_env`` passes only the variables it names (fnmatch patterns)."""
    configured.makeini("[pytest]\nfusion_server_env = SHOP_API_*\n")
    configured.makepyfile(test_env=TEST.replace("{EXPECTED}", '{"token": "t0k3n", "other": None}'))
    result = configured.runpytest(f"--fusion-server={sys.executable} server.py")
    result.assert_outcomes(passed=1)


def test_an_empty_list_gives_the_sdk_minimum_and_the_error_says_why(
    configured: pytest.Pytester,
) -> None:
    """With no variable passed the server stops, and its stderr says which one it missed."""
    configured.makeini("[pytest]\nfusion_server_env =\n")
    configured.makepyfile(test_env=TEST.replace("{EXPECTED}", "{}"))
    result = configured.runpytest_subprocess(
        f"--fusion-server={sys.executable} server.py", "--fusion"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "| SHOP_API_TOKEN is not set: the server cannot start" in result.stderr.str()
