"""Cost of the wire engine relative to orjson, measured in one run.

``response(rows).ui_block(...).system_rules(...).build()`` on 10,000 invoice
rows against ``orjson.dumps(rows, option=OPT_INDENT_2)`` (target: <= 1.5x on
ASCII rows), with ``to_json(rows)`` (the data block alone) beside it.
Ratios, not absolute times: these machines are shared and noisy (see
``_harness``). TOON is measured by ``bench_toon.py``.

Two row sets: ASCII-only text, and the same rows with a Portuguese note in
one row of five. MCP text blocks are Python ``str``; turning orjson's UTF-8
bytes into a ``str`` is a decode that costs little for ASCII and, for
non-ASCII text, more than orjson itself. The "floor" figure measures exactly
that: ``orjson.dumps(...).decode()``, which no str-producing encoder can beat.

Run: ``.venv/bin/python benchmarks/bench_builder.py [--rounds N]``.
"""

from __future__ import annotations

from typing import Any

import orjson
from _harness import compare, header, options, report
from _rows import invoice_rows

from fusion_core import response, to_json, ui

TARGET = 1.5


def measure(rows: list[dict[str, Any]], case: str, rounds: int) -> None:
    """Print (and record) one row set's ratios to orjson."""
    total = sum(row["amount_cents"] for row in rows)

    def build() -> Any:
        return (
            response(rows)
            .ui_block(ui.summary(f"{len(rows)} invoices, {total / 100:.2f} EUR"))
            .system_rules(["Amounts are in cents: divide by 100.", "Dates are ISO 8601."])
            .build()
        )

    expected = orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()
    assert build()["content"][0]["text"] == expected, "the data block must be orjson's JSON"
    ratios = compare(
        "orjson.dumps(INDENT_2)",
        {
            "orjson.dumps(INDENT_2)": lambda: orjson.dumps(rows, option=orjson.OPT_INDENT_2),
            "floor: orjson + decode": lambda: orjson.dumps(
                rows, option=orjson.OPT_INDENT_2
            ).decode(),
            "to_json": lambda: to_json(rows),
            "build()": build,
        },
        rounds=rounds,
        inner=2,
    )
    target = TARGET if case.startswith("ASCII") else None
    for name, ratio in ratios.items():
        report("builder", case, ratio, candidate=name, target=target if name == "build()" else None)


def main() -> None:
    """Both row sets."""
    args = options(__doc__, rounds=11)
    header("bench_builder: response(rows)...build() / orjson.dumps(rows, OPT_INDENT_2)")
    measure(invoice_rows(10_000, ascii_only=True), "ASCII, 10k rows", args.rounds)
    measure(invoice_rows(10_000), "non-ASCII, 10k rows", args.rounds)


if __name__ == "__main__":
    main()
