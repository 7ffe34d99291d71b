"""Set order: a Presenter writes ``set`` and ``frozenset`` fields sorted.

``model_dump(mode="json")`` writes a set's members in the set's iteration
order, which ``PYTHONHASHSEED`` decides: the same data would give other bytes
in another process. ``to_json`` sorts a set's members by their JSON values
(the one total order of ``fusion_core._present._order``), and a mask writes every set
the same way: the sets the schema declares, nested ones included (in lists,
dict values, tuples, nested models, union members), and the sets in values
pydantic writes by inference (fields typed ``Any``, the extra keys of
``extra="allow"``, a model's or a container's members inside those):

* the fast path (:class:`~fusion_core._present._mask.Mask` with a derived schema)
  serializes with a schema it builds itself: :func:`sorting_sets` gives each
  set node a wrap serializer that writes the members with the set's own item
  schema, then sorts what it wrote, and each ``any`` node (and each
  ``extra="allow"`` node without a schema for its extras) one that sorts the
  lists inference wrote from sets;
* the model path cannot change the model's serializer (pydantic-core reuses a
  model class's own ``__pydantic_serializer__`` for every model node), so
  :func:`set_plan` reads once, from the model's core schema, where its sets
  are (and its ``Any`` values and extras), and :func:`resort` sorts each list
  of ``model_dump(mode="json")`` written from one of those sets.

Either way the list was written by iterating the very set the model holds:
member *i* is item *i*, which says which written items to look into for
nested sets before the list is sorted by what was written.

A node with a serializer of its own (``PlainSerializer``, ``model_serializer``,
a type that serializes itself) is the user's: what it returns is written as it
comes, a set it returns in its iteration order.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from datetime import date, time, timedelta
from typing import Any, Final

import orjson
import pydantic_core
from pydantic import BaseModel
from pydantic_core import PydanticSerializationUnexpectedValue
from pydantic_core import core_schema as cs

from fusion_core._present._order import sorted_plain
from fusion_core._present._pydantic_core_internals import core_schema_of

__all__ = ["SetPlan", "inferred", "resort", "set_plan", "sorting_sets"]

# Keys of a core schema node that hold values, not schemas.
_NOT_SCHEMA: Final = frozenset({"metadata", "default", "cls", "config", "expected"})
_SETS: Final = frozenset({"set", "frozenset"})
_ANY: Final = {"type": "any"}
_LEAVES: Final = frozenset({str, int, float, bool, type(None)})
# pydantic refuses to write values nested this deep (its recursion guard).
_MAX_DEPTH: Final = 512
_SCAN_OPTIONS: Final = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS
_INFERRED: Final = ("any",)
_NOT_A_SET: Final = "not a set: for another member of the union"
# Nodes that serialize as their inner schema does.
_TRANSPARENT: Final = frozenset(
    {"custom-error", "default", "function-after", "function-before", "function-wrap", "json",
     "missing-sentinel"}
)  # fmt: skip
# Nodes written as one JSON leaf: no set can be inside. Any kind not named
# here or planned below (dataclasses, typed dicts, named tuples, root models
# are) is written by inference as far as sets go: a new or rare kind
# (``is-instance``, ``deque``, ``chain``...) is walked, never assumed set-free.
_LEAF_KINDS: Final = frozenset(
    {"bool", "bytes", "callable", "complex", "date", "datetime", "decimal", "ellipsis", "enum",
     "float", "fraction", "int", "invalid", "is-subclass", "literal", "missing-sentinel",
     "multi-host-url", "none", "str", "time", "timedelta", "url", "uuid"}
)  # fmt: skip

# Where a schema's sets are, as nested tuples: ("set", item plan), ("any",)
# (inference), ("list", plan), ("dict", plan, keys written by the default
# key writer), ("nullable", plan),
# ("tuple", plans, variadic index), ("model", cls, ((attribute, output key,
# plan), ...), extras plan) (a dataclass too), ("root", root model cls, plan),
# ("typed-dict", ((key, output key, plan), ...), extras plan, declared keys),
# ("union", choices), ("ref", name); ``None`` where no set can be.
SetPlan = tuple[Any, ...]


def _write_sorted(members: Any, handler: cs.SerializerFunctionWrapHandler) -> Any:
    """A set's members, each written by the set's item schema, in ``to_json``'s order.

    A union tries each member's serializer in turn, this one even for a value
    that is no set (a str of ``list[set[str] | str]``): it declines it, and
    the union goes on to the next member.
    """
    if not isinstance(members, set | frozenset):
        raise PydanticSerializationUnexpectedValue(_NOT_A_SET)
    return sorted_plain(handler(list(members)))


def _write_inferred(value: Any, handler: cs.SerializerFunctionWrapHandler) -> Any:
    """A value pydantic writes by inference, its sets' lists sorted."""
    return inferred(value, handler(value))


def _refuse(_value: Any) -> Any:
    raise TypeError


def _may_hold_set(value: Any) -> bool:
    """Whether ``value`` may hold a set (or a model, or a dataclass, which may hold one).

    orjson writes plain data in C and asks ``default`` for anything else: a
    value it writes without asking holds no set, and needs no walk.
    """
    if type(value) in _LEAVES:
        return False
    try:
        orjson.dumps(value, default=_refuse, option=_SCAN_OPTIONS)
    except (TypeError, RecursionError):  # orjson.JSONEncodeError is a TypeError
        return True
    return False


def _extras_writer(fields: frozenset[str]) -> Callable[..., Any]:
    """Write a typed dict, then sort the sets' lists of its extra keys' values."""

    def write(value: Any, handler: cs.SerializerFunctionWrapHandler) -> Any:
        out = handler(value)
        if isinstance(value, dict) and isinstance(out, dict):
            for key, item in value.items():
                if key not in fields and key in out:
                    out[key] = inferred(item, out[key])
        return out

    return write


def sorting_sets(schema: Any) -> Any:
    """A copy of a (derived, model-free) core schema whose sets are written sorted.

    A node with a serializer of its own keeps it.
    """
    if isinstance(schema, list):
        return [sorting_sets(item) for item in schema]
    if isinstance(schema, tuple):
        return tuple(sorting_sets(item) for item in schema)
    if not isinstance(schema, dict):
        return schema
    out = {key: v if key in _NOT_SCHEMA else sorting_sets(v) for key, v in schema.items()}
    kind = out.get("type")
    if not isinstance(kind, str) or "serialization" in out:
        return out
    if kind in _SETS:
        items = out.get("items_schema", cs.any_schema())
        out["serialization"] = cs.wrap_serializer_function_ser_schema(
            _write_sorted, schema=cs.list_schema(items)
        )
    elif kind == "any":
        out["serialization"] = cs.wrap_serializer_function_ser_schema(_write_inferred)
    elif kind == "typed-dict" and out.get("extra_behavior") == "allow":
        # Extras with a schema of their own are sorted by that schema's nodes.
        if out.get("extras_schema") is None:
            write = _extras_writer(frozenset(out.get("fields", {})))
            out["serialization"] = cs.wrap_serializer_function_ser_schema(write)
        return out
    return out


def set_plan(model: type[BaseModel]) -> tuple[SetPlan | None, dict[str, SetPlan | None]]:
    """Where the sets of ``model``'s dump are: the root plan and the plans of its refs."""
    refs: dict[str, SetPlan | None] = {}
    root = _Planner(refs).plan(core_schema_of(model))
    return root, refs


class _Planner:
    def __init__(self, refs: dict[str, SetPlan | None]) -> None:
        self.refs = refs
        # Whether the innermost model or dataclass writes by alias: a typed
        # dict's fields follow it (pydantic-core reads no TypedDict's own config).
        self.by_alias = False

    def plan(self, schema: Any) -> SetPlan | None:
        kind = schema["type"]
        ref = schema.get("ref")
        found: SetPlan | None
        if "serialization" in schema:
            written = _pass_through(schema["serialization"])
            if written is None:
                return None  # the user's serializer writes this value
            found = self.plan(written)
        elif kind in _SETS:
            found = ("set", self.plan(schema.get("items_schema", _ANY)))
        elif kind == "any":
            found = _INFERRED
        elif kind in _TRANSPARENT and "schema" in schema:
            found = self.plan(schema["schema"])
        elif kind == "definitions":
            for definition in schema["definitions"]:
                self.refs.setdefault(definition["ref"], None)
            for definition in schema["definitions"]:
                self.refs[definition["ref"]] = self.plan(definition)
            return self.plan(schema["schema"])
        elif kind == "definition-ref":
            return ("ref", schema["schema_ref"])
        elif kind == "list":
            found = _wrap("list", self.plan(schema.get("items_schema", _ANY)))
        elif kind == "dict":
            values = self.plan(schema.get("values_schema", _ANY))
            keys = schema.get("keys_schema", _ANY)
            found = None if values is None else ("dict", values, _keys_written_by_default(keys))
        elif kind == "nullable":
            found = _wrap("nullable", self.plan(schema["schema"]))
        elif kind == "tuple":
            plans = [self.plan(item) for item in schema["items_schema"]]
            found = None
            if any(plans):
                found = ("tuple", tuple(plans), schema.get("variadic_item_index"))
        elif kind == "model":
            found = self._model(schema)
        elif kind in {"dataclass", "typed-dict", "named-tuple"}:
            found = self._record(kind, schema)
        elif kind in {"union", "tagged-union"}:
            planned = tuple((member, self.plan(member)) for member in _choices(schema))
            found = ("union", planned) if any(plan for _m, plan in planned) else None
        elif kind in _LEAF_KINDS:
            return None
        else:
            found = _INFERRED
        if ref is not None:
            self.refs[ref] = found
        return found

    def _model(self, schema: Any) -> SetPlan | None:
        cls = schema["cls"]
        inner = schema["schema"]
        if schema.get("root_model"):  # written as its root value
            root = self.plan(inner)
            return None if root is None else ("root", cls, root)
        if inner.get("type") != "model-fields":
            return None
        by_alias = bool(cls.model_config.get("serialize_by_alias"))
        fields = self._fields(inner["fields"].items(), by_alias, named=False)
        extras = self._extras(schema, inner)
        return ("model", cls, fields, extras) if fields or extras else None

    def _record(self, kind: str, schema: Any) -> SetPlan | None:
        """A dataclass (planned as a model), a typed dict or a named tuple (as a tuple)."""
        if kind == "named-tuple":
            plans = tuple(self.plan(field["schema"]) for field in schema["fields"])
            return ("tuple", plans, None) if any(plans) else None
        if kind == "dataclass":
            fields = self._fields(schema["schema"]["fields"], _by_alias(schema), named=True)
            return ("model", schema["cls"], fields, None) if fields else None
        fields = self._fields(schema["fields"].items(), self.by_alias, named=False)
        extras = self._extras(schema, schema)
        if not fields and extras is None:
            return None
        return ("typed-dict", fields, extras, frozenset(schema["fields"]))

    def _fields(
        self, fields: Iterable[Any], by_alias: bool, *, named: bool
    ) -> tuple[tuple[str, str, SetPlan], ...]:
        """(name, output key, plan) of each written field that may hold a set.

        ``fields`` are ``(name, field)`` pairs, or fields that carry their
        ``name`` (a dataclass's); a field excluded from output or with a
        serializer of its own is left out. ``by_alias`` holds for the typed
        dicts below too.
        """
        found = []
        outer, self.by_alias = self.by_alias, by_alias
        try:
            for item in fields:
                name, field = (item["name"], item) if named else item
                if field.get("serialization_exclude") or "serialization" in field:
                    continue
                plan = self.plan(field["schema"])
                if plan is not None:
                    key = field.get("serialization_alias", name) if by_alias else name
                    found.append((name, key, plan))
        finally:
            self.by_alias = outer
        return tuple(found)

    def _extras(self, schema: Any, inner: Any) -> SetPlan | None:
        """The plan of the extra keys' values of ``extra="allow"``, if allowed."""
        config = schema.get("config") or {}
        if (config.get("extra_fields_behavior") or inner.get("extra_behavior")) != "allow":
            return None
        extras_schema = inner.get("extras_schema")
        return _INFERRED if extras_schema is None else self.plan(extras_schema)


def _choices(schema: Any) -> Iterable[Any]:
    """The member schemas of a union (a choice may be ``(schema, label)``) or a tagged union."""
    choices = schema["choices"]
    for choice in choices.values() if isinstance(choices, dict) else choices:
        yield choice[0] if isinstance(choice, tuple) else choice


def _pass_through(serialization: Any) -> Any:
    """The schema pydantic's own pass-through serializer writes with, else ``None``.

    ``PlainValidator`` and ``InstanceOf`` add ``lambda v, h: h(v)`` over the
    declared type's schema: the value is written as that type (its sets
    too); any other serializer is the user's.
    """
    function = serialization.get("function")
    module = getattr(function, "__module__", None) or ""
    if serialization.get("type") == "function-wrap" and module.startswith("pydantic."):
        return serialization.get("schema")
    return None


def _by_alias(schema: Any) -> bool:
    return bool((schema.get("config") or {}).get("serialize_by_alias"))


def _wrap(kind: str, plan: SetPlan | None) -> SetPlan | None:
    return None if plan is None else (kind, plan)


def resort(plan: SetPlan, refs: Mapping[str, SetPlan | None], value: Any, dumped: Any) -> Any:
    """``dumped`` (``model_dump(mode="json")`` of ``value``) with its sets' lists sorted.

    ``value`` holds the Python sets the lists were written from, in the same
    order: each list is put in the order ``to_json`` gives the set. Anything
    that does not have the expected shape is left as it is.
    """
    kind = plan[0]
    if kind == "ref":
        target = refs.get(plan[1])
        return dumped if target is None else resort(target, refs, value, dumped)
    if kind == "set":
        return _resorted(plan[1], refs, value, dumped)
    if kind == "any":
        return inferred(value, dumped)
    if kind == "nullable":
        return dumped if value is None else resort(plan[1], refs, value, dumped)
    if kind == "union":
        return _union(plan[1], refs, value, dumped)
    if kind == "model":
        return _model(plan, refs, value, dumped)
    if kind == "root":  # a subclass instance is written as the declared root model
        if not isinstance(value, plan[1]):
            return dumped
        return resort(plan[2], refs, value.root, dumped)
    if kind == "typed-dict":
        return _typed_dict(plan, refs, value, dumped)
    return _container(plan, refs, value, dumped)


def _resorted(
    plan: SetPlan | None, refs: Mapping[str, SetPlan | None], members: Any, dumped: Any
) -> Any:
    """A set's written list (its items resorted by the item plan), in ``to_json``'s order."""
    if not isinstance(members, set | frozenset) or not isinstance(dumped, list):
        return dumped
    if len(members) != len(dumped):
        return dumped
    if plan is not None:
        # The list was written by iterating this very set: member i is item i.
        pairs = zip(members, dumped, strict=True)
        dumped = [resort(plan, refs, member, item) for member, item in pairs]
    return sorted_plain(dumped)


def inferred(value: Any, dumped: Any, depth: int = 0) -> Any:
    """``dumped`` (``value`` written by pydantic's inference), its sets' lists sorted.

    Containers are walked in place (``dumped`` is the serializer's fresh
    output); a model or dataclass found inside is written by its own schema,
    whose sets :func:`set_plan` finds.
    """
    if depth > _MAX_DEPTH or (depth == 0 and not _may_hold_set(value)):
        return dumped
    if type(value) in _LEAVES:
        return dumped
    if isinstance(value, set | frozenset):
        if isinstance(dumped, list) and len(value) == len(dumped):
            pairs = zip(value, dumped, strict=True)
            return sorted_plain([inferred(member, item, depth + 1) for member, item in pairs])
    elif isinstance(value, list | tuple | deque):
        if isinstance(dumped, list) and len(value) == len(dumped):
            for index, member in enumerate(value):
                dumped[index] = inferred(member, dumped[index], depth + 1)
    elif isinstance(value, dict):
        if isinstance(dumped, dict):
            for key, member in _members(value, dumped):
                dumped[key] = inferred(member, dumped[key], depth + 1)
    elif isinstance(value, BaseModel):
        plan, refs = _plan_of(type(value))
        if plan is not None:
            return resort(plan, refs, value, dumped)
    elif _is_dataclass(value) and isinstance(dumped, dict):
        for field in dataclasses.fields(value):
            if field.name in dumped:
                item = getattr(value, field.name)
                dumped[field.name] = inferred(item, dumped[field.name], depth + 1)
    return dumped


def _members(
    value: dict[Any, Any], dumped: dict[str, Any], *, by_key_writer: bool = True
) -> Iterable[tuple[str, Any]]:
    """``(written key, value)`` pairs: which of ``value``'s values each key of ``dumped`` holds.

    Keys are written in the dict's order, so with as many keys the pairs
    follow it (a key's JSON form may differ from the key). Fewer keys means
    some collided once written (``1`` and ``"1"`` are both ``"1"``): the
    dump holds the last value written under each, and pydantic's default key
    writer says which that is, unless the keys are written otherwise
    (``by_key_writer`` false: a key schema with a serializer of its own;
    keys whose form a model's config sets). Then nothing is paired: a wrong
    pair would reorder a list that is no set.
    """
    if len(value) == len(dumped):
        return zip(list(dumped), value.values(), strict=True)
    if not by_key_writer or any(_key_form_configurable(key) for key in value):
        return []  # the model's config may write it otherwise than the default writer
    last: dict[str, Any] = {}
    for key, member in value.items():
        try:
            written = pydantic_core.to_jsonable_python({key: None})
        except (pydantic_core.PydanticSerializationError, TypeError, ValueError):
            continue
        if isinstance(written, dict) and len(written) == 1:
            last[next(iter(written))] = member
    return [(key, last[key]) for key in dumped if key in last]


# Key schemas written as inference writes their values (no serializer of their own).
_DEFAULT_KEY_KINDS: Final = frozenset(
    {"any", "bool", "decimal", "enum", "float", "int", "literal", "none", "str", "uuid"}
)


def _keys_written_by_default(schema: Any) -> bool:
    """Whether a dict's keys schema writes its keys as pydantic's default key writer does."""
    if "serialization" in schema:
        return False
    kind = schema["type"]
    if kind in ("nullable", *_TRANSPARENT):
        return "schema" in schema and _keys_written_by_default(schema["schema"])
    if kind == "union":
        return all(_keys_written_by_default(choice) for choice in _choices(schema))
    return kind in _DEFAULT_KEY_KINDS


def _key_form_configurable(key: Any) -> bool:
    """Whether a model's config can change how pydantic writes this key (``ser_json_*``)."""
    if isinstance(key, float):
        return not math.isfinite(key)
    return isinstance(key, timedelta | date | time | bytes | bytearray)


def _is_dataclass(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


@functools.cache
def _plan_of(model: type[BaseModel]) -> tuple[SetPlan | None, dict[str, SetPlan | None]]:
    return set_plan(model)


def _container(plan: SetPlan, refs: Mapping[str, SetPlan | None], value: Any, dumped: Any) -> Any:
    """A list, dict or tuple: each item resorted by the item's plan (same size, same order)."""
    kind = plan[0]
    if kind == "dict" and isinstance(value, dict) and isinstance(dumped, dict):
        for key, member in _members(value, dumped, by_key_writer=plan[2]):
            dumped[key] = resort(plan[1], refs, member, dumped[key])
        return dumped
    sized = isinstance(value, list | tuple) and isinstance(dumped, list)
    if not sized or len(value) != len(dumped):
        return dumped
    if kind == "list" and isinstance(value, list) and isinstance(dumped, list):
        return [resort(plan[1], refs, v, d) for v, d in zip(value, dumped, strict=True)]
    if kind == "tuple" and isinstance(value, tuple) and isinstance(dumped, list):
        plans = _tuple_plans(plan[1], plan[2], len(value))
        return [
            d if p is None else resort(p, refs, v, d)
            for p, v, d in zip(plans, value, dumped, strict=True)
        ]
    return dumped


def _tuple_plans(
    plans: tuple[SetPlan | None, ...], variadic: int | None, size: int
) -> list[SetPlan | None]:
    """The plan of each item of a tuple of ``size`` items (``tuple[A, *B, C]`` shapes)."""
    if variadic is None:
        return [plans[i] if i < len(plans) else None for i in range(size)]
    trailing = len(plans) - 1 - variadic
    middle = size - variadic - trailing
    if middle < 0:
        return [None] * size
    return [*plans[:variadic], *[plans[variadic]] * middle, *plans[variadic + 1 :]]


def _model(plan: SetPlan, refs: Mapping[str, SetPlan | None], value: Any, dumped: Any) -> Any:
    # A subclass instance in a field typed with its base is written as the base.
    if not isinstance(value, plan[1]) or not isinstance(dumped, dict):
        return dumped
    out = dict(dumped)
    for name, key, field_plan in plan[2]:
        if key in out:
            out[key] = resort(field_plan, refs, getattr(value, name), out[key])
    extras = plan[3]
    if extras is not None:
        for key, item in (value.__pydantic_extra__ or {}).items():
            if key in out:
                out[key] = resort(extras, refs, item, out[key])
    return out


def _typed_dict(plan: SetPlan, refs: Mapping[str, SetPlan | None], value: Any, dumped: Any) -> Any:
    if not isinstance(value, dict) or not isinstance(dumped, dict):
        return dumped
    out = dict(dumped)
    for name, key, field_plan in plan[1]:
        if name in value and key in out:
            out[key] = resort(field_plan, refs, value[name], out[key])
    extras = plan[2]
    if extras is not None:
        for key, item in value.items():
            if key not in plan[3] and key in out:
                out[key] = resort(extras, refs, item, out[key])
    return out


_MATCHES: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "set": lambda _s, v: type(v) is set,
    "frozenset": lambda _s, v: type(v) is frozenset,
    "list": lambda _s, v: type(v) is list,
    "dict": lambda _s, v: type(v) is dict,
    "tuple": lambda _s, v: type(v) is tuple,
    "model": lambda s, v: type(v) is s["cls"],
    "dataclass": lambda s, v: type(v) is s["cls"],
    "named-tuple": lambda s, v: type(v) is s["cls"],
}


def _union(
    choices: tuple[tuple[Any, SetPlan | None], ...],
    refs: Mapping[str, SetPlan | None],
    value: Any,
    dumped: Any,
) -> Any:
    """The one member that can have written ``value``; none or several: as it is."""
    found = [
        plan
        for member, plan in choices
        if (match := _MATCHES.get(member["type"])) is not None and match(member, value)
    ]
    if len(found) != 1 or found[0] is None:
        return dumped
    return resort(found[0], refs, value, dumped)
