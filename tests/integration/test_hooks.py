"""pytest-mcpfusion's own hooks, implemented in a downstream conftest."""

from __future__ import annotations

import pytest


def test_context_hook_and_fixture_override(shop: pytest.Pytester) -> None:
    """pytest_fusion_context makes the context; a fusion_context fixture overrides it."""
    shop.makeconftest(
        '''
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_context(app, request):
    return "from-hook"
'''
    )
    shop.makepyfile(
        test_ctx='''
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
'''
    )
    shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_normalize_hook_scrubs_snapshots_only(shop: pytest.Pytester) -> None:
    """pytest_fusion_normalize rewrites blocks before snapshot comparison, not results."""
    shop.makeconftest(
        '''
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_normalize(blocks, kinds):
    for index, kind in enumerate(kinds):
        if kind == "data":
            blocks[index] = blocks[index].replace("INV-1", "<id>").replace("INV-2", "<id>")
'''
    )
    shop.makepyfile(
        test_norm='''
def test_same_snapshot(fusion_call, fusion_snapshot):
    assert fusion_call("billing", "get", id="INV-1").data["id"] == "INV-1"
    assert fusion_call("billing", "get", id="INV-1") == fusion_snapshot
'''
    )
    args = ["--fusion-app=shop:app", "-p", "no:cacheprovider"]
    shop.runpytest(*args, "--snapshot-update").assert_outcomes(passed=1)
    stored = next(shop.path.rglob("*.wire")).read_text()
    assert '"id": "<id>"' in stored
    assert "INV-1" not in stored
    shop.runpytest(*args).assert_outcomes(passed=1)


def test_check_hook_fails_the_call_under_fusion(shop: pytest.Pytester) -> None:
    """pytest_fusion_check adds house rules, enforced with --fusion."""
    shop.makeconftest(
        '''
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_check(result):
    if result.data and isinstance(result.data, dict) and "status" in result.data:
        return ["house rule: no status field on the wire"]
    return None
'''
    )
    shop.makepyfile(
        test_rule='''
def test_get(fusion_call):
    fusion_call("billing", "get", id="INV-1")
'''
    )
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider", "-k", "test_get")
    result.assert_outcomes(passed=1)
    result = shop.runpytest(
        "--fusion", "--fusion-app=shop:app", "-p", "no:cacheprovider", "-k", "test_get"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*house rule: no status field on the wire*"])


def test_report_hook_receives_the_report(shop: pytest.Pytester) -> None:
    """pytest_fusion_report gets the wire report at the end of a --fusion run."""
    shop.makeconftest(
        '''
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_report(report, config):
    print("REPORT calls=%d blocks=%d" % (sum(report.calls.values()), sum(report.blocks.values())))
'''
    )
    shop.makepyfile(
        test_report='''
def test_get(fusion_call):
    fusion_call("billing", "get", id="INV-1")
'''
    )
    result = shop.runpytest(
        "--fusion", "--fusion-app=shop:app", "-p", "no:cacheprovider", "-s", "-k", "test_get"
    )
    result.stdout.fnmatch_lines(["REPORT calls=1 blocks=2"])
