"""What ``fusion call`` and ``fusion check`` read from the command line: JSON as a server reads it.

Python's reader takes what JSON is not (``NaN``, ``Infinity``, ``1e400`` as
infinity, a key given twice, the last winning): a call built from those
would send bytes a server refuses, or another value than the one written.
Each is refused naming where it was, or, for a ``KEY=VALUE``, taken as the
string it is.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from fusion_core._cli._calls import _CliError, call_arguments, calls_to_check

NOT_JSON = [
    pytest.param('{"n": NaN}', "NaN is not JSON", id="nan"),
    pytest.param('{"n": -Infinity}', "-Infinity is not JSON", id="infinity"),
    pytest.param('{"n": 1e400}', "1e400 is too large for a number", id="float-overflow"),
    pytest.param('{"n": [1, {"n": 1e999}]}', "1e999 is too large", id="nested-overflow"),
    pytest.param('{"n": 1, "n": 2}', "the key 'n' is given twice", id="duplicate-key"),
    pytest.param(
        '{"a": {"b": 1, "c": 2, "b": 3}}', "the key 'b' is given twice", id="nested-duplicate"
    ),
    pytest.param('{"n": ' + "9" * 5000 + "}", "an int of more than 4,300 digits", id="long-int"),
]


@pytest.mark.parametrize(("text", "message"), NOT_JSON)
def test_json_arguments_a_server_would_not_read_are_refused_naming_where(
    text: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--json``, a ``--call``'s ARGS_JSON and a ``--calls`` file: one error naming the place."""
    with pytest.raises(_CliError, match="--json") as caught:
        call_arguments([], text)
    assert message in str(caught.value)
    with pytest.raises(_CliError, match=r"--call #1") as caught:
        calls_to_check([["tool", "action", text]], None)
    assert message in str(caught.value)
    calls = tmp_path / "calls.json"
    calls.write_text(f'[{{"tool": "t", "arguments": {text}}}]', encoding="utf-8")
    with pytest.raises(_CliError, match=r"calls\.json") as caught:
        calls_to_check([], str(calls))
    assert message in str(caught.value)
    monkeypatch.setattr("sys.stdin", io.StringIO(f'[{{"tool": "t", "arguments": {text}}}]'))
    with pytest.raises(_CliError) as caught:
        calls_to_check([], "-")
    assert str(caught.value).startswith("-")
    assert message in str(caught.value)


@pytest.mark.parametrize("value", ["NaN", "Infinity", "1e400", '{"a": 1, "a": 2}'])
def test_a_key_value_that_is_not_json_is_the_string_written(value: str) -> None:
    """``KEY=VALUE``: read as JSON when it is JSON, else taken as a string (docs/cli.md)."""
    assert call_arguments(["get", f"k={value}"], None) == ("get", {"k": value})


def test_json_a_server_reads_is_read_as_before() -> None:
    """Floats, big ints within the limit, nesting and unicode are read as they are."""
    text = '{"f": 1.5e300, "i": ' + "9" * 400 + ', "s": "é", "l": [{"a": null}]}'
    _, arguments = call_arguments([], text)
    assert arguments == {"f": 1.5e300, "i": int("9" * 400), "s": "é", "l": [{"a": None}]}
