"""The structured view of a response: what the blocks say, as Python values.

Every response this library builds carries one. It is what tests read
(instead of parsing XML), and what parsing the response's bytes gives back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, final

from fusion_core._write._ui import UiBlock

__all__ = [
    "ErrorDetails",
    "ErrorEnvelope",
    "ResponseView",
    "Suggestion",
    "ValidationFailure",
    "ValidationField",
]


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
        if type(value) is tuple and len(value) == 2:  # the common case, before an ABC check
            tool, reason = value[0], value[1]
        elif isinstance(value, Mapping):
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


@final
class ErrorDetails(Mapping[str, str]):
    """The ``<details>`` of an error envelope: a read-only ``{key: value}`` mapping.

    It keeps the envelope's order, and :attr:`pairs` keeps every
    ``<detail>`` line as written, so a foreign envelope that repeats a key
    loses nothing (the mapping shows the last value; ``check()`` reports the
    repeat). It equals a ``dict`` with the same items, so tests can write
    ``result.error.details == {"invoice_id": "INV-404"}``.
    """

    __slots__ = ("_map", "pairs")

    _map: dict[str, str]
    pairs: tuple[tuple[str, str], ...]

    def __init__(self, items: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        pairs = tuple(items.items() if isinstance(items, Mapping) else items)
        for pair in pairs:
            if not (
                isinstance(pair, tuple)
                and len(pair) == 2
                and isinstance(pair[0], str)
                and isinstance(pair[1], str)
            ):
                msg = f"error details are str keys with str values; got {pair!r:.80}"
                raise TypeError(msg)
        object.__setattr__(self, "pairs", pairs)
        object.__setattr__(self, "_map", dict(pairs))

    def __setattr__(self, name: str, value: object) -> None:
        msg = "ErrorDetails is read-only"
        raise AttributeError(msg)

    def __getitem__(self, key: str) -> str:
        return self._map[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ErrorDetails):
            return self.pairs == other.pairs
        if isinstance(other, Mapping):
            return self._map == dict(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.pairs)

    def __reduce__(self) -> tuple[type[ErrorDetails], tuple[tuple[tuple[str, str], ...]]]:
        return ErrorDetails, (self.pairs,)

    def __repr__(self) -> str:
        return f"ErrorDetails({self._map!r})"


@dataclass(frozen=True, slots=True)
class ErrorEnvelope:
    """A ``<tool_error>`` envelope as data.

    ``severity`` is ``None`` for the short ``error(message, code)`` form,
    which writes no severity attribute. ``details`` is an
    :class:`ErrorDetails` mapping in the envelope's order (a mapping or
    ``(key, value)`` pairs are accepted and converted).
    """

    message: str
    code: str | None = None
    severity: str | None = None
    recovery: str | None = None
    available_actions: tuple[str, ...] = ()
    details: ErrorDetails = field(default_factory=ErrorDetails)
    retry_after: str | None = None

    def __post_init__(self) -> None:
        details: Any = self.details  # typed as the result; callers may pass a mapping
        if not isinstance(details, ErrorDetails):
            object.__setattr__(self, "details", ErrorDetails(details))

    @property
    def is_error(self) -> bool:
        """Whether the envelope makes the response an error (``warning`` does not)."""
        return self.severity != "warning"


@final
@dataclass(frozen=True, slots=True)
class ValidationField:
    """One ``<field name="..">message</field>`` of a validation error."""

    name: str
    message: str


@dataclass(frozen=True, slots=True)
class ValidationFailure:
    """A ``<validation_error>`` envelope as data: which action, which fields, what to do.

    ``fields`` holds one :class:`ValidationField` per ``<field>``, in the
    envelope's order (``(name, message)`` pairs are accepted and converted).
    """

    action: str | None
    fields: tuple[ValidationField, ...]
    recovery: str | None = None

    def __post_init__(self) -> None:
        given: Any = self.fields  # typed as the result; callers may pass pairs
        fields = tuple(
            item if isinstance(item, ValidationField) else ValidationField(*item) for item in given
        )
        object.__setattr__(self, "fields", fields)


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
        from fusion_core._write._blocks import render_data, render_rest  # noqa: PLC0415 - _blocks imports this module
        from fusion_core._write._json import to_json  # noqa: PLC0415 - same reason

        blocks = render_rest(
            self.ui_blocks, self.embeds, self.directives, self.rules, self.suggestions
        )
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
