"""Ids seen in earlier results, reused by generated calls; actions that list run first."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import find

from fusion_core import FusionApp, Tool, success, tool_error
from pytest_mcpfusion._contract._examples import (
    IdPool,
    IdReuse,
    IdSnapshot,
    candidates,
    id_draws,
    is_id_like,
    prime_first,
    reuse_ids,
)
from tests._support.results import result_of


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("id", True), ("invoice_id", True), ("invoiceId", True), ("clientID", True),
        ("uuid", True), ("api_key", True), ("slug", True),
        ("paid", False), ("valid", False), ("idea", False), ("keys", False), ("amount", False),
    ],
)  # fmt: skip
def test_id_like_names(name: str, expected: bool) -> None:
    """Names ending in id/Id/ID/uuid/key after a separator are ids; words ending in -id are not."""
    assert is_id_like(name) is expected


def test_pool_collects_ids_from_successful_results_only() -> None:
    """Rows of a list, nested objects; error envelopes add nothing; bools are no ids."""
    pool = IdPool()
    pool.harvest(result_of(success([{"id": "INV-1", "client": {"client_id": 7}}, {"id": "INV-2"}])))
    pool.harvest(result_of(success({"id": True, "paid": "yes"})))
    pool.harvest(result_of(tool_error("NOT_FOUND", "x", details={"id": "INV-404"})))
    assert pool.snapshot() == {"id": ("INV-1", "INV-2"), "client_id": (7,)}


def test_candidates_match_name_then_type() -> None:
    """Same field name first, then other ids of the same JSON type; none for other names."""
    snapshot = {"id": ("INV-1", 3), "client_id": ("C-1",), "invoice_id": ("INV-9",)}
    assert candidates(snapshot, "invoice_id", "x") == ["INV-9", "INV-1", "C-1"]
    assert candidates(snapshot, "id", 0) == [3]
    assert candidates(snapshot, "amount", "x") == []


def test_reuse_ids_puts_a_drawn_id_into_id_arguments() -> None:
    """A drawn id replaces the generated value of its JSON type; other arguments stay."""
    drawn = {("id", "string"): "INV-1", ("id", "integer"): 7}
    assert reuse_ids({"id": "zz", "note": "n"}, drawn) == {"id": "INV-1", "note": "n"}
    assert reuse_ids({"id": 3}, drawn) == {"id": 7}
    assert reuse_ids({"id": True, "note": "n"}, drawn) == {"id": True, "note": "n"}  # no id type


def test_id_draws_offer_only_ids_the_parameter_schema_accepts() -> None:
    """An invoice id is not offered to a ``client_id`` whose pattern wants ``C-…``.

    The billing demo's valid contract calls were refused when an ``INV-…`` id
    seen in a list result replaced a generated ``client_id``.
    """
    snapshot = IdSnapshot({"id": ("INV-3",), "client_id": ("C-1",)})

    def accepts(name: str, value: Any) -> bool:
        return name == "client_id" and str(value).startswith("C-")

    choices = id_draws(snapshot, ["client_id", "note"], accepts)
    assert set(choices) == {("client_id", "string")}  # no integer ids, no draw for "note"
    assert find(choices["client_id", "string"], lambda drawn: isinstance(drawn, str)) == "C-1"
    assert snapshot.offers("client_id", "string", accepts) == ["C-1"]
    assert id_draws(snapshot, ["note"], accepts) == {}


def test_each_offered_id_is_swept_once_after_the_search() -> None:
    """Ids no generated call sent are sent once each, on the first call that had the argument.

    With many ids listed, random draws alone may never send the one a defect
    sits behind (a full-suite run once drew only the first of two in 6 lookups).
    """
    snapshot = IdSnapshot({"invoice_id": ("INV-1", "INV-2", "INV-3"), "id": (9,)})
    strings = lambda name, value: isinstance(value, str)  # noqa: E731 - the schema's answer
    reuse = IdReuse(snapshot, ["invoice_id", "amount", "client_id"], strings)
    assert set(reuse.choices) == {("invoice_id", "string"), ("client_id", "string")}
    first = reuse.apply({"invoice_id": "x", "amount": 1}, {("invoice_id", "string"): "INV-2"})
    assert first == {"invoice_id": "INV-2", "amount": 1}
    reuse.apply({"invoice_id": "y", "amount": 2}, {})  # kept its generated value
    assert reuse.sweep() == [
        {"invoice_id": "INV-1", "amount": 1},
        {"invoice_id": "INV-3", "amount": 1},
    ]  # 9 is no string; client_id was never sent: nothing to sweep for it


def test_nothing_is_swept_without_ids() -> None:
    """A test whose pool is empty draws no id and sweeps nothing."""
    reuse = IdReuse(IdSnapshot({}), ["invoice_id"], lambda name, value: True)
    assert reuse.choices == {}
    assert reuse.apply({"invoice_id": "x"}, None) == {"invoice_id": "x"}
    assert reuse.sweep() == []


def test_actions_without_arguments_run_first() -> None:
    """The list action (no argument) runs before get (needs an id); order otherwise kept."""
    tool = Tool("billing", "Invoices")

    @tool.action("get")
    def get(invoice_id: str) -> object:
        return {"id": invoice_id}

    @tool.action("list")
    def list_() -> object:
        return []

    @tool.action("pay")
    def pay(invoice_id: str, amount: int) -> object:
        return {"id": invoice_id, "paid": amount}

    definition = FusionApp([tool]).definitions()[0]
    assert prime_first(definition, ["get", "list", "pay"]) == ["list", "get", "pay"]


def test_examples_on_the_action_are_kept_and_validated() -> None:
    """examples= stores argument mappings; a non-mapping is a TypeError naming the action."""
    tool = Tool("billing", "Invoices")
    tool.action("get", lambda key: {"id": key}, examples=[{"key": "INV-1"}])
    assert tool.actions["get"].examples == ({"key": "INV-1"},)
    with pytest.raises(TypeError, match=r"'pay'.*argument"):
        tool.action("pay", lambda key: {}, examples=["INV-1"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="list of argument mappings"):
        tool.action("void", lambda key: {}, examples={"key": "x"})  # type: ignore[call-overload]
