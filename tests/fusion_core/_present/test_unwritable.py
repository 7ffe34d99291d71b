"""Data a schema accepts but JSON cannot hold: a Presenter refuses it, says where, quotes nothing.

A model accepts objects ``model_dump(mode="json")`` cannot write (an
``extra="allow"`` key or an ``Any`` field holding an object, a serializer that
raises). Found by the masking property (a ``SimpleNamespace`` in an extra of
a union member). The class: any unwritable value, at any depth, in one
object or a list, through ``make`` and through a tool call.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict, PlainSerializer, model_serializer

from fusion_core._present._presenter import Presenter, PresenterValidationError
from fusion_core._tools._app import FusionApp
from fusion_core._tools._tool import Tool

SECRET = "sk-live-4242"
CIRCULAR = "The value contains itself (a circular reference) and cannot be written as JSON"
NOT_SHOWN = "(its message is not shown: it may quote the data)"


def _quoting(value: Any) -> str:
    msg = f"cannot write {value}"
    raise ValueError(msg)


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str


class Loose(BaseModel):
    name: str
    payload: Any = None


class Card(BaseModel):
    number: Annotated[str, PlainSerializer(_quoting)]


class Holder(BaseModel):
    card: Card
    others: list[Open] = []


class Whole(BaseModel):
    name: str

    @model_serializer
    def _dump(self) -> dict[str, Any]:
        msg = f"refusing {self.name}"
        raise ValueError(msg)


class Either(BaseModel):
    value: Open | Loose


def _socket() -> socket.socket:
    sock = socket.socket()
    sock.close()
    return sock


def _circular() -> dict[str, Any]:
    looped: dict[str, Any] = {"token": SECRET}
    looped["again"] = looped
    return {"name": "a", "payload": looped}


def _deep() -> dict[str, Any]:
    nested: Any = SECRET
    for _ in range(100_000):
        nested = [nested]
    return {"name": "a", "payload": nested}


# (model, data, expected index, expected bullet)
ROWS: dict[str, tuple[type[BaseModel], Callable[[], Any], int | None, str]] = {
    "object in an extra key": (
        Open,
        lambda: {"name": "a", SECRET: SimpleNamespace(token=SECRET)},
        None,
        "'*': A value of type types.SimpleNamespace cannot be written as JSON",
    ),
    "bare object in an extra key": (
        Open,
        lambda: {"name": "a", "extra": object()},
        None,
        "'*': A value of type object cannot be written as JSON",
    ),
    "object deep in an Any field": (
        Loose,
        lambda: {"name": "a", "payload": {"k": [1, {SECRET: _socket()}]}},
        None,
        "'payload.*.1.*': A value of type socket.socket cannot be written as JSON",
    ),
    "value containing itself": (
        Loose,
        _circular,
        None,
        f"'payload.*': {CIRCULAR}",
    ),
    "value nested 100,000 deep (blamed at depth 32)": (
        Loose,
        _deep,
        None,
        "'payload" + ".0" * 31 + "': The value is nested too deeply to be written as JSON",
    ),
    "serializer quoting the value": (
        Holder,
        lambda: {"card": {"number": SECRET}},
        None,
        f"'card.number': The serializer _quoting failed {NOT_SHOWN}",
    ),
    "second item of a list": (
        Holder,
        lambda: [
            {"card": {"number": "1"}, "others": []},
            {"card": {"number": "2"}, "others": [{"name": "x", "y": SimpleNamespace()}]},
        ],
        0,
        f"'card.number': The serializer _quoting failed {NOT_SHOWN}",
    ),
    "model serializer": (
        Whole,
        lambda: {"name": SECRET},
        None,
        "(root): The serializer _dump failed (its message is not shown: it may quote the data)",
    ),
    "union member with an extra": (
        Either,
        lambda: {"value": {"name": "a", "note": SimpleNamespace(pw=SECRET)}},
        None,
        "'value.*': A value of type types.SimpleNamespace cannot be written as JSON",
    ),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_unwritable_data_is_refused_with_its_place(name: str) -> None:
    """``make`` raises PresenterValidationError naming the path and the type, not the data."""
    model, data, index, bullet = ROWS[name]
    with pytest.raises(PresenterValidationError) as caught:
        Presenter("P", model).make(data())
    text = str(caught.value)
    assert text == f"[P Presenter] Validation failed:\n  • {bullet}"
    assert caught.value.index == index
    assert SECRET not in text
    assert caught.value.__cause__ is None


@pytest.mark.parametrize("name", list(ROWS))
def test_unwritable_data_in_a_tool_call_is_an_envelope(name: str) -> None:
    """In a tool call the same text is the INTERNAL_ERROR envelope's message."""
    model, data, _index, bullet = ROWS[name]
    tool = Tool("t").action("run", data, returns=Presenter("P", model))
    result = FusionApp([tool]).call_sync("t", {"action": "run"})
    assert result.is_error
    text = result.texts[0]
    assert text.startswith('<tool_error code="INTERNAL_ERROR" severity="error">\n')
    escaped = bullet.replace("<", "&lt;")
    assert f"<message>[t/run] [P Presenter] Validation failed:\n  • {escaped}</message>" in text
    assert SECRET not in text


class Account(BaseModel):
    email: str
    plan: int


def test_a_field_named_like_a_dropped_value_is_still_named() -> None:
    """Cleaning a Presenter's error in a tool call keeps its paths (declared names only).

    The data's keys are values the Presenter dropped; a field called ``email``
    was shown as ``'***'`` when every dropped text was removed from the
    whole message.
    """
    data = {"email": 5, "plan": "email", "password": "hunter22"}
    tool = Tool("t").action("run", lambda: data, returns=Presenter("A", Account))
    text = FusionApp([tool]).call_sync("t", {"action": "run"}).texts[0]
    assert "  • 'email': Input should be a valid string\n" in text
    assert "  • 'plan': Input should be a valid integer" in text
    assert "hunter22" not in text


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: str


def test_unrecognized_keys_are_still_cleaned_in_a_tool_call() -> None:
    """The message part that names data keys is still cleaned of dropped values."""
    data = {"email": "a@b.c", "sk-live-4242": 1}
    tool = Tool("t").action("run", lambda: data, returns=Presenter("S", Strict))
    text = FusionApp([tool]).call_sync("t", {"action": "run"}).texts[0]
    assert '(root): Unrecognized key: "***"' in text
    assert SECRET not in text
