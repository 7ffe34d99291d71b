"""Numbers as JavaScript's ``Number#toString`` prints them."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fusion_core._write._numbers import js_number, js_string_of_number

# Number::toString: plain notation for decimal exponents -7 < e < 21, else
# one digit, an optional fraction, and a signed exponent.
_PLAIN_INT = re.compile(r"-?(?:0|[1-9]\d{0,20})")
_PLAIN_FRACTION = re.compile(r"-?(?:[1-9]\d{0,20}|0)\.\d*[1-9]")
_EXPONENT = re.compile(r"-?[1-9](?:\.\d*[1-9])?e([+-])([1-9]\d{0,2})")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (0.0, "0"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (1.5e-6, "0.0000015"),
        (1e16, "10000000000000000"),
        (123e18, "123000000000000000000"),
        (1.2345678901234568e20, "123456789012345680000"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (0.1, "0.1"),
        (0.30000000000000004, "0.30000000000000004"),
        (1e-6, "0.000001"),
        (100.0, "100"),
        (-1.5, "-1.5"),
        (1e20, "100000000000000000000"),
        (-1e21, "-1e+21"),
        (1.5e-7, "1.5e-7"),
        (2.5e25, "2.5e+25"),
        (123.456, "123.456"),
    ],
)
def test_js_number_table(value: float, expected: str) -> None:
    """Each float prints exactly as JavaScript's String(number)."""
    assert js_number(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (10**30, "1000000000000000000000000000000"),
        (-(2**64), "-18446744073709551616"),
        (1.0, "1"),
        (7, "7"),
    ],
)
def test_js_string_of_number(value: float, expected: str) -> None:
    """String(value): non-finite floats by name, ints exact, floats as JS."""
    assert js_string_of_number(value) == expected


def _matches_number_grammar(text: str) -> bool:
    if _PLAIN_INT.fullmatch(text) or _PLAIN_FRACTION.fullmatch(text):
        # Plain notation never holds more than 21 integer digits or more
        # than five zeros right after the point.
        return not re.fullmatch(r"-?0\.0{6,}\d*", text)
    exponent = _EXPONENT.fullmatch(text)
    if exponent is None:
        return False
    power = int(exponent.group(2)) * (-1 if exponent.group(1) == "-" else 1)
    return power >= 21 or power <= -7


@given(st.floats(allow_nan=False, allow_infinity=False))
@example(5e-324)
@example(-1.7976931348623157e308)
@example(1e21)
@example(9.999999999999999e20)
@example(1e-7)
@example(9.99999999999999e-7)
def test_js_number_round_trips_and_follows_the_grammar(value: float) -> None:
    """The text reads back as the same float and follows Number#toString's grammar."""
    text = js_number(value)
    assert float(text) == value
    assert _matches_number_grammar(text), text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_uses_the_shortest_digits(value: float) -> None:
    """The significant digits are repr's shortest round-trip digits."""
    text = js_number(value)
    mantissa = text.lstrip("-").split("e")[0].replace(".", "").strip("0")
    shortest = repr(abs(value)).split("e")[0].replace(".", "").strip("0")
    assert mantissa == shortest or (value == 0 and text == "0")


def test_integral_floats_have_no_point() -> None:
    """Integral floats below 1e21 print without a point, as JS does."""
    for power in range(21):
        assert js_number(float(10**power)) == str(10**power)
    assert js_number(2.0**60) == "1152921504606847000"
