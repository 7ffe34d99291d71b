"""Which tools may change the world, and which of them the user let the gate call.

The contract tests send generated (and example) arguments to every tool. A
tool that may write — a commit, a payment, a branch — would act on them, on
whatever the server reaches: the user's repository, a database, a remote
host. So, by default, no generated or example call reaches a tool that may
write; the user opts in per tool or action:

* the ini key ``fusion_allow_writes`` (one ``fnmatch`` pattern per line, over
  ``tool`` and ``tool.action``; ``*`` lets every tool write — the one global
  switch), and ``--fusion-allow-writes=PATTERN`` (repeatable);
* the ``pytest_fusion_allow_writes`` hook (``True`` allows, ``False`` forbids,
  ``None`` leaves it to the patterns).

What may write is decided by :func:`WritePolicy.effects`: a ``FusionApp``'s
own flags in process (``read_only``, ``destructive`` per action, and the
tool's explicit ``openWorldHint``), else the tool's MCP annotations
(``fusion_core._tools._definitions.effects_of``): a tool that does not say it
is read-only may write. Over a server the hints are per tool (MCP has no
per-action annotations), so one writing action makes every action of that
tool one that may write.

:func:`safe_refusal` is the one call the ``invalid`` contract test still
sends to such a tool: the action alone, without the arguments it requires.
No tool can act on a call that names nothing to act on.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from fusion_core._tools._definitions import discriminator_of, effects_of
from pytest_mcpfusion._options import options_of

if TYPE_CHECKING:
    import pytest

__all__ = ["OPT_IN", "WritePolicy", "effects", "safe_refusal"]

OPT_IN: Final = (
    "opt in with fusion_allow_writes = {name} in the ini file, --fusion-allow-writes={name}, "
    "or the pytest_fusion_allow_writes hook, if calls with generated arguments are safe "
    "there (docs/plugin.md, 'Tools that write')"
)


class WritePolicy:
    """The session's answer to whether a generated call may reach a tool's action."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.patterns: tuple[str, ...] = options_of(config).allow_writes
        self._allowed: dict[tuple[str, str | None], bool] = {}

    def effects(self, definition: Mapping[str, Any], action: str | None, app: object) -> str | None:
        """Why a call of the action may change the world; ``None`` when it cannot."""
        return effects(definition, action, app)

    def allowed(self, definition: Mapping[str, Any], action: str | None) -> bool:
        """Whether the user opted in for the action: the hook first, then the patterns."""
        tool = str(definition["name"])
        key = (tool, action)
        if key not in self._allowed:
            verdict = self.config.hook.pytest_fusion_allow_writes(
                tool=tool, action=action, definition=definition, config=self.config
            )
            if verdict is None:
                names = [tool] if action is None else [tool, f"{tool}.{action}"]
                verdict = any(
                    fnmatch.fnmatchcase(name, pattern)
                    for name in names
                    for pattern in self.patterns
                )
            self._allowed[key] = bool(verdict)
        return self._allowed[key]

    def blocked(self, definition: Mapping[str, Any], action: str | None, app: object) -> str | None:
        """Why generated calls must not reach the action (it may write, no opt-in), or ``None``."""
        effects = self.effects(definition, action, app)
        if effects is None or self.allowed(definition, action):
            return None
        name = definition["name"] if action is None else f"{definition['name']}.{action}"
        verb = "may reach hosts outside the server" if "openWorldHint" in effects else "may write"
        return f"{name} {verb}: {effects}; {OPT_IN.format(name=name)}"


def effects(definition: Mapping[str, Any], action: str | None, app: object) -> str | None:
    """Why a call of the action may change the world; ``None`` when it cannot.

    The app's own flags when it is a ``FusionApp`` with that action (in
    process), else the tool's MCP annotations.
    """
    tools = getattr(app, "tools", None)
    tool = tools.get(definition["name"]) if isinstance(tools, Mapping) else None
    own = getattr(tool, "actions", {}).get(action) if tool is not None else None
    if own is None:
        return effects_of(definition)
    label = f"action {action!r}" if action is not None else "the tool"
    if own.destructive:
        return f"{label} is destructive=True"
    if not own.read_only:
        return f"{label} is not read_only=True"
    if getattr(tool, "annotations", {}).get("openWorldHint") is True:
        return "the tool says openWorldHint: true (it reaches hosts outside the server)"
    return None


def safe_refusal(definition: Mapping[str, Any], action: str | None) -> dict[str, Any] | None:
    """Arguments no tool can act on: the action alone, without what it requires; or ``None``.

    ``None`` when the action requires nothing: then every call is one it may
    act on, and the ``invalid`` test does not run.
    """
    field = discriminator_of(definition)
    if action is None or field is None:
        schema = definition.get("inputSchema") or {}
        required = schema.get("required") if isinstance(schema, Mapping) else None
        return {} if isinstance(required, list) and required else None
    from pytest_mcpfusion.strategies import _action_schema  # noqa: PLC0415 - hypothesis loads lazily

    schema, _ = _action_schema(definition, field, action)
    needed = [name for name in schema["required"] if name not in (field, "_select")]
    return {field: action} if needed else None
