"""The ``pytest_fusion_check`` hook, implemented in a downstream conftest."""

from __future__ import annotations

import pytest


def test_check_hook_fails_the_call_under_fusion(shop: pytest.Pytester) -> None:
    """pytest_fusion_check adds house rules, enforced with --fusion."""
    shop.makeconftest(
        """
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_check(result):
    if result.data and isinstance(result.data, dict) and "status" in result.data:
        return ["house rule: no status field on the wire"]
    return None
"""
    )
    shop.makepyfile(
        test_rule="""
def test_get(fusion_call):
    fusion_call("billing", "get", id="INV-1")
"""
    )
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider", "-k", "test_get")
    result.assert_outcomes(passed=1)
    result = shop.runpytest(
        "--fusion", "--fusion-app=shop:app", "-p", "no:cacheprovider", "-k", "test_get"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*house rule: no status field on the wire*"])
