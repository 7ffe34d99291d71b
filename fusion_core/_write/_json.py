"""JSON exactly as the reference's ``JSON.stringify(value, null, 2)`` writes it.

Two encoders give the same bytes:

* the fast path hands the value to orjson (``OPT_INDENT_2``: the same indent,
  separators and empty containers as JavaScript) and then rewrites the only
  tokens where orjson and JavaScript disagree, floats such as ``1.0`` or
  ``1e+16``. In indented JSON a number can only stand at the end of a line
  (strings end in ``"``, literals in a letter), so those rewrites can never
  touch the inside of a string;
* the exact path is a small recursive encoder that is the definition of the
  format. It runs when orjson refuses the value (ints beyond 64 bits, lone
  surrogates, non-str keys, a cycle, very deep nesting, a type neither
  knows), and it is the one that explains a failure with the JSON path of the
  offending value.

Python values map to JSON as documented in ``docs/wire-format.md``:
pydantic models as their ``model_dump(mode="json")``, dataclasses as objects
of their fields, ``datetime``/``date``/``time`` as ``isoformat()``,
``Decimal`` as its string, ``UUID`` as its string, ``Enum`` as its value,
tuples as arrays, sets and frozensets as arrays sorted by ``fusion_core._present._order``,
``bytes`` as base64.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import json
import math
import os
import re
import uuid
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, Final

import orjson

from fusion_core._errors import CycleError, NestingError, SerializationError
from fusion_core._present._order import sorted_plain
from fusion_core._write._numbers import int_text, js_number, require_int_digits

__all__ = [
    "MAX_DEPTH",
    "NO_SPEEDUPS_VARIABLE",
    "SPEEDUPS",
    "child_path",
    "is_canonical_json",
    "require_plain",
    "stable_repr",
    "to_json",
    "to_plain",
    "write_json",
]

MAX_DEPTH: Final = 512
"""Deepest nesting of arrays and objects the encoders accept."""

_PLAIN_OPTIONS: Final = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_ORJSON_OPTIONS: Final = (
    orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
)
# orjson and JavaScript print a float differently in exactly three ways:
# integral values (orjson "4500.0", JS "4500"; "-0.0" vs "0"), values from
# 1e16 to below 1e21 ("1e+16" vs "10000000000000000") and values in
# [1e-6, 1e-5) ("1.5e-6" vs "0.0000015"). The optional C scanner
# (_speedups.c) finds those tokens in one pass; without it, these regexes
# (each with a literal prefix) find them, more slowly.
_INTEGRAL_FLOAT: Final = re.compile(rb"\.0(?=,?\n|,?$)")
_NEG_ZERO: Final = re.compile(rb"-0\.0(?=,?\n|,?$)")
_MICRO: Final = re.compile(rb"e-6(?=,?\n|,?$)")
_EXPONENT: Final = re.compile(rb"[-\d.]+e[-+]\d+(?=,?\n|,?$)")
_encode_string: Callable[[str], str] = json.encoder.encode_basestring
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _json_string(text: str) -> str:
    """A JSON string literal as ``JSON.stringify`` writes it (non-ASCII raw)."""
    encoded: str = _encode_string(text)
    if _SURROGATE.search(encoded):
        # Well-formed JSON.stringify (ES2019) escapes lone surrogates; a str
        # in Python can only hold surrogates unpaired, so every one is lone.
        encoded = _SURROGATE.sub(_escape_surrogate, encoded)
    return encoded


def _unicode_str(text: str, path: str) -> str:
    """``text``, if it can leave the process as data (no lone surrogate).

    JSON *text* escapes a lone surrogate (a six-character escape, as
    ``JSON.stringify`` does), but plain data (``structuredContent``, TOON)
    has no escape for it: the MCP SDK would fail to encode the result, far
    from the cause.
    """
    if not text.isascii() and _SURROGATE.search(text) is not None:
        raise SerializationError(
            "a str with a lone surrogate cannot leave the process as MCP data "
            "(structuredContent, TOON, tool definitions); decode the text properly, or send "
            "the data as JSON text",
            path=path,
            value=text,
        )
    return text


def _convert(value: Any) -> Any:
    """One step from a Python value to JSON-able data, or ``NotImplemented``."""
    model_dump = getattr(type(value), "model_dump", None)
    if model_dump is not None and hasattr(type(value), "model_fields"):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, set | frozenset):
        return _sorted_members(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    return NotImplemented


def _sorted_members(members: set[Any] | frozenset[Any]) -> list[Any]:
    """Set members in the order of their JSON values (``fusion_core._present._order``)."""
    return sorted_plain(members, _convert)


def _orjson_default(value: Any) -> Any:
    converted = _convert(value)
    if converted is NotImplemented:
        raise TypeError
    return converted


def _rewrite_exponent(match: re.Match[bytes]) -> bytes:
    return js_number(float(match.group())).encode()


def _js_floats_regex(out: bytes) -> bytes:
    """Pure-Python rewrite of orjson floats to JavaScript's form."""
    if _INTEGRAL_FLOAT.search(out) is not None:
        out = _NEG_ZERO.sub(b"0.0", out)
        out = _INTEGRAL_FLOAT.sub(b"", out)
    if b"+" in out or _MICRO.search(out) is not None:
        out = _EXPONENT.sub(_rewrite_exponent, out)
    return out


def _js_floats_c(out: bytes) -> bytes:
    """The same rewrite, with the one-pass C scanner finding the tokens.

    The unchanged stretches are joined from views of ``out``, not copies:
    a large block with one float to rewrite (``0.0`` in its first row) costs
    one copy of the text, not two.
    """
    spans = _float_fixups(out)
    if not spans:
        return out
    parts: list[bytes | memoryview] = []
    last = 0
    with memoryview(out) as whole:
        for start, end in spans:
            parts.append(whole[last:start])
            parts.append(js_number(float(out[start:end])).encode())
            last = end
        parts.append(whole[last:])
        rewritten = b"".join(parts)
        for part in parts:
            if isinstance(part, memoryview):
                part.release()
    return rewritten


def _rewrites_to_regex(out: bytes, raw: bytes) -> bool:
    """Whether the rewrite of orjson output ``out`` is ``raw`` (pure Python)."""
    return _js_floats_regex(out) == raw


def _rewrites_to_c(out: bytes, raw: bytes) -> bool:
    """The same answer, comparing piece by piece and stopping at the first difference.

    A reader asks this of every JSON data block; hostile text (every token a
    float to rewrite, none matching) costs one C scan and one comparison,
    not a rewrite of the whole block.
    """
    if out == raw:  # the common case: identical unless a float needs rewriting
        return not _float_fixups(out)
    position = last = 0
    for start, end in _float_fixups(out):
        if not raw.startswith(out[last:start], position):
            return False
        position += start - last
        fixed = js_number(float(out[start:end])).encode()
        if not raw.startswith(fixed, position):
            return False
        position += len(fixed)
        last = end
    return len(raw) - position == len(out) - last and raw.endswith(out[last:])


NO_SPEEDUPS_VARIABLE: Final = "FUSION_NO_SPEEDUPS"
"""Set to a non-empty value other than ``0`` before import: the pure-Python path runs."""

try:
    from fusion_core._write._speedups import float_fixups as _float_fixups
except ImportError:  # pragma: no cover - built wherever a compiler was present
    _BUILT = False
else:
    _BUILT = True

SPEEDUPS: Final = _BUILT and os.environ.get(NO_SPEEDUPS_VARIABLE, "") in ("", "0")
"""Whether the C accelerator runs: it was built, and ``FUSION_NO_SPEEDUPS`` is not set.

Read once, at import; the ``*_c`` and ``*_regex`` functions stay callable
either way (the differential tests compare them).
"""
if SPEEDUPS:
    _js_floats = _js_floats_c
    _rewrites_to = _rewrites_to_c
else:
    _js_floats = _js_floats_regex
    _rewrites_to = _rewrites_to_regex


def is_canonical_json(value: Any, raw: bytes | str) -> bool | None:
    """Whether ``to_json(value)`` is the UTF-8 text ``raw``; ``None`` when orjson cannot tell.

    For plain JSON data (what a reader loads), ``to_json`` is orjson's
    indented output with JavaScript's float forms; this compares without
    building the str. ``raw`` may be the text itself when it is ASCII: it is
    then compared without a UTF-8 copy of it. ``None`` means orjson refuses
    the value (ints beyond 64 bits): ask ``to_json`` itself.
    """
    try:
        out = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except (orjson.JSONEncodeError, TypeError, RecursionError):
        return None
    if isinstance(raw, str):
        return _is_ascii_text(out, raw)
    return _rewrites_to(out, raw)


_COMPARED: Final = 1 << 16  # characters of an ASCII text compared at a time


def _is_ascii_text(out: bytes, text: str) -> bool:
    """Whether the rewrite of orjson output ``out`` is the ASCII str ``text``.

    When no float needs rewriting (the rewrite is ``out`` itself), ``out`` is
    compared with ``text`` a slice at a time: a whole UTF-8 copy of a large
    data block would cost as much memory as the block. Otherwise, or when the
    lengths differ, the answer is :func:`_rewrites_to`'s.
    """
    if len(out) != len(text) or _js_floats(out) is not out:
        return _rewrites_to(out, text.encode())
    return all(
        out.startswith(text[start : start + _COMPARED].encode(), start)
        for start in range(0, len(text), _COMPARED)
    )


def _fast(value: Any, *, floats: bool = True) -> str | None:
    """The orjson path; ``None`` when orjson refuses the value.

    ``floats=False``: the caller knows the value holds no float, so the scan
    for float tokens (the one step where orjson's text and JavaScript's
    differ) is skipped.
    """
    try:
        out = orjson.dumps(value, default=_orjson_default, option=_ORJSON_OPTIONS)
    except (orjson.JSONEncodeError, TypeError, RecursionError):
        return None
    if floats:
        out = _js_floats(out)  # the text before the rewrite is freed here, not after decode()
    return out.decode()


class _Frame:
    """One open array or object of the iterative encoders."""

    __slots__ = ("first", "identity", "items", "path", "result")

    def __init__(self, items: Any, identity: int, path: str, result: Any) -> None:
        self.items = items
        self.identity = identity
        self.path = path
        self.result = result
        self.first = True


def _unsupported(value: Any, path: str) -> SerializationError:
    return SerializationError(
        f"cannot serialize a {type(value).__qualname__} to JSON; convert it to "
        "str, int, float, bool, None, a list or a dict first",
        path=path,
        value=value,
    )


def _convert_at(value: Any, path: str) -> Any:
    """:func:`_convert`, with every failure reported at ``path``."""
    try:
        converted = _convert(value)
    except Exception as exc:
        raise SerializationError(
            f"converting a {type(value).__qualname__} to JSON failed: {exc}",
            path=path,
            value=value,
        ) from exc
    if converted is NotImplemented:
        raise _unsupported(value, path)
    return converted


def _open(value: Any, path: str, stack: list[_Frame], active: set[int]) -> int:
    """Check depth and cycles before a container is entered; return its id."""
    if len(stack) >= MAX_DEPTH:
        raise NestingError(
            f"data is nested more than {MAX_DEPTH} levels deep", path=path, limit=MAX_DEPTH
        )
    identity = id(value)
    if identity in active:
        raise CycleError("this container contains itself", path=path, value=value)
    active.add(identity)
    return identity


def _children(value: Mapping[Any, Any] | list[Any] | tuple[Any, ...], path: str) -> Any:
    """(child path, key or None, child) for every member of a container."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = _key_text(key, path)
            yield child_path(path, name), name, item
    else:
        for index, item in enumerate(value):
            yield f"{path}[{index}]", None, item


def _scalar_text(item: Any, path: str) -> str | None:
    """The JSON text of a str, None, bool, int or float; ``None`` for anything else."""
    if isinstance(item, str):
        return _json_string(item)
    if item is None:
        return "null"
    if item is True:
        return "true"
    if item is False:
        return "false"
    if isinstance(item, int) and not isinstance(item, enum.Enum):
        return int_text(item, path)
    if isinstance(item, float):
        return js_number(item) if math.isfinite(item) else "null"
    return None


def _exact(value: Any, path: str) -> str:
    """The reference encoder: iterative, with paths, cycles and a depth limit."""
    parts: list[str] = []
    stack: list[_Frame] = []
    active: set[int] = set()
    pending: tuple[Any, str] | None = (value, path)
    while True:
        if pending is not None:
            item, item_path = pending
            pending = None
            while True:
                scalar = _scalar_text(item, item_path)
                if scalar is not None:
                    parts.append(scalar)
                elif isinstance(item, Mapping | list | tuple):
                    if not item:
                        if len(stack) >= MAX_DEPTH:
                            _open(item, item_path, stack, active)
                        parts.append("{}" if isinstance(item, Mapping) else "[]")
                    else:
                        identity = _open(item, item_path, stack, active)
                        parts.append("{" if isinstance(item, Mapping) else "[")
                        closer = "}" if isinstance(item, Mapping) else "]"
                        stack.append(
                            _Frame(_children(item, item_path), identity, item_path, closer)
                        )
                else:
                    item = _convert_at(item, item_path)
                    continue
                break
        if not stack:
            return "".join(parts)
        frame = stack[-1]
        child = next(frame.items, None)
        if child is None:
            stack.pop()
            active.discard(frame.identity)
            parts.append("\n" + "  " * len(stack) + frame.result)
            continue
        child_path, name, child_value = child
        parts.append(("\n" if frame.first else ",\n") + "  " * len(stack))
        frame.first = False
        if name is not None:
            parts.append(_json_string(name))
            parts.append(": ")
        pending = (child_value, child_path)


_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def child_path(path: str, key: object) -> str:
    """Extend a JSON path: ``$.a`` for identifier keys, ``$["my key"]`` for others."""
    name = key if isinstance(key, str) else repr(key)
    if _IDENTIFIER.fullmatch(name):
        return f"{path}.{name}"
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'{path}["{escaped}"]'


def stable_repr(value: Any) -> str:
    """``repr`` with set members sorted, so an error message is the same in every process.

    A set's own repr follows hash order, which ``PYTHONHASHSEED`` changes.
    """
    if isinstance(value, set | frozenset):
        members = ", ".join(sorted(stable_repr(member) for member in value))
        kind = type(value).__qualname__
        if not value:
            return f"{kind}()"
        return f"{{{members}}}" if type(value) is set else f"{kind}({{{members}}})"
    if type(value) is tuple:
        members = ", ".join(stable_repr(member) for member in value)
        return f"({members},)" if len(value) == 1 else f"({members})"
    return repr(value)


def _key_text(key: Any, path: str) -> str:
    """Object keys: str as is, int in decimal, Enum by its str/int value."""
    if isinstance(key, enum.Enum):
        key = key.value
    if isinstance(key, str):
        return key
    if isinstance(key, int) and not isinstance(key, bool):
        return int_text(key, path)
    raise SerializationError(
        f"object key {stable_repr(key)} is a {type(key).__qualname__}; "
        "JSON object keys must be str (or int, written in decimal)",
        path=path,
        value=key,
    )


def to_json(value: Any, *, _path: str = "$") -> str:
    """Serialize ``value`` exactly as ``JSON.stringify(value, null, 2)`` would.

    Raises :class:`SerializationError` (a ``TypeError``) naming the JSON path of
    a value that has no JSON form, :class:`CycleError` for a container that
    contains itself and :class:`NestingError` beyond ``MAX_DEPTH`` levels.
    """
    fast = _fast(value)
    if fast is not None:
        return fast
    return _exact(value, _path)


def write_json(value: Any, *, floats: bool = True) -> tuple[str, bool]:
    """:func:`to_json` of ``value``, and whether orjson wrote it.

    Such a text holds only str keys, no int beyond 64 bits and no lone
    surrogate (orjson refuses those; the exact encoder writes them), so
    orjson reads it back exactly and :func:`to_json` of what it reads is the
    text itself: the reader may skip its canonical check of a text it is
    told, by identity, came from here (``_response.with_json_data``).

    ``floats=False`` is for data known to hold no ``float``: the float
    rewrite is the only step where orjson's text and JavaScript's differ, and
    for data that cannot hold a float (a Presenter's rows when its schema has
    no float field) the scan for float tokens finds nothing; on a large data
    block it is a tenth of the time of the whole write.
    """
    fast = _fast(value, floats=floats)
    if fast is not None:
        return fast, True
    return _exact(value, "$"), False


def to_plain(value: Any) -> Any:
    """The plain JSON data (dict, list, str, int, float, bool, None) of ``value``.

    Used where JSON *data* rather than text is needed (``structuredContent``,
    TOON). Finite floats keep their value; ``NaN`` and ``±Infinity`` become
    ``None``, as in the JSON text; the same conversions and errors as
    :func:`to_json` apply. A str (value or key) holding a lone surrogate, which
    only JSON *text* can escape, raises :class:`SerializationError` naming its
    path, as does an int of more than ``MAX_INT_DIGITS`` digits (in both).
    """
    # Fast path: an orjson round trip makes the same plain data in C (floats
    # survive exactly; NaN becomes null). Whatever orjson refuses, the exact
    # conversion handles and explains.
    try:
        encoded = orjson.dumps(value, default=_orjson_default, option=_PLAIN_OPTIONS)
    except (orjson.JSONEncodeError, TypeError, RecursionError):
        return _plain(value, "$")
    return orjson.loads(encoded)


def require_plain(value: Any, path: str = "$") -> None:
    """Raise :class:`SerializationError` (with the path) if ``value`` cannot leave the process.

    The check :func:`to_plain` makes, without the copy: for data the MCP SDK
    serializes itself (tool definitions), so a lone surrogate is an error
    here, naming where it is, not a server that dies writing ``tools/list``.
    """
    try:
        orjson.dumps(value, default=_orjson_default, option=_PLAIN_OPTIONS)
    except (orjson.JSONEncodeError, TypeError, RecursionError):
        _plain(value, path)


def _plain(value: Any, path: str) -> Any:
    """Iterative conversion to plain JSON data, mirroring :func:`_exact`."""
    stack: list[_Frame] = []
    active: set[int] = set()
    root: list[Any] = []
    pending: tuple[Any, str, Any, Any] | None = (value, path, root, None)
    while True:
        if pending is not None:
            item, item_path, target, slot = pending
            pending = None
            while True:
                if item is None or isinstance(item, bool):
                    result: Any = item
                elif isinstance(item, str):
                    result = _unicode_str(item, item_path)
                elif isinstance(item, int) and not isinstance(item, enum.Enum):
                    result = int(item)
                    require_int_digits(result, item_path)
                elif isinstance(item, float):
                    result = item if math.isfinite(item) else None
                elif isinstance(item, Mapping | list | tuple):
                    identity = _open(item, item_path, stack, active)
                    result = {} if isinstance(item, Mapping) else []
                    stack.append(_Frame(_children(item, item_path), identity, item_path, result))
                else:
                    item = _convert_at(item, item_path)
                    continue
                break
            if slot is None:
                target.append(result)
            else:
                target[slot] = result
        if not stack:
            return root[0]
        frame = stack[-1]
        child = next(frame.items, None)
        if child is None:
            stack.pop()
            active.discard(frame.identity)
            continue
        child_path, name, child_value = child
        if name is not None:
            _unicode_str(name, child_path)
        pending = (child_value, child_path, frame.result, name)
