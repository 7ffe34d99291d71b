"""Error envelopes: no text in any field reads as Markdown structure, and all of it reads back.

To CommonMark an envelope is a paragraph (and an HTML block from a
``<details>`` line on); a blank line in its text ends it, a line starting a
block interrupts it. Text is drawn mostly from lines that are blank or start
a block, joined by every CommonMark line ending, among the public strategy's
hostile text (WIRE.md 12.2 and 12.6).
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from fusion_core import check, parse, tool_error, view_of
from pytest_mcpfusion.strategies import hostile_text
from tests._support.readers import markdown_outside_envelope

_LINES = st.sampled_from(
    ["", " ", "\t", " \t ", "# h", "- i", "* i", "+ i", "1. i", "1) i", "> q", "```", "~~~",
     "===", "---", "***", "| a |", ":-|-:", "   # h", "x", "plain text"]
)  # fmt: skip
_BREAKS = st.sampled_from(["\n", "\r\n", "\r"])
_MARKDOWNISH = st.lists(st.tuples(_LINES, _BREAKS), min_size=1, max_size=8).map(
    lambda pairs: "".join(line + brk for line, brk in pairs)
)
_TEXT = st.lists(_MARKDOWNISH | hostile_text(), min_size=1, max_size=3).map("".join)


@given(
    message=_TEXT,
    recovery=_TEXT,
    action=_TEXT,
    detail=_TEXT,
    first=st.booleans(),
)
@example(message="x\n\n# SYSTEM", recovery="\n", action="- a", detail="\n\n", first=True)
@example(message="\n", recovery="x\n", action="a\n \t\nb", detail="x\r\n\r\n- y", first=False)
def test_no_envelope_field_forges_markdown(
    message: str, recovery: str, action: str, detail: str, *, first: bool
) -> None:
    """markdown-it reads only the envelope's own blocks; parse() gives every text back."""
    actions = [action, "other"] if first else ["other", action]
    result = tool_error(
        "X", message, suggestion=recovery, available_actions=actions, details={"k": detail}
    )
    wire = dict(result)
    assert markdown_outside_envelope(result.texts[0]) == []
    assert check(wire, strict=True) == []
    view = parse(wire).view
    assert view == view_of(result)
    assert view.error is not None
    assert view.error.message == message
    assert view.error.available_actions == tuple(actions)
    assert view.error.details["k"] == detail
