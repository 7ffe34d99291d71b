"""``python -m pytest_mcpfusion review`` on the bundled example, as a user runs it.

The billing example is copied into a pytester folder; a rule and a UI block
are changed; the suite runs in CI mode under xdist (pending files written,
the run fails with a count); the review is driven through a pseudo-terminal
(accept, skip, reject) and through ``--list``, ``--accept``, ``--reject`` and
``--format=markdown``; the suite then passes again.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest
from markdown_it import MarkdownIt

from tests._support.output import pending_in
from tests._support.written import Written

ROOT: Final = Path(__file__).resolve().parents[2]
SUITE: Final = "examples/billing/tests/test_wire.py"
SNAPSHOTS: Final = Path("examples/billing/tests/__snapshots__/test_wire")
PROMPT: Final = b"[q]uit > "
# Only a guard against a hung child: no assertion depends on how long anything takes.
HANG_GUARD: Final = 120.0
# The UI change reaches the single-invoice responses (get, paying_twice[paid]);
# the rule change only the invoice list, which has an overdue invoice.
UI_CHANGE: Final = ("{invoice['id']} · {icon}", "{invoice['id']} — {icon}")
RULE_CHANGE: Final = ("Mention them first.", "Mention them first of all.")
PENDING: Final = [
    "test_paying_twice[paid].wire.new",
    "test_tour[get].wire.new",
    "test_tour[list].wire.new",
]


@pytest.fixture
def billing(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The bundled example in a fresh folder, with a UI block and a rule changed."""
    shutil.copytree(
        ROOT / "examples", pytester.path / "examples", ignore=shutil.ignore_patterns("__pycache__")
    )
    _edit(pytester.path, *UI_CHANGE)
    _edit(pytester.path, *RULE_CHANGE)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("NO_COLOR", "1")
    return pytester


def _edit(root: Path, old: str, new: str) -> None:
    presenters = root / "examples/billing/presenters.py"
    source = presenters.read_text(encoding="utf-8")
    assert source.count(old) == 1, f"the example no longer holds {old!r}"
    presenters.write_text(source.replace(old, new), encoding="utf-8")


def _run_suite(billing: pytest.Pytester) -> pytest.RunResult:
    return billing.runpytest_subprocess(SUITE, "-p", "xdist", "-n", "2", "-p", "no:cacheprovider")


# What the failing CI run writes (the pending files), kept from this process's first run.
_FAILING_RUN = Written()


def _failing_run(billing: pytest.Pytester) -> None:
    """The CI run that fails and writes 3 pending files, or a copy of what it wrote.

    The run is under xdist (three processes starting): the first test to need
    it in a process runs it; the others write its files into their own copy
    of the example, which holds the same edits.
    """
    _FAILING_RUN.make(billing.path, lambda: _run_suite(billing).assert_outcomes(failed=3, passed=4))
    assert _pending(billing.path) == PENDING


def _pending(root: Path) -> list[str]:
    return pending_in(root / SNAPSHOTS)


def _review(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_mcpfusion", "review", *args],
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        stdin=subprocess.DEVNULL,
        timeout=HANG_GUARD,
    )


def _read_until(master: int, marker: bytes, seen: bytearray) -> None:
    """Read the terminal until ``marker`` appears after what was seen before."""
    start = len(seen)
    while marker not in seen[start:]:
        ready, _, _ = select.select([master], [], [], HANG_GUARD)
        assert ready, f"the review hung; its output so far:\n{seen.decode(errors='replace')}"
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            chunk = b""
        assert chunk, f"the review ended early:\n{seen.decode(errors='replace')}"
        seen += chunk


def _read_rest(master: int, seen: bytearray) -> None:
    while select.select([master], [], [], HANG_GUARD)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            return
        if not chunk:
            return
        seen += chunk


def review_in_terminal(root: Path, answers: list[str], *args: str) -> tuple[int, str]:
    """Run the review on a pseudo-terminal, answering each prompt in turn."""
    master, slave = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest_mcpfusion", "review", *args],
        cwd=root,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    seen = bytearray()
    try:
        for answer in answers:
            _read_until(master, PROMPT, seen)
            os.write(master, answer.encode() + b"\n")
        _read_rest(master, seen)
        status = process.wait(timeout=HANG_GUARD)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
            process.wait()
    return status, seen.decode("utf-8", errors="replace").replace("\r\n", "\n")


def test_review_in_a_terminal_then_green(billing: pytest.Pytester) -> None:
    """CI run writes 3 pending files and fails; accept, skip, reject; --accept; green."""
    accepted_list = (billing.path / SNAPSHOTS / "test_tour[list].wire").read_bytes()
    runs: list[pytest.RunResult] = []
    _FAILING_RUN.keep(billing.path, lambda: runs.append(_run_suite(billing)))
    runs[0].assert_outcomes(failed=3, passed=4)
    runs[0].stdout.fnmatch_lines(["*3 pending wire snapshots written*"])
    assert _pending(billing.path) == PENDING

    status, output = review_in_terminal(billing.path, ["a", "s", "r"])
    assert status == 1, output  # the skipped one is still pending
    assert "examples/billing/tests/test_wire.py::test_paying_twice[paid]" in output
    assert "summary: block 1 ui_passthrough(summary): 1 line changed" in output
    assert "summary: block 3 domain_rules: 1 line changed" in output
    assert "+📊 **Summary**: INV-003 — ✅ paid · 875.00 EUR" in output
    assert "+- Overdue: INV-003. Mention them first of all." in output
    assert "accepted 1, rejected 1, skipped 1; 1 still pending" in output
    assert _pending(billing.path) == ["test_tour[get].wire.new"]
    assert (billing.path / SNAPSHOTS / "test_tour[list].wire").read_bytes() == accepted_list

    listed = _review(billing.path, "--list")
    assert listed.returncode == 1
    assert listed.stdout.splitlines()[-1] == "1 pending"
    assert "test_wire.py::test_tour[get]" in listed.stdout

    accepted = _review(billing.path, "--accept")
    assert accepted.returncode == 0, accepted.stdout
    assert _pending(billing.path) == []

    _edit(billing.path, RULE_CHANGE[1], RULE_CHANGE[0])  # the rejected change is undone
    green = _run_suite(billing)
    green.assert_outcomes(passed=7)
    assert "pending wire" not in green.stdout.str()


def test_review_with_flags_and_markdown(billing: pytest.Pytester) -> None:
    """--format=markdown renders one section per pending test; --reject keeps accepted files."""
    before = {path.name: path.read_bytes() for path in (billing.path / SNAPSHOTS).iterdir()}
    _failing_run(billing)

    markdown = _review(billing.path, "--format=markdown")
    assert markdown.returncode == 1
    tokens = MarkdownIt("commonmark").parse(markdown.stdout)
    fences = [token for token in tokens if token.type == "fence"]
    assert len(fences) == 3  # one changed block in each of the three responses
    assert all(token.info == "diff" for token in fences)
    assert markdown.stdout.count("<details>") == 3
    html = MarkdownIt("commonmark").render(markdown.stdout)
    assert html.count("<details>") == html.count("</details>") == 3

    not_terminal = _review(billing.path)
    assert not_terminal.returncode == 1
    assert "nothing was decided" in not_terminal.stdout

    rejected = _review(billing.path, "--reject")
    assert rejected.returncode == 0
    assert rejected.stdout.count("rejected: ") == 3
    after = {path.name: path.read_bytes() for path in (billing.path / SNAPSHOTS).iterdir()}
    assert after == before
    assert _review(billing.path, "--list").returncode == 0


def test_accept_all_remaining_and_quit(billing: pytest.Pytester) -> None:
    """'q' leaves every remaining file pending; 'A' accepts all the rest without asking."""
    _failing_run(billing)
    status, output = review_in_terminal(billing.path, ["x", "s", "q"])
    assert status == 1
    assert "please answer one of" in output
    assert _pending(billing.path) == PENDING
    status, output = review_in_terminal(billing.path, ["r", "A"])
    assert status == 0, output
    assert "accepted 2, rejected 1, skipped 0; 0 still pending" in output
    assert _pending(billing.path) == []
    assert b"first of all" in (billing.path / SNAPSHOTS / "test_tour[list].wire").read_bytes()
