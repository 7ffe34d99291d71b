"""A framework's refused arguments: pydantic's messages never quote what was sent.

The property: two inputs refused by the same field for the same reason get
the same message, so the message says nothing of either input. It is checked
over every pydantic type whose messages carry context, with inputs near
their valid forms (where parsers say most about what they read).
"""

from __future__ import annotations

import datetime
import decimal
import enum
import ipaddress
import re
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import (
    UUID4,
    AnyUrl,
    AwareDatetime,
    BaseModel,
    ByteSize,
    EmailStr,
    Field,
    ImportString,
    Json,
    PaymentCardNumber,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from fusion_core._tools import _unquoted
from fusion_core._tools._pipeline import field_problems
from fusion_core._tools._unquoted import message_without_input


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str


_TYPES: dict[str, Any] = {
    "uuid": uuid.UUID,
    "uuid4": UUID4,
    "date": datetime.date,
    "datetime": datetime.datetime,
    "aware-datetime": AwareDatetime,
    "time": datetime.time,
    "timedelta": datetime.timedelta,
    "url": AnyUrl,
    "json": Json[int],
    "decimal": Annotated[decimal.Decimal, Field(max_digits=4, decimal_places=1)],
    "int": Annotated[int, Field(gt=0, lt=10)],
    "float": float,
    "bool": bool,
    "bytes": bytes,
    "ip": ipaddress.IPv4Address,
    "literal": Literal["a", "b"],
    "enum": Colour,
    "pattern": Annotated[str, Field(pattern=r"^[a-z]{3}$", max_length=5)],
    "tagged": Annotated[Cat | Dog, Field(discriminator="kind")],
    "mapping": dict[str, int],
    "tuple": tuple[int, str],
    "set": frozenset[int],
    # pydantic's own validators (ImportString is left out: it imports what it is given).
    "zoneinfo": ZoneInfo,
    "byte-size": ByteSize,
    "email": EmailStr,
}
_NEAR_VALID = st.one_of(
    st.text(max_size=40),
    st.from_regex(r"\A[0-9a-fA-FxyzQ-]{30,40}\Z"),  # UUIDs
    st.from_regex(r"\A[0-9]{2,5}-[0-9Q]{1,3}-[0-9]{1,3}([T ][0-9:Q.]{2,15}([+-Z][0-9:]{0,6})?)?\Z"),
    st.from_regex(r"\A(P[0-9QDTHMS.]{1,10}|[0-9:Q.]{1,12})\Z"),  # durations and times
    st.from_regex(r"\A[a-zQ]{0,6}:?/{0,3}[a-zQ0-9.:@\[\]%-]{0,20}\Z"),  # URLs
    st.from_regex(r"\A[0-9Q.]{1,15}\Z"),  # addresses and numbers
    st.builds(lambda tag: {"kind": tag}, st.text(max_size=12)),
    st.dictionaries(st.sampled_from(["kind", "lives", "name"]), st.text(max_size=8)),
    st.lists(st.text(max_size=8), max_size=3),
)
# Their messages count what was sent (``not 3``): a length, not a value.
_COUNTS = frozenset({"too_short", "too_long"})


def _details(kind: str, value: object) -> dict[tuple[Any, ...], dict[str, Any]]:
    try:
        TypeAdapter(_TYPES[kind]).validate_python(value)
    except ValidationError as exc:
        return {(d["loc"], d["type"]): dict(d) for d in exc.errors(include_url=False)}
    return {}


@pytest.mark.parametrize("kind", sorted(_TYPES))
@given(first=_NEAR_VALID, second=_NEAR_VALID)
def test_a_refusal_says_nothing_of_what_was_sent(kind: str, first: Any, second: Any) -> None:
    """The same field refusing two inputs for the same reason says the same words."""
    one, other = _details(kind, first), _details(kind, second)
    for key in one.keys() & other.keys():
        if key[1] in _COUNTS:
            continue
        assert message_without_input(one[key]) == message_without_input(other[key]), key


# The context keys of pydantic's templates that can carry some of the input,
# and the error types whose message is a validator author's (sent as written).
_INPUT_KEYS = ("{error}", "{tag}", "{tz_actual}", "{attribute}", "{encoding_error}")
_AUTHORED = frozenset({"value_error", "assertion_error"})


def test_every_template_that_can_quote_input_is_written_without_it() -> None:
    """Held to the installed pydantic-core: a new type that quotes input fails here."""
    from pydantic_core._pydantic_core import list_all_errors  # noqa: PLC0415 - private, a test's

    quoting = {
        error["type"]
        for error in list_all_errors()
        if any(key in error["message_template_python"] for key in _INPUT_KEYS)
    }
    assert quoting - _AUTHORED == set(_unquoted._WITHOUT_INPUT)


@pytest.mark.parametrize(
    ("kind", "value", "quoted"),
    [
        ("tagged", {"kind": "SECRET"}, "SECRET"),
        ("uuid", "Q" * 36, "`Q`"),
        ("date", "2024-13-45", "month value is outside expected range"),
        ("json", '{"a": SECRET}', "line 1 column"),
    ],
)
def test_the_messages_that_quoted_input_are_written_without_it(
    kind: str, value: object, quoted: str
) -> None:
    """Where pydantic's own message quotes the input, ours keeps its sense without it."""
    details = _details(kind, value).values()
    assert details
    for detail in details:
        assert quoted in detail["msg"]  # pydantic's says something of the input
        assert quoted not in message_without_input(detail)
        assert detail["msg"].startswith(message_without_input(detail).split(" ")[0])


def _validated(message: str) -> type[BaseModel]:
    """A model whose validator refuses every code with ``message``."""

    class Validated(BaseModel):
        code: str

        @field_validator("code")
        @classmethod
        def _known(cls, code: str) -> str:
            raise ValueError(message)

    return Validated


@pytest.mark.parametrize(
    "message",
    [
        "codes start with 'C-'",
        # pydantic's own EmailStr wording, written by a validator: still its author's.
        "value is not a valid email address: use your work one",
    ],
)
def test_a_validators_own_message_is_sent_as_its_author_wrote_it(message: str) -> None:
    """``value_error``: the author's words reach the model (the way a tool says what to fix)."""
    with pytest.raises(ValidationError) as caught:
        _validated(message).model_validate({"code": "x"})
    assert field_problems(caught.value, values=False) == [("code", f"Value error, {message}.")]


# pydantic's own validators' templates whose placeholders hold no input: the
# input's type name, a constant, a predicate's name, binascii's account of a
# base64 string (counts and padding, never its characters); and the email
# validator's reason, written without it by its message (a value_error).
_PYDANTIC_REVIEWED = frozenset(
    {
        "sequence_str",
        "color_error",
        "predicate_failed",
        "not_operation_failed",
        "base64_decode",
        "value_error",
    }
)
_CUSTOM_ERROR = re.compile(r"PydanticCustomError\(\s*'([a-z0-9_]+)',\s*f?(['\"])(.*?)\2", re.S)


def test_every_pydantic_validator_template_that_can_quote_input_is_written_without_it() -> None:
    """Held to the installed pydantic's source: a new template with a placeholder fails here."""
    import pydantic  # noqa: PLC0415

    root = Path(pydantic.__file__).parent
    quoting = {
        match[1]
        for source in root.rglob("*.py")
        if "v1" not in source.relative_to(root).parts
        for match in _CUSTOM_ERROR.finditer(source.read_text(encoding="utf-8"))
        if "{" in match[3]
    }
    assert quoting - _PYDANTIC_REVIEWED == set(_unquoted._PYDANTIC_WITHOUT_INPUT)


@pytest.mark.parametrize(
    ("annotation", "value", "quoted"),
    [
        (ZoneInfo, "Europe/sk-live-1", "sk-live-1"),
        (ByteSize, "1 sklive", "sklive"),
        (ImportString, "sk_live_3", "sk_live_3"),
        pytest.param(
            PaymentCardNumber,
            "41111111111114",
            "Visa",
            marks=pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20"),
        ),
        (EmailStr, "x@y@sk-live-4", "'@'"),
    ],
    ids=["zoneinfo", "byte-size", "import-string", "card-brand", "email"],
)
def test_pydantic_validators_messages_are_written_without_the_input(
    annotation: Any, value: str, quoted: str
) -> None:
    """A time zone, byte unit, module path, card brand or email validator's quote: left out."""
    with pytest.raises(ValidationError) as caught:
        TypeAdapter(annotation).validate_python(value)
    (detail,) = caught.value.errors(include_url=False)
    assert quoted in detail["msg"]  # pydantic's own says something of the input
    written = message_without_input(dict(detail))
    assert quoted not in written
    assert value not in written
    assert detail["msg"].lower().startswith(written.split(" ")[0].lower())
