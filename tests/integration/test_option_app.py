"""``--fusion-app``, the ``fusion_app`` ini key and the ``fusion_app`` fixture."""

from __future__ import annotations

import pytest

from .conftest import CALL_TESTS


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
