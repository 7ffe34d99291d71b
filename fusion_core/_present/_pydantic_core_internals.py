"""What the Presenter reads of pydantic-core's schemas: the one place that knows their shape.

Checked against pydantic-core 2.50.5 (pydantic 2.14.4).

A Presenter derives its fast validator from a model's own core schema
(``model.__pydantic_core_schema__``, ``fusion_core._present._mask``) and
walks that schema for extras (``_extras``), sets (``_sets``) and the names an
error path may show (``_redact``). pydantic documents the ``core_schema``
constructors, not the dicts a built model carries: their node types, the
keys of a model node and of its fields, where a default, a reference or a
decorator sits. What those walks rely on is defined here, and
``tests/fusion_core/_present/test_pydantic_core_internals.py`` fails, naming
the difference, when an upgrade changes any of it: a node type added or
removed, a key renamed, the shape of a plain model's schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic_core import CoreSchema

__all__ = [
    "CHECKED_AGAINST",
    "CHILD_KEYS",
    "DECORATORS",
    "MODEL_FIELD_KEYS",
    "NOT_SCHEMA_KEYS",
    "SCHEMA_TYPES",
    "core_schema_of",
    "schema_nodes",
]

CHECKED_AGAINST: Final = "2.50.5"
"""The pydantic-core version whose schema shape this module was checked against."""

SCHEMA_TYPES: Final = frozenset(
    {"any", "arguments", "arguments-v3", "bool", "bytes", "call", "callable", "chain",
     "complex", "counter", "custom-error", "dataclass", "dataclass-args", "date", "datetime",
     "decimal", "default", "definition-ref", "definitions", "deque", "dict", "ellipsis",
     "enum", "float", "fraction", "frozendict", "frozenset", "function-after",
     "function-before", "function-plain", "function-wrap", "generator", "int", "invalid",
     "is-instance", "is-subclass", "json", "json-or-python", "lax-or-strict", "list",
     "literal", "missing-sentinel", "model", "model-fields", "multi-host-url", "named-tuple",
     "none", "nullable", "ordered-dict", "set", "str", "tagged-union", "time", "timedelta",
     "tuple", "typed-dict", "union", "url", "uuid"}
)  # fmt: skip
"""Every node type (``"type"``) of that version: the mask's allow-list is decided over these.

A new type is not mirrored by the fast path (it takes the model path, which
is correct); the test says when the list changed, so that the allow-list is
reviewed.
"""

CHILD_KEYS: Final = ("schema", "items_schema", "keys_schema", "values_schema")
"""The keys under which a node holds its one child schema."""

MODEL_FIELD_KEYS: Final = frozenset(
    {"type", "schema", "validation_alias", "serialization_alias", "serialization_exclude",
     "frozen", "metadata"}
)  # fmt: skip
"""The model-field keys a derived typed-dict field mirrors; any other key takes the model path."""

DECORATORS: Final = (
    "validators", "field_validators", "root_validators", "field_serializers",
    "model_serializers", "model_validators", "computed_fields",
)  # fmt: skip
"""The attributes of a model's ``__pydantic_decorators__`` that put Python code on it."""

NOT_SCHEMA_KEYS: Final = frozenset({"default", "metadata", "cls"})
"""Keys whose values are data, not schema: a walk of the schema never enters them."""


def core_schema_of(model: type[BaseModel]) -> CoreSchema:
    """The core schema pydantic built for ``model`` (``__pydantic_core_schema__``)."""
    return model.__pydantic_core_schema__


def schema_nodes(
    schema: Any, skipped: frozenset[str] = NOT_SCHEMA_KEYS
) -> Iterator[dict[str, Any]]:
    """Every dict node of a core schema, each once, depth first; ``skipped`` keys not entered.

    Lists and tuples are walked into (choices, definitions, a union choice's
    ``(schema, label)`` pair); anything else is a leaf.
    """
    stack = [schema]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, list | tuple):
            stack.extend(node)
        elif isinstance(node, dict):
            yield node
            stack.extend(value for key, value in node.items() if key not in skipped)
