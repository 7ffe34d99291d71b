"""The egress firewall: with a Presenter, no secret reaches any block, on any path."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from types import SimpleNamespace
from typing import Annotated, Any, Literal

import pytest
from pydantic import (
    MISSING,
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SecretStr,
    WrapSerializer,
    computed_field,
    create_model,
    model_serializer,
)

from fusion_core import ToolResponse, to_json, tool_error, view_of
from fusion_core._present._presenter import Presenter, PresenterValidationError
from fusion_core._tools._app import FusionApp
from fusion_core._tools._tool import Tool
from fusion_core._write._builder import response
from fusion_core._write._one_call import success, success_structured, toon_success
from fusion_core._write._view import ErrorEnvelope, ResponseView
from tests._support.redacting import SelfRedacting

SECRETS = ("hunter2", "sk-live-42", "tenant-9", "margin-77", "line-cost-3")


class Line(BaseModel):
    sku: str
    cost: str = Field(default="", exclude=True)


class Client(BaseModel):
    name: str


class Invoice(BaseModel):
    id: str
    amount_cents: int
    client: Client
    lines: list[Line] = Field(default_factory=list)
    margin: str = Field(default="", exclude=True)
    note: str | MISSING = MISSING


def row(number: int = 1) -> dict[str, Any]:
    """A raw invoice row as a database would return it, secrets included."""
    return {
        "id": f"INV-{number}",
        "amount_cents": 4500,
        "password": "hunter2",
        "tenant_id": "tenant-9",
        "margin": "margin-77",
        "client": {"name": "Acme", "api_key": "sk-live-42"},
        "lines": [{"sku": "A", "cost": "line-cost-3", "secret": "hunter2"}],
    }


LINES = Presenter("Line", Line, collection_ui=lambda items, _ctx: [])
CLIENT = Presenter("Client", Client, rules=["Client names are case-sensitive."])
INVOICE = (
    Presenter("Invoice", Invoice, rules=lambda item, _ctx: [f"Invoice {item['id']}"])
    .embed("client", CLIENT)
    .embed("lines", LINES)
)


def _raise_after_touching() -> None:
    secret = row()["password"]
    message = "database unavailable"
    if secret:
        raise RuntimeError(message)


async def _async_row() -> dict[str, Any]:
    await asyncio.sleep(0)
    return row()


PATHS: dict[str, Callable[..., Any]] = {
    "plain return": row,
    "list": lambda: [row(1), row(2)],
    "returned builder": lambda: response(row()).llm_hint("look"),
    "returned built response": lambda: response(row()).build(),
    "success helper": lambda: success(row()),
    "structured helper": lambda: success_structured(row()),
    "toon helper": lambda: toon_success([row()]),
    "presenter builder": lambda: INVOICE.make(row()),
    "presenter of other entity": lambda: CLIENT.make(row()),
    "async handler": _async_row,
    "raises after touching": _raise_after_touching,
    "model instance": lambda: Invoice.model_validate(row()),
}


def app() -> FusionApp:
    """One Presenter action per handler path."""
    tool = Tool("billing").enable_select()
    for name, handler in PATHS.items():
        tool.action(name.replace(" ", "_"), handler, returns=INVOICE)
    return FusionApp([tool])


def assert_clean(arguments: dict[str, Any]) -> None:
    """Call the app and check no secret appears anywhere in the wire dict."""
    result = app().call_sync("billing", arguments)
    wire = repr(dict(result))
    for secret in SECRETS:
        assert secret not in wire, f"{secret!r} leaked via {arguments}"


@pytest.mark.parametrize("path", list(PATHS))
def test_no_secret_on_any_path(path: str) -> None:
    """Every handler path leaves no trace of a secret in any block."""
    assert_clean({"action": path.replace(" ", "_")})


@pytest.mark.parametrize("path", ["plain_return", "returned_builder", "presenter_builder"])
def test_select_cannot_name_a_secret(path: str) -> None:
    """``_select`` naming an undeclared or hidden field is refused, never revealed."""
    for field in ("password", "margin"):
        result = app().call_sync("billing", {"action": path, "_select": [field, "id"]})
        assert result.is_error
        assert "hunter2" not in repr(dict(result))
        assert "margin-77" not in repr(dict(result))


def test_select_of_declared_fields_still_masks_nested() -> None:
    """Selected nested values are the masked ones."""
    result = app().call_sync("billing", {"action": "plain_return", "_select": ["client", "lines"]})
    assert result.texts[0] == (
        '{\n  "client": {\n    "name": "Acme"\n  },\n  "lines": [\n    {\n      "sku": "A"\n'
        "    }\n  ]\n}"
    )


def test_presenter_failure_gets_the_exception_envelope() -> None:
    """Data the schema rejects is an INTERNAL_ERROR envelope without values."""
    tool = Tool("t").action("run", lambda: {"id": 5, "password": "hunter2"}, returns=INVOICE)
    text = FusionApp([tool]).call_sync("t", {"action": "run"}).texts[0]
    assert text.startswith(
        '<tool_error code="INTERNAL_ERROR" severity="error">\n'
        "<message>[t/run] [Invoice Presenter] Validation failed:\n  • 'id': "
    )
    assert "hunter2" not in text


# --- Issue 8, points 1-2: the fast path mirrors the model or steps aside ----------


class Tagged(BaseModel):
    """``extra="allow"`` with a hidden field: the key must not come back as an extra."""

    model_config = ConfigDict(extra="allow")
    id: str
    margin: str = Field(default="", exclude=True)


def test_excluded_field_under_extra_allow_never_leaks() -> None:
    """The hidden field's value stays hidden, through the Presenter and the app."""
    presenter = Presenter("Tagged", Tagged)
    data = {"id": "a", "margin": "margin-77", "note": "kept"}
    assert presenter.make(data).build().texts[0] == to_json(
        Tagged.model_validate(data).model_dump(mode="json")
    )
    tool = Tool("t").action("run", lambda: data, returns=presenter)
    wire = repr(dict(FusionApp([tool]).call_sync("t", {"action": "run"})))
    assert "margin-77" not in wire
    assert "kept" in wire


class Card(BaseModel):
    """A nested model that redacts itself."""

    number: str

    @model_serializer
    def _dump(self) -> dict[str, str]:
        return {"number": "****"}


class WithComputed(BaseModel):
    """A computed field is part of model_dump."""

    amount: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> str:
        return f"{self.amount} cents"


def _redacted(annotation: Any) -> type[BaseModel]:
    return create_model("Redacted", secret=(annotation, ...))


SERIALIZED: dict[str, type[BaseModel]] = {
    "PlainSerializer": _redacted(Annotated[str, PlainSerializer(lambda _v: "***")]),
    "WrapSerializer": _redacted(Annotated[str, WrapSerializer(lambda _v, _h: "***")]),
    "self-serializing type": _redacted(SelfRedacting),
    "SecretStr": _redacted(SecretStr),
    "model_serializer on a nested model": _redacted(Card),
    "serializer in a list of models": _redacted(list[Card]),
    "serializer in a dict of models": _redacted(dict[str, Card]),
    "serializer behind Optional": _redacted(Card | None),
}


@pytest.mark.parametrize("name", list(SERIALIZED))
def test_serializers_anywhere_take_the_model_path(name: str) -> None:
    """A serializer anywhere in the schema decides: output is model_dump, the secret stays out."""
    model = SERIALIZED[name]
    value: Any = "hunter2"
    if "nested" in name or "Optional" in name:
        value = {"number": "hunter2"}
    elif "list" in name:
        value = [{"number": "hunter2"}]
    elif "dict" in name:
        value = {"k": {"number": "hunter2"}}
    data = {"secret": value}
    presenter = Presenter("Redacted", model)
    text = presenter.make(data).build().texts[0]
    assert text == to_json(model.model_validate(data).model_dump(mode="json"))
    assert "hunter2" not in text
    assert presenter._mask is not None
    assert not presenter._mask.fast


def test_computed_fields_reach_the_wire_as_model_dump_writes_them() -> None:
    """A computed field is written, as model_dump writes it."""
    assert Presenter("C", WithComputed).make({"amount": 5}).build().texts[0] == to_json(
        {"amount": 5, "label": "5 cents"}
    )


class Pet(BaseModel):
    kind: Literal["cat"]
    name: str


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str
    chip: str = Field(default="", exclude=True)


class Owner(BaseModel):
    id: int
    pets: list[Annotated[Pet | Dog, Field(discriminator="kind")]]
    tags: dict[str, int] = {}


def test_plain_schemas_keep_the_fast_path() -> None:
    """Nested models, discriminated unions, dicts and hidden fields stay fast and exact."""
    presenter = Presenter("Owner", Owner)
    data = {"id": 1, "pets": [{"kind": "dog", "name": "Rex", "chip": "chip-9"}], "x": 1}
    text = presenter.make(data).build().texts[0]
    assert presenter._mask is not None
    assert presenter._mask.fast
    assert text == to_json(Owner.model_validate(data).model_dump(mode="json"))
    assert "chip-9" not in text


class OrmClient(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    name: str


class Orm(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    client: OrmClient


@dataclasses.dataclass
class OrmRow:
    id: int
    client: Any
    password: str = "hunter2"


@pytest.mark.parametrize(
    "row",
    [
        SimpleNamespace(id=1, client=SimpleNamespace(name="Acme"), password="hunter2"),
        OrmRow(1, {"name": "Acme"}),
        {"id": 1, "client": {"name": "Acme"}, "password": "hunter2"},
    ],
    ids=["attribute object", "dataclass", "dict"],
)
def test_from_attributes_schemas_accept_what_pydantic_accepts(row: Any) -> None:
    """Objects read by attributes are masked exactly as the model reads them."""
    text = Presenter("Orm", Orm).make([row]).build().texts[0]
    assert text == to_json([{"id": 1, "client": {"name": "Acme"}}])
    assert text == to_json([Orm.model_validate(row).model_dump(mode="json")])


# --- Issue 8, point 4: no trust by identity ------------------------------------------


def _call(handler: Callable[[], Any], select: list[str] | None = None) -> Any:
    tool = Tool("t").enable_select().action("run", handler, returns=INVOICE)
    arguments: dict[str, Any] = {"action": "run"}
    if select:
        arguments["_select"] = select
    return FusionApp([tool]).call_sync("t", arguments)


def _updated_after_make() -> Any:
    builder = INVOICE.make(row())
    builder.data.update(password="hunter2")
    return builder


def _nested_mutation_in_a_rule() -> Any:
    def rule(item: dict[str, Any], _ctx: Any) -> list[str]:
        item["client"]["api_key"] = "sk-live-42"
        item["password"] = "hunter2"
        return []

    return Presenter("Invoice", Invoice, rules=rule).make(row())


def _built_then_returned() -> Any:
    builder = INVOICE.make(row())
    response = builder.build()
    view_of(response).data["password"] = "hunter2"
    return response


def _hand_built_error_with_data() -> Any:
    return ToolResponse([to_json(row())], view=ResponseView(data=row()), is_error=True)


def _hand_built_envelope_with_other_text() -> Any:
    envelope = ErrorEnvelope(message="Not found.", code="NOT_FOUND")
    return ToolResponse(["hunter2"], view=ResponseView(error=envelope), is_error=True)


MUTATIONS: dict[str, Callable[[], Any]] = {
    "builder.data.update after make": _updated_after_make,
    "a rule mutating nested data": _nested_mutation_in_a_rule,
    "view data changed after build": _built_then_returned,
    "hand-built error response with data": _hand_built_error_with_data,
    "hand-built envelope with other text": _hand_built_envelope_with_other_text,
}


@pytest.mark.parametrize("name", list(MUTATIONS))
@pytest.mark.parametrize("select", [None, ["client", "id"]])
def test_changed_data_never_reaches_the_wire(name: str, select: list[str] | None) -> None:
    """Whatever happens to the data after masking, the wire holds the masked data."""
    wire = repr(dict(_call(MUTATIONS[name], select)))
    for secret in SECRETS:
        assert secret not in wire, f"{secret} leaked via {name}"


def test_builder_data_of_a_presenter_is_a_copy() -> None:
    """``builder.data`` can be read and changed freely; the data block does not move."""
    builder = INVOICE.make(row())
    before = builder.build().texts[0]
    builder.data["id"] = "changed"
    assert builder.data["id"] == "INV-1"
    assert builder.build().texts[0] == before


def test_a_presenters_own_response_passes_unchanged() -> None:
    """A response the action's own Presenter built during the call is not masked twice."""
    built: list[ToolResponse] = []

    def handler() -> ToolResponse:
        built.append(INVOICE.make(row()).build())
        return built[0]

    assert _call(handler) is built[0]


def test_error_helpers_still_pass() -> None:
    """Error envelopes made by the helpers come out byte for byte."""
    made = tool_error("NOT_FOUND", "No invoice INV-9.", suggestion="List invoices first.")
    assert _call(lambda: made) == made


# --- Issue 8, point 5: error texts quote no hidden value ------------------------------


class DbRow(BaseModel):
    id: int
    email: str


def _validation_error_in_handler() -> Any:
    return DbRow.model_validate({"email": 5, "password_hash": "pbkdf2$hunter2"})


def _nested_validation_error() -> Any:
    return Invoice.model_validate(
        {"id": 1, "amount_cents": "n", "client": {"api_key": "sk-live-42"}}
    )


def _raise_quoting_a_masked_row() -> Any:
    data = row()
    INVOICE.make(data)
    msg = f"could not bill {data}"
    raise RuntimeError(msg)


def _presenter_tag_and_keys() -> Any:
    return {"id": 1, "pets": [{"kind": "hunter2", "name": "x"}], "tags": {"sk-live-42": "n"}}


ERROR_PATHS: dict[str, tuple[Callable[[], Any], Presenter[Any] | None]] = {
    "ValidationError in the handler": (_validation_error_in_handler, None),
    "nested ValidationError": (_nested_validation_error, None),
    "exception quoting a masked row": (_raise_quoting_a_masked_row, INVOICE),
    "Presenter error with a tag and dict keys": (_presenter_tag_and_keys, Presenter("O", Owner)),
}


@pytest.mark.parametrize("name", list(ERROR_PATHS))
def test_error_texts_quote_no_hidden_value(name: str) -> None:
    """The INTERNAL_ERROR envelope says what failed, never a value the schema hides."""
    handler, presenter = ERROR_PATHS[name]
    tool = Tool("t").action("run", handler, returns=presenter)
    result = FusionApp([tool]).call_sync("t", {"action": "run"})
    text = result.texts[0]
    assert result.is_error
    assert text.startswith('<tool_error code="INTERNAL_ERROR"')
    for secret in (*SECRETS, "pbkdf2"):
        assert secret not in text, f"{secret} in {text}"


def test_handler_validation_error_says_where() -> None:
    """A handler's ValidationError still names the model and the fields."""
    tool = Tool("t").action("run", _validation_error_in_handler)
    text = FusionApp([tool]).call_sync("t", {"action": "run"}).texts[0]
    assert "[t/run] 2 validation errors for DbRow" in text
    assert "'id': Field required" in text
    assert "input_value" not in text


def test_validator_messages_are_not_quoted() -> None:
    """A validator's own message may quote the data: the Presenter error says only its kind."""

    def refuse(value: str) -> str:
        msg = f"bad secret {value}"
        raise ValueError(msg)

    model = create_model("V", secret=(Annotated[str, AfterValidator(refuse)], ...))
    with pytest.raises(PresenterValidationError) as caught:
        Presenter("V", model).make({"secret": "hunter2"})
    assert "hunter2" not in str(caught.value)
    assert "'secret': Value error" in str(caught.value)


@pytest.mark.parametrize(
    ("exposure", "expected"),
    [
        ("message", "[t/run] database unavailable: hunter2"),
        ("type", "[t/run] RuntimeError"),
        ("none", "[t/run] The tool failed; the server's log has the details."),
    ],
)
def test_expose_errors_setting(exposure: Any, expected: str) -> None:
    """``expose_errors`` chooses how much of an unexpected exception the client sees."""

    def fail() -> None:
        msg = "database unavailable: hunter2"
        raise RuntimeError(msg)

    app = FusionApp([Tool("t").action("run", fail)], expose_errors=exposure)
    assert f"<message>{expected}</message>" in app.call_sync("t", {"action": "run"}).texts[0]


def test_expose_errors_is_validated() -> None:
    """An unknown exposure is refused when the app is made."""
    with pytest.raises(ValueError, match="expose_errors must be one of"):
        FusionApp(expose_errors="all")  # type: ignore[arg-type]
