"""The handoff of a sync handler to a worker thread, against anyio's, in one run.

``FusionApp`` runs each sync handler in a worker thread (so that a blocking
handler never stalls the event loop). This measures what the handoff alone
costs: 2,000 calls of a trivial function through ``fusion_core``'s
``WorkerPool.run`` against the same calls through
``anyio.to_thread.run_sync`` with a ``CapacityLimiter`` (what ``FusionApp``
used before, and what Starlette and the SDK's ``MCPServer`` use), one call at
a time and 16 in flight, as CPU time of this process (both threads), with
``asyncio.to_thread`` (the default executor) for scale. It also prints the
CPU per call of each, in microseconds.

Run: ``.venv/bin/python benchmarks/bench_handoff.py [--rounds N]``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import anyio.to_thread
from _harness import compare, header, options, report
from anyio import CapacityLimiter

from fusion_core._tools._workers import WorkerPool

CALLS = 2_000


def trivial() -> str:
    """The handler: no work at all, so that only the handoff is measured."""
    return "pong"


def main() -> None:
    """Print (and record) the pool's ratio to anyio's handoff, sequential and concurrent."""
    args = options(__doc__, rounds=9)
    header("bench_handoff: WorkerPool.run / anyio.to_thread.run_sync, per call")
    loop = asyncio.new_event_loop()
    pool = WorkerPool(40)
    limiter = loop.run_until_complete(_make_limiter())

    async def via_anyio() -> str:
        return await anyio.to_thread.run_sync(trivial, limiter=limiter)

    async def via_pool() -> str:
        return await pool.run(trivial)

    async def via_asyncio() -> str:
        return await asyncio.to_thread(trivial)

    for in_flight in (1, 16):

        def batch(one: Callable[[], Awaitable[str]], in_flight: int = in_flight) -> None:
            async def worker() -> None:
                for _ in range(CALLS // in_flight):
                    await one()

            async def everything() -> None:
                await asyncio.gather(*(worker() for _ in range(in_flight)))

            loop.run_until_complete(everything())

        ratios = compare(
            "anyio.to_thread",
            {
                "anyio.to_thread": lambda batch=batch: batch(via_anyio),  # type: ignore[misc]
                "WorkerPool.run": lambda batch=batch: batch(via_pool),  # type: ignore[misc]
                "asyncio.to_thread": lambda batch=batch: batch(via_asyncio),  # type: ignore[misc]
            },
            rounds=args.rounds,
        )
        case = "one call at a time" if in_flight == 1 else f"{in_flight} calls in flight"
        scale = ratios["WorkerPool.run"].baseline_seconds / CALLS * 1e6
        for name, ratio in ratios.items():
            report("handoff", case, ratio, candidate=name)
            print(f"      {name}: about {ratio.median * scale:.0f} us CPU per call")
        print(f"      anyio.to_thread: about {scale:.0f} us CPU per call")
    loop.close()


async def _make_limiter() -> CapacityLimiter:
    return CapacityLimiter(40)


if __name__ == "__main__":
    main()
