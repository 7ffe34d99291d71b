"""Presenter: one per entity — its schema, rules, UI, limits, suggestions, embeds.

``Presenter.make(data, ctx, select)`` follows WIRE.md section 5:

1. truncate a list longer than the agent limit (the truncation block goes first);
2. validate and mask every item with the schema (a :class:`~fusion_core._present._mask.Mask`);
3. narrow the data block to ``select`` (shallow; UI, rules and suggestions still
   see the whole validated item);
4. UI: item UI for one object, collection UI for a list;
5. rules: auto rules (field descriptions), static or item rules (for a list, the
   first item), collection rules;
6. suggestions: item suggestions for one object, collection suggestions for a
   non-empty list; ``None`` entries dropped;
7. embeds: each child runs on the validated value under its key and adds its
   non-data blocks as raw blocks. For a list, the child runs on the first
   item's value, as item rules do (the reference's behaviour); a missing or
   ``None`` value gives only the child's static rules.

The egress firewall (WIRE.md 12.4) does not trust objects by identity: the
builder ``make()`` returns is *sealed* — its data block is written as soon as
the data is masked, before any callback runs, and ``builder.data`` is a copy —
so nothing done to the data afterwards reaches the wire. During a pipeline
call every Presenter records (``fusion_core._present._record``) the data blocks it wrote (an
immutable ``str``, so the app can tell a response a Presenter built from one
it must mask) and the data it was given (so an error text can be cleaned of
the values it dropped, ``fusion_core._present._redact``). A validation error names
fields and positions, never a value, a dict key or a tag it was given.

Caches: a Presenter builds its schema's :class:`~fusion_core._present._mask.Mask`
(the compiled validators) and its auto rules once, when made, and the
schema's field names for error paths on its first validation error; the
schema is fixed for the Presenter's life, so nothing invalidates them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeAlias, TypeVar, final

from pydantic import BaseModel, ValidationError

from fusion_core._errors import FusionError
from fusion_core._kinds import UI
from fusion_core._present._mask import Mask
from fusion_core._present._pydantic_core_internals import core_schema_of
from fusion_core._present._record import current_record, given
from fusion_core._present._redact import describe_validation_error, safe_path, schema_names, scrub
from fusion_core._write._builder import ResponseBuilder, SuggestionLike, after_data, seal
from fusion_core._write._json import to_json, write_json
from fusion_core._write._ui import UiBlock, summary
from fusion_core._write._unwritable import describe_unwritable, is_unwritable, locate_unwritable
from fusion_core._write._view import Suggestion

__all__ = ["FieldError", "Presenter", "PresenterValidationError"]

M = TypeVar("M", bound=BaseModel)

RulesFn: TypeAlias = Callable[[Any, Any], Iterable[str | None]]
UiFn: TypeAlias = Callable[[Any, Any], Iterable[UiBlock | Mapping[str, Any] | None]]
SuggestFn: TypeAlias = Callable[[Any, Any], Iterable[SuggestionLike | None]]
TruncateFn: TypeAlias = Callable[[int], UiBlock]


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem found by validation: the dotted field path and what is wrong.

    ``keys`` are the data keys the message names (``Unrecognized keys``), the
    only part of a Presenter's error that can come from the data.
    """

    path: str
    message: str
    keys: tuple[str, ...] = field(default=(), compare=False, repr=False)


class PresenterValidationError(FusionError, ValueError):
    """Data given to a Presenter does not fit its schema.

    ``presenter`` is the Presenter's name, ``errors`` the problems in schema
    order, ``index`` the position of the offending item when the data was a
    list (only the first offending item is reported). No value of the data is
    quoted — not a field's value, a dict key nor a discriminator's tag: a path
    shows the names the schema declares and list positions (any other part is
    ``*``), and a message that could quote the data (a validator's own text)
    is replaced by a fixed one. Only a schema with ``extra="forbid"`` names
    the keys it does not know (``Unrecognized keys: "a"``, the reference's
    wording); in a tool call they are cleaned like any dropped value.
    """

    def __init__(self, presenter: str, errors: Sequence[FieldError], index: int | None) -> None:
        self.presenter = presenter
        self.errors = tuple(errors)
        self.index = index
        super().__init__(self.scrubbed(()))

    def scrubbed(self, hidden: Collection[str]) -> str:
        """The message with ``hidden`` values removed where the data can appear.

        A path is made of declared names and positions only and a message is
        a fixed or schema-only text, so both stay whole (a field named like a
        dropped value is still named); only the data keys a message names
        (``Unrecognized keys``) are cleaned.
        """
        bullets = "\n".join(
            f"  • {'(root)' if error.path == '(root)' else repr_path(error.path)}: "
            + (scrub(error.message, hidden) if error.keys else error.message)
            for error in self.errors
        )
        return f"[{self.presenter} Presenter] Validation failed:\n{bullets}"


def _field_errors(
    error: ValidationError, names: frozenset[str], *, skip_index: bool
) -> tuple[int | None, list[FieldError]]:
    """Errors of the first offending item, paths joined with dots, no data quoted.

    A path shows the names the schema declares and list positions (any other
    part, such as a dict key, is ``*``); messages that could quote the data
    are replaced (``fusion_core._present._redact``). Unrecognized keys of one object
    are one error at the object's path (``(root)`` at the top),
    ``Unrecognized keys: "a", "b"``, as the reference words it: those are
    key names, not values.
    """
    found: list[FieldError] = []
    unknown: dict[str, list[str]] = {}
    first_index: int | None = None
    for loc, kind, message in describe_validation_error(error):
        where = loc
        if skip_index and loc and isinstance(loc[0], int):
            if first_index is None:
                first_index = loc[0]
            if loc[0] != first_index:
                continue
            where = loc[1:]
        if kind == "extra_forbidden" and where:
            parent = safe_path(where[:-1], names)
            if parent not in unknown:
                unknown[parent] = []
                found.append(FieldError(parent, ""))
            unknown[parent].append(str(where[-1]))
            continue
        found.append(FieldError(safe_path(where, names), message))
    return first_index, [
        FieldError(e.path, _unrecognized(unknown[e.path]), tuple(unknown[e.path]))
        if not e.message
        else e
        for e in found
    ]


def _unrecognized(keys: Sequence[str]) -> str:
    plural = "s" if len(keys) > 1 else ""
    return f"Unrecognized key{plural}: " + ", ".join(f'"{key}"' for key in keys)


def repr_path(path: str) -> str:
    """A field path as the message quotes it."""
    return f"'{path}'"


def default_truncation(omitted: int, shown: int) -> UiBlock:
    """The reference's truncation summary."""
    return summary(
        f"⚠️ Dataset truncated. {shown} shown, {omitted} hidden. Use filters to narrow results."
    )


def select_keys(data: Any, keys: Sequence[str]) -> Any:
    """Keep only ``keys`` (in that order) of an object or of each list item."""
    if not keys:
        return data
    if isinstance(data, list):
        return [select_keys(item, keys) for item in data]
    if isinstance(data, dict | Mapping):
        return {key: data[key] for key in keys if key in data}
    return data


@final
class Presenter(Generic[M]):
    """How one entity is shown to an agent, defined once, used by every tool.

    ``schema`` is a pydantic model: undeclared fields never reach the wire,
    keys follow the schema's order, ``Field(exclude=True)`` fields stay hidden,
    nested models mask recursively. Without a
    schema, data passes unchanged.

    ``rules`` is a list of str or a function ``(item, ctx) -> rules``;
    ``collection_rules`` likewise ``(items, ctx)``. ``ui``/``collection_ui``
    return UI blocks, ``suggest``/``collection_suggest`` return suggestions
    (``Suggestion``, ``(tool, reason)`` or a mapping); ``None`` entries are
    dropped everywhere. ``agent_limit`` truncates lists; ``on_truncate(omitted)``
    makes the block that says so. ``auto_rules`` turns the descriptions of the
    schema's fields into rules (``"name: description"``), before the others.
    """

    __slots__ = (
        "_auto_rules",
        "_collection_rules",
        "_collection_suggest",
        "_collection_ui",
        "_embeds",
        "_mask",
        "_names",
        "_on_truncate",
        "_rules",
        "_suggest",
        "_ui",
        "agent_limit",
        "name",
        "schema",
    )

    def __init__(
        self,
        name: str,
        schema: type[M] | None = None,
        *,
        rules: Sequence[str] | RulesFn = (),
        collection_rules: Sequence[str] | RulesFn = (),
        ui: UiFn | None = None,
        collection_ui: UiFn | None = None,
        suggest: SuggestFn | None = None,
        collection_suggest: SuggestFn | None = None,
        agent_limit: int | None = None,
        on_truncate: TruncateFn | None = None,
        embeds: Mapping[str, Presenter[Any]] | None = None,
        auto_rules: bool = False,
    ) -> None:
        if not isinstance(name, str) or not name:
            msg = f"a Presenter needs a non-empty str name, got {name!r}"
            raise TypeError(msg)
        if agent_limit is not None and (
            isinstance(agent_limit, bool) or not isinstance(agent_limit, int) or agent_limit < 0
        ):
            msg = f"agent_limit must be a non-negative int, got {agent_limit!r}"
            raise ValueError(msg)
        self.name = name
        self.schema = schema
        self._mask = Mask(schema) if schema is not None else None
        self._names: frozenset[str] | None = None
        self._rules = rules if callable(rules) else _static(rules, "rules")
        self._collection_rules = (
            collection_rules if callable(collection_rules) else _static(collection_rules, "rules")
        )
        self._ui, self._collection_ui = ui, collection_ui
        self._suggest, self._collection_suggest = suggest, collection_suggest
        self.agent_limit = agent_limit
        self._on_truncate = on_truncate
        self._embeds: dict[str, Presenter[Any]] = dict(embeds or {})
        self._auto_rules: tuple[str, ...] = _auto_rules(schema) if auto_rules else ()

    @property
    def root_keys(self) -> tuple[str, ...]:
        """The keys an item of the data block can have (``()`` without a schema)."""
        return self._mask.root_keys if self._mask is not None else ()

    def embed(self, key: str, child: Presenter[Any]) -> Presenter[M]:
        """Run ``child`` on the value under ``key`` and add its non-data blocks."""
        candidate: object = child
        if not isinstance(candidate, Presenter):
            msg = f"embed() takes a Presenter, got {type(child).__qualname__}"
            raise TypeError(msg)
        self._embeds[key] = child
        return self

    def mask(self, data: Any) -> Any:
        """Validate and mask ``data`` (one object or a list); raise on bad data.

        Data this Presenter already masked during the current tool call (its
        ``builder.data``, its response's data) is its own output, not input
        for its schema: aliases and serializers write what the schema may not
        read back. It is recognized by its bytes and passes as it was written.
        Data it masks is recorded for the call (what it hid is then cleaned
        from the call's error texts), in a thread without the call's context
        too (docs/errors.md).
        """
        return self._masked(data, data)

    def _masked(self, data: Any, full: Any) -> Any:
        """:meth:`mask` of ``data``, recorded as given ``full`` (the rows before an agent limit)."""
        if self._mask is None:
            if full is not data:  # the rows the limit left out were never shown
                given(full)[1] = data
            return data
        own = self._own_output(data)
        if own is not None:
            return own
        pair = given(full)
        pair[1] = validated = self._validated(self._mask, data)
        return validated

    def _validated(self, mask: Mask, data: Any) -> Any:
        many = isinstance(data, list | tuple)
        try:
            return mask.many(data) if many else mask.one(data)
        except ValidationError as exc:
            index, errors = _field_errors(exc, self._schema_names(), skip_index=many)
            raise PresenterValidationError(self.name, errors, index) from None
        except ValueError as exc:  # validated, but not writable as JSON
            index, loc, found = locate_unwritable(mask.model, data, many=many)
            if found is None and not is_unwritable(exc):
                raise
            error = FieldError(
                safe_path(loc, self._schema_names()), describe_unwritable(found or exc)
            )
            raise PresenterValidationError(self.name, [error], index) from None

    def _schema_names(self) -> frozenset[str]:
        """The names the schema declares (the only names an error path shows)."""
        if self._names is None:
            assert self._mask is not None
            self._names = schema_names(core_schema_of(self._mask.model))
        return self._names

    def _own_output(self, data: Any) -> Any:
        """``data`` as this Presenter wrote it during the current call, else ``None``.

        Its output is a data block it wrote, one object of one, or a list of
        such objects (``success_structured(builder.data[0])``,
        ``toon_success([builder.data])``): masking it again would read a
        serializer's output as input.
        """
        record = current_record()
        written = record.written.get(id(self)) if record is not None else None
        if record is None or not written or not isinstance(data, Mapping | list | tuple):
            return None
        try:
            text = to_json(data)
        except (TypeError, ValueError, RecursionError):
            return None  # not JSON: not this Presenter's output; validation says why
        if text in written:
            return json.loads(text)
        value = json.loads(text)
        items = record.items(self)
        if isinstance(value, dict):
            return value if text in items else None
        if value and all(isinstance(item, dict) and to_json(item) in items for item in value):
            return value
        return None

    def make(
        self, data: Any, ctx: Any = None, select: Sequence[str] | None = None
    ) -> ResponseBuilder:
        """The response for ``data``, as a (sealed) builder a handler can add to."""
        return self._make(data, ctx, select, sealed=True)

    def _make(
        self, data: Any, ctx: Any, select: Sequence[str] | None, *, sealed: bool
    ) -> ResponseBuilder:
        truncation: UiBlock | None = None
        if isinstance(data, tuple):
            data = list(data)
        full = data
        is_list = isinstance(data, list)
        if is_list and self.agent_limit is not None and len(data) > self.agent_limit:
            shown, omitted = self.agent_limit, len(data) - self.agent_limit
            data = data[:shown]
            truncation = (
                self._on_truncate(omitted)
                if self._on_truncate is not None
                else default_truncation(omitted, shown)
            )
        validated = self._masked(data, full)
        record = current_record()
        wire = select_keys(validated, select) if select else validated
        builder = ResponseBuilder(wire)
        if sealed:  # before any callback can touch the data
            float_free = self._mask is not None and self._mask.float_free
            text = seal(builder, write_json(wire, floats=False) if float_free else None)
            if record is not None:
                record.blocks[id(text)] = (self, text)
                record.written.setdefault(id(self), set()).add(text)
        if truncation is not None:
            builder.ui_block(truncation)
        self._add_ui(builder, validated, ctx, is_list=is_list)
        self._add_embeds(builder, validated, ctx, is_list=is_list)
        rules = self._rule_list(validated, ctx, is_list=is_list)
        if rules:
            builder.system_rules(rules)
        suggestions = self._suggestions(validated, ctx, is_list=is_list)
        if suggestions:
            builder.system_hint(suggestions)
        return builder

    def _add_ui(self, builder: ResponseBuilder, data: Any, ctx: Any, *, is_list: bool) -> None:
        function = self._collection_ui if is_list else self._ui
        if function is not None:
            builder.ui_blocks(block for block in function(data, ctx) if block is not None)

    def _add_embeds(self, builder: ResponseBuilder, data: Any, ctx: Any, *, is_list: bool) -> None:
        # As the reference: each child runs on every item's value (a missing or
        # None value adds nothing); after the first item, only blocks not yet
        # emitted are added, and never a UI block (one item's UI is enough).
        if not self._embeds:
            return
        emitted: set[str] = set()
        for index, item in enumerate(data if is_list else [data]):
            if not isinstance(item, dict | Mapping):  # dict first: no ABC check
                continue
            for key, child in self._embeds.items():
                value = item.get(key)
                if value is None:
                    continue
                for text in after_data(child._make(value, ctx, None, sealed=False)):
                    if index and (text in emitted or text.startswith(UI.opening)):
                        continue
                    emitted.add(text)
                    builder.raw_block(text)

    def _rule_list(self, data: Any, ctx: Any, *, is_list: bool) -> list[str]:
        # Auto rules go with the item rules: before static ones, and inside dynamic
        # ones, which (like the reference's) do not run for an empty collection.
        rules: list[str] = []
        if callable(self._rules):
            item = (data[0] if data else None) if is_list else data
            if item is not None:
                rules.extend(self._auto_rules)
                rules.extend(_present(self._rules(item, ctx)))
        else:
            rules.extend(self._auto_rules)
            rules.extend(self._rules)
        if is_list:
            if callable(self._collection_rules):
                rules.extend(_present(self._collection_rules(data, ctx)))
            else:
                rules.extend(self._collection_rules)
        return rules

    def _suggestions(self, data: Any, ctx: Any, *, is_list: bool) -> list[Suggestion]:
        # A collection uses its collection suggestions, else the item suggestions
        # of its first item (as the reference does); an empty one suggests nothing.
        if is_list and not data:
            return []
        if is_list and self._collection_suggest is not None:
            found = self._collection_suggest(data, ctx)
        elif self._suggest is not None:
            found = self._suggest(data[0] if is_list else data, ctx)
        else:
            return []
        return [Suggestion.of(item) for item in found if item is not None]

    def __repr__(self) -> str:
        schema = self.schema.__qualname__ if self.schema is not None else None
        return f"Presenter({self.name!r}, schema={schema})"


def _present(items: Iterable[str | None]) -> list[str]:
    return [item for item in items if item is not None]


def _static(rules: Sequence[str], what: str) -> tuple[str, ...]:
    if isinstance(rules, str):
        msg = f"{what} takes a list of str (or a function), not one str"
        raise TypeError(msg)
    for rule in rules:
        item: object = rule
        if not isinstance(item, str):
            msg = f"{what} must be str, got {type(rule).__qualname__}: {rule!r:.80}"
            raise TypeError(msg)
    return tuple(rules)


def _auto_rules(schema: type[BaseModel] | None) -> tuple[str, ...]:
    if schema is None:
        return ()
    return tuple(
        f"{name}: {info.description}"
        for name, info in schema.model_fields.items()
        if info.description and not info.exclude
    )
