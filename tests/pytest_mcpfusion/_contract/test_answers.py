"""What the contract tests ask of one answer at each level (``_contract._answers``)."""

from __future__ import annotations

from typing import Any

import pytest

from fusion_core import success, tool_error
from fusion_core._tools._pipeline import validation_error
from pytest_mcpfusion._contract._answers import answer_of, level_problems, protocol_refusal
from tests._support.results import result_of, wire_result

REFUSAL = "Error executing tool t: 1 validation error for tArguments\nx\n  Field required"
MISMATCH = "[output-schema] structuredContent does not match the outputSchema at"
OUTPUT = {
    "name": "t",
    "inputSchema": {"type": "object"},
    "outputSchema": {
        "type": "object",
        "properties": {"time": {"type": "string"}},
        "required": ["time"],
    },
}


def _plain(text: str, *, is_error: bool, structured: Any = None) -> Any:
    wire: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if structured is not None:
        wire["structuredContent"] = structured
    return wire_result(wire, tool="t")


@pytest.mark.parametrize(
    ("result", "answer"),
    [
        (result_of(success({"a": 1})), "ok"),
        (result_of(tool_error("NOT_FOUND", "no")), "envelope"),
        (result_of(validation_error("t", [("x", "required")])), "validation"),
        (_plain(REFUSAL, is_error=True), "plain-refusal"),
        (_plain("Traceback: KeyError", is_error=True), "plain-error"),
        (_plain(REFUSAL, is_error=False), "ok"),
    ],
)
def test_every_answer_has_one_class(result: Any, answer: str) -> None:
    """Envelopes, a framework's refusal, any other plain error, or ok."""
    assert answer_of(result) == answer


@pytest.mark.parametrize("level", ["fusion", "mcp"])
def test_a_refusal_of_invalid_arguments_is_never_called_accepted(level: str) -> None:
    """Refused with isError, whatever the text: not [invalid-accepted] (the review judges it)."""
    for result in (_plain(REFUSAL, is_error=True), _plain("no", is_error=True)):
        assert level_problems(level, OUTPUT, result, valid=False) == []
    accepted = level_problems(level, OUTPUT, _plain("{}", is_error=False), valid=False)
    assert len(accepted) == 1
    assert accepted[0].startswith("[invalid-accepted]")


@pytest.mark.parametrize("level", ["fusion", "mcp"])
def test_valid_arguments_refused_as_invalid(level: str) -> None:
    """A plain refusal or a <validation_error> of valid arguments: [valid-refused], quoted."""
    problems = level_problems(level, OUTPUT, _plain(REFUSAL, is_error=True), valid=True)
    refused = "[valid-refused] arguments valid by the input schema were refused as invalid"
    assert problems == [f"{refused}: 'Error executing tool t: 1 validation error for tArguments'"]
    # A domain error (a zone that does not exist) is not a refusal of the arguments.
    assert level_problems(level, OUTPUT, _plain("no such zone", is_error=True), valid=True) == []


@pytest.mark.parametrize(
    ("structured", "found"),
    [
        ({"time": "12:00"}, []),
        (None, ["[output-schema] the tool declares an outputSchema but the answer has no "]),
        ({"time": 12}, [f"{MISMATCH} $.time"]),
        ({}, [f"{MISMATCH} $: 'time'"]),
        ([1, 2], [f"{MISMATCH} $: [1, 2]"]),
    ],
)
def test_the_mcp_level_holds_a_success_to_its_output_schema(
    structured: Any, found: list[str]
) -> None:
    """A success's structuredContent against outputSchema (only at the mcp level)."""
    result = _plain('{"time": "12:00"}', is_error=False, structured=structured)
    problems = level_problems("mcp", OUTPUT, result, valid=True)
    assert [p[: len(f)] for p, f in zip(problems, found, strict=True)] == found
    assert level_problems("fusion", OUTPUT, result, valid=True) == []
    assert level_problems("mcp", {**OUTPUT, "outputSchema": None}, result, valid=True) == []


@pytest.mark.parametrize("schema", [{"type": 5}, {"properties": []}, {"required": "time"}])
def test_a_broken_output_schema_is_named_not_raised(schema: dict[str, Any]) -> None:
    """A hostile outputSchema: one message naming it, never a traceback from jsonschema."""
    result = _plain("{}", is_error=False, structured={})
    problems = level_problems("mcp", {**OUTPUT, "outputSchema": schema}, result, valid=True)
    assert len(problems) == 1
    assert problems[0].startswith("[output-schema] the tool's outputSchema is not a JSON Schema: ")


def test_a_json_rpc_error_answer_is_a_verdict_not_a_crash() -> None:
    """MCPError (-32602) to invalid arguments: a refusal (mcp), no envelope (fusion); else None."""
    from mcp.shared.exceptions import MCPError  # noqa: PLC0415 - the SDK loads lazily

    error = MCPError(code=-32602, message="Invalid params: n must be an integer")
    assert protocol_refusal("mcp", error, valid=False) == []
    (fusion,) = protocol_refusal("fusion", error, valid=False) or [""]
    assert fusion.startswith("[refused-without-envelope] the arguments were refused with a JSON")
    assert "-32602" in fusion
    assert "<validation_error> envelope" in fusion
    for level in ("fusion", "mcp"):
        (valid,) = protocol_refusal(level, error, valid=True) or [""]
        assert valid.startswith("[valid-refused]")
    assert protocol_refusal("mcp", ValueError("not an answer"), valid=False) is None
