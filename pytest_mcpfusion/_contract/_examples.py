"""Reaching the success paths: example arguments, and ids seen in earlier results.

Generated arguments rarely name an invoice that exists, so every call of a
lookup can end in ``NOT_FOUND`` and a leak planted in its success path goes
unnoticed. Two remedies, used by the contract tests:

* **Examples.** ``examples=[{...}]`` on the action (``Tool.action``) and the
  ``pytest_fusion_examples`` hook (for servers in any language) give argument
  mappings; the ``valid`` contract test sends them first.
* **Ids seen before.** :class:`IdPool` collects the values of id-like fields
  (``id``, ``invoice_id``, ``invoiceId``) from every result; generated calls
  then put such a value into an id-like argument of the same JSON type. The
  contract tests of actions that need no argument (``list``, ``search``) run
  first, so lookups find ids to reuse (:func:`prime_first`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from fusion_core._tools._definitions import discriminator_of

if TYPE_CHECKING:
    import pytest
    from hypothesis.strategies import SearchStrategy

    from pytest_mcpfusion._result import FusionResult

__all__ = [
    "IdPool",
    "IdSnapshot",
    "action_examples",
    "candidates",
    "is_id_like",
    "prime_first",
    "reuse_ids",
]

_ID_LIKE: Final = re.compile(
    r"^(?:id|ID|uuid|slug)$|_(?:id|ID|uuid|key)$|[a-z0-9](?:Id|ID|Uuid|Key)$"
)
_PER_NAME: Final = 50  # values kept per field name
_MAX_LENGTH: Final = 200  # longer strings are not ids
_DEPTH: Final = 6


def is_id_like(name: str) -> bool:
    """``id``, ``invoice_id``, ``invoiceId``, ``uuid``, ``client_key``, ``slug``..."""
    return bool(_ID_LIKE.search(name))


def action_examples(
    config: pytest.Config, app: object, definition: Mapping[str, Any], action: str | None
) -> list[dict[str, Any]]:
    """The action's examples: from its ``examples=`` (an app we can see), then the hook."""
    found: list[dict[str, Any]] = []
    tools = getattr(app, "tools", None)
    tool = tools.get(definition["name"]) if isinstance(tools, Mapping) else None
    own = getattr(tool, "actions", {}).get(action) if tool is not None else None
    if own is not None:
        found.extend(dict(example) for example in own.examples)
    for given in config.hook.pytest_fusion_examples(
        tool=definition["name"], action=action, definition=definition, config=config
    ):
        for example in given or ():
            if not isinstance(example, Mapping):
                msg = (
                    f"pytest_fusion_examples for {definition['name']}/{action} returned "
                    f"{example!r:.80}; return a list of argument mappings"
                )
                raise TypeError(msg)
            found.append(dict(example))
    return found


def prime_first(definition: Mapping[str, Any], actions: Sequence[str | None]) -> list[str | None]:
    """``actions`` with those that need no argument first (they list what others look up)."""
    try:
        from pytest_mcpfusion.strategies import _action_schema  # noqa: PLC0415 - hypothesis loads lazily
    except ImportError:  # no hypothesis: each contract test fails saying so (runtest)
        return list(actions)

    field = discriminator_of(definition)
    if field is None:
        return list(actions)

    def needs_arguments(action: str | None) -> bool:
        if action is None:
            return True
        schema, _ = _action_schema(definition, field, action)
        return bool([name for name in schema["required"] if name != "_select"])

    return sorted(actions, key=needs_arguments)


class IdPool:
    """Values of id-like fields seen in results, by field name, first seen first."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[str, dict[Any, None]] = {}

    def harvest(self, result: FusionResult) -> None:
        """Collect the id-like fields of a successful result's data."""
        if result.is_error or result.error is not None or result.validation is not None:
            return
        self._walk(result.data, 0)

    def _walk(self, value: Any, depth: int) -> None:
        if depth > _DEPTH:
            return
        if isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(key, str) and is_id_like(key) and _is_id_value(item):
                    values = self._values.setdefault(key, {})
                    if len(values) < _PER_NAME:
                        values[item] = None
                else:
                    self._walk(item, depth + 1)
        elif isinstance(value, list):
            for item in value[:_PER_NAME]:
                self._walk(item, depth + 1)

    def snapshot(self) -> IdSnapshot:
        """The pool as it is now (a contract test draws from one fixed snapshot)."""
        return IdSnapshot({name: tuple(values) for name, values in self._values.items()})


class IdSnapshot(dict[str, tuple[Any, ...]]):
    """One fixed snapshot of the pool, which remembers what each argument may draw.

    A contract test draws from one snapshot for all its examples, so the ids
    an argument may take (of its JSON type, that its schema accepts) are
    worked out once per argument and type, not once per example.
    """

    __slots__ = ("_choices",)

    def __init__(self, values: Mapping[str, tuple[Any, ...]]) -> None:
        super().__init__(values)
        self._choices: dict[tuple[str, str | None], tuple[object, SearchStrategy[Any] | None]] = {}

    def choices(
        self, name: str, like: Any, accepts: Callable[[str, Any], bool]
    ) -> SearchStrategy[Any] | None:
        """What ``reuse_ids`` draws for argument ``name`` valued like ``like``; ``None``: no id."""
        key = (name, _kind(like))
        cached = self._choices.get(key)
        if cached is not None and cached[0] is accepts:
            return cached[1]
        strategy = _choices(self, name, like, accepts)
        self._choices[key] = (accepts, strategy)
        return strategy


def candidates(snapshot: Mapping[str, tuple[Any, ...]], name: str, like: Any) -> list[Any]:
    """Ids for argument ``name`` of the JSON type of ``like``: same field name first, then ids."""
    if not is_id_like(name):
        return []
    kind = _kind(like)
    ordered: dict[Any, None] = {}
    for source in (name, "id", *sorted(snapshot)):
        for value in snapshot.get(source, ()):
            if _kind(value) == kind:
                ordered[value] = None
    return list(ordered)[:_PER_NAME]


def _is_id_value(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, str) and 0 < len(value) <= _MAX_LENGTH


def _kind(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return "integer"
    return "string" if isinstance(value, str) else None


_KEEP: Final = object()


def reuse_ids(
    arguments: Mapping[str, Any],
    snapshot: Mapping[str, tuple[Any, ...]],
    draw: Callable[[SearchStrategy[Any]], Any],
    accepts: Callable[[str, Any], bool] = lambda _name, _value: True,
) -> dict[str, Any]:
    """``arguments`` with id-like values swapped, as hypothesis draws, for ids seen before.

    Only ids that ``accepts(name, id)`` (the parameter's own schema: a
    ``client_id`` pattern refuses an invoice id) can replace a value, so a
    valid call stays valid.
    """
    out = dict(arguments)
    for name, value in arguments.items():
        if not is_id_like(name):
            continue
        if isinstance(snapshot, IdSnapshot):
            strategy = snapshot.choices(name, value, accepts)
        else:
            strategy = _choices(snapshot, name, value, accepts)
        if strategy is not None:
            choice = draw(strategy)
            if choice is not _KEEP:
                out[name] = choice
    return out


def _choices(
    snapshot: Mapping[str, tuple[Any, ...]],
    name: str,
    like: Any,
    accepts: Callable[[str, Any], bool],
) -> SearchStrategy[Any] | None:
    """The ids ``name`` may take, and keeping its value, as one strategy; ``None``: no id."""
    from hypothesis import strategies as st  # noqa: PLC0415 - hypothesis loads lazily

    found = [seen for seen in candidates(snapshot, name, like) if accepts(name, seen)]
    return st.sampled_from([*found, _KEEP]) if found else None
