"""The example's tool handlers: each returns a finished Fusion response."""

from __future__ import annotations

from typing import Any

from fusion_core import ToolResponse, response, tool_error, toon_success, ui

from .data import CLIENTS, INVOICES

PUBLIC_FIELDS = ("id", "client_id", "amount_cents", "status", "issued_on")
RULES = [
    "CRITICAL: amounts are in CENTS: divide by 100 before showing them.",
    "Show status with emojis: ✅ paid, ⏳ pending, ⚠️ overdue.",
]


def _public(invoice: dict[str, Any]) -> dict[str, Any]:
    """Only the fields the agent may see (the margin stays private)."""
    return {field: invoice[field] for field in PUBLIC_FIELDS}


def get_invoice(invoice_id: str) -> ToolResponse:
    """One invoice with its rules and a next step, or a self-healing error."""
    for invoice in INVOICES:
        if invoice["id"] == invoice_id:
            builder = response(_public(invoice)).system_rules(RULES)
            if invoice["status"] != "paid":
                builder.system_hint([("billing.pay", "Offer immediate payment")])
            return builder.build()
    return tool_error(
        "INVOICE_NOT_FOUND",
        f"Invoice {invoice_id!r} does not exist.",
        suggestion="Call billing.list_invoices to see valid ids, then retry.",
        available_actions=["billing.list_invoices"],
    )


def list_invoices() -> ToolResponse:
    """All invoices with a revenue chart and a summary."""
    total = sum(invoice["amount_cents"] for invoice in INVOICES)
    chart = {
        "xAxis": {"type": "category", "data": [i["id"] for i in INVOICES]},
        "yAxis": {"type": "value"},
        "series": [{"type": "bar", "data": [i["amount_cents"] / 100 for i in INVOICES]}],
    }
    return (
        response([_public(invoice) for invoice in INVOICES])
        .ui_block(ui.echarts(chart, title="Revenue by invoice", width="full"))
        .ui_block(ui.summary(f"{len(INVOICES)} invoices totaling {total / 100:,.2f} EUR."))
        .system_rules(RULES)
        .build()
    )


def list_clients_toon() -> ToolResponse:
    """The clients as a compact TOON table."""
    return toon_success(list(CLIENTS.values()))
