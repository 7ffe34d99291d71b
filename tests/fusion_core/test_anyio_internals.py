"""What fusion_core relies on of anyio below its task-and-stream API: fails loudly when it changes.

``fusion_core._anyio_internals`` names the anyio version it was checked
against; these tests check, on the installed anyio, each thing it relies on.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import os

import anyio
import pytest

from fusion_core._anyio_internals import CHECKED_AGAINST, RunVar, wait_readable, wait_writable

UPGRADE = (
    f"anyio {importlib.metadata.version('anyio')} differs from {CHECKED_AGAINST}, which "
    "fusion_core._anyio_internals was checked against: review its uses, then update the module"
)


def test_the_waits_take_one_file_descriptor() -> None:
    """``wait_readable`` and ``wait_writable`` take one argument, a descriptor or socket."""
    for wait in (wait_readable, wait_writable):
        parameters = list(inspect.signature(wait).parameters.values())
        assert [p.name for p in parameters] == ["obj"], (wait, UPGRADE)
        assert "FileDescriptorLike" in str(parameters[0].annotation), (wait, UPGRADE)


@pytest.mark.anyio
async def test_the_waits_work_on_a_pipes_descriptor() -> None:
    """A non-blocking pipe's int descriptor: writable at once, readable once a byte is in."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)
    try:
        with anyio.fail_after(5):
            await wait_writable(write)
            os.write(write, b"x")
            await wait_readable(read)
        assert os.read(read, 1) == b"x"
    finally:
        os.close(read)
        os.close(write)


def test_a_run_var_belongs_to_one_event_loop() -> None:
    """A RunVar set on one loop is unset on the next: the worker pool's per-loop limiter."""
    variable: RunVar[int] = RunVar("fusion_core.test")

    async def read_then_set() -> int | None:
        try:
            seen: int | None = variable.get()
        except LookupError:
            seen = None
        variable.set(7)
        assert variable.get() == 7
        return seen

    assert anyio.run(read_then_set) is None, UPGRADE
    assert anyio.run(read_then_set) is None, UPGRADE
