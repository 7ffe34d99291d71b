"""Reaching the success paths: example arguments, and ids seen in earlier results.

Generated arguments rarely name an invoice that exists, so every call of a
lookup can end in ``NOT_FOUND`` and a leak planted in its success path goes
unnoticed. Two remedies, used by the contract tests:

* **Examples.** ``examples=[{...}]`` on the action (``Tool.action``) and the
  ``pytest_fusion_examples`` hook (for servers in any language) give argument
  mappings; the ``valid`` contract test sends them first.
* **Ids seen before.** :class:`IdPool` collects the values of id-like fields
  (``id``, ``invoice_id``, ``invoiceId``) from every result; generated calls
  then put such a value into an id-like argument of the same JSON type, and
  after the search every such id no call sent is sent once (:func:`unsent_ids`).
  The contract tests of actions that need no argument (``list``, ``search``)
  run first, so lookups find ids to reuse (:func:`prime_first`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from fusion_core._tools._definitions import discriminator_of

if TYPE_CHECKING:
    import pytest
    from hypothesis.strategies import SearchStrategy

    from pytest_mcpfusion._result import FusionResult

__all__ = [
    "IdDraws",
    "IdPool",
    "IdReuse",
    "IdSnapshot",
    "action_examples",
    "candidates",
    "id_draws",
    "is_id_like",
    "prime_first",
    "reuse_ids",
    "unsent_ids",
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
    """One fixed snapshot of the pool, which remembers what each argument may take.

    A contract test draws from one snapshot for all its examples, so the ids
    an argument may take (of its JSON type, that its schema accepts) are
    worked out once per argument and type, not once per example.
    """

    __slots__ = ("_offers",)

    def __init__(self, values: Mapping[str, tuple[Any, ...]]) -> None:
        super().__init__(values)
        self._offers: dict[tuple[str, str], tuple[object, list[Any]]] = {}

    def offers(self, name: str, kind: str, accepts: Callable[[str, Any], bool]) -> list[Any]:
        """The ids argument ``name`` of JSON type ``kind`` may take (its schema accepts them)."""
        key = (name, kind)
        cached = self._offers.get(key)
        if cached is not None and cached[0] is accepts:
            return cached[1]
        like = 0 if kind == "integer" else ""
        found = [seen for seen in candidates(self, name, like) if accepts(name, seen)]
        self._offers[key] = (accepts, found)
        return found


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
_KINDS: Final = ("integer", "string")

IdDraws = dict[tuple[str, str], Any]
"""One example's choice for each id-like argument and JSON type: an id, or keep the value."""


def id_draws(
    snapshot: IdSnapshot, names: Iterable[str], accepts: Callable[[str, Any], bool]
) -> dict[tuple[str, str], SearchStrategy[Any]]:
    """What :func:`reuse_ids` may put into the id-like arguments ``names``, by argument and type.

    Each strategy draws an id the argument's schema accepts, or keeps the
    generated value. Empty when there is no id to offer. The contract tests
    draw them in the same tuple as the example's other arguments (a draw per
    argument and type, whether the example has the argument or not), so an
    example costs no ``data.draw`` of its own, nor one for a dict of them.
    """
    from hypothesis import strategies as st  # noqa: PLC0415 - hypothesis loads lazily

    return {  # a name that is not id-like is offered nothing (candidates)
        (name, kind): st.sampled_from([*found, _KEEP])
        for name in names
        for kind in _KINDS
        if (found := snapshot.offers(name, kind, accepts))
    }


def reuse_ids(arguments: Mapping[str, Any], drawn: IdDraws) -> dict[str, Any]:
    """``arguments`` with id-like values swapped for the ids ``drawn`` for them (:func:`id_draws`).

    Only ids that the parameter's own schema accepts were offered (a
    ``client_id`` pattern refuses an invoice id), so a valid call stays valid.
    """
    out = dict(arguments)
    for name, value in arguments.items():
        kind = _kind(value)
        choice = drawn.get((name, kind), _KEEP) if kind is not None else _KEEP
        if choice is not _KEEP:
            out[name] = choice
    return out


def unsent_ids(
    snapshot: IdSnapshot,
    names: Iterable[str],
    accepts: Callable[[str, Any], bool],
    sent: Iterable[tuple[str, Any]],
) -> list[tuple[str, Any]]:
    """``(argument, id)`` of every offered id no call has sent yet, in the pool's order."""
    done = {(name, kind, value) for name, value in sent if (kind := _kind(value)) is not None}
    return [
        (name, found)
        for name in names
        for kind in _KINDS
        for found in snapshot.offers(name, kind, accepts)
        if (name, kind, found) not in done
    ]


class IdReuse:
    """One contract test's use of the ids seen before: drawn into its calls, then each sent once.

    The search draws ids at random, so with many listed a defect planted
    behind one of them could go unseen: after the search, :meth:`sweep` gives
    one call per offered id that no call sent, for each id-like argument the
    search sent: the first generated call that had the argument, with that
    id (the same seed gives the same calls).
    """

    __slots__ = ("_accepts", "_bases", "_names", "_sent", "_snapshot", "choices")

    def __init__(
        self, snapshot: IdSnapshot, names: Iterable[str], accepts: Callable[[str, Any], bool]
    ) -> None:
        self._snapshot = snapshot
        self._names = [name for name in names if is_id_like(name)]
        self._accepts = accepts
        self._sent: list[tuple[str, Any]] = []
        self._bases: dict[str, dict[str, Any]] = {}
        self.choices = id_draws(snapshot, self._names, accepts) if self._names else {}
        """What one call draws for each id-like argument and type (empty: there is no id)."""

    def apply(self, arguments: dict[str, Any], drawn: IdDraws | None) -> dict[str, Any]:
        """One generated call's arguments with the drawn ids, remembered for :meth:`sweep`."""
        if drawn is None:
            return arguments
        arguments = reuse_ids(arguments, drawn)
        for name in self._names:
            if name in arguments:
                self._sent.append((name, arguments[name]))
                self._bases.setdefault(name, arguments)
        return arguments

    def sweep(self) -> list[dict[str, Any]]:
        """A call for each offered id that no generated call sent."""
        names = [name for name in self._names if name in self._bases]
        unsent = unsent_ids(self._snapshot, names, self._accepts, self._sent)
        return [{**self._bases[name], name: found} for name, found in unsent]
