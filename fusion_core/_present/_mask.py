"""Masks: a pydantic model turned into a fast validate-and-drop function.

A Presenter's schema is a pydantic model, but validating rows into model
instances and dumping them again costs about 14x the JSON encoding of the
same rows. A :class:`Mask` derives, once per model, a pydantic-core
*typed-dict* schema from the model's own core schema: the same field types,
constraints, defaults, aliases and config, with every nested model mapped the
same way. Validating into plain dicts costs a fraction of that and gives what
the declared schema writes (``TypeAdapter(model).dump_python(validated, mode="json")``):

* undeclared keys are dropped (``extra="allow"`` keeps them after the fields,
  but never a key spelled like a declared field: ``fusion_core._present._extras``;
  ``extra="forbid"`` rejects them), output keys follow the schema's order;
* fields with ``Field(exclude=True)`` are validated like any field (so a key
  of that name can never come back as an ``extra="allow"`` field) and then
  dropped from the result;
* a field whose default is ``pydantic.MISSING`` is omitted when absent
  (the equivalent of an optional key in JSON Schema); other defaults are filled;
* output keys are what ``model_dump()`` writes: field names, or serialization
  aliases under ``serialize_by_alias`` (``_id`` for a field ``id_``); input keys
  are the field's validation alias and/or its name, as the model's config allows;
* values come out in their JSON form (``datetime`` as an ISO string, ``Enum``
  as its value, ...): when the schema holds types whose Python value is not
  already JSON, the derived schema's serializer converts them in one pass;
* ``set`` and ``frozenset`` fields are written *sorted*, as ``to_json`` sorts
  a set (``model_dump`` writes them in hash order, which changes from process
  to process): both paths' serializers sort every set node of the schema,
  nested ones included. A set your own serializer returns is written in its
  iteration order.

The derivation is an *allow-list*: it walks the whole core schema (fields,
their types, nested models, definitions and references, unions, lists and
dicts of models) and accepts only node types it mirrors exactly. Anything
else — a serializer anywhere (``PlainSerializer``, ``WrapSerializer``, a type
that serializes itself, ``model_serializer``), validator functions, computed
fields, dataclasses, custom types, ``exclude_if``, serialization by alias,
custom ``__init__``, root models, ``ser_json_*`` settings, ``extra="allow"``
with aliases or ``from_attributes`` — sends the model to the *model path*
(``fusion_core._present._model_path``): real model validation and the
declared model's serializer, which writes a subclass instance as the
declared class (correct, and slower).
``Mask.fast`` says which path a model gets, ``Mask.reason`` why, and
``Mask.float_free`` whether what it gives can hold no float (its JSON is then
written without the scan for float tokens). A Mask is
built once per Presenter, its validators and serializers compiled then (the
model path's ``TypeAdapter`` on first use); none is ever rebuilt.

The fast path is only ever an optimization of the model path: data it
rejects (a model instance, an ORM object read ``from_attributes``, a value
of the wrong type) goes through the model path, whose result or error is the
answer. ``tests/properties/test_mask_properties.py`` checks on generated
models that both paths give the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, Literal, final

from pydantic import BaseModel, PydanticUserError, ValidationError
from pydantic_core import CoreSchema, SchemaSerializer, SchemaValidator
from pydantic_core import core_schema as cs

from fusion_core._present._model_path import model_path, own_dump
from fusion_core._present._pydantic_core_internals import (
    CHILD_KEYS,
    DECORATORS,
    MODEL_FIELD_KEYS,
    core_schema_of,
    schema_nodes,
)
from fusion_core._present._sets import sorting_sets

__all__ = ["Mask"]

# Leaf types whose validated Python value already is its JSON form (to_json
# writes them exactly as model_dump(mode="json") would: inf and NaN as null).
_JSON_NATIVE: Final = frozenset({"str", "int", "float", "bool", "none"})
# Leaf types whose value the derived schema's serializer turns into JSON, the
# way the model's serializer would (``any`` by inference, like the model).
_CONVERTED: Final = frozenset(
    {"date", "datetime", "time", "timedelta", "decimal", "uuid", "enum", "bytes", "url",
     "multi-host-url", "complex", "any"}
)  # fmt: skip
# Containers the walk descends into; every other node type takes the model path
# (the node types, child keys, field keys and decorators it knows of are
# pydantic-core's: fusion_core._present._pydantic_core_internals).
_CONTAINERS: Final = frozenset(
    {"list", "dict", "set", "frozenset", "tuple", "nullable", "default", "union",
     "tagged-union", "definitions", "definition-ref", "model"}
)  # fmt: skip


class _Unsupported(Exception):  # noqa: N818 - internal control flow, never escapes
    """The model has behaviour a derived schema cannot mirror."""


class _Deriver:
    """Rewrites a model's core schema into an equivalent typed-dict schema."""

    def __init__(self, *, for_serializer: bool = False) -> None:
        self.json_native = True
        # A float schema anywhere: the written JSON may need JavaScript's float forms.
        self.floats = False
        # The serializer's schema leaves hidden fields out: the validated
        # dicts no longer hold them.
        self.for_serializer = for_serializer
        # Hidden fields of the root model: dropped by the Mask in one Python
        # loop over the rows, cheaper than an after-validator call per row.
        self.root_hidden: tuple[tuple[str, bool], ...] = ()  # (name, always present)

    def convert_root(self, schema: Any) -> Any:
        """Convert a model's own core schema (its root model node handled by the Mask)."""
        if schema.get("type") == "model":
            return self._model(schema, root=True)
        return self.convert(schema)

    def convert(self, schema: Any) -> Any:
        kind = schema.get("type")
        if "serialization" in schema:
            raise _Unsupported(f"a serializer on a {kind} schema")
        if kind in _JSON_NATIVE:
            self.floats = self.floats or kind == "float"
            return schema
        if kind == "literal":
            self.json_native = self.json_native and all(
                value is None or type(value) in {str, int, bool} for value in schema["expected"]
            )
            return schema
        if kind in _CONVERTED:
            self.json_native = False
            return schema
        if kind not in _CONTAINERS:
            raise _Unsupported(f"a {kind} schema")
        if kind == "model":
            return self._model(schema)
        if kind in {"set", "frozenset", "tuple", "union", "tagged-union"}:
            # to_json sorts sets; a tuple validates to a tuple where model_dump
            # writes a list (the data a handler or test reads must be the same on
            # every transport); union members keep their own types: the
            # serializer writes them as the model would.
            self.json_native = self.json_native and kind not in {"set", "frozenset", "tuple"}
        out = dict(schema)
        for key in CHILD_KEYS:
            child = out.get(key)
            if isinstance(child, dict):
                out[key] = self.convert(child)
        if kind == "definitions":
            out["definitions"] = [self.convert(item) for item in schema["definitions"]]
        elif kind == "union":
            if any(_holds_model(c) for c in schema["choices"]):
                # Smart-mode unions of models pick members by rules of their own,
                # and a serializer can confuse members: the model path decides.
                raise _Unsupported("a union of models")
            out["choices"] = [
                (self.convert(c[0]), c[1]) if isinstance(c, tuple) else self.convert(c)
                for c in schema["choices"]
            ]
        elif kind == "tagged-union":
            out["choices"] = {tag: self.convert(c) for tag, c in schema["choices"].items()}
        elif kind == "tuple":
            out["items_schema"] = [self.convert(item) for item in schema["items_schema"]]
        return out

    def _model(self, schema: Any, *, root: bool = False) -> Any:
        cls = schema["cls"]
        name = cls.__qualname__
        decorators = cls.__pydantic_decorators__
        if schema.get("custom_init") or schema.get("root_model") or schema.get("post_init"):
            raise _Unsupported(f"{name} has a custom __init__, a root or a post-init hook")
        if any(getattr(decorators, attr) for attr in DECORATORS):
            raise _Unsupported(f"{name} has validators, serializers or computed fields")
        inner = schema["schema"]
        if inner["type"] != "model-fields" or inner.get("computed_fields"):
            raise _Unsupported(f"{name} is not a plain model")
        config = dict(schema.get("config") or {})
        if config.get("serialize_by_alias"):
            raise _Unsupported(f"{name} serializes by alias")
        # ser_json_timedelta, ser_json_bytes, ...: a typed dict's config does not
        # reach its fields' serializers (found by the mutation check, issue 11).
        if settings := sorted(key for key in config if key.startswith("ser_json_")):
            raise _Unsupported(f"{name} sets {', '.join(settings)}")
        extra: Literal["allow", "forbid", "ignore"] = (
            config.pop("extra_fields_behavior", None) or inner.get("extra_behavior") or "ignore"
        )
        if extra == "allow" and any(
            "validation_alias" in f or "serialization_alias" in f for f in inner["fields"].values()
        ):
            # A field's other spellings are extras to a typed dict; the model
            # path drops them (fusion_core._present._extras).
            raise _Unsupported(f"{name} allows extra keys and has aliases")
        if extra == "allow" and config.get("from_attributes"):
            # Read by attributes, an instance's extras would be lost; the model
            # path writes them as the declared schema does.
            raise _Unsupported(f"{name} allows extra keys and reads attributes")
        fields: dict[str, Any] = {}
        hidden: list[tuple[str, bool]] = []
        for field_name, field in inner["fields"].items():
            if not MODEL_FIELD_KEYS.issuperset(field):
                unknown = sorted(set(field) - MODEL_FIELD_KEYS)
                raise _Unsupported(f"{name}.{field_name} has {unknown}")
            field_schema, required = self._field_schema(field["schema"])
            exclude = bool(field.get("serialization_exclude"))
            if exclude:
                if self.for_serializer:
                    continue
                # Present after validation unless its default is MISSING.
                hidden.append((field_name, required or field_schema["type"] == "default"))
            fields[field_name] = cs.typed_dict_field(
                field_schema,
                required=required,
                validation_alias=field.get("validation_alias"),
                serialization_exclude=exclude or None,
            )
        extras_schema = inner.get("extras_schema")
        if extra == "allow":
            # Extra values are serialized like the model does: by their schema,
            # or by inference without one.
            self.json_native = False
            if extras_schema is not None:
                extras_schema = self.convert(extras_schema)
        typed: Any = cs.typed_dict_schema(
            fields,
            extra_behavior=extra,
            config=cs.CoreConfig(**config),  # type: ignore[typeddict-item]
            extras_schema=extras_schema,
            # A root model node is referenced by nothing (recursion makes the root
            # a definitions schema): no ref, which validates a little faster.
            ref=None if hidden or root else schema.get("ref"),
        )
        if hidden and root:
            self.root_hidden = tuple(hidden)
        elif hidden:
            # Validated like the model validates them, then dropped: a hidden
            # field is never an "extra" key and never leaves the mask.
            typed = cs.no_info_after_validator_function(
                _dropper(tuple(name for name, _required in hidden)), typed, ref=schema.get("ref")
            )
        return typed

    def _field_schema(self, schema: Any) -> tuple[Any, bool]:
        """The field's converted schema and whether the key is required."""
        if schema["type"] != "default":
            return self.convert(schema), True
        if "serialization" in schema:
            raise _Unsupported("a serializer on a default")
        if schema.get("default") is _missing_sentinel():
            # Omitted when absent: an optional key of the typed dict.
            inner = schema["schema"]
            if inner["type"] == "missing-sentinel":
                inner = inner["schema"]
            return self.convert(inner), False
        return self.convert(schema), False


def _holds_model(schema: Any) -> bool:
    """Whether a (possibly nested) schema holds a model or a reference to one."""
    return any(
        node.get("type") in {"model", "definition-ref", "typed-dict", "dataclass"}
        for node in schema_nodes(schema)
    )


def _dropper(keys: tuple[str, ...]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """An after-validator that removes the hidden ``keys`` from a validated dict."""

    def drop(value: dict[str, Any]) -> dict[str, Any]:
        for key in keys:
            value.pop(key, None)
        return value

    return drop


def _root_dropper(
    hidden: tuple[tuple[str, bool], ...],
) -> Callable[[Iterable[dict[str, Any]]], None] | None:
    """A loop removing the root model's hidden fields from validated rows."""
    if not hidden:
        return None
    if len(hidden) == 1 and hidden[0][1]:
        only = hidden[0][0]

        def drop_one(items: Iterable[dict[str, Any]]) -> None:
            for item in items:  # always there after validation: del is the cheapest
                del item[only]

        return drop_one

    def drop(items: Iterable[dict[str, Any]]) -> None:
        for item in items:
            for key, present in hidden:
                if present:
                    del item[key]
                else:
                    item.pop(key, None)

    return drop


def _missing_sentinel() -> Any:
    from pydantic import MISSING  # noqa: PLC0415 - one import, kept next to its one use

    return MISSING


@final
class Mask:
    """Validate data against a pydantic model and keep only what it declares.

    ``one(value)`` masks a single object, ``many(values)`` a list of them.
    Both raise ``pydantic.ValidationError`` when the data does not fit (the
    model's own error). ``fast`` says whether the derived schema is used,
    ``reason`` why not; ``float_free`` that the schema holds no float (nor any
    value whose JSON form could be one), so neither path gives a float.
    """

    __slots__ = (
        "_drop",
        "_dump_many",
        "_dump_one",
        "_many",
        "_one",
        "_slow_many",
        "_slow_one",
        "fast",
        "float_free",
        "model",
        "reason",
        "root_keys",
    )

    def __init__(self, model: type[BaseModel]) -> None:
        candidate: object = model
        if not (isinstance(candidate, type) and issubclass(candidate, BaseModel)):
            msg = f"a Presenter schema must be a pydantic BaseModel subclass, got {model!r}"
            raise TypeError(msg)
        if not model.__pydantic_complete__:
            # A forward reference not yet resolvable when the model was defined:
            # try once more now, and say clearly what is missing if it fails.
            try:
                model.model_rebuild()
            except (PydanticUserError, NameError) as exc:
                reason = str(exc).splitlines()[0]
                msg = (
                    f"the Presenter schema {model.__name__} is not fully defined ({reason}); "
                    f"define the models it refers to, then call {model.__name__}.model_rebuild()"
                )
                raise TypeError(msg) from exc
        self.model = model
        # The data block's keys, as model_dump() writes them (aliases under
        # serialize_by_alias): what _select offers and picks.
        by_alias = bool(model.model_config.get("serialize_by_alias"))
        self.root_keys: tuple[str, ...] = tuple(
            (info.serialization_alias or info.alias or name) if by_alias else name
            for name, info in model.model_fields.items()
            if not info.exclude
        )
        self._slow_one, self._slow_many = model_path(model)
        self._dump_one: Callable[[Any], Any] | None = None
        self._dump_many: Callable[[Any], Any] | None = None
        self._one: Callable[[Any], Any] | None = None
        self._many: Callable[[Any], Any] | None = None
        self.fast = False
        self.float_free = False
        self.reason: str | None = None
        self._drop: Callable[[Iterable[dict[str, Any]]], None] | None = None
        deriver = _Deriver()
        try:
            if own_dump(model):
                raise _Unsupported(f"{model.__qualname__} overrides model_dump or its schema")
            item_schema: CoreSchema = deriver.convert_root(core_schema_of(model))
            many_schema = cs.list_schema(item_schema)
            one_validator, many_validator = (
                SchemaValidator(item_schema),
                SchemaValidator(many_schema),
            )
        except _Unsupported as exc:
            self.reason = str(exc)
            return
        self.fast = True
        # Only str, int, bool, None, lists and dicts come out (on either path).
        self.float_free = deriver.json_native and not deriver.floats
        self._drop = _root_dropper(deriver.root_hidden)
        self._one, self._many = one_validator.validate_python, many_validator.validate_python
        if not deriver.json_native:
            written = _Deriver(for_serializer=True).convert(core_schema_of(model))
            written = sorting_sets(written)
            one_ser = SchemaSerializer(written)
            many_ser = SchemaSerializer(cs.list_schema(written))
            self._dump_one = lambda value: one_ser.to_python(value, mode="json")
            self._dump_many = lambda value: many_ser.to_python(value, mode="json")

    def one(self, value: Any) -> dict[str, Any]:
        """Mask one object (a mapping, a model instance, an object read by attributes)."""
        if self._one is None:
            return self._slow_one(value)  # type: ignore[no-any-return]
        try:
            result = self._one(value)
        except ValidationError:
            return self._slow_one(value)  # type: ignore[no-any-return]
        if self._drop is not None:
            self._drop((result,))
        return self._dump_one(result) if self._dump_one is not None else result  # type: ignore[no-any-return]

    def many(self, values: Sequence[Any]) -> list[dict[str, Any]]:
        """Mask a list of objects in one validator call."""
        if self._many is None:
            return self._slow_many(values)  # type: ignore[no-any-return]
        try:
            result = self._many(values)
        except ValidationError:
            return self._slow_many(values)  # type: ignore[no-any-return]
        if self._drop is not None:
            self._drop(result)
        return self._dump_many(result) if self._dump_many is not None else result  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"Mask({self.model.__qualname__}, fast={self.fast})"
