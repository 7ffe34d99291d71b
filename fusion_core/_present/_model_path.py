"""The model path of a mask: model validation and the declared schema's serializer.

What a :class:`~fusion_core._present._mask.Mask` falls back to when a model
cannot be mirrored by a derived schema, or the data is not plain (a model
instance, an object read by attributes): correct, and slower. See
:func:`model_path` for what it writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, TypeAdapter

from fusion_core._present._extras import (
    allows_extras,
    as_declared,
    cut_to,
    drop_spelled_extras,
    drop_typed_dict_extras,
    open_typed_dicts,
    revalidated_with_extras,
)
from fusion_core._present._pydantic_core_internals import core_schema_of
from fusion_core._present._sets import SetPlan, resort, set_plan

__all__ = ["model_path", "own_dump"]


def _overrides(model: type[BaseModel]) -> set[str]:
    """Which of ``model_dump``, ``__get_pydantic_core_schema__`` the model (or a base) overrides."""
    return {
        name
        for klass in model.__mro__
        if klass is not BaseModel and issubclass(klass, BaseModel)
        for name in ("model_dump", "__get_pydantic_core_schema__")
        if name in klass.__dict__
    }


def own_dump(model: type[BaseModel]) -> bool:
    """The model (or a base below BaseModel) overrides how it dumps itself."""
    return bool(_overrides(model))


def model_path(model: type[BaseModel]) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """Mask one value and a list by model validation and the declared schema's serializer.

    The serializer is the declared model's, not the validated instance's: a
    subclass instance (validation keeps it as it is) is written with the
    declared fields only, at any depth, as ``TypeAdapter(model).dump_python``
    writes it; a value that does not fit its declared type (an instance
    changed after validation, a subclass's field of another type) is an
    error (``warnings="error"``), never written by inference. Extras spelled
    like a declared field are dropped first (``fusion_core._present._extras``).
    The lists written from the schema's sets are then put in ``to_json``'s
    order (``fusion_core._present._sets``); a model overriding ``model_dump``
    keeps its own.
    """
    adapters: list[TypeAdapter[Any]] = []  # built on first use: it costs a schema build

    def adapter() -> TypeAdapter[Any]:
        if not adapters:
            adapters.append(TypeAdapter(list[model]))  # type: ignore[valid-type]
        return adapters[0]

    schema = core_schema_of(model)
    clean_one = _cleaner(schema)
    revalidated = revalidated_with_extras(schema)
    validate_one = model.__pydantic_validator__.validate_python

    def validate(value: Any) -> Any:
        return clean_one(validate_one(as_declared(value, revalidated) if revalidated else value))

    def validate_many(values: Any) -> Any:
        items = adapter().validate_python(
            as_declared(values, revalidated) if revalidated else values
        )
        return items if clean_one is _same else [clean_one(item) for item in items]

    if "model_dump" in _overrides(model):
        # The model's own model_dump runs on an instance of the model itself:
        # on a subclass instance, its super().model_dump() would use the
        # subclass's serializer (all its fields).
        def declared(instance: Any) -> Any:
            return instance if type(instance) is model else cut_to(instance, model)

        def dump_own(value: Any) -> Any:
            return model.model_dump(declared(validate(value)), mode="json")

        def dump_own_many(values: Any) -> Any:
            return [model.model_dump(declared(item), mode="json") for item in validate_many(values)]

        return dump_own, dump_own_many
    serializer = model.__pydantic_serializer__

    def write(instance: Any) -> Any:
        return serializer.to_python(instance, mode="json", warnings="error")

    def write_many(instances: Any) -> Any:
        return adapter().dump_python(instances, mode="json", warnings="error")

    plan, refs = (None, {}) if own_dump(model) else set_plan(model)
    if plan is None:
        return (lambda value: write(validate(value))), (
            lambda values: write_many(validate_many(values))
        )
    found: SetPlan = plan

    def sorted_one(value: Any) -> Any:
        instance = validate(value)
        return resort(found, refs, instance, write(instance))

    def sorted_many(values: Any) -> Any:
        instances = validate_many(values)
        dumped = write_many(instances)
        return [resort(found, refs, i, d) for i, d in zip(instances, dumped, strict=True)]

    return sorted_one, sorted_many


def _same(value: Any) -> Any:
    return value


def _cleaner(schema: Any) -> Callable[[Any], Any]:
    """What removes, from one validated instance, the extras spelled like a declared field."""
    spelled = drop_spelled_extras if allows_extras(schema) else _same
    if not open_typed_dicts(schema):
        return spelled

    def clean(value: Any) -> Any:
        return drop_typed_dict_extras(spelled(value), schema, {})

    return clean
