"""The tokens of TOON values: quoting, numbers, and whole columns at once.

The part of the reference encoder (``_toon``) that turns one primitive into
its token, as ``@toon-format/toon`` 2.1.0 writes it, and the fast forms of
the same thing for a whole column of a table or an inline array: a column
of strings is tested for quoting in a few C-level scans of the joined
column, columns of one type (or of one type and ``None``) are converted
without Python-level work per value. Every fast form falls back to the
value-by-value one where it cannot decide, and gives its bytes exactly (a
differential property in ``tests/fusion_core/_write/test_toon_bulk.py``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import compress, repeat
from operator import is_not
from typing import Any, Final

from fusion_core._errors import SerializationError
from fusion_core._write._json import child_path
from fusion_core._write._numbers import MAX_INT_DIGITS, int_digits, js_number

__all__ = ["DELIMITERS", "Tokens", "quote", "unsupported"]

DELIMITERS: Final = (",", "|", "\t")

# What JavaScript's String#trim removes (WhiteSpace and LineTerminator of
# ECMA-262): a string that starts or ends with one of these is quoted.
_SPACES: Final = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_SPACES_BUT_LF: Final = _SPACES.replace("\n", "")
_BAD_FIRST: Final = "-" + _SPACES
_LITERAL_FIRST: Final = "0123456789tfn"
_NUMBER: Final = r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"

# The reference's isSafeUnquoted quotes a string that is empty, starts with a
# hyphen or a space, ends with a space, is true/false/null, looks numeric
# (leading zeros included; a leading "-" is caught before), or contains a
# colon, quote, backslash, bracket, brace, line break, tab or the delimiter.
_LITERAL_OR_NUMBER: Final = re.compile(rf"(?:true|false|null|{_NUMBER})\Z").match
_STRUCTURAL: Final = {
    delimiter: re.compile(r'[:"\\\[\]{}\n\r\t' + re.escape(delimiter) + "]").search
    for delimiter in DELIMITERS
}

# The same test for a whole column at once, run on "\n" + "\n".join(column) +
# "\n" once the caller has checked that no string contains "\n" itself:
# single characters by str.__contains__ (a memchr-fast scan each), the ends of
# strings by scans anchored on the literal "\n" (sre skips ahead to it), and
# the numeric look only where a string starts like a literal or a number.
_COLUMN_STOPS: Final = {delimiter: ':"\\[]{}\r\t' + delimiter for delimiter in DELIMITERS}
_COLUMN_BAD_START: Final = re.compile(rf"\n[-\n{_SPACES_BUT_LF}]").search
_COLUMN_LITERAL_START: Final = re.compile(r"\n[0-9tfn]").search
_COLUMN_LITERAL: Final = re.compile(
    r"\n(?:true|false|null|[0-9]++(?:\.[0-9]++)?+(?:[eE][+-]?+[0-9]++)?+)\n"
).search
_END_SPACES: Final = tuple((space, space + "\n") for space in _SPACES_BUT_LF)
# Float columns: repr() gives JavaScript's digits except for integral values
# ("4.0"), "-0.0", exponents and nan/inf (see _float); the first two are fixed
# on the joined column, the rest go value by value.
_NEG_ZERO_LINE: Final = re.compile(r"(?<=\n)-0(?=\n)")
_NONE_LINE: Final = re.compile(r"(?<=\n)None(?=\n)")
_NULL_FOR_NONE: Final[dict[Any, str]] = {None: "null"}
_NULL_FOR_NONE_TEXT: Final = {"None": "null"}
_NONE_TYPE: Final = type(None)
_CONTAINERS: Final = (dict, list, tuple)


def quote(text: str) -> str:
    """Quote ``text``, escaping it as the reference's ``escapeString`` does."""
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    if '"' in text:
        text = text.replace('"', '\\"')
    if "\n" in text:
        text = text.replace("\n", "\\n")
    if "\r" in text:
        text = text.replace("\r", "\\r")
    if "\t" in text:
        text = text.replace("\t", "\\t")
    return f'"{text}"'


def _float(value: float) -> str:
    """Return ``String(number)`` of a float; NaN and infinities give ``null``."""
    text = repr(value)
    # Python writes fixed notation for 1e-4 <= |x| < 1e16 and JavaScript for
    # 1e-6 <= |x| < 1e21, with the same shortest digits, so in Python's range
    # only the ".0" of integral values differs. Everything else is exact.
    if "e" not in text and "n" not in text:
        if text.endswith(".0"):
            text = text[:-2]
            return "0" if text == "-0" else text
        return text
    return js_number(value) if math.isfinite(value) else "null"


def _floats(values: Sequence[Any], nullable: bool) -> list[str] | None:
    """Return the tokens of many floats (and ``None``s if ``nullable``), as ``_float`` would.

    The reprs are joined once: integral values lose their ".0" and "-0"
    becomes "0" in two C-level passes. A column with an exponent, NaN or an
    infinity goes value by value (``None`` is returned).
    """
    if not values:
        return []
    joined = "\n" + "\n".join(map(repr, values)) + "\n"
    if nullable:
        joined = _NONE_LINE.sub("null", joined)
    if "e" in joined or "inf" in joined or "nan" in joined:
        return None
    if ".0\n" in joined:
        joined = joined.replace(".0\n", "\n")
        if "\n-0\n" in joined:
            joined = _NEG_ZERO_LINE.sub("0", joined)
    return joined[1:-1].split("\n")


def unsupported(value: object, path: str) -> SerializationError:
    return SerializationError(
        f"cannot encode a {type(value).__qualname__} as TOON; pass plain JSON data "
        "(dict, list, str, int, float, bool, None), for example from to_plain()",
        path=path,
        value=value,
    )


class Tokens:
    """The tokens of primitives for one delimiter (the base of ``_toon._Encoder``)."""

    __slots__ = ("column_stops", "delimiter", "structural")

    def __init__(self, delimiter: str) -> None:
        self.delimiter = delimiter
        self.structural = _STRUCTURAL[delimiter]
        self.column_stops = _COLUMN_STOPS[delimiter]

    def string(self, text: str) -> str:
        """Return a string token, quoted where the reference's ``isSafeUnquoted`` says."""
        if (
            text
            and text[0] not in _BAD_FIRST
            and text[-1] not in _SPACES
            and self.structural(text) is None
            and not (text[0] in _LITERAL_FIRST and _LITERAL_OR_NUMBER(text))
        ):
            return text
        return quote(text)

    def scalar(self, value: Any) -> str | None:
        """Return the token of a primitive, or ``None`` for anything else."""
        kind = type(value)
        if kind is str:
            return self.string(value)
        if kind is int:
            try:
                return int.__repr__(value)
            except ValueError:  # more digits than this process converts at once
                return _long_int(value)
        if kind is float:
            return _float(value)
        if value is None:
            return "null"
        if kind is bool:
            return "true" if value else "false"
        return self.scalar_subclass(value)

    def scalar_subclass(self, value: Any) -> str | None:
        """Return the token of a subclass of a primitive type (``IntEnum``, ...)."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return _long_int(int(value))
        if isinstance(value, float):
            return _float(float(value))
        if isinstance(value, str):
            return self.string(str.__str__(value))
        return None

    def primitive(self, value: Any, path: str) -> str:
        """Return the token of a value that is not a container, or raise."""
        token = self.scalar(value)
        if token is None:
            raise unsupported(value, path)
        return token

    def column(
        self, values: Sequence[Any], path: str, name: str | None = None
    ) -> Sequence[str] | None:
        """Return the tokens of ``values``, or ``None`` if one is a container.

        ``values`` are the items of the array at ``path`` or, given ``name``,
        that field of its items. A column of one type, or of one type and
        ``None``, is converted in bulk (without Python-level work per value,
        mostly); anything else value by value.
        """
        kinds = set(map(type, values))
        nullable = len(kinds) == 2 and _NONE_TYPE in kinds
        if len(kinds) == 1 or nullable:
            kinds.discard(_NONE_TYPE)
            kind = kinds.pop() if kinds else _NONE_TYPE
            bulk = self.bulk(kind, values, nullable)
            if bulk is not None:
                return bulk
        tokens = list(map(self.scalar, values))
        if None not in tokens:
            return tokens  # type: ignore[return-value]
        for index, value in enumerate(values):
            if tokens[index] is None and not isinstance(value, _CONTAINERS):
                item_path = f"{path}[{index}]"
                raise unsupported(value, item_path if name is None else child_path(item_path, name))
        return None

    def bulk(self, kind: type, values: Sequence[Any], nullable: bool) -> Sequence[str] | None:
        """Return the tokens of values of type ``kind`` (and ``None`` if ``nullable``).

        ``None`` means "go value by value": a kind without a bulk form, or
        strings that need quotes.
        """
        if kind is str:
            if not nullable:
                return self.strings(values)
            texts = list(compress(values, map(is_not, values, repeat(None))))
            if self.strings(texts) is texts:
                return list(map(_NULL_FOR_NONE.get, values, values))
            return None
        if kind is int:
            try:
                texts = list(map(int.__repr__ if not nullable else str, values))
            except ValueError:  # more digits than this process converts at once
                return None
            return texts if not nullable else list(map(_NULL_FOR_NONE_TEXT.get, texts, texts))
        if kind is float:
            return _floats(values, nullable)
        if kind is _NONE_TYPE:
            return ["null"] * len(values)
        if kind is bool and not nullable:
            return ["true" if value else "false" for value in values]
        return None

    def strings(self, texts: Sequence[str]) -> Sequence[str]:
        """Return the tokens of many strings: ``texts`` itself if none needs quotes.

        The test runs on the joined column in a few C-level scans; only a
        column with a string to quote is encoded string by string.
        """
        joined = "\n" + "\n".join(texts) + "\n"
        if (
            joined.count("\n") == len(texts) + 1
            and not any(map(joined.__contains__, self.column_stops))
            and _COLUMN_BAD_START(joined) is None
            and not any(space in joined and end in joined for space, end in _END_SPACES)
            and (_COLUMN_LITERAL_START(joined) is None or _COLUMN_LITERAL(joined) is None)
        ):
            return texts
        return list(map(self.string, texts))


def _long_int(value: int) -> str:
    """The digits of an int too long for ``int.__repr__`` in this process.

    ``ValueError`` beyond the wire's limit, as ``int.__repr__`` gives at the
    default limit: ``encode_toon`` then names the path.
    """
    text = int_digits(value)
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        msg = f"an int of more than {MAX_INT_DIGITS:,} digits"
        raise ValueError(msg)
    return text
