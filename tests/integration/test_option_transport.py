"""``--fusion-transport``: the same tests over stdio and HTTP.

The runs are in process: the server is a subprocess either way, and a
pytest subprocess around it would only add its start-up.
"""

from __future__ import annotations

import pytest

from tests._support.pytester_app import CALL_TESTS


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_same_results_over_real_transports(shop: pytest.Pytester, transport: str) -> None:
    """The same tests pass unchanged when calls go over stdio or HTTP."""
    shop.makepyfile(test_shop=CALL_TESTS.replace("def test_app_fixture", "def _unused"))
    result = shop.runpytest(
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
        test_remote="""
def test_context_is_refused_over_stdio(fusion_call):
    fusion_call("billing", "whoami", context="x")
"""
    )
    result = shop.runpytest(
        "--fusion-app=shop:app", "--fusion-transport=stdio", "-p", "no:cacheprovider"
    )
    # context= fails the test (no traceback): the server process makes its own.
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*context= needs the in-process transport; over stdio*"])


def test_another_app_cannot_be_served_remotely(shop: pytest.Pytester) -> None:
    """A fusion_app override that is not --fusion-app's app, over stdio: a usage error."""
    shop.makeconftest(
        "import pytest\nfrom fusion_core import FusionApp\n\n@pytest.fixture(scope='session')\n"
        "def fusion_app():\n    return FusionApp([])\n"
    )
    shop.makepyfile(test_other="def test_x(fusion_call):\n    fusion_call('billing', 'list')\n")
    result = shop.runpytest(
        "--fusion-app=shop:app", "--fusion-transport=stdio", "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines(["*returns an app other than --fusion-app's*"])
    assert result.ret != 0
