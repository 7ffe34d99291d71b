"""Finding a JSON-RPC response's ``result`` text as written, for ``fusion call --raw``."""

from __future__ import annotations

import pytest

from fusion_core._mcp._client_raw import RawAnswers, result_text


@pytest.mark.parametrize(
    ("message", "result"),
    [
        ('{"jsonrpc":"2.0","id":1,"result":{"b":1.50,"a":1E2}}', '{"b":1.50,"a":1E2}'),
        ('{ "result" : [1, 2] , "id": 1 }', "[1, 2]"),
        ('\n {"id": 1, "result": "caf\\u00e9"}\r', '"caf\\u00e9"'),
        ('{"id": 1, "x": {"result": 0}, "result": null}', "null"),  # a nested one is not it
        ('{"id": 1, "note": "\\"result\\": 5", "result": true}', "true"),  # nor one in a string
        ('{"re\\u0073ult": 7}', "7"),  # the key's escapes are read, as JSON does
    ],
)
def test_the_result_member_is_found_as_written(message: str, result: str) -> None:
    """The top-level ``result`` member's text, byte for byte, whatever comes before it."""
    assert result_text(message) == result


@pytest.mark.parametrize(
    "message",
    [
        '{"jsonrpc": "2.0", "method": "notifications/message", "params": {}}',  # no result
        '{"id": 1, "error": {"code": -1, "message": "no"}}',
        "[1, 2]",
        "not JSON",
        '{"id": 1, "result": ',
        '{"id": 1 "result": 2}',
        '{"id": ' + "9" * 5000 + ', "result": 1}',  # past CPython's int digit limit
        "",
    ],
)
def test_anything_else_has_no_result_text(message: str) -> None:
    """Requests, notifications, errors and damaged messages give ``None``, never an exception."""
    assert result_text(message) is None


def test_answers_are_kept_only_while_asked_for() -> None:
    """Off by default (nothing is read twice); on, the last response is kept, notices skipped."""
    raw = RawAnswers()
    raw.offer(b'{"id": 1, "result": 1}')
    assert raw.last is None
    raw.enabled = True
    raw.offer(b'{"id": 2, "result": {"k": 2.0}}')
    raw.offer(b'{"method": "notifications/progress", "params": {}}')
    assert raw.last == '{"k": 2.0}'
