"""``assert a == b`` on results, responses and views explains block by block."""

from __future__ import annotations

import pytest


def test_results_diff_by_block(shop: pytest.Pytester) -> None:
    """Two different results: the message names the differing block and its kind."""
    shop.makepyfile(
        test_cmp="""
def test_cmp(fusion_call):
    assert fusion_call("billing", "get", id="INV-1") == fusion_call("billing", "get", id="INV-2")
"""
    )
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider", "-vv")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the responses differ, block by block*",
            "*right block 0 (data)*",
            '*"id": "INV-2",*',
            '*"id": "INV-1",*',
        ]
    )


def test_views_diff_by_field(pytester: pytest.Pytester) -> None:
    """Two views: the message lists each differing field and item."""
    pytester.makepyfile(
        test_views="""
from fusion_core import response, view_of


def test_views():
    left = view_of(response({"a": 1}).system_rules(["one", "two"]).build())
    right = view_of(response({"a": 1}).system_rules(["one", "three"]).build())
    assert left == right
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-vv")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*the views say different things on the wire*", "*rules:*", "*1] left:  'two'*"]
    )
