"""Extra keys a Presenter writes: never a spelling of a declared field.

Under ``extra="allow"`` pydantic keeps every input key it did not read as an
extra, and ``model_dump`` writes the extras after the fields. A field read
under one spelling leaves its other spellings behind as extras: with
``Field(alias="sec", exclude=True)``, input holding ``sec`` *and* ``secret``
validates ``sec`` into the hidden field and keeps ``secret`` as an extra,
which is written — the hidden field's name, and whatever value the data had
under it. An extra named like a written field even replaces that field's
value (the dump is a dict: the extra comes last).

A Presenter's rule is stricter than ``model_dump``'s: *an extra key is a key
the schema does not declare under any spelling*. A field's spellings are its
name, its ``alias``, its ``serialization_alias`` and every key its
``validation_alias`` can read (a str, each choice of ``AliasChoices``, the
first key of each ``AliasPath``), whichever config (``alias_generator``,
``validate_by_name``, ``validate_by_alias``, ``serialize_by_alias``) made
them; a computed field's are its name and alias. Extras so spelled are
dropped before the dump, at every depth: from the model instances
validation made and from the instances the data held (copied first: the
caller's objects are never changed).

The spellings are those of the instance's class and all its model bases
(:func:`spellings`): a subclass instance written as its declared base never
writes an extra named like one of the subclass's fields either.

A ``TypedDict`` with ``extra="allow"`` is a plain dict once validated: its
extras spelled like one of its fields' aliases are found by walking the
validated value along the core schema (:func:`drop_typed_dict_extras`); a
typed dict keeps a field under its name, so only the aliases can be extras.

A model that revalidates instances (``revalidate_instances="always"`` or
``"subclass-instances"``) reads a subclass instance's whole ``__dict__``:
under ``extra="allow"`` the subclass's fields would become extras. Such
instances are first cut down to the declared class (:func:`as_declared`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator
from typing import Any, Final

from pydantic import AliasChoices, AliasPath, BaseModel

from fusion_core._present._pydantic_core_internals import schema_nodes

__all__ = [
    "allows_extras",
    "as_declared",
    "cut_to",
    "drop_spelled_extras",
    "drop_typed_dict_extras",
    "open_typed_dicts",
    "revalidated_with_extras",
    "spellings",
]

# Deeper values are left as they are (the walk is recursive).
_MAX_DEPTH: Final = 200
_SPELLINGS: dict[type[BaseModel], frozenset[str]] = {}


def spellings(cls: type[BaseModel]) -> frozenset[str]:
    """Every key under which a field of ``cls`` (or of a model base) is read or written.

    Computed fields are fields here too: an extra named like one (or its
    alias) would be written next to it, or replace it.
    """
    found = _SPELLINGS.get(cls)
    if found is None:
        names: set[str] = set()
        for klass in cls.__mro__:
            if isinstance(klass, type) and issubclass(klass, BaseModel) and klass is not BaseModel:
                for name, info in klass.model_fields.items():
                    names.add(name)
                    names.update(_alias_keys(info.alias))
                    names.update(_alias_keys(info.serialization_alias))
                    names.update(_alias_keys(info.validation_alias))
                for name, computed in klass.model_computed_fields.items():
                    names.add(name)
                    names.update(_alias_keys(computed.alias))
        found = _SPELLINGS[cls] = frozenset(names)
    return found


def _alias_keys(alias: Any) -> Iterator[str]:
    """The top-level keys an alias reads: a str, each choice, each path's first key."""
    if isinstance(alias, str):
        yield alias
    elif isinstance(alias, AliasPath):
        first = alias.path[0] if alias.path else None
        if isinstance(first, str):
            yield first
    elif isinstance(alias, AliasChoices):
        for choice in alias.choices:
            yield from _alias_keys(choice)


def allows_extras(schema: Any) -> bool:
    """Whether a core schema holds a model node whose dump writes extra keys."""
    for node in schema_nodes(schema):
        if node.get("type") == "model":
            config = node.get("config") or {}
            inner = node.get("schema") or {}
            if (config.get("extra_fields_behavior") or inner.get("extra_behavior")) == "allow":
                return True
    return False


def revalidated_with_extras(schema: Any) -> tuple[type[BaseModel], ...]:
    """The models of a core schema that revalidate instances and keep extras.

    Revalidating a subclass instance reads its whole ``__dict__``: under
    ``extra="allow"`` the subclass's own fields (``password_hash``) would
    become extras of the declared model, and be written.
    """
    found: list[type[BaseModel]] = []
    for node in schema_nodes(schema):
        config = node.get("config") or {}
        revalidates = node.get("revalidate_instances") or config.get("revalidate_instances")
        if node.get("type") == "model" and revalidates not in {None, "never"}:
            inner = node.get("schema") or {}
            if "allow" in (config.get("extra_fields_behavior"), inner.get("extra_behavior")):
                found.append(node["cls"])
    return tuple(dict.fromkeys(found))


def as_declared(value: Any, classes: tuple[type[BaseModel], ...], depth: int = 0) -> Any:
    """``value`` with each subclass instance of one of ``classes`` cut down to that class.

    An instance of ``Sub(C)`` becomes an instance of ``C`` holding only
    ``C``'s fields and the extras not spelled like a field of ``Sub``, so
    that revalidating it (``revalidate_instances``) cannot turn ``Sub``'s
    fields into extras. Containers are walked as :func:`drop_spelled_extras`
    walks them; nothing of the caller's is changed.
    """
    if depth > _MAX_DEPTH or isinstance(value, str | int | float | bool | bytes | None):
        return value
    if isinstance(value, BaseModel):
        fields = {
            name: as_declared(item, classes, depth + 1) for name, item in value.__dict__.items()
        }
        bases = [c for c in classes if isinstance(value, c) and type(value) is not c]
        if not bases:
            if all(fields[name] is item for name, item in value.__dict__.items()):
                return value
            clone = copy.copy(value)
            clone.__dict__.update(fields)
            return clone
        declared = min(bases, key=lambda c: -len(c.__mro__))  # the closest base
        return cut_to(value, declared, fields)
    if isinstance(value, dict):
        items = {key: as_declared(item, classes, depth + 1) for key, item in value.items()}
        return items if any(items[k] is not v for k, v in value.items()) else value
    if isinstance(value, list | tuple):
        members = [as_declared(item, classes, depth + 1) for item in value]
        if all(new is old for new, old in zip(members, value, strict=True)):
            return value
        if isinstance(value, tuple) and hasattr(value, "_make"):
            return value._make(members)
        return tuple(members) if isinstance(value, tuple) else members
    return value


def cut_to(
    value: BaseModel, declared: type[BaseModel], fields: dict[str, Any] | None = None
) -> Any:
    """An instance of ``declared`` holding what ``value`` (an instance of a subclass) has of it.

    Its fields are ``value``'s values of ``declared``'s fields (``fields``
    when given: already walked), its extras those not spelled like a field
    of ``value``'s own class. Nothing is validated: the values are
    ``value``'s, and the declared serializer writes them.
    """
    values = value.__dict__ if fields is None else fields
    cut = declared.model_construct(
        _fields_set=value.model_fields_set & set(declared.model_fields),
        **{name: values[name] for name in declared.model_fields if name in values},
    )
    names = spellings(type(value))
    extra = {k: v for k, v in (value.__pydantic_extra__ or {}).items() if k not in names}
    object.__setattr__(
        cut, "__pydantic_extra__", extra if cut.__pydantic_extra__ is not None else None
    )
    return cut


def drop_spelled_extras(value: Any, depth: int = 0) -> Any:
    """``value`` with every model instance's extras spelled like a field dropped.

    Returns ``value`` itself when nothing changes; otherwise new containers
    and shallow copies of the instances that change (never the caller's).
    """
    if depth > _MAX_DEPTH or isinstance(value, str | int | float | bool | bytes | None):
        return value
    if isinstance(value, BaseModel):
        return _model(value, depth)
    if isinstance(value, dict):
        items = {key: drop_spelled_extras(item, depth + 1) for key, item in value.items()}
        changed = any(items[key] is not item for key, item in value.items())
        return items if changed else value  # a dict subclass is written as a dict
    if isinstance(value, list | tuple | set | frozenset):
        members = [drop_spelled_extras(item, depth + 1) for item in value]
        if all(new is old for new, old in zip(members, value, strict=True)):
            return value
        if isinstance(value, tuple) and hasattr(value, "_make"):
            return value._make(members)  # a named tuple stays one
        kind = next(k for k in (list, tuple, frozenset, set) if isinstance(value, k))
        return kind(members)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for field in dataclasses.fields(value):
            old = getattr(value, field.name, None)
            new = drop_spelled_extras(old, depth + 1)
            if new is not old:
                changes[field.name] = new
        if not changes:
            return value
        clone = copy.copy(value)
        for name, new in changes.items():
            object.__setattr__(clone, name, new)
        return clone
    return value


def _model(value: BaseModel, depth: int) -> BaseModel:
    fields = value.__dict__
    changed = {name: new for name, item in fields.items()
               if (new := drop_spelled_extras(item, depth + 1)) is not item}  # fmt: skip
    extra = value.__pydantic_extra__
    kept = extra
    if extra:
        names = spellings(type(value))
        cleaned = {key: drop_spelled_extras(item, depth + 1)
                   for key, item in extra.items() if key not in names}  # fmt: skip
        if len(cleaned) != len(extra) or any(cleaned[key] is not extra[key] for key in cleaned):
            kept = cleaned
    if not changed and kept is extra:
        return value
    clone = copy.copy(value)
    clone.__dict__.update(changed)
    if kept is not extra:
        object.__setattr__(clone, "__pydantic_extra__", kept)
    return clone


# --- Typed dicts: their extras, found by the schema (a typed dict is a plain dict) ---

_INNER: Final = frozenset(
    {"nullable", "default", "function-after", "function-before", "function-wrap", "json",
     "custom-error", "missing-sentinel", "lax-or-strict"}
)  # fmt: skip


def open_typed_dicts(schema: Any) -> bool:
    """Whether a core schema holds a typed dict that keeps extras and has aliased fields."""
    return any(
        node.get("type") == "typed-dict" and _typed_dict_spellings(node)
        for node in schema_nodes(schema)
    )


def _typed_dict_spellings(node: dict[str, Any]) -> frozenset[str]:
    """The keys of an open typed dict's fields other than their names (empty when closed)."""
    config = node.get("config") or {}
    if "allow" not in (node.get("extra_behavior"), config.get("extra_fields_behavior")):
        return frozenset()
    keys: set[str] = set()
    for field in (node.get("fields") or {}).values():
        keys.update(_core_alias_keys(field.get("validation_alias")))
        keys.update(_core_alias_keys(field.get("serialization_alias")))
    return frozenset(keys - set(node.get("fields") or {}))


def _core_alias_keys(alias: Any) -> Iterator[str]:
    """The top-level keys of a core schema alias: a str, a path, or a list of paths."""
    if isinstance(alias, str):
        yield alias
    elif isinstance(alias, list) and alias:
        paths = alias if isinstance(alias[0], list) else [alias]
        for path in paths:
            if path and isinstance(path[0], str):
                yield path[0]


def drop_typed_dict_extras(value: Any, schema: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """``value`` (validated by ``schema``) with its open typed dicts' spelled extras dropped.

    Walked along the schema: models (their fields), typed dicts, lists, sets,
    tuples, dict values, union members (each member's rule applies: more is
    dropped, never less). A typed dict keeps a field under its name, so only
    its fields' other spellings (aliases) can be extras. Copies on change.
    """
    if depth > _MAX_DEPTH or not isinstance(schema, dict):
        return value
    kind = schema.get("type")
    if kind == "definitions":
        defs.update({d["ref"]: d for d in schema["definitions"] if "ref" in d})
        return drop_typed_dict_extras(value, schema["schema"], defs, depth + 1)
    if "ref" in schema:
        defs.setdefault(schema["ref"], schema)
    if kind == "definition-ref":
        target = defs.get(schema["schema_ref"])
        return value if target is None else drop_typed_dict_extras(value, target, defs, depth + 1)
    if kind in _INNER:
        inner = schema.get("schema") or schema.get("lax_schema")
        return drop_typed_dict_extras(value, inner, defs, depth + 1)
    if kind in {"union", "tagged-union"}:
        choices = schema["choices"]
        for choice in choices.values() if isinstance(choices, dict) else choices:
            member = choice[0] if isinstance(choice, tuple) else choice
            value = drop_typed_dict_extras(value, member, defs, depth + 1)
        return value
    if kind == "model" and isinstance(value, BaseModel):
        fields = (schema.get("schema") or {}).get("fields") or {}
        changed = {}
        for name, field in fields.items():
            if name in value.__dict__:
                old = value.__dict__[name]
                new = drop_typed_dict_extras(old, field.get("schema"), defs, depth + 1)
                if new is not old:
                    changed[name] = new
        if not changed:
            return value
        clone = copy.copy(value)
        clone.__dict__.update(changed)
        return clone
    if kind == "typed-dict" and isinstance(value, dict):
        dropped = _typed_dict_spellings(schema)
        fields = schema.get("fields") or {}
        out = {}
        for key, item in value.items():
            if key in dropped:
                continue
            field = fields.get(key)
            out[key] = (
                item
                if field is None
                else drop_typed_dict_extras(item, field["schema"], defs, depth + 1)
            )
        same = len(out) == len(value) and all(out[k] is v for k, v in value.items() if k in out)
        return value if same else out
    if kind in {"list", "set", "frozenset", "tuple"} and isinstance(
        value, list | tuple | set | frozenset
    ):
        items = schema.get("items_schema")
        schemas = items if isinstance(items, list) else None
        members = [
            drop_typed_dict_extras(
                item, (schemas[min(i, len(schemas) - 1)] if schemas else items), defs, depth + 1
            )
            for i, item in enumerate(value)
        ]
        if all(new is old for new, old in zip(members, value, strict=True)):
            return value
        return type(value)(members) if type(value) in {list, tuple, set, frozenset} else members
    if kind == "dict" and isinstance(value, dict):
        values = schema.get("values_schema")
        out = {
            key: drop_typed_dict_extras(item, values, defs, depth + 1)
            for key, item in value.items()
        }
        return out if any(out[k] is not v for k, v in value.items()) else value
    return value
