"""JSON Schema to hypothesis: the machinery behind ``strategies.arguments``.

``Schema`` draws values that a schema accepts and values it refuses, for
the subset of draft 2020-12 that pydantic v2 writes (listed in the
``strategies`` module docstring). Private: the public face is
:mod:`pytest_mcpfusion.strategies`.

Not hypothesis-jsonschema, for measured reasons (docs/strategies.md): its
latest release fails on every object schema with current hypothesis, refuses
the recursive ``$ref`` pydantic writes for self-referencing models, and (with
an older hypothesis) ignores ``prefixItems`` and the ``uuid`` format, runs
1.2x-5x slower and shrinks to the same examples. Invalid values, one broken
rule per draw (:func:`violations`), it has no counterpart for.
"""

from __future__ import annotations

import copy
import functools
import math
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, time, timedelta, timezone
from fractions import Fraction
from functools import reduce
from typing import Any, Final, TypeVar

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from pytest_mcpfusion._patterns import pattern_strings

__all__ = ["Outside", "Schema", "violations", "with_key", "without_key"]


_UNSUPPORTED: Final = frozenset(
    ["not", "if", "then", "else", "patternProperties", "propertyNames", "dependentRequired",
     "dependentSchemas", "dependencies", "contains", "minContains", "maxContains",
     "unevaluatedProperties", "unevaluatedItems", "minProperties", "maxProperties",
     "$dynamicRef", "$recursiveRef"]
)  # fmt: skip
_TYPES: Final = frozenset(["null", "boolean", "integer", "number", "string", "array", "object"])
_ZONES: Final = st.sampled_from(
    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]
)
_EMAIL: Final = r"[a-z0-9]{1,12}(\.[a-z0-9]{1,8})?@[a-z0-9]{1,12}\.(com|org|io)"
_URI: Final = r"https://[a-z0-9]{1,12}\.(com|org)(/[A-Za-z0-9_~-]{1,8}){0,3}"
_FORMATS: Final[dict[str, SearchStrategy[str]]] = {
    "date": st.dates().map(date.isoformat),
    "date-time": st.datetimes(timezones=_ZONES).map(datetime.isoformat),
    "time": st.times(timezones=_ZONES).map(time.isoformat),
    "duration": st.integers(0, 10**6).map("PT{}S".format),
    "email": pattern_strings(re.compile(_EMAIL)),
    "uri": pattern_strings(re.compile(_URI)),
    "uuid": st.uuids().map(str),
    "uuid1": st.uuids(version=1).map(str),
    "uuid3": st.uuids(version=3).map(str),
    "uuid4": st.uuids(version=4).map(str),
    "uuid5": st.uuids(version=5).map(str),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
}
# Sizes a server can answer. Where a schema sets no bound, drawn integers and
# numbers stay within +-SIZE_BOUND and strings within TEXT_BOUND characters past
# their minLength (arrays already draw at most 4 items past minItems): a server
# may build its answer from such a value ("x" * n), and a contract test must
# probe the schema, not the server's memory.
SIZE_BOUND: Final = 10_000
_N = TypeVar("_N", int, float)
TEXT_BOUND: Final = 100
# Wrong-typed values no lax coercion accepts (pydantic reads "1" as an int, 1 as True).
_WRONG: Final[tuple[tuple[str, Any], ...]] = (
    ("array", []), ("object", {}), ("string", "not valid"), ("null", None), ("number", 0.5)
)  # fmt: skip
# A bound broken is the opposite bound, exclusive where the original was not.
_BEYOND: Final = {
    "minimum": "exclusiveMaximum", "exclusiveMinimum": "maximum",
    "maximum": "exclusiveMinimum", "exclusiveMaximum": "minimum",
}  # fmt: skip


MAX_DEPTH: Final = 64
"""How deep a schema (or a ``const``/``enum`` value) may nest; pydantic's rarely pass 10."""


def _at(where: str) -> str:
    """A JSON pointer short enough for a message (a hostile schema's may be megabytes)."""
    return where if len(where) <= 120 else f"{where[:117]}..."


def _nesting(value: Any) -> int:
    """How deep lists and objects nest in ``value`` (iterative: a hostile value is not a stack)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        if isinstance(item, Mapping):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((child, depth + 1) for child in item)
    return deepest


def _merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """Both schemas' keywords; properties and required lists are united."""
    merged = {**base, **extra}
    if "properties" in base and "properties" in extra:
        merged["properties"] = {**base["properties"], **extra["properties"]}
    if "required" in base and "required" in extra:
        merged["required"] = list(dict.fromkeys([*base["required"], *extra["required"]]))
    return merged


def _types(schema: Mapping[str, Any]) -> list[str] | None:
    """The JSON types a schema allows (inferred from its keywords); ``None`` for any."""
    declared = schema.get("type")
    if declared is not None:
        return [declared] if isinstance(declared, str) else list(declared)
    hints = (
        ("object", ("properties", "required", "additionalProperties")),
        ("array", ("items", "prefixItems", "minItems", "maxItems", "uniqueItems")),
        ("string", ("minLength", "maxLength", "pattern", "format")),
        ("number", (*_BEYOND, "multipleOf")),
    )
    return next(([kind] for kind, keys in hints if any(k in schema for k in keys)), None)


def _json_type(value: Any) -> str:
    if value is None or isinstance(value, bool | str | list | dict):
        return {type(None): "null", bool: "boolean", str: "string", list: "array"}.get(
            type(value), "object"
        )
    return "number"


def _key(value: Any) -> Any:
    """A hashable key under which JSON-equal values (``1``, ``1.0``) are equal."""
    if isinstance(value, list):
        return ("array", tuple(_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _key(v)) for k, v in value.items()))
    return (_json_type(value), value)


def with_key(key: Any, value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` with ``key`` set to ``value``, ``key`` first."""
    return {key: value, **{k: v for k, v in args.items() if k != key}}


def _keyed(key: Any, drawn: tuple[Any, Mapping[str, Any]]) -> dict[str, Any]:
    """``with_key(key, *drawn)``: a fixed key is not drawn (each draw costs a span)."""
    return with_key(key, *drawn)


def without_key(key: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in args.items() if k != key}


class Outside:
    """A map onto values outside ``taken``: ``v`` itself, else ``v`` made longer until it is not.

    For the keys and values a schema does not know (an unknown key, a string
    or integer outside an enum): a string gets ``_`` appended (``action``
    becomes the near miss ``action_``), an integer is counted up. A filter
    would redraw instead, but hypothesis validates a filtered strategy again
    at each of its draws (its re-initialization drops its "validated" mark,
    hypothesis 6.170.17), trying to rewrite the predicate each time: for the
    unknown keys of every invalid call. A map is validated once.
    """

    __slots__ = ("_taken",)

    def __init__(self, taken: Any) -> None:
        self._taken = taken

    def __call__(self, value: Any) -> Any:
        while value in self._taken:
            value = value + ("_" if isinstance(value, str) else 1)
        return value

    def __repr__(self) -> str:
        return f"Outside({self._taken!r})"


class Schema:
    """One root schema: checked eagerly, ``$ref`` resolved, strategies built."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self._refs: dict[str, SearchStrategy[Any]] = {}
        self._values: dict[tuple[int, str], tuple[Any, SearchStrategy[Any]]] = {}
        self._check(root, "#")

    def _check(self, schema: Any, where: str, depth: int = 0) -> None:
        if isinstance(schema, bool):
            return
        if not isinstance(schema, Mapping):
            raise ValueError(
                f"{_at(where)}: a schema is an object or a boolean, got {schema!r:.60}"
            )
        if depth > MAX_DEPTH:
            raise ValueError(f"{_at(where)}: the schema nests more than {MAX_DEPTH} levels deep")
        for keyword in ("const", "enum"):
            if keyword in schema and _nesting(schema[keyword]) > MAX_DEPTH:
                msg = f"{_at(where)}/{keyword}: a value nested more than {MAX_DEPTH} levels deep"
                raise ValueError(msg)
        for keyword in sorted(_UNSUPPORTED.intersection(schema)):
            raise ValueError(f"unsupported JSON Schema keyword {keyword!r} at {where}")
        for kind in set(_types(schema) or ()) - _TYPES:
            raise ValueError(f"unknown JSON type {kind!r} at {where}/type")
        subschemas = [(f"{k}/{name}", sub) for k in ("properties", "$defs", "definitions")
                      for name, sub in schema.get(k, {}).items()]  # fmt: skip
        subschemas += [(f"{k}/{i}", sub) for k in ("anyOf", "oneOf", "allOf", "prefixItems")
                       for i, sub in enumerate(schema.get(k, ()))]  # fmt: skip
        subschemas += [(k, schema[k]) for k in ("items", "additionalProperties") if k in schema]
        for path, sub in subschemas:
            self._check(sub, f"{where}/{path}", depth + 1)
        if "$ref" in schema or "allOf" in schema:
            self.resolve(schema, where)  # a $ref that points nowhere, or back to itself

    def _target(self, ref: Any, where: str) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise ValueError(f"{where}/$ref: only local references (#/...) work, got {ref!r}")
        node: Any = self.root
        for part in filter(None, ref[1:].split("/")):
            name = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or name not in node:
                raise ValueError(f"{where}/$ref: {ref!r} points to nothing")
            node = node[name]
        return node

    def resolve(self, schema: Any, where: str, chain: tuple[str, ...] = ()) -> dict[str, Any]:
        """The schema with its ``$ref`` and ``allOf`` folded in.

        A ``$ref`` reached again through ``$ref`` and ``allOf`` alone (no
        property or item between) describes no value: ``ValueError``.
        """
        if isinstance(schema, bool):
            return {} if schema else {"enum": []}
        result = dict(schema)
        while "$ref" in result:
            ref = result.pop("$ref")
            if ref in chain:
                msg = (
                    f"{_at(where)}/$ref: {ref!r} refers back to itself through $ref and allOf "
                    "alone: no value fits it"
                )
                raise ValueError(msg)
            target = self._target(ref, where)
            result = _merge(self.resolve(target, where, (*chain, ref)), result)
        if "allOf" in result:
            parts = [self.resolve(sub, where, chain) for sub in result.pop("allOf")]
            result = reduce(_merge, parts, result)
        return result

    def values(self, schema: Any, where: str) -> SearchStrategy[Any]:
        """Values valid for ``schema``: one strategy per subschema and place, built once.

        The ways :func:`violations` breaks an object each draw the other
        properties: one strategy for each keeps the strategies hypothesis
        validates on their first draw to one per property (a first draw of a
        strategy walks all of it).
        """
        key = (id(schema), where)
        known = self._values.get(key)
        if known is not None and known[0] is schema:
            return known[1]
        built = self._values_of(schema, where)
        self._values[key] = (schema, built)
        return built

    def _values_of(self, schema: Any, where: str) -> SearchStrategy[Any]:
        if schema is True or schema == {}:
            return _any_json()
        if schema is False:
            return st.nothing()
        ref = schema.get("$ref")
        if ref is not None and set(schema) <= {"$ref", "title", "description", "default"}:
            if ref not in self._refs:  # deferred: recursive models refer to themselves
                target = self._target(ref, where)
                self._refs[ref] = st.deferred(lambda: self.values(target, ref))
            return self._refs[ref]
        schema = self.resolve(schema, where)
        if schema.pop("nullable", False) is True:
            return st.none() | self.values(schema, where)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                rest, branches = without_key(key, schema), enumerate(schema[key])
                return st.one_of(
                    [self.values(_merge(rest, b), f"{where}/{key}/{i}") for i, b in branches]
                )
        if "const" in schema or "enum" in schema:
            choices = schema.get("enum", [schema.get("const")])
            return st.sampled_from(choices).map(copy.deepcopy) if choices else st.nothing()
        kinds = _types(schema)
        return (
            _any_json()
            if kinds is None
            else st.one_of([self._typed(k, schema, where) for k in kinds])
        )

    def _typed(self, kind: str, schema: dict[str, Any], where: str) -> SearchStrategy[Any]:
        if kind in ("null", "boolean"):
            return st.none() if kind == "null" else st.booleans()
        if kind in ("integer", "number"):
            return _numbers(schema, integer=kind == "integer")
        if kind == "array":
            return self._arrays(schema, where)
        if kind == "object":
            return self.objects(schema, where)
        lo, hi = schema.get("minLength", 0), schema.get("maxLength")
        if "pattern" not in schema and schema.get("format") not in _FORMATS:
            hi = lo + TEXT_BOUND if hi is None else hi
            return st.text(min_size=lo, max_size=hi)
        if "pattern" in schema:  # a full match also matches JSON Schema's search
            base = pattern_strings(re.compile(schema["pattern"]))
        else:
            base = _FORMATS[schema["format"]]
        if lo == 0 and hi is None:
            return base
        return base.filter(lambda s: lo <= len(s) and (hi is None or len(s) <= hi))

    def _arrays(self, schema: dict[str, Any], where: str) -> SearchStrategy[list[Any]]:
        lo, hi = schema.get("minItems", 0), schema.get("maxItems")
        prefix = [self.values(s, f"{where}/prefixItems/{i}")
                  for i, s in enumerate(schema.get("prefixItems", ()))][:hi]  # fmt: skip
        more = max(lo - len(prefix), 0)
        most = more + 4 if hi is None else min(hi - len(prefix), more + 4)
        unique = _key if schema.get("uniqueItems") else None
        items = self.resolve(schema.get("items", True), where)
        item = self.values(schema.get("items", True), f"{where}/items")
        if items.get("enum") == []:  # no item can exist (``_select`` of a tool with no fields)
            item, most = st.none(), 0
        rest = st.lists(item, min_size=more, max_size=most, unique_by=unique)
        whole = st.tuples(st.tuples(*prefix), rest).map(lambda p: [*p[0], *p[1]])
        if unique and prefix:
            return whole.filter(lambda v: len({_key(i) for i in v}) == len(v))
        return whole

    def objects(
        self, schema: Mapping[str, Any], where: str, leave_out: str | None = None
    ) -> SearchStrategy[dict[str, Any]]:
        """Objects valid for an object schema (extra keys only where declared).

        ``leave_out`` names a property never drawn (nor drawn as an extra key):
        :func:`violations` drops or replaces it, and drawing its value only
        to throw it away cost a whole draw (a ``pattern`` id is the dearest).
        """
        properties: Mapping[str, Any] = schema.get("properties", {})
        required, extra = list(schema.get("required", ())), schema.get("additionalProperties")
        default = True if extra is None else extra
        fixed = {n: self.values(properties.get(n, default), f"{where}/properties/{n}")
                 for n in required if n != leave_out}  # fmt: skip
        optional = {n: self.values(s, f"{where}/properties/{n}")
                    for n, s in properties.items()
                    if n not in required and n != leave_out}  # fmt: skip
        strategy = st.fixed_dictionaries(fixed, optional=optional)
        if extra is True or isinstance(extra, Mapping):
            taken = properties if leave_out is None else {*properties, leave_out}
            keys = st.text(max_size=12).map(Outside(taken))
            more = st.dictionaries(
                keys, self.values(extra, f"{where}/additionalProperties"), max_size=3
            )
            strategy = st.tuples(strategy, more).map(lambda p: {**p[1], **p[0]})
        return strategy

    def admits(self, value: str | int, schema: Any, where: str = "#") -> bool:
        """Whether the string or integer ``value`` is valid for ``schema``, a subschema of the root.

        For the ids a contract test reuses (``_contract._examples``): the
        keywords of the subset drawn here, ``format`` an annotation as in
        ``jsonschema``'s default. Anything else (``not``, ``if``...) refuses:
        an id not offered is a call not made, never an invalid one sent.
        Not ``jsonschema``: importing it cost the gate 0.064 s of CPU, an
        eighth of its budget (issue 28), for a question about one scalar.
        """
        if isinstance(schema, bool):
            return schema
        if not isinstance(schema, Mapping) or _UNSUPPORTED.intersection(schema):
            return False
        try:
            schema = self.resolve(schema, where)
        except ValueError:
            return False
        for key in ("anyOf", "oneOf"):
            if key in schema:
                rest = without_key(key, schema)
                fits = [self.admits(value, _merge(rest, b), where) for b in schema[key]]
                return any(fits) if key == "anyOf" else fits.count(True) == 1
        if "const" in schema or "enum" in schema:
            choices = schema.get("enum", [schema.get("const")])
            if _key(value) not in {_key(choice) for choice in choices}:
                return False
        declared = schema.get("type")  # keywords of another type do not apply (no inference)
        kinds = None if declared is None else [declared] if isinstance(declared, str) else declared
        if isinstance(value, str):
            return (kinds is None or "string" in kinds) and _string_fits(value, schema)
        integer = kinds is None or "integer" in kinds or "number" in kinds
        return integer and _number_fits(value, schema)

    def object_schema(self) -> dict[str, Any]:
        """The root, resolved; tool arguments are always an object."""
        schema = self.resolve(self.root, "#")
        if "object" not in (_types(schema) or ["object"]):
            raise ValueError(f"tool arguments are an object, not {schema.get('type')!r}")
        return schema

    def allowed(self, schema: Mapping[str, Any], where: str) -> set[str] | None:
        """The JSON types a resolved schema accepts; ``None`` for any."""
        if "const" in schema or "enum" in schema:
            return {_json_type(v) for v in schema.get("enum", [schema.get("const")])}
        branches = schema.get("anyOf") or schema.get("oneOf")
        if branches:
            each = [self.allowed(self.resolve(b, where), where) for b in branches]
            return None if None in each else {kind for kinds in each for kind in kinds or ()}
        kinds = _types(schema)
        return None if kinds is None else {*kinds, *(["null"] if schema.get("nullable") else [])}

    def wrong(self, schema: Any, where: str) -> list[SearchStrategy[Any]]:
        """Values a property schema rejects: a wrong type, or a broken bound."""
        schema = self.resolve(schema, where)
        allowed = self.allowed(schema, where)
        if allowed is None:
            return []
        # Strings with a format (dates, durations) take numbers too, in pydantic.
        excluded = allowed | ({"number"} if "string" in allowed else set())
        wrong_types = [value for kind, value in _WRONG if kind not in excluded]
        options = [st.sampled_from(wrong_types).map(copy.deepcopy)] if wrong_types else []
        branches = [
            self.resolve(b, where) for b in schema.get("anyOf") or schema.get("oneOf") or ()
        ]
        others = [b for b in branches if b.get("type") != "null"]
        if branches and len(others) != 1:  # a union: a value may fit another branch
            return options
        return options + _out_of_bounds(others[0] if branches else schema)


def _string_fits(value: str, schema: Mapping[str, Any]) -> bool:
    if len(value) < schema.get("minLength", 0):
        return False
    if schema.get("maxLength") is not None and len(value) > schema["maxLength"]:
        return False
    if "pattern" not in schema:
        return True
    try:  # JSON Schema's pattern matches anywhere, as re.search
        return re.search(schema["pattern"], value) is not None
    except (re.error, TypeError):
        return False


def _number_fits(value: int, bounds: Mapping[str, Any]) -> bool:
    try:
        return (
            ("minimum" not in bounds or value >= bounds["minimum"])
            and ("maximum" not in bounds or value <= bounds["maximum"])
            and ("exclusiveMinimum" not in bounds or value > bounds["exclusiveMinimum"])
            and ("exclusiveMaximum" not in bounds or value < bounds["exclusiveMaximum"])
            and (
                "multipleOf" not in bounds
                or Fraction(value) % Fraction(str(bounds["multipleOf"])) == 0
            )
        )
    except (TypeError, ValueError, ZeroDivisionError):  # a bound that is not a number
        return False


def _numbers(schema: Mapping[str, Any], *, integer: bool) -> SearchStrategy[Any]:
    """Numbers within the schema's bounds (and multiples of ``multipleOf``)."""
    lo, hi = schema.get("minimum"), schema.get("maximum")
    ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    step = schema.get("multipleOf")
    if not integer and step is None:
        lo = ex_lo if ex_lo is not None and (lo is None or ex_lo >= lo) else lo
        hi = ex_hi if ex_hi is not None and (hi is None or ex_hi <= hi) else hi
        lo, hi = _bounded(lo, hi, SIZE_BOUND)
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False,
                         exclude_min=lo is not None and lo == ex_lo,
                         exclude_max=hi is not None and hi == ex_hi)  # fmt: skip
    unit = Fraction(str(step)) if step is not None else Fraction(1)
    if integer:  # the integer multiples of p/q are the multiples of p
        unit = Fraction(unit.numerator)
    lows = [math.ceil(Fraction(lo) / unit)] if lo is not None else []
    lows += [math.floor(Fraction(ex_lo) / unit) + 1] if ex_lo is not None else []
    highs = [math.floor(Fraction(hi) / unit)] if hi is not None else []
    highs += [math.ceil(Fraction(ex_hi) / unit) - 1] if ex_hi is not None else []
    low, high = _bounded(
        max(lows, default=None), min(highs, default=None), max(1, math.floor(SIZE_BOUND / unit))
    )
    numbers: SearchStrategy[Any] = st.integers(low, high)
    if unit != 1:  # multiples of the unit (a plain integer is its own: no map to draw through)
        numbers = numbers.map(lambda k: int(k * unit) if unit.denominator == 1 else float(k * unit))
    if ex_lo is None and ex_hi is None:
        return numbers
    # Rounding to a float may land on an exclusive bound.
    return numbers.filter(_Between(ex_lo, ex_hi))


class _Between:
    """A filter: strictly between the exclusive bounds given (an object: no source to read)."""

    __slots__ = ("_high", "_low")

    def __init__(self, low: Any, high: Any) -> None:
        self._low, self._high = low, high

    def __call__(self, value: Any) -> bool:
        return (self._low is None or value > self._low) and (
            self._high is None or value < self._high
        )

    def __repr__(self) -> str:
        return f"_Between({self._low!r}, {self._high!r})"


def _bounded(lo: _N | None, hi: _N | None, bound: int) -> tuple[_N, _N]:
    """``lo``/``hi`` where given, else within ``bound`` (and of each other)."""
    if lo is None:
        lo = min(-bound, hi - 2 * bound) if hi is not None else -bound
    if hi is None:
        hi = max(bound, lo + 2 * bound)
    return lo, hi


def _out_of_bounds(schema: Mapping[str, Any]) -> list[SearchStrategy[Any]]:
    """Values of the right type that break an enum, a bound, a length or a multiple."""
    enum = [schema["const"]] if "const" in schema else schema.get("enum")
    if enum is not None:
        if all(isinstance(v, str) for v in enum):
            return [st.text(max_size=TEXT_BOUND).map(Outside(enum))]
        if all(type(v) is int for v in enum):
            return [st.integers(-SIZE_BOUND, SIZE_BOUND).map(Outside(enum))]
        return []
    kinds, get = _types(schema), schema.get
    out: list[SearchStrategy[Any]] = []
    if kinds == ["string"]:
        if get("minLength", 0) > 0:
            out.append(st.text(max_size=get("minLength", 0) - 1))
        if get("maxLength") is not None:
            out.append(st.text(min_size=get("maxLength", 0) + 1, max_size=get("maxLength", 0) + 4))
    elif kinds in (["integer"], ["number"]):
        integer = kinds == ["integer"]
        out += [_numbers({_BEYOND[k]: schema[k]}, integer=integer) for k in _BEYOND if k in schema]
        step = Fraction(str(get("multipleOf", 1))).numerator
        if integer and step > 1:
            out.append(st.integers(-SIZE_BOUND, SIZE_BOUND).map(lambda k: k * step + 1))
    elif kinds == ["array"]:
        distinct = st.integers(-(10**6), 10**6)  # distinct, so a set cannot collapse them
        if get("minItems", 0) > 0:
            out.append(st.lists(distinct, unique=True, max_size=get("minItems", 0) - 1))
        if get("maxItems") is not None:
            size = get("maxItems", 0) + 1
            out.append(st.lists(distinct, unique=True, min_size=size, max_size=size + 2))
    return out


def violations(
    root: Schema, schema: Mapping[str, Any], *, strict: bool = False, reserved: Iterable[str] = ()
) -> list[SearchStrategy[dict[str, Any]]]:
    """One strategy per way to break an object: drop, mistype, overflow, add."""
    valid = root.objects(schema, "#")
    properties: Mapping[str, Any] = schema.get("properties", {})
    out = []
    # What is dropped or replaced is not drawn first (one draw less per call).
    if schema.get("required"):
        # One way to break it, as before, whatever the number of required names (a nested
        # one_of would be flattened into the caller's, one branch per name).
        names = list(dict.fromkeys(schema["required"]))
        out.append(st.one_of([root.objects(schema, "#", leave_out=n) for n in names]).map(dict))
    for name, sub in properties.items():
        bad_values = root.wrong(sub, f"#/properties/{name}")
        if bad_values:
            rest = root.objects(schema, "#", leave_out=name)
            out += [st.tuples(bad, rest).map(functools.partial(_keyed, name)) for bad in bad_values]
    if strict or schema.get("additionalProperties") is False:
        taken = {*properties, *reserved}
        key = st.text(max_size=12).map(Outside(taken))
        out.append(st.tuples(key, _unknown_value(), valid).map(lambda p: with_key(*p)))
    return out


@functools.cache
def _any_json() -> SearchStrategy[Any]:
    """Any JSON value (where a schema accepts anything): one strategy, built once."""
    from pytest_mcpfusion.strategies import json_values  # noqa: PLC0415 - strategies imports this module

    return json_values()


@functools.cache
def _unknown_value() -> SearchStrategy[Any]:
    """The value of an unknown key: any JSON type, hostile text, nested one level.

    The key is what the server must refuse, whatever its value; the value
    still carries hostile text, in a list or an object too, for a server
    that echoes what it refuses. Not ``json_values()``: its ``recursive``
    draws cost 2.8-4 ms each, half of an invalid test's draws (issue 28).
    """
    from pytest_mcpfusion.strategies import hostile_text  # noqa: PLC0415 - strategies imports this module

    text = hostile_text()
    numbers = st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    leaf = st.none() | st.booleans() | numbers | text
    return leaf | st.lists(leaf, max_size=3) | st.dictionaries(text, leaf, max_size=2)
