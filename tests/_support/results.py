"""FusionResult values for unit tests, built as the in-process transport builds them."""

from __future__ import annotations

from typing import Any

from fusion_core import ToolResponse, parse, view_of
from pytest_mcpfusion import FusionResult


def result_of(response: ToolResponse, tool: str = "billing", **arguments: Any) -> FusionResult:
    """The result the fixtures give for ``response`` (view from the builder)."""
    return FusionResult(dict(response), view_of(response), tool=tool, arguments=arguments)


def wire_result(wire: dict[str, Any], tool: str = "billing") -> FusionResult:
    """The result the fixtures give for a foreign server's wire dict (view parsed)."""
    return FusionResult(wire, parse(wire).view, tool=tool, arguments={})
