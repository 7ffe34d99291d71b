"""The contract validator: every way a response breaks the Fusion wire format.

:func:`check` reads a response with :func:`~fusion_core._read._parse.parse` (same
inputs) and returns one :class:`Violation` per problem — block index, rule id,
and a message saying what is wrong and what to change. :func:`check_strict`
raises one :class:`ContractError` carrying them all.

Rule ids:

=====================  ======================================================
``wire-format``        the input is not a response of text blocks at all
``data-not-json``      a response with ``structuredContent`` whose data block
                       is not JSON (without it, data text is a verbatim str)
``envelope-malformed`` a ``<tool_error>``/``<validation_error>`` that does not
                       follow the envelope layout (or is not well-formed XML)
``envelope-position``  an envelope anywhere but block 0
``envelope-attribute`` an attribute the envelope does not define
``is-error``           ``isError`` disagrees with the envelope (``severity``)
``block-order``        a block after ``<llm_directives>`` out of the order
                       directives, rules, suggestions, or a UI/raw block there
``duplicate-block``    a second top-level directives/rules/suggestions block
``unknown-block``      an element block of an unknown kind in the tail
``malformed-block``    a block that opens a Fusion element but cannot be read
``unescaped-text``     ``<`` or a bare ``&`` in item or envelope text
``unescaped-attribute`` ``"``, ``<``, a bare ``&``, or a raw tab, LF or CR (read
                       as a space) in an attribute value
``envelope-line``      a line break in envelope text before a blank line or a
                       line that starts a Markdown block (``# x``, ``- x``,
                       ``> x``, a fence): Markdown ends the envelope there
``multi-line-item``    an item line break (LF, CR, CRLF) not followed by the
                       two-space continuation, or a continuation line that
                       starts a Markdown block (``- x``, ``# x``, ``1. x``...)
``blank-first-item``   a block's first item line is ``- `` and spaces only: a
                       setext underline, so the opening tag reads as a heading
``thematic-item``      a rule or directive item line that reads as a thematic
                       break (``- --``, ``- - -``): a rule line, not an item
``suggestion-format``  a suggestion item without ``tool: reason``
``ui-width``           a width other than ``full``, ``half``, ``third``
``ui-priority``        a priority that is not a finite number
``ui-attribute``       an unknown or repeated UI attribute
``ui-closing-tag``     UI content containing its own closing tag (any case)
``ui-fusion-tag``      UI content opening or closing another Fusion element
                       (``<domain_rules>``, ``</TOOL_ERROR>``..., any case)
``cdata-end``          ``]]>`` in item or envelope text
``fence-broken``       a fence whose body holds a line that closes it (a
                       backtick run as long as the fence, alone on its line)
``xml-dtd``            a DTD or entity declaration in an item block or an
                       envelope (str data, UI content and raw blocks are
                       verbatim text, where it is only a string)
``character-reference`` a numeric reference that names no character
                       (``&#x110000;``) in text a reader decodes
``duplicate-detail``   a ``<details>`` key written twice (the mapping keeps one)
``refused-without-envelope`` ``isError`` with a framework's plain-text
                       refusal of the arguments (pydantic's ``1 validation
                       error for ...``) instead of a ``<validation_error>``
=====================  ======================================================

``check(source, strict=True)`` adds the rules of the strict reading
(``ambiguous-layout``, ``unknown-element``, ``bare-error``; see
``fusion_core._read._strict``), which :func:`ambiguities` returns on their own.

Child Presenter blocks are legitimate repeats (WIRE.md section 5): between
the UI blocks and the tail anything may appear, and since a child's blocks
read exactly like the parent's there, the validator accepts every sequence a
parent with embedded children could produce. A top-level ``<llm_directives>``
(children never emit one) anchors the tail, after which order is strict.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Final, final

from fusion_core._errors import CharacterReferenceError, FusionError, WireFormatError
from fusion_core._kinds import (
    DIRECTIVES,
    ENVELOPES,
    KINDS,
    TAIL,
    TAIL_ORDER,
    TOOL_ERROR,
    UI,
    VALIDATION_ERROR,
    kind_of,
)
from fusion_core._read._parse import (
    parse,
    read_items,
    read_ui,
    split_items,
)
from fusion_core._read._parsed_blocks import (
    DataBlock,
    DirectivesBlock,
    EmbedBlock,
    ParsedResponse,
    RulesBlock,
    SuggestionsBlock,
    ToolErrorBlock,
    UiBlockText,
    ValidationErrorBlock,
    read_priority,
)
from fusion_core._read._safexml import parse_xml
from fusion_core._read._strict import findings, plain_refusal
from fusion_core._write._numbers import read_json
from fusion_core._write._text import (
    bad_continuation,
    bad_envelope_line,
    blank_lead,
    find_fusion_tag,
    thematic_item,
)

__all__ = ["ContractError", "Violation", "ambiguities", "check", "check_strict"]

_NOT_XML: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_BARE_AMP: Final = re.compile(r"&(?!(?:amp|lt|gt|quot|apos|#x[0-9A-Fa-f]+|#[0-9]+);)")
_UI_HEADER: Final = re.compile(UI.opening + r'((?:[ \t\n]+[A-Za-z_][\w.:-]*="[^"<]*")*)[ \t]*>\n')
_RAW_ATTR: Final = re.compile(r'([A-Za-z_][\w.:-]*)="([^"<]*)"')
_ATTR_WHITESPACE: Final = re.compile("[\t\n\r]")  # attribute value normalization (XML 3.3.3)
_FENCE_OPEN: Final = re.compile(r"(`{3,})[^`\n]*\n")
# A line that closes a backtick fence (CommonMark 4.5): up to three spaces of
# indentation, a run of backticks, then only spaces or tabs. A run anywhere
# else in a line (inside a JSON string, after text) is content.
_CLOSING_FENCE: Final = re.compile(r"^ {0,3}(`{3,})[ \t]*$", re.M)
_LINE_ENDINGS: Final = re.compile(r"\r\n?")
# Possessive: a backtracking "<name[^>]*>" tried every split of a long name
# against the attributes, quadratic in the name's length (issue 8.11). The
# closing tag is then one endswith() test, not a scan back from the end.
_ELEMENT_OPEN: Final = re.compile(r"<([A-Za-z_][\w.-]*+)[^>]*+>")
_DTD: Final = re.compile(r"<!(?:DOCTYPE|ENTITY)", re.IGNORECASE)
# Text that claims to be JSON: an object, or an array that is not a TOON
# header ("[2|]{id|name}:") or a bracketed word ("[INFO] ...").
_JSON_LIKE: Final = re.compile(r"\{|\[(?:[\s{\[\"\]tfn-]|[0-9](?![0-9]*[|,\t]?\]))")
_ELEMENT_KINDS: Final = tuple(kind for kind in KINDS if kind.tag)
_ENVELOPE_OPENINGS: Final = tuple(kind.opening for kind in ENVELOPES)
_AFTER_DIRECTIVES: Final = " and ".join(kind.element for kind in TAIL[1:])


@final
@dataclass(frozen=True, slots=True)
class Violation:
    """One contract violation: where (block index), which rule, what to change."""

    block: int | None
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"block {self.block}" if self.block is not None else "response"
        return f"{where}: [{self.rule}] {self.message}"


class ContractError(FusionError, ValueError):
    """A response breaks the Fusion contract; ``violations`` lists every problem."""

    def __init__(self, violations: list[Violation], *, value: object = None) -> None:
        lines = "\n".join(f"  - {violation}" for violation in violations)
        super().__init__(f"{len(violations)} Fusion contract violation(s):\n{lines}")
        self.violations = violations
        self.value = value


def check(source: object, *, strict: bool = False) -> list[Violation]:
    """Every contract violation of a response (empty when it is well-formed).

    Accepts what :func:`~fusion_core.parse` accepts. ``strict=True``
    also reports what the layout rule can only guess at (:func:`ambiguities`):
    use it for servers that embed no child Presenters.
    """
    try:
        parsed = parse(source)
    except CharacterReferenceError as exc:
        return [Violation(exc.block, "character-reference", str(exc))]
    except WireFormatError as exc:
        return [Violation(exc.block, "wire-format", str(exc))]
    found = _Checker(parsed).run()
    found.extend(Violation(block, rule, message) for block, rule, message in plain_refusal(parsed))
    if strict:
        found.extend(_ambiguities(parsed))
    return found


def ambiguities(source: object) -> list[Violation]:
    """What the strict reading adds to :func:`check`.

    Fusion blocks read as embeds, unknown elements among the embeds, a bare
    error text with ``isError: true`` (the docs' *strict reading*).
    Empty for input :func:`~fusion_core.parse` refuses (``check``
    reports it).
    """
    try:
        parsed = parse(source)
    except WireFormatError:
        return []
    return _ambiguities(parsed)


def _ambiguities(parsed: ParsedResponse) -> list[Violation]:
    return [Violation(block, rule, message) for block, rule, message in findings(parsed)]


def check_strict(source: object) -> ParsedResponse:
    """Parse ``source``; raise one :class:`ContractError` if it breaks the contract."""
    violations = check(source)
    if violations:
        raise ContractError(violations, value=source)
    return parse(source)


class _Checker:
    """Collects the violations of one parsed response."""

    __slots__ = ("found", "parsed")

    def __init__(self, parsed: ParsedResponse) -> None:
        self.parsed = parsed
        self.found: list[Violation] = []

    def add(self, block: int | None, rule: str, message: str) -> None:
        self.found.append(Violation(block, rule, message))

    def run(self) -> list[Violation]:
        parsed = self.parsed
        for index, block in enumerate(parsed.blocks):
            if index == 0:
                self.first(block)
            elif isinstance(block, ToolErrorBlock | ValidationErrorBlock):  # pragma: no cover
                self.add(index, "envelope-position", "an error envelope must be block 0")
            elif isinstance(block, UiBlockText):
                self.ui(index, block)
            elif isinstance(block, DirectivesBlock | RulesBlock | SuggestionsBlock):
                self.items(index, block)
            elif isinstance(block, EmbedBlock):
                self.embed(index, block, in_tail=index >= parsed.tail_start)
        self.tail_order()
        self.is_error()
        return self.found

    # ----------------------------------------------------------- block 0

    def first(self, block: object) -> None:
        if isinstance(block, ToolErrorBlock):
            self.envelope_text(0, block.text)
            self.attributes(0, block.attributes, TOOL_ERROR.attributes, TOOL_ERROR.element)
            self.details(block)
        elif isinstance(block, ValidationErrorBlock):
            self.envelope_text(0, block.text)
            self.attributes(
                0, block.attributes, VALIDATION_ERROR.attributes, VALIDATION_ERROR.element
            )
        elif isinstance(block, DataBlock):
            self.data(block)

    def data(self, block: DataBlock) -> None:
        """Block 0 read as data: a str goes out verbatim, so only what bytes decide.

        Without ``isError`` a text that looks like an envelope is str data;
        without ``structuredContent`` any text is (the library writes
        ``success("{oops")`` and an HTML page verbatim).
        """
        parsed = self.parsed
        text = block.text
        if parsed.is_error is not None and text.startswith(_ENVELOPE_OPENINGS):
            self.malformed_envelope(0, text)
        elif (
            parsed.has_structured_content
            and not block.is_json
            and _JSON_LIKE.match(text)
            and not _is_json(text)
        ):
            self.add(
                0,
                "data-not-json",
                "the data block of a response with structuredContent starts like JSON "
                "but is not valid JSON; send JSON.stringify(value, null, 2) of the data",
            )

    def details(self, block: ToolErrorBlock) -> None:
        details = block.envelope.details
        if len(details.pairs) != len(details):
            counts = Counter(key for key, _ in details.pairs)
            repeated = sorted(key for key, count in counts.items() if count > 1)
            self.add(
                0,
                "duplicate-detail",
                f"<details> repeats the key(s) {repeated!r:.120}; readers keep one value per "
                "key, so write each key once",
            )

    def malformed_envelope(self, index: int, text: str) -> None:
        detail = ""
        try:
            parse_xml(text, block=index)
        except WireFormatError as exc:
            detail = f" ({exc})"
        tag = TOOL_ERROR.tag if text.startswith(TOOL_ERROR.opening) else VALIDATION_ERROR.tag
        self.add(
            index,
            "envelope-malformed",
            f"the <{tag}> envelope does not follow the layout{detail}: write the opening tag, "
            "then one element per line (escaped text: &amp; and &lt;; message required), "
            f"then </{tag}>",
        )

    def envelope_text(self, index: int, text: str) -> None:
        if _BARE_AMP.search(text):
            self.add(
                index,
                "unescaped-text",
                "the envelope has a bare '&'; escape it as &amp; in text and attributes",
            )
        self.cdata_end(index, text)
        self.control(index, text)
        if bad_envelope_line(text) is not None:
            self.add(
                index,
                "envelope-line",
                "a line of the envelope's text is blank or starts a Markdown block ('# x', "
                "'- x', '> x', a fence...): a Markdown reader ends the envelope there and reads "
                "the text as structure of its own; write the line break before it as &#xA;",
            )

    def cdata_end(self, index: int, text: str) -> None:
        """``]]>`` is not allowed in XML text (and attributes escape ``>``)."""
        if "]]>" in text:
            self.add(
                index,
                "cdata-end",
                "the block holds ']]>', which XML text cannot contain; write it as ']]&gt;'",
            )

    def control(self, index: int, text: str) -> None:
        found = _NOT_XML.search(text)
        if found is not None:
            self.add(
                index,
                "unescaped-text",
                f"the block holds the raw character U+{ord(found.group()):04X}, which XML "
                f"cannot carry; write it as the reference &#x{ord(found.group()):X};",
            )
        self.dtd(index, text)

    def attributes(
        self,
        index: int,
        attributes: tuple[tuple[str, str], ...],
        known: tuple[str, ...],
        tag: str,
    ) -> None:
        names = [name for name, _ in attributes]
        for name in names:
            if name not in known:
                self.add(
                    index,
                    "envelope-attribute",
                    f"{tag} has an unknown attribute {name!r}; it defines only " + ", ".join(known),
                )
        if len(set(names)) != len(names):
            self.add(index, "envelope-attribute", f"{tag} repeats an attribute; write each once")

    def is_error(self) -> None:
        first = self.parsed.blocks[0]
        flag = self.parsed.is_error
        if isinstance(first, ToolErrorBlock):
            warning = first.envelope.severity == "warning"
            if warning and flag:
                self.add(
                    0,
                    "is-error",
                    'a severity="warning" envelope is not an error: set isError to false',
                )
            elif not warning and flag is not True:
                self.add(
                    0,
                    "is-error",
                    f"a <tool_error> with severity {first.envelope.severity!r} is an error: "
                    'set isError to true (or severity="warning")',
                )
        elif isinstance(first, ValidationErrorBlock) and flag is not True:
            self.add(0, "is-error", "a <validation_error> is an error: set isError to true")

    # --------------------------------------------------------------- UI

    def ui(self, index: int, block: UiBlockText) -> None:
        header = _UI_HEADER.match(block.text)
        if header is None:
            self.add(
                index,
                "unescaped-attribute",
                "a UI attribute value contains an unescaped '\"' or '<'; escape attribute "
                "values (&quot; &lt; &amp; &gt; &apos;)",
            )
        else:
            for name, raw in _RAW_ATTR.findall(header.group(1)):
                if _BARE_AMP.search(raw):
                    self.add(
                        index,
                        "unescaped-attribute",
                        f"the {name} attribute has a bare '&'; escape it as &amp;",
                    )
                if _ATTR_WHITESPACE.search(raw):
                    self.add(
                        index,
                        "unescaped-attribute",
                        f"the {name} attribute holds a raw tab or line break, which XML readers "
                        "read as a space; write it as &#x9;, &#xA; or &#xD;",
                    )
            self.control(index, header.group())
        names = [name for name, _ in block.attributes]
        for name in names:
            if name not in UI.attributes:
                self.add(
                    index,
                    "ui-attribute",
                    f"unknown UI attribute {name!r}; use type, title, width, priority",
                )
        if len(set(names)) != len(names):
            self.add(index, "ui-attribute", "a UI attribute is repeated; write each once")
        width = block.attribute("width")
        if width is not None and width not in ("full", "half", "third"):
            self.add(
                index,
                "ui-width",
                f"unknown UI width {width!r}; use full, half or third, or omit it",
            )
        priority = block.attribute("priority")
        if priority is not None and read_priority(priority) is None:
            self.add(
                index,
                "ui-priority",
                f"UI priority {priority!r} is not a finite number; write a number, or omit "
                "the attribute when there is none",
            )
        # The lenient reader (unescaped quotes) ends the header at the first ">\n".
        start = len(header.group()) if header else block.text.find(">\n") + 2
        raw_content = block.text[start:]
        raw_content = raw_content[: -len("\n" + UI.closing)]
        self.ui_tags(index, raw_content)
        self.fence(index, block.content)

    def ui_tags(self, index: int, raw_content: str) -> None:
        """UI content must not open or close a Fusion element, in any letter case."""
        tag = find_fusion_tag(raw_content)
        if tag is None:
            return
        if tag.group().lower() == "</ui_passthrough":
            self.add(
                index,
                "ui-closing-tag",
                f"the UI content contains {tag.group()}, which ends the block early for "
                "case-folding readers; neutralize it as <\\/ui_passthrough",
            )
        else:
            name = tag.group()[1:]
            self.add(
                index,
                "ui-fusion-tag",
                f"the UI content contains {tag.group()}, which readers take for a Fusion "
                f"element inside the block; neutralize it as <\\{name}",
            )

    def fence(self, index: int, content: str) -> None:
        opening = _FENCE_OPEN.match(content)
        if opening is None:
            return
        ticks = opening.group(1)
        closing = "\n" + ticks
        if not content.endswith(closing):
            return
        body = _LINE_ENDINGS.sub("\n", content[opening.end() : len(content) - len(closing)])
        closers = [len(m.group(1)) for m in _CLOSING_FENCE.finditer(body)]
        longest = max((run for run in closers if run >= len(ticks)), default=0)
        if longest:
            self.add(
                index,
                "fence-broken",
                f"the fence of {len(ticks)} backticks encloses a line of {longest} backticks, "
                f"which ends it early; use a fence of {longest + 1} backticks",
            )

    # ------------------------------------------------------- item blocks

    def items(self, index: int, block: DirectivesBlock | RulesBlock | SuggestionsBlock) -> None:
        tag = kind_of(block).element
        body = block.text[len(tag) + 1 : -len(tag) - 2]
        if "<" in body or _BARE_AMP.search(body):
            self.add(
                index,
                "unescaped-text",
                f"{tag} item text contains '<' or a bare '&'; escape them as &lt; and &amp;",
            )
        self.cdata_end(index, body)
        self.control(index, body)
        self.continuations(index, tag, body)
        if isinstance(block, SuggestionsBlock):
            for item in split_items(body[2:]):
                if ": " not in item:
                    self.add(
                        index,
                        "suggestion-format",
                        f"suggestion {item[:40]!r} is not 'tool: reason'; write the tool "
                        "name, ': ', then the reason",
                    )

    def continuations(self, index: int, tag: str, body: str) -> None:
        """Each item line break is followed by two spaces and text that starts no block.

        And no item line is a thematic break (``- --``), which a Markdown
        reader shows as a rule line instead of the item, nor is the first one
        ``- `` alone: a setext underline of the opening tag's line.
        """
        items = split_items(body[2:])
        thematic = next((item for item in items if thematic_item(item)), None)
        if thematic is not None:
            self.add(
                index,
                "thematic-item",
                f"a {tag} item line '- {thematic[:20]}' reads as a thematic break (a "
                "horizontal rule), not an item; write a backslash before its text "
                "(- \\--)",
            )
        if items and blank_lead(items[0]):
            self.add(
                index,
                "blank-first-item",
                f"the first {tag} item's line '- ' holds nothing else, which a Markdown reader "
                "takes for a setext underline: the opening tag reads as a heading and the item "
                "is not in the list; write a backslash before its text (- \\)",
            )
        if any(bad_continuation(item) is not None for item in items):
            self.add(
                index,
                "multi-line-item",
                f"a {tag} item continues on a line without the two-space indent, or on "
                "one that starts a Markdown block ('- x', '# x', '1. x'...), which reads "
                "as another item; indent continuation lines by two spaces and write a "
                "block-starting first character as a reference (&#x2D;)",
            )

    def embed(self, index: int, block: EmbedBlock, *, in_tail: bool) -> None:
        try:
            self.embed_text(index, block.text, in_tail=in_tail)
        except CharacterReferenceError as exc:
            self.add(index, "character-reference", str(exc.in_block(index)))

    def embed_text(self, index: int, text: str, *, in_tail: bool) -> None:
        kind = next((kind for kind in _ELEMENT_KINDS if text.startswith("<" + kind.tag)), None)
        tag = kind.tag if kind is not None else None
        if kind in ENVELOPES:
            self.add(index, "envelope-position", f"a <{tag}> envelope must be block 0")
        elif kind is UI and in_tail:
            self.add(
                index,
                "block-order",
                f"a UI block after {DIRECTIVES.element}; UI blocks go right after the data",
            )
        elif kind is UI:
            ui = read_ui(text)
            if ui is None:
                self.add(
                    index,
                    "malformed-block",
                    "a <ui_passthrough> block must be '<ui_passthrough type=\"..\" ...>', a "
                    "line break, the content, a line break and '</ui_passthrough>'",
                )
            else:  # a child's UI block among the embeds: same rules
                self.ui(index, ui)
            return
        elif tag is not None:
            child = read_items(text)
            if child is None:
                self.add(
                    index,
                    "malformed-block",
                    f"a <{tag}> block must be '<{tag}>', one '- item' line per item, and "
                    f"'</{tag}>'",
                )
            else:  # a child's rules or suggestions: same rules
                self.items(index, child)
            return
        elif in_tail:
            element = _element_name(text)
            if element is not None:
                self.add(
                    index,
                    "unknown-block",
                    f"<{element}> is not a Fusion block kind; after {DIRECTIVES.element} "
                    f"only {_AFTER_DIRECTIVES} may follow",
                )
            else:
                self.add(
                    index,
                    "block-order",
                    f"a raw block after {DIRECTIVES.element}; raw and UI blocks go before the "
                    "directives",
                )
        # Other raw blocks are verbatim text, like str data: nothing to check.

    def dtd(self, index: int, text: str) -> None:
        if _DTD.search(text):
            self.add(
                index,
                "xml-dtd",
                "the block declares a DTD or entities (<!DOCTYPE/<!ENTITY), which readers "
                "refuse (XXE, entity bombs); remove the declaration",
            )

    # ---------------------------------------------------------- the tail

    def tail_order(self) -> None:
        parsed = self.parsed
        last = -1
        for index in range(parsed.tail_start, len(parsed.blocks)):
            kind = kind_of(parsed.blocks[index])
            rank = kind.tail
            if rank is None:
                continue  # raw blocks were reported by embed()
            if rank == last:
                self.add(
                    index,
                    "duplicate-block",
                    f"a second top-level {kind.element} block; merge its items into the first",
                )
            elif rank < last:
                self.add(
                    index,
                    "block-order",
                    f"{kind.element} comes after a later kind; the order is {TAIL_ORDER}",
                )
            last = max(last, rank)


def _element_name(text: str) -> str | None:
    """The name of the element ``text`` is (``<name ...>`` ... ``</name>``), if it is one."""
    opening = _ELEMENT_OPEN.match(text)
    if opening is None:
        return None
    name = opening.group(1)
    closing = f"</{name}>"
    if len(text) < opening.end() + len(closing) or not text.endswith(closing):
        return None
    return name


def _is_json(text: str) -> bool:
    try:
        read_json(text)
    except (ValueError, RecursionError):
        return False
    return True
