"""What an error text may say: no value a Presenter hides or its schema drops.

Error texts reach the client (the ``INTERNAL_ERROR`` envelope, a Presenter's
validation error), so they follow the egress firewall (WIRE.md 12.4):

* a pydantic ``ValidationError`` is never quoted as ``str()`` gives it (that
  quotes ``input_value={...}``, hidden fields and all). It is described as
  ``path: message`` lines instead, where a path shows only the names a schema
  declares (fields, aliases, tags, model names) and list positions; any other
  part — a dict key, an undeclared key — is ``*``. A message is pydantic's own
  when its template quotes only the schema (``Input should be a valid
  integer``, ``String should have at most 5 characters``); messages that can
  quote the data (a discriminator tag's value, a validator's own text, an
  attribute getter's error) are replaced by a fixed description;
* for any other exception, :func:`exception_text` applies the app's
  *exposure* (``"message"``, ``"type"`` or ``"none"``, see ``docs/errors.md``),
  and in ``"message"`` mode removes every value a Presenter dropped from data
  it was given during the call (:func:`scrub`), in every form Python writes
  it in (``repr``, ``json.dumps``, ... : ``fusion_core._present._forms``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import typing
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, Literal, Protocol, TypeAlias

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticKnownError, core_schema

from fusion_core._present._forms import leaf_texts, text_forms
from fusion_core._present._pydantic_core_internals import schema_nodes
from fusion_core._present._record import NOT_RECORDED

__all__ = [
    "ERROR_EXPOSURES",
    "ErrorExposure",
    "SelfRedacting",
    "describe_validation_error",
    "error_paths",
    "exception_text",
    "hidden_values",
    "safe_path",
    "schema_names",
    "scrub",
]

ErrorExposure: TypeAlias = Literal["message", "type", "none"]
ERROR_EXPOSURES: Final[tuple[str, ...]] = typing.get_args(ErrorExposure)
HIDDEN: Final = "***"
NONE_TEXT: Final = "The tool failed; the server's log has the details."
# Scrubbing shorter values would garble ordinary words; docs/errors.md says so.
MIN_SCRUBBED: Final = 4
_ALNUM_RUN: Final = re.compile("[A-Za-z0-9]+")

# Error types whose pydantic message can quote the data (or is a user's own text).
_QUOTING: Final = {
    "value_error": "Value error (the validator's message is not shown: it may quote the data)",
    "assertion_error": "Assertion failed (the validator's message is not shown)",
    "get_attribute_error": "Error extracting attribute (its message is not shown)",
    "iteration_error": "Error iterating over the input (its message is not shown)",
    "mapping_type": "Input should be a valid mapping (its error is not shown)",
    "json_invalid": "Invalid JSON",
    "uuid_parsing": "Input should be a valid UUID",
}
_KNOWN: Final = frozenset(typing.get_args(core_schema.ErrorType))
_SKIPPED_KEYS: Final = frozenset({"default", "metadata", "serialization", "expected", "ref"})


@typing.runtime_checkable
class SelfRedacting(Protocol):
    """An error whose text is data-free except in parts it scrubs itself.

    A Presenter's validation error names declared fields: scrubbing its whole
    text would hide a field whose name is also a dropped value (``'***'``).
    """

    def scrubbed(self, hidden: Collection[str]) -> str:
        """The error's text with ``hidden`` values removed where data can appear."""
        ...


def schema_names(schema: Any) -> frozenset[str]:
    """Every name a core schema declares: fields, aliases, tags, model names, labels."""
    names: set[str] = set()
    for node in schema_nodes(schema, _SKIPPED_KEYS):
        kind = node.get("type")
        if isinstance(kind, str):
            names.add(kind)
        names.update(_declared(node))
    return frozenset(names)


def _declared(node: dict[str, Any]) -> Iterator[str]:
    """The names one schema node declares itself."""
    fields = node.get("fields")
    if isinstance(fields, dict):
        yield from (key for key in fields if isinstance(key, str))
    elif isinstance(fields, list):
        yield from (f["name"] for f in fields if isinstance(f, dict) and "name" in f)
    for key in ("name", "model_name", "validation_alias", "custom_error_type"):
        yield from _strings(node.get(key))
    if node.get("type") == "tagged-union":
        yield from (str(tag) for tag in node.get("choices", {}))
        yield from _strings(node.get("discriminator"))
    if node.get("type") == "union":
        yield from (c[1] for c in node.get("choices", ()) if isinstance(c, tuple))
    cls = node.get("cls")
    if isinstance(cls, type):
        yield cls.__name__


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def safe_path(loc: Sequence[int | str], names: frozenset[str] | None) -> str:
    """A dotted error path showing only declared names and positions (else ``*``)."""
    parts = []
    for part in loc:
        if isinstance(part, int) or (names is not None and part in names):
            parts.append(str(part))
        elif names is None and part.isidentifier() and len(part) <= 64:
            parts.append(part)
        else:
            parts.append("*")
    return ".".join(parts) or "(root)"


def _message(detail: Any) -> str:
    kind = detail["type"]
    if kind == "union_tag_invalid":
        ctx = detail.get("ctx") or {}
        return (
            f"Input tag found using {ctx.get('discriminator', 'the discriminator')} does not "
            f"match any of the expected tags: {ctx.get('expected_tags', '')}"
        )
    if kind in _QUOTING:
        return _QUOTING[kind]
    message = str(detail["msg"])
    if kind not in _KNOWN or message != _core_message(kind, detail.get("ctx")):
        # A PydanticCustomError may take a core type's name with words of its own.
        return f"Custom error {kind!r} (its message is not shown: it may quote the data)"
    return message


def _core_message(kind: str, context: Any) -> str | None:
    """What pydantic-core itself writes for an error of ``kind`` with ``context``."""
    try:
        return PydanticKnownError(kind, context).message()  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - a context the template cannot take: not core's words
        return None


def describe_validation_error(
    error: ValidationError,
) -> list[tuple[tuple[int | str, ...], str, str]]:
    """``(loc, type, message)`` per problem; no message quotes a value of the data.

    Show a ``loc`` with :func:`safe_path`: its parts can be data (dict keys).
    """
    return [
        (tuple(detail["loc"]), detail["type"], _message(detail))
        for detail in error.errors(include_url=False, include_input=False, include_context=True)
    ]


def error_paths(error: ValidationError, schema: Any) -> list[str]:
    """The :func:`safe_path` of each problem of ``error`` against core ``schema``, once each.

    For every error text that names where data broke a schema (a Presenter's,
    a tool's output schema): the location's parts can be data (dict keys,
    undeclared keys), so only the names ``schema`` declares are shown.
    """
    names = schema_names(schema)
    paths = (safe_path(loc, names) for loc, _kind, _message in describe_validation_error(error))
    return list(dict.fromkeys(paths))


def _validation_text(error: ValidationError) -> str:
    """A ValidationError of an unknown schema: paths show identifiers and positions only."""
    problems = describe_validation_error(error)
    plural = "s" if len(problems) != 1 else ""
    lines = [f"{len(problems)} validation error{plural} for {error.title}"]
    lines.extend(f"  • '{safe_path(loc, None)}': {message}" for loc, _kind, message in problems)
    return "\n".join(lines)


def _leaves(value: Any, out: set[str], budget: list[int]) -> None:
    """The text of every scalar and key in ``value`` (bounded work).

    Objects are looked into as their ``repr()`` shows them: a mapping's keys
    and values, a model's fields, extras and computed fields, a dataclass's
    fields (slotted ones too), an object's attributes.
    """
    stack = [value]
    add, pop, extend = out.add, stack.pop, stack.extend  # a hot loop: names bound once
    seen: set[int] = set()  # containers walked: data that contains itself is walked once
    walked = seen.add
    left = budget[0]
    while stack and left > 0:
        left -= 1
        item = pop()
        kind = type(item)
        if kind is str:  # the common cases first, by exact type (no ABC checks)
            add(item)
            continue
        if isinstance(item, bool) or item is None:
            continue
        if not isinstance(item, int | float):
            identity = id(item)
            if identity in seen:
                continue
            walked(identity)
        if kind is dict:
            extend(item.keys())
            extend(item.values())
        elif kind is list or kind is tuple:
            extend(item)
        elif isinstance(item, str | int | float | bytes | bytearray | memoryview):
            out.update(leaf_texts(item))
        elif isinstance(item, Mapping):
            with contextlib.suppress(Exception):  # a mapping whose items() raises
                for key, child in item.items():
                    stack.extend((key, child))
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        elif isinstance(item, BaseModel):
            stack.extend(_model_parts(item))
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name, None) for f in dataclasses.fields(item))
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            stack.extend(vars(item).values())
            stack.extend(_slot_values(item))  # a class with __slots__ beside its __dict__
        elif not isinstance(item, type) and _slots_of(type(item)):
            stack.extend(_slot_values(item))
            out.update(leaf_texts(item))
        else:
            out.update(leaf_texts(item))
    budget[0] = left


def _slots_of(kind: type) -> tuple[str, ...]:
    """Every ``__slots__`` name of ``kind`` and its bases (a plain slotted class's fields)."""
    names: list[str] = []
    for base in kind.__mro__:
        slots = base.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return tuple(name for name in names if name not in ("__dict__", "__weakref__"))


def _slot_values(item: Any) -> list[Any]:
    """The values of ``item``'s slots that are set (an unset one raises: left out)."""
    values: list[Any] = []
    for name in _slots_of(type(item)):
        with contextlib.suppress(Exception):
            values.append(getattr(item, name))
    return values


def _model_parts(model: BaseModel) -> list[Any]:
    """What a model instance's ``repr()`` can show: fields, extras, computed fields."""
    parts: list[Any] = list(model.__dict__.values())
    parts.extend((model.__pydantic_extra__ or {}).items())
    for name in type(model).model_computed_fields:
        with contextlib.suppress(Exception):  # a property that raises shows nothing
            parts.append(getattr(model, name))
    return parts


_SCAN_BUDGET: Final = 1_000_000
"""Values looked at for what Presenters hid during one call (the bound of a crash's answer)."""


def hidden_values(pairs: Iterable[tuple[Any, Any]]) -> set[str] | None:
    """Texts found in what a Presenter was given but not in what it returned, for any pair.

    ``None`` when the data is larger than the scan's budget, or a pair is
    ``NOT_RECORDED`` (data given in a thread without the call's context that
    was not kept): what was hidden is then not known in full, and no text of
    the exception may be shown.
    """
    hidden: set[str] = set()
    budget = [_SCAN_BUDGET]
    for pair in pairs:
        if pair is NOT_RECORDED:
            return None
        raw, masked = pair
        given: set[str] = set()
        shown: set[str] = set()
        _leaves(raw, given, budget)
        _leaves(masked, shown, budget)
        if budget[0] <= 0:
            return None
        # Per pair: what one Presenter showed does not unhide what another hid.
        hidden.update(value for value in given - shown if len(value) >= MIN_SCRUBBED)
    return hidden


def scrub(text: str, hidden: Iterable[str]) -> str:
    """``text`` with every hidden value, in every form Python writes it, replaced by ``***``.

    The forms are those of ``fusion_core._present._forms`` (``repr``,
    ``json.dumps``, ...), replaced longest first. Every form keeps a value's
    runs of ASCII letters and digits as they are, so a value with a run that
    is not in ``text`` cannot be there in any form: its forms are never
    computed (the text is short, the hidden values can be many).
    """
    forms: set[str] = set()
    runs = _ALNUM_RUN.findall
    for value in hidden:
        if value not in text and not all(run in text for run in runs(value)):
            continue
        forms.update(form for form in text_forms(value) if len(form) >= MIN_SCRUBBED)
    for form in sorted(forms, key=len, reverse=True):
        if form in text:
            text = text.replace(form, HIDDEN)
    return text


def exception_text(
    exc: BaseException, exposure: ErrorExposure, pairs: Iterable[tuple[Any, Any]] = ()
) -> str:
    """What the client is told about an unexpected exception."""
    if exposure == "none":
        return NONE_TEXT
    if exposure == "type":
        return type(exc).__name__
    hidden = hidden_values(pairs)
    if hidden is None:  # more data than the scan reads: its type only, never its text
        return type(exc).__name__
    if isinstance(exc, SelfRedacting):
        return exc.scrubbed(hidden)
    text = _validation_text(exc) if isinstance(exc, ValidationError) else str(exc)
    return scrub(text, hidden)
