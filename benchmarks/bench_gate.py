"""Cost of the gate's per-result review under ``--fusion``, against ``check()`` alone.

Every checked result is read once by ``check(wire, strict=True)`` (the strict
rules ride along with the default ones), then scanned for forbidden fields
and canaries and its suggestions checked against ``tools/list``. This prints,
for results of 10, 100 and 1,000 invoice rows, the time of each step as a
ratio of ``check(wire)`` alone, measured in one run (best of ``--runs``).

Run: ``.venv/bin/python benchmarks/bench_gate.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from _rows import invoice_rows

from fusion_core import check, response, ui, view_of
from pytest_mcpfusion import FusionResult
from pytest_mcpfusion._forbidden import Forbidden, unknown_references

DEFINITIONS = [{"name": "billing", "inputSchema": {"type": "object"}}]
FORBIDDEN = Forbidden.of(["password", "internal_margin", "stripe_customer_secret"], ["CANARY-7f"])


def _best(step: Callable[[], object], runs: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(repeat):
            step()
        best = min(best, time.perf_counter() - start)
    return best / repeat


def main() -> None:
    """Print the ratios."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    print(f"{'rows':>6} {'check ms':>9} {'strict':>7} {'forbidden':>10} {'references':>11}")
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
        repeat = max(1, 2000 // count)
        base = _best(lambda: check(wire), runs, repeat)  # noqa: B023 - measured at once
        strict = _best(lambda: check(wire, strict=True), runs, repeat)  # noqa: B023
        scan = _best(lambda: FORBIDDEN.scan(result), runs, repeat)  # noqa: B023
        refs = _best(lambda: unknown_references(result, DEFINITIONS), runs, repeat)  # noqa: B023
        print(
            f"{count:>6} {base * 1000:>9.3f} {strict / base:>7.2f} {scan / base:>10.2f} "
            f"{refs / base:>11.3f}"
        )


if __name__ == "__main__":
    main()
