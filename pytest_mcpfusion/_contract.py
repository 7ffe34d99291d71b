"""Contract tests: every tool and action, exercised with generated arguments.

Under ``--fusion`` each action gets two items, like schemathesis does for
HTTP APIs: ``valid`` draws arguments from the action's input schema and
``invalid`` draws arguments that must be refused. Every response must be a
valid wire stream (``fusion_core.check``); a valid call's data may hold no
field outside the action's Presenter schema and must honour ``_select``; an
invalid call, and any failure, must come back as an envelope, never as bare
text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from fusion_core import load_app

from ._definitions import actions_of, discriminator_of
from ._examples import action_examples, prime_first, reuse_ids
from ._gate import gate_of
from ._session import SELECT_PARAM, FusionSession

if TYPE_CHECKING:
    from ._result import FusionResult

__all__ = ["FusionContractItem", "contract_items"]



class FusionContractItem(pytest.Item):
    """One contract test: one action, valid or invalid arguments."""

    def __init__(
        self,
        *,
        fusion: FusionSession,
        definition: Mapping[str, Any],
        action: str | None,
        valid: bool,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.fusion = fusion
        self.definition = definition
        self.action = action
        self.valid = valid

    def runtest(self) -> None:
        """Call the action with generated arguments and check every answer."""
        # hypothesis loads only when contract tests run: plain runs stay fast,
        # and a suite without hypothesis installed loses only these tests.
        try:
            from hypothesis import HealthCheck, given, settings  # noqa: PLC0415
            from hypothesis import strategies as st  # noqa: PLC0415
        except ImportError:
            pytest.fail(
                "--fusion contract tests need hypothesis, which is not installed: "
                "pip install 'hypothesis>=6.100' (pytest-mcpfusion's own dependency)",
                pytrace=False,
            )

        from . import strategies  # noqa: PLC0415

        fusion = self.fusion
        tool = self.definition["name"]
        # Read from the published definition alone (see strategies.action_arguments),
        # so an app in process and the same app behind a server get the same tests.
        try:
            args = strategies.action_arguments(self.definition, self.action, valid=self.valid)
        except ValueError as exc:  # e.g. a schema that accepts every object
            pytest.skip(f"{self.name}: {exc}")
        select_keys = _select_keys(self.definition)
        select = (
            st.lists(st.sampled_from(select_keys), unique=True, min_size=1) | st.none()
            if self.valid and select_keys
            else st.none()
        )
        examples = _examples(fusion.config)
        # Contract tests belong to no test directory, so no fusion_context
        # fixture reaches them: the hook decides (request is None).
        context = (
            fusion.config.hook.pytest_fusion_context(app=fusion.transport().app, request=None)
            if fusion.transport().app is not None
            else None
        )

        gate = gate_of(fusion.config)
        label = tool if self.action is None else f"{tool}.{self.action}"
        ok_before = fusion.report.outcome_count(label, "ok")
        ids = gate.ids.snapshot() if self.valid else {}  # fixed for the whole test

        def send(arguments: dict[str, Any], chosen: list[str] | None) -> None:
            call = dict(arguments)
            if self.action is not None:
                call[discriminator_of(self.definition) or "action"] = self.action
            if chosen is not None:
                call[SELECT_PARAM] = chosen
            wire, view = fusion.transport().call(tool, call, context)
            result = fusion.finish(tool, self.action, call, wire, view, checked=True)
            self._check(result, chosen)

        if self.valid:  # the user's examples first: they reach the success path
            app = fusion.transport().app or (load_app(fusion.app_spec) if fusion.app_spec else None)
            for example in action_examples(fusion.config, app, self.definition, self.action):
                fusion.report.example_calls[label] += 1
                send(example, None)

        @settings(
            max_examples=examples,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        )
        @given(arguments=args, chosen=select, data=st.data())
        def run(arguments: dict[str, Any], chosen: list[str] | None, data: st.DataObject) -> None:
            send(reuse_ids(arguments, ids, data.draw) if ids else arguments, chosen)

        run()
        if self.valid and gate.strict_for(self):
            report = fusion.report
            if report.outcome_count(label, "ok") == ok_before:
                msg = (
                    f"{label}: the success path was never reached (--fusion-strict): no call "
                    f"ended ok ({report.outcome_count(label, 'error')} error, "
                    f"{report.outcome_count(label, 'validation')} validation so far); give example "
                    "arguments: examples=[{...}] on the action, or the pytest_fusion_examples "
                    "hook (docs/plugin.md)"
                )
                pytest.fail(msg, pytrace=False)

    def _check(self, result: FusionResult, chosen: list[str] | None) -> None:
        enveloped = result.error is not None or result.view.validation is not None
        if not self.valid:
            refused = result.is_error and enveloped
            assert refused, (
                f"invalid arguments {result.arguments!r} must be refused with an envelope, "
                f"got: {result.content!r}"
            )
            return
        if result.is_error:
            assert enveloped, f"an error must come as an envelope, got: {result.content!r}"
            assert result.view.validation is None, (
                f"arguments valid by the input schema were refused: {result.content[0]}"
            )
            return
        presenter_keys = self._presenter_keys()
        allowed = set(chosen) if chosen else presenter_keys
        if allowed is None:
            return
        for row in _rows(result.data):
            # _select narrows a Presenter's entities; an action without one (known in
            # process) or data that shares no key with the enum (a server) is not one.
            skip = (presenter_keys is None and self._in_process()) or not set(row) & allowed
            if chosen and skip:
                continue
            extra = set(row) - allowed
            assert not extra, (
                f"field(s) {sorted(extra)} reached the wire outside "
                f"{'_select' if chosen else 'the Presenter schema'} ({sorted(allowed)})"
            )

    def _in_process(self) -> bool:
        return getattr(self.fusion.transport().app, "tools", None) is not None

    def _presenter_keys(self) -> set[str] | None:
        app = self.fusion.transport().app
        tools = getattr(app, "tools", None)
        tool = tools.get(self.definition["name"]) if isinstance(tools, Mapping) else None
        if tool is None or self.action not in tool.actions:
            return None
        presenter = tool.actions[self.action].returns
        return set(presenter.root_keys) if presenter is not None else None

    def reportinfo(self) -> tuple[str, int | None, str]:
        """Where the item comes from, for pytest's reports."""
        return "fusion-contract", None, self.name


def _rows(data: Any) -> list[Mapping[str, Any]]:
    if isinstance(data, Mapping):
        return [data]
    if isinstance(data, list):
        return [row for row in data if isinstance(row, Mapping)]
    return []


def _select_keys(definition: Mapping[str, Any]) -> list[str]:
    prop = (definition.get("inputSchema") or {}).get("properties", {}).get(SELECT_PARAM)
    if not prop:
        return []
    return list((prop.get("items") or {}).get("enum") or [])


def _examples(config: pytest.Config) -> int:
    given: int | None = config.getoption("fusion_examples")
    return given if given is not None else int(config.getini("fusion_examples"))


def contract_items(session: pytest.Session, fusion: FusionSession) -> list[pytest.Item]:
    """Two items (valid, invalid) per tool action of the configured app or server."""
    items: list[pytest.Item] = []
    for definition in fusion.transport().definitions():
        tool = definition["name"]
        for action in prime_first(definition, actions_of(definition)):
            label = tool if action is None else f"{tool}/{action}"
            for valid in (True, False):
                kind = "valid" if valid else "invalid"
                items.append(
                    FusionContractItem.from_parent(
                        session,
                        name=f"fusion-contract::{label}[{kind}]",
                        fusion=fusion,
                        definition=definition,
                        action=action,
                        valid=valid,
                    )
                )
    return items
