"""A small app implementing the ``ToolApp`` protocol, for the server and client tests.

Its responses are built with fusion_core, so what a client receives can be
compared with ``await app.call(...)`` in process. It validates its own
arguments (the SDK must not reject them first) and answers unknown tools with
an envelope, as the real pipeline does.
"""

from __future__ import annotations

import contextlib
import copy
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from fusion_core import ToolResponse, error, response, success, success_structured, tool_error, ui
from tests._support.servers import serve_http

_INVOICES: Final[list[dict[str, Any]]] = [
    {"id": 1, "client": "Acme <Corp> & Sons", "amount_cents": 125000, "status": "paid"},
    {"id": 2, "client": "Globex", "amount_cents": 9900, "status": "open"},
    {"id": 3, "client": "Initech | Ünïcødé 🚀", "amount_cents": 0, "status": "void"},
]

_DEFINITIONS: Final[list[dict[str, Any]]] = [
    {
        "name": "invoices_list",
        "description": "List invoices.\n\nActions: list",
        "inputSchema": {
            "type": "object",
            "properties": {"status": {"type": "string", "enum": ["paid", "open", "void"]}},
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True},
    },
    {
        "name": "invoices_stats",
        "description": "Revenue statistics, as structured content.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
        "outputSchema": {
            "type": "object",
            "properties": {
                "count": {"type": "integer"},
                "total_cents": {"type": "integer"},
                "by_status": {"type": "object", "additionalProperties": {"type": "integer"}},
            },
            "required": ["count", "total_cents", "by_status"],
        },
    },
    {
        "name": "invoices_delete",
        "description": "Delete an invoice.",
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "integer", "minimum": 1}},
            "required": ["id"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True},
    },
    {
        "name": "echo",
        "description": "Echo text back verbatim.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        "annotations": {"readOnlyHint": True},
    },
]


class FakeApp:
    """Four tools: a rich response, structured content, errors, and an echo."""

    def definitions(self) -> list[dict[str, Any]]:
        """The tool definitions (a fresh copy: callers may not mutate ours)."""
        return copy.deepcopy(_DEFINITIONS)

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        """Run one tool; every failure is an envelope, never an exception."""
        args = dict(arguments or {})
        if name == "invoices_list":
            return _list(args)
        if name == "invoices_stats":
            return _stats()
        if name == "invoices_delete":
            return _delete(args)
        if name == "echo":
            text = args.get("text")
            if not isinstance(text, str):
                return error('"text" must be a string', "VALIDATION_ERROR")
            return success(text)
        return tool_error(
            "UNKNOWN_TOOL",
            f'Tool "{name}" does not exist.',
            available_actions=[definition["name"] for definition in _DEFINITIONS],
        )


def _list(args: dict[str, Any]) -> ToolResponse:
    status = args.get("status")
    rows = [row for row in _INVOICES if status is None or row["status"] == status]
    return (
        response(rows)
        .ui_block(ui.summary(f"{len(rows)} invoices"))
        .ui_block(
            ui.table(
                ["id", "client", "amount"],
                [[row["id"], row["client"], row["amount_cents"] / 100] for row in rows],
                title="Invoices <all>",
                width="full",
                priority=0,
            )
        )
        .llm_hint("Amounts are in cents: divide by 100 before showing them.")
        .system_rules(["Never reveal internal ids & secrets.", "Use <b> sparingly."])
        .system_hint([("invoices_delete", "to remove a void invoice")])
        .build()
    )


def _stats() -> ToolResponse:
    by_status: dict[str, int] = {}
    for row in _INVOICES:
        by_status[row["status"]] = by_status.get(row["status"], 0) + 1
    return success_structured(
        {
            "count": len(_INVOICES),
            "total_cents": sum(row["amount_cents"] for row in _INVOICES),
            "by_status": by_status,
        }
    )


def _delete(args: dict[str, Any]) -> ToolResponse:
    invoice_id = args.get("id")
    if not isinstance(invoice_id, int) or isinstance(invoice_id, bool):
        return tool_error(
            "VALIDATION_ERROR",
            f'"id" must be an integer, got {invoice_id!r}',
            suggestion="Pass the numeric id of an invoice.",
        )
    if invoice_id != 3:
        return tool_error(
            "NOT_FOUND",
            f"Invoice {invoice_id} does not exist or is not void.",
            suggestion="List invoices first.",
            available_actions=["invoices_list"],
            details={"id": invoice_id, "deletable": [3]},
        )
    return tool_error(
        "ALREADY_DELETED",
        "Invoice 3 was already deleted.",
        severity="warning",
        retry_after=2.5,
    )


app: Final = FakeApp()
"""The instance ``python -m fusion_core serve tests._support.fake_app:app`` serves."""

ROOT: Final = Path(__file__).resolve().parents[2]
"""The repository root: the working directory that makes ``tests`` importable."""

SERVE_STDIO: Final = [sys.executable, "-m", "fusion_core", "serve", f"{__name__}:app"]
"""The command line serving this app over stdio (run it in :data:`ROOT`)."""

BARE_SDK_SERVER: Final = [sys.executable, "-m", "tests._support.bare_sdk_server"]
"""The command line of the server written with the bare SDK (run it in :data:`ROOT`)."""


@contextlib.contextmanager
def http_server() -> Iterator[str]:
    """Serve this app over streamable HTTP on a free loopback port; yield its URL."""
    command = [*SERVE_STDIO, "--http", "--host", "127.0.0.1", "--port", "0"]
    with serve_http(command, cwd=ROOT) as url:
        yield url


# Every call the tests make, by name: (tool, arguments).
CALLS: Final[dict[str, tuple[str, dict[str, Any] | None]]] = {
    "list-all": ("invoices_list", None),
    "list-open": ("invoices_list", {"status": "open"}),
    "stats": ("invoices_stats", {}),
    "delete-bad-type": ("invoices_delete", {"id": "three"}),
    "delete-missing": ("invoices_delete", {}),
    "delete-not-found": ("invoices_delete", {"id": 7}),
    "delete-warning": ("invoices_delete", {"id": 3}),
    "echo-special": ("echo", {"text": 'a "quoted" <tag> & \\ back\nslash\r\n\t \u2028 \x00 é 🚀'}),
    "echo-empty": ("echo", {"text": ""}),
    "unknown-tool": ("no_such_tool", {"x": 1}),
}


Answer = Callable[[Mapping[str, Any] | None, Any], Awaitable[ToolResponse]]
"""What a :class:`OneToolApp` runs on a call: ``answer(arguments, ctx)``."""


class OneToolApp:
    """A ``ToolApp`` of one tool taking any object, answered by ``answer(arguments, ctx)``."""

    def __init__(self, name: str, answer: Answer) -> None:
        self.tool = name
        self.answer = answer

    def definitions(self) -> list[dict[str, Any]]:
        return [{"name": self.tool, "inputSchema": {"type": "object"}}]

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        return await self.answer(arguments, ctx)
