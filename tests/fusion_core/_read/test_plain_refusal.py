"""A framework's plain-text refusal of the arguments: ``refused-without-envelope``, in every mode.

The class: an ``isError`` answer whose block 0 is the plain text a framework
writes when the arguments fail its validation. Anything else that is plain
text with ``isError`` stays the strict reading's ``bare-error``; an answer
that is not an error is never a refusal, whatever it says.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from fusion_core import check


def _wire(text: str, *, is_error: bool | None = True) -> dict[str, Any]:
    wire: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if is_error is not None:
        wire["isError"] = is_error
    return wire


REFUSALS = {
    "MCPServer (pydantic)": (
        "Error executing tool get_current_time: 1 validation error for "
        "get_current_timeArguments\ntimezone\n  Field required [type=missing, "
        "input_value={}, input_type=dict]"
    ),
    "several errors": "3 validation errors for add_numbersArguments\na\n  ...",
    "FastMCP": "Input validation error: 'x' is a required property",
    "TypeScript SDK": (
        "MCP error -32602: Input validation error: Invalid arguments for tool greet: "
        '[{"code": "invalid_type"}]'
    ),
    "after other lines": "Something went wrong\n\n" * 50 + "2 validation errors for Model",
}

NOT_REFUSALS = {
    "a domain error": "Error executing tool git_status: not a git repository: /x",
    "a traceback": "Traceback (most recent call last): KeyError",
    "no count": "a validation error for your input",
    "a count without for": "12 validation errors",
    "empty": "",
    "JSON error": '{"error": "1 validation error"}',
}


@pytest.mark.parametrize("text", REFUSALS.values(), ids=list(REFUSALS))
def test_a_plain_refusal_breaks_the_rule_in_every_mode(text: str) -> None:
    """One violation, in block 0, quoting the refusal's own line; no bare-error beside it."""
    for strict in (False, True):
        found = check(_wire(text), strict=strict)
        assert [(v.block, v.rule) for v in found] == [(0, "refused-without-envelope")]
        message = found[0].message
        assert "<validation_error> envelope" in message
        assert "docs/wire-format.md, 'Errors'" in message
        assert "tool_error(" not in message.split("(docs/")[0]  # no fusion_core advice first
        assert len(message) < 600


@pytest.mark.parametrize("text", NOT_REFUSALS.values(), ids=list(NOT_REFUSALS))
def test_any_other_plain_error_is_a_bare_error_of_the_strict_reading(text: str) -> None:
    """Not a refusal: nothing by default, ``bare-error`` under strict, naming the envelope."""
    assert [v.rule for v in check(_wire(text))] == []
    strict = check(_wire(text), strict=True)
    assert [v.rule for v in strict] == ["bare-error"]
    assert '<tool_error code="..."> envelope' in strict[0].message
    assert "docs/wire-format.md, 'Errors'" in strict[0].message


@pytest.mark.parametrize("is_error", [False, None])
@pytest.mark.parametrize("text", REFUSALS.values(), ids=list(REFUSALS))
def test_an_answer_that_is_not_an_error_is_never_a_refusal(
    text: str, is_error: bool | None
) -> None:
    """The same text as data (isError false or absent) is data: no rule at all."""
    assert check(_wire(text, is_error=is_error), strict=True) == []


def test_a_long_refusal_is_quoted_shortened_and_read_in_linear_time() -> None:
    """A megabyte of text: checked quickly, the quoted line cut with an ellipsis."""
    text = "1 validation error for " + "A" * 1_000_000
    started = time.perf_counter()
    found = check(_wire(text))
    assert time.perf_counter() - started < 2
    assert [v.rule for v in found] == ["refused-without-envelope"]
    assert "…" in found[0].message
    assert len(found[0].message) < 600
