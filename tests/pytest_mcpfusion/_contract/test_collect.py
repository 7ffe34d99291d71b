"""pytest_mcpfusion._contract._collect: the reproduce line's options; which calls are one."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcpfusion._contract._collect import _call_key, _fusion_options


@pytest.mark.parametrize(
    ("args", "kept"),
    [
        (["--fusion-app", "shop:app", "tests"], ["--fusion-app", "shop:app"]),
        (["--fusion-strict", "tests"], ["--fusion-strict"]),
        (["--fusion-no-check-references", "tests"], ["--fusion-no-check-references"]),
        (["--fusion-report=r.json", "--fusion-examples=3"], ["--fusion-examples=3"]),
        (["--fusion-report", "r.json", "--fusion-report-html", "r.html", "-x"], []),
    ],
    ids=["value", "strict-flag", "no-check-flag", "report-dropped", "report-values-dropped"],
)
def test_the_rerun_keeps_fusion_options_but_not_the_reports(
    args: list[str], kept: list[str]
) -> None:
    """Flags take no value (the next word is not eaten); report options are left out."""
    assert _fusion_options(args) == kept


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"n": 1}, {"n": 1.0}),
        ({"n": 1}, {"n": True}),
        ({"n": None}, {"n": float("nan")}),
        ({"n": 0.0}, {"n": -0.0}),
        ({"n": "1"}, {"n": 1}),
        ({"a": [1, 2]}, {"a": [2, 1]}),
    ],
)
def test_calls_json_tells_apart_are_different(one: dict[str, Any], other: dict[str, Any]) -> None:
    """1, 1.0 and true; null and NaN; 0.0 and -0.0; a list's order: never the same call."""
    assert _call_key(one) is not None
    assert _call_key(one) != _call_key(other)


def test_key_order_does_not_make_another_call() -> None:
    """The same arguments in another order are the same call."""
    assert _call_key({"a": 1, "b": {"c": 2, "d": 3}}) == _call_key({"b": {"d": 3, "c": 2}, "a": 1})


def test_what_json_cannot_hold_is_never_the_same_call() -> None:
    """Non-string keys (JSON would read {1: x} as {"1": x}), objects, deep nesting: no key."""
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    assert _call_key({"n": {1: "x"}}) is None
    assert _call_key({"n": object()}) is None
    assert _call_key({"n": deep}) is None
