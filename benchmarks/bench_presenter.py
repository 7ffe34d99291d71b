"""The full Presenter pipeline against orjson alone, on the same invoice rows.

Pipeline = validate + mask (undeclared and hidden fields dropped), rules,
collection UI (a table-free summary with a total), collection suggestions and
``build()`` (JSON of the data block, every block's text). The baseline is
``orjson.dumps(rows, option=OPT_INDENT_2)`` of the raw rows. Each figure is the
best of N runs, measured in the same process, so the ratio is what counts.

Run: ``.venv/bin/python benchmarks/bench_presenter.py``
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

import orjson
from pydantic import MISSING, BaseModel, Field

from fusion_core import ui
from fusion_core._presenter import Presenter


class Invoice(BaseModel):
    id: str
    client: str
    amount_cents: int = Field(description="Amount in CENTS; divide by 100")
    currency: str
    status: Literal["paid", "pending", "overdue"]
    due: str
    note: str | MISSING = MISSING
    internal_margin: int = Field(default=0, exclude=True)


STATUSES = ("paid", "pending", "overdue")


def rows(count: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"INV-{i:06d}",
            "client": f"Client {i % 97}",
            "amount_cents": 1000 + i * 7,
            "currency": "EUR",
            "status": STATUSES[i % 3],
            "due": "2025-01-31",
            "password_hash": "pbkdf2$deadbeef",
            "internal_margin": 17,
            **({"note": "call before paying"} if i % 5 == 0 else {}),
        }
        for i in range(count)
    ]


def collection_ui(items: list[dict[str, Any]], _ctx: Any) -> list[ui.UiBlock]:
    total = sum(item["amount_cents"] for item in items)
    return [ui.summary(f"{len(items)} invoices, {total / 100:.2f} EUR in total.")]


PRESENTER = Presenter(
    "Invoice",
    Invoice,
    rules=["CRITICAL: amount_cents is in CENTS. Divide by 100 before display."],
    collection_rules=lambda items, _ctx: [f"{len(items)} invoices listed."],
    collection_ui=collection_ui,
    collection_suggest=lambda items, _ctx: [
        ("billing.remind", "Remind overdue clients") if len(items) > 10 else None
    ],
)


def best(function: Callable[[], object], runs: int) -> float:
    fastest = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        function()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest


def measure(count: int, runs: int) -> tuple[float, float]:
    data = rows(count)
    baseline = best(lambda: orjson.dumps(data, option=orjson.OPT_INDENT_2), runs)
    pipeline = best(lambda: PRESENTER.make(data).build(), runs)
    return baseline, pipeline


def main() -> None:
    for count, runs in ((10_000, 15), (100_000, 5)):
        baseline, pipeline = measure(count, runs)
        print(
            f"{count:>7} rows: orjson {baseline * 1000:7.2f} ms, "
            f"pipeline {pipeline * 1000:7.2f} ms, ratio {pipeline / baseline:4.2f}x"
        )


if __name__ == "__main__":
    main()
