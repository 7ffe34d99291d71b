"""The ``pytest_fusion_context`` hook, implemented in a downstream conftest."""

from __future__ import annotations

import pytest


def test_context_hook_and_fixture_override(shop: pytest.Pytester) -> None:
    """pytest_fusion_context makes the context; a fusion_context fixture overrides it."""
    shop.makeconftest(
        """
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_context(app, request):
    return "from-hook"
"""
    )
    shop.makepyfile(
        test_ctx="""
import pytest


def test_hook(fusion_call):
    assert fusion_call("billing", "whoami").data == {"user": "from-hook"}


def test_per_call(fusion_call):
    assert fusion_call("billing", "whoami", context="per-call").data == {"user": "per-call"}


class TestOverride:
    @pytest.fixture
    def fusion_context(self):
        return "from-fixture"

    def test_fixture(self, fusion_call):
        assert fusion_call("billing", "whoami").data == {"user": "from-fixture"}
"""
    )
    shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider").assert_outcomes(passed=3)
