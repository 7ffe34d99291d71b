"""What a failed contract test prints: one screenful that says what to change.

A contract test sends many generated calls; when one breaks a rule, the test
raises :class:`ContractFailure` carrying the call and what came back, and the
item's ``repr_failure`` prints :func:`describe`'s lines instead of a traceback
through hypothesis, pluggy and pytest: the tool and action, the arguments
sent, each violated rule with its message, the blocks received (trimmed), and
the command that runs the same test with the same seed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from fusion_core._snapshot._format import block_kinds
from fusion_core._terminal import terminal_safe

if TYPE_CHECKING:
    from pytest_mcpfusion._result import FusionResult

__all__ = ["ContractFailure", "call_line", "describe", "received_kinds", "rules_of"]

_SHOWN_BLOCKS: Final = 8
_SHOWN_CHARS: Final = 160  # of each block, and of the arguments
_SHOWN_FAILURES: Final = 3  # distinct failures hypothesis found, each in full
# A violation reads "block 1: [rule-id] message"; another failure "[ErrorType] message".
_RULE: Final = re.compile(r"\[([A-Za-z][\w-]*)\]")


@dataclass(eq=False)
class ContractFailure(AssertionError):  # noqa: N818 - an assertion, named for the report
    """One generated call whose answer broke a rule (``problems``: one line each)."""

    tool: str
    action: str | None
    arguments: Mapping[str, Any]
    problems: Sequence[str]
    result: FusionResult | None = field(default=None)

    def __post_init__(self) -> None:
        super().__init__("; ".join(self.problems))

    def __str__(self) -> str:
        return "; ".join(self.problems)


def describe(failures: Sequence[ContractFailure], *, reproduce: str) -> str:
    """The failure text: each failure (at most a few), then how to run it again."""
    lines: list[str] = []
    for failure in failures[:_SHOWN_FAILURES]:
        lines.extend(_one(failure))
        lines.append("")
    if len(failures) > _SHOWN_FAILURES:
        lines.append(f"... and {len(failures) - _SHOWN_FAILURES} more distinct failure(s)")
    lines.append(f"reproduce: {reproduce}")
    # Names, messages and blocks are the server's: the terminal shows them, not obeys.
    return terminal_safe("\n".join(lines), multiline=True)


def _one(failure: ContractFailure) -> list[str]:
    action = f" action {failure.action!r}" if failure.action is not None else ""
    sent = json.dumps(dict(failure.arguments), ensure_ascii=False, default=repr)
    lines = [
        f"tool {failure.tool!r}{action} broke the Fusion contract",
        f"  sent:     {_trim(sent)}",
        "  violated:",
        *(f"    - {problem}" for problem in failure.problems),
    ]
    result = failure.result
    if result is not None:
        flag = " (isError)" if result.is_error else ""
        lines.append(f"  received: {len(result.content)} block(s){flag}")
        for index, text in enumerate(result.content[:_SHOWN_BLOCKS]):
            lines.append(f"    [{index}] {_trim(repr(text))}")
        if len(result.content) > _SHOWN_BLOCKS:
            lines.append(f"    ... {len(result.content) - _SHOWN_BLOCKS} more block(s)")
    return lines


def _trim(text: str) -> str:
    if len(text) <= _SHOWN_CHARS:
        return text
    return f"{text[: _SHOWN_CHARS - 1]}… ({len(text):,} chars)"


def call_line(failure: ContractFailure) -> str:
    """The call as one line: the tool, then the arguments sent as JSON."""
    sent = json.dumps(dict(failure.arguments), ensure_ascii=False, sort_keys=True, default=repr)
    return f"{failure.tool} {sent}"


def rules_of(messages: Sequence[str]) -> list[str]:
    """The rule ids (or error types) the messages name, in order, each once."""
    found = (_RULE.search(message) for message in messages)
    return list(dict.fromkeys(match.group(1) for match in found if match is not None))


def received_kinds(failure: ContractFailure) -> list[str]:
    """The kinds of the blocks the failing call received (``data``, ``domain_rules``...)."""
    if failure.result is None:
        return []
    return [kind.split("(", 1)[0] for kind in block_kinds(failure.result.wire_dict)]
