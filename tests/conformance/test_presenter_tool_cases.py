"""Replay the corpus's ``presenter``, ``tool_definition`` and ``tool_call`` cases.

Each block is byte-identical to the reference's unless a rule routes it to a
divergence class (``tests/_support/conformance/divergence.py``; the rules are documented in
docs/wire-format.md). The rules read the case's input — the texts a
Presenter renders from it are read from the response's structured view,
which the project builds from the input, never from the reference's bytes. A
routed block must differ from the reference's, be well-formed and read back
losslessly; a routed case whose bytes equal the reference's fails.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import ValidationError

from fusion_core import (
    SchemaConflictError,
    ToolResponse,
    UIError,
    success,
    success_structured,
    toon_success,
    view_of,
)
from fusion_core._errors import SerializationError
from fusion_core._present._presenter import PresenterValidationError
from fusion_core._read._check import check
from fusion_core._read._parse import _read_ui, parse, read_items, read_ui
from fusion_core._read._parsed_blocks import SuggestionsBlock
from fusion_core._tools._app import FusionApp
from fusion_core._write._builder import ResponseBuilder
from fusion_core._write._numbers import js_number
from tests._support.conformance import pres_mapping as mapping
from tests._support.conformance.corpus import (
    decode,
    has_intlike_key,
    has_unsafe_int,
    js_like,
    load_cases,
    walk,
)
from tests._support.conformance.divergence import Route
from tests._support.conformance.routes import (
    FUSION_TAG,
    SURROGATE,
    as_sent,
    misread_raw_blocks,
    reference_form,
    route_attr,
    route_first_item,
    route_item,
    route_text,
    ui_error_class,
)

CASES = load_cases("presenter", "tool_definition", "tool_call")
JS_SAFE = 9007199254740991
_BULLET = re.compile(r"^  • ('(?:[^']*)'|\(root\)): (.*)$", re.M)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case: dict[str, Any]) -> None:
    """One golden case, byte for byte or by its divergence class."""
    if case["kind"] != "presenter" and case.get("thrown"):
        refused_registration(case)
        return
    {"presenter": run_presenter, "tool_definition": run_definition, "tool_call": run_call}[
        case["kind"]
    ](case)


def refused_registration(case: dict[str, Any]) -> None:
    """The reference refused to register the tools (a schema conflict): so does the project."""
    thrown = case["thrown"]["message"]
    assert thrown.startswith("Schema conflict for field "), f"the reference threw {thrown!r}"
    field = thrown.split('"')[1]
    with pytest.raises(SchemaConflictError, match=f"parameter {field!r}"):
        FusionApp(mapping.tools(case["input"]["tools"]))


# -- blocks of a response, routed by the texts the project rendered ----------


def _wire(response: ToolResponse) -> dict[str, Any]:
    return dict(response)


def route_blocks(ours: ToolResponse, golden: list[Any]) -> list[Route]:
    """One route per block of ``ours``, from the texts its view holds."""
    view = view_of(ours)
    routes = [Route() for _ in ours.texts]
    if not routes:
        return routes
    if view.error is not None:
        error = view.error
        for text in (error.message, error.recovery or "", *error.available_actions):
            route_text(routes[0], text, envelope=True)
        for key, value in error.details.items():
            route_attr(routes[0], key, envelope=True)
            route_text(routes[0], value, envelope=True)
        for attr in (error.code or "", error.severity or ""):
            route_attr(routes[0], attr, envelope=True)
        retry = error.retry_after or ""
        routes[0].add("js-numbers", when=_js_rounded(retry) != retry)  # exact seconds
    if view.error is None and view.validation is None:
        data = view.data
        if not isinstance(data, str):
            routes[0].add("js-numbers", when=has_unsafe_int(data))
            routes[0].add("js-key-order", when=has_intlike_key(data))
        elif _BIG_INT.search(data) and _js_rounded(data) != data:
            routes[0].add("js-numbers")  # TOON text: exact integers
    index = 1
    for block in view.ui_blocks:
        if index >= len(routes):
            break
        route = routes[index]
        route_attr(route, block.type)
        if block.meta is not None and block.meta.title:
            route_attr(route, block.meta.title)
        route.add("ui-content", when=bool(FUSION_TAG.search(block.content)))
        route.add("fences", when=_fenced_differently(block.content))
        route.add("multi-line-items", when=_continued_list(block))
        route.add("thematic-items", when=_led_blank_list(block))
        route.add(
            "js-numbers",
            when=block.type in ("json", "echarts") and _js_rounded(block.content) != block.content,
        )
        index += 1
    misread = misread_raw_blocks(ours)
    for text in view.embeds:  # a child Presenter's blocks, between the UI and the items
        if index < len(routes):
            _route_embed(routes[index], text)
            routes[index].add("raw-blocks", when=index in misread)
        index += 1
    for items in (view.directives, view.rules):
        if items and index < len(routes):
            for item in items:
                route_item(routes[index], item)
            route_first_item(routes[index], items[0])
            index += 1
    if view.suggestions and index < len(routes):
        for suggestion in view.suggestions:
            route_item(routes[index], suggestion.tool)
            route_item(routes[index], suggestion.reason, leading=False)
            routes[index].add("escaping", when=": " in suggestion.tool)
        route_first_item(routes[index], view.suggestions[0].tool, tool=True)
    return routes


def _continued_list(block: Any) -> bool:
    """A ``ui.list()`` block with an item continued on a second line (a line break in it)."""
    lines = block.content.split("\n")
    return (
        block.type == "markdown"
        and lines[0].startswith("- ")
        and all(line.startswith(("- ", "  ")) for line in lines)
        and any(line.startswith("  ") for line in lines)
    )


_LINE_ENDING = re.compile(r"\r\n?|\n")  # CommonMark's
_LED_BLANK = re.compile(r"- \\+[ \t]*\Z")


def _led_blank_list(block: Any) -> bool:
    r"""A ``ui.list()`` block whose first item's first line is blank: written ``- \``.

    By the block's shape (every line an item or a continuation), as
    :func:`_continued_list`; the reference writes that line ``- `` (one
    backslash fewer).
    """
    lines = _LINE_ENDING.split(block.content)
    return (
        block.type == "markdown"
        and _LED_BLANK.match(lines[0]) is not None
        and all(line.startswith(("- ", "  ")) for line in lines)
    )


def _route_embed(route: Route, text: str) -> None:
    """A child Presenter's block (UI, rules, suggestions), by the texts it holds."""
    ui = read_ui(text)
    if ui is not None:
        block = _read_ui(ui)
        route_attr(route, block.type)
        if block.meta is not None and block.meta.title:
            route_attr(route, block.meta.title)
        route.add("ui-content", when=bool(FUSION_TAG.search(block.content)))
        route.add("fences", when=_fenced_differently(block.content))
        route.add("multi-line-items", when=_continued_list(block))
        route.add("thematic-items", when=_led_blank_list(block))
        return
    items = read_items(text)
    if isinstance(items, SuggestionsBlock):
        for suggestion in items.items:
            route_item(route, suggestion.tool)
            route_item(route, suggestion.reason, leading=False)
            route.add("escaping", when=": " in suggestion.tool)
        route_first_item(route, items.items[0].tool, tool=True)
    elif items is not None:
        for item in items.items:
            route_item(route, item)
        route_first_item(route, items.items[0])


def _fenced_differently(content: str) -> bool:
    """A fence longer than 3 (a body with a backtick run), or escaped table cells."""
    fence = re.match(r"(`{4,})", content)
    return fence is not None or bool(re.search(r"^\|.*(\\\||<br>)", content, re.M))


_BIG_INT = re.compile(r"(?<![\w.])-?\d{16,}(?![\w.])")


def _js_rounded(text: str) -> str:
    """Text with every integer beyond 2**53 printed as JS prints the nearest double."""
    return _BIG_INT.sub(
        lambda m: js_number(float(int(m.group()))) if abs(int(m.group())) > 2**53 else m.group(),
        text,
    )


def compare(ours: ToolResponse, golden: list[Any], routes: list[Route] | None = None) -> None:
    """Each block is the reference's, or routed: different, well-formed, lossless."""
    routes = routes if routes is not None else route_blocks(ours, golden)
    texts = ours.texts
    assert len(texts) == len(golden), (texts, golden)
    for index, (text, reference, route) in enumerate(zip(texts, golden, routes, strict=True)):
        if not route:
            assert text == reference, f"block {index}"
            continue
        route.must_differ(text, reference)
        textual = index > 0 or isinstance(view_of(ours).data, str) or view_of(ours).error
        if textual and route.classes == ["js-numbers"]:
            assert _js_rounded(text) == reference  # TOON, UI JSON, retry_after: exact integers
        elif route.classes and set(route.classes) <= {"js-numbers", "js-key-order"}:
            assert reference_form(text) == reference
    if any(routes):
        golden_wire = {"content": [{"type": "text", "text": t} for t in golden]}
        inherited = {(v.block, v.rule) for v in check(golden_wire)}
        routed = {index for index, route in enumerate(routes) if route}
        violations = [
            v
            for v in check(_wire(ours))
            if v.block in routed and (v.block, v.rule) not in inherited
        ]
        assert violations == [], "a routed block must be well-formed"
        assert parse(_wire(ours)).view == as_sent(ours), "a routed block must be lossless"


# -- presenter ---------------------------------------------------------------


def run_presenter(case: dict[str, Any]) -> None:
    """``presenter.make(data, ctx, select)`` + calls + ``build()``."""
    spec = case["input"]
    presenter = mapping.presenter(spec["presenter"])
    data, ctx = decode(spec["data"]), decode(spec.get("ctx"))
    if Route().add(
        "string-length",
        when=utf16_length_differs(spec["presenter"].get("schema"), _kept(spec["presenter"], data)),
    ):
        # zod counts UTF-16 code units, Python characters: the reference refuses
        # (or accepts) a string at a length bound that the project accepts (or refuses).
        if case.get("thrown") is not None:
            presenter.make(data, ctx, spec.get("select"))  # accepted here: no raise
        else:
            with pytest.raises(PresenterValidationError):
                presenter.make(data, ctx, spec.get("select"))
        return
    if case.get("thrown"):
        with pytest.raises(PresenterValidationError) as caught:
            presenter.make(data, ctx, spec.get("select"))
        assert_same_failure(str(caught.value), case["thrown"]["message"])
        return
    missing = _missing_any(spec["presenter"].get("schema"), data)
    if Route().add("required-any", when=bool(missing)):
        # zod's ``any`` accepts a missing value; a required field here must be there.
        with pytest.raises(PresenterValidationError) as refused:
            presenter.make(data, ctx, spec.get("select"))
        assert {error.path for error in refused.value.errors} <= set(missing)
        return
    ui_classes = presenter_ui_refused(spec["presenter"])
    try:
        builder = presenter.make(data, ctx, spec.get("select"))
    except UIError:
        # ui-meta / language-tags: a Presenter's UI spec the project refuses (the
        # reference writes the block); refused at make(), naming the value.
        refusal = Route()
        for ui_class in ui_classes:
            refusal.add(ui_class)
        assert refusal, "a UIError from a Presenter whose UI specs are all valid"
        return
    except PresenterValidationError as refused:
        pytest.fail(f"the reference accepted the data, the project refused it: {refused}")
    ui_refused = [
        name for block in _call_blocks(spec.get("calls", [])) if (name := ui_error_class(block))
    ]
    if ui_refused:
        # ui-meta / language-tags: the project refuses the block the extra call adds.
        route = Route()
        for name in ui_refused:
            route.add(name)
        with pytest.raises(UIError):
            mapping.apply_calls(builder, spec.get("calls", []))
        return
    ours = mapping.apply_calls(builder, spec.get("calls", [])).build()
    if Route().add("embeds-on-validated-data", when=_default_fills_embed(spec["presenter"], data)):
        # A schema default fills an embed's key: the child runs on the validated
        # value here, never in the reference (it reads the raw data).
        golden = case["content"]
        assert ours.texts[0] == golden[0]
        assert set(golden) <= set(ours.texts)
        assert len(ours.texts) > len(golden)
        return
    routes = route_blocks(ours, case["content"])
    if routes and routes[0].add(
        "select-on-scalar", when=bool(spec.get("select")) and not _has_objects(data)
    ):
        # nothing to pick from: the data block is the data's own
        assert ours.texts[0] == ResponseBuilder(data).build().texts[0]
    if routes and routes[0].add(
        "proto-key", when=proto_kept(spec["presenter"].get("schema"), decode(spec["data"]))
    ):
        # zod's passthrough copy assigns __proto__ (the prototype, not a key): gone there.
        assert '"__proto__"' in ours.texts[0]
    compare(ours, case["content"], routes)


def _default_fills_embed(spec: dict[str, Any], data: Any) -> bool:
    """An embed key the data leaves out (or sets to null) and the schema gives a default."""
    properties = (spec.get("schema") or {}).get("properties", {})
    items = _kept(spec, data) if isinstance(data, list) else [data]
    return any(
        isinstance(item, dict)
        and item.get(embed["key"]) is None
        and properties.get(embed["key"], {}).get("default") is not None
        for embed in spec.get("embeds") or []
        for item in items
    )


def _kept(spec: dict[str, Any], data: Any) -> Any:
    """The items a Presenter validates: a list is truncated to its limit first."""
    limit = spec["agentLimit"]["max"] if "agentLimit" in spec else spec.get("limit")
    return data[:limit] if isinstance(data, list) and limit is not None else data


def presenter_ui_refused(spec: dict[str, Any]) -> list[str]:
    """The classes of the UI specs of a Presenter (and its embeds) the project refuses."""
    found: list[str] = []
    entries = [*(spec.get("ui") or []), *(spec.get("collectionUi") or [])]
    if "agentLimit" in spec:
        entries.append(spec["agentLimit"]["onTruncate"])
    for entry in entries:
        ui_spec = entry["then"] if "when" in entry and "then" in entry else entry
        name = ui_error_class(ui_spec)
        if name is not None and name not in found:
            found.append(name)
    for embed in spec.get("embeds") or []:
        found += [n for n in presenter_ui_refused(embed["presenter"]) if n not in found]
    return found


def proto_kept(schema: dict[str, Any] | None, data: Any) -> bool:
    """A ``__proto__`` key where the schema passes unknown keys through (zod drops it)."""
    if not schema:
        return False
    if isinstance(data, list) and schema.get("type") != "array":
        return any(proto_kept(schema, item) for item in data)
    if isinstance(data, list):
        return any(proto_kept(schema.get("items"), item) for item in data)
    if not isinstance(data, dict):
        return False
    if schema.get("additional") == "passthrough" and "__proto__" in data:
        return True
    properties = schema.get("properties", {})
    return any(proto_kept(properties.get(key), value) for key, value in data.items())


def _call_blocks(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``Ui`` specs that builder calls add."""
    blocks: list[dict[str, Any]] = []
    for call in calls:
        if call["op"] == "uiBlock":
            blocks.append(call["block"])
        elif call["op"] == "uiBlocks":
            blocks.extend(call["blocks"])
    return blocks


def utf16_length_differs(schema: dict[str, Any] | None, value: Any) -> bool:
    """A string at a ``minLength``/``maxLength`` bound that UTF-16 and characters judge apart."""
    if not schema:
        return False
    if isinstance(value, list) and schema.get("type") != "array":
        return any(utf16_length_differs(schema, item) for item in value)
    if isinstance(value, str):
        units = sum(2 if ord(char) > 0xFFFF else 1 for char in value)
        low, high = schema.get("minLength"), schema.get("maxLength")

        def inside(length: int) -> bool:
            return (low is None or length >= low) and (high is None or length <= high)

        return inside(units) != inside(len(value))
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        return any(utf16_length_differs(properties.get(k), v) for k, v in value.items())
    if isinstance(value, list):
        return any(utf16_length_differs(schema.get("items"), item) for item in value)
    return False


def _has_objects(data: Any) -> bool:
    """Whether ``_select`` picks only from objects: an object, or a list of them."""
    if isinstance(data, list):
        return all(isinstance(item, dict) for item in data)
    return isinstance(data, dict)


def _missing_any(schema: dict[str, Any] | None, data: Any) -> list[str]:
    """Paths of required ``any`` fields the data (an object, or a list's items) leaves out.

    At any depth: in nested objects and array items too (``owner.tag``, ``rows.0.tag``).
    """
    if not schema:
        return []
    items = data if isinstance(data, list) else [data]
    found: list[str] = []
    for item in _decoded([item for item in items if isinstance(item, dict)]):
        found += [path for path in _missing_in(schema, item, "") if path not in found]
    return found


def _missing_in(schema: dict[str, Any], value: Any, prefix: str) -> list[str]:
    if schema.get("type") == "array" and isinstance(value, list):
        element = schema.get("items") or {}
        return [
            path for index, item in enumerate(value)
            for path in _missing_in(element, item, f"{prefix}{index}.")
        ]  # fmt: skip
    if not isinstance(value, dict) or "properties" not in schema:
        return []
    properties = schema["properties"]
    found = [
        f"{prefix}{name}"
        for name in schema.get("required", ())
        if _is_any(properties.get(name, {}))
        and "default" not in properties.get(name, {})
        and name not in value
    ]
    for name, prop in properties.items():
        if name in value:
            found += _missing_in(prop, value[name], f"{prefix}{name}.")
    return found


def _decoded(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [decode(item) for item in items]


def assert_same_failure(ours: str, reference: str) -> None:
    """The whole message: first line, fields in order; wording only where zod's differs.

    Unknown keys read as the reference reads them (``(root): Unrecognized
    keys: "a", "b"``); other messages are pydantic's (validator-text class).
    """
    route = Route()
    assert ours.split("\n", maxsplit=1)[0] == reference.split("\n", maxsplit=1)[0]
    ours_fields, reference_fields = _BULLET.findall(ours), _BULLET.findall(reference)
    assert [path for path, _ in ours_fields] == [path for path, _ in reference_fields]
    for (_, mine), (_, theirs) in zip(ours_fields, reference_fields, strict=True):
        if route.add("validator-text", when=not theirs.startswith("Unrecognized key")):
            continue
        assert mine == theirs
    route.must_differ(ours, reference)


# -- tool definitions ----------------------------------------------------------


def _schemas(spec: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Every ``Schema`` of the named tool's input (actions and common)."""
    found: list[dict[str, Any]] = []
    for tool in spec["tools"]:
        owner = mapping.fluent_name(tool["name"])[0] if tool["style"] == "fluent" else tool["name"]
        if owner != name:
            continue
        found.extend(tool[key] for key in ("commonSchema", "shared") if key in tool)
        found.extend(_action_schemas(tool))
    return found


def _is_any(prop: dict[str, Any]) -> bool:
    return bool(prop.get("type", "any" if "enum" not in prop else "string") == "any")


def _required_any(schema: dict[str, Any]) -> bool:
    """A required ``any`` property at any depth (nested objects, array items)."""
    return any(
        isinstance(node, dict)
        and any(
            _is_any(node.get("properties", {}).get(name, {})) for name in node.get("required", ())
        )
        for node in walk(schema)
    )


def run_definition(case: dict[str, Any]) -> None:
    """The compiled definition: description, annotations and input schema."""
    spec = case["input"]
    fusion = FusionApp(mapping.tools(spec["tools"]))
    refused: str | None = None
    try:
        definitions = {d["name"]: d for d in fusion.definitions()}
    except SerializationError as exc:
        refused = str(exc)
    if refused is not None:
        # lone-surrogates: MCP data cannot carry one; the reference lists the tool.
        Route().add("lone-surrogates")
        assert any(
            isinstance(node, str) and SURROGATE.search(node) for node in walk(spec["tools"])
        ), f"a definition the project cannot write, with no lone surrogate in it: {refused}"
        assert "lone surrogate" in refused
        return
    golden = case["tool"]
    ours = definitions[spec.get("name", golden["name"])]
    assert ours["annotations"] == golden["annotations"]
    route = Route()
    relaxed = ours
    if any(_required_any(s) for s in _schemas(spec, ours["name"])):
        tools = mapping.tools(spec["tools"], any_required=False)
        relaxed = {d["name"]: d for d in FusionApp(tools).definitions()}[ours["name"]]
    # The reference leaves zod's ``any`` out of ``Requires:`` (its schema lists it
    # as required, nested ones too): routed where the description lists one;
    # declared optional, the project writes the reference's bytes.
    if route.add("required-any", when=relaxed["description"] != ours["description"]):
        assert relaxed["description"] == golden["description"]
        route.must_differ(ours["description"], golden["description"])
    else:
        assert ours["description"] == case["content"][0] == golden["description"]
    schema_route = Route()
    schemas = _schemas(spec, ours["name"])
    schema_route.add("schema-dialect", when=any(_has_integer(s) for s in schemas))
    schema_route.add("js-numbers", when=has_unsafe_int(schemas))
    expected = dialect(golden["inputSchema"])
    if "js-numbers" in schema_route.classes:
        assert js_like(ours["inputSchema"]) == js_like(expected)
    else:
        assert ours["inputSchema"] == expected
    schema_route.must_differ(ours["inputSchema"], golden["inputSchema"])


def _action_schemas(tool: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for group in tool.get("groups") or [{"actions": tool.get("actions", [])}]:
        for action in group["actions"]:
            schema = action.get("schema") or action.get("params")
            if schema:
                found.append(schema)
    return found


def _has_integer(schema: Any) -> bool:
    """An integer without both bounds: zod adds the missing safe-integer bound."""
    return any(
        isinstance(node, dict)
        and node.get("type") == "integer"
        and not ("minimum" in node and "maximum" in node)
        for node in walk(schema)
    )


def dialect(schema: Any) -> Any:
    """Drop zod's safe-integer bounds (schema-dialect class)."""
    if isinstance(schema, dict):
        return {
            key: dialect(value)
            for key, value in schema.items()
            if not (key in {"minimum", "maximum"} and abs(value) == JS_SAFE)
        }
    if isinstance(schema, list):
        return [dialect(item) for item in schema]
    return schema


# -- tool calls --------------------------------------------------------------


def _action(spec: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The called action's spec and its tool's spec, when they exist."""
    args = decode(spec["args"])
    if not isinstance(args, dict):
        return None, None
    for tool in spec["tools"]:
        if tool["style"] == "fluent":
            namespace, name = mapping.fluent_name(tool["name"])
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


def structure(text: object) -> list[str]:
    """Element and field names of an envelope, without messages."""
    if not isinstance(text, str):
        pytest.fail(f"the reference wrote a block without text ({text!r}), not an envelope")
    return re.findall(r"<(?:validation_error|tool_error|field|recovery|message)\b[^>]*>", text)


def run_call(case: dict[str, Any]) -> None:
    """``registry.routeCall(ctx, name, args)`` through ``FusionApp.call``."""
    spec = case["input"]
    args = decode(spec["args"])
    tools = mapping.tools(spec["tools"], call_args=args if isinstance(args, dict) else None)
    fusion = FusionApp(tools)
    name = spec.get("name", tools[0].name)
    result = fusion.call_sync(name, args, decode(spec.get("ctx", {})))
    golden = case["content"]
    route = Route()
    action, tool_spec = _action(spec)
    tool = next((t for t in tools if t.name == name), None)
    if tool is not None and action is not None and tool_spec is not None:
        if route.add(
            "select-validation", when=_select_refused(tool_spec, args, tool.select_keys())
        ):
            # WIRE.md 12.7: refused with a validation error naming _select.
            assert result.is_error
            validation = view_of(result).validation
            assert validation is not None
            assert any(field.name.startswith("_select") for field in validation.fields)
            route.must_differ(result.texts, golden)
            return
        absent = _absent_any(action, tool_spec, args)
        if absent and route.add("required-any"):
            # zod's ``any`` accepts a missing (or undefined) argument; required here.
            validation = view_of(result).validation
            assert validation is not None
            assert {field.name for field in validation.fields} >= set(absent)
            route.must_differ(result.texts, golden)
            return
        if route.add("js-undefined", when=_undefined_extras(action, tool_spec, spec["args"])):
            _undefined_key_refused(
                result, golden, action=action, tool_spec=tool_spec, args=args, route=route
            )
            return
        if _rejected(action, tool_spec, args, route):
            # validator-text: same elements and field names, pydantic's wording.
            expected = structure(golden[0])
            if route.add("passthrough-arguments", when=_extras_pass(action, tool_spec, args)):
                # the handler receives unknown keys: no (root) field for them
                expected = [tag for tag in expected if tag != '<field name="(root)">']
            if len(expected) > 2:  # fields left: the project refuses the call too
                assert result.is_error
                assert structure(result.texts[0]) == expected
            else:
                assert not result.is_error  # only unknown keys, which pass through here
            route.must_differ(result.texts, golden)
            return
        handler = action.get("handler") or {}
        if route.add(
            "js-undefined",
            when=handler.get("return") == "helper"
            and handler.get("fn") in ("success", "successStructured")
            and handler.get("args", [None])[0] == {"$undefined": True}
            and "returns" not in action,
        ):
            # success(undefined): a block without text in JS; None is the JSON null here.
            assert result.texts == ["null"]
            route.must_differ(result.texts, golden)
            return
        if _special_path(case, result, action, tool_spec, route):
            return
    assert result.get("isError") == case["isError"]
    assert ("structuredContent" in result) == ("structuredContent" in case), "structuredContent"
    if "structuredContent" in case:
        assert js_like(result["structuredContent"]) == js_like(decode(case["structuredContent"]))
    compare(result, golden)


def _rejected(
    action: dict[str, Any], tool_spec: dict[str, Any], args: dict[str, Any], route: Route
) -> bool:
    """validator-text: the arguments fail the action's schema (zod words it otherwise)."""
    common = tool_spec.get("commonSchema") or tool_spec.get("shared")
    schema = (
        _fluent_schema(tool_spec)
        if tool_spec["style"] == "fluent"
        else action.get("schema") or action.get("params")
    )
    if schema is None and common is None:
        return False
    properties: dict[str, Any] = {}
    required: list[str] = []
    for part in (common, schema):
        if part:
            properties.update(part.get("properties", {}))
            required += part.get("required", [])
    merged = {"type": "object", "properties": properties, "required": required}
    discriminator = tool_spec.get("discriminator", "action")
    rest = {k: v for k, v in args.items() if k not in {discriminator, "_select"}}
    try:
        mapping.model(merged, "check", extra="forbid").model_validate(rest)
    except ValidationError:
        return route.add("validator-text")
    return False


def _extras_pass(action: dict[str, Any], tool_spec: dict[str, Any], args: dict[str, Any]) -> bool:
    """Unknown keys sent to an action whose own schema passes them through (``extra="allow"``).

    The reference refuses unknown keys in any case; the project hands them to
    the handler when the params model allows extras and no common schema is set.
    """
    schema = action.get("schema") or action.get("params")
    if tool_spec["style"] == "fluent" or not schema or schema.get("additional") != "passthrough":
        return False
    if tool_spec.get("commonSchema") or tool_spec.get("shared"):
        return False
    discriminator = tool_spec.get("discriminator", "action")
    known_keys = {*schema.get("properties", {}), discriminator, "_select"}
    return any(key not in known_keys for key in args)


def _undefined_key_refused(
    result: ToolResponse,
    golden: list[Any],
    *,
    action: dict[str, Any],
    tool_spec: dict[str, Any],
    args: dict[str, Any],
    route: Route,
) -> None:
    """js-undefined: JSON carries no undefined, so the key is missing; zod refuses it as unknown."""
    root = '<field name="(root)">'
    expected = structure(golden[0])
    assert root in expected, "the reference took an undefined key"
    expected = [tag for tag in expected if tag != root]
    if _rejected(action, tool_spec, args, route) and len(expected) > 2:
        assert structure(result.texts[0]) == expected
    else:
        assert root not in structure(result.texts[0])
    route.must_differ(result.texts, golden)


def _undefined_extras(action: dict[str, Any], tool_spec: dict[str, Any], raw_args: Any) -> bool:
    """An argument sent as ``undefined`` under a key no schema declares, to an action zod checks.

    JSON cannot carry ``undefined``: here the key is missing. zod sees the key
    and refuses it as unknown (``(root)``) wherever the reference validates
    the arguments (an action schema or a common one; a fluent tool's params).
    """
    if not isinstance(raw_args, dict):
        return False
    common = tool_spec.get("commonSchema") or tool_spec.get("shared")
    schema = (
        _fluent_schema(tool_spec)
        if tool_spec["style"] == "fluent"
        else action.get("schema") or action.get("params")
    )
    if schema is None and common is None:
        return False
    declared = {tool_spec.get("discriminator", "action"), "_select"}
    for part in (common, schema):
        if part:
            declared.update(part.get("properties", {}))
    return any(
        key not in declared and value == {"$undefined": True} for key, value in raw_args.items()
    )


def _absent_any(
    action: dict[str, Any], tool_spec: dict[str, Any], args: dict[str, Any]
) -> list[str]:
    """Required ``any`` parameters (common or own) that the call leaves out or sends undefined."""
    absent: list[str] = []
    for schema in (
        tool_spec.get("commonSchema") or tool_spec.get("shared"),
        action.get("schema") or action.get("params"),
    ):
        if schema:
            absent += _missing_in(schema, args, "")
    return absent


def _fluent_schema(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The object schema a fluent builder's ``with*`` calls declare (None: no params)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for method, *args in spec.get("calls", []):
        kind = method.removeprefix("withOptional").removeprefix("with")
        if method.startswith("with") and kind in ("String", "Number", "Boolean"):
            properties[args[0]] = {"type": kind.lower()}
            if not method.startswith("withOptional"):
                required.append(args[0])
    if not properties:
        return None
    return {"type": "object", "properties": properties, "required": required}


def _select_refused(tool_spec: dict[str, Any], args: dict[str, Any], keys: list[str]) -> bool:
    """select-validation: ``_select`` outside the enum (the reference drops such values)."""
    select = args.get("_select")
    if not tool_spec.get("enableSelect") or select is None or not keys:
        return False
    return not isinstance(select, list) or any(value not in keys for value in select)


def _special_path(
    case: dict[str, Any],
    result: ToolResponse,
    action: dict[str, Any],
    tool_spec: dict[str, Any],
    route: Route,
) -> bool:
    """The wrap, firewall and envelope classes; True when the case is decided.

    The handler's return value comes from the case's input (the mapping's
    handler, run on the validated arguments); the classes follow from what it
    is and which path the reference takes with it.
    """
    texts, golden = result.texts, case["content"]
    fluent = tool_spec["style"] == "fluent"
    if _handler_ui_refused(result, action, golden, route):
        return True
    out = _handler_output(case, action, tool_spec)
    if out is _RAISED:
        return False
    returns = action.get("returns")
    if out is None and not fluent:
        # wrap: the reference writes JS null/undefined as text; None answers OK
        # before any Presenter (there is nothing to present).
        route.add("wrap-and-firewall")
        assert texts == ["OK"]
        route.must_differ(texts, golden)
        return True
    if out is None:
        return False  # a fluent tool: compare the bytes
    if returns is None:
        if isinstance(out, ResponseBuilder) and fluent:
            # wrap: the reference's fluent tools serialize an un-built builder's internals.
            route.add("wrap-and-firewall")
            assert texts == out.build().texts
            route.must_differ(texts, golden)
            return True
        return False
    args = decode(case["input"]["args"])
    select = args.get("_select") if tool_spec.get("enableSelect") else None
    return _presenter_path(
        result, out, action, returns, fluent=fluent, golden=golden, route=route,
        ctx=decode(case["input"].get("ctx", {})),
        select=select if isinstance(select, list) else None,
    )  # fmt: skip


def _handler_ui_refused(
    result: ToolResponse, action: dict[str, Any], golden: list[Any], route: Route
) -> bool:
    """ui-meta / language-tags: the handler's builder adds a UI block the project refuses.

    The ``UIError`` is raised inside the handler, so the call answers with the
    ``INTERNAL_ERROR`` envelope naming it (the reference writes the block).
    """
    handler = action.get("handler") or {}
    if handler.get("return") != "builder":
        return False
    for call in handler.get("calls", []):
        blocks = {"uiBlock": [call.get("block")], "uiBlocks": call.get("blocks")}.get(call["op"])
        for block in blocks or []:
            name = ui_error_class(block)
            if name is None:
                continue
            route.add(name)
            with pytest.raises(UIError) as raised:
                mapping.ui_block(block)
            error = view_of(result).error
            assert error is not None
            assert error.code == "INTERNAL_ERROR"
            assert str(raised.value) in error.message
            route.must_differ(result.texts, golden)
            return True
    return False


def _presenter_path(
    result: ToolResponse,
    out: Any,
    action: dict[str, Any],
    returns: dict[str, Any],
    *,
    fluent: bool,
    golden: list[Any],
    route: Route,
    ctx: Any = None,
    select: list[str] | None = None,
) -> bool:
    """A Presenter action: envelope, ui-meta and firewall classes.

    The project's output is modelled by the wrap rule (WIRE.md section 9) on
    what the handler returned: a raw value or a builder is made by the
    Presenter (truncated to its limit first, then validated; ``ctx`` and
    ``_select`` applied); a TOON response is encoded again from its data,
    masked and narrowed, with its options; a structured one is masked; the
    blocks a handler's builder or response added are kept.
    """
    texts = result.texts
    presenter = mapping.presenter(returns)
    if isinstance(out, ToolResponse) and (out.is_error or view_of(out).error is not None):
        return False  # error responses pass through, as in the reference
    raw = not isinstance(out, ToolResponse | ResponseBuilder)
    handler = action.get("handler") or {}
    failure: tuple[str, str] | None = None
    try:
        expected, plain = _wrapped(out, handler, presenter, ctx, select)
    except PresenterValidationError as exc:
        # The reference reports a failing Presenter as a bare error (raw values), or
        # skips the Presenter (builders, helper responses, fluent tools).
        name = "exception-envelope" if raw and not fluent else "wrap-and-firewall"
        failure = (name, str(exc).split("\n")[0])
    except UIError as exc:
        failure = ("ui-meta", str(exc))  # an invalid width or priority, raised in the handler
    if failure is not None:
        route.add(failure[0])
        error = view_of(result).error
        assert error is not None
        assert failure[0] == "ui-meta" or error.code == "INTERNAL_ERROR"
        assert failure[1] in error.message
        route.must_differ(texts, golden)
        return True
    if raw and not fluent:
        return False  # the Presenter applies in the reference too: compare the bytes
    if route.add("wrap-and-firewall", when=expected.texts != plain.texts):
        assert texts == expected.texts
        route.must_differ(texts, golden)
        return True
    return False


def _wrapped(
    out: Any,
    handler: dict[str, Any],
    presenter: Any,
    ctx: Any,
    select: list[str] | None,
) -> tuple[ToolResponse, ToolResponse]:
    """What the project writes for the handler's ``out``, and what the reference writes."""
    if isinstance(out, ToolResponse) and handler.get("fn") == "toonSuccess":
        data, *options = [decode(arg) for arg in handler["args"]]
        keys = {"keyFolding": "key_folding", "flattenDepth": "flatten_depth"}
        encode = {keys.get(k, k): v for k, v in (options[0] if options else {}).items()}
        masked = _pick(presenter.mask(data), select)
        return toon_success(masked, **encode), out
    if isinstance(out, ToolResponse) and "structuredContent" in out:
        return success_structured(presenter.mask(view_of(out).data)), out
    if isinstance(out, ToolResponse | ResponseBuilder):
        # The Presenter re-makes the data and keeps the blocks the handler added
        # (a built builder's as well as an un-built one's).
        data = out.data if isinstance(out, ResponseBuilder) else view_of(out).data
        calls = handler.get("calls", []) if handler.get("return") == "builder" else []
        expected = mapping.apply_calls(presenter.make(data, ctx, select), calls).build()
        return expected, out if isinstance(out, ToolResponse) else out.build()
    expected = presenter.make(out, ctx, select).build()
    return expected, success(out) if out is not None else success("OK")


def _pick(data: Any, keys: list[str] | None) -> Any:
    """``_select``: only ``keys``, in that order, of an object or of each item of a list."""
    if not keys:
        return data
    if isinstance(data, list):
        return [_pick(item, keys) for item in data]
    if isinstance(data, dict):
        return {key: data[key] for key in keys if key in data}
    return data


_RAISED: Any = object()


def _handler_output(case: dict[str, Any], action: dict[str, Any], tool_spec: dict[str, Any]) -> Any:
    """What the called handler returns for this case's arguments (``_RAISED`` if it throws)."""
    spec = case["input"]
    args = decode(spec["args"])
    tools = {t.name: t for t in mapping.tools(spec["tools"], call_args=args)}
    tool = tools[spec.get("name", next(iter(tools)))]
    key = args.get(tool.discriminator)
    declared = tool.actions[key]
    rest = {k: v for k, v in args.items() if k not in {tool.discriminator, "_select"}}
    try:
        params = tool.arguments_model(declared).model_validate(rest)
        return declared.handler(params)
    except Exception:  # noqa: BLE001 - a throwing handler is compared as bytes
        return _RAISED
