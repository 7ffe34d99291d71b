"""Tool middleware (``Tool.use`` / ``Group.use``): order, context, stopping, failures."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from fusion_core import FusionApp, Presenter, Tool, error, response, view_of


class Refund(BaseModel):
    amount: int
    note: str = "none"


class Invoice(BaseModel):
    id: str


def _seen(log: list[str], name: str) -> Any:
    def middleware(ctx: Any, args: dict[str, Any]) -> None:
        log.append(name)

    return middleware


def billing(log: list[str]) -> Tool:
    """A grouped tool whose handler records the context it receives."""
    tool = Tool("billing")
    invoices = tool.group("invoices")
    invoices.action("refund", lambda args, ctx: {"ctx": ctx, "amount": args.amount}, params=Refund)

    def listed() -> str:
        log.append("handler")
        return "listed"

    tool.group("reports").action("list", listed)
    return tool


def test_tool_middleware_runs_before_group_middleware_in_use_order() -> None:
    """The tool's middleware first (in use() order), then the group's, then the handler."""
    log: list[str] = []
    tool = billing(log)
    tool.group("reports").use(_seen(log, "group-1"), _seen(log, "group-2"))
    tool.use(_seen(log, "tool-1")).use(_seen(log, "tool-2"))
    answer = FusionApp([tool]).call_sync("billing", {"action": "reports.list"})
    assert answer.texts == ["listed"]
    assert log == ["tool-1", "tool-2", "group-1", "group-2", "handler"]


def test_group_middleware_runs_only_for_its_group() -> None:
    """A group's middleware does not run before another group's actions."""
    log: list[str] = []
    tool = billing(log)
    tool.group("invoices").use(_seen(log, "invoices"))
    FusionApp([tool]).call_sync("billing", {"action": "reports.list"})
    assert log == ["handler"]


def test_middleware_gets_the_validated_arguments_with_the_discriminator() -> None:
    """``args`` holds the validated values (defaults filled) and the action key."""
    received: list[dict[str, Any]] = []
    tool = billing([]).use(lambda ctx, args: received.append(args))
    FusionApp([tool]).call_sync("billing", {"action": "invoices.refund", "amount": 5})
    assert received == [{"action": "invoices.refund", "amount": 5, "note": "none"}]


def test_invalid_arguments_never_reach_middleware() -> None:
    """Validation comes first: a middleware sees only arguments that passed."""
    log: list[str] = []
    tool = billing(log).use(_seen(log, "mw"))
    answer = FusionApp([tool]).call_sync("billing", {"action": "invoices.refund", "amount": "x"})
    assert view_of(answer).validation is not None
    assert log == []


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_mapping_enriches_the_context(asynchronous: bool) -> None:
    """A returned mapping is merged into a new context; the caller's is unchanged."""

    def sync_user(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
        return {"user": f"u-{ctx['token']}"}

    async def async_user(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
        await anyio.sleep(0)
        return {"user": f"u-{ctx['token']}"}

    tool = billing([]).use(async_user if asynchronous else sync_user)
    tool.use(lambda ctx, args: {"seen": ctx["user"]})
    given = {"token": "t1"}
    answer = FusionApp([tool]).call_sync(
        "billing", {"action": "invoices.refund", "amount": 1}, given
    )
    assert view_of(answer).data == {
        "ctx": {"token": "t1", "user": "u-t1", "seen": "u-t1"},
        "amount": 1,
    }
    assert given == {"token": "t1"}


def test_a_mapping_with_no_context_becomes_the_context() -> None:
    """With no context (``None``), the first mapping is the context."""
    tool = billing([]).use(lambda ctx, args: {"role": "admin"})
    answer = FusionApp([tool]).call_sync("billing", {"action": "invoices.refund", "amount": 1})
    assert view_of(answer).data == {"ctx": {"role": "admin"}, "amount": 1}


def require_admin(ctx: Any, args: dict[str, Any]) -> Any:
    """An RBAC guard: anyone but an admin is refused."""
    if ctx.get("role") != "admin":
        return error(f"Role {ctx.get('role')!r} may not refund.", "FORBIDDEN")
    return None


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_response_stops_the_call(asynchronous: bool) -> None:
    """A guard's error response is the answer; later middleware and the handler never run."""
    log: list[str] = []

    async def async_guard(ctx: Any, args: dict[str, Any]) -> Any:
        return require_admin(ctx, args)

    tool = billing(log).use(async_guard if asynchronous else require_admin, _seen(log, "after"))
    app = FusionApp([tool])
    refused = app.call_sync(
        "billing", {"action": "invoices.refund", "amount": 1}, {"role": "viewer"}
    )
    assert refused.is_error
    assert refused.texts == error("Role 'viewer' may not refund.", "FORBIDDEN").texts
    assert log == []
    allowed = app.call_sync(
        "billing", {"action": "invoices.refund", "amount": 1}, {"role": "admin"}
    )
    assert not allowed.is_error
    assert log == ["after"]


def test_a_stop_passes_an_error_through_the_presenter() -> None:
    """An error from middleware is not masked by the action's Presenter (the wrap rule)."""
    tool = Tool("invoices")
    tool.action("get", lambda: {"id": "1"}, returns=Presenter("Invoice", schema=Invoice))
    tool.use(lambda ctx, args: error("Unauthorized"))
    answer = FusionApp([tool]).call_sync("invoices", {"action": "get"})
    assert answer.texts == error("Unauthorized").texts
    assert answer.is_error


def test_a_builder_stops_the_call_and_is_built() -> None:
    """A response builder returned by middleware is built like a handler's."""
    tool = billing([]).use(lambda ctx, args: response("cached").system_rules(["from cache"]))
    answer = FusionApp([tool]).call_sync("billing", {"action": "reports.list"})
    assert answer.texts == response("cached").system_rules(["from cache"]).build().texts


def _raise(ctx: Any, args: dict[str, Any]) -> None:
    raise PermissionError("token expired")


@pytest.mark.parametrize(
    ("middleware", "context", "expected"),
    [
        (_raise, None, "[billing/reports.list] token expired"),
        (lambda ctx, args: 42, None, "returned a int: return None to go on"),
        (lambda ctx, args: {"a": 1}, "a string", "the context is a str, not a mapping"),
    ],
)
def test_failing_middleware_is_an_internal_error(
    middleware: Any, context: Any, expected: str
) -> None:
    """A raise, a return of another type, or a mapping for a non-mapping context: INTERNAL_ERROR."""
    tool = billing([]).use(middleware)
    answer = FusionApp([tool]).call_sync("billing", {"action": "reports.list"}, context)
    envelope = view_of(answer).error
    assert envelope is not None
    assert envelope.code == "INTERNAL_ERROR"
    assert expected in envelope.message


def test_middleware_added_after_a_call_runs_on_the_next() -> None:
    """The app's per-tool cache sees a use() made after the first call."""
    log: list[str] = []
    tool = billing(log)
    app = FusionApp([tool])
    app.call_sync("billing", {"action": "reports.list"})
    tool.use(_seen(log, "late"))
    app.call_sync("billing", {"action": "reports.list"})
    assert log == ["handler", "late", "handler"]


def test_merged_tools_keep_each_ones_middleware() -> None:
    """Actions merged from another tool keep that tool's middleware (and get the host's)."""
    log: list[str] = []
    host = Tool("users").use(_seen(log, "host"))
    host.action("list", lambda: "l")
    other = Tool("users").use(_seen(log, "other"))
    other.action("get", lambda: "g")
    app = FusionApp([host.merge(other)])
    app.call_sync("users", {"action": "list"})
    app.call_sync("users", {"action": "get"})
    assert log == ["host", "host", "other"]


def test_use_refuses_what_it_cannot_call() -> None:
    """``use()`` takes functions: anything else is a TypeError naming the tool."""
    with pytest.raises(TypeError, match="tool 'billing': use\\(\\) takes functions"):
        billing([]).use("require_admin")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="group 'invoices'"):
        billing([]).group("invoices").use(None)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_middleware_runs_in_await_app_call() -> None:
    """The async entry point runs the same chain (async middleware awaited on the loop)."""

    async def guard(ctx: Any, args: dict[str, Any]) -> Any:
        await anyio.sleep(0)
        return require_admin(ctx, args)

    app = FusionApp([billing([]).use(guard)])
    refused = await app.call("billing", {"action": "reports.list"}, {"role": "guest"})
    assert refused.is_error
