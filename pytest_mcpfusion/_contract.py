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

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import pytest

from ._session import SELECT_PARAM, FusionSession, _discriminator_of

if TYPE_CHECKING:
    from ._result import FusionResult

__all__ = ["FusionContractItem", "actions_of", "contract_items"]

_NAME: Final = r"[\w-]+(?:\.[\w-]+)*"
_FOR: Final = re.compile(rf"(Required for|For): ({_NAME}(?:, {_NAME})*)")


def actions_of(definition: Mapping[str, Any], fusion: FusionSession) -> list[str]:
    """``tool.action`` names of a tool definition (the tool alone if it has none)."""
    del fusion
    name = definition["name"]
    discriminator = _discriminator_of(definition)
    prop = (definition.get("inputSchema") or {}).get("properties", {}).get(discriminator, {})
    actions = prop.get("enum") or []
    return [f"{name}.{action}" for action in actions] or [name]


def _action_schema(
    definition: Mapping[str, Any], action: str | None, fusion: FusionSession
) -> dict[str, Any]:
    """The JSON Schema of one action's own arguments (discriminator excluded).

    Read from the published definition alone — the reference layout, where
    each action-specific property says "Required for: a, b" or "For: a, b" —
    so an app in process and the same app behind a server get the same tests.
    """
    del fusion
    source = definition.get("inputSchema") or {}
    discriminator = _discriminator_of(definition)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, prop in (source.get("properties") or {}).items():
        if name in (discriminator, SELECT_PARAM):
            continue
        needed, optional = _owners(str(prop.get("description", "")))
        if not needed and not optional:  # a parameter every action shares
            properties[name] = prop
            if name in (source.get("required") or []):
                required.append(name)
        elif action in needed:
            # One property serves every action that has it: where another action
            # takes it as an optional filter its schema allows null, which an
            # action requiring it refuses.
            properties[name] = _not_null(prop)
            required.append(name)
        elif action in optional:
            properties[name] = prop
    # The Fusion pipeline refuses keys an action does not declare.
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
        "$defs": source.get("$defs", {}),
    }


def _owners(description: str) -> tuple[set[str], set[str]]:
    """Actions a property is required for, and actions it is optional for."""
    needed: set[str] = set()
    optional: set[str] = set()
    for match in _FOR.finditer(description):
        names = {part.strip() for part in match.group(2).split(",")}
        (needed if match.group(1) == "Required for" else optional).update(names)
    return needed, optional


def _not_null(prop: Mapping[str, Any]) -> dict[str, Any]:
    """``prop`` without its ``null`` alternative (``anyOf: [X, {type: null}]`` → X)."""
    branches = prop.get("anyOf")
    if not isinstance(branches, list):
        return dict(prop)
    kept = [branch for branch in branches if branch != {"type": "null"}]
    if len(kept) != 1:
        return {**prop, "anyOf": kept}
    merged = {key: value for key, value in prop.items() if key not in ("anyOf", "default")}
    return {**kept[0], **merged}


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
        # hypothesis loads only when contract tests run: plain runs stay fast.
        from hypothesis import HealthCheck, given, settings  # noqa: PLC0415
        from hypothesis import strategies as st  # noqa: PLC0415

        from . import strategies  # noqa: PLC0415

        fusion = self.fusion
        tool = self.definition["name"]
        schema = _action_schema(self.definition, self.action, fusion)
        try:
            args = (
                strategies.arguments(schema)
                if self.valid
                else strategies.invalid_arguments(schema)
            )
        except ValueError as exc:  # e.g. a schema that accepts every object
            pytest.skip(f"{self.name}: {exc}")
        select_keys = _select_keys(self.definition)
        select = (
            st.none() | st.lists(st.sampled_from(select_keys), unique=True, min_size=1)
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

        @settings(
            max_examples=examples,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        )
        @given(arguments=args, chosen=select)
        def run(arguments: dict[str, Any], chosen: list[str] | None) -> None:
            call = dict(arguments)
            if self.action is not None:
                call[_discriminator_of(self.definition)] = self.action
            if chosen is not None:
                call[SELECT_PARAM] = chosen
            wire, view = fusion.transport().call(tool, call, context)
            result = fusion.finish(tool, self.action, call, wire, view, checked=True)
            self._check(result, chosen)

        run()

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
        for qualified in actions_of(definition, fusion):
            action = qualified.split(".", 1)[1] if "." in qualified else None
            if action is not None and qualified.startswith(definition["name"] + "."):
                action = qualified[len(definition["name"]) + 1 :]
            for valid in (True, False):
                kind = "valid" if valid else "invalid"
                items.append(
                    FusionContractItem.from_parent(
                        session,
                        name=f"fusion-contract::{qualified.replace('.', '/', 1)}[{kind}]",
                        fusion=fusion,
                        definition=definition,
                        action=action,
                        valid=valid,
                    )
                )
    return items
