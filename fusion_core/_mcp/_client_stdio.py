"""A stdio client transport that bounds every message the server sends.

The SDK's own stdio transport buffers a server's output until a newline
comes: a server that answers with gigabytes (an action that grows its output
with an argument) grows the test process with it. This transport reads the
server's stdout in chunks and gives up on a message as soon as it passes
``max_bytes``: it records the overflow (:class:`Overflow`), stops reading
and closes the session's read stream, so the pending request ends at once
("connection closed") and :class:`~fusion_core.FusionClient` reports the
limit instead. Start-up and shutdown follow the SDK's: the server runs in
its own process group, gets its stdin closed, then SIGTERM, then SIGKILL.

The server's stderr is passed on to ``errlog`` line by line as it comes,
and its last lines are kept (bounded: :data:`STDERR_LINES` lines of at most
:data:`STDERR_LINE_CHARS` characters) in :class:`ProcessExit`, so that the
error for a server that died can quote why. While asked to
(:class:`~fusion_core._mcp._client_raw.RawAnswers`), each message's bytes are
offered for ``fusion call --raw``.

POSIX only; elsewhere :class:`~fusion_core.FusionClient` uses the SDK's
transport and checks each result's size after it arrived.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import signal
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

import anyio

if TYPE_CHECKING:
    from anyio.abc import AsyncResource, Process
    from mcp.client import Transport
    from mcp.client._transport import TransportStreams

    from fusion_core._mcp._client_raw import RawAnswers

__all__ = ["STDERR_LINES", "STDERR_LINE_CHARS", "Overflow", "ProcessExit", "bounded_stdio"]

STDERR_LINES: Final = 12
"""Lines of a stdio server's stderr an error repeats (its last ones)."""
STDERR_LINE_CHARS: Final = 300
"""Characters of one such line shown; a longer one is cut, ending in ``…``."""
_STDERR_DRAIN: Final = 1.0  # seconds to read what a dead server wrote to stderr

_STDIN_GRACE: Final = 2.0  # seconds for the server to exit after its stdin closes
_KILL_GRACE: Final = 2.0  # seconds between SIGTERM and SIGKILL
_EXIT_GRACE: Final = 5.0  # seconds to wait for the status of a server that closed stdout
# (a dead server answers at once; 1 s was too short on a loaded machine: the
# status arrives through a watcher thread)


@dataclass(slots=True)
class Overflow:
    """Set when the server sent a message longer than the limit."""

    limit: int
    received: int = 0

    @property
    def tripped(self) -> bool:
        """Whether a message went over ``limit``."""
        return self.received > self.limit


@dataclass(slots=True)
class ProcessExit:
    """How the server process ended, once its stdout closed (``None``: still running).

    ``stderr`` holds the last lines the server wrote to its stderr (non-blank,
    each cut to :data:`STDERR_LINE_CHARS`), as a window of :data:`STDERR_LINES`.
    """

    returncode: int | None = None
    stderr: deque[str] = field(default_factory=lambda: deque(maxlen=STDERR_LINES))

    def keep(self, line: str) -> None:
        """Remember one line of the server's stderr (blank lines are not kept)."""
        line = line.rstrip()
        if line.strip():
            cut = STDERR_LINE_CHARS
            self.stderr.append(line if len(line) <= cut else line[: cut - 1] + "…")

    def stderr_tail(self) -> str:
        """The kept lines as a message paragraph (``""`` when the server wrote none)."""
        if not self.stderr:
            return ""
        shown = "\n".join(f"  | {line}" for line in self.stderr)
        return f"\nthe server's stderr (last lines):\n{shown}"

    def describe(self) -> str | None:
        """``exited with code 3``, ``was killed by signal SIGKILL (9)``, or ``None``."""
        code = self.returncode
        if code is None:
            return None
        if code >= 0:
            return f"exited with code {code}"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "an unknown signal"
        return f"was killed by signal {name} ({-code})"


def bounded_stdio(
    argv: list[str],
    *,
    env: Mapping[str, str],
    cwd: str | Path | None,
    errlog: TextIO,
    overflow: Overflow,
    ended: ProcessExit | None = None,
    raw: RawAnswers | None = None,
) -> Transport:
    """The transport for ``argv``: the SDK's on Windows, a bounded one elsewhere."""
    if os.name != "posix":  # pragma: no cover - exercised on Windows only
        from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: PLC0415

        parameters = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(env), cwd=cwd)
        return stdio_client(parameters, errlog=errlog)
    from fusion_core._mcp._client_raw import RawAnswers  # noqa: PLC0415

    ended = ProcessExit() if ended is None else ended
    raw = RawAnswers() if raw is None else raw
    return _bounded(argv, env=env, cwd=cwd, errlog=errlog, overflow=overflow, ended=ended, raw=raw)


@contextlib.asynccontextmanager
async def _bounded(
    argv: list[str],
    *,
    env: Mapping[str, str],
    cwd: str | Path | None,
    errlog: TextIO,
    overflow: Overflow,
    ended: ProcessExit,
    raw: RawAnswers,
) -> AsyncIterator[TransportStreams]:
    import mcp_types  # noqa: PLC0415 - mcp is slow to import
    from mcp.shared.message import SessionMessage  # noqa: PLC0415

    process = await anyio.open_process(argv, env=dict(env), cwd=cwd, start_new_session=True)
    stderr_read = anyio.Event()
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    def message(line: bytes) -> SessionMessage | Exception:
        raw.offer(line)
        try:
            return SessionMessage(
                mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            )
        except ValueError as exc:  # the session reports it; the connection goes on
            return exc

    record_exit = partial(_record_exit, process, ended, stderr_read)

    async def read() -> None:
        assert process.stdout is not None  # opened with a pipe
        buffer = bytearray()
        async with read_writer:
            with contextlib.suppress(
                anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
            ):
                async for chunk in process.stdout:
                    searched = len(buffer)
                    buffer += chunk
                    while (end := buffer.find(b"\n", searched)) >= 0:
                        await read_writer.send(message(bytes(buffer[:end])))
                        del buffer[: end + 1]
                        searched = 0
                    if len(buffer) > overflow.limit:
                        overflow.received = len(buffer)
                        return  # closing the read stream ends the pending request
            await record_exit()  # stdout closed: the server is ending; its status says why

    async def write() -> None:
        assert process.stdin is not None  # opened with a pipe
        try:
            async with write_reader:
                async for session_message in write_reader:
                    json = session_message.message.model_dump_json(
                        by_alias=True, exclude_unset=True
                    )
                    await process.stdin.send(json.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The pipe broke: the server is gone. Its status first (the reader
            # may not have seen stdout close yet), so the error can say how.
            await record_exit()
        await read_writer.aclose()  # the server is gone: no request may wait forever

    async with anyio.create_task_group() as relaying:
        # The stderr relay outlives the pipe tasks: a server still logs while it stops.
        relaying.start_soon(_relay_stderr, process, ended, errlog, stderr_read)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(write)
            try:
                yield read_stream, write_stream
            finally:
                # Stop the pipe tasks first, so no read is pending while the pipes close.
                tasks.cancel_scope.cancel()
                with anyio.CancelScope(shield=True):
                    await _stop(process)
                    for stream in (read_stream, write_stream, read_writer, write_reader):
                        await stream.aclose()
                    await _end_relay(process, stderr_read, relaying.cancel_scope)


async def _stop(process: Process) -> None:
    """Close stdin, wait a little, then end the server's whole process group."""
    from mcp.os.posix.utilities import terminate_posix_process_tree  # noqa: PLC0415

    await _close(process.stdin)
    with anyio.move_on_after(_STDIN_GRACE):
        while process.returncode is None:
            await anyio.sleep(0.01)
    if process.returncode is None:
        await terminate_posix_process_tree(process, _KILL_GRACE)
    await _close(process.stdout)
    # asyncio keeps the subprocess transport open (and warns when it is
    # collected) while the process is not waited for through it.
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):
        with contextlib.suppress(PermissionError):
            close()


async def _record_exit(process: Process, ended: ProcessExit, stderr_read: anyio.Event) -> None:
    """The server's stdout closed: its exit status, and what it wrote to stderr before."""
    with anyio.move_on_after(_EXIT_GRACE):
        ended.returncode = await process.wait()
    with anyio.move_on_after(_STDERR_DRAIN):
        await stderr_read.wait()


async def _relay_stderr(
    process: Process, ended: ProcessExit, errlog: TextIO, done: anyio.Event
) -> None:
    """Pass the server's stderr on to ``errlog`` line by line, keeping its last lines."""
    assert process.stderr is not None  # opened with a pipe
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending = ""
    try:
        with contextlib.suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
        ):
            async for chunk in process.stderr:
                lines = (pending + decoder.decode(chunk)).split("\n")
                pending = lines.pop()
                if len(pending) > STDERR_LINE_CHARS * 4:  # a line without end: pass it on
                    lines.append(pending)
                    pending = ""
                for line in lines:
                    ended.keep(line)
                    _relay(errlog, line + "\n")
        if pending:
            ended.keep(pending)
            _relay(errlog, pending + "\n")
    finally:
        done.set()


async def _end_relay(process: Process, done: anyio.Event, relay: anyio.CancelScope) -> None:
    """The server is gone: read the rest of its stderr (its children may hold it open)."""
    with anyio.move_on_after(_STDERR_DRAIN):
        await done.wait()
    relay.cancel()
    await _close(process.stderr)


def _relay(errlog: TextIO, text: str) -> None:
    """Pass a line of the server's stderr on (a closed or broken ``errlog`` drops it)."""
    with contextlib.suppress(OSError, ValueError):
        errlog.write(text)
        errlog.flush()


async def _close(pipe: AsyncResource | None) -> None:
    if pipe is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await pipe.aclose()
