"""The pytest entry point (``pytest11``) of pytest-mcpfusion: hooks and fixtures only.

The work is done by ``fusion_core`` and by this package's small modules:
``_options`` (every option, parsed once), ``_lifecycle`` (the session's gate,
transport and report), ``_session`` (the calls), ``_contract`` (the contract
tests), ``_snapshots`` (``fusion_snapshot``). Loading this module imports
only pytest and those two first, small modules: a suite that never uses the
plugin does not pay for the rest (``benchmarks/bench_plugin.py``, start-up).
The rest loads when ``--fusion`` is given, when a collected test uses a call
fixture, or when a test first asks for a fixture.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mcpfusion import _options, _profiles, hookspecs
from pytest_mcpfusion._keys import (
    CALL_FIXTURES,
    NAMES_KEY,
    OPTIONS_KEY,
    PENDING_FILES_KEY,
    SESSION_KEY,
)
from pytest_mcpfusion._options import FusionOptions

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion

    from fusion_core import ToolApp
    from pytest_mcpfusion._session import AsyncFusionCall, FusionCall

# Where a value for pytest_assertrepr_compare may come from: other values are
# left to pytest without importing anything.
_OURS = ("fusion_core.", "pytest_mcpfusion.")


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--fusion`` and every other option and ini key (``_options``)."""
    _options.add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register pytest-mcpfusion's own hooks (see ``pytest_mcpfusion.hookspecs``)."""
    pluginmanager.add_hookspecs(hookspecs)


@pytest.hookimpl(tryfirst=True)  # before hypothesis reads --hypothesis-profile=fusion-ci
def pytest_configure(config: pytest.Config) -> None:
    """Register the ``fusion`` marker, parse the options; under ``--fusion`` start the gate."""
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
        _profiles.register()  # otherwise hypothesis's entry point does, when it is imported
    if options.hypothesis_profile is not None:
        try:
            _profiles.load(options.hypothesis_profile)
        except ValueError as error:
            raise pytest.UsageError(f"fusion_hypothesis_profile: {error}") from None
    from pytest_mcpfusion._snapshots import _cleanup, _names, _pending, _safekeeping  # noqa: PLC0415 - small; after the options

    keep = _safekeeping.KeepFailedSnapshots(config)
    config.pluginmanager.register(keep, "fusion-keep-failed-snapshots")
    config.pluginmanager.register(_cleanup.CleanupGuard(config), "fusion-snapshot-cleanup")
    config.stash[NAMES_KEY] = _names.NameTable(".wire")
    config.stash[PENDING_FILES_KEY] = _pending.PendingFiles()
    if not hasattr(config, "workerinput"):  # pending snapshots are counted on the controller
        config.pluginmanager.register(_pending.PendingSummary(), "fusion-pending")
    if options.contract:
        from pytest_mcpfusion._lifecycle import start  # noqa: PLC0415 - the gate, the transport

        start(config)


# Each hook below imports _lifecycle (the gate, the transport, the reader,
# pydantic) only when the session needs its state: see the module docstring.


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the transport (event loop thread, client, server process)."""
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()


def pytest_report_header(config: pytest.Config) -> str:
    """Name the wire engine and the configured target in pytest's header."""
    import fusion_core  # noqa: PLC0415 - its front door is lazy; the version is read once

    options = config.stash[OPTIONS_KEY]
    target = options.app or options.server or "none configured"
    return f"mcpfusion: fusion_core {fusion_core.__version__}, {options.transport_name}: {target}"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Under ``--fusion``, reach the app or server now: a usage error (exit 4) if it fails."""
    options = session.config.stash[OPTIONS_KEY]
    if options.contract and options.configured and not hasattr(session.config, "workerinput"):
        from pytest_mcpfusion._lifecycle import session_of  # noqa: PLC0415

        session_of(session.config).transport()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Under ``--fusion``, the contract tests hang from the ini file (see ``contract_anchor``)."""
    options = parent.config.stash[OPTIONS_KEY]
    if not (options.contract and options.configured):
        return None
    from pytest_mcpfusion._contract._collect import FusionContractFile, contract_anchor  # noqa: PLC0415
    from pytest_mcpfusion._lifecycle import session_of  # noqa: PLC0415

    if file_path == contract_anchor(parent.config):
        fusion = session_of(parent.config)
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
    options = collector.config.stash[OPTIONS_KEY]
    if report.passed and options.contract and options.configured:
        from pytest_mcpfusion._lifecycle import contract_node  # noqa: PLC0415

        node = contract_node(collector)
        if node is not None:
            report.result.append(node)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test naming a call fixture starts the session's state before any test runs.

    So the gate follows (and isolates) it from its setup on, as under
    ``--fusion``.
    """
    if CALL_FIXTURES.isdisjoint(metafunc.fixturenames):
        return
    from pytest_mcpfusion._lifecycle import session_of  # noqa: PLC0415

    session_of(metafunc.config)


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(
    config: pytest.Config, report: pytest.CollectReport | pytest.TestReport
) -> Generator[None, dict[str, Any] | None, dict[str, Any] | None]:
    """Reports go to the xdist controller with lone surrogates escaped (see ``_safekeeping``)."""
    del config, report
    data = yield
    if data is None:
        return None
    from pytest_mcpfusion._snapshots._safekeeping import escape_surrogates  # noqa: PLC0415

    escaped: dict[str, Any] = escape_surrogates(data)
    return escaped


def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> list[str] | None:
    """Block-by-block explanations when results, responses or views differ."""
    if op != "==" or not (
        type(left).__module__.startswith(_OURS) or type(right).__module__.startswith(_OURS)
    ):
        return None
    from fusion_core import ResponseView, ToolResponse  # noqa: PLC0415 - only for our values
    from fusion_core._snapshot._inline import InlineWire  # noqa: PLC0415
    from pytest_mcpfusion._result import FusionResult  # noqa: PLC0415

    comparable = (FusionResult, ToolResponse, ResponseView)
    if isinstance(left, comparable) and isinstance(right, comparable):
        from pytest_mcpfusion._assertrepr import explain  # noqa: PLC0415

        return explain(left, right)
    if isinstance(left, InlineWire) or isinstance(right, InlineWire):
        from pytest_mcpfusion._snapshots._inline import explain_inline  # noqa: PLC0415

        verbose = config.get_verbosity(pytest.Config.VERBOSITY_ASSERTIONS)
        return explain_inline(left, right, verbose=verbose)
    return None


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker sends its wire report to the controller."""
    if SESSION_KEY in session.config.stash:
        from pytest_mcpfusion._lifecycle import finish  # noqa: PLC0415

        finish(session)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """The xdist controller merges each worker's wire report."""
    del error
    if node.config.stash[OPTIONS_KEY].contract:
        from pytest_mcpfusion._lifecycle import merge_worker  # noqa: PLC0415

        merge_worker(node)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """Print the wire report after a ``--fusion`` run (on the controller only)."""
    contract = config.stash[OPTIONS_KEY].contract
    if contract and not hasattr(config, "workerinput") and not config.option.collectonly:
        from pytest_mcpfusion._lifecycle import terminal_report  # noqa: PLC0415

        terminal_report(terminalreporter, exitstatus, config)


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
    if users:
        from pytest_mcpfusion._snapshots._fixture import mark_clashes  # noqa: PLC0415 - syrupy

        mark_clashes(config, users)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """In pending mode, a ``fusion_snapshot`` test's older ``.wire.new`` go before its fixtures.

    So a test that now fails before its assertion (in its body, or in a
    fixture set up before ``fusion_snapshot``) leaves no pending file of an
    older run behind; one that still differs writes its file again. Called
    after the skip markers are read (a skipped test keeps its pending files)
    and before pytest's own setup (the fixtures): pluggy calls the plugins
    registered later first.
    """
    pending = item.config.stash[OPTIONS_KEY].pending
    if pending and "fusion_snapshot" in getattr(item, "fixturenames", ()):
        from pytest_mcpfusion._snapshots._fixture import remove_stale  # noqa: PLC0415 - syrupy

        remove_stale(item)


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="session")
def fusion_app(pytestconfig: pytest.Config) -> ToolApp | Any:
    """The configured app (``--fusion-app``), or ``None`` for a server by command or URL.

    A spec naming an ``MCPServer``, a ``FastMCP``, the SDK's ``Server`` or a
    factory of one gives that object. Override it in a conftest to test an
    app or server built there (calls then run in process), or to return the
    configured one itself (it keeps its transport).
    """
    from pytest_mcpfusion._lifecycle import configured_app  # noqa: PLC0415

    return configured_app(pytestconfig)


@pytest.fixture
def fusion_context(fusion_app: ToolApp | None, request: pytest.FixtureRequest) -> Any:
    """The context handed to handlers; override it to inject fakes.

    By default the first ``pytest_fusion_context`` hook result, else ``None``
    (then the app's own ``context_factory`` decides, as in production).
    """
    return request.config.hook.pytest_fusion_context(app=fusion_app, request=request)


@pytest.fixture
def fusion_call(
    fusion_app: ToolApp | None, fusion_context: Any, request: pytest.FixtureRequest
) -> FusionCall:
    """Call a tool and get a ``FusionResult``: ``fusion_call("billing", "get", id="INV-1")``.

    Its app and context are the ``fusion_app`` and ``fusion_context`` fixtures'.
    """
    from pytest_mcpfusion._lifecycle import caller  # noqa: PLC0415
    from pytest_mcpfusion._session import FusionCall  # noqa: PLC0415

    return caller(FusionCall, request.config, fusion_app, fusion_context, request.node)


@pytest.fixture
def fusion_call_async(
    fusion_app: ToolApp | None, fusion_context: Any, request: pytest.FixtureRequest
) -> AsyncFusionCall:
    """The async twin of ``fusion_call``, for async tests (``await`` its calls)."""
    from pytest_mcpfusion._lifecycle import caller  # noqa: PLC0415
    from pytest_mcpfusion._session import AsyncFusionCall  # noqa: PLC0415

    return caller(AsyncFusionCall, request.config, fusion_app, fusion_context, request.node)


@pytest.fixture(scope="module")
def fusion_caller(
    fusion_app: ToolApp | None, pytestconfig: pytest.Config
) -> Callable[[], FusionCall]:
    """``fusion_caller()`` in a hypothesis ``@given`` test: a ``fusion_call`` for one example.

    Module-scoped, so hypothesis's ``function_scoped_fixture`` health check
    passes; each ``fusion_caller()`` starts an example as a test starts
    (``docs/strategies.md``): the ``pytest_fusion_reset`` hook runs again
    (from the second example on; the test's setup ran it for the first), and
    the context is made afresh by the ``pytest_fusion_context`` hook (with
    ``request=None``; a ``fusion_context`` fixture belongs to one test, not
    to its examples: pass ``context=`` to a call instead).
    """
    from pytest_mcpfusion._lifecycle import example_caller  # noqa: PLC0415

    return example_caller(pytestconfig, fusion_app)


@pytest.fixture
def fusion_snapshot(request: pytest.FixtureRequest) -> SnapshotAssertion:
    """Exact wire snapshots: ``assert result == fusion_snapshot``.

    Stored as ``.wire`` files (one section per block, byte-exact), normalized
    by the ``pytest_fusion_normalize`` hook; ``--snapshot-update`` writes them,
    ``--fusion-pending`` writes a changed one as ``.wire.new`` for review.
    """
    from pytest_mcpfusion._snapshots._fixture import assertion  # noqa: PLC0415 - syrupy

    return assertion(request)
