"""The SDK's OpenTelemetry spans: skipped while inert, recorded as before once traced.

A tracer provider is process-wide and can be set once, so the recorded
spans are checked in a child process with the OpenTelemetry SDK's in-memory
exporter; the guard itself is checked in process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest
from opentelemetry import trace

from fusion_core import FusionApp, Tool
from fusion_core._mcp._server import build_server
from fusion_core._mcp._server_tracing import _SpansWhenTraced, tracing_inert
from tests._support.fake_app import ROOT


def _app() -> FusionApp:
    async def say(text: str) -> str:
        return text

    return FusionApp([Tool("echo", "Echo").action("say", say)])


def test_build_server_guards_the_sdk_middleware_and_only_it() -> None:
    """The SDK's OpenTelemetry middleware is wrapped in place; the chain keeps its length."""
    server = build_server(_app())
    (layer,) = server.middleware
    assert isinstance(layer, _SpansWhenTraced)
    assert type(layer.inner).__name__ == "OpenTelemetryMiddleware"


@pytest.mark.parametrize(
    ("meta", "inert"),
    [
        (None, True),
        ({}, True),
        ({"progressToken": 1, "io.modelcontextprotocol/clientInfo": {"name": "x"}}, True),
        ({"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, False),
        ({"baggage": "user=alice"}, False),
        ({"tracestate": "a=b"}, False),
        ("not a mapping", False),
    ],
    ids=["none", "empty", "other-keys", "traceparent", "baggage", "tracestate", "odd-type"],
)
def test_without_a_provider_only_propagated_context_needs_the_span(
    meta: object, inert: bool
) -> None:
    """No tracer provider: the span matters only if ``_meta`` carries a propagator's field."""
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    assert tracing_inert(meta) is inert


def test_with_a_provider_every_request_gets_its_span(monkeypatch: pytest.MonkeyPatch) -> None:
    """A configured provider (any but the proxy and the no-op one) turns the guard off."""
    monkeypatch.setattr(trace, "get_tracer_provider", _Provider)
    assert tracing_inert(None) is False
    monkeypatch.setattr(trace, "get_tracer_provider", trace.NoOpTracerProvider)
    assert tracing_inert(None) is True


class _Provider(trace.TracerProvider):
    """A tracer provider that is neither the proxy nor the no-op one."""

    def get_tracer(self, *_args: Any, **_kwargs: Any) -> trace.Tracer:
        return trace.NoOpTracer()


@pytest.mark.anyio
async def test_the_guard_calls_the_sdk_middleware_only_when_needed() -> None:
    """Inert requests go straight to the handler chain; the others through the SDK's layer."""
    seen: list[str] = []

    async def inner(ctx: Any, call_next: Any) -> Any:
        seen.append("span")
        return await call_next(ctx)

    async def call_next(_ctx: Any) -> Any:
        seen.append("handler")
        return {"content": []}

    class Ctx:
        def __init__(self, meta: Any) -> None:
            self.meta = meta

    guard = _SpansWhenTraced(inner)
    assert await guard(Ctx(None), call_next) == {"content": []}  # type: ignore[arg-type]
    assert seen == ["handler"]
    await guard(Ctx({"traceparent": "00-1-2-01"}), call_next)  # type: ignore[arg-type]
    assert seen == ["handler", "span", "handler"]


_RECORDED = textwrap.dedent(
    """
    import anyio
    from mcp import Client
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from fusion_core import FusionApp, Tool, build_server

    async def say(text: str) -> str:
        return text

    server = build_server(FusionApp([Tool("echo", "Echo").action("say", say)]))
    exporter = InMemorySpanExporter()

    async def main():
        async with Client(server, mode="legacy") as client:
            await client.call_tool("echo", {"action": "say", "text": "before"})
            provider = TracerProvider()
            provider.add_span_processor(SimpleSpanProcessor(exporter))
            trace.set_tracer_provider(provider)  # after the server was built
            result = await client.call_tool("echo", {"action": "say", "text": "after"})
            assert result.content[0].text == "after"

    anyio.run(main)
    for span in exporter.get_finished_spans():
        if span.kind == trace.SpanKind.SERVER:
            print(span.name, span.attributes.get("gen_ai.tool.name"))
    """
)


def test_spans_are_recorded_once_a_provider_is_set() -> None:
    """The server's spans, as the SDK makes them, from the first request after the provider."""
    done = subprocess.run(
        [sys.executable, "-c", _RECORDED],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["tools/call echo echo"]
