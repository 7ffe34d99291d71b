"""UI helpers, used as ``ui.summary(...)``, ``ui.table(...)`` and so on.

``ui.echarts``, ``ui.mermaid``, ``ui.markdown``, ``ui.code_block``, ``ui.table``,
``ui.list``, ``ui.json``, ``ui.summary`` and the one ``ui.fence``.

Each returns a :class:`~fusion_core.UiBlock` and takes optional keyword meta:
``title``, ``width`` (``"full"``, ``"half"`` or ``"third"``) and ``priority``.
"""

from __future__ import annotations

from fusion_core._write._ui import (
    UiBlock,
    UiMeta,
    code_block,
    echarts,
    fence,
    json_block,
    list_block,
    markdown,
    mermaid,
    summary,
    table,
)

list = list_block  # noqa: A001 - the reference's name; ui.list reads as intended
"""``ui.list(items, *, title=None, width=None, priority=None)``: a Markdown bullet list.

Continuation lines of an item are indented, so a line of an item never
starts a Markdown block of its own (a nested item, a heading...).
"""

json = json_block
"""``ui.json(value, *, title=None, width=None, priority=None)``: JSON in a ``json`` fence."""

__all__ = [
    "UiBlock",
    "UiMeta",
    "code_block",
    "echarts",
    "fence",
    "json",
    "list",
    "markdown",
    "mermaid",
    "summary",
    "table",
]
