"""Presenter: masking, key order, rules, UI, suggestions, limits, embeds, errors."""

from __future__ import annotations

import datetime
import enum
from typing import Annotated, Any, Literal

import pytest
from pydantic import (
    MISSING,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    field_validator,
)

from fusion_core import ResponseBuilder, UiBlock, UiMeta, ui
from fusion_core._present._mask import Mask
from fusion_core._present._presenter import FieldError, Presenter, PresenterValidationError
from fusion_core._write._json import to_json
from fusion_core._write._response import view_of


class Client(BaseModel):
    name: str
    tier: str | MISSING = MISSING
    api_key: str = Field(default="", exclude=True)


class Invoice(BaseModel):
    id: str
    amount_cents: int
    status: Literal["paid", "pending", "overdue"]
    note: str | MISSING = MISSING
    client: Client | MISSING | None = MISSING


ROW: dict[str, Any] = {
    "status": "paid",
    "password": "hunter2",
    "amount_cents": 4500,
    "id": "INV-1",
    "client": {"name": "Acme", "api_key": "sk-live", "tier": "gold"},
}


def test_mask_drops_undeclared_and_orders_keys() -> None:
    """Undeclared keys vanish, schema order wins, nested models mask too."""
    text = Presenter("Invoice", Invoice).make(ROW).build().texts[0]
    assert text == to_json(
        {
            "id": "INV-1",
            "amount_cents": 4500,
            "status": "paid",
            "client": {"name": "Acme", "tier": "gold"},
        }
    )


def test_validation_error_names_presenter_and_fields() -> None:
    """A failure lists every field of the first offending item, no values."""
    with pytest.raises(PresenterValidationError) as caught:
        Presenter("Invoice", Invoice).make([ROW, {"id": "B", "amount_cents": 1.5, "status": "x"}])
    error = caught.value
    assert error.index == 1
    assert [e.path for e in error.errors] == ["amount_cents", "status"]
    assert str(error).startswith("[Invoice Presenter] Validation failed:\n  • 'amount_cents': ")
    assert "1.5" not in str(error)


def test_rules_ui_and_suggestions_for_one_item() -> None:
    """Static rules, item UI and item suggestions run on the validated item."""
    presenter = Presenter(
        "Invoice",
        Invoice,
        rules=lambda item, ctx: [f"{item['id']} for {ctx['role']}", None],
        ui=lambda item, _ctx: [ui.summary(item["status"]), None],
        suggest=lambda item, _ctx: [("billing.pay", f"Pay {item['id']}"), None],
    )
    view = view_of(presenter.make(ROW, {"role": "admin"}).build())
    assert view.rules == ("INV-1 for admin",)
    assert [block.content for block in view.ui_blocks] == ["📊 **Summary**: paid"]
    assert [(s.tool, s.reason) for s in view.suggestions] == [("billing.pay", "Pay INV-1")]


def test_collection_parts_and_agent_limit() -> None:
    """Lists get collection UI/rules/suggestions; the truncation block comes first."""
    rows = [dict(ROW, id=f"INV-{i}") for i in range(5)]
    presenter = Presenter(
        "Invoice",
        Invoice,
        rules=["static"],
        collection_rules=lambda items, _ctx: [f"{len(items)} rows"],
        collection_ui=lambda items, _ctx: [ui.summary(f"{len(items)} shown")],
        collection_suggest=lambda items, _ctx: [("export", "Export")],
        agent_limit=2,
    )
    view = view_of(presenter.make(rows).build())
    assert len(view.data) == 2
    assert [block.content for block in view.ui_blocks] == [
        "📊 **Summary**: ⚠️ Dataset truncated. 2 shown, 3 hidden. Use filters to narrow results.",
        "📊 **Summary**: 2 shown",
    ]
    assert view.rules == ("static", "2 rows")
    assert len(view.suggestions) == 1


def test_select_narrows_data_only() -> None:
    """``select`` keeps the named keys in that order; rules still see everything."""
    presenter = Presenter("Invoice", Invoice, rules=lambda item, _ctx: [f"{item['amount_cents']}"])
    view = view_of(presenter.make(ROW, select=["status", "id", "password"]).build())
    assert view.data == {"status": "paid", "id": "INV-1"}
    assert view.rules == ("4500",)


def test_embed_adds_child_blocks_once() -> None:
    """A child runs on validated data; for a list it runs once."""
    child = Presenter(
        "Client", Client, rules=["case-sensitive"], ui=lambda c, _: [ui.summary(c["name"])]
    )
    presenter = Presenter("Invoice", Invoice).embed("client", child)
    view = view_of(presenter.make([ROW, ROW]).build())
    assert view.embeds == (
        '<ui_passthrough type="summary">\n📊 **Summary**: Acme\n</ui_passthrough>',
        "<domain_rules>\n- case-sensitive\n</domain_rules>",
    )


def test_auto_rules_from_descriptions() -> None:
    """``auto_rules`` turns field descriptions into leading rules."""

    class Described(BaseModel):
        id: str = Field(description="Invoice identifier")

    view = view_of(
        Presenter("D", Described, auto_rules=True, rules=["x"]).make({"id": "a"}).build()
    )
    assert view.rules == ("id: Invoice identifier", "x")


class Color(enum.Enum):
    RED = "red"


class Rich(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    when: datetime.datetime
    color: Color
    count: int = 3
    tags: list[str] = Field(default_factory=list)
    label: str = Field(alias="Label")
    ratio: float | None = None
    client: Client | None = None


class Allowing(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str


class Validated(BaseModel):
    id: str

    @field_validator("id")
    @classmethod
    def upper(cls, value: str) -> str:
        """Upper-case the id."""
        return value.upper()


class Doc(BaseModel):
    """A document keyed ``_id`` (MongoDB-style): declared through an alias."""

    model_config = ConfigDict(serialize_by_alias=True)
    id_: str = Field(alias="_id")
    title: str


class Renamed(BaseModel):
    """Serialization and validation aliases that differ, read by name as well."""

    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True)
    count: int = Field(validation_alias="n", serialization_alias="total")
    owner: Doc | None = None
    label: str = Field(default="x", serialization_alias="_label")


SAMPLES: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (Doc, {"_id": "d1", "title": "T", "secret": 1}),
    (Renamed, {"n": 3, "owner": {"_id": "d2", "title": "U"}}),
    (Renamed, {"count": 4, "label": "y"}),
    (Invoice, ROW),
    (Invoice, {"id": "x", "amount_cents": "7", "status": "pending", "client": None}),
    (
        Rich,
        {"when": "2024-01-02T03:04:05Z", "color": "red", "Label": "L", "ratio": 1, "x": 1},
    ),
    (
        Rich,
        {"when": datetime.datetime(2024, 1, 2), "color": Color.RED, "label": "n", "tags": ("a",)},
    ),
    (Allowing, {"z": 1, "id": "a", "q": [1]}),
    (Validated, {"id": "abc", "extra": 1}),
]


@pytest.mark.parametrize(("model", "value"), SAMPLES)
def test_mask_equals_model_dump(model: type[BaseModel], value: dict[str, Any]) -> None:
    """The fast mask gives exactly ``model_validate(x).model_dump(mode='json')``."""
    expected = model.model_validate(value).model_dump(mode="json")
    mask = Mask(model)
    assert to_json(mask.one(value)) == to_json(expected)
    assert to_json(mask.many([value, value])) == to_json([expected, expected])


def test_models_with_validators_take_the_slow_path() -> None:
    """Python-side validators cannot be mirrored, so the mask falls back."""
    assert Mask(Validated).fast is False
    assert Mask(Invoice).fast is True


class Priced(BaseModel):
    """Floats on the model path (a serializer keeps the model off the fast path)."""

    price: float
    ratio: float = 0.5
    label: Annotated[str, PlainSerializer(str.upper)] = "x"


def test_floats_on_the_model_path_are_written_as_javascript_writes_them() -> None:
    """``100.0`` is ``100``, ``1e21`` is ``1e+21``: only a float-free mask skips the float pass."""
    presenter = Presenter("P", Priced)
    assert presenter._mask is not None
    assert (presenter._mask.fast, presenter._mask.float_free) == (False, False)
    text = presenter.make([{"price": 100.0, "ratio": 1e21}, {"price": 1e-7}]).build().texts[0]
    assert '"price": 100,' in text
    assert '"ratio": 1e+21' in text
    assert '"price": 1e-7,' in text


def test_model_instances_are_accepted() -> None:
    """Handlers may return model instances; they are masked like dicts."""

    class Row(BaseModel):
        id: str
        secret: str

    masked = Presenter("Client", Client).mask([Client(name="A", api_key="k"), {"name": "B"}])
    assert masked == [{"name": "A"}, {"name": "B"}]
    assert Presenter("Invoice", Invoice).mask(Invoice.model_validate(ROW))["id"] == "INV-1"
    assert Presenter("Row", Row).mask(Row(id="a", secret="s")) == {"id": "a", "secret": "s"}


def test_no_schema_passes_data_unchanged() -> None:
    """Without a schema the Presenter adds blocks only."""
    assert view_of(Presenter("Any").make({"b": 1, "a": 2}).build()).data == {"b": 1, "a": 2}


def test_bad_constructor_arguments() -> None:
    """Clear errors for a non-model schema, a bad limit and a single-str rule list."""
    with pytest.raises(TypeError, match="BaseModel"):
        Presenter("X", dict)  # type: ignore[type-var]
    with pytest.raises(ValueError, match="agent_limit"):
        Presenter("X", agent_limit=-1)
    with pytest.raises(TypeError, match="list of str"):
        Presenter("X", rules="one rule")


def test_a_schema_with_an_unresolved_reference_is_a_clear_error() -> None:
    """A model naming a class not defined yet: a TypeError saying what to do, then it works."""

    class Invoice(BaseModel):
        line: Line

    with pytest.raises(TypeError, match=r"not fully defined.*Invoice\.model_rebuild\(\)"):
        Presenter("Invoice", schema=Invoice)

    class Line(BaseModel):
        sku: str

    Invoice.model_rebuild(_types_namespace={"Line": Line})
    masked = Presenter("Invoice", schema=Invoice).make({"line": {"sku": "a", "x": 1}}).build()
    assert masked.texts[0] == '{\n  "line": {\n    "sku": "a"\n  }\n}'


class Node(BaseModel):
    """A recursive model with a hidden field at every level."""

    name: str
    secret: str = Field(default="", exclude=True)
    children: list[Node] = []


class Cat(BaseModel):
    kind: Literal["cat"]
    name: str


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str


class Pets(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]


class Serialized(BaseModel):
    card: Annotated[str, PlainSerializer(lambda _v: "*")]


def test_recursive_models_mask_hidden_fields_at_every_level() -> None:
    """A self-referencing schema stays on the fast path and hides its field at each depth."""
    data = {"name": "a", "secret": "s-1", "children": [{"name": "b", "secret": "s-2"}]}
    presenter = Presenter("Node", Node)
    assert presenter.mask(data) == Node.model_validate(data).model_dump(mode="json")
    assert presenter.mask([data]) == [Node.model_validate(data).model_dump(mode="json")]
    assert Mask(Node).fast


def test_mask_says_why_a_model_takes_the_model_path() -> None:
    """``Mask.reason`` names what sent a model to the model path (None when fast)."""
    assert Mask(Node).reason is None
    assert Mask(Serialized).reason == "a serializer on a str schema"


def test_a_wrong_tag_is_not_quoted() -> None:
    """A discriminator's unknown tag is data: the error lists the expected tags, not the tag."""
    with pytest.raises(PresenterValidationError) as caught:
        Presenter("Pets", Pets).make({"pet": {"kind": "hunter2", "name": "x"}})
    assert caught.value.errors == (
        FieldError(
            "pet",
            "Input tag found using 'kind' does not match any of the expected tags: 'cat', 'dog'",
        ),
    )


def test_unknown_keys_read_as_the_reference_words_them() -> None:
    """Unrecognized keys of one object are one ``(root)`` entry, keys listed in order."""

    class Line(BaseModel):
        model_config = ConfigDict(extra="forbid")
        id: str

    with pytest.raises(PresenterValidationError) as caught:
        Presenter("Line", Line).make({"id": "a", "secret": 1, "tenant_id": 2})
    assert str(caught.value) == (
        '[Line Presenter] Validation failed:\n  • (root): Unrecognized keys: "secret", "tenant_id"'
    )


def test_item_suggestions_of_a_collection_use_its_first_item() -> None:
    """Without collection suggestions, a list gets its first item's suggestions."""

    class Item(BaseModel):
        id: str

    presenter = Presenter(
        "Item", Item, suggest=lambda item, ctx: [("items.get", f"Open {item['id']}")]
    )
    assert view_of(presenter.make([{"id": "a"}, {"id": "b"}]).build()).suggestions[0].reason == (
        "Open a"
    )
    assert view_of(presenter.make([]).build()).suggestions == ()


def test_auto_rules_travel_with_dynamic_rules() -> None:
    """Field descriptions join dynamic rules, which do not run on an empty collection."""

    class Item(BaseModel):
        id: str = Field(description="IDs are opaque")

    dynamic = Presenter("Item", Item, rules=lambda item, ctx: ["one"], auto_rules=True)
    assert list(view_of(dynamic.make([{"id": "a"}]).build()).rules) == ["id: IDs are opaque", "one"]
    assert list(view_of(dynamic.make([]).build()).rules) == []
    static = Presenter("Item", Item, rules=["two"], auto_rules=True)
    assert list(view_of(static.make([]).build()).rules) == ["id: IDs are opaque", "two"]


def test_serialize_by_alias_keys_are_the_data_blocks_and_selects_keys() -> None:
    """``_id`` through an alias: written, offered and picked by ``_select`` as ``_id``."""
    from fusion_core import FusionApp, Tool  # noqa: PLC0415

    docs = Presenter("Doc", Doc)
    assert docs.root_keys == ("_id", "title")
    assert Presenter("Renamed", Renamed).root_keys == ("total", "owner", "_label")
    row = {"_id": "d1", "title": "T", "secret": "s"}
    assert docs.make(row, None, ["_id"]).build().texts == ['{\n  "_id": "d1"\n}']
    tool = Tool("docs").enable_select()
    tool.action("get", lambda: row, returns=docs)
    select = tool.definition()["inputSchema"]["properties"]["_select"]
    assert select["items"]["enum"] == ["_id", "title"]
    app = FusionApp([tool])
    assert app.call_sync("docs", {"action": "get", "_select": ["_id"]}).texts == [
        '{\n  "_id": "d1"\n}'
    ]


def test_a_name_only_written_field_is_not_read_by_its_alias_when_the_config_forbids() -> None:
    """``validate_by_alias=False``: the mask reads the name only, as the model does."""

    class ByName(BaseModel):
        model_config = ConfigDict(
            serialize_by_alias=True, validate_by_alias=False, validate_by_name=True
        )
        id_: str = Field(alias="_id")

    mask = Mask(ByName)
    assert mask.one({"id_": "a"}) == ByName.model_validate({"id_": "a"}).model_dump(mode="json")
    with pytest.raises(ValidationError):
        mask.one({"_id": "a"})
    with pytest.raises(ValidationError):
        ByName.model_validate({"_id": "a"})


def test_a_float_free_schemas_data_block_is_to_json_of_the_masked_data() -> None:
    """Written without the float scan, the data block is still to_json of model_dump's data."""

    class Line(BaseModel):
        sku: str
        quantity: int
        hidden: int = Field(default=0, exclude=True)

    class Order(BaseModel):
        id: str
        lines: list[Line]
        total: int | None = None

    rows = [{"id": "O-1", "lines": [{"sku": "✅", "quantity": 2.0, "hidden": 7}], "total": 10**30}]
    presenter = Presenter("Order", Order)
    assert presenter._mask is not None
    assert presenter._mask.float_free
    expected = to_json([Order.model_validate(row).model_dump(mode="json") for row in rows])
    assert presenter.make(rows).build().texts[0] == expected
    assert presenter.make(rows[0]).build().texts[0] == to_json(
        Order.model_validate(rows[0]).model_dump(mode="json")
    )


def test_ui_callbacks_may_return_block_mappings() -> None:
    """A ``{"type", "content", "meta"?}`` mapping is a UI block (the reference's plain object)."""
    presenter: Presenter[Any] = Presenter(
        "Chart",
        ui=lambda item, ctx: [
            {"type": "markdown", "content": f"**{item['n']}**"},
            None,
            {"type": "echarts", "content": "{}", "meta": {"title": "T", "width": "half"}},
        ],
        collection_ui=lambda items, ctx: [{"type": "summary", "content": f"{len(items)} items"}],
    )
    built = presenter.make({"n": 1}).build()
    expected = (
        ResponseBuilder({"n": 1})
        .ui_block("markdown", "**1**")
        .ui_block(UiBlock("echarts", "{}", UiMeta(title="T", width="half")))
        .build()
    )
    assert built.texts == expected.texts
    assert presenter.make([{"n": 1}]).build().texts[1] == (
        '<ui_passthrough type="summary">\n1 items\n</ui_passthrough>'
    )


@pytest.mark.parametrize(
    ("block", "says"),
    [
        ({"type": "markdown"}, "missing content"),
        ({"content": "x"}, "missing type"),
        ({"type": "markdown", "content": "x", "onload": 1}, "unknown keys 'onload'"),
    ],
)
def test_a_ui_mapping_that_is_no_block_is_a_clear_error(block: dict[str, Any], says: str) -> None:
    """A mapping without type/content, or with other keys, is refused naming what is wrong."""
    presenter: Presenter[Any] = Presenter("Chart", ui=lambda item, ctx: [block])
    with pytest.raises(TypeError, match=says):
        presenter.make({"n": 1})
