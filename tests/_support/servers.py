"""Servers started as a user starts them, for the tests that talk to them over HTTP."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Final

__all__ = ["serve_http"]

_LISTENING: Final = " over streamable HTTP at "


@contextlib.contextmanager
def serve_http(
    command: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """Run ``command`` (a ``serve ... --http --port 0``); yield the URL it prints on stderr.

    The rest of its stderr is drained (a full pipe would block the server);
    the server is stopped, and waited for, on exit.
    """
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stderr is not None
    drain: threading.Thread | None = None
    try:
        lines: list[str] = []
        for line in process.stderr:  # ends when the process exits
            lines.append(line)
            if _LISTENING in line:
                drain = threading.Thread(target=process.stderr.read, daemon=True)
                drain.start()
                yield line.split(" at ", 1)[1].strip()
                return
        msg = f"the server exited without saying where it listens: {lines}"
        raise AssertionError(msg)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if drain is not None:
            drain.join(timeout=10)
        process.stderr.close()
