"""The shape of pydantic-core's schemas that the Presenter reads: fails loudly when it changes.

``fusion_core._present._pydantic_core_internals`` names the pydantic-core
version it was checked against; these tests compare what it relies on with
the installed pydantic-core, so that an upgrade which renames a key or adds
a node type says so here rather than as a wrong byte on the wire.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Literal

import pydantic_core
from pydantic import BaseModel, Field, field_validator
from pydantic._internal._decorators import DecoratorInfos
from pydantic_core import core_schema as cs

from fusion_core._present import _mask
from fusion_core._present._pydantic_core_internals import (
    CHECKED_AGAINST,
    CHILD_KEYS,
    DECORATORS,
    MODEL_FIELD_KEYS,
    NOT_SCHEMA_KEYS,
    SCHEMA_TYPES,
    core_schema_of,
    schema_nodes,
)

UPGRADE = (
    f"pydantic-core {pydantic_core.__version__} differs from {CHECKED_AGAINST}, which "
    "fusion_core._present._pydantic_core_internals was checked against: review the mask's "
    "allow-list (fusion_core._present._mask) and the schema walks, then update the module"
)


class _Line(BaseModel):
    sku: str
    qty: int = 1


class _Invoice(BaseModel):
    id: str
    status: Literal["paid", "open"]
    lines: list[_Line]
    secret: str = Field(default="", exclude=True)


def test_node_types_are_those_checked() -> None:
    """Every core-schema node type of the installed version is one the module knows, and back."""
    installed = frozenset(typing.get_args(cs.CoreSchemaType))
    assert installed - SCHEMA_TYPES == set(), f"new node types: {UPGRADE}"
    assert SCHEMA_TYPES - installed == set(), f"removed node types: {UPGRADE}"


def test_the_masks_tables_name_real_node_types() -> None:
    """The fast path's leaf and container types are all node types of the installed version."""
    for table in (_mask._JSON_NATIVE, _mask._CONVERTED, _mask._CONTAINERS):
        assert table <= SCHEMA_TYPES, (sorted(table - SCHEMA_TYPES), UPGRADE)


def test_model_field_keys_are_the_typed_dicts_keys() -> None:
    """The field keys the derived schema mirrors are keys of pydantic-core's ModelField."""
    declared = frozenset(cs.ModelField.__annotations__)
    assert declared >= MODEL_FIELD_KEYS, (sorted(MODEL_FIELD_KEYS - declared), UPGRADE)
    for key in CHILD_KEYS:
        holders = [t for t in vars(cs).values() if isinstance(t, type) and key in getattr(
            t, "__annotations__", {}
        )]  # fmt: skip
        assert holders, (key, UPGRADE)


def test_decorator_attributes_exist() -> None:
    """Every decorator kind the mask refuses is an attribute of pydantic's DecoratorInfos."""
    names = {field.name for field in dataclasses.fields(DecoratorInfos)}
    assert set(DECORATORS) == names, (sorted(names ^ set(DECORATORS)), UPGRADE)


def test_a_plain_models_schema_has_the_shape_the_walks_read() -> None:
    """A model node holds its class, config and a model-fields node of fields with schemas."""
    schema = core_schema_of(_Invoice)
    nodes = list(schema_nodes(schema))
    models = [node for node in nodes if node.get("type") == "model"]
    assert {node["cls"] for node in models} == {_Invoice, _Line}, UPGRADE
    invoice = next(node for node in models if node["cls"] is _Invoice)
    fields = invoice["schema"]
    assert fields["type"] == "model-fields", UPGRADE
    assert list(fields["fields"]) == ["id", "status", "lines", "secret"], UPGRADE
    assert fields["fields"]["secret"]["serialization_exclude"] is True, UPGRADE
    assert fields["fields"]["secret"]["schema"]["type"] == "default", UPGRADE
    assert fields["fields"]["lines"]["schema"]["type"] == "list", UPGRADE
    assert not NOT_SCHEMA_KEYS & {"schema", "fields", "items_schema"}


def test_schema_nodes_skips_data_and_visits_each_node_once() -> None:
    """The walk never enters a default's value and yields a shared node once."""
    shared = cs.int_schema()
    default = {"type": "str"}  # data that looks like a schema: a default value
    schema = cs.union_schema(
        [cs.with_default_schema(shared, default=default), cs.list_schema(shared)]
    )
    kinds = [node["type"] for node in schema_nodes(schema)]
    assert kinds.count("int") == 1
    assert "str" not in kinds
    assert sorted(kinds) == ["default", "int", "list", "union"]


def test_a_validator_sends_the_model_to_the_model_path() -> None:
    """What the decorator check reads (``__pydantic_decorators__``) still finds a validator."""

    class Checked(BaseModel):
        name: str

        @field_validator("name")
        @classmethod
        def _strip(cls, value: str) -> str:
            return value.strip()

    mask = _mask.Mask(Checked)
    assert not mask.fast
    assert mask.reason is not None
    assert "validators" in mask.reason
