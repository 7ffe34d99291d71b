"""Where a Presenter sees a row, relative to the call: what it hid never reaches a crash's text.

A call records what its Presenters were given through a context variable.
Two ways round it leaked a hidden field into the ``INTERNAL_ERROR`` envelope
(``raise RuntimeError(f"cannot bill {row}")`` under ``expose_errors="message"``):
``Presenter.mask(row)`` called directly recorded nothing, and a Presenter run
in a thread the handler started itself (``ThreadPoolExecutor.submit``,
``loop.run_in_executor``, ``threading.Thread``) found no record. Each route
below is tried through a ``FusionApp`` and through ``MCPServer`` and FastMCP
under ``use_fusion``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from fusion_core import BlockingFusionClient, FusionApp, Presenter, Tool, parse
from fusion_core._present import _record
from fusion_core._present._forms import text_forms
from fusion_core._present._record import ORPHANS_KEPT, CallRecord, recording
from tests._support.hooked import hooked_server

HIDDEN = "owner-secret-7f3a"


class Ticket(BaseModel):
    id: int
    title: str


TICKET = Presenter("Ticket", schema=Ticket)


def _row() -> dict[str, Any]:
    return {"id": 7, "title": "printer", "owner": HIDDEN}


def _in_context(show: Callable[[Any], Any]) -> None:
    show(_row())


def _submitted(show: Callable[[Any], Any]) -> None:
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(show, _row()).result()


def _in_a_thread(show: Callable[[Any], Any]) -> None:
    worker = threading.Thread(target=show, args=(_row(),))
    worker.start()
    worker.join()


def _nested(show: Callable[[Any], Any]) -> None:
    with concurrent.futures.ThreadPoolExecutor(1) as outer:
        outer.submit(_submitted, show).result()


ROUTES: dict[str, Callable[[Callable[[Any], Any]], None]] = {
    "in the call's context": _in_context,
    "ThreadPoolExecutor.submit": _submitted,
    "threading.Thread": _in_a_thread,
    "a pool inside a pool": _nested,
}
SHOWS: dict[str, Callable[[Any], Any]] = {"make": TICKET.make, "mask": TICKET.mask}


def _crash(route: str, show: str) -> None:
    ROUTES[route](SHOWS[show])
    raise RuntimeError(f"cannot bill {_row()}")


async def _crash_in_executor(show: str) -> None:
    await asyncio.get_running_loop().run_in_executor(None, SHOWS[show], _row())
    raise RuntimeError(f"cannot bill {_row()}")


def _fusion_app() -> FusionApp:
    tool = Tool("helpdesk", "Tickets")

    def bill(route: str, show: str) -> None:
        _crash(route, show)

    async def bill_async(show: str) -> None:
        await _crash_in_executor(show)

    tool.action("bill", bill, read_only=True)
    tool.action("bill_async", bill_async, read_only=True)
    return FusionApp([tool], expose_errors="message")


def _framework(kind: str) -> Any:
    server, decorate = hooked_server(kind, "helpdesk", expose_errors="message")

    @decorate
    def bill(route: str, show: str) -> str:
        _crash(route, show)
        return "unreached"

    @decorate
    async def bill_async(show: str) -> str:
        await _crash_in_executor(show)
        return "unreached"

    return server


def _message(server: Any, kind: str, route: str | None, show: str) -> str:
    """The crash envelope's message for one call (``route`` ``None``: run_in_executor)."""
    with BlockingFusionClient.in_memory(server) as client:
        if kind == "FusionApp":
            arguments: dict[str, Any] = {"action": "bill" if route else "bill_async"}
            tool = "helpdesk"
        else:
            arguments, tool = {}, "bill" if route else "bill_async"
        arguments.update({"show": show, **({"route": route} if route else {})})
        wire = client.call(tool, arguments)
    error = parse(wire).view.error
    assert error is not None, wire
    assert error.code == "INTERNAL_ERROR"
    return error.message


KINDS = ["FusionApp", "MCPServer", "FastMCP"]


def _server(kind: str) -> Any:
    return _fusion_app() if kind == "FusionApp" else _framework(kind)


@pytest.mark.parametrize("show", list(SHOWS))
@pytest.mark.parametrize("route", [*ROUTES, None], ids=[*ROUTES, "loop.run_in_executor"])
@pytest.mark.parametrize("kind", KINDS)
def test_what_a_presenter_hid_is_cleaned_wherever_it_ran(
    kind: str, route: str | None, show: str
) -> None:
    """make() or mask(), in the call's context or in a thread without it: no form of the value."""
    message = _message(_server(kind), kind, route, show)
    assert "cannot bill" in message  # the message is shown, cleaned
    assert "printer" in message
    assert not any(form in message for form in text_forms(HIDDEN)), message


def test_nothing_is_kept_once_no_call_records() -> None:
    """Data given outside any call is not kept; a call's orphans go when the calls end."""
    TICKET.make(_row())  # no call records: nothing to keep it for
    assert not _record._ORPHANS.recording
    assert len(_record._ORPHANS._entries) == 0
    record = CallRecord()
    with recording(record):
        _submitted(TICKET.mask)
    assert record.orphans is not None
    assert [pair[0]["owner"] for pair in record.orphans] == [HIDDEN]
    assert len(_record._ORPHANS._entries) == 0


def test_orphans_count_for_every_call_recording_meanwhile() -> None:
    """Two calls at once: a thread's row is counted by both (over-cleaning hides nothing)."""
    first, second = CallRecord(), CallRecord()
    with recording(first):
        _submitted(TICKET.mask)
        done = threading.Event()

        def other_call() -> None:
            with recording(second):
                done.wait(5)

        caller = threading.Thread(target=other_call)
        caller.start()
        for _ in range(5000):  # until the other call records too
            if sum(_record._ORPHANS._starts.values()) == 2:
                break
            threading.Event().wait(0.001)
        _submitted(TICKET.mask)
        done.set()
        caller.join()
    assert first.orphans is not None
    assert second.orphans is not None
    assert len(first.orphans) == 2
    assert len(second.orphans) == 1
    assert len(_record._ORPHANS._entries) == 0


def test_a_call_that_lost_orphans_shows_the_type_only() -> None:
    """More rows given without a context than the registry keeps: the message is left out."""
    tool = Tool("helpdesk", "Tickets")

    def flood() -> None:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(lambda: [TICKET.mask(_row()) for _ in range(ORPHANS_KEPT + 1)]).result()
        raise RuntimeError(f"cannot bill {_row()}")

    def few() -> None:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(lambda: [TICKET.mask(_row()) for _ in range(ORPHANS_KEPT)]).result()
        raise RuntimeError(f"cannot bill {_row()}")

    tool.action("flood", flood, read_only=True)
    tool.action("few", few, read_only=True)
    app = FusionApp([tool], expose_errors="message")
    with BlockingFusionClient.in_memory(app) as client:
        flooded = parse(client.call("helpdesk", {"action": "flood"})).view.error
        kept = parse(client.call("helpdesk", {"action": "few"})).view.error
    assert flooded is not None
    assert kept is not None
    assert flooded.message == "[helpdesk/flood] RuntimeError"
    assert kept.message.startswith("[helpdesk/few] cannot bill {")
    assert HIDDEN not in kept.message


class AdminTicket(BaseModel):
    id: int
    title: str
    owner: str


ADMIN = Presenter("Admin", schema=AdminTicket)  # shows the owner too


class _Worker:
    """A worker task started in the first call that needs it: it keeps that call's context."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[Any, asyncio.Future[Any]]] | None = None
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.queue = asyncio.Queue()

        async def serve(queue: asyncio.Queue[tuple[Any, asyncio.Future[Any]]]) -> None:
            while True:
                row, answer = await queue.get()
                answer.set_result(TICKET.mask(row))

        self.task = asyncio.get_running_loop().create_task(serve(self.queue))

    async def mask(self, row: Any) -> Any:
        assert self.queue is not None
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.queue.put((row, answer))
        return await answer


def _worker_app(worker: _Worker) -> FusionApp:
    tool = Tool("helpdesk", "Tickets")

    async def start() -> str:
        await worker.start()
        return "started"

    async def use() -> None:
        await worker.mask(_row())
        raise RuntimeError(f"cannot bill {_row()}")

    tool.action("start", start, read_only=True)
    tool.action("use", use, read_only=True)
    return FusionApp([tool], expose_errors="message")


def test_a_task_left_with_an_earlier_call_s_context_counts_for_the_call_running() -> None:
    """A worker task keeps the context of the call that started it; its masks count for later calls.

    The old code appended them to that first call's record: later calls sent
    the hidden value, and the first record grew by a row every call.
    """
    worker = _Worker()
    app = _worker_app(worker)
    with BlockingFusionClient.in_memory(app) as client:
        assert parse(client.call("helpdesk", {"action": "start"})).view.data == "started"
        for _ in range(3):
            error = parse(client.call("helpdesk", {"action": "use"})).view.error
            assert error is not None
            assert "cannot bill" in error.message
            assert HIDDEN not in error.message
        assert worker.task is not None
        worker.task.cancel()
    assert len(_record._ORPHANS._entries) == 0


def _showing_app() -> FusionApp:
    tool = Tool("helpdesk", "Tickets")

    def shown_in_a_thread() -> None:
        TICKET.make(_row())
        _submitted(ADMIN.mask)  # an internal look that shows the owner, never returned
        raise RuntimeError(f"cannot bill {_row()}")

    def shown_in_the_call() -> None:
        TICKET.make(_row())
        ADMIN.mask(_row())
        raise RuntimeError(f"cannot bill {_row()}")

    tool.action("thread", shown_in_a_thread, read_only=True)
    tool.action("call", shown_in_the_call, read_only=True)
    return FusionApp([tool], expose_errors="message")


@pytest.mark.parametrize("action", ["thread", "call"])
def test_what_one_presenter_hid_stays_hidden_whatever_another_showed(action: str) -> None:
    """A value one Presenter dropped is cleaned even when another Presenter, anywhere, kept it.

    The old code subtracted everything any Presenter showed from everything
    given: a Presenter showing the owner (an admin view in a thread, or in
    another call running meanwhile) put it back in the crash text.
    """
    with BlockingFusionClient.in_memory(_showing_app()) as client:
        error = parse(client.call("helpdesk", {"action": action})).view.error
    assert error is not None
    assert "cannot bill" in error.message
    assert HIDDEN not in error.message


@pytest.mark.parametrize("schema", [Ticket, None], ids=["schema", "no schema"])
def test_rows_an_agent_limit_leaves_out_are_hidden_too(schema: type[BaseModel] | None) -> None:
    """The rows past ``agent_limit`` were never shown: their values are cleaned from a crash."""
    limited = Presenter("Limited", schema=schema, agent_limit=2)
    rows = [{"id": n, "title": "printer", "owner": f"owner-secret-{n:04d}"} for n in range(5)]
    tool = Tool("helpdesk", "Tickets")

    def bill() -> None:
        limited.make(rows)
        raise RuntimeError(f"cannot bill {rows}")

    tool.action("bill", bill, read_only=True)
    app = FusionApp([tool], expose_errors="message")
    with BlockingFusionClient.in_memory(app) as client:
        error = parse(client.call("helpdesk", {"action": "bill"})).view.error
    assert error is not None
    assert "cannot bill" in error.message
    assert all(f"secret-{n:04d}" not in error.message for n in range(2, 5)), error.message
    if schema is None:  # no schema hides nothing of the rows it shows
        assert "owner-secret-0000" in error.message
