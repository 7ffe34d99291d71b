"""FusionResult: its bytes read once, for the view and for every checker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from fusion_core import WireFormatError, check, parse, response
from fusion_core._snapshot._format import block_kinds
from pytest_mcpfusion import FusionResult


def _result(wire: Mapping[str, Any]) -> FusionResult:
    return FusionResult(wire, None, tool="billing", arguments={})


def test_the_bytes_are_parsed_once_for_the_view_and_the_checks() -> None:
    """``parsed`` is one object; the view, ``check`` and the kinds read it, not the wire again."""
    wire = dict(response({"id": "INV-1"}).system_rules(["Amounts are in cents."]).build())
    result = _result(wire)
    parsed = result.parsed
    assert result.parsed is parsed
    assert result.view is parsed.view
    assert parse(parsed) is parsed  # a parsed response is returned as it is
    assert check(parsed) == check(wire) == []
    assert block_kinds(parsed) == block_kinds(wire) == ["data", "domain_rules"]
    assert result.data == {"id": "INV-1"}


def test_unreadable_bytes_raise_where_they_are_read() -> None:
    """A block that is not text: ``parsed`` and ``view`` raise WireFormatError; kinds say text."""
    wire: dict[str, Any] = {"content": [{"type": "image", "data": "", "mimeType": "image/png"}]}
    result = _result(wire)
    with pytest.raises(WireFormatError):
        result.parsed  # noqa: B018 - the property is what raises
    with pytest.raises(WireFormatError):
        result.view  # noqa: B018
    assert block_kinds(wire) == ["text"]
    assert [violation.rule for violation in check(wire)] == ["wire-format"]


def test_unreadable_bytes_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kinds and the check both ask: refused bytes (up to the size bound) are parsed once."""
    import fusion_core._read._parse as reader  # noqa: PLC0415

    calls: list[object] = []
    real = reader.parse

    def counted(source: object) -> object:
        calls.append(source)
        return real(source)

    monkeypatch.setattr(reader, "parse", counted)
    result = _result({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]})
    for _ in range(3):
        with pytest.raises(WireFormatError):
            result.parsed  # noqa: B018 - the property is what raises
    assert len(calls) == 1
