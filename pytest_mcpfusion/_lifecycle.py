"""The plugin's session state: started when a session asks for it, reported at its end.

``plugin.pytest_configure`` calls :func:`start` when the options ask for
anything (``--fusion``, an app, a server, a transport: ``FusionOptions.active``);
otherwise the first fixture that reaches the tools does (:func:`session_of`).
So a suite that never uses the plugin never imports the gate, the transport,
the reader or pydantic (``benchmarks/bench_plugin.py`` measures it). What
:func:`start` makes: the gate (``_contract._verdicts.Gate``, a plugin following
the running test), the ``FusionSession`` (``_session``), and under
``--fusion`` the tokenizer and the counter of failed contract tests.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

import pytest

from fusion_core import AppLoadError
from fusion_core._terminal import terminal_safe
from pytest_mcpfusion._contract import _unadapted
from pytest_mcpfusion._contract._verdicts import Gate, write_reports
from pytest_mcpfusion._keys import GATE_KEY, SESSION_KEY
from pytest_mcpfusion._session import AsyncFusionCall, FusionCall, FusionSession

if TYPE_CHECKING:
    from collections.abc import Callable, Generator

    from pytest_mcpfusion._report._summary import WireReport

__all__ = [
    "WORKER_REPORT",
    "caller",
    "configured_app",
    "contract_node",
    "example_caller",
    "finish",
    "merge_worker",
    "session_of",
    "start",
    "terminal_report",
]

WORKER_REPORT: Final = "fusion_report"
_Call = TypeVar("_Call", FusionCall, AsyncFusionCall)


def start(config: pytest.Config) -> FusionSession:
    """Make the gate and the session, and register the plugins that follow the run."""
    gate = config.stash[GATE_KEY] = Gate(config)
    config.pluginmanager.register(gate, "fusion-gate")
    config.pluginmanager.register(_unadapted, "fusion-unadapted")  # MCPServer/FastMCP answers
    session = FusionSession(config)
    if session.contract:
        from pytest_mcpfusion._report._tokens import cache_ranks_in, offline_tokenizer  # noqa: PLC0415

        directory = functools.partial(_cache_directory, config)
        tokenizer, session.report.tokenizer_name = offline_tokenizer(directory)
        if tokenizer is not None:
            session.tokenizer = tokenizer
            cache_ranks_in(directory)
            config.add_cleanup(tokenizer.save)  # after the report: this run's counts kept
        if not hasattr(config, "workerinput"):
            counter = _ContractFailures(session.report)
            config.pluginmanager.register(counter, "fusion-contract-failures")
    config.stash[SESSION_KEY] = session
    return session


def _cache_directory(config: pytest.Config) -> Path | None:
    """The run's pytest cache for the tokenizer's ranks and counts (``None`` without one)."""
    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    try:
        directory: Path = cache.mkdir("mcpfusion")
    except OSError:  # a read-only checkout: the ranks are read from their file, texts counted
        return None
    return directory


def session_of(config: pytest.Config) -> FusionSession:
    """The session, started now if nothing asked for it at configure."""
    session = config.stash.get(SESSION_KEY, None)
    return session if session is not None else start(config)


def finish(session: pytest.Session) -> None:
    """An xdist worker sends its wire report to the controller."""
    workeroutput: dict[str, Any] | None = getattr(session.config, "workeroutput", None)
    fusion = session.config.stash.get(SESSION_KEY, None)
    if workeroutput is not None and fusion is not None and fusion.contract:
        workeroutput[WORKER_REPORT] = fusion.report.to_data()


def merge_worker(node: Any) -> None:
    """The xdist controller merges a worker's wire report."""
    data = getattr(node, "workeroutput", {}).get(WORKER_REPORT)
    if data is not None:
        session_of(node.config).report.merge(data)


def terminal_report(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """Print the wire report after a ``--fusion`` run, write its files, call the report hook."""
    fusion = session_of(config)
    report: WireReport = fusion.report
    report.pytest_outcome = _outcome(terminalreporter, exitstatus)
    if (fusion.configured or fusion.opened) and not report.known_actions:
        report.known_actions.update(_known_actions(fusion))
    terminalreporter.write_sep("=", "Fusion wire report")
    for line in report.lines():  # tool names and messages from the server: shown, not obeyed
        terminalreporter.write_line(terminal_safe(line))
    for path in write_reports(config, report):
        terminalreporter.write_line(f"wire report written to {path}")
    config.hook.pytest_fusion_report(report=report, config=config)


class _ContractFailures:
    """Counts failed contract tests for the wire report, and heads the run with its headline.

    On the controller only.
    """

    def __init__(self, report: WireReport) -> None:
        self.report = report

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter
    ) -> Generator[None, None, None]:
        """The report's headline (a server without Fusion blocks) before the failures."""
        headline = self.report.headline()
        if headline and not terminalreporter.config.option.collectonly:
            terminalreporter.write_sep("=", "Fusion", yellow=True, bold=True)
            terminalreporter.write_line(headline)
        return (yield)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A failed ``fusion-contract::`` item adds one (xdist forwards workers' reports)."""
        if report.failed and report.when == "call" and "fusion-contract::" in report.nodeid:
            self.report.contract_failures += 1


def _outcome(terminalreporter: pytest.TerminalReporter, exitstatus: int) -> dict[str, int]:
    """The exit status and the counts of pytest's summary line, for the wire report."""
    stats = terminalreporter.stats

    def count(key: str) -> int:
        return sum(1 for r in stats.get(key, ()) if getattr(r, "count_towards_summary", True))

    return {
        "exit_status": int(exitstatus),
        "passed": count("passed"),
        "failed": count("failed"),
        "skipped": count("skipped"),
        "errors": count("error"),
    }


def _known_actions(fusion: FusionSession) -> set[str]:
    from fusion_core._tools._definitions import actions_of  # noqa: PLC0415 - only for the report

    try:
        definitions = fusion.transport().definitions()
    except Exception:  # noqa: BLE001 - a report must not fail the run; the tests said why
        return set()
    return {
        definition["name"] if action is None else f"{definition['name']}.{action}"
        for definition in definitions
        for action in actions_of(definition)
    }


# ------------------------------------------------------------- the fixtures


def configured_app(config: pytest.Config) -> Any:
    """The default ``fusion_app``: the configured app or framework server, or ``None``."""
    session = session_of(config)
    if not session.configured:
        return None
    try:
        return session.spec_target() if session.app_spec else session.transport().app
    except (pytest.UsageError, AppLoadError) as exc:  # a few lines, not a traceback
        failure = f"--fusion-app={session.app_spec}: {exc}" if session.app_spec else str(exc)
    pytest.fail(failure, pytrace=False)


def caller(
    kind: type[_Call], config: pytest.Config, app: Any, context: Any, node: pytest.Item | None
) -> _Call:
    """A ``fusion_call`` (or its async twin) serving ``app`` with ``context`` for ``node``."""
    session = _serving(config, app)
    config.stash[GATE_KEY].warn_context(session, context)
    return kind(session, context, checked=_checked(session, node))


def example_caller(config: pytest.Config, app: Any) -> Callable[[], FusionCall]:
    """The ``fusion_caller`` fixture's value: ``fusion_caller()`` starts one ``@given`` example.

    The first call in a test runs as the test's setup left it (its reset
    hook ran); each later one runs the ``pytest_fusion_reset`` hook again,
    when an app or server is configured (as before every test). The context
    is the ``pytest_fusion_context`` hook's, made afresh for each example.
    """
    session_of(config)
    gate = config.stash[GATE_KEY]
    last: list[pytest.Item | None] = [None]  # the test of the previous example

    def make() -> FusionCall:
        item = gate.item
        session = _serving(config, app)
        if item is not None and item is last[0] and session.configured:
            config.hook.pytest_fusion_reset(config=config, item=item)
        last[0] = item
        context = config.hook.pytest_fusion_context(app=app, request=None)
        gate.warn_context(session, context)
        return FusionCall(session, context, checked=_checked(session, item))

    return make


def _serving(config: pytest.Config, app: Any) -> FusionSession:
    """The session, serving ``app`` in process when a conftest overrode ``fusion_app``.

    ``None`` (nothing configured, or a server without an app) ends an
    earlier test's override: that app is not this test's.
    """
    session = session_of(config)
    if app is not None:
        session.use_app(app)
    else:
        session.use_configured()
    return session


def _checked(session: FusionSession, node: pytest.Item | None) -> bool:
    """``check=`` of the test's ``fusion`` marker (only ``--fusion`` checks results)."""
    if not session.contract or node is None:
        return True
    marker = node.get_closest_marker("fusion")
    return bool(marker.kwargs.get("check", True)) if marker is not None else True


# ------------------------------------------------------- the contract tests


def contract_node(collector: pytest.Session) -> pytest.Collector | None:
    """The contract tests for a run whose paths do not reach the ini file, or ``None``.

    ``pytest --fusion tests/`` (or ``testpaths``) runs them too; a run of
    chosen node ids (``file.py::test``) runs only what it names.
    """
    from pytest_mcpfusion._contract._collect import (  # noqa: PLC0415 - only under --fusion
        GROUP,
        FusionContractFile,
        FusionContractGroup,
        contract_anchor,
    )

    config = collector.config
    if _reaches_the_contracts(config):
        return None
    fusion = session_of(config)
    anchor = contract_anchor(config)
    if anchor is not None:
        return FusionContractFile.from_parent(collector, path=anchor, fusion=fusion)
    return FusionContractGroup.from_parent(collector, name=GROUP, fusion=fusion)


def _reaches_the_contracts(config: pytest.Config) -> bool:
    """Whether the run's arguments collect the anchor, or name node ids (``::``)."""
    from pytest_mcpfusion._contract._collect import contract_anchor  # noqa: PLC0415

    anchor = contract_anchor(config)
    for arg in config.args:
        if "::" in arg:
            return True
        path = (Path(config.invocation_params.dir) / arg).resolve()
        if anchor is not None and (path == anchor or anchor.is_relative_to(path)):
            return True
    return False
