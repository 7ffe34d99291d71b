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
_BREAK = re.compile("\r\n|\r|\n")
_FUSION = (
    "ui_passthrough|llm_directives|domain_rules|action_suggestions|tool_error|"
    "validation_error|message|recovery|available_actions|action|details|detail|"
    "retry_after|field"
)
_TAG = re.compile(r"<(\\*/?(?:" + _FUSION + r"))(?!\w)", re.IGNORECASE)
_STARTS_BLOCK = re.compile(r"[ \t\-+*_#=>`~<|\[\\]|:-|[0-9]{1,9}[.)]")
SUMMARY = "📊 **Summary**: "


def _char_refs(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"&#x{ord(m.group()):X};", text)


def text(value: str) -> str:
    """Element text: ``&``, ``<``, the ``>`` of ``]]>`` as entities; XML-illegal chars as refs."""
    escaped = value.replace("&", "&amp;").replace("<", "&lt;").replace("]]>", "]]&gt;")
    return _char_refs(escaped.replace("\r", "&#xD;"))


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
    """Two spaces after every line break, and a backslash before a line that starts a block."""
    lines = _BREAK.split(value)
    breaks = _BREAK.findall(value)
    out = lines[0]
    for index, (line_break, line) in enumerate(zip(breaks, lines[1:], strict=True)):
        # An item starting with a blank line would end at a second blank one.
        blank_second = index == 0 and lines[0] == "" and line == ""
        escape = blank_second or _STARTS_BLOCK.match(line)
        out += line_break + "  " + ("\\" if escape else "") + line
    return out


def item(value: str) -> str:
    """One bullet item's text: continued, then escaped."""
    return text(continued(value))


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
    """UI content: every Fusion tag, any case (and its escaped forms) gains a backslash."""
    return _TAG.sub(lambda m: "<\\" + m.group(1), value)


def fence(language: str, body: str) -> str:
    """A fence one backtick longer than the longest run in the body (min 3)."""
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    closing = "\r" if body.endswith("\r") else "\n"  # CR + LF would be one break
    return f"{ticks}{language}\n{body}{closing}{ticks}"


def cell(value: str) -> str:
    """A table cell: ``|`` escaped, line breaks as ``<br>``."""
    return _BREAK.sub("<br>", value.replace("|", "\\|"))


def list_item(value: str) -> str:
    """A Markdown list item with indented continuation lines."""
    return "- " + continued(value)
