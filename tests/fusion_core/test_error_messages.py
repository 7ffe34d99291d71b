"""Bad input: each error says what was wrong and where, and carries the offending value.

Added for mutants the mutation check (``./dev mutate``) found alive: the
messages of the builder's, the UI helpers' and the text checks' errors were
raised but never read, so a message replaced by ``None`` passed every test.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import fusion_core as fc
from fusion_core import SerializationError, UiBlock, UIError, UiMeta, ui


def _builder() -> fc.ResponseBuilder:
    return fc.response({"k": 1})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: _builder().llm_hint(5),  # type: ignore[arg-type]
         "llm_hint() takes str, got int: 5"),
        (lambda: _builder().system_rules(["ok", b"x"]),  # type: ignore[list-item]
         "system_rules() takes str, got bytes: b'x'"),
        (lambda: _builder().system_rules("one rule"),
         "system_rules() takes a list of rules, not one str"),
        (lambda: _builder().raw_block(None),  # type: ignore[arg-type]
         "raw_block() takes str, got NoneType: None"),
        (lambda: _builder().ui_block(ui.summary("s"), "content"),
         "ui_block(UiBlock) takes no content or meta: the block has its own"),
        (lambda: _builder().ui_block("chart"), "ui_block(type, content): content is missing"),
    ],
    ids=["hint", "rule", "rules-str", "raw", "block-and-content", "no-content"],
)  # fmt: skip
def test_builder_type_errors_name_the_method_and_the_value(call: Any, message: str) -> None:
    """A wrong argument type raises TypeError with exactly this message."""
    with pytest.raises(TypeError) as raised:
        call()
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("call", "where"),
    [
        (lambda: _builder().raw_block("ab\ud800"), "the raw block"),
        (lambda: fc.success("ab\ud800"), "the data str"),
        (lambda: ui.markdown("ab\ud800"), "the content of the 'markdown' UI block"),
    ],
    ids=["raw", "str-data", "ui-content"],
)
def test_lone_surrogate_in_verbatim_text_names_its_place(call: Any, where: str) -> None:
    """Verbatim text with a lone surrogate: code point, index, place and the text itself."""
    with pytest.raises(SerializationError) as raised:
        call()
    error = raised.value
    assert re.match(r"lone surrogate U\+D800 at index 2: MCP text must be valid Unicode; "
                    r"decode the text properly or drop it", str(error))  # fmt: skip
    assert error.value == "ab\ud800"
    assert error.path == where


@pytest.mark.parametrize(
    ("meta", "message", "value"),
    [
        ({"title": 5}, "UI title must be a str, got 5", 5),
        ({"width": "wide"}, "UI width must be 'full', 'half' or 'third', got 'wide'", "wide"),
        (
            {"priority": float("inf")},
            (
                "UI priority must be a finite float or an int of at most 4,300 digits "
                "(0 included), got inf"
            ),
            float("inf"),
        ),
    ],
    ids=["title", "width", "priority"],
)
def test_ui_meta_errors_name_the_field_and_value(
    meta: dict[str, Any], message: str, value: Any
) -> None:
    """Bad meta raises UIError naming the field and carrying the bad value."""
    with pytest.raises(UIError) as raised:
        UiMeta(**meta)
    assert str(raised.value) == message
    assert raised.value.value == value


def test_ui_block_of_wrong_types_says_which_and_carries_the_block() -> None:
    """A UiBlock whose type or content is not a str names both types."""
    with pytest.raises(UIError) as raised:
        UiBlock("chart", 42)  # type: ignore[arg-type]
    assert str(raised.value) == "a UI block's type and content must be str, got str and int"
    assert isinstance(raised.value.value, UiBlock)


def test_invalid_language_tag_says_what_a_tag_may_hold() -> None:
    """A bad code-block language names itself and the allowed characters."""
    with pytest.raises(UIError) as raised:
        ui.code_block("py thon", "x")
    assert str(raised.value) == (
        "invalid language tag 'py thon': use letters, digits and _ + # . - "
        "(starting with a letter or digit), or '' for none"
    )
    assert raised.value.value == "py thon"


def _nested(levels: int, key: str | None) -> Any:
    root: Any = {} if key is not None else []
    node = root
    for level in range(levels):
        child: Any = {} if key is not None else []
        if key is not None:
            node[f"{key}{level}"] = child
        else:
            node.append(child)
        node = child
    return root


@pytest.mark.parametrize("key", [None, "k"], ids=["lists", "objects"])
def test_a_long_path_shows_its_two_ends_and_keeps_all_of_it(key: str | None) -> None:
    """A path of kilobytes is cut in the message between segments; ``.path`` is whole."""
    with pytest.raises(fc.NestingError) as caught:
        fc.success(_nested(600, key))
    error = caught.value
    assert len(error.path) > 1500
    message = str(error)
    assert len(message) < 260
    head, hidden, tail = re.fullmatch(
        r"data is nested more than 512 levels deep \(at (.+?)…([\d,]+) more characters…(.+)\)",
        message,
    ).groups()  # type: ignore[union-attr]
    assert error.path == head + error.path[len(head) : -len(tail)] + tail
    assert int(hidden.replace(",", "")) == len(error.path) - len(head) - len(tail)
    assert tail.startswith("[" if key is None else ".")
    assert head.endswith("]" if key is None else tuple("0123456789"))


def test_a_short_path_is_shown_whole() -> None:
    """Up to 160 characters the message holds the whole path."""
    with pytest.raises(SerializationError, match=r"\(at \$\.rows\[1\]\.when\)$"):
        fc.success({"rows": [1, {"when": object()}]})


def test_an_envelope_for_deep_data_stays_short() -> None:
    """The model reads the ends of the path, not 1.5 KB of ``[0]``."""
    tool = fc.Tool("t", "x").action("a", lambda: _nested(600, None))
    texts = fc.FusionApp([tool]).call_sync("t", {"action": "a"}).texts
    assert len(texts[0]) < 500  # 1,773 characters when the message held the whole path
    assert "more characters" in texts[0]
