"""FusionResult: its bytes read once, for the view and for every checker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from fusion_core import ResponseView, WireFormatError, check, parse, response
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


def _bare(text: str, *, tool: str = "billing", tools: Any = None) -> FusionResult:
    wire = {"content": [{"type": "text", "text": text}], "isError": True}
    return FusionResult(wire, None, tool=tool, arguments={}, tools=tools)


@pytest.mark.parametrize("accessor", ["data", "error", "validation"])
def test_a_bare_error_has_no_data_and_no_envelope(accessor: str) -> None:
    """``isError`` with plain text: each accessor raises, naming the call, quoting its first line.

    Not the text as ``data`` nor ``None`` as ``error``: a test reading
    ``result.error.code`` fails here, saying why, not with an AttributeError.
    """
    result = _bare("Tool failed: boom\nTraceback ...")
    with pytest.raises(WireFormatError) as caught:
        getattr(result, accessor)
    message = str(caught.value)
    assert message.startswith("block 0: the call of 'billing' was answered with an error without")
    assert "(isError is true; plain text, 'Tool failed: boom')" in message
    assert "read its text in .content" in message
    assert "use_fusion(server)" in message
    assert result.content == ["Tool failed: boom\nTraceback ..."]
    assert result.is_error


def test_the_view_reads_a_bare_error_as_parse_does() -> None:
    """``view`` and ``parsed`` stay the lenient reading the checks use: the text as data."""
    result = _bare("Unknown tool: nope")
    assert result.view.data == "Unknown tool: nope"
    assert result.parsed.view.error is None


def test_a_bare_error_for_a_name_the_server_lacks_lists_its_tools() -> None:
    """The server lists no tool by the name called: the message says so and lists its names."""
    result = _bare("Unknown tool: nope", tool="nope", tools=lambda: ["open_ticket", "close"])
    with pytest.raises(WireFormatError) as caught:
        result.error  # noqa: B018 - the property is what raises
    assert str(caught.value).endswith(
        "The server has no tool 'nope': tools/list names 'close', 'open_ticket'"
    )


def test_a_long_tool_list_is_cut_and_counted() -> None:
    """Twenty names at most, then how many more."""
    names = [f"tool_{index:02d}" for index in range(25)]
    result = _bare("Unknown tool: nope", tool="nope", tools=lambda: names)
    with pytest.raises(WireFormatError) as caught:
        result.data  # noqa: B018 - the property is what raises
    message = str(caught.value)
    assert "'tool_19' and 5 more" in message
    assert "tool_20" not in message


def test_a_bare_errors_message_is_bounded_whatever_the_names() -> None:
    """A megabyte tool name, thirty long listed names: each quoted in 80 characters at most.

    The old message quoted them whole: 20 MB for thirty 1 MB names (an attacker pass).
    """
    result = _bare("Unknown tool", tool="x" * 1_000_000, tools=lambda: ["n" * 1_000_000] * 30)
    with pytest.raises(WireFormatError) as caught:
        result.data  # noqa: B018 - the property is what raises
    message = str(caught.value)
    assert len(message) < 3_000
    assert f"{'x' * 78}…" in message
    assert "and 10 more" in message


def test_a_listed_tool_or_an_unreachable_list_is_not_called_unknown() -> None:
    """The tool is listed, or ``tools/list`` fails: the message says only what it knows."""

    def unreachable() -> list[str]:
        raise ConnectionError("gone")

    for tools in (lambda: ["billing"], unreachable, None):
        with pytest.raises(WireFormatError) as caught:
            _bare("boom", tools=tools).error  # noqa: B018 - the property is what raises
        assert "has no tool" not in str(caught.value)
        assert "use_fusion(server)" in str(caught.value)


def test_a_bare_errors_message_is_terminal_safe() -> None:
    """The tool's name and the text are the server's: no character a terminal acts on."""
    result = _bare("\x1b[2Jgone\u202e", tool="no\x1b]0;x\x07pe", tools=lambda: ["a\x1bb"])
    with pytest.raises(WireFormatError) as caught:
        result.data  # noqa: B018 - the property is what raises
    message = str(caught.value)
    assert "\x1b" not in message
    assert "\u202e" not in message
    assert "plain text, '\\x1b[2Jgone\\u202e'" in message  # shown, escaped


def test_an_error_without_content_says_so() -> None:
    """``isError`` and no block at all (a view given in process): no block named, "no content"."""
    wire = {"content": [], "isError": True}
    result = FusionResult(wire, ResponseView(), tool="billing", arguments={})
    with pytest.raises(WireFormatError) as caught:
        result.data  # noqa: B018 - the property is what raises
    assert str(caught.value).startswith("the call of 'billing' was answered")
    assert "(isError is true; no content)" in str(caught.value)


def test_envelopes_and_successes_read_as_before() -> None:
    """Only a bare error raises: an envelope's ``data`` is ``None``, a success has no error."""
    from fusion_core import tool_error  # noqa: PLC0415

    envelope = FusionResult(dict(tool_error("NOPE", "no")), None, tool="billing", arguments={})
    assert envelope.data is None
    assert envelope.error is not None
    assert envelope.error.code == "NOPE"
    assert envelope.validation is None
    success = _result(dict(response({"id": 1}).build()))
    assert (success.data, success.error, success.validation) == ({"id": 1}, None, None)
