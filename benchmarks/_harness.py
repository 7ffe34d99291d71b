"""Shared measurement for the benchmarks: ratios with their spread, in one run.

A figure from these machines is only worth something as a ratio between
two things measured side by side (8 agents share 2 cores). So every
benchmark times a baseline and its candidates in *rounds*: each round
measures each of them once, in a rotating order, so that noise lands on
both sides of a ratio; the ratio is computed per round, and the median,
quartiles and extremes of those ratios are reported. Times are the CPU
time of this process (``time.process_time``) or of a child process
(``resource.getrusage``), which a preempted process does not accumulate.

Each benchmark script calls :func:`compare` (or builds a :class:`Ratio` from
its own samples) and :func:`report`, which prints one line and, when
``./dev bench`` set ``FUSION_BENCH_RESULTS``, appends the figure to that
JSON Lines file with the state of the C accelerator (``FUSION_NO_SPEEDUPS``).
``benchmarks/chart.py`` turns the file into the chart of docs/performance.md.

Adopting it in a new ``bench_*.py``::

    from _harness import compare, options, report

    args = options(__doc__)
    ratios = compare("orjson", {"orjson": base, "mine": mine}, rounds=args.rounds)
    report("mine", "10k rows", ratios["mine"], target=1.5)
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

RESULTS_VARIABLE = "FUSION_BENCH_RESULTS"
ROOT: Final = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True)
class Ratio:
    """A candidate's time over the baseline's, one sample per round."""

    baseline: str
    samples: tuple[float, ...]
    baseline_seconds: float
    """The baseline's median time, to give the ratios a scale."""

    @property
    def median(self) -> float:
        """The median ratio."""
        return statistics.median(self.samples)

    @property
    def quartiles(self) -> tuple[float, float]:
        """The first and third quartile of the ratios (the median twice for one sample)."""
        if len(self.samples) < 2:
            return self.median, self.median
        q1, _, q3 = statistics.quantiles(self.samples, n=4, method="inclusive")
        return q1, q3

    def describe(self) -> str:
        """``1.23x (IQR 1.20-1.30, min-max 1.10-1.45, 9 rounds)``."""
        q1, q3 = self.quartiles
        return (
            f"{self.median:6.2f}x (IQR {q1:.2f}-{q3:.2f}, min-max {min(self.samples):.2f}-"
            f"{max(self.samples):.2f}, {len(self.samples)} rounds)"
        )


# A child Python process runs as an installed package does: with its
# bytecode. A machine that sets PYTHONDONTWRITEBYTECODE (these do) would
# otherwise compile every module of fusion_core and pytest_mcpfusion from
# source in every child, which the side of a ratio that imports more of them
# pays most (the gate over the plain suite: about 0.5 s of CPU a run).
# Read by pytest, syrupy or xdist: left set (e.g. when a benchmark runs from
# a test suite under -n), they would change the inner runs.
_CHILD_DROPPED: Final = frozenset(
    {
        "CI",
        "PYTEST_ADDOPTS",
        "PYTEST_PLUGINS",
        "PYTEST_XDIST_TESTRUNUID",
        "PYTEST_XDIST_WORKER",
        "PYTEST_XDIST_WORKER_COUNT",
        "PYTHONDONTWRITEBYTECODE",
    }
)


def child_environment(*paths: Path | str) -> dict[str, str]:
    """The environment of a child Python: this one, bytecode on, ``paths`` first on ``PYTHONPATH``.

    Without what would change how an inner pytest runs (``PYTEST_ADDOPTS``,
    ``PYTEST_PLUGINS``, ``CI``). The project's packages are compiled once
    (``compileall``, into their ``__pycache__``, which git ignores), as
    ``pip install`` compiles an installed wheel's.
    """
    environment = _base_environment()
    _compile_once()
    environment["PYTHONPATH"] = os.pathsep.join(
        [*map(str, paths), *filter(None, [environment.get("PYTHONPATH")])]
    )
    return environment


@functools.cache
def _compile_once() -> None:
    """The project's packages compiled into their ``__pycache__`` (once per run)."""
    packages = [str(ROOT / name) for name in ("fusion_core", "pytest_mcpfusion", "examples")]
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *packages],
        env=_base_environment(),
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _base_environment() -> dict[str, str]:
    """This process's environment without what would change a child's run (``_CHILD_DROPPED``)."""
    return {k: v for k, v in os.environ.items() if k not in _CHILD_DROPPED}


def cpu_seconds(function: Callable[[], object], inner: int = 1) -> float:
    """CPU time of this process for one call of ``function`` (mean of ``inner`` calls)."""
    start = time.process_time()
    for _ in range(inner):
        function()
    return (time.process_time() - start) / inner


def child_cpu_seconds() -> float:
    """CPU time (user + system) used so far by this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def times_of(
    functions: dict[str, Callable[[], object]],
    *,
    rounds: int,
    inner: int = 1,
    warmup: int = 1,
) -> dict[str, list[float]]:
    """Every function's CPU seconds, once per round in rotating order (``warmup`` rounds dropped).

    ``inner`` calls make one measurement (for functions too fast for the clock).
    """
    names = list(functions)
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(warmup + rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            seconds = cpu_seconds(functions[name], inner)
            if round_ >= warmup:
                times[name].append(seconds)
    return times


def compare(
    baseline: str,
    functions: dict[str, Callable[[], object]],
    *,
    rounds: int,
    inner: int = 1,
    warmup: int = 1,
) -> dict[str, Ratio]:
    """Time every function once per round, in rotating order; ratios to ``baseline``.

    ``functions`` holds the baseline too (see :func:`times_of`).
    """
    times = times_of(functions, rounds=rounds, inner=inner, warmup=warmup)
    return ratios_of(baseline, times)


def ratios_of(baseline: str, times: Mapping[str, Sequence[float]]) -> dict[str, Ratio]:
    """Per-round ratios of every series in ``times`` to the ``baseline`` series."""
    base = times[baseline]
    scale = statistics.median(base)
    return {
        name: Ratio(baseline, tuple(t / b for t, b in zip(series, base, strict=True)), scale)
        for name, series in times.items()
        if name != baseline
    }


def speedups() -> bool:
    """Whether fusion_core's C accelerator runs in this process."""
    from fusion_core._write import _json  # noqa: PLC0415 - after sys.path is set up

    return bool(_json.SPEEDUPS)


def report(
    bench: str,
    case: str,
    ratio: Ratio,
    *,
    candidate: str,
    target: float | None = None,
) -> None:
    """Print one figure; append it to ``$FUSION_BENCH_RESULTS`` when that is set.

    ``target`` is the ceiling the ratio must stay under (the verdict uses
    the median).
    """
    verdict = ""
    if target is not None:
        verdict = f"  target <= {target:.2f}: {'met' if ratio.median <= target else 'MISSED'}"
    print(f"  {candidate} / {ratio.baseline} [{case}]: {ratio.describe()}{verdict}")
    path = os.environ.get(RESULTS_VARIABLE)
    if not path:
        return
    q1, q3 = ratio.quartiles
    record = {
        "bench": bench,
        "case": case,
        "candidate": candidate,
        "baseline": ratio.baseline,
        "median": ratio.median,
        "q1": q1,
        "q3": q3,
        "min": min(ratio.samples),
        "max": max(ratio.samples),
        "rounds": len(ratio.samples),
        "baseline_ms": ratio.baseline_seconds * 1000,
        "target": target,
        "speedups": speedups(),
        "python": sys.version.split()[0],
    }
    with Path(path).open("a", encoding="utf-8") as results:
        results.write(json.dumps(record) + "\n")


def options(description: str | None, rounds: int = 9) -> argparse.Namespace:
    """The options every benchmark takes: ``--rounds N``."""
    parser = argparse.ArgumentParser(description=(description or "").split("\n")[0])
    parser.add_argument(
        "--rounds", type=int, default=rounds, help=f"measured rounds (default {rounds})"
    )
    return parser.parse_args()


def header(title: str) -> None:
    """Print the benchmark's title with the state of the accelerator."""
    state = "on" if speedups() else "off (FUSION_NO_SPEEDUPS or not built)"
    print(f"{title} -- C accelerator {state}, CPU time, ratios per round")


__all__ = [
    "RESULTS_VARIABLE",
    "Ratio",
    "child_cpu_seconds",
    "compare",
    "cpu_seconds",
    "header",
    "options",
    "ratios_of",
    "report",
    "speedups",
    "times_of",
]
