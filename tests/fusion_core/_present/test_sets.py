"""Set order on both mask paths (``fusion_core._present._sets``): declared sets come sorted."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, GetPydanticSchema, PlainSerializer, model_serializer
from pydantic_core import core_schema as cs

from fusion_core import Presenter, to_json
from fusion_core._present._mask import Mask
from fusion_core._present._sets import set_plan

# Members whose hash order is not their sorted order in (nearly) every process.
WORDS = frozenset({"delta", "alpha", "gamma", "beta", "omega", "kappa", "sigma", "tau"})
SORTED = sorted(WORDS)


class Node(BaseModel):
    """A recursive model: its sets are reached through a definition reference."""

    tags: set[str]
    children: list[Node] = []


class Shapes(BaseModel):
    """Sets in every container the plan follows."""

    plain: set[str]
    frozen: frozenset[str]
    nested: list[set[str]]
    by_key: dict[str, frozenset[str]]
    variadic: tuple[set[str], ...]
    pair: tuple[int, set[str]]
    either: set[str] | int
    optional: set[str] | None = None
    node: Node | None = None


class SlowShapes(Shapes):
    """The same shapes on the model path."""

    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


ROW: dict[str, Any] = {
    "plain": set(WORDS),
    "frozen": WORDS,
    "nested": [set(WORDS), set()],
    "by_key": {"k": WORDS},
    "variadic": (set(WORDS), set(WORDS)),
    "pair": (1, set(WORDS)),
    "either": set(WORDS),
    "optional": set(WORDS),
    "node": {"tags": set(WORDS), "children": [{"tags": set(WORDS)}]},
}
EXPECTED = {
    "plain": SORTED,
    "frozen": SORTED,
    "nested": [SORTED, []],
    "by_key": {"k": SORTED},
    "variadic": [SORTED, SORTED],
    "pair": [1, SORTED],
    "either": SORTED,
    "optional": SORTED,
    "node": {"tags": SORTED, "children": [{"tags": SORTED, "children": []}]},
}


@pytest.mark.parametrize(("schema", "fast"), [(Shapes, True), (SlowShapes, False)])
def test_every_declared_set_is_written_sorted(schema: type[BaseModel], fast: bool) -> None:
    """Lists, dict values, tuples, unions, optionals and recursive models: all sorted."""
    presenter = Presenter("Shapes", schema)
    assert Mask(schema).fast is fast
    one = json.loads(presenter.make(ROW).build().texts[0])
    one.pop("card", None)
    assert one == EXPECTED
    many = json.loads(presenter.make([ROW, ROW]).build().texts[0])
    assert [{k: v for k, v in item.items() if k != "card"} for item in many] == [EXPECTED] * 2


class Unions(BaseModel):
    """Unions holding a set: the set's sorter declines what is not a set."""

    first: list[set[str] | str]
    last: list[str | set[str]]
    by_key: dict[str, set[int] | int]


@pytest.mark.parametrize("schema", [Unions], ids=["fast path"])
def test_a_union_member_that_is_no_set_is_written_as_itself(schema: type[BaseModel]) -> None:
    """A str next to a set in a union stays a str (not a one-member list)."""
    assert Mask(schema).fast
    row = {"first": ["s", WORDS], "last": [WORDS, "s"], "by_key": {"a": 1, "b": {3, 2}}}
    text = Presenter("Unions", schema).make(row).build().texts[0]
    assert json.loads(text) == {
        "first": ["s", SORTED],
        "last": [SORTED, "s"],
        "by_key": {"a": 1, "b": [2, 3]},
    }


class Mixed(BaseModel):
    """Members that do not compare: in the documented set order, as to_json sorts them."""

    values: set[int | str]
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


@pytest.mark.parametrize("schema", [Mixed], ids=["model path"])
def test_unorderable_members_follow_to_json(schema: type[BaseModel]) -> None:
    """A set of int and str members is written in to_json's order of the same set."""
    members = {3, "b", 1, "a", 22}
    text = Presenter("Mixed", schema).make({"values": members}).build().texts[0]
    assert json.loads(text)["values"] == json.loads(to_json(members))


class OwnSerializer(BaseModel):
    """A model_serializer returns what it likes: the user's own serializer is left alone."""

    tags: set[str]

    @model_serializer
    def _dump(self) -> dict[str, Any]:
        return {"count": len(self.tags)}


def test_a_model_serializer_is_left_alone() -> None:
    """No plan for a model that writes itself: its own output passes as it is."""
    assert set_plan(OwnSerializer) == (None, {})
    text = Presenter("Own", OwnSerializer).make({"tags": WORDS}).build().texts[0]
    assert json.loads(text) == {"count": len(WORDS)}


def test_a_model_without_sets_has_no_plan() -> None:
    """The model path adds no work to a schema without sets."""
    assert set_plan(SlowShapes)[0] is not None

    class Plain(BaseModel):
        name: str
        tags: list[str]

    assert set_plan(Plain)[0] is None


class SchemaLikeDefault(BaseModel):
    """A default value shaped like a set schema: a value, never rewritten as a schema."""

    tags: set[str]
    shape: dict[str, str] = {"type": "set", "items_schema": "str"}


@pytest.mark.parametrize("schema", [SchemaLikeDefault], ids=["fast path"])
def test_values_inside_the_schema_are_not_read_as_schemas(schema: type[BaseModel]) -> None:
    """Defaults, metadata and config are values: the set sorter never touches them."""
    assert Mask(schema).fast
    text = Presenter("Shape", schema).make({"tags": WORDS}).build().texts[0]
    assert json.loads(text) == {"tags": SORTED, "shape": {"type": "set", "items_schema": "str"}}


class Branch(BaseModel):
    """A recursive model reached through a union and a tuple (refs resolved there too)."""

    tags: set[str]
    kids: list[Branch] | int = 0
    pair: tuple[Branch, int] | None = None
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


def test_recursive_sets_behind_unions_and_tuples_are_sorted() -> None:
    """The model path follows a definition reference inside a union and a tuple."""
    assert not Mask(Branch).fast
    row = {"tags": WORDS, "kids": [{"tags": WORDS}], "pair": ({"tags": WORDS}, 1)}
    out = json.loads(Presenter("Branch", Branch).make(row).build().texts[0])
    assert out["tags"] == out["kids"][0]["tags"] == out["pair"][0]["tags"] == SORTED


_SET = cs.set_schema(cs.str_schema())
# tuple[set[str], *tuple[int, ...], frozenset[str]] and tuple[int, *tuple[set[str], ...], int]:
# pydantic has no syntax for them, but a core schema (a custom type's) can say it.
Sandwich = Annotated[
    tuple[Any, ...],
    GetPydanticSchema(
        lambda _t, _h: cs.tuple_schema(
            [_SET, cs.int_schema(), cs.frozenset_schema(cs.str_schema())], variadic_item_index=1
        )
    ),
]
Filling = Annotated[
    tuple[Any, ...],
    GetPydanticSchema(
        lambda _t, _h: cs.tuple_schema(
            [cs.int_schema(), _SET, cs.int_schema()], variadic_item_index=1
        )
    ),
]


class Variadic(BaseModel):
    """Tuples whose variadic part is in the middle (``tuple[A, *B, C]``)."""

    outer: Sandwich
    middle: Filling


class SlowVariadic(Variadic):
    """The same tuples on the model path."""

    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


@pytest.mark.parametrize("count", [0, 1, 3])
@pytest.mark.parametrize(("schema", "fast"), [(Variadic, True), (SlowVariadic, False)])
def test_sets_around_and_inside_a_middle_variadic_part_are_sorted(
    schema: type[BaseModel], fast: bool, count: int
) -> None:
    """The first and last items keep their own plans, every middle item the variadic one."""
    assert Mask(schema).fast is fast
    row = {"outer": (WORDS, *range(count), WORDS), "middle": (7, *[set(WORDS)] * count, 8)}
    out = json.loads(Presenter("Variadic", schema).make(row).build().texts[0])
    assert out["outer"] == [SORTED, *range(count), SORTED]
    assert out["middle"] == [7, *[SORTED] * count, 8]


class Base(BaseModel):
    """A field's declared model type."""

    tags: set[str]


class Derived(Base):
    """A subclass instance given to a field typed ``Base``: written as a ``Base``."""

    more: int = 0


class HoldsBase(BaseModel):
    """The model path, with a field typed ``Base``."""

    inner: Base
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


def test_a_subclass_instance_in_a_model_field_has_its_sets_sorted() -> None:
    """The plan of the declared model applies to an instance of a subclass of it."""
    out = json.loads(
        Presenter("H", HoldsBase).make({"inner": Derived(tags=set(WORDS))}).build().texts[0]
    )
    assert out["inner"] == {"tags": SORTED}


class Leafy(BaseModel, frozen=True):
    """A hashable recursive model (a definition reference) with a set of its own."""

    tags: frozenset[str]
    kids: tuple[Leafy, ...] = ()


class Grove(BaseModel):
    """A set of recursive models on the model path."""

    trees: set[Leafy]
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


def test_sets_inside_a_set_of_recursive_models_are_sorted() -> None:
    """Each member model's own sets, down its references, and the set of members."""
    tree = Leafy(tags=WORDS, kids=(Leafy(tags=WORDS),))
    out = json.loads(Presenter("G", Grove).make({"trees": {tree}}).build().texts[0])
    assert out["trees"] == [{"tags": SORTED, "kids": [{"tags": SORTED, "kids": []}]}]


class Kitten(BaseModel):
    """A union member with a set."""

    kind: Literal["kitten"] = "kitten"
    toys: set[str]


class Puppy(BaseModel):
    """The other member."""

    kind: Literal["puppy"] = "puppy"
    bones: frozenset[str]


class Litter(BaseModel):
    """A union of models: the model path picks the member that wrote the value."""

    pets: list[Kitten | Puppy]


def test_sets_of_the_union_member_that_wrote_the_value_are_sorted() -> None:
    """Each item is resorted by the plan of its own member model."""
    assert not Mask(Litter).fast
    row = {"pets": [{"kind": "kitten", "toys": WORDS}, {"kind": "puppy", "bones": WORDS}]}
    out = json.loads(Presenter("L", Litter).make(row).build().texts[0])
    assert out["pets"] == [{"kind": "kitten", "toys": SORTED}, {"kind": "puppy", "bones": SORTED}]
