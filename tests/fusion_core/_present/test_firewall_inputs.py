"""The egress firewall against every spelling of a field and every type of input (issue 25).

Two classes of hostile input, each a table:

* *spellings* — a schema with ``extra="allow"`` reads a field under one
  spelling and used to write its other spellings (its name, an alias, a
  serialization alias, another ``AliasChoices`` choice) as extras: a hidden
  field's value left the server under its own name, and an extra named like
  a written field replaced its value;
* *input types* — a Presenter over ``UserPublic`` given an instance of a
  subclass (``UserDB(UserPublic)`` with ``password_hash``) wrote the
  subclass's fields: validation keeps an instance as it is, ``model_dump``
  writes all its fields.

For every row the data block is exactly what the declared schema writes
(``tests/_support/declared.py``: ``TypeAdapter(schema).dump_python``, with
extras spelled like a field dropped), and the secret is nowhere on the wire.
"""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from pydantic import (
    AliasChoices,
    AliasGenerator,
    AliasPath,
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    with_config,
)
from pydantic.alias_generators import to_camel
from typing_extensions import TypedDict

from fusion_core import FusionApp, Presenter, PresenterValidationError, Tool, to_json
from tests._support.declared import declared_dump

SECRET = "hunter2-secret"
ALLOW = ConfigDict(extra="allow")


class ByAlias(BaseModel):
    model_config = ALLOW
    id: str
    secret: str = Field(default="", alias="sec", exclude=True)


class ByValidationAlias(BaseModel):
    model_config = ALLOW
    id: str
    secret: str = Field(default="", validation_alias="sec", exclude=True)


class ByChoices(BaseModel):
    model_config = ALLOW
    id: str
    secret: str = Field(default="", validation_alias=AliasChoices("s1", "s2"), exclude=True)


class ByPath(BaseModel):
    model_config = ALLOW
    id: str
    secret: str = Field(default="", validation_alias=AliasPath("nest", 0), exclude=True)


class BySerializationAlias(BaseModel):
    model_config = ALLOW
    id: str
    secret: str = Field(default="", serialization_alias="sec", exclude=True)


class ByGenerator(BaseModel):
    model_config = ConfigDict(extra="allow", alias_generator=to_camel)
    id: str
    my_secret: str = Field(default="", exclude=True)


class BySplitGenerator(BaseModel):
    model_config = ConfigDict(
        extra="allow",
        alias_generator=AliasGenerator(validation_alias=str.upper, serialization_alias=to_camel),
    )
    id: str = "x"
    my_secret: str = Field(default="", exclude=True)


class ByNameToo(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    id: str
    secret: str = Field(default="", alias="sec", exclude=True)


class ByNameOnly(BaseModel):
    model_config = ConfigDict(extra="allow", validate_by_name=True, validate_by_alias=False)
    id: str
    secret: str = Field(default="", alias="sec", exclude=True)


class Forged(BaseModel):
    """A written field read by alias: an extra of its name must not replace its value."""

    model_config = ALLOW
    id: str = Field(alias="ID")


class ForgedByAlias(BaseModel):
    """Written by its serialization alias: an extra of that key must not replace it."""

    model_config = ConfigDict(extra="allow", serialize_by_alias=True)
    id_: str = Field(serialization_alias="_id")


class ByComputedAlias(BaseModel):
    """A computed field's alias is one of its spellings: not an extra either."""

    model_config = ALLOW
    amount: int

    @computed_field(alias="lbl")  # type: ignore[prop-decorator]
    @property
    def label(self) -> str:
        return f"{self.amount} cents"


class Holder(BaseModel):
    one: ByAlias | None = None
    many: list[ByChoices] = []
    by_key: dict[str, ByGenerator] = {}


FORGED = "forged-" + SECRET
SPELLINGS: dict[str, tuple[type[BaseModel], dict[str, Any]]] = {
    "alias: the name": (ByAlias, {"id": "a", "sec": "s", "secret": SECRET}),
    "validation_alias: the name": (ByValidationAlias, {"id": "a", "sec": "s", "secret": SECRET}),
    "AliasChoices: the other choice": (ByChoices, {"id": "a", "s1": "s", "s2": SECRET}),
    "AliasChoices: the name": (ByChoices, {"id": "a", "s2": "s", "secret": SECRET}),
    "AliasPath: the name": (ByPath, {"id": "a", "nest": ["s"], "secret": SECRET}),
    "AliasPath: the path's key, not a path": (ByPath, {"id": "a", "nest": SECRET}),
    "serialization_alias: the alias": (BySerializationAlias, {"id": "a", "sec": SECRET}),
    "alias_generator: the name": (ByGenerator, {"id": "a", "mySecret": "s", "my_secret": SECRET}),
    "AliasGenerator: the serialization alias": (
        BySplitGenerator,
        {"MY_SECRET": "s", "mySecret": SECRET},
    ),
    "AliasGenerator: the name": (BySplitGenerator, {"MY_SECRET": "s", "my_secret": SECRET}),
    "populate_by_name, both spellings": (ByNameToo, {"id": "a", "sec": "s", "secret": SECRET}),
    "validate_by_alias=False: the alias": (ByNameOnly, {"id": "a", "secret": "s", "sec": SECRET}),
    "an extra replacing a field": (Forged, {"ID": "good", "id": FORGED}),
    "an extra replacing a field by alias": (ForgedByAlias, {"id_": "good", "_id": FORGED}),
    "a computed field's alias": (ByComputedAlias, {"amount": 5, "lbl": FORGED}),
    "a computed field's name": (ByComputedAlias, {"amount": 5, "label": FORGED}),
    "nested: Optional": (Holder, {"one": {"id": "a", "sec": "s", "secret": SECRET}}),
    "nested: list": (Holder, {"many": [{"id": "a", "s1": "s", "s2": SECRET}]}),
    "nested: dict values": (Holder, {"by_key": {"k": {"id": "a", "my_secret": SECRET}}}),
}


def _wire(presenter: Presenter[Any], data: Any) -> str:
    """Everything a tool call behind ``presenter`` returning ``data`` puts on the wire."""
    tool = Tool("t").action("run", lambda: data, returns=presenter)
    return repr(dict(FusionApp([tool]).call_sync("t", {"action": "run"})))


def _expected(model: Any, data: Any) -> str:
    return to_json(declared_dump(model, data)[1])


@pytest.mark.parametrize("name", list(SPELLINGS))
def test_no_spelling_of_a_field_is_written_as_an_extra(name: str) -> None:
    """A key spelled like a declared field never reaches the wire as an extra key."""
    model, data = SPELLINGS[name]
    presenter = Presenter("P", model)
    text = presenter.make(data).build().texts[0]
    assert SECRET not in text
    assert text == _expected(model, data)
    assert presenter.make([data]).build().texts[0] == _expected(list[model], [data])  # type: ignore[valid-type]
    assert SECRET not in _wire(presenter, data)


def test_undeclared_extras_are_still_kept() -> None:
    """Keys no field declares under any spelling stay, after the fields."""
    data = {"id": "a", "sec": "s", "secret": SECRET, "note": "kept"}
    assert json.loads(Presenter("P", ByAlias).make(data).build().texts[0]) == {
        "id": "a",
        "note": "kept",
    }


def test_an_extra_never_replaces_a_field() -> None:
    """The field keeps the value read under its alias (model_dump writes the extra's)."""
    text = Presenter("P", Forged).make({"ID": "good", "id": FORGED}).build().texts[0]
    assert json.loads(text) == {"id": "good"}


# --- Input types: the declared schema decides, whatever the object is -------------


class Address(BaseModel):
    city: str


class AddressRow(Address):
    geo_secret: str = SECRET


class UserPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    name: str
    address: Address | None = None


class UserDB(UserPublic):
    password_hash: str = SECRET

    @computed_field  # type: ignore[prop-decorator]
    @property
    def token(self) -> str:
        return SECRET


class OpenUser(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: int


class OpenUserDB(OpenUser):
    password_hash: str = Field(default=SECRET, alias="ph")


class Team(BaseModel):
    lead: UserPublic
    members: list[UserPublic] = []
    by_role: dict[str, UserPublic] = {}
    backup: UserPublic | None = None


@dataclasses.dataclass
class UserRecord:
    id: int
    name: str
    password_hash: str = SECRET


class UserDict(TypedDict):
    id: int
    name: str
    password_hash: str


def _row() -> AddressRow:
    return AddressRow(city="Paris")


def _spelled_twice() -> OpenUserDB:
    return OpenUserDB.model_validate({"id": 1, "ph": "x", "password_hash": SECRET})


def _db(user_id: int = 1) -> UserDB:
    return UserDB(id=user_id, name="Ada", address=AddressRow(city="Paris"))


INPUTS: dict[str, tuple[type[BaseModel], Any]] = {
    "a subclass instance": (UserPublic, _db()),
    "a list of subclass instances": (UserPublic, [_db(1), _db(2)]),
    "a nested subclass instance": (UserPublic, {"id": 1, "name": "A", "address": _row()}),
    "a dataclass": (UserPublic, UserRecord(1, "Ada")),
    "an attribute object": (UserPublic, SimpleNamespace(id=1, name="Ada", password_hash=SECRET)),
    "a TypedDict": (UserPublic, UserDict(id=1, name="Ada", password_hash=SECRET)),
    "a subclass instance in a field": (Team, {"lead": _db()}),
    "subclass instances in a list field": (Team, {"lead": _db(), "members": [_db(2)]}),
    "subclass instances in a dict field": (Team, {"lead": _db(), "by_role": {"x": _db(3)}}),
    "a subclass instance behind Optional": (Team, {"lead": _db(), "backup": _db(4)}),
    "a model instance holding subclass instances": (Team, Team(lead=_db(), members=[_db(2)])),
    "a subclass whose field has another spelling": (OpenUser, _spelled_twice()),
}  # fmt: skip


@pytest.mark.parametrize("name", list(INPUTS))
def test_any_input_is_written_as_the_declared_schema_writes_it(name: str) -> None:
    """Instance, subclass, dataclass, dict, attribute object, at any depth: only declared fields."""
    model, data = INPUTS[name]
    presenter = Presenter("P", model)
    text = presenter.make(data).build().texts[0]
    assert SECRET not in text
    declared = list[model] if isinstance(data, list) else model  # type: ignore[valid-type]
    assert text == _expected(declared, data)
    assert SECRET not in _wire(presenter, data)


class Strict(BaseModel):
    id: str


class Loose(Strict):
    id: int  # type: ignore[assignment]


def _changed() -> Strict:
    user = Strict(id="a")
    user.id = 5  # type: ignore[assignment]
    return user


class Owner(BaseModel):
    name: str


class Doc(BaseModel):
    owner: Owner


class DocRow(Doc):
    owner: dict[str, Any]  # type: ignore[assignment]


UNFIT: dict[str, tuple[type[BaseModel], Any, str]] = {
    "a subclass's field of another type": (Strict, Loose(id=1), "'id'"),
    "an instance changed after validation": (Strict, _changed(), "'id'"),
    "a subclass's nested field holding a dict": (Doc, DocRow(owner={"pw": SECRET}), "'owner'"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(UNFIT))
def test_a_value_unfit_for_its_declared_type_is_refused(name: str) -> None:
    """Not written by inference (``model_dump`` would): an error naming the field, no value."""
    model, data, field = UNFIT[name]
    with pytest.raises(PresenterValidationError) as caught:
        Presenter("P", model).make(data)
    message = str(caught.value)
    assert f"in the field {field} does not fit its declared type" in message
    assert SECRET not in message
    assert "input_value" not in message
    assert SECRET not in _wire(Presenter("P", model), data)


def test_a_subclass_instance_is_never_changed() -> None:
    """Masking copies what it drops from: the caller's instance keeps its extras."""
    user = _spelled_twice()
    Presenter("P", OpenUser).make(user)
    assert user.__pydantic_extra__ == {"password_hash": SECRET}


def _revalidating(mode: str) -> tuple[type[BaseModel], type[BaseModel], type[BaseModel]]:
    class Public(BaseModel):
        model_config = ConfigDict(extra="allow", revalidate_instances=mode)  # type: ignore[typeddict-item]
        id: int

    class Private(Public):
        password_hash: str = SECRET

    class Holding(BaseModel):
        user: Public
        users: list[Public] = []

    return Public, Private, Holding


@pytest.mark.parametrize("mode", ["always", "subclass-instances"])
def test_revalidating_a_subclass_instance_makes_no_extras_of_its_fields(mode: str) -> None:
    """``revalidate_instances`` reads the whole instance: its subclass's fields are not extras."""
    public, private, holding = _revalidating(mode)
    user = private(id=1, note="kept")
    assert Presenter("P", public).make(user).build().texts[0] == to_json({"id": 1, "note": "kept"})
    nested = Presenter("H", holding).make({"user": user, "users": [user]}).build().texts[0]
    assert json.loads(nested) == {
        "user": {"id": 1, "note": "kept"},
        "users": [{"id": 1, "note": "kept"}],
    }
    assert user.__pydantic_extra__ == {"note": "kept"}


@with_config(ConfigDict(extra="allow"))
class OpenShipment(TypedDict):
    """A typed dict that keeps extras: the dump writes them, a field's other spellings too."""

    sku: Annotated[str, Field(alias="SKU")]
    cost: Annotated[str, Field(serialization_alias="price", exclude=True)]
    lot: Annotated[str, Field(validation_alias=AliasChoices("lot_a", "lot_b"))]


class Order(BaseModel):
    one: OpenShipment
    many: list[OpenShipment] = []
    either: OpenShipment | int = 0


_SHIPMENT = {"SKU": "A", "cost": "c", "price": SECRET, "lot_a": "l", "lot_b": SECRET, "note": 1}
_SHOWN = {"sku": "A", "lot": "l", "note": 1}


def test_a_typed_dict_writes_no_spelling_of_its_fields_as_an_extra() -> None:
    """The same rule inside a ``TypedDict`` with ``extra="allow"``, at any depth."""
    data = {"one": _SHIPMENT, "many": [_SHIPMENT], "either": _SHIPMENT}
    text = Presenter("Order", Order).make(data).build().texts[0]
    assert json.loads(text) == {"one": _SHOWN, "many": [_SHOWN], "either": _SHOWN}
    assert SECRET not in _wire(Presenter("Order", Order), data)


class Shouted(BaseModel):
    """A model with its own ``model_dump`` (kept as it writes): it runs on the declared class."""

    id: str

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        out = super().model_dump(**kwargs)
        out["id"] = out["id"].upper()
        return out


class ShoutedRow(Shouted):
    password_hash: str = SECRET


def test_a_model_dumping_itself_writes_a_subclass_instance_as_itself() -> None:
    """``super().model_dump()`` on a subclass instance would write the subclass's fields."""
    presenter = Presenter("S", Shouted)
    assert presenter.make(ShoutedRow(id="a")).build().texts[0] == to_json({"id": "A"})
    assert presenter.make([ShoutedRow(id="b")]).build().texts[0] == to_json([{"id": "B"}])
