r"""The wire as a plain Python value, for snapshots kept inline in the test's source.

inline-snapshot (``assert value == snapshot()``) stores any value whose
``repr`` is Python code, and fixes it in place. A response is stored as a list
of ``(kind, text)`` pairs, one per content block, in order, after an optional
``("isError", True)`` and ``("structuredContent", value)``::

    [
        ("isError", True),
        ("tool_error", '<tool_error code="NOT_FOUND" severity="error">\\n...'),
    ]

It is the ``.wire`` file's content (``fusion_core._snapshot._format``) in
another form: the same header fields, the same kinds as the parser reads
them, and each block's exact text (a ``str`` literal holds every character,
CRs and lone surrogates included), so :func:`wire_of_inline` gives back the
exact wire dict (an int of more than 4,300 digits, which a ``.wire`` file
holds, has no Python literal: such a response is refused). Only builtins
appear in it, so the test file needs no import for the stored value, and a
list compares equal to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, final

from fusion_core._errors import WireFormatError
from fusion_core._snapshot._format import block_kinds, has_huge_int

__all__ = ["HEADERS", "InlineWire", "inline_of", "wire_of_inline"]

# The two header entries, in the order they may come, before any block.
HEADERS: Final = ("isError", "structuredContent")


@final
class InlineWire(list[tuple[str, Any]]):
    """A response as ``(kind, text)`` pairs: a ``list``, with a ``list``'s repr.

    The subclass only lets the plugin's assertion hook recognise the value and
    explain a mismatch block by block; it equals (and is stored as) the list.
    """

    __slots__ = ()

    def wire(self) -> dict[str, Any]:
        """The MCP wire dict these pairs stand for."""
        return wire_of_inline(self)


def inline_of(wire: Mapping[str, Any]) -> InlineWire:
    """The inline form of a wire dict (a ``ToolResponse`` or any MCP result).

    ``WireFormatError`` when ``structuredContent`` holds an int Python cannot
    write as a literal (more than 4,300 digits): a ``.wire`` file can hold it.
    """
    if has_huge_int(wire.get("structuredContent")):
        msg = (
            "structuredContent holds an int too long for a Python literal (over 4,300 digits):"
            " keep this response in a .wire file (fusion_snapshot), not inline"
        )
        raise WireFormatError(msg)
    pairs: list[tuple[str, Any]] = [(key, wire[key]) for key in HEADERS if key in wire]
    texts = [block.get("text", "") for block in wire.get("content", [])]
    pairs.extend(zip(block_kinds(wire), texts, strict=True))
    return InlineWire(pairs)


def wire_of_inline(pairs: Sequence[Any]) -> dict[str, Any]:
    """The wire dict of an inline form; ``WireFormatError`` naming the entry if it is not one.

    Each block's kind must be the kind the parser reads in the rebuilt
    response: a hand-edited kind that says something else is refused.
    """
    if isinstance(pairs, (str, bytes, Mapping)) or not isinstance(pairs, Sequence):
        msg = f"an inline wire is a list of (kind, text) pairs, not {type(pairs).__name__}"
        raise WireFormatError(msg)
    wire: dict[str, Any] = {"content": []}
    kinds: list[str] = []
    for index, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not isinstance(pair[0], str):
            msg = f"inline wire entry {index}: expected a (kind, text) pair, got {pair!r:.80}"
            raise WireFormatError(msg)
        key, value = pair
        if key in HEADERS:
            _header(wire, index, key, value)
        elif not isinstance(value, str):
            msg = f"inline wire entry {index} ({key}): the text is {type(value).__name__}, not str"
            raise WireFormatError(msg)
        else:
            kinds.append(key)
            wire["content"].append({"type": "text", "text": value})
    for index, (said, read) in enumerate(zip(kinds, block_kinds(wire), strict=True)):
        if said != read:
            msg = f"inline wire block {index}: it says {said!r}, but the block reads as {read!r}"
            raise WireFormatError(msg)
    return wire


def _header(wire: dict[str, Any], index: int, key: str, value: Any) -> None:
    """Put a header entry in ``wire``: before any block, once, in the order of ``HEADERS``."""
    later = HEADERS[HEADERS.index(key) + 1 :]
    if wire["content"] or key in wire or any(name in wire for name in later):
        msg = f"inline wire entry {index} ({key}): headers come first, once, in the order {HEADERS}"
        raise WireFormatError(msg)
    if key == "isError" and not isinstance(value, bool):
        msg = f"inline wire entry {index} (isError): expected True or False, got {value!r:.80}"
        raise WireFormatError(msg)
    wire[key] = value
