"""The divergence classes: where the project deliberately differs from the reference.

Each class names the rule on a case's *input* that routes a case to it (the
predicates in the test modules implement exactly these rules), what the
reference writes, and what the project writes instead and why. The table in
``docs/wire-format.md`` is generated from this registry
(``python -m tests._support.conformance.divergence`` prints it) and a test keeps the
two equal, so the documentation and the tests cannot drift.

A routed case must really differ: :class:`Route` fails a case whose project
output equals the reference's while it is routed to a class (a predicate drawn
too wide), so the reference's bytes are compared wherever the project means to
match them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import pytest


@dataclass(frozen=True, slots=True)
class Divergence:
    """One documented class: its routing rule, the reference's output and ours."""

    name: str
    rule: str
    reference: str
    ours: str


CLASSES: Final = {
    d.name: d
    for d in (
        Divergence(
            "escaping",
            "an item (rule, directive, suggestion) or UI attribute holds `<` or `&`; element "
            "text (error envelopes too) holds `]]>`; an attribute holds `>`, a quote, a tab, "
            "a line break, NEL, U+2028 or U+2029; a suggestion's tool holds `: `; error "
            "envelope text holds an LF before a blank line or a line that starts like a "
            "Markdown block (`#`, `>`, `-`, `+`, `*`, `_`, `=`, `~`, `:`, a backtick, a pipe, "
            "`1.`, `1)`, after spaces and tabs)",
            "writes them raw: the markup is not well-formed or reads as other elements; to a "
            "Markdown reader the envelope ends at such a line and the text reads as headings "
            "and list items of its own",
            "entities and character references (`&lt;`, `&amp;`, `&quot;`, `&#xA;`, "
            "`:&#x20;`); well-formed, parses back to the same view; that LF as `&#xA;`, so the "
            "envelope stays one block",
        ),
        Divergence(
            "control-characters",
            "XML text (items, attributes, error envelopes) holds a C0 control character "
            "(CR included), a lone surrogate, U+FFFE or U+FFFF",
            "writes them raw: not XML, and an XML reader turns a raw CR into LF",
            "character references (`&#xD;`, `&#x1B;`), so the text reads back exactly",
        ),
        Divergence(
            "multi-line-items",
            "a rule, directive, suggestion or list item holds a line break: LF, CR or CRLF "
            "(U+2028, U+2029 and NEL are ordinary characters)",
            "the break starts what reads as a new item, or a nested list item",
            "two spaces after every break, and a backslash before a continuation that would "
            "start a Markdown block: never a new item",
        ),
        Divergence(
            "thematic-items",
            "a rule's, directive's, suggestion tool's or list item's first line is two or "
            "more hyphens among spaces and tabs (`--`, `- -`), after any backslashes; or a "
            "block's first item (its first rule, directive or list item, the first "
            "suggestion's tool) has a first line that is empty or only spaces and tabs, after "
            'any backslashes (`""`, `"\\nnext"`; a tool: before a line break)',
            "`- --`: a thematic break (a horizontal rule) to a Markdown reader; the item is "
            "gone. A first line `- ` right after the opening tag is a setext underline: the "
            "tag reads as a heading, the item is not in the list",
            "a backslash first (`- \\--`, `- \\`), which reading drops: one item, the tag "
            "stays text",
        ),
        Divergence(
            "ui-content",
            "UI content holds the opening or closing tag of a Fusion element, in any letter "
            "case (`</ui_passthrough`, `<domain_rules>`)",
            "the block ends early, or text forges another block",
            "a backslash after `<` (reversible): the block ends where it should",
        ),
        Divergence(
            "raw-blocks",
            "a raw block (`rawBlock`, a child Presenter's block) that `parse()` would read "
            "as another block (UI after the UI blocks, `<llm_directives>`, rules or suggestions "
            "at the end) saying something else than the builder's view; or one that starts "
            "with `<`, backslashes and a block name",
            "writes it verbatim: it reads back as rules (or UI, directives, suggestions) that "
            "the builder never had",
            "a backslash after its `<` (`<\\domain_rules>`), which reading removes: it reads "
            "back as the raw block it was",
        ),
        Divergence(
            "fences",
            "a fenced body (mermaid, code block) holds a backtick run of 3 or more; a table "
            "cell holds `|` or a line break",
            "the fence or the table row breaks",
            "a fence longer than the longest run (CommonMark); `\\|` and `<br>` in cells",
        ),
        Divergence(
            "js-numbers",
            "a value (data, schema default, UI JSON) holds an integer beyond 2^53",
            "rounds it to the nearest double (`9007199254740993` becomes `…992`)",
            "the exact integer (up to 4,300 digits); the text equals the reference's once the "
            "integer is rounded",
        ),
        Divergence(
            "js-key-order",
            'an object has an array-index-like key (`"0"`, `"10"`) after another key, or '
            "index keys out of ascending order",
            "lists index-like keys first, in ascending order",
            "insertion order, as Python keeps it",
        ),
        Divergence(
            "js-undefined",
            "the data itself is `undefined` (`success(undefined)`), or TOON data holds "
            "`undefined`; a tool call sends `undefined` under a key no schema declares",
            "a block without text; TOON writes `key: null`; zod refuses the key as unknown "
            "(`(root)`)",
            "`None` (`null`); a missing key, which TOON writes no line for (in JSON objects "
            "and arrays the bytes are the reference's); JSON carries no `undefined`, so the "
            "argument is not there",
        ),
        Divergence(
            "ui-meta",
            "a UI block's meta has `priority: null`, a width outside full/half/third or a "
            "non-finite priority",
            'prints `priority="null"`, accepts any width',
            "`None` means unset (no attribute); an invalid width or priority is a `UIError`",
        ),
        Divergence(
            "language-tags",
            "a code block's language is not `[A-Za-z0-9][A-Za-z0-9_+#.-]*`",
            "writes a broken attribute and fence",
            "a `UIError` naming the tag",
        ),
        Divergence(
            "non-string-details",
            "a `toolError` detail value is not a string (`null`, a number)",
            "throws `TypeError: Cannot read properties of null (reading 'replace')`",
            "the value's JS string (`null`, `5`) in a well-formed envelope",
        ),
        Divergence(
            "wrap-and-firewall",
            "a Presenter action's handler returns a builder, or a fluent tool's handler "
            "returns data, and applying the Presenter changes the bytes; a fluent handler "
            "returns an un-built builder; a classic handler returns null or undefined",
            "skips the Presenter (undeclared fields leak); serializes the builder's internals",
            "the one wrap rule (WIRE.md section 9): the Presenter always applies, a builder "
            "is built",
        ),
        Divergence(
            "exception-envelope",
            "a Presenter action's data fails the Presenter's schema",
            "a bare `<tool_error>` with zod's message",
            "the `INTERNAL_ERROR` envelope of any handler exception, naming the Presenter",
        ),
        Divergence(
            "validator-text",
            "tool-call arguments fail the action's schema; data fails a Presenter's schema "
            "for a reason other than unknown keys",
            "zod's English messages",
            "the same elements, field names and order; pydantic's wording",
        ),
        Divergence(
            "select-validation",
            "a tool with `_select` is called with a `_select` value outside its enum, or "
            "not a list",
            "drops the unknown values silently",
            "a `<validation_error>` naming the `_select` entry (WIRE.md 12.7)",
        ),
        Divergence(
            "select-on-scalar",
            "a Presenter is given `_select` keys and data that is not an object or a list "
            "of objects (a string, a number, a list holding one)",
            "picks keys from the scalar: `{}`",
            "the data as it is: there is nothing to select from",
        ),
        Divergence(
            "required-any",
            "an action's schema lists a property of type `any` as required",
            "zod's `any` is always optional: left out of `Requires:`",
            "listed under `Requires:` as declared (the argument is validated as required)",
        ),
        Divergence(
            "embeds-on-validated-data",
            "a Presenter's embed key is missing (or null) in the data and its schema "
            "property has a default",
            "runs embeds on the raw data: no child blocks",
            "runs embeds on the validated data, where the default fills the key "
            "(docs/presenters.md)",
        ),
        Divergence(
            "passthrough-arguments",
            "a call sends a key no schema declares to an action whose own schema passes "
            "unknown keys through, with no common schema",
            "refuses it: `(root): Unrecognized key`",
            'hands it to the handler, as the params model (`extra="allow"`) says',
        ),
        Divergence(
            "proto-key",
            "data holds a `__proto__` key in an object whose schema passes unknown keys "
            'through (`extra="allow"`)',
            "drops it (copying it sets the object's prototype)",
            "keeps it: a key like any other",
        ),
        Divergence(
            "lone-surrogates",
            "TOON or structured data (`toonSuccess`, `successStructured`) or a tool's "
            "definition (a description, a parameter's description) holds a str with a lone "
            "surrogate",
            "writes it (a JS string may hold one); not valid UTF-8 on the wire",
            "a `SerializationError` naming the value's path (JSON text escapes it as `\\udXXX`)",
        ),
        Divergence(
            "string-length",
            "a string holding characters beyond U+FFFF is checked against a `minLength` or "
            "`maxLength` it meets in one count and not in the other",
            "counts UTF-16 code units (an emoji is 2)",
            "counts characters, Python's `len()` (an emoji is 1), as pydantic does",
        ),
        Divergence(
            "schema-dialect",
            "an input schema holds an integer property without both bounds",
            "zod adds `minimum`/`maximum` of ±(2^53−1) to every integer",
            "no such bounds (Python integers are exact); everything else is the reference's",
        ),
    )
}


def table() -> str:
    """The markdown table of every class, as docs/wire-format.md holds it."""
    rows = [
        "| class | routed when | the reference | fusion_core, and why |",
        "|---|---|---|---|",
    ]
    rows.extend(f"| {d.name} | {d.rule} | {d.reference} | {d.ours} |" for d in CLASSES.values())
    return "\n".join(rows)


class Route:
    """The classes one case was routed to; a routed case must differ from the reference."""

    __slots__ = ("classes",)

    def __init__(self) -> None:
        self.classes: list[str] = []

    def __bool__(self) -> bool:
        return bool(self.classes)

    def add(self, name: str, *, when: bool = True) -> bool:
        """Route to ``name`` when the rule holds; returns whether it did."""
        if name not in CLASSES:  # pragma: no cover - a typo must fail loudly
            msg = f"no divergence class {name!r} (see tests/_support/conformance/divergence.py)"
            raise KeyError(msg)
        if when and name not in self.classes:
            self.classes.append(name)
        return when

    def must_differ(self, ours: Any, reference: Any) -> None:
        """Fail a routed case whose output equals the reference's (predicate too wide)."""
        if self.classes and ours == reference:
            pytest.fail(
                f"routed to {self.classes}, but the project's output equals the reference's: "
                "the predicate is drawn too wide (compare the bytes instead)"
            )


if __name__ == "__main__":
    print(table())
