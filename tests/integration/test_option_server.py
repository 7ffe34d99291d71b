"""``--fusion-server``: a server in any language, by command line (stdio)."""

from __future__ import annotations

import sys

import pytest

from tests._support.pytester_app import CALL_TESTS


def test_a_server_by_command(shop: pytest.Pytester) -> None:
    """The same tests pass against a server started from a command line."""
    shop.makepyfile(test_shop=CALL_TESTS.replace("def test_app_fixture", "def _unused"))
    command = f"{sys.executable} -m fusion_core serve shop:app"
    result = shop.runpytest(f"--fusion-server={command}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)


def test_the_ini_key_names_the_server_too(shop: pytest.Pytester) -> None:
    """``fusion_server`` in the ini file works as the option does."""
    shop.makeini(f"[pytest]\nfusion_server = {sys.executable} -m fusion_core serve shop:app\n")
    shop.makepyfile(test_one="def test_get(fusion_call):\n    fusion_call('billing', 'list')\n")
    shop.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
