"""The reference a Presenter's data block is checked against: what the declared schema writes.

``model.model_validate(value).model_dump()`` is not that reference: validation
keeps a model instance as it is (a subclass instance too) and ``model_dump``
writes every field of the instance's own class. The declared schema's writer
is ``TypeAdapter(model).dump_python(validated)``; on top of it, the
Presenter's own rules:

* an extra key spelled like a declared field (its name, alias, serialization
  alias, any key its validation alias reads; a computed field's name and
  alias) is not written — ``model_dump``
  writes it, and lets it replace a field of that name;
* a value the declared type cannot write (an instance changed after
  validation) is an error (``warnings="error"``), not written by inference.

Written independently of ``fusion_core._present._extras``: from the field
infos, on copies.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import AliasChoices, AliasPath, BaseModel, TypeAdapter

__all__ = ["declared_dump", "field_spellings"]


def field_spellings(cls: type[BaseModel]) -> set[str]:
    """The keys of every field of ``cls`` and its model bases, under every spelling."""
    out: set[str] = set()
    for klass in cls.__mro__:
        if not (isinstance(klass, type) and issubclass(klass, BaseModel)):
            continue
        for name, info in klass.model_fields.items():
            out |= {name, *_keys(info.alias), *_keys(info.serialization_alias)}
            out |= set(_keys(info.validation_alias))
        for name, computed in klass.model_computed_fields.items():
            out |= {name, *_keys(computed.alias)}
    return out


def _keys(alias: Any) -> list[str]:
    if isinstance(alias, str):
        return [alias]
    if isinstance(alias, AliasPath):
        return [part for part in alias.path[:1] if isinstance(part, str)]
    if isinstance(alias, AliasChoices):
        return [key for choice in alias.choices for key in _keys(choice)]
    return []


def _cleaned(value: Any) -> Any:
    """A copy of ``value`` whose model instances keep no extra spelled like a field."""
    if isinstance(value, BaseModel):
        clone = copy.copy(value)
        for name, item in list(clone.__dict__.items()):
            clone.__dict__[name] = _cleaned(item)
        extra = value.__pydantic_extra__
        if extra is not None:
            names = field_spellings(type(value))
            kept = {key: _cleaned(item) for key, item in extra.items() if key not in names}
            object.__setattr__(clone, "__pydantic_extra__", kept)
        return clone
    if isinstance(value, dict):
        return {key: _cleaned(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_cleaned(item) for item in value]
    if isinstance(value, tuple) and not hasattr(value, "_make"):
        return tuple(_cleaned(item) for item in value)
    return value


@functools.lru_cache(maxsize=256)
def _adapter(declared: Any) -> TypeAdapter[Any]:
    return TypeAdapter(declared)


def declared_dump(declared: Any, value: Any) -> tuple[Any, Any]:
    """``(validated, written)``: ``value`` validated as ``declared`` and written as it declares.

    Raises ``ValueError`` (a ``ValidationError``, a serialization error) when
    the declared type refuses the value or cannot write it.
    """
    adapter = _adapter(declared)
    validated = _cleaned(adapter.validate_python(value))
    return validated, adapter.dump_python(validated, mode="json", warnings="error")
