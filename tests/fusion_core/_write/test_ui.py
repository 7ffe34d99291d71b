"""UI helpers: exact content, meta attributes, validation, fences and cells."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from fusion_core import SerializationError, UiBlock, UIError, UiMeta, fence, response, to_json, ui


def _ui_text(block: UiBlock) -> str:
    return response("").ui_block(block).build().texts[1]


@pytest.mark.parametrize(
    ("block", "expected_type", "expected_content"),
    [
        (ui.echarts({"a": 1.0}), "echarts", '```echarts\n{\n  "a": 1\n}\n```'),
        (ui.mermaid("graph TD; A-->B"), "mermaid", "```mermaid\ngraph TD; A-->B\n```"),
        (ui.markdown("# Title\n\n**bold**"), "markdown", "# Title\n\n**bold**"),
        (ui.code_block("python", "print(1)"), "python", "```python\nprint(1)\n```"),
        (
            ui.table(["id", "name"], [[1, "Ann"], [2, "Bob"]]),
            "markdown",
            "| id | name |\n| --- | --- |\n| 1 | Ann |\n| 2 | Bob |",
        ),
        # no rows: a final break, as the reference writes it
        (ui.table(["h"], []), "markdown", "| h |\n| --- |\n"),
        (ui.list(["one", "two"]), "markdown", "- one\n- two"),
        (ui.list([]), "markdown", ""),
        (ui.json([1, {"b": None}]), "json", '```json\n[\n  1,\n  {\n    "b": null\n  }\n]\n```'),
        (ui.summary("3 invoices"), "summary", "📊 **Summary**: 3 invoices"),
        (ui.code_block("", "x"), "", "```\nx\n```"),
    ],
)
def test_helper_output(block: UiBlock, expected_type: str, expected_content: str) -> None:
    """Each helper gives the reference's type and content, with no meta."""
    assert block == UiBlock(expected_type, expected_content)
    assert block.meta is None


def test_rendered_block_exact() -> None:
    """A UI block renders as opening tag, content and closing tag on their own lines."""
    assert _ui_text(ui.summary("x")) == (
        '<ui_passthrough type="summary">\n📊 **Summary**: x\n</ui_passthrough>'
    )


HELPERS: list[Callable[..., UiBlock]] = [
    lambda **meta: ui.echarts({}, **meta),
    lambda **meta: ui.mermaid("g", **meta),
    lambda **meta: ui.markdown("m", **meta),
    lambda **meta: ui.code_block("sql", "s", **meta),
    lambda **meta: ui.table(["a"], [["b"]], **meta),
    lambda **meta: ui.list(["i"], **meta),
    lambda **meta: ui.json({}, **meta),
    lambda **meta: ui.summary("s", **meta),
]


@pytest.mark.parametrize("helper", HELPERS)
def test_every_helper_takes_meta(helper: Callable[..., UiBlock]) -> None:
    """Every helper accepts title, width and priority and keeps them."""
    block = helper(title="T", width="half", priority=2)
    assert block.meta == UiMeta(title="T", width="half", priority=2)
    assert ' title="T" width="half" priority="2">' in _ui_text(block)


@pytest.mark.parametrize("order", list(itertools.permutations(["title", "width", "priority"])))
def test_meta_attribute_order(order: tuple[str, ...]) -> None:
    """Attributes are always title, width, priority, whatever order they were given."""
    values: dict[str, Any] = {"title": "Sales", "width": "third", "priority": 1.5}
    meta = {name: values[name] for name in order}
    text = response("").ui_block("markdown", "x", meta).build().texts[1]
    assert text.startswith(
        '<ui_passthrough type="markdown" title="Sales" width="third" priority="1.5">\n'
    )


@pytest.mark.parametrize(
    ("meta", "attributes"),
    [
        ({"priority": 0}, ' priority="0"'),
        ({"priority": -3}, ' priority="-3"'),
        ({"priority": 2.0}, ' priority="2"'),
        ({"priority": 1e21}, ' priority="1e+21"'),
        ({"title": ""}, ""),
        ({"width": ""}, ""),
        ({"title": "", "width": "", "priority": None}, ""),
        ({"width": "full"}, ' width="full"'),
        ({"title": 'a "b" & <c>'}, ' title="a &quot;b&quot; &amp; &lt;c&gt;"'),
    ],
)
def test_meta_attributes(meta: dict[str, Any], attributes: str) -> None:
    """Priority 0 is printed; an empty title or width is unset."""
    text = _ui_text(ui.markdown("x", **meta))
    assert text == f'<ui_passthrough type="markdown"{attributes}>\nx\n</ui_passthrough>'


def test_empty_meta_is_dropped() -> None:
    """A meta with nothing set is not kept on the block."""
    assert ui.markdown("x", title="", width="").meta is None  # type: ignore[arg-type]
    assert UiBlock("markdown", "x", UiMeta()).meta is None


@pytest.mark.parametrize(
    "meta",
    [
        {"width": "wide"},
        {"width": "FULL"},
        {"priority": float("nan")},
        {"priority": float("inf")},
        {"priority": float("-inf")},
        {"priority": True},
        {"priority": "1"},
        {"title": 5},
    ],
)
def test_invalid_meta_is_a_ui_error(meta: dict[str, Any]) -> None:
    """Unknown widths, non-finite or bool priorities and non-str titles are UIErrors."""
    with pytest.raises(UIError) as caught:
        ui.summary("x", **meta)
    assert caught.value.value is next(iter(meta.values()))
    with pytest.raises(UIError):
        response("").ui_block("summary", "x", meta)


def test_unknown_meta_key_is_a_ui_error() -> None:
    """ui_block with a meta mapping of unknown keys names them."""
    with pytest.raises(UIError, match="colour"):
        response("").ui_block("summary", "x", {"colour": "red"})


@pytest.mark.parametrize("meta", [5, "title", ["title"], b"x"])
def test_meta_that_is_not_a_mapping_is_a_ui_error(meta: Any) -> None:
    """Meta of another type is a UIError naming the type (was a bare TypeError)."""
    with pytest.raises(UIError, match=f"got {type(meta).__name__}$") as caught:
        UiMeta.of(meta)
    assert caught.value.value is meta
    with pytest.raises(UIError, match="UI meta must be a UiMeta, a mapping or None"):
        response("").ui_block("summary", "x", meta)


def test_table_headers_from_an_iterator_are_read_once() -> None:
    """Headers from a generator give the same table as a list (the separator had 0 columns)."""
    listed = ui.table(["id", "total"], [[1, 2]])
    assert ui.table(iter(["id", "total"]), [[1, 2]]) == listed
    assert ui.table((h for h in ("id", "total")), [[1, 2]]).content == (
        "| id | total |\n| --- | --- |\n| 1 | 2 |"
    )


@pytest.mark.parametrize("tag", ['a"b', "a b", "```", "<x>", "-py", "py\n", "é"])
def test_invalid_language_tag_names_the_tag(tag: str) -> None:
    """An invalid language tag is a UIError whose message names the tag."""
    for make in (lambda: ui.code_block(tag, "x"), lambda: fence(tag, "x")):
        with pytest.raises(UIError) as caught:
            make()
        assert repr(tag) in str(caught.value)
        assert caught.value.value == tag


@pytest.mark.parametrize("tag", ["python", "c++", "c#", "objective-c", "x.y", "py_3", "3d"])
def test_valid_language_tags(tag: str) -> None:
    """Letters, digits and _ + # . - are accepted."""
    assert fence(tag, "x") == f"```{tag}\nx\n```"


@pytest.mark.parametrize(
    ("body", "ticks"),
    [
        ("no ticks", 3),
        ("`inline`", 3),
        ("``two``", 3),
        ("```", 4),
        ("a\n```\nb", 4),
        ("````x", 5),
        ("`` ``` `````` `", 7),
    ],
)
def test_fence_is_longer_than_any_backtick_run(body: str, ticks: int) -> None:
    """The fence grows past the longest backtick run in the body."""
    marker = "`" * ticks
    assert fence("md", body) == f"{marker}md\n{body}\n{marker}"


@pytest.mark.parametrize(
    ("body", "expected"),
    [("a\r", "```\na\r\r```"), ("\r", "```\n\r\r```"), ("a\r\n", "```\na\r\n\n```")],
)
def test_fence_after_a_trailing_cr_closes_after_cr(body: str, expected: str) -> None:
    """A body ending with CR is closed after a CR, so CR + LF cannot merge into one break."""
    assert fence("", body) == expected


@pytest.mark.parametrize("value", ["```", {"k": "a\n```\nb"}, ["````x", {"```": "`"}], "\r```"])
@pytest.mark.parametrize("helper", [ui.json, ui.echarts])
def test_json_fences_stay_three_backticks(helper: Any, value: Any) -> None:
    """Pretty JSON never starts a line with a string's content: the reference's fence holds."""
    block = helper(value)
    kind = "json" if helper is ui.json else "echarts"
    assert block.content == f"```{kind}\n{to_json(value)}\n```"
    assert all(not line.lstrip().startswith("`") for line in block.content.split("\n")[1:-1])


def test_code_block_with_fence_inside() -> None:
    """A code body holding ``` gets a four-backtick fence."""
    assert ui.code_block("md", "```py\nx\n```").content == "````md\n```py\nx\n```\n````"


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("a|b", "a\\|b"),
        ("line1\nline2", "line1<br>line2"),
        ("a\r\nb", "a<br>b"),
        ("a\rb", "a<br>b"),
        ("a\u2028b\x85c", "a\u2028b\x85c"),
        (None, ""),
        (True, "true"),
        (False, "false"),
        (1.0, "1"),
        (float("nan"), "NaN"),
        (10**20, "100000000000000000000"),
        ("", ""),
    ],
)
def test_table_cell_escaping(cell: Any, expected: str) -> None:
    """Cells escape | and turn CommonMark line breaks into <br>; values print as JS would."""
    block = ui.table(["h|x"], [[cell]])
    assert block.content == f"| h\\|x |\n| --- |\n| {expected} |"


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("one\ntwo", "- one\n  two"),
        ("one\n- forged", "- one\n  \\- forged"),
        ("one\r1. forged", "- one\r  \\1. forged"),
        ("one\n  # forged", "- one\n  \\  # forged"),
        ("one\u2028- same line", "- one\u2028- same line"),
        ("a\r\nb", "- a\r\n  b"),
        (3, "- 3"),
        (None, "- \\"),  # blank: the line would underline the opening tag
        ("\nx", "- \\\n  x"),
    ],
)
def test_list_continuation_indent(item: Any, expected: str) -> None:
    """A multi-line list item continues indented and starts no block, so no new item."""
    assert ui.list([item]).content == expected


def test_ui_block_values_are_frozen() -> None:
    """UiBlock and UiMeta are immutable values."""
    block = ui.summary("x", priority=1)
    with pytest.raises(AttributeError):
        block.type = "other"  # type: ignore[misc]
    assert block.meta is not None
    with pytest.raises(AttributeError):
        block.meta.priority = 2  # type: ignore[misc]


def test_ui_block_requires_str() -> None:
    """A UI block's type and content must be str."""
    with pytest.raises(UIError):
        UiBlock("markdown", 3)  # type: ignore[arg-type]


class _HostileRepr:
    def __repr__(self) -> str:
        raise RuntimeError


# Numbers UI meta refuses: each is a UIError naming the field and the range,
# never an OverflowError or ValueError from converting the value.
BAD_PRIORITIES: dict[str, Any] = {
    "int beyond the wire's digits": 10**5000,
    "negative int beyond the wire's digits": -(10**5000),
    "huge int beyond a quick str()": 2**200_000,
    "nan": float("nan"),
    "infinity": float("inf"),
    "bool": False,
    "str": "1",
    "decimal": __import__("decimal").Decimal(1),
    "complex": 1j,
    "a hostile repr": _HostileRepr(),
}


def _helper_with(helper: Callable[..., UiBlock]) -> Callable[[Any], object]:
    return lambda priority: helper(priority=priority)


META_ENTRY_POINTS: dict[str, Callable[[Any], object]] = {
    **{f"helper {index}": _helper_with(helper) for index, helper in enumerate(HELPERS)},
    "UiMeta": lambda p: UiMeta(priority=p),
    "UiMeta.of": lambda p: UiMeta.of({"priority": p}),
    "ui_block": lambda p: response("").ui_block("summary", "x", {"priority": p}),
}


@pytest.mark.parametrize("entry", list(META_ENTRY_POINTS))
@pytest.mark.parametrize("name", list(BAD_PRIORITIES))
def test_bad_priorities_are_a_ui_error_naming_the_range(entry: str, name: str) -> None:
    """Every way into UI meta refuses a bad priority with a UIError that says what is allowed."""
    with pytest.raises(UIError, match=r"UI priority must be a finite float or an int of at most"):
        META_ENTRY_POINTS[entry](BAD_PRIORITIES[name])


def test_the_widest_int_priority_is_written_exactly() -> None:
    """An int priority of 4,300 digits is accepted and written digit for digit."""
    widest = 10**4300 - 1
    assert f'priority="{widest}"' in _ui_text(ui.summary("x", priority=widest))


@pytest.mark.parametrize(
    ("make", "path"),
    [
        (lambda: ui.table([10**5000], []), "headers[0]"),
        (lambda: ui.table(["a", "b"], [[1, 2], [3, 10**5000]]), "rows[1][1]"),
        (lambda: ui.list(["a", 10**5000]), "items[1]"),
    ],
)
def test_numbers_in_cells_and_items_name_where_they_are(
    make: Callable[[], UiBlock], path: str
) -> None:
    """A number a table or list cannot hold is a SerializationError naming its cell or item."""
    with pytest.raises(SerializationError) as raised:
        make()
    assert raised.value.path == path


class _NoRepr:
    """A priority whose ``repr`` raises."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize(
    ("make", "message", "value"),
    [
        (
            lambda: UiBlock(1, "x"),  # type: ignore[arg-type]
            "a UI block's type and content must be str, got int and str",
            None,
        ),
        (
            lambda: UiBlock("t", b"x"),  # type: ignore[arg-type]
            "a UI block's type and content must be str, got str and bytes",
            None,
        ),
        (lambda: UiMeta(title=3), "UI title must be a str, got 3", 3),  # type: ignore[arg-type]
        (
            lambda: UiMeta(width="wide"),  # type: ignore[arg-type]
            "UI width must be 'full', 'half' or 'third', got 'wide'",
            "wide",
        ),
        (
            lambda: UiMeta.of({"colour": 1}),
            "unknown UI meta keys ['colour']; use title, width, priority",
            {"colour": 1},
        ),
        (lambda: ui.table(["a"], [], priority="high"), "got 'high'", "high"),  # type: ignore[arg-type]
        (lambda: ui.table(["a"], [], priority=_NoRepr()), "got a _NoRepr", None),  # type: ignore[arg-type]
        (lambda: ui.table(["a"], [], priority=10**5000), "got an int of about 5,001 digits", None),
    ],
    ids=["type", "content", "title", "width", "meta keys", "priority", "no repr", "huge int"],
)
def test_invalid_ui_values_are_named_in_the_error(
    make: Callable[[], object], message: str, value: object
) -> None:
    """Each error says what was wrong and carries the offending value."""
    with pytest.raises(UIError) as caught:
        make()
    assert str(caught.value).endswith(message)
    if value is not None:
        assert caught.value.value == value
    else:
        assert caught.value.value is not None


def test_an_empty_width_means_unset() -> None:
    """``width=""`` is accepted as the reference's unset width (and normalized to ``None``)."""
    assert UiMeta(width="").width is None
