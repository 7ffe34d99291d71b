"""``fusion_call``, ``fusion_app`` and the result object, in a downstream project."""

from __future__ import annotations

import pytest

TESTS = '''
from pytest_mcpfusion import FusionResult


def test_get(fusion_call):
    result = fusion_call("billing", "get", id="INV-1")
    assert isinstance(result, FusionResult)
    assert result.data == {"id": "INV-1", "amount_cents": 4500, "status": "paid"}
    assert result.system_rules == ("Amounts are in cents: divide by 100.",)
    assert not result.is_error
    assert "s3cr3t" not in result.wire


def test_list_ui(fusion_call):
    result = fusion_call("billing", "list")
    assert [block.type for block in result.ui_blocks] == ["summary"]
    assert result.ui_blocks[0].content.endswith("2 invoices")


def test_select(fusion_call):
    result = fusion_call("billing", "get", id="INV-2", select=["amount_cents"])
    assert result.data == {"amount_cents": 1200}


def test_error(fusion_call):
    result = fusion_call("billing", "get", id="nope")
    assert result.is_error
    assert result.error.code == "NOT_FOUND"
    assert result.error.recovery == "Call billing.list."


def test_app_fixture(fusion_app):
    assert [d["name"] for d in fusion_app.definitions()] == ["billing"]
'''


def test_fusion_call_in_process(shop: pytest.Pytester) -> None:
    """With --fusion-app, fusion_call reads the hidden view in process."""
    shop.makepyfile(test_shop=TESTS)
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)


def test_fusion_app_from_the_ini_file(shop: pytest.Pytester) -> None:
    """The fusion_app ini key configures the app as the option does."""
    shop.makeini("[pytest]\nfusion_app = shop:app\n")
    shop.makepyfile(test_shop=TESTS)
    shop.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=5)


def test_conftest_can_override_fusion_app(shop: pytest.Pytester) -> None:
    """A conftest's own fusion_app fixture is served in process."""
    shop.makeconftest(
        "import pytest, shop\n\n@pytest.fixture(scope='session')\n"
        "def fusion_app():\n    return shop.app\n"
    )
    shop.makepyfile(test_shop=TESTS)
    shop.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=5)


def test_no_app_is_a_clear_usage_error(pytester: pytest.Pytester) -> None:
    """Calling without an app or server says how to configure one."""
    pytester.makepyfile("def test_x(fusion_call):\n    fusion_call('billing', 'get')\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=0, failed=1)
    result.stdout.fnmatch_lines(["*no Fusion app or server is configured*--fusion-app*"])


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_same_results_over_real_transports(shop: pytest.Pytester, transport: str) -> None:
    """The same tests pass unchanged when calls go over stdio or HTTP."""
    shop.makepyfile(test_shop=TESTS.replace("def test_app_fixture", "def _unused"))
    result = shop.runpytest_subprocess(
        "--fusion-app=shop:app", f"--fusion-transport={transport}", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=4)


def test_overriding_fusion_app_with_the_configured_app_keeps_the_transport(
    shop: pytest.Pytester,
) -> None:
    """A conftest returning --fusion-app's own app still runs over stdio."""
    shop.makeconftest(
        "import pytest, shop\n\n@pytest.fixture(scope='session')\n"
        "def fusion_app():\n    return shop.app\n"
    )
    shop.makepyfile(
        test_remote='''
import pytest


def test_context_is_refused_over_stdio(fusion_call):
    with pytest.raises(pytest.UsageError, match="in-process transport"):
        fusion_call("billing", "whoami", context="x")
'''
    )
    result = shop.runpytest_subprocess(
        "--fusion-app=shop:app", "--fusion-transport=stdio", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=1)


def test_another_app_cannot_be_served_remotely(shop: pytest.Pytester) -> None:
    """A fusion_app override that is not --fusion-app's app, over stdio: a usage error."""
    shop.makeconftest(
        "import pytest\nfrom fusion_core import FusionApp\n\n@pytest.fixture(scope='session')\n"
        "def fusion_app():\n    return FusionApp([])\n"
    )
    shop.makepyfile(test_other="def test_x(fusion_call):\n    fusion_call('billing', 'list')\n")
    result = shop.runpytest_subprocess(
        "--fusion-app=shop:app", "--fusion-transport=stdio", "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines(["*returns an app other than --fusion-app's*"])
    assert result.ret != 0
