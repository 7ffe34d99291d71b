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


def test_every_way_to_give_fusion_context_reaches_the_call_fixtures(shop: pytest.Pytester) -> None:
    """The call fixtures resolve fusion_context themselves: every override still reaches them.

    A conftest, a module and a class override; direct and indirect
    parametrization on a test that names only fusion_call; usefixtures; and
    a test naming both fixtures gets the very object the call uses.
    """
    shop.mkpydir("sub")
    shop.path.joinpath("sub", "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef fusion_context():\n    return ['conftest']\n"
    )
    shop.path.joinpath("sub", "test_sub.py").write_text(
        """
def test_conftest_override(fusion_call):
    assert fusion_call("billing", "whoami").data == {"user": ["conftest"]}


def test_same_object(fusion_call, fusion_context):
    fusion_context.append("changed by the test")
    assert fusion_call("billing", "whoami").data == {"user": ["conftest", "changed by the test"]}
"""
    )
    shop.makepyfile(
        test_module="""
import pytest


@pytest.fixture
def fusion_context():
    return "module"


def test_module_override(fusion_call):
    assert fusion_call("billing", "whoami").data == {"user": "module"}


async def _call(fusion_call_async):
    return await fusion_call_async("billing", "whoami")


def test_module_override_async(fusion_call_async):
    import asyncio

    assert asyncio.run(_call(fusion_call_async)).data == {"user": "module"}
""",
        test_default="""
import pytest


def test_default_is_none(fusion_call):
    assert fusion_call("billing", "whoami").data == {"user": None}


@pytest.mark.parametrize("fusion_context", ["first", "second"])
def test_direct_parametrize(fusion_call, request):
    assert fusion_call("billing", "whoami").data == {"user": request.node.callspec.id}


@pytest.mark.usefixtures("fusion_context")
def test_usefixtures(fusion_call):
    assert fusion_call("billing", "whoami").data == {"user": None}


class TestIndirect:
    @pytest.fixture
    def fusion_context(self, request):
        return f"indirect {request.param}"

    @pytest.mark.parametrize("fusion_context", ["a"], indirect=True)
    def test_indirect_parametrize(self, fusion_call):
        assert fusion_call("billing", "whoami").data == {"user": "indirect a"}
""",
    )
    shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider").assert_outcomes(passed=9)


def test_the_hook_sees_the_requesting_test(shop: pytest.Pytester) -> None:
    """pytest_fusion_context gets the test's request: its node, its fixtures, its finalizers."""
    shop.makeconftest(
        """
import pytest

CLOSED = []


@pytest.fixture
def user():
    return "from-a-fixture"


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_context(app, request):
    request.addfinalizer(lambda: CLOSED.append(request.node.name))
    return f"{request.node.name}: {request.getfixturevalue('user')}"
"""
    )
    shop.makepyfile(
        test_ctx="""
from conftest import CLOSED


def test_first(fusion_call):
    assert fusion_call("billing", "whoami").data == {"user": "test_first: from-a-fixture"}


def test_second():
    assert CLOSED == ["test_first"]
"""
    )
    shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_parametrized_overrides_parametrize_a_test_that_names_only_fusion_call(
    shop: pytest.Pytester,
) -> None:
    """An override with ``params``, or depending on a parametrized fixture, runs once per param.

    The call fixtures do not depend on ``fusion_context``/``fusion_app`` as
    fixtures, so the override's closure is added at collection: without it
    pytest refused the test ("The requested fixture has no parameter defined").
    """
    shop.makepyfile(
        test_params="""
import pytest

from shop import app as SHOP


@pytest.fixture(params=["alice", "bob"])
def fusion_context(request):
    return request.param


def test_each_user(fusion_call, request):
    assert fusion_call("billing", "whoami").data == {"user": request.node.callspec.id}


class TestThroughADependency:
    @pytest.fixture(params=["carol", "dave"])
    def user(self, request):
        return request.param

    @pytest.fixture
    def fusion_context(self, user):
        return {"name": user}

    def test_each_user(self, fusion_call, request):
        user = request.node.callspec.params["user"]
        assert fusion_call("billing", "whoami").data == {"user": {"name": user}}


class TestAppParams:
    @pytest.fixture(params=["one", "two"])
    def fusion_app(self, request):
        return SHOP

    def test_each_app(self, fusion_call, request):
        assert request.node.callspec.params["fusion_app"] in ("one", "two")
        assert fusion_call("billing", "whoami", context="x").data == {"user": "x"}
"""
    )
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=8)  # the class of apps also sees the module's two users
    result.stdout.fnmatch_lines(
        [
            "*test_each_user?alice? PASSED*",
            "*test_each_user?bob? PASSED*",
            "*TestThroughADependency::test_each_user?carol? PASSED*",
            "*TestAppParams::test_each_app?two-bob? PASSED*",
        ],
        consecutive=False,
    )
