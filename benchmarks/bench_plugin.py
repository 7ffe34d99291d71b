"""Cost of the pytest plugin: snapshots and start-up, each in one run.

Two parts (``--part``, default both):

* ``startup``: ``import pytest_mcpfusion.plugin`` over a bare ``import pytest``
  (goal: at most 60 ms more, CPU time of the child), and a one-test suite that
  never uses the plugin, plugin on over ``-p no:mcpfusion`` (goal <= 1.03x),
  with hypothesis's own pytest plugin loaded and without it;
* ``snapshots``, below.

The overhead criterion of the plugin: 500 tests that each call a tool through
``fusion_call`` and compare a wire snapshot (``assert result ==
fusion_snapshot``) cost at most 1.3x 500 tests that call the same handler
function directly and compare syrupy's default (amber) snapshot of its
return value.

Run: ``.venv/bin/python benchmarks/bench_plugin.py [--rounds N]``. Everything is
generated in a temporary directory (an app module, one directory per suite,
their snapshots) and removed afterwards; nothing is written into the repo.
Each suite runs as ``python -m pytest -p no:cacheprovider -q`` in a
subprocess: once with ``--snapshot-update`` to write its snapshots, then
``--rounds`` measured rounds, interleaved so drift on a shared machine hits
every suite alike; the ratios are taken per round (see ``_harness``).

Four times per run: wall time of the subprocess and its CPU time (both with
interpreter start and plugin imports, the same for every suite), pytest's
own "in X.XXs" (wall time from session start to the summary), and the CPU
time of the session alone (read in the child by a small plugin,
``sessioncpu``, at session start and at the summary). The verdict uses the
session's CPU time: as strict as pytest's time (no start-up to dilute the
ratio) and, unlike it, blind to the other processes of a shared machine,
which stretch a wall-clock figure by whatever they happen to run meanwhile.
(Over stdio the server is another process: its CPU is in the subprocess's
CPU time, not in the session's; that suite has no target.)
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from _harness import child_cpu_seconds, child_environment, header, ratios_of, report

TESTS = 500
TARGET = 1.30
RUNAWAY = 10.0
IMPORT_GOAL_MS = 60.0
UNUSED_GOAL = 1.03

APP_SOURCE = textwrap.dedent(
    """
    from pydantic import BaseModel

    from fusion_core import FusionApp, Presenter, Tool, tool_error


    class Invoice(BaseModel):
        id: str
        amount_cents: int
        status: str


    INVOICES = {
        f"INV-{index}": {
            "id": f"INV-{index}",
            "amount_cents": 1000 + index * 37,
            "status": ("paid", "pending", "overdue")[index % 3],
            "secret": "s3cr3t",
        }
        for index in range({count})
    }

    invoice = Presenter("Invoice", schema=Invoice, rules=["Amounts are in cents: divide by 100."])

    billing = Tool("billing", "Invoices of the shop")


    @billing.action("get", description="One invoice", returns=invoice, read_only=True)
    def get(id: str, ctx: object = None) -> object:
        if id not in INVOICES:
            return tool_error("NOT_FOUND", f"Invoice {id} does not exist.")
        return INVOICES[id]


    app = FusionApp([billing], name="shop")
    """
).replace("{count}", str(TESTS))

UNUSED_TEST = "def test_nothing():\n    assert 1 + 1 == 2\n"

WIRE_TEST = textwrap.dedent(
    """
    def test_get_{index}(fusion_call, fusion_snapshot):
        result = fusion_call("billing", "get", id="INV-{index}")
        assert result == fusion_snapshot
    """
)

PLAIN_TEST = textwrap.dedent(
    """
    def test_get_{index}(snapshot):
        value = get(id="INV-{index}")
        assert value == snapshot
    """
)

# The same ini for every suite: the app is configured everywhere (the plugin
# loads it lazily, on the first fusion_call), and the repo's own pytest
# configuration (filterwarnings=error, testpaths) stays out of the way.
INI = "[pytest]\npythonpath = .\nfusion_app = shop:app\n"

SUMMARY = re.compile(r"^(?P<passed>\d+) passed.* in (?P<seconds>[\d.]+)s", re.MULTILINE)
SESSION_CPU = re.compile(r"^session cpu (?P<seconds>[\d.]+)s$", re.MULTILINE)

# Loaded in every suite with -p: the session's own CPU time, on the terminal.
SESSION_CPU_PLUGIN = textwrap.dedent(
    """
    import time

    _START = [0.0]


    def pytest_sessionstart(session):
        _START[0] = time.process_time()


    def pytest_terminal_summary(terminalreporter):
        terminalreporter.write_line(f"session cpu {time.process_time() - _START[0]:.4f}s")
    """
)


@dataclass(frozen=True, slots=True)
class Suite:
    """One pytest invocation to measure."""

    label: str
    directory: str
    options: tuple[str, ...] = ()
    tests: int = TESTS


@dataclass(frozen=True, slots=True)
class Timing:
    """A run's subprocess wall and CPU time, pytest's time ("in X.XXs"), the session's CPU time."""

    wall: float
    session: float
    cpu: float
    session_cpu: float


class RunFailedError(RuntimeError):
    """A pytest run did not pass all its tests; the message holds its output tail."""


def write_project(root: Path) -> None:
    """The app module, the two test directories and the ini file, under ``root``."""
    (root / "pytest.ini").write_text(INI)
    (root / "shop.py").write_text(APP_SOURCE)
    (root / "sessioncpu.py").write_text(SESSION_CPU_PLUGIN)
    for name, preamble, template in (
        ("wire", "", WIRE_TEST),
        ("plain", "from shop import get\n", PLAIN_TEST),
    ):
        directory = root / name
        directory.mkdir()
        tests = "".join(template.format(index=index) for index in range(TESTS))
        (directory / f"test_{name}.py").write_text(preamble + tests)
    # A suite that never uses the plugin, in a project configured for it ...
    (root / "unused").mkdir()
    (root / "unused" / "test_unused.py").write_text(UNUSED_TEST)
    # ... and in a project with no Fusion configuration at all (its own ini).
    (root / "bare").mkdir()
    (root / "bare" / "pytest.ini").write_text("[pytest]\n")
    (root / "bare" / "test_unused.py").write_text(UNUSED_TEST)


def run(root: Path, suite: Suite, *extra: str) -> Timing:
    """Run one suite once; raise ``RunFailedError`` unless all its tests pass."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "sessioncpu",
        "-q",
        *suite.options,
        *extra,
        suite.directory,
    ]
    start = time.perf_counter()
    cpu_start = child_cpu_seconds()
    completed = subprocess.run(  # noqa: PLW1510 - the return code is checked below
        command, cwd=root, env=child_environment(root), capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    cpu = child_cpu_seconds() - cpu_start
    output = completed.stdout + completed.stderr
    summary = SUMMARY.search(completed.stdout)
    session_cpu = SESSION_CPU.search(completed.stdout)
    if (
        completed.returncode != 0
        or summary is None
        or session_cpu is None
        or int(summary["passed"]) != suite.tests
    ):
        tail = "\n".join(output.splitlines()[-30:])
        msg = (
            f"{suite.label}: `{' '.join(command[1:])}` in {root} exited with "
            f"{completed.returncode} (expected {suite.tests} passed, exit 0). Output tail:\n{tail}"
        )
        raise RunFailedError(msg)
    return Timing(
        wall=wall,
        session=float(summary["seconds"]),
        cpu=cpu,
        session_cpu=float(session_cpu["seconds"]),
    )


def measure(
    root: Path, suites: list[Suite], runs: int, *, update: bool = True
) -> dict[str, list[Timing]]:
    """Write the snapshots, then run every suite up to ``runs`` times, interleaved.

    A suite slower than ``RUNAWAY`` times the baseline after its first run is
    not repeated: more runs would not change the verdict, only cost minutes.
    """
    for suite in suites if update else ():
        if "--fusion-transport=stdio" not in suite.options:
            # The stdio suite compares against the snapshots the in-process one wrote.
            run(root, suite, "--snapshot-update")
    timings: dict[str, list[Timing]] = {suite.label: [] for suite in suites}
    baseline = timings[suites[0].label]
    for round_ in range(runs):
        for suite in suites:
            done = timings[suite.label]
            if done and baseline and done[0].session > RUNAWAY * baseline[0].session:
                continue
            done.append(run(root, suite))
        print(f"  round {round_ + 1}/{runs} done", file=sys.stderr)
    return timings


def import_cost(root: Path, rounds: int) -> list[float]:
    """CPU milliseconds ``import pytest_mcpfusion.plugin`` adds to ``import pytest``, per round."""
    extra: list[float] = []
    for _ in range(rounds):
        times = []
        for code in ("import pytest", "import pytest, pytest_mcpfusion.plugin"):
            start = child_cpu_seconds()
            subprocess.run(
                [sys.executable, "-c", code], cwd=root, env=child_environment(root), check=True
            )
            times.append(child_cpu_seconds() - start)
        extra.append((times[1] - times[0]) * 1000)
    return extra


def startup(root: Path, rounds: int) -> None:
    """The start-up rows: the import, and a one-test suite that never uses the plugin."""
    extra = sorted(import_cost(root, rounds * 3))
    median = statistics.median(extra)
    verdict = "met" if median <= IMPORT_GOAL_MS else "MISSED"
    print(
        f"  import pytest_mcpfusion.plugin over import pytest: {median:+.0f} ms CPU "
        f"(min-max {extra[0]:+.0f}..{extra[-1]:+.0f}, {len(extra)} rounds)  "
        f"goal <= +{IMPORT_GOAL_MS:.0f} ms: {verdict}"
    )
    off = ("-p", "no:mcpfusion")
    no_hyp = ("-p", "no:hypothesispytest")
    for where, directory in (("configured project", "unused"), ("no Fusion config", "bare")):
        for label, hyp in (("with hypothesis's plugin", ()), ("without it", no_hyp)):
            base = f"-p no:mcpfusion ({where}, {label})"
            suites = [
                Suite(base, directory, (*off, *hyp), tests=1),
                Suite("plugin on", directory, hyp, tests=1),
            ]
            timings = measure(root, suites, rounds * 3, update=False)
            series = {name: [t.cpu for t in runs_] for name, runs_ in timings.items()}
            for name, ratio in ratios_of(base, series).items():
                report("plugin", "unused, CPU time", ratio, candidate=name, target=UNUSED_GOAL)


def _arguments() -> argparse.Namespace:
    """``--rounds N`` (``_harness.options``) and ``--part``, repeatable (default: every part)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="measured rounds (default 7)")
    parser.add_argument("--part", action="append", choices=("startup", "snapshots"), default=None)
    args = parser.parse_args()
    args.part = args.part or ["startup", "snapshots"]
    return args


def main() -> int:
    """Print each suite's times and ratios, and the verdict; 1 if a run failed."""
    args = _arguments()
    with tempfile.TemporaryDirectory(prefix="bench_plugin_") as directory:
        root = Path(directory)
        write_project(root)
        try:
            if "startup" in args.part:
                header("bench_plugin: start-up of a session that never uses the plugin")
                startup(root, args.rounds)
        except RunFailedError as error:
            print(f"benchmark run failed: {error}", file=sys.stderr)
            return 1
    if "snapshots" not in args.part:
        return 0
    header("bench_plugin: 500 wire-snapshot tests / 500 plain syrupy tests")
    baseline = "b: handler() == snapshot (amber)"
    suites = [
        Suite(baseline, "plain"),
        Suite("a: fusion_call == fusion_snapshot", "wire"),
        Suite("a over stdio", "wire", ("--fusion-transport=stdio",)),
    ]
    with tempfile.TemporaryDirectory(prefix="bench_plugin_") as directory:
        root = Path(directory)
        write_project(root)
        try:
            timings = measure(root, suites, args.rounds)
        except RunFailedError as error:
            print(f"benchmark run failed: {error}", file=sys.stderr)
            return 1
    rounds = min(len(runs_) for runs_ in timings.values())
    if rounds < args.rounds:
        print(f"  (a suite over {RUNAWAY:.0f}x the baseline after one run is not repeated)")
    base = timings[baseline]
    print(f"{TESTS} tests per suite; the baseline's first run: pytest {base[0].session:.2f}s")
    fields = (
        ("session_cpu", "session CPU time"),
        ("session", "pytest time"),
        ("cpu", "CPU time"),
        ("wall", "wall time"),
    )
    for field, label in fields:
        series = {
            name: [getattr(timing, field) for timing in runs_[:rounds]]
            for name, runs_ in timings.items()
        }
        for name, ratio in ratios_of(baseline, series).items():
            target = TARGET if field == "session_cpu" and name.startswith("a:") else None
            report("plugin", label, ratio, candidate=name, target=target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
