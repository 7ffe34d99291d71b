"""The shop app and its call tests that the plugin's integration tests write with pytester."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

APP_SOURCE = textwrap.dedent(
    """
    from pydantic import BaseModel

    from fusion_core import FusionApp, Presenter, Tool, tool_error, ui


    class Invoice(BaseModel):
        id: str
        amount_cents: int
        status: str


    INVOICES = {
        "INV-1": {"id": "INV-1", "amount_cents": 4500, "status": "paid", "secret": "s3cr3t"},
        "INV-2": {"id": "INV-2", "amount_cents": 1200, "status": "pending", "secret": "s3cr3t"},
    }

    invoice = Presenter(
        "Invoice",
        schema=Invoice,
        rules=["Amounts are in cents: divide by 100."],
        collection_ui=lambda items, ctx: [ui.summary(f"{len(items)} invoices")],
    )

    billing = Tool("billing", "Invoices of the shop").enable_select()


    @billing.action("get", description="One invoice", returns=invoice, read_only=True)
    def get(id: str, ctx: object = None) -> object:
        if id not in INVOICES:
            return tool_error(
                "NOT_FOUND", f"Invoice {id} does not exist.", suggestion="Call billing.list."
            )
        return INVOICES[id]


    @billing.action("list", description="All invoices", returns=invoice, read_only=True)
    def list_(ctx: object = None) -> object:
        return list(INVOICES.values())


    @billing.action("whoami", description="The caller", read_only=True)
    def whoami(ctx: object = None) -> object:
        return {"user": getattr(ctx, "user", ctx)}


    app = FusionApp([billing], name="shop")
    """
)


CALL_TESTS = """
from pytest_mcpfusion import FusionResult


def test_get(fusion_call):
    result = fusion_call("billing", "get", id="INV-1")
    assert isinstance(result, FusionResult)
    assert result.data == {"id": "INV-1", "amount_cents": 4500, "status": "paid"}
    assert result.system_rules == ("Amounts are in cents: divide by 100.",)
    assert not result.is_error
    assert "s3cr3t" not in result.wire


def test_list_ui(fusion_call):
    result = fusion_call("billing", "list")
    assert [block.type for block in result.ui_blocks] == ["summary"]
    assert result.ui_blocks[0].content.endswith("2 invoices")


def test_select(fusion_call):
    result = fusion_call("billing", "get", id="INV-2", select=["amount_cents"])
    assert result.data == {"amount_cents": 1200}


def test_error(fusion_call):
    result = fusion_call("billing", "get", id="nope")
    assert result.is_error
    assert result.error.code == "NOT_FOUND"
    assert result.error.recovery == "Call billing.list."


def test_app_fixture(fusion_app):
    assert [d["name"] for d in fusion_app.definitions()] == ["billing"]
"""
"""Tests a downstream project writes with ``fusion_call`` against ``shop``."""

UNBOUNDED_SERVER = f"{sys.executable} {ROOT / 'tests' / '_support' / 'unbounded_sdk_server.py'}"
"""A plain-SDK server (no fusion_core) whose ``grow`` answers with ``n`` characters."""
