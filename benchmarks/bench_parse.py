"""Parse speed: linear in input size, and a 10,000-row response vs json.loads.

Run: ``.venv/bin/python benchmarks/bench_parse.py``. Every number is measured
in the same run, and the claims are printed as ratios, not absolute times.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial

import fusion_core as fc
from fusion_core import ui
from fusion_core._check import check
from fusion_core._parse import parse


def best(function: Callable[[], object], repeat: int = 7) -> float:
    """The best wall time of ``repeat`` runs, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def rows(count: int) -> list[dict[str, object]]:
    """Invoice-like rows."""
    return [
        {"id": f"INV-{i}", "cents": i * 37, "status": "paid", "rate": i / 7, "ok": i % 2 == 0}
        for i in range(count)
    ]


def sized(target: int) -> fc.ToolResponse:
    """A response of about ``target`` bytes: data, UI, hostile rules, suggestions."""
    count = max(1, target // 110)
    return (
        fc.response(rows(count))
        .ui_block(ui.table(["id", "status"], [[f"r{i}", "a|b"] for i in range(count // 20)]))
        .llm_hint("Amounts are in cents.")
        .system_rules([f"rule {i} <b> & line\nmore" for i in range(count // 20)])
        .system_hint([("invoices.get", "see one")])
        .build()
    )


def main() -> None:
    """Print the linearity and the 10k-row ratios."""
    print("linearity (parse of the wire JSON text):")
    per_byte: dict[str, float] = {}
    loads_per_byte: dict[str, float] = {}
    for label, target in (("1 MB", 1_000_000), ("5 MB", 5_000_000), ("10 MB", 10_000_000)):
        text = json.dumps(sized(target)).encode()
        seconds = best(partial(parse, text), repeat=3)
        per_byte[label] = seconds / len(text)
        loads_per_byte[label] = best(partial(json.loads, text), repeat=3) / len(text)
        print(f"  {label:>5}: {len(text):>10,} bytes  {seconds * 1000:8.1f} ms")
    ratio = per_byte["10 MB"] / per_byte["1 MB"]
    loads_ratio = loads_per_byte["10 MB"] / loads_per_byte["1 MB"]
    print(f"  time per byte, 10 MB / 1 MB: {ratio:.2f}x (1.0 = linear)")
    # The same texts through json.loads alone: what the memory hierarchy costs
    # a linear pass once 10 MB no longer fits the caches.
    print(f"  json.loads of the same texts, 10 MB / 1 MB: {loads_ratio:.2f}x")
    print(f"  parse's scaling relative to json.loads': {ratio / loads_ratio:.2f}x")
    # 1 MB fits the caches and reuses warm memory; 5 and 10 MB do not. Between
    # two sizes in the same regime the time per byte is what linearity means.
    beyond = per_byte["10 MB"] / per_byte["5 MB"]
    print(f"  time per byte, 10 MB / 5 MB (both beyond the caches): {beyond:.2f}x")

    response = fc.response(rows(10_000)).system_rules(["Amounts are in cents."]).build()
    data_text = response.texts[0]
    wire_text = json.dumps(response)
    baseline = best(lambda: json.loads(data_text))
    from_response = best(lambda: parse(response))
    from_text = best(lambda: parse(wire_text))
    checked = best(lambda: check(response))
    print(f"10,000 rows ({len(data_text):,} bytes of data); baseline json.loads(data block):")
    print(f"  parse(ToolResponse)  / json.loads: {from_response / baseline:.2f}x (target <= 1.5)")
    print(f"  parse(wire JSON str) / json.loads: {from_text / baseline:.2f}x")
    print(f"  check(ToolResponse)  / json.loads: {checked / baseline:.2f}x")


if __name__ == "__main__":
    main()
