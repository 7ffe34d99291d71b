"""parse() and check() over the conformance corpus (FUSION_CONFORMANCE_CORPUS).

Well-formedness of a golden is decided by :func:`well_formed`, a predicate on
the golden's text built on lxml (independent of ``check``'s own rules), never
by a list of ids: the same test holds for corpora it has not seen.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from markdown_it import MarkdownIt

from fusion_core._errors import WireFormatError
from fusion_core._read._check import check
from fusion_core._read._parse import parse
from fusion_core._read._safexml import parse_xml
from fusion_core._write._blocks import render_data
from tests._support.conformance.corpus import load_cases

RESPONSE_KINDS = ("response", "helper", "presenter", "tool_call")
CASES = [c for c in load_cases(*RESPONSE_KINDS) if c.get("content") is not None]


def wire_of(case: dict[str, Any]) -> dict[str, Any]:
    """The MCP wire dict of a golden (a non-str content entry has no text)."""
    content = [
        {"type": "text", "text": text} if isinstance(text, str) else {"type": "text"}
        for text in case["content"]
    ]
    wire: dict[str, Any] = {"content": content}
    if case.get("isError") is not None:
        wire["isError"] = case["isError"]
    if "structuredContent" in case:
        wire["structuredContent"] = decode(case["structuredContent"])
    return wire


def decode(value: Any) -> Any:
    """Decode the corpus's ``$num``/``$undefined`` tags into Python values."""
    if isinstance(value, dict):
        if set(value) == {"$num"}:
            number = float(value["$num"])
            return int(number) if math.isfinite(number) and number == int(number) else number
        return {k: decode(v) for k, v in value.items() if v != {"$undefined": True}}
    if isinstance(value, list):
        return [None if v == {"$undefined": True} else decode(v) for v in value]
    return value


_COMMONMARK = MarkdownIt("commonmark")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_FENCE = re.compile(r"(`{3,})[^`\n]*\n([\s\S]*)\n\1\Z")
_UI = re.compile(r'(<ui_passthrough(?:[^>"]|"[^"]*")*>)\n([\s\S]*)\n</ui_passthrough>\Z')
# XML reads a raw tab, LF or CR in an attribute value as a space: the value is lost.
_RAW_ATTR_WHITESPACE = re.compile(r'="[^"]*[\t\n\r]')
# CommonMark's line endings: a raw CR ends an item's line as LF does.
_LINE_ENDING = re.compile(r"\r\n?|\n")
# WIRE.md 12.2: UI content holds no Fusion tag (any element the format writes),
# in any letter case: a reader would take it for structure.
_FUSION_NAMES = (
    "ui_passthrough|llm_directives|domain_rules|action_suggestions|tool_error|"
    "validation_error|message|recovery|available_actions|action|details|detail|"
    "retry_after|field"
)
_FUSION_TAG = re.compile(r"</?(?:" + _FUSION_NAMES + r")(?!\w)", re.IGNORECASE)
_ITEM_TAGS = ("llm_directives", "domain_rules", "action_suggestions")
# WIRE.md 12.2: Markdown reads an envelope as a paragraph (``tool_error`` is no
# CommonMark tag name), which a blank line ends and a line starting a block
# (``# x``, ``- x``, ``> x``, a fence, a setext underline...) interrupts:
# no line of an envelope may be blank or start like one.
_MARKDOWN_START = re.compile(r"[ \t]*(?:\Z|[#>\-+*_=`~|:]|\d{1,9}[.)])")
# The line after an item block's opening tag continues the tag's paragraph
# (``domain_rules`` is no CommonMark tag name either): a first item line that
# is ``- `` and blanks only is a setext underline, and the tag a heading.
_BLANK_FIRST_ITEM = re.compile(r"- [ \t]*")
# Text that can only be meant as JSON: an object, or an array opening with a JSON
# token (not a TOON header such as ``[2]{a,b}:``). Without structuredContent a
# data block is a verbatim str, whatever it starts with.
_JSONISH = re.compile(r"\{|\[(?:[\s{\[\"\]tfn-]|\d(?!\d*[|,\t]?\]))")


def _xml_ok(text: str) -> bool:
    try:
        parse_xml(text)
    except WireFormatError:
        return False
    return True


def _ui_ok(text: str) -> bool:
    match = _UI.match(text)
    if match is None or not _xml_ok(match.group(1) + "</ui_passthrough>"):
        return False
    if _RAW_ATTR_WHITESPACE.search(match.group(1)):
        return False
    root = parse_xml(match.group(1) + "</ui_passthrough>")
    if set(root.attrib) - {"type", "title", "width", "priority"}:
        return False
    if root.get("width") not in (None, "full", "half", "third"):
        return False
    priority = root.get("priority")
    if priority is not None and not re.fullmatch(r"-?\d+(\.\d+)?(e[-+]\d+)?", priority):
        return False
    content = match.group(2)
    if _FUSION_TAG.search(content):
        return False
    if _FENCE.match(content) is None:
        return True
    # A fence holds when a CommonMark reader sees one block, that fence: a body
    # line that closes it early leaves more blocks (markdown-it decides).
    blocks = [t for t in _COMMONMARK.parse(content) if t.level == 0 and t.nesting >= 0]
    return len(blocks) == 1 and blocks[0].type == "fence"


def _block_ok(index: int, text: str, *, structured: bool) -> bool:
    if text.startswith("<ui_passthrough"):
        return _ui_ok(text)
    if text.startswith(("<tool_error", "<validation_error")) or (
        index > 0 and text.startswith(tuple("<" + tag + ">" for tag in _ITEM_TAGS))
    ):
        if not _xml_ok(text):
            return False
        is_items = not text.startswith(("<tool_error", "<validation_error"))
        body = text.split("\n", 1)[1].rsplit("\n", 1)[0]
        if is_items and "<" in body:
            return False  # markup in an item (elements, CDATA, comments): never item text
        lines = _LINE_ENDING.split(text)[1:-1]
        if not is_items:
            return not any(_MARKDOWN_START.match(line) for line in lines)
        if _BLANK_FIRST_ITEM.fullmatch(lines[0]):
            return False
        return all(line.startswith(("- ", "  ")) for line in lines)
    if index == 0 and structured and _JSONISH.match(text):
        try:
            json.loads(text)
        except ValueError:
            return False
    return True


def well_formed(case: dict[str, Any]) -> bool:
    """Whether a golden's text follows the contract (lxml decides the XML parts)."""
    texts = case["content"]
    if not texts or not all(isinstance(text, str) for text in texts):
        return False  # no block, or a block without text (JS undefined)
    first = texts[0]
    if first.startswith("<tool_error"):
        severity = parse_xml(first).get("severity") if _xml_ok(first) else None
        if (severity == "warning") == bool(case.get("isError")):
            return False
    structured = "structuredContent" in case
    return all(_block_ok(index, text, structured=structured) for index, text in enumerate(texts))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_check_agrees_with_well_formedness(case: dict[str, Any]) -> None:
    """check() passes the well-formed goldens and reports the malformed ones."""
    violations = check(wire_of(case))
    if well_formed(case):
        assert violations == [], "\n".join(map(str, violations))
    else:
        assert violations, "a malformed golden passed check()"
        assert all(v.message and v.rule for v in violations)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_parse_reads_every_golden(case: dict[str, Any]) -> None:
    """parse() reads every golden (WireFormatError only for no block, or one without text)."""
    wire = wire_of(case)
    if not case["content"] or not all(isinstance(text, str) for text in case["content"]):
        with pytest.raises(WireFormatError):
            parse(wire)
        return
    parsed = parse(wire)
    assert parsed.texts == case["content"]
    assert parse(json.dumps(wire)).view == parsed.view


def _comparable(case: dict[str, Any]) -> bool:
    """Cases whose bytes say what the reference's view says.

    Not: raw blocks (their text may read as rules, which the reference's view
    leaves out). Item text holding ``&`` is compared as a reader sees it: the
    reference writes items raw, so ``&lt;`` in its bytes (and its view) means
    ``<`` to every XML reader (:func:`as_read`).
    """
    calls = case["input"].get("calls", [])
    return (
        "meta" in case
        and well_formed(case)
        and "embeds" not in json.dumps(case["input"])
        and "$undefined" not in json.dumps(case["meta"])
        and not any(call.get("op") == "rawBlock" for call in calls)
    )


_REFERENCE = re.compile(r"&(#x[0-9A-Fa-f]+|#[0-9]+|amp|lt|gt|quot|apos);")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def as_read(raw: str) -> str:
    """Item text written raw, as an XML reader reads it (its references decoded)."""

    def char(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in _NAMED:
            return _NAMED[name]
        return chr(int(name[2:], 16) if name.startswith("#x") else int(name[1:]))

    return _REFERENCE.sub(char, raw)


META_CASES = [c for c in CASES if _comparable(c)]


@pytest.mark.parametrize("case", META_CASES, ids=[c["id"] for c in META_CASES])
def test_parsed_view_matches_reference_meta(case: dict[str, Any]) -> None:
    """On well-formed goldens, the parsed view says what the reference's view says."""
    view = parse(wire_of(case)).view
    meta = case["meta"]
    if _LONE_SURROGATE.search(json.dumps(view.data, ensure_ascii=False)):
        # A reader keeps a lone surrogate that the writers refuse: compare the
        # values (the view is read, not written back).
        assert view.data == decode(meta["data"])
    else:
        assert render_data(view.data) == case["content"][0]
        reference = render_data(decode(meta["data"]))
        # The reference's view re-reads "-0" text as the number -0; where its view
        # does not render back to its own bytes, the bytes are the truth.
        if reference == case["content"][0]:
            assert render_data(view.data) == reference
    assert list(view.rules) == [as_read(rule) for rule in meta["systemRules"]]
    assert [(b.type, b.content) for b in view.ui_blocks] == [
        (b["type"], b["content"]) for b in meta["uiBlocks"]
    ]
