r"""TOON text exactly as the reference ``@toon-format/toon`` 2.1.0 ``encode`` writes it.

TOON (Token-Oriented Object Notation) is YAML-like indentation for objects,
``key[N]: a,b`` for arrays of primitives, ``key[N]{f,g}:`` tables for arrays of
objects that share one set of primitive fields, and ``- `` list items for
everything else. This module follows the reference encoder branch for branch,
including where it differs from the later TOON v4 spec fixtures:

* an empty array is ``key[0]:`` (v4: ``key: []``), at the root ``[0]:``;
* table cells must be primitives: an object in a column makes the array list
  items (v4 adds nested field groups ``{a{b,c}}`` and keyed tables
  ``key[2:]{...}``);
* a string is quoted when JavaScript's ``trim()`` would change it (every
  Unicode space, not only space and tab), when it contains ``\n``, ``\r`` or
  ``\t`` or starts with ``-``; other control characters are written raw, and
  a leading ``#`` or ``+`` needs no quotes;
* only ``\\``, ``\"``, ``\n``, ``\r`` and ``\t`` are escaped;
* an array header leaves out an empty key (``{"": [1]}`` gives ``[1]: 1``),
  because ``formatHeader`` tests the key for truthiness;
* ``key_folding="safe"`` writes chains of single-key objects as dotted keys
  (``a.b.c: 1``), with at most ``flatten_depth`` segments.

Where Python data and JavaScript data differ, the Python value wins: ints
print exactly (JavaScript rounds beyond 2**53), keys keep insertion order
(JavaScript lists integer-like keys first) and ``"__proto__"`` is an ordinary
key (JavaScript drops it). Floats print as JavaScript's ``String(number)``;
NaN and infinities become ``null``.

For speed, quoting is decided by compiled regexes (a whole column of strings
by three scans of the joined column), each key is encoded once per call,
tables are checked and encoded column by column with bulk conversions, and
the lines are joined once at the end.
"""

from __future__ import annotations

import math
import re
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from ._errors import CycleError, FusionError, NestingError, SerializationError
from ._json import MAX_DEPTH, child_path, stable_repr
from ._numbers import js_number
from ._toon_v4 import encode_toon_v4

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["encode_toon"]

_DELIMITERS: Final = (",", "|", "\t")

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
    for delimiter in _DELIMITERS
}

# The same test for a whole column at once, run on "\n" + "\n".join(column)
# once the caller has checked that no string contains "\n" itself.
_COLUMN_BAD_START: Final = re.compile(
    rf"\n(?:[-{_SPACES_BUT_LF}]|\n|\Z|(?:true|false|null|{_NUMBER})(?=\n|\Z))"
).search
_COLUMN_BAD_END: Final = re.compile(rf"[{_SPACES_BUT_LF}](?=\n|\Z)").search
_COLUMN_STRUCTURAL: Final = {
    delimiter: re.compile(r'[:"\\\[\]{}\r\t' + re.escape(delimiter) + "]").search
    for delimiter in _DELIMITERS
}
_UNQUOTED_KEY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*").fullmatch
_IDENTIFIER_SEGMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").fullmatch
_CONTAINERS: Final = (dict, list, tuple)


def _quote(text: str) -> str:
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


def _unsupported(value: object, path: str) -> SerializationError:
    return SerializationError(
        f"cannot encode a {type(value).__qualname__} as TOON; pass plain JSON data "
        "(dict, list, str, int, float, bool, None), for example from to_plain()",
        path=path,
        value=value,
    )


class _Fold(NamedTuple):
    """Where key folding stands inside an object (the reference's extra arguments)."""

    root_keys: frozenset[str] | None
    """The dotted keys of the root object, which a folded path must not equal."""
    prefix: str
    """The dotted path of the object, "" at the root and below arrays."""
    budget: float
    """How many segments a chain may still fold into one key."""


class _Encoder:
    """One ``encode_toon`` call: the options, the lines so far and the open containers."""

    __slots__ = (
        "active",
        "column_structural",
        "delimiter",
        "flatten",
        "fold",
        "keys",
        "lines",
        "pads",
        "structural",
        "unit",
    )

    def __init__(self, delimiter: str, indent: int, fold: bool, flatten: float) -> None:
        self.delimiter = delimiter
        self.structural = _STRUCTURAL[delimiter]
        self.column_structural = _COLUMN_STRUCTURAL[delimiter]
        self.unit = " " * indent
        self.pads = [""]
        self.fold = fold
        self.flatten = flatten
        self.keys: dict[str, str] = {}
        self.lines: list[str] = []
        self.active: set[int] = set()

    # -- tokens --------------------------------------------------------------

    def pad(self, depth: int) -> str:
        """Return the indentation of ``depth`` levels."""
        pads = self.pads
        while len(pads) <= depth:
            pads.append(pads[-1] + self.unit)
        return pads[depth]

    def bracket(self, length: int) -> str:
        """Return ``[N]``, with a non-default delimiter inside: ``[N|]``."""
        if self.delimiter == ",":
            return f"[{length}]"
        return f"[{length}{self.delimiter}]"

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
        return _quote(text)

    def scalar(self, value: Any) -> str | None:
        """Return the token of a primitive, or ``None`` for anything else."""
        kind = type(value)
        if kind is str:
            return self.string(value)
        if kind is int:
            return int.__repr__(value)
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
            return int.__repr__(value)
        if isinstance(value, float):
            return _float(float(value))
        if isinstance(value, str):
            return self.string(str.__str__(value))
        return None

    def primitive(self, value: Any, path: str) -> str:
        """Return the token of a value that is not a container, or raise."""
        token = self.scalar(value)
        if token is None:
            raise _unsupported(value, path)
        return token

    def key(self, name: Any, path: str) -> str:
        """Return an object key or field name, quoted unless it is an identifier."""
        encoded = self.keys.get(name) if type(name) is str else None
        if encoded is not None:
            return encoded
        if not isinstance(name, str):
            raise SerializationError(
                f"object key {stable_repr(name)} is a {type(name).__qualname__}; "
                "TOON keys must be str",
                path=path,
                value=name,
            )
        text = str.__str__(name)
        encoded = text if _UNQUOTED_KEY(text) else _quote(text)
        self.keys[text] = encoded
        return encoded

    def column(
        self, values: Sequence[Any], path: str, name: str | None = None
    ) -> Sequence[str] | None:
        """Return the tokens of ``values``, or ``None`` if one is a container.

        ``values`` are the items of the array at ``path`` or, given ``name``,
        that field of its items. Values of one type are converted in bulk
        (ints and strings without Python-level work per value, mostly).
        """
        kinds = set(map(type, values))
        if len(kinds) == 1:
            kind = kinds.pop()
            if kind is str:
                return self.strings(values)
            if kind is int:
                return list(map(int.__repr__, values))
            if kind is float:
                return list(map(_float, values))
            if kind is bool:
                return ["true" if value else "false" for value in values]
            if kind is type(None):
                return ["null"] * len(values)
        tokens = list(map(self.scalar, values))
        if None not in tokens:
            return tokens  # type: ignore[return-value]
        for index, value in enumerate(values):
            if tokens[index] is None and not isinstance(value, _CONTAINERS):
                item_path = f"{path}[{index}]"
                raise _unsupported(
                    value, item_path if name is None else child_path(item_path, name)
                )
        return None

    def strings(self, texts: Sequence[str]) -> Sequence[str]:
        """Return the tokens of many strings, testing them all in a few regex scans."""
        joined = "\n" + "\n".join(texts)
        if (
            joined.count("\n") == len(texts)
            and self.column_structural(joined) is None
            and _COLUMN_BAD_START(joined) is None
            and _COLUMN_BAD_END(joined) is None
        ):
            return texts
        return list(map(self.string, texts))

    def inline(self, items: Sequence[Any], path: str) -> str | None:
        """Return ``[N]: a,b,c`` (``[0]:`` if empty), or ``None`` if an item is a container."""
        if not items:
            return self.bracket(0) + ":"
        if isinstance(items[0], _CONTAINERS):
            return None
        tokens = self.column(items, path)
        if tokens is None:
            return None
        return f"{self.bracket(len(tokens))}: " + self.delimiter.join(tokens)

    def table(self, rows: Sequence[dict[Any, Any]], path: str) -> tuple[str, list[str]] | None:
        """Return ``{f,g}`` and the encoded rows, or ``None`` if ``rows`` is no table.

        Rows form a table when they share one non-empty key set (in any order;
        the fields follow the first row) and every cell is a primitive. The
        cells are checked and encoded column by column.
        """
        keys = rows[0].keys()
        if not keys or not all(map(keys.__eq__, map(dict.keys, rows))):
            return None
        names = list(keys)
        columns = []
        for name in names:
            tokens = self.column(list(map(itemgetter(name), rows)), path, name)
            if tokens is None:
                return None
            columns.append(tokens)
        fields = self.delimiter.join([self.key(name, path) for name in names])
        return "{" + fields + "}", list(map(self.delimiter.join, zip(*columns, strict=True)))

    # -- containers ----------------------------------------------------------

    def enter(self, container: object, path: str) -> None:
        """Register an open container; refuse cycles and nesting beyond ``MAX_DEPTH``."""
        if len(self.active) >= MAX_DEPTH:
            raise NestingError(
                f"data is nested more than {MAX_DEPTH} levels deep", path=path, limit=MAX_DEPTH
            )
        identity = id(container)
        if identity in self.active:
            raise CycleError("this container contains itself", path=path, value=container)
        self.active.add(identity)

    def fields(
        self,
        obj: dict[Any, Any],
        depth: int,
        path: str,
        fold: _Fold | None = None,
        *,
        skip_first: bool = False,
    ) -> None:
        """Emit the fields of ``obj`` at ``depth`` (the reference's ``encodeObjectLines``).

        ``fold`` carries the key folding state of a nested object; a list
        item passes ``skip_first``, having put its first field on the hyphen
        line already.
        """
        self.enter(obj, path)
        items: Iterable[tuple[Any, Any]] = obj.items()
        if skip_first:
            items = list(items)[1:]
        siblings: frozenset[Any] = frozenset()
        if self.fold:
            keys = list(obj)[1:] if skip_first else list(obj)
            siblings = frozenset(keys)
            if fold is None:
                root_keys = None
                if depth == 0:
                    root_keys = frozenset(k for k in keys if isinstance(k, str) and "." in k)
                fold = _Fold(root_keys, "", self.flatten)
        pad = self.pad(depth)
        lines = self.lines
        known_key = self.keys.get
        scalar = self.scalar
        for name, value in items:
            key = known_key(name) or self.key(name, path)
            token = scalar(value)
            if token is not None:
                lines.append(f"{pad}{key}: {token}")
            elif isinstance(value, dict):
                if fold is not None:
                    chain = self.fold_chain(name, value, siblings, fold, path)
                    if chain is not None:
                        self.folded(chain, depth, fold)
                        continue
                lines.append(f"{pad}{key}:")
                if value:
                    inner = None
                    if fold is not None:
                        prefix = f"{fold.prefix}.{name}" if fold.prefix else name
                        inner = fold._replace(prefix=prefix)
                    self.fields(value, depth + 1, child_path(path, name), inner)
            elif isinstance(value, list | tuple):
                # The reference tests the key for truthiness: "" gets no header key.
                self.array(key if name else "", value, depth, child_path(path, name))
            else:
                raise _unsupported(value, child_path(path, name))
        self.active.discard(id(obj))

    def fold_chain(
        self, name: str, value: dict[Any, Any], siblings: frozenset[Any], fold: _Fold, path: str
    ) -> tuple[str, Any, int, str] | None:
        """Return (dotted key, leaf, segments, leaf path) of a foldable chain, or ``None``.

        The reference's ``tryFoldKeyChain``: follow single-key objects from
        ``name`` while fewer than ``fold.budget`` segments are collected. Two
        or more segments fold if all are identifiers and the dotted key is
        neither a sibling key nor, as a path from the root, a dotted root key.
        """
        segments = [name]
        leaf: Any = value
        leaf_path = child_path(path, name)
        seen = {id(value)}
        while len(segments) < fold.budget and isinstance(leaf, dict) and len(leaf) == 1:
            ((segment, leaf),) = leaf.items()
            segments.append(segment)
            leaf_path = child_path(leaf_path, segment)
            if isinstance(leaf, dict):
                if id(leaf) in seen:
                    raise CycleError("this container contains itself", path=leaf_path, value=leaf)
                seen.add(id(leaf))
        if len(segments) < 2:
            return None
        if not all(isinstance(s, str) and _IDENTIFIER_SEGMENT(s) for s in segments):
            return None
        dotted = ".".join(segments)
        if dotted in siblings:
            return None
        absolute = f"{fold.prefix}.{dotted}" if fold.prefix else dotted
        if fold.root_keys is not None and absolute in fold.root_keys:
            return None
        return dotted, leaf, len(segments), leaf_path

    def folded(self, chain: tuple[str, Any, int, str], depth: int, fold: _Fold) -> None:
        """Emit a folded chain: ``a.b.c: 1``, ``a.b[2]: x,y``, or ``a.b:`` and the rest."""
        dotted, leaf, count, leaf_path = chain
        key = self.key(dotted, leaf_path)
        if isinstance(leaf, dict):
            self.lines.append(f"{self.pad(depth)}{key}:")
            if leaf:
                prefix = f"{fold.prefix}.{dotted}" if fold.prefix else dotted
                inner = _Fold(fold.root_keys, prefix, fold.budget - count)
                self.fields(leaf, depth + 1, leaf_path, inner)
        elif isinstance(leaf, list | tuple):
            self.array(key, leaf, depth, leaf_path)
        else:
            self.lines.append(f"{self.pad(depth)}{key}: {self.primitive(leaf, leaf_path)}")

    def array(self, key: str, items: Sequence[Any], depth: int, path: str) -> None:
        """Emit an array whose header starts with the encoded ``key`` ("" for none).

        Primitives go inline (``key[N]: a,b``), uniform objects into a table
        (``key[N]{f,g}:`` and rows), anything else into list items.
        """
        pad = self.pad(depth)
        line = self.inline(items, path)
        if line is not None:
            self.lines.append(f"{pad}{key}{line}")
            return
        head = f"{pad}{key}{self.bracket(len(items))}"
        if all(map(isinstance, items, repeat(dict))):
            table = self.table(items, path)
            if table is not None:
                fields, rows = table
                self.lines.append(f"{head}{fields}:")
                row_pad = self.pad(depth + 1)
                self.lines.extend([row_pad + row for row in rows])
                return
        self.lines.append(f"{head}:")
        self.list_items(items, depth + 1, path)

    def list_items(self, items: Sequence[Any], depth: int, path: str) -> None:
        """Emit every item of an array as a ``- `` line (and what it opens) at ``depth``."""
        self.enter(items, path)
        pad = self.pad(depth)
        lines = self.lines
        for index, item in enumerate(items):
            if isinstance(item, dict):
                self.list_object(item, depth, f"{path}[{index}]")
            elif isinstance(item, list | tuple):
                item_path = f"{path}[{index}]"
                line = self.inline(item, item_path)
                if line is not None:
                    lines.append(f"{pad}- {line}")
                else:
                    # An array inside an array is never a table, only list items.
                    lines.append(f"{pad}- {self.bracket(len(item))}:")
                    self.list_items(item, depth + 1, item_path)
            else:
                lines.append(f"{pad}- {self.primitive(item, f'{path}[{index}]')}")
        self.active.discard(id(items))

    def list_object(self, obj: dict[Any, Any], depth: int, path: str) -> None:
        """Emit an object as a list item, its first field on the hyphen line.

        What the first field opens is indented two levels below the hyphen
        (table rows included), the other fields one level.
        """
        pad = self.pad(depth)
        lines = self.lines
        if not obj:
            lines.append(f"{pad}-")
            return
        name, value = next(iter(obj.items()))
        key = self.key(name, path)
        value_path = child_path(path, name)
        if isinstance(value, list | tuple) and value and all(map(isinstance, value, repeat(dict))):
            table = self.table(value, value_path)
            if table is not None:
                fields, rows = table
                # As in every header, an empty key is left out.
                lines.append(f"{pad}- {key if name else ''}{self.bracket(len(value))}{fields}:")
                row_pad = self.pad(depth + 2)
                lines.extend([row_pad + row for row in rows])
                if len(obj) > 1:
                    self.fields(obj, depth + 1, path, skip_first=True)
                return
        if isinstance(value, dict):
            lines.append(f"{pad}- {key}:")
            if value:
                self.enter(obj, path)
                self.fields(value, depth + 2, value_path)
                self.active.discard(id(obj))
        elif isinstance(value, list | tuple):
            line = self.inline(value, value_path)
            if line is not None:
                lines.append(f"{pad}- {key}{line}")
            else:
                lines.append(f"{pad}- {key}{self.bracket(len(value))}:")
                self.enter(obj, path)
                self.list_items(value, depth + 2, value_path)
                self.active.discard(id(obj))
        else:
            lines.append(f"{pad}- {key}: {self.primitive(value, value_path)}")
        if len(obj) > 1:
            self.fields(obj, depth + 1, path, skip_first=True)

    def document(self, value: Any) -> str:
        """Return the document: one primitive, an array, or the root object's fields."""
        if isinstance(value, dict):
            self.fields(value, 0, "$")
        elif isinstance(value, list | tuple):
            self.array("", value, 0, "$")
        else:
            return self.primitive(value, "$")
        return "\n".join(self.lines)


def encode_toon(
    value: object,
    *,
    delimiter: str = ",",
    indent: int = 2,
    key_folding: Literal["off", "safe"] = "off",
    flatten_depth: int | None = None,
    version: Literal[3, 4] = 3,
) -> str:
    r"""Encode plain JSON data as TOON, byte for byte as ``@toon-format/toon`` 2.1.0.

    ``version=3`` (the default) is what the MCP Fusion reference writes;
    ``version=4`` writes TOON spec v4.0 instead (see ``_toon_v4``), which has
    no key folding yet.

    ``value`` is JSON data: dicts with str keys (in insertion order), lists
    (or tuples), str, int (printed exactly), float (in JavaScript's notation;
    NaN and infinities as ``null``), bool and None.

    ``delimiter`` separates inline array values and table cells: ``","``,
    ``"|"`` or ``"\t"``. ``indent`` is the number of spaces per level.
    ``key_folding="safe"`` writes chains of single-key objects as dotted keys
    (``a.b.c: 1``) of at most ``flatten_depth`` segments (``None``: no limit).

    The result has no trailing newline; an empty root object gives ``""``.

    Raises :class:`SerializationError` naming the JSON path (``$.a[2].b``) of
    a value that is not JSON data, :class:`CycleError` for a container inside
    itself, :class:`NestingError` beyond ``MAX_DEPTH`` levels, and
    :class:`ValueError` for an invalid option.
    """
    if not isinstance(delimiter, str) or delimiter not in _DELIMITERS:
        raise ValueError(f"delimiter must be ',', '|' or '\\t', not {delimiter!r}")
    if isinstance(indent, bool) or not isinstance(indent, int) or indent < 1:
        raise ValueError(f"indent must be an int of at least 1, not {indent!r}")
    if key_folding not in ("off", "safe"):
        raise ValueError(f"key_folding must be 'off' or 'safe', not {key_folding!r}")
    if flatten_depth is not None and (
        isinstance(flatten_depth, bool) or not isinstance(flatten_depth, int) or flatten_depth < 0
    ):
        raise ValueError(
            f"flatten_depth must be None (no limit) or an int of at least 0, not {flatten_depth!r}"
        )
    if version == 4:
        if key_folding != "off" or flatten_depth is not None:
            msg = "key_folding and flatten_depth are not available with version=4 (toon-format)"
            raise ValueError(msg)
        return _leaving(encode_toon_v4(value, delimiter=delimiter, indent=indent), value)
    if version != 3:
        raise ValueError(f"version must be 3 (the reference's TOON) or 4, not {version!r}")
    flatten = math.inf if flatten_depth is None else flatten_depth
    encoder = _Encoder(delimiter, indent, key_folding == "safe", flatten)
    try:
        text = encoder.document(value)
    except RecursionError:
        raise NestingError(
            "data is nested too deeply to encode as TOON", path="$", limit=MAX_DEPTH
        ) from None
    except ValueError as exc:
        if isinstance(exc, FusionError):
            raise
        # int.__repr__ refuses more digits than this process allows.
        raise _located(value, f"cannot encode this data as TOON: {exc}") from None
    return _leaving(text, value)


# ------------------------------------------------------------- egress checks


def _located(value: object, message: str) -> SerializationError:
    """The error that names where in ``value`` the problem is.

    ``to_plain`` applies the wire's rules for data (no lone surrogate, at
    most ``MAX_INT_DIGITS`` digits) with JSON paths; if it accepts the value,
    the problem is reported at the root.
    """
    from ._json import to_plain  # noqa: PLC0415 - only on the failure path

    try:
        to_plain(value)
    except SerializationError as exc:
        return exc
    return SerializationError(message, path="$", value=value)


def _leaving(text: str, value: object) -> str:
    """``text``, if it can leave the process: TOON has no escape for a lone surrogate.

    The MCP SDK encodes results as UTF-8, which a lone surrogate cannot be;
    caught here, it is an error naming the value's path instead of a server
    that dies while writing the result.
    """
    if text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        raise _located(value, "the TOON text holds a lone surrogate") from None
    return text
