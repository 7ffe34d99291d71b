"""``--fusion-report=PATH`` (JSON, or HTML for ``.html``) and ``--fusion-report-html``."""

from __future__ import annotations

import json
from importlib.resources import files

import jsonschema
import pytest

SCHEMA = json.loads(
    files("pytest_mcpfusion").joinpath("report.schema.json").read_text(encoding="utf-8")
)
TESTS = """
def test_get(fusion_call):
    fusion_call("billing", "get", id="INV-1")
"""


def _run(shop: pytest.Pytester, *args: str) -> pytest.RunResult:
    return shop.runpytest(
        "--fusion", "--fusion-app=shop:app", "--fusion-examples=5", "--hypothesis-seed=7",
        "-p", "no:cacheprovider", *args,
    )  # fmt: skip


def test_json_and_html_reports_are_written(shop: pytest.Pytester) -> None:
    """Both files appear; the JSON matches the published schema; the page has bars."""
    shop.makepyfile(test_shop=TESTS)
    result = _run(shop, "--fusion-report=out/report.json", "--fusion-report-html=out/report.html")
    result.stdout.fnmatch_lines(["wire report written to *report.json", "*report.html"])
    document = json.loads((shop.path / "out" / "report.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, SCHEMA)
    names = [action["name"] for action in document["actions"]]
    assert names == ["billing.get", "billing.list", "billing.whoami"]
    page = (shop.path / "out" / "report.html").read_text(encoding="utf-8")
    assert '<span class="bar"' in page
    assert "<code>billing.get</code>" in page


def test_an_html_path_writes_the_page(shop: pytest.Pytester) -> None:
    """``--fusion-report=x.html`` writes HTML, not JSON."""
    shop.makepyfile(test_shop=TESTS)
    _run(shop, "--fusion-report=report.html")
    assert (shop.path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_same_seed_gives_the_same_bytes(shop: pytest.Pytester) -> None:
    """Two runs with one hypothesis seed write identical JSON and HTML (no timestamps)."""
    shop.makepyfile(test_shop=TESTS)
    shop.makeini("[pytest]\nfusion_report = a.json\nfusion_report_html = a.html\n")
    _run(shop)
    first = [(shop.path / name).read_bytes() for name in ("a.json", "a.html")]
    _run(shop)
    assert [(shop.path / name).read_bytes() for name in ("a.json", "a.html")] == first


def test_xdist_workers_merge_into_one_report(shop: pytest.Pytester) -> None:
    """Under -n 2 the controller writes one schema-valid report counting every worker's calls."""
    shop.makepyfile(test_shop=TESTS)
    result = _run(shop, "-p", "xdist", "-n", "2", "--fusion-report=report.json")
    result.assert_outcomes(passed=7)
    document = json.loads((shop.path / "report.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, SCHEMA)
    calls = {action["name"]: action["total_calls"] for action in document["actions"]}
    assert set(calls) == {"billing.get", "billing.list", "billing.whoami"}
    assert all(count >= 5 for count in calls.values())  # both of each action's items, merged
