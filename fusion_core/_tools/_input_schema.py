"""A tool's input schema, in the JSON Schema dialect MCP clients read.

Every action's parameters are merged into one flat object schema, written the
way the reference (zod's ``toJSONSchema``) writes it, because many MCP clients
do not resolve references and read only this shape:

* nested objects are inline (no ``$ref``/``$defs``; a recursive model keeps a
  reference only where it recurses), with ``additionalProperties: false``
  (``{}`` for ``extra="allow"``);
* a one-value ``Literal`` stays an ``enum``;
* a field with a default is optional, as pydantic says; one that says
  ``json_schema_extra={"x-required": True}`` is listed as required (the value
  is always there after validation: what zod's ``.default()`` writes);
* each parameter's description says which actions use it: ``Required for:``
  and ``For:`` lists, ``(always required)`` for common fields every action
  needs.

A parameter declared by several actions must have one type: a type or
nullability conflict is refused when the schema is built (at registration;
``X | None = None`` is Python's optional, not a nullability of its own),
instead of advertising one type and validating another. Differing enums merge
into their union; an enum and a plain string widen to the string.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, final

from pydantic import BaseModel, PydanticUserError, create_model
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

from fusion_core._errors import SchemaConflictError
from fusion_core._tools._definitions import usage_note

__all__ = [
    "PropertyMerge",
    "json_schema",
    "merge_properties",
    "model_schema",
    "non_finite_numbers",
    "params_model",
]

_DEFAULT: Final = "default"
# Keywords whose value is data, not a schema: never rewritten (titles dropped, refs inlined).
_VALUES: Final = frozenset({"default", "examples", "enum", "example"})
REQUIRED: Final = "x-required"  # json_schema_extra key: a defaulted field listed as required


class _ZodDialect(GenerateJsonSchema):
    """Pydantic's generator, with defaulted fields counted as present."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        """A field with a default is always present after validation."""
        inner = field["schema"]
        if field["type"] != "typed-dict-field" and inner["type"] == _DEFAULT:
            extra = field.get("metadata", {}).get("pydantic_js_extra")
            return isinstance(extra, dict) and extra.get(REQUIRED) is True
        return super().field_is_required(field, total)


# What pydantic raises for a field it cannot build or describe: a type or a
# value (default, examples, json_schema_extra) nested past its recursion or
# serialization depth, a value JSON cannot hold, a type without a schema (a
# PydanticUserError, which is a RuntimeError).
_UNBUILDABLE: Final = (PydanticUserError, RecursionError, TypeError, ValueError)


def params_model(name: str, fields: Mapping[str, tuple[Any, Any]], where: str) -> type[BaseModel]:
    """``create_model(name, **fields)``, or a ``TypeError`` naming the field pydantic refused."""
    try:
        return create_model(name, **fields)  # type: ignore[call-overload, no-any-return]
    except _UNBUILDABLE as exc:
        raise _named(exc, where, fields, lambda probe: None) from _cause(exc)


def json_schema(
    model: type[BaseModel], where: str, generator: type[GenerateJsonSchema] = GenerateJsonSchema
) -> dict[str, Any]:
    """``model.model_json_schema()``, or a ``TypeError`` naming the field it fails on.

    Pydantic fails on a field's *value* only when it writes the schema (a
    default nested beyond its depth raises ``RecursionError`` with no place),
    so a tool checks its schemas when it registers them, with this message.
    """
    try:
        return model.model_json_schema(schema_generator=generator)
    except _UNBUILDABLE as exc:
        fields = {name: (info.annotation, info) for name, info in model.model_fields.items()}
        check = lambda probe: probe.model_json_schema(schema_generator=generator)  # noqa: E731
        raise _named(exc, where, fields, check) from _cause(exc)


def _named(
    exc: BaseException,
    where: str,
    fields: Mapping[str, tuple[Any, Any]],
    check: Callable[[type[BaseModel]], object],
) -> TypeError:
    """The error for ``exc``, naming the first field that fails alone (if one does)."""
    for name, field in fields.items():
        try:
            check(create_model("probe", **{name: field}))  # type: ignore[call-overload]
        except _UNBUILDABLE as alone:
            return TypeError(f"{where}: parameter {name!r}: {_reason(alone)}")
    return TypeError(f"{where}: {_reason(exc)}")


def _reason(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, RecursionError) or "Maximum serialization depth" in text:
        return (
            "nested too deeply for pydantic to build or describe (its type, default, "
            "examples or json_schema_extra); flatten it or give it a simpler default"
        )
    first = text.strip().split("\n", 1)[0]
    return f"pydantic cannot describe it: {first[:300]}"


def _cause(exc: BaseException) -> BaseException | None:
    """Chain the original, unless it is a recursion (a thousand frames of noise)."""
    return None if isinstance(exc, RecursionError) else exc


def model_schema(model: type[BaseModel], where: str = "parameters") -> dict[str, Any]:
    """The object schema of a params model, inline and without titles."""
    raw = json_schema(model, where, _ZodDialect)
    definitions = raw.pop("$defs", {})
    schema: dict[str, Any] = _inline(raw, definitions, ())
    return schema


def _inline(node: Any, definitions: dict[str, Any], trail: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, definitions, trail) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in trail:  # recursion: the only place a reference stays
            return node
        target = _inline(definitions[name], definitions, (*trail, name))
        rest = _inline({k: v for k, v in node.items() if k != "$ref"}, definitions, trail)
        return {**target, **rest}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _VALUES:  # a value, not a schema: written as declared (a "title" key too)
            out[key] = value
            continue
        if key == "title" and not isinstance(value, dict):
            continue
        if key == REQUIRED and value is True:
            continue
        if key == "const":
            out["enum"] = [value]
            continue
        if key == "properties":
            out[key] = {name: _inline(prop, definitions, trail) for name, prop in value.items()}
            continue
        out[key] = _inline(value, definitions, trail)
    if out.get("type") == "object" and "properties" in out:
        extra = out.get("additionalProperties")
        out["additionalProperties"] = {} if extra is True else (extra or False)
    return out


def effective_type(node: dict[str, Any]) -> str | None:
    """The JSON type of a property; a nullable's first non-null member."""
    if "type" in node:
        kind = node["type"]
        return "number" if kind == "integer" else str(kind)
    for member in node.get("anyOf", node.get("oneOf", ())):
        if "type" in member and member["type"] != "null":
            return "number" if member["type"] == "integer" else str(member["type"])
    return None


def _nullable(node: dict[str, Any]) -> bool:
    return any(m.get("type") == "null" for m in node.get("anyOf", node.get("oneOf", ())))


def _strictly_nullable(node: dict[str, Any]) -> bool:
    """Nullable as a value, not as Python's optional idiom (``X | None = None``)."""
    return _nullable(node) and not ("default" in node and node["default"] is None)


def compatible(existing: dict[str, Any], incoming: dict[str, Any], name: str, key: str) -> Any:
    """The merged property for a second declaration, or an error saying why not."""
    old, new = effective_type(existing), effective_type(incoming)
    if old is not None and new is not None:
        if old != new:
            msg = (
                f"parameter {name!r} of action {key!r} is a {new}, but an earlier action "
                f"declares it a {old}: actions sharing a parameter must give it one type"
            )
            raise SchemaConflictError(msg, parameter=name, action=key)
        if _strictly_nullable(existing) != _strictly_nullable(incoming):
            msg = (
                f"parameter {name!r} of action {key!r} is nullable in one action and not "
                f"in another: actions sharing a parameter must agree on null"
            )
            raise SchemaConflictError(msg, parameter=name, action=key)
    if ("enum" in existing) != ("enum" in incoming):
        return dict(incoming if "enum" in existing else existing)
    if "enum" in existing and existing["enum"] != incoming["enum"]:
        return {**existing, "enum": list(dict.fromkeys([*existing["enum"], *incoming["enum"]]))}
    return existing


@final
class PropertyMerge:
    """The merge of a common model and the actions so far, grown one action at a time.

    A tool checks each new action against what its earlier actions publish; keeping
    the fold (merged properties, who declares and who requires each) makes that
    check one schema build per action instead of one per action so far (the full
    re-merge was quadratic: about a second for 30 actions). :meth:`add` is the
    fold's step and :meth:`properties` its annotated result, so a merge grown here
    equals :func:`merge_properties` over the same actions, error messages included.
    """

    __slots__ = ("_always", "_common_names", "_declared", "_keys", "_owner", "_props", "common")

    def __init__(self, common: type[BaseModel] | None, tool: str = "") -> None:
        self.common = common
        self._owner = f"tool {tool!r}: " if tool else ""
        self._keys: list[str] = []
        self._props: dict[str, Any] = {}  # name -> merged property, before usage notes
        self._declared: dict[str, tuple[list[str], list[str]]] = {}  # -> (actions, required in)
        self._common_names: frozenset[str] = frozenset()
        self._always: list[str] = []
        if common is not None:
            schema = model_schema(common, f"{self._owner}common parameters")
            required = set(schema.get("required", ()))
            self._props.update(schema.get("properties", {}))
            self._common_names = frozenset(self._props)
            self._always = [name for name in self._props if name in required]
            for name in self._props:
                self._declared[name] = ([], [])

    @classmethod
    def of(
        cls,
        common: type[BaseModel] | None,
        actions: Iterable[tuple[str, type[BaseModel] | None]],
        tool: str = "",
    ) -> PropertyMerge:
        """The merge of ``common`` and ``actions``, in order (raises on the first conflict)."""
        merge = cls(common, tool)
        for key, params in actions:
            merge.add(key, params)
        return merge

    def __len__(self) -> int:
        """How many actions are merged."""
        return len(self._keys)

    def add(self, key: str, params: type[BaseModel] | None) -> None:
        """Merge one action's parameters; on a conflict raise and stay as before."""
        if params is None:
            self._keys.append(key)
            return
        schema = model_schema(params, f"{self._owner}action {key!r}")
        required = set(schema.get("required", ()))
        merged: dict[str, Any] = {}
        for name, prop in schema.get("properties", {}).items():
            existing = self._props.get(name)
            merged[name] = prop if existing is None else compatible(existing, prop, name, key)
        self._keys.append(key)
        self._props.update(merged)
        for name in merged:
            users, required_in = self._declared.setdefault(name, ([], []))
            users.append(key)
            if name in required:
                required_in.append(key)

    def properties(self) -> tuple[dict[str, Any], list[str]]:
        """Every property, annotated with who uses it; the common required names.

        A copy: what a caller does with a definition never reaches the merge.
        """
        keys = self._keys
        properties: dict[str, Any] = {}
        for name, merged in self._props.items():
            users, required_in = self._declared[name]
            if name in self._common_names:  # every action uses a common parameter
                users = [*keys, *users]
                if name in self._always:
                    required_in = [*keys, *required_in]
            always_required = name in self._always and len(users) == len(keys)
            note = usage_note(users, required_in, always=always_required)
            prop = properties[name] = copy.deepcopy(merged)
            described = prop.get("description")
            prop["description"] = f"{described}. {note}" if described else note
        return properties, list(self._always)


def merge_properties(
    common: type[BaseModel] | None,
    actions: Sequence[tuple[str, type[BaseModel] | None]],
    tool: str = "",
) -> tuple[dict[str, Any], list[str]]:
    """Properties of every action, annotated with who uses them; common required names.

    ``tool`` names the tool in the error for a schema pydantic cannot write.
    """
    return PropertyMerge.of(common, actions, tool).properties()


def non_finite_numbers(
    schema: Mapping[str, Any], value: Any, path: str = ""
) -> list[tuple[str, float]]:
    """``(path, value)`` of each ``NaN`` / ``±Infinity`` where ``schema`` declares a number.

    A number parameter is finite, as the reference's validator (zod) has it;
    pydantic's float accepts ``inf`` and ``nan`` unless each model says
    otherwise, and JSON readers parse ``Infinity`` and ``NaN``. Read against the
    tool's input schema, so nested objects, arrays and nullable numbers are
    covered alike; a value under ``any`` (no type) is accepted, as zod accepts it.
    """
    if isinstance(value, float):
        return [(path, value)] if not math.isfinite(value) and _declares_number(schema) else []
    if isinstance(value, dict):
        found: list[tuple[str, float]] = []
        properties = _member(schema, "object").get("properties", {})
        extra = _member(schema, "object").get("additionalProperties")
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else {})
            found += non_finite_numbers(sub, item, f"{path}.{key}" if path else str(key))
        return found
    if isinstance(value, list):
        items = _member(schema, "array").get("items", {})
        items = items if isinstance(items, dict) else {}
        return [
            bad
            for index, item in enumerate(value)
            for bad in non_finite_numbers(items, item, f"{path}.{index}" if path else str(index))
        ]
    return []


def _members(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The schema itself, or the members of its ``anyOf`` / ``oneOf`` (nullable types)."""
    members = schema.get("anyOf", schema.get("oneOf"))
    return [m for m in members if isinstance(m, dict)] if isinstance(members, list) else [schema]


def _declares_number(schema: Mapping[str, Any]) -> bool:
    return any(m.get("type") in ("number", "integer") for m in _members(schema))


def _member(schema: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    """The member of a union that describes values of JSON type ``kind`` (else ``{}``)."""
    return next((m for m in _members(schema) if m.get("type") == kind), {})
