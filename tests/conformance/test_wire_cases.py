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
import math
import re
from collections.abc import Callable
from typing import Any

import pytest

from fusion_core import (
    ResponseBuilder,
    ToolResponse,
    UiBlock,
    UIError,
    UiMeta,
    error,
    required,
    response,
    success,
    success_structured,
    to_json,
    tool_error,
    toon_success,
    ui,
    view_of,
)
from fusion_core._numbers import js_number, js_string_of_number

from . import _spec as spec
from ._corpus import (
    decode,
    has_intlike_key,
    has_undefined,
    has_unsafe_int,
    is_array_index,
    load_cases,
)

CASES = load_cases("response", "helper")
_LANGUAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#.\-]*")
_XML_SPECIAL = re.compile("[<&]|]]>|[\x00-\x08\x0b\x0c\x0e-\x1f]")
_ATTR_SPECIAL = re.compile("[<>&\"'\t\n\r]|[\x00-\x08\x0b\x0c\x0e-\x1f]")
_BREAK = re.compile("[\n\r]")  # CommonMark line endings; U+2028, NEL are ordinary

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


def _hoist(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    index = sorted((p for p in pairs if is_array_index(p[0])), key=lambda p: int(p[0]))
    return dict(index + [p for p in pairs if not is_array_index(p[0])])


def _round_ints(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int) and abs(value) > 2**53:
        return float(value)
    if isinstance(value, dict):
        return {key: _round_ints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_round_ints(item) for item in value]
    return value


def reference_form(json_text: str) -> str:
    """What JavaScript prints for the same JSON: ints rounded, index keys first."""
    return to_json(_round_ints(json.loads(json_text, object_pairs_hook=_hoist)))


def assert_json_divergence(ours: str, golden: str, source: Any) -> None:
    """js-numbers / js-key-order: exact ints and insertion order, else as JS."""
    assert json.loads(ours) == decode(source)
    keys_in_order = json.loads(ours, object_pairs_hook=lambda pairs: [k for k, _ in pairs])
    assert keys_in_order == _key_orders(decode(source))
    assert reference_form(ours) == golden


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
    builder = response(data)
    for call in case_input["calls"]:
        apply_call(builder, call)
    return builder.build()


def apply_call(builder: ResponseBuilder, call: dict[str, Any]) -> None:
    """One builder call of the corpus's call language."""
    op = call["op"]
    if op == "uiBlock":
        builder.ui_block(make_ui(call["block"]))
    elif op == "uiBlockRaw":
        builder.ui_block(call["type"], call["content"])
    elif op == "uiBlocks":
        builder.ui_blocks([make_ui(block) for block in call["blocks"]])
    elif op == "llmHint":
        builder.llm_hint(call["text"])
    elif op == "systemRules":
        builder.system_rules(call["rules"])
    elif op == "systemHint":
        builder.system_hint(call["suggestions"])
    elif op == "rawBlock":
        builder.raw_block(call["text"])
    else:  # pragma: no cover - a corpus with a new op must fail loudly
        pytest.fail(f"unknown builder op {op!r}")


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
    """The expected blocks of one case, and whether any divergence applied."""

    def __init__(self, golden: list[str]) -> None:
        self.golden = golden
        self.blocks: list[str | Callable[[str], None]] = []
        self.divergent = False
        self.raises: type[Exception] | None = None

    def add(self, text: str, *, divergent: bool) -> None:
        self.blocks.append(text)
        self.divergent = self.divergent or divergent

    def add_check(self, check: Callable[[str], None]) -> None:
        self.blocks.append(check)
        self.divergent = True


def expect_ui(ui_case: dict[str, Any], golden_text: str | None, expect: Expect) -> None:
    """The project's block for one UI case (or the error it must raise)."""
    if "literal" in ui_case:
        kind, body = ui_case["literal"]["type"], ui_case["literal"]["content"]
        meta = ui_case["literal"].get("meta") or {}
    else:
        helper, args = ui_case["helper"], ui_case["args"]
        meta = ui_case.get("meta") or {}
        if helper == "codeBlock" and args[0] != "" and not _LANGUAGE.fullmatch(args[0]):
            expect.raises = UIError
            return
        kind, body, body_check = _helper_content(helper, args, golden_text)
        if body_check is not None:
            expect.add_check(body_check)
            _meta_ok(meta, expect)
            return
    attributes, meta_divergent = _meta_attributes(meta, expect)
    if expect.raises:
        return
    divergent = (
        meta_divergent
        or bool(_ATTR_SPECIAL.search(kind))
        or spec.content(body) != body
        or ("helper" in ui_case and _helper_diverges(ui_case))
    )
    text = f'<ui_passthrough type="{spec.attr(kind)}"{attributes}>\n{spec.content(body)}\n'
    expect.add(text + "</ui_passthrough>", divergent=divergent)


def _meta_ok(meta: dict[str, Any], expect: Expect) -> None:
    _meta_attributes(meta, expect)


def _meta_attributes(meta: dict[str, Any], expect: Expect) -> tuple[str, bool]:
    title, width, priority = meta.get("title"), meta.get("width"), meta.get("priority")
    priority = decode(priority) if priority is not None else None
    if width not in (None, "", "full", "half", "third"):
        expect.raises = UIError
    if priority is not None and (isinstance(priority, bool) or not math.isfinite(priority)):
        expect.raises = UIError
    text = ""
    if title:
        text += f' title="{spec.attr(title)}"'
    if width:
        text += f' width="{width}"'
    if priority is not None:
        text += f' priority="{js_string_of_number(priority)}"'
    divergent = "priority" in meta and meta["priority"] is None
    return text, divergent or bool(title and _ATTR_SPECIAL.search(title))


def _helper_diverges(ui_case: dict[str, Any]) -> bool:
    helper, args = ui_case["helper"], ui_case["args"]
    if helper == "table":
        cells = [*args[0], *(c for row in args[1] for c in row)]
        return any(isinstance(c, str) and ("|" in c or _BREAK.search(c)) for c in cells)
    if helper == "list":
        return any(isinstance(i, str) and _BREAK.search(i) for i in args[0])
    if helper in ("mermaid", "codeBlock"):
        return "```" in args[-1] or args[-1].endswith("\r")
    return False


def _helper_content(
    helper: str, args: list[Any], golden_text: str | None
) -> tuple[str, str, Callable[[str], None] | None]:
    """(type, content, None) from the spec, or a check for JSON-bodied helpers."""
    if helper == "markdown":
        return "markdown", args[0], None
    if helper == "summary":
        return "summary", spec.SUMMARY + args[0], None
    if helper == "mermaid":
        return "mermaid", spec.fence("mermaid", args[0]), None
    if helper == "codeBlock":
        return args[0], spec.fence(args[0], args[1]), None
    if helper == "table":
        headers, rows = args
        lines = ["| " + " | ".join(spec.cell(h) for h in headers) + " |"]
        lines.append("| " + " | ".join("---" for _ in headers) + " |")
        lines.extend("| " + " | ".join(spec.cell(c) for c in row) + " |" for row in rows)
        return "markdown", "\n".join(lines), None
    if helper == "list":
        return "markdown", "\n".join(spec.list_item(i) for i in args[0]), None
    language = FENCED[helper]
    assert golden_text is not None
    golden_body = golden_text.split("\n", 2)[2].rsplit("\n", 2)[0]
    if not json_diverges(args[0]):
        return language, spec.fence(language, golden_body.removeprefix("```").strip()), None
    # The body of a JSON-bodied block after the ```json line and before ```.

    def check(ours: str) -> None:
        assert ours.startswith(f'<ui_passthrough type="{language}"')
        body = ours.split("\n", 2)[2].rsplit("\n", 2)[0]
        assert reference_form(body) == golden_body
        assert json.loads(body) == decode(args[0])

    return language, "", check


def golden_json_body(golden_text: str) -> str:
    """The JSON inside a golden fenced block."""
    return golden_text.split("\n", 2)[2].rsplit("\n", 2)[0]


def expect_response(case: dict[str, Any]) -> Expect:
    """Expected blocks of a ``response`` case."""
    case_input, golden = case["input"], case["content"] or []
    expect = Expect(golden)
    data = case_input["data"]
    if isinstance(data, str):
        expect.add(data or "OK", divergent=False)
    elif json_diverges(data):
        expect.add_check(lambda ours: assert_json_divergence(ours, golden[0], data))
    else:
        expect.add(golden[0], divergent=has_undefined(data))
    ui_cases: list[dict[str, Any]] = []
    raws: list[str] = []
    hints: list[str] = []
    rules: list[str] = list(case_input.get("rules", []))
    pairs: list[tuple[str, str]] = []
    for call in case_input["calls"]:
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
    for index, ui_case in enumerate(ui_cases):
        golden_text = golden[1 + index] if 1 + index < len(golden) else None
        expect_ui(ui_case, golden_text, expect)
    for raw in raws:
        expect.add(raw, divergent=False)
    for tag, items in (("llm_directives", hints), ("domain_rules", rules)):
        if items:
            expect.add(spec.bullets(tag, items), divergent=any(map(_item_diverges, items)))
    if pairs:
        divergent = any(_item_diverges(t) or ": " in t or _item_diverges(r) for t, r in pairs)
        expect.add(spec.suggestions(pairs), divergent=divergent)
    return expect


def _item_diverges(value: str) -> bool:
    return bool(_XML_SPECIAL.search(value) or _BREAK.search(value))


def expect_helper(case: dict[str, Any]) -> Expect:
    """Expected blocks of a ``helper`` case."""
    fn, raw_args = case["input"]["fn"], case["input"]["args"]
    golden = case["content"] or []
    expect = Expect(golden)
    if fn in ("error", "required", "toolError"):
        expect.add(_envelope(fn, raw_args), divergent=_envelope_diverges(fn, raw_args))
    elif fn == "success" and isinstance(raw_args[0], str):
        expect.add(raw_args[0] or "OK", divergent=False)
    elif fn in ("success", "successStructured") and json_diverges(raw_args[0]):
        expect.add_check(lambda ours: assert_json_divergence(ours, golden[0], raw_args[0]))
    elif fn == "toonSuccess" and (has_undefined(raw_args) or has_unsafe_int(raw_args)):
        # js-undefined: the key is missing, not null; js-numbers: exact ints.
        expect.add_check(lambda ours: _assert_toon_divergence(ours, golden[0], raw_args))
    else:
        expect.add(golden[0], divergent=False)
    return expect


def _assert_toon_divergence(ours: str, golden: str, raw_args: list[Any]) -> None:
    data = raw_args[0]
    if isinstance(data, dict):
        undefined = [key for key, value in data.items() if has_undefined(value)]
        reference_lines = [
            line
            for line in golden.split("\n")
            if not any(line == f"{key}: null" for key in undefined)
        ]
        ours_lines = [
            re.sub(r"(?<=: )-?\d+$", _js_rounded, line)
            for line in ours.split("\n")
        ]
        assert ours_lines == reference_lines
    else:
        assert has_undefined(data) or has_unsafe_int(data)
        assert "undefined" not in ours


def _js_rounded(match: re.Match[str]) -> str:
    value = int(match.group())
    return js_number(float(value)) if abs(value) > 2**53 else match.group()


def _envelope(fn: str, raw_args: list[Any]) -> str:
    if fn == "required":
        message = spec.text('Required field "' + raw_args[0] + '" is missing.')
        recovery = spec.text('Provide the "' + raw_args[0] + '" parameter and retry.')
        return (
            '<tool_error code="MISSING_REQUIRED_FIELD">\n'
            f"<message>{message}</message>\n"
            f"<recovery>{recovery}</recovery>\n"
            "</tool_error>"
        )
    if fn == "error":
        message, *code = raw_args
        code_attr = f' code="{spec.attr(code[0])}"' if code else ""
        return f"<tool_error{code_attr}>\n<message>{spec.text(message)}</message>\n</tool_error>"
    code, options = raw_args[0], raw_args[1]
    severity = options.get("severity", "error")
    lines = [f'<tool_error code="{spec.attr(code)}" severity="{spec.attr(severity)}">']
    lines.append(f"<message>{spec.text(options['message'])}</message>")
    if options.get("suggestion"):
        lines.append(f"<recovery>{spec.text(options['suggestion'])}</recovery>")
    if options.get("availableActions"):
        lines.append("<available_actions>")
        lines.extend(f"  <action>{spec.text(a)}</action>" for a in options["availableActions"])
        lines.append("</available_actions>")
    if options.get("details"):
        lines.append("<details>")
        lines.extend(
            f'  <detail key="{spec.attr(k)}">{spec.text(v)}</detail>'
            for k, v in options["details"].items()
        )
        lines.append("</details>")
    retry = decode(options.get("retryAfter"))
    if isinstance(retry, int | float) and math.isfinite(retry) and retry > 0:
        lines.append(f"<retry_after>{js_string_of_number(retry)} seconds</retry_after>")
    lines.append("</tool_error>")
    return "\n".join(lines)


def _envelope_diverges(fn: str, raw_args: list[Any]) -> bool:
    """Control characters in error text: escaped as character references."""
    texts = [a for a in raw_args if isinstance(a, str)]
    if fn == "toolError":
        options = raw_args[1]
        texts += [options.get("message", ""), options.get("suggestion") or ""]
        texts += list(options.get("availableActions", []))
        texts += [f"{k}{v}" for k, v in (options.get("details") or {}).items()]
    return any(re.search("[\x00-\x08\x0b\x0c\x0e-\x1f]", t) for t in texts)


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
    assert len(ours.texts) == len(expect.blocks)
    for index, (text, expected) in enumerate(zip(ours.texts, expect.blocks, strict=True)):
        if callable(expected):
            expected(text)
        else:
            assert text == expected, f"block {index}"
    if not expect.divergent:
        assert ours.texts == expect.golden
    assert ours.get("isError") == case["isError"]
    if "structuredContent" in case:
        assert ours["structuredContent"] == decode(case["structuredContent"])
    else:
        assert "structuredContent" not in ours
    if case.get("meta"):
        _assert_view(ours, case["meta"], same_content=not expect.divergent)


def _assert_view(ours: ToolResponse, meta: dict[str, Any], *, same_content: bool) -> None:
    """The hidden view holds what the reference's test view holds."""
    view = view_of(ours)
    assert list(view.rules) == meta["systemRules"]
    assert [block.type for block in view.ui_blocks] == [b["type"] for b in meta["uiBlocks"]]
    for block, golden in zip(view.ui_blocks, meta["uiBlocks"], strict=True):
        if same_content:
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


def test_corpus_is_not_empty() -> None:
    """The replay found cases: an empty or missing corpus must not pass silently."""
    assert len(CASES) > 0
