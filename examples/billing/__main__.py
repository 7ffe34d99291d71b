"""Print the wire output of the example's tools: ``python -m examples.billing``."""

from __future__ import annotations

from collections.abc import Callable

from fusion_core import ToolResponse

from .tools import get_invoice, list_clients_toon, list_invoices

CALLS: list[tuple[str, Callable[[], ToolResponse]]] = [
    ("billing.get_invoice(INV-002)", lambda: get_invoice("INV-002")),
    ("billing.list_invoices()", list_invoices),
    ("billing.list_clients(format=toon)", list_clients_toon),
    ("billing.get_invoice(INV-404)", lambda: get_invoice("INV-404")),
]


def main() -> None:
    """Each call's blocks, exactly as they go on the wire."""
    for name, call in CALLS:
        result = call()
        flag = "  isError: true" if result.is_error else ""
        print(f"=== {name}{flag}")
        for index, text in enumerate(result.texts):
            print(f"--- block {index}")
            print(text)
        print()


if __name__ == "__main__":
    main()
