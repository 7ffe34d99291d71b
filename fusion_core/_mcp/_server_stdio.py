r"""The server's stdin and stdout, read and written on the event loop.

The SDK's ``stdio_server()`` reads and writes the process's standard streams
through anyio's file wrappers, so every line read, every write and every
flush is a trip to a worker thread and back; and it hands each message
between its reader and writer tasks and the server through memory streams
(two task switches per message each way). :func:`served_pipes` claims the
two streams instead: when stdin and stdout are pipes or sockets (what an MCP
host launches a server with), they are read and written with non-blocking
system calls, waiting on the event loop only when a pipe is empty or full,
and :class:`MessageReader` and :class:`MessageWriter` are the server's read
and write streams themselves: the dispatcher reads each message straight
from the pipe, and a handler's answer is written from the handler's task
(one ``os.write`` when the pipe has room). Messages are framed as the SDK's
transport frames them: one JSON-RPC message per line, read with the SDK's
message adapter (an undecodable line goes on as an exception), written as
the SDK writes them (``model_dump_json(by_alias=True, exclude_unset=True)``).
Given a :class:`~fusion_core._mcp._server_fastcall.FastCalls`, the reader
first offers it each message (a plain ``tools/call`` it takes never reaches
the SDK) and the writer shows it each message the SDK writes.

What stays the same as the SDK's own transport:

- fd 0 and fd 1 are diverted while serving (0 to the null device, 1 to
  stderr), so a handler's ``print()`` or a child process cannot corrupt
  the wire, and restored (blocking mode included) afterwards;
- lines are decoded as UTF-8 with replacement characters; written messages
  are UTF-8, and text that cannot be encoded raises as it does there.

One difference, deliberate: a line ends only at ``\n`` (MCP's stdio
framing), where the SDK's text wrapper also ends one at a bare ``\r``, which
JSON allows between tokens; a trailing ``\r`` (CRLF) is whitespace to the
JSON reader either way.

Anything else (a terminal, a regular file, Windows) keeps the SDK's own
transport: :func:`served_pipes` yields ``None`` for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
import threading
from collections.abc import Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Final, Self

import anyio

from fusion_core._anyio_internals import wait_readable, wait_writable

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

    from fusion_core._mcp._server_fastcall import FastCalls

if sys.platform != "win32":
    import fcntl

__all__ = ["MessageReader", "MessageWriter", "PipeReader", "PipeWriter", "served_pipes"]

_CHUNK: Final = 1 << 16
_serving: Final = threading.Lock()  # held while a served_pipes() owns fd 0 and 1
_STREAM_KINDS: Final = frozenset(
    {stat.S_IFREG, stat.S_IFCHR, stat.S_IFIFO, stat.S_IFSOCK}
)  # what stderr can be


class PipeReader:
    """Lines of a non-blocking descriptor, as ``async for line in reader`` gives them.

    On asyncio the descriptor stays registered with the loop between two
    waits (anyio's ``wait_readable`` registers and unregisters it on every
    wait: two ``epoll_ctl`` calls and a few objects per message); it is
    unregistered when it turns readable with no one waiting (so that a
    busy reader never keeps the loop spinning), at the end of input, and by
    :meth:`close`.
    """

    __slots__ = ("_buffer", "_fd", "_loop", "_scanned", "_start", "_waiter", "_watched")

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._start = 0  # where the next line begins (the bytes before it are read)
        self._scanned = 0  # up to here, no newline after _start
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop watching the descriptor
        self._waiter: asyncio.Future[None] | None = None
        self._watched = False

    async def _readable(self) -> None:
        """Wait until the descriptor has something to read (or its end)."""
        loop = self._loop
        if loop is None:
            try:
                loop = self._loop = asyncio.get_running_loop()
            except RuntimeError:  # not asyncio: anyio's way
                await wait_readable(self._fd)
                return
        waiter = self._waiter = loop.create_future()
        if not self._watched:
            loop.add_reader(self._fd, self._ready)
            self._watched = True
        try:
            await waiter
        finally:
            self._waiter = None

    def _ready(self) -> None:
        """The loop's callback: the descriptor is readable."""
        waiter = self._waiter
        if waiter is None:  # read later, by the next wait
            self.close()
        elif not waiter.done():
            waiter.set_result(None)

    def close(self) -> None:
        """Stop watching the descriptor (it stays open: :func:`served_pipes` owns it)."""
        if self._watched and self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._fd)
        self._watched = False

    def __aiter__(self) -> PipeReader:
        return self

    async def __anext__(self) -> str:
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n", max(self._start, self._scanned))
            if end >= 0:
                line = bytes(buffer[self._start : end + 1])
                self._start = self._scanned = end + 1
                return line.decode("utf-8", "replace")
            if self._start:  # keep only the unfinished line: reading stays linear
                del buffer[: self._start]
                self._start = 0
            self._scanned = len(buffer)
            try:
                chunk = os.read(self._fd, _CHUNK)
            except BlockingIOError:
                await self._readable()
                continue
            if not chunk:  # end of input: a last line without its newline, then stop
                self.close()
                if not buffer:
                    raise StopAsyncIteration
                line = bytes(buffer)
                buffer.clear()
                self._scanned = 0
                return line.decode("utf-8", "replace")
            buffer += chunk


class PipeWriter:
    """Writes to a non-blocking descriptor, whole texts in order; ``flush()`` has nothing to do.

    Several tasks may write at once (each handler writes its own answer): a
    text goes out in one ``os.write`` when the pipe has room, without waiting
    on the loop. When the pipe is full, what is left is queued, and one
    writer at a time waits for room and writes the queue out, texts queued
    meanwhile included; every writer returns once its own text is out. A
    writer cancelled while waiting leaves the rest of its text queued, never
    half a message with another one after it: the next writer writes it
    first (a shielded wait would outlive the SDK's shutdown timeouts).
    """

    __slots__ = ("_drained", "_fd", "_queued", "_sent")

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._queued = bytearray()
        self._sent = 0  # bytes of the queue written so far, in all
        self._drained: anyio.Event | None = None  # set while a writer writes the queue out

    async def write(self, text: str) -> None:
        """Write all of ``text`` as UTF-8, after every text written before it."""
        data: bytes | memoryview = text.encode("utf-8")
        if not self._queued and self._drained is None:
            written = _write_some(self._fd, data)
            if written == len(data):
                return
            data = memoryview(data)[written:]
        self._queued += data
        mine = self._sent + len(self._queued)  # out once this much of the queue is written
        while self._sent < mine:
            drained = self._drained
            if drained is not None:
                await drained.wait()
                continue
            self._drained = drained = anyio.Event()
            try:
                while self._queued:
                    await wait_writable(self._fd)
                    written = _write_some(self._fd, self._queued)
                    del self._queued[:written]
                    self._sent += written
            finally:
                self._drained = None
                drained.set()

    async def flush(self) -> None:
        """Nothing is buffered: every ``write()`` reached the descriptor."""


def _write_some(fd: int, data: bytes | bytearray | memoryview) -> int:
    """How much of ``data`` one non-blocking write took (0 when the pipe is full)."""
    try:
        return os.write(fd, data)
    except BlockingIOError:
        return 0


class _PipeStream:
    """What the SDK asks of a stream besides reading or writing: nothing to release.

    :func:`served_pipes` owns the descriptors; closing a stream closes nothing.
    """

    __slots__ = ()

    async def aclose(self) -> None:
        """Nothing to release: :func:`served_pipes` owns the descriptor."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()


class MessageReader(_PipeStream):
    """The server's read stream: one JSON-RPC message per line of the pipe.

    What the SDK's ``stdio_server()`` reader gives the server, without its
    task and memory stream: a ``SessionMessage`` per line, or the exception
    a line that is not a JSON-RPC message raised, and the end of the stream
    at the end of input.
    """

    __slots__ = ("_fast", "_lines", "_message", "_read")

    def __init__(self, lines: PipeReader, fast: FastCalls | None = None) -> None:
        from mcp.shared.message import SessionMessage  # noqa: PLC0415 - loaded with the server
        from mcp_types import jsonrpc_message_adapter  # noqa: PLC0415

        self._lines = lines
        self._read = jsonrpc_message_adapter.validate_json
        self._message = SessionMessage
        self._fast = fast

    def __aiter__(self) -> MessageReader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        fast = self._fast
        while True:
            try:
                line = await self._lines.__anext__()
            except StopAsyncIteration:
                if fast is not None:
                    fast.close()
                raise
            try:
                message = self._read(line, by_name=False)
            except Exception as exc:  # noqa: BLE001 - the server answers it, as the SDK's reader does
                return exc
            if fast is None or not fast.take(message):
                return self._message(message)

    async def receive(self) -> SessionMessage | Exception:
        """The next message; ``anyio.EndOfStream`` at the end of input."""
        try:
            return await self.__anext__()
        except StopAsyncIteration:
            raise anyio.EndOfStream from None


class MessageWriter(_PipeStream):
    """The server's write stream: each message as one line, written from the sender's task."""

    __slots__ = ("_fast", "_pipe")

    def __init__(self, pipe: PipeWriter, fast: FastCalls | None = None) -> None:
        self._pipe = pipe
        self._fast = fast

    async def send(self, item: SessionMessage, /) -> None:
        """Write ``item`` as the SDK's transport writes it: its JSON and a newline."""
        text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        if self._fast is not None:
            self._fast.written(item.message)
        await self._pipe.write(text + "\n")


def _is_pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextlib.contextmanager
def _claimed(fd: int, diversion: int) -> Iterator[int]:
    """A private, non-blocking duplicate of ``fd``, with ``fd`` itself diverted.

    On exit ``fd`` points at the wire again, in blocking mode (the mode
    belongs to the open file, which ``fd`` shares with the duplicate).
    """
    private = _dup_above_std(fd)
    try:
        os.set_blocking(private, False)
        os.dup2(diversion, fd)
        try:
            yield private
        finally:
            os.set_blocking(private, True)
            os.dup2(private, fd)
    finally:
        os.close(private)


@contextlib.contextmanager
def served_pipes() -> Iterator[tuple[PipeReader, PipeWriter] | None]:
    """The process's stdin and stdout as event-loop streams, or ``None``.

    ``None`` where they are not both pipes or sockets, or off POSIX: the
    caller then uses the SDK's own transport. One at a time per process:
    a second, while the first serves, raises ``RuntimeError`` (its stdin
    would be the null device).
    """
    if not _serving.acquire(blocking=False):  # fd 0 is the null device by now
        msg = "stdin and stdout are already served by another serve_stdio() in this process"
        raise RuntimeError(msg)
    if sys.platform == "win32" or not all(_is_pipe_or_socket(fd) for fd in (0, 1)):
        _serving.release()
        yield None
        return
    with contextlib.ExitStack() as stack:
        stack.callback(_serving.release)
        null = _above_std(os.open(os.devnull, os.O_RDONLY))
        stack.callback(os.close, null)
        stray = _stray_output()
        stack.callback(os.close, stray)
        stdin = stack.enter_context(_claimed(0, null))
        stdout = stack.enter_context(_claimed(1, stray))
        reader = PipeReader(stdin)
        stack.callback(reader.close)  # before the descriptor is closed
        yield reader, PipeWriter(stdout)


def _stray_output() -> int:
    """Where writes to fd 1 go while serving: stderr, or the null device without one.

    A process started without fd 2 may have reused the number for anything
    (the event loop's epoll, typically): only a writable file, terminal,
    pipe or socket there is taken for stderr.
    """
    try:
        mode = os.fstat(2).st_mode
        writable = fcntl.fcntl(2, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
    except OSError:
        writable = False
    if writable and stat.S_IFMT(mode) in _STREAM_KINDS:
        return _dup_above_std(2)
    return _above_std(os.open(os.devnull, os.O_WRONLY))


def _dup_above_std(fd: int) -> int:
    """A close-on-exec duplicate of ``fd`` numbered above the three standard descriptors."""
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def _above_std(fd: int) -> int:
    """``fd`` moved above 2: with a standard stream closed, a new descriptor takes its number."""
    if fd > 2:  # above the three standard descriptors
        return fd
    try:
        return _dup_above_std(fd)
    finally:
        os.close(fd)
