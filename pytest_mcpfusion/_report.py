"""The wire report: what a ``--fusion`` run sent over the wire, summed up.

Each worker (or the single process) records every result; under xdist the
workers send their ``WireReport`` as plain data to the controller, which
merges them and prints one report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fusion_core import toon_success

from ._result import FusionResult

__all__ = ["WireReport"]

Tokenizer = Callable[[str], int]


@dataclass
class WireReport:
    """Counters of one run: calls, blocks, bytes, violations, tokens."""

    calls: Counter[str] = field(default_factory=Counter)
    known_actions: set[str] = field(default_factory=set)
    blocks: Counter[str] = field(default_factory=Counter)
    block_bytes: Counter[str] = field(default_factory=Counter)
    tokens: Counter[str] = field(default_factory=Counter)
    toon_tokens_saved: int = 0
    violations: int = 0
    contract_failures: int = 0
    tokenizer_name: str | None = None

    def record(
        self,
        result: FusionResult,
        kinds: list[str],
        *,
        action: str | None,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        """Count one result's call, blocks and bytes (and tokens, if a tokenizer is given)."""
        self.calls[f"{result.tool}.{action}" if action else result.tool] += 1
        for kind, text in zip(kinds, result.content, strict=False):
            family = kind.split("(", 1)[0]
            self.blocks[family] += 1
            self.block_bytes[family] += len(text.encode("utf-8", "surrogatepass"))
            if tokenizer is not None:
                self.tokens[family] += tokenizer(text)
        if tokenizer is not None and kinds and kinds[0] == "data" and result.data is not None:
            json_tokens = tokenizer(result.content[0])
            toon_text = toon_success(result.data).texts[0]
            self.toon_tokens_saved += json_tokens - tokenizer(toon_text)

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

    def lines(self) -> list[str]:
        """The report as terminal lines."""
        known = self.known_actions or set(self.calls)
        exercised = sorted(name for name in self.calls if name in known)
        out = [f"tools and actions exercised: {len(exercised)} of {len(known)}"]
        out.extend(f"  {name:<40} {_count(self.calls[name], 'call')}" for name in exercised)
        missing = sorted(known - set(exercised))
        if missing:
            out.append("  never called: " + ", ".join(missing))
        unknown = sum(count for name, count in self.calls.items() if name not in known)
        if unknown:
            calls = _count(unknown, "call").strip()
            out.append(f"  + {calls} to unknown tools or actions (refused)")
        out.append(
            f"blocks: {sum(self.blocks.values())}, "
            f"{sum(self.block_bytes.values()):,} bytes"
        )
        for kind in sorted(self.blocks):
            line = f"  {kind:<22} {self.blocks[kind]:>6} blocks {self.block_bytes[kind]:>12,} bytes"
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
                f"TOON would save {self.toon_tokens_saved:,} tokens on data blocks"
            )
        out.append(f"contract violations: {self.violations}")
        out.append(f"contract tests failed: {self.contract_failures}")
        return out


def _count(number: int, noun: str) -> str:
    return f"{number:>6} {noun}{'' if number == 1 else 's'}"
