"""The conformance harness's reading of the reference: JS's JSON form, the view as sent, routes.

Shared by the response/helper replay (tests/conformance/test_wire_cases.py) and
the Presenter and tool replay (test_presenter_tool_cases.py). Routes decide a
divergence class from a case's *input* text, by the rules of docs/wire-format.md.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from typing import Any

from fusion_core import ResponseView, ToolResponse, to_json, view_of
from fusion_core._errors import WireFormatError
from fusion_core._read._parse import parse
from fusion_core._read._parsed_blocks import EmbedBlock
from tests._support.conformance.corpus import decode, is_array_index
from tests._support.conformance.divergence import Route

LANGUAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#.\-]*")


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


def json_value(value: Any) -> Any:
    """A value as JSON carries it: non-finite numbers are ``null`` (integers stay exact)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: json_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_value(item) for item in value]
    return value


def as_sent(response: ToolResponse) -> ResponseView:
    """The response's view as its bytes carry it, to compare with what ``parse()`` reads.

    JSON data is its JSON text: NaN and infinities are ``null``, and an exact
    integer beyond 2**53 whose digits are also a double's shortest form (JS's
    print of it) reads back as that double, the same text either way.
    """
    view = view_of(response)
    parsed = parse(wire_of(response)).view
    if (
        view.data is not None
        and not isinstance(view.data, str)
        and isinstance(parsed.data, dict | list)
        and to_json(parsed.data) == to_json(view.data)
    ):
        return dataclasses.replace(view, data=parsed.data)
    return dataclasses.replace(view, data=json_value(view.data)) if view.data is not None else view


TEXT_ESCAPED = re.compile(r"[<&]|]]>")


CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\r\ud800-\udfff\ufffe\uffff]")


ATTR_ESCAPED = re.compile("[<>&\"'\t\n\r\x85\u2028\u2029]")


ATTR_BREAKS = re.compile("[\t\n\r\x85\u2028\u2029]")


LINE_BREAK = re.compile("[\n\r]")  # CommonMark line endings; U+2028, NEL are ordinary


THEMATIC_LEAD = re.compile(r"\\*[ \t]*-[ \t]*-[ \t-]*(?:[\r\n]|\Z)")


# A block's first item whose first line is blank (after any backslashes):
# "- " right after the opening tag is a setext underline. A suggestion's tool
# is followed by ": " on its line, so only a line break after it counts.
BLANK_LEAD = re.compile(r"\\*[ \t]*(?:[\r\n]|\Z)")
BLANK_TOOL_LEAD = re.compile(r"\\*[ \t]*[\r\n]")


SURROGATE = re.compile("[\ud800-\udfff]")


FUSION_TAG = re.compile(
    r"<\\*/?(?:ui_passthrough|llm_directives|domain_rules|action_suggestions|tool_error|"
    r"validation_error|message|recovery|available_actions|action|details|detail|"
    r"retry_after|field)(?!\w)",
    re.IGNORECASE,
)


# In envelope text, an LF before a blank line or a line that starts like a
# Markdown block (after spaces and tabs: # > - + * _ = ` ~ | : or digits and
# "." or ")"): it is written &#xA;, since Markdown reads the envelope as a
# paragraph that such a line ends. A raw CR is a reference already, and the
# text's last line runs on into its closing tag.
ENVELOPE_BREAK = re.compile(r"\n(?=[ \t]*(?:[\n#>\-+*_=`~|:]|[0-9]{1,9}[.)]))")


def route_text(route: Route, value: str, *, envelope: bool = False) -> None:
    """Element text: escaping, control characters.

    The reference escapes ``&`` and ``<`` in error envelopes (not elsewhere),
    so there only ``]]>`` differs, and a line break before a line Markdown
    would read as a block of its own (:data:`ENVELOPE_BREAK`).
    """
    escaped = (
        "]]>" in value or bool(ENVELOPE_BREAK.search(value))
        if envelope
        else bool(TEXT_ESCAPED.search(value))
    )
    route.add("escaping", when=escaped)
    route.add("control-characters", when=bool(CONTROL.search(value)))


def route_item(route: Route, value: str, *, leading: bool = True) -> None:
    """A bullet item: element text that must stay one item.

    ``leading`` is text right after the ``- `` (a rule, a directive or a
    suggestion's tool; not a reason, which ``: `` precedes).
    """
    route_text(route, value)
    route.add("multi-line-items", when=bool(LINE_BREAK.search(value)))
    route.add("thematic-items", when=leading and bool(THEMATIC_LEAD.match(value)))


def route_first_item(route: Route, value: object, *, tool: bool = False) -> None:
    r"""A block's first item (or the first suggestion's tool): its line follows the opening tag.

    A blank first line there makes ``- `` a setext underline; the project
    writes a backslash first (``- \``): thematic-items.
    """
    blank = BLANK_TOOL_LEAD if tool else BLANK_LEAD
    route.add("thematic-items", when=isinstance(value, str) and bool(blank.match(value)))


def route_attr(route: Route, value: str, *, envelope: bool = False) -> None:
    """An attribute value (the reference escapes the five XML characters in envelopes)."""
    pattern = ATTR_BREAKS if envelope else ATTR_ESCAPED
    route.add("escaping", when=bool(pattern.search(value)))
    route.add("control-characters", when=bool(CONTROL.search(value)))


def invalid_meta(meta: dict[str, Any]) -> bool:
    """ui-meta: a width outside full/half/third, or a priority that is not a finite number."""
    width, priority = meta.get("width"), meta.get("priority")
    priority = decode(priority) if priority is not None else None
    invalid_width = width not in (None, "", "full", "half", "third")
    invalid_priority = priority is not None and (
        isinstance(priority, bool)
        or not isinstance(priority, int | float)
        or not math.isfinite(priority)
    )
    return invalid_width or invalid_priority


def ui_error_class(ui_case: dict[str, Any]) -> str | None:
    """The class of a UI spec the project refuses with a ``UIError`` (None: accepted)."""
    if "literal" in ui_case:
        meta = ui_case["literal"].get("meta") or {}
    else:
        args = ui_case["args"]
        if ui_case["helper"] == "codeBlock" and args[0] != "" and not LANGUAGE.fullmatch(args[0]):
            return "language-tags"
        meta = ui_case.get("meta") or {}
    return "ui-meta" if isinstance(meta, dict) and invalid_meta(meta) else None


def wire_of(response: ToolResponse) -> dict[str, Any]:
    return dict(response)


BACKSLASHED_RAW = re.compile(
    r"<\\+(?:ui_passthrough|llm_directives|domain_rules|action_suggestions)"
)


def misread_raw_blocks(response: ToolResponse) -> list[int]:
    """Block indexes of raw blocks that, written verbatim, would not read back as raw.

    The rule of the ``raw-blocks`` class, on the raw texts the builder was
    given: one that starts with ``<``, backslashes and a block name; or one
    that, in the response written with every raw block verbatim (the
    reference's bytes), ``parse()`` types as another block while the view it
    reads says something else than the builder's.
    """
    view = view_of(response)
    if not view.embeds:
        return []
    first = 1 + len(view.ui_blocks)
    texts = list(response.texts)
    verbatim = [*texts[:first], *view.embeds, *texts[first + len(view.embeds) :]]
    found = [first + i for i, text in enumerate(view.embeds) if BACKSLASHED_RAW.match(text)]
    wire: dict[str, Any] = {"content": [{"type": "text", "text": text} for text in verbatim]}
    try:
        parsed = parse(wire)
    except WireFormatError as exc:
        return sorted({*found, exc.block}) if exc.block is not None else found
    if parsed.view != parse(wire_of(response)).view:
        found += [
            first + i
            for i in range(len(view.embeds))
            if not isinstance(parsed.blocks[first + i], EmbedBlock) and first + i not in found
        ]
    return sorted(found)
