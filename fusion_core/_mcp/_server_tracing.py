"""The SDK's OpenTelemetry spans, made only when something would see them.

The ``mcp`` SDK's low-level ``Server`` wraps every request in an
OpenTelemetry span (its ``OpenTelemetryMiddleware``). With no tracer
provider configured the span records nothing, yet building it (attributes,
the ``_meta`` trace-context extraction, entering and leaving it as the
current span) costs about 11 µs a request in a loop, more when served.
:func:`spans_when_traced` puts a guard around that middleware: a request
goes through it as before when a tracer provider is set, or when its
``_meta`` carries a field of the configured propagator (``traceparent``,
``baggage``, ...), whose context a handler could read and send on; every
other request skips it, and nothing observable changes (the current span
stays what it was, a non-recording one).

Both are checked on every request, so a provider set after the server was
built is honoured from its next request on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, final

from opentelemetry import propagate, trace  # comes with mcp: this module is imported with it

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.lowlevel import Server

__all__ = ["spans_when_traced", "tracing_inert"]

_SDK_MIDDLEWARE = "OpenTelemetryMiddleware"
_INERT_PROVIDERS = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)  # record nothing


def tracing_inert(meta: object) -> bool:
    """Whether a request with this ``_meta`` gets a span that nothing records or reads."""
    if not isinstance(trace.get_tracer_provider(), _INERT_PROVIDERS):
        return False
    if not meta:
        return True
    if not isinstance(meta, Mapping):
        return False  # not the SDK's dict: its middleware judges it
    return propagate.get_global_textmap().fields.isdisjoint(meta)


@final
class _SpansWhenTraced:
    """The SDK's middleware ``inner``, skipped for requests :func:`tracing_inert` clears."""

    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if tracing_inert(ctx.meta):
            return await call_next(ctx)
        result: HandlerResult = await self.inner(ctx, call_next)
        return result

    def __repr__(self) -> str:
        return f"spans_when_traced({self.inner!r})"


def spans_when_traced(server: Server[Any]) -> None:
    """Guard ``server``'s OpenTelemetry middleware (found by its class name) in place.

    Other middleware is left as it is; an SDK without that middleware is
    left unchanged.
    """
    server.middleware[:] = [
        _SpansWhenTraced(layer) if type(layer).__name__ == _SDK_MIDDLEWARE else layer
        for layer in server.middleware
    ]
