"""The egress firewall: with a Presenter, no secret reaches any block, on any path."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import MISSING, BaseModel, Field

from fusion_core._app import FusionApp
from fusion_core._builder import response
from fusion_core._helpers import success, success_structured, toon_success
from fusion_core._presenter import Presenter
from fusion_core._tool import Tool

SECRETS = ("hunter2", "sk-live-42", "tenant-9", "margin-77", "line-cost-3")


class Line(BaseModel):
    sku: str
    cost: str = Field(default="", exclude=True)


class Client(BaseModel):
    name: str


class Invoice(BaseModel):
    id: str
    amount_cents: int
    client: Client
    lines: list[Line] = Field(default_factory=list)
    margin: str = Field(default="", exclude=True)
    note: str | MISSING = MISSING


def row(number: int = 1) -> dict[str, Any]:
    """A raw invoice row as a database would return it, secrets included."""
    return {
        "id": f"INV-{number}",
        "amount_cents": 4500,
        "password": "hunter2",
        "tenant_id": "tenant-9",
        "margin": "margin-77",
        "client": {"name": "Acme", "api_key": "sk-live-42"},
        "lines": [{"sku": "A", "cost": "line-cost-3", "secret": "hunter2"}],
    }


LINES = Presenter("Line", Line, collection_ui=lambda items, _ctx: [])
CLIENT = Presenter("Client", Client, rules=["Client names are case-sensitive."])
INVOICE = (
    Presenter("Invoice", Invoice, rules=lambda item, _ctx: [f"Invoice {item['id']}"])
    .embed("client", CLIENT)
    .embed("lines", LINES)
)


def _raise_after_touching() -> None:
    secret = row()["password"]
    message = "database unavailable"
    if secret:
        raise RuntimeError(message)


async def _async_row() -> dict[str, Any]:
    await asyncio.sleep(0)
    return row()


PATHS: dict[str, Callable[..., Any]] = {
    "plain return": row,
    "list": lambda: [row(1), row(2)],
    "returned builder": lambda: response(row()).llm_hint("look"),
    "returned built response": lambda: response(row()).build(),
    "success helper": lambda: success(row()),
    "structured helper": lambda: success_structured(row()),
    "toon helper": lambda: toon_success([row()]),
    "presenter builder": lambda: INVOICE.make(row()),
    "presenter of other entity": lambda: CLIENT.make(row()),
    "async handler": _async_row,
    "raises after touching": _raise_after_touching,
    "model instance": lambda: Invoice.model_validate(row()),
}


def app() -> FusionApp:
    """One Presenter action per handler path."""
    tool = Tool("billing").enable_select()
    for name, handler in PATHS.items():
        tool.action(name.replace(" ", "_"), handler, returns=INVOICE)
    return FusionApp([tool])


def assert_clean(arguments: dict[str, Any]) -> None:
    """Call the app and check no secret appears anywhere in the wire dict."""
    result = app().call_sync("billing", arguments)
    wire = repr(dict(result))
    for secret in SECRETS:
        assert secret not in wire, f"{secret!r} leaked via {arguments}"


@pytest.mark.parametrize("path", list(PATHS))
def test_no_secret_on_any_path(path: str) -> None:
    """Every handler path leaves no trace of a secret in any block."""
    assert_clean({"action": path.replace(" ", "_")})


@pytest.mark.parametrize("path", ["plain_return", "returned_builder", "presenter_builder"])
def test_select_cannot_name_a_secret(path: str) -> None:
    """``_select`` naming an undeclared or hidden field is refused, never revealed."""
    for field in ("password", "margin"):
        result = app().call_sync("billing", {"action": path, "_select": [field, "id"]})
        assert result.is_error
        assert "hunter2" not in repr(dict(result))
        assert "margin-77" not in repr(dict(result))


def test_select_of_declared_fields_still_masks_nested() -> None:
    """Selected nested values are the masked ones."""
    result = app().call_sync("billing", {"action": "plain_return", "_select": ["client", "lines"]})
    assert result.texts[0] == (
        '{\n  "client": {\n    "name": "Acme"\n  },\n  "lines": [\n    {\n      "sku": "A"\n'
        "    }\n  ]\n}"
    )


def test_presenter_failure_gets_the_exception_envelope() -> None:
    """Data the schema rejects is an INTERNAL_ERROR envelope without values."""
    tool = Tool("t").action("run", lambda: {"id": 5, "password": "hunter2"}, returns=INVOICE)
    text = FusionApp([tool]).call_sync("t", {"action": "run"}).texts[0]
    assert text.startswith(
        '<tool_error code="INTERNAL_ERROR" severity="error">\n'
        "<message>[t/run] [Invoice Presenter] Validation failed:\n  • 'id': "
    )
    assert "hunter2" not in text
