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

For speed, the tokens of values come from ``_toon_tokens`` (a whole column
at once where it can), each key is encoded once per call, tables are checked
and encoded column by column, and the lines are joined once at the end.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from fusion_core._errors import CycleError, FusionError, NestingError, SerializationError
from fusion_core._write._json import MAX_DEPTH, child_path, stable_repr, to_plain
from fusion_core._write._numbers import MAX_INT_DIGITS
from fusion_core._write._toon_tokens import DELIMITERS, Tokens, quote, unsupported
from fusion_core._write._toon_v4 import encode_toon_v4

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["DEFAULT_OPTIONS", "ToonOptions", "encode_toon", "encode_toon_data"]

_UNQUOTED_KEY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*").fullmatch
_IDENTIFIER_SEGMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").fullmatch
_CONTAINERS: Final = (dict, list, tuple)


class _Fold(NamedTuple):
    """Where key folding stands inside an object (the reference's extra arguments)."""

    root_keys: frozenset[str] | None
    """The dotted keys of the root object, which a folded path must not equal."""
    prefix: str
    """The dotted path of the object, "" at the root and below arrays."""
    budget: float
    """How many segments a chain may still fold into one key."""


class _Encoder(Tokens):
    """One ``encode_toon`` call: the options, the lines so far and the open containers."""

    __slots__ = ("active", "flatten", "fold", "keys", "lines", "pads", "unit")

    def __init__(self, delimiter: str, indent: int, fold: bool, flatten: float) -> None:
        super().__init__(delimiter)
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
        encoded = text if _UNQUOTED_KEY(text) else quote(text)
        self.keys[text] = encoded
        return encoded

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

    def table(
        self, rows: Sequence[dict[Any, Any]], path: str, row_pad: str
    ) -> tuple[str, str] | None:
        """Return ``{f,g}`` and the rows' lines, or ``None`` if ``rows`` is no table.

        Rows form a table when they share one non-empty key set (in any order;
        the fields follow the first row) and every cell is a primitive. The
        cells are checked and encoded column by column; the rows come back
        as one text of lines, each indented by ``row_pad``.
        """
        keys = rows[0].keys()
        if not keys:
            return None
        names = list(keys)
        if len(set(map(type, rows))) == 1 and type(rows[0]) is dict:
            # Plain dicts of one size that all hold every name share the key
            # set: the lookups are the check (and a dict subclass, which
            # might answer a missing key, takes the other way).
            if not all(map(len(names).__eq__, map(len, rows))):
                return None
            try:
                cells = [list(map(itemgetter(name), rows)) for name in names]
            except KeyError:
                return None
        else:
            if not all(map(keys.__eq__, map(dict.keys, rows))):
                return None
            cells = [list(map(itemgetter(name), rows)) for name in names]
        columns = []
        for name, values in zip(names, cells, strict=True):
            tokens = self.column(values, path, name)
            if tokens is None:
                return None
            columns.append(tokens)
        fields = self.delimiter.join([self.key(name, path) for name in names])
        rows_text = ("\n" + row_pad).join(map(self.delimiter.join, zip(*columns, strict=True)))
        return "{" + fields + "}", row_pad + rows_text

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
                raise unsupported(value, child_path(path, name))
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
            table = self.table(items, path, self.pad(depth + 1))
            if table is not None:
                fields, rows = table
                self.lines.append(f"{head}{fields}:")
                self.lines.append(rows)
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
            table = self.table(value, value_path, self.pad(depth + 2))
            if table is not None:
                fields, rows = table
                # As in every header, an empty key is left out.
                lines.append(f"{pad}- {key if name else ''}{self.bracket(len(value))}{fields}:")
                lines.append(rows)
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


@dataclass(frozen=True, slots=True)
class ToonOptions:
    r"""The reference encoder's options, checked when made (:class:`ValueError` names the bad one).

    ``delimiter`` separates inline array values and table cells: ``","``,
    ``"|"`` or ``"\t"``. ``indent`` is the number of spaces per level.
    ``key_folding="safe"`` writes chains of single-key objects as dotted keys
    (``a.b.c: 1``) of at most ``flatten_depth`` segments (``None``: no limit).
    ``version=3`` is what the MCP Fusion reference writes; ``version=4``
    writes TOON spec v4.0 instead (see ``_toon_v4``), which has no key
    folding yet.
    """

    delimiter: str = ","
    indent: int = 2
    key_folding: Literal["off", "safe"] = "off"
    flatten_depth: int | None = None
    version: Literal[3, 4] = 3

    def __post_init__(self) -> None:
        delimiter, indent, flatten_depth = self.delimiter, self.indent, self.flatten_depth
        if not isinstance(delimiter, str) or delimiter not in DELIMITERS:
            raise ValueError(f"delimiter must be ',', '|' or '\\t', not {delimiter!r}")
        if isinstance(indent, bool) or not isinstance(indent, int) or indent < 1:
            raise ValueError(f"indent must be an int of at least 1, not {indent!r}")
        if self.key_folding not in ("off", "safe"):
            raise ValueError(f"key_folding must be 'off' or 'safe', not {self.key_folding!r}")
        if flatten_depth is not None and (
            isinstance(flatten_depth, bool)
            or not isinstance(flatten_depth, int)
            or flatten_depth < 0
        ):
            raise ValueError(
                "flatten_depth must be None (no limit) or an int of at least 0, "
                f"not {flatten_depth!r}"
            )
        version: int = self.version  # any value a caller passed, whatever the annotation says
        if version == 4:
            if self.key_folding != "off" or flatten_depth is not None:
                msg = "key_folding and flatten_depth are not available with version=4 (toon-format)"
                raise ValueError(msg)
        elif version != 3:
            msg = f"version must be 3 (the reference's TOON) or 4, not {version!r}"
            raise ValueError(msg)


DEFAULT_OPTIONS: Final = ToonOptions()


def encode_toon(value: object, options: ToonOptions = DEFAULT_OPTIONS) -> str:
    """Encode plain JSON data as TOON, byte for byte as ``@toon-format/toon`` 2.1.0.

    ``options`` are the reference encoder's (:class:`ToonOptions`).

    ``value`` is JSON data: dicts with str keys (in insertion order), lists
    (or tuples), str, int (printed exactly), float (in JavaScript's notation;
    NaN and infinities as ``null``), bool and None.

    The result has no trailing newline; an empty root object gives ``""``.

    Raises :class:`SerializationError` naming the JSON path (``$.a[2].b``) of
    a value that is not JSON data, :class:`CycleError` for a container inside
    itself and :class:`NestingError` beyond ``MAX_DEPTH`` levels.
    """
    if options.version == 4:
        return _leaving(
            encode_toon_v4(value, delimiter=options.delimiter, indent=options.indent), value
        )
    flatten = math.inf if options.flatten_depth is None else options.flatten_depth
    encoder = _Encoder(options.delimiter, options.indent, options.key_folding == "safe", flatten)
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


def encode_toon_data(data: object, options: ToonOptions = DEFAULT_OPTIONS) -> str:
    """``encode_toon(to_plain(data), options)``, without the copy when ``data`` is plain already.

    ``to_plain`` converts what JSON data does not hold (models, dataclasses,
    dates, sets, non-str keys, ...) by a round trip through orjson that costs
    a fifth of the encoding. Plain data encodes directly; if the encoder
    refuses it, the conversion runs and the encoding starts again, so the
    text, and any error, are those of ``encode_toon(to_plain(data))``. Where
    this process reads ints of another length than the wire allows (see
    ``MAX_INT_DIGITS``), only the conversion applies the wire's limit.
    """
    if options.version == 3 and sys.get_int_max_str_digits() == MAX_INT_DIGITS:
        try:
            return encode_toon(data, options)
        except FusionError:
            pass
    return encode_toon(to_plain(data), options)


# ------------------------------------------------------------- egress checks


def _located(value: object, message: str) -> SerializationError:
    """The error that names where in ``value`` the problem is.

    ``to_plain`` applies the wire's rules for data (no lone surrogate, at
    most ``MAX_INT_DIGITS`` digits) with JSON paths; if it accepts the value,
    the problem is reported at the root.
    """
    from fusion_core._write._json import to_plain  # noqa: PLC0415 - only on the failure path

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
