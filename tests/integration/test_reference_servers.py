"""The gate against the MCP project's reference servers, written without fusion_core.

``mcp-server-git``, ``mcp-server-time`` and ``mcp-server-fetch`` (pinned in
the ``servers`` extra) run as subprocesses, as a user starts them, on data
the test made: a git repository in ``tmp_path``, mid-work. Whatever the
contract tests send, the repository must come out as it went in.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._support.git_repo import git, make_repository, state_of

_EXAMPLES = "--fusion-examples=3"  # bounded: each server call is a real subprocess round trip


def _server(module: str, *args: str) -> str:
    """The command that starts reference server ``module`` (from the ``servers`` extra)."""
    if importlib.util.find_spec(module) is None:
        pytest.fail(
            f"{module} is not installed: pip install -e '.[servers]' (the dev extra has it)",
            pytrace=False,
        )
    return shlex.join([sys.executable, "-m", module, *args])


def _run(pytester: pytest.Pytester, server: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--fusion", f"--fusion-server={server}", _EXAMPLES, "-p", "no:cacheprovider",
        "-p", "no:randomly", "-v", "-rs", "--fusion-report=report.json", *args,
    )  # fmt: skip


def _report(pytester: pytest.Pytester) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(Path(pytester.path, "report.json").read_text())
    return loaded


def _actions(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {action["name"]: action for action in report["actions"]}


USER_TESTS = """
def test_the_staged_work_is_there(fusion_call):
    status = fusion_call("git_status", repo_path={repo!r})
    assert not status.is_error
    assert "staged.txt" in status.content[0]
"""


def test_git_contract_run_leaves_the_repository_as_it_was(pytester: pytest.Pytester) -> None:
    """HEAD, refs, index, work tree and stash are unchanged; the user's own test still passes."""
    repository = make_repository(pytester.path)
    pytester.makepyfile(test_mine=USER_TESTS.format(repo=str(repository)))
    before = state_of(repository)
    result = _run(pytester, _server("mcp_server_git", "--repository", str(repository)))
    assert state_of(repository) == before
    result.stdout.fnmatch_lines_random(
        [
            "*test_mine.py::test_the_staged_work_is_there PASSED*",
            "*git_commit?valid? SKIPPED*",
            "*git_create_branch?valid? SKIPPED*",
            "*git_checkout?valid? SKIPPED*",
            "*git_add?valid? SKIPPED*",
            "*git_reset?valid? SKIPPED*",
            "*git_reset may write: its annotations say destructiveHint: true*",
            "*git_commit may write: its annotations do not say it is read-only (readOnlyHint:*",
        ]
    )
    report = _report(pytester)
    assert report["totals"]["write_calls"] == 0
    assert report["totals"]["contract_tests_not_run"] == 5
    # The writing tools got one call each: the one they cannot act on (no repo_path).
    for name in ("git_commit", "git_create_branch", "git_checkout", "git_add", "git_reset"):
        action = _actions(report)[name]
        assert action["total_calls"] == 1, name
        assert action["calls"]["ok"] == 0, name


def test_a_users_own_write_is_listed_in_the_report(pytester: pytest.Pytester) -> None:
    """The user's deliberate git_add runs (their choice), and the report lists it."""
    repository = make_repository(pytester.path)
    pytester.makepyfile(
        test_mine=f"""
def test_add(fusion_call):
    added = fusion_call("git_add", repo_path={str(repository)!r}, files=["untracked.txt"])
    assert not added.is_error
"""
    )
    server = _server("mcp_server_git", "--repository", str(repository))
    result = _run(pytester, server, "--fusion-level=mcp", "test_mine.py")
    assert "untracked.txt" in git(repository, "ls-files")
    result.stdout.fnmatch_lines(
        ["calls that succeeded on tools that may write: 1", "  git_add {*untracked.txt*"]
    )
    arguments = json.dumps({"files": ["untracked.txt"], "repo_path": str(repository)})
    assert _actions(_report(pytester))["git_add"]["writes"] == [
        {"arguments": arguments, "count": 1}
    ]


def test_fetch_is_never_sent_a_generated_url(pytester: pytest.Pytester) -> None:
    """The open-world fetch tool: its valid test does not run, its invalid one sends no URL."""
    result = _run(pytester, _server("mcp_server_fetch"), "--fusion-level=mcp")
    result.stdout.fnmatch_lines_random(
        [
            "*fetch?valid? SKIPPED*",
            "*fetch?invalid? PASSED*",
            "*fetch may reach hosts outside the server: its annotations say openWorldHint: true*",
        ]
    )
    fetch = _actions(_report(pytester))["fetch"]
    assert fetch["total_calls"] == 1
    assert fetch["calls"]["ok"] == 0


TIME_TESTS = """
def test_utc(fusion_call):
    assert not fusion_call("get_current_time", timezone="UTC").is_error
"""


def test_time_at_the_fusion_level_says_once_that_it_writes_no_fusion_blocks(
    pytester: pytest.Pytester,
) -> None:
    """One headline (top of the run, top of the report); one failure per action, not per test."""
    pytester.makepyfile(test_time=TIME_TESTS)
    result = _run(pytester, _server("mcp_server_time", "--local-timezone", "UTC"))
    result.assert_outcomes(passed=3, failed=2)
    output = result.stdout.str()
    headline = "this server writes no Fusion blocks: "
    assert output.count(headline) == 2  # above the failures, and heading the wire report
    assert output.index(headline) < output.index("= FAILURES =")
    assert "--fusion-level=mcp checks it as a plain MCP server" in output
    result.stdout.fnmatch_lines_random(
        [
            "*get_current_time?invalid? FAILED*",
            "*convert_time?invalid? FAILED*",
            (
                "*[[]refused-without-envelope[]] isError is true and block 0 is a framework's "
                "plain-text refusal of the arguments*not a <validation_error> envelope*"
                "docs/wire-format.md, 'Errors'*"
            ),
        ]
    )
    assert "[invalid-accepted]" not in output  # the server did refuse: not "accepted"
    assert "[error-envelope]" not in output
    report = _report(pytester)
    assert report["headline"] is not None
    assert report["headline"].startswith(headline)
    # The report agrees with pytest: two failed tests, each with its violations.
    assert report["pytest"]["failed"] == report["totals"]["contract_tests_failed"] == 2
    assert report["pytest"]["exit_status"] == 1
    assert report["totals"]["violations"] == 2
    actions = _actions(report)
    for name in ("get_current_time", "convert_time"):
        assert [v["count"] for v in actions[name]["violations"]] == [1], name
    result.stdout.fnmatch_lines(["contract violations: 2", "contract tests failed: 2"])
    assert "plain_error" in report["blocks"]  # errors are never counted as data


def test_time_at_the_mcp_level_is_green_and_meaningful(pytester: pytest.Pytester) -> None:
    """A correct plain MCP server passes --fusion-level=mcp: every contract test ran and passed."""
    pytester.makepyfile(test_time=TIME_TESTS)
    result = _run(
        pytester, _server("mcp_server_time", "--local-timezone", "UTC"), "--fusion-level=mcp"
    )
    result.assert_outcomes(passed=5)
    assert result.ret == 0
    report = _report(pytester)
    assert report["level"] == "mcp"
    assert report["pytest"] == {
        "exit_status": 0, "passed": 5, "failed": 0, "skipped": 0, "errors": 0
    }  # fmt: skip
    assert report["totals"]["violations"] == 0
    actions = _actions(report)
    # Each action was exercised with both kinds of arguments, and invalid ones were refused.
    assert actions["get_current_time"]["calls"]["ok"] >= 1
    for name in ("get_current_time", "convert_time"):
        assert actions[name]["calls"]["error"] >= 1, name


def test_fusion_check_gives_the_gates_verdict_on_a_plain_refusal(tmp_path: Path) -> None:
    """``fusion check`` fails the same answer with the same rule as ``pytest --fusion``."""
    server = _server("mcp_server_time", "--local-timezone", "UTC")
    fusion = Path(sys.executable).with_name("fusion")
    run = subprocess.run(
        [str(fusion), "check", server, "--call", "get_current_time", "{}"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAIL  get_current_time" in run.stdout
    assert "[refused-without-envelope]" in run.stdout
    assert "0 clean, 1 with violations" in run.stdout
