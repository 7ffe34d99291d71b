"""Cost of the gate's per-result review under ``--fusion``, against ``check()`` alone.

Every checked result is read once by ``check(wire, strict=True)`` (the strict
rules ride along with the default ones), then scanned for forbidden fields
and canaries and its suggestions checked against ``tools/list``. This prints,
for results of 10, 100 and 1,000 invoice rows, the time of each step as a
ratio of ``check(wire)`` alone, per interleaved round (see ``_harness``).

Run: ``.venv/bin/python benchmarks/bench_gate.py [--rounds N]``.
"""

from __future__ import annotations

from _harness import compare, header, options, report
from _rows import invoice_rows

from fusion_core import check, response, ui, view_of
from pytest_mcpfusion import FusionResult
from pytest_mcpfusion._contract._forbidden import Forbidden, unknown_references

DEFINITIONS = [{"name": "billing", "inputSchema": {"type": "object"}}]
FORBIDDEN = Forbidden.of(["password", "internal_margin", "stripe_customer_secret"], ["CANARY-7f"])


def main() -> None:
    """Print (and record) the ratios."""
    args = options(__doc__, rounds=9)
    header("bench_gate: the --fusion review steps / check(wire)")
    for count in (10, 100, 1000):
        built = (
            response(invoice_rows(count))
            .ui_block(ui.summary(f"{count} invoices"))
            .system_rules(["Amounts are in cents."])
            .system_hint([("billing", "open one")])
            .build()
        )
        wire = dict(built)
        result = FusionResult(wire, view_of(built), tool="billing", arguments={})
        ratios = compare(
            "check",
            {
                "check": lambda wire=wire: check(wire),  # type: ignore[misc]
                "check(strict=True)": lambda wire=wire: check(wire, strict=True),  # type: ignore[misc]
                "forbidden scan": lambda result=result: FORBIDDEN.scan(result),  # type: ignore[misc]
                "references": lambda result=result: unknown_references(result, DEFINITIONS),  # type: ignore[misc]
            },
            rounds=args.rounds,
            inner=max(4, 4000 // count),
        )
        for name, ratio in ratios.items():
            report("gate", f"{count} rows", ratio, candidate=name)


if __name__ == "__main__":
    main()
