"""Which path a mask takes, and why: ``Mask.fast`` and ``Mask.reason`` for every cause.

The fast path is an optimization of the model path, so a wrong choice can hide
from output comparisons (both paths give the same bytes for most data). These
tables pin the choice itself: each behaviour the derived schema cannot mirror
sends the model to the model path with a reason naming it; plain models stay fast.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal

import pytest
from pydantic import (
    MISSING,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    RootModel,
    computed_field,
    field_validator,
)

from fusion_core._present._mask import Mask


class Plain(BaseModel):
    id: int


class Color(enum.Enum):
    RED = "red"


class Serialized(BaseModel):
    card: Annotated[str, PlainSerializer(lambda _v: "****")]


@dataclasses.dataclass
class Point:
    x: int


class HoldsDataclass(BaseModel):
    point: Point


class CustomInit(BaseModel):
    id: int

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)


class Root(RootModel[list[int]]):
    pass


class PostInit(BaseModel):
    id: int

    def model_post_init(self, context: Any, /) -> None:
        del context


class Validated(BaseModel):
    id: int

    @field_validator("id")
    @classmethod
    def _same(cls, value: int) -> int:
        return value


class Computed(BaseModel):
    id: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def double(self) -> int:
        return 2 * self.id


class ByAlias(BaseModel):
    model_config = ConfigDict(serialize_by_alias=True)
    id: int = Field(alias="_id")


class AllowAliased(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: int = Field(alias="_id")


class ExcludeIf(BaseModel):
    id: int = Field(exclude_if=lambda value: value == 0)


class Cat(BaseModel):
    meow: int


class Dog(BaseModel):
    bark: int


class UnionOfModels(BaseModel):
    pet: Cat | Dog


class UnionOfListsOfModels(BaseModel):
    pets: list[Cat] | int


class UnionOfTuplesOfModels(BaseModel):
    pair: tuple[Cat, int] | int


class OwnDump(BaseModel):
    id: int

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        del kwargs
        return {}


MODEL_PATH: dict[str, tuple[type[BaseModel], str]] = {
    "a serializer on a field's type": (Serialized, "a serializer on a str schema"),
    "a dataclass field": (HoldsDataclass, "a dataclass schema"),
    "a custom __init__": (
        CustomInit,
        "CustomInit has a custom __init__, a root or a post-init hook",
    ),
    "a root model": (Root, "Root has a custom __init__, a root or a post-init hook"),
    "a post-init hook": (PostInit, "PostInit has a custom __init__, a root or a post-init hook"),
    "a field validator": (Validated, "Validated has validators, serializers or computed fields"),
    "a computed field": (Computed, "Computed has validators, serializers or computed fields"),
    "serialization by alias": (ByAlias, "ByAlias serializes by alias"),
    "extra=allow with aliases": (AllowAliased, "AllowAliased allows extra keys and has aliases"),
    "exclude_if": (ExcludeIf, "ExcludeIf.id has ['serialization_exclude_if']"),
    "a union of models": (UnionOfModels, "a union of models"),
    "a union of lists of models": (UnionOfListsOfModels, "a union of models"),
    "a union of tuples of models": (UnionOfTuplesOfModels, "a union of models"),
    "an overridden model_dump": (OwnDump, "OwnDump overrides model_dump or its schema"),
}


@pytest.mark.parametrize("name", list(MODEL_PATH))
def test_what_the_derived_schema_cannot_mirror_takes_the_model_path(name: str) -> None:
    """Each cause sends the model to the model path, and ``reason`` names it."""
    model, reason = MODEL_PATH[name]
    mask = Mask(model)
    assert (mask.fast, mask.reason) == (False, reason)
    assert repr(mask) == f"Mask({model.__qualname__}, fast=False)"


class Nested(BaseModel):
    plain: Plain
    plains: list[Plain]
    by_key: dict[str, Plain]
    maybe: Plain | None = None


class Hidden(BaseModel):
    id: int
    secret: str = Field(default="", exclude=True)
    gone: int | MISSING = Field(default=MISSING, exclude=True)


class Tagged(BaseModel):
    kind: Literal["a", "b"]
    pets: list[Cat] = []


class Recursive(BaseModel):
    children: list[Recursive] = []


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    id: int = Field(alias="_id")


FAST: dict[str, type[BaseModel]] = {
    "a plain model": Plain,
    "nested models, lists and dicts of them": Nested,
    "hidden fields, a MISSING default": Hidden,
    "literals and lists of models": Tagged,
    "a recursive model": Recursive,
    "a strict config, aliases, extra=forbid": Strict,
}


@pytest.mark.parametrize("name", list(FAST))
def test_plain_models_take_the_fast_path(name: str) -> None:
    """What the derived schema mirrors stays fast, with no reason."""
    mask = Mask(FAST[name])
    assert (mask.fast, mask.reason) == (True, None)
    assert repr(mask) == f"Mask({FAST[name].__qualname__}, fast=True)"


def test_hidden_fields_are_dropped_on_the_fast_path() -> None:
    """Hidden fields, present (a default) or absent (MISSING), never leave the mask."""
    mask = Mask(Hidden)
    assert mask.one({"id": 1, "secret": "s", "gone": 2}) == {"id": 1}
    assert mask.one({"id": 1}) == {"id": 1}
    assert mask.many([{"id": 1, "gone": 2}, {"id": 2}]) == [{"id": 1}, {"id": 2}]


class OneHidden(BaseModel):
    id: int
    secret: str = Field(exclude=True)


def test_one_required_hidden_field_is_dropped_from_every_row() -> None:
    """The single always-present hidden field is removed from each row of a list."""
    mask = Mask(OneHidden)
    assert mask.fast
    assert mask.many([{"id": 1, "secret": "a"}, {"id": 2, "secret": "b"}]) == [
        {"id": 1},
        {"id": 2},
    ]
    assert mask.one({"id": 3, "secret": "c"}) == {"id": 3}


def test_data_the_fast_path_refuses_gets_the_model_paths_answer() -> None:
    """A model instance is no dict: the model path validates it and gives the same dict."""
    mask = Mask(Nested)
    instance = Nested(plain=Plain(id=1), plains=[Plain(id=2)], by_key={"k": Plain(id=3)})
    expected = instance.model_dump(mode="json")
    assert mask.one(instance) == expected
    assert mask.many([instance]) == [expected]


class JsonLiterals(BaseModel):
    kind: Literal["a", 1, True, None]


class EnumLiteral(BaseModel):
    kind: Literal[Color.RED]


def test_literals_of_json_values_need_no_serializer_pass() -> None:
    """Literal str/int/bool/None values are their JSON form; an Enum literal is converted."""
    assert Mask(JsonLiterals)._dump_one is None
    assert Mask(EnumLiteral)._dump_one is not None
    assert Mask(EnumLiteral).one({"kind": Color.RED}) == {"kind": "red"}
