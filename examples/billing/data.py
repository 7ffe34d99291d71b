"""The example's in-memory billing data: clients and invoices in cents."""

from __future__ import annotations

from typing import Any, Final

CLIENTS: Final[dict[str, dict[str, Any]]] = {
    "C-001": {"id": "C-001", "name": "Padaria Lisboa Lda.", "country": "PT"},
    "C-002": {"id": "C-002", "name": "Kaffeehaus Wien GmbH", "country": "AT"},
}

INVOICES: Final[list[dict[str, Any]]] = [
    {"id": "INV-001", "client_id": "C-001", "amount_cents": 450_000, "status": "paid",
     "issued_on": "2026-09-01", "internal_margin": 0.31},
    {"id": "INV-002", "client_id": "C-002", "amount_cents": 120_000, "status": "pending",
     "issued_on": "2026-10-03", "internal_margin": 0.18},
    {"id": "INV-003", "client_id": "C-001", "amount_cents": 87_550, "status": "overdue",
     "issued_on": "2026-08-14", "internal_margin": 0.42},
]
