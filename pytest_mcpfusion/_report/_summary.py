"""The wire report: what a ``--fusion`` run sent over the wire, summed up.

Each worker (or the single process) records every result: per action, the
calls by outcome (``ok``, ``error``, ``validation``), the blocks, bytes and
tokens by block kind, the contract violations and the warnings (unknown
elements and bare errors in the default mode, success paths never reached;
calls to unknown actions are counted apart, never as unreached successes). Under xdist the
workers send their ``WireReport`` as plain data (:meth:`WireReport.to_data`)
to the controller, which merges them and prints one report.
:meth:`WireReport.document` is the JSON document ``--fusion-report`` writes
(schema: ``docs/report.md`` and ``pytest_mcpfusion/report.schema.json``):
sorted, without timestamps, so equal runs give equal bytes.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from fusion_core import toon_success
from fusion_core._kinds import KINDS
from fusion_core._snapshot._format import block_kinds
from pytest_mcpfusion._result import FusionResult

__all__ = ["OUTCOMES", "WireReport", "outcome_of", "toon_verdict"]

Tokenizer = Callable[[str], int]
OUTCOMES: Final = ("ok", "error", "validation")
REPORT_FORMAT: Final = "pytest-mcpfusion/wire-report"
REPORT_VERSION: Final = 1
_MAX_MESSAGES: Final = 50  # distinct messages kept per action and list
_ARGUMENTS: Final = 300  # characters of a write's arguments the terminal shows
_WIDTH: Final = 100  # columns of a wrapped report line
_SHOWN: Final = 20  # lines of a list the terminal shows (the JSON has them all)
_SAMPLE: Final = 2_000  # characters of a block kind's sample the JSON and HTML keep
_COUNTED: Final = ("outcomes", "kinds", "kind_bytes", "kind_tokens", "problems", "notes", "writes")
_FUSION_KINDS: Final = frozenset(kind.name for kind in KINDS if kind.tag)
_PLAIN_ERROR: Final = "plain_error"
"""The kind the report gives an error answer's plain-text block (not ``data``)."""
NEVER_OK_ADVICE: Final = (
    "give example arguments: a pytest_fusion_examples hook in conftest.py (any server), or "
    "examples=[...] on the action (an app written with fusion_core); docs/plugin.md, "
    "'Reaching the success paths'"
)
_NEVER_OK: Final = f"the success path was never reached: no call ended ok; {NEVER_OK_ADVICE}"


def outcome_of(result: FusionResult) -> str:
    """``validation`` (a ``<validation_error>``), ``error`` (any other error), or ``ok``."""
    view = result.view  # a bare error reads as data there: it is an error all the same
    if view.validation is not None:
        return "validation"
    if result.is_error or view.error is not None:
        return "error"
    return "ok"


def _nested() -> dict[str, Counter[str]]:
    return {}


def toon_verdict(saved: int) -> str:
    """What TOON would change on the data blocks: a saving, a cost, or nothing."""
    if saved > 0:
        return f"TOON would save {saved:,} token{'s' if saved != 1 else ''} on data blocks"
    if saved < 0:
        return f"TOON would cost {-saved:,} more token{'s' if saved != -1 else ''} on data blocks"
    return "TOON would take as many tokens as JSON on data blocks"


@dataclass
class WireReport:
    """Counters of one run: calls, blocks, bytes, violations, tokens — overall and per action.

    ``calls``, ``blocks``, ``block_bytes`` and ``tokens`` are the run's
    totals (by action, and by block kind); ``outcomes``, ``kinds``,
    ``kind_bytes``, ``kind_tokens``, ``problems`` and ``notes`` hold the same
    per action (``tool.action``, or the tool name for a tool without actions).
    """

    calls: Counter[str] = field(default_factory=Counter)
    known_actions: set[str] = field(default_factory=set)
    blocks: Counter[str] = field(default_factory=Counter)
    block_bytes: Counter[str] = field(default_factory=Counter)
    tokens: Counter[str] = field(default_factory=Counter)
    toon_tokens_saved: int = 0
    violations: int = 0
    contract_failures: int = 0
    tokenizer_name: str | None = None
    outcomes: dict[str, Counter[str]] = field(default_factory=_nested)
    kinds: dict[str, Counter[str]] = field(default_factory=_nested)
    kind_bytes: dict[str, Counter[str]] = field(default_factory=_nested)
    kind_tokens: dict[str, Counter[str]] = field(default_factory=_nested)
    problems: dict[str, Counter[str]] = field(default_factory=_nested)
    notes: dict[str, Counter[str]] = field(default_factory=_nested)
    example_calls: Counter[str] = field(default_factory=Counter)
    not_run: dict[str, dict[str, str]] = field(default_factory=dict)
    fusion_answers: int = 0
    plain_errors: int = 0
    level: str = "fusion"
    pytest_outcome: dict[str, int] | None = None
    writes: dict[str, Counter[str]] = field(default_factory=_nested)
    failed_tests: dict[str, dict[str, Any]] = field(default_factory=dict)
    samples: dict[str, str] = field(default_factory=dict)

    def record(
        self,
        result: FusionResult,
        kinds: list[str] | None = None,
        *,
        action: str | None,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        """Count one result's call and outcome, blocks, bytes (and tokens, given a tokenizer).

        ``kinds`` are the blocks' kinds as the wire snapshots name them
        (``data``, ``ui_passthrough(summary)``...); read from the result when
        not given.
        """
        if kinds is None:
            kinds = block_kinds(result.wire_dict)
        name = _name(result.tool, action)
        self.calls[name] += 1
        if any(kind.split("(", 1)[0] in _FUSION_KINDS for kind in kinds):
            self.fusion_answers += 1
        elif result.is_error:
            self.plain_errors += 1
            # A plain-text error is an error, never data (nor its tokens a TOON saving).
            kinds = [_PLAIN_ERROR if kind == "data" else kind for kind in kinds]
        self.outcomes.setdefault(name, Counter())[outcome_of(result)] += 1
        counts = self.kinds.setdefault(name, Counter())
        sizes = self.kind_bytes.setdefault(name, Counter())
        tokens = self.kind_tokens.setdefault(name, Counter())
        for kind, text in zip(kinds, result.content, strict=False):
            family = kind.split("(", 1)[0]
            size = len(text.encode("utf-8", "surrogatepass"))
            self.blocks[family] += 1
            self.block_bytes[family] += size
            counts[family] += 1
            sizes[family] += size
            self._sample(family, text)
            if tokenizer is not None:
                used = tokenizer(text)
                self.tokens[family] += used
                tokens[family] += used
        if tokenizer is not None and kinds and kinds[0] == "data" and result.view.data is not None:
            json_tokens = tokenizer(result.content[0])
            toon_text = toon_success(result.view.data).texts[0]
            self.toon_tokens_saved += json_tokens - tokenizer(toon_text)

    def _sample(self, kind: str, text: str) -> None:
        """Keep one block of each kind: the longest that fits the sample, else the shortest.

        Chosen by size and text, never by arrival: the choice does not depend on
        the order of the calls, so xdist workers and equal runs keep the same.
        """
        kept = self.samples.get(kind)
        if kept is None or _rank(text) < _rank(kept):
            self.samples[kind] = text

    def add_failed_test(
        self,
        test: str,
        *,
        action: str,
        rules: list[str],
        calls: list[str],
        kinds: list[str],
        reproduce: str,
    ) -> None:
        """A failed contract test: its node id, the rules and calls it failed with, how to rerun it.

        ``action`` is ``tool.action``; ``kinds`` are the kinds of the blocks
        the failing call received (the HTML page links them to its samples).
        """
        self.failed_tests[test] = {
            "test": test,
            "action": action,
            "rules": sorted(set(rules)),
            "calls": calls,
            "kinds": sorted(set(kinds)),
            "reproduce": reproduce,
        }

    def add_violations(self, tool: str, action: str | None, messages: list[str]) -> None:
        """Count contract violations of one result (they fail the test that made the call)."""
        self.violations += len(messages)
        _add(self.problems.setdefault(_name(tool, action), Counter()), messages)

    def add_warnings(self, tool: str, action: str | None, messages: list[str]) -> None:
        """Record findings that do not fail the test (strict-reading ones in the default mode)."""
        _add(self.notes.setdefault(_name(tool, action), Counter()), messages)

    def add_not_run(self, name: str, test: str, reason: str) -> None:
        """A contract test of action ``name`` (``valid``/``invalid``) that did not run, and why."""
        self.not_run.setdefault(name, {})[test] = reason

    def add_write(self, tool: str, action: str | None, arguments: str) -> None:
        """A call that succeeded on an action that may write (its arguments as JSON)."""
        _add(self.writes.setdefault(_name(tool, action), Counter()), [arguments])

    def outcome_count(self, name: str, outcome: str) -> int:
        """How many calls of action ``name`` (``tool.action``) ended with ``outcome``."""
        counter = self.outcomes.get(name)
        return counter[outcome] if counter is not None else 0

    # ------------------------------------------------------ xdist transfer

    def to_data(self) -> dict[str, Any]:
        """Plain data, to cross from an xdist worker to the controller."""
        return {
            "calls": dict(self.calls),
            "known_actions": sorted(self.known_actions),
            "blocks": dict(self.blocks),
            "block_bytes": dict(self.block_bytes),
            "tokens": dict(self.tokens),
            "toon_tokens_saved": self.toon_tokens_saved,
            "violations": self.violations,
            "tokenizer_name": self.tokenizer_name,
            "fusion_answers": self.fusion_answers,
            "plain_errors": self.plain_errors,
            "example_calls": dict(self.example_calls),
            "not_run": {name: dict(tests) for name, tests in self.not_run.items()},
            "failed_tests": dict(self.failed_tests),
            "samples": dict(self.samples),
            **{
                name: {action: dict(counter) for action, counter in getattr(self, name).items()}
                for name in _COUNTED
            },
        }

    def merge(self, data: dict[str, Any]) -> None:
        """Add a worker's :meth:`to_data` into this report."""
        self.calls.update(data["calls"])
        self.known_actions.update(data["known_actions"])
        self.blocks.update(data["blocks"])
        self.block_bytes.update(data["block_bytes"])
        self.tokens.update(data["tokens"])
        self.toon_tokens_saved += data["toon_tokens_saved"]
        self.violations += data["violations"]
        self.tokenizer_name = self.tokenizer_name or data["tokenizer_name"]
        self.fusion_answers += data.get("fusion_answers", 0)
        self.plain_errors += data.get("plain_errors", 0)
        self.example_calls.update(data.get("example_calls", {}))
        for name, tests in data.get("not_run", {}).items():
            self.not_run.setdefault(name, {}).update(tests)
        self.failed_tests.update(data.get("failed_tests", {}))
        for kind, text in data.get("samples", {}).items():
            self._sample(kind, text)
        for name in _COUNTED:
            mine: dict[str, Counter[str]] = getattr(self, name)
            for action, counter in data.get(name, {}).items():
                mine.setdefault(action, Counter()).update(counter)

    # ------------------------------------------------------------ reading

    def headline(self) -> str | None:
        """One line when the server writes no Fusion blocks at all (and errors showed it)."""
        answers = sum(self.calls.values())
        if not answers or self.fusion_answers or not self.plain_errors:
            return None
        line = (
            f"this server writes no Fusion blocks: {answers} of {answers} answers were plain "
            f"text ({self.plain_errors} of them errors without a <tool_error> or "
            "<validation_error> envelope)"
        )
        if self.level == "fusion":
            line += (
                "; the Fusion rules hold it to a format it does not write: "
                "--fusion-level=mcp checks it as a plain MCP server (docs/plugin.md, "
                "'Servers that do not write the Fusion format')"
            )
        return line

    def never_ok(self) -> list[str]:
        """Known (or called) actions that were called but never answered ok."""
        names = self.known_actions or set(self.calls)
        return sorted(
            name
            for name in names
            if self.calls[name] and not self.outcomes.get(name, Counter())["ok"]
        )

    def warnings_of(self, name: str) -> Counter[str]:
        """An action's warnings, including a success path never reached.

        A name ``tools/list`` does not have is an unknown action (its calls
        are refused, as a test of the refusal wants): it has no success path.
        """
        found = Counter(self.notes.get(name, Counter()))
        known = not self.known_actions or name in self.known_actions
        if known and self.calls[name] and not self.outcomes.get(name, Counter())["ok"]:
            found[_NEVER_OK] += 1
        return found

    def unknown_calls(self) -> Counter[str]:
        """Calls to tools or actions ``tools/list`` does not have, by name."""
        if not self.known_actions:
            return Counter()
        return Counter(
            {name: count for name, count in self.calls.items() if name not in self.known_actions}
        )

    def document(self) -> dict[str, Any]:
        """The report as the JSON document of ``--fusion-report`` (see docs/report.md)."""
        known = self.known_actions or set(self.calls)
        tokens = self.tokenizer_name is not None
        actions: list[dict[str, Any]] = []
        for name in sorted(known | set(self.calls)):
            outcomes = self.outcomes.get(name, Counter())
            warnings = self.warnings_of(name)
            actions.append(
                {
                    "name": name,
                    "known": name in known,
                    "calls": {outcome: outcomes[outcome] for outcome in OUTCOMES},
                    "total_calls": self.calls[name],
                    "example_calls": self.example_calls[name],
                    "success_reached": outcomes["ok"] > 0,
                    "blocks": _kinds(
                        self.kinds.get(name, Counter()),
                        self.kind_bytes.get(name, Counter()),
                        self.kind_tokens.get(name, Counter()) if tokens else None,
                    ),
                    "violations": _messages(self.problems.get(name, Counter())),
                    "warnings": _messages(warnings),
                    "not_run": [
                        {"test": test, "reason": reason}
                        for test, reason in sorted(self.not_run.get(name, {}).items())
                    ],
                    "writes": [
                        {"arguments": arguments, "count": count}
                        for arguments, count in sorted(self.writes.get(name, Counter()).items())
                    ],
                }
            )
        totals: dict[str, Any] = {
            "calls": sum(self.calls.values()),
            **{
                outcome: sum(counter[outcome] for counter in self.outcomes.values())
                for outcome in OUTCOMES
            },
            "blocks": sum(self.blocks.values()),
            "bytes": sum(self.block_bytes.values()),
            "tokens": sum(self.tokens.values()) if tokens else None,
            "violations": self.violations,
            "warnings": sum(item["count"] for action in actions for item in action["warnings"]),
            "contract_tests_failed": self.contract_failures,
            "contract_tests_not_run": sum(len(tests) for tests in self.not_run.values()),
            "write_calls": sum(sum(found.values()) for found in self.writes.values()),
            "toon_tokens_saved": self.toon_tokens_saved if tokens else None,
        }
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "level": self.level,
            "headline": self.headline(),
            "pytest": self.pytest_outcome,
            "tokenizer": self.tokenizer_name,
            "totals": totals,
            "blocks": _kinds(self.blocks, self.block_bytes, self.tokens if tokens else None),
            "actions": actions,
            "never_called": sorted(name for name in known if not self.calls[name]),
            "failed_tests": [self.failed_tests[test] for test in sorted(self.failed_tests)],
            "samples": {kind: _trim(self.samples[kind], _SAMPLE) for kind in sorted(self.samples)},
        }

    def lines(self) -> list[str]:
        """The report as terminal lines."""
        known = self.known_actions or set(self.calls)
        exercised = sorted(name for name in self.calls if name in known)
        headline = self.headline()
        out = [headline] if headline else []
        out.append(f"tools and actions exercised: {len(exercised)} of {len(known)}")
        for name in exercised:
            outcomes = self.outcomes.get(name, Counter())
            split = ", ".join(f"{outcomes[o]} {o}" for o in OUTCOMES)
            out.append(f"  {name:<40} {_count(self.calls[name], 'call')} ({split})")
        missing = sorted(known - set(exercised))
        if missing:
            out.append("  never called: " + ", ".join(missing))
        unknown = self.unknown_calls()
        if unknown:
            calls = _count(sum(unknown.values()), "call").strip()
            names = ", ".join(sorted(unknown)[:_SHOWN])
            more = f" and {len(unknown) - _SHOWN} more" if len(unknown) > _SHOWN else ""
            line = f"  + {calls} to unknown tools or actions (refused): {names}{more}"
            out.extend(_wrapped(line))
        out.append(f"blocks: {sum(self.blocks.values())}, {sum(self.block_bytes.values()):,} bytes")
        for kind in sorted(self.blocks):
            count = self.blocks[kind]
            noun = "blocks" if count != 1 else "block "  # one column either way
            line = f"  {kind:<22} {count:>6} {noun} {self.block_bytes[kind]:>12,} bytes"
            if self.tokenizer_name is not None:
                line += f" {self.tokens[kind]:>10,} tokens"
            out.append(line)
        if self.tokenizer_name is None:
            out.append(
                "tokens: no offline tokenizer installed (pip install 'pytest-mcpfusion[tokens]')"
            )
        else:
            out.append(
                f"tokens ({self.tokenizer_name}): {sum(self.tokens.values()):,}; "
                f"{toon_verdict(self.toon_tokens_saved)}"
            )
        out.append(f"contract violations: {self.violations}")
        out.extend(self._warning_lines(known))
        out.append(f"contract tests failed: {self.contract_failures}")
        out.extend(self._failed_lines())
        out.extend(self._not_run_lines())
        out.extend(self._write_lines())
        return out

    def _failed_lines(self) -> list[str]:
        """Each failed contract test: node id, rules, the call, and the command that reruns it."""
        out: list[str] = []
        for test in sorted(self.failed_tests)[:_SHOWN]:
            failed = self.failed_tests[test]
            rules = ", ".join(f"[{rule}]" for rule in failed["rules"])
            call = failed["calls"][0] if failed["calls"] else failed["action"]
            out.append(f"  {test}")
            out.append(f"      {rules} {_trim(call, _ARGUMENTS)}")
            out.append(f"      reproduce: {failed['reproduce']}")  # one line, to copy
        if len(self.failed_tests) > _SHOWN:
            out.append(f"  ... and {len(self.failed_tests) - _SHOWN} more (see the JSON report)")
        return out

    def _not_run_lines(self) -> list[str]:
        tests = [
            (f"{name}[{test}]", reason)
            for name, found in sorted(self.not_run.items())
            for test, reason in sorted(found.items())
        ]
        if not tests:
            return []
        out = [f"contract tests not run: {len(tests)} (tools that may write; no opt-in)"]
        for test, reason in tests[:_SHOWN]:
            out.extend(_wrapped(f"  {test}: {reason}"))
        if len(tests) > _SHOWN:
            out.append(f"  ... and {len(tests) - _SHOWN} more (see the JSON report)")
        return out

    def _write_lines(self) -> list[str]:
        calls = [
            (name, arguments, count)
            for name, found in sorted(self.writes.items())
            for arguments, count in sorted(found.items())
        ]
        if not calls:
            return []
        total = sum(count for _, _, count in calls)
        out = [f"calls that succeeded on tools that may write: {total}"]
        for name, arguments, count in calls[:_SHOWN]:
            times = f" (x{count})" if count > 1 else ""
            shown = _trim(arguments, _ARGUMENTS)
            out.append(f"  {name} {shown}{times}")  # JSON reads best on one line
        if len(calls) > _SHOWN:
            out.append(f"  ... and {len(calls) - _SHOWN} more (see the JSON report)")
        return out

    def _warning_lines(self, known: set[str]) -> list[str]:
        named = {name: self.warnings_of(name) for name in sorted(known | set(self.calls))}
        total = sum(sum(found.values()) for found in named.values())
        out = [f"warnings: {total}"]
        for name, found in named.items():
            for message, count in sorted(found.items())[:5]:
                times = f" (x{count})" if count > 1 else ""
                out.extend(_wrapped(f"  {name}: {message}{times}"))
        return out


def _wrapped(line: str) -> list[str]:
    """A long report line as whole words on several lines (never cut mid-word)."""
    return textwrap.wrap(
        line,
        width=_WIDTH,
        subsequent_indent="      ",
        break_long_words=False,
        break_on_hyphens=False,
    ) or [line]


def _rank(text: str) -> tuple[int, int, str]:
    """Sample order: fitting texts first, longest first; then the others, shortest first."""
    return (0, -len(text), text) if len(text) <= _SAMPLE else (1, len(text), text)


def _trim(text: str, limit: int) -> str:
    """``text``, or its first characters and its length when it is longer than ``limit``."""
    return text if len(text) <= limit else f"{text[: limit - 1]}… ({len(text):,} chars)"


def _name(tool: str, action: str | None) -> str:
    return f"{tool}.{action}" if action else tool


def _add(counter: Counter[str], messages: list[str]) -> None:
    for message in messages:
        if message in counter or len(counter) < _MAX_MESSAGES:
            counter[message] += 1
        else:
            counter["(more distinct messages not kept)"] += 1


def _kinds(
    counts: Counter[str], sizes: Counter[str], tokens: Counter[str] | None
) -> dict[str, dict[str, int | None]]:
    return {
        kind: {
            "count": counts[kind],
            "bytes": sizes[kind],
            "tokens": tokens[kind] if tokens is not None else None,
        }
        for kind in sorted(counts)
    }


def _messages(counter: Counter[str]) -> list[dict[str, Any]]:
    return [{"message": message, "count": count} for message, count in sorted(counter.items())]


def _count(number: int, noun: str) -> str:
    return f"{number:>6} {noun}{'' if number == 1 else 's'}"
