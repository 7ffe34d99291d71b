"""The pytest entry point (``pytest11``) of pytest-mcpfusion.

Options, markers, fixtures and hooks; the work is done by ``fusion_core``
and by this package's small modules (transport, session, snapshot, report,
contract tests). Importing this plugin never imports ``mcp``: only the stdio
and HTTP transports do, when a test first uses them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

import fusion_core
from fusion_core import AppLoadError, ResponseView, ToolResponse
from fusion_core._snapshot._inline import InlineWire
from fusion_core._terminal import terminal_safe
from pytest_mcpfusion import _options, _profiles, hookspecs
from pytest_mcpfusion._assertrepr import explain
from pytest_mcpfusion._closure import add_overrides, overridden
from pytest_mcpfusion._contract import _unadapted
from pytest_mcpfusion._contract._collect import (
    GROUP,
    FusionContractFile,
    FusionContractGroup,
    contract_anchor,
)
from pytest_mcpfusion._contract._verdicts import Gate, gate_of, write_reports
from pytest_mcpfusion._keys import (
    CALL_FIXTURES,
    GATE_KEY,
    NAMES_KEY,
    OPTIONS_KEY,
    PENDING_FILES_KEY,
    SESSION_KEY,
    SNAPSHOT_CLASH_KEY,
    SNAPSHOT_EXTENSION_KEY,
    STALE_REMOVED_KEY,
)
from pytest_mcpfusion._options import FusionOptions
from pytest_mcpfusion._report._summary import WireReport
from pytest_mcpfusion._report._tokens import offline_tokenizer
from pytest_mcpfusion._result import FusionResult
from pytest_mcpfusion._session import AsyncFusionCall, FusionCall, FusionSession
from pytest_mcpfusion._snapshots._cleanup import CleanupGuard
from pytest_mcpfusion._snapshots._inline import explain_inline
from pytest_mcpfusion._snapshots._names import (
    SHARED_FILE_RULES,
    NameTable,
    file_key,
    windows_reserved,
)
from pytest_mcpfusion._snapshots._pending import WRITTEN, PendingFiles, PendingSummary
from pytest_mcpfusion._snapshots._safekeeping import KeepFailedSnapshots, escape_surrogates

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion

    from fusion_core import ToolApp
    from pytest_mcpfusion._snapshots._extension import FusionWireExtension

WORKER_REPORT: Final = "fusion_report"
_NEEDS_SYRUPY: Final = (
    "fusion_snapshot needs syrupy's pytest plugin, which is not installed or not loaded "
    "(-p no:syrupy): pip install 'syrupy>=4.8' (pytest-mcpfusion's own dependency)"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--fusion`` and every other option and ini key (``_options``)."""
    _options.add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register pytest-mcpfusion's own hooks (see ``pytest_mcpfusion.hookspecs``)."""
    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``fusion`` marker and create the session state."""
    config.addinivalue_line(
        "markers",
        "fusion(*, check=True, strict=None, check_references=None): per-test Fusion settings; "
        "check=False exempts the test's results from the --fusion contract check (for tests of "
        "deliberately broken servers); strict=True/False overrides --fusion-strict and "
        "check_references=True/False overrides --fusion-no-check-references for the test's "
        "results",
    )
    options = config.stash[OPTIONS_KEY] = FusionOptions.read(config)
    if "hypothesis" in sys.modules or config.getoption("hypothesis_profile", None):
        _profiles.register()  # else hypothesis's entry point registers them on import
    if options.hypothesis_profile is not None:
        try:
            _profiles.load(options.hypothesis_profile)
        except ValueError as error:
            raise pytest.UsageError(f"fusion_hypothesis_profile: {error}") from None
    gate = config.stash[GATE_KEY] = Gate(config)
    config.pluginmanager.register(gate, "fusion-gate")
    config.pluginmanager.register(_unadapted, "fusion-unadapted")  # MCPServer/FastMCP answers
    session = FusionSession(config)
    session.report.level = gate.level
    if session.contract:
        session.tokenizer, session.report.tokenizer_name = offline_tokenizer()
        if not hasattr(config, "workerinput"):
            counter = _ContractFailures(session.report)
            config.pluginmanager.register(counter, "fusion-contract-failures")
    config.stash[SESSION_KEY] = session
    config.pluginmanager.register(KeepFailedSnapshots(config), "fusion-keep-failed-snapshots")
    config.pluginmanager.register(CleanupGuard(config), "fusion-snapshot-cleanup")
    config.stash[NAMES_KEY] = NameTable(".wire")
    # Pending snapshots (issue 14): decided once; counted on the controller.
    config.stash[PENDING_FILES_KEY] = PendingFiles()
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(PendingSummary(), "fusion-pending")


def _snapshot_extension(config: pytest.Config) -> type[FusionWireExtension]:
    """The session's snapshot extension class, made on first use (syrupy is optional).

    One class per session, bound to this config's hooks: syrupy walks every
    subclass of its file extensions when it discovers snapshots.
    """
    extension = config.stash.get(SNAPSHOT_EXTENSION_KEY, None)
    if extension is None:
        from pytest_mcpfusion._snapshots._extension import FusionWireExtension  # noqa: PLC0415 - syrupy loads on first use

        extension = config.stash[SNAPSHOT_EXTENSION_KEY] = type(
            "FusionWireSnapshot", (FusionWireExtension,), {"hook": config.hook, "_sites": {}}
        )
    return extension


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the transport (event loop thread, client, server process)."""
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()


def pytest_report_header(config: pytest.Config) -> str:
    """Name the wire engine and the configured target in pytest's header."""
    session = config.stash[SESSION_KEY]
    target = session.app_spec or session.server or "none configured"
    return f"mcpfusion: fusion_core {fusion_core.__version__}, {session.transport_name}: {target}"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Under ``--fusion``, reach the app or server now: a usage error (exit 4) if it fails."""
    fusion = session.config.stash[SESSION_KEY]
    if fusion.contract and fusion.configured and not hasattr(session.config, "workerinput"):
        fusion.transport()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Under ``--fusion``, the contract tests hang from the ini file (see ``contract_anchor``)."""
    fusion = parent.config.stash[SESSION_KEY]
    if fusion.contract and fusion.configured and file_path == contract_anchor(parent.config):
        return FusionContractFile.from_parent(parent, path=file_path, fusion=fusion)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Add the contract tests to a run whose paths do not reach the ini file.

    ``pytest --fusion tests/`` (or ``testpaths``) runs them too; a run of
    chosen node ids (``file.py::test``) runs only what it names.
    """
    report = yield
    if not isinstance(collector, pytest.Session):
        return report
    config = collector.config
    fusion = config.stash[SESSION_KEY]
    if (
        report.passed
        and fusion.contract
        and fusion.configured
        and not _reaches_the_contracts(config)
    ):
        anchor = contract_anchor(config)
        node: pytest.Collector = (
            FusionContractFile.from_parent(collector, path=anchor, fusion=fusion)
            if anchor is not None
            else FusionContractGroup.from_parent(collector, name=GROUP, fusion=fusion)
        )
        report.result.append(node)
    return report


def _reaches_the_contracts(config: pytest.Config) -> bool:
    """Whether the run's arguments collect the anchor, or name node ids (``::``)."""
    anchor = contract_anchor(config)
    for arg in config.args:
        if "::" in arg:
            return True
        path = (Path(config.invocation_params.dir) / arg).resolve()
        if anchor is not None and (path == anchor or anchor.is_relative_to(path)):
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Overridden or parametrized ``fusion_app``/``fusion_context`` join a call test's closure."""
    if not CALL_FIXTURES.isdisjoint(metafunc.fixturenames):
        add_overrides(metafunc, metafunc.config.stash[SESSION_KEY].overrides)


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(
    config: pytest.Config, report: pytest.CollectReport | pytest.TestReport
) -> Generator[None, dict[str, Any] | None, dict[str, Any] | None]:
    """Reports go to the xdist controller with lone surrogates escaped (see ``_safekeeping``)."""
    del config, report
    data = yield
    return escape_surrogates(data) if data is not None else None


def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> list[str] | None:
    """Block-by-block explanations when results, responses or views differ."""
    comparable = (FusionResult, ToolResponse, ResponseView)
    if op == "==" and isinstance(left, comparable) and isinstance(right, comparable):
        return explain(left, right)
    if op == "==" and (isinstance(left, InlineWire) or isinstance(right, InlineWire)):
        verbose = config.get_verbosity(pytest.Config.VERBOSITY_ASSERTIONS)
        return explain_inline(left, right, verbose=verbose)
    return None


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


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker sends its wire report to the controller."""
    workeroutput: dict[str, Any] | None = getattr(session.config, "workeroutput", None)
    fusion = session.config.stash[SESSION_KEY]
    if workeroutput is not None and fusion.contract:
        workeroutput[WORKER_REPORT] = fusion.report.to_data()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """The xdist controller merges each worker's wire report."""
    del error
    data = getattr(node, "workeroutput", {}).get(WORKER_REPORT)
    if data is not None:
        node.config.stash[SESSION_KEY].report.merge(data)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """Print the wire report after a ``--fusion`` run (on the controller only)."""
    fusion = config.stash[SESSION_KEY]
    if not fusion.contract or hasattr(config, "workerinput") or config.option.collectonly:
        return
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


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="session")
def fusion_app(pytestconfig: pytest.Config) -> ToolApp | Any:
    """The configured app (``--fusion-app``), or ``None`` for a server by command or URL.

    A spec naming an ``MCPServer``, a ``FastMCP``, the SDK's ``Server`` or a
    factory of one gives that object. Override it in a conftest to test an
    app or server built there (calls then run in process), or to return the
    configured one itself (it keeps its transport).
    """
    session = pytestconfig.stash[SESSION_KEY]
    if not session.configured:
        return None
    try:
        return session.spec_target() if session.app_spec else session.transport().app
    except (pytest.UsageError, AppLoadError) as exc:  # a few lines, not a traceback
        failure = f"--fusion-app={session.app_spec}: {exc}" if session.app_spec else str(exc)
    pytest.fail(failure, pytrace=False)


@pytest.fixture
def fusion_context(fusion_app: ToolApp | None, request: pytest.FixtureRequest) -> Any:
    """The context handed to handlers; override it to inject fakes.

    By default the first ``pytest_fusion_context`` hook result, else ``None``
    (then the app's own ``context_factory`` decides, as in production).
    """
    return request.config.hook.pytest_fusion_context(app=fusion_app, request=request)


def _fusion_session(request: pytest.FixtureRequest, app: ToolApp | None) -> FusionSession:
    """The session, serving ``app`` in process when a conftest overrode ``fusion_app``.

    ``None`` (nothing configured, or a server without an app) ends an
    earlier test's override: that app is not this test's.
    """
    session = request.config.stash[SESSION_KEY]
    if app is not None:
        session.use_app(app)
    else:
        session.use_configured()
    return session


def _checked(request: pytest.FixtureRequest, session: FusionSession) -> bool:
    """``check=`` of the test's ``fusion`` marker (only ``--fusion`` checks results)."""
    if not session.contract:
        return True
    marker = request.node.get_closest_marker("fusion")
    return bool(marker.kwargs.get("check", True)) if marker is not None else True


def _app_and_context(request: pytest.FixtureRequest) -> tuple[ToolApp | None, Any]:
    """The ``fusion_app`` and ``fusion_context`` fixtures' values, for a call fixture.

    The call fixtures do not depend on them as fixtures: for a one-call test
    pytest's work per fixture (a definition, a request, its dependencies
    resolved again even for a session-scoped one) weighed more than the
    call. When the test resolves one of them anyway (it names it, or a
    ``usefixtures`` or ``parametrize`` does) or something overrides it (a
    conftest, a module, a class), pytest resolves it as before, so the test
    and the call see one value. Otherwise the default ``fusion_app`` is
    resolved by pytest for the session's first call fixture only (so a
    failure to load the app is reported as before), and the default
    ``fusion_context``'s work runs here: the ``pytest_fusion_context`` hook.
    """
    session = request.config.stash[SESSION_KEY]
    if _resolved_by_pytest(request, "fusion_app"):
        app = request.getfixturevalue("fusion_app")
    elif session.default_app is not None:
        (app,) = session.default_app
    else:  # the default, a session fixture: pytest runs it (or reports its failure) once
        app = request.getfixturevalue("fusion_app")
        session.default_app = (app,)
    if _resolved_by_pytest(request, "fusion_context"):
        return app, request.getfixturevalue("fusion_context")
    return app, request.config.hook.pytest_fusion_context(app=app, request=request)


def _resolved_by_pytest(request: pytest.FixtureRequest, name: str) -> bool:
    """Whether the test resolves fixture ``name`` itself, or anything overrides the default."""
    node = request.node
    if name in getattr(node, "fixturenames", ()):
        return True
    callspec = getattr(node, "callspec", None)
    if callspec is not None and name in callspec.params:
        return True
    # What else a test sees is defined on its parents (class, module, conftests, plugins).
    overrides = request.config.stash[SESSION_KEY].overrides
    return overridden(overrides, request._fixturemanager, node, name)


@pytest.fixture
def fusion_call(request: pytest.FixtureRequest) -> FusionCall:
    """Call a tool and get a ``FusionResult``: ``fusion_call("billing", "get", id="INV-1")``.

    Its app and context are the ``fusion_app`` and ``fusion_context`` fixtures'
    (see ``_app_and_context``).
    """
    app, context = _app_and_context(request)
    session = _fusion_session(request, app)
    gate_of(request.config).warn_context(session, context)
    return FusionCall(session, context, checked=_checked(request, session))


@pytest.fixture
def fusion_call_async(request: pytest.FixtureRequest) -> AsyncFusionCall:
    """The async twin of ``fusion_call``, for async tests (``await`` its calls)."""
    app, context = _app_and_context(request)
    session = _fusion_session(request, app)
    gate_of(request.config).warn_context(session, context)
    return AsyncFusionCall(session, context, checked=_checked(request, session))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests whose wire snapshots would share one file; ``fusion_snapshot`` fails them.

    A ``.wire`` file is named by ``_names.snapshot_stem``: without backslash,
    ``/ ? * : | " < >`` and control characters, cut to fit 255 bytes, and one
    file for names equal but for case or Unicode normalization (as on macOS
    and Windows). So ``test[a/b]`` and ``test[ab]``, ``test[A]`` and ``test[a]``
    (or two long ids with one prefix) would read and write one file, each
    overwriting the other's snapshot; and ``CON`` cannot be a file on Windows.
    Found here, on every worker alike, instead of by a snapshot that flips.
    The names that do not clash are claimed in the session's ``NameTable``,
    where each assertion's further names are checked as it runs.
    """
    users = [item for item in items if "fusion_snapshot" in getattr(item, "fixturenames", ())]
    if not users:
        return
    try:
        from syrupy.location import PyTestLocation  # noqa: PLC0415 - syrupy is optional
    except ImportError:
        return
    extension = _snapshot_extension(config)
    owners: dict[tuple[str, str], list[tuple[pytest.Item, str]]] = {}
    for item in users:
        where = extension.get_location(test_location=PyTestLocation(item), index=0)
        folder, name = os.path.split(where)
        owners.setdefault((folder, file_key(name)), []).append((item, where))
    names = config.stash[NAMES_KEY]
    for group in owners.values():
        if len(group) > 1:
            nodeids = ", ".join(item.nodeid for item, _ in group)
            message = (
                f"the wire snapshots of {len(group)} tests would share one file, "
                f"{os.path.basename(group[0][1])!r}: {nodeids}. {SHARED_FILE_RULES}: "
                "give the parameters ids that still differ (pytest.param(..., id=...) or ids=)"
            )
            for item, _ in group:
                item.stash[SNAPSHOT_CLASH_KEY] = message
            continue
        item, where = group[0]
        reserved = windows_reserved(os.path.basename(where))
        if reserved is not None:
            item.stash[SNAPSHOT_CLASH_KEY] = (
                f"the wire snapshot of {item.nodeid} would be the file "
                f"{os.path.basename(where)!r}, which Windows cannot hold ({reserved} is a "
                "device name): rename the test or its class"
            )
            continue
        names.claim(item.nodeid, 0, where)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """In pending mode, a ``fusion_snapshot`` test's older ``.wire.new`` go before its fixtures.

    So a test that now fails before its assertion (in its body, or in a
    fixture set up before ``fusion_snapshot``) leaves no pending file of an
    older run behind; one that still differs writes its file again. Called
    after the skip markers are read (a skipped test keeps its pending files)
    and before pytest's own setup (the fixtures): pluggy calls the plugins
    registered later first.
    """
    if item.config.stash[OPTIONS_KEY].pending and "fusion_snapshot" in getattr(
        item, "fixturenames", ()
    ):
        _remove_stale(item)


def _remove_stale(item: pytest.Item) -> None:
    """Remove the test's own pending files of earlier runs (once per test)."""
    if item.stash.get(STALE_REMOVED_KEY, False):
        return
    item.stash[STALE_REMOVED_KEY] = True
    try:
        from syrupy.location import PyTestLocation  # noqa: PLC0415 - syrupy is optional
    except ImportError:
        return
    config = item.config
    first = Path(
        _snapshot_extension(config).get_location(test_location=PyTestLocation(item), index=0)
    )
    stems = config.stash[NAMES_KEY].stems(str(first.parent))
    config.stash[PENDING_FILES_KEY].remove_stale(first, stems)


@pytest.fixture
def fusion_snapshot(request: pytest.FixtureRequest) -> SnapshotAssertion:
    """Exact wire snapshots: ``assert result == fusion_snapshot``.

    Stored as ``.wire`` files (one section per block, byte-exact), normalized
    by the ``pytest_fusion_normalize`` hook; ``--snapshot-update`` writes them,
    ``--fusion-pending`` writes a changed one as ``.wire.new`` for review.
    """
    # Built as syrupy's own ``snapshot`` fixture builds its assertion, but with
    # our extension from the start: ``snapshot.use_extension()`` would register
    # the test with syrupy twice, which costs as much as the rest of the check.
    # Failing outside the ``except`` keeps the ImportError out of the report:
    # the message names the package and the fix, the chained traceback is noise.
    try:
        from syrupy.location import PyTestLocation  # noqa: PLC0415
    except ImportError:
        missing = True
    else:
        missing = not hasattr(request.config, "_syrupy")
    if missing:
        pytest.fail(_NEEDS_SYRUPY, pytrace=False)
    clash = request.node.stash.get(SNAPSHOT_CLASH_KEY, None)
    if clash is not None:
        pytest.fail(clash, pytrace=False)
    from pytest_mcpfusion._snapshots._extension import PendingSnapshotAssertion  # noqa: PLC0415 - syrupy is optional

    option = request.config.option
    assertion = PendingSnapshotAssertion(
        update_snapshots=option.update_snapshots,
        update_new_snapshots_only=getattr(option, "update_new_snapshots_only", False),
        extension_class=_snapshot_extension(request.config),
        test_location=PyTestLocation(request.node),
        session=request.session.config._syrupy,  # type: ignore[attr-defined]
    )
    assertion.pending = request.config.stash[OPTIONS_KEY].pending
    assertion.files = request.config.stash[PENDING_FILES_KEY]
    assertion.names = request.config.stash[NAMES_KEY]
    if assertion.pending:  # asked for by getfixturevalue: not removed at setup yet
        _remove_stale(request.node)
    properties = request.node.user_properties
    assertion.on_pending = lambda path: properties.append((WRITTEN, str(path)))
    return assertion
