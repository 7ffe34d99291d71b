"""What a team tests of its helpdesk: data, errors, refused arguments, the wire."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_mcpfusion import FusionCall


def test_a_ticket_is_presented(fusion_call: FusionCall) -> None:
    """The Presenter's fields and rules reach the agent; the owner's email does not."""
    result = fusion_call("get_ticket", ticket=1)
    assert result.data == {"id": 1, "title": "Printer on fire", "status": "open"}
    assert result.system_rules == ("Quote ticket ids as #id.",)
    assert "ann@example.com" not in result.wire


def test_a_missing_ticket_is_an_error_envelope(fusion_call: FusionCall) -> None:
    """The tool's own tool_error, with its recovery hint."""
    result = fusion_call("get_ticket", ticket=99)
    assert result.is_error
    assert result.error is not None
    assert (result.error.code, result.error.recovery) == ("NOT_FOUND", "Call open_ticket.")


def test_a_refused_argument_is_a_validation_envelope(fusion_call: FusionCall) -> None:
    """The framework's argument validation, in the format: the field, not the value."""
    result = fusion_call("get_ticket", ticket="one")
    assert result.validation is not None
    assert [field.name for field in result.validation.fields] == ["ticket"]
    assert "one" not in result.validation.fields[0].message


def test_the_wire(fusion_call: FusionCall, fusion_snapshot: Any) -> None:
    """The exact bytes, block by block (the same over the server's stdio runner)."""
    assert fusion_call("get_ticket", ticket=1) == fusion_snapshot
    assert fusion_call("count_tickets") == fusion_snapshot


# fusion_caller, not fusion_call, in @given: a fresh call fixture per example, so
# hypothesis has no function-scoped fixture to warn about (no health check to
# suppress); a call reaches a whole server, so no deadline.
@settings(max_examples=10, deadline=None)
@given(title=st.text(min_size=1, max_size=30))
def test_any_title_opens_a_ticket(fusion_caller: Callable[[], FusionCall], title: str) -> None:
    """fusion_caller inside @given: each example gets its own call fixture."""
    call = fusion_caller()
    assert call("open_ticket", title=title).data["title"] == title
