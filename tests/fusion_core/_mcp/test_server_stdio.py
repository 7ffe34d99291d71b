"""The server's stdio on the event loop: framing, full pipes, stray output, fallbacks.

``serve_stdio`` serves the SDK's server on the message streams of
``fusion_core._mcp._server_stdio`` when stdin and stdout are pipes. These tests read and
write real pipes: in process for the two streams, and through a served
subprocess, byte for byte, for what a host sends (split writes, CRLF, bad
lines, invalid UTF-8) and what a handler does (print, a child writing to fd 1,
a response far larger than the pipe).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
from typing import Any, Final

import anyio
import pytest

from fusion_core import FusionApp, Tool
from fusion_core._mcp._server_stdio import MessageReader, MessageWriter, PipeReader, PipeWriter
from tests._support.fake_app import ROOT

# --- the two streams, in process --------------------------------------------------------


def _nonblocking_pipe() -> tuple[int, int]:
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)
    return read, write


async def _lines_of(chunks: list[bytes]) -> list[str]:
    """What a PipeReader yields for ``chunks`` written one at a time, then end of input."""
    read, write = _nonblocking_pipe()
    try:
        return await _lines_of_pipe(read, write, chunks, pause=0.001)
    finally:
        os.close(read)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("chunks", "lines"),
    [
        ([b'{"a":1}\n'], ['{"a":1}\n']),
        ([b'{"a":1}\n{"b":2}\n'], ['{"a":1}\n', '{"b":2}\n']),
        ([b'{"a"', b":1}\n{", b'"b":2}\n'], ['{"a":1}\n', '{"b":2}\n']),
        ([b'{"a":1}\r\n'], ['{"a":1}\r\n']),  # CRLF: the \r is JSON whitespace
        ([b'{"a":\r1}\n'], ['{"a":\r1}\n']),  # a bare \r does not end a line
        ([b'{"last":true}'], ['{"last":true}']),  # no newline before the end
        ([b"\n\n"], ["\n", "\n"]),
        ([b'"\xc3', b'\xa9"\n'], ['"é"\n']),  # a character split between two reads
        ([b'"\xff\xfe"\n'], ['"\ufffd\ufffd"\n']),  # not UTF-8: replaced, as the SDK does
        ([], []),
    ],
    ids=["one", "two-in-one-read", "split", "crlf", "bare-cr", "no-newline", "blank",
         "split-char", "invalid-utf8", "empty"],
)  # fmt: skip
async def test_the_reader_yields_each_line_as_written(
    chunks: list[bytes], lines: list[str]
) -> None:
    r"""Lines end at ``\n`` only, whatever the reads; bad UTF-8 becomes U+FFFD."""
    assert await _lines_of(chunks) == lines


@pytest.mark.anyio
async def test_a_line_longer_than_many_reads_arrives_whole() -> None:
    """A 1 MiB line (16 reads of 64 KiB) comes out as one line."""
    line = b'{"x":"' + b"y" * (1 << 20) + b'"}\n'
    chunks = [line[i : i + 50_000] for i in range(0, len(line), 50_000)]
    assert await _lines_of(chunks) == [line.decode()]


@pytest.mark.anyio
async def test_many_lines_per_read_come_out_in_order() -> None:
    """20,000 short lines written in uneven pieces: each read holds hundreds of lines."""
    data = b"".join(b'{"n":%d}\n' % n for n in range(20_000))
    chunks = [data[i : i + 7_777] for i in range(0, len(data), 7_777)]
    assert await _lines_of(chunks) == [f'{{"n":{n}}}\n' for n in range(20_000)]


@pytest.mark.anyio
async def test_the_pipe_stays_watched_between_lines_and_not_after_the_end(
    anyio_backend: str,
) -> None:
    """One registration with the loop for many waits; none left at the end of input.

    Registering and unregistering on every wait (anyio's ``wait_readable``)
    costs two ``epoll_ctl`` calls per message.
    """
    if anyio_backend != "asyncio":
        pytest.skip("the loop registration is asyncio's")
    loop = asyncio.get_running_loop()
    registrations: list[int] = []
    add_reader = loop.add_reader

    def counted(fd: int, callback: Any, *args: Any) -> None:
        registrations.append(fd)
        add_reader(fd, callback, *args)

    read, write = _nonblocking_pipe()
    setattr(loop, "add_reader", counted)  # noqa: B010 - the instance's, for this test only
    try:
        lines = await _lines_of_pipe(read, write, [b"%d\n" % n for n in range(5)])
        assert not loop.remove_reader(read)  # nothing left watching it
    finally:
        delattr(loop, "add_reader")
        os.close(read)
    assert lines == [f"{n}\n" for n in range(5)]
    assert registrations == [read]


async def _lines_of_pipe(
    read: int, write: int, chunks: list[bytes], pause: float = 0.005
) -> list[str]:
    """What a PipeReader of ``read`` yields for ``chunks`` written apart, then end of input.

    ``pause`` between chunks: the reader sees (and waits before) each chunk alone.
    """
    reader, lines = PipeReader(read), []
    async with anyio.create_task_group() as group:

        async def feed() -> None:
            for chunk in chunks:
                os.write(write, chunk)
                await anyio.sleep(pause)
            os.close(write)

        group.start_soon(feed)
        lines.extend([line async for line in reader])
    return lines


async def _drain_into(read: int, received: bytearray) -> None:
    """Read ``read`` slowly until its write end closes."""
    while True:
        try:
            chunk = os.read(read, 1 << 12)
        except BlockingIOError:
            await anyio.sleep(0.0005)
            continue
        if not chunk:
            return
        received.extend(chunk)


@pytest.mark.anyio
async def test_the_writer_waits_while_the_pipe_is_full() -> None:
    """8 MiB through a 64 KiB pipe read slowly: every byte arrives, in order, once."""
    read, write = _nonblocking_pipe()
    text = "".join(f"{i:07d}é\n" for i in range(1_000_000))
    received = bytearray()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_drain_into, read, received)
            writer = PipeWriter(write)
            await writer.write(text)
            await writer.flush()
            os.close(write)
    finally:
        os.close(read)
    assert received == text.encode()


@pytest.mark.anyio
async def test_texts_written_at_once_never_interleave() -> None:
    """Eight tasks write 200 KiB texts at once through a full pipe: each arrives whole, in order.

    Each handler writes its own answer: a text the pipe takes only in part
    is finished before any text written after it (the writer before this
    change let a second task's write land inside the first one's).
    """
    read, write = _nonblocking_pipe()
    texts = [f"{index}:" + str(index) * 200_000 + "\n" for index in range(8)]
    received = bytearray()
    writer = PipeWriter(write)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_drain_into, read, received)
            async with anyio.create_task_group() as writers:
                for text in texts:
                    writers.start_soon(writer.write, text)
                    await anyio.sleep(0)  # started in this order
            os.close(write)
    finally:
        os.close(read)
    assert received.decode().splitlines(keepends=True) == texts


@pytest.mark.anyio
async def test_a_cancelled_writer_still_finishes_its_text() -> None:
    """Cancelled while the pipe is full, a write still completes: half a message breaks framing."""
    read, write = _nonblocking_pipe()
    text = "x" * 500_000 + "\n"
    received = bytearray()
    writer = PipeWriter(write)
    scope = anyio.CancelScope()

    async def cancelled_write() -> None:
        with scope:
            await writer.write(text)  # the pipe holds 64 KiB; nobody reads yet

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(cancelled_write)
            await anyio.sleep(0.02)
            scope.cancel()  # while the rest of the text waits for room
            await anyio.sleep(0.02)
            group.start_soon(_drain_into, read, received)
            await writer.write("after\n")
            os.close(write)
    finally:
        os.close(read)
    assert received.decode() == text + "after\n"


@pytest.mark.anyio
async def test_the_message_streams_frame_as_the_sdk_transport_does() -> None:
    """Lines read and answers write as the SDK's stdio transport reads and writes them.

    A request line is what the SDK's adapter reads, a bad line its exception,
    the end of input the end of the stream; an answer is one line of the
    SDK's JSON.
    """
    from mcp.shared.message import SessionMessage  # noqa: PLC0415
    from mcp_types import JSONRPCResponse, jsonrpc_message_adapter  # noqa: PLC0415

    line = '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}\n'
    read, write = _nonblocking_pipe()
    try:
        os.write(write, line.encode() + b"not json\n")
        os.close(write)
        reader = MessageReader(PipeReader(read))
        first = await reader.receive()
        second = await reader.receive()
        with pytest.raises(anyio.EndOfStream):
            await reader.receive()
    finally:
        os.close(read)
    assert isinstance(first, SessionMessage)
    assert first.message == jsonrpc_message_adapter.validate_json(line, by_name=False)
    assert isinstance(second, Exception)

    read, write = _nonblocking_pipe()
    answer = JSONRPCResponse(jsonrpc="2.0", id=3, result={"tools": []})
    try:
        await MessageWriter(PipeWriter(write)).send(SessionMessage(answer))
        written = os.read(read, 1 << 16)
    finally:
        os.close(read)
        os.close(write)
    assert written == (answer.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()


def test_the_sdk_transport_still_frames_this_way() -> None:
    """The SDK's own stdio transport (the fallback) reads and writes lines as these streams do.

    Checked against mcp 2.3.0: if its framing changes, this fails and the
    message streams must follow it.
    """
    import inspect  # noqa: PLC0415

    import mcp.server.stdio  # noqa: PLC0415

    source = inspect.getsource(mcp.server.stdio.stdio_server)
    assert "jsonrpc_message_adapter.validate_json(line, by_name=False)" in source
    assert "model_dump_json(by_alias=True, exclude_unset=True)" in source
    assert 'await stdout.write(json + "\\n")' in source


@pytest.mark.anyio
async def test_the_writer_refuses_text_it_cannot_encode() -> None:
    """A lone surrogate raises as the SDK's UTF-8 text wrapper does; nothing is written."""
    read, write = _nonblocking_pipe()
    try:
        with pytest.raises(UnicodeEncodeError):
            await PipeWriter(write).write('{"x":"\ud800"}\n')
        with pytest.raises(BlockingIOError):
            os.read(read, 10)
    finally:
        os.close(read)
        os.close(write)


# --- the standard streams, in a child process -------------------------------------------

_CLAIM: Final = textwrap.dedent(
    """
    import os, sys, anyio
    from fusion_core._mcp._server_stdio import served_pipes

    async def main():
        with served_pipes() as pipes:
            if pipes is None:
                print("fallback", file=sys.stderr)
            else:
                reader, writer = pipes
                print("stray print", flush=True)      # fd 1 is stderr while serving
                os.write(1, b"stray write\\n")
                os.system("echo stray child")
                assert sys.stdin.read() == ""           # fd 0 is the null device
                async for line in reader:
                    await writer.write("echo " + line)
        print("after", flush=True)                  # fd 1 is the wire again ...
        print("blocking", os.get_blocking(0), os.get_blocking(1), flush=True)  # ... blocking

    anyio.run(main)
    """
)


def _python(code: str, **options: Any) -> subprocess.CompletedProcess[bytes]:
    """``code`` run by a fresh interpreter in the repository root; it must exit 0."""
    done: subprocess.CompletedProcess[bytes] = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, timeout=60, check=True, **options
    )
    return done


def test_served_pipes_divert_stray_output_and_restore_the_streams() -> None:
    """While serving only the writer reaches stdout; afterwards fd 0 and 1 are as they were."""
    done = _python(_CLAIM, input=b'{"a":1}\n{"b":2}\n', capture_output=True)
    assert done.stdout == b'echo {"a":1}\necho {"b":2}\nafter\nblocking True True\n'
    assert done.stderr.splitlines() == [b"stray print", b"stray write", b"stray child"]


_TWICE: Final = textwrap.dedent(
    """
    from fusion_core._mcp._server_stdio import served_pipes

    with served_pipes() as first:
        assert first is not None
        try:
            with served_pipes():
                pass
        except RuntimeError as exc:
            print(exc, flush=True)  # fd 1 is stderr here
    with served_pipes() as again:  # the first one is done: free again
        assert again is not None
    """
)


def test_one_served_pipes_at_a_time() -> None:
    """A second claim while the first serves is refused; after it, stdio can be claimed again."""
    done = _python(_TWICE, input=b"", capture_output=True)
    assert (
        done.stderr
        == b"stdin and stdout are already served by another serve_stdio() in this process\n"
    )


def test_a_regular_file_or_terminal_keeps_the_sdk_transport(tmp_path: Any) -> None:
    """Standard input from a file: not a pipe, so ``served_pipes()`` yields ``None``."""
    given = tmp_path / "in.jsonl"
    given.write_bytes(b"{}\n")
    with given.open("rb") as stdin:
        done = _python(_CLAIM, stdin=stdin, capture_output=True)
    assert done.stderr == b"fallback\n"
    assert done.stdout == b"after\nblocking True True\n"


def test_without_stderr_stray_output_goes_to_the_null_device() -> None:
    """No fd 2 (a host that gives no stderr): stdout is diverted to the null device."""
    done = _python(
        _CLAIM,
        input=b'{"a":1}\n',
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(2),
    )
    assert done.stdout == b'echo {"a":1}\nafter\nblocking True True\n'


# --- a served app, byte for byte ----------------------------------------------------------


def _noisy(size: int = 0) -> str:
    """Writes to stdout three ways, then answers ``size`` bytes (or ``"quiet"``)."""
    print("print from the handler", flush=True)
    os.write(1, b"os.write from the handler\n")
    subprocess.run([sys.executable, "-c", "print('a child process')"], check=True)
    return "x" * size if size else "quiet"


noisy_app: Final = FusionApp([Tool("noisy", "Writes to stdout").action("run", _noisy)])
"""Served over stdio by ``test_a_served_app_keeps_its_wire_whatever_the_host_and_handler_do``."""

_INITIALIZE: Final = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def _call(request_id: int, size: int) -> bytes:
    arguments = {"action": "run", "size": size}
    params = {"name": "noisy", "arguments": arguments}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return json.dumps(message).encode() + b"\n"


def test_a_served_app_keeps_its_wire_whatever_the_host_and_handler_do() -> None:
    """Split, CRLF and CR requests, a line that is not JSON, a handler writing to fd 1, 3 MB out.

    Every line on stdout is a JSON-RPC message answering a request, and the
    large answer arrives whole while the host reads it in small pieces.
    """
    command = [sys.executable, "-m", "fusion_core", "serve", f"{__name__}:noisy_app"]
    pipe = subprocess.PIPE
    with subprocess.Popen(command, cwd=ROOT, stdin=pipe, stdout=pipe, stderr=pipe) as process:
        answers, strays = _exchange(process)
    assert answers[1]["result"]["serverInfo"]["name"] == "fusion"
    assert answers[2]["result"]["content"] == [{"type": "text", "text": "quiet"}]
    assert answers[3]["result"]["content"] == [{"type": "text", "text": "x" * 3_000_000}]
    assert answers[4]["result"]["content"] == [{"type": "text", "text": "quiet"}]
    for stray in (b"print from the handler", b"os.write from the handler", b"a child process"):
        assert strays.count(stray) == 3, strays[-2000:]


def _exchange(process: subprocess.Popen[bytes]) -> tuple[dict[int, Any], bytes]:
    """The answers to the requests sent (by id), and the server's stderr."""
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    stderr: list[bytes] = []
    drain = threading.Thread(target=lambda: stderr.append(process.stderr.read()))  # type: ignore[union-attr]
    drain.start()
    try:
        initialize = json.dumps(_INITIALIZE).encode()
        process.stdin.write(b"this is not json\n")
        process.stdin.flush()
        process.stdin.write(initialize[:20])  # one message in two writes
        process.stdin.flush()
        process.stdin.write(initialize[20:] + b"\r\n")
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        process.stdin.write(_call(2, 0) + _call(3, 3_000_000))  # two messages in one write
        # A bare CR is JSON whitespace, not the end of a line (the SDK's own
        # transport, a text wrapper with universal newlines, splits it there).
        process.stdin.write(_call(4, 0).replace(b'"id": 4,', b'"id":\r4,'))
        process.stdin.flush()
        answers: dict[int, Any] = {}
        while len(answers) < 4:
            line = process.stdout.readline()
            assert line.endswith(b"\n"), line[:200]
            message = json.loads(line)
            if message.get("id") is not None:
                answers[message["id"]] = message
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        drain.join(timeout=30)
    return answers, b"".join(stderr)
