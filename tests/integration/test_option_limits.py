"""``--fusion-timeout`` and ``--fusion-max-response-bytes``: every call ends within its limits.

Against a plain-SDK server nothing bounds (``grow`` answers with ``n``
characters, ``stall`` sleeps as long as it is told), run as a subprocess.
"""

from __future__ import annotations

import pytest

from tests._support.pytester_app import UNBOUNDED_SERVER

USER_TESTS = """
def test_huge(fusion_call):
    # over the default 8 MiB, in a fraction of the default 30 s
    fusion_call("grow", n=50_000_000)


def test_slow(fusion_call):
    fusion_call("stall", seconds=600)


def test_after_both(fusion_call):
    assert fusion_call("echo", text="still here").data == {"text": "still here"}
"""


def test_an_oversized_answer_fails_naming_the_call_the_limit_and_the_option(
    pytester: pytest.Pytester,
) -> None:
    """The default size limit stops a 50 MB answer; the failure says how to raise it."""
    pytester.makepyfile(test_user=USER_TESTS.split("def test_slow", maxsplit=1)[0])
    result = pytester.runpytest_subprocess(
        f"--fusion-server={UNBOUNDED_SERVER}", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "*tools/call 'grow' {\"n\": 50000000}: the answer passed 8,388,608 bytes*"
                "raise --fusion-max-response-bytes=N or the fusion_max_response_bytes ini key*"
            )
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_slow_answer_fails_and_the_next_call_reaches_a_fresh_server(
    pytester: pytest.Pytester,
) -> None:
    """Over the timeout the call fails at once; the server is restarted for the next test."""
    pytester.makepyfile(test_user="def test_slow" + USER_TESTS.split("def test_slow")[1])
    result = pytester.runpytest_subprocess(
        f"--fusion-server={UNBOUNDED_SERVER}",
        "--fusion-timeout=1",
        "--fusion-max-response-bytes=100000",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "*tools/call 'stall' {\"seconds\": 600}: no answer within 1 s*"
                "raise --fusion-timeout=SECONDS or the fusion_timeout ini key*"
            )
        ]
    )


def test_the_ini_keys_set_the_limits(pytester: pytest.Pytester) -> None:
    """``fusion_timeout`` and ``fusion_max_response_bytes`` work as the options do."""
    pytester.makeini(
        f"[pytest]\nfusion_server = {UNBOUNDED_SERVER}\n"
        "fusion_timeout = 1\nfusion_max_response_bytes = 1000\n"
    )
    pytester.makepyfile(test_user='def test_grow(fusion_call):\n    fusion_call("grow", n=5000)\n')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the answer passed 1,000 bytes*"])


def test_contract_tests_against_an_unbounded_action_end_with_a_clear_failure(
    pytester: pytest.Pytester,
) -> None:
    """Generated arguments stay small, and an answer over the limit fails its contract test."""
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest_subprocess(
        "--fusion",
        f"--fusion-server={UNBOUNDED_SERVER}",
        "--fusion-max-response-bytes=2000",
        "--fusion-examples=30",
        "--fusion-allow-writes=grow",  # a plain SDK tool says nothing of writing
        "--hypothesis-seed=1",
        "-k",
        "grow and valid and not invalid",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*tool 'grow' broke the Fusion contract*",
            '*sent:*{"n": *',
            "*the answer passed 2,000 bytes*--fusion-max-response-bytes*",
            "reproduce: pytest '*::fusion-contract::grow[[]valid[]]' --fusion *",
        ]
    )


HOLDING_SERVER = """
import time

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("holds")


@mcp.tool()
def hold(seconds: float) -> str:
    time.sleep(seconds)  # a sync tool: MCPServer runs it on the event loop
    return "done"
"""


def test_in_process_a_tool_holding_the_loop_fails_when_it_answers_late(
    pytester: pytest.Pytester,
) -> None:
    """No timer fires while a sync MCPServer tool holds the loop: its late answer fails."""
    pytester.makepyfile(
        holding=HOLDING_SERVER,
        test_user=(
            "def test_late(fusion_call):\n    fusion_call('hold', seconds=1.2)\n\n\n"
            "def test_in_time(fusion_call):\n"
            "    assert fusion_call('hold', seconds=0).data == 'done'\n"
        ),
    )
    result = pytester.runpytest_subprocess(
        "--fusion-app=holding:mcp", "--fusion-timeout=0.5", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "*tools/call 'hold' {\"seconds\": 1.2}: answered after 1.2 s, past 0.5 s (the "
                "--fusion-timeout limit; in process nothing can cut short a sync tool*"
            )
        ]
    )
    assert "Traceback" not in result.stdout.str()


SLEEPING_APP = """
import asyncio
import time

from fusion_core import FusionApp, Tool

tool = Tool("slow", description="Sleeps as long as it is told.")


@tool.action("hold", description="A sync handler: it holds its thread.")
def hold(seconds: float) -> dict:
    time.sleep(max(seconds, 0))
    return {"slept": seconds}


@tool.action("wait", description="An async handler: it awaits.")
async def wait(seconds: float) -> dict:
    await asyncio.sleep(max(seconds, 0))
    return {"slept": seconds}


app = FusionApp([tool])
"""


def test_in_process_a_fusion_app_call_is_bounded_by_the_timeout(
    pytester: pytest.Pytester,
) -> None:
    """An awaiting handler is cut at the limit; a sync one fails when its late answer comes."""
    pytester.makepyfile(
        sleeping=SLEEPING_APP,
        test_user=(
            "def test_wait(fusion_call):\n    fusion_call('slow', 'wait', seconds=60)\n\n\n"
            "def test_hold(fusion_call):\n    fusion_call('slow', 'hold', seconds=1.2)\n\n\n"
            "def test_in_time(fusion_call):\n"
            "    assert fusion_call('slow', 'wait', seconds=0).data == {'slept': 0}\n"
        ),
    )
    result = pytester.runpytest_subprocess(
        "--fusion-app=sleeping:app", "--fusion-timeout=0.5", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            '*tools/call \'slow\' {"seconds": 60, "action": "wait"}: no answer within 0.5 s*',
            (
                '*tools/call \'slow\' {"seconds": 1.2, "action": "hold"}: answered after '
                "1.2 s, past 0.5 s (the --fusion-timeout limit; in process nothing can cut*"
            ),
        ]
    )
    assert result.duration < 30  # the 60 s wait was cut


def test_in_process_contract_tests_leave_a_stuck_handler_at_the_timeout(
    pytester: pytest.Pytester,
) -> None:
    """Generated arguments ask for hours of sleep: each call is cut at the limit, none hangs.

    The contract tests call as a server does (a sync handler in the app's
    worker threads), so even a handler holding its thread is left at the
    deadline; the run ends, each action failing with the limit named.
    """
    pytester.makepyfile(sleeping=SLEEPING_APP)
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest_subprocess(
        "--fusion",
        "--fusion-app=sleeping:app",
        "--fusion-timeout=0.5",
        "--fusion-allow-writes=slow",  # the tool says nothing of writing
        "--hypothesis-seed=3",
        "-k",
        "valid and not invalid",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            '*tools/call \'slow\' {*"action": "hold"*}: no answer within 0.5 s*',
            '*tools/call \'slow\' {*"action": "wait"*}: no answer within 0.5 s*',
        ],
        consecutive=False,
    )
    assert result.duration < 60


def test_in_process_a_fusion_app_answer_over_the_size_limit_fails(
    pytester: pytest.Pytester,
) -> None:
    """The size limit holds in process too: the answer is measured as JSON (it was not)."""
    pytester.makepyfile(
        sized=(
            "from fusion_core import FusionApp, Tool\n\n"
            "tool = Tool('text', description='Text of n characters.')\n\n\n"
            "@tool.action('make', description='Make it.')\n"
            "async def make(n: int) -> dict:\n"
            "    return {'text': 'x' * n}\n\n\n"
            "app = FusionApp([tool])\n"
        ),
        test_user=(
            "def test_big(fusion_call):\n    fusion_call('text', 'make', n=5000)\n\n\n"
            "def test_small(fusion_call):\n"
            "    assert fusion_call('text', 'make', n=3).data == {'text': 'xxx'}\n"
        ),
    )
    result = pytester.runpytest_subprocess(
        "--fusion-app=sized:app", "--fusion-max-response-bytes=1000", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        ["*tools/call 'text' {*}: the answer passed 1,000 bytes, 5,0* bytes read*"]
    )


@pytest.mark.parametrize(
    ("module", "spec", "call"),
    [
        pytest.param(
            HOLDING_SERVER, "holding:mcp", "fusion_call('hold', seconds=3.5)", id="MCPServer"
        ),
        pytest.param(
            SLEEPING_APP, "holding:app", "fusion_call('slow', 'hold', seconds=3.5)", id="FusionApp"
        ),
    ],
)
def test_in_process_a_call_holding_its_thread_past_the_limit_is_said_while_it_waits(
    pytester: pytest.Pytester, module: str, spec: str, call: str
) -> None:
    """A call that could hold the run for ever says so on the terminal, with where it is.

    Once past the limit and a grace (1 s), the watchdog writes which call, why it
    cannot be cut short in process, what bounds it, and every thread's frames
    (the tool's among them); the call's late answer still fails the test.
    """
    pytester.makepyfile(holding=module, test_user=f"def test_late(fusion_call):\n    {call}\n")
    result = pytester.runpytest_subprocess(
        f"--fusion-app={spec}", "--fusion-timeout=0.5", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=1)
    err = result.stderr.str()
    assert "pytest-mcpfusion: tools/call " in err, err
    assert "has had no answer for" in err
    assert "past the 0.5 s limit (--fusion-timeout)" in err
    assert '--fusion-server="python server.py"' in err
    assert "in hold" in err  # faulthandler's line for the tool's frame
    assert err.count("pytest-mcpfusion: tools/call") == 1  # once per call


def test_a_call_within_its_limit_is_never_said(pytester: pytest.Pytester) -> None:
    """The watchdog says nothing of calls that answer (here: many, each quick)."""
    pytester.makepyfile(
        holding=HOLDING_SERVER,
        test_user=(
            "def test_many(fusion_call):\n"
            "    for _ in range(200):\n"
            "        assert fusion_call('hold', seconds=0).data == 'done'\n"
        ),
    )
    result = pytester.runpytest_subprocess(
        "--fusion-app=holding:mcp", "--fusion-timeout=0.5", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=1)
    assert "pytest-mcpfusion:" not in result.stderr.str()
