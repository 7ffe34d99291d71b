"""Response helpers: success, structured success, TOON and error envelopes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fusion_core import (
    ErrorDetails,
    ErrorEnvelope,
    ToolResponse,
    error,
    required,
    success,
    success_structured,
    tool_error,
    toon_success,
    view_of,
)
from fusion_core._write._toon import ToonOptions, encode_toon


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ("hello", "hello"),
        ("", "OK"),
        ({"a": [1.0]}, '{\n  "a": [\n    1\n  ]\n}'),
        (None, "null"),
        (1e21, "1e+21"),
    ],
)
def test_success(data: Any, text: str) -> None:
    """success: one text block, a str verbatim ("" as OK) or JSON; no isError."""
    result = success(data)
    assert isinstance(result, ToolResponse)
    assert dict(result) == {"content": [{"type": "text", "text": text}]}
    assert view_of(result).data == ("OK" if data == "" else data)


@pytest.mark.parametrize(
    ("data", "text", "structured"),
    [
        ("hello", '"hello"', "hello"),
        ({"a": 1.0}, '{\n  "a": 1\n}', {"a": 1.0}),
        ([1, (2, 3)], "[\n  1,\n  [\n    2,\n    3\n  ]\n]", [1, [2, 3]]),
        ({"s": {2, 1}}, '{\n  "s": [\n    1,\n    2\n  ]\n}', {"s": [1, 2]}),
    ],
)
def test_success_structured(data: Any, text: str, structured: Any) -> None:
    """success_structured: JSON text (a str JSON-quoted) plus plain structuredContent."""
    result = success_structured(data)
    assert dict(result) == {
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
    }
    assert json.loads(result.texts[0]) == result["structuredContent"]
    assert view_of(result).structured_content == structured
    assert view_of(result).data is data


def test_error_message_only() -> None:
    """error(msg) is a tool_error envelope with isError true."""
    result = error("Not found")
    assert dict(result) == {
        "content": [
            {"type": "text", "text": "<tool_error>\n<message>Not found</message>\n</tool_error>"}
        ],
        "isError": True,
    }
    assert view_of(result).error == ErrorEnvelope(message="Not found")


def test_error_with_code() -> None:
    """error(msg, code) writes the code attribute."""
    assert error("m", "E1").texts == ['<tool_error code="E1">\n<message>m</message>\n</tool_error>']


def test_error_escapes() -> None:
    """Message text escapes & and <; the code attribute escapes quotes."""
    assert error("a < b & c", 'x"y').texts == [
        '<tool_error code="x&quot;y">\n<message>a &lt; b &amp; c</message>\n</tool_error>'
    ]


def test_required() -> None:
    """required(field) writes the reference's MISSING_REQUIRED_FIELD envelope."""
    result = required("workspace_id")
    assert result.texts == [
        (
            '<tool_error code="MISSING_REQUIRED_FIELD">\n'
            '<message>Required field "workspace_id" is missing.</message>\n'
            '<recovery>Provide the "workspace_id" parameter and retry.</recovery>\n'
            "</tool_error>"
        )
    ]
    assert result["isError"] is True


def test_tool_error_all_options() -> None:
    """tool_error writes every element in the reference's order."""
    result = tool_error(
        "RATE_LIMITED",
        "Too many requests.",
        suggestion="Wait, then retry.",
        available_actions=["jobs.list", "jobs.get"],
        details={"limit": 100, "window": "1m"},
        retry_after=30,
        severity="critical",
    )
    assert result.texts == [
        (
            '<tool_error code="RATE_LIMITED" severity="critical">\n'
            "<message>Too many requests.</message>\n"
            "<recovery>Wait, then retry.</recovery>\n"
            "<available_actions>\n"
            "  <action>jobs.list</action>\n"
            "  <action>jobs.get</action>\n"
            "</available_actions>\n"
            "<details>\n"
            '  <detail key="limit">100</detail>\n'
            '  <detail key="window">1m</detail>\n'
            "</details>\n"
            "<retry_after>30 seconds</retry_after>\n"
            "</tool_error>"
        )
    ]
    assert result["isError"] is True
    envelope = view_of(result).error
    assert envelope == ErrorEnvelope(
        message="Too many requests.",
        code="RATE_LIMITED",
        severity="critical",
        recovery="Wait, then retry.",
        available_actions=("jobs.list", "jobs.get"),
        details=ErrorDetails({"limit": "100", "window": "1m"}),
        retry_after="30",
    )


def test_tool_error_minimal() -> None:
    """tool_error with only code and message writes severity error."""
    assert tool_error("E", "m").texts == [
        '<tool_error code="E" severity="error">\n<message>m</message>\n</tool_error>'
    ]


@pytest.mark.parametrize("retry_after", [0, -1, -0.5, float("nan"), float("inf"), float("-inf")])
def test_retry_after_omitted_unless_positive_finite(retry_after: float) -> None:
    """retry_after <= 0 or non-finite writes no retry_after element."""
    text = tool_error("E", "m", retry_after=retry_after).texts[0]
    assert "retry_after" not in text


@pytest.mark.parametrize(("retry_after", "text"), [(1.5, "1.5"), (2.0, "2"), (1e21, "1e+21")])
def test_retry_after_in_js_notation(retry_after: float, text: str) -> None:
    """retry_after prints as JavaScript prints the number."""
    assert (
        f"<retry_after>{text} seconds</retry_after>"
        in tool_error("E", "m", retry_after=retry_after).texts[0]
    )


def test_warning_is_not_an_error() -> None:
    """severity="warning" gives isError false (present, not omitted)."""
    result = tool_error("W", "careful", severity="warning")
    assert result["isError"] is False
    assert result.is_error is False
    assert 'severity="warning"' in result.texts[0]


def test_empty_suggestion_and_actions_are_omitted() -> None:
    """An empty suggestion, action list or details writes no element."""
    text = tool_error("E", "m", suggestion="", available_actions=[], details={}).texts[0]
    assert text == '<tool_error code="E" severity="error">\n<message>m</message>\n</tool_error>'


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (3, "3"),
        (1.0, "1"),
        (float("nan"), "NaN"),
        (10**30, "1" + "0" * 30),
        ("a<b", "a&lt;b"),
        ([1], "[\n  1\n]"),
        ({"k": "v"}, '{\n  "k": "v"\n}'),
    ],
)
def test_detail_value_formatting(value: Any, text: str) -> None:
    """Detail values that are not str print as String(value) / JSON would."""
    result = tool_error("E", "m", details={"k": value})
    assert f'  <detail key="k">{text}</detail>' in result.texts[0]


@pytest.mark.parametrize(
    "call",
    [
        lambda: tool_error(1, "m"),  # type: ignore[arg-type]
        lambda: tool_error("E", None),  # type: ignore[arg-type]
        lambda: tool_error("E", "m", available_actions=[3]),  # type: ignore[list-item]
        lambda: tool_error("E", "m", details={1: "v"}),  # type: ignore[dict-item]
        lambda: tool_error("E", "m", severity=None),  # type: ignore[arg-type]
        lambda: error(3),  # type: ignore[arg-type]
    ],
)
def test_error_fields_must_be_str(call: Any) -> None:
    """Non-str error fields are TypeErrors, not bad bytes."""
    with pytest.raises(TypeError):
        call()


ROWS = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]


def test_toon_success_defaults_to_pipe() -> None:
    """toon_success uses the | delimiter by default; its view holds the TOON text."""
    result = toon_success({"rows": ROWS})
    assert dict(result) == {
        "content": [{"type": "text", "text": "rows[2|]{id|name}:\n  1|a\n  2|b"}]
    }
    assert view_of(result).data == "rows[2|]{id|name}:\n  1|a\n  2|b"  # the TOON text


@pytest.mark.parametrize(
    "options",
    [
        {"delimiter": ","},
        {"delimiter": "\t"},
        {"indent": 4},
        {"key_folding": "safe"},
        {"key_folding": "safe", "flatten_depth": 2},
        {"key_folding": "safe", "flatten_depth": 0},
    ],
)
def test_toon_success_passes_options_through(options: dict[str, Any]) -> None:
    """Every encoder option reaches the TOON encoder."""
    data = {"a": {"b": {"c": ROWS}}, "n": [1, 2]}
    expected = encode_toon(data, ToonOptions(**{"delimiter": "|", **options}))
    assert toon_success(data, **options).texts == [expected]


def test_toon_options_change_the_output() -> None:
    """Delimiter, indent and folding each change the bytes as documented."""
    assert toon_success({"rows": ROWS}, delimiter=",", indent=4).texts == [
        "rows[2]{id,name}:\n    1,a\n    2,b"
    ]
    nested = {"a": {"b": {"c": [1, 2]}}}
    assert toon_success(nested, key_folding="safe").texts == ["a.b.c[2|]: 1|2"]
    assert toon_success(nested, key_folding="safe", flatten_depth=2).texts == ["a.b:\n  c[2|]: 1|2"]


def test_toon_success_rejects_a_bad_delimiter() -> None:
    """An unknown delimiter is a ValueError."""
    with pytest.raises(ValueError, match="delimiter"):
        toon_success([1], delimiter=";")
