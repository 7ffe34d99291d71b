"""The example's data source: an in-memory store shaped like a database's rows.

Rows carry more than the agent may see — each client's Stripe secret, each
invoice's internal margin and each line's unit cost. The Presenters decide what
reaches the wire; the store does not try to help.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final

Row = dict[str, Any]

_CLIENTS: Final[list[Row]] = [
    {
        "id": "C-001",
        "name": "Padaria Lisboa Lda.",
        "country": "PT",
        "email": "contas@padaria.example",
        "stripe_customer_secret": "sk_live_padaria_7f3a9c",
    },
    {
        "id": "C-002",
        "name": "Kaffeehaus Wien GmbH",
        "country": "AT",
        "email": "office@kaffeehaus.example",
        "stripe_customer_secret": "sk_live_kaffeehaus_01bd44",
    },
    {
        "id": "C-003",
        "name": "Nordlys Design AS",
        "country": "NO",
        "email": "faktura@nordlys.example",
        "stripe_customer_secret": "sk_live_nordlys_c0ffee",
    },
]


def _line(sku: str, description: str, quantity: int, unit_price: int, unit_cost: int) -> Row:
    return {
        "sku": sku,
        "description": description,
        "quantity": quantity,
        "unit_price_cents": unit_price,
        "unit_cost_cents": unit_cost,
        "total_cents": quantity * unit_price,
    }


def _invoice(
    number: str, client_id: str, status: str, issued_on: date, lines: list[Row], *, margin: float
) -> Row:
    return {
        "id": number,
        "client_id": client_id,
        "status": status,
        "issued_on": issued_on,
        "currency": "EUR",
        "amount_cents": sum(line["total_cents"] for line in lines),
        "lines": lines,
        "internal_margin": margin,
    }


_INVOICES: Final[list[Row]] = [
    _invoice(
        "INV-001", "C-001", "paid", date(2026, 7, 1),
        [_line("WEB-DESIGN", "Website redesign", 1, 350_000, 210_000),
         _line("HOSTING-Y", "Hosting, 12 months", 1, 100_000, 40_000)],
        margin=0.3141,
    ),
    _invoice(
        "INV-002", "C-002", "pending", date(2026, 8, 3),
        [_line("CONSULT-H", "Consulting hours", 8, 12_500, 6_000),
         _line("LICENSE", "Menu board licence", 2, 10_000, 1_000)],
        margin=0.1872,
    ),
    _invoice(
        "INV-003", "C-001", "overdue", date(2026, 8, 14),
        [_line("PRINT", "Printed menus", 350, 250, 120)],
        margin=0.4263,
    ),
    _invoice(
        "INV-004", "C-003", "paid", date(2026, 9, 2),
        [_line("BRANDING", "Brand identity", 1, 480_000, 300_000),
         _line("CONSULT-H", "Consulting hours", 4, 12_500, 6_000)],
        margin=0.2758,
    ),
    _invoice(
        "INV-005", "C-002", "pending", date(2026, 9, 20),
        [_line("HOSTING-Y", "Hosting, 12 months", 1, 100_000, 40_000)],
        margin=0.6094,
    ),
]  # fmt: skip


@dataclass
class BillingStore:
    """Clients and invoices, in cents, as a real backend would hold them."""

    clients: dict[str, Row] = field(default_factory=dict)
    invoices: dict[str, Row] = field(default_factory=dict)

    @classmethod
    def seeded(cls) -> BillingStore:
        """A fresh store with the demo data (each store has its own copy)."""
        return cls(
            clients={row["id"]: copy.deepcopy(row) for row in _CLIENTS},
            invoices={row["id"]: copy.deepcopy(row) for row in _INVOICES},
        )

    def find_invoices(
        self, *, status: str | None = None, client_id: str | None = None
    ) -> list[Row]:
        """Invoices matching the filters, oldest first."""
        return [
            row
            for row in self.invoices.values()
            if (status is None or row["status"] == status)
            and (client_id is None or row["client_id"] == client_id)
        ]
