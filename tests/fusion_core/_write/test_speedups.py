"""The optional C float scanner agrees with the pure-Python path; FUSION_NO_SPEEDUPS picks that."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fusion_core._write import _json

speedups = pytest.importorskip(
    "fusion_core._write._speedups", reason="the C accelerator was not built on this machine"
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


# -- the off switch: FUSION_NO_SPEEDUPS ----------------------------------------

ROOT = Path(__file__).resolve().parents[3]
# Variables of the outer run that would change how the inner pytest runs.
_OUTER_RUN = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID")
# The tests whose code paths the accelerator changes: the JSON writer's float
# rewrite and the reader's canonical-JSON check.
_ACCELERATED_TESTS = (
    "tests/fusion_core/_write/test_json.py",
    "tests/fusion_core/_read/test_parse.py",
)


def _environment(switch: str | None) -> dict[str, str]:
    """The environment minus the outer pytest's variables, with the switch as given."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in _OUTER_RUN and key != _json.NO_SPEEDUPS_VARIABLE
    }
    if switch is not None:
        environment[_json.NO_SPEEDUPS_VARIABLE] = switch
    return environment


def _paths_in_child(switch: str | None) -> str:
    code = "from fusion_core._write import _json; print(_json.SPEEDUPS, _json._js_floats.__name__)"
    completed = subprocess.run(
        [sys.executable, "-c", code],
        env=_environment(switch),
        capture_output=True,
        text=True,
        check=True,
    )
    return completed.stdout.strip()


@pytest.mark.parametrize(
    ("switch", "expected"),
    [
        pytest.param(None, "True _js_floats_c", id="unset"),
        pytest.param("", "True _js_floats_c", id="empty"),
        pytest.param("0", "True _js_floats_c", id="zero"),
        pytest.param("1", "False _js_floats_regex", id="one"),
        pytest.param("yes", "False _js_floats_regex", id="any-other-value"),
    ],
)
def test_switch_selects_the_path_at_import(switch: str | None, expected: str) -> None:
    """FUSION_NO_SPEEDUPS (non-empty, not 0) makes the pure-Python path run; else C."""
    assert _paths_in_child(switch) == expected


def test_accelerated_code_paths_pass_their_tests_without_the_accelerator() -> None:
    """The JSON and parse tests pass in a run with FUSION_NO_SPEEDUPS=1 (both paths in CI)."""
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *_ACCELERATED_TESTS],
        cwd=ROOT,
        env=_environment("1"),
        capture_output=True,
        text=True,
        check=False,
    )
    tail = "\n".join((completed.stdout + completed.stderr).splitlines()[-20:])
    assert completed.returncode == 0, tail
    assert " passed" in completed.stdout
