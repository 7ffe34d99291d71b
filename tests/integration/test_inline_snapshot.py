"""``result.inline == snapshot()``: the wire kept in the test's source by inline-snapshot."""

from __future__ import annotations

import re

import pytest

from tests._support.written import Written

TESTS = """
from inline_snapshot import snapshot


def test_get(fusion_call):
    assert fusion_call("billing", "get", id="INV-1").inline == snapshot()


def test_missing(fusion_call):
    assert fusion_call("billing", "get", id="INV-9").inline == snapshot()
"""

RUN = ("--fusion-app=shop:app", "-p", "no:cacheprovider", "-p", "no:xdist")


_CREATE_RUN = Written()


def _create(shop: pytest.Pytester) -> str:
    """The test file after a run with --inline-snapshot=create, in ``shop``.

    The create run (it reports created values as teardown errors) happens
    once per process; the tests after it start from a copy of the file it
    wrote (same app, same tests: same bytes), a pytest subprocess less each.
    """
    shop.makepyfile(test_shop=TESTS)
    _CREATE_RUN.make(shop.path, lambda: shop.runpytest_subprocess(*RUN, "--inline-snapshot=create"))
    return (shop.path / "test_shop.py").read_text()


def test_create_stores_every_block_then_the_run_passes(shop: pytest.Pytester) -> None:
    """--inline-snapshot=create writes (kind, text) pairs into the source; they then pass."""
    source = _create(shop)
    assert "snapshot()" not in source
    assert re.search(r"\(['\"]domain_rules['\"], ", source)
    assert re.search(r"\(['\"]isError['\"], True\)", source)
    assert re.search(r"\(['\"]tool_error['\"], ", source)
    shop.runpytest_subprocess(*RUN, "--inline-snapshot=disable").assert_outcomes(passed=2)


def test_a_mismatch_names_every_changed_block_within_default_verbosity(
    shop: pytest.Pytester,
) -> None:
    """Two changed blocks: the message's first line names both, each with its kind."""
    _create(shop)
    source = (shop.path / "shop.py").read_text()
    changed = source.replace("divide by 100.", "divide by 1000.").replace('"paid"', '"void"')
    (shop.path / "shop.py").write_text(changed)
    result = shop.runpytest_subprocess(*RUN, "--inline-snapshot=disable", "-k", "test_get")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the inline wire differs: block 0 (data), block 1 (domain_rules)*",
            "*block 0 (data):",
            '*-  "status": "paid"',
            '*+  "status": "void"',
            "*block 1 (domain_rules):",
            "*-- Amounts are in cents: divide by 100.",
            "*+- Amounts are in cents: divide by 1000.",
        ]
    )
    assert "truncated" not in result.stdout.str()
    full = shop.runpytest_subprocess(*RUN, "--inline-snapshot=disable", "-k", "test_get", "-vv")
    full.stdout.fnmatch_lines(
        ["*--- snapshot block 0 (data)", "*@@ -1,5 +1,5 @@", '*   "id": "INV-1",']
    )


def test_fix_rewrites_the_stored_value_to_the_new_bytes(shop: pytest.Pytester) -> None:
    """--inline-snapshot=fix updates the source; the next run passes on the new wire."""
    _create(shop)
    source = (shop.path / "shop.py").read_text()
    (shop.path / "shop.py").write_text(source.replace("divide by 100.", "divide by 1000."))
    shop.runpytest_subprocess(*RUN, "--inline-snapshot=fix")
    assert "divide by 1000." in (shop.path / "test_shop.py").read_text()
    shop.runpytest_subprocess(*RUN, "--inline-snapshot=disable").assert_outcomes(passed=2)
