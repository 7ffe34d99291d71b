"""The plugin's per-session state, and the callables the call fixtures return.

One :class:`FusionSession` lives in ``config.stash`` for a test session (one
per xdist worker): the configured transport (opened on first use), the wire
report and the optional tokenizer. ``fusion_call`` and ``fusion_call_async``
hand out :class:`FusionCall` / :class:`AsyncFusionCall`, which turn
``(tool, action, **args)`` into arguments, call the transport, and — under
``--fusion`` — check every result against the contract.
"""

from __future__ import annotations

import asyncio
import dataclasses
import faulthandler
import functools
import inspect
import json
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, final

import pytest

from fusion_core import (
    ArgumentsError,
    ResponseView,
    ServerConnectionError,
    ServerLimitError,
    WireFormatError,
)
from fusion_core._snapshot._format import block_kinds
from fusion_core._tools._definitions import DEFAULT_DISCRIMINATOR, discriminator_of
from pytest_mcpfusion._keys import GATE_KEY
from pytest_mcpfusion._options import options_of
from pytest_mcpfusion._result import FusionResult
from pytest_mcpfusion._transport import Limits, StartupError, Transport, open_transport

if TYPE_CHECKING:
    from fusion_core import ParsedResponse, ToolApp
    from pytest_mcpfusion._report._summary import WireReport

__all__ = ["AsyncFusionCall", "FusionCall", "FusionSession", "limit_message"]

SELECT_PARAM: Final = "_select"
UNSET: Final[Any] = object()


class FusionSession:
    """What one test session (or xdist worker) shares across its tests."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.options = options = options_of(config)
        self.contract = options.contract
        self.tokenizer: Callable[[str], int] | None = None
        self._transport: Transport | None = None
        self._startup_error: str | None = None
        self._discriminators: dict[str, str] | None = None
        self._effects: dict[tuple[str, str | None], str | None] | None = None
        self._listed: list[dict[str, Any]] | None = None  # tools/list, asked once per test
        self._serving_override = False  # the transport serves an app a fusion_app override gave
        self._spec_target: tuple[Any] | None = None  # what --fusion-app names, once loaded
        self._scope = "tests"  # the isolation scope of the running test (_inmemory.TESTS_SCOPE)

    @functools.cached_property
    def report(self) -> WireReport:
        """The wire report: made on first use (a run without ``--fusion`` records nothing)."""
        from pytest_mcpfusion._report._summary import WireReport  # noqa: PLC0415 - the gate's

        gate = self.config.stash.get(GATE_KEY, None)
        return WireReport() if gate is None else WireReport(level=gate.level)

    @property
    def limits(self) -> Limits:
        """``--fusion-timeout``, ``--fusion-max-response-bytes`` and ``fusion_server_env``."""
        options = self.options
        return Limits(
            timeout=options.timeout,
            max_response_bytes=options.max_response_bytes,
            env=options.server_env,
            stalled=self._stalled,
        )

    def _stalled(self, call: str, seconds: float) -> None:
        """Say on the terminal that ``call`` holds its thread in process (``_watchdog``).

        Output capture is suspended for it, as pytest-timeout does, since the
        test it would be captured for may never end; where every thread is
        follows (``faulthandler``), the tool's frame among them.
        """
        limit = self.options.timeout or 0.0
        message = (
            f"\npytest-mcpfusion: {call} has had no answer for {seconds:.0f} s, past the "
            f"{limit:g} s limit (--fusion-timeout). The tool holds a thread the call must "
            "wait for in process (MCPServer and FastMCP run a sync tool in a worker thread "
            "they wait for even when the call is cancelled; a FusionApp, a test's sync "
            "handler in the test's thread), so it cannot be cut short here: the run waits "
            "for its answer, which fails the test when it comes. Serve the server "
            '(--fusion-server="python server.py") to have every call cut at the limit. '
            "Where each thread is now:\n"
        )
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.suspend_global_capture(in_=True)
        try:
            sys.stderr.write(message)
            sys.stderr.flush()
            faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        finally:
            if capture is not None:
                capture.resume_global_capture()

    @property
    def app_spec(self) -> str | None:
        """``--fusion-app`` or the ``fusion_app`` ini key."""
        return self.options.app

    @property
    def server(self) -> str | None:
        """``--fusion-server`` or the ``fusion_server`` ini key."""
        return self.options.server

    @property
    def transport_name(self) -> str:
        """The transport: as given, else inferred from ``--fusion-server``."""
        return self.options.transport_name

    @property
    def opened(self) -> bool:
        """Whether a transport is open (configured, or given by a ``fusion_app`` override)."""
        return self._transport is not None

    @property
    def configured(self) -> bool:
        """Whether an app or a server was configured at all."""
        return self.options.configured

    def transport(self) -> Transport:
        """The session's transport, opened on first use.

        Raises ``pytest.UsageError`` (exit code 4 when it ends the run) when
        nothing is configured, the app does not load or the server does not
        start; a failed start is not retried within the session.
        """
        if self._transport is None:
            if self._startup_error is not None:
                raise pytest.UsageError(self._startup_error)
            if not self.configured:
                msg = (
                    "no Fusion app or server is configured: pass --fusion-app=pkg.module:app "
                    "(or set fusion_app in the ini file), --fusion-server=COMMAND_OR_URL, "
                    "or override the fusion_app fixture"
                )
                raise pytest.UsageError(msg)
            try:
                self._transport = open_transport(
                    self.transport_name,
                    app_spec=self.app_spec,
                    server=self.server,
                    limits=self.limits,
                )
                self.enter_scope(self._scope, fresh=False)
            except StartupError as exc:
                self._startup_error = str(exc)
                raise pytest.UsageError(self._startup_error) from None
        return self._transport

    def use_app(self, app: ToolApp) -> None:
        """Serve an app a conftest gave through the ``fusion_app`` fixture.

        The configured app (``--fusion-app``) keeps its configured transport, so
        a conftest that returns it runs unchanged over stdio or HTTP. Another
        app can only be called in process.
        """
        current = self._transport
        if current is not None and (current.app is app or getattr(current, "target", None) is app):
            return
        from fusion_core._mcp._frameworks import source_of  # noqa: PLC0415 - only for overrides
        from pytest_mcpfusion._inmemory import InMemory  # noqa: PLC0415
        from pytest_mcpfusion._transport import InProcess  # noqa: PLC0415 - avoids a name clash in __init__

        if self.app_spec is not None and self.spec_target() is app:
            self.use_configured()
            self.transport()
            return
        if self.transport_name != "inproc":
            msg = (
                f"the fusion_app fixture returns an app other than --fusion-app's, which "
                f"cannot be served over {self.transport_name}: return the configured app, "
                "or run in process"
            )
            raise pytest.UsageError(msg)
        if current is not None:
            current.close()
        try:
            source = source_of(app, "the fusion_app fixture's value")
        except TypeError as exc:
            raise pytest.UsageError(str(exc)) from None
        self._transport = (
            InProcess(app, self.limits)
            if source is None
            else InMemory(source, self.limits, self._scope)
        )
        self._serving_override = True
        self._discriminators = None
        self._effects = None
        self._listed = None

    def spec_target(self) -> Any:
        """What ``--fusion-app`` names (an app, a framework server or its factory), loaded once.

        Raises what loading raises: ``AppLoadError``, or the app module's own error.
        """
        if self._spec_target is None:
            from fusion_core._mcp._server import load_target  # noqa: PLC0415

            loaded = load_target(str(self.app_spec))
            self._spec_target = (getattr(loaded, "target", loaded),)
        return self._spec_target[0]

    def spec_app(self) -> ToolApp | None:
        """The ``ToolApp`` ``--fusion-app`` names, or ``None`` (no spec, or a framework server)."""
        from fusion_core import ToolApp  # noqa: PLC0415

        target = self.spec_target() if self.app_spec is not None else None
        return target if isinstance(target, ToolApp) else None

    def enter_scope(self, scope: str, *, fresh: bool) -> None:
        """The isolation scope of the next calls (see ``_inmemory``); ``fresh``: a new server."""
        self._scope = scope
        self._listed = None
        enter = getattr(self._transport, "enter_scope", None)
        if enter is not None:
            enter(scope, fresh=fresh)

    def use_configured(self) -> None:
        """Back to what the options configure, after an app a ``fusion_app`` override gave.

        With nothing configured, the next call then fails with the usage
        error, instead of calling the app another test was given.
        """
        if self._serving_override:
            self.close()
            self._serving_override = False
            self._discriminators = None
            self._effects = None

    def close(self) -> None:
        """Close the transport (its event loop thread, client and server)."""
        self._listed = None
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    def tool_list(self) -> list[dict[str, Any]]:
        """``tools/list`` as the running test sees it, asked once per test (read, never changed).

        Each answer that names a tool is checked against it: an app copies
        its definitions for every ``definitions()``, and a server answers a
        round trip. A test starts afresh (its isolation scope entered).
        """
        if self._listed is None:
            self._listed = self.transport().definitions()
        return self._listed

    def _tool_names(self) -> list[str]:
        """The names in ``tools/list`` (asked once per test), to explain a bare error's result."""
        return [definition["name"] for definition in self.tool_list()]

    def discriminator(self, tool: str) -> str:
        """The parameter that selects ``tool``'s action (``action`` by default)."""
        if self._discriminators is None:
            self._discriminators = {}
            for definition in self.transport().definitions():
                self._discriminators[definition["name"]] = (
                    discriminator_of(definition) or DEFAULT_DISCRIMINATOR
                )
        return self._discriminators.get(tool, DEFAULT_DISCRIMINATOR)

    def arguments(
        self, tool: str, action: str | None, select: Any, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The ``tools/call`` arguments of a fixture call."""
        arguments = dict(args)
        if action is not None:
            arguments[self.discriminator(tool)] = action
        if select is not None:
            arguments[SELECT_PARAM] = list(select)
        return arguments

    def finish(
        self,
        tool: str,
        action: str | None,
        arguments: dict[str, Any],
        wire: dict[str, Any],
        view: ResponseView | None,
        *,
        checked: bool,
    ) -> FusionResult:
        """Wrap a call's answer; under ``--fusion`` record it and check the contract."""
        result = FusionResult(wire, view, tool=tool, arguments=arguments, tools=self._tool_names)
        if self.contract:
            from pytest_mcpfusion._report._summary import outcome_of  # noqa: PLC0415 - the gate's

            kinds = block_kinds(readable(result))
            self.report.record(result, kinds, action=action, tokenizer=self.tokenizer)
            if outcome_of(result) == "ok" and self.effects(tool, action) is not None:
                self.report.add_write(tool, action, _arguments_text(arguments))
            if checked:
                self.enforce(result, action)
        return result

    def effects(self, tool: str, action: str | None) -> str | None:
        """Why a call of ``tool``'s ``action`` may write (``_contract._writes``), or ``None``."""
        key = (tool, action)
        if self._effects is None:
            self._effects = {}
        if key not in self._effects:
            try:
                definitions = {d["name"]: d for d in self.tool_list()}
            except Exception:  # noqa: BLE001 - the call worked; tools/list is not ours to fail
                definitions = {}
            definition = definitions.get(tool)
            app = self.transport().app
            self._effects[key] = (
                self.config.stash[GATE_KEY].writes.effects(definition, action, app)
                if definition is not None
                else "the tool is not in tools/list"
            )
        return self._effects[key]

    def problems(
        self, result: FusionResult, action: str | None = None, *, record: bool = True
    ) -> list[str]:
        """``result``'s contract violations and house-rule findings, counted in the report.

        ``record=False``: not counted (a contract test counts the failures it
        ends with, not every call hypothesis makes while it shrinks).
        """
        # The checker (and lxml, for malformed envelopes) loads with the gate's first check.
        from fusion_core._read._check import check  # noqa: PLC0415

        # One read for both: the strict rules are split off by review().
        found = check(readable(result), strict=True)
        problems = self.config.stash[GATE_KEY].review(self, result, action, found)
        for more in self.config.hook.pytest_fusion_check(result=result):
            problems.extend(more or ())
        if problems and record:
            self.report.add_violations(result.tool, action, problems)
        return problems

    def enforce(self, result: FusionResult, action: str | None = None) -> None:
        """Fail the current test if ``result`` breaks the contract or a house rule."""
        problems = self.problems(result, action)
        if problems:
            lines = "\n".join(f"  - {problem}" for problem in problems)
            pytest.fail(
                f"{result.tool}: the response breaks the Fusion contract (--fusion):\n{lines}",
                pytrace=False,
            )


class _Caller:
    """What the sync and async call fixtures share: the session and the context."""

    __slots__ = ("_checked", "_context", "_session")

    def __init__(self, session: FusionSession, context: Any, *, checked: bool) -> None:
        self._session = session
        self._context = context
        self._checked = checked

    def _prepare(
        self,
        tool: str,
        action: str | None,
        context: Any,
        select: Any,
        args: Mapping[str, Any],
        *,
        merge: Mapping[str, Any] | None,
    ) -> tuple[Transport, Any, dict[str, Any]]:
        try:
            transport = self._session.transport()
            # A context the transport cannot use (a framework's server, a server
            # process) is this call's mistake: it fails this test, not the session.
            ctx = _context(transport, self._context, context, merge)
        except pytest.UsageError as exc:  # a few lines, not a traceback through the fixture
            failure = str(exc)
        else:
            return transport, ctx, self._session.arguments(tool, action, select, args)
        pytest.fail(failure, pytrace=False)


@final
class FusionCall(_Caller):
    """``fusion_call(tool, action=None, /, *, context=..., select=..., **args)``.

    Calls ``tool`` (with ``action`` put under the tool's discriminator) and
    returns a :class:`~pytest_mcpfusion.FusionResult`. ``context`` replaces
    the ``fusion_context`` fixture's value for this call; ``merge_context``
    shallow-merges a mapping into it instead (into the app's
    ``context_factory()`` result when the fixture gives ``None``), as the
    reference's tester merges its override (both in process only).
    ``select`` fills ``_select``.
    """

    __slots__ = ()

    def __call__(
        self,
        tool: str,
        action: str | None = None,
        /,
        *,
        context: Any = UNSET,
        merge_context: Mapping[str, Any] | None = None,
        select: Any = None,
        **args: Any,
    ) -> FusionResult:
        """Call the tool and return its result."""
        transport, ctx, arguments = self._prepare(
            tool, action, context, select, args, merge=merge_context
        )
        if isinstance(ctx, _PendingMerge):
            ctx = _merged_or_fail(asyncio.run(ctx.made()))
        try:
            wire, view = transport.call(tool, arguments, ctx)
        except (ServerLimitError, ServerConnectionError) as exc:
            failure = limit_message(exc)
        except ArgumentsError as exc:  # the test's arguments (a NaN): its mistake, named
            failure = f"fusion_call({tool!r}): {exc}"
        else:
            return self._session.finish(tool, action, arguments, wire, view, checked=self._checked)
        pytest.fail(failure, pytrace=False)  # outside the except: no chained traceback


@final
class AsyncFusionCall(_Caller):
    """``await fusion_call_async(tool, action=None, /, **args)``: the async twin."""

    __slots__ = ()

    async def __call__(
        self,
        tool: str,
        action: str | None = None,
        /,
        *,
        context: Any = UNSET,
        merge_context: Mapping[str, Any] | None = None,
        select: Any = None,
        **args: Any,
    ) -> FusionResult:
        """Call the tool from async code and return its result."""
        transport, ctx, arguments = self._prepare(
            tool, action, context, select, args, merge=merge_context
        )
        if isinstance(ctx, _PendingMerge):
            ctx = _merged_or_fail(await ctx.made())
        try:
            wire, view = await transport.call_async(tool, arguments, ctx)
        except (ServerLimitError, ServerConnectionError) as exc:
            failure = limit_message(exc)
        except ArgumentsError as exc:  # the test's arguments (a NaN): its mistake, named
            failure = f"fusion_call({tool!r}): {exc}"
        else:
            return self._session.finish(tool, action, arguments, wire, view, checked=self._checked)
        pytest.fail(failure, pytrace=False)  # outside the except: no chained traceback


def _context(
    transport: Transport, fixture_context: Any, override: Any, merge: Mapping[str, Any] | None
) -> Any:
    """The call's context: the fixture's, replaced (``context=``) or merged (``merge_context=``)."""
    if override is UNSET and merge is None:
        return fixture_context
    option = "context=" if merge is None else "merge_context="
    if transport.app is None:
        from pytest_mcpfusion._inmemory import InMemory  # noqa: PLC0415 - lazy, as in use_app

        msg = (
            transport.context_refusal(option)
            if isinstance(transport, InMemory)
            else f"{option} needs the in-process transport; over {transport.name} the "
            "server makes its own context"
        )
        raise pytest.UsageError(msg)
    if merge is None:
        return override
    if override is not UNSET:
        msg = "pass context= (replaces the context) or merge_context= (merges into it), not both"
        raise pytest.UsageError(msg)
    if not isinstance(merge, Mapping):  # a runtime check of what typing says
        msg = f"merge_context= takes a mapping of context keys, got {type(merge).__name__}"  # type: ignore[unreachable]
        raise pytest.UsageError(msg)
    base = fixture_context
    if base is None:
        factory = getattr(transport.app, "context_factory", None)
        base = factory() if factory is not None else None
        if inspect.isawaitable(base):
            return _PendingMerge(base, merge)
    return merged(base, merge)


def merged(base: Any, merge: Mapping[str, Any]) -> Any:
    """``{**base, **merge}`` (a mapping, or ``None``); ``replace(base, **merge)`` (a dataclass)."""
    if base is None:
        return dict(merge)
    if isinstance(base, Mapping):
        return {**base, **merge}
    if dataclasses.is_dataclass(base) and not isinstance(base, type):
        try:
            return dataclasses.replace(base, **merge)
        except TypeError as exc:
            msg = f"merge_context= cannot merge into the context ({type(base).__name__}): {exc}"
            raise pytest.UsageError(msg) from None
    msg = (
        f"merge_context= merges into a mapping or a dataclass, but the context is a "
        f"{type(base).__name__}; pass the whole context with context= instead"
    )
    raise pytest.UsageError(msg)


@final
class _PendingMerge:
    """An async ``context_factory``'s result, merged once the caller awaits it."""

    __slots__ = ("_made", "_merge")

    def __init__(self, made: Awaitable[Any], merge: Mapping[str, Any]) -> None:
        self._made = made
        self._merge = merge

    async def made(self) -> Any:
        """The factory's context with ``merge`` merged in, or the ``UsageError`` saying why not."""
        base = await self._made
        try:
            return merged(base, self._merge)
        except pytest.UsageError as exc:
            return exc


def _merged_or_fail(made: Any) -> Any:
    """A pending merge's context; its ``UsageError`` fails the test in a line (as ``_prepare``)."""
    if isinstance(made, pytest.UsageError):
        pytest.fail(str(made), pytrace=False)
    return made


def readable(result: FusionResult) -> ParsedResponse | dict[str, Any]:
    """The result parsed once for every reader (the kinds, the check), else its wire dict.

    Bytes the parser refuses are the wire dict: ``check()`` reports why, and
    the kinds are ``text``.
    """
    try:
        return result.parsed
    except WireFormatError:
        return result.wire_dict


def _arguments_text(arguments: Mapping[str, Any]) -> str:
    """A call's arguments as one line of JSON, for the report's list of writes."""
    return json.dumps(dict(arguments), ensure_ascii=False, sort_keys=True, default=repr)


def limit_message(exc: ServerLimitError | ServerConnectionError) -> str:
    """A call over a limit (or to a dead server), and the option that changes it."""
    if not isinstance(exc, ServerLimitError):
        return str(exc)
    if exc.kind == "timeout":
        what = (
            f"no answer within {exc.limit:g} s (the --fusion-timeout limit)"
            if exc.took is None
            else f"answered after {exc.took:.1f} s, past {exc.limit:g} s (the --fusion-timeout "
            "limit; in process nothing can cut short a sync tool, which holds the test's "
            "thread or the server's event loop: its answer fails when it comes, and "
            "--fusion-server bounds it)"
        )
        return (
            f"{exc.call}: {what}. "
            "If the server needs longer, raise --fusion-timeout=SECONDS or the fusion_timeout "
            "ini key (0: no limit)."
        )
    received = f", {exc.received:,} bytes read" if exc.received else ""
    return (
        f"{exc.call}: the answer passed {int(exc.limit):,} bytes{received} (the "
        "--fusion-max-response-bytes limit). If such answers are intended, raise "
        "--fusion-max-response-bytes=N or the fusion_max_response_bytes ini key (0: no limit)."
    )
