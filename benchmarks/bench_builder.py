"""Cost of the wire engine relative to orjson, measured in one run.

``response(rows).ui_block(...).system_rules(...).build()`` on 10,000 invoice
rows against ``orjson.dumps(rows, option=OPT_INDENT_2)`` (target: ≤ 1.5×),
and ``toon_success(rows)`` against the data block's JSON cost. Ratios, not
absolute times: these machines are shared and noisy.

Two row sets: ASCII-only text, and the same rows with a Portuguese note in
one row of five. MCP text blocks are Python ``str``; turning orjson's UTF-8
bytes into a ``str`` is a decode that costs little for ASCII and, for
non-ASCII text, more than orjson itself. The "floor" line measures exactly
that: ``orjson.dumps(...).decode()``, which no str-producing encoder can beat.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _rows import invoice_rows

from fusion_core import _json as json_module
from fusion_core import response, to_json, toon_success, ui


def best_of(fn: Callable[[], Any], repeat: int = 21) -> float:
    """The fastest of ``repeat`` runs, in seconds (least disturbed by noise)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(rows: list[dict[str, Any]], label: str) -> float:
    """Print one row set's measurements; return the builder's ratio."""
    total = sum(row["amount_cents"] for row in rows)

    def build() -> Any:
        return (
            response(rows)
            .ui_block(ui.summary(f"{len(rows)} invoices, {total / 100:.2f} EUR"))
            .system_rules(["Amounts are in cents: divide by 100.", "Dates are ISO 8601."])
            .build()
        )

    built = build()
    expected = orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()
    assert built["content"][0]["text"] == expected, "the data block must be orjson's JSON"
    baseline = best_of(lambda: orjson.dumps(rows, option=orjson.OPT_INDENT_2))
    measured = {
        "orjson.dumps(rows, OPT_INDENT_2)": baseline,
        "floor: orjson.dumps(...).decode()": best_of(
            lambda: orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()
        ),
        "json.dumps(rows, indent=2)": best_of(
            lambda: json.dumps(rows, indent=2, ensure_ascii=False), repeat=3
        ),
        "to_json(rows)": best_of(lambda: to_json(rows)),
        "response(rows).ui_block().system_rules().build()": best_of(build),
        "toon_success(rows)": best_of(lambda: toon_success(rows), repeat=5),
    }
    size = len(expected.encode())
    print(f"{label}: 10,000 invoice rows, {size:,} bytes of JSON")
    for name, seconds in measured.items():
        print(f"  {name:<52} {seconds * 1000:8.2f} ms  {seconds / baseline:6.2f}x orjson")
    toon_ratio = measured["toon_success(rows)"] / measured["to_json(rows)"]
    print(f"  toon_success / data block JSON: {toon_ratio:.2f}x")
    return measured["response(rows).ui_block().system_rules().build()"] / baseline


def main() -> None:
    """Print each measurement and its ratio to orjson, for both row sets."""
    accelerated = json_module._js_floats is json_module._js_floats_c
    print(f"C float scanner: {'yes' if accelerated else 'no (pure-Python fallback)'}")
    ascii_ratio = measure(invoice_rows(10_000, ascii_only=True), "ASCII text")
    mixed_ratio = measure(invoice_rows(10_000), "non-ASCII notes")
    verdict = "met" if ascii_ratio <= 1.5 else "MISSED"
    print(f"builder target <= 1.50x orjson on ASCII rows: {ascii_ratio:.2f}x, {verdict}")
    print(f"builder on non-ASCII rows: {mixed_ratio:.2f}x (see the floor line above)")


if __name__ == "__main__":
    main()
