"""``fusion_caller`` in ``@given`` tests: no health check to suppress, one reset per example."""

from __future__ import annotations

import pytest

GIVEN_TESTS = """
from hypothesis import given, settings, strategies as st


@settings(max_examples=7, deadline=None)
@given(id=st.sampled_from(["INV-1", "INV-2", "INV-404"]))
def test_any_invoice(fusion_caller, id):
    call = fusion_caller()
    result = call("billing", "get", id=id)
    assert result.is_error == (id == "INV-404")
"""

COUNTING_CONFTEST = """
import types

import pytest

RESETS = []
CONTEXTS = []


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_reset(config, item):
    RESETS.append(item.name)


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_context(app, request):
    CONTEXTS.append(request)
    return types.SimpleNamespace(user=f"user-{len(CONTEXTS)}")


def pytest_sessionfinish(session):
    print(f"\\nresets={len(RESETS)} contexts={len(CONTEXTS)} requests={set(CONTEXTS)}")
"""

COUNTING_TESTS = """
from hypothesis import given, settings, strategies as st

USERS = []


@settings(max_examples=5, deadline=None, database=None)
@given(n=st.integers(0, 1000))
def test_each_example_starts_afresh(fusion_caller, n):
    call = fusion_caller()
    USERS.append(call("billing", "whoami").data["user"])


def test_every_example_had_its_own_context():
    assert len(USERS) == 5
    assert len(set(USERS)) == 5
"""


def test_fusion_caller_passes_the_function_scoped_fixture_health_check(
    shop: pytest.Pytester,
) -> None:
    """A @given test with fusion_caller runs without suppressing any health check."""
    shop.makepyfile(test_given=GIVEN_TESTS)
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_fusion_call_in_given_still_names_the_health_check_and_the_fixture_for_it(
    shop: pytest.Pytester,
) -> None:
    """fusion_call is function-scoped: hypothesis says so; fusion_caller is the way out."""
    shop.makepyfile(test_given=GIVEN_TESTS.replace("fusion_caller, id", "fusion_call, id"))
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*uses a function-scoped fixture 'fusion_call'*"])


def test_each_example_gets_a_reset_and_a_fresh_context(shop: pytest.Pytester) -> None:
    """The reset hook runs once per example (setup, then before examples 2..n); contexts are new."""
    shop.makeconftest(COUNTING_CONFTEST)
    shop.makepyfile(test_given=COUNTING_TESTS)
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=2)
    # 5 examples: the test's setup reset, then 4 more; the plain test resets nothing.
    result.stdout.fnmatch_lines(["resets=5 contexts=5 requests={None}"])


def test_fusion_caller_serves_a_conftest_s_app_in_process(shop: pytest.Pytester) -> None:
    """An overridden fusion_app (a module of its own) is the app fusion_caller's calls reach."""
    shop.makeconftest(
        """
        import pytest

        from shop import app


        @pytest.fixture(scope="session")
        def fusion_app():
            return app
        """
    )
    shop.makepyfile(test_given=GIVEN_TESTS)
    result = shop.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_fusion_caller_refuses_a_function_scoped_app_override_loudly(
    shop: pytest.Pytester,
) -> None:
    """A function-scoped fusion_app override cannot reach the module-scoped fusion_caller.

    pytest stops the test's setup naming both fixtures (never a call to
    another app); a module-scoped override, as the docs say, works.
    """
    override = """
        import pytest

        from shop import app


        @pytest.fixture{scope}
        def fusion_app():
            return app
        """
    shop.makeconftest(override.format(scope=""))
    shop.makepyfile(test_given=GIVEN_TESTS)
    result = shop.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ScopeMismatch*function scoped fixture fusion_app*module*"])
    shop.makeconftest(override.format(scope='(scope="module")'))
    shop.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
