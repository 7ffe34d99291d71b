"""The bundled example's suite, run as ``./dev demo`` runs it, ends with 0 warnings.

A warning must be something the user can act on. The billing example embeds
a child Presenter in ``invoices.get`` (its ``<domain_rules>`` reads as an
embed: the strict reading's ``ambiguous-layout``, exactly what the reference
writes) and tests that an unknown action is refused (``invoices.delete``).
Neither is a warning: the embed only under ``--fusion-strict``, the unknown
action is named as unknown, never as an action whose success path was never
reached.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
# Only a guard against a hung child: no assertion depends on how long anything takes.
HANG_GUARD: Final = 300.0


def _demo(report: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The pytest half of ``./dev demo`` (same suite, options and rootdir), with a JSON report."""
    env = {**os.environ, "NO_COLOR": "1"}
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        env.pop(name, None)
    return subprocess.run(
        [
            sys.executable, "-m", "pytest", "examples/billing/tests", "--fusion",
            "--fusion-app=examples.billing.app:app", "-p", "no:cacheprovider",
            f"--fusion-report={report}", *args,
        ],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", check=False, env=env,
        stdin=subprocess.DEVNULL, timeout=HANG_GUARD,
    )  # fmt: skip


def test_the_demo_suite_ends_with_zero_warnings(tmp_path: Path) -> None:
    """Exit 0, ``warnings: 0`` in the terminal and the JSON; the unknown action named as unknown."""
    report = tmp_path / "report.json"
    run = _demo(report)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    document = json.loads(report.read_text(encoding="utf-8"))
    warned = {a["name"]: a["warnings"] for a in document["actions"] if a["warnings"]}
    assert warned == {}
    assert document["totals"]["warnings"] == 0
    assert "\nwarnings: 0\n" in run.stdout
    assert "success path was never reached" not in run.stdout
    assert "to unknown tools or actions (refused): billing.invoices.delete" in run.stdout
    delete = next(a for a in document["actions"] if a["name"] == "billing.invoices.delete")
    assert delete["known"] is False


def test_strict_mode_still_names_the_embed_and_says_what_to_do(tmp_path: Path) -> None:
    """Under --fusion-strict the embedded child's rules are named, with both ways out."""
    run = _demo(tmp_path / "report.json", "--fusion-strict", "-k", "invoices and get")
    assert run.returncode == 1, run.stdout[-4000:]
    assert "[ambiguous-layout] this <domain_rules> block reads as an embedded" in run.stdout
    assert "nothing to change: the strict reading is for servers that embed no" in run.stdout
