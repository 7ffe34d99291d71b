"""Turn the figures of a ``./dev bench`` run into results JSON and a static SVG chart.

``_harness.report`` appends one JSON line per figure to the file named by
``FUSION_BENCH_RESULTS``; ``./dev bench`` then runs this script, which
writes ``benchmarks/results.json`` (every figure, with the run's date and
machine) and ``docs/performance.svg``: the headline ratios (those with a
target, and toon_success), median as a bar, interquartile range as a thick
whisker and min-max as a thin one, C accelerator on and off side by side,
on a logarithmic axis with the target marked. No network, no plotting
library: the SVG is written by hand.

Run: ``.venv/bin/python benchmarks/chart.py RESULTS.jsonl [results.json] [chart.svg]``.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import sys
from html import escape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LOW, HIGH = 0.25, 32.0  # the axis, as ratios (logarithmic)
LEFT, WIDTH, ROW, BAR = 330, 420, 34, 11
COLOURS = {True: "#2f6db5", False: "#e08a2c"}


def headline(figure: dict[str, Any]) -> bool:
    """Whether a figure goes on the chart (both states of it): a target, or TOON's.

    Of the serving figures (one per transport, protocol version, shape, call
    and baseline), only the newest protocol's against the fair baseline,
    ``bare``: the others are in results.json.
    """
    if figure["bench"] == "serve":
        return "2026-07-28" in figure["case"] and figure["case"].endswith(", vs bare")
    return figure["target"] is not None or figure["candidate"] == "toon_success"


def x_of(ratio: float) -> float:
    """The horizontal position of ``ratio`` on the logarithmic axis."""
    clipped = min(max(ratio, LOW), HIGH)
    return LEFT + WIDTH * math.log(clipped / LOW) / math.log(HIGH / LOW)


def svg(figures: list[dict[str, Any]]) -> str:
    """The chart of the headline figures."""
    charted = {(f["bench"], f["candidate"], f["case"]) for f in figures if headline(f)}
    rows: dict[tuple[str, str, str], dict[bool, dict[str, Any]]] = {}
    for figure in figures:
        key = (figure["bench"], figure["candidate"], figure["case"])
        if key in charted:
            rows.setdefault(key, {})[figure["speedups"]] = figure
    height = 70 + ROW * len(rows) + 40
    legend = (
        f'<rect x="10" y="32" width="12" height="10" fill="{COLOURS[True]}"/>'
        '<text x="26" y="41">C accelerator on</text>'
        f'<rect x="150" y="32" width="12" height="10" fill="{COLOURS[False]}"/>'
        '<text x="166" y="41">off (FUSION_NO_SPEEDUPS=1)</text>'
        '<line x1="330" y1="37" x2="342" y2="37" stroke="#c00" stroke-width="2"/>'
        '<text x="346" y="41">target</text>'
    )
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 80}" '
            f'height="{height}" font-family="sans-serif" font-size="12">'
        ),
        '<rect width="100%" height="100%" fill="white"/>',
        (
            '<text x="10" y="20" font-size="14" font-weight="bold">Time as a ratio to the baseline '
            "(median, IQR, min-max; lower is better)</text>"
        ),
        legend,
    ]
    top = 60
    tick = LOW
    while tick <= HIGH:
        x = x_of(tick)
        parts.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ROW * len(rows)}" '
            f'stroke="{"#888" if tick == 1 else "#ddd"}"/>'
            f'<text x="{x:.1f}" y="{top + ROW * len(rows) + 15}" text-anchor="middle">'
            f"{tick:g}x</text>"
        )
        tick *= 2
    for index, ((bench, candidate, case), by_state) in enumerate(rows.items()):
        y = top + ROW * index
        any_figure = next(iter(by_state.values()))
        label = f"{bench}: {candidate} / {any_figure['baseline']}"
        parts.append(f'<text x="{LEFT - 8}" y="{y + 13}" text-anchor="end">{escape(label)}</text>')
        parts.append(
            f'<text x="{LEFT - 8}" y="{y + 26}" text-anchor="end" fill="#555">{escape(case)}</text>'
        )
        for offset, state in ((3, True), (3 + BAR + 2, False)):
            shown = by_state.get(state)
            if shown is None:
                continue
            colour, bar_y = COLOURS[state], y + offset
            middle = bar_y + BAR / 2
            parts.append(
                f'<rect x="{LEFT}" y="{bar_y}" width="{x_of(shown["median"]) - LEFT:.1f}" '
                f'height="{BAR}" fill="{colour}" fill-opacity="0.75"/>'
                f'<line x1="{x_of(shown["min"]):.1f}" y1="{middle}" '
                f'x2="{x_of(shown["max"]):.1f}" y2="{middle}" stroke="black"/>'
                f'<line x1="{x_of(shown["q1"]):.1f}" y1="{middle}" '
                f'x2="{x_of(shown["q3"]):.1f}" y2="{middle}" stroke="black" stroke-width="3"/>'
                f'<text x="{LEFT + WIDTH + 6}" y="{bar_y + BAR - 1}" font-size="10">'
                f"{shown['median']:.2f}x</text>"
            )
        target = next((f["target"] for f in by_state.values() if f["target"]), None)
        if target is not None:
            x = x_of(target)
            parts.append(
                f'<line x1="{x:.1f}" y1="{y + 1}" x2="{x:.1f}" y2="{y + 2 * BAR + 7}" '
                'stroke="#c00" stroke-width="2"/>'
            )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    """Read the JSON lines; write the results file and the chart."""
    source = Path(sys.argv[1])
    results = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "benchmarks" / "results.json"
    chart = Path(sys.argv[3]) if len(sys.argv) > 3 else ROOT / "docs" / "performance.svg"
    figures = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    document = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs (shared)",
        "python": platform.python_version(),
        "figures": figures,
    }
    results.write_text(json.dumps(document, indent=2) + "\n")
    chart.write_text(svg(figures))
    print(f"{len(figures)} figures: {results}, {chart}")


if __name__ == "__main__":
    main()
