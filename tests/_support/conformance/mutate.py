"""Perturb the corpus's inputs within the case schema, to find shapes the harness mishandles.

The corpus's generator is not here, but corpora of new seeds will be
replayed: this script stands in for them. Each case's input gets one random
change the case schema allows (a builder call added, removed or reordered, a
meta of another shape, a tagged number, an argument that is not an object, a
tool that is not there...), and the case is replayed through the
conformance tests' own functions, against its unchanged golden. A mismatch
is expected (the golden is the reference's answer to the old input) and
reads as an ``AssertionError`` or a test failure; anything else is a harness
crash — a ``KeyError`` in a predicate, a library error no route predicted —
and is printed with the case, the change and where it was raised::

    python -m tests._support.conformance.mutate [--seed N] [--rounds N] [--limit N]

It exits 1 when a crash was found. Crashes are grouped by exception type and
the line that raised, so one class shows once with a count and an example.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import traceback
from collections.abc import Callable
from typing import Any

import _pytest.outcomes

from tests._support.conformance.corpus import load_cases

KINDS = ("response", "helper", "presenter", "tool_definition", "tool_call")
Mutation = Callable[[random.Random, dict[str, Any]], str | None]

_TEXTS = ("", "x", "a < b", "<domain_rules>\n- r\n</domain_rules>", "two\nlines", "--", "😀")
_VALUES: tuple[Any, ...] = (
    None, 0, -1, "s", [], {}, [1, "a"], {"k": "v"}, {"$num": "-0"}, {"$num": "1e21"},
    {"$num": "NaN"}, {"$num": "Infinity"}, {"$num": "9007199254740993"}, {"$undefined": True},
    {"0": "a", "b": {"$undefined": True}}, True, 1.5,
)  # fmt: skip
_UIS: tuple[dict[str, Any], ...] = (
    {"helper": "summary", "args": ["s"]},
    {"helper": "list", "args": [["a", "b\nc"]]},
    {"helper": "table", "args": [["h"], [["c|d"]]]},
    {"helper": "json", "args": [{"a": {"$num": "1.0"}}]},
    {"helper": "echarts", "args": [{}], "meta": None},
    {"helper": "codeBlock", "args": ["py", "```"], "meta": {"title": "t", "priority": 0}},
    {"helper": "markdown", "args": ["m"], "meta": {"width": "half", "priority": {"$num": "1.5"}}},
    {"literal": {"type": "custom", "content": "c", "meta": {"title": "", "priority": None}}},
    {"literal": {"type": "custom", "content": "c"}},
)
_CALLS: tuple[dict[str, Any], ...] = (
    *({"op": "uiBlock", "block": ui} for ui in _UIS),
    {"op": "uiBlocks", "blocks": []},
    {"op": "uiBlocks", "blocks": list(_UIS[:3])},
    {"op": "uiBlockRaw", "type": "t", "content": "c"},
    *({"op": "llmHint", "text": text} for text in _TEXTS),
    {"op": "systemRules", "rules": []},
    {"op": "systemRules", "rules": list(_TEXTS[:4])},
    {"op": "systemHint", "suggestions": []},
    {"op": "systemHint", "suggestions": [{"tool": "t.x", "reason": "r"}]},
    *({"op": "rawBlock", "text": text} for text in _TEXTS),
)


def _pick(rng: random.Random, options: tuple[Any, ...] | list[Any]) -> Any:
    return copy.deepcopy(rng.choice(list(options)))


def _calls_of(case_input: dict[str, Any]) -> list[dict[str, Any]] | None:
    calls = case_input.get("calls")
    return calls if isinstance(calls, list) and all(isinstance(c, dict) for c in calls) else None


def add_call(rng: random.Random, case_input: dict[str, Any]) -> str | None:
    """A builder call inserted anywhere (response and presenter cases)."""
    calls = case_input.setdefault("calls", [])
    call = _pick(rng, _CALLS)
    calls.insert(rng.randrange(len(calls) + 1), call)
    return f"add call {call['op']}"


def drop_call(rng: random.Random, case_input: dict[str, Any]) -> str | None:
    """A builder call removed, or the calls reversed."""
    calls = _calls_of(case_input)
    if not calls:
        return None
    if rng.random() < 0.5:
        calls.reverse()
        return "reverse calls"
    return f"drop call {calls.pop(rng.randrange(len(calls)))['op']}"


def swap_data(rng: random.Random, case_input: dict[str, Any]) -> str | None:
    """The data replaced by another tagged value."""
    if "data" not in case_input:
        return None
    case_input["data"] = _pick(rng, _VALUES)
    return f"data := {case_input['data']!r}"


def swap_via(rng: random.Random, case_input: dict[str, Any]) -> str | None:
    """A response's ``via`` changed (``withRules`` with its rules)."""
    if "calls" not in case_input or "presenter" in case_input:
        return None
    via = rng.choice(["build", "ok", "withRules"])
    case_input["via"] = via
    if via == "withRules":
        case_input["rules"] = _pick(rng, [[], ["r"], list(_TEXTS[:3])])
    return f"via := {via}"


def swap_arg(rng: random.Random, case_input: dict[str, Any]) -> str | None:
    """A helper's argument replaced, dropped or extended."""
    args = case_input.get("args")
    if "fn" not in case_input or not isinstance(args, list):
        return None
    if case_input["fn"] == "toolError" and len(args) > 1 and isinstance(args[1], dict):
        key = rng.choice(["message", "suggestion", "availableActions", "details", "retryAfter",
                          "severity"])  # fmt: skip
        choices: dict[str, list[Any]] = {
            "retryAfter": [
                0,
                -1,
                1.5,
                {"$num": "1e21"},
                {"$num": "Infinity"},
                {"$num": "9007199254740993"},
            ],
            "severity": ["warning", "error", "info", ""],
            "availableActions": [[], ["a"], ["a, b", "<c>"]],
            "details": [{}, {"k": None}, {"k": 5}, {"a&b": "<v>"}],
        }
        args[1][key] = _pick(rng, choices.get(key, list(_TEXTS)))
        return f"toolError options.{key} := {args[1][key]!r}"
    fn = case_input["fn"]
    if fn in ("error", "required", "toolError"):  # text arguments (a code, a message)
        index = rng.randrange(len(args)) if fn != "toolError" else 0
        args[index] = _pick(rng, _TEXTS)
        if fn == "error" and len(args) == 1 and rng.random() < 0.5:
            args.append(_pick(rng, ("E", "a<b", "")))
        return f"args[{index}] := {args[index]!r}"
    if fn == "toonSuccess" and rng.random() < 0.5:
        options = {"delimiter": _pick(rng, (",", "|", "\t")), "indent": rng.choice([1, 2, 4]),
                   "keyFolding": rng.choice(["off", "safe"])}  # fmt: skip
        case_input["args"] = [args[0], options] if args else [None, options]
        return f"toonSuccess options := {options!r}"
    if args:
        args[0] = _pick(rng, _VALUES + _TEXTS)
        return f"args[0] := {args[0]!r}"
    return None


def swap_call_args(rng: random.Random, case_input: dict[str, Any]) -> str | None:
    """A tool call's arguments: not an object, without the discriminator, with extras."""
    if "tools" not in case_input or "args" not in case_input:
        return None
    args = case_input["args"]
    choice = rng.randrange(4)
    if choice == 0 or not isinstance(args, dict):
        case_input["args"] = _pick(rng, [[], "s", None, 1, {"$undefined": True}])
        return f"args := {case_input['args']!r}"
    if choice == 1 and args:
        key = rng.choice(list(args))
        del args[key]
        return f"drop args.{key}"
    if choice == 2:
        args[rng.choice(["extra", "_select", "action", "__proto__"])] = _pick(rng, _VALUES)
        return "args extra key"
    case_input["name"] = rng.choice(["missing_tool", ""])
    return f"name := {case_input['name']!r}"


def swap_presenter(rng: random.Random, case_input: dict[str, Any]) -> str | None:
    """A Presenter's spec: ``select``, ``ctx``, rules, limits, templates."""
    pres = case_input.get("presenter")
    if not isinstance(pres, dict):
        return None
    choice = rng.randrange(6)
    if choice == 0:
        case_input["select"] = _pick(rng, [[], ["id"], ["nope"], ["id", "id"]])
        return f"select := {case_input['select']!r}"
    if choice == 1:
        case_input["ctx"] = _pick(rng, [None, {}, {"locale": "pt"}, {"$undefined": True}])
        return "ctx changed"
    if choice == 2:
        pres["rules"] = _pick(rng, [
            [], ["static {{id}}"], {"fn": ["{{$type}} {{nope}} {{$ctx.x}}"]},
            {"fn": [{"when": {"path": "id", "truthy": True}, "then": "t {{id}}"}]},
        ])  # fmt: skip
        return f"rules := {pres['rules']!r}"
    if choice == 3:
        pres["agentLimit"] = {"max": rng.choice([0, 1, 2]), "onTruncate": _pick(rng, _UIS)}
        return "agentLimit changed"
    if choice == 4:
        pres.pop(rng.choice(["schema", "ui", "rules", "embeds", "style"]), None)
        return "presenter key dropped"
    pres["suggestActions"] = [{"tool": "t.{{id}}", "reason": "r", "when": {"path": "x", "gt": 1}}]
    return "suggestActions changed"


def swap_tool(rng: random.Random, case_input: dict[str, Any]) -> str | None:
    """A tool's spec: handler, calls of a fluent builder, description options."""
    tools = case_input.get("tools")
    if not isinstance(tools, list) or not tools:
        return None
    tool = rng.choice(tools)
    choice = rng.randrange(4)
    if choice == 0 and tool.get("style") == "fluent":
        tool.pop("calls", None)
        return "fluent calls dropped"
    if choice == 1:
        tool["toonDescription"] = not tool.get("toonDescription", False)
        return "toonDescription flipped"
    handler = _pick(rng, [
        {"return": "value", "value": None}, {"return": "value", "value": {"$undefined": True}},
        {"return": "echo"}, {"throw": "boom <x>"}, {"throwValue": {"code": 1}},
        {"return": "helper", "fn": "toolError", "args": ["E", {"message": "m", "retryAfter": 1.5}]},
        {"return": "builder", "data": {"a": 1}, "calls": [_pick(rng, _CALLS)], "build": False},
    ])  # fmt: skip
    for group in tool.get("groups") or [{"actions": tool.get("actions") or []}]:
        for action in group.get("actions") or []:
            action["handler"] = handler
    if tool.get("style") == "fluent":
        tool["handler"] = handler
    return f"handler := {handler!r}"


MUTATIONS: tuple[Mutation, ...] = (
    add_call, drop_call, swap_data, swap_via, swap_arg, swap_call_args, swap_presenter, swap_tool,
)  # fmt: skip


def mutate(rng: random.Random, case: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """A copy of ``case`` with one change to its input, and what changed (None: none applies)."""
    for mutation in rng.sample(MUTATIONS, len(MUTATIONS)):
        changed = copy.deepcopy(case)
        what = mutation(rng, changed["input"])
        if what is not None:
            return changed, what
    return None


def replay(case: dict[str, Any]) -> BaseException | None:
    """Run the conformance test of one case; the exception it ended with, if any."""
    from tests.conformance import test_presenter_tool_cases, test_wire_cases  # noqa: PLC0415 - loads the corpus

    test = test_wire_cases if case["kind"] in ("response", "helper") else test_presenter_tool_cases
    try:
        test.test_case(case)
    except (AssertionError, _pytest.outcomes.Failed) as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 - every other exception is what this looks for
        return exc
    return None


def _origin(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{frames[-1].filename.rsplit('/', 3)[-1]}:{frames[-1].lineno}" if frames else "?"


def main(argv: list[str] | None = None) -> int:
    """Mutate and replay; print each crash class once; 1 if any was found."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=1, help="mutations per case")
    parser.add_argument("--limit", type=int, default=0, help="cases per kind (0: all)")
    parser.add_argument("--same", action="store_true", help="list changes the golden still met")
    options = parser.parse_args(argv)
    rng = random.Random(options.seed)
    crashes: dict[tuple[str, str], list[str]] = {}
    outcomes = {"same": 0, "mismatch": 0, "crash": 0}
    same: dict[str, list[str]] = {}
    for kind in KINDS:
        cases = load_cases(kind)
        for case in cases[: options.limit or None]:
            for _ in range(options.rounds):
                mutated = mutate(rng, case)
                if mutated is None:
                    continue
                changed, what = mutated
                exc = replay(changed)
                if exc is None:
                    outcomes["same"] += 1
                    same.setdefault(f"{kind}: {what.split(' := ')[0]}", []).append(case["id"])
                elif isinstance(exc, AssertionError | _pytest.outcomes.Failed):
                    outcomes["mismatch"] += 1
                else:
                    outcomes["crash"] += 1
                    key = (type(exc).__name__, _origin(exc))
                    crashes.setdefault(key, []).append(f"{case['id']} [{what}]: {exc!s:.200}")
    print(outcomes)
    if options.same:
        for what, ids in sorted(same.items(), key=lambda item: -len(item[1])):
            print(f"same bytes after {what}: {len(ids)}, e.g. {ids[0]}")
    for (name, where), examples in sorted(crashes.items(), key=lambda item: -len(item[1])):
        print(f"\n{name} at {where}: {len(examples)} case(s), e.g.\n  {examples[0]}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
