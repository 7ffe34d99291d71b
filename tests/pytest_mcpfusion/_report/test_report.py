"""The wire report as data: per-action outcomes and block sizes, JSON document, HTML page."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

import jsonschema
import pytest

from fusion_core import response, success, tool_error, ui
from fusion_core._snapshot._format import block_kinds
from fusion_core._tools._pipeline import validation_error
from pytest_mcpfusion._report._html import render_html
from pytest_mcpfusion._report._summary import WireReport, outcome_of
from tests._support.results import result_of, wire_result

SCHEMA: dict[str, Any] = json.loads(
    files("pytest_mcpfusion").joinpath("report.schema.json").read_text(encoding="utf-8")
)


def _filled(tokenizer: Any = None) -> WireReport:
    report = WireReport(known_actions={"billing.get", "billing.list", "billing.pay"})
    report.tokenizer_name = "len" if tokenizer is not None else None
    calls = [
        ("get", result_of(response({"id": "INV-1"}).ui_block(ui.summary("one")).build())),
        ("get", result_of(tool_error("NOT_FOUND", "no such invoice"))),
        ("get", result_of(validation_error("billing/get", [("id", "required")]))),
        ("list", result_of(tool_error("DOWN", "<try later>"))),
    ]
    for action, result in calls:
        report.record(result, block_kinds(result.wire_dict), action=action, tokenizer=tokenizer)
    report.add_violations("billing", "get", ["block 0: [x] broken", "block 0: [x] broken"])
    report.add_warnings("billing", "list", ["block 1: [ambiguous-layout] <b>bold</b>"])
    return report


@pytest.mark.parametrize(
    ("made", "outcome"),
    [
        (success({"a": 1}), "ok"),
        (tool_error("E", "m"), "error"),
        (tool_error("E", "m", severity="warning"), "error"),
        (validation_error("t/a", [("x", "bad")]), "validation"),
    ],
    ids=["ok", "error", "warning-envelope", "validation"],
)
def test_outcome_of_each_kind_of_answer(made: Any, outcome: str) -> None:
    """ok, error (any envelope or isError), validation (a <validation_error>)."""
    assert outcome_of(result_of(made)) == outcome


def test_a_bare_error_text_is_an_error_outcome() -> None:
    """A result with isError but no envelope counts as an error, not ok."""
    bare = wire_result({"content": [{"type": "text", "text": "boom"}], "isError": True})
    assert outcome_of(bare) == "error"


def test_document_counts_per_action_and_matches_the_schema() -> None:
    """Calls by outcome, blocks by kind and messages per action; valid against the schema."""
    document = _filled().document()
    jsonschema.validate(document, SCHEMA)
    actions = {action["name"]: action for action in document["actions"]}
    assert actions["billing.get"]["calls"] == {"ok": 1, "error": 1, "validation": 1}
    assert actions["billing.get"]["success_reached"] is True
    assert set(actions["billing.get"]["blocks"]) == {
        "data", "ui_passthrough", "tool_error", "validation_error"
    }  # fmt: skip
    assert actions["billing.get"]["violations"] == [{"message": "block 0: [x] broken", "count": 2}]
    assert actions["billing.list"]["success_reached"] is False
    warnings = [item["message"] for item in actions["billing.list"]["warnings"]]
    assert any("success path was never reached" in message for message in warnings)
    assert document["never_called"] == ["billing.pay"]
    assert document["totals"]["calls"] == 4
    assert document["totals"]["tokens"] is None


def test_document_with_a_tokenizer_has_tokens_per_kind() -> None:
    """With a tokenizer, every block kind of every action carries a token count."""
    document = _filled(tokenizer=len).document()
    jsonschema.validate(document, SCHEMA)
    data = document["actions"][0]["blocks"]["data"]
    assert data["tokens"] == data["bytes"]  # len() of ASCII text is its byte count


def test_document_is_the_same_whatever_the_merge_order() -> None:
    """Workers' reports merged in any order give the same JSON bytes (stable report)."""
    first, second = _filled(), WireReport()
    second.record(result_of(success([1])), ["data"], action="list")
    one, two = (
        WireReport(known_actions=first.known_actions),
        WireReport(known_actions=first.known_actions),
    )
    one.merge(first.to_data())
    one.merge(second.to_data())
    two.merge(second.to_data())
    two.merge(first.to_data())
    assert json.dumps(one.document(), sort_keys=True) == json.dumps(two.document(), sort_keys=True)
    assert one.document()["totals"]["calls"] == 5


def test_distinct_messages_per_action_are_bounded() -> None:
    """A flood of distinct messages keeps 50 and counts the rest under one line."""
    report = WireReport()
    report.add_warnings("t", None, [f"message {n}" for n in range(120)])
    kept = report.notes["t"]
    assert len(kept) == 51
    assert kept["(more distinct messages not kept)"] == 70


def test_html_page_is_self_contained_and_escapes_text() -> None:
    """One page, no script or external resource; messages are escaped; bars per kind."""
    page = render_html(_filled(tokenizer=len).document())
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page
    assert "http://" not in page
    assert "https://" not in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page
    assert "<b>bold</b>" not in page
    assert page.count('class="bar"') >= 4
    assert page.count('class="bar t"') >= 4


def test_lines_split_calls_by_outcome_and_list_warnings() -> None:
    """The terminal report shows ok/error/validation per action and the warnings."""
    lines = _filled().lines()
    assert any("billing.get" in line and "(1 ok, 1 error, 1 validation)" in line for line in lines)
    assert any(line.startswith("warnings: 2") for line in lines)


def test_one_block_of_a_kind_is_one_block_in_the_same_column() -> None:
    """``1 block`` (it read ``1 blocks``: a stranger pass), aligned with ``2 blocks``."""
    lines = _filled().lines()
    one = next(line for line in lines if line.lstrip().startswith("validation_error"))
    many = next(line for line in lines if line.lstrip().startswith("tool_error"))
    assert " 1 block " in one
    assert " 1 blocks" not in one
    assert " 2 blocks " in many
    assert one.index(" bytes") == many.index(" bytes")


@pytest.mark.parametrize(
    ("saved", "words"),
    [
        (206, "TOON would save 206 tokens on data blocks"),
        (1, "TOON would save 1 token on data blocks"),
        (-909, "TOON would cost 909 more tokens on data blocks"),
        (-1, "TOON would cost 1 more token on data blocks"),
        (0, "TOON would take as many tokens as JSON on data blocks"),
    ],
)
def test_toon_is_a_saving_or_a_cost_never_a_negative_saving(saved: int, words: str) -> None:
    """The terminal and HTML reports word a negative saving as a cost; JSON keeps the sign."""
    report = _filled(tokenizer=len)
    report.toon_tokens_saved = saved
    terminal = "\n".join(report.lines())
    assert words in terminal
    assert "save -" not in terminal
    document = report.document()
    jsonschema.validate(document, SCHEMA)
    assert document["totals"]["toon_tokens_saved"] == saved
    page = render_html(document)
    assert words in page
    assert "save -" not in page


def _plain(text: str, *, is_error: bool) -> Any:
    wire = {"content": [{"type": "text", "text": text}], "isError": is_error}
    return wire_result(wire, tool="time")


def test_a_server_without_fusion_blocks_gets_one_headline() -> None:
    """All answers plain text, errors among them: one headline, in lines and document."""
    report = WireReport()
    report.record(_plain('{"time": "12:00"}', is_error=False), action=None)
    for _ in range(3):
        report.record(_plain("Error executing tool time: no such zone", is_error=True), action=None)
    headline = report.headline()
    assert headline is not None
    assert headline.startswith(
        "this server writes no Fusion blocks: 4 of 4 answers were plain text (3 of them errors"
    )
    assert "--fusion-level=mcp" in headline
    assert report.lines()[0] == headline
    assert report.document()["headline"] == headline
    # An error's plain text is counted as an error block, never as data.
    assert report.document()["blocks"]["plain_error"]["count"] == 3
    assert report.document()["blocks"]["data"]["count"] == 1
    report.level = "mcp"
    assert "--fusion-level=mcp" not in (report.headline() or "")


def test_no_headline_for_a_fusion_server_or_without_an_error() -> None:
    """One envelope anywhere, or no error seen at all: the server may write the format."""
    fusion = _filled()
    assert fusion.headline() is None
    quiet = WireReport()
    quiet.record(_plain('{"time": "12:00"}', is_error=False), action=None)
    assert quiet.headline() is None
    assert WireReport().headline() is None


def test_long_report_lines_wrap_on_words_never_mid_word() -> None:
    """A long warning, reason or write is wrapped; every word appears whole, in order."""
    report = WireReport(known_actions={"git.commit"})
    long_word = "x" * 150  # longer than a line: kept whole on a line of its own
    message = " ".join(f"word{index}" for index in range(60)) + f" {long_word} end"
    report.add_warnings("git", "commit", [message])
    report.add_not_run("git.commit", "valid", message)
    report.add_write("git", "commit", '{"message": "' + "y" * 400 + '"}')
    lines = report.lines()
    writes = lines.index("calls that succeeded on tools that may write: 1")
    assert all(len(line) <= 100 or long_word in line for line in lines[:writes])
    warning = [line for line in lines if "word" in line][:4]
    joined = " ".join(line.strip() for line in lines)
    assert message in joined  # nothing cut, nothing lost
    assert warning[1].startswith("      ")  # continuation lines are indented
    assert lines[writes + 1].endswith("… (415 chars)")  # a long write is shortened, said so


def test_not_run_and_writes_cross_from_the_workers() -> None:
    """to_data/merge keep the tests not run, the writes and the plain-answer counts."""
    worker = WireReport()
    worker.add_not_run("git.commit", "valid", "git.commit may write: ...")
    worker.add_write("git", "add", '{"files": ["a"]}')
    worker.record(_plain("boom", is_error=True), action=None)
    controller = WireReport()
    controller.merge(json.loads(json.dumps(worker.to_data())))
    document = controller.document()
    assert document["totals"]["contract_tests_not_run"] == 1
    assert document["totals"]["write_calls"] == 1
    assert controller.plain_errors == 1
    assert controller.headline() is not None
    jsonschema.validate(document, SCHEMA)


def _failed(report: WireReport) -> WireReport:
    report.add_failed_test(
        "pytest.ini::fusion-contract::billing/get[valid]",
        action="billing.get",
        rules=["field-leak", "field-leak"],
        calls=['billing {"action": "get", "id": "<x>"}'],
        kinds=["data", "domain_rules"],
        reproduce="pytest 'pytest.ini::fusion-contract::billing/get[valid]' --fusion",
    )
    return report


def test_a_failed_contract_test_is_named_in_terminal_json_and_html() -> None:
    """Node id, rule, call and a one-line reproduce command, in each of the three reports."""
    report = _failed(_filled())
    report.contract_failures = 1
    lines = report.lines()
    at = lines.index("contract tests failed: 1")
    assert lines[at + 1 : at + 4] == [
        "  pytest.ini::fusion-contract::billing/get[valid]",
        '      [field-leak] billing {"action": "get", "id": "<x>"}',
        "      reproduce: pytest 'pytest.ini::fusion-contract::billing/get[valid]' --fusion",
    ]
    document = report.document()
    jsonschema.validate(document, SCHEMA)
    assert document["failed_tests"][0]["rules"] == ["field-leak"]
    page = render_html(document)
    assert '<table id="failures">' in page
    assert "pytest.ini::fusion-contract::billing/get[valid]" in page
    escaped = "billing {&quot;action&quot;: &quot;get&quot;, &quot;id&quot;: &quot;&lt;x&gt;&quot;}"
    assert escaped in page
    assert '<a href="#sample-data"><code>data</code></a>' in page


def test_the_html_page_shows_a_sample_of_each_block_kind_the_run_received() -> None:
    """Each kind gets an anchored, escaped sample; the block tables link to it."""
    document = _filled().document()
    assert sorted(document["samples"]) == sorted(document["blocks"])
    page = render_html(document)
    for kind in document["blocks"]:
        assert f'<h3 id="sample-{kind}">' in page
        assert f'<a href="#sample-{kind}">' in page
    assert "<pre>&lt;tool_error code=" in page  # the server's text, escaped


def test_samples_do_not_depend_on_the_order_of_the_calls() -> None:
    """The longest block that fits is kept, so any merge order keeps the same sample."""
    texts = ["short", "a somewhat longer text", "x" * 3_000]
    one, two = WireReport(), WireReport()
    for report, order in ((one, texts), (two, texts[::-1])):
        for text in order:
            report.record(wire_result({"content": [{"type": "text", "text": text}]}), action="a")
    assert one.samples == two.samples == {"data": "a somewhat longer text"}


def test_without_a_tokenizer_the_html_has_no_tokens_column() -> None:
    """No empty tokens column without the [tokens] extra; with a tokenizer it is there."""
    without = render_html(_filled().document())
    assert "<th>bytes</th><th></th><th>tokens</th>" not in without
    assert 'class="bar t"' not in without
    with_tokens = render_html(_filled(tokenizer=len).document())
    assert "<th>bytes</th><th></th><th>tokens</th>" in with_tokens
