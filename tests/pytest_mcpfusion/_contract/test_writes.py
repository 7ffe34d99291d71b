"""What may write, in process and over a server, and the one call a writing tool still gets."""

from __future__ import annotations

from typing import Any

import pytest

from fusion_core import FusionApp, Tool
from pytest_mcpfusion._contract._writes import effects, safe_refusal


def _app(annotations: dict[str, Any] | None = None) -> FusionApp:
    shop = Tool("shop", "A shop", annotations=annotations)
    shop.action("list", list, read_only=True)
    shop.action("get", lambda order_id: {"id": order_id}, read_only=True)
    shop.action("pay", lambda order_id: {"paid": order_id})
    shop.action("purge", dict, read_only=True, destructive=True)
    return FusionApp([shop], name="shop")


def test_in_process_the_actions_own_flags_decide() -> None:
    """read_only actions may be called; others and destructive ones may write."""
    app = _app()
    definition = app.definitions()[0]
    assert effects(definition, "list", app) is None
    assert effects(definition, "get", app) is None
    assert effects(definition, "pay", app) == "action 'pay' is not read_only=True"
    assert effects(definition, "purge", app) == "action 'purge' is destructive=True"


def test_in_process_an_explicit_open_world_hint_holds_back_even_reads() -> None:
    """A tool that says openWorldHint: true reaches outside the server: no generated call."""
    app = _app({"openWorldHint": True})
    definition = app.definitions()[0]
    reason = effects(definition, "get", app)
    assert reason is not None
    assert "openWorldHint: true" in reason


def test_over_a_server_the_tools_annotations_decide_for_every_action() -> None:
    """The same app seen only through tools/list: one writing action, the whole tool may write."""
    definition = _app().definitions()[0]
    for action in ("list", "get", "pay"):
        reason = effects(definition, action, None)
        assert reason is not None
        assert "destructiveHint: true" in reason  # purge makes the whole tool destructive


@pytest.mark.parametrize(
    ("action", "probe"),
    [("get", {"action": "get"}), ("pay", {"action": "pay"}), ("list", None), ("purge", None)],
)
def test_the_safe_refusal_withholds_what_the_action_requires(
    action: str, probe: dict[str, Any] | None
) -> None:
    """The action alone when it requires arguments; nothing when it requires none."""
    assert safe_refusal(_app().definitions()[0], action) == probe


@pytest.mark.parametrize(
    ("schema", "probe"),
    [
        ({"type": "object", "required": ["url"]}, {}),
        ({"type": "object", "properties": {"url": {"type": "string"}}}, None),
        ({"type": "object", "required": "url"}, None),  # malformed: nothing is sure
        ("not a schema", None),
    ],
)
def test_a_tool_without_actions_gets_an_empty_call_only_if_it_requires_something(
    schema: Any, probe: dict[str, Any] | None
) -> None:
    """``{}`` is refused by a tool that requires an argument; otherwise no call is safe."""
    assert safe_refusal({"name": "fetch", "inputSchema": schema}, None) == probe
