"""The size limit of an answer read in memory: ``json.dumps``'s size, with a cheap bound first."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fusion_core._mcp._call_limits import json_size_over


def _exact(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


CASES = [
    pytest.param({"content": [{"type": "text", "text": "x" * 50}]}, id="text"),
    pytest.param({"a": [1, 2, 3], "b": {"c": None, "d": True}}, id="separators"),
    pytest.param({"f": [1e16, 1e-07, float("-inf"), float("nan")] * 5}, id="floats"),
    pytest.param({"n": 10**30}, id="a huge int orjson refuses"),
    pytest.param({"s": "\ud800 lone surrogate"}, id="a lone surrogate orjson refuses"),
    pytest.param({"é": "ünïcödé ✓ 🎉"}, id="non-ascii"),
]


@pytest.mark.parametrize("value", CASES)
def test_the_size_is_json_dumps_size_at_every_limit(value: Any) -> None:
    """Over the limit: ``json.dumps``'s exact UTF-8 size; at or under it: ``None``."""
    size = _exact(value)
    for limit in range(3 * size + 8):
        assert json_size_over(value, limit) == (size if size > limit else None), limit


def test_what_json_cannot_hold_counts_as_its_repr_and_never_raises() -> None:
    """An in-process app's answer may hold a set or an object: measured, not refused by a raise."""
    value: dict[str, Any] = {"s": {1, 2}, "o": object()}
    size = len(json.dumps(value, default=repr).encode())
    assert json_size_over(value, size - 1) == size
    assert json_size_over(value, size) is None
    cyclic: dict[str, Any] = {"big": "x" * 100}
    cyclic["self"] = cyclic
    assert json_size_over(cyclic, 10) is None  # a cycle cannot be measured: left to the reader
