"""``--fusion-app``, the ``fusion_app`` ini key and the ``fusion_app`` fixture."""

from __future__ import annotations

import pytest

from tests._support.pytester_app import CALL_TESTS


def test_fusion_app_from_the_ini_file(shop: pytest.Pytester) -> None:
    """The fusion_app ini key configures the app as the option does."""
    shop.makeini("[pytest]\nfusion_app = shop:app\n")
    shop.makepyfile(test_shop=CALL_TESTS)
    shop.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=5)


def test_conftest_can_override_fusion_app(shop: pytest.Pytester) -> None:
    """A conftest's own fusion_app fixture is served in process."""
    shop.makeconftest(
        "import pytest, shop\n\n@pytest.fixture(scope='session')\n"
        "def fusion_app():\n    return shop.app\n"
    )
    shop.makepyfile(test_shop=CALL_TESTS)
    shop.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=5)


def test_no_app_is_a_clear_usage_error(pytester: pytest.Pytester) -> None:
    """Calling without an app or server says how to configure one."""
    pytester.makepyfile("def test_x(fusion_call):\n    fusion_call('billing', 'get')\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=0, failed=1)
    result.stdout.fnmatch_lines(["*no Fusion app or server is configured*--fusion-app*"])


def test_every_way_to_give_fusion_app_reaches_the_call_fixtures(shop: pytest.Pytester) -> None:
    """The call fixtures resolve fusion_app themselves: overrides and parameters still reach them.

    A module's override, a class's override, direct parametrization on a test
    naming only fusion_call, and a test naming fusion_app next to fusion_call
    (the configured app, one object for both). A test after an override calls
    the configured app again (it used to call the override's app).
    """
    shop.makepyfile(
        test_apps="""
import pytest

from fusion_core import FusionApp, Tool

import shop

other = Tool("other", "Another tool")


@other.action("ping", description="Pong", read_only=True)
def ping(ctx: object = None) -> object:
    return {"pong": True}


OTHER = FusionApp([other], name="other")


def test_configured_app_is_the_fixture(fusion_call, fusion_app):
    assert fusion_app is shop.app
    assert fusion_call("billing", "get", id="INV-1").data["id"] == "INV-1"


@pytest.mark.parametrize("fusion_app", [OTHER])
def test_direct_parametrize(fusion_call):
    assert fusion_call("other", "ping").data == {"pong": True}


class TestClassOverride:
    @pytest.fixture
    def fusion_app(self):
        return OTHER

    def test_class_override(self, fusion_call):
        assert fusion_call("other", "ping").data == {"pong": True}


def test_configured_app_again(fusion_call):
    assert fusion_call("billing", "get", id="INV-2").data["id"] == "INV-2"
"""
    )
    shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider").assert_outcomes(passed=4)


def test_an_override_does_not_outlive_its_tests_without_a_configured_app(
    shop: pytest.Pytester,
) -> None:
    """No app configured: a test after a module's override gets the usage error, not that app.

    The override's in-process transport used to stay open, so a later test
    that overrides nothing silently called the previous module's app.
    """
    shop.makepyfile(
        test_a_override="""
import pytest

import shop


@pytest.fixture
def fusion_app():
    return shop.app


def test_with_the_override(fusion_call):
    assert fusion_call("billing", "get", id="INV-1").data["id"] == "INV-1"
""",
        test_b_plain="""
def test_without_any_app(fusion_call):
    fusion_call("billing", "get", id="INV-2")
""",
    )
    result = shop.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*test_without_any_app*", "*no Fusion app or server is configured*"]
    )
