"""Reaching the success paths: ``examples=`` on actions, ``pytest_fusion_examples``, ids reused.

Generated ids rarely exist; a lookup whose every call ends in ``NOT_FOUND``
hides whatever its success path leaks. The contract tests send the user's
examples first, reuse ids seen in earlier results, count calls by outcome,
and under ``--fusion-strict`` fail an action whose success path was never
reached.
"""

from __future__ import annotations

import json

import pytest

from pytest_mcpfusion._contract._search import BATCH, examples_for
from tests._support.foreign import FOREIGN_SERVER, command

LOOKUP_APP = """
from fusion_core import FusionApp, Tool, tool_error

INVOICES = {"A-1": {"id": "A-1", "total": 5}}
billing = Tool("billing", "Invoices")


@billing.action("get", examples=EXAMPLES, read_only=True)
def get(invoice: str) -> object:
    if invoice not in INVOICES:
        return tool_error("NOT_FOUND", "No such invoice.")
    return INVOICES[invoice]


app = FusionApp([billing], name="lookup")
"""


def _lookup(pytester: pytest.Pytester, examples: str) -> None:
    pytester.makepyfile(lookup=LOOKUP_APP.replace("EXAMPLES", examples))
    pytester.syspathinsert()


def _document(pytester: pytest.Pytester) -> dict[str, dict[str, object]]:
    data = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    return {action["name"]: action for action in data["actions"]}


def test_examples_on_the_action_reach_the_success_path(pytester: pytest.Pytester) -> None:
    """examples= is sent first: the report counts one ok call from one example."""
    _lookup(pytester, '[{"invoice": "A-1"}]')
    result = pytester.runpytest(
        "--fusion", "--fusion-app=lookup:app", "--fusion-examples=3", "--fusion-strict",
        "--fusion-report=report.json", "-p", "no:cacheprovider",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    get = _document(pytester)["billing.get"]
    assert get["example_calls"] == 1
    assert get["success_reached"] is True
    calls = get["calls"]
    assert isinstance(calls, dict)
    assert calls["ok"] == 1  # the example; generated invoices do not exist
    assert calls["error"] >= 1


def test_an_unreached_success_path_warns_and_fails_when_strict(pytester: pytest.Pytester) -> None:
    """Without examples every call ends in NOT_FOUND: a warning, and a failure under strict."""
    _lookup(pytester, "()")
    lenient = pytester.runpytest(
        "--fusion", "--fusion-app=lookup:app", "--fusion-examples=3", "-p", "no:cacheprovider"
    )
    lenient.assert_outcomes(passed=2)
    lenient.stdout.fnmatch_lines(["*billing.get: the success path was never reached*"])
    strict = pytester.runpytest(
        "--fusion", "--fusion-app=lookup:app", "--fusion-examples=3", "--fusion-strict",
        "-p", "no:cacheprovider",
    )  # fmt: skip
    strict.assert_outcomes(passed=1, failed=1)
    strict.stdout.fnmatch_lines(
        ["*billing.get: the success path was never reached (--fusion-strict)*0 validation*"]
    )


def test_ids_listed_by_a_foreign_server_reach_its_lookups(pytester: pytest.Pytester) -> None:
    """invoices.list runs first; invoices.get reuses its ids and meets the planted canary.

    The canary sits behind the second of two listed ids. Drawn at random
    alone, one full-suite run in three once missed it at 10 examples (6
    lookups, all of the first id); every listed id is now sent once after the
    search, so 2 examples find it too.
    """
    pytester.makepyfile(foreign=FOREIGN_SERVER)
    pytester.makeini("[pytest]\nfusion_canaries =\n    CANARY-7f3a\n")
    result = pytester.runpytest_subprocess(
        "--fusion", f"--fusion-server={command()}", "--fusion-examples=2",
        "--fusion-report=report.json", "-p", "no:cacheprovider", "-v",
    )  # fmt: skip
    result.stdout.fnmatch_lines(
        [
            "*invoices/list?valid? PASSED*",
            "*invoices/get?valid? FAILED*",
            "*block 0: the canary value 'CANARY-7f3a' reached the wire*",
        ]
    )
    get = _document(pytester)["invoices.get"]
    assert get["example_calls"] == 0
    assert get["success_reached"] is True


MANY_IDS_APP = """
from fusion_core import FusionApp, Tool, tool_error

INVOICES = {f"INV-{n:02}": {"id": f"INV-{n:02}", "total": n} for n in range(1, 41)}
INVOICES["INV-37"]["note"] = "CANARY-51"
billing = Tool("billing", "Invoices")


@billing.action("list", read_only=True)
def list_() -> object:
    return [{"id": key} for key in INVOICES]


@billing.action("get", read_only=True)
def get(invoice_id: str) -> object:
    if invoice_id not in INVOICES:
        return tool_error("NOT_FOUND", "No such invoice.")
    return INVOICES[invoice_id]


app = FusionApp([billing], name="many")
"""


def test_every_listed_id_is_tried_whatever_the_draws(pytester: pytest.Pytester) -> None:
    """40 ids listed, a canary behind one of them, 3 examples: found on every seed.

    The search draws an id for 3 calls at most; each listed id that no call
    sent is sent once after it, on the first generated call's arguments.
    """
    pytester.makepyfile(many=MANY_IDS_APP)
    pytester.makeini("[pytest]\nfusion_canaries =\n    CANARY-51\n")
    pytester.syspathinsert()
    for seed in ("1", "2", "3"):
        result = pytester.runpytest(
            "--fusion", "--fusion-app=many:app", "--fusion-examples=3",
            f"--hypothesis-seed={seed}", "--fusion-report=report.json", "-p", "no:cacheprovider",
        )  # fmt: skip
        result.assert_outcomes(passed=3, failed=1)
        result.stdout.fnmatch_lines(
            [
                "*billing/get?valid?*",
                "*the canary value 'CANARY-51' reached the wire*",
                '*"invoice_id": "INV-37"*',
            ]
        )
        calls = _document(pytester)["billing.get"]["calls"]
        assert isinstance(calls, dict)
        searched = 1 + (examples_for(3) - 1) * BATCH  # the [valid] search's calls at most
        assert calls["ok"] + calls["error"] <= searched + 40  # then one per unsent id


def test_the_examples_hook_serves_a_foreign_server(pytester: pytest.Pytester) -> None:
    """pytest_fusion_examples gives arguments for a server in any language; they run first."""
    pytester.makepyfile(foreign=FOREIGN_SERVER)
    pytester.makeconftest(
        """
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_examples(tool, action, definition, config):
    if (tool, action) == ("invoices", "get"):
        return [{"invoice_id": "INV-1"}, {"invoice_id": "INV-2"}]
    return None
"""
    )
    pytester.runpytest(
        "--fusion", f"--fusion-server={command()}", "--fusion-examples=1",
        "--fusion-report=report.json", "-p", "no:cacheprovider",
    )  # fmt: skip
    assert _document(pytester)["invoices.get"]["example_calls"] == 2
