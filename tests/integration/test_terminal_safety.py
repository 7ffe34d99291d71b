"""``pytest --fusion`` against a hostile server: its text is shown, never obeyed (issue 25.8).

The server puts every hostile character at once (``tests/_support/hostile_terminal``)
into its tool and action names, descriptions, schema keys, block text, error
envelopes, a JSON-RPC error and its stderr. Every terminal path of the plugin
runs: contract test ids and failure screens, the wire report, assertion
explanations, a call that ends in a JSON-RPC error and a server that exits.
"""

from __future__ import annotations

import pytest

from tests._support.hostile_terminal import ALL_HOSTILE, hostile_server, unsafe_characters

TESTS = """
import pytest
from fusion_core import ServerConnectionError


def test_blocks_compared(fusion_call):
    assert fusion_call("plain") == fusion_call("t" + TEXT)


def test_server_error(fusion_call):
    fusion_call("fails")


def test_server_exits(fusion_call):
    fusion_call("exits")
"""


def test_no_server_text_reaches_the_terminal_raw_in_a_fusion_run(
    pytester: pytest.Pytester,
) -> None:
    """Contract failures, the wire report, assertion diffs and server errors: all shown safely."""
    command = hostile_server(pytester.path, ALL_HOSTILE)
    pytester.makepyfile(test_calls=f"TEXT = {ALL_HOSTILE!r}\n" + TESTS)
    result = pytester.runpytest_subprocess(
        "--fusion", f"--fusion-server={command}", "-p", "no:randomly", "-rA", "-v"
    )
    output = result.stdout.str() + result.stderr.str()
    assert "fusion-contract::" in output  # the contract tests ran
    assert "Fusion wire report" in output
    assert (
        "test_server_error FAILED" in output or "FAILED test_calls.py::test_server_error" in output
    )
    assert unsafe_characters(output) == []
    assert "⟨U+001B⟩" in output
    assert "⟨U+202E⟩" in output
