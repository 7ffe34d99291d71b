"""The framework internals the ``use_fusion`` integrations rely on are still there.

``fusion_core._mcp._upstream_mcpserver`` and ``_upstream_fastmcp`` hold every
reach past the public API of the ``mcp`` SDK's ``MCPServer`` and of FastMCP,
each checked against one version. When an upgrade changes that shape, these
tests name what went missing, before any wire test fails in a stranger way.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from fastmcp import FastMCP
from fastmcp.tools import function_tool
from fastmcp.tools.base import Tool
from mcp.server.mcpserver import MCPServer, exceptions

from fusion_core._mcp import _upstream_fastmcp, _upstream_mcpserver

UPSTREAMS = [
    pytest.param(_upstream_mcpserver, "mcp", id="mcpserver"),
    pytest.param(_upstream_fastmcp, "fastmcp", id="fastmcp"),
]


@pytest.mark.parametrize(("module", "distribution"), UPSTREAMS)
def test_the_shape_relied_on_is_there(module: ModuleType, distribution: str) -> None:
    """Every private attribute and signature the integration uses exists as it expects."""
    assert module.shape_problems() == [], (
        f"{distribution} {importlib.metadata.version(distribution)} changed what "
        f"{module.__name__} relies on (checked against {module.CHECKED_AGAINST})"
    )


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


@pytest.mark.parametrize(("module", "distribution"), UPSTREAMS)
def test_the_checked_version_is_the_installed_one(module: ModuleType, distribution: str) -> None:
    """The module names the version it was checked against, in the series the dev extra pins."""
    name, checked = module.CHECKED_AGAINST.split(" ")
    assert name == distribution
    assert _minor(checked) == _minor(importlib.metadata.version(distribution))
    assert module.CHECKED_AGAINST in (module.__doc__ or "")


def _after_init(monkeypatch: pytest.MonkeyPatch, kind: type, change: Callable[[Any], None]) -> None:
    """Every new ``kind`` instance gets ``change`` applied once its own ``__init__`` ran."""
    original = kind.__dict__["__init__"]

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        change(self)

    monkeypatch.setattr(kind, "__init__", init)


def test_a_missing_private_attribute_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shape change is reported by name (here: the tool manager renamed away)."""
    _after_init(monkeypatch, MCPServer, lambda server: delattr(server, "_tool_manager"))
    assert _upstream_mcpserver.shape_problems() == ["MCPServer._tool_manager.get_tool"]


def test_a_changed_fastmcp_signature_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A FastMCP method whose signature moved is reported by name."""

    def convert_result(self: Tool, raw: object, extra: object = None) -> object:
        return raw

    monkeypatch.setattr(Tool, "convert_result", convert_result)
    assert _upstream_fastmcp.shape_problems() == ["Tool.convert_result(raw_value)"]


def test_the_crash_shapes_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the crash answers read: MCPServer's crash error, FastMCP's body wrapper and mask."""
    monkeypatch.delattr(exceptions, "UnexpectedToolError")
    assert _upstream_mcpserver.shape_problems() == [
        "mcp.server.mcpserver.exceptions.UnexpectedToolError(ToolError)"
    ]
    monkeypatch.delattr(function_tool, "_ToolBodyError")
    _after_init(monkeypatch, FastMCP, lambda server: delattr(server, "_mask_error_details"))
    assert _upstream_fastmcp.shape_problems() == [
        "FastMCP._mask_error_details",
        "fastmcp.tools.function_tool._ToolBodyError",
    ]


def test_the_low_level_server_in_process_clients_reach_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a FastMCP server is reached through in process (its SDK Server) is checked too."""
    _after_init(monkeypatch, FastMCP, lambda server: delattr(server, "_mcp_server"))
    assert _upstream_fastmcp.shape_problems() == ["FastMCP._mcp_server (an mcp.server.Server)"]


def test_what_a_mounted_tool_keeps_of_its_server_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mounted tool that no longer keeps its server where it was checked is named."""
    from fastmcp.server.providers.fastmcp_provider import FastMCPProviderTool  # noqa: PLC0415

    _after_init(monkeypatch, FastMCPProviderTool, lambda tool: setattr(tool, "_server", None))
    assert _upstream_fastmcp.shape_problems() == [
        "FastMCPProviderTool._server (a mounted tool's server)"
    ]
