"""One-call responses: success, structured success, TOON, and error envelopes."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from fusion_core._write._blocks import render_error, write_data
from fusion_core._write._json import child_path, to_json, to_plain, write_json
from fusion_core._write._numbers import js_scalar, js_string_of_number
from fusion_core._write._response import ToolResponse, with_json_data, with_origin
from fusion_core._write._toon import ToonOptions, encode_toon_data
from fusion_core._write._view import ErrorDetails, ErrorEnvelope, ResponseView

__all__ = [
    "error",
    "required",
    "success",
    "success_structured",
    "tool_error",
    "toon_response",
    "toon_success",
]


def success(data: Any) -> ToolResponse:
    """A plain successful result: a str verbatim (``""`` → ``OK``) or JSON."""
    view_data = "OK" if isinstance(data, str) and data == "" else data
    text, orjson_wrote = write_data(data)
    response = ToolResponse([text], view=ResponseView(data=view_data))
    return with_json_data(response, text) if orjson_wrote else response


def success_structured(data: Any) -> ToolResponse:
    """JSON text for MCP 1.0 clients plus ``structuredContent`` with the same data.

    Unlike :func:`success`, a str is JSON-encoded (``hello`` becomes a quoted JSON
    string), because the text block must carry the same value as ``structuredContent``.
    """
    plain = to_plain(data)
    text, orjson_wrote = write_json(data)
    response = ToolResponse(
        [text],
        view=ResponseView(data=data, structured_content=plain),
        structured_content=plain,
    )
    return with_json_data(response, text) if orjson_wrote else response


def toon_success(
    data: Any,
    *,
    delimiter: str = "|",
    indent: int = 2,
    key_folding: Literal["off", "safe"] = "off",
    flatten_depth: int | None = None,
    version: Literal[3, 4] = 3,
) -> ToolResponse:
    """One block with the TOON encoding of ``data`` (pipe delimiter by default).

    The response's view holds that TOON text as its ``data``.

    Every option of the reference encoder is passed through: ``delimiter``
    (``,``, ``|`` or tab), ``indent``, ``key_folding`` and ``flatten_depth``.
    ``version=4`` writes TOON spec v4.0 instead of the reference's TOON.
    """
    options = ToonOptions(delimiter, indent, key_folding, flatten_depth, version)
    return toon_response(data, options)


def toon_response(data: Any, options: ToonOptions) -> ToolResponse:
    """:func:`toon_success` with its options made: one block, the TOON text of ``data``."""
    text = encode_toon_data(data, options)
    # The view holds the text: TOON is what the agent reads, and bytes cannot
    # be read back into the data (TOON text is also plain text). The data is
    # kept privately, so a Presenter can mask it and encode again.
    return with_origin(ToolResponse([text], view=ResponseView(data=text)), data, options)


def _envelope_response(envelope: ErrorEnvelope) -> ToolResponse:
    return ToolResponse(
        [render_error(envelope)],
        view=ResponseView(error=envelope),
        is_error=envelope.is_error,
    )


def error(message: str, code: str | None = None) -> ToolResponse:
    """``<tool_error>`` with a message (and a code attribute when given)."""
    return _envelope_response(ErrorEnvelope(message=_text(message, "message"), code=code))


def required(field: str) -> ToolResponse:
    """The ``MISSING_REQUIRED_FIELD`` envelope for a missing parameter."""
    return _envelope_response(
        ErrorEnvelope(
            code="MISSING_REQUIRED_FIELD",
            message=f'Required field "{field}" is missing.',
            recovery=f'Provide the "{field}" parameter and retry.',
        )
    )


def _detail_text(key: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    path = child_path("details", key)
    scalar = js_scalar(value, path)
    return scalar if scalar is not None else to_json(value, _path=path)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        msg = f"the error {name} must be str, got {type(value).__qualname__}: {value!r:.80}"
        raise TypeError(msg)
    return value


def tool_error(
    code: str,
    message: str,
    *,
    suggestion: str | None = None,
    available_actions: Iterable[str] = (),
    details: Mapping[str, Any] | None = None,
    retry_after: float | None = None,
    severity: str = "error",
) -> ToolResponse:
    """A structured, self-healing error envelope.

    ``retry_after`` is written only when it is a positive finite number;
    ``severity="warning"`` gives ``isError: false``.
    """
    retry_text = None
    if (
        retry_after is not None
        and not isinstance(retry_after, bool)
        # an int is finite (math.isfinite overflows on one beyond a float's range)
        and (isinstance(retry_after, int) or math.isfinite(retry_after))
        and retry_after > 0
    ):
        retry_text = js_string_of_number(retry_after, "retry_after")
    envelope = ErrorEnvelope(
        code=_text(code, "code"),
        message=_text(message, "message"),
        severity=_text(severity, "severity"),
        recovery=suggestion or None,
        available_actions=tuple(_text(action, "action") for action in available_actions),
        details=ErrorDetails(
            (_text(key, "detail key"), _detail_text(key, value))
            for key, value in (details or {}).items()
        ),
        retry_after=retry_text,
    )
    return _envelope_response(envelope)
