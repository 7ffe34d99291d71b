"""The gate's own settings and per-result review: strictness, egress, isolation.

:class:`Gate` lives in ``config.stash`` next to the session and is registered
as a plugin (it follows the running test, for the ``fusion`` marker). Under
``--fusion`` :meth:`Gate.review` runs on every checked result after
``fusion_core.check``:

* the strict reading (``fusion_core.ambiguities``): violations under
  ``--fusion-strict`` (or ``@pytest.mark.fusion(strict=True)``), warnings in
  the wire report otherwise — except ``ambiguous-layout``, which only strict
  mode reports: it is the layout of every parent with an embedded child
  Presenter, so outside strict mode it is nothing anyone could act on;
* forbidden fields and canary values (``_forbidden``);
* suggested tools and available actions against ``tools/list`` (off with
  ``--fusion-no-check-references``, ini ``fusion_check_references = false``,
  or ``@pytest.mark.fusion(check_references=False)``: for servers whose
  suggestions name tools of another server the agent also has).

It also isolates tests from each other against a server
(``--fusion-isolate=test`` restarts a server the plugin started; the
``pytest_fusion_reset`` hook runs before every test that reaches the tools),
warns when a ``fusion_context`` cannot reach a server, and writes the JSON
and HTML reports (``--fusion-report``).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

from pytest_mcpfusion._contract._examples import IdPool
from pytest_mcpfusion._contract._forbidden import Forbidden, unknown_references
from pytest_mcpfusion._contract._writes import WritePolicy
from pytest_mcpfusion._keys import CALL_FIXTURES, GATE_KEY, SESSION_KEY
from pytest_mcpfusion._options import options_of

if TYPE_CHECKING:
    from collections.abc import Generator

    from fusion_core import Violation
    from pytest_mcpfusion._report._summary import WireReport
    from pytest_mcpfusion._result import FusionResult
    from pytest_mcpfusion._session import FusionSession

__all__ = [
    "CALL_FIXTURES",
    "GATE_KEY",
    "FusionContextWarning",
    "FusionIsolationWarning",
    "Gate",
    "gate_of",
]

_STRICT_ONLY: Final = frozenset({"ambiguous-layout"})
"""Strict-reading rules the default mode keeps silent on (the reference writes that layout)."""


class FusionContextWarning(pytest.PytestWarning):
    """A ``fusion_context`` that cannot reach the server (stdio or HTTP) was given."""


class FusionIsolationWarning(pytest.PytestWarning):
    """``--fusion-isolate=test`` cannot restart a server the plugin did not start."""


class Gate:
    """Per-session state of the gate's checks; a plugin following the running test."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.item: pytest.Item | None = None
        self.ids = IdPool()
        self.writes = WritePolicy(config)
        self._forbidden: Forbidden | None = None
        self._isolation_warned = False
        options = options_of(config)
        self.strict = options.strict
        self.check_references = options.check_references
        self.isolate: str = options.isolate
        self.level: str = options.level

    # ------------------------------------------------------------ settings

    def strict_for(self, item: pytest.Item | None = None) -> bool:
        """``strict=`` of the test's ``fusion`` marker, else ``--fusion-strict``."""
        item = item if item is not None else self.item
        marker = item.get_closest_marker("fusion") if item is not None else None
        if marker is not None and "strict" in marker.kwargs:
            return bool(marker.kwargs["strict"])
        return self.strict

    def check_references_for(self, item: pytest.Item | None = None) -> bool:
        """``check_references=`` of the test's ``fusion`` marker, else the option or ini key."""
        item = item if item is not None else self.item
        marker = item.get_closest_marker("fusion") if item is not None else None
        if marker is not None and "check_references" in marker.kwargs:
            return bool(marker.kwargs["check_references"])
        return self.check_references

    @property
    def forbidden(self) -> Forbidden:
        """The ini keys' and the hooks' forbidden fields and canaries (read once)."""
        if self._forbidden is None:
            hook = self.config.hook
            options = options_of(self.config)
            fields = list(options.forbidden_fields)
            values = list(options.canaries)
            for found in hook.pytest_fusion_forbidden_fields(config=self.config):
                fields.extend(found or ())
            for found in hook.pytest_fusion_canaries(config=self.config):
                values.extend(found or ())
            self._forbidden = Forbidden.of(map(str, fields), map(str, values))
        return self._forbidden

    # -------------------------------------------------------------- review

    def review(
        self,
        fusion: FusionSession,
        result: FusionResult,
        action: str | None,
        found: list[Violation],
    ) -> list[str]:
        """The violations of one checked result; in the default mode warnings go to the report.

        ``found`` is ``check(wire, strict=True)``: its strict-reading rules
        are violations under strict mode and report warnings otherwise. At
        the ``mcp`` level (``--fusion-level=mcp``) the Fusion rules do not
        apply (``_answers``).
        """
        from fusion_core._read._strict import STRICT_RULES  # noqa: PLC0415 - with the first check

        if self.level == "mcp":
            found = []
        problems = [str(v) for v in found if v.rule not in STRICT_RULES]
        ambiguous = [v for v in found if v.rule in STRICT_RULES]
        if self.strict_for():
            problems.extend(map(str, ambiguous))
        else:
            warned = [str(v) for v in ambiguous if v.rule not in _STRICT_ONLY]
            if warned:
                fusion.report.add_warnings(result.tool, action, warned)
        if self.forbidden:
            problems.extend(self.forbidden.scan(result))
        if self.check_references_for() and _names_tools(result):
            try:
                definitions = fusion.tool_list()
            except Exception:  # noqa: BLE001 - the call worked; tools/list is not ours to fail
                definitions = None
            if definitions is not None:
                problems.extend(unknown_references(result, definitions))
        self.ids.harvest(result)
        return problems

    # ----------------------------------------------------------- isolation

    def warn_context(self, fusion: FusionSession, context: Any) -> None:
        """Warn when a ``fusion_context`` is given but the calls go to a server."""
        if context is None or fusion.transport_name == "inproc":
            return
        warnings.warn(
            FusionContextWarning(
                f"the fusion_context ({type(context).__name__}) cannot reach the server over "
                f"{fusion.transport_name}: the server makes its own context. Test context-"
                "dependent behaviour in process (--fusion-transport=inproc), or set the "
                "server's state through its own tools, a pytest_fusion_reset hook or "
                "--fusion-isolate=test (docs/plugin.md, 'Isolating tests')"
            ),
            stacklevel=2,
        )

    def isolate_before(self, item: pytest.Item, fusion: FusionSession) -> None:
        """Before a test that reaches the tools: fresh server (``test``), then the reset hook."""
        from pytest_mcpfusion._inmemory import CONTRACT_SCOPE, TESTS_SCOPE  # noqa: PLC0415

        contract = _is_contract_item(item)
        reaches = contract or bool(CALL_FIXTURES & set(getattr(item, "fixturenames", ())))
        if not reaches or not fusion.configured:
            return
        if self.isolate == "test" and fusion.transport_name != "inproc":
            if fusion.server is not None and fusion.transport_name == "http":
                self._warn_url(fusion.server)
            else:
                fusion.close()  # the next call starts a fresh server
        # In process, a framework server's factory gives the contract tests and the
        # user's tests a server each (a fresh one per test under --fusion-isolate=test).
        scope = CONTRACT_SCOPE if contract else TESTS_SCOPE
        fusion.enter_scope(scope, fresh=self.isolate == "test")
        self.config.hook.pytest_fusion_reset(config=self.config, item=item)

    def _warn_url(self, url: str) -> None:
        hooked = self.config.hook.pytest_fusion_reset.get_hookimpls()
        if self._isolation_warned or any(impl.plugin is not self for impl in hooked):
            return
        self._isolation_warned = True
        warnings.warn(
            FusionIsolationWarning(
                f"--fusion-isolate=test cannot restart the server at {url}, which the plugin "
                "did not start; implement pytest_fusion_reset to reset its state, or give a "
                "command (--fusion-server='python server.py') so each test gets a fresh server"
            ),
            stacklevel=2,
        )

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        """Follow the running test (for its ``fusion`` marker)."""
        self.item = item
        try:
            return (yield)
        finally:
            self.item = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """Isolate the test from the ones before it (see :meth:`isolate_before`)."""
        self.isolate_before(item, self.config.stash[SESSION_KEY])


def _names_tools(result: FusionResult) -> bool:
    """Whether the result names any tool or action to check against ``tools/list``.

    Most answers name none: they are reviewed without a ``tools/list`` copy.
    """
    error = result.view.error
    return bool(result.suggestions) or (error is not None and bool(error.available_actions))


def gate_of(config: pytest.Config) -> Gate:
    """The session's gate."""
    return config.stash[GATE_KEY]


def write_reports(config: pytest.Config, report: WireReport) -> list[Path]:
    """Write ``--fusion-report`` (JSON, or HTML for ``.html``) and ``--fusion-report-html``."""
    paths: list[Path] = []
    options = options_of(config)
    json_path, html_path = options.report, options.report_html
    if not json_path and not html_path:
        return paths
    from pytest_mcpfusion._report._html import render_html  # noqa: PLC0415 - only when asked

    document = report.document()
    for given, html in ((json_path, None), (html_path, True)):
        if not given:
            continue
        path = Path(str(given))
        if not path.is_absolute():
            path = Path(config.invocation_params.dir) / path
        as_html = html or path.suffix.lower() in (".html", ".htm")
        text = (
            render_html(document)
            if as_html
            else json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        # A lone surrogate (in a message quoting hostile data) becomes the
        # escape \udXXX: valid JSON inside a string, readable text in HTML.
        path.write_bytes(text.encode("utf-8", "backslashreplace"))
        paths.append(path)
    return paths


def _is_contract_item(item: pytest.Item) -> bool:
    """Whether ``item`` is a contract test; without ``--fusion`` their module is never loaded."""
    collect = sys.modules.get(f"{__package__}._collect")
    return collect is not None and isinstance(item, collect.FusionContractItem)
