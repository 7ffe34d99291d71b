"""Print the wire output of a tour of the billing tool: ``python -m examples.billing``.

Each call gets a header (the tool call as an agent would send it), then its
blocks exactly as they go on the wire, separated by a rule.
"""

from __future__ import annotations

import json
from typing import Any, Final

from .app import make_app

TOUR: Final[list[tuple[str, dict[str, Any]]]] = [
    ("One invoice: masked data, summary, embedded line items, rules, suggestions",
     {"action": "invoices.get", "invoice_id": "INV-002"}),
    ("Every invoice: a revenue chart as collection UI",
     {"action": "invoices.list"}),
    ("_select narrows the data block only",
     {"action": "invoices.list", "status": "pending", "_select": ["id", "amount_cents"]}),
    ("Clients as a TOON table",
     {"action": "clients.list"}),
    ("Paying adds a directive to what the Presenter made",
     {"action": "invoices.pay", "invoice_id": "INV-003"}),
    ("Paying twice is a warning (isError stays false)",
     {"action": "invoices.pay", "invoice_id": "INV-003"}),
    ("A missing invoice: a self-healing error",
     {"action": "invoices.get", "invoice_id": "INV-404"}),
    ("Arguments the schema rejects",
     {"action": "invoices.get", "invoice_id": "42", "note": "hi"}),
]  # fmt: skip

RULE: Final = "─" * 72


def main() -> None:
    """Run the tour against a freshly seeded store and print every block."""
    app = make_app()
    for title, arguments in TOUR:
        result = app.call_sync("billing", arguments)
        print("═" * 72)
        print(f"# {title}")
        print(f"billing {json.dumps(arguments, ensure_ascii=False)}")
        if "isError" in result:
            print(f"isError: {json.dumps(result['isError'])}")
        for index, text in enumerate(result.texts):
            print(f"{RULE} block {index + 1}/{len(result.texts)}")
            print(text)
        print()


if __name__ == "__main__":
    main()
