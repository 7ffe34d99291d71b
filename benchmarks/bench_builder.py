"""Cost of the wire engine relative to orjson, measured in one run.

``response(rows).ui_block(...).system_rules(...).build()`` on 10,000 invoice
rows against ``orjson.dumps(rows, option=OPT_INDENT_2)`` (target: ≤ 1.5×),
and ``toon_success(rows)`` against the data block's JSON cost. Ratios, not
absolute times: these machines are shared and noisy.
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

from _rows import invoice_rows  # noqa: E402

from fusion_core import response, to_json, toon_success, ui  # noqa: E402


def best_of(fn: Callable[[], Any], repeat: int = 15) -> float:
    """The fastest of ``repeat`` runs, in seconds (least disturbed by noise)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Print each measurement and its ratio to orjson."""
    rows = invoice_rows(10_000)
    total = sum(row["amount_cents"] for row in rows)

    def build() -> Any:
        return (
            response(rows)
            .ui_block(ui.summary(f"{len(rows)} invoices, {total / 100:.2f} EUR"))
            .system_rules(["Amounts are in cents: divide by 100.", "Dates are ISO 8601."])
            .build()
        )

    built = build()
    assert built["content"][0]["text"] == orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()
    baseline = best_of(lambda: orjson.dumps(rows, option=orjson.OPT_INDENT_2))
    measured = {
        "orjson.dumps(rows, OPT_INDENT_2)": baseline,
        "json.dumps(rows, indent=2)": best_of(
            lambda: json.dumps(rows, indent=2, ensure_ascii=False), repeat=3
        ),
        "to_json(rows)": best_of(lambda: to_json(rows)),
        "response(rows).ui_block().system_rules().build()": best_of(build),
        "toon_success(rows)": best_of(lambda: toon_success(rows), repeat=5),
    }
    print(f"10,000 invoice rows ({len(built['content'][0]['text']):,} bytes of JSON)")
    for name, seconds in measured.items():
        print(f"  {name:<52} {seconds * 1000:8.2f} ms  {seconds / baseline:6.2f}x orjson")
    toon_ratio = measured["toon_success(rows)"] / measured["to_json(rows)"]
    print(f"  toon_success / data block JSON: {toon_ratio:.2f}x")
    builder_ratio = measured["response(rows).ui_block().system_rules().build()"] / baseline
    print(f"builder target <= 1.50x orjson: {'met' if builder_ratio <= 1.5 else 'MISSED'}")


if __name__ == "__main__":
    main()
