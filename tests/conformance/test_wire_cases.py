"""Replay the corpus's ``response`` and ``helper`` cases byte for byte.

A case that falls in no divergence class must match the reference exactly.
Divergence classes are decided by predicates on the case's *input* (never by
id); a divergent case asserts the project's documented output, computed by
the independent model in ``_spec.py`` (itself checked against the reference
on every non-divergent case) and, for JS number and key-order classes, by a
relation to the reference's bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
import toon_format

from fusion_core import (
    ToolResponse,
    UiBlock,
    UIError,
    UiMeta,
    error,
    required,
    response,
    success,
    success_structured,
    tool_error,
    toon_success,
    ui,
    view_of,
)
from fusion_core._errors import SerializationError
from fusion_core._read._check import check
from fusion_core._read._parse import parse
from fusion_core._write._numbers import js_number
from tests._support.conformance.corpus import (
    decode,
    has_intlike_key,
    has_undefined,
    has_unsafe_int,
    js_like,
    js_prints_differently,
    load_cases,
    walk,
)
from tests._support.conformance.divergence import Route
from tests._support.conformance.pres_mapping import MissingMappingError, apply_calls
from tests._support.conformance.routes import (
    FUSION_TAG,
    LANGUAGE,
    LINE_BREAK,
    SURROGATE,
    THEMATIC_LEAD,
    as_sent,
    invalid_meta,
    json_value,
    misread_raw_blocks,
    reference_form,
    route_attr,
    route_first_item,
    route_item,
    route_text,
    wire_of,
)

CASES = load_cases("response", "helper")
_XML_SPECIAL = re.compile("[<&]|[\x00-\x08\x0b\x0c\x0e-\x1f]")
_ATTR_SPECIAL = re.compile("[<>&\"'\t\n\r]|[\x00-\x08\x0b\x0c\x0e-\x1f]")
_BREAK = re.compile("[\n\r\x85\u2028\u2029]")

HELPERS: dict[str, Callable[..., UiBlock]] = {
    "echarts": ui.echarts,
    "mermaid": ui.mermaid,
    "markdown": ui.markdown,
    "codeBlock": ui.code_block,
    "table": ui.table,
    "list": ui.list,
    "json": ui.json,
    "summary": ui.summary,
}
FENCED = {"echarts": "echarts", "mermaid": "mermaid", "json": "json"}


# -- the reference form of JSON text: what JS would have printed ------------


def assert_json_divergence(ours: str, golden: str, source: Any) -> None:
    """js-numbers / js-key-order: exact ints and insertion order, else as JS."""
    assert same_json(json.loads(ours), json_value(decode(source)))
    keys_in_order = json.loads(ours, object_pairs_hook=lambda pairs: [k for k, _ in pairs])
    assert keys_in_order == _key_orders(decode(source))
    assert reference_form(ours) == golden


def same_json(ours: Any, source: Any) -> bool:
    """Equal values; a float of the source is read back as JS prints it (maybe an int)."""
    if isinstance(source, float) and isinstance(ours, int) and not isinstance(ours, bool):
        return float(ours) == source
    if isinstance(source, dict) and isinstance(ours, dict):
        return list(source) == list(ours) and all(
            same_json(ours[key], value) for key, value in source.items()
        )
    if isinstance(source, list) and isinstance(ours, list):
        return len(source) == len(ours) and all(map(same_json, ours, source))
    return bool(ours == source)


def same_value(ours: Any, source: Any) -> bool:
    """Equal values, whatever the key order (a TOON table orders keys by its header)."""
    if isinstance(source, float) and isinstance(ours, int | float) and not isinstance(ours, bool):
        return float(ours) == source
    if isinstance(source, dict) and isinstance(ours, dict):
        return set(source) == set(ours) and all(same_value(ours[k], v) for k, v in source.items())
    if isinstance(source, list) and isinstance(ours, list):
        return len(source) == len(ours) and all(map(same_value, ours, source))
    return bool(ours == source) and type(ours) is type(source)


def _key_orders(value: Any) -> Any:
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return [_key_orders(item) for item in value]
    return value


def json_diverges(value: Any) -> bool:
    """Whether JS would print this value differently (numbers, key order)."""
    return has_unsafe_int(value) or has_intlike_key(value)


# -- building the project's response from a case input ----------------------


def meta_kwargs(ui_case: dict[str, Any]) -> dict[str, Any]:
    """Keyword meta for a helper call (``meta: null`` means no meta)."""
    meta = ui_case.get("meta")
    return {} if meta is None else {key: decode(value) for key, value in meta.items()}


def make_ui(ui_case: dict[str, Any]) -> UiBlock:
    """The UiBlock a corpus ``Ui`` describes."""
    if "literal" in ui_case:
        literal = ui_case["literal"]
        meta = literal.get("meta")
        return UiBlock(
            literal["type"],
            literal["content"],
            UiMeta.of(None if meta is None else {k: decode(v) for k, v in meta.items()}),
        )
    args = [decode(arg) for arg in ui_case["args"]]
    return HELPERS[ui_case["helper"]](*args, **meta_kwargs(ui_case))


def run_response(case_input: dict[str, Any]) -> ToolResponse:
    """Apply a ``response`` case through the public API."""
    data = decode(case_input["data"])
    via = case_input.get("via", "build")
    if via == "ok":
        return response.ok(data)
    if via == "withRules":
        return response.with_rules(data, case_input["rules"])
    return apply_calls(response(data), case_input.get("calls", []), make_ui=make_ui).build()


def run_helper(case_input: dict[str, Any]) -> ToolResponse:
    """Apply a ``helper`` case through the public API."""
    fn, args = case_input["fn"], [decode(arg) for arg in case_input["args"]]
    if fn == "success":
        return success(*args)
    if fn == "successStructured":
        return success_structured(*args)
    if fn == "error":
        return error(*args)
    if fn == "required":
        return required(*args)
    if fn == "toolError":
        code, options = args
        return tool_error(
            code,
            options["message"],
            suggestion=options.get("suggestion"),
            available_actions=options.get("availableActions", ()),
            details=options.get("details"),
            retry_after=options.get("retryAfter"),
            severity=options.get("severity", "error"),
        )
    if fn == "toonSuccess":
        data, *rest = args
        options = rest[0] if rest else {}
        return toon_success(
            data,
            **{
                {"keyFolding": "key_folding", "flattenDepth": "flatten_depth"}.get(key, key): value
                for key, value in options.items()
            },
        )
    pytest.fail(f"unknown helper {fn!r}")  # pragma: no cover


# -- the expected output: reference bytes, or the documented divergence ------


class Expect:
    """The expected blocks of one case, and the classes each block is routed to.

    A block is the reference's bytes (``golden``), or, when routed, a check of
    the project's documented output: a callable, or (``None``) the general
    one for escaped and encoded text — well-formed (``check()`` finds
    nothing), lossless (``parse()`` gives back the view it was built with) and
    different from the reference's bytes.
    """

    def __init__(self, golden: list[str]) -> None:
        self.golden = golden
        self.blocks: list[str | Callable[[str], None] | None] = []
        self.routes: list[Route] = []
        self.raises: type[Exception] | None = None
        self.case_route = Route()
        self.thrown_by_reference = False
        self.raw_blocks: dict[int, str] = {}

    def route_raw(self, ours: ToolResponse) -> None:
        """raw-blocks: a raw block that would not read back as raw gains a backslash."""
        for index in misread_raw_blocks(ours):
            raw = self.raw_blocks[index]
            route = Route()
            route.add("raw-blocks")

            def written(text: str, raw: str = raw) -> None:
                assert text == "<\\" + raw[1:]

            self.blocks[index] = written
            self.routes[index] = route
            self.case_route.add("raw-blocks")

    def add(self, text: object, route: Route | None = None) -> None:
        """A block: the reference's bytes unless ``route`` holds a class."""
        route = route or Route()
        if isinstance(text, str) or route:
            self.blocks.append(None if route else str(text))
        else:  # a tagged golden entry: JS undefined
            self.blocks.append(_textless(text))
        self.routes.append(route)
        self.case_route.classes.extend(c for c in route.classes if c not in self.case_route.classes)

    def add_check(self, check: Callable[[str], None], route: Route) -> None:
        """A routed block with its own check."""
        self.blocks.append(check)
        self.routes.append(route)
        self.case_route.classes.extend(c for c in route.classes if c not in self.case_route.classes)

    @property
    def divergent(self) -> bool:
        """Whether any block is routed."""
        return bool(self.case_route)


def _textless(golden: object) -> Callable[[str], None]:
    def check(ours: str) -> None:
        pytest.fail(
            f"the reference wrote a block without text ({golden!r}) where no rule predicts "
            f"one; the project wrote {ours!r:.80}"
        )

    return check


# The rules of docs/wire-format.md, on input text (README: "Expected divergence classes").


def expect_ui(ui_case: dict[str, Any], golden_text: str | None, expect: Expect) -> None:
    """The project's block for one UI case (or the error it must raise)."""
    route = Route()
    if "literal" in ui_case:
        kind, body = ui_case["literal"]["type"], ui_case["literal"]["content"]
        meta = ui_case["literal"].get("meta") or {}
    else:
        helper, args = ui_case["helper"], ui_case["args"]
        meta = ui_case.get("meta") or {}
        if helper == "codeBlock" and args[0] != "" and not LANGUAGE.fullmatch(args[0]):
            route.add("language-tags")
            expect.raises = UIError
            return
        kind, body = _helper_kind(helper, args), _helper_body(helper, args)
        _route_helper(route, helper, args)
    _route_meta(route, meta, expect)
    if expect.raises:
        return
    route_attr(route, kind)
    if isinstance(meta.get("title"), str):
        route_attr(route, meta["title"])
    route.add("ui-content", when=bool(body and FUSION_TAG.search(body)))
    if SURROGATE.search(body or "") and expect.raises is None:
        expect.raises = SerializationError
        return
    assert golden_text is not None
    if route.classes and set(route.classes) <= {"js-numbers", "js-key-order"}:
        expect.add_check(_json_ui_check(kind, ui_case["args"][0], golden_text), route)
        return
    expect.add(golden_text, route)


def _helper_kind(helper: str, args: list[Any]) -> str:
    if helper in ("table", "list", "markdown"):
        return "markdown"
    if helper == "codeBlock":
        return str(args[0])
    return helper if helper != "codeBlock" else str(args[0])


def _helper_body(helper: str, args: list[Any]) -> str:
    """The text a helper puts in the block (for the rules on UI content)."""
    if helper in ("markdown", "summary", "mermaid"):
        return str(args[0])
    if helper == "codeBlock":
        return str(args[1])
    if helper == "table":
        return "\n".join(str(c) for c in [*args[0], *(c for row in args[1] for c in row)])
    if helper == "list":
        return "\n".join(str(i) for i in args[0])
    return json.dumps(decode(args[0]), ensure_ascii=False)


def _route_helper(route: Route, helper: str, args: list[Any]) -> None:
    if helper == "table":
        cells = [*args[0], *(c for row in args[1] for c in row)]
        route.add(
            "fences",
            when=any(isinstance(c, str) and ("|" in c or LINE_BREAK.search(c)) for c in cells),
        )
    elif helper == "list":
        route.add(
            "multi-line-items",
            when=any(isinstance(i, str) and LINE_BREAK.search(i) for i in args[0]),
        )
        route.add(
            "thematic-items",
            when=any(isinstance(i, str) and THEMATIC_LEAD.match(i) for i in args[0]),
        )
        if args[0]:  # ui.list writes a null item as nothing: a blank line too
            first = decode(args[0][0])
            route_first_item(route, "" if first is None else first)
    elif helper in ("mermaid", "codeBlock"):
        route.add("fences", when="```" in args[-1])
    elif helper in ("echarts", "json"):
        route.add("js-numbers", when=has_unsafe_int(args[0]))
        route.add("js-key-order", when=has_intlike_key(args[0]))


def _route_meta(route: Route, meta: dict[str, Any], expect: Expect) -> None:
    if route.add("ui-meta", when=invalid_meta(meta)):
        expect.raises = UIError
    route.add("ui-meta", when="priority" in meta and meta["priority"] is None)


def _json_ui_check(kind: str, source: Any, golden_text: str) -> Callable[[str], None]:
    golden_body = golden_json_body(golden_text)

    def check(ours: str) -> None:
        assert ours.startswith(f'<ui_passthrough type="{kind}"')
        body = golden_json_body(ours)
        assert reference_form(body) == golden_body
        assert same_json(json.loads(body), json_value(decode(source)))

    return check


def golden_json_body(golden_text: str) -> str:
    """The JSON inside a golden fenced block."""
    return golden_text.split("\n", 2)[2].rsplit("\n", 2)[0]


def route_json(route: Route, value: Any) -> bool:
    """js-numbers / js-key-order: JS would print this value differently."""
    numbers = route.add("js-numbers", when=has_unsafe_int(value))
    return route.add("js-key-order", when=has_intlike_key(value)) or numbers


def expect_response(case: dict[str, Any]) -> Expect:  # noqa: PLR0915 - one branch per op
    """Expected blocks of a ``response`` case."""
    case_input, golden = case["input"], case["content"] or []
    expect = Expect(golden)
    data = case_input["data"]
    route = Route()
    if route.add("js-undefined", when=_is_undefined(data)):
        expect.add_check(_assert_null, route)  # JS: a block without text
    elif isinstance(data, str):
        if SURROGATE.search(data):
            expect.raises = SerializationError
        expect.add(data or "OK")
    elif route_json(route, data):
        expect.add_check(lambda ours: assert_json_divergence(ours, golden[0], data), route)
    else:
        expect.add(golden[0])
    ui_cases: list[dict[str, Any]] = []
    raws: list[str] = []
    hints: list[str] = []
    rules: list[str] = list(case_input.get("rules", []))
    pairs: list[tuple[str, str]] = []
    for call in case_input.get("calls", []):
        op = call["op"]
        if op == "uiBlock":
            ui_cases.append(call["block"])
        elif op == "uiBlocks":
            ui_cases.extend(call["blocks"])
        elif op == "uiBlockRaw":
            ui_cases.append({"literal": {"type": call["type"], "content": call["content"]}})
        elif op == "rawBlock":
            raws.append(call["text"])
        elif op == "llmHint":
            hints.append(call["text"])
        elif op == "systemRules":
            rules.extend(call["rules"])
        elif op == "systemHint":
            pairs.extend((s["tool"], s["reason"]) for s in call["suggestions"])
        else:
            msg = f"no mapping for builder op {op!r}"
            raise MissingMappingError(msg)
    for index, ui_case in enumerate(ui_cases):
        golden_text = golden[1 + index] if 1 + index < len(golden) else None
        expect_ui(ui_case, golden_text, expect)
    for raw in raws:
        if SURROGATE.search(raw):
            expect.raises = SerializationError
        expect.raw_blocks[len(expect.blocks)] = raw
        expect.add(raw)
    next_block = 1 + len(ui_cases) + len(raws)
    for items in (hints, rules):
        if items:
            route = Route()
            for value in items:
                route_item(route, value)
            route_first_item(route, items[0])
            expect.add(golden[next_block] if next_block < len(golden) else "", route)
            next_block += 1
    if pairs:
        route = Route()
        for tool, reason in pairs:
            route_item(route, tool)
            route_item(route, reason, leading=False)
            route.add("escaping", when=": " in tool)
        route_first_item(route, pairs[0][0], tool=True)
        expect.add(golden[next_block] if next_block < len(golden) else "", route)
    return expect


def expect_helper(case: dict[str, Any]) -> Expect:
    """Expected blocks of a ``helper`` case."""
    fn, raw_args = case["input"]["fn"], case["input"]["args"]
    golden = case["content"] or []
    expect = Expect(golden)
    route = Route()
    if fn in ("error", "required", "toolError"):
        details = (raw_args[1].get("details") or {}) if fn == "toolError" else {}
        if route.add(
            "non-string-details", when=any(not isinstance(v, str) for v in details.values())
        ):
            expect.thrown_by_reference = True
        for value in _envelope_texts(fn, raw_args):
            route_text(route, value, envelope=True)
        for value in _envelope_attrs(fn, raw_args):
            route_attr(route, value, envelope=True)
        retry = decode(raw_args[1].get("retryAfter")) if fn == "toolError" else None
        exact = type(retry) is int and retry > 0 and js_prints_differently(retry)
        rounded = route.add("js-numbers", when=exact)
        if rounded and route.classes == ["js-numbers"]:  # the exact seconds; JS: the double
            expect.add_check(lambda ours: _assert_rounded(ours, golden[0]), route)
            return expect
        expect.add(golden[0] if golden else "", route)
    elif fn == "success" and isinstance(raw_args[0], str):
        if SURROGATE.search(raw_args[0]):
            expect.raises = SerializationError
        expect.add(raw_args[0] or "OK")
    elif fn in ("success", "successStructured") and route.add(
        "js-undefined", when=_is_undefined(raw_args[0])
    ):
        expect.add_check(_assert_null, route)  # JS: a block without text
    elif fn in ("success", "successStructured") and route_json(route, raw_args[0]):
        expect.add_check(lambda ours: assert_json_divergence(ours, golden[0], raw_args[0]), route)
    elif fn in ("toonSuccess", "successStructured") and route.add(
        "lone-surrogates", when=_holds_surrogate(raw_args[0])
    ):
        # MCP data (TOON text, structuredContent) cannot carry a lone surrogate:
        # refused naming its path (a JSON text block escapes it instead).
        expect.raises = SerializationError
    elif fn == "toonSuccess" and (
        route.add("js-undefined", when=undefined_member(raw_args))
        | route.add("js-numbers", when=has_unsafe_int(raw_args))
    ):
        # js-undefined: the key is missing, not null; js-numbers: exact ints.
        expect.add_check(lambda ours: _assert_toon_divergence(ours, golden[0], raw_args), route)
    else:
        expect.add(golden[0])
    return expect


def _is_undefined(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"$undefined"}


def _assert_null(ours: str) -> None:
    """``undefined`` data is ``None`` in Python: the JSON ``null``."""
    assert ours == "null"


def undefined_member(value: Any) -> bool:
    """An object member that is ``undefined`` (JS TOON writes ``key: null``; here it is missing).

    An ``undefined`` array element is ``None``: both sides write ``null`` there.
    """
    return any(
        isinstance(node, dict) and any(_is_undefined(item) for item in node.values())
        for node in walk(value)
    )


def _holds_surrogate(value: Any) -> bool:
    return any(isinstance(node, str) and SURROGATE.search(node) for node in walk(value))


def _assert_toon_divergence(ours: str, golden: str, raw_args: list[Any]) -> None:
    """Exact integers and missing keys: the TOON reads back as the data (undefined left out)."""
    data = raw_args[0]
    options = raw_args[1] if len(raw_args) > 1 else {}
    assert "undefined" not in ours
    if not options.get("keyFolding"):
        assert same_value(toon_format.decode(ours), json_value(decode(data)))
    top_level = isinstance(data, dict) and not any(
        undefined_member(value) for value in data.values()
    )
    if top_level:  # the reference's lines but its "key: null" ones
        undefined = [key for key, value in data.items() if has_undefined(value)]
        reference_lines = [
            line
            for line in golden.split("\n")
            if not any(line == f"{key}: null" for key in undefined)
        ]
        ours_lines = [
            re.sub(r"(?<![\w.])-?\d{16,}(?![\w.])", _js_rounded, line) for line in ours.split("\n")
        ]
        assert ours_lines == reference_lines


def _assert_rounded(ours: str, golden: str) -> None:
    """The reference's text once every integer beyond 2**53 is printed as JS prints it."""
    assert re.sub(r"(?<![\w.])-?\d{16,}(?![\w.])", _js_rounded, ours) == golden


def _js_rounded(match: re.Match[str]) -> str:
    value = int(match.group())
    return js_number(float(value)) if abs(value) > 2**53 else match.group()


def _envelope_texts(fn: str, raw_args: list[Any]) -> list[str]:
    """The element texts of an error envelope."""
    if fn == "required":
        return [raw_args[0]]
    if fn == "error":
        return [raw_args[0]]
    options = raw_args[1]
    texts = [options.get("message") or "", options.get("suggestion") or ""]
    texts += list(options.get("availableActions") or [])
    texts += [v for v in (options.get("details") or {}).values() if isinstance(v, str)]
    return [t for t in texts if isinstance(t, str)]


def _envelope_attrs(fn: str, raw_args: list[Any]) -> list[str]:
    """The attribute values of an error envelope."""
    if fn == "error":
        return [raw_args[1]] if len(raw_args) > 1 and isinstance(raw_args[1], str) else []
    if fn == "toolError":
        options = raw_args[1]
        return [raw_args[0], options.get("severity") or "", *(options.get("details") or {})]
    return []


# -- the test ----------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case: dict[str, Any]) -> None:
    """The project's bytes are the reference's, or its documented divergence."""
    expect = expect_response(case) if case["kind"] == "response" else expect_helper(case)
    run = run_response if case["kind"] == "response" else run_helper
    if expect.raises is not None:
        with pytest.raises(expect.raises):
            run(case["input"])
        return
    ours = run(case["input"])
    expect.route_raw(ours)
    if case.get("thrown") or expect.thrown_by_reference:
        # The reference threw: a routed rule must predict it, and ours is well-formed.
        assert expect.thrown_by_reference, f"the reference threw {case.get('thrown')}; no rule"
        assert case.get("thrown"), "routed as a reference crash, but the reference answered"
        assert check(wire_of(ours)) == []
        assert parse(wire_of(ours)).view == as_sent(ours)
        return
    assert len(ours.texts) == len(expect.blocks)
    assert len(ours.texts) == len(expect.golden), "the reference wrote another number of blocks"
    for index, (text, expected, route) in enumerate(
        zip(ours.texts, expect.blocks, expect.routes, strict=True)
    ):
        if isinstance(expected, str):
            assert text == expected, f"block {index}"
        else:
            if expected is not None:
                expected(text)
            route.must_differ(text, expect.golden[index] if index < len(expect.golden) else None)
    if expect.divergent:
        # A routed block is well-formed, but for what the reference's bytes already
        # break in verbatim text (UI content is never rewritten).
        golden_wire = {"content": [{"type": "text", "text": t} for t in expect.golden]}
        inherited = {(v.block, v.rule) for v in check(golden_wire)}
        routed = {index for index, route in enumerate(expect.routes) if route}
        violations = [
            v
            for v in check(wire_of(ours))
            if v.block in routed and (v.block, v.rule) not in inherited
        ]
        assert violations == [], "a routed block must be well-formed"
        assert parse(wire_of(ours)).view == as_sent(ours), "a divergent case must be lossless"
    else:
        assert ours.texts == expect.golden
    assert ours.get("isError") == case["isError"]
    if "structuredContent" in case:
        # Compared as JSON carries it: NaN and infinities are null on the wire.
        assert js_like(ours["structuredContent"]) == js_like(decode(case["structuredContent"]))
    else:
        assert "structuredContent" not in ours
    if case.get("meta"):
        _assert_view(ours, case["meta"], expect)


def _assert_view(ours: ToolResponse, meta: dict[str, Any], expect: Expect) -> None:
    """The hidden view holds what the reference's test view holds."""
    view = view_of(ours)
    assert list(view.rules) == meta["systemRules"]
    assert [block.type for block in view.ui_blocks] == [b["type"] for b in meta["uiBlocks"]]
    for index, (block, golden) in enumerate(zip(view.ui_blocks, meta["uiBlocks"], strict=True)):
        if not expect.routes[1 + index]:  # a routed block's content is checked above
            assert block.content == golden["content"]
        golden_meta = {
            k: decode(v) for k, v in (golden.get("meta") or {}).items() if v not in ("", None)
        }
        ours_meta = {}
        if block.meta is not None:
            ours_meta = {
                k: v
                for k, v in (
                    ("title", block.meta.title),
                    ("width", block.meta.width),
                    ("priority", block.meta.priority),
                )
                if v is not None
            }
        assert ours_meta == golden_meta
