"""Every reader runs in time linear in its input, on the shapes that break regexes.

A backtracking regex turns a crafted 128 KB block into seconds of work and a
1 MB one into minutes (issue 8.11). These tests time each reader on a hostile
shape of size n and of size 8n *in the same run*, interleaved, and fail when
the larger input costs far more than 8 times the smaller one: a quadratic
reader costs 64 times. No absolute time is asserted; the margin (x4) absorbs
a noisy machine and the step from cache-resident to main-memory sizes (a
plain list of 65k tuples costs 40x one of 8k here), and a retry absorbs one
unlucky measurement.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable

import pytest
from lxml import etree

from fusion_core import check, parse
from fusion_core._errors import WireFormatError
from fusion_core._read import _safexml
from fusion_core._read._safexml import parse_xml
from fusion_core._snapshot._format import load_snapshot

# The size of the smaller input (characters); the larger is eight times this.
BASE = 16384
GROWTH = 8
# Linear growth costs GROWTH times; quadratic costs GROWTH**2 = 64 times.
LIMIT = GROWTH * 4
# Seconds after which a single run of the large input is a verdict: a linear
# reader takes milliseconds, the quadratic one of issue 8.11 took 15-20 s.
_GIVE_UP = 2.0
# A floor keeps a microsecond-fast small input from inflating the ratio.
_FLOOR = 50e-6


def _wire(*texts: str) -> dict[str, object]:
    return {"content": [{"type": "text", "text": text} for text in texts]}


def _tail(block: str) -> dict[str, object]:
    """``block`` after a top-level directives block: check's strictest position."""
    return _wire("x", "<llm_directives>\n- a\n</llm_directives>", block)


def _embed(block: str) -> dict[str, object]:
    """``block`` between the data and the tail: read as an embed or a child's block."""
    return _wire("x", block, "<domain_rules>\n- r\n</domain_rules>")


# Each shape makes a hostile input of about n characters.
SHAPES: dict[str, Callable[[int], object]] = {
    "tail-long-name": lambda n: _tail("<" + "a" * n),
    "tail-long-name-space": lambda n: _tail("<" + "a" * n + " "),
    "tail-name-then-attrs": lambda n: _tail("<a" + " b" * (n // 2)),
    "tail-open-close": lambda n: _tail("<a>" + "</a" * (n // 3)),
    "embed-long-name": lambda n: _embed("<" + "a" * n),
    "ui-header-spaces": lambda n: _wire("x", "<ui_passthrough" + " " * n),
    "ui-header-attrs": lambda n: _wire("x", "<ui_passthrough" + ' a=""' * (n // 5) + " x"),
    "ui-header-quotes": lambda n: _wire("x", '<ui_passthrough type="' + '"' * n + ">\n"),
    "ui-lenient-header": lambda n: _wire(
        "x", '<ui_passthrough type="' + '" title="' * (n // 9) + ">\nx\n</ui_passthrough>"
    ),
    "ui-fence": lambda n: _wire(
        "x", '<ui_passthrough type="markdown">\n' + "`" * n + "\n</ui_passthrough>"
    ),
    "ui-fence-body": lambda n: _wire(
        "x",
        '<ui_passthrough type="markdown">\n```\n' + "`" * n + "\n```\n</ui_passthrough>",
    ),
    "envelope-attrs": lambda n: _wire("<tool_error" + ' a=""' * (n // 5)),
    "envelope-elements": lambda n: _wire("<tool_error>\n" + "<message>" * (n // 9)),
    "envelope-details": lambda n: _wire(
        "<tool_error>\n<details>\n" + '  <detail key="k">v</detail>\n' * (n // 29)
    ),
    "envelope-actions": lambda n: _wire(
        "<tool_error>\n<available_actions>\n" + "  <action>a</action>\n" * (n // 21)
    ),
    "validation-fields": lambda n: _wire(
        "<validation_error>\n" + '<field name="a">b</field>\n' * (n // 26)
    ),
    "long-reference": lambda n: _tail("<domain_rules>\n- &#" + "0" * n + "65;\n</domain_rules>"),
    "many-references": lambda n: _tail(
        "<domain_rules>\n- " + "&#1" * (n // 3) + "\n</domain_rules>"
    ),
    "bare-ampersands": lambda n: _tail("<domain_rules>\n- " + "&" * n + "\n</domain_rules>"),
    "items-unbroken": lambda n: _tail("<domain_rules>\n- " + "a\n" * (n // 2) + "</domain_rules>"),
    "items-many": lambda n: _tail("<domain_rules>\n" + "- a\n" * (n // 4) + "</domain_rules>"),
    "json-like-digits": lambda n: _wire("[" + "1" * n),
    "json-nesting": lambda n: _wire("[" * n),
    "json-not-canonical": lambda n: _wire("[" + "1.0," * (n // 4) + "1]"),
    "many-blocks": lambda n: _wire("x", *["<llm_directives>"] * (n // 16)),
    "many-ui-blocks": lambda n: _wire("x", *['<ui_passthrough type="a">'] * (n // 25)),
    "dtd-like": lambda n: _wire("<tool_error" + "<!" * (n // 2)),
}


def _readers() -> dict[str, Callable[[object], object]]:
    return {"parse": parse, "check": check}


def _run(reader: Callable[[object], object], source: object) -> None:
    with contextlib.suppress(WireFormatError):
        reader(source)


def _timed(reader: Callable[[object], object], source: object) -> float:
    # CPU time of this process, not wall time: on a loaded machine a long run
    # is always preempted and a short one often is not, which inflated the
    # ratio of linear readers up to 40x.
    start = time.process_time()
    _run(reader, source)
    return time.process_time() - start


def _growth(reader: Callable[[object], object], make: Callable[[int], object]) -> float:
    """How much longer the 8n input takes than the n input (best of five, interleaved)."""
    small, large = make(BASE), make(BASE * GROWTH)
    _run(reader, small)  # warm caches, compiled regexes and the allocator
    first = _timed(reader, large)
    if first > _GIVE_UP:  # a linear reader takes milliseconds: do not wait for more
        return first / max(_timed(reader, small), _FLOOR)
    best_small = best_large = float("inf")
    for _ in range(5):
        best_small = min(best_small, _timed(reader, small))
        best_large = min(best_large, _timed(reader, large))
    return best_large / max(best_small, _FLOOR)


def _assert_linear(reader: Callable[[object], object], make: Callable[[int], object]) -> None:
    growth = _growth(reader, make)
    if growth > LIMIT:  # one retry: a noisy measurement is not a verdict
        growth = min(growth, _growth(reader, make))
    assert growth <= LIMIT, f"8x the input took {growth:.1f}x the time (linear: ~8x)"


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("reader", ["parse", "check"])
def test_readers_are_linear_on_hostile_shapes(reader: str, shape: str) -> None:
    """parse() and check() take about 8x the time for 8x the input, on every hostile shape."""
    _assert_linear(_readers()[reader], SHAPES[shape])


def test_check_on_a_long_tail_name_is_linear() -> None:
    """Issue 8.11: a tail block of '<' and a long name no longer backtracks quadratically."""
    _assert_linear(check, SHAPES["tail-long-name"])


def _xml(text: str) -> Callable[[object], object]:
    return lambda _source: parse_xml(text)


XML_SHAPES: dict[str, Callable[[int], str]] = {
    "references": lambda n: "<a>" + "&#" + "9" * n + ";</a>",
    "many-references": lambda n: "<a>" + "&#x110000;" * (n // 10) + "</a>",
    "attributes": lambda n: "<a" + "".join(f' b{i}="c"' for i in range(n // 8)) + "/>",
    "dtd-like": lambda n: "<a>" + "<!" * (n // 2),
}


@pytest.mark.parametrize("shape", sorted(XML_SHAPES))
def test_safe_xml_is_linear(shape: str) -> None:
    """parse_xml (check's well-formedness test) is linear on hostile markup."""
    make = XML_SHAPES[shape]
    _assert_linear(lambda text: parse_xml(str(text)), make)


SNAPSHOT_SHAPES: dict[str, Callable[[int], str]] = {
    "long-kind": lambda n: "fusion-wire-snapshot 1\n── block 0 · " + "a" * n,
    "kind-with-dots": lambda n: "fusion-wire-snapshot 1\n── block 0 · " + "a · " * (n // 4),
    "long-count": lambda n: "fusion-wire-snapshot 1\n── block 0 · data · " + "9" * n,
    "many-blocks": lambda n: (
        "fusion-wire-snapshot 1\n"
        + "".join(f"── block {i} · data · 1 chars\nx\n" for i in range(n // 30))
    ),
    "is-error-line": lambda n: "fusion-wire-snapshot 1\nisError: " + "[" * n,
}


@pytest.mark.parametrize("shape", sorted(SNAPSHOT_SHAPES))
def test_snapshot_reader_is_linear(shape: str) -> None:
    """load_snapshot is linear on damaged or huge snapshot files."""
    _assert_linear(lambda text: load_snapshot(str(text)), SNAPSHOT_SHAPES[shape])


# Issue 25.11: a character reference cost about 10 us to read (a Python call
# per reference), so 7.8 MB of ``&#x41;`` took 22 s in parse() and 42 s in
# check(). Each form, in each place a reader decodes, is timed against the
# same characters with the reference broken (its ";" a space): what the
# reader pays to scan them as text. Decoding may cost a small constant more.
REFERENCE_FORMS: dict[str, str] = {
    "hex": "&#x41;",
    "hex-letters": "&#xE9;",
    "upper-X": "&#X41;",
    "decimal": "&#65;",
    "hex-leading-zeros": "&#x00041;",
    "decimal-leading-zeros": "&#00065;",
    "astral": "&#x1F600;",
    "control": "&#x1B;",
    "surrogate": "&#xD800;",
    "out-of-range": "&#x110000;",
    "named-amp": "&amp;",
    "named-lt": "&lt;",
    "named-quot": "&quot;",
    "named-unknown": "&nbsp;",
    "empty": "&#;",
    "named-after-a-number": "&#65;" + "&lt;" * 30,
    "mixed": "&#x41;&#65;&amp;&lt;&#x1F600;",
}
REFERENCE_PLACES: dict[str, Callable[[str], object]] = {
    "item": lambda body: _tail("<domain_rules>\n- " + body + "\n</domain_rules>"),
    "suggestion": lambda body: _tail(
        "<action_suggestions>\n- t: " + body + "\n</action_suggestions>"
    ),
    "error-text": lambda body: {
        "isError": True,
        "content": [
            {"type": "text", "text": f"<tool_error>\n<message>{body}</message>\n</tool_error>"}
        ],
    },
    "error-attribute": lambda body: {
        "isError": True,
        "content": [
            {
                "type": "text",
                "text": f'<tool_error code="{body}">\n<message>m</message>\n</tool_error>',
            }
        ],
    },
    "ui-attribute": lambda body: _wire(
        "x", f'<ui_passthrough type="markdown" title="{body}">\nx\n</ui_passthrough>'
    ),
    "validation-field": lambda body: {
        "isError": True,
        "content": [
            {
                "type": "text",
                "text": f'<validation_error>\n<field name="{body}">m</field>\n</validation_error>',
            }
        ],
    },
}
# Characters of each input: enough that per-reference costs dominate.
REFERENCE_SIZE = 40_000
# Decoding may cost this many times scanning the same characters as text
# (measured after the fix: 1-4.5x; before it: 4-16x, numeric forms 6-16x).
REFERENCE_LIMIT = 6.0
# The safe XML reader over lxml alone on the same block, as it reads it:
# blocks lxml reads as they are, and blocks it refuses (see the test).
SAFE_XML_LIMIT = 2.0
SAFE_XML_REFUSED_LIMIT = 16.0


def _reference_readers() -> dict[str, Callable[[object], object]]:
    return {
        "parse": parse,
        "check": check,
        "check-strict": lambda source: check(source, strict=True),
    }


def _best_of_3(reader: Callable[[object], object], source: object) -> float:
    _run(reader, source)
    return min(_timed(reader, source) for _ in range(3))


def _cost_ratio(
    reader: Callable[[object], object], make: Callable[[str], object], unit: str
) -> float:
    """Time of ``unit`` repeated, over the time of the same characters as text (best of 3).

    The text is the references broken (``&lt `` is text to Fusion's readers),
    and must read without error: a reader that gives up at its first
    character is no measure of reading them.
    """
    body = unit * (REFERENCE_SIZE // len(unit))
    references, text = make(body), make(body.replace(";", " "))
    reader(text)  # raises if the comparison is not with text read in full
    return _best_of_3(reader, references) / max(_best_of_3(reader, text), _FLOOR)


def _assert_within(measure: Callable[[], float], limit: float, what: str) -> None:
    ratio = measure()
    if ratio > limit:  # one retry: a noisy measurement is not a verdict
        ratio = min(ratio, measure())
    assert ratio <= limit, f"references cost {ratio:.1f}x {what} (limit {limit}x)"


@pytest.mark.parametrize("form", sorted(REFERENCE_FORMS))
@pytest.mark.parametrize("place", sorted(REFERENCE_PLACES))
@pytest.mark.parametrize("reader", sorted(_reference_readers()))
def test_references_cost_about_what_text_costs(reader: str, place: str, form: str) -> None:
    """Issue 25.11: every reference form, in text and attributes, reads at near text speed."""
    reading = _reference_readers()[reader]
    make, unit = REFERENCE_PLACES[place], REFERENCE_FORMS[form]
    measure = functools.partial(_cost_ratio, reading, make, unit)
    _assert_within(measure, REFERENCE_LIMIT, "the same characters as text")


@pytest.mark.parametrize("form", sorted(REFERENCE_FORMS))
@pytest.mark.parametrize("place", ["text", "attribute"])
def test_safe_xml_references_cost_about_what_lxml_costs(place: str, form: str) -> None:
    """Issue 25.11: the safe XML reader costs about what lxml alone does on the same block.

    lxml is the floor here (it decodes named references at a sixth of its
    plain-text speed: text is no measure of it). Blocks lxml reads as they
    are cost it alone (1.0-1.1x measured); a block lxml refuses for a
    character (a reference XML 1.0 cannot carry, or ``&#;``) is rewritten and
    read again (4-13x measured: the rewriting is a regex pass, Python's re
    trying it at each reference; before it, every block with a reference was
    rewritten by a Python call per distinct one, 6-13x for legal ``&#65;``).
    """
    unit = REFERENCE_FORMS[form]
    body = unit * (REFERENCE_SIZE // len(unit))
    rewritten = _safexml._ILLEGAL_REF.sub("&#xFFFD;", body)
    block, as_read = (f"<a>{body}</a>", f"<a>{rewritten}</a>")
    if place == "attribute":
        block, as_read = (f'<a b="{body}"/>', f'<a b="{rewritten}"/>')

    def lxml_alone(source: object) -> object:
        with contextlib.suppress(etree.XMLSyntaxError):
            etree.fromstring(str(source).encode(), _safexml.new_parser())
        return None

    plain = block.replace("&", "x")  # the same characters, read in full (lxml gives up
    # on some refused blocks at their first character: that is no floor)

    def measure() -> float:
        ours = _best_of_3(lambda text: parse_xml(str(text)), block)
        floor = max(_best_of_3(lxml_alone, as_read), _best_of_3(lxml_alone, plain), _FLOOR)
        return ours / floor

    try:
        etree.fromstring(block.encode(), _safexml.new_parser())
    except etree.XMLSyntaxError:
        limit = SAFE_XML_REFUSED_LIMIT
    else:
        limit = SAFE_XML_LIMIT
    _assert_within(measure, limit, "what lxml alone costs")


@pytest.mark.parametrize("form", sorted(REFERENCE_FORMS))
@pytest.mark.parametrize("reader", ["parse", "check"])
def test_many_references_are_linear(reader: str, form: str) -> None:
    """Reading n or 8n references of each form grows linearly (no per-reference rescan)."""
    unit = REFERENCE_FORMS[form]
    _assert_linear(
        _readers()[reader],
        lambda n: REFERENCE_PLACES["item"](unit * (n // len(unit))),
    )
