r"""Error texts carry no hidden value in any form Python writes it (issue 25, point 3).

With ``expose_errors="message"`` a handler's exception message is cleaned of
every value a Presenter dropped. It used to look for the value as it is
only: a message built with ``f"... {row}"`` writes each str by its
``repr()`` (a newline as ``\n``, a backslash doubled, a quote escaped),
``json.dumps`` escapes non-ASCII; 9 of 10 such messages carried the secret.
The table crosses secrets of every escaping class with every usual way of
writing data into a message, and hidden values of other types.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import html
import json
import pprint
import re
import urllib.parse
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, computed_field, model_validator
from pydantic_core import PydanticCustomError

from fusion_core import FusionApp, Presenter, Tool
from fusion_core._present._forms import text_forms
from fusion_core._present._redact import hidden_values, scrub

SECRETS: dict[str, str] = {
    "plain": "hunter2-secret",
    "newline": "pa\nss-word",
    "carriage return": "pa\r\nss-word",
    "tab": "ta\tb-secret",
    "backslash": "back\\slash",
    "single quote": "it's-secret",
    "double quote": 'dq"secret',
    "both quotes": "both'\"q-secret",
    "non-ASCII": "é-secret-ü",
    "astral": "secret-\U0001f511",
    "line separator": "\u2028line-sep",
    "control character": "nul\x00-secret",
    "markup": "<b>&secret</b>",
}

WRITERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "f-string": lambda row: f"refused {row}",
    "!r": lambda row: f"refused {row!r}",
    "!a": lambda row: f"refused {row!a}",
    "%s": lambda row: "refused %s" % (row,),  # noqa: UP031 - the form under test
    "json.dumps": lambda row: f"refused {json.dumps(row)}",
    "json.dumps, not ASCII": lambda row: f"refused {json.dumps(row, ensure_ascii=False)}",
    "a list of rows": lambda row: f"refused {[row, row]}",
    "pprint": lambda row: f"refused {pprint.pformat(row)}",
    "the value's repr": lambda row: f"bad password {row['password']!r}",
    "a KeyError": lambda row: str(KeyError(row["password"])),
    "html.escape": lambda row: html.escape(f"refused {row}"),
    "URL-quoted": lambda row: "GET /?q=" + urllib.parse.quote(row["password"], safe=""),
    "its bytes": lambda row: f"refused {row['password'].encode()!r}",
}


class Invoice(BaseModel):
    id: str


INVOICE = Presenter("Invoice", Invoice)


def _message(row: dict[str, Any], writer: Callable[[dict[str, Any]], str]) -> str:
    def bill() -> None:
        INVOICE.make(row)
        raise RuntimeError(writer(row))

    tool = Tool("billing").action("bill", bill, returns=INVOICE)
    text = FusionApp([tool]).call_sync("billing", {"action": "bill"}).texts[0]
    return text.split("<message>")[1].split("</message>")[0]


def _unescaped(text: str) -> str:
    return text.replace("&lt;", "<").replace("&amp;", "&")


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("secret", list(SECRETS))
def test_a_hidden_value_is_redacted_in_every_form(secret: str, writer: str) -> None:
    """However the message writes the row, no form of the dropped value stays in it."""
    value = SECRETS[secret]
    row = {"id": "INV-1", "password": value}
    message = _unescaped(_message(row, WRITERS[writer]))
    assert "***" in message
    for form in text_forms(value):
        assert form not in message, f"{form!r} in {message!r}"


def test_the_shown_values_stay() -> None:
    """Only what the Presenter dropped is cleaned: the declared id is still quoted."""
    message = _message({"id": "INV-1", "password": "pa\nss-word"}, WRITERS["f-string"])
    assert message == "[billing/bill] refused {'id': 'INV-1', '***': '***'}"


class Stamp(BaseModel):
    id: str


class StampRow(Stamp):
    model_config = ConfigDict(extra="allow")
    at: datetime.datetime
    key: uuid.UUID
    amount: Decimal
    blob: bytes
    big: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def token(self) -> str:
        return "computed-secret"


@dataclasses.dataclass(slots=True)
class Slotted:
    id: str
    secret: str


class Clearance(enum.IntEnum):
    TOP = 55501234


class Cents(int):
    """A money type whose repr is its own: json.dumps and str() still write the int."""

    def __repr__(self) -> str:
        return f"Cents({int(self)})"


class Rate(float):
    def __repr__(self) -> str:
        return "Rate(...)"


class Code(str):
    __slots__ = ()

    def __str__(self) -> str:
        return "Code(...)"


HIDDEN_TYPES: dict[str, tuple[Any, tuple[str, ...]]] = {
    "an IntEnum": ({"id": "a", "level": Clearance.TOP}, ("55501234",)),
    "an int subclass with its own repr": ({"id": "a", "pay": Cents(7770001)}, ("7770001",)),
    "a float subclass": ({"id": "a", "rate": Rate(0.123456789)}, ("0.123456789",)),
    "a str subclass with its own str": (
        {"id": "a", "code": Code("code-secret-1")},
        ("code-secret-1",),
    ),
    "a memoryview": ({"id": "a", "raw": memoryview(b"mem-secret")}, ("mem-secret",)),
    "a datetime": (
        {"id": "a", "at": datetime.datetime(2025, 1, 31, 10, 0, 7)},
        ("2025-01-31 10:00:07", "datetime.datetime(2025, 1, 31, 10, 0, 7)", "2025-01-31T10:00:07"),
    ),
    "a UUID": ({"id": "a", "key": uuid.UUID(int=7)}, (str(uuid.UUID(int=7)), uuid.UUID(int=7).hex)),
    "a Decimal": ({"id": "a", "amount": Decimal("1234.56")}, ("1234.56",)),
    "bytes": ({"id": "a", "blob": b"blob\nsecret"}, ("blob\nsecret", "blob\\nsecret")),
    "a long int": ({"id": "a", "big": 12345678901234567890}, ("12345678901234567890",)),
    "a subclass instance's fields and computed field": (
        StampRow.model_validate(
            {
                "id": "a",
                "at": datetime.datetime(2025, 1, 31),
                "key": uuid.UUID(int=9),
                "amount": Decimal("98.76"),
                "blob": b"blob-secret",
                "big": 99999,
                "note": "extra-secret",
            }
        ),
        ("computed-secret", "extra-secret", "blob-secret", "98.76", "99999"),
    ),
    "a slotted dataclass": (Slotted("a", "slot-secret"), ("slot-secret",)),
}


def _answer(handler: Callable[[], Any], presenter: Presenter[Any]) -> str:
    """The text a FusionApp answers for ``handler`` run as tool ``t``'s action ``run``."""
    tool = Tool("t").action("run", handler, returns=presenter)
    return FusionApp([tool]).call_sync("t", {"action": "run"}).texts[0]


@pytest.mark.parametrize("name", list(HIDDEN_TYPES))
def test_hidden_values_of_any_type_are_redacted(name: str) -> None:
    """Dates, UUIDs, decimals, bytes, ints, a model's extras and computed fields, slots."""
    data, texts = HIDDEN_TYPES[name]
    presenter = Presenter("Stamp", Stamp, rules=lambda _item, _ctx: [])

    def fail() -> None:
        presenter.make(data)
        written = json.dumps(data, default=lambda value: bytes(value).decode())
        raise RuntimeError(f"refused {data!r} / {data} / {written}")

    text = _answer(fail, presenter)
    for secret in texts:
        assert secret not in text


def test_text_forms_hold_every_writer_s_form() -> None:
    """The forms of a value include what repr, ascii, json and html write inside a text."""
    value = "é\n'\"\\<"
    forms = text_forms(value)
    for written in (repr(value)[1:-1], ascii(value)[1:-1], json.dumps(value)[1:-1]):
        assert written in forms
    assert html.escape(value) in forms


def test_short_values_are_not_scrubbed_in_any_form() -> None:
    """A value under 4 characters is left alone: its forms would garble ordinary words."""
    assert hidden_values([({"a": "x\ny"}, {})]) == set()
    assert hidden_values([({"a": "long\n"}, {})]) == {"long\n"}
    hidden = hidden_values([({"a": "x\ny", "b": "long\n"}, {})])
    assert hidden is not None
    assert scrub("a 'long\\n'", hidden) == "a '***'"


def test_a_value_whose_letters_are_not_in_the_text_is_not_looked_for() -> None:
    """Every form keeps a value's letters and digits: without them in the text, nothing to do."""
    assert scrub("nothing here", {"secret\n1"}) == "nothing here"
    assert scrub("got 'secret\\n1'", {"secret\n1"}) == "got '***'"
    # Without any letter or digit of ASCII, a value is always looked for:
    assert scrub('got "\\u00e9\\u00e8\\u00ea\\u00eb"', {"éèêë"}) == 'got "***"'


@given(st.text())
def test_every_form_keeps_the_runs_of_ascii_letters_and_digits(value: str) -> None:
    """Why scrub may skip a value whose letters are not in the text: every form keeps them."""
    runs = re.findall("[A-Za-z0-9]+", value)
    for form in text_forms(value):
        for run in runs:
            assert run in form, (value, form)


class ByAttributes(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: str


class Account:
    """A plain class with ``__slots__`` (no ``__dict__``), presented by its attributes."""

    __slots__ = ("id", "password_hash")

    def __init__(self) -> None:
        self.id = "INV-1"
        self.password_hash = "pbkdf2$hunter2"


def test_a_plain_slotted_objects_hidden_attributes_are_redacted() -> None:
    """A hidden slot of a plain object (read by attributes) is cleaned from a crash's text."""
    presenter = Presenter("Account", ByAttributes, rules=lambda _item, _ctx: [])

    def fail() -> None:
        account = Account()
        presenter.make(account)
        raise RuntimeError(f"refused hash={account.password_hash}")

    text = _answer(fail, presenter)
    assert "hunter2" not in text
    assert "refused hash=***" in text


def test_more_data_than_the_scan_reads_shows_the_type_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the scan's budget what was hidden is not known in full: no text of the exception."""
    from fusion_core._present import _redact  # noqa: PLC0415

    monkeypatch.setattr(_redact, "_SCAN_BUDGET", 50)
    rows = [{"id": f"INV-{number}", "ssn": f"SSN-{number:09d}"} for number in range(40)]
    presenter = Presenter("Stamp", Stamp, rules=lambda _item, _ctx: [])

    def fail() -> None:
        presenter.make(rows)
        raise RuntimeError(f"export failed at row {rows[0]}")

    text = _answer(fail, presenter)
    assert "SSN-" not in text
    assert "[t/run] RuntimeError</message>" in text


class Checked(BaseModel):
    id: str

    @model_validator(mode="before")
    @classmethod
    def _has_id(cls, row: Any) -> Any:
        if "id" not in row:
            # A custom error borrowing a core type's name, its own words quoting the row.
            raise PydanticCustomError("missing", "row has no id: {row}", {"row": row})
        return row


def test_a_custom_error_under_a_core_type_name_is_not_trusted() -> None:
    """Only pydantic-core's own words for its types are shown: a borrowed name shows none."""
    presenter = Presenter("Checked", Checked, rules=lambda _item, _ctx: [])

    def bill() -> Any:
        return presenter.make({"invoice_id": "INV-1", "password_hash": "pbkdf2$hunter2"})

    text = _answer(bill, presenter)
    assert "hunter2" not in text
    assert "INV-1" not in text
    assert "Custom error 'missing' (its message is not shown" in text
