"""The call fixtures' shortcut through pytest's fixture internals (``_upstream_pytest``).

It was checked against pytest 9.2.0; these tests fail loudly, naming what
moved, when pytest's shape changes, before any user test resolves the wrong
app or context.
"""

from __future__ import annotations

import inspect

import pytest
from _pytest.fixtures import FixtureDef, FixtureManager

from pytest_mcpfusion import _upstream_pytest


def _parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_the_fixture_manager_has_the_methods_the_shortcut_calls() -> None:
    """getfixturedefs(argname, node), getfixtureclosure(parentnode, initialnames, ignore_args)."""
    assert _parameters(FixtureManager.getfixturedefs)[1:3] == ["argname", "node"]
    assert _parameters(FixtureManager.getfixtureclosure)[1:4] == [
        "parentnode",
        "initialnames",
        "ignore_args",
    ]


def test_requests_metafuncs_and_definitions_carry_what_the_shortcut_reads(
    request: pytest.FixtureRequest,
) -> None:
    """FixtureRequest._fixturemanager, Metafunc._arg2fixturedefs, FixtureDef.func."""
    assert isinstance(request._fixturemanager, FixtureManager)
    assert "_arg2fixturedefs" in inspect.getsource(pytest.Metafunc.__init__)
    assert "func" in inspect.signature(FixtureDef.__init__).parameters


def test_the_shortcut_sees_a_conftest_override_and_pytest_s_own_default(
    pytester: pytest.Pytester,
) -> None:
    """overridden() tells the plugin's fusion_context from a conftest's, per directory."""
    pytester.makepyfile(
        conftest="",
        test_default="""
        from pytest_mcpfusion import _upstream_pytest


        def test_default(request):
            manager = request._fixturemanager
            assert not _upstream_pytest.overridden({}, manager, request.node, "fusion_context")
        """,
    )
    sub = pytester.mkdir("sub")
    (sub / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef fusion_context():\n    return 'fake'\n"
    )
    (sub / "test_overridden.py").write_text(
        "from pytest_mcpfusion import _upstream_pytest\n\n\n"
        "def test_overridden(request):\n"
        "    manager = request._fixturemanager\n"
        "    assert _upstream_pytest.overridden({}, manager, request.node, 'fusion_context')\n"
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
    assert {"fusion_app", "fusion_context"} == _upstream_pytest.RESOLVED
