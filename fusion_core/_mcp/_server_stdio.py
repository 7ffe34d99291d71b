r"""The server's stdin and stdout, read and written on the event loop.

The SDK's ``stdio_server()`` reads and writes the process's standard streams
through anyio's file wrappers, so every line read, every write and every
flush is a trip to a worker thread and back. :func:`served_pipes` gives it
this module's two streams instead: when stdin and stdout are pipes or
sockets (what an MCP host launches a server with), they are read and written
with non-blocking system calls, waiting on the event loop only when a pipe
is empty or full. The SDK's transport does everything else as before (one
JSON-RPC message per line, an undecodable line sent on as an exception).

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

import contextlib
import os
import stat
import sys
import threading
from collections.abc import Iterator
from typing import Final

import anyio

if sys.platform != "win32":
    import fcntl

__all__ = ["PipeReader", "PipeWriter", "served_pipes"]

_CHUNK: Final = 1 << 16
_serving: Final = threading.Lock()  # held while a served_pipes() owns fd 0 and 1
_STREAM_KINDS: Final = frozenset(
    {stat.S_IFREG, stat.S_IFCHR, stat.S_IFIFO, stat.S_IFSOCK}
)  # what stderr can be


class PipeReader:
    """Lines of a non-blocking descriptor, as ``async for line in reader`` gives them."""

    __slots__ = ("_buffer", "_fd", "_scanned", "_start")

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._start = 0  # where the next line begins (the bytes before it are read)
        self._scanned = 0  # up to here, no newline after _start

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
                await anyio.wait_readable(self._fd)
                continue
            if not chunk:  # end of input: a last line without its newline, then stop
                if not buffer:
                    raise StopAsyncIteration
                line = bytes(buffer)
                buffer.clear()
                self._scanned = 0
                return line.decode("utf-8", "replace")
            buffer += chunk


class PipeWriter:
    """Writes to a non-blocking descriptor; ``flush()`` has nothing to do."""

    __slots__ = ("_fd",)

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, text: str) -> None:
        """Write all of ``text`` as UTF-8, waiting on the loop while the pipe is full."""
        data = memoryview(text.encode("utf-8"))
        while data:
            try:
                written = os.write(self._fd, data)
            except BlockingIOError:
                await anyio.wait_writable(self._fd)
                continue
            data = data[written:]

    async def flush(self) -> None:
        """Nothing is buffered: every ``write()`` reached the descriptor."""


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
        yield PipeReader(stdin), PipeWriter(stdout)


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
