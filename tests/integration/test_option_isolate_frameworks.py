"""Isolation in process for a framework's server: a factory gives each scope its own server.

The user's tests share one server, the ``--fusion`` contract tests another,
and ``--fusion-isolate=test`` gives every test a fresh one;
``pytest_fusion_reset`` runs before each test as for any transport.
"""

from __future__ import annotations

import pytest

from tests._support.frameworks import FRAMEWORK_SOURCES

pytest.importorskip("mcp.server.mcpserver")
pytest.importorskip("fastmcp")

STATEFUL_TESTS = """
def test_first_ticket(fusion_call):
    assert fusion_call("open_ticket", title="printer").content[0].startswith("#1 ")


def test_sees_only_its_own_writes(fusion_call):
    assert "printer" in fusion_call("list_tickets").content[0]
"""


@pytest.fixture(params=sorted(FRAMEWORK_SOURCES))
def helpdesk(request: pytest.FixtureRequest, pytester: pytest.Pytester) -> pytest.Pytester:
    """The framework's helpdesk (tools that write and read) and a suite that reads its writes."""
    pytester.makepyfile(helpdesk=FRAMEWORK_SOURCES[request.param])
    pytester.makepyfile(test_user=STATEFUL_TESTS)
    pytester.syspathinsert()
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # The contract tests' own verdicts are the gate's business: only the user's count here.
    return pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly", "-rA", *args)


def test_contract_tests_never_write_to_the_users_server(helpdesk: pytest.Pytester) -> None:
    """Under ``--fusion`` with a factory, the contract tests' tickets stay on their server.

    The writing tools are opted in (``--fusion-allow-writes``), so contract calls do write.
    """
    result = _run(
        helpdesk,
        "--fusion",
        "--fusion-app=helpdesk:make_server",
        "--fusion-examples=5",
        "--fusion-allow-writes=*",
    )
    result.stdout.fnmatch_lines(
        [
            "PASSED test_user.py::test_first_ticket",
            "PASSED test_user.py::test_sees_only_its_own_writes",
        ]
    )
    result.stdout.fnmatch_lines(["*helpdesk.py::fusion-contract::open_ticket*"])


def test_a_server_instance_is_shared_by_every_scope(helpdesk: pytest.Pytester) -> None:
    """Naming the instance (no factory) gives one server: the docs' reason for the factory.

    With the writing tools opted in, the contract tests' tickets reach the user's tests.
    """
    result = _run(
        helpdesk,
        "--fusion",
        "--fusion-app=helpdesk:mcp",
        "--fusion-examples=5",
        "--fusion-allow-writes=*",
    )
    result.stdout.fnmatch_lines(["FAILED test_user.py::test_first_ticket*"])


def test_isolate_test_gives_every_test_a_fresh_server(helpdesk: pytest.Pytester) -> None:
    """``--fusion-isolate=test``: each test's first ticket is ``#1``, and sees no other's."""
    helpdesk.makepyfile(
        test_user="""
def test_one(fusion_call):
    assert fusion_call("open_ticket", title="one").content[0].startswith("#1 ")


def test_two(fusion_call):
    assert fusion_call("open_ticket", title="two").content[0].startswith("#1 ")
    assert "one" not in fusion_call("list_tickets").content[0]
"""
    )
    result = _run(helpdesk, "--fusion-app=helpdesk:make_server", "--fusion-isolate=test")
    result.assert_outcomes(passed=2)
    shared = _run(helpdesk, "--fusion-app=helpdesk:make_server")
    shared.assert_outcomes(passed=1, failed=1)


def test_the_reset_hook_runs_before_each_test_in_process(helpdesk: pytest.Pytester) -> None:
    """``pytest_fusion_reset`` is called in process too, once per test reaching the tools."""
    helpdesk.makeconftest(
        """
RESETS = []


def pytest_fusion_reset(config, item):
    RESETS.append(item.name)


def pytest_sessionfinish(session):
    print(f"resets: {RESETS}")
"""
    )
    result = _run(helpdesk, "--fusion-app=helpdesk:make_server", "-s")
    result.assert_outcomes(passed=2)
    assert "resets: ['test_first_ticket', 'test_sees_only_its_own_writes']" in result.stdout.str()
