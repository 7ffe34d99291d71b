"""``fusion_call`` and the result object, in a downstream project (in process)."""

from __future__ import annotations

import pytest

from tests._support.pytester_app import CALL_TESTS


def test_fusion_call_in_process(shop: pytest.Pytester) -> None:
    """With --fusion-app, fusion_call reads the hidden view in process."""
    shop.makepyfile(test_shop=CALL_TESTS)
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)
