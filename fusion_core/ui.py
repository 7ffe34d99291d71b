"""UI helpers, used as ``ui.summary(...)``, ``ui.table(...)`` and so on.

``ui.echarts``, ``ui.mermaid``, ``ui.markdown``, ``ui.code_block``, ``ui.table``,
``ui.list``, ``ui.json``, ``ui.summary`` and the one ``ui.fence``.

Each returns a :class:`~fusion_core.UiBlock` and takes optional keyword meta:
``title``, ``width`` (``"full"``, ``"half"`` or ``"third"``) and ``priority``.
"""

from __future__ import annotations

from ._ui import (
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
json = json_block

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
