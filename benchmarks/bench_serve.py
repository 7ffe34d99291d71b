"""Serving throughput and latency: fusion_core against a bare-SDK server, same text.

Two servers, both real subprocesses, over stdio and streamable HTTP:

- **fusion**: ``python -m fusion_core serve`` of the billing example plus two
  trivial tools (``ping`` async, ``ping_sync`` sync, so run in a worker thread);
- **bare**: the ``mcp`` SDK's low-level ``Server`` answering the *same texts*
  (computed by calling the fusion app once at start-up) with no pipeline at all.

For every protocol version the installed SDK negotiates (each handshake
version, pinned, and the stateless 2026-07-28), sequentially (one client, one
call at a time) and with 16 concurrent clients (16 HTTP clients; over stdio,
which has one client per process, 16 requests in flight on the session), it
prints calls/s, p50 and p99 latency, the server process's CPU time per call
(read from ``/proc``), and two ratios: calls/s fusion/bare (target ≥ 0.95)
and server CPU bare/fusion (what the pipeline costs, whatever the noise of a
shared machine does to latency). Rounds alternate fusion and bare so that the
machine's drift hits both; each figure is the best round (most calls/s,
least CPU per call), the one least disturbed by other work on the machine.

Run ``python benchmarks/bench_serve.py [--quick]``; ``bare`` and ``apps`` are
its own child-process entry points.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import anyio

HERE: Final = Path(__file__).resolve().parent
ROOT: Final = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from fusion_core import FusionApp, Tool  # noqa: E402

CALLS: Final[dict[str, tuple[str, dict[str, Any]]]] = {
    "billing invoices.get": ("billing", {"action": "invoices.get", "invoice_id": "INV-002"}),
    "billing invoices.list": ("billing", {"action": "invoices.list", "status": "paid"}),
    "trivial (async)": ("ping", {"action": "say", "text": "pong"}),
    "trivial (sync)": ("ping_sync", {"action": "say", "text": "pong"}),
}
CONCURRENCY: Final = 16


# ----------------------------------------------------------------- the servers


def _fusion_app() -> FusionApp:
    """The billing example plus the two trivial tools."""
    from examples.billing.app import make_app  # noqa: PLC0415

    async def say(text: str) -> str:
        return text

    def say_sync(text: str) -> str:
        return text

    served = make_app()
    served.add(Tool("ping", "Echo a word").action("say", say, read_only=True))
    served.add(Tool("ping_sync", "Echo a word (sync)").action("say", say_sync, read_only=True))
    return served


app: Final = _fusion_app()
"""What ``python -m fusion_core serve bench_serve:app`` serves."""


def _bare_server() -> Any:
    """The SDK's low-level ``Server`` returning the fusion app's texts, precomputed."""
    from mcp.server.lowlevel import Server  # noqa: PLC0415
    from mcp_types import (  # noqa: PLC0415
        CallToolRequestParams,
        CallToolResult,
        ListToolsResult,
        PaginatedRequestParams,
        TextContent,
    )

    answers = {
        (name, arguments["action"]): dict(app.call_sync(name, arguments))
        for name, arguments in CALLS.values()
    }
    listed = ListToolsResult.model_validate({"tools": app.definitions()})

    async def list_tools(_ctx: Any, _params: PaginatedRequestParams | None) -> ListToolsResult:
        return listed

    async def call_tool(_ctx: Any, params: CallToolRequestParams) -> CallToolResult:
        answer = answers[(params.name, (params.arguments or {})["action"])]
        texts: list[Any] = [TextContent(type="text", text=b["text"]) for b in answer["content"]]
        return CallToolResult(content=texts, is_error=answer.get("isError", False))

    return Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)


def _run_bare(http: bool) -> None:
    """Child process: serve the bare server on stdio, or HTTP on a free loopback port."""
    server = _bare_server()
    if not http:
        from mcp.server.stdio import stdio_server  # noqa: PLC0415

        async def stdio() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(stdio)
        return
    import uvicorn  # noqa: PLC0415

    asgi = server.streamable_http_app()
    config = uvicorn.Config(asgi, host="127.0.0.1", port=0, log_level="warning")
    sock = config.bind_socket()
    print(
        f"bare over streamable HTTP at http://127.0.0.1:{sock.getsockname()[1]}/mcp",
        file=sys.stderr,
        flush=True,
    )
    anyio.run(uvicorn.Server(config).serve, [sock])


# ---------------------------------------------------------------- the clients


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)])}


def _commands() -> dict[str, list[str]]:
    return {
        "fusion": [sys.executable, "-m", "fusion_core", "serve", "bench_serve:app"],
        "bare": [sys.executable, str(Path(__file__).resolve()), "bare"],
    }


@contextlib.contextmanager
def _http_server(command: list[str]) -> Iterator[tuple[str, int]]:
    """Start an HTTP server subprocess on a free port; yield its URL and pid; stop it."""
    process = subprocess.Popen(
        [*command, "--http"] if command[-1] == "bare" else [*command, "--http", "--port", "0"],
        cwd=ROOT,
        env=_env(),
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if " over streamable HTTP at " in line:
                # Keep reading stderr, so that a chatty server never blocks on a full pipe.
                threading.Thread(target=process.stderr.read, daemon=True).start()
                url = line.rsplit(" at ", 1)[1].strip()
                _wait_accepting(url)
                yield url, process.pid
                return
        raise RuntimeError(f"{command} did not start")
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()


def _wait_accepting(url: str, timeout: float = 30.0) -> None:
    """Return once ``url``'s port accepts TCP connections."""
    parsed = urlsplit(url)
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((parsed.hostname, parsed.port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextlib.asynccontextmanager
async def _clients(target: Any, mode: str, count: int) -> AsyncIterator[list[Any]]:
    """``count`` connected SDK clients (stdio: one, shared) negotiating ``mode``."""
    from mcp import Client  # noqa: PLC0415

    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for _ in range(count):
            client = Client(target, mode=mode, read_timeout_seconds=60)
            clients.append(await stack.enter_async_context(client))
        yield clients


@dataclass
class Sample:
    """One measured run: how long it took and each call's latency."""

    seconds: float
    latencies: list[float] = field(default_factory=list)
    server_cpu: float = 0.0  # CPU seconds the server process used for these calls

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _child_pid(*words: str, absent: str = "--http") -> int:
    """The pid of this process's child whose command line has ``words`` (not ``absent``)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:"))
        if int(ppid) == os.getpid() and all(w in command for w in words) and absent not in command:
            return int(entry.name)
    raise LookupError(f"no child process running {words}")


async def _run(
    clients: list[Any], call: tuple[str, dict[str, Any]], total: int, tasks: int, pid: int
) -> Sample:
    """``total`` calls spread over ``tasks`` tasks, round-robin over ``clients``."""
    name, arguments = call
    latencies: list[float] = []
    cpu_before = _cpu(pid)

    async def worker(client: Any, calls: int) -> None:
        for _ in range(calls):
            start = time.perf_counter()
            result = await client.call_tool(name, arguments)
            latencies.append(time.perf_counter() - start)
            assert not result.is_error, result

    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for index in range(tasks):
            group.start_soon(worker, clients[index % len(clients)], total // tasks)
    return Sample(time.perf_counter() - start, latencies, _cpu(pid) - cpu_before)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _report(label: str, samples: dict[str, list[Sample]]) -> float:
    rates = {server: max(s.rate for s in runs) for server, runs in samples.items()}
    pooled = {server: [x for s in runs for x in s.latencies] for server, runs in samples.items()}
    cpu = {
        server: min(s.server_cpu / len(s.latencies) for s in runs)
        for server, runs in samples.items()
    }
    ratio = rates["fusion"] / rates["bare"]
    cells = "  ".join(
        f"{server} {rates[server]:5.0f}/s p50 {_percentile(pooled[server], 0.5) * 1e3:5.2f} "
        f"p99 {_percentile(pooled[server], 0.99) * 1e3:6.2f} ms cpu {cpu[server] * 1e6:4.0f} us"
        for server in ("fusion", "bare")
    )
    verdict = "ok" if ratio >= 0.95 else "BELOW"
    cpu_ratio = cpu["bare"] / cpu["fusion"] if cpu["fusion"] else float("nan")
    print(
        f"{label:<50} {cells}  calls/s ratio {ratio:4.2f} {verdict:<5} cpu ratio {cpu_ratio:4.2f}",
        flush=True,
    )
    return ratio


async def _measure(
    label: str,
    connect: Callable[[str, str, int], Any],
    mode: str,
    options: argparse.Namespace,
    pids: Callable[[], dict[str, int]],
) -> list[float]:
    """Every call, sequential then concurrent, fusion and bare alternating."""
    ratios = []
    for concurrent in (False, True):
        count = CONCURRENCY if concurrent and label.startswith("http") else 1
        async with connect("fusion", mode, count) as fusion, connect("bare", mode, count) as bare:
            negotiated = fusion[0].protocol_version
            assert negotiated == bare[0].protocol_version
            server_pids = pids()
            for call_label, call in CALLS.items():
                fusion_result = await fusion[0].call_tool(*call)
                bare_result = await bare[0].call_tool(*call)
                assert fusion_result.content == bare_result.content, call_label
                total = options.calls * (4 if concurrent else 1)
                samples: dict[str, list[Sample]] = {"fusion": [], "bare": []}
                for round_index in range(options.rounds):
                    order = ("fusion", "bare") if round_index % 2 == 0 else ("bare", "fusion")
                    for server in order:
                        clients = fusion if server == "fusion" else bare
                        tasks = CONCURRENCY if concurrent else 1
                        run: Awaitable[Sample] = _run(
                            clients, call, total, tasks, server_pids[server]
                        )
                        samples[server].append(await run)
                shape = f"{CONCURRENCY} concurrent" if concurrent else "sequential"
                ratios.append(_report(f"{label} {negotiated} {shape:<13} {call_label}", samples))
    return ratios


async def _bench(options: argparse.Namespace) -> None:
    import mcp.client.session as session_module  # noqa: PLC0415
    from mcp import StdioServerParameters  # noqa: PLC0415
    from mcp_types.version import (  # noqa: PLC0415
        HANDSHAKE_PROTOCOL_VERSIONS,
        MODERN_PROTOCOL_VERSIONS,
    )

    handshake = list(HANDSHAKE_PROTOCOL_VERSIONS)
    if options.quick:
        handshake = handshake[-1:]
    modes = [*(("legacy", v) for v in handshake), *((v, v) for v in MODERN_PROTOCOL_VERSIONS)]
    commands = _commands()
    ratios: list[float] = []
    print(
        f"calls/s and server CPU/call: best of {options.rounds} alternating rounds; "
        f"p50/p99 over all rounds; sequential: {options.calls} calls, "
        f"concurrent: {4 * options.calls} calls",
        flush=True,
    )

    def stdio_connect(server: str, mode: str, count: int) -> Any:
        command = commands[server]
        parameters = StdioServerParameters(
            command=command[0], args=command[1:], cwd=str(ROOT), env=_env()
        )
        return _clients(parameters, mode, 1)

    with _http_server(commands["fusion"]) as fusion, _http_server(commands["bare"]) as bare:
        urls = {"fusion": fusion[0], "bare": bare[0]}
        http_pids = {"fusion": fusion[1], "bare": bare[1]}

        def stdio_pids() -> dict[str, int]:
            return {
                "fusion": _child_pid("fusion_core", "serve", "bench_serve:app"),
                "bare": _child_pid("bench_serve.py", "bare"),
            }

        def http_connect(server: str, mode: str, count: int) -> Any:
            return _clients(urls[server], mode, count)

        for mode, version in modes:
            # The client offers its newest handshake version; pin each in turn.
            pinned = version if mode == "legacy" else handshake[-1]
            setattr(session_module, "LATEST_HANDSHAKE_VERSION", pinned)  # noqa: B010 - untyped
            ratios += await _measure("stdio", stdio_connect, mode, options, stdio_pids)
            ratios += await _measure("http ", http_connect, mode, options, lambda: http_pids)
    print(
        f"worst ratio {min(ratios):.2f}, median {statistics.median(ratios):.2f} "
        f"over {len(ratios)} cells (target ≥ 0.95 on every transport and version)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("role", nargs="?", default="bench", choices=["bench", "bare"])
    parser.add_argument("--http", action="store_true", help="(bare) serve HTTP, not stdio")
    parser.add_argument("--quick", action="store_true", help="only the newest handshake version")
    parser.add_argument("--calls", type=int, default=200, help="sequential calls per round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per cell")
    options = parser.parse_args()
    if options.role == "bare":
        _run_bare(options.http)
        return
    anyio.run(_bench, options)


if __name__ == "__main__":
    main()
