"""An independent model of the project's documented divergences.

These few functions restate docs/wire-format.md ("Where we differ from the
reference") with plain string operations, without fusion_core's code. On
cases where no divergence applies they must reproduce the reference's bytes
(the test checks that too), and on divergent cases they say what the project
must write instead.
"""

from __future__ import annotations

import re

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_BREAK = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_CLOSING = re.compile(r"<(\\*)/ui_passthrough")
SUMMARY = "📊 **Summary**: "


def _char_refs(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"&#x{ord(m.group()):X};", text)


def text(value: str) -> str:
    """Element text: ``&`` and ``<`` as entities, XML-illegal chars as refs."""
    return _char_refs(value.replace("&", "&amp;").replace("<", "&lt;"))


def attr(value: str) -> str:
    """Attribute values: the five XML characters as entities."""
    for char, entity in (
        ("&", "&amp;"),
        ("<", "&lt;"),
        (">", "&gt;"),
        ('"', "&quot;"),
        ("'", "&apos;"),
        ("\t", "&#x9;"),
        ("\n", "&#xA;"),
        ("\r", "&#xD;"),
    ):
        value = value.replace(char, entity)
    return _char_refs(value)


def continued(value: str) -> str:
    """Two spaces after every line break: a newline cannot start an item."""
    return _BREAK.sub(lambda m: m.group() + "  ", value)


def item(value: str) -> str:
    """One bullet item's text."""
    return continued(text(value))


def bullets(tag: str, items: list[str]) -> str:
    """A directives/rules block."""
    return f"<{tag}>\n" + "\n".join("- " + item(i) for i in items) + f"\n</{tag}>"


def suggestions(pairs: list[tuple[str, str]]) -> str:
    """An action suggestions block."""
    body = "\n".join(
        f"- {item(tool).replace(': ', ':&#x20;')}: {item(reason)}" for tool, reason in pairs
    )
    return f"<action_suggestions>\n{body}\n</action_suggestions>"


def content(value: str) -> str:
    """UI content: the closing tag (and its escaped forms) gains a backslash."""
    return _CLOSING.sub(lambda m: "<\\" + m.group(1) + "/ui_passthrough", value)


def fence(language: str, body: str) -> str:
    """A fence one backtick longer than the longest run in the body (min 3)."""
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{body}\n{ticks}"


def cell(value: str) -> str:
    """A table cell: ``|`` escaped, line breaks as ``<br>``."""
    return _BREAK.sub("<br>", value.replace("|", "\\|"))


def list_item(value: str) -> str:
    """A Markdown list item with indented continuation lines."""
    return "- " + continued(value)
