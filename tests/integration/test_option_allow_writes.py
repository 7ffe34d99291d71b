"""No generated or example call reaches a tool that may write unless the user opted in.

``fusion_allow_writes`` (ini), ``--fusion-allow-writes`` and the
``pytest_fusion_allow_writes`` hook opt in; the app's ``read_only`` and
``destructive`` flags (in process) decide what may write. Each writing
handler below appends to ``writes.log`` beside the app, so the tests see
every call that reached one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

APP = """
from pathlib import Path

from fusion_core import FusionApp, Tool

LOG = Path(__file__).with_name("writes.log")
ledger = Tool("ledger", "A ledger on disk")


def _write(line: str) -> dict[str, str]:
    with LOG.open("a", encoding="utf-8") as out:
        out.write(line + "\\n")
    return {"status": "written"}


@ledger.action("read", description="The entries", read_only=True)
def read(ctx: object = None) -> object:
    return {"entries": 0}


@ledger.action("post", description="Post an entry", examples=[{"entry": "from-example"}])
def post(entry: str, ctx: object = None) -> object:
    return _write(f"post {entry!r}")


@ledger.action("wipe", description="Erase an entry", read_only=True, destructive=True)
def wipe(entry: str, ctx: object = None) -> object:
    return _write(f"wipe {entry!r}")


@ledger.action("touch", description="Stamp the ledger")
def touch(ctx: object = None) -> object:
    return _write("touch")


app = FusionApp([ledger], name="ledger")
"""


@pytest.fixture
def ledger(pytester: pytest.Pytester) -> pytest.Pytester:
    """The ledger app, importable from the pytester directory."""
    pytester.makepyfile(ledger=APP)
    pytester.syspathinsert()
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--fusion", "--fusion-app=ledger:app", "--fusion-examples=5", "-p", "no:cacheprovider",
        "-v", "-rs", "--fusion-report=report.json", *args,
    )  # fmt: skip


def _writes(pytester: pytest.Pytester) -> list[str]:
    log = Path(pytester.path, "writes.log")
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def _report(pytester: pytest.Pytester) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(Path(pytester.path, "report.json").read_text())
    return loaded


def test_by_default_no_call_reaches_a_tool_that_may_write(ledger: pytest.Pytester) -> None:
    """Writing actions get no generated and no example call; the skips and the report say why."""
    result = _run(ledger)
    assert _writes(ledger) == []
    result.assert_outcomes(passed=4, skipped=4)
    result.stdout.fnmatch_lines_random(
        [
            "*ledger/read?valid? PASSED*",
            "*ledger/post?valid? SKIPPED*",
            "*ledger/post?invalid? PASSED*",  # the action without its entry: refused
            "*ledger/wipe?invalid? PASSED*",
            "*ledger/touch?invalid? SKIPPED*",
            (
                "*ledger.post may write: action 'post' is not read_only=True; opt in with "
                "fusion_allow_writes = ledger.post*"
            ),
            "*ledger.wipe may write: action 'wipe' is destructive=True*",
            "*ledger.touch may write*it requires no argument*",
            "contract tests not run: 4 (tools that may write; no opt-in)",
        ]
    )
    result.stdout.no_fnmatch_line("*calls that succeeded on tools that may write*")
    report = _report(ledger)
    totals = report["totals"]
    assert isinstance(totals, dict)
    assert totals["contract_tests_not_run"] == 4
    assert totals["write_calls"] == 0
    actions = {a["name"]: a for a in report["actions"]}  # type: ignore[attr-defined]
    assert [t["test"] for t in actions["ledger.post"]["not_run"]] == ["valid"]
    assert "fusion_allow_writes" in actions["ledger.post"]["not_run"][0]["reason"]
    assert actions["ledger.read"]["not_run"] == []


def test_the_ini_key_opts_in_per_action(ledger: pytest.Pytester) -> None:
    """``fusion_allow_writes = ledger.post``: post gets its example and generated calls, listed."""
    ledger.makeini("[pytest]\nfusion_allow_writes =\n    ledger.post\n")
    result = _run(ledger)
    writes = _writes(ledger)
    assert writes[0] == "post 'from-example'"
    assert len(writes) > 1
    assert all(line.startswith("post ") for line in writes)
    result.assert_outcomes(passed=5, skipped=3)
    result.stdout.fnmatch_lines(
        [f"calls that succeeded on tools that may write: {len(writes)}", "  ledger.post {*"]
    )
    report = _report(ledger)
    assert report["totals"]["write_calls"] == len(writes)  # type: ignore[index]
    post = next(a for a in report["actions"] if a["name"] == "ledger.post")  # type: ignore[attr-defined]
    listed = {w["arguments"]: w["count"] for w in post["writes"]}
    assert listed['{"action": "post", "entry": "from-example"}'] == 1
    assert sum(listed.values()) == len(writes)


def test_one_global_switch_allows_every_tool(ledger: pytest.Pytester) -> None:
    """``--fusion-allow-writes='*'`` lets every writing action be called: no test is skipped."""
    result = _run(ledger, "--fusion-allow-writes=*")
    result.assert_outcomes(passed=8)
    assert {line.split()[0] for line in _writes(ledger)} == {"post", "wipe", "touch"}


def test_the_hook_decides_before_the_patterns(ledger: pytest.Pytester) -> None:
    """The hook's False beats ``*``; its True allows an action no pattern names; None defers."""
    ledger.makeconftest(
        """
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_allow_writes(tool, action, definition, config):
    assert definition["name"] == tool
    return {"wipe": False, "touch": True}.get(action)
"""
    )
    ledger.makeini("[pytest]\nfusion_allow_writes = *\n")
    result = _run(ledger)
    kinds = {line.split()[0] for line in _writes(ledger)}
    assert kinds == {"post", "touch"}
    result.stdout.fnmatch_lines_random(
        ["*ledger/wipe?valid? SKIPPED*", "*ledger/wipe?invalid? PASSED*"]
    )


def test_a_users_own_test_may_call_a_writing_tool_and_the_report_lists_it(
    ledger: pytest.Pytester,
) -> None:
    """The user's fusion_call is the user's choice: it runs, and the report lists the write."""
    ledger.makepyfile(
        test_mine="""
def test_post(fusion_call):
    assert fusion_call("ledger", "post", entry="mine").is_error is False
"""
    )
    result = _run(ledger, "test_mine.py")
    assert _writes(ledger) == ["post 'mine'"]
    result.stdout.fnmatch_lines(
        [
            "calls that succeeded on tools that may write: 1",
            '  ledger.post {"action": "post", "entry": "mine"}',
        ]
    )
