"""The optional C float scanner agrees with the pure-Python rewrite and the exact encoder."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fusion_core import _json

speedups = pytest.importorskip(
    "fusion_core._speedups", reason="the C accelerator was not built on this machine"
)

_floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [1.0, -0.0, 1e16, 1e20, 1e21, 1.5e-6, 1e-6, 9.99e-6, 1e-7, 4500.0, 1.05, 0.06]
)
_leaves = _floats | st.integers() | st.text() | st.booleans() | st.none()
_values = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=25,
)


def _orjson(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:
        return None


@given(_values)
@example({"price": 4500.0, "tiny": 1.5e-6, "big": 1e17, "note": "ends with 1.0"})
@example(["e+16", "x.0", -0.0, [1e20]])
@example(1e16)
def test_c_scanner_matches_regex_and_exact(value: Any) -> None:
    """Both rewrites of orjson's floats give the exact encoder's bytes."""
    out = _orjson(value)
    if out is None:  # orjson refuses it (a lone surrogate, a huge int): the exact path runs
        assert _json._fast(value) is None
        return
    exact = _json._exact(value, "$").encode()
    assert _json._js_floats_c(out) == exact
    assert _json._js_floats_regex(out) == exact


def test_spans_name_only_tokens_js_prints_differently() -> None:
    """The scanner reports integral floats and e+16..e+20 / e-6 exponents, nothing else."""
    out = orjson.dumps([4500.0, 2.5, 1e16, 1e21, 1.5e-6, 1e-7, "4.0"], option=orjson.OPT_INDENT_2)
    tokens = [out[start:end] for start, end in speedups.float_fixups(out)]
    assert tokens == [b"4500.0", b"1e+16", b"1.5e-6"]
