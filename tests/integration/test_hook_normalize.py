"""The ``pytest_fusion_normalize`` hook, implemented in a downstream conftest."""

from __future__ import annotations

import pytest


def test_normalize_hook_scrubs_snapshots_only(shop: pytest.Pytester) -> None:
    """pytest_fusion_normalize rewrites blocks before snapshot comparison, not results."""
    shop.makeconftest(
        """
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_normalize(blocks, kinds):
    for index, kind in enumerate(kinds):
        if kind == "data":
            blocks[index] = blocks[index].replace("INV-1", "<id>").replace("INV-2", "<id>")
"""
    )
    shop.makepyfile(
        test_norm="""
def test_same_snapshot(fusion_call, fusion_snapshot):
    assert fusion_call("billing", "get", id="INV-1").data["id"] == "INV-1"
    assert fusion_call("billing", "get", id="INV-1") == fusion_snapshot
"""
    )
    args = ["--fusion-app=shop:app", "-p", "no:cacheprovider"]
    shop.runpytest(*args, "--snapshot-update").assert_outcomes(passed=1)
    stored = next(shop.path.rglob("*.wire")).read_text()
    assert '"id": "<id>"' in stored
    assert "INV-1" not in stored
    shop.runpytest(*args).assert_outcomes(passed=1)
