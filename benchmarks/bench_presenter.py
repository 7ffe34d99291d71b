"""The full Presenter pipeline against orjson alone, on the same invoice rows.

Pipeline = validate + mask (undeclared and hidden fields dropped), rules,
collection UI (a table-free summary with a total), collection suggestions and
``build()`` (JSON of the data block, every block's text). Two baselines,
measured in the same rounds (see ``_harness``):

- ``orjson.dumps(rows, option=OPT_INDENT_2)`` of the raw rows: goal <= 5x at
  10k rows (issue 28; it applies without the C accelerator too), <= 6x at 100k;
- **the pydantic floor**, what validating and writing the same rows costs
  with pydantic alone: ``TypeAdapter(list[Invoice])``'s ``validate_python``
  then ``dump_json(indent=2)`` (undeclared and hidden fields dropped too, no
  rules, UI or suggestions): goal <= 1.15x;
- **the Mask floor**, what no Presenter pipeline can go under without giving
  up what it checks: the Presenter's one pydantic-core validator call over
  the rows (its :class:`~fusion_core._present._mask.Mask`, hidden fields
  validated and dropped), ``orjson.dumps(INDENT_2)`` of what it keeps,
  decoded to the ``str`` a text block is, and the Presenter's own callbacks
  (the collection UI, rules and suggestions above): goal <= 1.10x. It says
  how much of the orjson ratio is the pipeline's own (rules, UI blocks, the
  seal, the build) and how much is validation and writing.

Run: ``.venv/bin/python benchmarks/bench_presenter.py [--rounds N]``
"""

from __future__ import annotations

from typing import Any, Literal

import orjson
from _harness import header, options, ratios_of, report, times_of
from pydantic import MISSING, BaseModel, Field, TypeAdapter

from fusion_core import ui
from fusion_core._present._mask import Mask
from fusion_core._present._presenter import Presenter


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


def collection_rules(items: list[dict[str, Any]], _ctx: Any) -> list[str]:
    return [f"{len(items)} invoices listed."]


def collection_suggest(items: list[dict[str, Any]], _ctx: Any) -> list[tuple[str, str] | None]:
    return [("billing.remind", "Remind overdue clients") if len(items) > 10 else None]


PRESENTER = Presenter(
    "Invoice",
    Invoice,
    rules=["CRITICAL: amount_cents is in CENTS. Divide by 100 before display."],
    collection_rules=collection_rules,
    collection_ui=collection_ui,
    collection_suggest=collection_suggest,
)


TARGETS = {10_000: 5.0, 100_000: 6.0}  # over orjson.dumps(INDENT_2)
FLOOR_TARGET = 1.15  # over the pydantic floor
MASK_FLOOR_TARGET = 1.10  # over the Mask floor
ADAPTER: TypeAdapter[list[Invoice]] = TypeAdapter(list[Invoice])
MASK = Mask(Invoice)
assert MASK.fast, "the rows take the Mask's derived schema"
assert MASK.float_free, "the Mask's rows are written without the float scan"


def pydantic_floor(data: list[dict[str, Any]]) -> bytes:
    """Validate the rows into models and write them, with pydantic alone."""
    return ADAPTER.dump_json(ADAPTER.validate_python(data), indent=2)


def mask_floor(data: list[dict[str, Any]]) -> str:
    """Validate and mask the rows, write them and run the Presenter's callbacks: nothing else."""
    kept = MASK.many(data)
    text = orjson.dumps(kept, option=orjson.OPT_INDENT_2).decode()
    collection_ui(kept, None)
    collection_rules(kept, None)
    collection_suggest(kept, None)
    return text


def main() -> None:
    """The pipeline's ratios at 10k and 100k rows, to orjson and to the pydantic floor."""
    args = options(__doc__, rounds=9)
    header("bench_presenter: Presenter.make(rows).build() / orjson.dumps(rows, OPT_INDENT_2)")
    for count in (10_000, 100_000):
        data = rows(count)
        written = orjson.loads(PRESENTER.make(data).build()["content"][0]["text"])
        assert written == orjson.loads(pydantic_floor(data)), "the floor writes the same data"
        assert written == orjson.loads(mask_floor(data)), "the Mask floor writes the same data"
        times = times_of(
            {
                "orjson.dumps(INDENT_2)": lambda data=data: orjson.dumps(  # type: ignore[misc]
                    data, option=orjson.OPT_INDENT_2
                ),
                "pydantic floor": lambda data=data: pydantic_floor(data),  # type: ignore[misc]
                "Mask floor": lambda data=data: mask_floor(data),  # type: ignore[misc]
                "Presenter pipeline": lambda data=data: PRESENTER.make(data).build(),  # type: ignore[misc]
            },
            rounds=args.rounds if count == 10_000 else max(3, args.rounds // 3),
        )
        case = f"{count // 1000}k rows"
        for baseline, target in (
            ("orjson.dumps(INDENT_2)", TARGETS[count]),
            ("pydantic floor", FLOOR_TARGET),
            ("Mask floor", MASK_FLOOR_TARGET),
        ):
            ratio = ratios_of(baseline, times)["Presenter pipeline"]
            case_of = case if baseline.startswith("orjson") else f"{case}, vs the {baseline}"
            report("presenter", case_of, ratio, candidate="Presenter pipeline", target=target)


if __name__ == "__main__":
    main()
