"""The pipeline: dispatch, envelopes, the wrap rule, contexts, async handlers."""

from __future__ import annotations

import contextvars
import logging
import threading
from typing import Any, Literal

import anyio
import pytest
from pydantic import BaseModel, Field

from fusion_core._present._presenter import Presenter
from fusion_core._tools._app import FusionApp
from fusion_core._tools._tool import Tool
from fusion_core._write._builder import response
from fusion_core._write._one_call import success_structured
from fusion_core._write._response import view_of
from tests._support.blocking import Holder


class Create(BaseModel):
    name: str = Field(min_length=3)
    color: Literal["red", "green"] | None = None
    size: int | None = Field(default=None, ge=1, le=10)


class Out(BaseModel):
    t: int


def app() -> FusionApp:
    """An app with one tool covering the pipeline paths."""
    tool = Tool("projects")
    tool.action("create", lambda args: args.model_dump(exclude_none=True), params=Create)
    tool.action("boom", lambda: 1 / 0)
    tool.action("none", lambda: None)
    tool.action("structured", lambda t: success_structured({"t": t}))
    tool.with_output_schema(Out)
    return FusionApp([tool])


def texts(name: str, args: dict[str, Any] | None) -> list[str]:
    """The block texts of one call."""
    return app().call_sync(name, args).texts


def test_unknown_tool() -> None:
    """An unknown tool name gets the UNKNOWN_TOOL envelope."""
    expected = (
        '<tool_error code="UNKNOWN_TOOL" severity="error">\n<message>Tool "nope" does not exist.'
        "</message>\n<recovery>Check the available tools via tools/list and call a valid one."
        "</recovery>\n</tool_error>"
    )
    assert texts("nope", {}) == [expected]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (None, "MISSING_DISCRIMINATOR"),
        ({"action": ""}, "MISSING_DISCRIMINATOR"),
        ({"action": None}, "INVALID_DISCRIMINATOR"),
        ({"action": 3}, "INVALID_DISCRIMINATOR"),
        ({"action": "<x>"}, "UNKNOWN_ACTION"),
    ],
)
def test_discriminator_envelopes(args: dict[str, Any] | None, code: str) -> None:
    """Missing, non-string and unknown discriminators each get their envelope."""
    response = app().call_sync("projects", args)
    assert response.is_error
    assert response.texts[0].startswith(f'<tool_error code="{code}">\n<message>')
    assert (
        "<available_actions>create, boom, none, structured</available_actions>"
        in (response.texts[0])
    )
    assert "<x>" not in response.texts[0]


@pytest.mark.parametrize("discriminator", ["action", "op", "operation", "kind_2"])
def test_unknown_action_names_the_discriminator(discriminator: str) -> None:
    """The unknown-action message names the tool's discriminator, as the reference does."""
    tool = Tool("jobs", discriminator=discriminator)
    tool.action("run", lambda: "ran")
    response = FusionApp([tool]).call_sync("jobs", {discriminator: "zz"})
    error = view_of(response).error
    assert error is not None
    assert error.code == "UNKNOWN_ACTION"
    assert error.message == f'The {discriminator} "zz" does not exist.'


class _Point(BaseModel):
    x: float


class _Numbers(BaseModel):
    n: float
    items: list[float] = []
    point: _Point | None = None
    maybe: float | None = None
    anything: Any = None
    count: int = 0


@pytest.mark.parametrize(
    ("args", "fields"),
    [
        ({"n": float("inf")}, ["n"]),
        ({"n": float("-inf")}, ["n"]),
        ({"n": float("nan")}, ["n"]),
        ({"n": 1, "items": [1.0, float("inf")]}, ["items.1"]),
        ({"n": 1, "point": {"x": float("nan")}}, ["point.x"]),
        ({"n": 1, "maybe": float("inf")}, ["maybe"]),
        ({"maybe": float("inf"), "n": "x", "zz": 1}, ["n", "maybe", "(root)"]),
        ({"n": 1, "count": float("inf")}, ["count"]),
    ],
)
def test_non_finite_numbers_are_refused(args: dict[str, Any], fields: list[str]) -> None:
    """NaN and Infinity sent for a number (any depth) are validation errors, as in the reference."""
    tool = Tool("nums")
    tool.action("put", lambda args: args.model_dump(), params=_Numbers)
    response = FusionApp([tool]).call_sync("nums", {"action": "put", **args})
    validation = view_of(response).validation
    assert validation is not None, response.texts
    assert [field.name for field in validation.fields] == fields
    assert "finite number" in validation.fields[0].message or fields[0] == "n"


def test_non_finite_values_of_any_pass() -> None:
    """A value of an untyped (``Any``) parameter is accepted whatever it is, as zod's ``any``."""
    tool = Tool("nums")
    tool.action("put", lambda args: args.model_dump(), params=_Numbers)
    response = FusionApp([tool]).call_sync(
        "nums", {"action": "put", "n": 1, "anything": float("inf")}
    )
    assert not response.is_error


def test_validation_envelope_lists_fields_in_order() -> None:
    """One ``<field>`` per problem, schema order, unknown keys last as ``(root)``."""
    text = texts("projects", {"action": "create", "name": "ab", "size": 11, "x": 1})[0]
    lines = text.split("\n")
    assert lines[0] == '<validation_error action="projects/create">'
    assert [line.split('"')[1] for line in lines[1:-2]] == ["name", "size", "(root)"]
    assert "You sent: 'ab'." in lines[1]
    assert lines[-2] == (
        "<recovery>Fix the fields above and call the tool again. "
        "Do not explain the error.</recovery>"
    )


def test_handler_gets_validated_model() -> None:
    """``params=Model`` handlers receive the validated instance."""
    assert texts("projects", {"action": "create", "name": "abc"}) == ['{\n  "name": "abc"\n}']


def test_handler_exception_is_logged_not_leaked(caplog: pytest.LogCaptureFixture) -> None:
    """INTERNAL_ERROR with the message only; the traceback goes to the log."""
    with caplog.at_level(logging.ERROR, logger="fusion_core"):
        text = texts("projects", {"action": "boom"})[0]
    assert text == (
        '<tool_error code="INTERNAL_ERROR" severity="error">\n'
        "<message>[projects/boom] division by zero</message>\n"
        "<recovery>This may be a transient error. Retry the same call with identical parameters."
        "</recovery>\n</tool_error>"
    )
    assert "Traceback" not in text
    assert caplog.records[0].exc_info is not None


def test_none_becomes_ok() -> None:
    """A handler returning None answers ``OK``."""
    assert texts("projects", {"action": "none"}) == ["OK"]


def test_output_schema_is_enforced() -> None:
    """A structured result must match the declared output schema."""
    assert app().call_sync("projects", {"action": "structured", "t": 1})["structuredContent"] == {
        "t": 1
    }
    bad = app().call_sync("projects", {"action": "structured", "t": "x"})
    assert bad.is_error
    assert "does not match the output schema" in bad.texts[0]


def test_async_handler_and_context_factory() -> None:
    """Async handlers are awaited; ``context_factory`` builds the missing ctx."""

    async def whoami(ctx: dict[str, str]) -> str:
        return ctx["user"]

    async def factory() -> dict[str, str]:
        return {"user": "ana"}

    tool = Tool("me").action("get", whoami)
    fusion = FusionApp([tool], context_factory=factory)
    assert fusion.call_sync("me", {"action": "get"}).texts == ["ana"]
    assert fusion.call_sync("me", {"action": "get"}, {"user": "bo"}).texts == ["bo"]


def test_definitions_and_duplicates() -> None:
    """``definitions()`` lists every tool; names are unique."""
    fusion = app()
    assert [d["name"] for d in fusion.definitions()] == ["projects"]
    with pytest.raises(ValueError, match="already registered"):
        fusion.add(Tool("projects"))


def test_select_validation() -> None:
    """``_select`` values outside the enum are a validation error."""

    class Row(BaseModel):
        id: str
        name: str

    tool = Tool("rows").enable_select()
    tool.action("get", lambda: {"id": "1", "name": "n"}, returns=Presenter("Row", Row))
    fusion = FusionApp([tool])
    assert fusion.call_sync("rows", {"action": "get", "_select": ["name"]}).texts == [
        '{\n  "name": "n"\n}'
    ]
    bad = fusion.call_sync("rows", {"action": "get", "_select": ["name", "secret"]})
    assert bad.texts[0].split("\n")[1].startswith('<field name="_select.1">')
    assert view_of(bad).data is None


def test_builder_without_presenter_is_built() -> None:
    """A returned builder is built; no presenter means no masking."""
    tool = Tool("t").action("run", lambda: response({"a": 1}).llm_hint("h"))
    assert FusionApp([tool]).call_sync("t", {"action": "run"}).texts == [
        '{\n  "a": 1\n}',
        "<llm_directives>\n- h\n</llm_directives>",
    ]


# --- where handlers run (WIRE.md 12.9) -----------------------------------------------

_WAIT = 10.0  # seconds a blocked handler waits before giving up (only when the test fails)


def _gate_app(worker_threads: int = 40) -> tuple[FusionApp, threading.Event, threading.Event]:
    """``slow/block`` waits for ``release`` (sync, blocking); ``slow/fast`` answers at once."""
    entered, release = threading.Event(), threading.Event()

    def block() -> str:
        entered.set()
        return "released" if release.wait(_WAIT) else "timed out"

    async def fast_async() -> str:
        return "fast"

    tool = Tool("slow")
    tool.action("block", block)
    tool.action("fast", lambda: "fast")
    tool.action("fast_async", fast_async)
    return FusionApp([tool], worker_threads=worker_threads), entered, release


@pytest.mark.anyio
@pytest.mark.parametrize("fast", ["fast", "fast_async"])
async def test_a_blocking_sync_handler_does_not_delay_a_concurrent_call(fast: str) -> None:
    """While one sync handler blocks its thread, another call completes; then the first does.

    Deterministic: the blocked handler is released only after the fast call
    returned, so on an event loop that the handler blocked, the fast call could
    not finish first and the blocked one would time out.
    """
    app, entered, release = _gate_app()
    results: dict[str, list[str]] = {}

    async def blocked() -> None:
        results["block"] = (await app.call("slow", {"action": "block"})).texts

    async with anyio.create_task_group() as group:
        group.start_soon(blocked)
        assert await anyio.to_thread.run_sync(entered.wait, _WAIT)
        with anyio.fail_after(_WAIT):
            results["fast"] = (await app.call("slow", {"action": fast})).texts
        assert "block" not in results
        release.set()
    assert results == {"fast": ["fast"], "block": ["released"]}


@pytest.mark.anyio
async def test_sync_handlers_run_at_most_worker_threads_at_once() -> None:
    """With ``worker_threads=2``, a third blocking call waits for a free thread."""
    holder = Holder()
    app = FusionApp([Tool("t").action("hold", holder.hold)], worker_threads=2)
    done: list[list[str]] = []

    async def one() -> None:
        done.append((await app.call("t", {"action": "hold"})).texts)

    async with anyio.create_task_group() as group:
        for _ in range(5):
            group.start_soon(one)
        assert await anyio.to_thread.run_sync(holder.two_in.wait, _WAIT)
        await anyio.sleep(0.2)  # room for a third thread to start, were there no limit
        assert holder.active == [2, 2]
        holder.release.set()
    assert done == [["done"]] * 5
    assert holder.active == [0, 2]
    assert app.worker_threads == 2


@pytest.mark.parametrize(
    ("value", "error"), [(0, ValueError), (-3, ValueError), (1.5, TypeError), (True, TypeError)]
)
def test_worker_threads_must_be_a_positive_int(value: Any, error: type[Exception]) -> None:
    """A limit of no threads, a negative one, a float or a bool is refused at construction."""
    with pytest.raises(error, match="worker_threads"):
        FusionApp(worker_threads=value)


@pytest.mark.anyio
async def test_sync_handlers_run_off_the_loop_and_async_ones_on_it() -> None:
    """Sync handlers (and their Presenter) run in a worker thread; async ones on the loop."""
    seen: dict[str, int] = {}

    def sync_handler() -> dict[str, int]:
        seen["sync"] = threading.get_ident()
        return {"id": 1}

    async def async_handler() -> str:
        seen["async"] = threading.get_ident()
        return "ok"

    def rules(item: Any, ctx: Any) -> list[str]:
        seen["presenter"] = threading.get_ident()
        return []

    class Row(BaseModel):
        id: int

    tool = Tool("where")
    tool.action("sync", sync_handler, returns=Presenter("Row", schema=Row, rules=rules))
    tool.action("async", async_handler)
    app = FusionApp([tool])
    await app.call("where", {"action": "sync"})
    await app.call("where", {"action": "async"})
    loop_thread = threading.get_ident()
    assert seen["async"] == loop_thread
    assert seen["sync"] != loop_thread
    assert seen["presenter"] == seen["sync"]


_REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")


@pytest.mark.anyio
async def test_a_sync_handler_sees_the_callers_context_variables() -> None:
    """Context variables set around ``call()`` reach a handler in its worker thread."""
    handler = lambda: _REQUEST_ID.get()  # noqa: E731, PLW0108 - a plain (sync) function
    app = FusionApp([Tool("ctx").action("get", handler)])
    token = _REQUEST_ID.set("req-7")
    try:
        assert (await app.call("ctx", {"action": "get"})).texts == ["req-7"]
    finally:
        _REQUEST_ID.reset(token)


@pytest.mark.anyio
async def test_a_sync_callable_returning_a_coroutine_is_awaited() -> None:
    """A plain callable that returns an awaitable (a lambda around an async function) works."""

    async def later(n: int) -> dict[str, int]:
        return {"n": n}

    app = FusionApp([Tool("co").action("get", lambda n: later(n))])  # noqa: PLW0108 - not async
    assert (await app.call("co", {"action": "get", "n": 4})).texts == ['{\n  "n": 4\n}']


# --- per-call work does not grow with the app (issue 13.1) ---------------------------------


class _X(BaseModel):
    x: int


_X_PRESENTER = Presenter("X", schema=_X)


def _wide_app(tools: int, actions: int) -> FusionApp:
    """``tools`` tools of ``actions`` actions each, with ``_select`` and a Presenter."""
    app = FusionApp()
    for t in range(tools):
        tool = Tool(f"tool{t}").enable_select()
        for a in range(actions):
            tool.action(f"a{a}", lambda x=0: {"x": x}, returns=_X_PRESENTER, read_only=True)
        app.add(tool)
    return app


@pytest.mark.anyio
async def test_a_call_rebuilds_no_definition_and_copies_no_action_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After the first call of a tool, calls and schema lookups read only cached state.

    The counts, not a timing, are the check: an app of a few tools of ten
    actions shows a rebuild as well as a large one (20 x 30 took 11-20 s to
    register, as a tool checks every action's schema again per new action).
    """
    app = _wide_app(tools=5, actions=10)
    await app.call("tool3", {"action": "a1"})
    app.definitions()
    counts = {"definition": 0, "actions": 0, "select_keys": 0}
    originals = {
        "definition": Tool.definition,
        "select_keys": Tool.select_keys,
    }
    actions_property = Tool.actions

    def counting(kind: str) -> Any:
        def wrapper(self: Tool, *args: Any) -> Any:
            counts[kind] += 1
            return originals[kind](self, *args)

        return wrapper

    def counting_actions(self: Tool) -> Any:
        counts["actions"] += 1
        return actions_property.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(Tool, "definition", counting("definition"))
    monkeypatch.setattr(Tool, "select_keys", counting("select_keys"))
    monkeypatch.setattr(Tool, "actions", property(counting_actions))
    for _ in range(25):
        response = await app.call("tool3", {"action": "a9", "x": 2, "_select": ["x"]})
        assert not response.is_error
        assert app.tool_input_schema("tool3") is not None
    app.definitions()
    assert counts == {"definition": 0, "actions": 0, "select_keys": 0}


def test_definitions_are_cached_but_never_shared() -> None:
    """Two ``definitions()`` are equal, not the same objects: a caller cannot corrupt the cache."""
    app = _wide_app(tools=2, actions=2)
    first = app.definitions()
    first[0]["inputSchema"]["properties"].clear()
    first[1]["name"] = "changed"
    second = app.definitions()
    assert second[0]["inputSchema"]["properties"]
    assert second[1]["name"] == "tool1"
    assert app.tool_input_schema("tool0") == second[0]["inputSchema"]
    assert app.tool_input_schema("nope") is None


@pytest.mark.anyio
async def test_a_tool_changed_after_it_was_served_is_served_as_it_is_now() -> None:
    """Adding an action, ``_select`` or a tool after serving invalidates what was cached."""
    tool = Tool("grow").action("a", lambda: "a")
    app = FusionApp([tool])
    assert (await app.call("grow", {"action": "a"})).texts == ["a"]
    before = app.definitions()
    tool.action("b", lambda: {"x": 1}, returns=_X_PRESENTER)
    tool.enable_select()
    assert (await app.call("grow", {"action": "b"})).texts == ['{\n  "x": 1\n}']
    after = app.definitions()[0]
    assert after["inputSchema"]["properties"]["action"]["enum"] == ["a", "b"]
    assert "_select" in after["inputSchema"]["properties"]
    assert before != [after]
    app.add(Tool("later").action("x", lambda: "x"))
    assert [d["name"] for d in app.definitions()] == ["grow", "later"]
    assert (await app.call("later", {"action": "x"})).texts == ["x"]


def test_a_tool_whose_definition_cannot_leave_still_answers_calls() -> None:
    """The non-finite check reads the input schema alone, not the whole definition."""

    def double(n: float) -> float:
        return n * 2

    tool = Tool("odd", "a lone \udc00 surrogate")
    tool.action("get", double, description="x")
    response = FusionApp([tool]).call_sync("odd", {"action": "get", "n": 2.5})
    assert response.texts == ["5"]
    refused = FusionApp([tool]).call_sync("odd", {"action": "get", "n": float("inf")})
    assert view_of(refused).validation is not None
