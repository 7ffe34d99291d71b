"""Map the corpus's language-neutral presenters, templates and tools onto the Python API."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import MISSING, BaseModel, ConfigDict, Field, create_model

from fusion_core._present._presenter import Presenter
from fusion_core._tools._tool import Tool
from fusion_core._write import _one_call as _helpers
from fusion_core._write import _ui
from fusion_core._write._builder import ResponseBuilder
from fusion_core._write._numbers import js_scalar
from tests._support.conformance.corpus import decode

_VAR = re.compile(r"\{\{([^{}]*)\}\}")
_UNDEFINED: Any = object()
_EXTRA = {"strip": "ignore", "passthrough": "allow", "strict": "forbid"}


def js_string(value: Any) -> str:
    """JavaScript ``String(value)``."""
    if value is _UNDEFINED:
        return "undefined"
    scalar = js_scalar(value)
    if scalar is not None:
        return scalar
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


ROOTS = frozenset({"$ctx", "$count", "$items", "$omitted"})


def lookup(scope: dict[str, Any], path: str) -> Any:
    """The value at a dotted path; roots ``$ctx``, ``$count``, ``$items``, ``$omitted``.

    Only those four names are roots: any other first segment, ``$type`` or
    ``$ref`` too, is a key of the item (data may hold such keys). Each step
    is JavaScript's member access (:func:`member`).
    """
    parts = path.split(".") if path else []
    value: Any = scope["item"]
    if parts and parts[0] in ROOTS:
        value = scope.get(parts.pop(0), _UNDEFINED)
    for part in parts:
        value = member(value, part)
        if value is _UNDEFINED:
            return value
    return value


def member(value: Any, key: str) -> Any:
    """JavaScript ``value[key]`` of a JSON value (``undefined`` where there is none)."""
    if isinstance(value, dict):
        return value.get(key, _UNDEFINED)
    if isinstance(value, list):
        if key == "length":
            return len(value)
        if key.isdigit() and str(int(key)) == key and int(key) < len(value):
            return value[int(key)]
    if isinstance(value, str):  # a JS string is UTF-16 code units
        units = value.encode("utf-16-le", "surrogatepass")
        if key == "length":
            return len(units) // 2
        if key.isdigit() and str(int(key)) == key and 2 * int(key) < len(units):
            unit = units[2 * int(key) : 2 * int(key) + 2]
            return unit.decode("utf-16-le", "surrogatepass")
    return _UNDEFINED


def fill(template: Any, scope: dict[str, Any]) -> Any:
    """Replace ``{{path}}`` in strings and ``$get``/``$rows``/``$pluck`` objects."""
    if isinstance(template, str):
        return _VAR.sub(lambda m: js_string(lookup(scope, m.group(1).strip())), template)
    if isinstance(template, list):
        return [fill(item, scope) for item in template]
    if isinstance(template, dict):
        if set(template) == {"$get"}:  # a missing path is JS undefined
            return lookup(scope, template["$get"])
        if set(template) == {"$rows"}:
            return [[js_string(member(i, k)) for k in template["$rows"]] for i in scope["$items"]]
        if set(template) == {"$pluck"}:
            return [js_string(member(i, template["$pluck"])) for i in scope["$items"]]
        if set(template) in ({"$num"}, {"$undefined"}):
            return decode(template)
        return {key: fill(value, scope) for key, value in template.items()}
    return template


def js_undefined(value: Any) -> Any:
    """JS ``undefined`` as Python has it: a missing key in objects, ``None`` elsewhere."""
    if value is _UNDEFINED:
        return None
    if isinstance(value, dict):
        return {k: js_undefined(v) for k, v in value.items() if v is not _UNDEFINED}
    if isinstance(value, list):
        return [js_undefined(v) for v in value]
    return value


def holds(cond: dict[str, Any], scope: dict[str, Any]) -> bool:
    """A ``when`` condition."""
    value = lookup(scope, cond["path"])
    if "equals" in cond:
        return bool(value == decode(cond["equals"]))
    if "notEquals" in cond:
        return bool(value != decode(cond["notEquals"]))
    if "gt" in cond:
        return isinstance(value, int | float) and value > cond["gt"]
    truthy = value not in (None, _UNDEFINED, False, 0, "")
    return truthy == bool(cond["truthy"])


def entries(spec: list[Any], scope: dict[str, Any], make: Callable[[Any], Any]) -> list[Any]:
    """Templates and conditional entries; a false condition gives ``None``."""
    out = []
    for entry in spec:
        if isinstance(entry, dict) and "when" in entry and "then" in entry:
            out.append(make(entry["then"]) if holds(entry["when"], scope) else None)
        else:
            out.append(make(entry))
    return out


_HELPERS: dict[str, Callable[..., _ui.UiBlock]] = {
    "echarts": _ui.echarts, "mermaid": _ui.mermaid, "markdown": _ui.markdown,
    "codeBlock": _ui.code_block, "table": _ui.table, "list": _ui.list_block,
    "json": _ui.json_block, "summary": _ui.summary,
}  # fmt: skip


def ui_block(spec: dict[str, Any], scope: dict[str, Any] | None = None) -> _ui.UiBlock:
    """A UI block from a ``Ui`` (or templated ``UiT``) spec."""
    scope = scope or {"item": None}
    if "literal" in spec:
        literal = fill(decode(spec["literal"]), scope)
        return _ui.UiBlock(literal["type"], literal["content"], _ui.UiMeta.of(literal.get("meta")))
    args = [js_undefined(decode(fill(arg, scope))) for arg in spec["args"]]
    meta = js_undefined(fill(decode(spec.get("meta")) or {}, scope))
    return _HELPERS[spec["helper"]](*args, **meta)


def model(schema: dict[str, Any], name: str, *, extra: str | None = None) -> type[BaseModel]:
    """A pydantic model for an object ``Schema``."""
    required = set(schema.get("required", ()))
    fields: dict[str, Any] = {}
    aliased = False
    for index, (key, prop) in enumerate(schema.get("properties", {}).items()):
        annotation = annotation_of(prop, f"{name}_{key}")
        info: dict[str, Any] = {"description": prop.get("description")}
        is_required = key in required  # by its wire name, before any renaming
        if key.startswith("_"):
            # pydantic refuses field names with a leading underscore: declare the
            # field under another name and its wire name as the alias (docs/presenters.md).
            info["alias"] = key
            key = f"alias{index}{key}"  # noqa: PLW2901 - the Python-side name
            aliased = True
        if "default" in prop:
            default: Any = decode(prop["default"])
            if is_required:  # zod's .default() on a required key: listed as required
                info["json_schema_extra"] = {"x-required": True}
        elif is_required:
            default = ...
        else:
            default, annotation = MISSING, annotation | MISSING
        fields[key] = (annotation, Field(default, **info))
    # zod's number is finite: NaN and Infinity are refused (pydantic accepts them by default)
    config = ConfigDict(
        strict=True,
        extra=extra or _EXTRA[schema.get("additional", "strip")],  # type: ignore[typeddict-item]
        allow_inf_nan=False,
    )
    if aliased:
        config["serialize_by_alias"] = True
        config["validate_by_alias"] = True
        config["validate_by_name"] = False
    return create_model(name, __config__=config, **fields)


@dataclass(frozen=True)
class DeclaredOrder:
    """An enum's values in their declared order, as part of its annotation's identity.

    ``Literal["a", "b"] == Literal["b", "a"]``, so typing's cache hands out the
    union made first for either order (``Literal["b", "a"] | None`` may come back
    holding ``Literal["a", "b"]``), and the schema's ``enum`` order would depend
    on which case ran before. Ordered metadata keeps the two annotations apart.
    """

    values: tuple[Any, ...]


def annotation_of(prop: dict[str, Any], name: str) -> Any:
    """The Python type of a property ``Schema``."""
    kind = prop.get("type", "string" if "enum" in prop else "any")
    constraints: dict[str, Any] = {}
    if "enum" in prop:
        values = tuple(prop["enum"])
        base: Any = Annotated[Literal[values], DeclaredOrder(values)]
    elif kind == "object":
        base = model(prop, name)
    elif kind == "array":
        base = list[annotation_of(prop.get("items", {}), name)]  # type: ignore[misc]
        constraints["min_length"] = prop.get("minItems")
    else:
        base = {"string": str, "number": float, "integer": int, "boolean": bool, "any": Any}[kind]
        constraints = {
            "min_length": prop.get("minLength"), "max_length": prop.get("maxLength"),
            "ge": prop.get("minimum"), "le": prop.get("maximum"),
        }  # fmt: skip
    constraints = {k: v for k, v in constraints.items() if v is not None}
    annotated = Annotated[base, Field(**constraints)] if constraints else base
    return annotated | None if prop.get("nullable") else annotated


_PRES_KEYS = {
    "name", "style", "schema", "rules", "collectionRules", "ui", "collectionUi", "agentLimit",
    "limit", "suggestActions", "collectionSuggestActions", "embeds", "autoRules",
}  # fmt: skip


def presenter(spec: dict[str, Any]) -> Presenter[Any]:
    """A Presenter from a ``Pres`` spec (a key it does not read is a failure)."""
    known(spec, "Presenter", _PRES_KEYS)
    name = spec["name"]
    schema = model(spec["schema"], name) if "schema" in spec else None

    def item_scope(item: Any, ctx: Any) -> dict[str, Any]:
        return {"item": item, "$ctx": ctx}

    def list_scope(items: Any, ctx: Any) -> dict[str, Any]:
        return {"item": items, "$ctx": ctx, "$count": len(items), "$items": items}

    def rules_of(value: Any, scope_of: Callable[[Any, Any], dict[str, Any]]) -> Any:
        if value is None:
            return ()
        if isinstance(value, list):
            return value
        return lambda data, ctx: entries(
            value["fn"], s := scope_of(data, ctx), lambda t: fill(t, s)
        )

    def ui_of(value: Any, scope_of: Callable[[Any, Any], dict[str, Any]]) -> Any:
        if value is None:
            return None
        return lambda data, ctx: entries(value, s := scope_of(data, ctx), lambda t: ui_block(t, s))

    def suggest_of(value: Any, scope_of: Callable[[Any, Any], dict[str, Any]]) -> Any:
        if value is None:
            return None

        def suggest(data: Any, ctx: Any) -> list[Any]:
            scope = scope_of(data, ctx)
            return [
                (fill(s["tool"], scope), fill(s["reason"], scope))
                if "when" not in s or holds(s["when"], scope)
                else None
                for s in value
            ]

        return suggest

    limit, on_truncate = spec.get("limit"), None
    if "agentLimit" in spec:
        limit = spec["agentLimit"]["max"]
        template = spec["agentLimit"]["onTruncate"]
        on_truncate = lambda omitted: ui_block(template, {"item": None, "$omitted": omitted})  # noqa: E731
    auto = spec.get("style") == "define" and spec.get("autoRules", True)
    result = Presenter(
        name,
        schema,
        rules=rules_of(spec.get("rules"), item_scope),
        collection_rules=rules_of(spec.get("collectionRules"), list_scope),
        ui=ui_of(spec.get("ui"), item_scope),
        collection_ui=ui_of(spec.get("collectionUi"), list_scope),
        suggest=suggest_of(spec.get("suggestActions"), item_scope),
        collection_suggest=suggest_of(spec.get("collectionSuggestActions"), list_scope),
        agent_limit=limit,
        on_truncate=on_truncate,
        auto_rules=bool(auto),
    )
    for embed in spec.get("embeds", ()):
        result.embed(embed["key"], presenter(embed["presenter"]))
    return result


def apply_calls(
    builder: ResponseBuilder,
    calls: list[dict[str, Any]],
    *,
    make_ui: Callable[[dict[str, Any]], _ui.UiBlock] = ui_block,
) -> ResponseBuilder:
    """Builder calls of a case (the one reading of the corpus's call language).

    ``make_ui`` builds a ``Ui`` spec's block: :func:`ui_block` (templates,
    JS ``undefined``) by default; the response replay passes its own.
    """
    for call in calls:
        op = call["op"]
        if op == "uiBlock":
            builder.ui_block(make_ui(call["block"]))
        elif op == "uiBlockRaw":
            builder.ui_block(call["type"], call["content"])
        elif op == "uiBlocks":
            builder.ui_blocks([make_ui(b) for b in call["blocks"]])
        elif op == "llmHint":
            builder.llm_hint(call["text"])
        elif op == "systemRules":
            builder.system_rules(call["rules"])
        elif op == "systemHint":
            builder.system_hint(call["suggestions"])
        elif op == "rawBlock":
            builder.raw_block(call["text"])
        else:
            msg = f"no mapping for builder op {op!r}"
            raise MissingMappingError(msg)
    return builder


_TOON_OPTIONS = {"keyFolding": "key_folding", "flattenDepth": "flatten_depth"}
_HELPER_FNS: dict[str, Callable[..., Any]] = {
    "success": _helpers.success,
    "successStructured": _helpers.success_structured,
    "error": _helpers.error,
    "required": _helpers.required,
    "toonSuccess": lambda data, options=None: _helpers.toon_success(
        data, **{_TOON_OPTIONS.get(k, k): v for k, v in (options or {}).items()}
    ),
    "toolError": lambda code, options=None: _helpers.tool_error(
        code,
        (options or {}).get("message", ""),
        suggestion=(options or {}).get("suggestion"),
        available_actions=(options or {}).get("availableActions", ()),
        details=(options or {}).get("details"),
        retry_after=(options or {}).get("retryAfter"),
        severity=(options or {}).get("severity", "error"),
    ),
}


def handler(
    spec: dict[str, Any] | None,
    discriminator: str,
    key: str,
    call_args: dict[str, Any] | None = None,
) -> Callable[..., Any]:
    """A handler from a ``Handler`` spec; it receives the validated params model."""
    spec = spec or {"return": "echo"}

    def run(args: BaseModel | None = None) -> Any:
        if "throw" in spec:
            raise RuntimeError(spec["throw"])
        if "throwValue" in spec:
            raise RuntimeError(js_string(decode(spec["throwValue"])))
        kind = spec["return"]
        if kind == "value":
            return decode(spec["value"])
        if kind == "echo":
            dump = args.model_dump() if args is not None else {}
            if call_args is not None and set(dump) | {discriminator} >= set(call_args) - {
                "_select"
            }:  # no schema: the arguments as sent, the discriminator where it was
                return {
                    k: key if k == discriminator else dump[k]
                    for k in call_args
                    if k != "_select" and (k == discriminator or k in dump)
                }
            return {**dump, discriminator: key}
        if kind == "helper":
            return _HELPER_FNS[spec["fn"]](*[decode(a) for a in spec["args"]])
        builder = apply_calls(ResponseBuilder(decode(spec["data"])), spec.get("calls", []))
        return builder.build() if spec.get("build") else builder

    return run


_FLUENT_TYPES = {"String": str, "Number": float, "Boolean": bool}
_KEYS = {
    "createTool": {
        "style", "name", "description", "discriminator", "toonDescription", "enableSelect",
        "annotations", "commonSchema", "actions", "groups",
    },
    "defineTool": {
        "style", "name", "description", "discriminator", "toonDescription", "shared",
        "actions", "groups",
    },
    "fluent": {"style", "verb", "name", "calls", "returns", "handler"},
    "action": {
        "name", "description", "schema", "params", "destructive", "readOnly", "idempotent",
        "returns", "handler",
    },
    "group": {"name", "description", "actions"},
}  # fmt: skip


class MissingMappingError(AssertionError):
    """A corpus input this mapping cannot express: a failure, never a skip."""


def known(spec: dict[str, Any], what: str, keys: set[str]) -> None:
    """Fail on a key the mapping does not read (it would be silently ignored)."""
    unknown = sorted(set(spec) - keys)
    if unknown:
        msg = f"no mapping for {what} key(s) {unknown}: add them to tests/conformance"
        raise MissingMappingError(msg)


def tools(
    specs: list[dict[str, Any]],
    *,
    any_required: bool = True,
    call_args: dict[str, Any] | None = None,
) -> list[Tool]:
    """Tools from ``Tool`` specs; fluent builders of one namespace merge into one tool.

    ``any_required=False`` declares required ``any`` properties optional, as
    zod's ``any`` is (the required-any class). ``call_args`` are the call's
    arguments: an echo handler of an action without a schema returns them as
    the reference's handler receives them (in their order, but ``_select``).
    """
    out: dict[str, Tool] = {}
    for spec in specs if any_required else [_relax_any(s) for s in specs]:
        style = spec["style"]
        if style not in _KEYS:
            msg = f"no mapping for tool style {style!r}"
            raise MissingMappingError(msg)
        known(spec, f"{style} tool", _KEYS[style])
        tool = fluent(spec, call_args) if style == "fluent" else classic(spec, call_args)
        if tool.name in out:
            out[tool.name].merge(tool)
        else:
            out[tool.name] = tool
    return list(out.values())


def _relax_any(spec: dict[str, Any]) -> dict[str, Any]:
    def relax(schema: dict[str, Any]) -> dict[str, Any]:
        """Required ``any`` properties made optional, at every depth (objects, array items)."""
        out = dict(schema)
        if isinstance(schema.get("items"), dict):
            out["items"] = relax(schema["items"])
        if "properties" not in schema:
            return out
        props = {k: relax(v) if isinstance(v, dict) else v for k, v in schema["properties"].items()}
        kept = [
            k
            for k in schema.get("required", ())
            if props.get(k, {}).get("type", "string" if "enum" in props.get(k, {}) else "any")
            != "any"
        ]
        return {**out, "properties": props, "required": kept}

    def action(a: dict[str, Any]) -> dict[str, Any]:
        return {k: relax(v) if k in ("schema", "params") and v else v for k, v in a.items()}

    out = dict(spec)
    for common in ("commonSchema", "shared"):
        if spec.get(common):
            out[common] = relax(spec[common])
    if "actions" in spec:
        out["actions"] = [action(a) for a in spec["actions"]]
    if "groups" in spec:
        out["groups"] = [
            {**g, "actions": [action(a) for a in g["actions"]]} for g in spec["groups"]
        ]
    return out


def classic(spec: dict[str, Any], call_args: dict[str, Any] | None = None) -> Tool:
    """``createTool`` / ``defineTool``: ``commonSchema`` and ``shared`` are one concept."""
    common = spec.get("commonSchema") or spec.get("shared")
    tool = Tool(
        spec["name"],
        spec.get("description"),
        discriminator=spec.get("discriminator", "action"),
        common=model(common, f"{spec['name']}_common") if common else None,
        annotations=decode(spec.get("annotations")),
    )
    if spec.get("enableSelect"):
        tool.enable_select()
    if spec.get("toonDescription"):
        tool.toon_description()
    groups = spec.get("groups") or [{"name": None, "actions": spec.get("actions", [])}]
    for group in groups:
        known(group, "group", _KEYS["group"])
        target: Any = (
            tool if group["name"] is None else tool.group(group["name"], group.get("description"))
        )
        for action in group["actions"]:
            known(action, "action", _KEYS["action"])
            key = action["name"] if group["name"] is None else f"{group['name']}.{action['name']}"
            schema = action.get("schema") or action.get("params")
            target.action(
                action["name"],
                handler(
                    # validated by a schema (its own or the common one): the
                    # validated keys, then the discriminator (the reference's order)
                    action.get("handler"),
                    tool.discriminator,
                    key,
                    None if schema or common else call_args,
                ),
                description=action.get("description"),
                params=model(schema, f"{spec['name']}_{key}") if schema else _Passthrough,
                returns=presenter(action["returns"]) if "returns" in action else None,
                read_only=action.get("readOnly", False),
                destructive=action.get("destructive", False),
                idempotent=action.get("idempotent", False),
            )
    return tool


class _Passthrough(BaseModel):
    """Parameters of an action that declares none: every argument reaches the handler."""

    model_config = ConfigDict(extra="allow")


def fluent_name(name: str) -> tuple[str, str]:
    """``ns.action`` -> (``ns``, ``action``); a name without a dot is the ``default`` action."""
    namespace, dot, action = name.partition(".")
    return (namespace, action) if dot and namespace else (name, "default")


def fluent(spec: dict[str, Any], call_args: dict[str, Any] | None = None) -> Tool:
    """``initFusion()[verb](name).calls...``: one tool with one action.

    Without ``with*`` params an echo handler returns ``call_args`` as sent
    (their order, the discriminator where it was), as in the reference.
    """
    namespace, name = fluent_name(spec["name"])
    description: str | None = None
    instructions: str | None = None
    toon = False
    fields: dict[str, Any] = {}
    for method, *args in spec.get("calls", []):
        if method == "describe":
            description = args[0]
        elif method == "instructions":
            instructions = args[0]
        elif method == "toonDescription":
            toon = True
        elif method.removeprefix("withOptional").removeprefix("with") in _FLUENT_TYPES:
            optional = method.startswith("withOptional")
            kind = _FLUENT_TYPES[method.removeprefix("withOptional").removeprefix("with")]
            info = {"description": args[1]} if len(args) > 1 else {}
            fields[args[0]] = (
                (kind | MISSING, Field(MISSING, **info)) if optional else (kind, Field(..., **info))
            )
        else:
            msg = f"no mapping for fluent builder method {method!r}"
            raise MissingMappingError(msg)
    tool = Tool(namespace, description, instructions=instructions)
    if toon:
        tool.toon_description()
    tool.action(
        name,
        handler(spec.get("handler"), tool.discriminator, name, None if fields else call_args),
        # Without with* params the reference validates nothing: arguments pass through.
        params=create_model(f"{namespace}_{name}", **fields) if fields else _Passthrough,
        returns=presenter(spec["returns"]) if "returns" in spec else None,
        read_only=spec["verb"] == "query",
        destructive=spec["verb"] == "mutation",
    )
    return tool
