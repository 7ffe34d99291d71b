"""Tool middleware: functions that run before an action's handler (the reference's ``.use()``).

A middleware is called as ``middleware(ctx, args)``, sync or async, after the
arguments are validated and before the handler, with the call's context and
the validated arguments (a dict, the discriminator included, as the reference
passes them). What it returns decides what happens next:

* ``None``: the call goes on;
* a mapping: the call goes on with the context enriched by it, a new dict
  ``{**ctx, **returned}`` (a ``None`` context becomes the mapping; the caller's
  context is never changed in place);
* a :class:`~fusion_core.ToolResponse` or a response builder: the call stops
  and that is its answer (``error("Forbidden", "FORBIDDEN")``), read by the
  same wrap rule as a handler's result, so an error passes through the
  action's Presenter untouched;
* raising: the ``INTERNAL_ERROR`` envelope of any handler exception.

Order: the tool's middleware first, in ``use()`` order, then the group's,
then the handler; the first that stops the call ends it.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from fusion_core._write._builder import ResponseBuilder
from fusion_core._write._response import ToolResponse

if TYPE_CHECKING:
    from fusion_core._tools._inline import Inline

__all__ = ["Middleware", "check_middleware", "run_middleware"]

MiddlewareResult: TypeAlias = Mapping[str, Any] | ToolResponse | ResponseBuilder | None


class Middleware(Protocol):
    """A function run before a handler: ``middleware(ctx, args)``, sync or async.

    Returns ``None`` to go on, a mapping to add to the context, or a response
    (``error(...)``, a builder) to stop the call with it; see :meth:`Tool.use`.
    """

    def __call__(
        self, ctx: Any, args: dict[str, Any], /
    ) -> MiddlewareResult | Awaitable[MiddlewareResult]:
        """Inspect the call; ``None`` goes on."""


def check_middleware(middleware: object, where: str) -> Middleware:
    """A callable, or a ``TypeError`` saying what ``use()`` takes."""
    if not callable(middleware):
        msg = (
            f"{where}: use() takes functions called as middleware(ctx, args), "
            f"got {type(middleware).__name__}"
        )
        raise TypeError(msg)
    return middleware


def _name(middleware: Middleware) -> str:
    return getattr(middleware, "__qualname__", None) or type(middleware).__name__


def _enriched(ctx: Any, extra: Mapping[str, Any], middleware: Middleware) -> Any:
    if ctx is None:
        return dict(extra)
    if isinstance(ctx, Mapping):
        return {**ctx, **extra}
    msg = (
        f"middleware {_name(middleware)} returned a mapping to add to the context, but the "
        f"context is a {type(ctx).__name__}, not a mapping: return None to go on, or a response "
        "to stop"
    )
    raise TypeError(msg)


async def run_middleware(
    chain: tuple[Middleware, ...], ctx: Any, args: dict[str, Any], inline: Inline | None
) -> tuple[Any, ToolResponse | ResponseBuilder | None]:
    """Run ``chain`` in order: the context to go on with, or the response that stops the call."""
    for middleware in chain:
        outcome: Any = middleware(ctx, dict(args))
        if inspect.isawaitable(outcome):
            if inline is not None:
                await inline.leave()
            outcome = await outcome
        if outcome is None:
            continue
        if isinstance(outcome, ToolResponse | ResponseBuilder):
            return ctx, outcome
        if isinstance(outcome, Mapping):
            ctx = _enriched(ctx, outcome, middleware)
            continue
        msg = (
            f"middleware {_name(middleware)} returned a {type(outcome).__name__}: return None "
            "to go on, a mapping to add to the context, or a response to stop the call"
        )
        raise TypeError(msg)
    return ctx, None
