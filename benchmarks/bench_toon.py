"""toon_success against orjson on the same rows, measured in one run.

``toon_success(rows)`` (the default pipe delimiter) on 10,000 and 100,000
invoice rows, with ASCII-only and with non-ASCII text, with and without the
float column (``tax_rate``), as a ratio to ``orjson.dumps(rows)`` (compact
JSON, the cheapest serialization there is) and, for scale, ``to_json(rows)``
(the data block of a JSON response) over the same baseline.

Issue 13 asked for toon_success at least 1.5x faster than before on each of
these; before, the ratios were about 16x to_json's cost and 25-31x orjson's.

Run: ``.venv/bin/python benchmarks/bench_toon.py [--rounds N]``.
"""

from __future__ import annotations

from typing import Any

import orjson
from _harness import compare, header, options, report
from _rows import invoice_rows

from fusion_core import to_json, toon_success


def without_floats(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows without their float column."""
    return [{key: value for key, value in row.items() if key != "tax_rate"} for row in rows]


def main() -> None:
    """Print (and record) each case's ratios."""
    args = options(__doc__, rounds=7)
    header("bench_toon: toon_success(rows) / orjson.dumps(rows)")
    for count in (10_000, 100_000):
        rounds = args.rounds if count == 10_000 else max(3, args.rounds // 2)
        for ascii_only in (True, False):
            with_floats = invoice_rows(count, ascii_only=ascii_only)
            for floats, rows in ((True, with_floats), (False, without_floats(with_floats))):
                case = (
                    f"{count // 1000}k rows, {'ASCII' if ascii_only else 'non-ASCII'}, "
                    f"{'with' if floats else 'no'} floats"
                )
                ratios = compare(
                    "orjson.dumps",
                    {
                        "orjson.dumps": lambda rows=rows: orjson.dumps(rows),  # type: ignore[misc]
                        "toon_success": lambda rows=rows: toon_success(rows),  # type: ignore[misc]
                        "to_json": lambda rows=rows: to_json(rows),  # type: ignore[misc]
                    },
                    rounds=rounds,
                )
                report("toon", case, ratios["toon_success"], candidate="toon_success")
                report("toon", case, ratios["to_json"], candidate="to_json")


if __name__ == "__main__":
    main()
