"""The pipeline's two halves that are not dispatch: its envelopes and its wrap rule.

Envelopes (the reference's layouts, the ``tcall-*`` goldens):

* ``UNKNOWN_TOOL`` and ``INTERNAL_ERROR`` use :func:`fusion_core.tool_error`;
* ``MISSING_DISCRIMINATOR``, ``INVALID_DISCRIMINATOR`` and ``UNKNOWN_ACTION``
  list the available actions inline (``a, b``) before the recovery line;
* argument validation is a ``<validation_error action="tool/action">`` with one
  ``<field name="..">`` per problem, in schema order, unrecognized keys last as
  one ``(root)`` field, then ``<recovery>``. The messages are pydantic's, plus
  what was sent. Every text is escaped (``&``, ``<``, and an LF before a blank
  line or a Markdown block start as ``&#xA;``; attributes fully).

The wrap rule (WIRE.md section 9) with the egress firewall (section 12.4):
whatever a handler returns is read by one rule, and when its action has a
Presenter the Presenter's schema decides what reaches the wire on every path.
No mutable object is trusted: a data block the action's Presenter *wrote*
during this call (an immutable str, sealed when the data was masked) passes
as is; anything else — a hand-made builder, ``success(rows)``, TOON, a raw
value, a builder's data changed after the Presenter made it — goes through
the Presenter, keeping the blocks the handler added. An error response is
written again from its envelope, so its text is the envelope's and nothing
else; data marked as an error is masked like any data.

The ``INTERNAL_ERROR`` envelope says as much of the exception as the app's
``expose_errors`` allows (``fusion_core._present._redact``, ``docs/errors.md``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from pydantic import ValidationError

from fusion_core._kinds import TOOL_ERROR, VALIDATION_ERROR
from fusion_core._present._presenter import Presenter, select_keys
from fusion_core._present._record import CallRecord
from fusion_core._present._redact import ErrorExposure, exception_text
from fusion_core._tools._unquoted import message_without_input
from fusion_core._write._builder import ResponseBuilder, sealed
from fusion_core._write._numbers import js_scalar, read_json
from fusion_core._write._one_call import (
    _envelope_response,
    success,
    success_structured,
    tool_error,
    toon_response,
)
from fusion_core._write._response import ToolResponse, origin_of, view_of
from fusion_core._write._text import escape_attr, escape_envelope
from fusion_core._write._view import ErrorEnvelope, ResponseView, ValidationFailure, ValidationField

__all__ = [
    "failure",
    "internal_error",
    "invalid_discriminator",
    "missing_discriminator",
    "unknown_action",
    "unknown_tool",
    "validation_error",
    "wrap",
]

logger = logging.getLogger("fusion_core")
RETRY_HINT: Final = "This may be a transient error. Retry the same call with identical parameters."
VALIDATION_RECOVERY: Final = (
    "Fix the fields above and call the tool again. Do not explain the error."
)
ROOT: Final = "(root)"
_UNRECOGNIZED: Final = frozenset({"extra_forbidden", "unexpected_keyword_argument"})
"""pydantic's errors for a key the schema does not have: a model's, a function's arguments'."""


def _inline_actions(code: str, message: str, actions: Sequence[str], recovery: str) -> ToolResponse:
    """``<tool_error code>`` with the actions inline, before the recovery."""
    text = "\n".join(
        [
            f'{TOOL_ERROR.opening} code="{escape_attr(code)}">',
            f"<message>{escape_envelope(message)}</message>",
            f"<available_actions>{escape_envelope(', '.join(actions))}</available_actions>",
            f"<recovery>{escape_envelope(recovery)}</recovery>",
            TOOL_ERROR.closing,
        ]
    )
    envelope = ErrorEnvelope(
        message=message, code=code, recovery=recovery, available_actions=tuple(actions)
    )
    return ToolResponse([text], view=ResponseView(error=envelope), is_error=True)


def unknown_tool(name: str) -> ToolResponse:
    """The envelope for a tool name no tool has."""
    return tool_error(
        "UNKNOWN_TOOL",
        f'Tool "{name}" does not exist.',
        suggestion="Check the available tools via tools/list and call a valid one.",
    )


def missing_discriminator(discriminator: str, actions: Sequence[str]) -> ToolResponse:
    """The discriminator is absent or empty."""
    return _inline_actions(
        "MISSING_DISCRIMINATOR",
        f'The required field "{discriminator}" is missing.',
        actions,
        f'Add the "{discriminator}" field as a string and call the tool again.',
    )


def js_type(value: Any) -> str:
    """JavaScript's ``typeof`` of a JSON value (``null`` is ``object``)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def invalid_discriminator(discriminator: str, value: Any, actions: Sequence[str]) -> ToolResponse:
    """The discriminator is not a string."""
    return _inline_actions(
        "INVALID_DISCRIMINATOR",
        f'Discriminator field "{discriminator}" must be a string, got {js_type(value)}.',
        actions,
        f'Set "{discriminator}" to one of the available actions as a string.',
    )


def unknown_action(discriminator: str, action: str, actions: Sequence[str]) -> ToolResponse:
    """The discriminator names no action of the tool (the message names the discriminator)."""
    return _inline_actions(
        "UNKNOWN_ACTION",
        f'The {discriminator} "{action}" does not exist.',
        actions,
        "Choose a valid action from available_actions and call the tool again.",
    )


def internal_error(
    label: str,
    exc: BaseException,
    exposure: ErrorExposure = "message",
    given: Iterable[tuple[Any, Any]] = (),
) -> ToolResponse:
    """A handler or Presenter failure: as much as ``exposure`` allows, never a traceback.

    ``given`` are the ``(data, masked)`` pairs Presenters saw during the call:
    the values they dropped are removed from the message.
    """
    # An exception without a message says so with an empty message, as the
    # reference does (``[tool/action] ``); the label still says where it failed.
    message = exception_text(exc, exposure, given)
    return tool_error("INTERNAL_ERROR", f"[{label}] {message}", suggestion=RETRY_HINT)


def failure(
    label: Any,
    exc: BaseException,
    exposure: ErrorExposure,
    given: Iterable[tuple[Any, Any]] = (),
    *,
    log: bool = True,
) -> ToolResponse:
    """The ``INTERNAL_ERROR`` envelope for ``exc``; falls back to one that cannot fail.

    The usual envelope quotes the exception's message; if that message (or
    the label an attacker chose) cannot be written — a lone surrogate, a
    ``__str__`` that raises — the fallback names the label in ASCII only.
    ``log``: the exception is logged with its traceback (the ``fusion_core``
    logger), unless the framework that ran the tool has logged it already.
    """
    shown = _ascii(label)
    if log:
        logger.error("tool call %s failed", shown, exc_info=exc)
    try:
        return internal_error(str(label), exc, exposure, given)
    except Exception:
        logger.exception("the INTERNAL_ERROR envelope of %s could not be written", shown)
    return tool_error(
        "INTERNAL_ERROR",
        f"[{shown}] the tool failed and its error could not be shown",
        suggestion=RETRY_HINT,
    )


def _ascii(value: Any) -> str:
    """``value`` as text that any writer accepts (ASCII, non-ASCII escaped)."""
    try:
        text = value if isinstance(value, str) else repr(value)
        return text.encode("ascii", "backslashreplace").decode("ascii")
    except Exception:  # noqa: BLE001 - a hostile __repr__
        return "?"


def sent(value: Any) -> str:
    """How a received value is quoted back to the agent."""
    if isinstance(value, str):
        return f"'{value}'"
    scalar = js_scalar(value)
    if scalar is not None:
        return scalar
    if isinstance(value, list | tuple):
        return f"array({len(value)})"
    return "object"


def field_problems(
    error: ValidationError,
    *,
    values: bool = True,
    path: Callable[[Sequence[int | str]], str] | None = None,
) -> list[tuple[str, str]]:
    """``(field, message)`` per problem, unrecognized keys merged into ``(root)``.

    With ``values=False`` the messages do not quote what was sent (a framework's
    validation, whose inputs this library did not choose to show): pydantic's
    messages that quote some of the input are written without it (``_unquoted``).
    ``path`` writes a location (the integrations': the parts the input schema
    does not declare, such as a ``dict`` argument's keys, as ``*``); an
    unrecognized key is named as sent, as the reference does, after its path.
    """
    problems: list[tuple[str, str]] = []
    unknown: list[str] = []
    for detail in error.errors(include_url=False):
        loc = detail["loc"]
        if detail["type"] in _UNRECOGNIZED:
            if path is not None and len(loc) > 1:
                unknown.append(f"{path(loc[:-1])}.{loc[-1]}")
            else:
                unknown.append(".".join(str(part) for part in loc))
            continue
        name = path(loc) if path is not None else ".".join(str(part) for part in loc) or ROOT
        if not values:
            problems.append((name, f"{message_without_input(detail)}."))
            continue
        shown = "(missing)" if detail["type"] == "missing" else sent(detail.get("input"))
        problems.append((name, f"{detail['msg']}. You sent: {shown}."))
    if unknown:
        problems.append(unrecognized(unknown))
    return problems


def unrecognized(keys: Sequence[str]) -> tuple[str, str]:
    """The one ``(root)`` problem listing every unrecognized key."""
    plural = "s" if len(keys) > 1 else ""
    names = ", ".join(f'"{key}"' for key in keys)
    return (ROOT, f"Unrecognized key{plural}: {names}. Remove them or correct their spelling.")


def validation_error(label: str, problems: Sequence[tuple[str, str]]) -> ToolResponse:
    """``<validation_error action="tool/action">`` with one ``<field>`` per problem."""
    lines = [f'{VALIDATION_ERROR.opening} action="{escape_attr(label)}">']
    lines.extend(
        f'<field name="{escape_attr(name)}">{escape_envelope(message)}</field>'
        for name, message in problems
    )
    lines.append(f"<recovery>{escape_envelope(VALIDATION_RECOVERY)}</recovery>")
    lines.append(VALIDATION_ERROR.closing)
    fields = tuple(ValidationField(name, message) for name, message in problems)
    failure = ValidationFailure(action=label, fields=fields, recovery=VALIDATION_RECOVERY)
    return ToolResponse(["\n".join(lines)], view=ResponseView(validation=failure), is_error=True)


def check_select(value: Any, allowed: Sequence[str]) -> list[tuple[str, str]]:
    """Problems with a ``_select`` argument: a list of the allowed field names."""
    if not isinstance(value, list):
        return [("_select", f"Input should be a list of field names. You sent: {sent(value)}.")]
    options = ", ".join(f"'{key}'" for key in allowed)
    return [
        (f"_select.{index}", f"Input should be one of {options}. You sent: {sent(item)}.")
        for index, item in enumerate(value)
        if not isinstance(item, str) or item not in allowed
    ]


def _extras(builder: ResponseBuilder, view: ResponseView) -> ResponseBuilder:
    """Carry the non-data blocks of a handler's response over to ``builder``."""
    builder.ui_blocks(view.ui_blocks)
    for text in view.embeds:
        builder.raw_block(text)
    for hint in view.directives:
        builder.llm_hint(hint)
    builder.system_rules(view.rules)
    builder.system_hint(view.suggestions)
    return builder


def wrap(
    result: Any,
    presenter: Presenter[Any] | None,
    ctx: Any,
    select: Sequence[str] | None,
    record: CallRecord,
) -> ToolResponse:
    """The one wrap rule, with the Presenter applied on every path."""
    if result is None:
        return success("")
    if presenter is None:
        if isinstance(result, ToolResponse):
            return result
        if isinstance(result, ResponseBuilder):
            return result.build()
        return success(result)
    if isinstance(result, ResponseBuilder):
        seal = sealed(result)
        if seal is not None and record.made_by(presenter, seal[1]):
            return result.build() if not select else _narrowed(seal[1], result.view(), select)
        data = seal[0] if seal is not None else result.data
        return _extras(presenter.make(data, ctx, select), result.view()).build()
    if not isinstance(result, ToolResponse):
        return presenter.make(result, ctx, select).build()
    view = view_of(result)
    if view.error is not None or view.validation is not None or result.is_error:
        return _error_again(result, presenter, ctx)
    origin = origin_of(result)
    if origin is not None:  # TOON: encode the masked data again, same options
        return toon_response(select_keys(presenter.mask(origin[0]), select or ()), origin[1])
    if "structuredContent" in result:
        return success_structured(presenter.mask(view.data))
    texts = result.texts
    if texts and record.made_by(presenter, result["content"][0]["text"]):
        return result if not select else _narrowed(texts[0], view, select)
    return _extras(presenter.make(view.data, ctx, select), view).build()


def _narrowed(text: str, view: ResponseView, select: Sequence[str]) -> ToolResponse:
    """A Presenter's data block narrowed to ``select``: read from the sealed text itself."""
    return _extras(ResponseBuilder(select_keys(read_json(text), select)), view).build()


def _error_again(result: ToolResponse, presenter: Presenter[Any], ctx: Any) -> ToolResponse:
    """An error response written again from its view: the envelope, or masked data."""
    view = view_of(result)
    if view.data is None:
        if view.error is not None:
            return _envelope_response(view.error)
        if view.validation is not None:
            fields = [(field.name, field.message) for field in view.validation.fields]
            return validation_error(view.validation.action or "", fields)
        return ToolResponse([], view=ResponseView(), is_error=True)
    built = _extras(presenter.make(view.data, ctx), view).build()
    return ToolResponse(built.texts, view=view_of(built), is_error=True)
