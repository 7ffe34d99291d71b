"""Block-by-block explanations for ``assert`` on results, responses and views."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from fusion_core import ResponseView, ToolResponse, view_of
from fusion_core._snapshot._changes import diff_snapshots
from fusion_core._snapshot._format import dump_snapshot
from fusion_core._terminal import terminal_safe
from pytest_mcpfusion._result import FusionResult

__all__ = ["explain"]

_VIEW_FIELDS = [field.name for field in fields(ResponseView)]


def explain(left: object, right: object) -> list[str]:
    """Lines for pytest's assertion message; the first is the summary.

    The blocks may be a server's: every line is terminal-safe.
    """
    if isinstance(left, ResponseView) or isinstance(right, ResponseView):
        lines = _explain_views(_view(left), _view(right))
    else:
        diff = diff_snapshots(
            dump_snapshot(_wire(right)), dump_snapshot(_wire(left)), labels=("right", "left")
        )
        lines = ["the responses differ, block by block (- right, + left):"]
        lines.extend(line.rstrip("\n") for line in diff)
    return [terminal_safe(line) for line in lines]


def _wire(value: object) -> dict[str, Any]:
    if isinstance(value, FusionResult):
        return value.wire_dict
    if isinstance(value, ToolResponse):
        return dict(value)
    return {"content": [{"type": "text", "text": repr(value)}]}


def _view(value: object) -> ResponseView:
    if isinstance(value, ResponseView):
        return value
    if isinstance(value, FusionResult):
        return value.view
    if isinstance(value, ToolResponse):
        return view_of(value)
    return ResponseView(data=value)


def _explain_views(left: ResponseView, right: ResponseView) -> list[str]:
    lines = ["the views say different things on the wire:"]
    for name in _VIEW_FIELDS:
        mine, theirs = getattr(left, name), getattr(right, name)
        if mine == theirs:
            continue
        if isinstance(mine, tuple) and isinstance(theirs, tuple):
            lines.append(f"{name}: {len(mine)} item(s) left, {len(theirs)} right")
            for index in range(max(len(mine), len(theirs))):
                a = mine[index] if index < len(mine) else "<missing>"
                b = theirs[index] if index < len(theirs) else "<missing>"
                if a != b:
                    lines.append(f"  [{index}] left:  {a!r}")
                    lines.append(f"  [{index}] right: {b!r}")
        else:
            lines.append(f"{name}: left {mine!r}")
            lines.append(f"{' ' * len(name)}  right {theirs!r}")
    if len(lines) == 1:
        lines.append("(the fields differ only in how they place the same blocks)")
    return lines
