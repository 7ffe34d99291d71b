"""The kinds of Fusion block: one table the writer, readers and snapshots all read.

Each row is one kind of content block (WIRE.md section 1):

========================  =========  ====  ======================  ===========
name                      tag        tail  parsed type             view field
========================  =========  ====  ======================  ===========
``data``                  —          —     ``DataBlock``           ``data``
``ui_passthrough``        same       —     ``UiBlockText``         ``ui_blocks``
``embed``                 —          —     ``EmbedBlock``          ``embeds``
``llm_directives``        same       0     ``DirectivesBlock``     ``directives``
``domain_rules``          same       1     ``RulesBlock``          ``rules``
``action_suggestions``    same       2     ``SuggestionsBlock``    ``suggestions``
``tool_error``            same       —     ``ToolErrorBlock``      ``error``
``validation_error``      same       —     ``ValidationErrorBlock`` ``validation``
========================  =========  ====  ======================  ===========

``name`` is the word snapshots, reports and diffs use; ``tag`` the element's
name (``""`` for the data block and raw blocks, which have none); ``tail``
the position among the bullet blocks that end a response; ``parsed`` the name
of the class :func:`fusion_core.parse` returns (this module imports nothing,
so every layer can read it); ``view`` the :class:`~fusion_core.ResponseView`
field and ``result`` the ``FusionResult`` property that hold the block's
values; ``label`` names it in messages; ``attributes`` are the attributes the
writer knows and ``parts`` the child elements of an envelope.

Who reads it: the writer (``_write/_blocks``: tags and the tail's order), the
text neutralizer (``_write/_text``: every element name), the parser and the
checker (``_read/_parse``, ``_read/_check``: openings, the tail's order, the
messages), the strict reader (``_read/_strict``) and the snapshot format
(``_snapshot/_format``: each block's kind). Adding a kind is one row here and
the code that is truly new: its writer and its reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, final

__all__ = [
    "DATA",
    "DIRECTIVES",
    "EMBED",
    "ENVELOPES",
    "FUSION_ELEMENTS",
    "KINDS",
    "RULES",
    "SUGGESTIONS",
    "TAIL",
    "TAIL_ORDER",
    "TOOL_ERROR",
    "UI",
    "VALIDATION_ERROR",
    "BlockKind",
    "kind_named",
    "kind_of",
]


@final
@dataclass(frozen=True, slots=True)
class BlockKind:
    """One kind of content block; see the module docstring for the columns."""

    name: str
    tag: str
    tail: int | None
    parsed: str
    view: str
    result: str
    label: str
    attributes: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()

    opening: str = field(init=False)
    """What a block of this kind starts with: ``<tag>``, or ``<tag`` when it has attributes.

    ``""`` for the data block and raw blocks, which have no element.
    """
    closing: str = field(init=False)
    """``</tag>`` (``""`` without an element)."""

    def __post_init__(self) -> None:
        # Computed once: the writer and the parser read them for every block.
        opening = "" if not self.tag else f"<{self.tag}" if self.attributes else f"<{self.tag}>"
        object.__setattr__(self, "opening", opening)
        object.__setattr__(self, "closing", f"</{self.tag}>" if self.tag else "")

    @property
    def element(self) -> str:
        """``<tag>`` as messages name the kind, else its label."""
        return f"<{self.tag}>" if self.tag else self.label


DATA: Final = BlockKind("data", "", None, "DataBlock", "data", "data", "the data block")
UI: Final = BlockKind(
    "ui_passthrough",
    "ui_passthrough",
    None,
    "UiBlockText",
    "ui_blocks",
    "ui_blocks",
    "a UI block",
    attributes=("type", "title", "width", "priority"),
)
EMBED: Final = BlockKind("embed", "", None, "EmbedBlock", "embeds", "embeds", "a raw block")
DIRECTIVES: Final = BlockKind(
    "llm_directives",
    "llm_directives",
    0,
    "DirectivesBlock",
    "directives",
    "directives",
    "directives",
)
RULES: Final = BlockKind(
    "domain_rules", "domain_rules", 1, "RulesBlock", "rules", "system_rules", "rules"
)
SUGGESTIONS: Final = BlockKind(
    "action_suggestions",
    "action_suggestions",
    2,
    "SuggestionsBlock",
    "suggestions",
    "suggestions",
    "suggestions",
)
TOOL_ERROR: Final = BlockKind(
    "tool_error",
    "tool_error",
    None,
    "ToolErrorBlock",
    "error",
    "error",
    "an error envelope",
    attributes=("code", "severity"),
    parts=(
        "message",
        "recovery",
        "available_actions",
        "action",
        "details",
        "detail",
        "retry_after",
    ),
)
VALIDATION_ERROR: Final = BlockKind(
    "validation_error",
    "validation_error",
    None,
    "ValidationErrorBlock",
    "validation",
    "validation",
    "a validation envelope",
    attributes=("action",),
    parts=("field", "recovery"),
)

KINDS: Final = (DATA, UI, EMBED, DIRECTIVES, RULES, SUGGESTIONS, TOOL_ERROR, VALIDATION_ERROR)
"""Every kind, in the order a response's blocks come (the envelopes stand in for data)."""

TAIL: Final = tuple(
    sorted((kind for kind in KINDS if kind.tail is not None), key=lambda k: k.tail or 0)
)
"""The bullet blocks that end a response, in their order."""

ENVELOPES: Final = tuple(kind for kind in KINDS if kind.parts)
"""The kinds that are error envelopes (block 0 of an ``isError`` response)."""

TAIL_ORDER: Final = ", ".join(kind.element for kind in TAIL)
"""``<llm_directives>, <domain_rules>, <action_suggestions>``, for messages."""

FUSION_ELEMENTS: Final = tuple(
    sorted({name for kind in KINDS if kind.tag for name in (kind.tag, *kind.parts)})
)
"""Every element name the Fusion format writes: blocks and envelope parts."""

_BY_NAME: Final = {kind.name: kind for kind in KINDS}
_BY_PARSED: Final = {kind.parsed: kind for kind in KINDS}


def kind_named(name: str) -> BlockKind:
    """The kind called ``name`` (``"domain_rules"``); ``KeyError`` for no such kind."""
    return _BY_NAME[name]


def kind_of(block: object) -> BlockKind:
    """The kind of a parsed block (any :data:`fusion_core.Block`)."""
    return _BY_PARSED[type(block).__name__]
