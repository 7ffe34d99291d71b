"""The fast mask gives ``model_dump(mode="json")``'s plain data, shape by shape.

The wire hides most mistakes of the fast path: ``to_json`` writes a Python
set, tuple, ``timedelta``-free value or model instance the same way the
mask's serializer would. These rows compare the mask's own result (what a
Presenter hands on, and what ``structuredContent`` and ``_select`` read) with
the model's dump, for the node types whose children the derivation converts:
sets, unions (labelled choices too), tagged unions, tuples, nested models
with hidden fields. Found by mutation testing (issue 11): each row fails when
one of those conversions is skipped. Masks are built in the test body, so
the mutation run sees the derivation.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Annotated, Any, Literal

import pytest
from pydantic import MISSING, BaseModel, ConfigDict, Field, GetPydanticSchema, PlainSerializer
from pydantic_core import core_schema as cs
from typing_extensions import TypedDict

from fusion_core._present._mask import Mask


class Cat(BaseModel):
    """A member of a tagged union."""

    kind: Literal["cat"]
    name: str


class Dog(BaseModel):
    """The other member."""

    kind: Literal["dog"]
    barks: int


def _labelled(_source: Any, _handler: Any) -> Any:
    return cs.union_schema([(cs.int_schema(), "number"), (cs.timedelta_schema(), "span")])


class SetsOnly(BaseModel):
    """Only sets of JSON-native members: the result must still hold lists."""

    tags: set[str]
    codes: frozenset[int]


class SetOnly(BaseModel):
    """A ``set`` is the only field that is not JSON already."""

    tags: set[str]


class FrozenOnly(BaseModel):
    """A ``frozenset`` is the only field that is not JSON already."""

    codes: frozenset[int]


class Spans(BaseModel):
    """``timedelta`` (written ``"PT1S"``) behind a union, a labelled union and a tuple."""

    either: int | timedelta
    labelled: Annotated[Any, GetPydanticSchema(_labelled)]
    pair: tuple[int, timedelta]


class Pets(BaseModel):
    """A tagged union of models: the result holds dicts, not model instances."""

    pet: Annotated[Cat | Dog, Field(discriminator="kind")]


class Inner(BaseModel):
    """A nested model whose hidden field may be absent (a MISSING default)."""

    id: int
    gone: int | MISSING = Field(default=MISSING, exclude=True)


class Outer(BaseModel):
    """Holds the nested model: its hidden fields are dropped after validation."""

    inner: Inner
    inners: list[Inner] = []


class InTuple(BaseModel):
    """A model inside a tuple: the tuple's items are converted too."""

    pair: tuple[Cat, int]


class TypedExtras(BaseModel):
    """Extra keys with a schema of their own: validated (lax ints) and written by it."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, int]

    name: str


class SetExtras(BaseModel):
    """Extra keys written by inference: a set among them is written as a sorted list."""

    model_config = ConfigDict(extra="allow")

    name: str


class Configured(BaseModel):
    """The model's config reaches the derived schema's validation."""

    model_config = ConfigDict(str_strip_whitespace=True, str_to_upper=True)

    name: str


class SerConfigured(BaseModel):
    """Serialization settings, which a typed dict's config does not pass on."""

    model_config = ConfigDict(ser_json_timedelta="float", ser_json_bytes="base64")

    span: timedelta
    raw: bytes = b""


class HoldsSerConfigured(BaseModel):
    """A nested model with serialization settings of its own."""

    inner: SerConfigured


class HiddenTree(BaseModel):
    """A recursive model with a hidden field: every level drops it."""

    secret: str = Field(default="", exclude=True)
    kids: list[HiddenTree] = []


class Aliased(BaseModel):
    """An optional field read by its validation alias (its default hides a missed alias)."""

    name: str = Field(default="", validation_alias="full_name")


class HiddenFirst(BaseModel):
    """A hidden field before the fields the serializer writes by their own schemas."""

    secret: str = Field(default="", exclude=True)
    tags: set[str] = set()
    span: timedelta = timedelta(0)


SPAN = timedelta(seconds=90)
SHAPES: dict[str, tuple[type[BaseModel], dict[str, Any], dict[str, Any]]] = {
    "sets": (
        SetsOnly,
        {"tags": {"b", "c", "a"}, "codes": frozenset({3, 1, 2})},
        {"tags": ["a", "b", "c"], "codes": [1, 2, 3]},
    ),
    "a set alone": (SetOnly, {"tags": {"b", "c", "a"}}, {"tags": ["a", "b", "c"]}),
    "a frozenset alone": (FrozenOnly, {"codes": frozenset({9, 1})}, {"codes": [1, 9]}),
    "spans": (
        Spans,
        {"either": SPAN, "labelled": SPAN, "pair": (1, SPAN)},
        {"either": "PT1M30S", "labelled": "PT1M30S", "pair": [1, "PT1M30S"]},
    ),
    "tagged union": (
        Pets,
        {"pet": {"kind": "dog", "barks": 3}},
        {"pet": {"kind": "dog", "barks": 3}},
    ),
    "hidden field absent in a nested model": (
        Outer,
        {"inner": {"id": 1}, "inners": [{"id": 2, "gone": 5}, {"id": 3}]},
        {"inner": {"id": 1}, "inners": [{"id": 2}, {"id": 3}]},
    ),
    "a validation alias": (Aliased, {"full_name": "Ana"}, {"name": "Ana"}),
    "typed extras": (TypedExtras, {"name": "a", "n": "3"}, {"name": "a", "n": 3}),
    "extras by inference": (
        SetExtras,
        {"name": "a", "more": {"delta", "alpha", "gamma", "beta", "omega"}},
        {"name": "a", "more": ["alpha", "beta", "delta", "gamma", "omega"]},
    ),
    "the model's config": (Configured, {"name": "  Ana "}, {"name": "ANA"}),
    "a recursive model with a hidden field": (
        HiddenTree,
        {"secret": "s", "kids": [{"secret": "t", "kids": [{"secret": "u"}]}]},
        {"kids": [{"kids": [{"kids": []}]}]},
    ),
    "a model in a tuple": (
        InTuple,
        {"pair": ({"kind": "cat", "name": "Tom"}, 2)},
        # A list, as model_dump gives (a tuple here made a Presenter's data
        # differ between in-process and wire-read results); its model item is a dict.
        {"pair": [{"kind": "cat", "name": "Tom"}, 2]},
    ),
    "fields after a hidden one": (
        HiddenFirst,
        {"secret": "s", "tags": {"delta", "alpha", "gamma", "beta", "omega"}, "span": SPAN},
        {"tags": ["alpha", "beta", "delta", "gamma", "omega"], "span": "PT1M30S"},
    ),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_the_fast_mask_gives_plain_json_data(name: str) -> None:
    """The fast path's result equals the expected plain data, type for type, one and many."""
    model, row, expected = SHAPES[name]
    mask = Mask(model)
    assert mask.fast
    one = mask.one(row)
    assert one == expected
    assert repr(one) == repr(expected)  # lists, not sets, tuples or model instances
    assert repr(mask.many([row, row])) == repr([expected, expected])


class Node(BaseModel):
    """A recursive model: a union reaches it through a definition reference."""

    kids: list[Node] | int = 0


class Row(TypedDict):
    """A TypedDict member of a union."""

    id: int


@dataclasses.dataclass
class Point:
    """A dataclass member of a union."""

    x: int


class RefUnion(BaseModel):
    """A union holding a recursive model (a ``definition-ref`` node)."""

    node: Node | int


class DictUnion(BaseModel):
    """A union holding a TypedDict."""

    row: Row | int


class DataclassUnion(BaseModel):
    """A union holding a dataclass."""

    point: Point | int


def _default_with_serializer(_source: Any, _handler: Any) -> Any:
    return cs.with_default_schema(
        cs.int_schema(),
        default=0,
        serialization=cs.plain_serializer_function_ser_schema(lambda value: value),
    )


class SerializedDefault(BaseModel):
    """A default node with a serializer of its own (a custom type's schema)."""

    count: Annotated[int, GetPydanticSchema(_default_with_serializer)]


MODEL_PATH: dict[str, tuple[type[BaseModel], str]] = {
    "a union of a recursive model": (RefUnion, "a union of models"),
    "a union of a TypedDict": (DictUnion, "a union of models"),
    "a union of a dataclass": (DataclassUnion, "a union of models"),
    "a serializer on a default": (SerializedDefault, "a serializer on a default"),
    "serialization settings": (
        SerConfigured,
        "SerConfigured sets ser_json_bytes, ser_json_timedelta",
    ),
    "a nested model's serialization settings": (
        HoldsSerConfigured,
        "SerConfigured sets ser_json_bytes, ser_json_timedelta",
    ),
}


@pytest.mark.parametrize("name", list(MODEL_PATH))
def test_unions_of_model_like_members_and_serialized_defaults_take_the_model_path(
    name: str,
) -> None:
    """Each cause sends the model to the model path, and ``reason`` names it."""
    model, reason = MODEL_PATH[name]
    mask = Mask(model)
    assert (mask.fast, mask.reason) == (False, reason)


def _union_of_shaped_values(_source: Any, _handler: Any) -> Any:
    model_like = {"type": "model", "cls": None}
    return cs.union_schema(
        [
            cs.with_default_schema(cs.dict_schema(cs.str_schema(), cs.any_schema()), default={}),
            cs.int_schema(metadata={"note": model_like}),
            cs.with_default_schema(cs.str_schema(), default="", metadata={"note": model_like}),
        ]
    )


def _model_like_default(_source: Any, _handler: Any) -> Any:
    return cs.union_schema(
        [
            cs.with_default_schema(
                cs.dict_schema(cs.str_schema(), cs.any_schema()), default={"type": "model"}
            ),
            cs.int_schema(),
        ]
    )


class SchemaLikeValues(BaseModel):
    """Union members whose default and metadata are values shaped like a model schema."""

    by_metadata: Annotated[Any, GetPydanticSchema(_union_of_shaped_values)] = 0
    by_default: Annotated[Any, GetPydanticSchema(_model_like_default)] = 0


def test_values_shaped_like_model_schemas_do_not_make_a_union_of_models() -> None:
    """Defaults and metadata are values, never read as schemas: the model stays fast."""
    mask = Mask(SchemaLikeValues)
    assert (mask.fast, mask.reason) == (True, None)
    assert mask.one({"by_metadata": 3, "by_default": 4}) == {"by_metadata": 3, "by_default": 4}


@pytest.mark.parametrize("model", [SerConfigured, HoldsSerConfigured])
def test_serialization_settings_are_honoured(model: type[BaseModel]) -> None:
    """A mask writes ``ser_json_timedelta``/``ser_json_bytes`` values as ``model_dump`` does.

    The fast path wrote ``"PT1M30S"`` and ``"hi"`` for ``90.0`` and ``"aGk="``.
    """
    row: dict[str, Any] = {"span": SPAN, "raw": b"hi"}
    data = row if model is SerConfigured else {"inner": row}
    expected = model.model_validate(data).model_dump(mode="json")
    assert Mask(model).one(data) == expected
    assert "aGk=" in repr(expected)


class SlowSpan(BaseModel):
    """The model path without a set: its dump is in JSON mode."""

    span: timedelta
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


class SlowSpanTags(SlowSpan):
    """The model path with a set (a plan): its dump is in JSON mode too."""

    tags: set[str] = set()


@pytest.mark.parametrize("model", [SlowSpan, SlowSpanTags])
def test_the_model_path_gives_json_mode_data(model: type[BaseModel]) -> None:
    """``one`` and ``many`` give JSON values (``"PT1M30S"``), not Python ones."""
    mask = Mask(model)
    assert not mask.fast
    row = {"span": SPAN, "tags": {"b", "a"}}
    expected: dict[str, Any] = {"span": "PT1M30S", "card": "****"}
    if model is SlowSpanTags:
        expected["tags"] = ["a", "b"]
    assert mask.one(row) == expected
    assert mask.many([row]) == [expected]


class OwnDump(BaseModel):
    """A model writing itself: its own order of a set is kept."""

    tags: set[str]

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        del kwargs
        return {"tags": ["z", "a"]}


class OwnSchema(BaseModel):
    """A model building its own core schema (it may serialize any way it likes)."""

    tags: set[str]

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        return handler(source)


def test_a_model_writing_itself_is_left_as_it_writes() -> None:
    """No reordering of what an overridden ``model_dump`` returns; both take the model path."""
    assert Mask(OwnDump).one({"tags": {"a", "z"}}) == {"tags": ["z", "a"]}
    assert Mask(OwnDump).reason == "OwnDump overrides model_dump or its schema"
    assert Mask(OwnSchema).reason == "OwnSchema overrides model_dump or its schema"


def test_an_undefined_reference_is_named_in_the_error() -> None:
    """A schema referring to a model not defined yet: the error names what is missing."""

    class Early(BaseModel):
        later: Later  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(TypeError) as caught:
        Mask(Early)
    assert "(name 'Later' is not defined)" in str(caught.value)
    assert str(caught.value).endswith("then call Early.model_rebuild()")


class ReadByAlias(BaseModel):
    """An alias for reading only: ``model_dump`` writes the field's name."""

    name: str = Field(alias="fullName")
    hidden: str = Field(default="", exclude=True)


class WrittenByAlias(BaseModel):
    """Serialization by alias: ``model_dump`` writes the aliases."""

    model_config = ConfigDict(serialize_by_alias=True)

    name: str = Field(alias="fullName")
    id_: int = Field(serialization_alias="_id")


def test_the_root_keys_are_the_keys_model_dump_writes() -> None:
    """What ``_select`` offers: names, or aliases under ``serialize_by_alias``; never hidden."""
    assert Mask(ReadByAlias).root_keys == ("name",)
    assert Mask(WrittenByAlias).root_keys == ("fullName", "_id")


class Flat(BaseModel):
    """Only str, int, bool, None and literals: nothing a float could come from."""

    id: str
    amount: int
    paid: bool
    note: str | None = None
    status: Literal["paid", "open", 3]
    margin: int = Field(default=0, exclude=True)


class Holder(BaseModel):
    """Nested models and containers of float-free members."""

    rows: list[Flat]
    by_id: dict[str, Flat]
    maybe: Flat | None = None


class WithFloat(BaseModel):
    """One float field."""

    price: float


class FloatInside(BaseModel):
    """A float only in a nested model, behind a list."""

    items: list[WithFloat]


class FloatValues(BaseModel):
    """A float as the values of a dict."""

    prices: dict[str, float | None]


class Anything(BaseModel):
    """An ``Any`` field can hold a float."""

    value: Any


class OpenEnded(BaseModel):
    """Extra keys are kept: any of them can be a float."""

    model_config = ConfigDict(extra="allow")

    id: int


FLOAT_FREE = {Flat: True, Holder: True}
WITH_FLOATS = [WithFloat, FloatInside, FloatValues, Anything, OpenEnded]


@pytest.mark.parametrize("model", [*FLOAT_FREE, *WITH_FLOATS], ids=lambda m: m.__name__)
def test_a_mask_is_float_free_only_when_no_field_can_hold_a_float(model: type[BaseModel]) -> None:
    """``float_free`` is set for schemas of str, int, bool, None and literals of them only."""
    assert Mask(model).float_free is FLOAT_FREE.get(model, False)


def test_a_float_free_mask_gives_no_float_on_either_path() -> None:
    """Floats an int field accepts come out as ints, on the fast path and the model path."""
    flat = {"id": "a", "amount": 3.0, "paid": 1, "status": 3, "margin": 2.0}
    mask = Mask(Holder)
    row = {"rows": [flat], "by_id": {"x": flat}, "maybe": flat}
    fast = mask.one(row)
    slow = Holder.model_validate(row).model_dump(mode="json")
    expected = {"id": "a", "amount": 3, "paid": True, "note": None, "status": 3}
    assert fast == slow == {"rows": [expected], "by_id": {"x": expected}, "maybe": expected}
    assert "3.0" not in repr(fast)
