"""Parse speed: parse(build(rows)) from 1k to 1M rows, and a 10,000-row response vs json.loads.

Run: ``.venv/bin/python benchmarks/bench_parse.py [--rounds N] [--quick]``
(``--quick`` stops at 100k rows). Every number is measured in the same run,
and the claims are printed as ratios, not absolute times. Times are CPU time
of this process (a loaded machine preempts long runs more than short ones,
which wall time would count as superlinearity); the 10k ratios are per
interleaved round with their spread (see ``_harness``).

Claims (issue 13):

* ``parse()`` reads whatever ``build()`` writes, at any size up to the
  ``_limits`` policy: 1k, 10k, 100k and 1M rows all parse;
* it is linear: the time per row stays flat from 10k rows up (1k rows fit
  the caches, so they are cheaper per row);
* a response parses in at most 0.7x the time ``json.loads`` takes for its
  data block alone, with the C helper, at every size from 1k to 1M rows
  (issue 28; the 10k figure with its spread, the others as the best of a few
  runs); the pure-Python fallback reads the same view, more slowly;
* memory: building and parsing 100k rows grows the process's peak RSS by at
  most 1.3x what ``orjson.dumps(rows, OPT_INDENT_2)`` and ``json.loads`` of
  that text do (each measured in a fresh child process, both results kept
  alive, as a test that builds and reads a response keeps them).

``python benchmarks/bench_parse.py memory fusion|orjson N`` is the memory
figure's child-process entry point.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import subprocess
import sys
from collections.abc import Callable
from typing import TypeVar

from _harness import Ratio, compare, header, ratios_of, report, times_of

import fusion_core as fc
from fusion_core._read._check import check
from fusion_core._read._parse import parse
from fusion_core._write import _json

T = TypeVar("T")
TARGET = 0.7
MEMORY_TARGET = 1.3


def rows(count: int) -> list[dict[str, object]]:
    """Invoice-like rows."""
    return [
        {"id": f"INV-{i}", "cents": i * 37, "status": "paid", "rate": i / 7, "ok": i % 2 == 0}
        for i in range(count)
    ]


def built(count: int) -> fc.ToolResponse:
    """The response a tool returns for ``count`` rows: data, a rule and a hint."""
    return (
        fc.response(rows(count))
        .system_rules(["Amounts are in cents."])
        .system_hint([("invoices.get", "see one")])
        .build()
    )


def linearity(sizes: tuple[int, ...]) -> None:
    """parse(build(rows)) at each size: it reads, its time per row, its ratio to json.loads.

    The ratio is per interleaved round (``_harness``); the time per row is the
    best of the rounds.
    """
    print("parse(build(rows)) — reads what the writer writes, linearly:")
    per_row: dict[int, float] = {}
    loads_per_row: dict[int, float] = {}
    for count in sizes:
        response = built(count)
        size = len(response.texts[0])
        text = response.texts[0]
        times = times_of(
            {
                "json.loads": lambda text=text: json.loads(text),  # type: ignore[misc]
                "parse": lambda response=response: parse(response),  # type: ignore[misc]
            },
            rounds=3 if count >= 1_000_000 else 7,
        )
        ratio = ratios_of("json.loads(data block)", {"json.loads(data block)": times["json.loads"],
                                                     "parse": times["parse"]})["parse"]  # fmt: skip
        seconds, loads = min(times["parse"]), min(times["json.loads"])
        per_row[count] = seconds / count
        loads_per_row[count] = loads / count
        goal = f"goal <= {TARGET}x: {'holds' if ratio.median <= TARGET else 'MISSED'}"
        print(
            f"  {count:>9,} rows  {size / 1e6:8.1f} MB  parse {seconds * 1000:9.1f} ms  "
            f"{seconds / count * 1e6:6.2f} us/row  ({goal})"
        )
        report("parse", f"{count:,} rows", ratio, candidate="parse(ToolResponse)", target=TARGET)
        del response, text
        gc.collect()
    smallest = min(count for count in per_row if count >= 10_000)
    largest = max(per_row)
    print(
        f"  time per row, {largest:,} / {smallest:,} rows: "
        f"{per_row[largest] / per_row[smallest]:.2f}x (1.0 = linear); json.loads of the "
        f"same data blocks: {loads_per_row[largest] / loads_per_row[smallest]:.2f}x"
    )
    if 100_000 in per_row and largest > 100_000:
        print(
            f"  time per row, {largest:,} / 100,000 rows (both beyond the caches): "
            f"{per_row[largest] / per_row[100_000]:.2f}x"
        )


def ratio_10k(rounds: int) -> None:
    """The 13.3 target: parse of 10k rows vs json.loads of its data block."""
    response = fc.response(rows(10_000)).system_rules(["Amounts are in cents."]).build()
    data_text = response.texts[0]
    wire_text = json.dumps(response)
    assert parse(response).view == _pure_python(lambda: parse(response).view)
    ratios = compare(
        "json.loads(data block)",
        {
            "json.loads(data block)": lambda: json.loads(data_text),
            "parse(ToolResponse)": lambda: parse(response),
            "parse(wire JSON str)": lambda: parse(wire_text),
            "check(ToolResponse)": lambda: check(response),
            "parse, pure-Python check": lambda: _pure_python(lambda: parse(response)),
        },
        rounds=rounds,
    )
    print(f"10,000 rows ({len(data_text):,} bytes of data); baseline json.loads(data block):")
    for name, ratio in ratios.items():
        target = TARGET if name == "parse(ToolResponse)" and _json.SPEEDUPS else None
        report("parse", "10k rows", ratio, candidate=name, target=target)


def _pure_python(function: Callable[[], T]) -> T:
    """``function()`` with the canonical-JSON check on its pure-Python path."""
    original = _json._rewrites_to
    _json._rewrites_to = _json._rewrites_to_regex
    try:
        return function()
    finally:
        _json._rewrites_to = original


def _rss_kib() -> int:
    """This process's resident set now, in KiB (Linux ``/proc``)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() // 1024


def memory_child(which: str, count: int) -> None:
    """Child process: print the peak RSS growth (KiB) of one build + parse, or its baseline."""
    import orjson  # noqa: PLC0415

    data = rows(count)
    gc.collect()
    before = _rss_kib()
    kept: object
    if which == "fusion":
        response = fc.response(data).build()
        kept = (response, parse(response))
    else:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2)
        kept = (text, json.loads(text))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(peak - before)
    del kept


def memory(count: int, rounds: int) -> None:
    """Peak RSS growth of build + parse / orjson.dumps + json.loads, fresh processes."""

    def growth(which: str) -> int:
        command = [sys.executable, __file__, "memory", which, str(count)]
        return int(subprocess.run(command, check=True, capture_output=True, text=True).stdout)

    fusion: list[int] = []
    base: list[int] = []
    for round_ in range(rounds):
        for which in ("fusion", "orjson") if round_ % 2 == 0 else ("orjson", "fusion"):
            (fusion if which == "fusion" else base).append(growth(which))
    samples = tuple(f / b for f, b in zip(fusion, base, strict=True))
    ratio = Ratio("orjson.dumps + json.loads", samples, statistics.median(base) / 1024)
    print(
        f"peak RSS growth, {count:,} rows: build + parse {statistics.median(fusion) / 1024:.1f} "
        f"MiB, orjson.dumps(INDENT_2) + json.loads {statistics.median(base) / 1024:.1f} MiB"
    )
    report(
        "parse", f"{count // 1000}k rows, peak RSS growth", ratio, candidate="build + parse",
        target=MEMORY_TARGET,
    )  # fmt: skip


def main() -> None:
    """Print the 10k-row ratios, the memory figure and the ratios from 1k to 1M rows."""
    if sys.argv[1:2] == ["memory"]:
        memory_child(sys.argv[2], int(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=9, help="measured rounds of the 10k ratios")
    parser.add_argument("--quick", action="store_true", help="stop the linearity at 100k rows")
    args = parser.parse_args()
    quick = args.quick
    header("bench_parse: parse(build(rows)) / json.loads(data block)")
    ratio_10k(args.rounds)
    memory(100_000, max(3, args.rounds // 3))
    linearity((1_000, 10_000, 100_000) if quick else (1_000, 10_000, 100_000, 1_000_000))


if __name__ == "__main__":
    main()
