"""Numbers as JavaScript prints them (``Number.prototype.toString``).

The reference serializes with ``JSON.stringify``, whose numbers are the
ECMAScript ``Number::toString`` of the double: the shortest digits that round
trip (Python's ``repr`` finds the same digits), laid out in plain notation for
decimal exponents from -6 to 20 and in ``1e+21`` / ``1e-7`` notation outside.
Integers are Python ints and print exactly, even beyond 2**53 (JS would round
them; we keep them exact and document it), up to :data:`MAX_INT_DIGITS`
digits: beyond that no default Python JSON reader (``json.loads``, and so
``parse()``) reads them back, so every writer refuses them with a
:class:`~fusion_core.SerializationError` naming the JSON path, whatever
``sys.set_int_max_str_digits`` says in this process (that setting is
process-global; the wire's rule is not).

The way back is :func:`read_json`: every reader of JSON text in this library
(the parser, the snapshot store, ``_select`` on a sealed data block, the CLI)
reads ints through it, exactly and at any length, whatever the process's limit.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from fusion_core._errors import SerializationError

__all__ = [
    "MAX_INT_DIGITS",
    "SHORT_INT_BITS",
    "int_digits",
    "int_text",
    "js_number",
    "js_scalar",
    "js_string_of_number",
    "read_int",
    "read_json",
    "require_int_digits",
]

MAX_INT_DIGITS: Final = 4300
"""Most decimal digits of an int on the wire (CPython's default reading limit)."""

# 2**14284 < 10**4300 < 2**14285: an int of at most 14,284 bits has at most
# 4,300 digits, one of 14,286 bits or more has more; only 14,285 bits needs
# the digits counted.
_SAFE_BITS: Final = 14_284
# CPython converts ints of at most this many digits to and from text whatever
# the process's limit (which may be lowered, never below 640, by whoever
# embeds us); larger ones go through in chunks of this size.
_CHUNK: Final = 600
SHORT_INT_BITS: Final = 1900
"""Ints of at most this many bits convert to text at once (2**1900 < 10**600)."""


def int_digits(value: int) -> str:
    """The decimal digits of any int, whatever ``sys.set_int_max_str_digits`` says."""
    if value.bit_length() <= SHORT_INT_BITS:
        return int.__repr__(value)
    try:
        return int.__repr__(value)
    except ValueError:  # more digits than this process converts at once
        pass
    sign, value = ("-", -value) if value < 0 else ("", value)
    chunks: list[str] = []
    base = 10**_CHUNK
    while value >= base:
        value, low = divmod(value, base)
        chunks.append(int.__repr__(low).zfill(_CHUNK))
    chunks.append(int.__repr__(value))
    return sign + "".join(reversed(chunks))


def read_int(text: str) -> int:
    """The int of a JSON integer literal of any length (the inverse of :func:`int_digits`)."""
    if len(text) <= _CHUNK:
        return int(text)
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    head = len(digits) % _CHUNK or _CHUNK
    value = int(digits[:head])
    for start in range(head, len(digits), _CHUNK):
        value = value * 10**_CHUNK + int(digits[start : start + _CHUNK])
    return -value if negative else value


def read_json(
    text: str | bytes | bytearray, *, max_digits: int | None = MAX_INT_DIGITS, **options: Any
) -> Any:
    """The value of JSON ``text``, its ints exact whatever this process converts.

    Ints of up to ``max_digits`` digits (the wire's limit; ``None``: any,
    for snapshots of foreign servers) are read exactly; a longer one, or
    text that is not JSON, raises ``ValueError`` (``json.JSONDecodeError``
    for the latter). The stdlib's C reader runs first; only when it refuses
    an int is the text read again, ints in chunks (linear: each int is
    bounded by ``max_digits``). ``options`` go to ``json.loads``.
    """
    try:
        return json.loads(text, **options)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an int beyond sys.get_int_max_str_digits()
        pass

    def exact(literal: str) -> int:
        if max_digits is not None and len(literal.lstrip("-")) > max_digits:
            msg = f"an int of more than {max_digits:,} digits"
            raise ValueError(msg)
        return read_int(literal)

    return json.loads(text, parse_int=exact, **options)


def _too_long(value: int, path: str) -> SerializationError:
    return SerializationError(
        f"an int of more than {MAX_INT_DIGITS:,} digits cannot go on the wire (JSON "
        "readers refuse it); send it as a str",
        path=path,
        value=value,
    )


def int_text(value: int, path: str = "$") -> str:
    """The decimal digits of ``value`` (an int or subclass), or :class:`SerializationError`."""
    if value.bit_length() <= _SAFE_BITS:
        return int_digits(value)
    if value.bit_length() > _SAFE_BITS + 1:
        raise _too_long(value, path)
    text = int_digits(value)
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _too_long(value, path)
    return text


def require_int_digits(value: int, path: str = "$") -> None:
    """Raise :class:`SerializationError` if ``value`` has more than ``MAX_INT_DIGITS`` digits."""
    if value.bit_length() > _SAFE_BITS:
        int_text(value, path)


def _digits_and_point(text: str) -> tuple[str, int]:
    """Split Python's shortest repr of a positive float into digits and point.

    Returns ``(digits, n)`` with the value equal to ``0.digits * 10**n``:
    the ``k`` and ``n`` of ECMAScript's Number::toString algorithm.
    """
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    leading_zeros = len(whole + fraction) - len((whole + fraction).lstrip("0"))
    n = len(whole) - leading_zeros + (int(exponent) if exponent else 0)
    return digits.rstrip("0") or "0", n


_EXACT_FLOAT_INT: Final = float(2**53)


def js_number(value: float) -> str:
    """Format a finite float exactly as JavaScript's ``String(number)`` does.

    ``1.0`` → ``1``, ``-0.0`` → ``0``, ``1e21`` → ``1e+21``,
    ``1.5e-6`` → ``0.0000015``, ``1e-7`` → ``1e-7``.
    """
    if value == 0:
        return "0"
    if value.is_integer() and -_EXACT_FLOAT_INT < value < _EXACT_FLOAT_INT:
        # Below 2**53 an integral float's shortest digits are its integer's.
        return int.__repr__(int(value))
    sign = "-" if value < 0 else ""
    digits, n = _digits_and_point(repr(abs(value)))
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    exponent = n - 1
    exp_text = f"e+{exponent}" if exponent >= 0 else f"e-{-exponent}"
    if k == 1:
        return sign + digits + exp_text
    return sign + digits[0] + "." + digits[1:] + exp_text


def js_string_of_number(value: int | float, path: str = "$") -> str:
    """``String(value)`` in JavaScript, with Python ints kept exact.

    Non-finite floats give ``NaN``, ``Infinity`` and ``-Infinity`` as in JS;
    JSON contexts map them to ``null`` before calling this. An int beyond
    :data:`MAX_INT_DIGITS` digits raises :class:`SerializationError` at ``path``.
    """
    if isinstance(value, int):
        return int_text(value, path)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return js_number(value)


def js_scalar(value: object, path: str = "$") -> str | None:
    """``String(value)`` of ``None``, a bool or a number; ``None`` for anything else."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_string_of_number(value, path)
    return None
