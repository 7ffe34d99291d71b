"""Hostile schemas, data and exceptions behind a Presenter: hidden values never leave.

Every path (validation errors, serializers, getters, the output schema) is
tried with a secret the schema hides; no block and no error text may carry it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    field_validator,
)
from pydantic_core import PydanticCustomError

from fusion_core import (
    FusionApp,
    Presenter,
    PresenterValidationError,
    Tool,
    success_structured,
    toon_success,
    view_of,
)

# ---------------------------------------------------------------------------
# Hidden values (issue 8, points 1-5): hostile schemas, data and exceptions.
# Each row is a handler behind a Presenter whose schema hides SECRET; no block
# and no error text may carry it, whatever the path.
# ---------------------------------------------------------------------------

SECRET = "hunter2-secret"


class _Hidden(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: int
    secret: str = Field(default="", exclude=True)


class _Shown(BaseModel):
    id: int
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""
    nested: list[_Hidden] = []
    by_key: dict[str, int] = {}
    kind: Literal["a", "b"] = "a"


class _Forbid(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int


class _Picky(BaseModel):
    id: int
    code: str = ""

    @field_validator("code")
    @classmethod
    def _check(cls, value: str) -> str:
        msg = f"code {value!r} is not valid"
        raise PydanticCustomError("bad_code", msg) if value.startswith("c") else ValueError(msg)


class _Getter:
    id = 1

    @property
    def code(self) -> str:
        raise RuntimeError(SECRET)


class _Attrs(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    code: str


def _raise(exc: BaseException) -> Callable[[], Any]:
    def handler() -> Any:
        raise exc

    return handler


def _after_make(presenter: Presenter[Any], data: Any, exc: type[Exception]) -> Callable[[], Any]:
    def handler() -> Any:
        presenter.make(data)
        raise exc(f"failed on {data!r}")

    return handler


def _validation_error(model: type[BaseModel], data: Any) -> ValidationError:
    try:
        model.model_validate(data)
    except ValidationError as exc:
        return exc
    raise AssertionError  # pragma: no cover - the rows give invalid data


class _HiddenByAlias(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: int
    secret: str = Field(default="", alias="sec", exclude=True)


class _HiddenRow(_Shown):
    """A subclass as a database layer declares it: one more field, the secret."""

    password_hash: str = SECRET


class _Team(BaseModel):
    lead: _Shown
    members: list[_Shown] = []


HIDDEN = Presenter("Hidden", _Hidden)
SHOWN = Presenter("Shown", _Shown)
PICKY = Presenter("Picky", _Picky)
_ALLOW_ROW = {"id": 1, "secret": SECRET}
_NESTED_ROW = {"id": 1, "nested": [{"id": 2, "secret": SECRET}]}
_BAD_NESTED = {"id": "x", "nested": [{"secret": SECRET}]}
HIDDEN_ROWS: dict[str, tuple[Presenter[Any], Callable[[], Any]]] = {
    "excluded field under extra=allow": (HIDDEN, lambda: _ALLOW_ROW),
    "excluded field of a nested model": (SHOWN, lambda: _NESTED_ROW),
    "serializer on a field": (SHOWN, lambda: {"id": 1, "card": SECRET}),
    "undeclared key": (SHOWN, lambda: {"id": 1, "password": SECRET}),
    "builder data updated after make": (SHOWN, lambda: _updated(SHOWN, {"id": 1})),
    "exception quoting masked data": (HIDDEN, _after_make(HIDDEN, _ALLOW_ROW, RuntimeError)),
    "KeyError quoting masked data": (HIDDEN, _after_make(HIDDEN, [_ALLOW_ROW], KeyError)),
    "ValidationError of a nested model": (SHOWN, _raise(_validation_error(_Shown, _BAD_NESTED))),
    "ValidationError quoting its input": (SHOWN, _raise(_validation_error(_Forbid, {"x": SECRET}))),
    "a discriminator-like tag holding a secret": (SHOWN, lambda: {"id": 1, "kind": SECRET}),
    "a dict key holding a secret": (SHOWN, lambda: {"id": 1, "by_key": {SECRET: "x"}}),
    "an undeclared key named like a secret": (Presenter("F", _Forbid), lambda: {SECRET: 1}),
    "a validator's message quoting the value": (PICKY, lambda: {"id": 1, "code": SECRET}),
    "a custom error quoting the value": (PICKY, lambda: {"id": 1, "code": "c" + SECRET}),
    "an attribute getter raising with a secret": (Presenter("A", _Attrs), _Getter),
    "its own output sent again, a secret added": (
        SHOWN,
        lambda: success_structured({**SHOWN.make(_NESTED_ROW).data, "password": SECRET}),
    ),
    "a hidden aliased field's name as an extra": (
        Presenter("A", _HiddenByAlias),
        lambda: {"id": 1, "sec": "x", "secret": SECRET},
    ),
    "a subclass instance": (SHOWN, lambda: _HiddenRow(id=1)),
    "subclass instances nested": (
        Presenter("Team", _Team),
        lambda: {"lead": _HiddenRow(id=1), "members": [_HiddenRow(id=2)]},
    ),
    "its own output sent again, serialized secret": (
        SHOWN,
        lambda: success_structured(SHOWN.make({"id": 1, "card": SECRET}).data),
    ),
}


def _updated(presenter: Presenter[Any], data: Any) -> Any:
    builder = presenter.make(data)
    builder.data["password"] = SECRET
    builder.data["nested"] = [{"id": 2, "secret": SECRET}]
    return builder


@pytest.mark.parametrize("name", list(HIDDEN_ROWS))
@pytest.mark.parametrize("exposure", ["message", "type", "none"])
def test_hidden_values_never_reach_the_wire(name: str, exposure: Any) -> None:
    """No block and no error text carries a value the Presenter's schema hides."""
    presenter, handler = HIDDEN_ROWS[name]
    tool = Tool("t").action("run", handler, returns=presenter)
    result = FusionApp([tool], expose_errors=exposure).call_sync("t", {"action": "run"})
    assert SECRET not in repr(dict(result))
    assert "input_value" not in repr(dict(result))


class _Aliased(BaseModel):
    """Output that is not input: an alias read, a serializer writing another type, a set."""

    id_: str = Field(alias="_id")
    amount: Annotated[int, PlainSerializer(lambda v: f"{v} EUR")]
    tags: set[str] = set()


ALIASED = Presenter("Aliased", _Aliased)
_ALIASED_ROW = {"_id": "INV-1", "amount": 5, "tags": {"delta", "alpha", "gamma", "beta"}}
OWN_OUTPUT: dict[str, Callable[[], Any]] = {
    "success_structured(builder.data)": lambda: success_structured(ALIASED.make(_ALIASED_ROW).data),
    "make(builder.data)": lambda: ALIASED.make(ALIASED.make(_ALIASED_ROW).data),
    "toon_success(builder.data)": lambda: toon_success(ALIASED.make(_ALIASED_ROW).data),
    "builder.data returned": lambda: ALIASED.make(_ALIASED_ROW).data,
    "a list of its outputs": lambda: ALIASED.make([_ALIASED_ROW]).data,
    "the view's data of its response": lambda: view_of(ALIASED.make(_ALIASED_ROW).build()).data,
    "success_structured of one item of its list": lambda: success_structured(
        ALIASED.make([_ALIASED_ROW, _ALIASED_ROW]).data[0]
    ),
    "toon_success of a list of its objects": lambda: toon_success(
        [ALIASED.make(_ALIASED_ROW).data]
    ),
    "a new list of its objects": lambda: [ALIASED.make(_ALIASED_ROW).data] * 2,
    "items of two lists it wrote": lambda: [
        ALIASED.make([_ALIASED_ROW]).data[0],
        ALIASED.make([_ALIASED_ROW]).data[0],
    ],
}


@pytest.mark.parametrize("name", list(OWN_OUTPUT))
def test_a_presenters_own_output_sent_again_is_sent_unchanged(name: str) -> None:
    """Masking its own output again (aliases, serializers) is the same bytes, not an error."""
    tool = Tool("t").action("run", OWN_OUTPUT[name], returns=ALIASED)
    result = FusionApp([tool]).call_sync("t", {"action": "run"})
    assert not result.is_error, result.texts
    if name.startswith("toon"):
        output = ALIASED.make(_ALIASED_ROW).data
        assert result.texts == toon_success([output] if "list" in name else output).texts
        return
    data = json.loads(result.texts[0])
    item = data[0] if isinstance(data, list) else data
    tags = ["alpha", "beta", "delta", "gamma"]
    assert item == {"id_": "INV-1", "amount": "5 EUR", "tags": tags}


def test_a_presenters_output_outside_a_call_is_refused_by_field() -> None:
    """Outside a tool call, output the schema cannot read back is refused, naming the fields."""
    output = ALIASED.make(_ALIASED_ROW).data
    with pytest.raises(PresenterValidationError) as caught:
        ALIASED.make(output)
    assert [error.path for error in caught.value.errors] == ["_id", "amount"]


class _Declared(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    nested: list[_Forbid] = []
    by_key: dict[str, int] = {}
    kind: Literal["a", "b"] = "a"


# Structured content a tool's output schema refuses: the error names where,
# never a key or value of the data (its keys may be undeclared data).
UNDECLARED_ROWS: dict[str, Any] = {
    "an undeclared key": {"id": 1, SECRET: 1},
    "an undeclared key of a nested model": {"id": 1, "nested": [{"id": 2, SECRET: 1}]},
    "a dict key holding a secret": {"id": 1, "by_key": {SECRET: "x"}},
    "a value of the wrong type": {"id": SECRET},
    "a literal holding a secret": {"id": 1, "kind": SECRET},
    "a nested value of the wrong type": {"id": 1, "nested": [{"id": SECRET}]},
}


@pytest.mark.parametrize("name", list(UNDECLARED_ROWS))
def test_output_schema_errors_never_quote_the_data(name: str) -> None:
    """An output schema's refusal names declared fields and ``*``, never a data key or value."""
    data = UNDECLARED_ROWS[name]
    tool = Tool("t").with_output_schema(_Declared)
    tool.action("run", lambda: success_structured(data))
    result = FusionApp([tool]).call_sync("t", {"action": "run"})
    assert result.is_error
    assert "does not match the output schema" in result.texts[0]
    assert SECRET not in repr(dict(result))


def test_huge_ints_given_to_a_presenter_keep_the_error_text() -> None:
    """An int too long for ``str()`` in a Presenter's input does not cost the error its text."""
    tool = Tool("t").action("run", lambda: {"id": 1, "by_key": {"k": 10**5000}}, returns=SHOWN)
    result = FusionApp([tool]).call_sync("t", {"action": "run"})
    assert "could not be shown" not in result.texts[0]
    assert "4,300 digits" in result.texts[0]
