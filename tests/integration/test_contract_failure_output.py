"""A failing contract test reads in a screenful and says how to run it again.

Tool, action, the arguments sent, the violated rule with its message, the
blocks received (trimmed) and the command line with the hypothesis seed;
no traceback through hypothesis, pluggy or pytest.
"""

from __future__ import annotations

import shlex

import pytest

from tests._support.leaky import LEAKY
from tests._support.output import section as output_section


@pytest.fixture
def leaky(pytester: pytest.Pytester) -> pytest.Pytester:
    """A hand-written app that leaks a field, with an ini file to hang the items from."""
    pytester.makefile(".ini", pytest="[pytest]\n")
    pytester.makepyfile(leaky=LEAKY)
    pytester.syspathinsert()
    return pytester


def test_a_failure_names_the_call_the_rule_the_blocks_and_the_rerun(
    leaky: pytest.Pytester,
) -> None:
    """Each part a reader needs is there, in a handful of lines."""
    result = leaky.runpytest("--fusion", "--fusion-app=leaky:app", "--fusion-examples=10")
    result.assert_outcomes(failed=2)
    output = result.stdout.str()
    failures = output[output.index("= FAILURES =") :]
    assert "Traceback" not in failures
    assert "hypothesis" not in failures.replace("--hypothesis-seed", "")
    section = output_section(output, "users/get[valid]")
    assert len(section) < 20, "\n".join(section)
    text = "\n".join(section)
    assert "tool 'users' action 'get' broke the Fusion contract" in text
    assert '"action": "get"' in text
    assert "[field-leak] field(s) ['name', 'password_hash'] reached the wire" in text
    assert "received: 1 block(s)" in text
    assert '"password_hash": "x"' in text
    assert "reproduce: pytest 'pytest.ini::fusion-contract::users/get[valid]' --fusion" in text
    assert "--hypothesis-seed=" in text
    result.stdout.fnmatch_lines(
        ["FAILED pytest.ini::fusion-contract::users/get[[]valid[]] - tool 'users' action*"]
    )


def test_the_reproduce_line_sends_the_same_call(leaky: pytest.Pytester) -> None:
    """Running the printed command fails the same way, with the same arguments."""
    first = leaky.runpytest("--fusion", "--fusion-app=leaky:app", "--fusion-examples=10")
    section = output_section(first.stdout.str(), "users/get[valid]")
    command = next(line for line in section if line.startswith("reproduce: "))
    sent = next(line for line in section if "sent:" in line)
    again = leaky.runpytest(*shlex.split(command.removeprefix("reproduce: "))[1:])
    again.assert_outcomes(failed=1)
    assert sent in again.stdout.str()


def test_long_blocks_are_trimmed(pytester: pytest.Pytester) -> None:
    """A huge block shows its beginning and its length, not all of it."""
    pytester.makepyfile(
        leaky=LEAKY.replace('"password_hash": "x"', '"password_hash": "x" * 50_000')
    )
    pytester.syspathinsert()
    result = pytester.runpytest("--fusion", "--fusion-app=leaky:app", "--fusion-examples=5")
    result.assert_outcomes(failed=2)
    assert len(result.stdout.str()) < 10_000
    result.stdout.fnmatch_lines(["*[[]0[]] '{*xxxx… (50,0* chars)"])
