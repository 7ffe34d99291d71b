"""What a user asks ``fusion call`` and ``fusion check`` to send, read from the command line.

``KEY=VALUE`` pairs and ``--json`` for one call; ``--call TOOL [ACTION]
[ARGS_JSON]`` and a ``--calls`` file of ``{"tool", "action", "arguments"}``
objects for a check; the action put in the tool's discriminator parameter
(read from its definition, by the same reader the plugin uses). Each mistake
is a :class:`_CliError` naming the argument, the file and the entry.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fusion_core._tools._definitions import discriminator_of
from fusion_core._write._numbers import read_json

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fusion_core._mcp._client_blocking import BlockingFusionClient

__all__ = ["Call", "call_arguments", "calls_to_check", "with_action"]

Call = tuple[str, str | None, dict[str, Any]]
"""One call: the tool, its action (``None``: the tool has none), its arguments."""


class _CliError(Exception):
    """A failure to report on stderr as one line, with exit status 1."""


class _UsageError(_CliError):
    """A command line that cannot be run as given: one line on stderr, exit status 2."""


class _NotJsonError(ValueError):
    """What Python's reader takes and JSON is not: NaN, Infinity, 1e400, a key twice."""


def _constant(name: str) -> float:
    msg = f"{name} is not JSON"
    raise _NotJsonError(msg)


def _finite(literal: str) -> float:
    number = float(literal)
    if not math.isfinite(number):
        msg = f"{literal} is too large for a number (a float's limit is about 1.8e308)"
        raise _NotJsonError(msg)
    return number


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for twice, _ in pairs:
            if twice in seen:
                break
            seen.add(twice)
        msg = f"the key {twice!r} is given twice in one object"
        raise _NotJsonError(msg)
    return value


def _strict_json(text: str) -> Any:
    """JSON as a server reads it: no NaN, no Infinity, no float overflow, no key twice."""
    return read_json(text, parse_constant=_constant, parse_float=_finite, object_pairs_hook=_object)


def _value(text: str) -> Any:
    try:
        return _strict_json(text)
    except (json.JSONDecodeError, _NotJsonError):
        return text


def _json_value(text: str, where: str) -> Any:
    """``text`` as JSON, or an error naming ``where`` it came from."""
    try:
        return _strict_json(text)
    except (json.JSONDecodeError, _NotJsonError) as exc:
        msg = f"{where} is not valid JSON: {exc}"
        raise _CliError(msg) from None
    except ValueError as exc:  # an int too long to be read (read_json's limit)
        msg = f"{where}: {exc}"
        raise _CliError(msg) from None


def _json_object(text: str, where: str) -> dict[str, Any]:
    value = _json_value(text, where)
    if not isinstance(value, dict):
        msg = f"{where} must be a JSON object, got {type(value).__name__}"
        raise _CliError(msg)
    return value


def call_arguments(
    pairs: Sequence[str], json_args: str | None
) -> tuple[str | None, dict[str, Any]]:
    """``fusion call``'s ``[ACTION] KEY=VALUE ...`` and ``--json``: the action and the arguments.

    A VALUE is read as JSON when it is JSON, else taken as a string.
    """
    words = list(pairs)
    action = words.pop(0) if words and "=" not in words[0] else None
    arguments = _json_object(json_args, "--json") if json_args else {}
    for pair in words:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            msg = f"argument {pair!r} is not KEY=VALUE"
            raise _UsageError(msg)
        arguments[key] = _value(text)
    return action, arguments


def with_action(
    client: BlockingFusionClient, tool: str, action: str | None, arguments: dict[str, Any]
) -> dict[str, Any]:
    """The call's arguments, with the action in the tool's discriminator parameter."""
    if action is None:
        return arguments
    definition = next((d for d in client.list_tools() if d.get("name") == tool), None)
    if definition is None:
        msg = f"the server has no tool {tool!r}"
        raise _CliError(msg)
    field = discriminator_of(definition)
    if field is None:
        msg = f"tool {tool!r} has no actions, but action {action!r} was given"
        raise _CliError(msg)
    return {field: action, **arguments}


def calls_to_check(flags: Sequence[Sequence[str]], calls_file: str | None) -> list[Call]:
    """``fusion check``'s calls: every ``--call`` in order, then those of ``--calls FILE``."""
    calls: list[Call] = []
    for index, words in enumerate(flags):
        if len(words) > 3:
            msg = f"--call #{index + 1} has {len(words)} words: give TOOL [ACTION] [ARGS_JSON]"
            raise _UsageError(msg)
        tool, rest = words[0], list(words[1:])
        arguments = (
            _json_object(rest.pop(), f"--call #{index + 1}")
            if rest and rest[-1].startswith("{")
            else {}
        )
        calls.append((tool, rest[0] if rest else None, arguments))
    if calls_file is not None:
        calls.extend(_calls_in(calls_file))
    if not calls:
        msg = "no calls to check: give --call TOOL [ACTION] [ARGS_JSON] or --calls FILE"
        raise _UsageError(msg)
    return calls


def _calls_in(calls_file: str) -> list[Call]:
    """The calls of a ``--calls`` file (``-``: stdin), each entry checked."""
    source = sys.stdin.read() if calls_file == "-" else _read(calls_file)
    listed = _json_value(source, calls_file)
    if not isinstance(listed, list):
        msg = f"{calls_file} must hold a JSON list of calls"
        raise _CliError(msg)
    calls: list[Call] = []
    for index, entry in enumerate(listed):
        where = f"{calls_file}[{index}]"
        if not (isinstance(entry, dict) and isinstance(entry.get("tool"), str)):
            msg = f'{where} must be an object with a "tool" string'
            raise _CliError(msg)
        arguments = entry.get("arguments", {})
        action = entry.get("action")
        if not isinstance(arguments, dict) or not isinstance(action, str | None):
            msg = f'{where}: "arguments" must be an object and "action" a string'
            raise _CliError(msg)
        calls.append((entry["tool"], action, arguments))
    return calls


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        msg = f"cannot read {path}: {exc.strerror}"
        raise _CliError(msg) from None
