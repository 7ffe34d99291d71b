r"""Hypothesis strategies for Fusion tools and responses (no pytest needed).

>>> from hypothesis import given
>>> from pytest_mcpfusion.strategies import arguments, responses

* :func:`arguments` — valid arguments for a tool's JSON Schema ``inputSchema``;
  :func:`invalid_arguments` — arguments that schema must reject.
* :func:`tool_calls` — ``(tool name, arguments)`` for one MCP tool definition,
  action first when the tool has a discriminator.
* :func:`responses` — :class:`fusion_core.ToolResponse` objects built through the
  public API from hostile text, error envelopes included; :func:`ui_blocks`,
  :func:`json_values` and :func:`hostile_text` are its building blocks.

The guide (``docs/strategies.md``) has a worked property test of a user's
tool, the hypothesis profiles the plugin registers (``fusion-ci``,
``fusion-dev``, ``fusion-thorough``), and the measurements behind drawing
from JSON Schema here rather than with hypothesis-jsonschema.

**Schema subset** (what pydantic v2 writes, draft 2020-12): ``type`` (one or a
list), ``properties``, ``required``, ``additionalProperties``, ``enum``,
``const``, ``anyOf``/``oneOf`` (any branch; ``oneOf`` branches are assumed
disjoint, as pydantic's are), ``allOf`` (merged), ``$ref`` to ``#/...`` (recursion
included), ``nullable``, ``items``, ``prefixItems``, ``minItems``/``maxItems``,
``uniqueItems``, ``minLength``/``maxLength``, ``pattern`` (Python ``re``
syntax, matched in full), ``format`` (``date``, ``date-time``, ``time``,
``duration``, ``email``, ``uri``, ``uuid``/``uuid1``-``uuid5``, ``ipv4``,
``ipv6``; other formats are annotations), ``minimum``/``maximum``/
``exclusiveMinimum``/``exclusiveMaximum``/``multipleOf``. ``default`` and every
other annotation are ignored. Keywords that constrain values but are not
supported (``not``, ``if``, ``patternProperties``, ...) raise ``ValueError``
naming the keyword and its JSON pointer, as do a schema nested more than 64
levels deep and a ``$ref`` that reaches itself through ``$ref``/``allOf`` alone.
Extra keys are drawn only where
``additionalProperties`` is declared ``true`` or a schema.

**Discriminator rule** (:func:`tool_calls`): the discriminator is the parameter
named in the description's "Select operation via the `X` parameter" (else
``action``) when it is a required string property with an ``enum``. An action
takes the properties whose description ends with ``Required for: ...`` (required)
or ``For: ...`` (optional) naming it, plus every property with no such note
(common ones, ``_select``, where ``null`` means no selection); top-level
``required`` stays required. Such a tool forbids other keys. Without notes,
the description's ``- 'key': ... Requires: a, b`` workflow lines say which
parameters each action requires, and a parameter another action requires is
left out.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

import fusion_core as fc
import pytest_mcpfusion._jsonschema as _js
from fusion_core import ui
from fusion_core._kinds import ENVELOPES, RULES, TOOL_ERROR, UI
from fusion_core._tools._definitions import discriminator_of, requires_of, usage_of

__all__ = [
    "action_arguments",
    "arguments",
    "discriminator_of",
    "hostile_text",
    "invalid_arguments",
    "json_values",
    "responses",
    "tool_calls",
    "ui_blocks",
]


# ------------------------------------------------------------------ arguments


def arguments(schema: Mapping[str, Any]) -> SearchStrategy[dict[str, Any]]:
    """Valid arguments for an object JSON Schema (a tool's ``inputSchema``)."""
    root = _js.Schema(schema)
    return root.objects(root.object_schema(), "#")


def invalid_arguments(schema: Mapping[str, Any]) -> SearchStrategy[dict[str, Any]]:
    """Arguments the schema rejects.

    Each draw breaks one rule: a required property is missing; a property has a
    wrong type, or breaks its enum, bound, length, item count or ``multipleOf``;
    or an unknown key appears where ``additionalProperties`` is ``false``.
    Raises ``ValueError`` when the schema accepts every object.
    """
    root = _js.Schema(schema)
    options = _js.violations(root, root.object_schema())
    if not options:
        raise ValueError("the schema accepts every object: there are no invalid arguments")
    return st.one_of(options)


# ----------------------------------------------------------------- tool calls


def _action_schema(
    definition: Mapping[str, Any], field: str, key: str
) -> tuple[dict[str, Any], bool]:
    """One action's argument schema, without the discriminator; whether it is strict."""
    schema: Mapping[str, Any] = definition.get("inputSchema") or {}
    given: Mapping[str, Any] = schema.get("properties", {})
    notes = {name: usage_of(prop.get("description")) for name, prop in given.items()}
    strict = any(note is not None for note in notes.values())
    # Without notes, the workflow lines say which parameters each action requires;
    # a parameter another action requires is not this one's.
    requires = {} if strict else requires_of(definition)
    claimed = {name for names in requires.values() for name in names}
    properties: dict[str, Any] = {}
    required = list(schema.get("required", ()))
    for name, prop in given.items():
        note = notes[name]
        needed = key in note[0] if note else name in requires.get(key, ())
        if name != field and (needed or (key in note[1] if note else name not in claimed)):
            # One property serves every action that has it: where another action
            # takes it as an optional filter it allows null, which this one refuses.
            properties[name] = _not_null(prop) if needed else prop
            required += [name] if needed else []
    if "_select" in properties:  # Fusion reads ``"_select": null`` as no selection
        properties["_select"] = {"anyOf": [properties["_select"], {"type": "null"}]}
    required = [name for name in dict.fromkeys(required) if name in properties]
    return {**schema, "type": "object", "properties": properties, "required": required}, strict


def _not_null(prop: Mapping[str, Any]) -> dict[str, Any]:
    """``prop`` without its ``null`` alternative (``anyOf: [X, {type: null}]`` → X)."""
    branches = prop.get("anyOf")
    if not isinstance(branches, list):
        return dict(prop)
    kept = [branch for branch in branches if branch != {"type": "null"}]
    if len(kept) != 1:
        return {**prop, "anyOf": kept}
    rest = {key: value for key, value in prop.items() if key not in ("anyOf", "default")}
    return {**kept[0], **rest}


_T = TypeVar("_T")
_BUILT: Final[dict[tuple[str, str | None, bool], SearchStrategy[Any] | ValueError]] = {}
_BUILT_MAX: Final = 512  # strategies kept (one per action and kind of a tools/list)


def _once(key: tuple[str, str | None, bool], build: Callable[[], SearchStrategy[_T]]) -> Any:
    """``build()``, once per key (its ``ValueError`` too).

    Hypothesis works out a strategy's checks and labels on its first draw
    and keeps them on the object, so every test of one schema shares it.
    """
    found = _BUILT.get(key)
    if found is None:
        try:
            found = build()
        except ValueError as exc:  # a schema nothing can be drawn from: the same error again
            found = exc
        if len(_BUILT) >= _BUILT_MAX:
            _BUILT.pop(next(iter(_BUILT)))
        _BUILT[key] = found
    if isinstance(found, ValueError):
        raise ValueError(*found.args)
    return found


def action_arguments(
    definition: Mapping[str, Any], action: str | None, *, valid: bool = True
) -> SearchStrategy[dict[str, Any]]:
    """One action's own arguments (no discriminator, no ``_select``), valid or not.

    ``action=None`` (a tool without actions) draws from the whole input schema.
    Raises ``ValueError`` when ``valid=False`` and nothing can be refused. Built
    once per definition, action and kind (the contract tests ask again for
    every run of the same ``tools/list``).
    """
    try:
        text = json.dumps(definition, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):  # not JSON (or too deep): built each time
        return _action_arguments(definition, action, valid=valid)
    built: SearchStrategy[dict[str, Any]] = _once(
        (text, action, valid), lambda: _action_arguments(definition, action, valid=valid)
    )
    return built


def _action_arguments(
    definition: Mapping[str, Any], action: str | None, *, valid: bool
) -> SearchStrategy[dict[str, Any]]:
    field = discriminator_of(definition)
    if field is None or action is None:
        schema: Mapping[str, Any] = definition.get("inputSchema") or {"type": "object"}
        return arguments(schema) if valid else invalid_arguments(schema)
    own, strict = _action_schema(definition, field, action)
    own["properties"].pop("_select", None)
    own["required"] = [name for name in own["required"] if name != "_select"]
    if valid:
        return arguments(own)
    broken = _js.violations(_js.Schema(own), own, strict=strict, reserved=(field, "_select"))
    if not broken:
        msg = f"the arguments of {action!r} accept every object: there are no invalid ones"
        raise ValueError(msg)
    return st.one_of(broken)


def tool_calls(
    definition: Mapping[str, Any], *, valid: bool = True
) -> SearchStrategy[tuple[str, dict[str, Any]]]:
    """``(tool name, arguments)`` for an MCP tool definition (see the module's rule).

    With a discriminator, the action is drawn first, then that action's
    arguments. ``valid=False`` draws calls the tool must refuse: one action's
    arguments broken as :func:`invalid_arguments` breaks them (a strict tool
    also refuses unknown keys), or a discriminator missing, unknown or not a str.
    """
    name: str = definition["name"]
    schema: Mapping[str, Any] = definition.get("inputSchema") or {"type": "object"}
    field = discriminator_of(definition)
    if field is None:
        plain = arguments(schema) if valid else invalid_arguments(schema)
        return plain.map(lambda a: (name, a))
    keys = [key for key in schema["properties"][field]["enum"] if isinstance(key, str)]
    valid_calls: list[SearchStrategy[dict[str, Any]]] = []
    invalid_calls: list[SearchStrategy[dict[str, Any]]] = []
    for key in keys:
        action, strict = _action_schema(definition, field, key)
        root, tagged = _js.Schema(action), functools.partial(_js.with_key, field, key)
        valid_calls.append(root.objects(action, "#").map(tagged))
        broken = _js.violations(root, action, strict=strict, reserved=(field, "_select"))
        invalid_calls += [b.map(tagged) for b in broken]
    if valid:
        return st.one_of(valid_calls).map(lambda a: (name, a))
    missing = st.one_of(valid_calls).map(lambda a: _js.without_key(field, a))
    unknown: SearchStrategy[Any] = st.sampled_from([1, None, [], True])
    unknown |= st.text(min_size=1).map(_js.Outside(keys))
    retagged = st.tuples(st.just(field), unknown, missing).map(lambda p: _js.with_key(*p))
    return st.one_of([missing, retagged, *invalid_calls]).map(lambda a: (name, a))


# ------------------------------------------------------------------ responses

_HOSTILE: Final = (
    "<", "&", "&amp;", "&lt;", "&#x1;", "\n", "\r", "\r\n", "\n- ", "- ", "  ", "\u2028",
    "\x85", UI.closing, UI.closing.replace("/", "\\/"), RULES.closing, TOOL_ERROR.element,
    "```", "````", '"', "'", ">", "|", ": ", "\x00", "📊",
)  # fmt: skip


def hostile_text(*, surrogates: bool = False) -> SearchStrategy[str]:
    """Text mixing markup, entities, line breaks, ``- `` bullets and backtick runs.

    ``surrogates=True`` adds lone surrogates, which only escaped text (JSON,
    hints, rules, suggestions, attributes) can carry; verbatim text cannot.
    """
    pieces = st.sampled_from(_HOSTILE) | st.text(max_size=8)
    if surrogates:
        # High surrogates only: a low one after a high one reads back as a pair in JSON.
        pieces |= st.sampled_from(["\ud800", "\udbff"])
    return st.lists(pieces, max_size=6).map("".join)


def json_values(*, surrogates: bool = False) -> SearchStrategy[Any]:
    """JSON values: null, booleans, big ints, finite floats, hostile strings, nested."""
    text = hostile_text(surrogates=surrogates)
    numbers = st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    return st.recursive(
        st.none() | st.booleans() | numbers | text,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
        max_leaves=12,
    )


@st.composite
def _ui_block(draw: st.DrawFn) -> fc.UiBlock:
    priority = (
        st.none() | st.integers(-(2**60), 2**60) | st.floats(allow_nan=False, allow_infinity=False)
    )
    meta: dict[str, Any] = {
        "title": draw(st.none() | hostile_text(surrogates=True)),
        "width": draw(st.sampled_from([None, "full", "half", "third"])),
        "priority": draw(priority),
    }
    text, data = hostile_text(), json_values(surrogates=True)
    cells = st.lists(text | st.integers() | st.floats() | st.none() | st.booleans(), max_size=3)
    language = st.just("") | st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_+#.\-]{0,8}", fullmatch=True)
    helper = draw(st.sampled_from(["echarts", "mermaid", "markdown", "code_block", "table",
                                   "list", "json", "summary", "UiBlock"]))  # fmt: skip
    if helper in ("echarts", "json"):
        return getattr(ui, helper)(draw(data), **meta)  # type: ignore[no-any-return]
    if helper in ("mermaid", "markdown", "summary"):
        return getattr(ui, helper)(draw(text), **meta)  # type: ignore[no-any-return]
    if helper == "code_block":
        return ui.code_block(draw(language), draw(text), **meta)
    if helper == "table":
        return ui.table(draw(st.lists(text, min_size=1, max_size=3)), draw(st.lists(cells)), **meta)
    if helper == "list":
        return ui.list(draw(cells), **meta)
    return fc.UiBlock(draw(hostile_text(surrogates=True)), draw(text), fc.UiMeta(**meta))


def ui_blocks() -> SearchStrategy[fc.UiBlock]:
    """UI blocks from every ``fusion_core.ui`` helper and ``UiBlock`` itself, any meta."""
    return _ui_block()


def _data(*, wire_text: bool = True, surrogates: bool = True) -> SearchStrategy[Any]:
    """JSON data, or a str without lone surrogates (str data is verbatim on the wire).

    As wire text, a str must not start like an envelope (bytes cannot tell them
    apart) nor like JSON (``check()`` calls that broken JSON). Structured
    content is data, which has no escape for a lone surrogate
    (``surrogates=False``): the writer refuses it.
    """
    text = hostile_text()
    if wire_text:
        text = text.filter(
            lambda t: not t.startswith((*(kind.opening for kind in ENVELOPES), "{", "["))
        )
    return json_values(surrogates=surrogates).filter(lambda v: not isinstance(v, str)) | text


@st.composite
def _built(draw: st.DrawFn) -> fc.ToolResponse:
    text = hostile_text(surrogates=True)
    builder = fc.response(draw(_data())).ui_blocks(draw(st.lists(ui_blocks(), max_size=3)))
    # A raw block that looks like a Fusion block reads as the parent's own at
    # the edges (documented), so these are plainly foreign text.
    for raw in draw(st.lists(hostile_text().map("raw:".__add__), max_size=2)):
        builder.raw_block(raw)
    for hint in draw(st.lists(text, max_size=3)):
        builder.llm_hint(hint)
    builder.system_rules(draw(st.lists(text, max_size=3)))
    return builder.system_hint(draw(st.lists(st.tuples(text, text), max_size=3))).build()


def responses() -> SearchStrategy[fc.ToolResponse]:
    """Responses from the builder, ``success``/``success_structured`` and error envelopes."""
    text = hostile_text(surrogates=True)
    tool_errors = st.builds(
        fc.tool_error, text, text, suggestion=st.none() | text,
        available_actions=st.lists(text, max_size=3),
        details=st.dictionaries(text, json_values(surrogates=True), max_size=3),
        retry_after=st.none() | st.floats() | st.integers(-5, 10**6),
        severity=st.sampled_from(["error", "warning", "critical"]) | text,
    )  # fmt: skip
    return st.one_of(
        _built(),
        _data().map(fc.success),
        _data(wire_text=False, surrogates=False).map(fc.success_structured),
        st.builds(fc.error, text, st.none() | text) | st.builds(fc.required, text) | tool_errors,
    )
