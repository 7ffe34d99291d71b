"""Serving throughput and latency: fusion_core against bare-SDK servers, same text.

Real subprocesses, over stdio and streamable HTTP:

- **fusion**: ``python -m fusion_core serve`` of the billing example plus two
  trivial tools (``ping`` async, ``ping_sync`` sync, so run in a worker thread);
- **bare**: the ``mcp`` SDK's low-level ``Server`` answering the *same texts*
  (computed by calling the fusion app once at start-up) with no pipeline at
  all. For a sync tool it runs a sync function returning the text in a
  worker thread with ``anyio.to_thread.run_sync``, as the SDK's own
  ``MCPServer`` runs sync tools (``mcp/server/mcpserver/utilities/
  func_metadata.py``): like with like;
- **bare-inline** (sync tools only): the same, but calling the sync function
  on the event loop, as FastMCP 1.x did. It blocks the loop, which neither
  fusion_core nor today's SDK allows (a blocking handler would stall every
  other call); shown because it is the floor of what a sync tool can cost;
- **bare-json** (HTTP only): the bare server answering each request with one
  JSON body (the SDK's ``json_response=True``) rather than its default SSE
  stream. ``serve_http`` answers in JSON when no handler can send messages
  while it runs (no ``context_factory``), as here, so this baseline has the
  same transport work as fusion and the difference is the pipeline alone.
  The target applies to **bare**, the server a user gets from the SDK.

Both bare HTTP servers bind as ``uvicorn.run`` does (Nagle's algorithm off on
their connections, as ``serve_http``'s).

For every protocol version the installed SDK negotiates (each handshake
version, pinned, and the stateless 2026-07-28), sequentially (one client, one
call at a time) and with 16 concurrent clients (16 HTTP clients; over stdio,
which has one client per process, 16 requests in flight on the session),
each round makes the same few calls to every server, in a rotating order,
so that the load of a shared machine lands on all of them (short rounds,
many of them: the load of these machines changes within a second); the figure is the
ratio of wall time per call, fusion / bare, per round (``_harness``: median,
quartiles, extremes). Its inverse is the calls/s ratio, target >= 0.95, so
the time ratio's target is <= 1/0.95 = 1.053. Each line also shows calls/s,
pooled p50/p99 latency and the servers' CPU per call (from ``/proc``, summed
over all rounds): ``cpu`` fusion/bare is what the pipeline itself costs,
whatever the noise does to wall time.

Without the C accelerator (``FUSION_NO_SPEEDUPS=1``), and with ``--quick``,
only the newest handshake version and 2026-07-28 are measured.

Run ``python benchmarks/bench_serve.py [--quick] [--rounds N] [--calls N]``;
``bare`` and ``apps`` are its own child-process entry points.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import inspect
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import anyio

HERE: Final = Path(__file__).resolve().parent
ROOT: Final = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from _harness import header, ratios_of, report, speedups  # noqa: E402
from _line_client import line_client  # noqa: E402
from _reference import ts_server  # noqa: E402

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

    async def invoice(id: str) -> dict[str, Any]:  # noqa: A002 - the reference's argument
        return {"id": id, "client_name": "Client 42 Lda.", "amount_cents": 1234, "status": "paid"}

    served = make_app()
    served.add(Tool("ping", "Echo a word").action("say", say, read_only=True))
    served.add(Tool("invoice", "One invoice").action("get", invoice, read_only=True))
    served.add(Tool("ping_sync", "Echo a word (sync)").action("say", say_sync, read_only=True))
    return served


app: Final = _fusion_app()
"""What ``python -m fusion_core serve bench_serve:app`` serves."""


def _bare_server(inline: bool) -> Any:
    """The SDK's low-level ``Server`` returning the fusion app's texts, precomputed.

    A sync tool's text comes from a sync function, run in a worker thread
    (``MCPServer``'s way) or, with ``inline``, on the event loop.
    """
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

    def answer_of(key: tuple[str, str]) -> dict[str, Any]:
        return answers[key]

    sync_tools = {name for name, tool in app.tools.items() if not _is_async_tool(tool)}

    async def call_tool(_ctx: Any, params: CallToolRequestParams) -> CallToolResult:
        key = (params.name, (params.arguments or {})["action"])
        if params.name not in sync_tools or inline:
            answer = answer_of(key)
        else:
            answer = await anyio.to_thread.run_sync(answer_of, key)
        texts: list[Any] = [TextContent(type="text", text=b["text"]) for b in answer["content"]]
        return CallToolResult(content=texts, is_error=answer.get("isError", False))

    return Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)


def _is_async_tool(tool: Tool) -> bool:
    return all(inspect.iscoroutinefunction(a.handler) for a in tool.actions.values())


def _run_bare(http: bool, inline: bool, json_response: bool) -> None:
    """Child process: serve the bare server on stdio, or HTTP on a free loopback port.

    Over HTTP it is served as ``uvicorn.run(app, host=..., port=...)`` serves
    an app: uvicorn binds through asyncio, whose connections have Nagle's
    algorithm off (a listener from ``uvicorn.Config.bind_socket()`` would
    keep it on, ``serve_http``'s own ``_without_nagle`` docstring says why).
    """
    server = _bare_server(inline)
    if not http:
        from mcp.server.stdio import stdio_server  # noqa: PLC0415

        async def stdio() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(stdio)
        return
    import uvicorn  # noqa: PLC0415

    asgi = server.streamable_http_app(json_response=json_response)
    config = uvicorn.Config(asgi, host="127.0.0.1", port=0, log_level="warning")
    name = "bare-inline" if inline else "bare-json" if json_response else "bare"

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            port = self.servers[0].sockets[0].getsockname()[1]
            print(
                f"{name} over streamable HTTP at http://127.0.0.1:{port}/mcp",
                file=sys.stderr,
                flush=True,
            )

    anyio.run(_Server(config).serve)


# ---------------------------------------------------------------- the clients


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)])}


def _commands() -> dict[str, list[str]]:
    bare = [sys.executable, str(Path(__file__).resolve()), "bare"]
    return {
        "fusion": [sys.executable, "-m", "fusion_core", "serve", "bench_serve:app"],
        "bare": bare,
        "bare-inline": [*bare, "--inline"],
        "bare-json": [*bare, "--json"],
    }


@contextlib.contextmanager
def _http_server(command: list[str]) -> Iterator[tuple[str, int]]:
    """Start an HTTP server subprocess on a free port; yield its URL and pid; stop it."""
    process = subprocess.Popen(
        [*command, "--http"] if "bare" in command else [*command, "--http", "--port", "0"],
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


SERVERS: Final = ("fusion", "bare", "bare-inline")
HTTP_SERVERS: Final = (*SERVERS, "bare-json")


def _baselines(transport: str, call_label: str) -> tuple[str, ...]:
    """The servers measured for one call: bare-inline for sync tools, bare-json over HTTP."""
    servers = SERVERS if call_label.endswith("(sync)") else SERVERS[:2]
    return (*servers, "bare-json") if transport == "http" else servers


TARGET: Final = 1 / 0.95  # time per call, fusion / bare: calls/s at least 0.95x


@dataclasses.dataclass
class Series:
    """One server's rounds in one cell: seconds per call, latencies, CPU seconds."""

    per_call: list[float] = dataclasses.field(default_factory=list)
    latencies: list[float] = dataclasses.field(default_factory=list)
    calls: int = 0
    cpu: float = 0.0


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _child_pid(*words: str, absent: tuple[str, ...] = ("--http",)) -> int:
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
        if (
            int(ppid) == os.getpid()
            and all(w in command for w in words)
            and not any(a in command for a in absent)
        ):
            return int(entry.name)
    raise LookupError(f"no child process running {words}")


async def _run(
    clients: list[Any],
    call: tuple[str, dict[str, Any]],
    total: int,
    tasks: int,
    *,
    pid: int,
    into: Series,
) -> None:
    """``total`` calls spread over ``tasks`` tasks, round-robin over ``clients``."""
    name, arguments = call
    cpu_before = _cpu(pid)

    async def worker(client: Any, calls: int) -> None:
        for _ in range(calls):
            start = time.perf_counter()
            result = await client.call_tool(name, arguments)
            into.latencies.append(time.perf_counter() - start)
            failed = result.get("isError") if isinstance(result, dict) else result.is_error
            assert not failed, result

    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for index in range(tasks):
            group.start_soon(worker, clients[index % len(clients)], total // tasks)
    into.per_call.append((time.perf_counter() - start) / total)
    into.calls += total
    into.cpu += _cpu(pid) - cpu_before


def _pipeline_cpu() -> dict[str, tuple[float, float]]:
    """CPU seconds of one ``app.call`` per call label, in this process (median of 5 runs).

    Twice: back to back (warm caches), and with a call to the bare server
    (in memory) between two calls, as a server runs them: the SDK's code and
    data go through the caches in between, and the pipeline then costs about
    twice as much (docs/performance.md, "Where the served CPU goes").
    """
    from mcp import Client  # noqa: PLC0415

    bare = _bare_server(inline=False)

    async def measure(client: Any, name: str, arguments: dict[str, Any]) -> tuple[float, float]:
        warm, cold = [], []
        for _ in range(5):
            start = time.process_time()
            for _ in range(200):
                await app.call(name, arguments)
            warm.append((time.process_time() - start) / 200)
            spent = 0.0
            for _ in range(200):
                await client.call_tool(name, arguments)
                start = time.process_time()
                await app.call(name, arguments)
                spent += time.process_time() - start
            cold.append(spent / 200)
        return statistics.median(warm), statistics.median(cold)

    async def all_calls() -> dict[str, tuple[float, float]]:
        async with Client(bare, mode="legacy") as client:
            return {label: await measure(client, *call) for label, call in CALLS.items()}

    return anyio.run(all_calls)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _describe(server: str, series: Series) -> str:
    rate = 1 / statistics.median(series.per_call)
    return (
        f"{server} {rate:4.0f}/s p50 {_percentile(series.latencies, 0.5) * 1e3:5.2f} "
        f"p99 {_percentile(series.latencies, 0.99) * 1e3:6.2f} ms "
        f"cpu {series.cpu / series.calls * 1e6:4.0f} us"
    )


def _report(case: str, cell: dict[str, Series]) -> list[float]:
    """One figure per baseline the cell has; the calls/s ratio against the fair one, ``bare``."""
    rates = []
    times = {server: series.per_call for server, series in cell.items()}
    fusion = cell["fusion"]
    for baseline, base in cell.items():
        if baseline == "fusion":
            continue
        ratio = ratios_of(baseline, {baseline: times[baseline], "fusion": times["fusion"]})
        figure = ratio["fusion"]
        report("serve", f"{case}, vs {baseline}", figure, candidate="fusion", target=TARGET)
        cpu = (fusion.cpu / fusion.calls) / (base.cpu / base.calls or float("nan"))
        print(
            f"      calls/s ratio {1 / figure.median:4.2f}  cpu fusion/{baseline} {cpu:4.2f}  "
            f"{_describe('fusion', fusion)}  {_describe(baseline, base)}",
            flush=True,
        )
        if baseline == "bare":
            rates.append(1 / figure.median)
    return rates


async def _measure(
    label: str,
    connect: Callable[[str, str, int], Any],
    mode: str,
    options: argparse.Namespace,
    pids: Callable[[], dict[str, int]],
) -> list[float]:
    """Every call, sequential then concurrent, the servers' rounds interleaved."""
    rates = []
    for concurrent in (False, True):
        count = CONCURRENCY if concurrent and label.startswith("http") else 1
        async with contextlib.AsyncExitStack() as stack:
            every = HTTP_SERVERS if label == "http" else SERVERS
            sessions = {
                server: await stack.enter_async_context(connect(server, mode, count))
                for server in every
            }
            negotiated = sessions["fusion"][0].protocol_version
            assert all(s[0].protocol_version == negotiated for s in sessions.values())
            server_pids = pids()
            for call_label, call in CALLS.items():
                servers = _baselines(label, call_label)
                expected = await sessions["fusion"][0].call_tool(*call)
                for server in servers:
                    assert (await sessions[server][0].call_tool(*call)).content == (
                        expected.content
                    ), (server, call_label)
                total = options.calls * (4 if concurrent else 1)
                tasks = CONCURRENCY if concurrent else 1
                cell = {server: Series() for server in servers}
                for round_index in range(options.rounds):
                    shift = round_index % len(servers)
                    for server in servers[shift:] + servers[:shift]:
                        await _run(
                            sessions[server],
                            call,
                            total,
                            tasks,
                            pid=server_pids[server],
                            into=cell[server],
                        )
                shape = f"{CONCURRENCY} concurrent" if concurrent else "sequential"
                rates += _report(f"{label} {negotiated} {shape}, {call_label}", cell)
    return rates


async def _bench(options: argparse.Namespace) -> None:
    header("bench_serve: wall time per call, fusion / bare SDK server (calls/s ratio = 1/that)")
    await _versus_reference(options)
    if not options.reference_only:
        await _versus_bare(options)


# The TS reference's ``billing_get`` (``reference/ts_server.mjs``) and the same
# tool served by fusion_core: the same answer, byte for byte.
REFERENCE_CALLS: Final[dict[str, tuple[str, dict[str, Any]]]] = {
    "ts": ("billing_get", {"id": "INV-042"}),
    "fusion": ("invoice", {"action": "get", "id": "INV-042"}),
}
REFERENCE_GOAL: Final = 1.2  # calls/s, fusion / the TS reference's startServer, over stdio


async def _versus_reference(options: argparse.Namespace) -> None:
    """Calls/s over stdio against the TS reference, sequential and 16 in flight (issue 28).

    Measured twice: through the lean line client (``_line_client``: its own
    cost is small, so the rates differ by the servers' work; the goal
    applies here), and through the ``mcp`` SDK's client (printed, not
    judged: its CPU per call is larger than either server's, which pulls the
    ratio towards 1.0 on a small machine).
    """
    from mcp import StdioServerParameters  # noqa: PLC0415
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS  # noqa: PLC0415

    found = ts_server("stdio")
    if isinstance(found, str):
        print(f"  fusion / TS reference startServer, stdio: skipped: {found}", flush=True)
        return
    command, env = found
    commands = {"ts": (command, env), "fusion": (_commands()["fusion"], _env())}
    version = HANDSHAKE_PROTOCOL_VERSIONS[-1]
    for client in ("line client", "mcp SDK client"):
        async with contextlib.AsyncExitStack() as stack:
            sessions: dict[str, list[Any]] = {}
            for server, (argv, environment) in commands.items():
                if client == "line client":
                    lean = line_client(
                        argv, env=environment, cwd=str(ROOT), protocol_version=version
                    )
                    sessions[server] = [await stack.enter_async_context(lean)]
                else:
                    target = StdioServerParameters(
                        command=argv[0], args=argv[1:], cwd=str(ROOT), env=environment
                    )
                    sessions[server] = await stack.enter_async_context(
                        _clients(target, "legacy", 1)
                    )
            pids = {
                "ts": _child_pid("ts_server.mjs"),
                "fusion": _child_pid("fusion_core", "serve", "bench_serve:app"),
            }
            answers = {s: await sessions[s][0].call_tool(*REFERENCE_CALLS[s]) for s in sessions}
            content = {s: getattr(a, "content", None) or a["content"] for s, a in answers.items()}
            assert content["ts"] == content["fusion"], answers
            await _reference_rows(client, sessions, pids, options)


async def _reference_rows(
    client: str, sessions: dict[str, list[Any]], pids: dict[str, int], options: argparse.Namespace
) -> None:
    """The sequential and the 16-in-flight row, rounds interleaved."""
    negotiated = sessions["fusion"][0].protocol_version
    for concurrent in (False, True):
        total = options.calls * (4 if concurrent else 1)
        tasks = CONCURRENCY if concurrent else 1
        cell = {server: Series() for server in sessions}
        order = list(sessions)
        for round_index in range(options.rounds):
            for server in order[round_index % 2 :] + order[: round_index % 2]:
                await _run(
                    sessions[server],
                    REFERENCE_CALLS[server],
                    total,
                    tasks,
                    pid=pids[server],
                    into=cell[server],
                )
        shape = f"{CONCURRENCY} in flight" if concurrent else "sequential"
        times = {"TS startServer": cell["ts"].per_call, "fusion": cell["fusion"].per_call}
        figure = ratios_of("TS startServer", times)["fusion"]
        case = f"stdio {negotiated} {shape}, one invoice, {client}, vs the TS reference"
        judged = client == "line client"
        target = 1 / REFERENCE_GOAL if judged else None
        report("serve", case, figure, candidate="fusion", target=target)
        rate = 1 / figure.median
        verdict = "holds" if rate >= REFERENCE_GOAL else "MISSED"
        goal = f"goal >= {REFERENCE_GOAL}x: {verdict}" if judged else "(not judged)"
        cpu = (cell["fusion"].cpu / cell["fusion"].calls) / (
            cell["ts"].cpu / cell["ts"].calls or float("nan")
        )
        print(
            f"      calls/s fusion / TS {rate:4.2f}x, {goal}  cpu fusion/TS {cpu:4.2f}  "
            f"{_describe('fusion', cell['fusion'])}  {_describe('TS', cell['ts'])}",
            flush=True,
        )


async def _versus_bare(options: argparse.Namespace) -> None:
    import mcp.client.session as session_module  # noqa: PLC0415
    from mcp import StdioServerParameters  # noqa: PLC0415
    from mcp_types.version import (  # noqa: PLC0415
        HANDSHAKE_PROTOCOL_VERSIONS,
        MODERN_PROTOCOL_VERSIONS,
    )

    handshake = list(HANDSHAKE_PROTOCOL_VERSIONS)
    if options.quick or not speedups():
        # Without the C accelerator only the JSON writer is slower, alike on
        # every protocol version: the newest handshake and 2026-07-28 show it.
        handshake = handshake[-1:]
    modes = [*(("legacy", v) for v in handshake), *((v, v) for v in MODERN_PROTOCOL_VERSIONS)]
    commands = _commands()
    rates: list[float] = []
    print(
        "app.call in process (what the bare servers skip), CPU per call, back to back / "
        "with a bare SDK call between two (as served): "
        + ", ".join(
            f"{label} {warm * 1e6:.0f} / {cold * 1e6:.0f} us"
            for label, (warm, cold) in options.pipeline.items()
        )
    )
    print(
        f"{options.rounds} interleaved rounds per cell; a round: {options.calls} sequential calls, "
        f"or {4 * options.calls} calls from {CONCURRENCY} concurrent clients",
        flush=True,
    )

    def stdio_connect(server: str, mode: str, count: int) -> Any:
        command = commands[server]
        parameters = StdioServerParameters(
            command=command[0], args=command[1:], cwd=str(ROOT), env=_env()
        )
        return _clients(parameters, mode, 1)

    def stdio_pids() -> dict[str, int]:
        return {
            "fusion": _child_pid("fusion_core", "serve", "bench_serve:app"),
            "bare": _child_pid("bench_serve.py", "bare", absent=("--http", "--inline")),
            "bare-inline": _child_pid("bench_serve.py", "bare", "--inline"),
        }

    async with contextlib.AsyncExitStack() as stack:
        http = {
            server: stack.enter_context(_http_server(commands[server])) for server in HTTP_SERVERS
        }

        def http_connect(server: str, mode: str, count: int) -> Any:
            return _clients(http[server][0], mode, count)

        def http_pids() -> dict[str, int]:
            return {server: pid for server, (_, pid) in http.items()}

        for mode, version in modes:
            # The client offers its newest handshake version; pin each in turn.
            pinned = version if mode == "legacy" else handshake[-1]
            setattr(session_module, "LATEST_HANDSHAKE_VERSION", pinned)  # noqa: B010 - untyped
            rates += await _measure("stdio", stdio_connect, mode, options, stdio_pids)
            rates += await _measure("http", http_connect, mode, options, http_pids)
    print(
        f"calls/s ratio fusion/bare: worst {min(rates):.2f}, median {statistics.median(rates):.2f} "
        f"over {len(rates)} figures (target >= 0.95 on every transport and version)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("role", nargs="?", default="bench", choices=["bench", "bare"])
    parser.add_argument("--http", action="store_true", help="(bare) serve HTTP, not stdio")
    parser.add_argument("--inline", action="store_true", help="(bare) sync tools on the loop")
    parser.add_argument("--json", action="store_true", help="(bare) JSON answers over HTTP")
    parser.add_argument("--quick", action="store_true", help="only the newest handshake version")
    parser.add_argument(
        "--reference-only", action="store_true", help="only the rows against the TS reference"
    )
    parser.add_argument("--calls", type=int, default=20, help="sequential calls per round")
    parser.add_argument("--rounds", type=int, default=11, help="interleaved rounds per cell")
    options = parser.parse_args()
    if options.role == "bare":
        _run_bare(options.http, options.inline, options.json)
        return
    options.pipeline = {} if options.reference_only else _pipeline_cpu()
    anyio.run(_bench, options)


if __name__ == "__main__":
    main()
