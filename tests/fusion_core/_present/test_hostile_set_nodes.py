"""Hostile set places: a set in every kind of schema node is written sorted on the model path.

The model path's planner (``fusion_core._present._sets.set_plan``) once knew only the
nodes it planned (models, lists, dicts, tuples, unions...) and took any other
node for one that cannot hold a set: a set inside a dataclass, a ``TypedDict``,
a ``NamedTuple``, a ``RootModel``, a ``Json[...]`` field or a field with a
``PlainValidator`` was written in hash order (other bytes in another process).
Unknown kinds are now walked by inference; each row here is one node kind a
set can sit in, written once and as a list of two (``make(row)`` and
``make([row, row])`` take different paths), and compared with the documented
order. Aliases, excluded fields and serializers of the user's own are here too.
"""

from __future__ import annotations

import dataclasses
import json
from collections import deque
from datetime import timedelta
from typing import Annotated, Any, NamedTuple, NotRequired

import pytest
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetPydanticSchema,
    InstanceOf,
    Json,
    PlainSerializer,
    PlainValidator,
    RootModel,
)
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic_core import core_schema as cs
from typing_extensions import TypedDict

from fusion_core import Presenter
from fusion_core._present._mask import Mask

# {1, 8} and {2, 9} iterate as [8, 1] and [9, 2]: a member's own list is sorted too.
MEMBERS = frozenset({frozenset({1, 8}), frozenset({3}), frozenset({2, 9}), frozenset()})
EXPECTED = [[], [1, 8], [2, 9], [3]]
WORDS = frozenset({"delta", "alpha", "gamma", "beta", "omega", "kappa", "sigma", "tau"})


@dataclasses.dataclass
class Bag:
    """A stdlib dataclass field: pydantic writes its fields by their schemas."""

    members: set[frozenset[int]]
    own: Annotated[frozenset[int], PlainSerializer(lambda v: sorted(v, reverse=True))] = frozenset()


class Typed(TypedDict):
    """A ``TypedDict`` field."""

    members: set[frozenset[int]]


class Open(TypedDict):
    """A ``TypedDict`` that keeps extra keys (written by inference) next to declared ones."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]
    name: str
    own: NotRequired[Annotated[frozenset[int], PlainSerializer(lambda v: sorted(v, reverse=True))]]


class Pair(NamedTuple):
    """A ``NamedTuple`` field: written as a list of its items."""

    first: int
    members: set[frozenset[int]]


class Members(RootModel[set[frozenset[int]]]):
    """A root model: written as its root value."""


class Nodes(BaseModel):
    """One field per node kind the planner must see through (the model path)."""

    bag: Bag | None = None
    typed: Typed | None = None
    open: Open | None = None
    pair: Pair | None = None
    root: Members | None = None
    anything: Any = None
    validated: Annotated[Any, PlainValidator(lambda v: frozenset(map(frozenset, v)))] = None
    instance: InstanceOf[frozenset[frozenset[int]]] | None = None
    parsed: Json[set[str]] | None = None
    queue: deque[set[frozenset[int]]] | None = None


# name: (the row's value of that field, the field as written)
ROWS: dict[str, tuple[dict[str, Any], Any]] = {
    "dataclass": (
        {"bag": Bag(set(MEMBERS), frozenset({1, 8, 3}))},
        {"members": EXPECTED, "own": [8, 3, 1]},
    ),
    "typed-dict": ({"typed": {"members": set(MEMBERS)}}, {"members": EXPECTED}),
    "typed-dict-extras": (
        {"open": {"name": "n", "own": {1, 8, 3}, "more": set(MEMBERS)}},
        {"name": "n", "own": [8, 3, 1], "more": EXPECTED},
    ),
    "named-tuple": ({"pair": (1, set(MEMBERS))}, [1, EXPECTED]),
    "root-model": ({"root": set(MEMBERS)}, EXPECTED),
    "root-model-in-any": ({"anything": Members(set(MEMBERS))}, EXPECTED),
    "plain-validator": ({"validated": [[1, 8], [3], [2, 9], []]}, EXPECTED),
    "instance-of": ({"instance": MEMBERS}, EXPECTED),
    "json": ({"parsed": json.dumps(sorted(WORDS, reverse=True))}, sorted(WORDS)),
    "deque": ({"queue": [set(MEMBERS)]}, [EXPECTED]),
    "deque-in-any": ({"anything": deque([set(MEMBERS)])}, [EXPECTED]),
}


def _field(row: dict[str, Any]) -> str:
    return next(iter(row))


@pytest.mark.parametrize(("row", "expected"), list(ROWS.values()), ids=list(ROWS))
def test_a_set_in_any_kind_of_schema_node_is_written_sorted(
    row: dict[str, Any], expected: Any
) -> None:
    """Each node kind, one row and a list of rows: the set and its members in to_json's order."""
    assert not Mask(Nodes).fast
    presenter = Presenter("Nodes", Nodes)
    name = _field(row)
    one = json.loads(presenter.make(row).build().texts[0])
    assert one[name] == expected
    many = json.loads(presenter.make([row, dict(row)]).build().texts[0])
    assert [item[name] for item in many] == [expected, expected]


class Aliased(BaseModel):
    """Serialization by alias (the model path): sets found under their aliases."""

    model_config = ConfigDict(serialize_by_alias=True)

    hidden: set[str] = Field(default_factory=set, exclude=True)
    tags: set[str] = Field(serialization_alias="labels")
    plain: set[str] = set()


class AliasedByName(BaseModel):
    """An alias that is not used for output (no ``serialize_by_alias``)."""

    tags: set[str] = Field(serialization_alias="labels")
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


def test_sets_under_aliases_and_after_excluded_fields_are_sorted() -> None:
    """An aliased field written by alias or by name, and a field after an excluded one."""
    row = {"hidden": set(WORDS), "tags": set(WORDS), "plain": set(WORDS)}
    out = json.loads(Presenter("A", Aliased).make(row).build().texts[0])
    assert out == {"labels": sorted(WORDS), "plain": sorted(WORDS)}
    out = json.loads(Presenter("B", AliasedByName).make({"tags": set(WORDS)}).build().texts[0])
    assert out == {"tags": sorted(WORDS), "card": "****"}


class Loose(BaseModel):
    """An ``Any`` field on the fast path."""

    anything: Any = None


class SlowLoose(Loose):
    """The same field on the model path."""

    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


class Keyed(BaseModel):
    """A typed dict field whose keys may collide once written."""

    anything: dict[int | float | str | None, set[str]] = {}


COLLIDING = {
    "int-str": ({1: {"x"}, "1": set(WORDS)}, "1"),
    "str-int": ({"1": {"x"}, 1: set(WORDS)}, "1"),
    "three": ({1: {"x"}, "1": {"y"}, 2: set(), "2": set(WORDS)}, "2"),
    "none": ({None: {"x"}, "None": set(WORDS)}, "None"),
    "float": ({1.5: {"x"}, "1.5": set(WORDS)}, "1.5"),
}


@pytest.mark.parametrize("schema", [Loose, SlowLoose, Keyed])
@pytest.mark.parametrize(("value", "key"), COLLIDING.values(), ids=list(COLLIDING))
def test_a_dict_whose_keys_collide_when_written_keeps_its_sets_sorted(
    schema: type[BaseModel], value: dict[Any, set[str]], key: str
) -> None:
    """``{1: .., "1": ..}`` is one key once written, holding the last value: its sets sorted.

    The walker paired a dict's values with the written keys by position, so
    with fewer keys it gave up and left the sets in hash order (other bytes
    in another process). Eight words: hash order is sorted once in 40,320.
    """
    out = json.loads(Presenter("L", schema).make({"anything": value}).build().texts[0])
    assert out["anything"][key] == sorted(WORDS)
    assert len(out["anything"]) == len({str(k) for k in value})


class FloatDeltas(BaseModel):
    """A model whose config writes a ``timedelta`` key as seconds (``"86400"``)."""

    model_config = ConfigDict(ser_json_timedelta="float")
    anything: Any = None


def test_keys_the_config_writes_its_own_way_are_never_paired_with_the_wrong_value() -> None:
    """``86400`` and ``timedelta(days=1)`` collide only under this config: the list stays as is.

    pydantic's default key writer says ``"P1D"`` for the timedelta, so pairing
    by it would take the *set* under ``86400`` for the value written there and
    sort the list that is really there: wrong bytes. Such keys are not paired.
    """
    words = sorted(WORDS, reverse=True)
    row = {"anything": {86400: set(WORDS), timedelta(days=1): words}}
    out = json.loads(Presenter("D", FloatDeltas).make(row).build().texts[0])
    assert out == {"anything": {"86400": words}}


Parity = Annotated[int, PlainSerializer(lambda k: str(k % 2))]
# A union whose choices carry labels, as a custom core schema may write them.
Labelled = Annotated[
    int | str,
    GetPydanticSchema(
        lambda _t, _h: cs.union_schema([(cs.int_schema(), "i"), (cs.str_schema(), "s")])
    ),
]


class SlowKeyed(BaseModel):
    """Typed dicts on the model path (a serializer elsewhere in the model)."""

    anything: dict[int | str, Any] = {}
    maybe: dict[str | None, Any] = {}
    labelled: dict[Labelled, Any] = {}
    parity: dict[Parity, Any] = {}
    parity_or_none: dict[Parity | None, Any] = {}
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


def test_a_typed_dict_pairs_colliding_keys_only_when_written_by_the_default_writer() -> None:
    """``dict[int | str, Any]``: the last value's sets sorted; a key serializer: left as written.

    ``parity`` writes 1 and 3 as ``"1"``: the default writer would pair
    ``"1"`` with the set under 1, not the list under 3 that is there.
    """
    words = sorted(WORDS, reverse=True)
    row = {
        "anything": {1: {"x"}, "1": set(WORDS)},
        "maybe": {None: {"x"}, "None": set(WORDS)},
        "labelled": {1: {"x"}, "1": set(WORDS)},
        "parity": {1: set(WORDS), 2: [], 3: words},
        "parity_or_none": {1: set(WORDS), None: [], 3: words},
    }
    out = json.loads(Presenter("K", SlowKeyed).make(row).build().texts[0])
    assert out["anything"] == {"1": sorted(WORDS)}
    assert out["maybe"] == {"None": sorted(WORDS)}
    assert out["labelled"] == {"1": sorted(WORDS)}
    assert out["parity"] == {"1": words, "0": []}
    assert out["parity_or_none"] == {"1": words, "None": []}


class AliasTyped(TypedDict):
    """A ``TypedDict`` field with an alias: written by alias when its model writes by alias."""

    tags: Annotated[set[str], Field(serialization_alias="labels")]


class OwnConfigTyped(TypedDict):
    """A ``TypedDict``'s own config is not what pydantic-core reads: its model's is."""

    __pydantic_config__ = ConfigDict(serialize_by_alias=True)  # type: ignore[misc]
    tags: Annotated[set[str], Field(serialization_alias="labels")]


@dataclasses.dataclass
class AliasBag:
    """A stdlib dataclass: it takes the config of the model it is used in."""

    tags: Annotated[set[str], Field(serialization_alias="labels")]


@pydantic_dataclass(config=ConfigDict(serialize_by_alias=True))
class OwnAliasBag:
    """A pydantic dataclass writing by alias by its own config."""

    tags: set[str] = Field(serialization_alias="labels")


class ByAlias(BaseModel):
    """A model writing by alias, with aliased sets in typed dicts and dataclasses."""

    model_config = ConfigDict(serialize_by_alias=True)

    typed: AliasTyped
    bag: AliasBag
    own_bag: OwnAliasBag


class ByName(BaseModel):
    """The same kinds under a model that writes by name (the model path)."""

    typed: OwnConfigTyped
    bag: AliasBag
    own_bag: OwnAliasBag
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


def test_aliased_sets_in_typed_dicts_and_dataclasses_are_found_where_pydantic_writes_them() -> None:
    """By alias or by name, as pydantic decides for each kind: every such set sorted."""
    row = {
        "typed": {"tags": set(WORDS)},
        "bag": AliasBag(set(WORDS)),
        "own_bag": OwnAliasBag(set(WORDS)),
    }
    labels = {"labels": sorted(WORDS)}
    out = json.loads(Presenter("A", ByAlias).make(row).build().texts[0])
    assert out == {"typed": labels, "bag": labels, "own_bag": labels}
    out = json.loads(Presenter("N", ByName).make(row).build().texts[0])
    tags = {"tags": sorted(WORDS)}
    assert out == {"typed": tags, "bag": tags, "own_bag": labels, "card": "****"}


class Shadowed(BaseModel):
    """An excluded set field whose name is another field's output alias."""

    model_config = ConfigDict(serialize_by_alias=True)

    hidden: set[str] = Field(default_factory=set, exclude=True)
    items: list[str] = Field(serialization_alias="hidden")


def test_an_excluded_set_never_reorders_the_field_written_under_its_name() -> None:
    """The list written as ``hidden`` keeps its order: the excluded set has no say in it."""
    items = sorted(WORDS, reverse=True)
    out = json.loads(
        Presenter("S", Shadowed).make({"hidden": set(WORDS), "items": items}).build().texts[0]
    )
    assert out == {"hidden": items}


def _descending(value: Any, write: Any) -> Any:
    return sorted(write(value), reverse=True)


class OwnWrap(BaseModel):
    """Serializers of the user's own, one with an explicit schema, one without a function."""

    tags: Annotated[
        set[str],
        GetPydanticSchema(
            lambda tp, handler: {
                **handler(tp),
                "serialization": cs.wrap_serializer_function_ser_schema(
                    _descending, schema=cs.any_schema()
                ),
            }
        ),
    ]
    count: Annotated[
        int,
        GetPydanticSchema(
            lambda tp, handler: {**handler(tp), "serialization": cs.to_string_ser_schema()}
        ),
    ] = 5
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


def test_a_wrap_serializer_of_your_own_with_a_schema_keeps_its_order() -> None:
    """Only pydantic's own pass-through serializer is seen through; the user's order stays."""
    out = json.loads(Presenter("W", OwnWrap).make({"tags": set(WORDS)}).build().texts[0])
    assert out == {"tags": sorted(WORDS, reverse=True), "count": "5", "card": "****"}


class Twig(BaseModel):
    """A recursive model: a typed dict and a root model reach it by a definition reference."""

    tags: frozenset[int]
    kids: list[Twig] = []


class TwigDict(TypedDict):
    """A ``TypedDict`` holding the recursive model."""

    twig: Twig


class Twigs(RootModel[list[Twig]]):
    """A root model holding the recursive model."""


class Forest(BaseModel):
    """Both on the model path."""

    typed: TwigDict
    root: Twigs
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


def test_recursive_models_inside_typed_dicts_and_root_models_have_their_sets_sorted() -> None:
    """References resolve below a typed dict and a root model."""
    twig = {"tags": frozenset({1, 8}), "kids": [{"tags": frozenset({2, 9})}]}
    written = {"tags": [1, 8], "kids": [{"tags": [2, 9], "kids": []}]}
    out = json.loads(
        Presenter("F", Forest).make({"typed": {"twig": twig}, "root": [twig]}).build().texts[0]
    )
    assert out == {"typed": {"twig": written}, "root": [written], "card": "****"}


# A set written by the user's own serializer, in descending order: every
# container kind must leave it as written (inference alone would re-sort it).
Descending = Annotated[frozenset[int], PlainSerializer(lambda v: sorted(v, reverse=True))]


class Kept(NamedTuple):
    """A named tuple holding the user's set."""

    own: Descending


class OwnInside(BaseModel):
    """The user's set in each container kind the planner walks structurally (the model path)."""

    listed: list[Descending] = []
    keyed: dict[str, Descending] = {}
    pair: tuple[Descending, int] | None = None
    many: tuple[Descending, ...] = ()
    either: Descending | str = ""
    optional: Descending | None = None
    kept: Kept | None = None
    members: set[Descending] = set()
    plain: tuple[int, str] = (0, "")
    numbers: Numbers | None = None
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


class Numbers(RootModel[list[int]]):
    """A root model without a set: no plan, written as it is."""


OwnInside.model_rebuild()


def test_a_serializer_of_your_own_inside_any_container_keeps_its_order() -> None:
    """Lists, dict values, tuples, unions, optionals, named tuples, set members: as written."""
    own = frozenset({1, 8, 3})
    row = {
        "listed": [own],
        "keyed": {"k": own},
        "pair": (own, 1),
        "many": (own, own),
        "either": own,
        "optional": own,
        "kept": (own,),
        "members": {frozenset({1, 8}), frozenset({2, 9})},
        "plain": (1, "a"),
        "numbers": [3, 1, 2],
    }
    out = json.loads(Presenter("O", OwnInside).make(row).build().texts[0])
    assert out == {
        "listed": [[8, 3, 1]],
        "keyed": {"k": [8, 3, 1]},
        "pair": [[8, 3, 1], 1],
        "many": [[8, 3, 1], [8, 3, 1]],
        "either": [8, 3, 1],
        "optional": [8, 3, 1],
        "kept": [[8, 3, 1]],
        "members": [[8, 1], [9, 2]],
        "plain": [1, "a"],
        "numbers": [3, 1, 2],
        "card": "****",
    }
