"""Masks: a pydantic model turned into a fast validate-and-drop function.

A Presenter's schema is a pydantic model, but validating rows into model
instances and dumping them again costs about 14x the JSON encoding of the
same rows. A :class:`Mask` derives, once per model, a pydantic-core
*typed-dict* schema from the model's own core schema: the same field types,
constraints, defaults, aliases and config, with every nested model mapped the
same way. Validating into plain dicts costs a fraction of that and gives what
``model.model_validate(x).model_dump(mode="json")`` gives:

* undeclared keys are dropped (``extra="allow"`` keeps them after the fields,
  ``extra="forbid"`` rejects them), output keys follow the schema's order;
* fields with ``Field(exclude=True)`` are left out of the derived schema, so
  they are neither validated nor returned (they could never be sent anyway);
* a field whose default is ``pydantic.MISSING`` is omitted when absent
  (the equivalent of an optional key in JSON Schema); other defaults are filled;
* output keys are what ``model_dump()`` writes: field names, or serialization
  aliases under ``serialize_by_alias`` (``_id`` for a field ``id_``); input keys
  are the field's validation alias and/or its name, as the model's config allows;
* values come out in their JSON form (``datetime`` as an ISO string, ``Enum``
  as its value, ...): when the schema holds types whose Python value is not
  already JSON, the derived schema's serializer converts them in one pass.

Models whose behaviour lives in Python code — field or model validators,
serializers, computed fields, ``Annotated`` validator functions, custom
``__init__``, root models — cannot be mirrored by a derived schema; for those
the mask falls back to real model validation and ``model_dump(mode="json")``
(correct, and slower). ``Mask.fast`` says which path a model gets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Literal, final

from pydantic import BaseModel, PydanticUserError, TypeAdapter, ValidationError
from pydantic_core import CoreSchema, SchemaSerializer, SchemaValidator
from pydantic_core import core_schema as cs

from ._json import to_plain

__all__ = ["Mask"]

# Leaf types whose validated Python value already is its JSON form (to_json
# writes them exactly as model_dump(mode="json") would).
_JSON_NATIVE: Final = frozenset({"str", "int", "float", "bool", "none", "literal", "any"})
_PASSTHROUGH: Final = frozenset(
    {
        "date", "datetime", "time", "timedelta", "decimal", "uuid", "enum", "bytes",
        "url", "multi-host-url", "complex", "is-instance", "is-subclass", "callable",
        "json", "generator", "invalid",
    }
)  # fmt: skip
_CHILD_KEYS: Final = (
    "schema", "items_schema", "keys_schema", "values_schema", "lax_schema",
    "strict_schema", "json_schema", "python_schema", "extras_schema",
)  # fmt: skip


class _Unsupported(Exception):  # noqa: N818 - internal control flow, never escapes
    """The model has behaviour a derived schema cannot mirror."""


class _Deriver:
    """Rewrites a model's core schema into an equivalent typed-dict schema."""

    def __init__(self) -> None:
        self.json_native = True

    def convert(self, schema: Any) -> Any:
        kind = schema["type"]
        if kind == "model":
            return self._model(schema)
        if kind.startswith("function-") or kind in {"model-fields", "dataclass", "call"}:
            raise _Unsupported(kind)
        if kind in _PASSTHROUGH:
            self.json_native = False
            return schema
        if kind in _JSON_NATIVE or kind == "definition-ref":
            return schema
        if kind in {"set", "frozenset", "tuple", "tagged-union", "union"}:
            # to_json sorts sets and pydantic keeps tuple/union members' types:
            # let the serializer write them.
            self.json_native = self.json_native and kind not in {"set", "frozenset"}
        out = dict(schema)
        for key in _CHILD_KEYS:
            if key in out and isinstance(out[key], dict):
                out[key] = self.convert(out[key])
        if kind == "definitions":
            out["definitions"] = [self.convert(item) for item in schema["definitions"]]
        elif kind == "union":
            out["choices"] = [
                (self.convert(c[0]), c[1]) if isinstance(c, tuple) else self.convert(c)
                for c in schema["choices"]
            ]
        elif kind == "tagged-union":
            out["choices"] = {tag: self.convert(c) for tag, c in schema["choices"].items()}
        elif kind in {"chain"}:
            out["steps"] = [self.convert(step) for step in schema["steps"]]
        elif kind == "tuple":
            out["items_schema"] = [self.convert(item) for item in schema["items_schema"]]
        return out

    def _model(self, schema: Any) -> Any:
        cls = schema["cls"]
        decorators = cls.__pydantic_decorators__
        if (
            schema.get("custom_init")
            or schema.get("root_model")
            or schema.get("post_init")
            or any(
                getattr(decorators, name)
                for name in (
                    "validators",
                    "field_validators",
                    "root_validators",
                    "field_serializers",
                    "model_serializers",
                    "model_validators",
                    "computed_fields",
                )
            )
        ):
            raise _Unsupported(cls.__qualname__)
        inner = schema["schema"]
        if inner["type"] != "model-fields" or inner.get("computed_fields"):
            raise _Unsupported(cls.__qualname__)
        fields: dict[str, Any] = {}
        config = dict(schema.get("config") or {})
        for name, field in inner["fields"].items():
            if field.get("serialization_exclude") or field.get("serialization_exclude_if"):
                continue  # hidden: never validated, never returned
            field_schema = field["schema"]
            required = True
            if field_schema["type"] == "default":
                required = False
                if field_schema.get("default") is _missing_sentinel():
                    field_schema = field_schema["schema"]
                    if field_schema["type"] == "missing-sentinel":
                        field_schema = field_schema["schema"]
            key = output_key(name, field, config)
            fields[key] = cs.typed_dict_field(
                self.convert(field_schema),
                required=required,
                validation_alias=_input_keys(name, key, field, config),
            )
        for rule in ("validate_by_alias", "validate_by_name"):
            config.pop(rule, None)  # spelled out per field by _input_keys
        extra: Literal["allow", "forbid", "ignore"] = (
            config.pop("extra_fields_behavior", None) or "ignore"
        )
        return cs.typed_dict_schema(
            fields,
            extra_behavior=extra,
            config=cs.CoreConfig(**config),  # type: ignore[typeddict-item]
            ref=schema.get("ref"),
            extras_schema=inner.get("extras_schema"),
        )


def output_key(name: str, field: Any, config: Any) -> str:
    """The key ``model_dump()`` writes for a field: its alias under ``serialize_by_alias``."""
    if config.get("serialize_by_alias"):
        return str(field.get("serialization_alias") or name)
    return name


def _input_keys(name: str, key: str, field: Any, config: Any) -> Any:
    """The keys a field is read by, spelled out (the derived config has no by-name rule).

    A typed dict reads a field by its key unless it has a validation alias; a
    field written under its serialization alias (``_id`` for ``id_``) is still
    read by its validation alias when the config allows aliases, and by its
    name when the config allows names, exactly as the model reads it.
    """
    alias = field.get("validation_alias")
    choices: list[Any] = []
    if alias is not None and config.get("validate_by_alias", True):
        if isinstance(alias, str):
            choices.append([alias])
        elif alias and isinstance(alias[0], list):
            choices.extend(alias)
        else:
            choices.append(alias)
    if alias is None or config.get("validate_by_name"):
        choices.append([name])
    return None if choices == [[key]] else choices


def _missing_sentinel() -> Any:
    from pydantic import MISSING  # noqa: PLC0415 - one import, kept next to its one use

    return MISSING


@final
class Mask:
    """Validate data against a pydantic model and keep only what it declares.

    ``one(value)`` masks a single object, ``many(values)`` a list of them.
    Both raise ``pydantic.ValidationError`` when the data does not fit.
    """

    __slots__ = ("_dump_many", "_dump_one", "_many", "_one", "fast", "model", "root_keys")

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
        self._dump_one: Callable[[Any], Any] | None = None
        self._dump_many: Callable[[Any], Any] | None = None
        deriver = _Deriver()
        try:
            item = deriver.convert(model.__pydantic_core_schema__)
        except _Unsupported:
            adapter = TypeAdapter(list[model])  # type: ignore[valid-type]
            self.fast = False
            self._one = lambda value: model.model_validate(value).model_dump(mode="json")
            self._many = lambda values: adapter.dump_python(
                adapter.validate_python(values), mode="json"
            )
            return
        self.fast = True
        item_schema: CoreSchema = item
        many_schema = cs.list_schema(item_schema)
        self._one = SchemaValidator(item_schema).validate_python
        self._many = SchemaValidator(many_schema).validate_python
        if not deriver.json_native:
            one_ser, many_ser = SchemaSerializer(item_schema), SchemaSerializer(many_schema)
            self._dump_one = lambda value: one_ser.to_python(value, mode="json")
            self._dump_many = lambda value: many_ser.to_python(value, mode="json")

    def one(self, value: Any) -> dict[str, Any]:
        """Mask one object (a mapping, a model instance or a dataclass)."""
        result = _retry_plain(self._one, value)
        return self._dump_one(result) if self._dump_one is not None else result  # type: ignore[no-any-return]

    def many(self, values: Sequence[Any]) -> list[dict[str, Any]]:
        """Mask a list of objects in one validator call."""
        result = _retry_plain(self._many, values)
        return self._dump_many(result) if self._dump_many is not None else result  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"Mask({self.model.__qualname__}, fast={self.fast})"


def _retry_plain(validate: Callable[[Any], Any], value: Any) -> Any:
    """Validate; if that fails, retry once on the plain JSON form of the value.

    The derived schema reads mappings; objects such as model instances and
    dataclasses (often a handler's ORM rows) are converted only when needed,
    so plain dict rows pay nothing.
    """
    try:
        return validate(value)
    except ValidationError as first:
        try:
            plain = to_plain(value)
        except (TypeError, ValueError):
            raise first from None
        if plain == value:
            raise
        return validate(plain)
