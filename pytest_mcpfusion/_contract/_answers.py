"""What an answer is, and what the contract tests ask of it, at each level of the gate.

One classification (:func:`answer_of`) is read by every verdict, in the
user's tests and in the contract tests alike:

==================  ==========================================================
``ok``              not ``isError``
``envelope``        ``isError`` with a ``<tool_error>`` envelope
``validation``      a ``<validation_error>`` envelope
``plain-refusal``   ``isError`` and plain text a framework writes when the
                    arguments fail its validation (pydantic's ``1 validation
                    error for ...`` through MCPServer and FastMCP, the
                    TypeScript SDK's ``Input validation error``): a refusal
                    of the arguments, without the envelope the Fusion format
                    asks for
``plain-error``     ``isError`` and any other plain text
==================  ==========================================================

Two levels (``--fusion-level``):

* ``fusion`` (the default): the Fusion format. A refusal must be a
  ``<validation_error>`` (or ``<tool_error>``) envelope; a framework's
  plain-text refusal breaks the validator's ``refused-without-envelope``
  rule (``fusion check`` says the same). Any other bare error follows the
  ``bare-error`` rule of the strict reading: a warning in the report, a
  failure under ``--fusion-strict`` — in every test.
* ``mcp``: what a correct plain MCP server can pass. Schema-valid arguments
  are not refused as invalid, schema-invalid ones are refused with
  ``isError`` (any text), a success's ``structuredContent`` matches the
  tool's ``outputSchema``; no crash, no answer over the size or time limits.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from fusion_core._read._strict import PLAIN_REFUSAL
from pytest_mcpfusion._options import LEVELS

if TYPE_CHECKING:
    from pytest_mcpfusion._result import FusionResult

__all__ = [
    "LEVELS",
    "answer_of",
    "first_line",
    "level_problems",
    "protocol_refusal",
]


_FIRST_LINE: Final = 160


def answer_of(result: FusionResult) -> str:
    """``ok``, ``envelope``, ``validation``, ``plain-refusal`` or ``plain-error``."""
    view = result.view  # read as parse() reads it: a bare error is plain text, classified below
    if view.validation is not None:
        return "validation"
    if view.error is not None:
        return "envelope"
    if not result.is_error:
        return "ok"
    text = "\n".join(result.content)
    return "plain-refusal" if PLAIN_REFUSAL.search(text) else "plain-error"


def first_line(result: FusionResult) -> str:
    """The answer's first line of text, shortened, for a message."""
    text = result.content[0] if result.content else ""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= _FIRST_LINE else f"{line[: _FIRST_LINE - 1]}…"


def level_problems(
    level: str, definition: Mapping[str, Any], result: FusionResult, *, valid: bool
) -> list[str]:
    """What a contract test's answer breaks beyond the per-result review, at ``level``."""
    answer = answer_of(result)
    if not valid:
        if result.is_error:
            return []  # refused: with an envelope, or as the review's rules judge it
        return [
            "[invalid-accepted] arguments the input schema refuses were accepted: the answer "
            "is not isError"
            + ("" if level == "mcp" else " (refuse them with a <validation_error> envelope)")
        ]
    if answer in ("validation", "plain-refusal"):
        refused = "[valid-refused] arguments valid by the input schema were refused as invalid"
        return [f"{refused}: {first_line(result)!r}"]
    if level == "mcp" and answer == "ok":
        return _output_problems(definition, result)
    return []


def protocol_refusal(level: str, error: BaseException, *, valid: bool) -> list[str] | None:
    """The verdict on a JSON-RPC error answering ``tools/call``; ``None`` if ``error`` is not one.

    The MCP SDK raises ``MCPError`` for it. For invalid arguments it is a
    refusal: enough at the ``mcp`` level; at the ``fusion`` level the format
    asks for an ``isError`` result with a ``<validation_error>``. For valid
    arguments it is a refusal of a call the schema allows.
    """
    exceptions = sys.modules.get("mcp.shared.exceptions")
    if exceptions is None or not isinstance(error, exceptions.MCPError):
        return None
    code = getattr(getattr(error, "error", None), "code", None)
    said = f"a JSON-RPC error ({code}: {str(error)[:_FIRST_LINE]!r})"
    if valid:
        refused = "[valid-refused] arguments valid by the input schema were refused with"
        return [f"{refused} {said}"]
    if level == "mcp":
        return []
    envelope = "an isError result with a <validation_error> envelope as block 0"
    where = "docs/wire-format.md, 'Errors'"
    refused = f"[refused-without-envelope] the arguments were refused with {said}"
    return [f"{refused}, not {envelope} ({where})"]


def _output_problems(definition: Mapping[str, Any], result: FusionResult) -> list[str]:
    """A success's ``structuredContent`` against the tool's ``outputSchema``."""
    schema = definition.get("outputSchema")
    if not isinstance(schema, Mapping):
        return []
    structured = result.structured_content
    if structured is None:
        missing = "the tool declares an outputSchema but the answer has no structuredContent"
        return [f"[output-schema] {missing}"]
    from jsonschema import Draft202012Validator, SchemaError  # noqa: PLC0415 - a dependency of mcp; lazy

    try:
        Draft202012Validator.check_schema(dict(schema))
    except SchemaError as exc:
        return [f"[output-schema] the tool's outputSchema is not a JSON Schema: {exc.message:.160}"]
    errors = sorted(Draft202012Validator(dict(schema)).iter_errors(structured), key=str)
    return [
        f"[output-schema] structuredContent does not match the outputSchema at "
        f"{error.json_path}: {error.message[:_FIRST_LINE]}"
        for error in errors[:3]
    ]
