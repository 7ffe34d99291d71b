"""The billing MCP server: one ``billing`` tool, invoices and clients.

Serve it with ``python -m fusion_core serve examples.billing.app:app``; print a
tour of its wire output with ``python -m examples.billing``.

Handlers return plain rows; the action's Presenter (``returns=``) validates,
masks and dresses them. They are ``async def``: they only read and write an
in-memory store, so they run on the event loop; a handler that blocks (a
database driver, a file) is a plain ``def``, which the app runs in a worker
thread (see docs/serving.md). Errors are self-healing envelopes that tell the agent
what to call instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from fusion_core import FusionApp, ResponseBuilder, Tool, ToolResponse, tool_error, toon_success

from .data import BillingStore, Row
from .presenters import CLIENT, INVOICE, INVOICE_ROW

__all__ = ["BillingContext", "InvoiceFilter", "app", "make_app"]

InvoiceId = Annotated[str, Field(pattern=r"^INV-\d{3,}$", description="Invoice id, e.g. INV-002")]
ClientId = Annotated[str, Field(pattern=r"^C-\d{3,}$", description="Client id, e.g. C-001")]
Status = Literal["paid", "pending", "overdue", "void"]


@dataclass(frozen=True, slots=True)
class BillingContext:
    """What every handler gets as ``ctx``: the store it reads and writes."""

    store: BillingStore


class InvoiceFilter(BaseModel):
    """The filters of ``invoices.list`` (all optional)."""

    status: Status | None = Field(default=None, description="Only invoices with this status")
    client_id: ClientId | None = None


# ------------------------------------------------------------------ errors


def invoice_not_found(invoice_id: str) -> ToolResponse:
    """A self-healing error: what went wrong, what to do, which actions help."""
    return tool_error(
        "INVOICE_NOT_FOUND",
        f"Invoice {invoice_id} does not exist.",
        suggestion="Call billing with action invoices.list to find the id, then retry.",
        available_actions=["invoices.list", "invoices.get"],
        details={"invoice_id": invoice_id},
    )


def client_not_found(client_id: str) -> ToolResponse:
    """The client counterpart of :func:`invoice_not_found`."""
    return tool_error(
        "CLIENT_NOT_FOUND",
        f"Client {client_id} does not exist.",
        suggestion="Call billing with action clients.list to see every client id, then retry.",
        available_actions=["clients.list", "clients.get"],
        details={"client_id": client_id},
    )


# ---------------------------------------------------------------- handlers


async def list_invoices(filters: InvoiceFilter, ctx: BillingContext) -> list[Row]:
    """Rows as stored (line items, margins and all): the Presenter masks them."""
    return ctx.store.find_invoices(status=filters.status, client_id=filters.client_id)


async def get_invoice(invoice_id: InvoiceId, ctx: BillingContext) -> Row | ToolResponse:
    """One invoice with its line items."""
    invoice = ctx.store.invoices.get(invoice_id)
    return invoice if invoice is not None else invoice_not_found(invoice_id)


async def pay_invoice(invoice_id: InvoiceId, ctx: BillingContext) -> ResponseBuilder | ToolResponse:
    """Record a payment; paying a paid invoice is a warning, not an error."""
    invoice = ctx.store.invoices.get(invoice_id)
    if invoice is None:
        return invoice_not_found(invoice_id)
    if invoice["status"] in {"paid", "void"}:
        return tool_error(
            "NOTHING_TO_PAY",
            f"Invoice {invoice_id} is {invoice['status']}: no payment was recorded.",
            suggestion="Tell the user; do not retry.",
            severity="warning",
        )
    invoice["status"] = "paid"
    # make() returns a builder: the handler adds to what the Presenter made.
    return INVOICE.make(invoice, ctx).llm_hint("Confirm the payment to the user in one sentence.")


async def void_invoice(
    invoice_id: InvoiceId, reason: str, ctx: BillingContext
) -> Row | ToolResponse:
    """Void an open invoice (cannot be undone)."""
    invoice = ctx.store.invoices.get(invoice_id)
    if invoice is None:
        return invoice_not_found(invoice_id)
    if invoice["status"] == "paid":
        return tool_error(
            "INVOICE_PAID",
            f"Invoice {invoice_id} is paid and cannot be voided.",
            suggestion="Issue a credit note outside this tool.",
            details={"invoice_id": invoice_id, "reason": reason},
        )
    invoice["status"] = "void"
    return invoice


async def list_clients(ctx: BillingContext) -> ToolResponse:
    """Every client as one compact TOON table.

    The Presenter masks the rows by hand here: an action with ``returns=``
    cannot answer in TOON (see the example's README notes in docs/tools.md).
    """
    return toon_success(CLIENT.mask(list(ctx.store.clients.values())))


async def get_client(client_id: ClientId, ctx: BillingContext) -> Row | ToolResponse:
    """One client."""
    client = ctx.store.clients.get(client_id)
    return client if client is not None else client_not_found(client_id)


# --------------------------------------------------------------------- app


def make_app(store: BillingStore | None = None) -> FusionApp:
    """The billing app over ``store`` (a freshly seeded one by default)."""
    store = store if store is not None else BillingStore.seeded()
    billing = Tool(
        "billing", "Invoices and clients of the billing system (amounts in cents)"
    ).enable_select()

    invoices = billing.group("invoices")
    invoices.action(
        "list",
        list_invoices,
        description="List invoices",
        params=InvoiceFilter,
        returns=INVOICE_ROW,
        read_only=True,
    )
    invoices.action(
        "get",
        get_invoice,
        description="One invoice with its line items",
        returns=INVOICE,
        read_only=True,
    )
    invoices.action(
        "pay",
        pay_invoice,
        description="Record the payment of an invoice",
        returns=INVOICE,
        idempotent=True,
    )
    invoices.action(
        "void",
        void_invoice,
        description="Void an open invoice",
        returns=INVOICE,
        destructive=True,
    )

    clients = billing.group("clients")
    clients.action(
        "list", list_clients, description="Every client, as a TOON table", read_only=True
    )
    clients.action("get", get_client, description="One client", returns=CLIENT, read_only=True)

    context = BillingContext(store)
    return FusionApp([billing], name="billing", context_factory=lambda: context)


app: FusionApp = make_app()
"""The served app: ``python -m fusion_core serve examples.billing.app:app``."""
