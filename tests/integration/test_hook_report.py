"""The ``pytest_fusion_report`` hook, implemented in a downstream conftest."""

from __future__ import annotations

import pytest


def test_report_hook_receives_the_report(shop: pytest.Pytester) -> None:
    """pytest_fusion_report gets the wire report at the end of a --fusion run."""
    shop.makeconftest(
        """
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_report(report, config):
    print("REPORT calls=%d blocks=%d" % (sum(report.calls.values()), sum(report.blocks.values())))
"""
    )
    shop.makepyfile(
        test_report="""
def test_get(fusion_call):
    fusion_call("billing", "get", id="INV-1")
"""
    )
    result = shop.runpytest(
        "--fusion", "--fusion-app=shop:app", "-p", "no:cacheprovider", "-s", "-k", "test_get"
    )
    result.stdout.fnmatch_lines(["REPORT calls=1 blocks=2"])
