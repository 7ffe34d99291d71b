"""The strict reading: layouts the default check accepts but cannot be sure of.

The layout rule (``_parse``) reads every block between the UI run and the
tail as an embedded child block, because a child Presenter's UI, rules and
suggestions read exactly like the parent's there. A foreign server that puts
its rules before its UI block, or its suggestions before its rules, produces
the very same bytes — so ``check()`` stays silent while
``result.system_rules`` and ``result.ui_blocks`` come back empty. Likewise
``<secret_notes>…</secret_notes>`` between the UI and the tail reads as an
embed, and a bare error text with ``isError: true`` reads as data.

:func:`findings` names each such place. ``check(source, strict=True)`` turns
them into violations; in the default mode the pytest plugin reports
``unknown-element`` and ``bare-error`` as warnings, never ``ambiguous-layout``:
that layout is exactly what a parent with an embedded child Presenter writes,
so a warning about it would be one nobody can act on. Rule ids:

=====================  ======================================================
``ambiguous-layout``   a Fusion block (UI, directives, rules, suggestions)
                       read as an embedded child block: misplaced, or a
                       child's — the bytes cannot tell
``unknown-element``    an element block of an unknown kind among the embeds
``bare-error``         ``isError: true`` without a ``<tool_error>`` or
                       ``<validation_error>`` envelope in block 0
=====================  ======================================================

One rule of the default check lives here too, beside ``bare-error``, since
both read the same answer: ``refused-without-envelope``, ``isError: true``
with the plain text a framework writes when arguments fail its validation
(pydantic's ``1 validation error for ...`` through MCPServer and FastMCP,
the TypeScript SDK's ``Input validation error``). It is certain, not a
guess — a refusal of the arguments without the ``<validation_error>`` the
format asks for — so :func:`plain_refusal` reports it in every mode, and
:func:`findings` then reports no ``bare-error`` for the same block.

Functions here return ``(block index, rule, message)`` triples; ``_check``
wraps them as :class:`~fusion_core.Violation` values.
"""

from __future__ import annotations

import re
from typing import Final

from fusion_core._kinds import TAIL, TAIL_ORDER, UI
from fusion_core._read._parsed_blocks import DataBlock, EmbedBlock, ParsedResponse

__all__ = ["PLAIN_REFUSAL", "STRICT_RULES", "findings", "plain_refusal"]

STRICT_RULES: Final = frozenset({"ambiguous-layout", "unknown-element", "bare-error"})
"""The rule ids only ``check(..., strict=True)`` reports."""

Finding = tuple[int | None, str, str]

PLAIN_REFUSAL: Final = re.compile(
    r"\b\d+ validation errors? for \S+"  # pydantic: MCPServer, FastMCP, any pydantic server
    r"|\bInput validation error\b"  # the TypeScript SDK, FastMCP
    r"|\bInvalid arguments for tool\b"  # the TypeScript SDK
)
"""What a framework writes when the arguments fail its validation (in plain text)."""
_SHOWN: Final = 120  # characters of the refusal a message quotes

# The kinds an embed can be mistaken for: UI blocks and the tail's.
_MISTAKABLE: Final = (UI, *TAIL)
_ELEMENT: Final = re.compile(r"<([A-Za-z_][\w.-]*)(?:[ \t\n][^>]*)?>")
_ORDER_HINT: Final = f"the order is data, UI blocks, {TAIL_ORDER}"


def findings(parsed: ParsedResponse) -> list[Finding]:
    """Every ambiguity of one parsed response, in block order."""
    found: list[Finding] = []
    for index, block in enumerate(parsed.blocks):
        if isinstance(block, EmbedBlock) and index < parsed.tail_start:
            found.extend(_embed(index, block.text))
    first = parsed.blocks[0]
    if parsed.is_error is True and isinstance(first, DataBlock) and not plain_refusal(parsed):
        message = (
            "isError is true but block 0 is plain text, not a <tool_error> envelope, so "
            "the agent gets no code and no recovery hint (an uncaught exception looks "
            'like this); answer errors with a <tool_error code="..."> envelope as block 0 '
            "(docs/wire-format.md, 'Errors'; with fusion_core: tool_error(code, message, "
            "suggestion=...); on MCPServer or FastMCP, return tool_error(...) rather than "
            "raise ToolError (the framework's own plain answer), and use_fusion(server) "
            "answers the other exceptions with that envelope)"
        )
        found.append((0, "bare-error", message))
    return found


def plain_refusal(parsed: ParsedResponse) -> list[Finding]:
    """``refused-without-envelope`` when block 0 is a framework's plain-text refusal."""
    first = parsed.blocks[0] if parsed.blocks else None
    if parsed.is_error is not True or not isinstance(first, DataBlock):
        return []
    text = first.text
    match = PLAIN_REFUSAL.search(text)
    if match is None:
        return []
    # The line that says so ("Error executing tool t: 1 validation error for tArguments").
    line = text[text.rfind("\n", 0, match.start()) + 1 :].partition("\n")[0].strip()
    quoted = line if len(line) <= _SHOWN else f"{line[: _SHOWN - 1]}…"
    message = (
        f"isError is true and block 0 is a framework's plain-text refusal of the arguments "
        f"({quoted!r}), not a <validation_error> envelope, so the agent gets no "
        "field-by-field reasons to correct its call; answer invalid arguments with a "
        "<validation_error> envelope as block 0 (docs/wire-format.md, 'Errors'; with "
        "fusion_core, a FusionApp writes it for arguments its schema refuses)"
    )
    return [(0, "refused-without-envelope", message)]


def _embed(index: int, text: str) -> list[Finding]:
    for kind in _MISTAKABLE:
        if text.startswith(kind.opening):
            message = (
                f"this {kind.element} block reads as an embedded child block, so "
                f"result.{kind.result} does not include it: a child Presenter's block "
                "(nothing to change: the strict reading is for servers that embed no "
                f"child Presenters) or out of place (move it: {_ORDER_HINT}); the bytes "
                "cannot tell which"
            )
            return [(index, "ambiguous-layout", message)]
    element = _ELEMENT.match(text)
    if element is not None and text.rstrip().endswith(f"</{element.group(1)}>"):
        message = (
            f"<{element.group(1)}> is not a Fusion block kind; it reads as an embedded "
            "child block that no attribute of the result exposes: send it as data, or drop it"
        )
        return [(index, "unknown-element", message)]
    return []
