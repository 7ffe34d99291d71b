"""The reports name what failed: each failing contract test, its rule, its call, how to rerun it.

A hand-written app leaks a field (``[valid]`` fails with ``field-leak``) and
accepts arguments its schema refuses (``[invalid]`` fails with
``invalid-accepted``). The terminal report, the JSON document and the HTML
page name both tests by node id; the HTML page is opened in a real browser
(headless Chromium): its DOM has the failures table, and its screenshot is
not blank. On CI (``CI`` set) a missing Chromium fails the test; elsewhere
it skips, saying how to install it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Final

import jsonschema
import pytest

from tests._support.leaky import LEAKY

CHROMIUM: Final = "/usr/bin/chromium"
# Only a guard against a hung browser: no assertion depends on how long anything takes.
HANG_GUARD: Final = 120.0
VALID: Final = "pytest.ini::fusion-contract::users/get[valid]"
INVALID: Final = "pytest.ini::fusion-contract::users/get[invalid]"


@pytest.fixture
def reports(pytester: pytest.Pytester) -> tuple[pytest.RunResult, Path]:
    """The leaky app's contract run, with a JSON and an HTML report."""
    pytester.makefile(".ini", pytest="[pytest]\n")
    pytester.makepyfile(leaky=LEAKY)
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--fusion", "--fusion-app=leaky:app", "--fusion-examples=10", "-p", "no:cacheprovider",
        "--fusion-report=report.json", "--fusion-report-html=report.html",
    )  # fmt: skip
    result.assert_outcomes(failed=2)
    return result, pytester.path


def test_the_terminal_and_json_reports_name_each_failed_test(
    reports: tuple[pytest.RunResult, Path],
) -> None:
    """Node id, rule, the call and a one-line rerun that leaves the run's reports alone."""
    result, root = reports
    report = result.stdout.str().split("Fusion wire report", 1)[1]
    for test, rule in ((VALID, "[field-leak] users {"), (INVALID, "[invalid-accepted] users {")):
        lines = report.splitlines()
        at = lines.index(f"  {test}")
        assert lines[at + 1].startswith(f"      {rule}")
        command = lines[at + 2].removeprefix("      reproduce: ")
        assert shlex.split(command)[:3] == ["pytest", test, "--fusion"]
        assert "--fusion-report" not in command
    document = json.loads((root / "report.json").read_text(encoding="utf-8"))
    schema = json.loads(
        (Path(__file__).parents[2] / "pytest_mcpfusion/report.schema.json").read_text("utf-8")
    )
    jsonschema.validate(document, schema)
    failed = {test["test"]: test for test in document["failed_tests"]}
    assert sorted(failed) == [INVALID, VALID]
    assert failed[VALID]["rules"] == ["field-leak"]
    assert failed[VALID]["kinds"] == ["data"]
    assert failed[VALID]["calls"][0].startswith('users {"')
    assert failed[INVALID]["rules"] == ["invalid-accepted"]
    assert '"password_hash"' in document["samples"]["data"]


def _chromium() -> str:
    found = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    if found is None:
        message = "headless Chromium is needed to look at the HTML report: apt-get install chromium"
        if os.environ.get("CI"):
            pytest.fail(f"{message} (CI must run this test; .ci/run installs it)")
        pytest.skip(message)
    return found


def _browse(chromium: str, page: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", f"--user-data-dir={page.parent / 'chromium-profile'}", *args,
            page.as_uri(),
        ],
        capture_output=True, check=False, timeout=HANG_GUARD, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered rows of an 8-bit RGB or RGBA PNG."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    chunks: dict[bytes, list[bytes]] = {}
    at = 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        chunks.setdefault(kind, []).append(png[at + 8 : at + 8 + length])
        at += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][0][:10])
    assert depth == 8, depth
    assert color in (2, 6), color  # RGB or RGBA
    step = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(chunks[b"IDAT"]))
    stride = width * step
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        rows.append(bytes(previous := _unfilter(line[0], bytearray(line[1:]), previous, step)))
    return width, height, rows


def _unfilter(kind: int, row: bytearray, above: bytearray, step: int) -> bytearray:
    """One scanline with its PNG filter (0 none, 1 sub, 2 up, 3 average, 4 Paeth) undone."""
    for i, raw in enumerate(row):
        left = row[i - step] if i >= step else 0
        up = above[i]
        corner = above[i - step] if i >= step else 0
        guess = left + up - corner
        near, far, other = abs(guess - left), abs(guess - up), abs(guess - corner)
        paeth = left if near <= far and near <= other else up if far <= other else corner
        predicted = (0, left, up, (left + up) // 2, paeth)[kind]
        row[i] = (raw + predicted) & 0xFF
    return row


def test_the_html_report_renders_in_a_real_browser(
    reports: tuple[pytest.RunResult, Path],
) -> None:
    """Chromium's DOM holds the failures table with both tests; the screenshot is not blank."""
    chromium = _chromium()
    _, root = reports
    page = root / "report.html"
    dom = _browse(chromium, page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout.decode("utf-8")
    table = text[text.index('<table id="failures">') :].split("</table>", 1)[0]
    assert VALID in table
    assert INVALID in table
    assert 'href="#sample-data"' in table
    assert '<h3 id="sample-data">' in text
    shot = root / "report.png"
    taken = _browse(chromium, page, f"--screenshot={shot}", "--window-size=1000,900")
    assert taken.returncode == 0, taken.stderr[-2000:]
    width, height, rows = _pixels(shot.read_bytes())
    assert (width, height) == (1000, 900)
    step = len(rows[0]) // width
    inked = sum(1 for row in rows if len({row[i : i + step] for i in range(0, len(row), step)}) > 1)
    assert inked > height // 4, f"only {inked} of {height} rows hold anything: a blank page"
