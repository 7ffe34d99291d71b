"""What fusion_core relies on of anyio below its task-and-stream API: one place, one version.

Checked against anyio 4.16.0.

- :func:`wait_readable` and :func:`wait_writable` wait on a raw file
  descriptor (an ``int``; anyio 4.7 added them, replacing the socket-only
  ``wait_socket_readable``): the server's stdio pipes are read and written
  with non-blocking system calls and wait on the loop only when a pipe is
  empty or full (``fusion_core._mcp._server_stdio``);
- :class:`RunVar` (``anyio.lowlevel``) holds a value per event loop: the
  worker pool's limiter on a non-asyncio loop, where anyio's limiters belong
  to one loop (``fusion_core._tools._workers``).

``tests/fusion_core/test_anyio_internals.py`` fails, naming what changed,
when an anyio upgrade changes any of it: the signatures, waiting on a pipe's
descriptor, a ``RunVar`` seen from a second loop.
"""

from __future__ import annotations

from typing import Final

from anyio import wait_readable, wait_writable
from anyio.lowlevel import RunVar

__all__ = ["CHECKED_AGAINST", "RunVar", "wait_readable", "wait_writable"]

CHECKED_AGAINST: Final = "4.16.0"
"""The anyio version whose behaviour this module was checked against."""
