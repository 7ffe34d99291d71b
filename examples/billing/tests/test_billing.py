"""The billing example, called the way an MCP client calls it.

Every test goes through the plugin's ``fusion_call(tool, action, **args)``:
the app's pipeline, the actions' Presenters and the wire bytes, exactly as
``tools/call`` answers. The ``FusionResult`` it returns is read through its
accessors (``data``, ``system_rules``, ``ui_blocks``, ``embeds``, ...) or as
block texts (``content``); ``conftest.py`` gives each test a fresh store.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from examples.billing.app import BillingContext
from examples.billing.data import BillingStore
from examples.billing.presenters import CENTS_RULE
from fusion_core import FusionApp, UiBlock
from pytest_mcpfusion import AsyncFusionCall, FusionCall

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


def test_invoice_is_masked_to_its_schema(fusion_call: FusionCall) -> None:
    """Declared fields only, in schema order; line items masked too."""
    result = fusion_call("billing", "invoices.get", invoice_id="INV-003")
    assert result.data == {
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
    assert list(json.loads(result.content[0])) == ["id", "client_id", "status", "issued_on",
                                                   "currency", "amount_cents", "lines"]  # fmt: skip


def test_list_rows_drop_line_items(fusion_call: FusionCall) -> None:
    """The list Presenter does not declare ``lines``: rows stay small."""
    rows = fusion_call("billing", "invoices.list").data
    assert [row["id"] for row in rows] == ["INV-001", "INV-002", "INV-003", "INV-004", "INV-005"]
    assert all("lines" not in row for row in rows)


@pytest.mark.parametrize(
    ("action", "args"), CALLS, ids=[f"{action}-{n}" for n, (action, _) in enumerate(CALLS)]
)
def test_hidden_fields_never_leak(
    fusion_call: FusionCall, action: str, args: dict[str, Any]
) -> None:
    """No secret value (nor hidden key) in any block, view or wire text, on any action."""
    result = fusion_call("billing", action, **args)
    seen = result.wire + repr(result.view)
    for secret in SECRETS:
        assert secret not in seen, f"{secret!r} leaked from {action} {args}"
    for key in HIDDEN_KEYS:
        assert key not in seen, f"{key!r} leaked from {action} {args}"


def test_select_naming_a_hidden_field_is_refused(fusion_call: FusionCall) -> None:
    """``_select`` cannot reach a hidden or undeclared field: it is a validation error."""
    result = fusion_call("billing", "invoices.get", invoice_id="INV-001",
                         select=["internal_margin", "stripe_customer_secret"])  # fmt: skip
    assert result.is_error
    assert result.view.validation is not None
    assert [field.name for field in result.view.validation.fields] == ["_select.0", "_select.1"]
    assert '<field name="_select.0">' in result.content[0]
    assert '<field name="_select.1">' in result.content[0]
    assert not any(secret in result.wire for secret in SECRETS)


# ----------------------------------------------------- rules and UI


def test_cents_rule_on_every_invoice_answer(fusion_call: FusionCall) -> None:
    """The 'divide by 100' rule goes with invoices, single or listed."""
    rule = "CRITICAL: amounts are in CENTS. Divide by 100 before showing them (120000 → 1,200.00)."
    assert rule == CENTS_RULE
    assert rule in fusion_call("billing", "invoices.get", invoice_id="INV-001").system_rules
    assert rule in fusion_call("billing", "invoices.list").system_rules


def test_overdue_rule_is_dynamic(fusion_call: FusionCall) -> None:
    """Item rules depend on the invoice; collection rules on the whole list."""
    overdue = fusion_call("billing", "invoices.get", invoice_id="INV-003").system_rules
    paid = fusion_call("billing", "invoices.get", invoice_id="INV-001").system_rules
    assert "INV-003 is overdue: say so before anything else." in overdue
    assert not any("overdue:" in rule for rule in paid)
    listed = fusion_call("billing", "invoices.list").system_rules
    assert "Overdue: INV-003. Mention them first." in listed


def test_single_invoice_has_item_ui_and_embedded_lines(fusion_call: FusionCall) -> None:
    """Item UI (a summary), then the embedded LineItem blocks: a table and its rule."""
    result = fusion_call("billing", "invoices.get", invoice_id="INV-002")
    assert result.ui_blocks == (
        UiBlock("summary", "📊 **Summary**: INV-002 · ⏳ pending · 1,200.00 EUR"),
    )
    assert result.content[1] == (
        '<ui_passthrough type="summary">\n📊 **Summary**: INV-002 · ⏳ pending · 1,200.00 EUR\n'
        "</ui_passthrough>"
    )
    table = (
        '<ui_passthrough type="markdown">\n'
        "| SKU | Description | Qty | Unit price | Total |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| CONSULT-H | Consulting hours | 8 | 125.00 EUR | 1,000.00 EUR |\n"
        "| LICENSE | Menu board licence | 2 | 100.00 EUR | 200.00 EUR |\n"
        "</ui_passthrough>"
    )
    rule = "<domain_rules>\n- Line totals are quantity × unit_price_cents, in cents.\n"
    rule += "</domain_rules>"
    assert result.embeds == (table, rule)
    assert result.content[2:4] == list(result.embeds)
    assert "echarts" not in result.wire


def test_list_has_revenue_chart_as_collection_ui(fusion_call: FusionCall) -> None:
    """A list gets the echarts revenue chart (in units, not cents) and a summary."""
    result = fusion_call("billing", "invoices.list")
    chart_block, summary = result.ui_blocks
    assert chart_block.type == "echarts"
    assert chart_block.meta is not None
    assert (chart_block.meta.title, chart_block.meta.width) == ("Revenue", "full")
    assert result.content[1].startswith(
        '<ui_passthrough type="echarts" title="Revenue" width="full">\n```echarts\n'
    )
    chart = json.loads(chart_block.content.split("```echarts\n", 1)[1].rsplit("\n```", 1)[0])
    assert chart["xAxis"]["data"] == ["2026-07", "2026-08", "2026-09"]
    assert chart["series"][0]["data"] == [4500, 2075, 6300]
    assert summary == UiBlock(
        "summary", "📊 **Summary**: 5 invoices, 12,875.00 EUR billed, 3,075.00 EUR open."
    )
    assert result.content[2] == (
        '<ui_passthrough type="summary">\n'
        "📊 **Summary**: 5 invoices, 12,875.00 EUR billed, 3,075.00 EUR open.\n</ui_passthrough>"
    )


def test_long_lists_are_truncated_for_the_agent(fusion_call: FusionCall) -> None:
    """Beyond 25 rows the agent gets the first 25 and a truncation block first."""
    store = BillingStore.seeded()
    template = store.invoices["INV-002"]
    for number in range(6, 36):
        store.invoices[f"INV-{number:03}"] = {**template, "id": f"INV-{number:03}"}
    result = fusion_call("billing", "invoices.list", context=BillingContext(store))
    assert len(result.data) == 25
    assert result.ui_blocks[0] == UiBlock(
        "summary",
        "📊 **Summary**: ⚠️ Dataset truncated. 25 shown, 10 hidden. Use filters to narrow results.",
    )
    assert result.content[1] == (
        '<ui_passthrough type="summary">\n📊 **Summary**: ⚠️ Dataset truncated. 25 shown, 10 '
        "hidden. Use filters to narrow results.\n</ui_passthrough>"
    )


# -------------------------------------------------------- suggestions


def test_suggestions_follow_the_invoice_status(fusion_call: FusionCall) -> None:
    """An open invoice suggests paying it; a paid one does not (its None is dropped)."""
    pending = fusion_call("billing", "invoices.get", invoice_id="INV-002").suggestions
    paid = fusion_call("billing", "invoices.get", invoice_id="INV-001").suggestions
    assert [(s.tool, s.reason) for s in pending] == [
        ("billing.invoices.pay", "Record payment of INV-002"),
        ("billing.clients.get", "Show client C-002"),
    ]
    assert [s.tool for s in paid] == ["billing.clients.get"]


# ------------------------------------------------------------ _select


def test_select_narrows_the_data_block_only(fusion_call: FusionCall) -> None:
    """Selected keys in the data block; the UI still sees the whole invoices."""
    result = fusion_call(
        "billing", "invoices.list", status="pending", select=["id", "amount_cents"]
    )
    assert result.arguments["_select"] == ["id", "amount_cents"]
    assert result.data == [
        {"id": "INV-002", "amount_cents": 120000},
        {"id": "INV-005", "amount_cents": 100000},
    ]
    assert "2 invoices, 2,200.00 EUR billed" in result.ui_blocks[1].content


def test_select_enum_is_the_union_of_presenter_keys(fusion_app: FusionApp) -> None:
    """``tools/list`` offers every declared root key, never a hidden one."""
    (definition,) = fusion_app.definitions()
    enum = definition["inputSchema"]["properties"]["_select"]["items"]["enum"]
    assert enum == ["amount_cents", "client_id", "country", "currency", "email", "id",
                    "issued_on", "lines", "name", "status"]  # fmt: skip


# --------------------------------------------------------------- TOON


def test_clients_list_is_a_toon_table(fusion_call: FusionCall) -> None:
    """One block: the masked clients as a pipe-delimited TOON table."""
    assert fusion_call("billing", "clients.list").content == [
        (
            "[3|]{id|name|country|email}:\n"
            "  C-001|Padaria Lisboa Lda.|PT|contas@padaria.example\n"
            "  C-002|Kaffeehaus Wien GmbH|AT|office@kaffeehaus.example\n"
            "  C-003|Nordlys Design AS|NO|faktura@nordlys.example"
        )
    ]


# ------------------------------------------------------------- errors


def test_missing_invoice_is_a_self_healing_error(fusion_call: FusionCall) -> None:
    """Recovery hint and the actions that help, in the tool_error envelope."""
    result = fusion_call("billing", "invoices.get", invoice_id="INV-404")
    assert result.is_error
    assert result.content == [
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
    assert result.error is not None
    assert result.error.available_actions == ("invoices.list", "invoices.get")
    assert result.error.details == {"invoice_id": "INV-404"}
    assert result.data is None


def test_missing_client_lists_the_client_actions(fusion_call: FusionCall) -> None:
    """The client lookup fails the same way, pointing at clients.list."""
    error = fusion_call("billing", "clients.get", client_id="C-999").error
    assert error is not None
    assert error.code == "CLIENT_NOT_FOUND"
    assert error.available_actions == ("clients.list", "clients.get")


def test_paying_twice_is_a_warning(fusion_call: FusionCall) -> None:
    """The second payment is refused with ``severity="warning"``: isError is false."""
    first = fusion_call("billing", "invoices.pay", invoice_id="INV-002")
    assert first.data["status"] == "paid"
    assert first.directives == ("Confirm the payment to the user in one sentence.",)
    second = fusion_call("billing", "invoices.pay", invoice_id="INV-002")
    assert second.wire_dict["isError"] is False
    assert not second.is_error
    assert second.error is not None
    assert (second.error.code, second.error.severity) == ("NOTHING_TO_PAY", "warning")
    assert second.content[0].startswith('<tool_error code="NOTHING_TO_PAY" severity="warning">')


def test_each_test_gets_a_fresh_store(fusion_call: FusionCall) -> None:
    """The payment above stayed in its own test: INV-002 is pending again."""
    assert fusion_call("billing", "invoices.get", invoice_id="INV-002").data["status"] == "pending"


def test_arguments_are_validated_before_the_handler(fusion_call: FusionCall) -> None:
    """A malformed id and an unknown key: one <field> each, pydantic's wording."""
    result = fusion_call("billing", "invoices.get", invoice_id="42", note="hi")
    assert result.is_error
    assert result.content == [
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


def test_unknown_action_lists_the_actions(fusion_call: FusionCall) -> None:
    """A typo in the action names every valid one."""
    result = fusion_call("billing", "invoices.delete")
    assert result.error is not None
    assert result.error.code == "UNKNOWN_ACTION"
    assert result.content[0].startswith('<tool_error code="UNKNOWN_ACTION">')
    assert (
        "<available_actions>invoices.list, invoices.get, invoices.pay, invoices.void, "
        "clients.list, clients.get</available_actions>"
    ) in result.content[0]


# ---------------------------------------------------------- async path


@pytest.mark.anyio
async def test_async_call_gives_the_same_bytes(
    fusion_call_async: AsyncFusionCall, fusion_call: FusionCall
) -> None:
    """``await fusion_call_async(...)`` and ``fusion_call(...)`` answer identically."""
    awaited = await fusion_call_async("billing", "invoices.list", client_id="C-001")
    assert [row["id"] for row in awaited.data] == ["INV-001", "INV-003"]
    assert awaited == fusion_call("billing", "invoices.list", client_id="C-001")
