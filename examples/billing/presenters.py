"""How billing entities are shown to an agent: one Presenter per entity.

Each schema declares exactly what may reach the wire. The rows in ``data.py``
carry more (``stripe_customer_secret``, ``unit_cost_cents``, ``internal_margin``);
undeclared fields are dropped and ``Field(exclude=True)`` fields stay hidden,
whichever path a handler takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, Final, Literal

from pydantic import BaseModel, Field

from fusion_core import Presenter, UiBlock, ui

__all__ = [
    "CENTS_RULE",
    "CLIENT",
    "INVOICE",
    "INVOICE_ROW",
    "LINE_ITEMS",
    "Client",
    "Invoice",
    "InvoiceRow",
    "LineItem",
    "money",
]

CENTS_RULE: Final = (
    "CRITICAL: amounts are in CENTS. Divide by 100 before showing them (120000 → 1,200.00)."
)
STATUS_RULE: Final = "Show status with emojis: ✅ paid, ⏳ pending, ⚠️ overdue, ✖️ void."
STATUS_ICON: Final = {"paid": "✅", "pending": "⏳", "overdue": "⚠️", "void": "✖️"}


def money(cents: int, currency: str = "EUR") -> str:
    """Cents as the agent should show them: ``120000`` → ``1,200.00 EUR``."""
    return f"{cents / 100:,.2f} {currency}"


# ---------------------------------------------------------------- line items


class LineItem(BaseModel):
    """One line of an invoice. The row's ``unit_cost_cents`` is not declared."""

    sku: str
    description: str
    quantity: int = Field(ge=1)
    unit_price_cents: int
    total_cents: int


def _lines_table(lines: list[dict[str, Any]], _ctx: Any) -> list[UiBlock]:
    rows = [
        [line["sku"], line["description"], line["quantity"],
         money(line["unit_price_cents"]), money(line["total_cents"])]
        for line in lines
    ]  # fmt: skip
    return [ui.table(["SKU", "Description", "Qty", "Unit price", "Total"], rows)]


LINE_ITEMS: Final = Presenter(
    "LineItem",
    LineItem,
    collection_rules=["Line totals are quantity × unit_price_cents, in cents."],
    collection_ui=_lines_table,
)

# ------------------------------------------------------------------ invoices


class InvoiceRow(BaseModel):
    """An invoice in a list: no line items. ``internal_margin`` is hidden."""

    id: str
    client_id: str
    status: Literal["paid", "pending", "overdue", "void"]
    issued_on: date
    currency: str
    amount_cents: int
    internal_margin: float = Field(default=0.0, exclude=True)


class Invoice(InvoiceRow):
    """One invoice with its line items."""

    lines: list[LineItem]


def _invoice_rules(invoice: dict[str, Any], _ctx: Any) -> list[str | None]:
    overdue = invoice["status"] == "overdue"
    return [
        CENTS_RULE,
        STATUS_RULE,
        f"{invoice['id']} is overdue: say so before anything else." if overdue else None,
    ]


def _invoice_ui(invoice: dict[str, Any], _ctx: Any) -> list[UiBlock]:
    icon = STATUS_ICON[invoice["status"]]
    amount = money(invoice["amount_cents"], invoice["currency"])
    return [ui.summary(f"{invoice['id']} · {icon} {invoice['status']} · {amount}")]


def _invoice_suggestions(invoice: dict[str, Any], _ctx: Any) -> list[tuple[str, str] | None]:
    open_ = invoice["status"] in {"pending", "overdue"}
    return [
        ("billing.invoices.pay", f"Record payment of {invoice['id']}") if open_ else None,
        ("billing.clients.get", f"Show client {invoice['client_id']}"),
    ]


INVOICE: Final = Presenter(
    "Invoice",
    Invoice,
    rules=_invoice_rules,
    ui=_invoice_ui,
    suggest=_invoice_suggestions,
).embed("lines", LINE_ITEMS)


def _revenue_chart(invoices: list[dict[str, Any]], _ctx: Any) -> list[UiBlock]:
    by_month: dict[str, int] = {}
    for invoice in invoices:
        if invoice["status"] != "void":
            month = invoice["issued_on"][:7]  # masked: dates are ISO strings now
            by_month[month] = by_month.get(month, 0) + invoice["amount_cents"]
    chart = {
        "title": {"text": "Revenue by month (EUR)"},
        "xAxis": {"type": "category", "data": list(by_month)},
        "yAxis": {"type": "value"},
        "series": [{"type": "bar", "data": [cents / 100 for cents in by_month.values()]}],
    }
    total = sum(by_month.values())
    open_cents = sum(i["amount_cents"] for i in invoices if i["status"] in {"pending", "overdue"})
    return [
        ui.echarts(chart, title="Revenue", width="full"),
        ui.summary(f"{len(invoices)} invoices, {money(total)} billed, {money(open_cents)} open."),
    ]


def _collection_rules(invoices: Sequence[dict[str, Any]], _ctx: Any) -> list[str | None]:
    overdue = [i["id"] for i in invoices if i["status"] == "overdue"]
    return [f"Overdue: {', '.join(overdue)}. Mention them first." if overdue else None]


def _collection_suggestions(
    invoices: Sequence[dict[str, Any]], _ctx: Any
) -> list[tuple[str, str] | None]:
    overdue = any(i["status"] == "overdue" for i in invoices)
    return [
        ("billing.invoices.get", "Open one invoice to see its line items"),
        ("billing.invoices.list", "Filter with status='overdue' to chase payments")
        if overdue
        else None,
    ]


INVOICE_ROW: Final = Presenter(
    "InvoiceRow",
    InvoiceRow,
    rules=[CENTS_RULE, STATUS_RULE],
    collection_rules=_collection_rules,
    collection_ui=_revenue_chart,
    collection_suggest=_collection_suggestions,
    agent_limit=25,
)

# ------------------------------------------------------------------- clients


class Client(BaseModel):
    """A client. The row's ``stripe_customer_secret`` is not declared."""

    id: str
    name: str
    country: str = Field(min_length=2, max_length=2)
    email: str


CLIENT: Final = Presenter(
    "Client",
    Client,
    rules=["Client ids look like C-001; pass them as client_id to billing invoices.list."],
    suggest=lambda client, _ctx: [
        ("billing.invoices.list", f"List invoices of {client['id']} with client_id={client['id']}")
    ],
)
