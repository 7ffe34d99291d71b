"""Exact wire snapshots of the billing tour (``python -m examples.billing``).

Each call's blocks are stored byte for byte in ``__snapshots__/test_wire/``,
one section per block with its kind in the header, so a review shows what
changed on the wire. Write them with ``pytest examples/billing/tests
--snapshot-update``; a one-character change in a Presenter fails with a diff
that names the block.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from pytest_mcpfusion import FusionCall

TOUR: Final[dict[str, tuple[str, dict[str, Any]]]] = {
    "get": ("invoices.get", {"invoice_id": "INV-002"}),
    "list": ("invoices.list", {}),
    "list-select": ("invoices.list", {"status": "pending", "_select": ["id", "amount_cents"]}),
    "clients-toon": ("clients.list", {}),
    "not-found": ("invoices.get", {"invoice_id": "INV-404"}),
    "invalid": ("invoices.get", {"invoice_id": "42", "note": "hi"}),
}


@pytest.mark.parametrize(("action", "args"), TOUR.values(), ids=TOUR.keys())
def test_tour(
    fusion_call: FusionCall,
    fusion_snapshot: SnapshotAssertion,
    action: str,
    args: dict[str, Any],
) -> None:
    """Every stop of the tour answers exactly the stored blocks."""
    assert fusion_call("billing", action, **args) == fusion_snapshot


def test_paying_twice(fusion_call: FusionCall, fusion_snapshot: SnapshotAssertion) -> None:
    """The payment, then the warning envelope for paying again."""
    paid = fusion_call("billing", "invoices.pay", invoice_id="INV-003")
    assert paid == fusion_snapshot(name="paid")
    again = fusion_call("billing", "invoices.pay", invoice_id="INV-003")
    assert again == fusion_snapshot(name="warning")
