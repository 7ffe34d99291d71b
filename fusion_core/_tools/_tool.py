"""Tools with actions: one MCP tool, many operations under a discriminator.

A :class:`Tool` groups actions under a discriminator parameter (``action`` by
default), flat (``get``) or in groups (``users.list``). Each action's
parameters come from a pydantic model (``params=Model``: the handler receives
the validated instance) or from the handler's signature (each parameter but
``ctx`` is a tool parameter, typed by its annotation). A ``common`` model adds
parameters shared by every action. Handlers may be sync or async; a parameter
named ``ctx`` receives the call's context.

``definition()`` gives the MCP tool definition with the reference's layout:
the markdown description (``Actions:``/``Modules:`` and ``Workflow:`` lines) or,
after ``toon_description()``, a TOON table of the actions; one flat input
schema where each property says which actions use it; annotations derived from
the actions.

Caches: ``arguments_model(action)`` builds each action's arguments model (its
own fields, the common ones, no extras) once, and every added action empties
the cache. The merged input schema grows with each action (a
:class:`PropertyMerge`: one schema build per action, not one per action so far)
and is rebuilt when ``common`` changes. ``FusionApp`` keeps the rest of what a
call reads per tool.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Self, TypeVar, final, overload

from pydantic import BaseModel, ConfigDict
from pydantic.fields import FieldInfo

from fusion_core._present._presenter import Presenter
from fusion_core._tools._definitions import DEFAULT_DISCRIMINATOR, select_sentence, workflow_line
from fusion_core._tools._input_schema import PropertyMerge, json_schema, params_model
from fusion_core._tools._middleware import Middleware, check_middleware
from fusion_core._write._json import require_plain
from fusion_core._write._toon import ToonOptions, encode_toon

__all__ = ["Action", "Group", "Tool"]

SELECT_PARAM: Final = "_select"
SELECT_DESCRIPTION: Final = (
    "⚡ Context optimization: select only the response fields you need. Omit to receive all fields."
)
Handler = Callable[..., Any]
H = TypeVar("H", bound=Callable[..., Any])


@final
@dataclass(frozen=True, slots=True)
class Action:
    """One operation of a tool: its key (``get`` or ``users.list``) and handler."""

    key: str
    handler: Handler
    description: str | None = None
    params: type[BaseModel] | None = None
    returns: Presenter[Any] | None = None
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    model_param: str | None = None  # handler parameter receiving the params instance
    takes_ctx: bool = False
    takes_kwargs: bool = False
    fields_model: type[BaseModel] = field(default=BaseModel, repr=False)
    examples: tuple[dict[str, Any], ...] = field(default=(), repr=False, compare=False)

    @property
    def required(self) -> list[str]:
        """The action's own required parameters, in schema order, by their wire names."""
        return [
            _wire_name(name, info)
            for name, info in self.fields_model.model_fields.items()
            if info.is_required()
        ]


def _wire_name(name: str, info: FieldInfo) -> str:
    """The name an agent sends (and the input schema lists): a string alias, if any."""
    alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
    return alias or name


def _action(
    key: str,
    handler: Handler,
    *,
    description: str | None,
    params: type[BaseModel] | None,
    returns: Presenter[Any] | None,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    examples: Sequence[Mapping[str, Any]] = (),
) -> Action:
    """Inspect the handler once: who gets the context, what the params are."""
    candidate: object = handler
    if not callable(candidate):
        msg = f"action {key!r}: the handler must be callable, got {handler!r}"
        raise TypeError(msg)
    declared: object = returns
    if declared is not None and not isinstance(declared, Presenter):
        msg = f"action {key!r}: returns= takes a Presenter, got {returns!r}"
        raise TypeError(msg)
    try:
        signature = inspect.signature(handler)
        hints = typing.get_type_hints(handler, include_extras=True)
    except (TypeError, ValueError):  # builtins such as ``dict`` have no signature
        signature, hints = inspect.Signature(), {}
    takes_ctx = "ctx" in signature.parameters
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    others = [
        p
        for name, p in signature.parameters.items()
        if name != "ctx" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    ]
    model_param: str | None = None
    if params is not None:
        if len(others) > 1:
            msg = (
                f"action {key!r}: with params= the handler takes the params instance "
                f"(and optionally ctx), got parameters {[p.name for p in others]}"
            )
            raise TypeError(msg)
        model_param = others[0].name if others else None
        fields_model = params
    else:
        definitions: dict[str, Any] = {}
        for parameter in others:
            annotation = hints.get(parameter.name, Any)
            default = ... if parameter.default is parameter.empty else parameter.default
            definitions[parameter.name] = (annotation, default)
        fields_model = params_model(f"{key}_params", definitions, f"action {key!r}")
    return Action(
        key=key,
        handler=handler,
        description=description,
        params=params,
        returns=returns,
        read_only=read_only,
        destructive=destructive,
        idempotent=idempotent,
        model_param=model_param,
        takes_ctx=takes_ctx,
        takes_kwargs=takes_kwargs,
        fields_model=fields_model,
        examples=_examples(key, examples),
    )


def _examples(key: str, given: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """``examples=``: argument mappings the contract tests send first (see docs/plugin.md)."""
    if isinstance(given, Mapping | str | bytes):
        msg = f"action {key!r}: examples= takes a list of argument mappings, got {given!r:.80}"
        raise TypeError(msg)
    examples = tuple(given)
    for example in examples:
        if not isinstance(example, Mapping) or not all(isinstance(k, str) for k in example):
            msg = f"action {key!r}: an example maps argument names to values, got {example!r:.80}"
            raise TypeError(msg)
    return tuple(dict(example) for example in examples)


class _Registrar:
    """The ``action(...)`` method, shared by tools and groups."""

    def _register(self, action: Action) -> None:
        raise NotImplementedError

    def _key(self, name: str) -> str:
        raise NotImplementedError

    @overload
    def action(
        self,
        name: str,
        handler: None = None,
        *,
        description: str | None = None,
        params: type[BaseModel] | None = None,
        returns: Presenter[Any] | None = None,
        read_only: bool = False,
        destructive: bool = False,
        idempotent: bool = False,
        examples: Sequence[Mapping[str, Any]] = (),
    ) -> Callable[[H], H]: ...

    @overload
    def action(
        self,
        name: str,
        handler: Handler,
        *,
        description: str | None = None,
        params: type[BaseModel] | None = None,
        returns: Presenter[Any] | None = None,
        read_only: bool = False,
        destructive: bool = False,
        idempotent: bool = False,
        examples: Sequence[Mapping[str, Any]] = (),
    ) -> Self: ...

    def action(
        self,
        name: str,
        handler: Handler | None = None,
        *,
        description: str | None = None,
        params: type[BaseModel] | None = None,
        returns: Presenter[Any] | None = None,
        read_only: bool = False,
        destructive: bool = False,
        idempotent: bool = False,
        examples: Sequence[Mapping[str, Any]] = (),
    ) -> Any:
        """Add an action; without ``handler``, use as a decorator.

        ``action("get", handler, ...)`` returns the tool (for chaining);
        ``@tool.action("get", ...)`` returns the function unchanged.
        ``examples`` are argument mappings (without the discriminator) that
        ``pytest --fusion`` sends first, to reach the action's success path.
        """

        def register(function: H) -> H:
            self._register(
                _action(
                    self._key(name),
                    function,
                    description=description,
                    params=params,
                    returns=returns,
                    read_only=read_only,
                    destructive=destructive,
                    idempotent=idempotent,
                    examples=examples,
                )
            )
            return function

        if handler is None:
            return register
        register(handler)
        return self


@final
class Group(_Registrar):
    """A module of actions inside a tool; its actions are keyed ``group.action``."""

    __slots__ = ("description", "name", "tool")

    def __init__(self, tool: Tool, name: str, description: str | None) -> None:
        self.tool = tool
        self.name = name
        self.description = description

    def _key(self, name: str) -> str:
        return f"{self.name}.{name}"

    def _register(self, action: Action) -> None:
        self.tool._add(action, group=self.name)

    def use(self, *middleware: Middleware) -> Group:
        """Run ``middleware`` before each action of this group, after the tool's.

        See :meth:`Tool.use`; returns the group, for chaining.
        """
        where = f"tool {self.tool.name!r}, group {self.name!r}"
        chain = self.tool._group_middleware.setdefault(self.name, [])
        chain.extend(check_middleware(m, where) for m in middleware)
        return self


@final
class Tool(_Registrar):
    """An MCP tool whose operations are selected by a discriminator parameter."""

    __slots__ = (
        "_actions",
        "_args_models",
        "_group_middleware",
        "_groups",
        "_has_flat",
        "_merge",
        "_merged_middleware",
        "_middleware",
        "_select",
        "_toon",
        "annotations",
        "common",
        "description",
        "discriminator",
        "instructions",
        "name",
        "output_schema",
    )

    def __init__(
        self,
        name: str,
        description: str | None = None,
        *,
        discriminator: str = DEFAULT_DISCRIMINATOR,
        common: type[BaseModel] | None = None,
        instructions: str | None = None,
        annotations: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            msg = f"a Tool needs a non-empty str name, got {name!r}"
            raise TypeError(msg)
        _check_name(discriminator, "discriminator", name)
        self.name = name
        # Instructions come first, as a paragraph of the tool's description.
        parts = [f"[INSTRUCTIONS] {instructions}" if instructions else "", description or ""]
        self.description = "\n\n".join(p for p in parts if p) or None
        self.discriminator = discriminator
        self.common = common
        self.instructions = instructions
        self.annotations = dict(annotations or {})
        self.output_schema: type[BaseModel] | None = None
        self._actions: dict[str, Action] = {}
        self._groups: dict[str, list[str]] = {}
        self._has_flat = False
        self._select = False
        self._toon = False
        self._args_models: dict[str, type[BaseModel]] = {}
        self._merge: PropertyMerge | None = None
        self._middleware: list[Middleware] = []
        self._group_middleware: dict[str, list[Middleware]] = {}
        self._merged_middleware: dict[str, tuple[Middleware, ...]] = {}

    # ----------------------------------------------------------- building

    def _key(self, name: str) -> str:
        return name

    def _register(self, action: Action) -> None:
        self._add(action, group=None)

    def _add(self, action: Action, *, group: str | None, inherit: bool = True) -> None:
        if (group is None and self._groups) or (group is not None and self._has_flat):
            msg = f"tool {self.name!r}: use either flat actions or groups, not both"
            raise ValueError(msg)
        for part in action.key.split(".", 1) if group is not None else [action.key]:
            _check_name(part, "action name", self.name)
        if action.key in self._actions:
            msg = f"tool {self.name!r}: action {action.key!r} is defined twice"
            raise ValueError(msg)
        if inherit and not action.description and self.description:
            # An action without a description inherits the tool's (at registration).
            action = replace(action, description=self.description)
        # Checked against what the earlier actions publish (raises, leaving the merge as it was).
        self._merged().add(action.key, action.fields_model)
        self._actions[action.key] = action
        self._has_flat = self._has_flat or group is None
        if group is not None:
            self._groups.setdefault(group, []).append(action.key.split(".", 1)[1])
        self._args_models.clear()

    def _merged(self) -> PropertyMerge:
        """The merge of every action's parameters, rebuilt if ``common`` was reassigned.

        ``_add`` is the only writer of ``_actions`` and grows the merge with it;
        the count check also catches actions written past it.
        """
        merge = self._merge
        if merge is None or merge.common is not self.common or len(merge) != len(self._actions):
            actions = [(a.key, a.fields_model) for a in self._actions.values()]
            merge = self._merge = PropertyMerge.of(self.common, actions, self.name)
        return merge

    def group(self, name: str, description: str | None = None) -> Group:
        """A group of actions (``name.action``); add actions to the returned group."""
        _check_name(name, "group name", self.name)
        if self._has_flat:
            msg = f"tool {self.name!r}: use either flat actions or groups, not both"
            raise ValueError(msg)
        self._groups.setdefault(name, [])
        return Group(self, name, description)

    def merge(self, other: Tool) -> Tool:
        """Absorb another tool's actions (same name); this tool's settings stay.

        Several builders of one namespace (``users.list``, ``users.get``)
        become one tool: the first one's description and options win, each
        action keeps its own description. All or nothing: when one action
        cannot be added (defined twice, a parameter the others publish
        differently...), the error names it and the tool is as it was.
        """
        if other.name != self.name:
            msg = f"cannot merge tool {other.name!r} into tool {self.name!r}: names differ"
            raise ValueError(msg)
        actions, merged = dict(self._actions), dict(self._merged_middleware)
        groups, has_flat = {name: list(keys) for name, keys in self._groups.items()}, self._has_flat
        try:
            for key, action in other._actions.items():
                group = key.split(".", 1)[0] if other._groups else None
                if group is not None:
                    self._groups.setdefault(group, [])
                self._add(action, group=group, inherit=False)
                if other.middleware_of(key):  # its own tool's middleware stays with it
                    self._merged_middleware[key] = other.middleware_of(key)
        except BaseException:
            self._actions.clear()
            self._actions.update(actions)
            self._merged_middleware.clear()
            self._merged_middleware.update(merged)
            self._groups.clear()
            self._groups.update(groups)
            self._has_flat, self._merge = has_flat, None  # the merge is rebuilt from the actions
            self._args_models.clear()
            raise
        return self

    def use(self, *middleware: Middleware) -> Tool:
        """Run ``middleware`` before every action's handler (the reference's ``.use()``).

        Each is called as ``middleware(ctx, args)`` (sync or async) with the
        context and the validated arguments; it returns ``None`` to go on, a
        mapping to add to the context, or a response to stop the call
        (``error("Forbidden", "FORBIDDEN")``). The tool's middleware runs first,
        in ``use()`` order, then the group's (:meth:`Group.use`). Returns the tool.
        """
        self._middleware.extend(check_middleware(m, f"tool {self.name!r}") for m in middleware)
        return self

    def enable_select(self) -> Tool:
        """Add the optional ``_select`` parameter (fields of the data block)."""
        self._select = True
        return self

    def with_output_schema(self, model: type[BaseModel]) -> Tool:
        """Declare ``outputSchema``; structured results are checked against it.

        The schema is written once here, so a model pydantic cannot describe is
        refused now (``TypeError`` naming the field), not at the first ``tools/list``.
        """
        json_schema(model, f"tool {self.name!r}: output schema")
        self.output_schema = model
        return self

    def toon_description(self) -> Tool:
        """Describe the actions as a TOON table instead of markdown lines."""
        self._toon = True
        return self

    # ------------------------------------------------------------ reading

    def middleware_of(self, key: str) -> tuple[Middleware, ...]:
        """The middleware that runs before action ``key``, in order."""
        group = key.split(".", 1)[0] if self._groups else None
        own = self._group_middleware.get(group, []) if group is not None else []
        return (*self._middleware, *own, *self._merged_middleware.get(key, ()))

    @property
    def actions(self) -> dict[str, Action]:
        """The actions by key, in definition order."""
        return dict(self._actions)

    @property
    def select_enabled(self) -> bool:
        """Whether ``_select`` is accepted: enabled, and a Presenter has fields to select.

        Without fields the schema lists no ``_select`` and a sent one is ignored.
        """
        return self._select and bool(self.select_keys())

    def select_keys(self) -> list[str]:
        """The ``_select`` enum: sorted root keys of every action's Presenter."""
        keys: set[str] = set()
        for action in self._actions.values():
            if action.returns is not None:
                keys.update(action.returns.root_keys)
        return sorted(keys)

    def arguments_model(self, action: Action) -> type[BaseModel]:
        """The model validating one action's arguments: common, then own, no extras."""
        model = self._args_models.get(action.key)
        if model is None:
            bases = tuple(b for b in (action.fields_model, self.common) if b is not None)
            # Unknown keys are refused, unless the params model itself allows them
            # (extra="allow": the handler receives every argument it was sent).
            allow = action.params is not None and action.params.model_config.get("extra") == "allow"
            config = ConfigDict(**action.fields_model.model_config)
            config["extra"] = "allow" if allow and self.common is None else "forbid"
            model = type(f"{self.name}.{action.key}", bases, {"model_config": config})
            self._args_models[action.key] = model
        return model

    def definition(self) -> dict[str, Any]:
        """The MCP tool definition: name, description, inputSchema, annotations."""
        actions = list(self._actions.values())
        definition: dict[str, Any] = {
            "name": self.name,
            "description": self._description(actions),
            "inputSchema": self._input_schema(actions),
            "annotations": {
                "readOnlyHint": bool(actions) and all(a.read_only for a in actions),
                "destructiveHint": any(a.destructive for a in actions),
                "idempotentHint": bool(actions) and all(a.idempotent for a in actions),
            },
        }
        # Explicit annotations (title, openWorldHint, ...) win over derived hints.
        derived = definition["annotations"]
        definition["annotations"] = {**self.annotations}
        for hint, value in derived.items():
            definition["annotations"].setdefault(hint, value)
        if self.output_schema is not None:
            definition["outputSchema"] = _clean(
                json_schema(self.output_schema, f"tool {self.name!r}: output schema")
            )
        # The SDK serializes definitions itself: text it cannot encode is an
        # error naming the tool here, not a tools/list that kills the server.
        require_plain(definition, f"tools[{self.name!a}]")
        return definition

    def _description(self, actions: Sequence[Action]) -> str:
        base = self.description or self.name
        head = f"{base}. {select_sentence(self.discriminator)}"
        # The per-action section: always for groups, for flat tools with 2+ actions
        # (one flat action has nothing to choose between).
        detailed = bool(self._groups) or len(actions) > 1
        if self._toon:
            return head + self._toon_table(actions) if detailed else head
        if self._groups:
            modules = " | ".join(f"{g} ({','.join(names)})" for g, names in self._groups.items())
            head += f" Modules: {modules}"
        else:
            head += f" Actions: {', '.join(a.key for a in actions)}"
        lines = [line for a in actions if (line := _workflow_line(a))] if detailed else []
        return head + "\n\nWorkflow:\n" + "\n".join(lines) if lines else head

    def _toon_row(self, action: Action, name: str) -> dict[str, Any]:
        row: dict[str, Any] = {
            "action": name,
            "desc": action.description or "",
            "required": ",".join(action.required),
        }
        if action.destructive:
            row["destructive"] = True
        return row

    def _toon_table(self, actions: Sequence[Action]) -> str:
        if self._groups:
            value: Any = {
                group: [self._toon_row(self._actions[f"{group}.{n}"], n) for n in names]
                for group, names in self._groups.items()
            }
        else:
            value = [self._toon_row(a, a.key) for a in actions]
        return "\n\n" + encode_toon(value, ToonOptions(delimiter="|"))

    def input_schema(self) -> dict[str, Any]:
        """The ``inputSchema`` of :meth:`definition`, without checking the rest of it."""
        return self._input_schema(list(self._actions.values()))

    def _input_schema(self, actions: Sequence[Action]) -> dict[str, Any]:
        keys = [a.key for a in actions]
        properties: dict[str, Any] = {
            self.discriminator: {
                "type": "string",
                "enum": keys,
                "description": (
                    f"Module and operation (module.{self.discriminator} format)"
                    if self._groups
                    else "Which operation to perform"
                ),
            }
        }
        merged, always = self._merged().properties()
        properties.update(merged)
        select_keys = self.select_keys()
        if self._select and select_keys:
            properties[SELECT_PARAM] = {
                "type": "array",
                "description": SELECT_DESCRIPTION,
                "items": {"type": "string", "enum": select_keys},
            }
        required = [self.discriminator, *always]
        return {"type": "object", "properties": properties, "required": required}

    def __repr__(self) -> str:
        return f"Tool({self.name!r}, actions={list(self._actions)})"


_FORBIDDEN = frozenset(" ,|()'\"<>&.")


def _check_name(name: object, what: str, tool: str) -> None:
    """Names the format lists inline must read back unambiguously.

    Action keys appear in ``Actions: a, b``, ``Modules: g (a,b) | h (c)``,
    ``- 'a': ...`` and ``<action>a</action>``: a name holding a separator,
    a quote, markup, a dot (the group separator) or white space would read as
    something else.
    """
    if not isinstance(name, str) or not name:
        msg = f"tool {tool!r}: a {what} must be a non-empty str, got {name!r}"
        raise ValueError(msg)
    bad = sorted({c for c in name if c in _FORBIDDEN or not c.isprintable()})
    if bad:
        msg = (
            f"tool {tool!r}: {what} {name!r} holds {', '.join(map(repr, bad))}; "
            "names the description lists inline cannot contain white space, dots, "
            "commas, '|', parentheses, quotes or markup"
        )
        raise ValueError(msg)


def _workflow_line(action: Action) -> str:
    """``- 'key': description. Requires: a, b [DESTRUCTIVE]``, or nothing to say."""
    return workflow_line(action.key, action.description or "", action.required, action.destructive)


def _clean(schema: Any, *, in_properties: bool = False) -> Any:
    """A JSON schema without pydantic's generated ``title`` keywords."""
    if isinstance(schema, dict):
        return {
            key: _clean(value, in_properties=key in {"properties", "$defs"} and not in_properties)
            for key, value in schema.items()
            if in_properties or key != "title"
        }
    if isinstance(schema, list):
        return [_clean(item) for item in schema]
    return schema
