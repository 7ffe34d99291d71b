"""Invoice-like rows shared by the benchmarks."""

from __future__ import annotations

from typing import Any

STATUSES = ("paid", "pending", "overdue")


def invoice_rows(count: int, *, ascii_only: bool = False) -> list[dict[str, Any]]:
    """``count`` invoice rows: ids, a client, cents, a tax rate, dates, a note.

    One row in five has a note; with ``ascii_only=False`` it is Portuguese
    (accents and an em dash), which makes the JSON text non-ASCII.
    """
    note = "Consulting services - March" if ascii_only else "Serviços de consultoria — março"
    return [
        {
            "id": f"INV-{index:06d}",
            "client_id": f"C-{index % 97:03d}",
            "client_name": f"Client {index % 97} Lda.",
            "amount_cents": 1000 + (index * 37) % 250_000,
            "tax_rate": (0.23, 0.13, 0.06)[index % 3],
            "status": STATUSES[index % 3],
            "issued_on": f"2026-{1 + index % 12:02d}-{1 + index % 28:02d}",
            "paid": index % 3 == 0,
            "note": note if index % 5 == 0 else None,
        }
        for index in range(count)
    ]
