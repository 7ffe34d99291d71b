r"""The text of an answer exactly as the server sent it, for ``fusion call --raw``.

The client reads every answer into dicts: key order survives, but the
spelling of numbers (``1.50``, ``1E2``), string escapes (``\\u00e9``) and
whitespace do not, and any re-serialization shows our encoder's choices,
not the server's. While :attr:`RawAnswers.enabled` is set, the stdio and
HTTP transports offer the bytes of each JSON-RPC message they receive (a
stdio line, a JSON body, a server-sent event's data); the last response's
``result`` member is kept as the text it was on the wire. Off by default:
finding the member reads the message a second time.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Final

__all__ = ["RawAnswers", "result_text"]

_SPACE: Final = re.compile(r"[ \t\n\r]*")
_DECODER: Final = json.JSONDecoder()


@dataclass(slots=True)
class RawAnswers:
    """The ``result`` of the last JSON-RPC response received, as sent (while enabled)."""

    enabled: bool = False
    last: str | None = None

    def offer(self, message: bytes) -> None:
        """Keep ``message``'s ``result`` text if it is a response (not a request or notice)."""
        if self.enabled:
            found = result_text(message.decode("utf-8", "replace"))
            if found is not None:
                self.last = found


def result_text(message: str) -> str | None:
    """The text of the top-level ``"result"`` member of a JSON message, as written; else ``None``.

    The message is walked member by member with the JSON module's own
    scanner, so ``"result"`` inside a string or a nested object is never
    taken for it.
    """
    try:
        return _member(message, "result")
    except (ValueError, RecursionError):  # not JSON (or an int past CPython's digit limit)
        return None


def _member(text: str, name: str) -> str | None:
    at = _skip(text, 0)
    if text[at : at + 1] != "{":
        return None
    at = _skip(text, at + 1)
    while text[at : at + 1] == '"':
        key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
        at = _skip(text, at)
        if text[at : at + 1] != ":":
            return None
        start = _skip(text, at + 1)
        _, end = _DECODER.raw_decode(text, start)
        if key == name:
            return text[start:end]
        at = _skip(text, end)
        if text[at : at + 1] != ",":
            return None
        at = _skip(text, at + 1)
    return None


def _skip(text: str, at: int) -> int:
    found = _SPACE.match(text, at)
    return found.end() if found is not None else at
