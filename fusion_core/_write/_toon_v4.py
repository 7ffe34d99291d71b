r"""TOON spec v4.0, through the official Python implementation (``toon-format``).

The default TOON of fusion_core is what the MCP Fusion reference writes
(``@toon-format/toon`` 2.1, see ``_toon``). ``version=4`` selects the later
spec — empty arrays as ``key: []``, nested field groups, keyed tables,
``\\uXXXX`` escapes for control characters — for clients that read v4. It
passes every fixture of the TOON v4.0 specification.

Numbers follow the JSON block: an integral float between 2**53 and 1e21
prints as JavaScript's shortest digits (``123456789012345680000``), where
``toon-format`` would print the double's exact expansion.
"""

from __future__ import annotations

import math
from typing import Any, Final

import toon_format

from fusion_core._errors import SerializationError
from fusion_core._write._numbers import js_number

__all__ = ["encode_toon_v4"]

_EXACT_LIMIT: Final = 2.0**53


def _js_numbers(value: Any) -> Any:
    """Integral floats whose shortest form is not their exact expansion, as ints."""
    if isinstance(value, float):
        if math.isfinite(value) and _EXACT_LIMIT <= abs(value) < 1e21:
            return int(js_number(value))
        return value
    if isinstance(value, dict):
        return {key: _js_numbers(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_js_numbers(item) for item in value]
    return value


def encode_toon_v4(value: Any, *, delimiter: str, indent: int) -> str:
    """TOON v4.0 text of plain JSON data (validated options, see ``encode_toon``)."""
    try:
        text: str = toon_format.encode(_js_numbers(value), delimiter=delimiter, indent_size=indent)
    except (TypeError, ValueError) as exc:
        msg = f"toon-format cannot encode this data as TOON v4: {exc}"
        raise SerializationError(msg, path="$", value=value) from exc
    return text
