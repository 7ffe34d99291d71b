"""Suggestion items: a tool name holding ``": "`` still splits at the right place.

``- tool: reason`` is read by splitting at the first ``": "``, so the tool's
own ``": "`` is written ``:&#x20;``. Added for mutants the mutation check
found alive (``./dev mutate``): the round trip's examples seldom put ``": "``
in a tool name, and nothing pinned the bytes.
"""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

import fusion_core as fc
from fusion_core import parse
from fusion_core._write._text import LINE_BREAK
from pytest_mcpfusion.strategies import hostile_text

_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_REFERENCE = re.compile(r"&(?:#x([0-9A-Fa-f]+)|#([0-9]+)|(lt|gt|amp|quot|apos));")


def _naive_unescape(text: str) -> str:
    """XML character and entity references decoded (html.unescape drops controls)."""

    def one(match: re.Match[str]) -> str:
        hexa, decimal, name = match.groups()
        if name:
            return _ENTITIES[name]
        return chr(int(hexa, 16) if hexa else int(decimal))

    return _REFERENCE.sub(one, text)


# Text with ": " in it more often than not, among hostile text.
_COLONS = st.lists(st.sampled_from([": ", ":", " ", "a", "&", "\n"]) | hostile_text(),
                   min_size=1, max_size=6).map("".join)  # fmt: skip


@given(_COLONS, _COLONS)
@example("a: b", "c: d")
@example(": ", " : ")
@example("x:&#x20;y", "z")
@example("\x1f", ": ")
def test_suggestion_tool_splits_at_the_first_colon_space(tool: str, reason: str) -> None:
    """A naive reader (first ``": "``, entities decoded) gets the tool back; so does parse."""
    built = fc.response("x").system_hint([(tool, reason)]).build()
    (block,) = [text for text in built.texts if text.startswith("<action_suggestions>")]
    item = block.split("\n", 2)[1]
    assert item.startswith("- ")
    if LINE_BREAK.search(tool) is None:  # one line: the naive reader can split it
        assert _naive_unescape(item[2:].split(": ", 1)[0]) == tool
    (suggestion,) = parse(built).view.suggestions
    assert (suggestion.tool, suggestion.reason) == (tool, reason)


def test_colon_space_in_a_tool_is_written_as_a_character_reference() -> None:
    """The bytes: ``": "`` in a tool is ``:&#x20;``, in a reason it stays."""
    built = fc.response("x").system_hint([("a: b", "c: d")]).build()
    assert built.texts[-1] == "<action_suggestions>\n- a:&#x20;b: c: d\n</action_suggestions>"
