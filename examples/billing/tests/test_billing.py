"""The billing example, called the way an MCP client calls it.

Every test goes through ``call(tool, action, **args)``: the app's pipeline,
the actions' Presenters and the wire bytes, exactly as ``tools/call`` answers.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from examples.billing.app import make_app
from examples.billing.data import BillingStore
from fusion_core import FusionApp, ToolResponse, view_of


def call(tool: str, action: str, *, on: FusionApp | None = None, **args: Any) -> ToolResponse:
    """Call ``tool`` with ``action`` and ``args`` (on a freshly seeded app unless ``on``)."""
    app = on if on is not None else make_app()
    return app.call_sync(tool, {"action": action, **args})


def data(result: ToolResponse) -> Any:
    """The data block, parsed."""
    return json.loads(result.texts[0])


SEEDED = BillingStore.seeded()
SECRETS = [
    *(client["stripe_customer_secret"] for client in SEEDED.clients.values()),
    *(str(invoice["internal_margin"]) for invoice in SEEDED.invoices.values()),
    "sk_live",
]
HIDDEN_KEYS = ["stripe_customer_secret", "internal_margin", "unit_cost_cents"]

# Every action, on its happy and unhappy paths.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("invoices.list", {}),
    ("invoices.list", {"status": "overdue"}),
    ("invoices.list", {"client_id": "C-002", "_select": ["id", "lines", "client_id"]}),
    ("invoices.get", {"invoice_id": "INV-001"}),
    ("invoices.get", {"invoice_id": "INV-002", "_select": ["lines"]}),
    ("invoices.get", {"invoice_id": "INV-404"}),
    ("invoices.get", {"invoice_id": "not-an-id"}),
    ("invoices.pay", {"invoice_id": "INV-002"}),
    ("invoices.pay", {"invoice_id": "INV-001"}),
    ("invoices.void", {"invoice_id": "INV-005", "reason": "duplicate"}),
    ("invoices.void", {"invoice_id": "INV-004", "reason": "duplicate"}),
    ("clients.list", {}),
    ("clients.list", {"_select": ["name"]}),
    ("clients.get", {"client_id": "C-003"}),
    ("clients.get", {"client_id": "C-999"}),
]


# ------------------------------------------------------------ masking


def test_invoice_is_masked_to_its_schema() -> None:
    """Declared fields only, in schema order; line items masked too."""
    result = call("billing", "invoices.get", invoice_id="INV-003")
    assert data(result) == {
        "id": "INV-003",
        "client_id": "C-001",
        "status": "overdue",
        "issued_on": "2026-08-14",
        "currency": "EUR",
        "amount_cents": 87500,
        "lines": [
            {
                "sku": "PRINT",
                "description": "Printed menus",
                "quantity": 350,
                "unit_price_cents": 250,
                "total_cents": 87500,
            }
        ],
    }
    assert list(data(result)) == ["id", "client_id", "status", "issued_on", "currency",
                                  "amount_cents", "lines"]  # fmt: skip


def test_list_rows_drop_line_items() -> None:
    """The list Presenter does not declare ``lines``: rows stay small."""
    rows = data(call("billing", "invoices.list"))
    assert [row["id"] for row in rows] == ["INV-001", "INV-002", "INV-003", "INV-004", "INV-005"]
    assert all("lines" not in row for row in rows)


@pytest.mark.parametrize(
    ("action", "args"), CALLS, ids=[f"{action}-{n}" for n, (action, _) in enumerate(CALLS)]
)
def test_hidden_fields_never_leak(action: str, args: dict[str, Any]) -> None:
    """No secret value (nor hidden key) in any block, view or wire dict, on any action."""
    app = make_app()
    result = call("billing", action, on=app, **args)
    wire = json.dumps(dict(result), ensure_ascii=False) + repr(view_of(result))
    for secret in SECRETS:
        assert secret not in wire, f"{secret!r} leaked from {action} {args}"
    for key in HIDDEN_KEYS:
        assert key not in wire, f"{key!r} leaked from {action} {args}"


def test_select_naming_a_hidden_field_is_refused() -> None:
    """``_select`` cannot reach a hidden or undeclared field: it is a validation error."""
    result = call("billing", "invoices.get", invoice_id="INV-001",
                  _select=["internal_margin", "stripe_customer_secret"])  # fmt: skip
    assert result.is_error
    assert '<field name="_select.0">' in result.texts[0]
    assert '<field name="_select.1">' in result.texts[0]
    assert not any(secret in result.texts[0] for secret in SECRETS)


# ----------------------------------------------------- rules and UI


def test_cents_rule_on_every_invoice_answer() -> None:
    """The 'divide by 100' rule goes with invoices, single or listed."""
    rule = "CRITICAL: amounts are in CENTS. Divide by 100 before showing them (120000 → 1,200.00)."
    single = call("billing", "invoices.get", invoice_id="INV-001")
    listed = call("billing", "invoices.list")
    assert rule in view_of(single).rules
    assert rule in view_of(listed).rules


def test_overdue_rule_is_dynamic() -> None:
    """Item rules depend on the invoice; collection rules on the whole list."""
    overdue = view_of(call("billing", "invoices.get", invoice_id="INV-003")).rules
    paid = view_of(call("billing", "invoices.get", invoice_id="INV-001")).rules
    assert "INV-003 is overdue: say so before anything else." in overdue
    assert not any("overdue:" in rule for rule in paid)
    listed = view_of(call("billing", "invoices.list")).rules
    assert "Overdue: INV-003. Mention them first." in listed


def test_single_invoice_has_item_ui_and_embedded_lines() -> None:
    """Item UI (a summary), then the embedded LineItem blocks: a table and its rule."""
    texts = call("billing", "invoices.get", invoice_id="INV-002").texts
    assert texts[1] == (
        '<ui_passthrough type="summary">\n📊 **Summary**: INV-002 · ⏳ pending · 1,200.00 EUR\n'
        "</ui_passthrough>"
    )
    assert texts[2] == (
        '<ui_passthrough type="markdown">\n'
        "| SKU | Description | Qty | Unit price | Total |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| CONSULT-H | Consulting hours | 8 | 125.00 EUR | 1,000.00 EUR |\n"
        "| LICENSE | Menu board licence | 2 | 100.00 EUR | 200.00 EUR |\n"
        "</ui_passthrough>"
    )
    assert texts[3] == (
        "<domain_rules>\n- Line totals are quantity × unit_price_cents, in cents.\n</domain_rules>"
    )
    assert "echarts" not in "".join(texts)


def test_list_has_revenue_chart_as_collection_ui() -> None:
    """A list gets the echarts revenue chart (in units, not cents) and a summary."""
    result = call("billing", "invoices.list")
    chart_block = result.texts[1]
    assert chart_block.startswith(
        '<ui_passthrough type="echarts" title="Revenue" width="full">\n```echarts\n'
    )
    chart = json.loads(chart_block.split("```echarts\n", 1)[1].rsplit("\n```", 1)[0])
    assert chart["xAxis"]["data"] == ["2026-07", "2026-08", "2026-09"]
    assert chart["series"][0]["data"] == [4500, 2075, 6300]
    assert result.texts[2] == (
        '<ui_passthrough type="summary">\n'
        "📊 **Summary**: 5 invoices, 12,875.00 EUR billed, 3,075.00 EUR open.\n</ui_passthrough>"
    )


def test_long_lists_are_truncated_for_the_agent() -> None:
    """Beyond 25 rows the agent gets the first 25 and a truncation block first."""
    store = BillingStore.seeded()
    template = store.invoices["INV-002"]
    for number in range(6, 36):
        store.invoices[f"INV-{number:03}"] = {**template, "id": f"INV-{number:03}"}
    result = call("billing", "invoices.list", on=make_app(store))
    assert len(data(result)) == 25
    assert result.texts[1] == (
        '<ui_passthrough type="summary">\n📊 **Summary**: ⚠️ Dataset truncated. 25 shown, 10 '
        "hidden. Use filters to narrow results.\n</ui_passthrough>"
    )


# -------------------------------------------------------- suggestions


def test_suggestions_follow_the_invoice_status() -> None:
    """An open invoice suggests paying it; a paid one does not (its None is dropped)."""
    pending = view_of(call("billing", "invoices.get", invoice_id="INV-002")).suggestions
    paid = view_of(call("billing", "invoices.get", invoice_id="INV-001")).suggestions
    assert [(s.tool, s.reason) for s in pending] == [
        ("billing.invoices.pay", "Record payment of INV-002"),
        ("billing.clients.get", "Show client C-002"),
    ]
    assert [s.tool for s in paid] == ["billing.clients.get"]


# ------------------------------------------------------------ _select


def test_select_narrows_the_data_block_only() -> None:
    """Selected keys in the data block; the UI still sees the whole invoices."""
    result = call("billing", "invoices.list", status="pending", _select=["id", "amount_cents"])
    assert data(result) == [
        {"id": "INV-002", "amount_cents": 120000},
        {"id": "INV-005", "amount_cents": 100000},
    ]
    assert "2 invoices, 2,200.00 EUR billed" in result.texts[2]


def test_select_enum_is_the_union_of_presenter_keys() -> None:
    """``tools/list`` offers every declared root key, never a hidden one."""
    (definition,) = make_app().definitions()
    enum = definition["inputSchema"]["properties"]["_select"]["items"]["enum"]
    assert enum == ["amount_cents", "client_id", "country", "currency", "email", "id",
                    "issued_on", "lines", "name", "status"]  # fmt: skip


# --------------------------------------------------------------- TOON


def test_clients_list_is_a_toon_table() -> None:
    """One block: the masked clients as a pipe-delimited TOON table."""
    assert call("billing", "clients.list").texts == [
        (
            "[3|]{id|name|country|email}:\n"
            "  C-001|Padaria Lisboa Lda.|PT|contas@padaria.example\n"
            "  C-002|Kaffeehaus Wien GmbH|AT|office@kaffeehaus.example\n"
            "  C-003|Nordlys Design AS|NO|faktura@nordlys.example"
        )
    ]


# ------------------------------------------------------------- errors


def test_missing_invoice_is_a_self_healing_error() -> None:
    """Recovery hint and the actions that help, in the tool_error envelope."""
    result = call("billing", "invoices.get", invoice_id="INV-404")
    assert result.is_error
    assert result.texts == [
        (
            '<tool_error code="INVOICE_NOT_FOUND" severity="error">\n'
            "<message>Invoice INV-404 does not exist.</message>\n"
            "<recovery>Call billing with action invoices.list to find the id, then retry."
            "</recovery>\n"
            "<available_actions>\n  <action>invoices.list</action>\n"
            "  <action>invoices.get</action>\n</available_actions>\n"
            '<details>\n  <detail key="invoice_id">INV-404</detail>\n</details>\n'
            "</tool_error>"
        )
    ]
    error = view_of(result).error
    assert error is not None
    assert error.available_actions == ("invoices.list", "invoices.get")


def test_missing_client_lists_the_client_actions() -> None:
    """The client lookup fails the same way, pointing at clients.list."""
    error = view_of(call("billing", "clients.get", client_id="C-999")).error
    assert error is not None
    assert error.code == "CLIENT_NOT_FOUND"
    assert error.available_actions == ("clients.list", "clients.get")


def test_paying_twice_is_a_warning() -> None:
    """The second payment is refused with ``severity="warning"``: isError is false."""
    app = make_app()
    first = call("billing", "invoices.pay", on=app, invoice_id="INV-002")
    assert data(first)["status"] == "paid"
    assert view_of(first).directives == ("Confirm the payment to the user in one sentence.",)
    second = call("billing", "invoices.pay", on=app, invoice_id="INV-002")
    assert second["isError"] is False
    assert second.texts[0].startswith('<tool_error code="NOTHING_TO_PAY" severity="warning">')


def test_arguments_are_validated_before_the_handler() -> None:
    """A malformed id and an unknown key: one <field> each, pydantic's wording."""
    result = call("billing", "invoices.get", invoice_id="42", note="hi")
    assert result.texts == [
        (
            '<validation_error action="billing/invoices.get">\n'
            "<field name=\"invoice_id\">String should match pattern '^INV-\\d{3,}$'. "
            "You sent: '42'.</field>\n"
            '<field name="(root)">Unrecognized key: "note". Remove them or correct their spelling.'
            "</field>\n"
            "<recovery>Fix the fields above and call the tool again. Do not explain the error."
            "</recovery>\n"
            "</validation_error>"
        )
    ]


def test_unknown_action_lists_the_actions() -> None:
    """A typo in the action names every valid one."""
    result = call("billing", "invoices.delete")
    assert result.texts[0].startswith('<tool_error code="UNKNOWN_ACTION">')
    assert (
        "<available_actions>invoices.list, invoices.get, invoices.pay, invoices.void, "
        "clients.list, clients.get</available_actions>"
    ) in result.texts[0]


# ---------------------------------------------------------- async path


def test_async_call_gives_the_same_bytes() -> None:
    """``await app.call(...)`` and ``call_sync`` answer identically."""
    args = {"action": "invoices.list", "client_id": "C-001"}
    awaited = asyncio.run(make_app().call("billing", args))
    assert awaited == make_app().call_sync("billing", args)
