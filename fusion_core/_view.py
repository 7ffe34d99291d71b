"""The structured view of a response: what the blocks say, as Python values.

Every response this library builds carries one. It is what tests read
(instead of parsing XML), and what parsing the response's bytes gives back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._ui import UiBlock

__all__ = ["ErrorEnvelope", "ResponseView", "Suggestion", "ValidationFailure"]


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One action suggestion: ``- tool: reason``."""

    tool: str
    reason: str

    @classmethod
    def of(cls, value: object) -> Suggestion:
        """Accept a ``Suggestion``, a ``{"tool", "reason"}`` mapping or a pair."""
        if isinstance(value, Suggestion):
            return value
        if isinstance(value, Mapping):
            tool, reason = value.get("tool"), value.get("reason")
        elif isinstance(value, tuple) and len(value) == 2:
            tool, reason = value[0], value[1]
        else:
            msg = f"a suggestion is a Suggestion, a (tool, reason) pair or a mapping; got {value!r}"
            raise TypeError(msg)
        if not isinstance(tool, str) or not isinstance(reason, str):
            msg = f"a suggestion's tool and reason must be str; got {value!r}"
            raise TypeError(msg)
        return cls(tool, reason)


@dataclass(frozen=True, slots=True)
class ErrorEnvelope:
    """A ``<tool_error>`` envelope as data.

    ``severity`` is ``None`` for the short ``error(message, code)`` form,
    which writes no severity attribute; ``details`` keeps its order.
    """

    message: str
    code: str | None = None
    severity: str | None = None
    recovery: str | None = None
    available_actions: tuple[str, ...] = ()
    details: tuple[tuple[str, str], ...] = ()
    retry_after: str | None = None

    @property
    def is_error(self) -> bool:
        """Whether the envelope makes the response an error (``warning`` does not)."""
        return self.severity != "warning"


@dataclass(frozen=True, slots=True)
class ValidationFailure:
    """A ``<validation_error>`` envelope as data: which action, which fields, what to do.

    ``fields`` holds ``(field name, message)`` pairs in the envelope's order.
    """

    action: str | None
    fields: tuple[tuple[str, str], ...]
    recovery: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class ResponseView:
    """What a response says, block by block, without its bytes.

    ``data`` is the Python object that was given (``"OK"`` for an empty
    string); ``embeds`` are the raw child blocks, verbatim; ``error`` is the
    envelope of an error response. Equality compares wire meaning (see
    ``__eq__``).
    """

    data: Any = None
    ui_blocks: tuple[UiBlock, ...] = ()
    embeds: tuple[str, ...] = ()
    directives: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    error: ErrorEnvelope | None = None
    structured_content: Any = field(default=None)
    validation: ValidationFailure | None = None

    def _key(self) -> tuple[Any, ...]:
        from ._blocks import (  # noqa: PLC0415 - _blocks imports this module
            render_data,
            render_directives,
            render_rules,
            render_suggestions,
            render_ui,
        )
        from ._json import to_json  # noqa: PLC0415 - same reason

        blocks = [render_ui(block) for block in self.ui_blocks]
        blocks.extend(self.embeds)
        if self.directives:
            blocks.append(render_directives(self.directives))
        if self.rules:
            blocks.append(render_rules(self.rules))
        if self.suggestions:
            blocks.append(render_suggestions(self.suggestions))
        enveloped = self.error is not None or self.validation is not None
        data = self.data
        if enveloped and data is None:
            text = None
        elif isinstance(data, str):
            text = data or "OK"  # verbatim; never re-checked (it was when built)
        else:
            text = render_data(data)
        return (
            text,
            blocks,
            self.error,
            self.validation,
            to_json(self.structured_content),
        )

    def __eq__(self, other: object) -> bool:
        """Views are equal when they say the same thing on the wire.

        ``data`` and ``structured_content`` compare by their wire text, so a
        ``datetime`` equals its ISO string and ``1.0`` equals ``1``; UI blocks,
        embeds, directives, rules and suggestions compare as the sequence of
        blocks they write, so a child Presenter's block that reads the same as
        the parent's own is the same block. Bytes cannot tell those apart, and
        the parser gives back what the bytes say.
        """
        if not isinstance(other, ResponseView):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]
