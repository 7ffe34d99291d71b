"""Replay the corpus's ``presenter``, ``tool_definition`` and ``tool_call`` cases.

Each case is byte-identical to the reference unless a divergence predicate on
its *input* says otherwise; a divergent case asserts the project's own output:

* escaping — any input string holds ``<``, ``>``, ``&`` or a quote: bullet
  items and attributes are expected escaped;
* js-numbers — an integer literal beyond 2**53: the data block keeps it exact;
* wrap and firewall — a handler returning ``null``/``undefined`` answers ``OK``;
  an un-built builder is built; a Presenter action's data always goes through
  the Presenter;
* exception envelope — a Presenter failure in a call is ``INTERNAL_ERROR``;
* validator text — arguments the schema rejects: same ``<validation_error>``
  elements, field names and order, pydantic's wording;
* select validation (WIRE.md 12.7) — ``_select`` outside its enum is refused;
* schema dialect — zod's integer bounds are not part of our input schemas.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pydantic import ValidationError

from fusion_core._app import FusionApp
from fusion_core._builder import ResponseBuilder
from fusion_core._presenter import PresenterValidationError
from fusion_core._text import encode_item, escape_attr, escape_text, neutralize_fusion_tags

from . import _pres_mapping as mapping
from ._corpus import decode, has_unsafe_int, load_cases, walk

CASES = load_cases("presenter", "tool_definition", "tool_call")
_SPECIAL = re.compile(r"[<>&\"']")
_BULLETS = re.compile(r"^<(domain_rules|action_suggestions|llm_directives)>\n(.*)\n</\1>$", re.S)
_ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*?)"(?=[ >])')
JS_SAFE = 9007199254740991


def has_special_text(value: Any) -> bool:
    """Escaping class: an input string with an XML-special character."""
    return any(isinstance(node, str) and _SPECIAL.search(node) for node in walk(value))


def escaped(text: str) -> str:
    """The reference's block with our escaping of items, UI attributes and UI content.

    An item is a ``- `` line and the lines up to the next one (the reference
    writes continuation lines raw); it is encoded as the project encodes items.
    """
    match = _BULLETS.match(text)
    if match:
        items: list[str] = []
        for line in match.group(2).split("\n"):
            if line.startswith("- ") or not items:
                items.append(line.removeprefix("- "))
            else:
                items[-1] += "\n" + line
        body = "\n".join("- " + encode_item(item) for item in items)
        return f"<{match.group(1)}>\n{body}\n</{match.group(1)}>"
    if text.startswith("<ui_passthrough "):
        head, _, rest = text.partition("\n")
        head = _ATTR.sub(lambda m: f'{m.group(1)}="{escape_attr(m.group(2))}"', head)
        content = rest.removesuffix("\n</ui_passthrough>")
        return f"{head}\n{neutralize_fusion_tags(content)}\n</ui_passthrough>"
    return text


def structure(text: str) -> list[str]:
    """Element and field names of an envelope, without messages."""
    return re.findall(r"<(?:validation_error|tool_error|field|recovery|message)\b[^>]*>", text)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case: dict[str, Any]) -> None:
    """One golden case, byte for byte or by its divergence class."""
    {"presenter": run_presenter, "tool_definition": run_definition, "tool_call": run_call}[
        case["kind"]
    ](case)


def run_presenter(case: dict[str, Any]) -> None:
    """``presenter.make(data, ctx, select)`` + calls + ``build()``."""
    spec = case["input"]
    presenter = mapping.presenter(spec["presenter"])
    data, ctx = decode(spec["data"]), decode(spec.get("ctx"))
    if case.get("thrown"):
        with pytest.raises(PresenterValidationError) as caught:
            presenter.make(data, ctx, spec.get("select"))
        expected = case["thrown"]["message"]
        assert str(caught.value).split("\n")[0] == expected.split("\n")[0]
        fields = re.findall(r"^  • '([^']*)'", expected, re.M)
        assert [error.path for error in caught.value.errors] == fields
        return
    builder = presenter.make(data, ctx, spec.get("select"))
    texts = mapping.apply_calls(builder, spec.get("calls", [])).build().texts
    compare(case, texts, special=has_special_text(spec))


def compare(case: dict[str, Any], texts: list[str], *, special: bool) -> None:
    """Byte equality, with the escaping and js-numbers classes applied."""
    expected = list(case["content"])
    if special:
        expected = [escaped(text) for text in expected]
    if has_unsafe_int(case["input"]) and texts[0] != expected[0]:
        assert json.loads(texts[0]) == decode(json.loads(texts[0]))
        assert any(
            str(abs(int(node["$num"]))) in texts[0]
            for node in walk(case["input"])
            if isinstance(node, dict)
            and set(node) == {"$num"}
            and node["$num"].lstrip("-").isdigit()
        )
        texts, expected = texts[1:], expected[1:]
    assert texts == expected


def run_definition(case: dict[str, Any]) -> None:
    """The compiled definition: description exact, schema modulo dialect."""
    spec = case["input"]
    fusion = FusionApp(mapping.tools(spec["tools"]))
    definitions = {d["name"]: d for d in fusion.definitions()}
    golden = case["tool"]
    ours = definitions[spec.get("name", golden["name"])]
    assert ours["description"] == case["content"][0] == golden["description"]
    assert ours["annotations"] == golden["annotations"]
    assert ours["inputSchema"] == dialect(golden["inputSchema"])


def dialect(schema: Any) -> Any:
    """Drop zod-to-json-schema's safe-integer bounds (schema dialect class)."""
    if isinstance(schema, dict):
        return {
            key: dialect(value)
            for key, value in schema.items()
            if not (key in {"minimum", "maximum"} and abs(value) == JS_SAFE)
        }
    if isinstance(schema, list):
        return [dialect(item) for item in schema]
    return schema


def _action(spec: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The called action's spec and its tool's spec, when they exist."""
    args = decode(spec["args"])
    for tool in spec["tools"]:
        if tool["style"] == "fluent":
            namespace, name = tool["name"].split(".", 1)
            if spec.get("name", namespace) == namespace and args.get("action") == name:
                return {**tool, "name": name}, tool
            continue
        if tool["name"] != spec.get("name", tool["name"]):
            continue
        discriminator = tool.get("discriminator", "action")
        for group in tool.get("groups") or [{"name": None, "actions": tool.get("actions", [])}]:
            for action in group["actions"]:
                key = (
                    action["name"] if group["name"] is None else f"{group['name']}.{action['name']}"
                )
                if args.get(discriminator) == key:
                    return action, tool
    return None, None


def run_call(case: dict[str, Any]) -> None:  # noqa: PLR0915 - the divergence classes read best in one place
    """``registry.routeCall(ctx, name, args)`` through ``FusionApp.call``."""
    spec = case["input"]
    tools = mapping.tools(spec["tools"])
    fusion = FusionApp(tools)
    name = spec.get("name", tools[0].name)
    args = decode(spec["args"])
    result = fusion.call_sync(name, args, decode(spec.get("ctx", {})))
    texts = result.texts
    action, tool_spec = _action(spec)
    handler = (action or {}).get("handler") or {"return": "echo"}
    returns = (action or {}).get("returns")
    tool = next((t for t in tools if t.name == name), None)
    key = tool and args.get(tool.discriminator)
    if tool is not None and action is not None and isinstance(key, str):
        params = (
            mapping.model(
                (action.get("schema") or action.get("params") or {"type": "object"}),
                "check",
                extra="forbid",
            )
            if tool_spec and tool_spec["style"] != "fluent"
            else None
        )
        rest = {k: v for k, v in args.items() if k not in {tool.discriminator, "_select"}}
        try:
            if params is not None and not (tool_spec or {}).get("commonSchema"):
                params.model_validate(rest)
        except ValidationError:  # validator text class
            assert texts[0].startswith(f'<validation_error action="{name}/{key}">')
            assert [re.sub(r">.*", ">", line) for line in structure(texts[0])] == [
                re.sub(r">.*", ">", line) for line in structure(case["content"][0])
            ]
            return
        select = args.get("_select")
        if (tool_spec or {}).get("enableSelect") and select is not None:
            allowed = tool.select_keys()
            if not isinstance(select, list) or any(s not in allowed for s in select):
                assert result.is_error
                assert texts[0].startswith(
                    f'<validation_error action="{name}/{key}">\n<field name="_select'
                )
                return
        if handler.get("return") == "value" and decode(handler["value"]) is None:
            assert texts == ["OK"]  # wrap rule: None is OK
            return
        if returns is not None and handler.get("return") in {"value", "builder"}:
            presenter = mapping.presenter(returns)
            data = decode(handler.get("value", handler.get("data")))
            failure: PresenterValidationError | None = None
            try:
                presenter.mask(data)
            except PresenterValidationError as exc:  # exception envelope class
                failure = exc
            if failure is not None:
                first_line = str(failure).split("\n")[0]
                assert texts[0].startswith(
                    '<tool_error code="INTERNAL_ERROR" severity="error">\n<message>'
                    + escape_text(f"[{name}/{key}] {first_line}")
                )
                return
            if handler["return"] == "builder":  # firewall: the Presenter applies
                built = mapping.apply_calls(presenter.make(data), handler["calls"]).build()
                assert texts == built.texts
                return
        if handler.get("return") == "builder" and not handler.get("build"):
            unbuilt = ResponseBuilder(decode(handler["data"]))
            assert texts == mapping.apply_calls(unbuilt, handler["calls"]).build().texts
            return
    assert result.get("isError") == case["isError"]
    if "structuredContent" in case:
        assert result["structuredContent"] == decode(case["structuredContent"])
    compare(case, texts, special=has_special_text(spec) and not result.is_error)
