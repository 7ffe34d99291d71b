"""Pattern strings: the values of ``from_regex(pattern, fullmatch=True)``, runs drawn at once."""

from __future__ import annotations

import importlib
import re
import unicodedata

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from pytest_mcpfusion._patterns import _exact, _parser, _sequence, pattern_strings

# The plain subset the module draws itself, and constructs it leaves to from_regex.
OWN = [
    r"^INV-\d{3,}$", r"^C-\d{3,}$", r"[A-Za-z0-9][A-Za-z0-9_+#.\-]{0,8}", r"[^a]", r"\D+",
    r"[^\d_]{2}", r"(a|bc)+d?", r"x*?y{2,3}", r".{1,4}", r"[\w.-]{2}", r"\s\S\w\W", r"^$",
    r"", r"a{0}", r"\Aab\Z", r"(?:[a-f0-9]{8})-[a-f0-9]{4}", r"(?P<year>\d{4})-\d\d",
]  # fmt: skip
LEFT_TO_HYPOTHESIS = [r"\bx", r"(?i:ab)", r"(?i)ab", r"(ab)\1", r"[\u0000-\uffff]", r"[\D_]"]


def _draws(pattern: str) -> st.SearchStrategy[tuple[str, str]]:
    compiled = re.compile(pattern)
    return st.tuples(st.just(pattern), pattern_strings(compiled))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OWN + LEFT_TO_HYPOTHESIS).flatmap(_draws))
def test_every_draw_matches_the_whole_pattern(drawn: tuple[str, str]) -> None:
    """A drawn string full-matches its pattern (so JSON Schema's search matches it too)."""
    pattern, text = drawn
    assert re.fullmatch(pattern, text), (pattern, text)
    text.encode("utf-8")  # never a lone surrogate, as from_regex's default alphabet


@pytest.mark.parametrize(
    ("pattern", "wanted"),
    [
        (r"^INV-\d{3,}$", lambda s: not s.isascii()),  # Unicode digits (Nd), as from_regex
        (r"\w{2}", lambda s: "_" in s),
        (r"\s", lambda s: s == "\x85"),
        (r"[^\d_]", lambda s: not s.isascii()),
        (r"\D", lambda s: unicodedata.category(s) == "Lo"),
        (r"(a|bc){3}", lambda s: s == "bcabc"),
        (r"[a-c]{2}x?", lambda s: s == "cbx"),
    ],
)
def test_the_values_of_from_regex_are_reached(pattern: str, wanted: object) -> None:
    """Each construct reaches the same values from_regex does, not an ASCII subset of them."""
    found = find(pattern_strings(re.compile(pattern)), wanted)  # type: ignore[arg-type]
    assert re.fullmatch(pattern, found)


def test_the_stdlib_parser_has_the_shape_read() -> None:
    """``re._parser`` still parses into the opcodes the module reads (CPython 3.11-3.13)."""
    parser = importlib.import_module("re._parser")
    constants = importlib.import_module("re._constants")
    codes = parser.parse(r"^a\d{3,}[^b-c\w](xy|z)$", 0).data
    assert [code for code, _ in codes] == [
        constants.AT, constants.LITERAL, constants.MAX_REPEAT, constants.IN,
        constants.SUBPATTERN, constants.AT,
    ]  # fmt: skip
    low, high, sub = codes[2][1]
    assert (low, high) == (3, constants.MAXREPEAT)
    assert sub.data == [(constants.IN, [(constants.CATEGORY, constants.CATEGORY_DIGIT)])]
    assert codes[3][1][0] == (constants.NEGATE, None)
    assert codes[3][1][1] == (constants.RANGE, (ord("b"), ord("c")))
    group, add_flags, del_flags, branch = codes[4][1]
    assert (group, add_flags, del_flags) == (1, 0, 0)
    assert branch.data[0][0] is constants.BRANCH


_PIECES = st.recursive(
    st.sampled_from(
        [
            "a",
            "b",
            "-",
            r"\d",
            ".",
            "[a-c]",
            "[^a]",
            r"[\d_]",
            r"\.",
            "[0-9A-F]",
            r"\w",
            r"\s",
            "^",
            "$",
        ]
    ),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map(lambda p: f"(?:{p[0]}|{p[1]})"),
        st.tuples(
            inner, st.sampled_from(["*", "+", "?", "{2}", "{1,3}", "*?", "+?", "*+", "++"])
        ).map(lambda p: f"(?:{p[0]}){p[1]}"),
    ),
    max_leaves=6,
)
_ANCHORED = st.tuples(
    st.sampled_from(["", "^", r"\A"]), _PIECES, st.sampled_from(["", "$", r"\Z"])
).map("".join)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=_ANCHORED, data=st.data())
def test_a_pattern_drawn_without_the_filter_only_builds_full_matches(
    pattern: str, data: st.DataObject
) -> None:
    r"""Drawn without the fullmatch filter (an exact pattern), every string built matches.

    The class of input: patterns the module builds itself, with the constructs
    that make a built string fail to match (a possessive repeat gives up no
    character, an anchor inside, ``\w``/``\s`` as categories) mixed in.
    """
    codes = _parser.parse(pattern, 0).data
    if not _exact(codes, top=True):
        assert "filter" in repr(pattern_strings(re.compile(pattern)))
        return
    text = data.draw(_sequence(codes))
    assert re.fullmatch(pattern, text), (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "exact"),
    [
        (r"^INV-\d{3,}$", True), (r"[a-f0-9]{8}", True), (r"(a|ab)c", True), (r"a*?b[^x]", True),
        (r"\Aab\Z", True), (r"$a", False), (r"a^", False), (r"a*+a", False), (r"a^b", False),
        (r"(^a)", False), (r"\w", False), (r"[\s-]", False), (r"\D", False),
    ],
)  # fmt: skip
def test_exact_patterns_are_those_every_built_string_matches(pattern: str, exact: bool) -> None:
    """The plain subset ids are written in is drawn unfiltered; the rest keeps the filter."""
    assert _exact(_parser.parse(pattern, 0).data, top=True) is exact
    assert ("filter" in repr(pattern_strings(re.compile(pattern)))) is not exact


def test_digit_is_the_nd_category() -> None:
    r"""``\d`` matches exactly Unicode ``Nd``, the category drawn for it: it needs no filter."""
    digits = re.compile(r"\d")
    for point in range(0x110000):
        char = chr(point)
        assert bool(digits.fullmatch(char)) is (unicodedata.category(char) == "Nd"), hex(point)
